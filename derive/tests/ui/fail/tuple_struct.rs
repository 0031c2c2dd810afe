use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready))]
pub struct WidgetStatus(pub Conditions, pub Option<i64>);

fn main() {}
