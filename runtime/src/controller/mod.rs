//! The status chokepoint for `kube::runtime::Controller` (feature `controller`).
//!
//! Every reconcile writes status in one place, after the body ran ([`StatusReconciler`]):
//!
//! 1. the summary condition (Ready) is cleared before the body, so one found afterwards was
//!    set by this reconcile on purpose (inherited from children, say);
//! 2. otherwise it follows the result: success, the error's reason, severity and message, a
//!    pre-check's block or postponement, a post-check's failure, or a panic;
//! 3. `status.observedGeneration` becomes `metadata.generation`, and so does the summary
//!    condition's own `observedGeneration`;
//! 4. the whole status is applied with server-side apply, forced, under the kind's field
//!    owner, only if the object is still at the `resourceVersion` read (409 otherwise: a
//!    status computed from a stale copy never overwrites a newer one); nothing is sent when
//!    it equals the stored status;
//! 5. when the API server rejects it, only the conditions that pass validation are applied,
//!    under `<owner>-fallback`, without `observedGeneration`; after a later full apply the
//!    fallback manager gives its fields up;
//! 6. the body never writes status itself: it changes the object it is handed.
//!
//! While the object is being deleted (its finalizers run), a successful body leaves the
//! summary False with reason `Deleting` (Info); a write after the object is gone (404) is not
//! an error. [`with_finalizer`] runs `kube::runtime::finalizer` inside the body, so that the
//! status changes of applying or cleaning up reach the write.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use kondition::controller::{StatusReconciler, Error};
//! # use kondition::{Failure, StatusResource};
//! # async fn example<K>(reconciler: Arc<StatusReconciler<K>>, object: Arc<K>)
//! # where K: StatusResource + Clone + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static {
//! // Inside the function given to kube::runtime::Controller::run:
//! let action = reconciler
//!     .reconcile(object, async |object: &mut K| {
//!         // Create or update the outside resource; change `object`'s status as needed.
//!         Ok::<(), Failure>(())
//!     })
//!     .await;
//! # }
//! ```

mod apply;
mod checks;
mod finalizer;

use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use kube::Resource;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::Instrument;

pub use apply::{REASON_STATUS_REJECTED, Written, fallback_owner};
pub use checks::{
    CheckError, CheckFuture, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
};
pub use finalizer::{FinalizerError, with_finalizer};

use crate::{
    Condition, ConditionStatus, KubeStatus, ReconcileError, Requeue, RequeuePolicy, Severity,
    StatusResource,
};

/// Reason: a pre-reconciliation check blocked the reconcile (Warning, retried soon).
pub const REASON_BLOCKED: &str = "ReconciliationBlocked";
/// Reason: a pre-reconciliation check postponed the reconcile (Info, until the resync).
pub const REASON_POSTPONED: &str = "ReconciliationPostponed";
/// Reason: a post-reconciliation check failed (Warning).
pub const REASON_POST_RECONCILE_FAILURE: &str = "PostReconcileFailure";
/// Reason: the reconcile body panicked (Warning, retried with backoff).
pub const REASON_PANICKED: &str = "ReconcilePanicked";
/// Reason: the object is being deleted and its finalizers run (Info).
pub const REASON_DELETING: &str = "Deleting";

/// Why the chokepoint itself failed: the status could not be written.
#[derive(Debug)]
pub struct Error(kube::Error);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "writing the status failed: {}", self.0)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl Error {
    /// The API server's HTTP status code, if it answered (none for a transport error such
    /// as a timeout or a reset connection).
    pub fn status_code(&self) -> Option<u16> {
        apply::status_code(&self.0)
    }

    /// Whether the object changed since the reconcile read it (409 Conflict): the status
    /// computed from the old copy was not written, and the next reconcile starts from the
    /// new one.
    pub fn is_conflict(&self) -> bool {
        self.status_code() == Some(409)
    }

    /// How long the API server asked to wait before retrying (`details.retryAfterSeconds`
    /// of a 429 Too Many Requests, or of a 5xx that sets it).
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match &self.0 {
            kube::Error::Api(status) => status
                .details
                .as_ref()
                .map(|d| d.retry_after_seconds)
                .filter(|seconds| *seconds > 0)
                .map(|seconds| std::time::Duration::from_secs(seconds.into())),
            _ => None,
        }
    }

    /// The error from kube.
    pub fn kube_error(&self) -> &kube::Error {
        &self.0
    }
}

/// The status chokepoint for one kind: wraps a reconcile body, then writes the status.
pub struct StatusReconciler<K> {
    client: kube::Client,
    recorder: Option<Recorder>,
    policy: RequeuePolicy,
    summary: String,
    success_reason: String,
    pre_checks: Vec<Box<dyn PreReconcileCheck<K>>>,
    post_checks: Vec<Box<dyn PostReconcileCheck<K>>>,
    failures: Mutex<HashMap<String, u32>>,
}

/// How the reconcile went, before the status is written.
enum Outcome {
    Succeeded,
    Failed {
        condition: Condition,
        requeue: Requeue,
    },
    Blocked(String),
    Postponed(String),
    PostCheckFailed(String),
    Panicked(String),
}

