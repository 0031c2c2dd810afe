//! Finalizers with the status chokepoint: `kube::runtime::finalizer` run from inside a
//! reconcile body, so that status changes made while applying or cleaning up reach the one
//! status write, and the summary condition says `Deleting` while the cleanup runs.

use std::borrow::Cow;
use std::fmt::{self, Debug};
use std::sync::Arc;

use kube::runtime::controller::Action;
use kube::runtime::finalizer::{self, Event};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{ReconcileError, Severity};

/// A finalizer step that failed: the body's own error, or a failed update of
/// `metadata.finalizers`.
#[derive(Debug)]
pub struct FinalizerError<E: std::error::Error + 'static>(pub finalizer::Error<E>);

impl<E: std::error::Error + 'static> fmt::Display for FinalizerError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for FinalizerError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl<E: ReconcileError + 'static> ReconcileError for FinalizerError<E> {
    fn reason(&self) -> Cow<'_, str> {
        match &self.0 {
            finalizer::Error::ApplyFailed(error) | finalizer::Error::CleanupFailed(error) => {
                error.reason()
            }
            _ => Cow::Borrowed("FinalizerUpdateFailed"),
        }
    }

    fn retryable(&self) -> bool {
        match &self.0 {
            finalizer::Error::ApplyFailed(error) | finalizer::Error::CleanupFailed(error) => {
                error.retryable()
            }
            _ => true,
        }
    }

    fn severity(&self) -> Severity {
        match &self.0 {
            finalizer::Error::ApplyFailed(error) | finalizer::Error::CleanupFailed(error) => {
                error.severity()
            }
            _ => Severity::Warning,
        }
    }

    fn message(&self) -> String {
        match &self.0 {
            finalizer::Error::ApplyFailed(error) | finalizer::Error::CleanupFailed(error) => {
                error.message()
            }
            other => other.to_string(),
        }
    }
}

/// Runs `apply` on `object` (adding the finalizer `name` first when it is missing) or, while
/// the object is being deleted, `cleanup` (then removes the finalizer), through
/// `kube::runtime::finalizer`. Whatever either changes in `object` (its status) is kept for
/// the chokepoint's write. Both must be idempotent.
pub async fn with_finalizer<K, E>(
    api: &Api<K>,
    name: &str,
    object: &mut K,
    apply: impl AsyncFnOnce(&mut K) -> Result<(), E>,
    cleanup: impl AsyncFnOnce(&mut K) -> Result<(), E>,
) -> Result<(), FinalizerError<E>>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    E: std::error::Error + 'static,
{
    let mut worked: Option<K> = None;
    let mut apply = Some(apply);
    let apply_slot = &mut apply;
    let slot = &mut worked;
    let snapshot = Arc::new(object.clone());
    // The requeue kube's finalizer returns is the chokepoint's to decide.
    let _requeue = finalizer::finalizer(api, name, snapshot, |event| async move {
        let outcome = match event {
            Event::Apply(current) => {
                let mut copy = (*current).clone();
                let outcome = match apply_slot.take() {
                    Some(apply) => apply(&mut copy).await,
                    None => Ok(()),
                };
                *slot = Some(copy);
                outcome
            }
            Event::Cleanup(current) => {
                let mut copy = (*current).clone();
                let outcome = cleanup(&mut copy).await;
                *slot = Some(copy);
                outcome
            }
        };
        outcome.map(|()| Action::await_change())
    })
    .await
    .map_err(FinalizerError)?;
    match (worked, apply) {
        (Some(worked), _) => *object = worked,
        // kube's finalizer only added the finalizer this time; apply now rather than report
        // success for a reconcile that did nothing, on the object as that patch left it.
        (None, Some(apply)) if object.meta().deletion_timestamp.is_none() => {
            follow_finalizer_patch(api, object).await;
            apply(object)
                .await
                .map_err(|error| FinalizerError(finalizer::Error::ApplyFailed(error)))?
        }
        (None, _) => {}
    }
    Ok(())
}

/// Takes the `resourceVersion` and finalizers the finalizer patch gave the object into
/// `object`, so that the status written after it is conditional on that version: the patch
/// was this reconcile's own write, and the status apply would otherwise get 409 Conflict on
/// every new object. Only when the generation is the one read: a spec changed meanwhile
/// leaves the old version, and the 409 that a stale status deserves.
async fn follow_finalizer_patch<K>(api: &Api<K>, object: &mut K)
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let Some(name) = object.meta().name.clone() else {
        return;
    };
    match api.get_metadata(&name).await {
        Ok(current) if current.metadata.generation == object.meta().generation => {
            let meta = object.meta_mut();
            meta.resource_version = current.metadata.resource_version;
            meta.finalizers = current.metadata.finalizers;
        }
        Ok(_) => {}
        // The status write will meet the same problem and report it.
        Err(error) => {
            tracing::debug!(%error, "could not read the object after its finalizer was added")
        }
    }
}
