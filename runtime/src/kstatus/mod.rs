//! The kstatus result of any object, by the rules of kstatus (`pkg/kstatus` of
//! `github.com/fluxcd/cli-utils`, the fork Helm 4's `--wait` and Flux compute it with, and
//! of upstream `sigs.k8s.io/cli-utils`): what `kubectl wait`, Helm, Flux and Argo CD read,
//! and what an operator reads to know whether the objects it owns are ready.
//!
//! [`compute`] takes an object as JSON (a `DynamicObject`, or anything through
//! `serde_json::to_value`), [`compute_for`] a typed object (k8s-openapi's `Deployment`, a
//! custom resource); both read the system clock once, and [`compute_at`] /
//! [`compute_for_at`] take the time instead, so that results are reproducible.
//! [`ObjectResult`] names the object beside its result, for
//! [`SubResources`](crate::SubResources) and [`inherit`](crate::inherit).
//! [`compute_with_pods_at`] reads a workload with the Pods it owns, as the tools' polling
//! engine does, by the [`Rules`] of either library (Flux's fork by default).
//!
//! # The rules
//!
//! As `status.Compute` of `pkg/kstatus/status` computes them, in this order; the first rule
//! that decides wins. That package is the same code in Flux's fork v1.3.0 (v1.2.3 and
//! v1.4.0 too) and upstream v0.37.2: they differ only in their import paths.
//! `runtime/tests/kstatus_conformance.rs` holds objects on both sides of every threshold
//! below, and `tests/tests/kstatus_differential.rs` checks 20,000 or more generated objects
//! per run against both libraries themselves (a Go program built from them): the same
//! status and the same message for every one.
//!
//! 1. **Deletion**: `metadata.deletionTimestamp` set: Terminating.
//! 2. **Generation**: `status.observedGeneration` present and different from
//!    `metadata.generation`: InProgress (the controller has not seen the latest spec).
//! 3. **Reconciling and Stalled**: the first condition, in list order, that is
//!    `Reconciling=True` (InProgress) or `Stalled=True` (Failed).
//! 4. **The built-in kinds' own rules**, chosen by API group and kind (any version). Each
//!    decides on its own; the Ready rule is not applied after it.
//!
//!    | group/kind | Current when | otherwise |
//!    | --- | --- | --- |
//!    | `Pod` | phase Succeeded or Failed (it has finished); Running with Ready=True | Running with a container in `CrashLoopBackOff`: Failed. Pending with PodScheduled=False (Unschedulable) for [`UNSCHEDULABLE_GRACE`] after `creationTimestamp` or longer: Failed. Anything else: InProgress |
//!    | `PersistentVolumeClaim` | phase Bound | InProgress |
//!    | `apps/Deployment` | `spec.replicas` (default 1) replicas exist, all updated, none extra, every updated one available, all ready; Progressing=True with reason NewReplicaSetAvailable (or no progress deadline); Available=True | Progressing with reason ProgressDeadlineExceeded: Failed. Else InProgress |
//!    | `apps/ReplicaSet` | `spec.replicas` (default 1) fully labeled, available and ready, none extra | InProgress (also while ReplicaFailure=True) |
//!    | `apps/StatefulSet` | update strategy OnDelete; or all replicas exist, are ready, none extra, and then either the partition's share is updated (when `rollingUpdate.partition` is set) or all are at the current revision and the current and update revisions agree | InProgress |
//!    | `apps/DaemonSet` | `metadata.generation` and `status.observedGeneration` present, and `desiredNumberScheduled` pods scheduled, updated, available and ready | InProgress |
//!    | `batch/Job` | condition Complete=True; or started (`status.startTime` set) | condition Failed=True: Failed. Not started (suspended ones too): InProgress |
//!    | `Service` | always, but for type LoadBalancer without `spec.clusterIP` | InProgress |
//!    | `apiextensions.k8s.io/CustomResourceDefinition` | Established=True | NamesAccepted=False, or Established=False for any reason but Installing: Failed. Else InProgress |
//!    | `policy/PodDisruptionBudget`, `batch/CronJob`, `ConfigMap`, `Secret` | always (nothing to wait for beyond rule 2) | - |
//!
//!    `extensions/` Deployment, ReplicaSet and DaemonSet follow the `apps/` rules. Core kinds
//!    (`Pod`, `Service`, ...) are matched only in the core group (`apiVersion: v1`): a
//!    custom `example.com/Pod` gets the generic rules.
//! 5. **Ready**, for kinds without a rule of their own: the first `Ready` condition whose
//!    status is True (Current), False or Unknown (InProgress); one with any other status is
//!    skipped.
//! 6. Otherwise **Current**: nothing says the object is not done.
//!
//! Counts read as kstatus reads them: a field that is missing or not an integer takes the
//! default (0 for status counts); conditions are matched by exact `type` and `status`.
//! Messages are kstatus's, word for word ("Ready: 2/4", "Job not started"); where a
//! condition decides (Reconciling, Stalled, Ready, a CRD's), its message is the message.
//!
//! # Where the libraries differ
//!
//! Read from both sources (`pkg/kstatus` of `github.com/fluxcd/cli-utils` v1.3.0 against
//! `sigs.k8s.io/cli-utils` v0.37.2, and upstream's main after v0.37.2):
//!
//! | case | Flux's fork v1.3.0 (Helm 4, Flux): the default | upstream v0.37.2: [`Rules::CliUtils`] | upstream main, unreleased |
//! | --- | --- | --- | --- |
//! | An `apps` ReplicaSet or StatefulSet, InProgress, with a failed Pod (crash-looping, or unschedulable past the grace period) that the scheduler reports as Unschedulable (`PodScheduled=False`, reason `Unschedulable`), or that is being deleted ([`compute_with_pods_at`]) | the Pod does not count: the workload's own result (a fork change since v0.37.2-flux.1, in every release to v1.4.0) | Failed, "N pods have failed" | as v0.37.2 |
//! | A Job with `spec.suspend: true` and a `Suspended=True` condition | InProgress ("Job not started", or "Job in progress..." once started) | the same | Current, "Job is suspended" |
//!
//! kondition follows the two releases, so a suspended Job is InProgress here as it is for
//! Helm 4 and Flux; upstream's rule would become a third [`Rules`] when it is released. The
//! fork's other changes do not touch results: a rate limiter's "would exceed context
//! deadline" is handled as a cancelled context, and the watcher's informer options.
//! The differential draws both cases in every run and asserts that they come up.
//!
//! # What is deliberately not covered
//!
//! - kstatus's NotFound and Unknown results: an object given here exists, and where kstatus
//!   returns an error instead of a result (a Pod in a phase it does not know, such as
//!   `Unknown`), the answer here is InProgress, so that nothing waits past it.
//! - Fields of an unexpected shape (a count given as text, a condition that is not an
//!   object) count as absent rather than failing the whole computation.
//! - What kstatus itself does not look at: a LoadBalancer Service's external address
//!   (`status.loadBalancer`), a PodDisruptionBudget's allowed disruptions, a CronJob's last
//!   run, a Job's `FailureTarget` or `SuccessCriteriaMet` conditions, init containers in
//!   `CrashLoopBackOff`. Being stricter than kstatus would make `kubectl wait`, Helm and
//!   this crate disagree.
//! - kstatus's Stalled/Reconciling conditions it adds to a result ("augment"): results
//!   carry a status and a message only.

