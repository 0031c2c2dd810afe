use kondition::{Conditions, KubeStatus};

pub struct Widget;

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(resource = Widget, conditions(Available))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub conditions: Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {}
