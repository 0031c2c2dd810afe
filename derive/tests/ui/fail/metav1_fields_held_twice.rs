// KEDA's shape written with three mistakes: a field both left out and optional, a misspelt
// optional field, and an `observed_generation` field on a status that says it keeps none.
// Three errors, each on its span.
use kondition::{Conditions, KubeStatus, StatusResource};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Scaler", namespaced, status = "ScalerStatus")]
pub struct ScalerSpec { pub target: String }

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(
    resource = Scaler,
    profile = "standard",
    observed_generation = "none",
    conditions_without(severity, last_transition_time, reason),
    conditions_optional(reason, mesage)
)]
#[serde(rename_all = "camelCase")]
pub struct ScalerStatus {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn driven<K: StatusResource>(_: &K) {}

fn main() {
    let mut status = ScalerStatus::default();
    status.set_observed_generation(1);
    let _: bool = status.is_ready();
    driven(&Scaler::new("s", ScalerSpec { target: "web".to_owned() }));
}
