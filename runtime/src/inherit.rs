//! Not-Ready inherited from child objects (gitops-promoter's
//! `InheritNotReadyConditionFromObjects`): a parent is not Ready while one of the objects it
//! created is not, whatever its own reconcile did.
//!
//! Children are either objects that report a summary condition of their own
//! ([`inherit_not_ready`]) or any Kubernetes objects read through their kstatus result
//! ([`inherit_not_ready_from_objects`]): a Deployment, a Service, a Job need no condition.

use std::borrow::Borrow;

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::conditions::Conditions;
use crate::kstatus::{KStatus, ObjectResult};

/// The reason of a summary condition inherited from a child.
pub const REASON_CHILD_NOT_READY: &str = "ChildNotReady";

/// Sets `conditions`' `summary` condition to False with [`REASON_CHILD_NOT_READY`] when a
/// child's summary condition is not True (a child that has not reported one counts as not
/// ready). `children` are `(label, summary condition)` pairs, the label naming the child for
/// users ("ChangeTransferPolicy/env-prod"). The first child not ready is named in the message
/// with its own reason and message, and its severity (Info if it has none) is kept. Returns
/// whether the summary was set; when every child is ready nothing changes.
///
/// Called from a reconcile body, this is the "Ready set on purpose" that the status
/// chokepoint leaves as it is.
pub fn inherit_not_ready<'a>(
    conditions: &mut Conditions,
    summary: &str,
    children: impl IntoIterator<Item = (&'a str, Option<&'a Condition>)>,
    observed_generation: Option<i64>,
) -> bool {
    let not_ready = children
        .into_iter()
        .find(|(_, condition)| !condition.is_some_and(Condition::is_true));
    let Some((label, child)) = not_ready else {
        return false;
    };
    let (message, severity) = match child {
        Some(child) if child.message.is_empty() => (
            format!("{label} is not {summary}: {}", child.reason),
            child.severity,
        ),
        Some(child) => (
            format!(
                "{label} is not {summary}: {}: {}",
                child.reason, child.message
            ),
            child.severity,
        ),
        None => (
            format!("{label} has not reported {summary} yet"),
            Severity::Info,
        ),
    };
    let severity = if severity == Severity::None {
        Severity::Info
    } else {
        severity
    };
    let mut condition = Condition::new(summary, ConditionStatus::False, REASON_CHILD_NOT_READY)
        .with_severity(severity)
        .with_message(message);
    condition.observed_generation = observed_generation;
    conditions.set(condition);
    true
}

