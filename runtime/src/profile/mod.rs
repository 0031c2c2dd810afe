//! The standard condition sets ("status profiles") a schema can name, with their condition
//! types, reasons and the conditions each reconcile outcome becomes.
//!
//! | profile | conditions | for |
//! | --- | --- | --- |
//! | [`standard`] | Ready (ReconciliationSuccess, ReconciliationError) | gitops-promoter's shape |
//! | [`aso`] | Ready with severity and ASO's reasons | cloud resources |
//! | [`orc`] | Available, Progressing, and SubResourcesReady | resources with sub-resources |
//! | [`kstatus`] | Ready, Reconciling, Stalled | `kubectl wait`, Helm, Flux, kstatus |
//! | [`knative`] | Ready, with knative.dev/pkg's `ConditionSet` semantics | Knative Serving, KServe |
//! | [`knative_batch`] | Succeeded, with the same semantics | Tekton's runs |
//!
//! [`Profile`] says how the status chokepoint reports a reconcile's outcome for each: the
//! summary condition, its success reason, and the conditions it keeps beside the summary.
//! Each profile's names (its condition types and reasons, re-exported by its module here),
//! its summary, success reason and transition rule are `kondition_names::profile`'s, the
//! list the generator and the derive read too; what this module adds is the chokepoint's
//! behaviour (the companions).
//! `#[derive(KubeStatus)]` puts the named profile into the status's
//! [`KubeStatus::PROFILE`](crate::KubeStatus::PROFILE).

pub mod aso;
pub mod knative;
pub mod knative_batch;
pub mod kstatus;
pub mod orc;
pub mod standard;

use kondition_names::profile::{self as builtin, BuiltinProfile};

use crate::condition::{Condition, ConditionStatus, Severity};

use crate::conditions::TransitionRule;

use crate::error::ReconcileError;

/// The Ready condition type every profile but `orc` summarises into.
pub const READY: &str = standard::READY;

/// Reason of a summary after an error that names no reason of its own, in every profile.
pub const REASON_RECONCILIATION_ERROR: &str = standard::REASON_RECONCILIATION_ERROR;

/// How a status reports the outcome of a reconcile: which condition summarises it, with
/// which reasons, and which conditions the status chokepoint keeps beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name (`standard`, `aso`, `orc`, `kstatus`, `knative`, `knative_batch`),
    /// or `custom` for a status that lists its condition types without naming a profile.
    pub name: &'static str,
    /// The condition types the profile gives a status.
    pub condition_types: &'static [&'static str],
    /// The condition that summarises the reconcile: `Ready`, or `Available` for `orc`.
    pub summary: &'static str,
    /// The summary's reason after a successful reconcile.
    pub success_reason: &'static str,
    /// The summary's reason after an error whose own reason is empty.
    pub error_reason: &'static str,
    /// The conditions kept beside the summary.
    pub companions: Companions,
    /// When the chokepoint moves a condition's `lastTransitionTime`.
    pub transition_rule: TransitionRule,
    /// Whose reading of severities the summary follows.
    pub semantics: Semantics,
}

/// Whose reading of a condition's severity a profile's summary follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// kondition's: the summary carries the outcome's severity (no severity on success),
    /// and follows the reconcile's outcome.
    #[default]
    Kondition,
    /// knative.dev/pkg's `ConditionSet` ([`knative`]): a condition without a severity is of
    /// severity Error; the summary (the happy condition) never carries a severity, and after
    /// a successful reconcile it is what the set computes from the status' other condition
    /// types, its dependents (an Info or Warning dependent decides nothing).
    Knative,
}

/// The conditions a profile keeps beside its summary, derived from the reconcile's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Companions {
    /// None: the summary says it all (`standard`, `aso`).
    None,
    /// ORC's Progressing: True while the controller works or retries, False when it is done
    /// or stuck.
    Progressing,
    /// kstatus's abnormal-true pair: Reconciling True while the controller works or retries,
    /// Stalled True when it has given up until the spec changes; both False otherwise.
    ReconcilingStalled,
}

/// Where the controller stands after a reconcile, as the companion conditions report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Nothing left to do until the next resync or change (success, or postponed).
    Done,
    /// Still working on it, or retrying by itself (an Info or Warning outcome, deletion).
    Working,
    /// Given up until the spec changes (an Error outcome).
    Stuck,
}

impl Activity {
    /// The activity a summary condition implies: True is done; False or Unknown with Error
    /// severity is stuck; any other False or Unknown is still working.
    pub fn of_summary(summary: &Condition) -> Self {
        match (summary.status, summary.severity) {
            (ConditionStatus::True, _) => Self::Done,
            (_, Severity::Error) => Self::Stuck,
            _ => Self::Working,
        }
    }
}

/// `standard`: Ready; ReconciliationSuccess, ReconciliationError.
pub const STANDARD: Profile = Profile::builtin(
    &builtin::STANDARD,
    standard::REASON_RECONCILIATION_ERROR,
    Companions::None,
);

