//! Written from `templates/*.yaml` by `generator/tests/profiles.rs`; do not edit it by hand:
//! `KONDITION_BLESS=1 cargo test -p kondition-gen --test profiles` rewrites it after a
//! template changes, and that test fails while it differs from the templates.
//!
//! Each `kondition::profile::<name>` module re-exports its table.

use crate::conditions::TransitionRule;

/// `aso`: Azure Service Operator's Ready condition with severity. An error from the outside
/// system puts its own code in reason and its text in message, with Warning when it is
/// retryable and Error when it is not.
pub mod aso {
    use super::TransitionRule;

    /// Condition type `Ready` (Positive: True is healthy).
    ///
    /// Whether the resource has been driven to the state its spec describes.
    pub const READY: &str = "Ready";

    /// Reason `Reconciling`:
    ///
    /// - of Ready (severity Info): A request was sent to the outside system; waiting for
    ///   its answer.
    pub const REASON_RECONCILING: &str = "Reconciling";

    /// Reason `WaitingForOwner`:
    ///
    /// - of Ready (severity Warning): The owner of this resource cannot be found; progress
    ///   waits until it exists.
    pub const REASON_WAITING_FOR_OWNER: &str = "WaitingForOwner";

    /// Reason `Deleting`:
    ///
    /// - of Ready (severity Info): The resource is being deleted.
    pub const REASON_DELETING: &str = "Deleting";

    /// Reason `Succeeded`:
    ///
    /// - of Ready (severity None): The spec has been applied; nothing more to do.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY];

    /// The condition that summarises the others.
    pub(crate) const SUMMARY: &str = READY;

    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub(crate) const SUCCESS_REASON: &str = REASON_SUCCEEDED;

    /// When a condition's `lastTransitionTime` moves.
    pub(crate) const TRANSITION_RULE: TransitionRule = TransitionRule::AnyChange;
}

/// `kstatus`: Ready plus kstatus's abnormal-true Reconciling and Stalled, so that kubectl
/// wait --for=condition=Ready, Helm, Flux and kstatus all read the object right: in
/// progress is Ready=False, Reconciling=True (InProgress); success is Ready=True with the
/// others False (Current); a fatal error is Ready=False, Stalled=True (Failed).
pub mod kstatus {
    use super::TransitionRule;

    /// Condition type `Ready` (Positive: True is healthy).
    ///
    /// Whether the object has reached the state its spec describes.
    pub const READY: &str = "Ready";

    /// Condition type `Reconciling` (Negative: False is healthy).
    ///
    /// The controller is working on the latest spec (True while it is).
    pub const RECONCILING: &str = "Reconciling";

    /// Condition type `Stalled` (Negative: False is healthy).
    ///
    /// The controller has given up until the spec changes (True when it has).
    pub const STALLED: &str = "Stalled";

    /// Reason `Succeeded`:
    ///
    /// - of Ready (severity None): The last reconcile succeeded.
    /// - of Reconciling (severity None): The last reconcile succeeded; nothing is in
    ///   progress.
    /// - of Stalled (severity None): Not stalled; the last reconcile succeeded.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// Reason `Progressing`:
    ///
    /// - of Ready (severity Info): Work on the latest spec is under way.
    /// - of Reconciling (severity None): Work on the latest spec is under way.
    /// - of Stalled (severity None): Not stalled; work is under way or retrying by itself.
    pub const REASON_PROGRESSING: &str = "Progressing";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY, RECONCILING, STALLED];

    /// The condition that summarises the others.
    pub(crate) const SUMMARY: &str = READY;

    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub(crate) const SUCCESS_REASON: &str = REASON_SUCCEEDED;

    /// When a condition's `lastTransitionTime` moves.
    pub(crate) const TRANSITION_RULE: TransitionRule = TransitionRule::AnyChange;
}

/// `orc`: OpenStack Resource Controller's Available and Progressing; Available summarises,
/// as ORC has no Ready. A kind that declares subResources also gets SubResourcesReady
/// (positive), with reasons SubResourcesReady (None), SubResourcesPending (Info),
/// SubResourceFailed (Warning) and MultipleFailures (Warning); dependents may wait for it
/// when spec.managedOptions.waitForSubResources is true.
pub mod orc {
    use super::TransitionRule;

    /// Condition type `Available` (Positive: True is healthy).
    ///
    /// The main resource exists and can be operated on.
    pub const AVAILABLE: &str = "Available";

    /// Condition type `Progressing` (Negative: False is healthy).
    ///
    /// The controller is actively reconciling something (True while work is under way).
    pub const PROGRESSING: &str = "Progressing";

    /// Reason `Success`:
    ///
    /// - of Available (severity None): The resource is available.
    /// - of Progressing (severity None): The resource is up to date.
    pub const REASON_SUCCESS: &str = "Success";

    /// Reason `Progressing`:
    ///
    /// - of Available (severity Info): The resource is being created.
    /// - of Progressing (severity None): The resource or its sub-resources are being
    ///   created or updated.
    pub const REASON_PROGRESSING: &str = "Progressing";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[AVAILABLE, PROGRESSING];

    /// The condition that summarises the others.
    pub(crate) const SUMMARY: &str = AVAILABLE;

    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub(crate) const SUCCESS_REASON: &str = REASON_SUCCESS;

    /// When a condition's `lastTransitionTime` moves.
    pub(crate) const TRANSITION_RULE: TransitionRule = TransitionRule::AnyChange;
}

/// `standard`: One Ready condition that follows the result of the last reconcile, as
/// gitops-promoter writes it: True with ReconciliationSuccess when the reconcile succeeded,
/// False with ReconciliationError and the error's message and severity when it failed.
pub mod standard {
    use super::TransitionRule;

    /// Condition type `Ready` (Positive: True is healthy).
    ///
    /// Whether the last reconcile of the current spec succeeded.
    pub const READY: &str = "Ready";

    /// Reason `ReconciliationSuccess`:
    ///
    /// - of Ready (severity None): The last reconcile succeeded.
    pub const REASON_RECONCILIATION_SUCCESS: &str = "ReconciliationSuccess";

    /// Reason `ReconciliationError`:
    ///
    /// - of Ready (severity Warning): The last reconcile failed; the message says why. The
    ///   severity is the error's own: Warning when the controller retries by itself, Error
    ///   when the spec must change.
    pub const REASON_RECONCILIATION_ERROR: &str = "ReconciliationError";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY];

    /// The condition that summarises the others.
    pub(crate) const SUMMARY: &str = READY;

    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub(crate) const SUCCESS_REASON: &str = REASON_RECONCILIATION_SUCCESS;

    /// When a condition's `lastTransitionTime` moves.
    pub(crate) const TRANSITION_RULE: TransitionRule = TransitionRule::AnyChange;
}
