use kondition::{Condition, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<Option<i64>>,
}

fn main() {}
