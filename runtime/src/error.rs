//! Reconcile errors that say what they mean for the status and for the requeue.
//!
//! ASO's rule: an error carries a reason, a severity and whether it is retryable, so the
//! Ready condition and the requeue both follow from the error alone. A retryable error is a
//! Warning (the controller keeps trying, with backoff); a fatal one is an Error (nothing will
//! change until the user edits the spec, so there is no retry).

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::validation::sanitize_reason;

/// An error from a reconcile body that knows how it should show in a condition.
///
/// ```
/// use std::borrow::Cow;
/// use kondition::{ReconcileError, Requeue, Severity};
///
/// #[derive(Debug)]
/// enum CloudError {
///     Throttled,
///     InvalidCidr(String),
/// }
///
/// impl std::fmt::Display for CloudError {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         match self {
///             Self::Throttled => f.write_str("the cloud API is throttling requests"),
///             Self::InvalidCidr(cidr) => write!(f, "{cidr} is not a valid CIDR"),
///         }
///     }
/// }
///
/// impl std::error::Error for CloudError {}
///
/// impl ReconcileError for CloudError {
///     fn reason(&self) -> Cow<'_, str> {
///         match self {
///             Self::Throttled => "TooManyRequests".into(),
///             Self::InvalidCidr(_) => "InvalidCidr".into(),
///         }
///     }
///     fn retryable(&self) -> bool {
///         matches!(self, Self::Throttled)
///     }
/// }
///
/// assert_eq!(CloudError::Throttled.severity(), Severity::Warning);
/// assert_eq!(CloudError::Throttled.requeue(), Requeue::Backoff);
/// assert_eq!(CloudError::InvalidCidr("10.0.0.0/33".into()).requeue(), Requeue::AwaitChange);
/// ```
pub trait ReconcileError: std::error::Error {
    /// The condition's reason: a CamelCase identifier of the cause, or the outside system's
    /// own error code. Text that is not a valid reason is made one (see
    /// [`sanitize_reason`](crate::validation::sanitize_reason)).
    fn reason(&self) -> Cow<'_, str>;

    /// Whether trying again without a change to the spec may succeed.
    fn retryable(&self) -> bool;

    /// The condition's severity: Warning when retryable, Error when not. Override only for
    /// an "error" that is really progress (ASO's `Reconciling`, Info).
    fn severity(&self) -> Severity {
        if self.retryable() {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    /// The condition's message: the error and its sources, joined by `": "`.
    fn message(&self) -> String {
        let mut message = self.to_string();
        let mut source = self.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        message
    }

    /// What the controller does next; follows from the severity.
    fn requeue(&self) -> Requeue {
        Requeue::for_severity(self.severity())
    }

    /// The False condition of the given type this error becomes.
    fn to_condition(&self, type_: &str, observed_generation: Option<i64>) -> Condition {
        let mut condition = Condition::new(
            type_,
            ConditionStatus::False,
            sanitize_reason(&self.reason()),
        )
        .with_severity(self.severity())
        .with_message(self.message());
        condition.observed_generation = observed_generation;
        condition
    }
}

/// What a controller does after a reconcile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Requeue {
    /// Success: come back at the normal resync interval (or on a change).
    Resync,
    /// A retryable failure: try again after a backoff that grows with each failure.
    Backoff,
    /// A fatal failure: do nothing until the object changes.
    AwaitChange,
}

impl Requeue {
    /// Error waits for a change of the spec; Warning and Info back off; None (a condition in
    /// its healthy state) resyncs.
    pub fn for_severity(severity: Severity) -> Self {
        match severity {
            Severity::Error => Self::AwaitChange,
            Severity::Warning | Severity::Info => Self::Backoff,
            Severity::None => Self::Resync,
        }
    }

    /// The requeue after a reconcile that returned `result`.
    pub fn for_result<T, E: ReconcileError>(result: &Result<T, E>) -> Self {
        match result {
            Ok(_) => Self::Resync,
            Err(error) => error.requeue(),
        }
    }
}

/// The delays behind [`Requeue`]: the resync interval and an exponential backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequeuePolicy {
    /// How long to wait after a success.
    pub resync: Duration,
    /// The delay after the first consecutive retryable failure.
    pub backoff_initial: Duration,
    /// The longest delay after consecutive retryable failures.
    pub backoff_max: Duration,
}

impl Default for RequeuePolicy {
    /// Resync every 10 minutes; back off from 5 seconds, doubling, up to 5 minutes.
    fn default() -> Self {
        Self {
            resync: Duration::from_secs(600),
            backoff_initial: Duration::from_secs(5),
            backoff_max: Duration::from_secs(300),
        }
    }
}