/// [`inherit_not_ready`] for children read through kstatus: the first child that is not
/// Current sets `conditions`' `summary` condition to False with [`REASON_CHILD_NOT_READY`],
/// its message naming the child, its kstatus result and kstatus's message
/// ("Deployment/web is not Ready: InProgress: Ready: 2/4").
/// Severity Info while the child is InProgress or Terminating, Error when it Failed (kstatus's
/// Stalled: it will not get better by itself). Returns whether the summary was set; when every
/// child is Current nothing changes.
///
/// ```
/// use k8s_openapi::api::apps::v1::Deployment;
/// use k8s_openapi::api::core::v1::Service;
/// use kondition::Conditions;
/// use kondition::inherit::inherit_not_ready_from_objects;
/// use kondition::kstatus::ObjectResult;
///
/// let mut web = Deployment::default();
/// web.metadata.name = Some("web".into());
/// let mut service = Service::default();
/// service.metadata.name = Some("web".into());
///
/// let mut conditions = Conditions::new();
/// let children = [ObjectResult::of(&service), ObjectResult::of(&web)];
/// assert!(inherit_not_ready_from_objects(&mut conditions, "Ready", &children, Some(1)));
/// assert_eq!(
///     conditions.get("Ready").expect("set").message,
///     "Deployment/web is not Ready: InProgress: Replicas: 0/1"
/// );
/// ```
pub fn inherit_not_ready_from_objects<B: Borrow<ObjectResult>>(
    conditions: &mut Conditions,
    summary: &str,
    children: impl IntoIterator<Item = B>,
    observed_generation: Option<i64>,
) -> bool {
    let not_current = children.into_iter().find(|c| !c.borrow().is_current());
    let Some(child) = not_current else {
        return false;
    };
    let child = child.borrow();
    let severity = match child.result.status {
        KStatus::Failed => Severity::Error,
        KStatus::InProgress | KStatus::Terminating | KStatus::Current => Severity::Info,
    };
    // The child's own summary as kstatus sees it: its result is the reason.
    let condition = Condition::new(
        summary,
        ConditionStatus::False,
        child.result.status.as_str(),
    )
    .with_severity(severity)
    .with_message(&child.result.message);
    inherit_not_ready(
        conditions,
        summary,
        [(child.label().as_str(), Some(&condition))],
        observed_generation,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_child_not_ready_is_inherited() {
        let ready = Condition::new("Ready", ConditionStatus::True, "Succeeded");
        let failing = Condition::new("Ready", ConditionStatus::False, "CommitStatusFailed")
            .with_severity(Severity::Warning)
            .with_message("argocd-health is Degraded");
        let mut conditions = Conditions::new();
        let set = inherit_not_ready(
            &mut conditions,
            "Ready",
            [
                ("ChangeTransferPolicy/env-dev", Some(&ready)),
                ("ChangeTransferPolicy/env-prod", Some(&failing)),
                ("ChangeTransferPolicy/env-qa", None),
            ],
            Some(3),
        );
        assert!(set);
        let inherited = conditions.get("Ready").expect("set");
        assert_eq!(inherited.status, ConditionStatus::False);
        assert_eq!(inherited.reason, REASON_CHILD_NOT_READY);
        assert_eq!(inherited.severity, Severity::Warning);
        assert_eq!(
            inherited.message,
            "ChangeTransferPolicy/env-prod is not Ready: CommitStatusFailed: argocd-health is Degraded"
        );
        assert_eq!(inherited.observed_generation, Some(3));
    }

    #[test]
    fn a_child_without_the_condition_is_not_ready() {
        let mut conditions = Conditions::new();
        assert!(inherit_not_ready(
            &mut conditions,
            "Ready",
            [("Deployment/web", None)],
            None
        ));
        let inherited = conditions.get("Ready").expect("set");
        assert_eq!(
            inherited.message,
            "Deployment/web has not reported Ready yet"
        );
        assert_eq!(inherited.severity, Severity::Info);
    }

    #[test]
    fn all_children_ready_changes_nothing() {
        let ready = Condition::new("Ready", ConditionStatus::True, "Succeeded");
        let mut conditions = Conditions::new();
        assert!(!inherit_not_ready(
            &mut conditions,
            "Ready",
            [("A/a", Some(&ready)), ("B/b", Some(&ready))],
            None
        ));
        assert!(conditions.is_empty());
    }

    fn child(kind: &str, status: KStatus, message: &str) -> ObjectResult {
        ObjectResult {
            kind: kind.into(),
            name: "web".into(),
            result: crate::kstatus::KStatusResult {
                status,
                message: message.into(),
            },
        }
    }

    #[test]
    fn the_first_object_not_current_is_inherited() {
        let children = [
            child("Service", KStatus::Current, "Service is ready"),
            child("Deployment", KStatus::InProgress, "Ready: 2/4"),
            child("Job", KStatus::Failed, "Job has failed"),
        ];
        let mut conditions = Conditions::new();
        assert!(inherit_not_ready_from_objects(
            &mut conditions,
            "Ready",
            &children,
            Some(7)
        ));
        let inherited = conditions.get("Ready").expect("set");
        assert_eq!(inherited.status, ConditionStatus::False);
        assert_eq!(inherited.reason, REASON_CHILD_NOT_READY);
        assert_eq!(inherited.severity, Severity::Info);
        assert_eq!(
            inherited.message,
            "Deployment/web is not Ready: InProgress: Ready: 2/4"
        );
        assert_eq!(inherited.observed_generation, Some(7));
    }

    #[test]
    fn a_failed_object_is_an_error_and_terminating_is_info() {
        let mut conditions = Conditions::new();
        assert!(inherit_not_ready_from_objects(
            &mut conditions,
            "Available",
            [child("Job", KStatus::Failed, "Job has failed")],
            None
        ));
        let inherited = conditions.get("Available").expect("set");
        assert_eq!(inherited.severity, Severity::Error);
        assert_eq!(
            inherited.message,
            "Job/web is not Available: Failed: Job has failed"
        );

        let mut conditions = Conditions::new();
        assert!(inherit_not_ready_from_objects(
            &mut conditions,
            "Ready",
            [child(
                "Service",
                KStatus::Terminating,
                "Resource scheduled for deletion"
            )],
            None
        ));
        let inherited = conditions.get("Ready").expect("set");
        assert_eq!(inherited.severity, Severity::Info);
        assert_eq!(
            inherited.message,
            "Service/web is not Ready: Terminating: Resource scheduled for deletion"
        );
    }

    #[test]
    fn all_objects_current_changes_nothing() {
        let mut conditions = Conditions::new();
        let children = vec![
            child("Service", KStatus::Current, "ready"),
            child("ConfigMap", KStatus::Current, "ready"),
        ];
        assert!(!inherit_not_ready_from_objects(
            &mut conditions,
            "Ready",
            children,
            None
        ));
        assert!(conditions.is_empty());
    }

    #[test]
    fn objects_are_read_through_kstatus() {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "worker"},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        let now = "2024-01-01T00:00:00Z".parse().expect("a time");
        let mut conditions = Conditions::new();
        assert!(inherit_not_ready_from_objects(
            &mut conditions,
            "Ready",
            [ObjectResult::of_at(&pod, now)],
            None
        ));
        let inherited = conditions.get("Ready").expect("set");
        assert_eq!(inherited.severity, Severity::Error);
        assert_eq!(
            inherited.message,
            "Pod/worker is not Ready: Failed: Containers in CrashLoop state: app"
        );
    }
}
