//! What one reconcile came to, said to the operator's own code (its metrics, its logs)
//! through [`StatusReconciler::on_outcome`](super::StatusReconciler::on_outcome): the body's
//! failures end in the status, not in the reconcile's error, so `error_policy` alone never
//! sees them.

use std::time::Duration;

use super::answer::AnswerClass;
use crate::condition::Severity;

/// What one reconcile came to. Every reconcile ends in exactly one.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reconciled {
    /// Nothing was done: the object's episode of failures waits for its retry time.
    Waiting {
        /// How long until then.
        retry_in: Duration,
    },
    /// The body and the checks succeeded, and the status is stored.
    Succeeded,
    /// The body or a check did not succeed (it failed, panicked, blocked or postponed the
    /// reconcile): the summary condition says so, with this reason and severity, and is
    /// stored.
    Unsuccessful {
        /// The summary condition's reason.
        reason: String,
        /// The summary condition's severity.
        severity: Severity,
    },
    /// The API server rejected the status; its conditions alone (the fallback) were written,
    /// were stored already, or were rejected too.
    Rejected,
    /// The status could not be written: the class of the API server's answer (a conflict
    /// included, which the next reconcile resolves).
    WriteFailed(AnswerClass),
    /// The object is gone, or this controller released its finalizer: nothing was written.
    Gone,
    /// This replica may not write the object's status (see
    /// [`StatusReconciler::may_write`](super::StatusReconciler::may_write): it does not lead,
    /// or does not hold the object's shard): nothing was sent, and the body was not run, or
    /// ran while the permit was still held and its status was dropped.
    NotPermitted,
}
