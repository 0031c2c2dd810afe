//! The status chokepoint for `kube::runtime::Controller` (feature `controller`).
//!
//! Every reconcile writes status in one place, after the body ran ([`StatusReconciler`]):
//!
//! 1. the summary condition (the kind's profile's: Ready, or Available for `orc`) and the
//!    profile's companions (`orc`'s Progressing, `kstatus`'s Reconciling and Stalled) are
//!    cleared before the body, so any found afterwards were set by this reconcile on purpose
//!    (inherited from children, say);
//! 2. otherwise they follow the result: success, the error's reason, severity and message, a
//!    pre-check's block or postponement, a post-check's failure, or a panic (the table in
//!    the README lists every reason the chokepoint writes);
//! 3. `status.observedGeneration` becomes `metadata.generation`, and so does the
//!    `observedGeneration` of every condition the chokepoint set;
//! 4. the whole status is applied with server-side apply, forced, under the kind's field
//!    owner, only if the object is still at the `resourceVersion` read (409 otherwise: a
//!    status computed from a stale copy never overwrites a newer one); nothing is sent when
//!    it equals the stored status;
//! 5. when the API server rejects it, only the conditions that pass validation are applied,
//!    under `<owner>-fallback`, without `observedGeneration` (a summary that said success
//!    says `StatusRejected` instead); after a later full apply the fallback manager gives its
//!    fields up (a status already stored is applied again first when the fallback manager
//!    still holds fields, because the release after its full apply was lost);
//! 6. the body never writes status itself: it changes the object it is handed.
//!
//! A failure that persists is a steady state. Each condition is set over the stored one, so
//! an outcome repeated keeps every `lastTransitionTime` and writes nothing. A rejected status
//! is remembered per object (uid and the status's fingerprint): until its backoff has passed,
//! the same status is not sent again (the reconcile that the fallback's own watch event
//! causes sends nothing), and a fallback equal to the stored conditions is not sent either.
//! An Event is recorded only when the summary's status or reason changes. What is remembered
//! (the backoff counts and the rejections) is bounded: see
//! [`StatusReconciler::max_tracked_objects`].
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
mod memory;
mod report;

use std::fmt::{self, Debug};
use std::hash::{Hash, Hasher};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::FutureExt;
use kube::Resource;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::time::Instant;
use tracing::Instrument;

use apply::Written;
use memory::Memory;
use report::{Outcome, Report};

pub use apply::{REASON_STATUS_REJECTED, fallback_owner};
pub use checks::{
    CheckError, CheckFuture, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
};
pub use finalizer::{FinalizerError, with_finalizer};

use crate::{
    Condition, ConditionStatus, KubeStatus, ReconcileError, Requeue, RequeuePolicy, Severity,
    StatusApply, StatusResource,
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

/// The longest Event note the API server accepts (events.k8s.io/v1 `note`).
const MAX_EVENT_NOTE_BYTES: usize = 1024;

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
    report: Report,
    pre_checks: Vec<Box<dyn PreReconcileCheck<K>>>,
    post_checks: Vec<Box<dyn PostReconcileCheck<K>>>,
    memory: Mutex<Memory>,
}

