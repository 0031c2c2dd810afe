//! Kinds as schema-format files: what `kondition import` writes from CRDs.
//!
//! The spec's fields and the status's own fields are written with every keyword the format
//! has; the status becomes the standard one (profile `standard`: conditions and
//! observedGeneration, which the CRD's own `conditions` and `observedGeneration` give way to).
//! Objects and enums are written inline with the `name` the CRD front-end gave them, so that
//! `generate` on the file names every type as `generate` on the CRD does.
//!
//! What the format cannot say is returned as notes, one per keyword and place
//! (`version v1: spec.limits.*: `x-kubernetes-map-type` has no place in the schema format; it
//! was left out`): [`left_out`] walks the CRD's schema beside the model read from it and names
//! every keyword the file does not carry. A keyword that says only what its absence says
//! (`nullable: false`) is not a loss.

use serde_json::{Map, Value as Json, json};

use crate::manifest::{bounds, string_keys, validations_json as validations};
use crate::model::{Body, EnumValues, Field, IntegerFormat, Kind, ListKind, Schema, Scope, Type};

/// The schema file for `kind`, as YAML, and notes on what it could not hold.
pub fn schema_file(kind: &Kind) -> (String, Vec<String>) {
    let mut writer = Writer::default();
    if let Some(crd) = &kind.source_crd {
        writer.notes.extend(left_out(kind, &crd.to_json()));
    }
    let mut out = Map::new();
    out.insert("group".into(), kind.group.clone().into());
    out.insert("kind".into(), kind.kind.clone().into());
    if kind.scope == Scope::Cluster {
        out.insert("scope".into(), "Cluster".into());
    }
    out.insert(
        "names".into(),
        Json::Object(crate::manifest::names(&kind.names)),
    );
    if let Some(docs) = &kind.docs {
        out.insert("docs".into(), docs.clone().into());
    }
    out.insert("status".into(), json!({"profile": crate::profile::DEFAULT}));
    let versions: Vec<Json> = kind
        .versions
        .iter()
        .map(|version| {
            let mut v = Map::new();
            v.insert("name".into(), version.name.clone().into());
            if !version.served {
                v.insert("served".into(), false.into());
            }
            if version.storage {
                v.insert("storage".into(), true.into());
            }
            if version.deprecated {
                v.insert("deprecated".into(), true.into());
            }
            if let Some(warning) = &version.deprecation_warning {
                v.insert("deprecationWarning".into(), warning.clone().into());
            }
            writer.body(&version.body, &version.name, &mut v);
            // The standard status's columns are the format's own; a column of the CRD's named
            // like one of them but showing something else is kept, and takes its place.
            let defaults = crate::manifest::default_printer_columns("Ready");
            let own = |c: &&crate::model::PrinterColumn| {
                let column = json!({"name": c.name, "type": c.type_, "jsonPath": c.json_path});
                let plain = c.description.is_none() && c.priority.is_none() && c.format.is_none();
                !(plain && defaults.contains(&column))
            };
            for column in version.printer_columns.iter().filter(own) {
                if let Some(default) = defaults.iter().find(|d| same_column_name(d, &column.name)) {
                    writer.notes.push(format!(
                        "version {}: the CRD's printer column `{}` (`{}`) is kept, in place of the standard status's `{}` column (`{}`)",
                        version.name,
                        column.name,
                        column.json_path,
                        default["name"].as_str().unwrap_or_default(),
                        default["jsonPath"].as_str().unwrap_or_default(),
                    ));
                }
            }
            let columns: Vec<Json> = version
                .printer_columns
                .iter()
                .filter(own)
                .map(|c| {
                    let mut column =
                        json!({"name": c.name, "type": c.type_, "jsonPath": c.json_path});
                    if let Some(description) = &c.description {
                        column["description"] = description.clone().into();
                    }
                    if let Some(priority) = c.priority {
                        column["priority"] = priority.into();
                    }
                    if let Some(format) = &c.format {
                        column["format"] = format.clone().into();
                    }
                    column
                })
                .collect();
            if !columns.is_empty() {
                v.insert("printerColumns".into(), Json::Array(columns));
            }
            if let Some(scale) = &version.scale {
                let mut value = json!({
                    "specReplicasPath": scale.spec_replicas_path,
                    "statusReplicasPath": scale.status_replicas_path,
                });
                if let Some(selector) = &scale.label_selector_path {
                    value["labelSelectorPath"] = selector.clone().into();
                }
                v.insert("scale".into(), value);
            }
            Json::Object(v)
        })
        .collect();
    out.insert("versions".into(), Json::Array(versions));
    let text = format!(
        "# yaml-language-server: $schema=kondition.schema.json\n# Imported by `kondition import` from the CRD {}.{}.\n{}",
        kind.names.plural,
        kind.group,
        super::yaml::to_yaml(&Json::Object(out))
    );
    (text, writer.notes)
}