mod fields;
mod generic;
mod kinds;
mod pods;
mod typed;

use std::fmt;

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::condition::Condition;
use fields::{Fields, FoundCondition};

pub use kinds::UNSCHEDULABLE_GRACE;
pub use pods::{Rules, compute_with_pods, compute_with_pods_at};
pub use typed::{ObjectResult, compute_for, compute_for_at};

/// The reconcile state of an object as kstatus sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KStatus {
    /// The controller has not yet brought the object to its desired state.
    InProgress,
    /// The controller gave up or made no progress (`Stalled=True`).
    Failed,
    /// The object is in its desired state.
    Current,
    /// The object is being deleted.
    Terminating,
}

impl fmt::Display for KStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl KStatus {
    /// The word kstatus uses: `InProgress`, `Failed`, `Current` or `Terminating`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InProgress => "InProgress",
            Self::Failed => "Failed",
            Self::Current => "Current",
            Self::Terminating => "Terminating",
        }
    }
}

/// A kstatus result with kstatus's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KStatusResult {
    /// The state.
    pub status: KStatus,
    /// Why, in kstatus's words or the deciding condition's message.
    pub message: String,
}

impl KStatusResult {
    pub(crate) fn new(status: KStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn current(message: impl Into<String>) -> Self {
        Self::new(KStatus::Current, message)
    }

    pub(crate) fn in_progress(message: impl Into<String>) -> Self {
        Self::new(KStatus::InProgress, message)
    }

    pub(crate) fn failed(message: impl Into<String>) -> Self {
        Self::new(KStatus::Failed, message)
    }

    /// Whether the object is in its desired state (Current).
    pub fn is_current(&self) -> bool {
        self.status == KStatus::Current
    }
}

/// The parts of an object kstatus reads.
#[derive(Clone, Copy, Debug)]
pub struct ObjectState<'a, C> {
    /// The object's kind, for messages.
    pub kind: &'a str,
    /// Whether `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `metadata.generation`.
    pub generation: Option<i64>,
    /// `status.observedGeneration`.
    pub observed_generation: Option<i64>,
    /// `status.conditions`.
    pub conditions: C,
}

