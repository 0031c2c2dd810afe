//! The built-in kinds' own rules, chosen by API group and kind. A kind with a rule here is
//! decided by it alone (after the generic rules): its Ready condition, if it has one, is not
//! read, because the rule knows better (a finished Pod is not Ready, yet done).

mod crd;
mod job;
mod pod;
mod simple;
mod workloads;

use k8s_openapi::jiff::Timestamp;

use super::KStatusResult;
use super::fields::{Fields, FoundCondition};

pub use pod::UNSCHEDULABLE_GRACE;

/// A kind's rule: the object, its conditions (read once), and the time.
pub(super) type Rule = fn(&Fields<'_>, &[FoundCondition<'_>], Timestamp) -> KStatusResult;

/// The rule of a kind, by group (empty for the core group) and kind; any version.
pub(super) fn rule_for(group: &str, kind: &str) -> Option<Rule> {
    let rule: Rule = match (group, kind) {
        ("", "Pod") => pod::pod,
        ("", "PersistentVolumeClaim") => simple::persistent_volume_claim,
        ("", "Service") => simple::service,
        ("", "ConfigMap" | "Secret") | ("batch", "CronJob") => simple::nothing_to_wait_for,
        ("policy", "PodDisruptionBudget") => simple::pod_disruption_budget,
        ("apps" | "extensions", "Deployment") => workloads::deployment,
        ("apps" | "extensions", "ReplicaSet") => workloads::replica_set,
        ("apps" | "extensions", "DaemonSet") => workloads::daemon_set,
        ("apps", "StatefulSet") => workloads::stateful_set,
        ("batch", "Job") => job::job,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => crd::custom_resource_definition,
        _ => return None,
    };
    Some(rule)
}
