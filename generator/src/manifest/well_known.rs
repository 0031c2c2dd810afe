//! JSON Schemas of the k8s-openapi types a schema file may name, and of the conditions list,
//! as a CRD holds them (inlined, structural, no `nullable`).

use kondition_names::api_rules::{MAX_REASON_LEN, MAX_TYPE_LEN, REASON_PATTERN, TYPE_PATTERN};
use serde_json::{Map, Value as Json, json};

use crate::model::WellKnown;

/// The conditions list: kondition's own schema (a map list keyed by `type`, metav1's
/// validation), so the CRD and the runtime can never disagree.
pub fn conditions() -> Json {
    let schema = schemars::SchemaGenerator::default().subschema_for::<kondition::Conditions>();
    schema.to_value()
}

/// The schema of a well-known type.
pub fn schema(known: WellKnown) -> Map<String, Json> {
    let value = match known {
        WellKnown::ObjectReference => json!({
            "description": "A reference to an object of any kind.",
            "type": "object",
            "properties": {
                "apiVersion": {"description": "API version of the referent.", "type": "string"},
                "fieldPath": {"description": "A field within the referent, when the reference is to part of it.", "type": "string"},
                "kind": {"description": "Kind of the referent.", "type": "string"},
                "name": {"description": "Name of the referent.", "type": "string"},
                "namespace": {"description": "Namespace of the referent.", "type": "string"},
                "resourceVersion": {"description": "The referent's resourceVersion this reference was made to.", "type": "string"},
                "uid": {"description": "UID of the referent.", "type": "string"}
            },
            "x-kubernetes-map-type": "atomic"
        }),
        WellKnown::LocalObjectReference => json!({
            "description": "A reference to an object in the same namespace.",
            "type": "object",
            "properties": {
                "name": {"description": "Name of the referent.", "type": "string", "default": ""}
            },
            "x-kubernetes-map-type": "atomic"
        }),
        WellKnown::LabelSelector => json!({
            "description": "A label query over objects: matchLabels and matchExpressions, ANDed; empty matches everything.",
            "type": "object",
            "properties": {
                "matchExpressions": {
                    "description": "Requirements on labels, ANDed.",
                    "type": "array",
                    "items": {
                        "description": "A key, an operator and values.",
                        "type": "object",
                        "properties": {
                            "key": {"description": "The label key.", "type": "string"},
                            "operator": {"description": "In, NotIn, Exists or DoesNotExist.", "type": "string"},
                            "values": {
                                "description": "The values; empty for Exists and DoesNotExist.",
                                "type": "array",
                                "items": {"type": "string"},
                                "x-kubernetes-list-type": "atomic"
                            }
                        },
                        "required": ["key", "operator"]
                    },
                    "x-kubernetes-list-type": "atomic"
                },
                "matchLabels": {
                    "description": "Labels that must all be present with these values.",
                    "type": "object",
                    "additionalProperties": {"type": "string"}
                }
            },
            "x-kubernetes-map-type": "atomic"
        }),
        WellKnown::Time => json!({"type": "string", "format": "date-time"}),
        WellKnown::Duration => {
            json!({"description": "A duration such as 1h30m.", "type": "string"})
        }
        WellKnown::SecretKeySelector => key_selector("a Secret"),
        WellKnown::ConfigMapKeySelector => key_selector("a ConfigMap"),
        WellKnown::Condition => json!({
            "description": "One aspect of an object's current state (metav1.Condition).",
            "type": "object",
            "properties": {
                "lastTransitionTime": {"description": "When the status last changed.", "type": "string", "format": "date-time"},
                "message": {"description": "A human-readable explanation.", "type": "string", "maxLength": 32768},
                "observedGeneration": {"description": "The metadata.generation the condition was set from.", "type": "integer", "format": "int64", "minimum": 0},
                "reason": {
                    "description": "A CamelCase, programmatic identifier of the last transition's cause.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_REASON_LEN,
                    "pattern": REASON_PATTERN
                },
                "status": {"description": "True, False or Unknown.", "type": "string", "enum": ["True", "False", "Unknown"]},
                "type": {
                    "description": "The condition's type, in CamelCase or foo.example.com/CamelCase.",
                    "type": "string",
                    "maxLength": MAX_TYPE_LEN,
                    "pattern": TYPE_PATTERN
                }
            },
            "required": ["lastTransitionTime", "message", "reason", "status", "type"]
        }),
    };
    match value {
        Json::Object(map) => map,
        _ => Map::new(),
    }
}

fn key_selector(what: &str) -> Json {
    json!({
        "description": format!("A key of {what}."),
        "type": "object",
        "properties": {
            "key": {"description": "The key to select.", "type": "string"},
            "name": {"description": format!("Name of {what}."), "type": "string", "default": ""},
            "optional": {"description": "Whether the object or its key may be absent.", "type": "boolean"}
        },
        "required": ["key"],
        "x-kubernetes-map-type": "atomic"
    })
}