impl<K> StatusReconciler<K>
where
    K: StatusResource + Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static,
{
    /// A chokepoint writing through `client`, with summary condition `Ready` and success
    /// reason `Succeeded`, the default [`RequeuePolicy`], no events and no checks.
    pub fn new(client: kube::Client) -> Self {
        Self {
            client,
            recorder: None,
            policy: RequeuePolicy::default(),
            summary: "Ready".to_owned(),
            success_reason: "Succeeded".to_owned(),
            pre_checks: Vec::new(),
            post_checks: Vec::new(),
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Records an Event whenever the summary condition's status or reason changes.
    #[must_use]
    pub fn recorder(mut self, recorder: Recorder) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// The resync interval and backoff.
    #[must_use]
    pub fn requeue_policy(mut self, policy: RequeuePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The summary condition type and its success reason (by default `Ready`, `Succeeded`;
    /// the `standard` profile uses `ReconciliationSuccess`, `orc` summarises into Available).
    #[must_use]
    pub fn summary(mut self, type_: impl Into<String>, success_reason: impl Into<String>) -> Self {
        self.summary = type_.into();
        self.success_reason = success_reason.into();
        self
    }

    /// Adds a pre-reconciliation check; checks run in the order added.
    #[must_use]
    pub fn pre_check(mut self, check: impl PreReconcileCheck<K> + 'static) -> Self {
        self.pre_checks.push(Box::new(check));
        self
    }

    /// Adds a post-reconciliation check; checks run in the order added.
    #[must_use]
    pub fn post_check(mut self, check: impl PostReconcileCheck<K> + 'static) -> Self {
        self.post_checks.push(Box::new(check));
        self
    }

    /// The field manager of full status applies.
    pub fn field_owner(&self) -> String {
        K::field_owner().into_owned()
    }

    /// Runs `body` on a copy of `object` (summary condition cleared) between the checks,
    /// then writes the status once and returns the requeue that follows. Errors are only
    /// those of writing the status; the body's own error is in the status.
    pub async fn reconcile<E, F>(&self, object: Arc<K>, body: F) -> Result<Action, Error>
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        let key = object_key(&*object);
        let span =
            tracing::info_span!("reconcile", object = %key, generation = object.meta().generation);
        async {
            let mut working = (*object).clone();
            working.status_mut().conditions_mut().remove(&self.summary);
            let outcome = self.run(&mut working, body).await;
            let requeue = self.finish_status(&object, &mut working, &outcome);
            // Counted from the body's outcome before the write: a write that fails (and is
            // retried through the error policy) neither hides a failure nor a success.
            let failures = self.count_failures(&key, requeue);
            let written = apply::write_status(&self.client, &*object, &working, &self.summary)
                .await
                .map_err(Error)?;
            match &written {
                Written::Fallback(message) => {
                    tracing::warn!(%message, "status rejected; applied the conditions only");
                    let note = format!("the API server rejected the status: {message}");
                    self.publish(&working, EventType::Warning, REASON_STATUS_REJECTED, note)
                        .await;
                }
                Written::NotFound => tracing::debug!("object gone before its status was written"),
                Written::Full | Written::Unchanged => {
                    self.record_transition(&object, &working).await
                }
            }
            Ok(match self.policy.delay(requeue, failures) {
                Some(delay) => Action::requeue(delay),
                None => Action::await_change(),
            })
        }
        .instrument(span)
        .await
    }

    /// The checks and the body.
    async fn run<E, F>(&self, object: &mut K, body: F) -> Outcome
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        let decision = Next::new(&self.pre_checks).run(object, &self.client).await;
        match decision {
            Ok(PreCheck::Proceed) => {}
            Ok(PreCheck::Block(reason)) => return Outcome::Blocked(reason),
            Ok(PreCheck::Postpone(reason)) => return Outcome::Postponed(reason),
            Err(error) => return Outcome::Blocked(error.to_string()),
        }
        let result = AssertUnwindSafe(body(object)).catch_unwind().await;
        match result {
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "the reconcile body panicked".to_owned());
                tracing::error!(%message, "reconcile body panicked");
                Outcome::Panicked(message)
            }
            Ok(Err(error)) => Outcome::Failed {
                condition: error.to_condition(&self.summary, None),
                requeue: error.requeue(),
            },
            Ok(Ok(())) => {
                for check in &self.post_checks {
                    match check.check(object, &self.client).await {
                        Ok(PostCheck::Success) => {}
                        Ok(PostCheck::Failure(reason)) => return Outcome::PostCheckFailed(reason),
                        Err(error) => return Outcome::PostCheckFailed(error.to_string()),
                    }
                }
                Outcome::Succeeded
            }
        }
    }

    /// Steps 2 and 3: the summary condition (unless the body set it) and the generations.
    fn finish_status(&self, stored: &K, object: &mut K, outcome: &Outcome) -> Requeue {
        let generation = object.meta().generation;
        let summary = &self.summary;
        let deleting = object.meta().deletion_timestamp.is_some();
        let (condition, requeue) = match outcome {
            // Finalizer work went well, but the object is on its way out: not Ready.
            Outcome::Succeeded if deleting => (
                failed(
                    summary,
                    REASON_DELETING,
                    Severity::Info,
                    "The resource is being deleted",
                ),
                Requeue::Resync,
            ),
            Outcome::Succeeded => (
                Condition::new(summary, ConditionStatus::True, &self.success_reason),
                Requeue::Resync,
            ),
            Outcome::Failed { condition, requeue } => (condition.clone(), *requeue),
            Outcome::Blocked(reason) => (
                failed(summary, REASON_BLOCKED, Severity::Warning, reason),
                Requeue::Backoff,
            ),
            Outcome::Postponed(reason) => (
                failed(summary, REASON_POSTPONED, Severity::Info, reason),
                Requeue::Resync,
            ),
            Outcome::PostCheckFailed(reason) => (
                failed(
                    summary,
                    REASON_POST_RECONCILE_FAILURE,
                    Severity::Warning,
                    reason,
                ),
                Requeue::Backoff,
            ),
            Outcome::Panicked(message) => (
                failed(summary, REASON_PANICKED, Severity::Warning, message),
                Requeue::Backoff,
            ),
        };
        let status = object.status_mut();
        let conditions = status.conditions_mut();
        // A summary the body set on purpose stands; only its generation is stamped.
        let mut summary_condition = conditions.remove(summary).unwrap_or(condition);
        summary_condition.observed_generation = generation;
        // Set over the stored one, at its place, so that an unchanged condition keeps its
        // time and the list its order: a steady state then writes nothing.
        let stored_summary = stored.status().and_then(|s| {
            let conditions = s.conditions();
            conditions
                .iter()
                .position(|c| &c.type_ == summary)
                .map(|i| (i, conditions[i].clone()))
        });
        if let Some((index, previous)) = stored_summary {
            conditions.insert_at(index, previous);
        }
        conditions.set(summary_condition);
        if let Some(generation) = generation {
            status.set_observed_generation(generation);
        }
        requeue
    }

    /// An Event when the summary condition's status or reason changed.
    async fn record_transition(&self, stored: &K, written: &K) {
        let before = stored
            .status()
            .and_then(|s| s.conditions().get(&self.summary));
        let Some(after) = written
            .status()
            .and_then(|s| s.conditions().get(&self.summary))
        else {
            return;
        };
        if before.is_some_and(|b| b.status == after.status && b.reason == after.reason) {
            return;
        }
        let type_ = if after.status == ConditionStatus::False && after.severity >= Severity::Warning
        {
            EventType::Warning
        } else {
            EventType::Normal
        };
        let note = format!("{} is {}: {}", self.summary, after.status, after.message);
        self.publish(written, type_, &after.reason, note).await;
    }

    /// Publishes an Event about `object`, if a recorder was given.
    async fn publish(&self, object: &K, type_: EventType, reason: &str, note: String) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        let event = Event {
            type_,
            reason: reason.to_owned(),
            note: Some(note),
            action: "Reconcile".to_owned(),
            secondary: None,
        };
        if let Err(error) = recorder.publish(&event, &object.object_ref(&())).await {
            tracing::warn!(%error, "could not record an event");
        }
    }

    /// Consecutive retried failures of this object's reconcile (the body and checks, whether
    /// or not their status could be written), counting this one; 0 after a success.
    fn count_failures(&self, key: &str, requeue: Requeue) -> u32 {
        let Ok(mut failures) = self.failures.lock() else {
            return 1;
        };
        if requeue == Requeue::Backoff {
            let count = failures.entry(key.to_owned()).or_insert(0);
            *count = count.saturating_add(1);
            *count
        } else {
            failures.remove(key);
            0
        }
    }
}

