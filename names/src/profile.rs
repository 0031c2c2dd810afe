//! kondition's built-in status profiles (`templates/*.yaml`): the one list of them, and the
//! facts of each that code needs without reading YAML.
//!
//! The generator reads each profile whole from its template ([`BuiltinProfile::template`],
//! compiled in here); the derive needs a profile's condition types and summary while it
//! expands, before the runtime is compiled; the runtime builds its `kondition::profile`
//! constants from the same entries and re-exports each profile's module of names. A test
//! of the generator (`generator/tests/profiles.rs`) reads every template and holds it to its
//! entry here, and every file of `templates/` to an entry.
//!
//! Adding a profile: its template in `templates/`, and here a module of its names and an
//! entry in [`BUILTIN`]. What it does beyond names (the conditions the status chokepoint
//! keeps beside the summary) is the runtime's code (`runtime/src/profile/`).

/// When a condition's `lastTransitionTime` moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TransitionRule {
    /// On any change of status, severity, reason or message (the conditions KEP, Cluster
    /// API's implementation and ASO's decision). The default.
    #[default]
    AnyChange,
    /// Only when the status changes (apimachinery's `meta.SetStatusCondition`).
    StatusOnly,
}

impl TransitionRule {
    /// Every rule, in the order messages list them.
    pub const ALL: [Self; 2] = [Self::AnyChange, Self::StatusOnly];

    /// The rule's name, as a template's `transitionRule` and the derive's `transition_rule`
    /// write it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::AnyChange => "AnyChange",
            Self::StatusOnly => "StatusOnly",
        }
    }

    /// The rule of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|rule| rule.name() == name)
    }
}

/// What code knows of one built-in profile; its template says the rest (docs, polarities,
/// the severity of each reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinProfile {
    /// The name schemas and `#[kondition(profile = "...")]` give.
    pub name: &'static str,
    /// The condition types a status of this profile starts with, in the template's order.
    pub condition_types: &'static [&'static str],
    /// Every reason the template declares, once each, in the order it first declares them.
    pub reasons: &'static [&'static str],
    /// The condition that summarises the others.
    pub summary: &'static str,
    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub success_reason: &'static str,
    /// When a condition's `lastTransitionTime` moves.
    pub transition_rule: TransitionRule,
    /// The template's path in the repository, for messages about it.
    pub path: &'static str,
    /// The template's text (YAML).
    pub template: &'static str,
}

/// `standard`: one Ready condition that follows the result of the last reconcile
/// (`templates/standard.yaml`).
pub mod standard {
    /// Condition type `Ready` (True is healthy): whether the last reconcile of the current
    /// spec succeeded.
    pub const READY: &str = "Ready";

    /// Reason `ReconciliationSuccess` of Ready: the last reconcile succeeded.
    pub const REASON_RECONCILIATION_SUCCESS: &str = "ReconciliationSuccess";

    /// Reason `ReconciliationError` of Ready: the last reconcile failed, with the error's
    /// message and severity.
    pub const REASON_RECONCILIATION_ERROR: &str = "ReconciliationError";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[REASON_RECONCILIATION_SUCCESS, REASON_RECONCILIATION_ERROR];
}

/// `aso`: Azure Service Operator's Ready condition with severity (`templates/aso.yaml`).
pub mod aso {
    /// Condition type `Ready` (True is healthy): whether the resource has been driven to
    /// the state its spec describes.
    pub const READY: &str = "Ready";

    /// Reason `Reconciling` of Ready (Info): a request was sent to the outside system.
    pub const REASON_RECONCILING: &str = "Reconciling";

    /// Reason `WaitingForOwner` of Ready (Warning): the resource's owner does not exist.
    pub const REASON_WAITING_FOR_OWNER: &str = "WaitingForOwner";

    /// Reason `Deleting` of Ready (Info): the resource is being deleted.
    pub const REASON_DELETING: &str = "Deleting";

    /// Reason `Succeeded` of Ready (None): the spec has been applied.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[
        REASON_RECONCILING,
        REASON_WAITING_FOR_OWNER,
        REASON_DELETING,
        REASON_SUCCEEDED,
    ];
}

/// `orc`: OpenStack Resource Controller's Available and Progressing; Available summarises
/// (`templates/orc.yaml`).
pub mod orc {
    /// Condition type `Available` (True is healthy): the main resource exists and can be
    /// operated on.
    pub const AVAILABLE: &str = "Available";

    /// Condition type `Progressing` (False is healthy): True while the controller is
    /// working on something.
    pub const PROGRESSING: &str = "Progressing";

    /// Reason `Success`: Available, and Progressing no longer.
    pub const REASON_SUCCESS: &str = "Success";

    /// Reason `Progressing`: the resource or its sub-resources are being created or
    /// updated.
    pub const REASON_PROGRESSING: &str = "Progressing";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[AVAILABLE, PROGRESSING];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[REASON_SUCCESS, REASON_PROGRESSING];
}

/// `kstatus`: Ready plus kstatus's abnormal-true Reconciling and Stalled, so that `kubectl
/// wait`, Helm, Flux and kstatus read the object right (`templates/kstatus.yaml`).
pub mod kstatus {
    /// Condition type `Ready` (True is healthy): whether the object has reached the state
    /// its spec describes.
    pub const READY: &str = "Ready";

    /// Condition type `Reconciling` (False is healthy): True while the controller works on
    /// the latest spec.
    pub const RECONCILING: &str = "Reconciling";

    /// Condition type `Stalled` (False is healthy): True when the controller has given up
    /// until the spec changes.
    pub const STALLED: &str = "Stalled";

    /// Reason `Succeeded`: the last reconcile succeeded.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// Reason `Progressing`: work on the latest spec is under way.
    pub const REASON_PROGRESSING: &str = "Progressing";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY, RECONCILING, STALLED];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[REASON_SUCCEEDED, REASON_PROGRESSING];
}

