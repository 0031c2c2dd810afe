// An API crate that re-exports kondition: its users name the runtime through it, and
// `crate = "..."` makes the generated code do the same. The status has a flattened map, so
// the apply configuration names serde through the path too.
mod api {
    pub use kondition as runtime;
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, kondition::KubeStatus)]
#[kondition(crate = "crate::api::runtime", profile = "standard", conditions(Synced))]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    #[serde(default)]
    pub conditions: api::runtime::Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(flatten)]
    pub extra: std::collections::BTreeMap<String, serde_json::Value>,
}

fn main() {
    use api::runtime::KubeStatus;

    let mut status = GadgetStatus::default();
    status.set_synced(api::runtime::Condition::new("", api::runtime::ConditionStatus::True, "UpToDate"));
    assert!(status.is_synced());
    let _: GadgetStatusApply = status.to_apply();
}
