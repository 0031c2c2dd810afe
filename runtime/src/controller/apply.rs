//! The status writes as requests: the full server-side apply, the conditions-only fallback
//! when the API server rejects it, and the release of the fallback manager's fields once a
//! full apply succeeds again. The first two carry the read object's `resourceVersion` as a
//! precondition, so a status computed from a stale copy never overwrites a newer one: the
//! API server answers 409 Conflict, and the next reconcile starts from the newer object.
//! Which of them a reconcile sends is decided in the reconciler.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::core::Request;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::status::{ApplyMetadata, StatusApply};
use crate::{Conditions, KubeStatus, StatusResource};

/// The field manager of the conditions-only fallback apply.
pub fn fallback_owner<K: StatusResource>() -> String {
    format!("{}-fallback", K::field_owner())
}

/// What the status write of a reconcile did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    /// The status to apply equals the stored one: nothing was sent.
    Unchanged,
    /// The full status was applied.
    Full,
    /// The full status is rejected by the API server (with this message), now or by an
    /// earlier reconcile of the same status; `fallback` holds the conditions applied under
    /// the fallback manager, if any were (none are when the stored conditions already say
    /// the same).
    Rejected {
        /// The API server's message.
        message: String,
        /// The conditions of the fallback apply, if one was sent.
        fallback: Option<Conditions>,
        /// The API server's message when this reconcile's fallback was rejected too: nothing
        /// could be written.
        fallback_rejected: Option<String>,
    },
    /// The object is gone.
    NotFound,
}

/// The reason the summary condition carries when the API server rejected a status that the
/// reconcile thought good.
pub const REASON_STATUS_REJECTED: &str = "StatusRejected";

/// The full status apply, under the kind's field owner, only if the object is still at
/// `stored`'s `resourceVersion`.
pub(crate) async fn full<K>(
    client: &Client,
    stored: &K,
    body: StatusApply<<K::Status as KubeStatus>::Apply>,
) -> Result<(), kube::Error>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let body = body.precondition(stored);
    apply::<K, _>(client, &body.metadata, &K::field_owner(), &body).await
}

/// The conditions-only apply under the fallback manager, only if the object is still at
/// `stored`'s `resourceVersion`.
pub(crate) async fn fallback<K>(
    client: &Client,
    stored: &K,
    conditions: Conditions,
) -> Result<(), kube::Error>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let body = stored.conditions_apply(conditions).precondition(stored);
    apply::<K, _>(client, &body.metadata, &fallback_owner::<K>(), &body).await
}

/// `PATCH .../<name>/status` with the apply body, forced, as `owner`; works for namespaced
/// and cluster-scoped kinds alike (`metadata` says which).
async fn apply<K, B>(
    client: &Client,
    metadata: &ApplyMetadata,
    owner: &str,
    body: &B,
) -> Result<(), kube::Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned,
    B: Serialize + Debug,
{
    let params = PatchParams::apply(owner).force();
    let url = K::url_path(&(), metadata.namespace.as_deref());
    let request = Request::new(url)
        .patch_subresource("status", &metadata.name, &params, &Patch::Apply(body))
        .map_err(kube::Error::BuildRequest)?;
    client.request::<K>(request).await.map(drop)
}

/// The body of the release: the object's identity and no `status` at all. An empty
/// `status: {}` would not do: structured-merge-diff records an empty map as a field of its
/// own, so the fallback manager would go on owning `status` itself, keep its
/// `managedFields` entry, and be released again after every later full apply.
#[derive(Debug, Serialize)]
struct Identity<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    metadata: &'a ApplyMetadata,
}

/// An empty apply under the fallback manager: it then owns nothing (so the API server drops
/// its `managedFields` entry), conditions only it kept (stale ones) go, while those the main
/// manager applied stay. Sent right after a full apply changed the object, so without a
/// precondition: it writes no value.
pub(crate) async fn release_fallback<K>(client: &Client, object: &K) -> Result<(), kube::Error>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let empty = StatusApply::new(object, <K::Status as KubeStatus>::Apply::default());
    let body = Identity {
        api_version: &empty.api_version,
        kind: &empty.kind,
        metadata: &empty.metadata,
    };
    match apply::<K, _>(client, &empty.metadata, &fallback_owner::<K>(), &body).await {
        Err(error) if is_not_found(&error) => Ok(()),
        other => other,
    }
}

/// Whether `manager` holds fields of the object (per `metadata.managedFields`).
pub(crate) fn owns_fields<K: Resource>(object: &K, manager: &str) -> bool {
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

pub(crate) fn is_not_found(error: &kube::Error) -> bool {
    status_code(error) == Some(404)
}

/// The API server refused this status, not the request's circumstances: sending the same
/// body again gets the same answer, so it is a rejection to report (and fall back from),
/// never a fault to retry. These are the answers kube-apiserver gives (checked against it in
/// `tests/tests/rejections.rs`):
///
/// - 422 Invalid: the CRD's schema (pattern, required, bounds), its CEL rules
///   (`x-kubernetes-validations`) or an admission check refused a value;
/// - 400 Bad Request: the body cannot be read as the kind;
/// - 413 Request Entity Too Large: the body is over the request limit (3 MiB);
/// - 500 whose message says the body is at fault: server-side apply could not type it
///   against the schema (`failed to create typed patch object`: a field the CRD does not
///   declare, as when operator and CRD versions differ, or two list entries with the same
///   key), or etcd refused its size (`request is too large`, over 1.5 MiB;
///   `trying to send message larger than max`, over 2 MiB).
///
/// Any other 5xx (etcd unavailable, a timeout, a leader change) is a fault of the moment
/// and the write is retried.
pub(crate) fn is_rejection(error: &kube::Error) -> bool {
    /// What the API server's message says when a 500 is about the body.
    const BODY_AT_FAULT: [&str; 3] = [
        "failed to create typed patch object",
        "etcdserver: request is too large",
        "trying to send message larger than max",
    ];
    match error {
        kube::Error::Api(status) => match status.code {
            400 | 413 | 422 => true,
            500 => BODY_AT_FAULT.iter().any(|m| status.message.contains(m)),
            _ => false,
        },
        _ => false,
    }
}

pub(crate) fn rejection_message(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if !status.message.is_empty() => status.message.clone(),
        other => other.to_string(),
    }
}
