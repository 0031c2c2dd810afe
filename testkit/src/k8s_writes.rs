//! What a k8s-openapi type writes back for a value it read, to predict the object a
//! generated type that reuses it writes ([`normalize`]).
//!
//! Leaves go through k8s-openapi's own types (the generator's k8s-openapi is the same 0.29),
//! so their text is exactly what the crate writes; objects follow the catalog's shape at the
//! newest version.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::serde::Serialize;
use k8s_openapi::serde::de::DeserializeOwned;
use kondition_gen::reuse::Catalog;
use kondition_gen::reuse::catalog::{Leaf, PropertyType, Shape};
use serde_json::Value as Json;

/// Rewrites `value` (an object the k8s-openapi type at `path` read, `api::core::v1::Volume`)
/// as that type writes it back, as the newest version has the type (every version the reuse
/// covers has the subtree's properties). What k8s-openapi's serde impls change:
///
/// - `Time`: UTC, whole seconds (`2024-01-02T03:04:05.678+01:00` is written
///   `2024-01-02T02:04:05Z`); `MicroTime`: UTC with 6 fraction digits.
/// - `Quantity`: text; a number is written as its text (`3` as `"3"`).
/// - base64 bytes: decoded and encoded again (canonical padding).
/// - a `number` is an `f64` (`2` is written `2.0`).
/// - keys the type does not have are dropped, and so are nulls of optional properties.
/// - a required property that is absent (or null) gets the Rust type's default: `""`,
///   `0`, `false`, `[]`, `{}`, an object of its own required properties' defaults (a
///   `Time` has none: k8s-openapi fails, and the value is left as it is).
///
/// Values that are not what the type reads (a string where an object belongs) are left
/// as they are: k8s-openapi would fail to read them. Key order is not predicted
/// (k8s-openapi writes properties in its fields' order): compare objects by key.
pub fn normalize(path: &str, value: &mut Json) {
    self::value(Catalog::get(), &PropertyType::Ref(path.to_owned()), value);
}

/// Rewrites `value`, a value of type `ty`.
fn value(catalog: &Catalog, ty: &PropertyType, value: &mut Json) {
    match ty {
        PropertyType::String | PropertyType::Int32 | PropertyType::Int64 => {}
        PropertyType::Boolean => {}
        PropertyType::Bytes => through::<k8s_openapi::ByteString>(value),
        PropertyType::Number => through::<f64>(value),
        PropertyType::List(items, _) => {
            if let Json::Array(list) = value {
                list.iter_mut()
                    .for_each(|item| self::value(catalog, items, item));
            }
        }
        PropertyType::Map(values, _) => {
            if let Json::Object(map) = value {
                map.values_mut()
                    .for_each(|item| self::value(catalog, values, item));
            }
        }
        PropertyType::Ref(path) => match catalog.data().shape(path, catalog.data().latest()) {
            Some(Shape::Leaf(leaf)) => match leaf {
                Leaf::Time => through::<Time>(value),
                Leaf::MicroTime => through::<MicroTime>(value),
                Leaf::Quantity => through::<Quantity>(value),
                Leaf::IntOrString => through::<IntOrString>(value),
                Leaf::Json => {}
            },
            Some(Shape::Object(shape)) => {
                let Json::Object(map) = value else { return };
                map.retain(|key, value| {
                    shape.properties.contains_key(key)
                        && (!value.is_null() || shape.required.contains(key))
                });
                for required in &shape.required {
                    let present = map.get(required).is_some_and(|v| !v.is_null());
                    if !present
                        && let Some(property) = shape.properties.get(required)
                        && let Some(default) = catalog.default_value(&property.ty)
                    {
                        map.insert(required.clone(), default);
                    }
                }
                for (key, item) in map.iter_mut() {
                    if let Some(property) = shape.properties.get(key) {
                        self::value(catalog, &property.ty, item);
                    }
                }
            }
            None => {}
        },
    }
}

