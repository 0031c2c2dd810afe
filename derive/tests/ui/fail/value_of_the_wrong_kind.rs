// A value of the wrong kind: one error on it; the keys after it are still read, so the
// profile's condition types are declared and the code below compiles past the error.
use kondition::{Condition, ConditionStatus, Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(field_owner = widget_controller, resource = Widget, profile = "kstatus", conditions(Synced))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn reconciled<K: StatusResource>(_: &K) {}

fn main() {
    let mut status = WidgetStatus::default();
    status.set_observed_generation(1);
    status.set_reconciling(Condition::new("Reconciling", ConditionStatus::False, "Done"));
    let _: bool = status.is_ready() || status.is_stalled() || status.is_synced();
    reconciled(&Widget::new("w", WidgetSpec { size: 1 }));
}
