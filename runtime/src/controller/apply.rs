//! The status writes as requests: the full server-side apply, the conditions-only fallback
//! when the API server rejects it, and the release of the fallback manager's fields once a
//! full apply succeeds again. The first two carry the read object's `resourceVersion` as a
//! precondition, so a status computed from a stale copy never overwrites a newer one: the
//! API server answers 409 Conflict, and the next reconcile starts from the newer object,
//! unless the object read back shows that only other field managers wrote, each its own
//! fields, or that it holds the status already (see [`full`]).
//! Which of them a reconcile sends is decided in the reconciler.
//!
//! A kind whose CRD serves a status subresource is written at `.../<name>/status`; one
//! without ([`StatusResource::STATUS_SUBRESOURCE`] false) at `.../<name>`, the main resource,
//! with the same bodies: they hold the object's identity and its status, nothing else, so
//! the field managers own nothing of the spec or the metadata.
//!
//! Requests go out through [`Client::send`] rather than `Client::request`, whose errors
//! lose the answer's headers: a server that throttles (API Priority and Fairness) says how
//! long to wait in a `Retry-After` header beside a plain-text body, and that wait is kept.

use std::fmt::{Debug, Write as _};
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use kube::client::Body;
use kube::core::Request;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::answer::{AnswerClass, WriteError};
use crate::conditions::Conditions;
use crate::shape::ConditionsMerge;
use crate::status::{ApplyMetadata, StatusApply};
use crate::status::{KubeStatus, StatusResource};

/// The field manager of the conditions-only fallback apply.
pub fn fallback_owner<K: StatusResource>() -> String {
    fallback_of(&K::field_owner())
}

/// The fallback manager of field manager `owner`.
fn fallback_of(owner: &str) -> String {
    format!("{owner}-fallback")
}

/// Who writes: the field managers of a reconciler's applies, and whether it is the kind's
/// own controller or a second controller of the same objects.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    /// The field manager of full applies.
    pub owner: String,
    /// The field manager of the conditions-only fallback.
    pub fallback: String,
    /// A second controller (a field manager other than the kind's field owner): it writes
    /// only its own conditions, never `observedGeneration`, and without the
    /// `resourceVersion` precondition (see [`Writer::precondition`]).
    pub second: bool,
}

impl Writer {
    /// The kind's own controller.
    pub(crate) fn of_kind<K: StatusResource>() -> Self {
        Self::named::<K>(K::field_owner().into_owned())
    }

    /// A reconciler writing under `owner`: the kind's controller if it is the kind's field
    /// owner, a second controller otherwise.
    pub(crate) fn named<K: StatusResource>(owner: String) -> Self {
        Self {
            fallback: fallback_of(&owner),
            second: owner != K::field_owner(),
            owner,
        }
    }

    /// The managers whose fields are this reconciler's.
    pub(crate) fn managers(&self) -> [&str; 2] {
        [&self.owner, &self.fallback]
    }

    /// Whether a write refused by its `resourceVersion` precondition (409) stands: the
    /// kind's controller writes `observedGeneration` and the summary, which say which
    /// generation the status describes: computed from a copy older than the stored object
    /// (a spec changed meanwhile; another replica's newer write), they would pass an older
    /// generation off as observed, or undo a newer status, so they are refused and computed
    /// again (unless only other managers wrote since, see [`only_others_wrote`]). A second
    /// controller writes only conditions it alone owns, each stamped with the generation it
    /// saw: no other manager's write can make them wrong, so a 409 of its write only says
    /// that the object moved, and the write goes again at the version now stored, as long
    /// as the object read back is the one it was computed for (see [`Writer::preconditioned`]).
    pub(crate) fn refused_stands(&self) -> bool {
        !self.second
    }

    /// Whether the writes of kind `K` carry the `resourceVersion` read as a precondition. The
    /// kind's controller's always do (see [`Writer::refused_stands`]). A second controller's
    /// do on `/status` too, for another reason: there nothing else keeps a write off an
    /// object deleted and re-created under the same name meanwhile (the API server drops a
    /// `uid` from a `/status` body), and its conditions would land on the new object. On the
    /// main resource the body's `uid` does that (see [`apply`]), so its writes go without.
    pub(crate) fn preconditioned<K: StatusResource>(&self) -> bool {
        !self.second || K::STATUS_SUBRESOURCE
    }
}

/// The reason the summary condition carries when the API server rejected a status that the
/// reconcile thought good.
pub const REASON_STATUS_REJECTED: &str = "StatusRejected";

