//! The replicated workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet. Their
//! controllers set few or no conditions, so the counts in `status` decide: each rule checks
//! its counts against the desired number in kstatus's order, and the first one short says
//! which, in kstatus's words (`Ready: 2/4`).

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition, find};

/// The Deployment controller's "no progress deadline": it then keeps no track of progress,
/// so there is no Progressing condition to wait for. A missing deadline reads the same.
const NO_PROGRESS_DEADLINE: i64 = i32::MAX as i64;

/// Deployment: the replica counts, then the Progressing and Available conditions.
pub(super) fn deployment(
    fields: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    let mut progressing = fields.int(&["spec", "progressDeadlineSeconds"], NO_PROGRESS_DEADLINE)
        == NO_PROGRESS_DEADLINE;
    let mut available = false;
    for condition in conditions {
        match condition.type_ {
            // A passed deadline is final whatever the condition's status says.
            "Progressing" if condition.reason == "ProgressDeadlineExceeded" => {
                return KStatusResult::failed("Progress deadline exceeded");
            }
            "Progressing"
                if condition.status == "True" && condition.reason == "NewReplicaSetAvailable" =>
            {
                progressing = true;
            }
            "Available" if condition.status == "True" => available = true,
            _ => {}
        }
    }

    let desired = fields.int(&["spec", "replicas"], 1);
    let replicas = fields.int(&["status", "replicas"], 0);
    let updated = fields.int(&["status", "updatedReplicas"], 0);
    let ready = fields.int(&["status", "readyReplicas"], 0);
    let available_replicas = fields.int(&["status", "availableReplicas"], 0);

    if desired > replicas {
        return short("Replicas", replicas, desired);
    }
    if desired > updated {
        return short("Updated", updated, desired);
    }
    if replicas > desired {
        return pending_termination(replicas - desired);
    }
    if updated > available_replicas {
        return short("Available", available_replicas, updated);
    }
    if desired > ready {
        return short("Ready", ready, desired);
    }
    if !progressing {
        return KStatusResult::in_progress("ReplicaSet not Available");
    }
    if !available {
        return KStatusResult::in_progress("Deployment not Available");
    }
    KStatusResult::current(format!("Deployment is available. Replicas: {replicas}"))
}

/// A count short of the number wanted, in kstatus's words: `Ready: 2/4`.
fn short(what: &str, have: i64, want: i64) -> KStatusResult {
    KStatusResult::in_progress(format!("{what}: {have}/{want}"))
}

/// Replicas beyond the number wanted, still to go.
fn pending_termination(extra: i64) -> KStatusResult {
    KStatusResult::in_progress(format!("Pending termination: {extra}"))
}

/// ReplicaSet: a replica failure, then labeled, available and ready counts, then extras.
pub(super) fn replica_set(
    fields: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // The controller keeps retrying after a failure to create or delete Pods (quota, say).
    if find(conditions, "ReplicaFailure", "True").is_some() {
        return KStatusResult::in_progress("Replica Failure condition. Check Pods");
    }
    let desired = fields.int(&["spec", "replicas"], 1);
    let replicas = fields.int(&["status", "replicas"], 0);
    let labeled = fields.int(&["status", "fullyLabeledReplicas"], 0);
    let available = fields.int(&["status", "availableReplicas"], 0);
    let ready = fields.int(&["status", "readyReplicas"], 0);

    if desired > labeled {
        return short("Labelled", labeled, desired);
    }
    if desired > available {
        return short("Available", available, desired);
    }
    if desired > ready {
        return short("Ready", ready, desired);
    }
    if replicas > desired {
        return pending_termination(replicas - desired);
    }
    KStatusResult::current(format!("ReplicaSet is available. Replicas: {replicas}"))
}

/// StatefulSet: its controller sets no conditions, so only counts and revisions tell.
pub(super) fn stateful_set(
    fields: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // With OnDelete, Pods are replaced when the user deletes them: no rollout to wait for.
    if fields.string(&["spec", "updateStrategy", "type"], "") == "OnDelete" {
        return KStatusResult::current("StatefulSet is using the ondelete update strategy");
    }
    let desired = fields.int(&["spec", "replicas"], 1);
    let replicas = fields.int(&["status", "replicas"], 0);
    let ready = fields.int(&["status", "readyReplicas"], 0);
    let current = fields.int(&["status", "currentReplicas"], 0);
    let updated = fields.int(&["status", "updatedReplicas"], 0);
    // -1 is kstatus's "no partition": a partition given as -1 reads as none.
    let partition = fields.int(
        &["spec", "updateStrategy", "rollingUpdate", "partition"],
        -1,
    );

    if desired > replicas {
        return short("Replicas", replicas, desired);
    }
    if desired > ready {
        return short("Ready", ready, desired);
    }
    if replicas > desired {
        return pending_termination(replicas - desired);
    }
    // A partitioned rollout updates only the ordinals at or above the partition.
    if partition != -1 {
        if updated < desired - partition {
            return short("updated", updated, desired - partition);
        }
        return KStatusResult::current(format!("Partition rollout complete. updated: {updated}"));
    }
    if desired > current {
        return short("current", current, desired);
    }
    let current_revision = fields.string(&["status", "currentRevision"], "");
    let update_revision = fields.string(&["status", "updateRevision"], "");
    if current_revision != update_revision {
        return KStatusResult::in_progress("Waiting for updated revision to match current");
    }
    KStatusResult::current(format!(
        "All replicas scheduled as expected. Replicas: {replicas}"
    ))
}

/// DaemonSet: its status must have been written for this generation, then the number of
/// nodes that should run a Pod is checked against the scheduled, updated, available and
/// ready counts.
pub(super) fn daemon_set(
    fields: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // The generic rule skips a missing observedGeneration; the DaemonSet controller always
    // writes one, so its absence means the controller has not looked yet.
    let kind = fields.string(&["kind"], "");
    if fields.int_opt(&["metadata", "generation"]).is_none() {
        return KStatusResult::in_progress(format!("{kind} metadata.generation not found"));
    }
    if fields.int_opt(&["status", "observedGeneration"]).is_none() {
        return KStatusResult::in_progress(format!("{kind} status.observedGeneration not found"));
    }
    // -1 reads as missing, as in kstatus.
    let desired = fields.int_opt(&["status", "desiredNumberScheduled"]);
    let Some(desired) = desired.filter(|&n| n != -1) else {
        return KStatusResult::in_progress("Missing .status.desiredNumberScheduled");
    };
    let scheduled = fields.int(&["status", "currentNumberScheduled"], 0);
    let updated = fields.int(&["status", "updatedNumberScheduled"], 0);
    let available = fields.int(&["status", "numberAvailable"], 0);
    let ready = fields.int(&["status", "numberReady"], 0);

    if desired > scheduled {
        return short("Current", scheduled, desired);
    }
    if desired > updated {
        return short("Updated", updated, desired);
    }
    if desired > available {
        return short("Available", available, desired);
    }
    if desired > ready {
        return short("Ready", ready, desired);
    }
    KStatusResult::current(format!(
        "All replicas scheduled as expected. Replicas: {desired}"
    ))
}
