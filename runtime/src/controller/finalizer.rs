//! Finalizers with the status chokepoint: `kube::runtime::finalizer` run from inside a
//! reconcile body, so that status changes made while applying or cleaning up reach the one
//! status write, and the summary condition says `Deleting` while the cleanup runs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::{self, Debug};
use std::sync::Arc;

use kube::runtime::controller::Action;
use kube::runtime::finalizer::{self, Event};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::apply::{send, split};
use crate::condition::Severity;
use crate::error::ReconcileError;

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
///
/// The finalizer is added here rather than by kube's helper, which drops the patch's answer
/// and leaves the body to the watch event of its own patch: the answer is the object as the
/// patch left it, and `apply` runs in the same reconcile on the copy read, at the version the
/// patch left when the patch was the only change since the read (so that the status write
/// carries it), with no request to read it again.
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
    let meta = object.meta();
    let missing = !meta.finalizers.iter().flatten().any(|f| f == name);
    if missing && meta.deletion_timestamp.is_none() {
        let added = add_finalizer(api, object, name).await;
        follow_finalizer_patch(object, &added.map_err(FinalizerError)?, name);
        return apply(object)
            .await
            .map_err(|error| FinalizerError(finalizer::Error::ApplyFailed(error)));
    }
    let mut worked: Option<K> = None;
    let slot = &mut worked;
    let snapshot = Arc::new(object.clone());
    // The requeue kube's finalizer returns is the chokepoint's to decide.
    let _requeue = finalizer::finalizer(api, name, snapshot, |event| async move {
        let outcome = match event {
            Event::Apply(current) => {
                let mut copy = (*current).clone();
                let outcome = apply(&mut copy).await;
                *slot = Some(copy);
                outcome
            }
            Event::Cleanup(current) => {
                let mut copy = (*current).clone();
                let outcome = cleanup(&mut copy).await;
                // kube's finalizer removes it once this returns Ok (or the reconcile fails):
                // the copy says so, and the chokepoint writes no status after it.
                if outcome.is_ok()
                    && let Some(finalizers) = copy.meta_mut().finalizers.as_mut()
                {
                    finalizers.retain(|f| f != name);
                }
                *slot = Some(copy);
                outcome
            }
        };
        outcome.map(|()| Action::await_change())
    })
    .await
    .map_err(FinalizerError)?;
    if let Some(worked) = worked {
        *object = worked;
    }
    Ok(())
}

/// Adds the finalizer `name` to `object` with a JSON patch that applies only to the
/// finalizers read (a `test` of the list, then the `add`): a finalizer added or removed by
/// another writer since makes it fail (422), and the next reconcile starts from the newer
/// object. Returns the object as the patch left it.
async fn add_finalizer<K, E>(api: &Api<K>, object: &K, name: &str) -> Result<K, finalizer::Error<E>>
where
    K: Resource + Clone + DeserializeOwned,
    E: std::error::Error + 'static,
{
    let meta = object.meta();
    let Some(object_name) = meta.name.as_deref() else {
        return Err(finalizer::Error::UnnamedObject);
    };
    let read = meta.finalizers.clone().filter(|f| !f.is_empty());
    let patch = match &read {
        None => serde_json::json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": [name]},
        ]),
        Some(finalizers) => serde_json::json!([
            {"op": "test", "path": "/metadata/finalizers", "value": finalizers},
            {"op": "add", "path": "/metadata/finalizers/-", "value": name},
        ]),
    };
    let request = http::Request::patch(format!("{}/{object_name}", api.resource_url()))
        .header(http::header::CONTENT_TYPE, "application/json-patch+json")
        .body(patch.to_string().into_bytes())
        .map_err(|error| finalizer::Error::AddFinalizer(kube::Error::HttpError(error)))?;
    let client = api.clone().into_client();
    send(&client, request)
        .await
        .map_err(|failed| finalizer::Error::AddFinalizer(failed.error))
}

/// Takes the `resourceVersion` and finalizers that the finalizer patch gave the object (its
/// answer, `current`) into `object`, so that the status written after it is conditional on
/// that version: the patch was this reconcile's own write, and the status apply would
/// otherwise get 409 Conflict on every new object. Only when that patch is the one change
/// since the copy was read ([`only_finalizer_added`]): any other (a spec, a label, another
/// writer's status) leaves the old version, and the 409 that a status computed from a stale
/// copy deserves.
fn follow_finalizer_patch<K>(object: &mut K, current: &K, finalizer: &str)
where
    K: Resource + Serialize,
{
    let (Ok(read), Ok(now)) = (
        serde_json::to_value(&*object),
        serde_json::to_value(current),
    ) else {
        return;
    };
    if only_finalizer_added(&read, &now, finalizer) {
        let meta = object.meta_mut();
        meta.resource_version = current.meta().resource_version.clone();
        meta.finalizers = current.meta().finalizers.clone();
        meta.managed_fields = current.meta().managed_fields.clone();
    } else {
        tracing::debug!("the object changed beyond its finalizer since it was read");
    }
}

