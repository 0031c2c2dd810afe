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
//!    the user guide's chapter on the chokepoint lists every reason it writes);
//! 3. `status.observedGeneration` becomes `metadata.generation`, and so does the
//!    `observedGeneration` of every condition the chokepoint set;
//! 4. the whole status is applied with server-side apply, forced, under the kind's field
//!    owner, only if the object is still at the `resourceVersion` read (409 otherwise: a
//!    status computed from a stale copy never overwrites a newer one); nothing is sent when
//!    it equals the stored status. After a 409 the object is read back: when only other
//!    field managers wrote in between, each its own fields (another controller's condition),
//!    the same status goes again at the version now stored; when it holds the status
//!    already (this controller's own earlier write), nothing more is sent;
//! 5. when the API server rejects it, only the conditions that pass validation are applied,
//!    under `<owner>-fallback`, without `observedGeneration` (a summary that said success
//!    says `StatusRejected` instead); after a later full apply the fallback manager gives its
//!    fields up (a status already stored is applied again first when the fallback manager
//!    still holds fields, because the release after its full apply was lost);
//! 6. the body never writes status itself: it changes the object it is handed.
//!
//! A failure that persists is a steady state. Each condition is set over the stored one, so
//! an outcome repeated keeps every `lastTransitionTime` and writes nothing. Every failed
//! attempt (the body's retryable failure or panic, a rejected status, a write that failed for
//! any other reason) belongs to one *episode* of the object, with one retry time: before it, a
//! reconcile of the object does nothing at all (no body, no request), whatever caused it (the
//! watch event of its own write, another writer's, a child's); the first one after it acts.
//! The wait doubles with each failed attempt of the episode ([`RequeuePolicy`], never shorter
//! than the API server's `Retry-After`) and only success, a new generation or the start of
//! the deletion end it: a message, a time or an answer worded anew do not. The answers are
//! classified once ([`AnswerClass`]). A rejected status is remembered per object (uid and the
//! status's fingerprint, its free text left out), and a fallback equal to the stored
//! conditions is not sent.
//! The fallback itself is sent once per rejection of the full apply: conditions another
//! writer changed after it (a replica of a newer version, during a rolling upgrade) are left
//! to it until the full apply is retried, so the two replicas do not take turns at every
//! watch event.
//! An Event is recorded only when the summary's status or reason changes. What is remembered
//! (the backoff counts and the rejections) is bounded: see
//! [`StatusReconciler::max_tracked_objects`].
//!
//! Several controllers may write one object's status, each under its own field manager
//! ([`StatusReconciler::field_manager`]): a second controller writes only its own conditions,
//! never `observedGeneration`, and without the `resourceVersion` precondition (the kind's
//! controller keeps it: its writes say which generation the status describes; a 409 that
//! another controller's write caused is resolved within the reconcile, step 4). A condition
//! another manager took from a reconciler (two writers of one condition type) is reported once
//! in a Warning Event ([`REASON_CONDITION_CONTESTED`]), left as the other manager wrote it, and
//! taken back only on the backoff, so that the two do not take turns at every watch event.
//!
//! A status the API server stores differently from how it was sent (a CRD default on a field
//! the struct leaves out, a MutatingAdmissionPolicy) is not sent again: what the server made
//! of the last status written is remembered, and the same status computed again counts as
//! stored.
//!
//! A write that fails for another reason than its content (401, 403 on the fallback too, 404
//! while the object exists, 429, a 5xx, a transport error) is the reconcile's [`Error`]: it
//! carries its class ([`Error::class`]) and the wait until the episode's retry time
//! ([`Error::backoff`], which [`error_policy`] follows), an error log line names the request
//! and the answer, and a Warning Event (`StatusWriteFailed`) names the class and the fix once
//! per class and episode (a refusal at once, a fault of the moment when it repeats). The
//! transition Event of a write whose answer was lost is recorded by the reconcile that finds
//! it stored.
//!
//! A kind whose CRD serves no status subresource ([`StatusResource::STATUS_SUBRESOURCE`]) is
//! written through its main resource, with the same bodies, precondition and fallback. Every
//! change of the status moves `metadata.generation` there, so `observedGeneration` (and the
//! `observedGeneration` of each condition this reconcile stamped) is written as the generation
//! the write gives the object, one more than the one read: after the write the two are equal
//! (the status is current, as kstatus reads it), and the next reconcile, which computes the
//! same status at that generation, sends nothing. A change of the spec still moves the
//! generation past it, as anywhere.
//!
//! While the object is being deleted (its finalizers run), a successful body leaves the
//! summary False with reason `Deleting` (Info). A reconcile that removed a finalizer of an
//! object being deleted writes nothing at all: the object is gone, or kept by other
//! finalizers that are not this controller's business. A write after the object is gone
//! (404, the object read back to tell it from a kind without a status subresource) is not an
//! error. [`with_finalizer`] runs `kube::runtime::finalizer` inside the body, so that the
//! status changes of applying or cleaning up reach the write (and the removal of its
//! finalizer, the end of the writes).
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

mod answer;
mod apply;
mod checks;
mod finalizer;
mod memory;
mod outcome;
mod panics;
mod plan;
mod report;
mod retry;

use std::fmt::{self, Debug};
use std::future::Future;
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

use answer::WriteError;
use apply::Writer;
use memory::{Contested, Memory, Rejection, Remembered, StoredAs, Summary};
use plan::{Fallback, Written};
use report::{Outcome, Report};
use retry::{Attempt, FailureClass, Gate, Moment};

pub use answer::AnswerClass;
pub use apply::{REASON_STATUS_REJECTED, fallback_owner};
pub use checks::{
    CheckError, CheckFuture, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
};
pub use finalizer::{FinalizerError, with_finalizer};
pub use outcome::Reconciled;
pub use panics::quiet_repeated_panics;

use crate::condition::{Condition, ConditionStatus, Severity};

use crate::conditions::Conditions;

use crate::error::{ReconcileError, Requeue, RequeuePolicy};

use crate::status::{KubeStatus, StatusApply, StatusResource};

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

/// Reason of the Warning Event when another field manager writes a condition this reconciler
/// sets (see [`StatusReconciler::field_manager`]): recorded once, naming the other manager.
pub const REASON_CONDITION_CONTESTED: &str = "ConditionContested";

