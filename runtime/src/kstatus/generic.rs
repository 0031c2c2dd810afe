//! The rules every object shares: deletion, the observed generation, kstatus's own
//! abnormal-true conditions (Reconciling, Stalled), and, for kinds without a rule of their
//! own, the Ready condition.

use super::KStatusResult;
use super::fields::FoundCondition;

/// Deletion, generation, then Reconciling/Stalled: the rules that decide before any kind's
/// own rule is asked. `None` when none of them decides.
pub(super) fn deciding(
    kind: &str,
    deleting: bool,
    generation: Option<i64>,
    observed_generation: Option<i64>,
    conditions: &[FoundCondition<'_>],
) -> Option<KStatusResult> {
    if deleting {
        return Some(KStatusResult::new(
            super::KStatus::Terminating,
            "Resource scheduled for deletion",
        ));
    }
    // Without observedGeneration there is nothing to compare: the status may not have one.
    if let (Some(generation), Some(observed)) = (generation, observed_generation)
        && generation != observed
    {
        return Some(KStatusResult::in_progress(format!(
            "{kind} generation is {generation}, but latest observed generation is {observed}"
        )));
    }
    conditions
        .iter()
        .find_map(|condition| match (condition.type_, condition.status) {
            // kstatus says what the condition says, even nothing.
            ("Reconciling", "True") => Some(KStatusResult::in_progress(condition.message)),
            ("Stalled", "True") => Some(KStatusResult::failed(condition.message)),
            _ => None,
        })
}

/// The Ready rule: the first Ready condition with a valid status decides (True is Current,
/// False and Unknown are InProgress); one with any other status says nothing.
pub(super) fn ready(conditions: &[FoundCondition<'_>]) -> Option<KStatusResult> {
    conditions
        .iter()
        .filter(|c| c.type_ == "Ready")
        .find_map(|condition| match condition.status {
            "True" => Some(KStatusResult::current("Resource is Ready")),
            "False" | "Unknown" => Some(KStatusResult::in_progress(condition.message)),
            _ => None,
        })
}

/// When no rule decides: nothing says the object is not done.
pub(super) fn current() -> KStatusResult {
    KStatusResult::current("Resource is current")
}
