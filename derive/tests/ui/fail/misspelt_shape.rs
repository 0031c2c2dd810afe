// Misspelt values of the shape's keys: one error each, with the likely meaning, read as it.
use kondition::{Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Stream", namespaced, status = "StreamStatus")]
pub struct StreamSpec { pub replicas: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Stream, profile = "standard", conditions_list = "atomik", conditions_without(severty))]
#[serde(rename_all = "camelCase")]
pub struct StreamStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    let _: bool = StreamStatus::default().is_ready();
    driven(&Stream::new("s", StreamSpec { replicas: 1 }));
}
