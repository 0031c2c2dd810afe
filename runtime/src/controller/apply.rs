//! The status writes: the full server-side apply, the conditions-only fallback when the API
//! server rejects it, and the release of the fallback manager's fields once a full apply
//! succeeds again. The first two carry the read object's `resourceVersion` as a
//! precondition, so a status computed from a stale copy never overwrites a newer one: the
//! API server answers 409 Conflict, and the next reconcile starts from the newer object.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::core::Request;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::status::StatusApply;
use crate::{Condition, ConditionStatus, Conditions, KubeStatus, Severity, StatusResource};

/// The field manager of the conditions-only fallback apply.
pub fn fallback_owner<K: StatusResource>() -> String {
    format!("{}-fallback", K::field_owner())
}

/// What a status write did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// The status to apply equals the stored one: nothing was sent.
    Unchanged,
    /// The full status was applied.
    Full,
    /// The full apply was rejected (the rejection's message); the conditions were applied
    /// under the fallback manager.
    Fallback(String),
    /// The object is gone.
    NotFound,
}

/// The reason the summary condition carries when the API server rejected a status that the
/// reconcile thought good.
pub const REASON_STATUS_REJECTED: &str = "StatusRejected";

/// Applies `desired`'s status unless it equals `stored`'s; falls back to its valid
/// conditions on a validation rejection (a True `summary` condition becomes False,
/// `StatusRejected`, with the API server's message); releases the fallback manager after a
/// full apply.
pub(crate) async fn write_status<K>(
    client: &Client,
    stored: &K,
    desired: &K,
    summary: &str,
) -> Result<Written, kube::Error>
where
    K: StatusResource + Clone + Debug + Serialize + DeserializeOwned,
{
    let body = desired.status_apply();
    if body == stored.status_apply() {
        return Ok(Written::Unchanged);
    }
    let name = desired.meta().name.clone().unwrap_or_default();
    let owner = K::field_owner();
    // Only if the object is still the one this status was computed from.
    let body = body.precondition(stored);
    match apply::<K, _>(client, &name, &owner, &body).await {
        Ok(()) => {
            if owns_fields(stored, &fallback_owner::<K>()) {
                release_fallback::<K>(client, &name, desired).await?;
            }
            Ok(Written::Full)
        }
        Err(error) if is_not_found(&error) => Ok(Written::NotFound),
        Err(error) if is_rejection(&error) => {
            let message = rejection_message(&error);
            let mut conditions: Conditions = desired
                .status()
                .map(|s| {
                    s.conditions()
                        .iter()
                        .filter(|c| c.is_valid())
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            if conditions.is_true(summary) || !conditions.contains(summary) {
                let mut rejected =
                    Condition::new(summary, ConditionStatus::False, REASON_STATUS_REJECTED)
                        .with_severity(Severity::Warning)
                        .with_message(format!("the API server rejected the status: {message}"));
                rejected.observed_generation = desired.meta().generation;
                conditions.set(rejected);
            }
            let fallback = desired.conditions_apply(conditions).precondition(stored);
            match apply::<K, _>(client, &name, &fallback_owner::<K>(), &fallback).await {
                Ok(()) => Ok(Written::Fallback(message)),
                Err(error) if is_not_found(&error) => Ok(Written::NotFound),
                Err(error) => Err(error),
            }
        }
        Err(error) => Err(error),
    }
}

/// `PATCH .../<name>/status` with the apply body, forced, as `owner`; works for namespaced
/// and cluster-scoped kinds alike (the body's metadata says which).
async fn apply<K, S>(
    client: &Client,
    name: &str,
    owner: &str,
    body: &StatusApply<S>,
) -> Result<(), kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned,
    S: Serialize + Debug,
{
    let params = PatchParams::apply(owner).force();
    let url = K::url_path(&(), body.metadata.namespace.as_deref());
    let request = Request::new(url)
        .patch_subresource("status", name, &params, &Patch::Apply(body))
        .map_err(kube::Error::BuildRequest)?;
    client.request::<K>(request).await.map(drop)
}

/// An empty apply under the fallback manager: it then owns nothing, so conditions only it
/// kept (stale ones) go, while those the main manager applied stay. Sent right after a full
/// apply changed the object, so without a precondition: it writes no value.
async fn release_fallback<K>(client: &Client, name: &str, object: &K) -> Result<(), kube::Error>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let empty = StatusApply::new(object, <K::Status as KubeStatus>::Apply::default());
    match apply::<K, _>(client, name, &fallback_owner::<K>(), &empty).await {
        Err(error) if is_not_found(&error) => Ok(()),
        other => other,
    }
}

/// Whether `manager` holds fields of the object (per `metadata.managedFields`).
fn owns_fields<K: Resource>(object: &K, manager: &str) -> bool {
    object
        .meta()
        .managed_fields
        .iter()
        .flatten()
        .any(|entry| entry.manager.as_deref() == Some(manager))
}

pub(crate) fn status_code(error: &kube::Error) -> Option<u16> {
    match error {
        kube::Error::Api(status) => Some(status.code),
        _ => None,
    }
}

fn is_not_found(error: &kube::Error) -> bool {
    status_code(error) == Some(404)
}

/// The API server refused the content (schema, CEL or admission validation), not the
/// request: 422 Unprocessable Entity, or 400 Bad Request.
fn is_rejection(error: &kube::Error) -> bool {
    matches!(status_code(error), Some(422 | 400))
}

fn rejection_message(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if !status.message.is_empty() => status.message.clone(),
        other => other.to_string(),
    }
}
