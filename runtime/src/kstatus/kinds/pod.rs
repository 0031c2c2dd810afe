//! Pods: by phase. A finished Pod (Succeeded or Failed) is Current: it will not change any
//! more, and waiting on it would wait forever. A running Pod is Current once Ready, Failed
//! while a container is in `CrashLoopBackOff`. A pending Pod the scheduler cannot place is
//! given a grace period from its creation before it counts as Failed.

use std::time::Duration;

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition, find};

/// How long after its creation a Pod the scheduler reports as Unschedulable is still
/// InProgress; from then on it is Failed.
pub const UNSCHEDULABLE_GRACE: Duration = Duration::from_secs(15);

pub(super) fn pod(
    fields: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    now: Timestamp,
) -> KStatusResult {
    match fields.string(&["status", "phase"], "") {
        "Succeeded" => KStatusResult::current("Pod has completed successfully"),
        "Failed" => KStatusResult::current("Pod has completed, but not successfully"),
        "Running" => {
            if find(conditions, "Ready", "True").is_some() {
                return KStatusResult::current("Pod is Ready");
            }
            let crash_looping = crash_looping_containers(fields);
            if !crash_looping.is_empty() {
                return KStatusResult::failed(format!(
                    "Containers in CrashLoop state: {}",
                    crash_looping.join(",")
                ));
            }
            KStatusResult::in_progress("Pod is running but is not Ready")
        }
        "Pending" => match find(conditions, "PodScheduled", "False") {
            Some(scheduled) if scheduled.reason == "Unschedulable" => unschedulable(fields, now),
            _ => KStatusResult::in_progress("Pod is in the Pending phase"),
        },
        "" => KStatusResult::in_progress("Pod phase not available"),
        // kstatus has no answer for other phases (it returns an error): not Current.
        phase => KStatusResult::in_progress(format!("Pod is in phase {phase}")),
    }
}

/// An unschedulable Pod: InProgress within the grace period after creation, then Failed.
/// A missing or unreadable `creationTimestamp` counts as long ago.
fn unschedulable(fields: &Fields<'_>, now: Timestamp) -> KStatusResult {
    let created = fields
        .string(&["metadata", "creationTimestamp"], "")
        .parse::<Timestamp>()
        .ok();
    let grace = SignedDuration::try_from(UNSCHEDULABLE_GRACE).unwrap_or(SignedDuration::MAX);
    let within_grace = created
        .and_then(|created| created.checked_add(grace).ok())
        .is_some_and(|deadline| now < deadline);
    if within_grace {
        return KStatusResult::in_progress("Pod has not been scheduled");
    }
    KStatusResult::failed("Pod could not be scheduled")
}

/// The names of the containers (not init containers) waiting in `CrashLoopBackOff`.
fn crash_looping_containers<'a>(fields: &Fields<'a>) -> Vec<&'a str> {
    fields
        .get(&["status", "containerStatuses"])
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|container| {
            container
                .pointer("/state/waiting/reason")
                .and_then(Value::as_str)
                == Some("CrashLoopBackOff")
        })
        .filter_map(|container| container.get("name").and_then(Value::as_str))
        .collect()
}
