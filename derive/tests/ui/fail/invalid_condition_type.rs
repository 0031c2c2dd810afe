use kondition::{Conditions, KubeStatus};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, KubeStatus)]
#[kondition(conditions(Ready, "schema applied", "Example.com/Synced", "a/b/c"))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub conditions: Conditions,
    pub observed_generation: Option<i64>,
}

fn main() {
    // The valid declaration still gives its accessor: one error per mistake, nothing more.
    let status = WidgetStatus::default();
    let _ = status.is_ready();
}
