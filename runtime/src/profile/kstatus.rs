//! `kstatus`: Ready plus kstatus's abnormal-true Reconciling and Stalled, so that
//! `kubectl wait --for=condition=Ready`, Helm, Flux and kstatus all read the object right.
//!
//! | outcome | Ready | Reconciling | Stalled | kstatus |
//! | --- | --- | --- | --- | --- |
//! | in progress | False | True | False | InProgress |
//! | success | True | False | False | Current |
//! | retryable error (Warning, Info) | False | True | False | InProgress |
//! | fatal error (Error) | False | False | True | Failed |

use super::Activity;
use crate::condition::{Condition, ConditionStatus, Severity};
use crate::error::ReconcileError;
pub use kondition_names::profile::kstatus::*;

/// Ready, Reconciling and Stalled while work is under way (InProgress).
pub fn in_progress(message: &str) -> [Condition; 3] {
    [
        Condition::new(READY, ConditionStatus::False, REASON_PROGRESSING)
            .with_severity(Severity::Info)
            .with_message(message),
        Condition::new(RECONCILING, ConditionStatus::True, REASON_PROGRESSING)
            .with_message(message),
        Condition::new(STALLED, ConditionStatus::False, REASON_PROGRESSING),
    ]
}

/// Ready, Reconciling and Stalled after a reconcile that returned `result`: what the status
/// chokepoint writes for a `kstatus` kind.
pub fn after<E: ReconcileError + ?Sized>(result: Result<(), &E>) -> [Condition; 3] {
    let profile = super::KSTATUS;
    let ready = match result {
        Ok(()) => profile.success(),
        Err(error) => profile.failure(error),
    };
    let [reconciling, stalled] =
        super::reconciling_stalled(&ready, Activity::of_summary(&ready), profile.success_reason);
    [ready, reconciling, stalled]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;
    use crate::kstatus::{KStatus, ObjectState, compute_state};

    fn kstatus_of(conditions: &[Condition]) -> KStatus {
        compute_state(ObjectState {
            kind: "Widget",
            deleting: false,
            generation: Some(1),
            observed_generation: Some(1),
            conditions,
        })
        .status
    }

    fn statuses(conditions: &[Condition; 3]) -> [ConditionStatus; 3] {
        conditions.each_ref().map(|c| c.status)
    }

    #[test]
    fn each_outcome_reads_right_in_kstatus() {
        use ConditionStatus::{False, True};
        let progress = in_progress("creating the database");
        assert_eq!(statuses(&progress), [False, True, False]);
        assert_eq!(kstatus_of(&progress), KStatus::InProgress);

        let success = after::<Failure>(Ok(()));
        assert_eq!(statuses(&success), [True, False, False]);
        assert_eq!(kstatus_of(&success), KStatus::Current);

        let retry = after(Err(&Failure::retryable("Throttled", "slow down")));
        assert_eq!(statuses(&retry), [False, True, False]);
        assert_eq!(kstatus_of(&retry), KStatus::InProgress);
        assert_eq!(retry[1].reason, "Throttled");

        let fatal = after(Err(&Failure::fatal("InvalidSpec", "size must be positive")));
        assert_eq!(statuses(&fatal), [False, False, True]);
        assert_eq!(kstatus_of(&fatal), KStatus::Failed);
        assert_eq!(fatal[2].message, "size must be positive");
        assert!(
            fatal
                .iter()
                .chain(&retry)
                .chain(&success)
                .all(Condition::is_valid)
        );
    }
}