/// Whether a printer column of the name `name` would show under `column`'s heading (kubectl
/// shows headings in capitals).
fn same_column_name(column: &Json, name: &str) -> bool {
    column["name"]
        .as_str()
        .is_some_and(|n| n.eq_ignore_ascii_case(name))
}

/// The root fields every object has (the API server requires them of every request), so
/// that requiring them says nothing.
const KUBERNETES_OWN: [&str; 3] = ["apiVersion", "kind", "metadata"];

#[derive(Default)]
struct Writer {
    notes: Vec<String>,
}

impl Writer {
    fn body(&mut self, body: &Body, version: &str, out: &mut Map<String, Json>) {
        let fields: Vec<&Field> = body.fields().collect();
        for field in fields {
            match (field.name.as_str(), &field.schema.ty) {
                ("spec", Type::Object(object)) => {
                    out.insert("spec".into(), self.fields(&object.fields));
                    if !field.schema.validations.is_empty() {
                        out.insert("validations".into(), validations(&field.schema.validations));
                    }
                }
                ("status", Type::Object(object)) => {
                    let own: Vec<Field> = object
                        .fields
                        .iter()
                        .filter(|f| !matches!(f.name.as_str(), "conditions" | "observedGeneration"))
                        .cloned()
                        .collect();
                    if !own.is_empty() {
                        out.insert("statusFields".into(), self.fields(&own));
                    }
                }
                (name @ ("spec" | "status"), _) => self.notes.push(format!(
                    "version {version}: `{name}` is not an object with properties, which is all the schema format describes; it was left out"
                )),
                (other, _) => self.notes.push(format!(
                    "version {version}: the root field `{other}` is not part of the schema format (only spec and status are); it was left out"
                )),
            }
        }
    }

    fn fields(&mut self, fields: &[Field]) -> Json {
        Json::Object(
            fields
                .iter()
                .map(|field| {
                    let mut value = self.schema(&field.schema);
                    if field.required {
                        value.insert("required".into(), true.into());
                    }
                    (field.name.clone(), Json::Object(value))
                })
                .collect(),
        )
    }

    /// A field's (or an element's) long form.
    fn schema(&mut self, schema: &Schema) -> Map<String, Json> {
        let mut out = self.ty(&schema.ty);
        if let Some(docs) = &schema.docs {
            out.insert("docs".into(), docs.clone().into());
        }
        if schema.nullable {
            out.insert("nullable".into(), true.into());
        }
        if let Some(default) = &schema.default {
            out.insert("default".into(), default.clone());
        }
        if !schema.validations.is_empty() {
            out.insert("validations".into(), validations(&schema.validations));
        }
        out
    }