/// `value` read as a `T` and written again; left as it is if `T` cannot read it.
fn through<T: DeserializeOwned + Serialize>(value: &mut Json) {
    if let Ok(written) = serde_json::from_value::<T>(value.clone()).and_then(serde_json::to_value) {
        *value = written;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What k8s-openapi's `T` writes for `input`.
    fn k8s_writes<T: DeserializeOwned + Serialize>(input: Json) -> Json {
        let read: T = serde_json::from_value(input).expect("k8s-openapi reads it");
        serde_json::to_value(read).expect("k8s-openapi writes it")
    }

    fn normalized(path: &str, mut value: Json) -> Json {
        normalize(path, &mut value);
        value
    }

    const TIME: &str = "apimachinery::pkg::apis::meta::v1::Time";

    #[test]
    fn time_is_written_in_utc_whole_seconds_and_micro_time_with_microseconds() {
        assert_eq!(
            normalized(TIME, json!("2024-01-02T03:04:05.678+01:00")),
            json!("2024-01-02T02:04:05Z")
        );
        assert_eq!(
            normalized(
                "apimachinery::pkg::apis::meta::v1::MicroTime",
                json!("2024-01-02T03:04:05.678+01:00")
            ),
            json!("2024-01-02T02:04:05.678000Z")
        );
        // Not a time: k8s-openapi fails to read it; left alone.
        assert_eq!(normalized(TIME, json!("yesterday")), json!("yesterday"));
    }

    #[test]
    fn a_quantity_written_as_a_number_becomes_its_text() {
        let quantity = "apimachinery::pkg::api::resource::Quantity";
        assert_eq!(normalized(quantity, json!(3)), json!("3"));
        assert_eq!(normalized(quantity, json!(1.5)), json!("1.5"));
        assert_eq!(normalized(quantity, json!("100Mi")), json!("100Mi"));
        let int_or_string = "apimachinery::pkg::util::intstr::IntOrString";
        assert_eq!(normalized(int_or_string, json!(8080)), json!(8080));
        assert_eq!(normalized(int_or_string, json!("http")), json!("http"));
    }

    #[test]
    fn a_condition_has_its_time_rewritten_and_its_unknown_keys_dropped() {
        let condition = json!({
            "type": "Ready",
            "status": "True",
            "lastTransitionTime": "2024-01-02T03:04:05.678+01:00",
            "observedGeneration": 3,
            "reason": null,
            "x-unknown": 1
        });
        let predicted = normalized(
            "apimachinery::pkg::apis::meta::v1::Condition",
            condition.clone(),
        );
        assert_eq!(
            predicted,
            k8s_writes::<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>(condition)
        );
        assert_eq!(
            predicted,
            json!({
                "type": "Ready",
                "status": "True",
                "lastTransitionTime": "2024-01-02T02:04:05Z",
                "observedGeneration": 3,
                // Required (a String): null is read as absent, and absent as "".
                "reason": "",
                "message": ""
            })
        );
    }

    /// A Container as prometheus-operator's CRD allows it, and what k8s-openapi makes of it.
    fn container() -> (Json, Json) {
        let input = json!({
            "name": "sidecar",
            "image": "busybox",
            "args": ["--flag"],
            "stdin": null,
            "x-unknown": {"kept": false},
            "env": [
                {"name": "A", "value": "1"},
                {"name": "B", "valueFrom": {"configMapKeyRef": {"key": "k"}}},
                {"name": "C", "valueFrom": {
                    "secretKeyRef": {"key": "k", "name": "s", "optional": true}
                }}
            ],
            "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            "resources": {"limits": {"cpu": 2, "memory": "64Mi"}, "requests": {"cpu": 0.5}},
            "livenessProbe": {
                "httpGet": {"port": "http", "path": "/healthz"},
                "periodSeconds": 10
            },
            "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
            "securityContext": {"capabilities": {"drop": ["ALL"]}, "runAsUser": 1000}
        });
        let expected = json!({
            "name": "sidecar",
            "image": "busybox",
            "args": ["--flag"],
            "env": [
                {"name": "A", "value": "1"},
                {"name": "B", "valueFrom": {"configMapKeyRef": {"key": "k", "name": ""}}},
                {"name": "C", "valueFrom": {
                    "secretKeyRef": {"key": "k", "name": "s", "optional": true}
                }}
            ],
            "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            "resources": {"limits": {"cpu": "2", "memory": "64Mi"}, "requests": {"cpu": "0.5"}},
            "livenessProbe": {
                "httpGet": {"port": "http", "path": "/healthz"},
                "periodSeconds": 10
            },
            "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
            "securityContext": {"capabilities": {"drop": ["ALL"]}, "runAsUser": 1000}
        });
        (input, expected)
    }

    #[test]
    fn a_nested_container_is_written_as_k8s_openapi_writes_it() {
        let (input, expected) = container();
        let predicted = normalized("api::core::v1::Container", input.clone());
        assert_eq!(predicted, expected);
        // And that is what k8s-openapi does.
        let written = k8s_writes::<k8s_openapi::api::core::v1::Container>(input);
        assert!(
            kondition::wire::json::same(&written, &predicted),
            "k8s-openapi wrote {written:#}"
        );
    }

    #[test]
    fn bytes_and_numbers_are_written_as_their_rust_types_write_them() {
        let mut value = json!("a29uZGl0aW9u");
        value_of(&PropertyType::Bytes, &mut value);
        assert_eq!(value, json!("a29uZGl0aW9u"));
        let mut value = json!(2);
        value_of(&PropertyType::Number, &mut value);
        assert_eq!(value, json!(2.0));
        assert_ne!(json!(2), json!(2.0));
    }

    fn value_of(ty: &PropertyType, value: &mut Json) {
        super::value(Catalog::get(), ty, value);
    }

    #[test]
    fn absent_required_properties_get_the_rust_default() {
        // LabelSelectorRequirement requires key and operator (Strings); values is optional.
        assert_eq!(
            normalized(
                "apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement",
                json!({"values": null})
            ),
            json!({"key": "", "operator": ""})
        );
        let catalog = Catalog::get();
        assert_eq!(
            catalog.default_value(&PropertyType::Ref(TIME.to_owned())),
            None,
            "k8s-openapi has no default Time"
        );
        assert_eq!(
            catalog.default_value(&PropertyType::Ref(
                "api::core::v1::LocalObjectReference".to_owned()
            )),
            Some(json!({"name": ""}))
        );
    }
}
