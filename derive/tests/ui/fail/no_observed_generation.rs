use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready))]
pub struct WidgetStatus {
    pub conditions: Conditions,
}

fn main() {}
