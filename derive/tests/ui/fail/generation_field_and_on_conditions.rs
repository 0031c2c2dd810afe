// `observed_generation = "conditions"` with an `observed_generation` field: one error, on the
// field; the code below still compiles past it.
use kondition::{Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Pool", status = "PoolStatus")]
pub struct PoolSpec { pub weight: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Pool, profile = "standard", observed_generation = "conditions")]
#[serde(rename_all = "camelCase")]
pub struct PoolStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    let mut status = PoolStatus::default();
    status.set_observed_generation(1);
    let _: bool = status.is_ready();
    driven(&Pool::new("p", PoolSpec { weight: 1 }));
}
