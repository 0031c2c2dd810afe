//! Objects synthesized from a CRD's schema, to test that the generated types give back what
//! they read: [`object`] builds one object of a version (every field set, or only the required
//! ones), [`normalize`] applies what reused k8s-openapi types change by design, and
//! [`kondition::wire::json::same`] compares.
//!
//! Every object also has a key the schema does not name wherever the schema preserves
//! unknown fields; a full object gives nullable fields values, a minimal object and a
//! "nulls" object (every field set, like a full one) give them an explicit `null`; both must
//! survive a round trip.
//!
//! An embedded resource (`x-kubernetes-embedded-resource`) always has an `apiVersion` and a
//! `kind`, which the API server requires.
//!
//! The normalizations of reused k8s-openapi types (in schema-format kinds, and wherever the
//! generator reuses one for a shape of a CRD input), and no others:
//!
//! - `Time` (the well-known `Time`, and `lastTransitionTime` of a condition, both the standard
//!   status's conditions and the well-known `Condition`): k8s-openapi writes it in UTC, in
//!   whole seconds (`2024-01-02T03:04:05.678+01:00` comes back as `2024-01-02T02:04:05Z`).
//! - `LocalObjectReference`, `SecretKeySelector`, `ConfigMapKeySelector`: k8s-openapi holds
//!   `name` as a `String`, so an absent name comes back as `""` (the schema's default).
//! - `Quantity` (the schema format's `quantity`, and a CRD's int-or-string with the quantity
//!   pattern): k8s-openapi holds it as text, so a number comes back as a string (`3` as
//!   `"3"`), where the API server would have kept the number.
//!
//! Numbers compare by value: a `number` field written `2` comes back as `2.0`, which is the
//! same JSON number (and what the API server stores).

use serde_json::{Map, Value as Json, json};

use kondition_gen::model::{Body, Field, Kind, NamedType, Type, Version, WellKnown};

/// Which object to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// Every field set (nullable ones to a value).
    Full,
    /// Only the required fields, and `null` in every nullable field.
    Minimal,
    /// Every field set, as in a full object, but `null` in every nullable field.
    Nulls,
}

impl Sample {
    /// Every sample.
    pub const ALL: [Self; 3] = [Self::Full, Self::Minimal, Self::Nulls];

    /// `full`, `minimal` or `nulls`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Minimal => "minimal",
            Self::Nulls => "nulls",
        }
    }
}

/// The key added wherever the schema preserves unknown fields.
pub const UNKNOWN_KEY: &str = "x-kondition-unknown";

/// The text of every date-time: fractions and an offset, which a lossy type would rewrite.
pub const DATE_TIME: &str = "2024-01-02T03:04:05.678+01:00";

/// One object of `version` of `crd` (a CustomResourceDefinition as JSON), or `None` if the
/// CRD has no such version or it has no schema.
pub fn object(crd: &Json, version: &str, sample: Sample) -> Option<Json> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str()?;
    let kind = spec["names"]["kind"].as_str()?;
    let schema = spec["versions"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == version)?
        .get("schema")?
        .get("openAPIV3Schema")?;
    let mut metadata = json!({"name": "sample"});
    if spec["scope"] == "Namespaced" {
        metadata["namespace"] = json!("default");
    }
    let mut object = match value(schema, sample) {
        Json::Object(map) => map,
        _ => Map::new(),
    };
    object.insert("apiVersion".into(), json!(format!("{group}/{version}")));
    object.insert("kind".into(), json!(kind));
    object.insert("metadata".into(), metadata);
    Some(Json::Object(object))
}

/// A value `schema` accepts: for an object every property (or only the required ones), one
/// item for a list, one entry for a map.
pub fn value(schema: &Json, sample: Sample) -> Json {
    if let Some(first) = schema["enum"]
        .as_array()
        .and_then(|values| values.iter().find(|v| !v.is_null()))
    {
        return first.clone();
    }
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        return match sample {
            Sample::Full => json!("50%"),
            Sample::Minimal | Sample::Nulls => json!(3),
        };
    }
    match schema["type"].as_str() {
        Some("string") => json!(match schema["format"].as_str() {
            Some("date-time") => DATE_TIME,
            Some("date") => "2024-01-02",
            Some("duration") => "1h30m",
            Some("byte") => "a29uZGl0aW9u",
            _ => "text",
        }),
        Some("integer") => json!(7),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => match schema.get("items") {
            Some(items) => json!([value(items, sample)]),
            None => json!([]),
        },
        Some("object") | None => object_value(schema, sample),
        Some(_) => Json::Null,
    }
}

