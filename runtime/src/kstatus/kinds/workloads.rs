//! The replicated workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet. Their
//! controllers set few or no conditions, so the counts in `status` decide: each rule checks
//! its counts against the desired number in a fixed order, and the first one short says
//! which replicas are missing.

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition, because, find};
use super::count;

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
                return KStatusResult::failed(format!(
                    "Deployment has exceeded its progress deadline{}",
                    because(condition)
                ));
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

    let counts = [(replicas, "replicas"), (updated, "replicas updated")];
    if let Some(short) = first_short("Deployment", desired, &counts) {
        return short;
    }
    if replicas > desired {
        return KStatusResult::in_progress(format!(
            "Deployment has {} pending termination",
            count(replicas - desired, "old replica")
        ));
    }
    if updated > available_replicas {
        return KStatusResult::in_progress(format!(
            "Deployment has {available_replicas} of {updated} updated replicas available"
        ));
    }
    if let Some(short) = first_short("Deployment", desired, &[(ready, "replicas ready")]) {
        return short;
    }
    if !progressing {
        return KStatusResult::in_progress(
            "Deployment's new ReplicaSet is not available yet (Progressing is not True with reason NewReplicaSetAvailable)",
        );
    }
    if !available {
        let why = find(conditions, "Available", "False")
            .map(because)
            .unwrap_or_default();
        return KStatusResult::in_progress(format!("Deployment is not Available{why}"));
    }
    KStatusResult::current(format!(
        "Deployment is Available with {}",
        count(replicas, "replica")
    ))
}

/// The first count short of `want`, in order, as kstatus reports it: `"<kind> has <have> of
/// <want> <what>"`, in progress.
fn first_short(kind: &str, want: i64, counts: &[(i64, &str)]) -> Option<KStatusResult> {
    counts
        .iter()
        .find(|(have, _)| want > *have)
        .map(|(have, what)| {
            KStatusResult::in_progress(format!("{kind} has {have} of {want} {what}"))
        })
}

/// ReplicaSet: a replica failure, then labeled, available and ready counts, then extras.
pub(super) fn replica_set(
    fields: &Fields<'_>,
    conditions: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // The controller keeps retrying after a failure to create or delete Pods (quota, say).
    if let Some(failure) = find(conditions, "ReplicaFailure", "True") {
        return KStatusResult::in_progress(format!(
            "ReplicaSet failed to create or delete Pods{}",
            because(failure)
        ));
    }
    let desired = fields.int(&["spec", "replicas"], 1);
    let replicas = fields.int(&["status", "replicas"], 0);
    let labeled = fields.int(&["status", "fullyLabeledReplicas"], 0);
    let available = fields.int(&["status", "availableReplicas"], 0);
    let ready = fields.int(&["status", "readyReplicas"], 0);

    let counts = [
        (labeled, "replicas fully labeled"),
        (available, "replicas available"),
        (ready, "replicas ready"),
    ];
    if let Some(short) = first_short("ReplicaSet", desired, &counts) {
        return short;
    }
    if replicas > desired {
        return KStatusResult::in_progress(format!(
            "ReplicaSet has {} pending termination",
            count(replicas - desired, "extra replica")
        ));
    }
    KStatusResult::current(format!(
        "ReplicaSet has all {} available",
        count(replicas, "replica")
    ))
}

/// StatefulSet: its controller sets no conditions, so only counts and revisions tell.
pub(super) fn stateful_set(
    fields: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // With OnDelete, Pods are replaced when the user deletes them: no rollout to wait for.
    if fields.string(&["spec", "updateStrategy", "type"], "") == "OnDelete" {
        return KStatusResult::current(
            "StatefulSet uses the OnDelete update strategy: its Pods are replaced by hand",
        );
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

    let counts = [(replicas, "replicas"), (ready, "replicas ready")];
    if let Some(short) = first_short("StatefulSet", desired, &counts) {
        return short;
    }
    if replicas > desired {
        return KStatusResult::in_progress(format!(
            "StatefulSet has {} pending termination",
            count(replicas - desired, "extra replica")
        ));
    }
    // A partitioned rollout updates only the ordinals at or above the partition.
    if partition != -1 {
        let to_update = desired - partition;
        if updated < to_update {
            return KStatusResult::in_progress(format!(
                "StatefulSet partitioned rollout has {updated} of {to_update} replicas updated"
            ));
        }
        return KStatusResult::current(format!(
            "StatefulSet partitioned rollout is complete with {} updated",
            count(updated, "replica")
        ));
    }
    let counts = [(current, "replicas at the current revision")];
    if let Some(short) = first_short("StatefulSet", desired, &counts) {
        return short;
    }
    let current_revision = fields.string(&["status", "currentRevision"], "");
    let update_revision = fields.string(&["status", "updateRevision"], "");
    if current_revision != update_revision {
        return KStatusResult::in_progress(format!(
            "StatefulSet is rolling out revision {update_revision:?} (current revision {current_revision:?})"
        ));
    }
    KStatusResult::current(format!(
        "StatefulSet has all {} ready",
        count(replicas, "replica")
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
    if fields.int_opt(&["metadata", "generation"]).is_none() {
        return KStatusResult::in_progress("DaemonSet has no metadata.generation yet");
    }
    if fields.int_opt(&["status", "observedGeneration"]).is_none() {
        return KStatusResult::in_progress("DaemonSet has no status.observedGeneration yet");
    }
    // -1 reads as missing, as in kstatus.
    let desired = fields.int_opt(&["status", "desiredNumberScheduled"]);
    let Some(desired) = desired.filter(|&n| n != -1) else {
        return KStatusResult::in_progress("DaemonSet has no status.desiredNumberScheduled yet");
    };
    let scheduled = fields.int(&["status", "currentNumberScheduled"], 0);
    let updated = fields.int(&["status", "updatedNumberScheduled"], 0);
    let available = fields.int(&["status", "numberAvailable"], 0);
    let ready = fields.int(&["status", "numberReady"], 0);

    let counts = [
        (scheduled, "Pods scheduled"),
        (updated, "Pods updated"),
        (available, "Pods available"),
        (ready, "Pods ready"),
    ];
    if let Some(short) = first_short("DaemonSet", desired, &counts) {
        return short;
    }
    KStatusResult::current(format!("DaemonSet has all {} ready", count(desired, "Pod")))
}
