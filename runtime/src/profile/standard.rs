//! `standard`: one Ready condition, gitops-promoter's reasons.

use crate::condition::{Condition, ConditionStatus};
use crate::error::ReconcileError;
pub use kondition_names::profile::standard::*;

/// Ready after a reconcile: True on success; on failure False with
/// `ReconciliationError`, the error's message and its severity.
pub fn ready<E: ReconcileError>(result: Result<(), &E>, generation: Option<i64>) -> Condition {
    let mut condition = match result {
        Ok(()) => Condition::new(READY, ConditionStatus::True, REASON_RECONCILIATION_SUCCESS)
            .with_message("Reconciliation succeeded"),
        Err(error) => Condition::new(READY, ConditionStatus::False, REASON_RECONCILIATION_ERROR)
            .with_message(error.message())
            .with_severity(error.severity()),
    };
    condition.observed_generation = generation;
    condition
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condition::Severity;
    use crate::error::Failure;

    #[test]
    fn success_and_failure() {
        let ok = ready::<Failure>(Ok(()), Some(3));
        assert_eq!(
            (
                ok.status,
                ok.reason.as_str(),
                ok.severity,
                ok.observed_generation
            ),
            (
                ConditionStatus::True,
                REASON_RECONCILIATION_SUCCESS,
                Severity::None,
                Some(3)
            )
        );
        let failure = Failure::retryable("GitTimeout", "git fetch timed out");
        let failed = ready(Err(&failure), Some(3));
        assert_eq!(
            (
                failed.status,
                failed.reason.as_str(),
                failed.severity,
                failed.message.as_str()
            ),
            (
                ConditionStatus::False,
                REASON_RECONCILIATION_ERROR,
                Severity::Warning,
                "git fetch timed out"
            )
        );
    }
}