fn object_value(schema: &Json, sample: Sample) -> Json {
    let preserves = schema["x-kubernetes-preserve-unknown-fields"] == json!(true);
    let mut out = Map::new();
    if let Some(properties) = schema["properties"].as_object() {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .collect();
        for (name, property) in properties {
            let nullable = property["nullable"] == json!(true);
            let value = match sample {
                Sample::Full => Some(value(property, sample)),
                Sample::Minimal | Sample::Nulls if nullable => Some(Json::Null),
                Sample::Nulls => Some(value(property, sample)),
                Sample::Minimal if required.contains(&name.as_str()) => {
                    Some(value(property, sample))
                }
                Sample::Minimal => None,
            };
            if let Some(value) = value {
                out.insert(name.clone(), value);
            }
        }
    } else if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        out.insert("key".into(), value(values, sample));
    } else if schema.get("type").is_none() && !preserves {
        // No type and nothing preserved: any value (a branch of anyOf decides).
        return json!("text");
    }
    // An embedded resource is an object of its own: the API server requires its apiVersion
    // and kind, whether the schema lists them or not.
    if schema["x-kubernetes-embedded-resource"] == json!(true) {
        for (key, value) in [("apiVersion", "example.com/v1"), ("kind", "Example")] {
            out.entry(key).or_insert_with(|| json!(value));
        }
    }
    if preserves && !out.contains_key(UNKNOWN_KEY) {
        out.insert(
            UNKNOWN_KEY.into(),
            json!({"kept": [1, "two", null, {"nested": true}]}),
        );
    }
    Json::Object(out)
}

/// The path of the first property `value` lacks that `schema` requires (`.spec.class`), if
/// any: an object the API server serves at a version whose schema it breaks, which happens
/// when a field the storage version does not declare was pruned and no conversion webhook
/// put it back.
pub fn missing_required(schema: &Json, value: &Json) -> Option<String> {
    fn walk(schema: &Json, value: &Json, path: &str) -> Option<String> {
        match value {
            Json::Object(map) => {
                let required = schema["required"].as_array().into_iter().flatten();
                if let Some(name) = required
                    .filter_map(Json::as_str)
                    .find(|name| !map.contains_key(*name))
                {
                    return Some(format!("{path}.{name}"));
                }
                map.iter().find_map(|(name, item)| {
                    let property = schema["properties"].get(name).or_else(|| {
                        Some(&schema["additionalProperties"]).filter(|s| s.is_object())
                    })?;
                    walk(property, item, &format!("{path}.{name}"))
                })
            }
            Json::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, item)| walk(&schema["items"], item, &format!("{path}[{i}]"))),
            _ => None,
        }
    }
    walk(schema, value, "")
}

/// Applies to `expected` (an object of `version` of `kind`) what the reused k8s-openapi types
/// change by design (the module's list); `types` are the file's named types.
pub fn normalize(expected: &mut Json, kind: &Kind, version: &Version, types: &[NamedType]) {
    let walker = Walker { types };
    match &version.body {
        Body::Standard {
            spec,
            status_fields,
            ..
        } => {
            if let Some(spec_value) = expected.get_mut("spec") {
                walker.fields(spec_value, spec);
            }
            if let Some(status) = expected.get_mut("status") {
                walker.fields(status, status_fields);
                if kind.status.is_some()
                    && let Some(Json::Array(conditions)) = status.get_mut("conditions")
                {
                    conditions.iter_mut().for_each(listed_condition_time);
                }
            }
        }
        Body::Root(fields) => walker.fields(expected, fields),
    }
}

struct Walker<'t> {
    types: &'t [NamedType],
}

