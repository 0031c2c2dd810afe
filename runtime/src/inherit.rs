//! Not-Ready inherited from child objects (gitops-promoter's
//! `InheritNotReadyConditionFromObjects`): a parent is not Ready while one of the objects it
//! created is not, whatever its own reconcile did.

use crate::{Condition, ConditionStatus, Conditions, Severity};

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
}