/// The full status apply, under the kind's field owner, only if the object is still at
/// `read`'s `resourceVersion` (the version the status was computed from).
///
/// What the apply says it owns is what the controller means to: a status field or a
/// condition that another manager set, which this reconcile left as it was stored, is left
/// out (see [`Owned::prune`]). Applied whole, the controller would share its ownership, and
/// the other manager could then never remove it.
///
/// Returns the object as the API server stored it: what it made of the status (its
/// defaults, a mutating admission policy) may differ from what was sent.
///
/// Refused with 409 because the object changed since `read`, the object is read back: when
/// it already holds what the apply says (this controller's own earlier write, which the
/// copy read did not show yet), nothing is sent ([`Applied::Found`]); when only other
/// managers wrote in between ([`only_others_wrote`]), the same body is sent again at the
/// version now stored; otherwise the 409 stands and the next reconcile starts anew.
pub(crate) async fn full<K>(
    client: &Client,
    writer: &Writer,
    stored: &K,
    read: &K,
    body: StatusApply<<K::Status as KubeStatus>::Apply>,
    left: &[String],
) -> Result<Applied<K>, WriteError>
where
    K: StatusResource + Clone + Debug + DeserializeOwned + Serialize,
{
    let body = if writer.preconditioned::<K>() {
        body.precondition(read)
    } else {
        body
    };
    let mut body = serde_json::to_value(body).map_err(kube::Error::SerdeError)?;
    let owned = Owned::of(stored, &writer.managers());
    let stored_status = serde_json::to_value(stored)
        .map_err(kube::Error::SerdeError)?
        .get_mut("status")
        .map(serde_json::Value::take)
        .unwrap_or_default();
    if let Some(status) = body.get_mut("status") {
        owned.prune(
            status,
            &stored_status,
            K::Status::SHAPE.merge,
            !writer.second,
        );
        // Conditions left to another manager, which holds each whole: no longer applied, so
        // their ownership goes to it alone (applied as stored instead, from a copy that may
        // be older than the other manager's last write, they would undo it).
        if K::Status::SHAPE.merge == ConditionsMerge::ByType
            && let Some(conditions) = status.get_mut("conditions").and_then(|c| c.as_array_mut())
        {
            conditions.retain(|c| !left.iter().any(|type_| c["type"] == type_.as_str()));
        }
        fit_conditions::<K>(status);
    }
    let metadata = ApplyMetadata {
        name: read.meta().name.clone().unwrap_or_default(),
        namespace: read.meta().namespace.clone(),
        resource_version: None,
    };
    let (ours, merge) = (writer.managers(), K::Status::SHAPE.merge);
    // The object changed since it was read. When only other managers wrote, each its own
    // fields of the status (a second controller's conditions), this status is as right as
    // it was: it is sent again at the version now stored, instead of failing the reconcile
    // and computing the same status again from the watch event.
    let resend = |current: &K, body: &serde_json::Value| {
        Ok(!writer.refused_stands()
            || only_others_wrote(stored, current, &ours, merge, &body["status"])?)
    };
    apply_resending(client, &metadata, read, &writer.owner, body, resend).await
}

/// [`apply`], and when it is refused by its `resourceVersion` precondition (409), the object
/// read back: gone (or another object of the same name), [`Applied::Gone`];
/// holding every value of the body already (this controller's own earlier write, which the
/// copy read did not show yet), nothing is sent again ([`Applied::Found`]); otherwise the
/// same body goes again at the version now stored when `resend` says so, at most
/// [`MAX_RESENDS`] times, and the 409 stands otherwise.
async fn apply_resending<K>(
    client: &Client,
    metadata: &ApplyMetadata,
    read: &K,
    owner: &str,
    mut body: serde_json::Value,
    resend: impl Fn(&K, &serde_json::Value) -> Result<bool, WriteError>,
) -> Result<Applied<K>, WriteError>
where
    K: StatusResource + Clone + Debug + DeserializeOwned + Serialize,
{
    let merge = K::Status::SHAPE.merge;
    let mut resends = 0;
    loop {
        let preconditioned = body["metadata"].get("resourceVersion").is_some();
        let error = match apply::<K>(client, metadata, read, owner, body.clone()).await {
            Err(error) if preconditioned && error.class == AnswerClass::Conflict => error,
            answer => return answer.map(Applied::Sent),
        };
        if resends == MAX_RESENDS {
            return Err(error);
        }
        resends += 1;
        let Some(current) = read_back(client, read).await? else {
            return Ok(Applied::Gone);
        };
        if holds(&current, &body, merge)? {
            return Ok(Applied::Found(current));
        }
        if !resend(&current, &body)? {
            return Err(error);
        }
        body["metadata"]["resourceVersion"] = current.meta().resource_version.clone().into();
        tracing::debug!(resends, "status sent again at the version now stored");
    }
}

/// What became of a full apply.
#[derive(Debug)]
pub(crate) enum Applied<K> {
    /// It was applied: the object as stored after it.
    Sent(K),
    /// It was refused with 409, and the object read back held its status already: the
    /// object as stored.
    Found(K),
    /// It was refused with 409, and the read-back found no object, or another object of the
    /// same name (another uid): the object read is gone, and nothing landed.
    Gone,
}

/// Whether `object`'s status holds every value of the apply `body`'s status: each field,
/// and each condition (by type, unless the list is atomic) but for its
/// `lastTransitionTime`: a condition computed again from an older copy says the same
/// transition happened a moment later, and set over the stored one it keeps the stored time.
fn holds<K: Serialize>(
    object: &K,
    body: &serde_json::Value,
    merge: ConditionsMerge,
) -> Result<bool, WriteError> {
    let object = serde_json::to_value(object).map_err(kube::Error::SerdeError)?;
    let stored = &object["status"];
    let Some(fields) = body.get("status").and_then(|s| s.as_object()) else {
        return Ok(false);
    };
    Ok(fields.iter().all(|(name, value)| {
        if name != "conditions" || merge == ConditionsMerge::Atomic {
            return stored.get(name) == Some(value);
        }
        let timeless = |condition: &serde_json::Value| {
            let mut condition = condition.clone();
            if let Some(fields) = condition.as_object_mut() {
                fields.remove("lastTransitionTime");
            }
            condition
        };
        value.as_array().into_iter().flatten().all(|condition| {
            let type_ = condition["type"].as_str().unwrap_or_default();
            condition_in(stored, type_)
                .is_some_and(|stored| timeless(stored) == timeless(condition))
        })
    }))
}