/// `aso`: Ready with severity; Succeeded.
pub const ASO: Profile =
    Profile::builtin(&builtin::ASO, REASON_RECONCILIATION_ERROR, Companions::None);

/// `orc`: Available (Success) and Progressing.
pub const ORC: Profile = Profile::builtin(
    &builtin::ORC,
    REASON_RECONCILIATION_ERROR,
    Companions::Progressing,
);

/// `kstatus`: Ready (Succeeded), Reconciling and Stalled.
pub const KSTATUS: Profile = Profile::builtin(
    &builtin::KSTATUS,
    REASON_RECONCILIATION_ERROR,
    Companions::ReconcilingStalled,
);

/// `knative`: Ready with Knative's semantics; Succeeded.
pub const KNATIVE: Profile = Profile::builtin(
    &builtin::KNATIVE,
    knative::REASON_RECONCILIATION_ERROR,
    Companions::None,
)
.with_semantics(Semantics::Knative);

/// `knative_batch`: Succeeded with Knative's semantics; Succeeded.
pub const KNATIVE_BATCH: Profile = Profile::builtin(
    &builtin::KNATIVE_BATCH,
    knative_batch::REASON_RECONCILIATION_ERROR,
    Companions::None,
)
.with_semantics(Semantics::Knative);

/// A status that names no profile: Ready, Succeeded, nothing beside it.
pub const CUSTOM: Profile = Profile {
    name: "custom",
    condition_types: &[builtin::CUSTOM_SUMMARY],
    // The derive declares it for a status that names no profile, by the same constant.
    summary: builtin::CUSTOM_SUMMARY,
    success_reason: aso::REASON_SUCCEEDED,
    error_reason: REASON_RECONCILIATION_ERROR,
    companions: Companions::None,
    transition_rule: TransitionRule::AnyChange,
    semantics: Semantics::Kondition,
};

/// The named profiles.
pub const PROFILES: [Profile; 6] = [STANDARD, ASO, ORC, KSTATUS, KNATIVE, KNATIVE_BATCH];

impl Profile {
    /// A built-in profile as the chokepoint runs it: the names the shared list gives it,
    /// with the reason of an error that names none and the companions.
    const fn builtin(
        profile: &BuiltinProfile,
        error_reason: &'static str,
        companions: Companions,
    ) -> Self {
        Self {
            name: profile.name,
            condition_types: profile.condition_types,
            summary: profile.summary,
            success_reason: profile.success_reason,
            error_reason,
            companions,
            transition_rule: profile.transition_rule,
            semantics: Semantics::Kondition,
        }
    }

    /// The profile with `semantics`.
    const fn with_semantics(mut self, semantics: Semantics) -> Self {
        self.semantics = semantics;
        self
    }

    /// The summary as this profile writes it: with Knative's semantics, without a severity
    /// (Knative writes none on its happy condition, and reads none as Error).
    pub fn written_summary(&self, mut summary: Condition) -> Condition {
        if self.semantics == Semantics::Knative {
            summary.severity = Severity::None;
        }
        summary
    }

    /// The named profile (`standard`, `aso`, `orc`, `kstatus`, `knative` or `knative_batch`).
    pub fn by_name(name: &str) -> Option<Self> {
        PROFILES.into_iter().find(|profile| profile.name == name)
    }

    /// The summary after a successful reconcile: True with the success reason.
    pub fn success(&self) -> Condition {
        Condition::new(self.summary, ConditionStatus::True, self.success_reason)
    }

    /// The summary after `error`: False with the error's reason (the profile's error reason
    /// when the error names none), severity and message.
    pub fn failure<E: ReconcileError + ?Sized>(&self, error: &E) -> Condition {
        let mut condition = error.to_condition(self.summary, None);
        if error.reason().trim().is_empty() {
            condition.reason = self.error_reason.to_owned();
        }
        condition
    }

    /// The condition types the profile derives beside its summary.
    pub fn companion_types(&self) -> &'static [&'static str] {
        match self.companions {
            Companions::None => &[],
            Companions::Progressing => &[orc::PROGRESSING],
            Companions::ReconcilingStalled => &[kstatus::RECONCILING, kstatus::STALLED],
        }
    }

    /// The companion conditions for a reconcile that ended with `summary`, the controller
    /// being `activity`. A companion that reports trouble carries the summary's reason and
    /// message; a healthy one carries the success reason, or the summary's reason when the
    /// summary is not True (a postponed reconcile, say).
    pub fn companions(&self, summary: &Condition, activity: Activity) -> Vec<Condition> {
        match self.companions {
            Companions::None => Vec::new(),
            Companions::Progressing => {
                let progressing = match activity {
                    Activity::Working => reported(orc::PROGRESSING, ConditionStatus::True, summary),
                    Activity::Done | Activity::Stuck => {
                        healthy(orc::PROGRESSING, summary, self.success_reason)
                    }
                };
                vec![progressing]
            }
            Companions::ReconcilingStalled => {
                reconciling_stalled(summary, activity, self.success_reason).to_vec()
            }
        }
    }
}

