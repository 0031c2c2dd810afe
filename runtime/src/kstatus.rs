//! The kstatus result of any object, by the rules of `sigs.k8s.io/cli-utils/pkg/kstatus`:
//! what `kubectl wait`, Helm, Flux and Argo CD read.
//!
//! The rules, first match wins:
//! 1. `metadata.deletionTimestamp` set: Terminating.
//! 2. `status.observedGeneration` present and different from `metadata.generation`:
//!    InProgress (the controller has not seen the latest spec).
//! 3. The first condition that is `Reconciling=True` (InProgress) or `Stalled=True` (Failed).
//! 4. A `Ready` condition: True is Current, False or Unknown is InProgress.
//! 5. Otherwise Current.

use std::fmt;

use serde_json::Value;

use crate::Condition;

/// The reconcile state of an object as kstatus sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KStatus {
    /// The controller has not yet brought the object to its desired state.
    InProgress,
    /// The controller gave up or made no progress (`Stalled=True`).
    Failed,
    /// The object is in its desired state.
    Current,
    /// The object is being deleted.
    Terminating,
}

impl fmt::Display for KStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InProgress => "InProgress",
            Self::Failed => "Failed",
            Self::Current => "Current",
            Self::Terminating => "Terminating",
        })
    }
}

/// A kstatus result with kstatus's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KStatusResult {
    /// The state.
    pub status: KStatus,
    /// Why, in kstatus's words or the deciding condition's message.
    pub message: String,
}

/// The parts of an object kstatus reads.
#[derive(Clone, Copy, Debug)]
pub struct ObjectState<'a, C> {
    /// The object's kind, for messages.
    pub kind: &'a str,
    /// Whether `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `metadata.generation`.
    pub generation: Option<i64>,
    /// `status.observedGeneration`.
    pub observed_generation: Option<i64>,
    /// `status.conditions`.
    pub conditions: C,
}

/// A condition as kstatus reads it: only type, status and message, as plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConditionView<'a> {
    /// `type`
    pub type_: &'a str,
    /// `status`, not necessarily one of the three valid words.
    pub status: &'a str,
    /// `message`
    pub message: &'a str,
}

impl<'a> From<&'a Condition> for ConditionView<'a> {
    fn from(condition: &'a Condition) -> Self {
        Self {
            type_: &condition.type_,
            status: condition.status.as_str(),
            message: &condition.message,
        }
    }
}

/// The kstatus result of an object given as JSON (a `DynamicObject`, or any typed object
/// through `serde_json::to_value`). Fields of an unexpected shape count as absent.
pub fn compute(object: &Value) -> KStatusResult {
    let metadata = &object["metadata"];
    let status = &object["status"];
    let conditions = status["conditions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|c| ConditionView {
            type_: c["type"].as_str().unwrap_or_default(),
            status: c["status"].as_str().unwrap_or_default(),
            message: c["message"].as_str().unwrap_or_default(),
        });
    compute_state(ObjectState {
        kind: object["kind"].as_str().unwrap_or_default(),
        deleting: metadata["deletionTimestamp"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        generation: metadata["generation"].as_i64(),
        observed_generation: status["observedGeneration"].as_i64(),
        conditions,
    })
}