    fn ty(&mut self, ty: &Type) -> Map<String, Json> {
        let mut out = Map::new();
        let mut put = |key: &str, value: Option<Json>| {
            if let Some(value) = value {
                out.insert(key.into(), value);
            }
        };
        match ty {
            Type::String(s) => string_keys(&mut put, s),
            Type::Integer(i) => {
                let name = match i.format {
                    IntegerFormat::Int32 => "int32",
                    IntegerFormat::Int64 => "int64",
                };
                put("type", Some(name.into()));
                bounds(&mut put, &i.bounds);
            }
            Type::Number(n) => {
                put("type", Some("number".into()));
                put("format", n.format.clone().map(Json::from));
                bounds(&mut put, &n.bounds);
            }
            Type::Boolean => put("type", Some("boolean".into())),
            Type::Object(object) => {
                put("type", Some("object".into()));
                // A reused k8s-openapi type's structure has no name of its own (see `left_out`).
                put(
                    "name",
                    (!object.name.is_empty()).then(|| object.name.clone().into()),
                );
                let fields = self.fields(&object.fields);
                put("fields", Some(fields));
                put("minProperties", object.min_properties.map(Json::from));
                put("maxProperties", object.max_properties.map(Json::from));
            }
            Type::Map(map) => {
                put("type", Some("map".into()));
                put("values", Some(Json::Object(self.schema(&map.values))));
                put("minProperties", map.min_properties.map(Json::from));
                put("maxProperties", map.max_properties.map(Json::from));
            }
            Type::List(list) => {
                put("type", Some("list".into()));
                put("items", Some(Json::Object(self.schema(&list.items))));
                match &list.kind {
                    ListKind::Atomic => {}
                    ListKind::Set => put("listType", Some("set".into())),
                    ListKind::Map(keys) => {
                        put("listType", Some("map".into()));
                        put("listMapKeys", Some(keys.clone().into()));
                    }
                }
                put("minItems", list.min_items.map(Json::from));
                put("maxItems", list.max_items.map(Json::from));
            }
            Type::Enum(e) => {
                put("type", Some("enum".into()));
                let values = match &e.values {
                    EnumValues::Str(values) => {
                        put("name", Some(e.name.clone().into()));
                        Json::from(values.clone())
                    }
                    // Integer enums are plain integers in Rust: no type to name.
                    EnumValues::Int(values) => Json::from(values.clone()),
                };
                put("values", Some(values));
            }
            Type::IntOrString => put("type", Some("int-or-string".into())),
            Type::Quantity => put("type", Some("quantity".into())),
            Type::DateTime => put("type", Some("date-time".into())),
            Type::Raw => put("type", Some("raw".into())),
            Type::Named(name) => put("type", Some(name.clone().into())),
            Type::WellKnown(known) => {
                let name = crate::model::WellKnown::ALL
                    .iter()
                    .find(|(_, k)| k == known)
                    .map_or("raw", |(name, _)| name);
                put("type", Some(name.into()));
            }
            // The import writes the CRD's own structure; the schema format names no
            // k8s-openapi types beyond the well-known ones.
            Type::Reused(reused) => return self.ty(&reused.original),
            Type::Conditions(original) => return self.ty(original),
        }
        out
    }
}

/// Every keyword of `crd` (a CRD's spec) that the schema file for `kind` does not carry, with
/// its version and place, as notes; and the selectable fields, which the format has no place for.
///
/// The CRD's schema is walked beside the model read from it: what a keyword becomes in the
/// model is what the file writes (`Writer::ty`), so a keyword is carried when the model's type
/// keeps it. Below a keyword left out (a `oneOf`'s branches) nothing more is listed. The
/// status's `conditions` and `observedGeneration` give way to the standard status's, which
/// is noted once per version.
pub fn left_out(kind: &Kind, crd: &Json) -> Vec<String> {
    let mut notes = Vec::new();
    let mut selectable = 0;
    for version in &kind.versions {
        let Some(node) = crd["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == version.name.as_str())
        else {
            continue;
        };
        selectable += node["selectableFields"].as_array().map_or(0, Vec::len);
        let root = &node["schema"]["openAPIV3Schema"];
        let mut walk = LeftOut {
            version: &version.name,
            notes: &mut notes,
            in_reused: false,
        };
        walk.root(root, kind.docs.as_deref(), &version.body);
    }
    if selectable > 0 {
        notes.push(format!(
            "selectableFields ({selectable}) have no place in the schema format; they were left out"
        ));
    }
    notes
}

/// The walk of one version's schema for [`left_out`].
struct LeftOut<'a> {
    version: &'a str,
    notes: &'a mut Vec<String>,
    /// Inside a reused k8s-openapi type's structure, which is noted once, at its root.
    in_reused: bool,
}

