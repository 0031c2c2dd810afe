// A status as read from an existing CRD: `conditions` and `observedGeneration` both
// optional, so an absent list stays absent; spelled with full paths.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, kondition::KubeStatus)]
#[kondition(profile = "standard", conditions(Synced))]
#[serde(rename_all = "camelCase")]
pub struct LegacyStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: std::option::Option<kondition::Conditions>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn main() {
    use kondition::KubeStatus;

    let mut status = LegacyStatus::default();
    assert!(status.conditions().is_empty());
    assert!(status.remove_synced().is_none());
    assert!(status.conditions.is_none());
    status.set_synced(kondition::Condition::new("", kondition::ConditionStatus::True, "UpToDate"));
    assert!(status.is_synced() && !status.is_ready());
    assert_eq!(status.conditions.as_ref().map(|c| c.len()), Some(1));
    let _: LegacyStatusApply = status.to_apply();
}
