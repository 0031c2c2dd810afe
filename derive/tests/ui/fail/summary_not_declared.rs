use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready, Synced), summary = "Sync", success_reason = "Synced")]
#[serde(rename_all = "camelCase")]
pub struct MirrorStatus {
    pub conditions: Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {}
