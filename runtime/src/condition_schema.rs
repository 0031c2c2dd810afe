//! The JSON Schema of a condition and of the conditions list, as a CRD needs them.
//!
//! Written by hand rather than derived: the item schema mirrors metav1.Condition's validation
//! (the same the API server applies to every built-in `conditions` field), the list carries
//! the map-list markers that make server-side apply merge conditions by `type`, and both are
//! always inlined because CRD schemas cannot hold references.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::condition::Condition;
use crate::conditions::Conditions;
use crate::validation::{
    MAX_MESSAGE_BYTES, MAX_REASON_LEN, MAX_TYPE_LEN, REASON_PATTERN, TYPE_PATTERN,
};

impl JsonSchema for Condition {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Condition".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "kondition::Condition".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "One aspect of the resource's current state, as metav1.Condition, plus an optional severity.",
            "type": "object",
            "required": ["lastTransitionTime", "message", "reason", "status", "type"],
            "properties": {
                "lastTransitionTime": {
                    "description": "When the condition last changed, in whole seconds.",
                    "type": "string",
                    "format": "date-time"
                },
                "message": {
                    "description": "A human-readable explanation of the condition; may be empty.",
                    "type": "string",
                    "maxLength": MAX_MESSAGE_BYTES
                },
                "observedGeneration": {
                    "description": "The metadata.generation this condition was computed from.",
                    "type": "integer",
                    "format": "int64",
                    "minimum": 0
                },
                "reason": {
                    "description": "A CamelCase, programmatic identifier of why the condition is as it is.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_REASON_LEN,
                    "pattern": REASON_PATTERN
                },
                "severity": {
                    "description": "How to treat the condition when it is not healthy: Error (the spec must change), Warning (retrying) or Info (progressing). Absent when healthy or Unknown.",
                    "type": "string",
                    "enum": ["Error", "Warning", "Info"]
                },
                "status": {
                    "description": "Whether the condition holds: True, False or Unknown.",
                    "type": "string",
                    "enum": ["True", "False", "Unknown"]
                },
                "type": {
                    "description": "The condition's type, in CamelCase or foo.example.com/CamelCase.",
                    "type": "string",
                    "maxLength": MAX_TYPE_LEN,
                    "pattern": TYPE_PATTERN
                }
            }
        })
    }
}

impl JsonSchema for Conditions {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Conditions".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "kondition::Conditions".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The resource's conditions, one per type.",
            "type": "array",
            "items": generator.subschema_for::<Condition>(),
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"]
        })
    }
}

/// The schema of a status' `observedGeneration`, as each condition's: a non-negative 64-bit
/// integer, optional and never `null` (the API conventions' `+optional` field, omitted when
/// unset). schemars makes an `Option<i64>` nullable and leaves out the minimum; on the
/// derive route, name this on the field (`kondition generate` writes the same schema from
/// the CRD):
///
/// ```
/// # use kondition::{Conditions, KubeStatus};
/// # use serde::{Deserialize, Serialize};
/// #[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema, KubeStatus)]
/// #[kondition(profile = "standard")]
/// #[serde(rename_all = "camelCase")]
/// pub struct WidgetStatus {
///     #[serde(default)]
///     pub conditions: Conditions,
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     #[schemars(schema_with = "kondition::observed_generation_schema")]
///     pub observed_generation: Option<i64>,
/// }
/// let schema = schemars::schema_for!(WidgetStatus);
/// let generation = &schema.as_value()["properties"]["observedGeneration"];
/// assert_eq!(generation["minimum"], 0);
/// assert_eq!(generation["type"], "integer", "not nullable");
/// assert!(schema.as_value().get("required").is_none(), "optional");
/// ```
pub fn observed_generation_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "The metadata.generation the status was computed from.",
        "type": "integer",
        "format": "int64",
        "minimum": 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_list_is_a_map_keyed_by_type_with_inline_items() {
        let schema = schemars::schema_for!(Conditions);
        let value = serde_json::to_value(&schema).expect("schema serializes");
        assert_eq!(value["type"], "array");
        assert_eq!(value["x-kubernetes-list-type"], "map");
        assert_eq!(value["x-kubernetes-list-map-keys"], json!(["type"]));
        let items = &value["items"];
        assert_eq!(
            items["required"],
            json!(["lastTransitionTime", "message", "reason", "status", "type"])
        );
        assert_eq!(items["properties"]["type"]["pattern"], TYPE_PATTERN);
        assert_eq!(items["properties"]["type"]["maxLength"], 316);
        assert_eq!(items["properties"]["reason"]["pattern"], REASON_PATTERN);
        assert_eq!(items["properties"]["reason"]["minLength"], 1);
        assert_eq!(items["properties"]["reason"]["maxLength"], 1024);
        assert_eq!(items["properties"]["message"]["maxLength"], 32768);
        assert_eq!(
            items["properties"]["status"]["enum"],
            json!(["True", "False", "Unknown"])
        );
        assert_eq!(
            items["properties"]["lastTransitionTime"]["format"],
            "date-time"
        );
        assert_eq!(items["properties"]["observedGeneration"]["minimum"], 0);
        assert!(value.get("$defs").is_none(), "no references: {value}");
    }
}