/// kstatus's Reconciling and Stalled beside `summary`.
pub(crate) fn reconciling_stalled(
    summary: &Condition,
    activity: Activity,
    success_reason: &str,
) -> [Condition; 2] {
    // The abnormal-true condition that is True carries the summary's severity.
    let trouble = |type_: &str| {
        reported(type_, ConditionStatus::True, summary).with_severity(summary.severity)
    };
    match activity {
        Activity::Done => [
            healthy(kstatus::RECONCILING, summary, success_reason),
            healthy(kstatus::STALLED, summary, success_reason),
        ],
        Activity::Working => [
            trouble(kstatus::RECONCILING),
            Condition::new(
                kstatus::STALLED,
                ConditionStatus::False,
                kstatus::REASON_PROGRESSING,
            ),
        ],
        Activity::Stuck => [
            reported(kstatus::RECONCILING, ConditionStatus::False, summary),
            trouble(kstatus::STALLED),
        ],
    }
}

/// A companion with `status` that repeats the summary's reason and message.
fn reported(type_: &str, status: ConditionStatus, summary: &Condition) -> Condition {
    Condition::new(type_, status, &summary.reason).with_message(&summary.message)
}

/// A companion in its healthy (False) state: the success reason after a success, else the
/// summary's reason and message.
fn healthy(type_: &str, summary: &Condition, success_reason: &str) -> Condition {
    if summary.is_true() {
        Condition::new(type_, ConditionStatus::False, success_reason)
    } else {
        reported(type_, ConditionStatus::False, summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;

    #[test]
    fn names_find_their_profiles() {
        for profile in PROFILES {
            assert_eq!(Profile::by_name(profile.name), Some(profile));
            assert!(profile.condition_types.contains(&profile.summary));
            assert!(
                profile
                    .companion_types()
                    .iter()
                    .all(|t| profile.condition_types.contains(t))
            );
        }
        assert_eq!(Profile::by_name("custom"), None);
        assert_eq!(Profile::by_name("Standard"), None);
    }

    /// Every profile of the shared list is one the chokepoint runs (the derive names its
    /// constant), and the conditions kept beside its summary are exactly its others.
    #[test]
    fn every_built_in_profile_runs_with_its_other_conditions_as_companions() {
        assert_eq!(PROFILES.len(), builtin::BUILTIN.len());
        for listed in builtin::BUILTIN {
            let profile = Profile::by_name(listed.name)
                .unwrap_or_else(|| panic!("{} has a constant here", listed.name));
            let beside: Vec<&str> = listed
                .condition_types
                .iter()
                .copied()
                .filter(|t| *t != listed.summary)
                .collect();
            assert_eq!(beside, profile.companion_types(), "{}", listed.name);
        }
    }

    #[test]
    fn an_error_without_a_reason_gets_the_profile_s() {
        let unnamed = Failure::retryable("  ", "the disk is full");
        assert_eq!(STANDARD.failure(&unnamed).reason, "ReconciliationError");
        let named = Failure::retryable("DiskFull", "the disk is full");
        assert_eq!(STANDARD.failure(&named).reason, "DiskFull");
        assert_eq!(ORC.failure(&named).type_, "Available");
    }

    #[test]
    fn companions_follow_the_activity() {
        use ConditionStatus::{False, True};
        let statuses = |profile: Profile, summary: &Condition| {
            profile
                .companions(summary, Activity::of_summary(summary))
                .iter()
                .map(|c| (c.type_.clone(), c.status, c.reason.clone()))
                .collect::<Vec<_>>()
        };
        let retry = KSTATUS.failure(&Failure::retryable("Throttled", "slow down"));
        let fatal = KSTATUS.failure(&Failure::fatal("BadSpec", "size must be even"));
        let done = KSTATUS.success();
        let row = |t: &str, s, r: &str| (t.to_owned(), s, r.to_owned());
        assert_eq!(
            statuses(KSTATUS, &done),
            [
                row("Reconciling", False, "Succeeded"),
                row("Stalled", False, "Succeeded")
            ]
        );
        assert_eq!(
            statuses(KSTATUS, &retry),
            [
                row("Reconciling", True, "Throttled"),
                row("Stalled", False, "Progressing")
            ]
        );
        assert_eq!(
            statuses(KSTATUS, &fatal),
            [
                row("Reconciling", False, "BadSpec"),
                row("Stalled", True, "BadSpec")
            ]
        );
        assert_eq!(
            statuses(ORC, &ORC.success()),
            [row("Progressing", False, "Success")]
        );
        assert_eq!(
            statuses(ORC, &ORC.failure(&Failure::retryable("Throttled", ""))),
            [row("Progressing", True, "Throttled")]
        );
        assert_eq!(
            statuses(ORC, &ORC.failure(&Failure::fatal("BadSpec", ""))),
            [row("Progressing", False, "BadSpec")]
        );
        assert!(statuses(STANDARD, &retry).is_empty());
    }
}
