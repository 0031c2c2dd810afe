use kondition::{Condition, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub conditions: Vec<Condition>,
    pub observed_generation: Option<i32>,
}

fn main() {}
