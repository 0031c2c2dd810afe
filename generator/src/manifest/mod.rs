//! Each kind's CustomResourceDefinition, as JSON.
//!
//! A kind read from a CRD gets that CRD back: its `spec` is kept whole in the model. A kind
//! from the schema format is lowered here: the standard status (the conditions list as a map
//! keyed by `type` with metav1's validation, and observedGeneration), the Ready, Reason and Age
//! printer columns, and every keyword its fields carry. The generated `crds()`, `Kind::crd()`
//! and `kondition crd` all return this one value.

use serde_json::{Map, Value as Json, json};

mod well_known;

use crate::model::{
    Body, Bounds, EnumValues, Field, Kind, ListKind, NamedType, Names, Schema, Scope, StringType, Type,
    Validation, Version,
};

/// The CRD of `kind`; `named` are the types its file declares.
pub fn crd(kind: &Kind, named: &[NamedType]) -> Json {
    let spec = match &kind.source_crd {
        Some(spec) => spec.to_json(),
        None => lower_spec(kind, named),
    };
    // Built by hand: `json!` would copy the spec through serialization.
    let mut crd = Map::new();
    crd.insert("apiVersion".into(), API_VERSION.into());
    crd.insert("kind".into(), CRD_KIND.into());
    crd.insert("metadata".into(), metadata(kind));
    crd.insert("spec".into(), spec);
    Json::Object(crd)
}

/// [`crd`] as pretty-printed JSON, exactly as serde_json prints it. A kind read from a CRD
/// keeps its spec as that text already: it is put in place rather than read back and written
/// again (for the large CRDs of the corpus that took as long as everything else).
pub fn crd_text(kind: &Kind, named: &[NamedType]) -> String {
    let Some(spec) = &kind.source_crd else {
        return serde_json::to_string_pretty(&crd(kind, named)).unwrap_or_default();
    };
    let head = crd_head(kind);
    let spec = spec.text();
    let mut text = String::with_capacity(head.len() + spec.len() + CRD_TAIL.len());
    text.push_str(&head);
    text.push_str(spec);
    text.push_str(CRD_TAIL);
    text
}

/// [`crd_text`] and a line break, the kind's CRD text taken out of `kind` (its
/// `source_crd` is `None` after) and made the file's: a CRD's text is the largest of a run,
/// and a copy of each beside the model's own doubled generation's peak memory (issue 48).
pub fn take_crd_file_text(kind: &mut Kind, named: &[NamedType]) -> String {
    let Some(spec) = kind.source_crd.take() else {
        return crd_text(kind, named) + "\n";
    };
    let head = crd_head(kind);
    let mut text = spec.into_text();
    text.reserve_exact(head.len() + CRD_TAIL.len() + 1);
    text.insert_str(0, &head);
    text.push_str(CRD_TAIL);
    text.push('\n');
    text
}

/// What comes after a kind's spec in its CRD's text.
const CRD_TAIL: &str = "\n}";

/// What comes before a kind's spec in its CRD's text: the CRD's `apiVersion`, `kind` and
/// `metadata`, and the spec's key (the spec is held one level in already:
/// `SourceSpec::text`).
fn crd_head(kind: &Kind) -> String {
    let metadata = serde_json::to_string_pretty(&metadata(kind)).unwrap_or_default();
    let mut head = String::with_capacity(metadata.len() * 2 + 120);
    head.push_str(&format!(
        "{{\n  \"apiVersion\": \"{API_VERSION}\",\n  \"kind\": \"{CRD_KIND}\",\n  \
         \"metadata\": "
    ));
    push_indented(&mut head, &metadata);
    head.push_str(",\n  \"spec\": ");
    head
}

/// Pretty-printed JSON `value` one level deeper: JSON text has no line break but between
/// values.
fn push_indented(text: &mut String, value: &str) {
    for (i, line) in value.split('\n').enumerate() {
        if i > 0 {
            text.push_str("\n  ");
        }
        text.push_str(line);
    }
}

/// The CRD's `metadata`: its name, and the labels and annotations of the CRD the kind was
/// read from, if any.
fn metadata(kind: &Kind) -> Json {
    let mut metadata = Map::new();
    let strings = |map: &std::collections::BTreeMap<String, String>| {
        Json::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), v.as_str().into()))
                .collect(),
        )
    };
    if !kind.crd_metadata.annotations.is_empty() {
        metadata.insert(
            "annotations".into(),
            strings(&kind.crd_metadata.annotations),
        );
    }
    if !kind.crd_metadata.labels.is_empty() {
        metadata.insert("labels".into(), strings(&kind.crd_metadata.labels));
    }
    metadata.insert("name".into(), crd_name(kind).into());
    Json::Object(metadata)
}

