//! `aso`: Ready with severity and Azure Service Operator's reasons.
//!
//! | reason | status | severity | meaning |
//! | --- | --- | --- | --- |
//! | `Reconciling` | False | Info | a request was sent; waiting for the outside system |
//! | `WaitingForOwner` | False | Warning | the owner does not exist yet; blocked until it does |
//! | `Deleting` | False | Info | the resource is being deleted |
//! | `Succeeded` | True | None | the spec has been applied; nothing more to do |
//!
//! An error from the outside system puts its own code in `reason` and its text in
//! `message` ([`failed`]), with Warning when it is retryable and Error when it is not.

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::error::ReconcileError;
pub use kondition_names::profile::aso::*;

fn ready(status: ConditionStatus, reason: &str, severity: Severity, message: &str) -> Condition {
    Condition::new(READY, status, reason)
        .with_severity(severity)
        .with_message(message)
}

/// Ready=False, `Reconciling`, Info.
pub fn reconciling(message: &str) -> Condition {
    ready(
        ConditionStatus::False,
        REASON_RECONCILING,
        Severity::Info,
        message,
    )
}

/// Ready=False, `WaitingForOwner`, Warning.
pub fn waiting_for_owner(message: &str) -> Condition {
    ready(
        ConditionStatus::False,
        REASON_WAITING_FOR_OWNER,
        Severity::Warning,
        message,
    )
}

/// Ready=False, `Deleting`, Info.
pub fn deleting(message: &str) -> Condition {
    ready(
        ConditionStatus::False,
        REASON_DELETING,
        Severity::Info,
        message,
    )
}

/// Ready=True, `Succeeded`, no severity.
pub fn succeeded() -> Condition {
    ready(ConditionStatus::True, REASON_SUCCEEDED, Severity::None, "")
}

/// Ready=False with the error's own reason (such as a cloud error code) and message.
pub fn failed<E: ReconcileError + ?Sized>(error: &E) -> Condition {
    error.to_condition(READY, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;

    #[test]
    fn reasons_and_severities_follow_the_proposal() {
        let table = [
            (
                reconciling("PUT sent"),
                ConditionStatus::False,
                "Reconciling",
                Severity::Info,
            ),
            (
                waiting_for_owner("rg-1 missing"),
                ConditionStatus::False,
                "WaitingForOwner",
                Severity::Warning,
            ),
            (
                deleting(""),
                ConditionStatus::False,
                "Deleting",
                Severity::Info,
            ),
            (
                succeeded(),
                ConditionStatus::True,
                "Succeeded",
                Severity::None,
            ),
        ];
        for (condition, status, reason, severity) in table {
            assert_eq!(condition.type_, READY);
            assert_eq!(
                (
                    condition.status,
                    condition.reason.as_str(),
                    condition.severity
                ),
                (status, reason, severity)
            );
            assert!(condition.is_valid());
        }
    }

    #[test]
    fn outside_errors_keep_their_code_and_text() {
        let throttled = Failure::retryable("TooManyRequests", "Azure throttled the request");
        let condition = failed(&throttled);
        assert_eq!(condition.reason, "TooManyRequests");
        assert_eq!(condition.message, "Azure throttled the request");
        assert_eq!(condition.severity, Severity::Warning);

        let bad_location = Failure::fatal(
            "LocationNotAvailableForResourceGroup",
            "eastus3 is not available",
        );
        assert_eq!(failed(&bad_location).severity, Severity::Error);

        // A code that is not a valid reason is made one.
        let dotted = Failure::fatal("Invalid.Parameter", "bad parameter");
        assert_eq!(failed(&dotted).reason, "InvalidParameter");
    }
}