/// The kstatus result of an object given by its parts.
pub fn compute_state<'a, C>(object: ObjectState<'_, C>) -> KStatusResult
where
    C: IntoIterator,
    C::Item: Into<ConditionView<'a>>,
{
    let result = |status, message: &str| KStatusResult {
        status,
        message: message.to_owned(),
    };
    if object.deleting {
        return result(KStatus::Terminating, "Resource scheduled for deletion");
    }
    if let (Some(generation), Some(observed)) = (object.generation, object.observed_generation)
        && generation != observed
    {
        let message = format!(
            "{} generation is {generation}, but latest observed generation is {observed}",
            object.kind
        );
        return result(KStatus::InProgress, &message);
    }
    let mut ready = None;
    for condition in object.conditions.into_iter().map(Into::into) {
        match (condition.type_, condition.status) {
            ("Reconciling", "True") => return result(KStatus::InProgress, condition.message),
            ("Stalled", "True") => return result(KStatus::Failed, condition.message),
            ("Ready", _) if ready.is_none() => ready = Some(condition),
            _ => {}
        }
    }
    match ready.map(|c| (c.status, c.message)) {
        Some(("True", _)) => result(KStatus::Current, "Resource is Ready"),
        Some(("False" | "Unknown", message)) => result(KStatus::InProgress, message),
        _ => result(KStatus::Current, "Resource is current"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(metadata: Value, status: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata, "status": status})
    }

    fn condition(type_: &str, status: &str, message: &str) -> Value {
        json!({"type": type_, "status": status, "reason": "R", "message": message,
               "lastTransitionTime": "2024-01-01T00:00:00Z"})
    }

    fn check(object: Value, status: KStatus, message: &str) {
        let result = compute(&object);
        assert_eq!(
            result,
            KStatusResult {
                status,
                message: message.into()
            },
            "{object}"
        );
    }

    #[test]
    fn deletion_comes_first() {
        let stalled = condition("Stalled", "True", "stuck");
        check(
            object(
                json!({"generation": 2, "deletionTimestamp": "2024-01-01T00:00:00Z"}),
                json!({"observedGeneration": 1, "conditions": [stalled]}),
            ),
            KStatus::Terminating,
            "Resource scheduled for deletion",
        );
    }

    #[test]
    fn an_unobserved_generation_is_in_progress() {
        check(
            object(
                json!({"generation": 3}),
                json!({"observedGeneration": 2, "conditions": [condition("Ready", "True", "")]}),
            ),
            KStatus::InProgress,
            "Widget generation is 3, but latest observed generation is 2",
        );
    }

    #[test]
    fn reconciling_and_stalled_decide_in_list_order() {
        let both = json!({"observedGeneration": 1, "conditions": [
            condition("Ready", "False", "not ready"),
            condition("Stalled", "True", "quota exceeded"),
            condition("Reconciling", "True", "applying"),
        ]});
        check(
            object(json!({"generation": 1}), both),
            KStatus::Failed,
            "quota exceeded",
        );
        let reconciling = json!({"conditions": [
            condition("Stalled", "False", ""),
            condition("Reconciling", "True", "applying"),
        ]});
        check(
            object(json!({"generation": 1}), reconciling),
            KStatus::InProgress,
            "applying",
        );
    }

    #[test]
    fn ready_decides_when_nothing_else_does() {
        let with_ready = |status: &str| {
            object(
                json!({"generation": 4}),
                json!({"observedGeneration": 4, "conditions": [
                    condition("Reconciling", "False", ""),
                    condition("Ready", status, "waiting for owner"),
                ]}),
            )
        };
        check(with_ready("True"), KStatus::Current, "Resource is Ready");
        check(
            with_ready("False"),
            KStatus::InProgress,
            "waiting for owner",
        );
        check(
            with_ready("Unknown"),
            KStatus::InProgress,
            "waiting for owner",
        );
        check(with_ready("Maybe"), KStatus::Current, "Resource is current");
    }

    #[test]
    fn no_status_at_all_is_current() {
        check(
            json!({"kind": "ConfigMap", "metadata": {"name": "x"}}),
            KStatus::Current,
            "Resource is current",
        );
        // A missing observedGeneration skips the generation check.
        check(
            object(json!({"generation": 9}), json!({})),
            KStatus::Current,
            "Resource is current",
        );
    }

    #[test]
    fn typed_conditions_work_too() {
        let conditions = [
            Condition::new("Ready", crate::ConditionStatus::False, "Reconciling")
                .with_message("creating"),
        ];
        let result = compute_state(ObjectState {
            kind: "Widget",
            deleting: false,
            generation: Some(1),
            observed_generation: Some(1),
            conditions: &conditions,
        });
        assert_eq!(result.status, KStatus::InProgress);
        assert_eq!(result.message, "creating");
    }
}