fn crd_name(kind: &Kind) -> String {
    format!("{}.{}", kind.names.plural, kind.group)
}

const API_VERSION: &str = "apiextensions.k8s.io/v1";
const CRD_KIND: &str = "CustomResourceDefinition";

/// A kind's `names` beside its `kind` (`plural`, `singular`, then those it has of
/// `shortNames`, `categories` and `listKind`), as a CRD and a schema file both write them.
pub fn names(names: &Names) -> Map<String, Json> {
    let mut written = Map::new();
    written.insert("plural".into(), names.plural.clone().into());
    written.insert("singular".into(), names.singular.clone().into());
    if !names.short_names.is_empty() {
        written.insert("shortNames".into(), names.short_names.clone().into());
    }
    if !names.categories.is_empty() {
        written.insert("categories".into(), names.categories.clone().into());
    }
    if let Some(list_kind) = &names.list_kind {
        written.insert("listKind".into(), list_kind.clone().into());
    }
    written
}

fn lower_spec(kind: &Kind, named: &[NamedType]) -> Json {
    let mut names = Map::new();
    names.insert("kind".into(), kind.kind.clone().into());
    names.extend(self::names(&kind.names));
    let versions: Vec<Json> = kind
        .versions
        .iter()
        .map(|v| lower_version(kind, v, named))
        .collect();
    // Objects holding schemas are built by hand here and below: `json!` would copy them
    // through serialization.
    let mut spec = Map::new();
    spec.insert("group".into(), kind.group.clone().into());
    spec.insert("names".into(), Json::Object(names));
    let scope = match kind.scope {
        Scope::Namespaced => "Namespaced",
        Scope::Cluster => "Cluster",
    };
    spec.insert("scope".into(), scope.into());
    spec.insert("versions".into(), Json::Array(versions));
    Json::Object(spec)
}