impl Walker<'_> {
    fn fields(&self, value: &mut Json, fields: &[Field]) {
        let Json::Object(map) = value else { return };
        for field in fields {
            if let Some(value) = map.get_mut(&field.name) {
                self.ty(value, &field.schema.ty);
            }
        }
    }

    fn ty(&self, value: &mut Json, ty: &Type) {
        match ty {
            Type::Object(object) => self.fields(value, &object.fields),
            Type::List(list) => {
                if let Json::Array(items) = value {
                    items
                        .iter_mut()
                        .for_each(|item| self.ty(item, &list.items.ty));
                }
            }
            Type::Map(map) => {
                if let Json::Object(entries) = value {
                    entries
                        .values_mut()
                        .for_each(|v| self.ty(v, &map.values.ty));
                }
            }
            Type::Named(name) => {
                if let Some(named) = self.types.iter().find(|t| &t.name == name) {
                    self.ty(value, &named.schema.ty);
                }
            }
            Type::Quantity => {
                if let Json::Number(number) = value {
                    *value = Json::String(number.to_string());
                }
            }
            // What the k8s-openapi type writes back (Time, Quantity, defaulted names).
            Type::Reused(reused) => crate::k8s_writes::normalize(&reused.path, value),
            Type::Conditions(_) => {
                if let Json::Array(items) = value {
                    items.iter_mut().for_each(listed_condition_time);
                }
            }
            Type::WellKnown(WellKnown::Time) => time(value),
            Type::WellKnown(WellKnown::Condition) => condition_time(value),
            Type::WellKnown(
                WellKnown::LocalObjectReference
                | WellKnown::SecretKeySelector
                | WellKnown::ConfigMapKeySelector,
            ) => {
                if let Json::Object(map) = value {
                    map.entry("name").or_insert_with(|| json!(""));
                }
            }
            _ => {}
        }
    }
}

/// A condition's `lastTransitionTime`, as `Time` writes it.
fn condition_time(condition: &mut Json) {
    if let Some(time_value) = condition.get_mut("lastTransitionTime") {
        time(time_value);
    }
}

/// An item of a `kondition::Conditions` list as the list writes it back: a condition's
/// time as `Time` writes it; an item whose `status` is not True, False or Unknown is no
/// `kondition::Condition`, and the list keeps it as it was read, its time too.
fn listed_condition_time(item: &mut Json) {
    let reads = matches!(
        item.get("status").and_then(Json::as_str),
        Some("True" | "False" | "Unknown")
    );
    if reads {
        condition_time(item);
    }
}

/// A date-time as k8s-openapi's `Time` writes it: UTC, whole seconds.
fn time(value: &mut Json) {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    if let Ok(written) =
        serde_json::from_value::<Time>(value.clone()).and_then(serde_json::to_value)
    {
        *value = written;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Json {
        json!({
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "required": ["spec"],
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["size"],
                            "x-kubernetes-preserve-unknown-fields": true,
                            "properties": {
                                "size": {"type": "integer"},
                                "ratio": {"type": "number", "nullable": true},
                                "when": {"type": "string", "format": "date-time"},
                                "tier": {"type": "string", "enum": [null, "free"]},
                                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                                "ports": {"type": "array", "items": {"x-kubernetes-int-or-string": true}},
                                "any": {"x-kubernetes-preserve-unknown-fields": true}
                            }
                        }
                    }
                }}}]
            }
        })
    }

    #[test]
    fn a_full_object_sets_every_field() {
        let unknown = json!({"kept": [1, "two", null, {"nested": true}]});
        assert_eq!(
            object(&crd(), "v1", Sample::Full),
            Some(json!({
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "sample", "namespace": "default"},
                "spec": {
                    "size": 7, "ratio": 1.5, "when": DATE_TIME, "tier": "free",
                    "tags": {"key": "text"}, "ports": ["50%"], "any": {UNKNOWN_KEY: unknown},
                    UNKNOWN_KEY: unknown
                }
            }))
        );
    }

    #[test]
    fn a_minimal_object_has_the_required_fields_and_nulls() {
        let unknown = json!({"kept": [1, "two", null, {"nested": true}]});
        assert_eq!(
            object(&crd(), "v1", Sample::Minimal),
            Some(json!({
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "sample", "namespace": "default"},
                "spec": {"size": 7, "ratio": null, UNKNOWN_KEY: unknown}
            }))
        );
        assert_eq!(object(&crd(), "v2", Sample::Minimal), None);
        let nulls = object(&crd(), "v1", Sample::Nulls).expect("an object");
        assert_eq!(nulls["spec"]["ratio"], Json::Null);
        assert_eq!(nulls["spec"]["ports"], json!([3]));
    }

    #[test]
    fn time_is_normalized_as_k8s_openapi_writes_it() {
        let mut value = json!(DATE_TIME);
        time(&mut value);
        assert_eq!(value, json!("2024-01-02T02:04:05Z"));
    }
}
