//! Kinds as schema-format files: what `kondition import` writes from CRDs.
//!
//! The spec's fields and the status's own fields are written with every keyword the format
//! has; the status becomes the standard one (profile `standard`: conditions and
//! observedGeneration, which the CRD's own `conditions` and `observedGeneration` give way to).
//! Objects are written inline, so each regenerated struct is named after its place, as the
//! CRD front-end names them. What the format cannot say is returned as notes.

use serde_json::{Map, Value as Json, json};

use super::crd::{bounds, string_keys, validations_json as validations};
use crate::model::{Body, EnumValues, Field, IntegerFormat, Kind, ListKind, Schema, Scope, Type};

/// The schema file for `kind`, as YAML, and notes on what it could not hold.
pub fn schema_file(kind: &Kind) -> (String, Vec<String>) {
    let mut writer = Writer::default();
    if let Some(crd) = &kind.source_crd {
        writer.notes.extend(unexpressed(&crd.to_json()));
    }
    let mut out = Map::new();
    out.insert("group".into(), kind.group.clone().into());
    out.insert("kind".into(), kind.kind.clone().into());
    if kind.scope == Scope::Cluster {
        out.insert("scope".into(), "Cluster".into());
    }
    let mut names = Map::new();
    names.insert("plural".into(), kind.names.plural.clone().into());
    names.insert("singular".into(), kind.names.singular.clone().into());
    if !kind.names.short_names.is_empty() {
        names.insert("shortNames".into(), kind.names.short_names.clone().into());
    }
    if !kind.names.categories.is_empty() {
        names.insert("categories".into(), kind.names.categories.clone().into());
    }
    if let Some(list_kind) = &kind.names.list_kind {
        names.insert("listKind".into(), list_kind.clone().into());
    }
    out.insert("names".into(), Json::Object(names));
    if let Some(docs) = &kind.docs {
        out.insert("docs".into(), docs.clone().into());
    }
    out.insert("status".into(), json!({"profile": "standard"}));
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
            let columns: Vec<Json> = version
                .printer_columns
                .iter()
                .filter(|c| !matches!(c.name.as_str(), "Ready" | "Reason" | "Age"))
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
                    EnumValues::Str(values) => Json::from(values.clone()),
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

/// Keywords the schema format has no place for, counted over every version of `crd` (a CRD's
/// spec), as notes.
fn unexpressed(crd: &Json) -> Vec<String> {
    const KEYWORDS: &[&str] = &[
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "x-kubernetes-map-type",
        "x-kubernetes-embedded-resource",
    ];
    fn walk(schema: &Json, counts: &mut [usize]) {
        let Json::Object(map) = schema else { return };
        for (i, keyword) in KEYWORDS.iter().enumerate() {
            // An int-or-string's `anyOf: [integer, string]` is what the format's type means.
            let implied = *keyword == "anyOf" && map.contains_key("x-kubernetes-int-or-string");
            if map.contains_key(*keyword) && !implied {
                counts[i] += 1;
            }
        }
        if let Some(Json::Object(properties)) = map.get("properties") {
            properties.values().for_each(|p| walk(p, counts));
        }
        for key in ["items", "additionalProperties", "not"] {
            if let Some(child) = map.get(key) {
                walk(child, counts);
            }
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            if let Some(Json::Array(branches)) = map.get(key) {
                branches.iter().for_each(|b| walk(b, counts));
            }
        }
    }
    let mut counts = vec![0; KEYWORDS.len()];
    let mut selectable = 0;
    for version in crd["versions"].as_array().into_iter().flatten() {
        walk(&version["schema"]["openAPIV3Schema"], &mut counts);
        selectable += version["selectableFields"].as_array().map_or(0, Vec::len);
    }
    let mut notes: Vec<String> = KEYWORDS
        .iter()
        .zip(&counts)
        .filter(|(_, n)| **n > 0)
        .map(|(keyword, n)| {
            format!("`{keyword}` ({n}) has no place in the schema format; it was left out")
        })
        .collect();
    if selectable > 0 {
        notes.push(format!(
            "selectableFields ({selectable}) have no place in the schema format; they were left out"
        ));
    }
    notes
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
        let (file, _) = crate::read_crd_text(std::path::Path::new("w.yaml"), text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let (schema, notes) = schema_file(&file.kinds[0]);
        assert_eq!(
            notes,
            [
                "`not` (1) has no place in the schema format; it was left out",
                "version v1: `spec` is not an object with properties, which is all the schema format describes; it was left out",
                "version v1: the root field `data` is not part of the schema format (only spec and status are); it was left out",
            ]
        );
        assert!(schema.contains("\nkind: W\n"), "{schema}");
    }
}