/// A False summary condition.
fn failed(type_: &str, reason: &str, severity: Severity, message: &str) -> Condition {
    Condition::new(type_, ConditionStatus::False, reason)
        .with_severity(severity)
        .with_message(message)
}

fn object_key<K: Resource>(object: &K) -> String {
    let meta = object.meta();
    match &meta.namespace {
        Some(namespace) => format!("{namespace}/{}", meta.name.as_deref().unwrap_or_default()),
        None => meta.name.clone().unwrap_or_default(),
    }
}

/// The error policy that matches [`StatusReconciler::reconcile`]: only a failed status write
/// reaches it (a timeout, a reset connection, a 5xx, 429, or 409 when the object changed
/// since it was read), and the reconcile is retried after `delay`, or after the API
/// server's `retryAfterSeconds` when that is longer. The retry computes the status anew
/// from the object as it is then, so nothing is lost.
pub fn error_policy<K>(_object: Arc<K>, error: &Error, delay: std::time::Duration) -> Action {
    let delay = error.retry_after().map_or(delay, |after| after.max(delay));
    if error.is_conflict() {
        tracing::debug!(%error, "the object changed since it was read; reconciling it again");
    } else {
        tracing::warn!(%error, ?delay, "status write failed; retrying");
    }
    Action::requeue(delay)
}