/// The condition of type `type_` in `status` (a status as JSON), if it has one.
fn condition_in<'a>(status: &'a serde_json::Value, type_: &str) -> Option<&'a serde_json::Value> {
    status
        .get("conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// How many times in a row a full apply refused with 409 is sent again (see
/// [`only_others_wrote`]): writers of other condition types can keep the object moving, and
/// a reconcile must end; the watch event of the last change brings the next one.
const MAX_RESENDS: usize = 3;

/// Whether `current` differs from `read` only in what managers other than `ours` own of the
/// status (whose `conditions` list merges as `merge` says) and the apply `sending` leaves
/// alone: the same object (metadata, spec, generation, finalizers, deletion), the same
/// fields held by `ours` (their `managedFields` entries, times aside), the same values where
/// `ours` own them (each status field, each field of each condition), and the same values
/// of what `sending` takes over from other managers (a field or condition it changes, an
/// atomic list). A status computed from `read` then neither passes an older generation off
/// as observed, nor undoes a newer write of its own manager (another replica's), nor a newer
/// value of another manager: the resourceVersion precondition guards exactly these, and a
/// write of another condition type by another controller changes none of them.
///
/// The body's inputs are taken to be the object and its own fields of the status: a body
/// that reads another manager's condition (to summarize it, say) computes from what `read`
/// held of it, as it would have without the race.
pub(crate) fn only_others_wrote<K: Resource + Serialize>(
    read: &K,
    current: &K,
    ours: &[&str],
    merge: ConditionsMerge,
    sending: &serde_json::Value,
) -> Result<bool, WriteError> {
    let json = |object: &K| serde_json::to_value(object).map_err(kube::Error::SerdeError);
    let (read_object, read_status) = split(json(read)?);
    let (current_object, current_status) = split(json(current)?);
    if read_object != current_object || entries_of(read, ours) != entries_of(current, ours) {
        return Ok(false);
    }
    let owned = Owned::of(read, ours);
    let same_fields = owned.fields.iter().all(|field| {
        field == "conditions" && merge == ConditionsMerge::ByType
            || read_status.get(field) == current_status.get(field)
    });
    // Of a condition, the fields owned: a condition whose status another manager took over
    // (a contested one, left to it) may still hold our `observedGeneration`, and only that
    // is ours to compare.
    let same_conditions = owned.condition_types.iter().all(|(type_, fields)| {
        match (
            condition_in(&read_status, type_),
            condition_in(&current_status, type_),
        ) {
            (Some(read), Some(current)) => fields
                .iter()
                .filter_map(|field| field.strip_prefix("f:"))
                .all(|field| read.get(field) == current.get(field)),
            (read, current) => read == current,
        }
    });
    // What the apply takes over from other managers (a field or a condition it changes, an
    // atomic list) must be as read too: sent again, it would undo their newer value.
    let taken = sending.as_object().into_iter().flatten();
    let same_taken = taken.into_iter().all(|(field, value)| {
        if field != "conditions" || merge == ConditionsMerge::Atomic {
            return read_status.get(field) == current_status.get(field);
        }
        value.as_array().into_iter().flatten().all(|condition| {
            let type_ = condition["type"].as_str().unwrap_or_default();
            condition_in(&read_status, type_) == condition_in(&current_status, type_)
        })
    });
    Ok(same_fields && same_conditions && same_taken)
}

/// The object (as JSON) without what any write changes (its version, the managers'
/// entries), and its status apart.
pub(crate) fn split(mut object: serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let status = object
        .get_mut("status")
        .map(serde_json::Value::take)
        .unwrap_or_default();
    if let Some(metadata) = object.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        metadata.remove("resourceVersion");
        metadata.remove("managedFields");
    }
    if let Some(fields) = object.as_object_mut() {
        fields.remove("status");
    }
    (object, status)
}

/// A `managedFields` entry without its time: manager, operation, subresource, API version,
/// the fields owned.
type Entry = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<serde_json::Value>,
);

/// The `managedFields` entries of the managers `ours`, in a stable order.
fn entries_of<K: Resource>(object: &K, ours: &[&str]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = object
        .meta()
        .managed_fields
        .iter()
        .flatten()
        .filter(|e| ours.contains(&e.manager.as_deref().unwrap_or_default()))
        .map(|e| {
            (
                e.manager.clone(),
                e.operation.clone(),
                e.subresource.clone(),
                e.api_version.clone(),
                e.fields_v1.as_ref().map(|f| f.0.clone()),
            )
        })
        .collect();
    entries.sort_by(|a, b| (&a.0, &a.2).cmp(&(&b.0, &b.2)));
    entries
}

/// The conditions-only apply under the fallback manager, with the values `carried` for the
/// fields the CRD requires that the object lacks ([`required_values`]). The kind's controller's is made
/// only if the object is still at `read`'s `resourceVersion` (a 409 stands); a second
/// controller's goes again at the version now stored while the object is the one read (see
/// [`Writer::preconditioned`]).
pub(crate) async fn fallback<K>(
    client: &Client,
    writer: &Writer,
    read: &K,
    conditions: Conditions,
    carried: serde_json::Map<String, serde_json::Value>,
) -> Result<Applied<K>, WriteError>
where
    K: StatusResource + Clone + Debug + DeserializeOwned + Serialize,
{
    let mut body = read.conditions_apply(conditions);
    if writer.preconditioned::<K>() {
        body = body.precondition(read);
    }
    let metadata = body.metadata.clone();
    let mut body = serde_json::to_value(body).map_err(kube::Error::SerdeError)?;
    if let Some(status) = body
        .get_mut("status")
        .and_then(serde_json::Value::as_object_mut)
    {
        status.extend(carried);
    }
    if let Some(status) = body.get_mut("status") {
        fit_conditions::<K>(status);
    }
    if writer.refused_stands() {
        // Its 409 is the next reconcile's to resolve, from the newer copy.
        return apply::<K>(client, &metadata, read, &writer.fallback, body)
            .await
            .map(Applied::Sent);
    }
    let resend = |_: &K, _: &serde_json::Value| Ok(true);
    apply_resending(client, &metadata, read, &writer.fallback, body, resend).await
}

