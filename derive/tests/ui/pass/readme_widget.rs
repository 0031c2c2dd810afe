// The usage the README shows, exactly.
use kondition::{Conditions, KubeStatus};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec { pub size: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, conditions(Ready, SubResourcesReady))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    pub endpoint: Option<String>,
}

fn main() {
    let mut status = WidgetStatus::default();
    status.set_observed_generation(1);
    let _: bool = status.is_ready() || status.is_sub_resources_ready();
}
