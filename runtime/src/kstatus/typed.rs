//! Typed objects: anything that serializes to an object's JSON, such as k8s-openapi's
//! `Deployment`, a custom resource, or kube's `DynamicObject`. The rules read JSON, so a
//! typed object is read through its serialization; k8s-openapi's types and kube's
//! `CustomResource` write `apiVersion` and `kind`, which choose the kind's rule. A
//! `DynamicObject` must carry its `types` for that (objects read from the API server do).

use k8s_openapi::jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::fields::Fields;
use super::{KStatus, KStatusResult, compute_at};

/// The kstatus result of a typed object, at the system clock's time.
///
/// ```
/// use k8s_openapi::api::core::v1::PersistentVolumeClaim;
/// use kondition::kstatus::{KStatus, compute_for};
///
/// let claim = PersistentVolumeClaim::default();
/// assert_eq!(compute_for(&claim).status, KStatus::InProgress);
/// ```
pub fn compute_for<K: Serialize + ?Sized>(object: &K) -> KStatusResult {
    compute_for_at(object, Timestamp::now())
}

/// The kstatus result of a typed object, with `now` as the time for the rules that depend
/// on it. An object that does not serialize (it cannot happen with k8s-openapi's types) is
/// InProgress, saying why: never Current unread.
pub fn compute_for_at<K: Serialize + ?Sized>(object: &K, now: Timestamp) -> KStatusResult {
    match serde_json::to_value(object) {
        Ok(value) => compute_at(&value, now),
        Err(error) => unreadable(&error),
    }
}

fn unreadable(error: &serde_json::Error) -> KStatusResult {
    KStatusResult::in_progress(format!("object could not be read as JSON: {error}"))
}

/// One object's kstatus result with its kind and name: what a parent reports about the
/// objects it owns, through [`SubResources`](crate::SubResources) or
/// [`inherit_not_ready_from_objects`](crate::inherit::inherit_not_ready_from_objects).
///
/// ```
/// use k8s_openapi::api::apps::v1::Deployment;
/// use kondition::kstatus::{KStatus, ObjectResult};
///
/// let mut web = Deployment::default();
/// web.metadata.name = Some("web".into());
/// // No status yet: the Deployment controller has not created the replica.
/// let result = ObjectResult::of(&web);
/// assert_eq!(result.label(), "Deployment/web");
/// assert_eq!(result.result.status, KStatus::InProgress);
/// assert_eq!(result.result.message, "Replicas: 0/1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectResult {
    /// The object's `kind` ("Object" when it has none).
    pub kind: String,
    /// Its `metadata.name` (empty when it has none).
    pub name: String,
    /// Its kstatus result.
    pub result: KStatusResult,
}

impl ObjectResult {
    /// The result of a typed or dynamic object, at the system clock's time.
    pub fn of<K: Serialize + ?Sized>(object: &K) -> Self {
        Self::of_at(object, Timestamp::now())
    }

    /// The result of a typed or dynamic object, with `now` as the time for the rules that
    /// depend on it.
    pub fn of_at<K: Serialize + ?Sized>(object: &K, now: Timestamp) -> Self {
        match serde_json::to_value(object) {
            Ok(value) => Self::of_value_at(&value, now),
            Err(error) => Self {
                kind: "Object".to_owned(),
                name: String::new(),
                result: unreadable(&error),
            },
        }
    }

    /// The result of an object given as JSON, with `now` as the time for the rules that
    /// depend on it.
    pub fn of_value_at(object: &Value, now: Timestamp) -> Self {
        let fields = Fields::new(object);
        let kind = match fields.string(&["kind"], "") {
            "" => "Object",
            kind => kind,
        };
        Self {
            kind: kind.to_owned(),
            name: fields.string(&["metadata", "name"], "").to_owned(),
            result: compute_at(object, now),
        }
    }

    /// "Kind/name", as messages name the object.
    pub fn label(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }

    /// Whether the object is in its desired state (Current).
    pub fn is_current(&self) -> bool {
        self.result.status == KStatus::Current
    }
}