/// Whether `current` is `read` with the finalizer `name` added and nothing else changed: the
/// same metadata but for `resourceVersion`, `managedFields` and the finalizer; the same
/// content outside `status`; and each field manager's entry the same but for finalizers (its
/// time aside): a status or anything else written in between changes some manager's fields.
fn only_finalizer_added(read: &Value, current: &Value, name: &str) -> bool {
    // What any write changes (the version, the managers' entries) and the status apart,
    // and the finalizers, compared below.
    let without = |object: &Value| {
        let (mut rest, _status) = split(object.clone());
        if let Some(meta) = rest.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("finalizers");
        }
        rest
    };
    let finalizers = |object: &Value| -> Vec<Value> {
        object["metadata"]["finalizers"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let mut expected = finalizers(read);
    if !expected.iter().any(|f| f == name) {
        expected.push(Value::from(name));
    }
    let before = managers(read);
    without(read) == without(current)
        && finalizers(current) == expected
        && managers(current)
            .iter()
            .all(|(manager, fields)| before.get(manager).unwrap_or(&Value::Null) == fields)
}

/// Each field manager's entry of `object`'s `managedFields`, keyed by manager, operation,
/// subresource and API version: the fields it owns, its finalizers left out (none: null).
fn managers(object: &Value) -> BTreeMap<String, Value> {
    let entries = object["metadata"]["managedFields"].as_array();
    entries
        .into_iter()
        .flatten()
        .map(|entry| {
            let key = ["manager", "operation", "subresource", "apiVersion"]
                .map(|k| entry[k].as_str().unwrap_or_default())
                .join("/");
            let mut fields = entry["fieldsV1"].clone();
            if let Some(meta) = fields.get_mut("f:metadata").and_then(Value::as_object_mut) {
                meta.remove("f:finalizers");
                if meta.is_empty()
                    && let Some(owned) = fields.as_object_mut()
                {
                    owned.remove("f:metadata");
                }
            }
            if fields.as_object().is_some_and(serde_json::Map::is_empty) {
                fields = Value::Null;
            }
            (key, fields)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::only_finalizer_added;

    const NAME: &str = "w.example.com/cleanup";

    fn object(finalizers: Value, entries: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "resourceVersion": "1", "generation": 1,
                            "labels": {"a": "1"}, "finalizers": finalizers,
                            "managedFields": entries},
               "spec": {"size": 1}, "status": {}})
    }

    fn entry(manager: &str, time: &str, fields: Value) -> Value {
        json!({"manager": manager, "operation": "Update", "apiVersion": "example.com/v1",
               "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn finalizers_owned() -> Value {
        json!({"f:metadata": {"f:finalizers": {".": {}, "v:\"w.example.com/cleanup\"": {}}}})
    }

    #[test]
    fn the_finalizer_patch_alone_is_followed() {
        let creator = entry("kubectl", "t0", json!({"f:spec": {"f:size": {}}}));
        let read = object(json!([]), json!([creator.clone()]));
        let patched = entry("operator", "t1", finalizers_owned());
        let mut current = object(json!([NAME]), json!([creator.clone(), patched]));
        current["metadata"]["resourceVersion"] = json!("2");
        current["status"] = json!({"conditions": [{"type": "Ready"}]});
        assert!(only_finalizer_added(&read, &current, NAME));

        // The patch made by the manager that created the object: its entry gains the
        // finalizers and a new time.
        let mut by_creator = current.clone();
        by_creator["metadata"]["managedFields"] = json!([entry(
            "kubectl",
            "t1",
            json!({"f:spec": {"f:size": {}}, "f:metadata": {"f:finalizers": {".": {}}}})
        )]);
        assert!(only_finalizer_added(&read, &by_creator, NAME));

        // A label changed in between: not followed.
        let mut labelled = current.clone();
        labelled["metadata"]["labels"]["a"] = json!("2");
        assert!(!only_finalizer_added(&read, &labelled, NAME));
        // A spec changed in between.
        let mut resized = current.clone();
        resized["spec"]["size"] = json!(2);
        assert!(!only_finalizer_added(&read, &resized, NAME));
        // Another writer's status in between: its manager's entry is new.
        let mut written = current.clone();
        if let Some(entries) = written["metadata"]["managedFields"].as_array_mut() {
            entries.push(entry("agent", "t1", json!({"f:status": {"f:backup": {}}})));
        }
        assert!(!only_finalizer_added(&read, &written, NAME));
        // Another finalizer added by someone else.
        let mut other = current.clone();
        other["metadata"]["finalizers"] = json!([NAME, "other/keep"]);
        assert!(!only_finalizer_added(&read, &other, NAME));
    }
}