/// Keywords that say only what their absence says, when they have this value.
fn says_nothing(key: &str, value: &Json) -> bool {
    match key {
        "nullable"
        | "exclusiveMinimum"
        | "exclusiveMaximum"
        | "x-kubernetes-preserve-unknown-fields"
        | "x-kubernetes-int-or-string"
        | "x-kubernetes-embedded-resource" => value == &Json::Bool(false),
        "required" | "x-kubernetes-validations" => value.as_array().is_some_and(Vec::is_empty),
        "properties" => value.as_object().is_some_and(Map::is_empty),
        "x-kubernetes-list-type" => value == "atomic",
        _ => false,
    }
}

impl LeftOut<'_> {
    fn note(&mut self, path: &str, key: &str) {
        self.notes.push(format!(
            "version {}: {path}: `{key}` has no place in the schema format; it was left out",
            self.version
        ));
    }

    /// Notes every key of `node` but `carried` (and those that say nothing).
    fn keys(&mut self, node: &Json, path: &str, carried: &[&str]) {
        let Json::Object(map) = node else { return };
        for (key, value) in map {
            if !carried.contains(&key.as_str()) && !says_nothing(key, value) {
                self.note(path, key);
            }
        }
    }

    /// The root: its description is the kind's docs (from the stored version); `spec` and
    /// `status` are walked, other root fields are noted by `Writer::body`.
    fn root(&mut self, root: &Json, docs: Option<&str>, body: &Body) {
        let mut carried = vec!["type", "properties"];
        if root["description"].as_str() == docs {
            carried.push("description");
        }
        // A schema-format kind always requires `spec`, and nothing else at the root but what
        // every object has anyway (`required: [metadata, spec]` says the same).
        let required: Vec<&str> = root["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .filter(|name| !KUBERNETES_OWN.contains(name))
            .collect();
        if required == ["spec"] {
            carried.push("required");
        } else if !required.contains(&"spec") && !root["properties"]["spec"].is_null() {
            self.notes.push(format!(
                "version {}: the root: the schema format requires `spec`, which the CRD does not",
                self.version
            ));
        }
        self.keys(root, "the root", &carried);
        // apiVersion, kind and metadata are Kubernetes' own and not in the model; only
        // constraints on metadata's fields (`metadata.name`'s length) are the kind's.
        if root["properties"]["metadata"]["properties"]
            .as_object()
            .is_some_and(|p| !p.is_empty())
        {
            self.note("metadata", "properties");
        }
        for field in body.fields() {
            let node = &root["properties"][field.name.as_str()];
            match (field.name.as_str(), &field.schema.ty) {
                ("spec", Type::Object(object)) => {
                    let carried = ["type", "properties", "required", "x-kubernetes-validations"];
                    self.keys(node, "spec", &carried);
                    self.validations(node, "spec");
                    self.fields(node, &object.fields, "spec", &[]);
                }
                ("status", Type::Object(object)) => {
                    self.keys(node, "status", &["type", "properties", "required"]);
                    let standard = ["conditions", "observedGeneration"];
                    if standard
                        .iter()
                        .any(|name| !node["properties"][name].is_null())
                    {
                        self.notes.push(format!(
                            "version {}: status: the CRD's own `conditions` and `observedGeneration` give way to the standard status's",
                            self.version
                        ));
                    }
                    self.fields(node, &object.fields, "status", &standard);
                }
                _ => {}
            }
        }
    }

    fn fields(&mut self, node: &Json, fields: &[Field], path: &str, skip: &[&str]) {
        for field in fields.iter().filter(|f| !skip.contains(&f.name.as_str())) {
            let child = &node["properties"][field.name.as_str()];
            self.schema(child, &field.schema, &format!("{path}.{}", field.name));
        }
    }

    /// A CEL rule's keys beyond the format's are noted under the rule's index.
    fn validations(&mut self, node: &Json, path: &str) {
        let rules = node["x-kubernetes-validations"].as_array();
        for (i, rule) in rules.into_iter().flatten().enumerate() {
            let path = format!("{path}: x-kubernetes-validations[{i}]");
            self.keys(rule, &path, crate::model::Validation::KEYS);
        }
    }

    fn schema(&mut self, node: &Json, schema: &Schema, path: &str) {
        let mut carried = vec!["x-kubernetes-validations"];
        if schema.docs.is_some() {
            carried.push("description");
        }
        if schema.nullable {
            carried.push("nullable");
        }
        if schema.default.is_some() {
            carried.push("default");
        }
        self.validations(node, path);
        self.ty(node, &schema.ty, path, carried);
    }

    fn ty(&mut self, node: &Json, ty: &Type, path: &str, mut carried: Vec<&str>) {
        let bounds = [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ];
        match ty {
            Type::String(_) => {
                carried.extend(["type", "format", "pattern", "minLength", "maxLength"])
            }
            Type::DateTime => carried.extend(["type", "format"]),
            Type::Integer(_) => {
                carried.push("type");
                carried.extend(bounds);
                // The format's integers are int32 and int64; another format is read as int64.
                if matches!(node["format"].as_str(), Some("int32" | "int64")) {
                    carried.push("format");
                }
            }
            Type::Number(_) => {
                carried.extend(["type", "format"]);
                carried.extend(bounds);
            }
            Type::Boolean => carried.push("type"),
            Type::Enum(_) => carried.extend(["type", "enum"]),
            Type::IntOrString => carried.push("x-kubernetes-int-or-string"),
            Type::Quantity => {
                carried.extend(["x-kubernetes-int-or-string", "pattern"]);
                // The format's quantity is written with controller-gen's `anyOf: [integer,
                // string]` (its int-or-string is written without one).
                let branches = node["anyOf"].as_array().map(|b| b.as_slice());
                if branches == Some(&[json!({"type": "integer"}), json!({"type": "string"})]) {
                    carried.push("anyOf");
                }
            }
            Type::Raw => carried.push("x-kubernetes-preserve-unknown-fields"),
            Type::Object(object) => {
                carried.extend(["type", "properties", "required"]);
                carried.extend(["minProperties", "maxProperties"]);
                self.keys(node, path, &carried);
                self.fields(node, &object.fields, path, &[]);
                return;
            }
            Type::Map(map) => {
                carried.extend(["type", "minProperties", "maxProperties"]);
                let values = &node["additionalProperties"];
                if values.is_object() {
                    carried.push("additionalProperties");
                }
                self.keys(node, path, &carried);
                if values.is_object() {
                    self.schema(values, &map.values, &format!("{path}.*"));
                }
                return;
            }
            Type::List(list) => {
                carried.extend(["type", "minItems", "maxItems"]);
                carried.extend(["x-kubernetes-list-type", "x-kubernetes-list-map-keys"]);
                let items = &node["items"];
                if items.is_object() {
                    carried.push("items");
                }
                self.keys(node, path, &carried);
                if items.is_object() {
                    self.schema(items, &list.items, &format!("{path}[*]"));
                }
                return;
            }
            Type::Reused(reused) => {
                if !self.in_reused {
                    self.notes.push(format!(
                        "version {}: {path}: has the structure of k8s-openapi's `{}`, which the schema format cannot name; the file writes the structure out, and `generate` makes a struct of it",
                        self.version, reused.path
                    ));
                }
                let outer = std::mem::replace(&mut self.in_reused, true);
                self.ty(node, &reused.original, path, carried);
                self.in_reused = outer;
                return;
            }
            Type::Conditions(original) => return self.ty(node, original, path, carried),
            // Not read from a CRD.
            Type::Named(_) | Type::WellKnown(_) => {}
        }
        self.keys(node, path, &carried);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_format_cannot_hold_is_noted() {
        let text = r"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ws.example.com}
spec:
  group: example.com
  names: {kind: W, plural: ws}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          data: {type: string, not: {pattern: x}}
";
        let (file, _) = crate::load::read_crd_text(std::path::Path::new("w.yaml"), text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let (schema, notes) = schema_file(&file.kinds[0]);
        assert_eq!(
            notes,
            [
                "version v1: the root: the schema format requires `spec`, which the CRD does not",
                // Left out whole: the `not` inside it is not listed again.
                "version v1: `spec` is not an object with properties, which is all the schema format describes; it was left out",
                "version v1: the root field `data` is not part of the schema format (only spec and status are); it was left out",
            ]
        );
        assert!(schema.contains("\nkind: W\n"), "{schema}");
    }

    /// CloudNativePG's Cluster, in what matters here (issue 37, item 6): the root requires
    /// `metadata` and `spec`, which is the format's own requirement; its `Ready` column shows
    /// the ready instances, not the Ready condition. The column is kept and said so, and the
    /// CRD made from the file shows it in place of the condition's; the CRD's `Reason` and
    /// `Age` columns, the format's own, go silently.
    #[test]
    fn the_root_requiring_metadata_and_a_column_of_the_crds_own_named_ready() {
        let text = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: clusters.postgresql.cnpg.io}
spec:
  group: postgresql.cnpg.io
  names: {kind: Cluster, plural: clusters}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Instances, type: integer, jsonPath: .status.instances}
    - {name: Ready, type: integer, jsonPath: .status.readyInstances}
    - {name: Reason, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].reason'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        required: [metadata, spec]
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              instances: {type: integer}
          status:
            type: object
            properties:
              instances: {type: integer}
              readyInstances: {type: integer}
    subresources: {status: {}}
"#;
        let (file, _) = crate::load::read_crd_text(std::path::Path::new("cluster.yaml"), text)
            .unwrap_or_else(|e| panic!("{e}"));
        let (schema, notes) = schema_file(&file.kinds[0]);
        assert_eq!(
            notes,
            [
                "version v1: the CRD's printer column `Ready` (`.status.readyInstances`) is kept, in place of the standard status's `Ready` column (`.status.conditions[?(@.type==\"Ready\")].status`)",
            ]
        );
        assert!(
            schema.ends_with(
                "  printerColumns:\n  - name: Instances\n    type: integer\n    jsonPath: \".status.instances\"\n  - name: Ready\n    type: integer\n    jsonPath: \".status.readyInstances\"\n"
            ),
            "{schema}"
        );
        let path = std::path::Path::new("cluster.schema.yaml");
        let documents = crate::source::yaml::parse(&schema).expect("YAML");
        let read = crate::format::read_documents(
            path,
            &documents,
            &crate::profile::Profiles::embedded(),
        )
        .unwrap_or_else(|e| panic!("{e}\n{schema}"));
        let crd = crate::manifest::crd(&read.kinds[0], &read.types);
        let version = &crd["spec"]["versions"][0];
        assert_eq!(
            version["additionalPrinterColumns"],
            json!([
                {"name": "Reason", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].reason"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                {"name": "Instances", "type": "integer", "jsonPath": ".status.instances"},
                {"name": "Ready", "type": "integer", "jsonPath": ".status.readyInstances"},
            ])
        );
        assert_eq!(
            version["schema"]["openAPIV3Schema"]["required"],
            json!(["spec"])
        );
    }

    /// A root that requires `spec` and `status` is told as such, not as lacking `spec`.
    #[test]
    fn a_root_requiring_more_than_spec_is_noted_as_it_is() {
        let crd = |required: &str| {
            format!(
                "
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: ws.example.com}}
spec:
  group: example.com
  names: {{kind: W, plural: ws}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        {required}
        properties:
          spec: {{type: object, properties: {{a: {{type: string}}}}}}
          status: {{type: object, properties: {{b: {{type: string}}}}}}
"
            )
        };
        let lacks_spec =
            "version v1: the root: the schema format requires `spec`, which the CRD does not";
        let left_out =
            "version v1: the root: `required` has no place in the schema format; it was left out";
        for (required, expected) in [
            ("required: [spec]", vec![]),
            ("required: [metadata, spec]", vec![]),
            ("required: [spec, kind, apiVersion, metadata]", vec![]),
            ("required: [spec, status]", vec![left_out]),
            ("required: [metadata]", vec![lacks_spec, left_out]),
            ("", vec![lacks_spec]),
        ] {
            let text = crd(required);
            let (file, _) = crate::load::read_crd_text(std::path::Path::new("w.yaml"), &text)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            let (_, notes) = schema_file(&file.kinds[0]);
            let notes: Vec<&str> = notes
                .iter()
                .map(String::as_str)
                .filter(|n| n.contains("the root"))
                .collect();
            assert_eq!(notes, expected, "{required}");
        }
    }
}
