// `status_subresource` says how the chokepoint writes the status of the kind `resource`
// names, so it needs one: one error on it; the status still gets its accessors.
use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(profile = "standard", status_subresource = false)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationStatus {
    pub conditions: Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {
    let _: bool = ApplicationStatus::default().is_ready();
}
