//! `orc`: OpenStack Resource Controller's Available and Progressing, plus SubResourcesReady
//! for kinds that manage sub-resources.
//!
//! A kind that declares sub-resources has [`SUB_RESOURCES_READY`] beside the
//! [`CONDITION_TYPES`] of the profile.
//!
//! [`conditions`] turns where the main resource stands and the sub-resources' results into
//! the three conditions, so that ORC's scenario table holds:
//!
//! | scenario | Available | Progressing | SubResourcesReady |
//! | --- | --- | --- | --- |
//! | main resource creating | False | True | False |
//! | main resource ready, sub-resources pending | True | True | False |
//! | main resource ready, sub-resource failed | True | False | False (with error) |
//! | fully ready | True | False | True |
//! | tag update in progress | True | True | True |
//! | sub-resource update in progress | True | True | False |

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::conditions::Conditions;
use crate::subresources::SubResources;
use crate::subresources::{REASON_SUB_RESOURCES_PENDING, SUB_RESOURCES_READY};
pub use kondition_names::profile::orc::*;

/// Where the main resource stands in the outside system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MainResource {
    /// Not created yet, or being created.
    Creating,
    /// Exists and is being changed (tags, say).
    Updating,
    /// Exists and matches the spec.
    UpToDate,
}

/// Available, Progressing and (when the kind has sub-resources, `Some`) SubResourcesReady,
/// in that order.
pub fn conditions(main: MainResource, sub_resources: Option<&SubResources>) -> Vec<Condition> {
    let available = match main {
        MainResource::Creating => {
            Condition::new(AVAILABLE, ConditionStatus::False, REASON_PROGRESSING)
                .with_severity(Severity::Info)
                .with_message("The resource is being created")
        }
        MainResource::Updating | MainResource::UpToDate => {
            Condition::new(AVAILABLE, ConditionStatus::True, REASON_SUCCESS)
                .with_message("The resource is available")
        }
    };

    let sub_resources_ready = sub_resources.map(|subs| match main {
        // Sub-resources live inside the main resource: none can be ready before it exists.
        MainResource::Creating => Condition::new(
            SUB_RESOURCES_READY,
            ConditionStatus::False,
            REASON_SUB_RESOURCES_PENDING,
        )
        .with_severity(Severity::Info)
        .with_message("Waiting for the main resource to be created"),
        MainResource::Updating | MainResource::UpToDate => subs.condition(None),
    });

    let sub_pending = sub_resources.is_some_and(SubResources::any_pending);
    let progressing = match (main, &sub_resources_ready) {
        (MainResource::Creating, _) => progressing_true("The resource is being created"),
        (MainResource::Updating, _) => progressing_true("The resource is being updated"),
        (MainResource::UpToDate, _) if sub_pending => {
            progressing_true("Sub-resources are being reconciled")
        }
        // A failure stops progress: Progressing carries the failure so it is not "up to date".
        (MainResource::UpToDate, Some(subs)) if subs.is_false() => {
            Condition::new(PROGRESSING, ConditionStatus::False, &subs.reason)
                .with_message(&subs.message)
        }
        (MainResource::UpToDate, _) => {
            Condition::new(PROGRESSING, ConditionStatus::False, REASON_SUCCESS)
                .with_message("The resource is up to date")
        }
    };

    [Some(available), Some(progressing), sub_resources_ready]
        .into_iter()
        .flatten()
        .collect()
}

fn progressing_true(message: &str) -> Condition {
    Condition::new(PROGRESSING, ConditionStatus::True, REASON_PROGRESSING).with_message(message)
}