/// A condition as kstatus reads it: only type, status and message, as plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConditionView<'a> {
    /// `type`
    pub type_: &'a str,
    /// `status`, not necessarily one of the three valid words.
    pub status: &'a str,
    /// `message`
    pub message: &'a str,
}

impl<'a> From<&'a Condition> for ConditionView<'a> {
    fn from(condition: &'a Condition) -> Self {
        Self {
            type_: &condition.type_,
            status: condition.status.as_str(),
            message: &condition.message,
        }
    }
}

impl<'a> From<ConditionView<'a>> for FoundCondition<'a> {
    fn from(view: ConditionView<'a>) -> Self {
        Self {
            type_: view.type_,
            status: view.status,
            reason: "",
            message: view.message,
        }
    }
}

/// The kstatus result of an object given as JSON (a `DynamicObject`, or any typed object
/// through `serde_json::to_value`), at the system clock's time. Fields of an unexpected
/// shape count as absent. See [`compute_at`] for a result that does not depend on when it
/// is asked.
pub fn compute(object: &Value) -> KStatusResult {
    compute_at(object, Timestamp::now())
}

/// The kstatus result of an object given as JSON, with `now` as the time for the rules that
/// depend on it (a Pod unschedulable for longer than [`UNSCHEDULABLE_GRACE`]).
///
/// ```
/// use kondition::kstatus::{KStatus, compute_at};
/// use serde_json::json;
///
/// let deployment = json!({
///     "apiVersion": "apps/v1", "kind": "Deployment",
///     "metadata": {"name": "web", "generation": 2},
///     "spec": {"replicas": 4},
///     "status": {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 4,
///                "availableReplicas": 4, "readyReplicas": 2},
/// });
/// let result = compute_at(&deployment, "2024-01-01T00:00:00Z".parse().expect("time"));
/// assert_eq!(result.status, KStatus::InProgress);
/// assert_eq!(result.message, "Ready: 2/4");
/// ```
pub fn compute_at(object: &Value, now: Timestamp) -> KStatusResult {
    let fields = Fields::new(object);
    let kind = fields.string(&["kind"], "");
    let conditions: Vec<FoundCondition<'_>> = fields.conditions().collect();
    if let Some(result) = generic::deciding(
        kind,
        fields.is_deleting(),
        fields.int_opt(&["metadata", "generation"]),
        fields.int_opt(&["status", "observedGeneration"]),
        &conditions,
    ) {
        return result;
    }
    if let Some(rule) = kinds::rule_for(fields.group(), kind) {
        return rule(&fields, &conditions, now);
    }
    generic::ready(&conditions).unwrap_or_else(generic::current)
}

