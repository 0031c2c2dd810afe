//! A custom resource whose status holds `kondition::Conditions` gets, through kube's own
//! `CustomResource` derive, a CRD whose conditions list merges by `type` under server-side
//! apply and validates its items as metav1.Condition does.

use kondition::{Conditions, validation};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
/// A widget's desired state.
pub struct WidgetSpec {
    /// How big.
    pub size: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
/// A widget's observed state.
pub struct WidgetStatus {
    /// The standard conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// The generation the status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn status_schema() -> Value {
    let crd = serde_json::to_value(Widget::crd()).expect("CRD serializes");
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"].clone()
}

#[test]
fn conditions_are_a_map_list_keyed_by_type() {
    let conditions = &status_schema()["properties"]["conditions"];
    assert_eq!(conditions["type"], "array");
    assert_eq!(conditions["x-kubernetes-list-type"], "map");
    assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    assert_eq!(conditions["default"], json!([]));
}

#[test]
fn condition_items_carry_metav1_validation() {
    let items = &status_schema()["properties"]["conditions"]["items"];
    assert_eq!(
        items["required"],
        json!(["lastTransitionTime", "message", "reason", "status", "type"])
    );
    let properties = &items["properties"];
    assert_eq!(properties["type"]["pattern"], validation::TYPE_PATTERN);
    assert_eq!(properties["type"]["maxLength"], 316);
    assert_eq!(properties["reason"]["pattern"], validation::REASON_PATTERN);
    assert_eq!(properties["reason"]["minLength"], 1);
    assert_eq!(properties["reason"]["maxLength"], 1024);
    assert_eq!(properties["message"]["maxLength"], 32768);
    assert_eq!(
        properties["status"]["enum"],
        json!(["True", "False", "Unknown"])
    );
    assert_eq!(
        properties["severity"]["enum"],
        json!(["Error", "Warning", "Info"])
    );
    assert_eq!(properties["lastTransitionTime"]["format"], "date-time");
    assert_eq!(properties["observedGeneration"]["format"], "int64");
    // JSONSchemaProps holds `minimum` as a float.
    assert_eq!(
        properties["observedGeneration"]["minimum"].as_f64(),
        Some(0.0)
    );
}

#[test]
fn the_status_round_trips_through_the_wire_form() {
    let wire = json!({
        "conditions": [{
            "type": "Ready",
            "status": "False",
            "severity": "Warning",
            "lastTransitionTime": "2026-11-22T10:00:00Z",
            "reason": "WaitingForOwner",
            "message": "owner rg-1 not found",
            "observedGeneration": 4
        }],
        "observedGeneration": 3
    });
    let status: WidgetStatus = serde_json::from_value(wire.clone()).expect("deserializes");
    assert!(!status.conditions.is_true("Ready"));
    assert_eq!(serde_json::to_value(&status).expect("serializes"), wire);
}
