// The generation kept on the conditions, and the conditions without it: one error.
use kondition::{Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Pool", status = "PoolStatus")]
pub struct PoolSpec { pub weight: i32 }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(
    resource = Pool,
    profile = "standard",
    observed_generation = "conditions",
    conditions_without(severity, observed_generation)
)]
pub struct PoolStatus {
    #[serde(default)]
    pub conditions: Conditions,
}

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    let mut status = PoolStatus::default();
    status.set_observed_generation(1);
    let _: bool = status.is_ready();
    driven(&Pool::new("p", PoolSpec { weight: 1 }));
}