/// The kstatus result of an object given by its parts: the rules every object shares
/// (deletion, generation, Reconciling and Stalled, Ready). The built-in kinds' own rules
/// need the whole object: give it to [`compute`] or [`compute_for`] instead.
pub fn compute_state<'a, C>(object: ObjectState<'_, C>) -> KStatusResult
where
    C: IntoIterator,
    C::Item: Into<ConditionView<'a>>,
{
    let conditions: Vec<FoundCondition<'a>> = object
        .conditions
        .into_iter()
        .map(|c| FoundCondition::from(c.into()))
        .collect();
    generic::deciding(
        object.kind,
        object.deleting,
        object.generation,
        object.observed_generation,
        &conditions,
    )
    .or_else(|| generic::ready(&conditions))
    .unwrap_or_else(generic::current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(metadata: Value, status: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata, "status": status})
    }

    fn condition(type_: &str, status: &str, message: &str) -> Value {
        json!({"type": type_, "status": status, "reason": "R", "message": message,
               "lastTransitionTime": "2024-01-01T00:00:00Z"})
    }

    fn check(object: Value, status: KStatus, message: &str) {
        let result = compute(&object);
        assert_eq!(
            result,
            KStatusResult {
                status,
                message: message.into()
            },
            "{object}"
        );
    }

    #[test]
    fn deletion_comes_first() {
        let stalled = condition("Stalled", "True", "stuck");
        check(
            object(
                json!({"generation": 2, "deletionTimestamp": "2024-01-01T00:00:00Z"}),
                json!({"observedGeneration": 1, "conditions": [stalled]}),
            ),
            KStatus::Terminating,
            "Resource scheduled for deletion",
        );
    }

    #[test]
    fn an_unobserved_generation_is_in_progress() {
        check(
            object(
                json!({"generation": 3}),
                json!({"observedGeneration": 2, "conditions": [condition("Ready", "True", "")]}),
            ),
            KStatus::InProgress,
            "Widget generation is 3, but latest observed generation is 2",
        );
    }

    #[test]
    fn reconciling_and_stalled_decide_in_list_order() {
        let both = json!({"observedGeneration": 1, "conditions": [
            condition("Ready", "False", "not ready"),
            condition("Stalled", "True", "quota exceeded"),
            condition("Reconciling", "True", "applying"),
        ]});
        check(
            object(json!({"generation": 1}), both),
            KStatus::Failed,
            "quota exceeded",
        );
        let reconciling = json!({"conditions": [
            condition("Stalled", "False", ""),
            condition("Reconciling", "True", "applying"),
        ]});
        check(
            object(json!({"generation": 1}), reconciling),
            KStatus::InProgress,
            "applying",
        );
    }

    #[test]
    fn ready_decides_when_nothing_else_does() {
        let with_ready = |status: &str| {
            object(
                json!({"generation": 4}),
                json!({"observedGeneration": 4, "conditions": [
                    condition("Reconciling", "False", ""),
                    condition("Ready", status, "waiting for owner"),
                ]}),
            )
        };
        check(with_ready("True"), KStatus::Current, "Resource is Ready");
        check(
            with_ready("False"),
            KStatus::InProgress,
            "waiting for owner",
        );
        check(
            with_ready("Unknown"),
            KStatus::InProgress,
            "waiting for owner",
        );
        check(with_ready("Maybe"), KStatus::Current, "Resource is current");
    }

    #[test]
    fn no_status_at_all_is_current() {
        check(
            json!({"kind": "Widget", "metadata": {"name": "x"}}),
            KStatus::Current,
            "Resource is current",
        );
        // A missing observedGeneration skips the generation check.
        check(
            object(json!({"generation": 9}), json!({})),
            KStatus::Current,
            "Resource is current",
        );
    }

    #[test]
    fn typed_conditions_work_too() {
        let conditions = [Condition::new(
            "Ready",
            crate::condition::ConditionStatus::False,
            "Reconciling",
        )
        .with_message("creating")];
        let result = compute_state(ObjectState {
            kind: "Widget",
            deleting: false,
            generation: Some(1),
            observed_generation: Some(1),
            conditions: &conditions,
        });
        assert_eq!(result.status, KStatus::InProgress);
        assert_eq!(result.message, "creating");
    }

    #[test]
    fn compute_state_skips_a_ready_of_no_valid_status() {
        let views = [
            ConditionView {
                type_: "Ready",
                status: "Maybe",
                message: "ignored",
            },
            ConditionView {
                type_: "Ready",
                status: "False",
                message: "the second one decides",
            },
        ];
        let result = compute_state(ObjectState {
            kind: "Widget",
            deleting: false,
            generation: None,
            observed_generation: None,
            conditions: views,
        });
        assert_eq!(result, KStatusResult::in_progress("the second one decides"));
    }
}