/// The longest Event note the API server accepts (events.k8s.io/v1 `note`).
const MAX_EVENT_NOTE_BYTES: usize = 1024;

/// Why the chokepoint itself failed: the status could not be written.
#[derive(Debug)]
pub struct Error {
    source: kube::Error,
    /// What the answer means.
    class: AnswerClass,
    /// What could not be done, for the message.
    context: &'static str,
    /// The API server's `Retry-After`.
    retry_after: Option<Duration>,
    /// The reconciler's own wait before the next attempt (its backoff).
    backoff: Option<Duration>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.source)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl Error {
    fn new(context: &'static str, failure: WriteError, backoff: Option<Duration>) -> Self {
        Self {
            source: failure.error,
            class: failure.class,
            context,
            retry_after: failure.retry_after,
            backoff,
        }
    }

    /// What the answer means: its [`AnswerClass`], for an operator's metrics and logs.
    pub fn class(&self) -> AnswerClass {
        self.class
    }

    /// The API server's HTTP status code, if it answered (none for a transport error such
    /// as a timeout or a reset connection).
    pub fn status_code(&self) -> Option<u16> {
        answer::status_code(&self.source)
    }

    /// Whether the object changed since the reconcile read it (409 Conflict) in what the
    /// status was computed from (its spec, its metadata, this controller's own fields of the
    /// status): the status computed from the old copy was not written, and the next
    /// reconcile starts from the new one. A change by other field managers alone is not one:
    /// the status is sent again within the reconcile.
    pub fn is_conflict(&self) -> bool {
        self.class == AnswerClass::Conflict
    }

    /// How long the API server asked to wait before retrying: the `Retry-After` header (as
    /// API Priority and Fairness sends with 429 Too Many Requests), or the
    /// `details.retryAfterSeconds` of its Status.
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// How long the reconciler waits before it acts on this object again: its backoff
    /// ([`RequeuePolicy`], doubling with each failed attempt of the episode, up to
    /// `backoff_max`, and never shorter than the API server's `Retry-After`). Until then a
    /// reconcile of the object, whatever caused it, does nothing. None for a conflict,
    /// which is retried at once.
    pub fn backoff(&self) -> Option<Duration> {
        self.backoff
    }

    /// The error from kube.
    pub fn kube_error(&self) -> &kube::Error {
        &self.source
    }
}

/// Reason of the Warning Event when the status cannot be written, for another cause than a
/// rejection of its content (the controller may not write it, the kind serves no status
/// subresource, the API server keeps failing).
pub const REASON_STATUS_WRITE_FAILED: &str = "StatusWriteFailed";

/// The status chokepoint for one kind: wraps a reconcile body, then writes the status.
pub struct StatusReconciler<K> {
    client: kube::Client,
    recorder: Option<Recorder>,
    policy: RequeuePolicy,
    report: Report,
    pre_checks: Vec<Box<dyn PreReconcileCheck<K>>>,
    post_checks: Vec<Box<dyn PostReconcileCheck<K>>>,
    on_outcome: Option<OutcomeHook<K>>,
    permit: Option<Permit<K>>,
    memory: Mutex<Memory>,
}

/// The operator's function told what each reconcile came to.
type OutcomeHook<K> = Box<dyn Fn(&K, &Reconciled) + Send + Sync>;