impl RequeuePolicy {
    /// The delay before the next reconcile, `None` for "only on a change". `failures` counts
    /// consecutive retryable failures including this one (1 for the first).
    pub fn delay(&self, requeue: Requeue, failures: u32) -> Option<Duration> {
        match requeue {
            Requeue::Resync => Some(self.resync),
            Requeue::AwaitChange => None,
            Requeue::Backoff => Some(self.backoff(failures)),
        }
    }

    /// The backoff after `failures` consecutive retryable failures, this one included (1 for
    /// the first): `backoff_initial`, doubling, at most `backoff_max`.
    pub fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        let delay = self.backoff_initial.saturating_mul(1 << doublings);
        delay.min(self.backoff_max)
    }
}

/// A ready-made [`ReconcileError`]: a reason, a message and a retry class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    reason: String,
    message: String,
    severity: Severity,
}

impl Failure {
    /// A failure the controller retries by itself (Warning, backoff).
    pub fn retryable(reason: impl Into<String>, message: impl Into<String>) -> Self {
        Self::with_severity(reason, message, Severity::Warning)
    }

    /// A failure only a change of the spec can fix (Error, no retry).
    pub fn fatal(reason: impl Into<String>, message: impl Into<String>) -> Self {
        Self::with_severity(reason, message, Severity::Error)
    }

    /// Not a failure but work still under way, such as a long-running cloud operation
    /// (Info, polled with backoff).
    pub fn in_progress(reason: impl Into<String>, message: impl Into<String>) -> Self {
        Self::with_severity(reason, message, Severity::Info)
    }

    fn with_severity(
        reason: impl Into<String>,
        message: impl Into<String>,
        severity: Severity,
    ) -> Self {
        Self {
            reason: reason.into(),
            message: message.into(),
            severity,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(&self.reason)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for Failure {}

impl ReconcileError for Failure {
    fn reason(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.reason)
    }

    fn retryable(&self) -> bool {
        self.severity != Severity::Error
    }

    fn severity(&self) -> Severity {
        self.severity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapped(Failure);

    impl fmt::Display for Wrapped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("creating the security group")
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    impl ReconcileError for Wrapped {
        fn reason(&self) -> Cow<'_, str> {
            "Quota.Exceeded".into()
        }
        fn retryable(&self) -> bool {
            true
        }
    }

    #[test]
    fn retry_class_decides_severity_and_requeue() {
        let retryable = Failure::retryable("InternalServerError", "Azure returned 500");
        assert!(retryable.retryable());
        assert_eq!(retryable.severity(), Severity::Warning);
        assert_eq!(retryable.requeue(), Requeue::Backoff);

        let fatal = Failure::fatal("BadRequest", "location eastus3 does not exist");
        assert!(!fatal.retryable());
        assert_eq!(fatal.severity(), Severity::Error);
        assert_eq!(fatal.requeue(), Requeue::AwaitChange);

        let progress = Failure::in_progress("Reconciling", "waiting for the deployment");
        assert_eq!(progress.severity(), Severity::Info);
        assert_eq!(progress.requeue(), Requeue::Backoff);

        assert_eq!(Requeue::for_result::<(), Failure>(&Ok(())), Requeue::Resync);
        assert_eq!(
            Requeue::for_result::<(), _>(&Err(fatal)),
            Requeue::AwaitChange
        );
    }

    #[test]
    fn an_error_becomes_a_false_condition_with_its_reason_and_chain() {
        let error = Wrapped(Failure::retryable("QuotaExceeded", "vCPU quota is 10"));
        let condition = error.to_condition("Ready", Some(7));
        assert_eq!(condition.type_, "Ready");
        assert_eq!(condition.status, ConditionStatus::False);
        assert_eq!(condition.reason, "QuotaExceeded");
        assert_eq!(condition.severity, Severity::Warning);
        assert_eq!(
            condition.message,
            "creating the security group: vCPU quota is 10"
        );
        assert_eq!(condition.observed_generation, Some(7));
        assert!(condition.is_valid());
    }

    #[test]
    fn backoff_doubles_up_to_the_limit() {
        let policy = RequeuePolicy::default();
        let secs = |failures| {
            policy
                .delay(Requeue::Backoff, failures)
                .map(|d| d.as_secs())
        };
        assert_eq!(secs(1), Some(5));
        assert_eq!(secs(2), Some(10));
        assert_eq!(secs(4), Some(40));
        assert_eq!(secs(7), Some(300));
        assert_eq!(secs(u32::MAX), Some(300));
        assert_eq!(policy.delay(Requeue::AwaitChange, 3), None);
        assert_eq!(
            policy.delay(Requeue::Resync, 0),
            Some(Duration::from_secs(600))
        );
    }
}