fn lower_version(kind: &Kind, version: &Version, named: &[NamedType]) -> Json {
    let mut out = Map::new();
    out.insert("name".into(), version.name.clone().into());
    out.insert("served".into(), version.served.into());
    out.insert("storage".into(), version.storage.into());
    if version.deprecated {
        out.insert("deprecated".into(), true.into());
        if let Some(warning) = &version.deprecation_warning {
            out.insert("deprecationWarning".into(), warning.clone().into());
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    if let Some(docs) = &kind.docs {
        root.insert("description".into(), docs.clone().into());
    }
    let lowering = Lowering { named };
    match &version.body {
        Body::Standard {
            spec,
            spec_validations,
            status_fields,
        } => {
            let mut spec_schema = lowering.object(spec, None);
            insert_validations(&mut spec_schema, spec_validations);
            let mut status = lowering.object(status_fields, None);
            let properties = status
                .entry("properties")
                .or_insert_with(|| Json::Object(Map::new()));
            if let Json::Object(properties) = properties {
                let mut standard = Map::new();
                standard.insert("conditions".into(), well_known::conditions());
                standard.insert(
                    "observedGeneration".into(),
                    json!({
                        "description": "The metadata.generation the status was last computed from.",
                        "type": "integer",
                        "format": "int64",
                    }),
                );
                standard.append(properties);
                *properties = standard;
            }
            let mut properties = Map::new();
            properties.insert("spec".into(), Json::Object(spec_schema));
            properties.insert("status".into(), Json::Object(status));
            root.insert("properties".into(), Json::Object(properties));
            root.insert("required".into(), json!(["spec"]));
        }
        Body::Root(fields) => {
            root.append(&mut lowering.object(fields, None));
        }
    }
    let mut schema = Map::new();
    schema.insert("openAPIV3Schema".into(), Json::Object(root));
    out.insert("schema".into(), Json::Object(schema));
    let mut subresources = Map::new();
    if version.status_subresource {
        subresources.insert("status".into(), json!({}));
    }
    if let Some(scale) = &version.scale {
        let mut value = json!({
            "specReplicasPath": scale.spec_replicas_path,
            "statusReplicasPath": scale.status_replicas_path,
        });
        if let Some(selector) = &scale.label_selector_path {
            value["labelSelectorPath"] = selector.clone().into();
        }
        subresources.insert("scale".into(), value);
    }
    out.insert("subresources".into(), Json::Object(subresources));
    out.insert(
        "additionalPrinterColumns".into(),
        Json::Array(printer_columns(kind, version)),
    );
    Json::Object(out)
}

/// The printer columns a kind with the standard status gets before its own: Ready and Reason
/// (of the summary condition `summary`), and Age.
pub fn default_printer_columns(summary: &str) -> [Json; 3] {
    [
        json!({"name": "Ready", "type": "string", "jsonPath": format!(".status.conditions[?(@.type==\"{summary}\")].status")}),
        json!({"name": "Reason", "type": "string", "jsonPath": format!(".status.conditions[?(@.type==\"{summary}\")].reason")}),
        json!({"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}),
    ]
}

/// Ready, Reason and Age (from the summary condition), then the kind's own columns; a column
/// of the kind's own named like a default one (as kubectl shows names, in capitals) takes
/// its place.
fn printer_columns(kind: &Kind, version: &Version) -> Vec<Json> {
    let mut columns = Vec::new();
    if let Some(status) = &kind.status {
        columns.extend(
            default_printer_columns(&status.summary)
                .into_iter()
                .filter(|default| {
                    let name = default["name"].as_str().unwrap_or_default();
                    !version
                        .printer_columns
                        .iter()
                        .any(|own| own.name.eq_ignore_ascii_case(name))
                }),
        );
    }
    for column in &version.printer_columns {
        let mut value =
            json!({"name": column.name, "type": column.type_, "jsonPath": column.json_path});
        if let Some(description) = &column.description {
            value["description"] = description.clone().into();
        }
        if let Some(priority) = column.priority {
            value["priority"] = priority.into();
        }
        if let Some(format) = &column.format {
            value["format"] = format.clone().into();
        }
        columns.push(value);
    }
    columns
}

/// Typed schemas into JSON Schema.
struct Lowering<'m> {
    named: &'m [NamedType],
}

impl Lowering<'_> {
    /// `type: object` with `fields` as properties and the required ones listed.
    fn object(&self, fields: &[Field], docs: Option<&str>) -> Map<String, Json> {
        let mut out = Map::new();
        out.insert("type".into(), "object".into());
        if let Some(docs) = docs {
            out.insert("description".into(), docs.into());
        }
        if !fields.is_empty() {
            let properties: Map<String, Json> = fields
                .iter()
                .map(|f| (f.name.clone(), self.schema(&f.schema)))
                .collect();
            out.insert("properties".into(), Json::Object(properties));
        }
        let required: Vec<Json> = fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name.clone().into())
            .collect();
        if !required.is_empty() {
            out.insert("required".into(), Json::Array(required));
        }
        out
    }

    fn schema(&self, schema: &Schema) -> Json {
        let mut out = self.ty(&schema.ty, schema.docs.as_deref());
        if schema.nullable {
            out.insert("nullable".into(), true.into());
        }
        if let Some(default) = &schema.default {
            out.insert("default".into(), default.clone());
        }
        insert_validations(&mut out, &schema.validations);
        Json::Object(out)
    }

    fn ty(&self, ty: &Type, docs: Option<&str>) -> Map<String, Json> {
        let mut out = Map::new();
        if let Some(docs) = docs {
            out.insert("description".into(), docs.into());
        }
        let mut put = |key: &str, value: Option<Json>| {
            if let Some(value) = value {
                out.insert(key.into(), value);
            }
        };
        match ty {
            Type::String(s) => string_keys(&mut put, s),
            Type::Integer(i) => {
                put("type", Some("integer".into()));
                let format = match i.format {
                    crate::model::IntegerFormat::Int32 => "int32",
                    crate::model::IntegerFormat::Int64 => "int64",
                };
                put("format", Some(format.into()));
                bounds(&mut put, &i.bounds);
            }
            Type::Number(n) => {
                put("type", Some("number".into()));
                put("format", n.format.clone().map(Json::from));
                bounds(&mut put, &n.bounds);
            }
            Type::Boolean => put("type", Some("boolean".into())),
            Type::Object(object) => {
                let mut fields = self.object(&object.fields, None);
                put("minProperties", object.min_properties.map(Json::from));
                put("maxProperties", object.max_properties.map(Json::from));
                out.append(&mut fields);
            }
            Type::Map(map) => {
                put("type", Some("object".into()));
                put("additionalProperties", Some(self.schema(&map.values)));
                put("minProperties", map.min_properties.map(Json::from));
                put("maxProperties", map.max_properties.map(Json::from));
            }
            Type::List(list) => {
                put("type", Some("array".into()));
                put("items", Some(self.schema(&list.items)));
                put("minItems", list.min_items.map(Json::from));
                put("maxItems", list.max_items.map(Json::from));
                match &list.kind {
                    ListKind::Atomic => {}
                    ListKind::Set => put("x-kubernetes-list-type", Some("set".into())),
                    ListKind::Map(keys) => {
                        put("x-kubernetes-list-type", Some("map".into()));
                        put("x-kubernetes-list-map-keys", Some(keys.clone().into()));
                    }
                }
            }
            Type::Enum(e) => match &e.values {
                EnumValues::Str(values) => {
                    put("type", Some("string".into()));
                    put("enum", Some(values.clone().into()));
                }
                EnumValues::Int(values) => {
                    put("type", Some("integer".into()));
                    put("format", Some("int64".into()));
                    put("enum", Some(values.clone().into()));
                }
            },
            Type::IntOrString => put("x-kubernetes-int-or-string", Some(true.into())),
            Type::Quantity => {
                put("x-kubernetes-int-or-string", Some(true.into()));
                put(
                    "anyOf",
                    Some(json!([{"type": "integer"}, {"type": "string"}])),
                );
                put("pattern", Some(crate::model::QUANTITY_PATTERN.into()));
            }
            Type::DateTime => {
                put("type", Some("string".into()));
                put("format", Some("date-time".into()));
            }
            Type::Raw => put("x-kubernetes-preserve-unknown-fields", Some(true.into())),
            Type::Named(name) => {
                if let Some(named) = self.named.iter().find(|t| &t.name == name) {
                    // The declaration's docs, unless the field has its own.
                    let mut declared = match self.schema(&named.schema) {
                        Json::Object(map) => map,
                        _ => Map::new(),
                    };
                    if docs.is_some() {
                        declared.remove("description");
                    }
                    out.append(&mut declared);
                }
            }
            Type::WellKnown(known) => {
                let mut schema = well_known::schema(*known);
                if docs.is_some() {
                    schema.remove("description");
                }
                out.append(&mut schema);
            }
            Type::Reused(reused) => return self.ty(&reused.original, docs),
            Type::Conditions(original) => return self.ty(original, docs),
        }
        out
    }
}

/// A string's keys, the same in a CRD and in a schema file: `type: string`, `format`,
/// `pattern` and the length bounds.
pub(super) fn string_keys(put: &mut impl FnMut(&str, Option<Json>), s: &StringType) {
    put("type", Some("string".into()));
    put("format", s.format.clone().map(Json::from));
    put("pattern", s.pattern.clone().map(Json::from));
    put("minLength", s.min_length.map(Json::from));
    put("maxLength", s.max_length.map(Json::from));
}

/// `minimum`, `maximum`, the exclusive flags and `multipleOf`, whole numbers as integers.
pub(super) fn bounds(put: &mut impl FnMut(&str, Option<Json>), bounds: &Bounds) {
    let number = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation)]
            Json::from(n as i64)
        } else {
            Json::from(n)
        }
    };
    put("minimum", bounds.minimum.map(number));
    put("maximum", bounds.maximum.map(number));
    if bounds.exclusive_minimum {
        put("exclusiveMinimum", Some(true.into()));
    }
    if bounds.exclusive_maximum {
        put("exclusiveMaximum", Some(true.into()));
    }
    put("multipleOf", bounds.multiple_of.map(number));
}

fn insert_validations(out: &mut Map<String, Json>, validations: &[Validation]) {
    if !validations.is_empty() {
        out.insert(
            "x-kubernetes-validations".into(),
            validations_json(validations),
        );
    }
}

/// CEL rules as `x-kubernetes-validations` holds them.
pub(super) fn validations_json(validations: &[Validation]) -> Json {
    Json::Array(
        validations
            .iter()
            .map(|v| {
                let mut rule = json!({"rule": v.rule});
                for (key, value) in [
                    ("message", &v.message),
                    ("messageExpression", &v.message_expression),
                    ("reason", &v.reason),
                    ("fieldPath", &v.field_path),
                ] {
                    if let Some(value) = value {
                        rule[key] = value.clone().into();
                    }
                }
                rule
            })
            .collect(),
    )
}