/// The operator's function saying whether this replica may write an object's status now.
type Permit<K> = Box<dyn Fn(&K) -> bool + Send + Sync>;

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
            report: Report::new(<K::Status as KubeStatus>::PROFILE, Writer::of_kind::<K>()),
            pre_checks: Vec::new(),
            post_checks: Vec::new(),
            on_outcome: None,
            permit: None,
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

    /// Calls `hook` at the end of every reconcile with the object as read and what the
    /// reconcile came to ([`Reconciled`]): the place for an operator's metrics and logs of
    /// each outcome, the body's failures included (those end in the status, so the
    /// reconcile's error, which `error_policy` sees, is only a failed write).
    #[must_use]
    pub fn on_outcome(mut self, hook: impl Fn(&K, &Reconciled) + Send + Sync + 'static) -> Self {
        self.on_outcome = Some(Box::new(hook));
        self
    }

    /// Asks `permit` whether this replica may write an object's status, before anything is
    /// done for it and again right before its status is written: leadership (the Lease still
    /// held), a shard's lease, a maintenance switch. Refused, the reconcile does nothing more
    /// (no body, no request, no Event; [`Reconciled::NotPermitted`]) and waits for the next
    /// change of the object; its remembered backoff and rejection are kept. A permit lost
    /// while the body runs drops the status it computed: what the body did outside the status
    /// (its owned objects, its calls out) is the body's own to fence. Called once or twice per
    /// reconcile, on the reconcile's task: it must answer at once (an atomic flag, a lease's
    /// expiry compared with the clock), never wait.
    #[must_use]
    pub fn may_write(mut self, permit: impl Fn(&K) -> bool + Send + Sync + 'static) -> Self {
        self.permit = Some(Box::new(permit));
        self
    }

    /// Makes this reconciler a second controller of the kind's objects, writing under field
    /// manager `name` (and `<name>-fallback` when its status is rejected) instead of the
    /// kind's field owner: a health checker beside the main controller, say, each owning its
    /// own condition types. It writes only the conditions it sets (its summary, which
    /// [`summary`](Self::summary) names, and those its body sets); the profile's companions
    /// and `observedGeneration` stay the kind's controller's. Writes of other managers
    /// between its read and its write never make its writes fail: on `/status` they carry
    /// the `resourceVersion` read (nothing else keeps them off an object deleted and
    /// re-created under the same name meanwhile), and one refused with 409 goes again at the
    /// version now stored when the object read back is still the one read (a `GET` and a
    /// second `PATCH`); on the main resource they carry the object's `uid` instead. Named as
    /// the kind's field owner, it is the kind's controller as with [`new`](Self::new).
    ///
    /// A condition that another field manager writes too is reported once (see
    /// [`REASON_CONDITION_CONTESTED`]) and taken back on the backoff, not at every
    /// reconcile.
    #[must_use]
    pub fn field_manager(mut self, name: impl Into<String>) -> Self {
        self.report.writer = Writer::named::<K>(name.into());
        self
    }

    /// The field manager of full status applies: the kind's field owner, or the one given
    /// to [`field_manager`](Self::field_manager).
    pub fn field_owner(&self) -> String {
        self.report.writer.owner.clone()
    }

    /// How many objects the reconciler remembers something of (a backoff under way, a
    /// rejected status). Bounded: see [`max_tracked_objects`](Self::max_tracked_objects).
    pub fn tracked_objects(&self) -> usize {
        self.memory().len()
    }

    /// Runs `body` on a copy of `object` (summary and companion conditions cleared) between
    /// the checks, then writes the status once and returns the requeue that follows. Errors
    /// are only those of writing the status (the body's own error is in the status): a write
    /// that failed, a status of which nothing could be written, a kind that serves no status
    /// subresource; each carries the wait before the next try ([`Error::backoff`]), which
    /// [`error_policy`] follows.
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
            // On the heap: its state holds several copies of the object (read, worked on,
            // as written, as answered), which for a large kind (CloudNativePG's Cluster) in a
            // debug build overflowed a test thread's 2 MiB stack when pinned there.
            let (result, reconciled) = Box::pin(self.reconcile_once(&object, body)).await;
            if let Some(hook) = &self.on_outcome {
                hook(&object, &reconciled);
            }
            result
        }
        .instrument(span)
        .await
    }

    /// [`reconcile`](Self::reconcile), and what it came to. What is remembered of the object
    /// is checked out of the memory once, before anything is decided, and checked back in
    /// once, at the end, as the reconcile left it ([`Fate`]).
    async fn reconcile_once<E, F>(&self, object: &K, body: F) -> (Result<Action, Error>, Reconciled)
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        if !self.permitted(object) {
            tracing::debug!("this replica may not write the object's status: nothing done");
            return (Ok(Action::await_change()), Reconciled::NotPermitted);
        }
        let key = memory_key(object);
        let read = moment(object);
        let mut remembered = self.memory().checkout(&key, Instant::now());
        // An episode of failures under way: nothing is done before its retry time, whatever
        // caused this reconcile (the watch event of the last write, another writer's, a
        // child's): the body is not run again, nothing is sent.
        if let Gate::Wait(wait) = remembered.gate(read, Instant::now()) {
            tracing::debug!(?wait, "backing off: nothing done before the retry time");
            let waiting = Reconciled::Waiting { retry_in: wait };
            return (Ok(Action::requeue(wait)), waiting);
        }
        let (result, reconciled, fate) = self.decide(object, body, &mut remembered, read).await;
        match fate {
            Fate::Keep => self.memory().checkin(&key, remembered, Instant::now()),
            Fate::Forget => self.memory().forget(&key),
            Fate::Untouched => {}
        }
        (result, reconciled)
    }

    /// The checks, the body and the status write of one reconcile past the gate, deciding on
    /// and changing `remembered`, the object's state checked out for it; what becomes of that
    /// state is the third value.
    async fn decide<E, F>(
        &self,
        object: &K,
        body: F,
        remembered: &mut Remembered,
        read: Moment,
    ) -> (Result<Action, Error>, Reconciled, Fate)
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        let mut working = object.clone();
        self.report.clear(&mut working);
        let outcome = self.run(&mut working, body).await;
        if released(object, &working) {
            // This controller's finalizer is gone from an object being deleted: the object
            // is gone, or kept only by other finalizers. No status after it.
            tracing::debug!("finalizer released: no status written");
            return (Ok(Action::await_change()), Reconciled::Gone, Fate::Forget);
        }
        let requeue = self.report.finish(object, &mut working, &outcome);
        let verdict = match (&outcome, self.summary_of(&working)) {
            (Outcome::Succeeded, _) | (_, None) => Reconciled::Succeeded,
            (_, Some(summary)) => Reconciled::Unsuccessful {
                reason: summary.reason.clone(),
                severity: summary.severity,
            },
        };
        if !self.permitted(object) {
            // Lost while the body ran (the Lease, the shard): the status it computed is
            // another replica's to write now, from the object as it will read it.
            tracing::info!("the permit to write was lost during the reconcile: status dropped");
            let dropped = Reconciled::NotPermitted;
            return (Ok(Action::await_change()), dropped, Fate::Untouched);
        }
        let now = Instant::now();
        let (contest, left) = self.contest(object, &mut working, remembered, now).await;
        let write = match self.write(object, &working, remembered, &left, now).await {
            Ok(write) => write,
            Err(failure) => {
                let error = self
                    .write_failed(object, remembered, failure, read, now)
                    .await;
                let failed = Reconciled::WriteFailed(error.class());
                return (Err(error), failed, Fate::Keep);
            }
        };
        self.announce_written(object, &working, remembered, &write.written)
            .await;
        if write.written == Written::NotFound {
            tracing::debug!("object gone before its status was written");
            return (Ok(Action::await_change()), Reconciled::Gone, Fate::Forget);
        }
        if matches!(outcome, Outcome::Succeeded) && object.meta().deletion_timestamp.is_some() {
            // Leaving: what the object's last reconciles left is over; only what this
            // one concludes (a rejected status) stays.
            *remembered = Remembered::default();
        }
        let conclusion = Conclusion {
            read,
            requeue,
            contest,
            now,
        };
        let rejected = matches!(write.written, Written::Rejected { .. });
        let result = self.conclude(object, remembered, write, conclusion).await;
        let reconciled = match &result {
            _ if rejected => Reconciled::Rejected,
            // The release of the fallback manager after the full apply.
            Err(error) => Reconciled::WriteFailed(error.class()),
            Ok(_) => verdict,
        };
        (result, reconciled, Fate::Keep)
    }

    /// The Events of what the write did: a transition written by an earlier reconcile and
    /// not announced (its answer was lost, or its Event could not be posted) once a copy
    /// holds what it wrote (until then it waits: the copy may be older than the write,
    /// unless this reconcile writes anew), and the transition this reconcile wrote.
    async fn announce_written(
        &self,
        object: &K,
        working: &K,
        remembered: &mut Remembered,
        written: &Written,
    ) {
        let stored_summary = self.summary_of(object);
        let pending = remembered.take_unannounced();
        if let Some(pending) = pending {
            match stored_summary {
                Some(landed) if pending.afters.contains(&summary_key(landed)) => {
                    self.announce(object, remembered, pending.before, landed)
                        .await;
                }
                _ if !written.wrote() => remembered.keep_unannounced(pending),
                _ => {}
            }
        }
        // What the summary now says, if this reconcile wrote it. The copy it started from is
        // the stored object (the writes carry its resourceVersion as a precondition): the
        // summary before is the copy's.
        let after = match written {
            Written::Full => self.summary_of(working).cloned(),
            Written::Rejected { message, fallback } => {
                self.report_rejection(object, remembered, message, fallback)
                    .await
            }
            Written::Unchanged | Written::NotFound => None,
        };
        if let Some(after) = after {
            let before = stored_summary.map(summary_key);
            self.announce(object, remembered, before, &after).await;
        }
    }

    /// The end of a reconcile whose status write was answered: one attempt of the object's
    /// episode (a failed release of the fallback manager, a rejected status, else the body's
    /// retryable failure) or its end, and the requeue that follows.
    async fn conclude(
        &self,
        object: &K,
        remembered: &mut Remembered,
        write: Write,
        conclusion: Conclusion,
    ) -> Result<Action, Error> {
        let Conclusion {
            read,
            requeue,
            contest,
            now,
        } = conclusion;
        if let Some(failure) = write.release {
            return Err(self
                .write_failed(object, remembered, failure, read, now)
                .await);
        }
        let failure = match &write.written {
            Written::Rejected { .. } => Some(FailureClass::Rejected),
            _ if requeue == Requeue::Backoff => Some(FailureClass::Body),
            _ => None,
        };
        let retry = failure.map(|class| {
            let attempt = Attempt {
                after: moment_after_write::<K>(read, &write.written),
                ..Attempt::at(class, read)
            };
            remembered.fail(attempt, now, &self.policy).wait
        });
        if failure.is_none() {
            remembered.succeed();
        }
        if let Written::Rejected {
            fallback: Fallback::Refused { answer, .. },
            ..
        } = &write.written
        {
            // Nothing of the status is stored: the reconcile failed, and is tried again at
            // the episode's retry time.
            return Err(Error::new(
                "the status and its conditions alone were rejected",
                answer.to_error(),
                retry,
            ));
        }
        // A contested condition is taken back when its backoff has passed.
        let delay = retry.or_else(|| self.policy.delay(requeue, 0));
        let delay = contest.into_iter().fold(delay, |delay, retry| {
            Some(delay.map_or(retry, |delay| delay.min(retry)))
        });
        Ok(delay.map_or_else(Action::await_change, Action::requeue))
    }

    /// Conditions this reconcile sets that another field manager wrote over (it owns fields
    /// of them that this reconciler's managers no longer share, and their stored values differ
    /// from this reconcile's): two controllers setting
    /// the same condition type. Forcing them back at every reconcile would be a silent fight,
    /// each side's write waking the other: instead the first time is reported (a Warning
    /// Event, `ConditionContested`, and a log line, both naming the other managers), the
    /// other manager's values are left as stored, and they are taken back when the backoff
    /// has passed (doubling each time the other manager took them again). Returns how long
    /// until then.
    ///
    /// A first write of the status takes over what other managers wrote without a word (an
    /// object adopted from another controller): only where this reconciler's field manager
    /// holds fields of the object already did another manager come in between.
    async fn contest(
        &self,
        stored: &K,
        working: &mut K,
        remembered: &mut Remembered,
        now: Instant,
    ) -> (Option<Duration>, Vec<String>) {
        let writer = &self.report.writer;
        if !apply::owns_fields(stored, &writer.owner) {
            return (None, Vec::new());
        }
        let stored_conditions = stored.status().map(KubeStatus::conditions);
        let ours = apply::Owned::of(stored, &writer.managers());
        let others = apply::Owned::by_others(stored, &writer.managers());
        let mut contested: Vec<(Condition, Vec<&str>, bool)> = Vec::new();
        for condition in working
            .status()
            .map(KubeStatus::conditions)
            .into_iter()
            .flatten()
        {
            let Some(stored) = stored_conditions.and_then(|c| c.get(&condition.type_)) else {
                continue;
            };
            let takers: Vec<&(String, apply::Owned)> = others
                .iter()
                .filter(|(_, owned)| owned.took_condition(&ours, &condition.type_))
                .collect();
            if stored != condition && !takers.is_empty() {
                let whole = takers
                    .iter()
                    .any(|(_, owned)| owned.owns_whole_condition(&condition.type_));
                let managers = takers.iter().map(|(manager, _)| manager.as_str()).collect();
                contested.push((stored.clone(), managers, whole));
            }
        }
        if contested.is_empty() {
            remembered.uncontested(now);
            return (None, Vec::new());
        }
        let policy = self.policy;
        let decision = remembered.contested(now, |attempts| policy.backoff(attempts));
        let (Contested::Announce(retry_at) | Contested::Leave(retry_at)) = decision else {
            tracing::info!(
                types = ?contested.iter().map(|(c, ..)| &c.type_).collect::<Vec<_>>(),
                "taking back conditions another field manager wrote"
            );
            return (None, Vec::new());
        };
        let wait = retry_at.saturating_duration_since(now);
        if let Some(status) = working.status_mut() {
            for (stored, ..) in &contested {
                let conditions = status.conditions_mut();
                let index = conditions.iter().position(|c| c.type_ == stored.type_);
                conditions.insert_at(index.unwrap_or(usize::MAX), stored.clone());
            }
        }
        if matches!(decision, Contested::Announce(_)) {
            let said: Vec<String> = contested
                .iter()
                .map(|(c, managers, _)| format!("{} by {}", c.type_, managers.join(", ")))
                .collect();
            self.announce_contest(stored, &said.join("; "), wait).await;
        }
        // Left as stored; a condition the other manager holds whole is no longer applied
        // (it becomes the other manager's alone), one it holds in part is applied as stored
        // (without this reconciler's fields it would lack some of its own).
        let left = contested
            .into_iter()
            .filter(|(.., whole)| *whole)
            .map(|(c, ..)| c.type_)
            .collect();
        (Some(wait), left)
    }

    /// Says that conditions this reconciler sets (`said`: each with the managers that wrote
    /// it) are written by another field manager too: a log line and a Warning Event.
    async fn announce_contest(&self, stored: &K, said: &str, wait: Duration) {
        let owner = &self.report.writer.owner;
        tracing::warn!(
            contested = %said,
            field_manager = %owner,
            ?wait,
            "conditions this controller sets are written by another field manager too"
        );
        let note = format!(
            "conditions {owner} sets are written by another field manager too ({said}): \
             left as they wrote them, and set again in {wait:?}, then on a doubling backoff \
             while the other writer goes on"
        );
        self.publish(stored, EventType::Warning, REASON_CONDITION_CONTESTED, note)
            .await;
    }

    /// Logs a rejected status and, when its fallback was refused by this reconcile, says so
    /// in a Warning Event. Returns the summary the fallback wrote, if it wrote one.
    async fn report_rejection(
        &self,
        object: &K,
        remembered: &mut Remembered,
        message: &str,
        fallback: &Fallback,
    ) -> Option<Condition> {
        match fallback {
            Fallback::Sent(conditions) => {
                tracing::warn!(%message, fallback_sent = true, "status rejected; its conditions kept");
                conditions.get(&self.report.summary).cloned()
            }
            Fallback::Stored => {
                tracing::warn!(%message, fallback_sent = false, "status rejected; its conditions kept");
                None
            }
            Fallback::Held => {
                tracing::warn!(
                    %message,
                    fallback_sent = false,
                    "status rejected; its conditions were changed by another writer since its \
                     fallback and are left to it until the status is tried again"
                );
                None
            }
            Fallback::Refused { answer, announce } => {
                let fallback_message = &answer.message;
                tracing::error!(%message, %fallback_message, "status and its fallback rejected; nothing written");
                if *announce {
                    let note = format!(
                        "the status was rejected ({message}) and so were its conditions \
                         alone ({fallback_message}): nothing could be written"
                    );
                    let recorded = self
                        .publish(
                            object,
                            EventType::Warning,
                            apply::REASON_STATUS_REJECTED,
                            note,
                        )
                        .await;
                    if recorded {
                        remembered.fallback_announced();
                    }
                }
                None
            }
        }
    }

    /// A failed write: one failed attempt of the object's episode (a conflict is none),
    /// logged (an error when it cannot pass by itself or repeats), and said in a Warning
    /// Event once per class of answer and episode, naming what to do.
    async fn write_failed(
        &self,
        object: &K,
        remembered: &mut Remembered,
        failure: WriteError,
        read: Moment,
        now: Instant,
    ) -> Error {
        const CONTEXT: &str = "writing the status failed";
        let class = failure.class;
        if class == AnswerClass::Conflict {
            // The object changed since it was read: its own watch event brings the next
            // reconcile, which starts from the newer object. Not a failure of the write.
            return Error::new(CONTEXT, failure, None);
        }
        let request = format!(
            "PATCH {}{}",
            K::plural(&()),
            if K::STATUS_SUBRESOURCE { "/status" } else { "" }
        );
        let answer = failure.describe();
        let attempt = Attempt {
            retry_after: failure.retry_after,
            ..Attempt::at(FailureClass::Write(class), read)
        };
        let failed = remembered.fail(attempt, now, &self.policy);
        let (attempts, wait) = (failed.attempts, failed.wait);
        if class.announce_at_once() || attempts > 1 {
            tracing::error!(%request, %answer, %class, attempts, ?wait, "status write failed");
        } else {
            tracing::warn!(%request, %answer, %class, ?wait, "status write failed");
        }
        if failed.announce {
            let note = format!(
                "{request} failed ({class}, {attempts} in a row; next try in {wait:?}): \
                 {answer}; {fix}",
                fix = class.fix()
            );
            let recorded = self
                .publish(object, EventType::Warning, REASON_STATUS_WRITE_FAILED, note)
                .await;
            if !recorded {
                // Said at the next failure of this class instead.
                remembered.unannounce(class);
            }
        }
        Error::new(CONTEXT, failure, Some(wait))
    }

    /// Step 4 and 5: what the plan says to send first ([`plan::first`]): nothing, the full
    /// apply ([`apply_full`](Self::apply_full)), or the fallback of a status known to be
    /// rejected ([`fall_back`](Self::fall_back), which also follows a rejected full apply).
    /// Returns what was written.
    async fn write(
        &self,
        stored: &K,
        desired: &K,
        remembered: &mut Remembered,
        left: &[String],
        now: Instant,
    ) -> Result<Write, WriteError> {
        let body = desired.status_apply();
        let stored_body = stored.status_apply();
        let writer = &self.report.writer;
        let fallback_holds = apply::owns_fields(stored, &writer.fallback);
        let equal = body == stored_body;
        // Each hash costs a serialization of the status: a steady reconcile (the status stored
        // as computed, no fallback fields) is decided on `equal` alone and computes none.
        let hashes = if equal && !fallback_holds {
            (0, 0, 0)
        } else {
            let (sent, stored) = (exact_hash(&body), exact_hash(&stored_body));
            (sent, stored, fingerprint(&body))
        };
        let read = plan::Read {
            equal,
            sent: hashes.0,
            stored: hashes.1,
            fingerprint: hashes.2,
            fallback_holds,
            first_write: !apply::owns_fields(stored, &writer.owner) && !fallback_holds,
        };
        let known = remembered.known();
        match plan::first(writer.second, &read, known, now) {
            plan::Send::Nothing(unsent) => {
                if unsent != plan::Unsent::FirstWriteUnseen {
                    // Stored as it is: a rejection remembered is over; what the server
                    // made of an earlier write is moot once the status equals the stored.
                    remembered.accepted();
                    if unsent == plan::Unsent::Equal {
                        remembered.set_stored_as(None);
                    }
                }
                Ok(Write::done(Written::Unchanged))
            }
            plan::Send::Fallback(rejection) => {
                self.fall_back(stored, desired, remembered, rejection).await
            }
            plan::Send::Full => {
                let full = self.apply_full(stored, desired, remembered, left, read);
                match full.await? {
                    Full::Done(write) => Ok(write),
                    Full::Rejected(rejection) => {
                        self.fall_back(stored, desired, remembered, rejection).await
                    }
                }
            }
        }
    }

    /// The full apply, and the release of the fallback manager after it when that manager
    /// still holds fields; a rejection is remembered and returned for the fallback.
    async fn apply_full(
        &self,
        stored: &K,
        desired: &K,
        remembered: &mut Remembered,
        left: &[String],
        read: plan::Read,
    ) -> Result<Full, WriteError> {
        let writer = &self.report.writer;
        let sent = self.as_written(desired);
        let sent_body = sent.status_apply();
        let full = apply::full(&self.client, writer, stored, &sent, sent_body.clone(), left);
        match full.await {
            // Its own earlier write, which the copy read predates: written already (and
            // announced by the reconcile that wrote it). A fallback manager still holding
            // fields is released by the reconcile of the newer copy.
            Ok(apply::Applied::Found(_)) => {
                self.remember_stored(remembered, &sent_body, None);
                Ok(Full::Done(Write::done(Written::Unchanged)))
            }
            Ok(apply::Applied::Gone) => Ok(Full::Done(Write::done(Written::NotFound))),
            Ok(apply::Applied::Sent(applied)) => {
                // After a release the object is not what this apply's answer holds (the
                // fallback's own fields go): nothing to remember of it.
                let stored_now = (!read.fallback_holds).then_some(&applied);
                self.remember_stored(remembered, &sent_body, stored_now);
                if writer.second && read.first_write {
                    remembered.first_write_landed();
                }
                let release = if read.fallback_holds {
                    apply::release_fallback(&self.client, writer, &applied)
                        .await
                        .err()
                } else {
                    None
                };
                Ok(Full::Done(Write {
                    written: Written::Full,
                    release,
                }))
            }
            Err(error) if error.class == AnswerClass::Gone => {
                self.not_found(stored, error).await.map(Full::Done)
            }
            Err(error) if error.class == AnswerClass::Rejected => {
                let rejection = remembered.reject(read.fingerprint, error.message()).clone();
                Ok(Full::Rejected(rejection))
            }
            Err(error) => {
                // A transport error or a fault of the server: the apply may have landed. If
                // it did, the next reconcile finds it stored; the transition it made is
                // announced then.
                let written = desired.status().map(KubeStatus::conditions);
                self.may_have_landed(remembered, stored, written, &error);
                Err(error)
            }
        }
    }

    /// Step 5: after a rejection of the full status, its conditions alone, under the
    /// fallback manager, unless the plan says otherwise ([`plan::fallback`]: they are stored
    /// already, were sent for this rejection already, or were rejected too).
    async fn fall_back(
        &self,
        stored: &K,
        desired: &K,
        remembered: &mut Remembered,
        rejection: Rejection,
    ) -> Result<Write, WriteError> {
        let writer = &self.report.writer;
        let conditions = self.report.fallback(stored, desired, &rejection.message);
        let stored_conditions = stored.status().map(|s| s.conditions().clone());
        let rejected = |fallback| Write {
            written: Written::Rejected {
                message: rejection.message.clone(),
                fallback,
            },
            release: None,
        };
        if let Some(unsent) =
            plan::fallback(&rejection, stored_conditions.as_ref() == Some(&conditions))
        {
            return Ok(rejected(unsent));
        }
        let mut conditions = self.conditions_as_written(desired, conditions);
        if writer.second {
            // Only its own: the others' conditions, as the copy read holds them, could be
            // older than the stored ones when the write goes again at a newer version.
            let ours = apply::Owned::of(stored, &writer.managers());
            let stored_conditions = stored_conditions.unwrap_or_default();
            conditions.retain(|c| {
                ours.has_condition(&c.type_) || stored_conditions.get(&c.type_) != Some(c)
            });
        }
        let carried = self.required_values(stored, desired, &rejection.message);
        let fallback = apply::fallback(&self.client, writer, desired, conditions.clone(), carried);
        match fallback.await {
            Ok(apply::Applied::Sent(_)) => {
                remembered.fallback_sent();
                Ok(rejected(Fallback::Sent(conditions)))
            }
            // A second controller's, refused by its precondition: the object read back
            // holds these conditions already.
            Ok(apply::Applied::Found(_)) => Ok(rejected(Fallback::Stored)),
            Ok(apply::Applied::Gone) => Ok(Write::done(Written::NotFound)),
            Err(error) if error.class == AnswerClass::Gone => self.not_found(stored, error).await,
            // Nothing can be written: said once, in an Event, and not tried again until the
            // status changes or its full apply is retried and rejected anew.
            Err(error) if error.class == AnswerClass::Rejected => {
                let answer = error.answer();
                remembered.reject_fallback(answer.clone());
                Ok(rejected(Fallback::Refused {
                    answer,
                    announce: true,
                }))
            }
            Err(error) => {
                self.may_have_landed(remembered, stored, Some(&conditions), &error);
                Err(error)
            }
        }
    }

    /// What the fallback carries for the fields the CRD requires that the object lacks
    /// (see [`apply::required_values`]); nothing for a second controller, whose fallback
    /// holds its own conditions only (those fields are the kind's controller's).
    fn required_values(
        &self,
        stored: &K,
        desired: &K,
        message: &str,
    ) -> serde_json::Map<String, serde_json::Value> {
        let required = <K::Status as KubeStatus>::REQUIRED_FIELDS;
        if self.report.writer.second || required.is_empty() {
            return serde_json::Map::new();
        }
        let json = |status: Option<&K::Status>| {
            status
                .and_then(|s| serde_json::to_value(s.to_apply()).ok())
                .unwrap_or_default()
        };
        let default = K::Status::default();
        let (stored, desired) = (json(stored.status()), json(desired.status()));
        apply::required_values(required, &stored, &desired, &json(Some(&default)), message)
    }

    /// After a write that failed without an answer saying it did not land (a transport
    /// error, a 5xx), the transition of the summary it wrote (in `written`) is remembered:
    /// if it landed, the next reconcile finds it stored and announces it.
    fn may_have_landed(
        &self,
        remembered: &mut Remembered,
        stored: &K,
        written: Option<&Conditions>,
        error: &WriteError,
    ) {
        let after = written.and_then(|c| c.get(&self.report.summary));
        if let Some(after) = after.filter(|_| error.class.may_have_landed()) {
            let before = self.summary_of(stored).map(summary_key);
            remembered.unannounced(before, summary_key(after));
        }
    }

    /// The summary condition of `object`'s status, if it has one.
    fn summary_of<'a>(&self, object: &'a K) -> Option<&'a Condition> {
        object
            .status()
            .and_then(|s| s.conditions().get(&self.report.summary))
    }

    /// Remembers what the API server stored of the status sent, when it is not what was
    /// sent (and forgets what was remembered before).
    fn remember_stored(
        &self,
        remembered: &mut Remembered,
        sent: &StatusApply<<K::Status as KubeStatus>::Apply>,
        stored_now: Option<&K>,
    ) {
        let stored_as = stored_now
            .map(StatusResource::status_apply)
            .filter(|stored_body| sent != stored_body)
            .map(|stored_body| StoredAs {
                sent: exact_hash(sent),
                stored: exact_hash(&stored_body),
            });
        remembered.accepted();
        remembered.set_stored_as(stored_as);
    }

    /// A 404 on a status write: the object is gone, or (when it is still there) the API
    /// server serves no status subresource for the kind, which it words alike. The latter
    /// is an error to report, never a deletion.
    async fn not_found(&self, read: &K, error: WriteError) -> Result<Write, WriteError> {
        if !K::STATUS_SUBRESOURCE || !apply::still_exists(&self.client, read).await? {
            return Ok(Write::done(Written::NotFound));
        }
        let message = format!(
            "the API server answered 404 to PATCH {plural}/status while the object exists: \
             the CRD of {plural}.{group} serves no status subresource; declare \
             `status_subresource = false` for kind {kind} (its status is then written \
             through the main resource) or add `subresources: {{status: {{}}}}` to the CRD \
             ({answer})",
            plural = K::plural(&()),
            group = K::group(&()),
            kind = K::kind(&()),
            answer = error.message(),
        );
        Err(WriteError::no_status_subresource(&message))
    }

    /// The object as it is written. For a kind without a status subresource the write itself
    /// moves `metadata.generation` by one (every change of the main resource does, and the
    /// apply is made only if the object is still at the version read): the generation the
    /// reconcile stamped becomes the next one, so that the object written is current
    /// (`observedGeneration` equal to `metadata.generation`) and the next reconcile, which
    /// computes the same status at that generation, sends nothing.
    fn as_written(&self, desired: &K) -> K {
        let mut sent = desired.clone();
        if let Some((read, written)) = written_generation::<K>(desired)
            && let Some(status) = sent.status_mut()
        {
            if status.observed_generation() == Some(read) {
                status.set_observed_generation(written);
            }
            restamp(status.conditions_mut(), read, written);
        }
        sent
    }

    /// The fallback's conditions as they are written: see [`as_written`](Self::as_written).
    fn conditions_as_written(&self, desired: &K, conditions: Conditions) -> Conditions {
        let mut conditions = conditions;
        if let Some((read, written)) = written_generation::<K>(desired) {
            restamp(&mut conditions, read, written);
        }
        conditions
    }

    /// The checks and the body. A panic in any of them ends as that object's outcome
    /// (`ReconcilePanicked`), never as a panic of the Controller's stream.
    async fn run<E, F>(&self, object: &mut K, body: F) -> Outcome
    where
        E: ReconcileError,
        F: AsyncFnOnce(&mut K) -> Result<(), E>,
    {
        let decision = Next::new(&self.pre_checks).run(object, &self.client);
        match caught("a pre-reconciliation check", decision).await {
            Err(panicked) => return panicked,
            Ok(Ok(PreCheck::Proceed)) => {}
            Ok(Ok(PreCheck::Block(reason))) => return Outcome::Blocked(reason),
            Ok(Ok(PreCheck::Postpone(reason))) => return Outcome::Postponed(reason),
            Ok(Err(error)) => return Outcome::Blocked(error.to_string()),
        }
        // Marked as a body's polls, so that `quiet_repeated_panics` can tell its panics.
        match caught("the reconcile body", panics::in_body(body(object))).await {
            Err(panicked) => return panicked,
            Ok(Err(error)) => {
                return Outcome::Failed {
                    condition: self.report.failure(&error),
                    requeue: error.requeue(),
                };
            }
            Ok(Ok(())) => {}
        }
        for check in &self.post_checks {
            let checked = check.check(object, &self.client);
            match caught("a post-reconciliation check", checked).await {
                Err(panicked) => return panicked,
                Ok(Ok(PostCheck::Success)) => {}
                Ok(Ok(PostCheck::Failure(reason))) => return Outcome::PostCheckFailed(reason),
                Ok(Err(error)) => return Outcome::PostCheckFailed(error.to_string()),
            }
        }
        Outcome::Succeeded
    }

    /// Records the transition from `before` to `after` (if it is one), or remembers it to
    /// record it at the next reconcile when its Event could not be posted.
    async fn announce(
        &self,
        object: &K,
        remembered: &mut Remembered,
        before: Option<Summary>,
        after: &Condition,
    ) {
        if !self.record_transition(object, before.clone(), after).await {
            remembered.unannounced(before, summary_key(after));
        }
    }

    /// An Event when the summary condition's status or reason changed from `before`. Returns
    /// whether nothing is left to announce (no transition, or its Event recorded).
    async fn record_transition(
        &self,
        object: &K,
        before: Option<Summary>,
        after: &Condition,
    ) -> bool {
        if before.is_some_and(|(status, reason)| status == after.status && reason == after.reason) {
            return true;
        }
        let stored = object;
        let type_ = if after.status == ConditionStatus::False && after.severity >= Severity::Warning
        {
            EventType::Warning
        } else {
            EventType::Normal
        };
        let note = if after.message.is_empty() {
            format!("{} is {}", self.report.summary, after.status)
        } else {
            format!(
                "{} is {}: {}",
                self.report.summary, after.status, after.message
            )
        };
        self.publish(stored, type_, &after.reason, note).await
    }

    /// Publishes an Event about `object`, if a recorder was given. The note is cut to the
    /// API server's limit (1 KiB for an events.k8s.io Event), which a condition's message
    /// (up to 32 KiB) or an API server's rejection can pass: a longer one loses the Event.
    ///
    /// Returns whether the Event was recorded (or there is no recorder): false when the API
    /// server or the connection failed.
    async fn publish(&self, object: &K, type_: EventType, reason: &str, mut note: String) -> bool {
        let Some(recorder) = &self.recorder else {
            return true;
        };
        crate::validation::truncate_to(&mut note, MAX_EVENT_NOTE_BYTES);
        let event = Event {
            type_,
            reason: reason.to_owned(),
            note: Some(note),
            action: "Reconcile".to_owned(),
            secondary: None,
        };
        match recorder.publish(&event, &object.object_ref(&())).await {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(%error, "could not record an event");
                false
            }
        }
    }

    /// Whether this replica may write `object`'s status now (see
    /// [`may_write`](Self::may_write)).
    fn permitted(&self, object: &K) -> bool {
        self.permit.as_ref().is_none_or(|permit| permit(object))
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

/// The status to apply, with every condition's free text left out (`lastTransitionTime` and
/// `message`): two reconciles reaching the same outcome compute the same fingerprint even
/// when the second one set its conditions over the fallback's (which moves their times), or
/// its message carries a time, a request id or a counter.
fn fingerprint<S: Serialize>(body: &StatusApply<S>) -> u64 {
    let mut value = serde_json::to_value(&body.status).unwrap_or_default();
    if let Some(conditions) = value.get_mut("conditions").and_then(|c| c.as_array_mut()) {
        for condition in conditions.iter_mut().filter_map(|c| c.as_object_mut()) {
            condition.remove("lastTransitionTime");
            condition.remove("message");
        }
        // A list map's order is not its content: the list the API server returns after a
        // fallback may hold the same conditions in another order.
        conditions.sort_by(|a, b| a["type"].to_string().cmp(&b["type"].to_string()));
    }
    let mut hasher = std::hash::DefaultHasher::new();
    value.to_string().hash(&mut hasher);
    hasher.finish()
}

/// What became of a full apply: done (written, found written, the object gone), or rejected.
enum Full {
    Done(Write),
    Rejected(Rejection),
}

/// What becomes of an object's remembered state at the end of a reconcile.
enum Fate {
    /// Checked back in as the reconcile left it (gone if nothing is left to remember).
    Keep,
    /// Forgotten: the object is gone, or its controller is done with it.
    Forget,
    /// Left as it was before the reconcile, which decided nothing (its permit was lost).
    Untouched,
}

/// What a reconcile knows when it concludes, besides its write.
struct Conclusion {
    /// The moment of the object read.
    read: Moment,
    /// The requeue the outcome asks for.
    requeue: Requeue,
    /// When a contested condition is taken back.
    contest: Option<Duration>,
    /// The time the write started from.
    now: Instant,
}

/// What [`StatusReconciler::write`] did: what was written, and a release of the fallback
/// manager that failed after the full apply went through (reported once the transition is
/// recorded).
struct Write {
    written: Written,
    release: Option<WriteError>,
}

impl Write {
    fn done(written: Written) -> Self {
        Self {
            written,
            release: None,
        }
    }
}

/// What an episode of failures of `object` is about: its generation, and whether it is being
/// deleted.
fn moment<K: Resource>(object: &K) -> Moment {
    let meta = object.meta();
    Moment {
        generation: meta.generation,
        deleting: meta.deletion_timestamp.is_some(),
    }
}

/// The moment of the object after a reconcile that read it at `read` wrote `written`: for a
/// kind without a status subresource, a status written moves the generation by one, and the
/// watch event of that write is no new moment.
fn moment_after_write<K: StatusResource>(read: Moment, written: &Written) -> Moment {
    if K::STATUS_SUBRESOURCE || !written.wrote() {
        return read;
    }
    Moment {
        generation: read.generation.map(|g| g.saturating_add(1)),
        ..read
    }
}

/// For a kind without a status subresource, the generation read and the one the status
/// write gives the object.
fn written_generation<K: StatusResource>(object: &K) -> Option<(i64, i64)> {
    if K::STATUS_SUBRESOURCE {
        return None;
    }
    let read = object.meta().generation?;
    Some((read, read.saturating_add(1)))
}

/// The conditions with every `observedGeneration` of `read` (those this reconcile stamped)
/// moved to `written`.
fn restamp(conditions: &mut Conditions, read: i64, written: i64) {
    conditions.update_each(|condition| {
        if condition.observed_generation == Some(read) {
            condition.observed_generation = Some(written);
        }
    });
}

/// A hash of the whole apply body, condition times included.
fn exact_hash<S: Serialize>(body: &StatusApply<S>) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    serde_json::to_string(body)
        .unwrap_or_default()
        .hash(&mut hasher);
    hasher.finish()
}