/// Whether a dependent resource may proceed: the resource is Available and, when the user
/// opted in with `spec.managedOptions.waitForSubResources`, its sub-resources are ready too.
/// A kind without sub-resources has no SubResourcesReady and does not wait for it.
pub fn may_proceed(conditions: &Conditions, wait_for_sub_resources: bool) -> bool {
    conditions.is_true(AVAILABLE)
        && (!wait_for_sub_resources
            || conditions
                .get(SUB_RESOURCES_READY)
                .is_none_or(Condition::is_true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConditionStatus::{False, True};

    fn statuses(
        main: MainResource,
        subs: &SubResources,
    ) -> (ConditionStatus, ConditionStatus, ConditionStatus) {
        let conditions = conditions(main, Some(subs));
        let types: Vec<_> = conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, [AVAILABLE, PROGRESSING, SUB_RESOURCES_READY]);
        assert!(conditions.iter().all(Condition::is_valid));
        (
            conditions[0].status,
            conditions[1].status,
            conditions[2].status,
        )
    }

    fn rules(states: &[&str]) -> SubResources {
        let mut subs = SubResources::new();
        for (i, state) in states.iter().enumerate() {
            let name = format!("rule-{i}");
            match *state {
                "ready" => subs.ready("Rule", &name),
                "pending" => subs.pending("Rule", &name),
                _ => subs.failed("Rule", &name, "invalid CIDR", true),
            };
        }
        subs
    }

    #[test]
    fn the_seed_scenario_table_holds() {
        use MainResource::*;
        let table = [
            (
                "main resource creating",
                Creating,
                rules(&["pending"]),
                (False, True, False),
            ),
            (
                "main ready, sub-resources pending",
                UpToDate,
                rules(&["ready", "pending"]),
                (True, True, False),
            ),
            (
                "main ready, sub-resource failed",
                UpToDate,
                rules(&["ready", "failed"]),
                (True, False, False),
            ),
            (
                "fully ready",
                UpToDate,
                rules(&["ready", "ready"]),
                (True, False, True),
            ),
            (
                "tag update in progress",
                Updating,
                rules(&["ready"]),
                (True, True, True),
            ),
            (
                "sub-resource update in progress",
                UpToDate,
                rules(&["ready", "pending"]),
                (True, True, False),
            ),
        ];
        for (scenario, main, subs, expected) in table {
            assert_eq!(statuses(main, &subs), expected, "{scenario}");
        }
    }

    #[test]
    fn a_failure_carries_its_error_into_both_conditions() {
        let conditions = conditions(MainResource::UpToDate, Some(&rules(&["failed"])));
        let sub = &conditions[2];
        assert_eq!(sub.reason, "SubResourceFailed");
        assert_eq!(sub.message, "Rule 'rule-0' failed: invalid CIDR");
        assert_eq!(sub.severity, Severity::Warning);
        assert_eq!(conditions[1].reason, "SubResourceFailed");
    }

    #[test]
    fn kinds_without_sub_resources_get_two_conditions() {
        let conditions = conditions(MainResource::UpToDate, None);
        let summary: Vec<_> = conditions
            .iter()
            .map(|c| (c.type_.as_str(), c.status, c.reason.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (AVAILABLE, True, REASON_SUCCESS),
                (PROGRESSING, False, REASON_SUCCESS)
            ]
        );
    }

    #[test]
    fn dependents_wait_for_sub_resources_only_when_asked() {
        let pending: Conditions = conditions(MainResource::UpToDate, Some(&rules(&["pending"])))
            .into_iter()
            .collect();
        assert!(may_proceed(&pending, false));
        assert!(!may_proceed(&pending, true));

        let ready: Conditions = conditions(MainResource::UpToDate, Some(&rules(&["ready"])))
            .into_iter()
            .collect();
        assert!(may_proceed(&ready, true));

        let creating: Conditions = conditions(MainResource::Creating, Some(&rules(&[])))
            .into_iter()
            .collect();
        assert!(!may_proceed(&creating, false));

        let no_subs: Conditions = conditions(MainResource::Updating, None)
            .into_iter()
            .collect();
        assert!(may_proceed(&no_subs, true));
    }
}
