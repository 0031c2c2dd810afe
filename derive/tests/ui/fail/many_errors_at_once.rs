use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready, Ready), field_owner = "")]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus<T> {
    pub conditions: Option<Option<Conditions>>,
    pub value: T,
}

fn main() {}