/// The values a conditions-only fallback carries for the status fields the CRD requires
/// (`required`, their JSON names) that the stored status (`stored`, JSON) lacks: on a
/// brand-new object, without them, the API server refuses the fallback as a whole
/// (`status.<field>: Required value`), and nothing at all is written. Each is the desired
/// status's value (`desired`), or where the rejection (`message`) names the field
/// (`status.<field>`), the field type's default (`default`): the desired value is the one
/// refused. A field neither holds is left out; the API server's refusal then names it.
pub(crate) fn required_values(
    required: &[&str],
    stored: &serde_json::Value,
    desired: &serde_json::Value,
    default: &serde_json::Value,
    message: &str,
) -> serde_json::Map<String, serde_json::Value> {
    let refused = |field: &str| {
        let path = format!("status.{field}");
        message.match_indices(&path).any(|(at, _)| {
            !message[at + path.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    };
    required
        .iter()
        .filter(|field| stored.get(**field).is_none())
        .filter_map(|field| {
            let first = if refused(field) { default } else { desired };
            let value = first.get(*field).or_else(|| default.get(*field))?;
            Some(((*field).to_owned(), value.clone()))
        })
        .collect()
}

/// The conditions of a status to apply as its schema holds them: without a field it lacks
/// (KEDA's `lastTransitionTime`), or an optional one that says nothing. `Condition` writes
/// metav1's fields whole; the status type's own serialization may not know the shape (a
/// derived `Apply` does not).
fn fit_conditions<K: StatusResource>(status: &mut serde_json::Value) {
    if K::Status::SHAPE.fields.has_metav1_fields() {
        return;
    }
    let items = status.get_mut("conditions").and_then(|c| c.as_array_mut());
    for condition in items.into_iter().flatten() {
        K::Status::SHAPE.fit_json(condition);
    }
}

/// The status fields and condition types that some managers own, per the object's
/// `metadata.managedFields` (server-side apply's field sets, `fieldsV1`).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Owned {
    /// Top-level status fields (`f:status` / `f:<name>`).
    fields: std::collections::HashSet<String>,
    /// Condition types (`f:status` / `f:conditions` / `k:{"type":"<type>"}`), each with the
    /// fields of the condition owned (`f:status`, `f:reason`, ...).
    condition_types: std::collections::HashMap<String, std::collections::HashSet<String>>,
}

impl Owned {
    /// What `managers` own of `object`'s status.
    pub(crate) fn of<K: Resource>(object: &K, managers: &[&str]) -> Self {
        let mut owned = Owned::default();
        let entries = object.meta().managed_fields.iter().flatten();
        for entry in
            entries.filter(|e| managers.contains(&e.manager.as_deref().unwrap_or_default()))
        {
            let Some(status) = entry.fields_v1.as_ref().and_then(|f| f.0.get("f:status")) else {
                continue;
            };
            for (key, value) in status.as_object().into_iter().flatten() {
                let Some(field) = key.strip_prefix("f:") else {
                    continue;
                };
                owned.fields.insert(field.to_owned());
                if field != "conditions" {
                    continue;
                }
                for (item, fields) in value.as_object().into_iter().flatten() {
                    let type_ = item
                        .strip_prefix("k:")
                        .and_then(|k| serde_json::from_str::<serde_json::Value>(k).ok())
                        .and_then(|k| k.get("type").and_then(|t| t.as_str()).map(str::to_owned));
                    if let Some(type_) = type_ {
                        let fields = fields.as_object().into_iter().flatten();
                        owned
                            .condition_types
                            .entry(type_)
                            .or_default()
                            .extend(fields.map(|(field, _)| field.clone()));
                    }
                }
            }
        }
        owned
    }

    /// The condition types each field manager but `ours` owns of `object`'s status, by
    /// manager, in the order of `metadata.managedFields` (managers owning none left out).
    pub(crate) fn by_others<K: Resource>(object: &K, ours: &[&str]) -> Vec<(String, Self)> {
        let mut others: Vec<(String, Self)> = Vec::new();
        for entry in object.meta().managed_fields.iter().flatten() {
            let manager = entry.manager.clone().unwrap_or_default();
            if ours.contains(&manager.as_str()) || others.iter().any(|(m, _)| *m == manager) {
                continue;
            }
            let owned = Self::of(object, &[&manager]);
            if !owned.condition_types.is_empty() {
                others.push((manager, owned));
            }
        }
        others
    }

    /// Whether the managers own the condition of type `type_`.
    pub(crate) fn has_condition(&self, type_: &str) -> bool {
        self.condition_types.contains_key(type_)
    }

    /// Whether these managers own a field of the condition of type `type_` that `ours` do
    /// not: they changed it after `ours` wrote it (a forced apply or an update takes each
    /// field it changes from every other manager), where a manager that applied the same
    /// values shares them.
    ///
    /// Only what the condition says counts (its status, reason and message): fields that
    /// another writer does not set at all (`observedGeneration`, `severity`) stay with the
    /// manager that set them, which took nothing.
    pub(crate) fn took_condition(&self, ours: &Owned, type_: &str) -> bool {
        let theirs = self.condition_types.get(type_);
        let ours = ours.condition_types.get(type_);
        ["f:status", "f:reason", "f:message"].iter().any(|field| {
            theirs.is_some_and(|theirs| theirs.contains(*field))
                && ours.is_none_or(|ours| !ours.contains(*field))
        })
    }

    /// Whether these managers own a whole condition of type `type_` (its status, reason,
    /// message and time): it stays whole without the fields of any other manager.
    pub(crate) fn owns_whole_condition(&self, type_: &str) -> bool {
        self.condition_types.get(type_).is_some_and(|fields| {
            ["f:status", "f:reason", "f:message", "f:lastTransitionTime"]
                .iter()
                .all(|field| fields.contains(*field))
        })
    }

    /// Leaves out of the status to apply every top-level field and every condition that
    /// none of the managers owns and that equals what is stored: another manager's, which
    /// this reconcile did not change. A field or condition that differs from the stored one
    /// stays: the controller takes those over (the apply is forced); so does
    /// `observedGeneration` when `generation` (the kind's controller always writes it).
    ///
    /// An atomic `conditions` list is one value, pruned like a top-level field: a list
    /// applied without some of its conditions would delete them.
    pub(crate) fn prune(
        &self,
        status: &mut serde_json::Value,
        stored: &serde_json::Value,
        merge: ConditionsMerge,
        generation: bool,
    ) {
        let Some(fields) = status.as_object_mut() else {
            return;
        };
        fields.retain(|name, value| {
            (name == "conditions" && merge == ConditionsMerge::ByType)
                || (generation && name == "observedGeneration")
                || self.fields.contains(name)
                || stored.get(name) != Some(value)
        });
        if merge == ConditionsMerge::Atomic {
            return;
        }
        let stored_conditions = stored.get("conditions").and_then(|c| c.as_array());
        if let Some(conditions) = fields.get_mut("conditions").and_then(|c| c.as_array_mut()) {
            conditions.retain(|condition| {
                let type_ = condition
                    .get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or_default();
                self.condition_types.contains_key(type_)
                    || !stored_conditions
                        .into_iter()
                        .flatten()
                        .any(|stored| stored == condition)
            });
        }
    }
}

/// `PATCH .../<name>/status` (or `.../<name>` for a kind without a status subresource) with
/// the apply body, forced, as `owner`, to the object `read` (the same uid); works for
/// namespaced and cluster-scoped kinds alike (`metadata` says which). Returns the object as
/// stored.
///
/// On the main resource an apply to a missing object creates it, `resourceVersion` or not
/// (kube-apiserver 1.37): the body carries `read`'s uid there, so that the API server refuses
/// a write to a deleted object (409 `uid mismatch`) or to another object of the same name
/// (422 `metadata.uid: field is immutable`), both [`AnswerClass::Gone`]. On `/status` the API
/// server drops a uid from the body (it keeps the stored metadata); a missing object is a
/// 404 there, and the `resourceVersion` precondition keeps a re-created one out.
async fn apply<K>(
    client: &Client,
    metadata: &ApplyMetadata,
    read: &K,
    owner: &str,
    mut body: serde_json::Value,
) -> Result<K, WriteError>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let params = PatchParams::apply(owner).force();
    let url = K::url_path(&(), metadata.namespace.as_deref());
    let request = Request::new(url);
    if !K::STATUS_SUBRESOURCE
        && let Some(uid) = &read.meta().uid
        && let Some(meta) = body.get_mut("metadata").and_then(|m| m.as_object_mut())
    {
        meta.insert("uid".to_owned(), uid.clone().into());
    }
    let patch = Patch::Apply(&body);
    let request = if K::STATUS_SUBRESOURCE {
        request.patch_subresource("status", &metadata.name, &params, &patch)
    } else {
        request.patch(&metadata.name, &params, &patch)
    }
    .map_err(kube::Error::BuildRequest)?;
    send(client, request.map(escape_for_yaml)).await
}

/// The JSON body with every character that YAML forbids in its input written as a `\uXXXX`
/// escape. An apply body goes out as `application/apply-patch+yaml`, read by a YAML parser,
/// which refuses DEL (U+007F), the C1 controls but NEL (U+0080 to U+009F) and U+FFFE and
/// U+FFFF with 400 `yaml: control characters are not allowed`; serde_json writes them as
/// they are. Such a character in any status text (a cloud API's error message, say) would
/// make the status, and its conditions-only fallback, impossible to write. They occur only
/// inside JSON strings, where the escape means the same character.
fn escape_for_yaml(body: Vec<u8>) -> Vec<u8> {
    let forbidden =
        |c: char| matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}') && c != '\u{85}';
    let Ok(text) = std::str::from_utf8(&body) else {
        return body;
    };
    if !text.chars().any(forbidden) {
        return body;
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if forbidden(c) {
            // Writing to a String cannot fail.
            let _ = write!(escaped, "\\u{:04x}", u32::from(c));
        } else {
            escaped.push(c);
        }
    }
    escaped.into_bytes()
}

