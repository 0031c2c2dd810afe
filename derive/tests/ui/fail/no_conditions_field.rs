use kondition::KubeStatus;

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub observed_generation: Option<i64>,
    pub endpoint: Option<String>,
}

fn main() {}
