//! Checks around the reconcile body (ASO's reconciliation extensions).
//!
//! A pre-reconciliation check sees the object before the body runs (its stored status, with
//! the summary condition and its companions removed, as the body would) and decides whether
//! the body runs now. Checks chain: each gets the next one and may call it (to act after it)
//! or not (to decide alone). A post-reconciliation check runs after a successful body and can
//! turn the result into a failure. What the status chokepoint then writes, the summary being
//! the kind's (Ready, or Available for `orc`):
//!
//! | check says | body | summary | severity | reason | message | companions | requeue |
//! | --- | --- | --- | --- | --- | --- | --- | --- |
//! | [`PreCheck::Proceed`] | runs | follows the body | | | | | |
//! | [`PreCheck::Block`] | skipped | False | Warning | `ReconciliationBlocked` | the block's reason | working | backoff |
//! | [`PreCheck::Postpone`] | skipped | False | Info | `ReconciliationPostponed` | the postponement's reason | done | resync |
//! | pre-check error | skipped | False | Warning | `ReconciliationBlocked` | the error | working | backoff |
//! | [`PostCheck::Success`] | ran | follows the body | | | | | |
//! | [`PostCheck::Failure`] | ran | False | Warning | `PostReconcileFailure` | the failure's reason | working | backoff |
//! | post-check error | ran | False | Warning | `PostReconcileFailure` | the error | working | backoff |
//!
//! "Working" companions are `orc`'s Progressing True, or `kstatus`'s Reconciling True with
//! Stalled False; "done" ones are False. When the body was skipped, every other part of the
//! status is the stored one; `observedGeneration` becomes `metadata.generation` in every case
//! (the controller has seen the generation, and the summary says what it did about it). As
//! with any outcome, nothing is written when the status equals the stored one.

use std::future::Future;
use std::pin::Pin;

use kube::Client;

/// What a pre-reconciliation check decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreCheck {
    /// Run the reconcile body.
    Proceed,
    /// Do not run it; retry soon. The reason shows in Ready's message.
    Block(String),
    /// Do not run it now; wait for the normal resync. The reason shows in Ready's message.
    Postpone(String),
}

/// What a post-reconciliation check decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PostCheck {
    /// The reconcile stands as it is.
    Success,
    /// The reconcile did not reach its goal; the reason shows in Ready's message.
    Failure(String),
}

/// The error a check may return.
pub type CheckError = Box<dyn std::error::Error + Send + Sync>;

/// A boxed future of a check.
pub type CheckFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, CheckError>> + Send + 'a>>;

/// A check run before the reconcile body.
pub trait PreReconcileCheck<K>: Send + Sync {
    /// Decides about `object`; `next` runs the remaining checks (and proceeds when none
    /// remain). The current tracing span is the reconcile's, which carries the object's key;
    /// dropping the future cancels the check.
    fn check<'a>(
        &'a self,
        object: &'a K,
        client: &'a Client,
        next: Next<'a, K>,
    ) -> CheckFuture<'a, PreCheck>;
}

/// A check run after a successful reconcile body.
pub trait PostReconcileCheck<K>: Send + Sync {
    /// Decides about `object` as the body left it.
    fn check<'a>(&'a self, object: &'a K, client: &'a Client) -> CheckFuture<'a, PostCheck>;
}

/// The rest of a chain of pre-reconciliation checks.
pub struct Next<'a, K> {
    checks: &'a [Box<dyn PreReconcileCheck<K>>],
}

impl<'a, K> Next<'a, K> {
    /// The chain `checks`.
    pub(crate) fn new(checks: &'a [Box<dyn PreReconcileCheck<K>>]) -> Self {
        Self { checks }
    }

    /// Runs the remaining checks; [`PreCheck::Proceed`] when there are none.
    pub fn run(self, object: &'a K, client: &'a Client) -> CheckFuture<'a, PreCheck> {
        match self.checks.split_first() {
            None => Box::pin(async { Ok(PreCheck::Proceed) }),
            Some((first, rest)) => first.check(object, client, Next { checks: rest }),
        }
    }
}