/// Sends `request` and reads the answer as `T`, or as the API server's error: its Status
/// (a plain-text body, as API Priority and Fairness sends with 429, becomes a Status of that
/// text, as kube's client makes it) and its `Retry-After` header.
pub(crate) async fn send<T: DeserializeOwned>(
    client: &Client,
    request: http::Request<Vec<u8>>,
) -> Result<T, WriteError> {
    let response = client.send(request.map(Body::from)).await?;
    let code = response.status();
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok())
        .filter(|seconds| *seconds > 0)
        .map(Duration::from_secs);
    let bytes = response.into_body().collect_bytes().await?;
    if code.is_success() {
        return serde_json::from_slice(&bytes).map_err(|e| kube::Error::SerdeError(e).into());
    }
    Err(WriteError::from_answer(code.as_u16(), &bytes, retry_after))
}

/// Whether the object `read` still exists (the same uid), read from the API server: a 404 on
/// a status write means either the object is gone or the kind serves no status
/// subresource, which the API server words alike.
pub(crate) async fn still_exists<K>(client: &Client, read: &K) -> Result<bool, WriteError>
where
    K: StatusResource + DeserializeOwned,
{
    Ok(read_back(client, read).await?.is_some())
}

/// The object `read` as the API server now stores it (`GET`, which the controller's identity
/// may do: it lists and watches the kind), or None when it is gone or another object of the
/// same name took its place (another uid).
pub(crate) async fn read_back<K>(client: &Client, read: &K) -> Result<Option<K>, WriteError>
where
    K: StatusResource + DeserializeOwned,
{
    let meta = read.meta();
    let url = K::url_path(&(), meta.namespace.as_deref());
    let name = meta.name.as_deref().unwrap_or_default();
    let request = Request::new(url)
        .get(name, &kube::api::GetParams::default())
        .map_err(kube::Error::BuildRequest)?;
    match send::<K>(client, request).await {
        Ok(found) if meta.uid.is_none() || found.meta().uid == meta.uid => Ok(Some(found)),
        Ok(_) => Ok(None),
        Err(error) if error.class == AnswerClass::Gone => Ok(None),
        Err(error) => Err(error),
    }
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
/// manager applied stay. Sent right after a full apply changed the object, conditional on
/// the version that apply left (`applied`, its answer): it lands on that object or not at
/// all, never on one deleted or re-created meanwhile; a write of another manager in between
/// makes it a 409, and the next reconcile, finding the fallback manager's fields still
/// there, applies the status again and releases them.
pub(crate) async fn release_fallback<K>(
    client: &Client,
    writer: &Writer,
    applied: &K,
) -> Result<(), WriteError>
where
    K: StatusResource + Clone + Debug + DeserializeOwned,
{
    let empty = StatusApply::new(applied, <K::Status as KubeStatus>::Apply::default())
        .precondition(applied);
    let body = Identity {
        api_version: &empty.api_version,
        kind: &empty.kind,
        metadata: &empty.metadata,
    };
    let body = serde_json::to_value(body).map_err(kube::Error::SerdeError)?;
    match apply::<K>(client, &empty.metadata, applied, &writer.fallback, body).await {
        Err(error) if error.class == AnswerClass::Gone => Ok(()),
        other => other.map(drop),
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

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    use super::{Owned, required_values};
    use crate::shape::ConditionsMerge::{Atomic, ByType};

    /// An object whose managedFields say that `controller` owns `endpoint` and the Ready
    /// condition, its fallback the Synced condition, and `agent` `lastBackup` and BackedUp.
    fn object() -> ConfigMap {
        let entry = |manager: &str, status: serde_json::Value| {
            json!({"manager": manager, "operation": "Apply", "subresource": "status",
                   "fieldsType": "FieldsV1", "fieldsV1": {"f:status": status}})
        };
        serde_json::from_value(json!({"metadata": {"name": "w", "managedFields": [
            entry("controller", json!({"f:endpoint": {}, "f:conditions": {
                "k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}}})),
            entry("controller-fallback", json!({"f:conditions": {
                "k:{\"type\":\"Synced\"}": {".": {}, "f:status": {}}}})),
            entry("agent", json!({"f:lastBackup": {}, "f:conditions": {
                "k:{\"type\":\"BackedUp\"}": {".": {}, "f:status": {}}}})),
        ]}}))
        .expect("an object")
    }

    /// What YAML refuses is escaped; the JSON means the same; the rest is left as it is.
    #[test]
    fn a_fallback_carries_what_the_crd_requires_and_the_object_lacks() {
        let desired = json!({"hidden": true, "count": 3});
        let default = json!({"hidden": false, "count": 0});
        let none = json!(null);
        // A brand-new object: the desired values.
        assert_eq!(
            required_values(&["hidden", "count"], &none, &desired, &default, "denied"),
            json!({"hidden": true, "count": 3})
                .as_object()
                .cloned()
                .unwrap_or_default()
        );
        // The one refused goes as its type's default; a longer name is another field.
        let message = "Document.example.com \"d\" is invalid: status.hidden: Invalid value: true";
        assert_eq!(
            required_values(&["hidden", "count"], &none, &desired, &default, message),
            json!({"hidden": false, "count": 3})
                .as_object()
                .cloned()
                .unwrap_or_default()
        );
        let other = "status.hiddenReason: Invalid value";
        assert_eq!(
            required_values(&["hidden"], &none, &desired, &default, other)["hidden"],
            true
        );
        // Stored already: nothing carried (the apply merges into what is stored).
        let stored = json!({"hidden": false, "count": 1});
        assert!(required_values(&["hidden", "count"], &stored, &desired, &default, "").is_empty());
    }

    #[test]
    fn characters_yaml_refuses_are_escaped() {
        let text = "a\u{7f}b\u{80}\u{85}\u{9f}\u{a0}\u{fffe}\u{ffff}é\"\\";
        let body = serde_json::to_vec(&json!({"message": text})).expect("JSON");
        let escaped = super::escape_for_yaml(body.clone());
        let escaped_text = String::from_utf8(escaped.clone()).expect("UTF-8");
        assert_eq!(
            escaped_text,
            "{\"message\":\"a\\u007fb\\u0080\u{85}\\u009f\u{a0}\\ufffe\\uffffé\\\"\\\\\"}"
        );
        let read: serde_json::Value = serde_json::from_slice(&escaped).expect("still JSON");
        assert_eq!(read["message"], text);
        let plain = serde_json::to_vec(&json!({"message": "plain é"})).expect("JSON");
        assert_eq!(super::escape_for_yaml(plain.clone()), plain);
    }

    #[test]
    fn managed_fields_say_what_a_manager_owns() {
        let owned = Owned::of(&object(), &["controller", "controller-fallback"]);
        let mut fields: Vec<_> = owned.fields.iter().cloned().collect();
        fields.sort();
        assert_eq!(fields, ["conditions", "endpoint"]);
        let mut types: Vec<_> = owned.condition_types.keys().cloned().collect();
        types.sort();
        assert_eq!(types, ["Ready", "Synced"]);
    }

    #[test]
    fn another_managers_unchanged_fields_are_left_out() {
        let owned = Owned::of(&object(), &["controller", "controller-fallback"]);
        let backed_up = json!({"type": "BackedUp", "status": "True", "reason": "Done"});
        let stored = json!({"endpoint": "a:1", "lastBackup": "monday", "observedGeneration": 1,
            "conditions": [{"type": "Ready", "status": "True"}, backed_up.clone()]});
        // The body kept the agent's field and condition as read, set its own, and added one.
        let mut status = json!({"endpoint": "a:2", "lastBackup": "monday", "observedGeneration": 2,
            "conditions": [{"type": "Ready", "status": "False"}, backed_up,
                           {"type": "Synced", "status": "True"}, {"type": "New", "status": "True"}]});
        owned.prune(&mut status, &stored, ByType, true);
        assert_eq!(
            status,
            json!({"endpoint": "a:2", "observedGeneration": 2, "conditions": [
                {"type": "Ready", "status": "False"}, {"type": "Synced", "status": "True"},
                {"type": "New", "status": "True"}]})
        );
        // What the body changed of the agent's is taken over.
        let mut status = json!({"lastBackup": "tuesday", "conditions": [
            {"type": "BackedUp", "status": "False", "reason": "Failed"}]});
        owned.prune(&mut status, &stored, ByType, true);
        assert_eq!(status["lastBackup"], "tuesday");
        assert_eq!(status["conditions"].as_array().map(Vec::len), Some(1));
    }

    /// Ready as two managers hold it after `agent` forced its own status, reason, message and
    /// time over the controller's (the controller keeps the fields the agent did not set),
    /// and a partial edit by `kubectl-edit` of Synced's status alone.
    fn contested() -> ConfigMap {
        let entry = |manager: &str, type_: &str, fields: &[&str]| {
            let fields: serde_json::Map<String, serde_json::Value> = fields
                .iter()
                .map(|f| ((*f).to_owned(), json!({})))
                .collect();
            let key = format!(r#"k:{{"type":"{type_}"}}"#);
            json!({"manager": manager, "operation": "Apply", "subresource": "status",
                   "fieldsType": "FieldsV1",
                   "fieldsV1": {"f:status": {"f:conditions": {key: fields}}}})
        };
        let content = ["f:status", "f:reason", "f:message", "f:lastTransitionTime"];
        serde_json::from_value(json!({"metadata": {"name": "w", "managedFields": [
            entry("controller", "Ready", &[".", "f:type", "f:observedGeneration"]),
            entry("controller", "Synced", &[".", "f:type", "f:reason", "f:message"]),
            entry("agent", "Ready", &[&[".", "f:type"][..], &content].concat()),
            entry("kubectl-edit", "Synced", &["f:status"]),
        ]}}))
        .expect("an object")
    }

    /// A manager took a condition when it holds what the condition says (status, reason,
    /// message) and the controller does not; fields only the controller sets
    /// (`observedGeneration`) take nothing from the other manager.
    #[test]
    fn who_took_a_condition_from_whom() {
        let object = contested();
        let controller = Owned::of(&object, &["controller"]);
        let others = Owned::by_others(&object, &["controller"]);
        let names: Vec<&str> = others.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(names, ["agent", "kubectl-edit"]);
        let (agent, edit) = (&others[0].1, &others[1].1);
        assert!(agent.took_condition(&controller, "Ready"));
        assert!(
            agent.owns_whole_condition("Ready"),
            "left to it, Ready stays whole"
        );
        assert!(edit.took_condition(&controller, "Synced"));
        assert!(
            !edit.owns_whole_condition("Synced"),
            "without the controller's fields, Synced would lack its reason"
        );
        assert!(!controller.took_condition(agent, "Ready"));
        assert!(!agent.took_condition(&controller, "Synced"));
    }

    /// managedFields of an atomic list: `f:conditions` is one field, with no `k:` entries.
    fn atomic_object(owner: &str) -> ConfigMap {
        serde_json::from_value(json!({"metadata": {"name": "w", "managedFields": [
            {"manager": owner, "operation": "Apply", "subresource": "status",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {}}}}]}}))
        .expect("an object")
    }

    /// An atomic list goes whole or not at all: applied without its unchanged conditions,
    /// the API server would delete them.
    #[test]
    fn an_atomic_list_is_applied_whole() {
        let ready = json!({"type": "Ready", "status": "True"});
        let backed_up = json!({"type": "BackedUp", "status": "True"});
        let stored = json!({"conditions": [ready.clone(), backed_up.clone()]});
        let changed =
            json!({"conditions": [{"type": "Ready", "status": "False"}, backed_up.clone()]});

        // Owned by the controller: kept whole, changed or not.
        let owned = Owned::of(&atomic_object("controller"), &["controller"]);
        for body in [&stored, &changed] {
            let mut status = body.clone();
            owned.prune(&mut status, &stored, Atomic, true);
            assert_eq!(&status, body);
        }
        // Another manager's: left out while unchanged, taken over whole once changed.
        let owned = Owned::of(&atomic_object("agent"), &["controller"]);
        let mut status = stored.clone();
        owned.prune(&mut status, &stored, Atomic, true);
        assert_eq!(status, json!({}));
        let mut status = changed.clone();
        owned.prune(&mut status, &stored, Atomic, true);
        assert_eq!(status, changed);
    }

    /// A widget read by the kind's controller (`controller`), which owns Ready and
    /// `observedGeneration`, beside `agent`, which owns BackedUp: as `edit` makes it.
    fn widget(edit: impl FnOnce(&mut serde_json::Value)) -> kube::api::DynamicObject {
        let entry = |manager: &str, time: &str, status: serde_json::Value| {
            json!({"manager": manager, "operation": "Apply", "subresource": "status",
                   "time": time, "fieldsType": "FieldsV1", "fieldsV1": {"f:status": status}})
        };
        let mut object = json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "uid": "1", "generation": 2, "resourceVersion": "10",
                "labels": {"app": "w"}, "managedFields": [
                entry("controller", "2024-01-01T00:00:00Z", json!({"f:observedGeneration": {},
                    "f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}}})),
                entry("agent", "2024-01-01T00:00:00Z", json!({"f:conditions": {
                    "k:{\"type\":\"BackedUp\"}": {".": {}, "f:status": {}}}})),
            ]},
            "spec": {"size": 1},
            "status": {"observedGeneration": 2, "conditions": [
                {"type": "Ready", "status": "True"}, {"type": "BackedUp", "status": "False"}]},
        });
        edit(&mut object);
        serde_json::from_value(object).expect("a widget")
    }

    /// Between the read and the 409, only what another manager owns moved: the status is
    /// sent again. Anything the status was computed from, or anything of the controller's
    /// own, moved: it is not.
    #[test]
    fn a_conflict_is_resent_only_when_other_managers_alone_wrote() {
        let ours = ["controller", "controller-fallback"];
        let read = widget(|_| {});
        // What the apply sends: its own fields only.
        let sending = json!({"observedGeneration": 2, "conditions": [
            {"type": "Ready", "status": "True"}]});
        let after = |edit: fn(&mut serde_json::Value)| {
            let current = widget(|o| {
                o["metadata"]["resourceVersion"] = json!("11");
                edit(o);
            });
            super::only_others_wrote(&read, &current, &ours, ByType, &sending).expect("comparable")
        };
        // The agent changed its condition, added another, and a third manager came.
        assert!(after(|o| {
            o["status"]["conditions"][1]["status"] = json!("True");
            o["status"]["conditions"]
                .as_array_mut()
                .expect("a list")
                .push(json!({"type": "Healthy", "status": "True"}));
            o["metadata"]["managedFields"][1]["time"] = json!("2024-01-01T00:00:05Z");
            o["metadata"]["managedFields"]
                .as_array_mut()
                .expect("a list")
                .push(json!({
                "manager": "health", "operation": "Apply", "subresource": "status",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {
                    "k:{\"type\":\"Healthy\"}": {".": {}, "f:status": {}}}}}}));
        }));
        // Our own entry written again with the same fields: only its time moved.
        assert!(after(|o| {
            o["metadata"]["managedFields"][0]["time"] = json!("2024-01-01T00:00:05Z");
        }));
        // The spec (and generation) moved: the status would pass generation 2 off as observed.
        assert!(!after(|o| {
            o["spec"]["size"] = json!(2);
            o["metadata"]["generation"] = json!(3);
        }));
        // Labels, finalizers, deletion: inputs of the body too.
        assert!(!after(|o| o["metadata"]["labels"]["app"] = json!("x")));
        assert!(!after(|o| o["metadata"]["finalizers"] = json!(["f"])));
        assert!(!after(|o| {
            o["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:09Z");
        }));
        // Another replica under the same manager wrote a newer Ready, or observedGeneration.
        assert!(!after(
            |o| o["status"]["conditions"][0]["status"] = json!("False")
        ));
        assert!(!after(|o| o["status"]["observedGeneration"] = json!(1)));
        // Another manager took Ready's status, where we still own its observedGeneration
        // (a contested condition left to it): only what we own of it counts.
        let contested = |edit: fn(&mut serde_json::Value)| {
            let owner = |o: &mut serde_json::Value| {
                o["metadata"]["managedFields"][0]["fieldsV1"] = json!({"f:status": {
                    "f:observedGeneration": {}, "f:conditions": {"k:{\"type\":\"Ready\"}": {
                        ".": {}, "f:observedGeneration": {}}}}});
                o["status"]["conditions"][0]["observedGeneration"] = json!(2);
            };
            let read = widget(owner);
            let current = widget(|o| {
                owner(o);
                edit(o);
            });
            // Ready left to the other manager: no longer applied.
            let sending = json!({"observedGeneration": 2, "conditions": []});
            super::only_others_wrote(&read, &current, &ours, ByType, &sending).expect("comparable")
        };
        assert!(contested(
            |o| o["status"]["conditions"][0]["status"] = json!("False")
        ));
        assert!(!contested(|o| {
            o["status"]["conditions"][0]["observedGeneration"] = json!(1);
        }));
        assert!(!contested(|o| {
            o["status"]["conditions"]
                .as_array_mut()
                .expect("a list")
                .remove(0);
        }));
        // Another manager took a field of ours (our entry lost it).
        assert!(!after(|o| {
            o["metadata"]["managedFields"][0]["fieldsV1"] = json!({"f:status": {
                "f:observedGeneration": {}}});
        }));
        // An apply that takes BackedUp over (it changes it) is not sent again over the
        // agent's newer BackedUp; another manager's new condition is no obstacle.
        let taking = json!({"conditions": [{"type": "BackedUp", "status": "True"}]});
        let current = widget(|o| o["status"]["conditions"][1]["reason"] = json!("Later"));
        assert!(
            !super::only_others_wrote(&read, &current, &ours, ByType, &taking).expect("comparable")
        );
        let current = widget(|o| {
            o["status"]["conditions"]
                .as_array_mut()
                .expect("a list")
                .push(json!({"type": "Healthy", "status": "True"}));
        });
        assert!(
            super::only_others_wrote(&read, &current, &ours, ByType, &taking).expect("comparable")
        );
        // An atomic list is one field: ours changed as a whole; one we do not own yet, sent
        // whole, is not sent again over another manager's newer list.
        let not_ours = widget(|_| {});
        let theirs_moved = widget(|o| o["status"]["conditions"][1]["status"] = json!("True"));
        let whole = json!({"conditions": [{"type": "Ready", "status": "True"},
            {"type": "BackedUp", "status": "False"}]});
        assert!(
            !super::only_others_wrote(&not_ours, &theirs_moved, &ours, Atomic, &whole)
                .expect("comparable")
        );
        let atomic = |edit: fn(&mut serde_json::Value)| {
            let owner = |o: &mut serde_json::Value| {
                o["metadata"]["managedFields"][0]["fieldsV1"] =
                    json!({"f:status": {"f:observedGeneration": {}, "f:conditions": {}}});
            };
            let read = widget(owner);
            let current = widget(|o| {
                owner(o);
                edit(o);
            });
            super::only_others_wrote(&read, &current, &ours, Atomic, &sending).expect("comparable")
        };
        assert!(atomic(|o| o["status"]["lastBackup"] = json!("monday")));
        assert!(!atomic(
            |o| o["status"]["conditions"][1]["status"] = json!("True")
        ));
    }
}
