// k8s-openapi's condition list: one error, naming the conversion; the accessors, the
// trait and the chokepoint's bound are still there, so the code below gives no other.
use kondition::{Condition, ConditionStatus, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, profile = "kstatus", conditions(Synced))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,
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