/// `future`'s output, or the outcome of its panic: logged, and its message kept for the
/// summary condition. `what` names the part of the reconcile that panicked.
async fn caught<T>(what: &str, future: impl Future<Output = T>) -> Result<T, Outcome> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .map_err(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| format!("{what} panicked"));
            tracing::error!(%message, "{what} panicked");
            Outcome::Panicked(message)
        })
}

/// Whether the reconcile of `read`, an object being deleted, removed one of its finalizers
/// (`working` no longer holds it): the controller is done with the object.
fn released<K: Resource>(read: &K, working: &K) -> bool {
    let (read, working) = (read.meta(), working.meta());
    read.deletion_timestamp.is_some()
        && read
            .finalizers
            .iter()
            .flatten()
            .any(|f| !working.finalizers.iter().flatten().any(|kept| kept == f))
}

/// A summary condition as a transition Event sees it.
fn summary_key(condition: &Condition) -> Summary {
    (condition.status, condition.reason.clone())
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

/// The error policy that matches [`StatusReconciler::reconcile`]: only a status that could
/// not be written reaches it (a timeout, a reset connection, a 5xx, 429, a refusal of the
/// controller's identity, a status of which nothing could be written, or 409 when the object
/// changed since it was read). The reconcile is retried after the longest of `delay`, the
/// reconciler's backoff for the object ([`Error::backoff`]: doubling with each failed write
/// in a row, up to the [`RequeuePolicy`]'s `backoff_max`) and the API server's
/// `Retry-After`; a conflict after `delay`. The retry computes the status anew from the
/// object as it is then, so nothing is lost.
pub fn error_policy<K>(_object: Arc<K>, error: &Error, delay: Duration) -> Action {
    let delay = [error.backoff(), error.retry_after()]
        .into_iter()
        .flatten()
        .fold(delay, Duration::max);
    if error.is_conflict() {
        tracing::debug!(%error, "the object changed since it was read; reconciling it again");
    } else {
        tracing::debug!(%error, ?delay, "status not written; retrying");
    }
    Action::requeue(delay)
}