impl<K> StatusReconciler<K>
where
    K: StatusResource + Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static,
{
    /// A chokepoint writing through `client` by the kind's profile
    /// ([`KubeStatus::PROFILE`]: the summary condition, its reasons and companions), with the
    /// default [`RequeuePolicy`], no events and no checks.
    pub fn new(client: kube::Client) -> Self {
        let policy = RequeuePolicy::default();
        Self {
            client,
            recorder: None,
            policy,
            report: Report::new(<K::Status as KubeStatus>::PROFILE),
            pre_checks: Vec::new(),
            post_checks: Vec::new(),
            memory: Mutex::new(Memory::new(memory_ttl(&policy), memory::DEFAULT_CAPACITY)),
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
        self.memory_mut().set_ttl(memory_ttl(&policy));
        self
    }

    /// The summary condition type and its success reason, instead of the profile's (for a
    /// kind whose status names no profile, `Ready` and `Succeeded`). The profile's companion
    /// conditions are still kept.
    #[must_use]
    pub fn summary(mut self, type_: impl Into<String>, success_reason: impl Into<String>) -> Self {
        self.report.summary = type_.into();
        self.report.success_reason = success_reason.into();
        self
    }

    /// The most objects whose backoff and rejected status are remembered at once (by
    /// default 100,000); past it, the object reconciled longest ago is forgotten. Entries go
    /// anyway once their object is gone or has not been reconciled for twice the longer of
    /// the resync interval and the longest backoff.
    #[must_use]
    pub fn max_tracked_objects(mut self, capacity: usize) -> Self {
        self.memory_mut().set_capacity(capacity);
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

    /// How many objects the reconciler remembers something of (a backoff under way, a
    /// rejected status). Bounded: see [`max_tracked_objects`](Self::max_tracked_objects).
    pub fn tracked_objects(&self) -> usize {
        self.memory().len()
    }

    /// Runs `body` on a copy of `object` (summary and companion conditions cleared) between
    /// the checks, then writes the status once and returns the requeue that follows. Errors
    /// are only those of writing the status; the body's own error is in the status.
    pub async fn reconcile<E, F>(&self, object: Arc<K>, body: F) -> Result<Action, Error>
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        let span = tracing::info_span!(
            "reconcile",
            object = %object_name(&*object),
            generation = object.meta().generation
        );
        async {
            let key = memory_key(&*object);
            let mut working = (*object).clone();
            self.report.clear(&mut working);
            let outcome = self.run(&mut working, body).await;
            let requeue = self.report.finish(&*object, &mut working, &outcome);
            let now = Instant::now();
            // Counted from the body's outcome before the write: a write that fails (and is
            // retried through the error policy) neither hides a failure nor a success.
            let failures = self.memory().count(&key, requeue == Requeue::Backoff, now);
            let after_body = self.policy.delay(requeue, failures);
            let (written, retry) = self.write(&object, &working, &key, now).await?;
            // What the summary now says, if this reconcile wrote it.
            let written_summary = match &written {
                Written::Full => working.status().map(KubeStatus::conditions),
                Written::Rejected {
                    message,
                    fallback,
                    fallback_rejected,
                } => {
                    if let Some(fallback_message) = fallback_rejected {
                        tracing::error!(%message, %fallback_message, "status and its fallback rejected; nothing written");
                        let note = format!(
                            "the status was rejected ({message}) and so were its conditions \
                             alone ({fallback_message}): nothing could be written"
                        );
                        self.publish(&object, EventType::Warning, apply::REASON_STATUS_REJECTED, note)
                            .await;
                    } else {
                        let fallback_sent = fallback.is_some();
                        tracing::warn!(%message, fallback_sent, "status rejected; its conditions kept");
                    }
                    fallback.as_ref()
                }
                Written::Unchanged | Written::NotFound => None,
            }
            .and_then(|conditions| conditions.get(&self.report.summary));
            if let Some(after) = written_summary {
                self.record_transition(&object, after).await;
            }
            let leaving =
                matches!(outcome, Outcome::Succeeded) && object.meta().deletion_timestamp.is_some();
            if written == Written::NotFound || leaving {
                self.memory().forget(&key);
            }
            if written == Written::NotFound {
                tracing::debug!("object gone before its status was written");
                return Ok(Action::await_change());
            }
            // After a rejection the full apply is retried on its own backoff, or sooner when
            // the body asks to be run again sooner.
            let delay = match (after_body, retry) {
                (Some(body), Some(retry)) => Some(body.min(retry)),
                (body, retry) => body.or(retry),
            };
            Ok(delay.map_or_else(Action::await_change, Action::requeue))
        }
        .instrument(span)
        .await
    }

    /// Step 4 and 5: the full apply unless the status is stored already or known to be
    /// rejected, the fallback after a rejection unless its conditions are stored already, and
    /// the release of the fallback manager after a full apply. Returns what was written and,
    /// after a rejection, how long until the full apply is tried again.
    async fn write(
        &self,
        stored: &K,
        desired: &K,
        key: &str,
        now: Instant,
    ) -> Result<(Written, Option<Duration>), Error> {
        let body = desired.status_apply();
        // The fallback manager still holding fields while the status is stored means the
        // release after the last full apply never came (its response, or the full apply's,
        // was lost). So the full apply goes again (the main manager then owns every field it
        // wants kept) and the release follows; otherwise fields only the fallback manager
        // owns would outlive the status that set them.
        let fallback_holds = apply::owns_fields(stored, &fallback_owner::<K>());
        if body == stored.status_apply() && !fallback_holds {
            self.memory().accepted(key, now);
            return Ok((Written::Unchanged, None));
        }
        let fingerprint = fingerprint(&body);
        let known = self
            .memory()
            .rejection(key)
            .filter(|r| r.fingerprint == fingerprint && now < r.retry_at)
            .cloned();
        // The same status was rejected a moment ago (this reconcile is likely the one the
        // fallback's own write caused): not sent again before its retry time.
        let (message, retry_at, fallback_rejected) = match known {
            Some(rejection) => (
                rejection.message,
                rejection.retry_at,
                rejection.fallback_rejected,
            ),
            None => match apply::full(&self.client, stored, desired, body).await {
                Ok(()) => {
                    self.memory().accepted(key, now);
                    if fallback_holds {
                        apply::release_fallback(&self.client, desired)
                            .await
                            .map_err(Error)?;
                    }
                    return Ok((Written::Full, None));
                }
                Err(error) if apply::is_not_found(&error) => {
                    return Ok((Written::NotFound, None));
                }
                Err(error) if apply::is_rejection(&error) => {
                    let message = apply::rejection_message(&error);
                    let policy = self.policy;
                    let mut memory = self.memory();
                    let rejection =
                        memory.reject(key, fingerprint, message.clone(), now, |attempts| {
                            policy
                                .delay(Requeue::Backoff, attempts)
                                .unwrap_or(policy.backoff_max)
                        });
                    (
                        message,
                        rejection.retry_at,
                        rejection.fallback_rejected.clone(),
                    )
                }
                Err(error) => return Err(Error(error)),
            },
        };
        let retry = Some(retry_at.saturating_duration_since(now));
        let rejected = |fallback, fallback_rejected| Written::Rejected {
            message: message.clone(),
            fallback,
            fallback_rejected,
        };
        // Its fallback was rejected too: the same conditions would be again.
        if fallback_rejected.is_some() {
            return Ok((rejected(None, None), retry));
        }
        let conditions = self.report.fallback(stored, desired, &message);
        let stored_conditions = stored.status().map(|s| s.conditions().clone());
        if stored_conditions.as_ref() == Some(&conditions) {
            return Ok((rejected(None, None), retry));
        }
        match apply::fallback(&self.client, desired, conditions.clone()).await {
            Ok(()) => Ok((rejected(Some(conditions), None), retry)),
            Err(error) if apply::is_not_found(&error) => Ok((Written::NotFound, None)),
            // Nothing can be written: said once, in an Event, and not tried again until the
            // status changes or its full apply is retried and rejected anew.
            Err(error) if apply::is_rejection(&error) => {
                let fallback_message = apply::rejection_message(&error);
                self.memory().reject_fallback(key, fallback_message.clone());
                Ok((rejected(None, Some(fallback_message)), retry))
            }
            Err(error) => Err(Error(error)),
        }
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
                condition: self.report.failure(&error),
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

    /// An Event when the summary condition's status or reason changed from the stored one.
    async fn record_transition(&self, stored: &K, after: &Condition) {
        let before = stored
            .status()
            .and_then(|s| s.conditions().get(&self.report.summary));
        if before.is_some_and(|b| b.status == after.status && b.reason == after.reason) {
            return;
        }
        let type_ = if after.status == ConditionStatus::False && after.severity >= Severity::Warning
        {
            EventType::Warning
        } else {
            EventType::Normal
        };
        let note = format!(
            "{} is {}: {}",
            self.report.summary, after.status, after.message
        );
        self.publish(stored, type_, &after.reason, note).await;
    }

    /// Publishes an Event about `object`, if a recorder was given. The note is cut to the
    /// API server's limit (1 KiB for an events.k8s.io Event), which a condition's message
    /// (up to 32 KiB) or an API server's rejection can pass: a longer one loses the Event.
    async fn publish(&self, object: &K, type_: EventType, reason: &str, mut note: String) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        crate::validation::truncate_to(&mut note, MAX_EVENT_NOTE_BYTES);
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

    fn memory(&self) -> MutexGuard<'_, Memory> {
        // The memory holds no invariant a panic elsewhere could break half-way.
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn memory_mut(&mut self) -> &mut Memory {
        self.memory
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// How long an object's memory outlives its last reconcile: a live object with something
/// remembered is requeued within the longest backoff, and every object is resynced.
fn memory_ttl(policy: &RequeuePolicy) -> Duration {
    policy.resync.max(policy.backoff_max).saturating_mul(2)
}

/// The status to apply, with every condition's `lastTransitionTime` left out: two reconciles
/// reaching the same outcome compute the same fingerprint even when the second one set its
/// conditions over the fallback's (which moves their times).
fn fingerprint<S: Serialize>(body: &StatusApply<S>) -> u64 {
    let mut value = serde_json::to_value(&body.status).unwrap_or_default();
    if let Some(conditions) = value.get_mut("conditions").and_then(|c| c.as_array_mut()) {
        for condition in conditions.iter_mut().filter_map(|c| c.as_object_mut()) {
            condition.remove("lastTransitionTime");
        }
        // A list map's order is not its content: the list the API server returns after a
        // fallback may hold the same conditions in another order.
        conditions.sort_by(|a, b| a["type"].to_string().cmp(&b["type"].to_string()));
    }
    let mut hasher = std::hash::DefaultHasher::new();
    value.to_string().hash(&mut hasher);
    hasher.finish()
}

/// `namespace/name`, for logs.
fn object_name<K: Resource>(object: &K) -> String {
    let meta = object.meta();
    match &meta.namespace {
        Some(namespace) => format!("{namespace}/{}", meta.name.as_deref().unwrap_or_default()),
        None => meta.name.clone().unwrap_or_default(),
    }
}

/// The object's uid: a new object of the same name starts afresh. Without one (as in a
/// test), its name.
fn memory_key<K: Resource>(object: &K) -> String {
    object
        .meta()
        .uid
        .clone()
        .unwrap_or_else(|| object_name(object))
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
