// A status not tied to one kind: no `resource`, fully qualified paths, a profile, and the
// derive used without importing the trait.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, kondition::KubeStatus)]
#[kondition(profile = "orc", conditions(SubResourcesReady))]
#[serde(rename_all = "camelCase")]
pub struct RouterStatus {
    pub conditions: kondition::Conditions,
    pub observed_generation: i64,
}

fn main() {
    let mut status = RouterStatus::default();
    status.set_observed_generation(2);
    assert!(!status.is_available());
    assert!(status.progressing().is_none());
    let _ = status.sub_resources_ready();
    assert_eq!(RouterStatusConditionType::ALL.len(), 3);
}
