use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready), owner = "me")]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub conditions: Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {}