/// `knative`: knative.dev/pkg's living condition set, Ready the happy condition
/// (`templates/knative.yaml`).
pub mod knative {
    /// Condition type `Ready` (True is healthy): the happy condition of a living resource
    /// (Knative Serving's kinds).
    pub const READY: &str = "Ready";

    /// Reason `Succeeded` of Ready: the last reconcile succeeded.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// Reason `ReconciliationError` of Ready: the last reconcile failed with an error that
    /// names no reason.
    pub const REASON_RECONCILIATION_ERROR: &str = "ReconciliationError";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[READY];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[REASON_SUCCEEDED, REASON_RECONCILIATION_ERROR];
}

/// `knative_batch`: knative.dev/pkg's batch condition set, Succeeded the happy condition
/// (`templates/knative_batch.yaml`).
pub mod knative_batch {
    /// Condition type `Succeeded` (True is healthy): the happy condition of a batch resource
    /// (Tekton's runs).
    pub const SUCCEEDED: &str = "Succeeded";

    /// Reason `Succeeded` of Succeeded: the run succeeded.
    pub const REASON_SUCCEEDED: &str = "Succeeded";

    /// Reason `ReconciliationError` of Succeeded: the last reconcile failed with an error
    /// that names no reason.
    pub const REASON_RECONCILIATION_ERROR: &str = "ReconciliationError";

    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[SUCCEEDED];

    /// The reasons of this profile.
    pub const REASONS: &[&str] = &[REASON_SUCCEEDED, REASON_RECONCILIATION_ERROR];
}

/// The `standard` profile, the generator's default.
pub const STANDARD: BuiltinProfile = BuiltinProfile {
    name: "standard",
    condition_types: standard::CONDITION_TYPES,
    reasons: standard::REASONS,
    summary: standard::READY,
    success_reason: standard::REASON_RECONCILIATION_SUCCESS,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/standard.yaml",
    template: include_str!("../templates/standard.yaml"),
};

/// The `aso` profile.
pub const ASO: BuiltinProfile = BuiltinProfile {
    name: "aso",
    condition_types: aso::CONDITION_TYPES,
    reasons: aso::REASONS,
    summary: aso::READY,
    success_reason: aso::REASON_SUCCEEDED,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/aso.yaml",
    template: include_str!("../templates/aso.yaml"),
};

/// The `orc` profile.
pub const ORC: BuiltinProfile = BuiltinProfile {
    name: "orc",
    condition_types: orc::CONDITION_TYPES,
    reasons: orc::REASONS,
    summary: orc::AVAILABLE,
    success_reason: orc::REASON_SUCCESS,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/orc.yaml",
    template: include_str!("../templates/orc.yaml"),
};

/// The `kstatus` profile.
pub const KSTATUS: BuiltinProfile = BuiltinProfile {
    name: "kstatus",
    condition_types: kstatus::CONDITION_TYPES,
    reasons: kstatus::REASONS,
    summary: kstatus::READY,
    success_reason: kstatus::REASON_SUCCEEDED,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/kstatus.yaml",
    template: include_str!("../templates/kstatus.yaml"),
};

/// The `knative` profile.
pub const KNATIVE: BuiltinProfile = BuiltinProfile {
    name: "knative",
    condition_types: knative::CONDITION_TYPES,
    reasons: knative::REASONS,
    summary: knative::READY,
    success_reason: knative::REASON_SUCCEEDED,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/knative.yaml",
    template: include_str!("../templates/knative.yaml"),
};

/// The `knative_batch` profile.
pub const KNATIVE_BATCH: BuiltinProfile = BuiltinProfile {
    name: "knative_batch",
    condition_types: knative_batch::CONDITION_TYPES,
    reasons: knative_batch::REASONS,
    summary: knative_batch::SUCCEEDED,
    success_reason: knative_batch::REASON_SUCCEEDED,
    transition_rule: TransitionRule::AnyChange,
    path: "templates/knative_batch.yaml",
    template: include_str!("../templates/knative_batch.yaml"),
};

/// Every built-in profile, by name.
pub const BUILTIN: [BuiltinProfile; 6] = [ASO, KNATIVE, KNATIVE_BATCH, KSTATUS, ORC, STANDARD];

/// The summary condition of a status that names no profile (the runtime's
/// `kondition::profile::CUSTOM`).
pub const CUSTOM_SUMMARY: &str = standard::READY;

/// The built-in profile of that name.
pub fn builtin(name: &str) -> Option<&'static BuiltinProfile> {
    BUILTIN.iter().find(|profile| profile.name == name)
}

/// The names of the built-in profiles, in [`BUILTIN`]'s order.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|profile| profile.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_rules::{is_valid_reason, is_valid_type};

    #[test]
    fn the_list_is_in_name_order_and_each_entry_is_whole() {
        let names = builtin_names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted, "in name order, each once");
        for profile in BUILTIN {
            assert_eq!(builtin(profile.name), Some(&profile));
            assert_eq!(profile.path, format!("templates/{}.yaml", profile.name));
            assert!(profile.condition_types.contains(&profile.summary));
            assert!(profile.reasons.contains(&profile.success_reason));
            assert!(profile.condition_types.iter().all(|t| is_valid_type(t)));
            assert!(profile.reasons.iter().all(|r| is_valid_reason(r)));
        }
        assert_eq!(builtin("Standard"), None);
    }

    #[test]
    fn transition_rules_are_read_by_name() {
        for rule in TransitionRule::ALL {
            assert_eq!(TransitionRule::from_name(rule.name()), Some(rule));
        }
        assert_eq!(TransitionRule::from_name("anychange"), None);
    }
}
