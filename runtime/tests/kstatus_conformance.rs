//! The conformance table of `kondition::kstatus`: for every rule, objects on both sides of
//! each of its thresholds, with the status and message expected. Written from kstatus's
//! rules (sigs.k8s.io/cli-utils/pkg/kstatus/status), one table per rule, so that a change to
//! any threshold fails here with the object that crossed it.
//!
//! Time is fixed: the Pod rule's grace period is measured from `NOW`.

use k8s_openapi::jiff::Timestamp;
use kondition::kstatus::{
    KStatus, KStatusResult, ObjectResult, UNSCHEDULABLE_GRACE, compute_at, compute_for_at,
};
use serde_json::{Value, json};

use KStatus::{Current, Failed, InProgress, Terminating};

const NOW: &str = "2024-05-01T12:00:00Z";

fn now() -> Timestamp {
    NOW.parse().expect("NOW is a time")
}

/// One row: an object and the result expected for it.
struct Case {
    name: &'static str,
    object: Value,
    status: KStatus,
    message: &'static str,
}

fn case(name: &'static str, object: Value, status: KStatus, message: &'static str) -> Case {
    Case {
        name,
        object,
        status,
        message,
    }
}

/// Checks every row and reports all the rows that disagree at once.
fn check(cases: Vec<Case>) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let got = compute_at(&case.object, now());
            let expected = KStatusResult {
                status: case.status,
                message: case.message.to_owned(),
            };
            (got != expected).then(|| {
                format!(
                    "{}: expected {} {:?}, got {} {:?}\n  {}",
                    case.name,
                    expected.status,
                    expected.message,
                    got.status,
                    got.message,
                    case.object
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// An object of `apiVersion`/`kind` named "test", with extra metadata, spec and status.
fn object(api_version: &str, kind: &str, metadata: Value, spec: Value, status: Value) -> Value {
    let mut object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "test"}});
    if let Some(extra) = metadata.as_object() {
        for (key, value) in extra {
            object["metadata"][key] = value.clone();
        }
    }
    if !spec.is_null() {
        object["spec"] = spec;
    }
    if !status.is_null() {
        object["status"] = status;
    }
    object
}

/// `base` with the fields of `changes` replaced (one level deep into objects).
fn with(base: &Value, changes: Value) -> Value {
    let mut merged = base.clone();
    merge(&mut merged, &changes);
    merged
}

fn merge(target: &mut Value, changes: &Value) {
    match (target.as_object_mut(), changes.as_object()) {
        (Some(target), Some(changes)) => {
            for (key, value) in changes {
                match target.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value);
                    }
                    _ => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        _ => *target = changes.clone(),
    }
}

fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": message})
}

/// A time `seconds` before NOW.
fn seconds_before_now(seconds: i64) -> String {
    let time = now()
        .checked_sub(k8s_openapi::jiff::SignedDuration::from_secs(seconds))
        .expect("in range");
    time.to_string()
}

#[test]
fn generic_rules_come_first() {
    let custom = |metadata: Value, status: Value| {
        object("example.com/v1", "Widget", metadata, Value::Null, status)
    };
    // A Deployment that its own rule would call Current.
    let healthy_deployment = object(
        "apps/v1",
        "Deployment",
        json!({"generation": 1}),
        json!({"replicas": 1}),
        json!({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
               "readyReplicas": 1, "availableReplicas": 1, "conditions": [
                   condition("Progressing", "True", "NewReplicaSetAvailable", ""),
                   condition("Available", "True", "MinimumReplicasAvailable", "")]}),
    );
    check(vec![
        case(
            "deletionTimestamp set",
            custom(json!({"deletionTimestamp": NOW}), json!({})),
            Terminating,
            "Resource scheduled for deletion",
        ),
        case(
            "deletion beats Stalled and a mismatched generation",
            custom(
                json!({"deletionTimestamp": NOW, "generation": 2}),
                json!({"observedGeneration": 1, "conditions": [condition("Stalled", "True", "X", "stuck")]}),
            ),
            Terminating,
            "Resource scheduled for deletion",
        ),
        case(
            "empty deletionTimestamp is no deletion",
            custom(json!({"deletionTimestamp": ""}), json!({})),
            Current,
            "Resource is current",
        ),
        case(
            "a deleted built-in object",
            with(
                &healthy_deployment,
                json!({"metadata": {"deletionTimestamp": NOW}}),
            ),
            Terminating,
            "Resource scheduled for deletion",
        ),
        case(
            "generation ahead of observedGeneration",
            custom(json!({"generation": 2}), json!({"observedGeneration": 1})),
            InProgress,
            "Widget generation is 2, but latest observed generation is 1",
        ),
        case(
            "generation behind observedGeneration",
            custom(json!({"generation": 1}), json!({"observedGeneration": 2})),
            InProgress,
            "Widget generation is 1, but latest observed generation is 2",
        ),
        case(
            "generation observed",
            custom(json!({"generation": 2}), json!({"observedGeneration": 2})),
            Current,
            "Resource is current",
        ),
        case(
            "no observedGeneration: nothing to compare",
            custom(json!({"generation": 2}), json!({})),
            Current,
            "Resource is current",
        ),
        case(
            "a built-in object's generation not observed",
            with(&healthy_deployment, json!({"metadata": {"generation": 2}})),
            InProgress,
            "Deployment generation is 2, but latest observed generation is 1",
        ),
        case(
            "Reconciling=True",
            custom(
                json!({}),
                json!({"conditions": [condition("Reconciling", "True", "Applying", "applying the spec")]}),
            ),
            InProgress,
            "applying the spec",
        ),
        case(
            "Reconciling=True without a message says its reason",
            custom(
                json!({}),
                json!({"conditions": [condition("Reconciling", "True", "Applying", "")]}),
            ),
            InProgress,
            "",
        ),
        case(
            "Reconciling=False",
            custom(
                json!({}),
                json!({"conditions": [condition("Reconciling", "False", "Done", "")]}),
            ),
            Current,
            "Resource is current",
        ),
        case(
            "Stalled=True",
            custom(
                json!({}),
                json!({"conditions": [condition("Stalled", "True", "QuotaExceeded", "quota exceeded")]}),
            ),
            Failed,
            "quota exceeded",
        ),
        case(
            "Stalled=Unknown",
            custom(
                json!({}),
                json!({"conditions": [condition("Stalled", "Unknown", "Checking", "")]}),
            ),
            Current,
            "Resource is current",
        ),
        case(
            "the first of Stalled and Reconciling in list order decides",
            custom(
                json!({}),
                json!({"conditions": [
                condition("Reconciling", "True", "Applying", "applying"),
                condition("Stalled", "True", "QuotaExceeded", "quota exceeded")]}),
            ),
            InProgress,
            "applying",
        ),
        case(
            "Reconciling=True on a built-in kind",
            with(
                &healthy_deployment,
                json!({"status": {"conditions": [
                condition("Reconciling", "True", "Rollout", "rolling out")]}}),
            ),
            InProgress,
            "rolling out",
        ),
        case(
            "Stalled=True on a built-in kind",
            with(
                &healthy_deployment,
                json!({"status": {"conditions": [
                condition("Stalled", "True", "Broken", "broken")]}}),
            ),
            Failed,
            "broken",
        ),
    ]);
}

#[test]
fn the_ready_rule_for_kinds_without_their_own() {
    let widget = |conditions: Value| {
        object(
            "example.com/v1",
            "Widget",
            json!({"generation": 1}),
            Value::Null,
            json!({"observedGeneration": 1, "conditions": conditions}),
        )
    };
    check(vec![
        case(
            "Ready=True",
            widget(json!([condition("Ready", "True", "Succeeded", "")])),
            Current,
            "Resource is Ready",
        ),
        case(
            "Ready=False",
            widget(json!([condition(
                "Ready",
                "False",
                "Creating",
                "creating the database"
            )])),
            InProgress,
            "creating the database",
        ),
        case(
            "Ready=False without a message says its reason",
            widget(json!([condition("Ready", "False", "Creating", "")])),
            InProgress,
            "",
        ),
        case(
            "Ready=Unknown",
            widget(json!([condition(
                "Ready", "Unknown", "Checking", "checking"
            )])),
            InProgress,
            "checking",
        ),
        case(
            "a Ready of no valid status is skipped",
            widget(json!([condition("Ready", "true", "Odd", "lower case")])),
            Current,
            "Resource is current",
        ),
        case(
            "the first Ready of a valid status decides",
            widget(json!([
                condition("Ready", "", "Odd", "empty"),
                condition("Ready", "False", "Creating", "the valid one")
            ])),
            InProgress,
            "the valid one",
        ),
        case(
            "no Ready condition",
            widget(json!([condition("Synced", "False", "Error", "not synced")])),
            Current,
            "Resource is current",
        ),
        case(
            "no status at all",
            object(
                "example.com/v1",
                "Widget",
                json!({}),
                Value::Null,
                Value::Null,
            ),
            Current,
            "Resource is current",
        ),
        case(
            "a core kind's name in another group gets the generic rules",
            object(
                "example.com/v1",
                "Pod",
                json!({}),
                Value::Null,
                json!({"phase": "Succeeded", "conditions": [condition("Ready", "False", "PodCompleted", "done")]}),
            ),
            InProgress,
            "done",
        ),
        case(
            "an apps kind's name in another group gets the generic rules",
            object(
                "example.com/v1",
                "Deployment",
                json!({}),
                json!({"replicas": 3}),
                Value::Null,
            ),
            Current,
            "Resource is current",
        ),
        case(
            "no apiVersion reads as the core group, as kstatus reads it",
            json!({"kind": "Service", "metadata": {"name": "test"},
                   "status": {"conditions": [condition("Ready", "False", "R", "not ready")]}}),
            Current,
            "Service is ready",
        ),
        case(
            "a kind with its own rule ignores Ready",
            object(
                "v1",
                "Service",
                json!({}),
                json!({"type": "ClusterIP"}),
                json!({"conditions": [condition("Ready", "False", "R", "not ready")]}),
            ),
            Current,
            "Service is ready",
        ),
    ]);
}

#[test]
fn pods() {
    let pod = |metadata: Value, status: Value| object("v1", "Pod", metadata, Value::Null, status);
    let unschedulable = |created: Value| {
        pod(
            json!({"creationTimestamp": created}),
            json!({"phase": "Pending", "conditions": [condition("PodScheduled", "False", "Unschedulable",
                   "0/3 nodes are available: 3 Insufficient cpu.")]}),
        )
    };
    let grace = i64::try_from(UNSCHEDULABLE_GRACE.as_secs()).expect("small");
    let crash_looping = json!([
        {"name": "sidecar", "state": {"running": {}}},
        {"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
        {"name": "worker", "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
    ]);
    let running = |conditions: Value, containers: Value| {
        pod(
            json!({}),
            json!({"phase": "Running", "conditions": conditions, "containerStatuses": containers}),
        )
    };
    check(vec![
        case(
            "no status",
            pod(json!({}), Value::Null),
            InProgress,
            "Pod phase not available",
        ),
        case(
            "Pending, not yet considered by the scheduler",
            pod(json!({}), json!({"phase": "Pending"})),
            InProgress,
            "Pod is in the Pending phase",
        ),
        case(
            "Pending, scheduled, pulling images",
            pod(
                json!({}),
                json!({"phase": "Pending", "conditions": [condition("PodScheduled", "True", "", "")]}),
            ),
            InProgress,
            "Pod is in the Pending phase",
        ),
        case(
            "Unschedulable, 1 s into the grace period",
            unschedulable(json!(seconds_before_now(1))),
            InProgress,
            "Pod has not been scheduled",
        ),
        case(
            "Unschedulable, 1 s before the grace period ends",
            unschedulable(json!(seconds_before_now(grace - 1))),
            InProgress,
            "Pod has not been scheduled",
        ),
        case(
            "Unschedulable, exactly at the end of the grace period",
            unschedulable(json!(seconds_before_now(grace))),
            Failed,
            "Pod could not be scheduled",
        ),
        case(
            "Unschedulable, long after the grace period",
            unschedulable(json!(seconds_before_now(3600))),
            Failed,
            "Pod could not be scheduled",
        ),
        case(
            "Unschedulable, created in the future (clock skew)",
            unschedulable(json!(seconds_before_now(-60))),
            InProgress,
            "Pod has not been scheduled",
        ),
        case(
            "Unschedulable without a creationTimestamp counts as long ago",
            unschedulable(Value::Null),
            Failed,
            "Pod could not be scheduled",
        ),
        case(
            "Unschedulable with an unreadable creationTimestamp counts as long ago",
            unschedulable(json!("yesterday")),
            Failed,
            "Pod could not be scheduled",
        ),
        case(
            "PodScheduled=False for another reason is only pending",
            pod(
                json!({"creationTimestamp": seconds_before_now(3600)}),
                json!({"phase": "Pending", "conditions": [condition("PodScheduled", "False", "SchedulingGated", "")]}),
            ),
            InProgress,
            "Pod is in the Pending phase",
        ),
        case(
            "Running and Ready",
            running(json!([condition("Ready", "True", "", "")]), json!([])),
            Current,
            "Pod is Ready",
        ),
        case(
            "Running, not Ready",
            running(
                json!([condition("Ready", "False", "ContainersNotReady", "")]),
                json!([]),
            ),
            InProgress,
            "Pod is running but is not Ready",
        ),
        case(
            "Running, not Ready, containers starting",
            running(
                json!([]),
                json!([{"name": "app", "state": {"waiting": {"reason": "ContainerCreating"}}}]),
            ),
            InProgress,
            "Pod is running but is not Ready",
        ),
        case(
            "Running, not Ready, containers crash-looping",
            running(
                json!([condition("Ready", "False", "ContainersNotReady", "")]),
                crash_looping.clone(),
            ),
            Failed,
            "Containers in CrashLoop state: app,worker",
        ),
        case(
            "Running and Ready decides before crash loops",
            running(json!([condition("Ready", "True", "", "")]), crash_looping),
            Current,
            "Pod is Ready",
        ),
        case(
            "an init container crash-looping is not looked at",
            pod(
                json!({}),
                json!({"phase": "Running", "initContainerStatuses": [
                {"name": "init", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}),
            ),
            InProgress,
            "Pod is running but is not Ready",
        ),
        case(
            "Succeeded, though not Ready",
            pod(
                json!({}),
                json!({"phase": "Succeeded", "conditions": [condition("Ready", "False", "PodCompleted", "")]}),
            ),
            Current,
            "Pod has completed successfully",
        ),
        case(
            "Failed, though not Ready",
            pod(
                json!({}),
                json!({"phase": "Failed", "conditions": [condition("Ready", "False", "PodCompleted", "")]}),
            ),
            Current,
            "Pod has completed, but not successfully",
        ),
        case(
            "a phase kstatus does not know",
            pod(json!({}), json!({"phase": "Unknown"})),
            InProgress,
            "Pod is in phase Unknown",
        ),
    ]);
}

#[test]
fn persistent_volume_claims() {
    let claim = |status: Value| object("v1", "PersistentVolumeClaim", json!({}), json!({}), status);
    check(vec![
        case(
            "Bound",
            claim(json!({"phase": "Bound"})),
            Current,
            "PVC is Bound",
        ),
        case(
            "Pending",
            claim(json!({"phase": "Pending"})),
            InProgress,
            "PVC is not Bound. phase: Pending",
        ),
        case(
            "Lost",
            claim(json!({"phase": "Lost"})),
            InProgress,
            "PVC is not Bound. phase: Lost",
        ),
        case(
            "no phase",
            claim(Value::Null),
            InProgress,
            "PVC is not Bound. phase: unknown",
        ),
    ]);
}

#[test]
fn deployments() {
    let good = object(
        "apps/v1",
        "Deployment",
        json!({"generation": 3}),
        json!({"replicas": 3, "progressDeadlineSeconds": 600}),
        json!({"observedGeneration": 3, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3,
               "availableReplicas": 3, "conditions": [
                   condition("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet \"web-1\" has successfully progressed."),
                   condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")]}),
    );
    let conditions = |list: Value| with(&good, json!({"status": {"conditions": list}}));
    let available = condition("Available", "True", "MinimumReplicasAvailable", "");
    check(vec![
        case(
            "all replicas ready and available",
            good.clone(),
            Current,
            "Deployment is available. Replicas: 3",
        ),
        case(
            "no status",
            object("apps/v1", "Deployment", json!({}), json!({}), Value::Null),
            InProgress,
            "Replicas: 0/1",
        ),
        case(
            "extensions/v1beta1 follows the same rule",
            object(
                "extensions/v1beta1",
                "Deployment",
                json!({}),
                json!({}),
                Value::Null,
            ),
            InProgress,
            "Replicas: 0/1",
        ),
        case(
            "spec.replicas defaults to 1",
            with(
                &good,
                json!({"spec": {"replicas": null},
                "status": {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}}),
            ),
            Current,
            "Deployment is available. Replicas: 1",
        ),
        case(
            "one replica missing",
            with(&good, json!({"status": {"replicas": 2}})),
            InProgress,
            "Replicas: 2/3",
        ),
        case(
            "one replica not updated",
            with(&good, json!({"status": {"updatedReplicas": 2}})),
            InProgress,
            "Updated: 2/3",
        ),
        case(
            "one old replica left",
            with(&good, json!({"status": {"replicas": 4}})),
            InProgress,
            "Pending termination: 1",
        ),
        case(
            "two old replicas left",
            with(&good, json!({"status": {"replicas": 5}})),
            InProgress,
            "Pending termination: 2",
        ),
        case(
            "an updated replica not available",
            with(&good, json!({"status": {"availableReplicas": 2}})),
            InProgress,
            "Available: 2/3",
        ),
        case(
            "a replica not ready",
            with(&good, json!({"status": {"readyReplicas": 2}})),
            InProgress,
            "Ready: 2/3",
        ),
        case(
            "more ready than desired is no shortfall",
            with(
                &good,
                json!({"status": {"readyReplicas": 4, "availableReplicas": 4}}),
            ),
            Current,
            "Deployment is available. Replicas: 3",
        ),
        case(
            "rollout still progressing",
            conditions(json!([
                condition("Progressing", "True", "ReplicaSetUpdated", ""),
                available.clone()
            ])),
            InProgress,
            "ReplicaSet not Available",
        ),
        case(
            "no Progressing condition with a deadline",
            conditions(json!([available.clone()])),
            InProgress,
            "ReplicaSet not Available",
        ),
        case(
            "no Progressing condition without a deadline",
            with(
                &conditions(json!([available.clone()])),
                json!({"spec": {"progressDeadlineSeconds": null}}),
            ),
            Current,
            "Deployment is available. Replicas: 3",
        ),
        case(
            "the deadline set to the largest int32 is no deadline",
            with(
                &conditions(json!([available.clone()])),
                json!({"spec": {"progressDeadlineSeconds": 2147483647}}),
            ),
            Current,
            "Deployment is available. Replicas: 3",
        ),
        case(
            "progress deadline exceeded",
            conditions(json!([
                condition(
                    "Progressing",
                    "False",
                    "ProgressDeadlineExceeded",
                    "ReplicaSet \"web-2\" has timed out progressing."
                ),
                available.clone()
            ])),
            Failed,
            "Progress deadline exceeded",
        ),
        case(
            "progress deadline exceeded decides before the counts",
            with(
                &conditions(json!([condition(
                    "Progressing",
                    "False",
                    "ProgressDeadlineExceeded",
                    ""
                )])),
                json!({"status": {"readyReplicas": 0}}),
            ),
            Failed,
            "Progress deadline exceeded",
        ),
        case(
            "not Available",
            conditions(json!([
                condition("Progressing", "True", "NewReplicaSetAvailable", ""),
                condition(
                    "Available",
                    "False",
                    "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability."
                )
            ])),
            InProgress,
            "Deployment not Available",
        ),
        case(
            "no Available condition",
            conditions(json!([condition(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                ""
            )])),
            InProgress,
            "Deployment not Available",
        ),
        case(
            "scaled to zero",
            with(
                &good,
                json!({"spec": {"replicas": 0},
                "status": {"replicas": 0, "updatedReplicas": 0, "readyReplicas": 0, "availableReplicas": 0}}),
            ),
            Current,
            "Deployment is available. Replicas: 0",
        ),
    ]);
}

#[test]
fn replica_sets() {
    let good = object(
        "apps/v1",
        "ReplicaSet",
        json!({"generation": 1}),
        json!({"replicas": 3}),
        json!({"observedGeneration": 1, "replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3,
               "availableReplicas": 3}),
    );
    check(vec![
        case(
            "all replicas available",
            good.clone(),
            Current,
            "ReplicaSet is available. Replicas: 3",
        ),
        case(
            "no status",
            object("apps/v1", "ReplicaSet", json!({}), json!({}), Value::Null),
            InProgress,
            "Labelled: 0/1",
        ),
        case(
            "a replica failure",
            with(
                &good,
                json!({"status": {"conditions": [
                condition("ReplicaFailure", "True", "FailedCreate", "pods \"web-x\" is forbidden: exceeded quota")]}}),
            ),
            InProgress,
            "Replica Failure condition. Check Pods",
        ),
        case(
            "ReplicaFailure=False",
            with(
                &good,
                json!({"status": {"conditions": [condition("ReplicaFailure", "False", "", "")]}}),
            ),
            Current,
            "ReplicaSet is available. Replicas: 3",
        ),
        case(
            "a replica not fully labeled",
            with(&good, json!({"status": {"fullyLabeledReplicas": 2}})),
            InProgress,
            "Labelled: 2/3",
        ),
        case(
            "a replica not available",
            with(&good, json!({"status": {"availableReplicas": 2}})),
            InProgress,
            "Available: 2/3",
        ),
        case(
            "a replica not ready",
            with(&good, json!({"status": {"readyReplicas": 2}})),
            InProgress,
            "Ready: 2/3",
        ),
        case(
            "an extra replica",
            with(&good, json!({"status": {"replicas": 4}})),
            InProgress,
            "Pending termination: 1",
        ),
        case(
            "extensions/v1beta1 follows the same rule",
            with(
                &good,
                json!({"apiVersion": "extensions/v1beta1", "status": {"readyReplicas": 1}}),
            ),
            InProgress,
            "Ready: 1/3",
        ),
    ]);
}

#[test]
fn stateful_sets() {
    let good = object(
        "apps/v1",
        "StatefulSet",
        json!({"generation": 2}),
        json!({"replicas": 3}),
        json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3,
               "updatedReplicas": 3, "currentRevision": "db-7d9", "updateRevision": "db-7d9"}),
    );
    let partitioned = |partition: i64, updated: i64| {
        with(
            &good,
            json!({
            "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": partition}}},
            "status": {"updatedReplicas": updated, "currentReplicas": 3 - updated, "updateRevision": "db-8aa"}}),
        )
    };
    check(vec![
        case(
            "all replicas ready at one revision",
            good.clone(),
            Current,
            "All replicas scheduled as expected. Replicas: 3",
        ),
        case(
            "no status",
            object("apps/v1", "StatefulSet", json!({}), json!({}), Value::Null),
            InProgress,
            "Replicas: 0/1",
        ),
        case(
            "OnDelete, whatever the status",
            object(
                "apps/v1",
                "StatefulSet",
                json!({}),
                json!({"replicas": 3, "updateStrategy": {"type": "OnDelete"}}),
                Value::Null,
            ),
            Current,
            "StatefulSet is using the ondelete update strategy",
        ),
        case(
            "a replica missing",
            with(&good, json!({"status": {"replicas": 2}})),
            InProgress,
            "Replicas: 2/3",
        ),
        case(
            "a replica not ready",
            with(&good, json!({"status": {"readyReplicas": 2}})),
            InProgress,
            "Ready: 2/3",
        ),
        case(
            "an extra replica",
            with(
                &good,
                json!({"status": {"replicas": 4, "readyReplicas": 4}}),
            ),
            InProgress,
            "Pending termination: 1",
        ),
        case(
            "a replica not at the current revision",
            with(&good, json!({"status": {"currentReplicas": 2}})),
            InProgress,
            "current: 2/3",
        ),
        case(
            "revisions differ",
            with(&good, json!({"status": {"updateRevision": "db-8aa"}})),
            InProgress,
            "Waiting for updated revision to match current",
        ),
        case(
            "partition 1, one of the two above it updated",
            partitioned(1, 1),
            InProgress,
            "updated: 1/2",
        ),
        case(
            "partition 1, both above it updated (revisions may differ)",
            partitioned(1, 2),
            Current,
            "Partition rollout complete. updated: 2",
        ),
        case(
            "partition 0, two of three updated",
            partitioned(0, 2),
            InProgress,
            "updated: 2/3",
        ),
        case(
            "partition 0, all updated",
            partitioned(0, 3),
            Current,
            "Partition rollout complete. updated: 3",
        ),
        case(
            "a partition still needs every replica ready",
            with(&partitioned(1, 2), json!({"status": {"readyReplicas": 2}})),
            InProgress,
            "Ready: 2/3",
        ),
    ]);
}

#[test]
fn daemon_sets() {
    let good = object(
        "apps/v1",
        "DaemonSet",
        json!({"generation": 1}),
        json!({}),
        json!({"observedGeneration": 1, "desiredNumberScheduled": 4, "currentNumberScheduled": 4,
               "updatedNumberScheduled": 4, "numberAvailable": 4, "numberReady": 4}),
    );
    let without = |path: &str| {
        let mut object = good.clone();
        let (parent, key) = path.split_once('.').expect("a path");
        if let Some(map) = object[parent].as_object_mut() {
            map.remove(key);
        }
        object
    };
    check(vec![
        case(
            "all Pods ready",
            good.clone(),
            Current,
            "All replicas scheduled as expected. Replicas: 4",
        ),
        case(
            "no metadata.generation",
            without("metadata.generation"),
            InProgress,
            "DaemonSet metadata.generation not found",
        ),
        case(
            "no status.observedGeneration",
            without("status.observedGeneration"),
            InProgress,
            "DaemonSet status.observedGeneration not found",
        ),
        case(
            "no desiredNumberScheduled",
            without("status.desiredNumberScheduled"),
            InProgress,
            "Missing .status.desiredNumberScheduled",
        ),
        case(
            "a Pod not scheduled",
            with(&good, json!({"status": {"currentNumberScheduled": 3}})),
            InProgress,
            "Current: 3/4",
        ),
        case(
            "a Pod not updated",
            with(&good, json!({"status": {"updatedNumberScheduled": 3}})),
            InProgress,
            "Updated: 3/4",
        ),
        case(
            "a Pod not available",
            with(&good, json!({"status": {"numberAvailable": 3}})),
            InProgress,
            "Available: 3/4",
        ),
        case(
            "a Pod not ready",
            with(&good, json!({"status": {"numberReady": 3}})),
            InProgress,
            "Ready: 3/4",
        ),
        case(
            "no node to run on",
            with(&good, json!({"status": {"desiredNumberScheduled": 0}})),
            Current,
            "All replicas scheduled as expected. Replicas: 0",
        ),
        case(
            "extensions/v1beta1 follows the same rule",
            with(
                &good,
                json!({"apiVersion": "extensions/v1beta1", "status": {"numberReady": 1}}),
            ),
            InProgress,
            "Ready: 1/4",
        ),
    ]);
}

#[test]
fn jobs() {
    let job = |spec: Value, status: Value| {
        object("batch/v1", "Job", json!({"generation": 1}), spec, status)
    };
    let started = |conditions: Value| {
        job(
            json!({"completions": 4, "parallelism": 2}),
            json!({"startTime": NOW, "succeeded": 1, "active": 2, "failed": 1, "conditions": conditions}),
        )
    };
    check(vec![
        case(
            "not started",
            job(json!({}), Value::Null),
            InProgress,
            "Job not started",
        ),
        case(
            "started, running",
            started(json!([])),
            Current,
            "Job in progress. success:1, active: 2, failed: 1",
        ),
        case(
            "Complete=True",
            job(
                json!({"completions": 4}),
                json!({"succeeded": 4, "conditions": [condition("Complete", "True", "", "")]}),
            ),
            Current,
            "Job Completed. succeeded: 4/4",
        ),
        case(
            "completions default to parallelism",
            job(
                json!({"parallelism": 2}),
                json!({"succeeded": 2, "conditions": [condition("Complete", "True", "", "")]}),
            ),
            Current,
            "Job Completed. succeeded: 2/2",
        ),
        case(
            "Complete=False, not started",
            job(
                json!({}),
                json!({"conditions": [condition("Complete", "False", "", "")]}),
            ),
            InProgress,
            "Job not started",
        ),
        case(
            "Failed=True",
            started(json!([condition(
                "Failed",
                "True",
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit"
            )])),
            Failed,
            "Job Failed. failed: 1/4",
        ),
        case(
            "Failed=True before it started",
            job(
                json!({}),
                json!({"failed": 1, "conditions": [condition("Failed", "True", "DeadlineExceeded", "")]}),
            ),
            Failed,
            "Job Failed. failed: 1/1",
        ),
        case(
            "Failed=False, started",
            started(json!([condition("Failed", "False", "", "")])),
            Current,
            "Job in progress. success:1, active: 2, failed: 1",
        ),
        case(
            "the first true terminal condition in list order decides",
            started(json!([
                condition("Failed", "True", "", ""),
                condition("Complete", "True", "", "")
            ])),
            Failed,
            "Job Failed. failed: 1/4",
        ),
        // kstatus v0.37.2 reads no Suspended condition: a suspended Job that never started
        // is not started, whatever the spec asks.
        case(
            "suspended on purpose",
            job(
                json!({"suspend": true}),
                json!({"conditions": [condition("Suspended", "True", "JobSuspended", "")]}),
            ),
            InProgress,
            "Job not started",
        ),
        case(
            "being resumed: Suspended=True but spec.suspend false",
            job(
                json!({"suspend": false}),
                json!({"conditions": [condition("Suspended", "True", "JobSuspended", "")]}),
            ),
            InProgress,
            "Job not started",
        ),
        case(
            "being suspended: spec.suspend true, Suspended not yet True",
            job(
                json!({"suspend": true}),
                json!({"conditions": [condition("Suspended", "False", "JobResumed", "")]}),
            ),
            InProgress,
            "Job not started",
        ),
    ]);
}

#[test]
fn services() {
    let service = |spec: Value| object("v1", "Service", json!({}), spec, json!({}));
    check(vec![
        case(
            "no spec: ClusterIP",
            service(Value::Null),
            Current,
            "Service is ready",
        ),
        case(
            "NodePort",
            service(json!({"type": "NodePort", "clusterIP": "10.0.0.8"})),
            Current,
            "Service is ready",
        ),
        case(
            "ExternalName",
            service(json!({"type": "ExternalName", "externalName": "db.example.com"})),
            Current,
            "Service is ready",
        ),
        case(
            "LoadBalancer without a cluster IP",
            service(json!({"type": "LoadBalancer"})),
            InProgress,
            "ClusterIP not set. Service type: LoadBalancer",
        ),
        case(
            "LoadBalancer with an empty cluster IP",
            service(json!({"type": "LoadBalancer", "clusterIP": ""})),
            InProgress,
            "ClusterIP not set. Service type: LoadBalancer",
        ),
        case(
            "LoadBalancer with a cluster IP, no external address yet",
            service(json!({"type": "LoadBalancer", "clusterIP": "10.0.0.9"})),
            Current,
            "Service is ready",
        ),
    ]);
}

#[test]
fn custom_resource_definitions() {
    let crd = |api_version: &str, conditions: Value| {
        object(
            api_version,
            "CustomResourceDefinition",
            json!({"generation": 1}),
            json!({}),
            json!({"conditions": conditions}),
        )
    };
    let v1 = |conditions: Value| crd("apiextensions.k8s.io/v1", conditions);
    check(vec![
        case(
            "no conditions",
            v1(json!([])),
            InProgress,
            "Install in progress",
        ),
        case(
            "names accepted, installing",
            v1(json!([
                condition("NamesAccepted", "True", "NoConflicts", ""),
                condition(
                    "Established",
                    "False",
                    "Installing",
                    "the initial names have not been accepted"
                )
            ])),
            InProgress,
            "Install in progress",
        ),
        case(
            "established",
            v1(json!([
                condition("NamesAccepted", "True", "NoConflicts", ""),
                condition("Established", "True", "InitialNamesAccepted", "")
            ])),
            Current,
            "CRD is established",
        ),
        case(
            "names not accepted",
            v1(json!([
                condition(
                    "NamesAccepted",
                    "False",
                    "ListKindConflict",
                    "\"WidgetList\" is already in use"
                ),
                condition(
                    "Established",
                    "False",
                    "NotAccepted",
                    "not all names are accepted"
                )
            ])),
            Failed,
            "\"WidgetList\" is already in use",
        ),
        case(
            "not established for a reason other than installing",
            v1(json!([
                condition("NamesAccepted", "Unknown", "", ""),
                condition(
                    "Established",
                    "False",
                    "NotAccepted",
                    "not all names are accepted"
                )
            ])),
            Failed,
            "not all names are accepted",
        ),
        case(
            "the first deciding condition in list order wins",
            v1(json!([
                condition("Established", "True", "InitialNamesAccepted", ""),
                condition("NamesAccepted", "False", "ListKindConflict", "")
            ])),
            Current,
            "CRD is established",
        ),
        case(
            "v1beta1 follows the same rule",
            crd(
                "apiextensions.k8s.io/v1beta1",
                json!([condition("NamesAccepted", "False", "KindConflict", "")]),
            ),
            Failed,
            "",
        ),
    ]);
}

#[test]
fn kinds_with_nothing_to_wait_for() {
    let not_ready = json!({"conditions": [condition("Ready", "False", "R", "never read")]});
    check(vec![
        case(
            "ConfigMap",
            object("v1", "ConfigMap", json!({}), Value::Null, Value::Null),
            Current,
            "Resource is always ready",
        ),
        case(
            "Secret",
            object("v1", "Secret", json!({}), Value::Null, Value::Null),
            Current,
            "Resource is always ready",
        ),
        case(
            "CronJob, even with a Ready=False",
            object(
                "batch/v1",
                "CronJob",
                json!({"generation": 1}),
                json!({"schedule": "* * * * *"}),
                not_ready,
            ),
            Current,
            "Resource is always ready",
        ),
        case(
            "a CronJob's new spec not yet observed is still caught by the generic rules",
            object(
                "batch/v1",
                "CronJob",
                json!({"generation": 2}),
                json!({}),
                json!({"observedGeneration": 1}),
            ),
            InProgress,
            "CronJob generation is 2, but latest observed generation is 1",
        ),
        case(
            "PodDisruptionBudget observed",
            object(
                "policy/v1",
                "PodDisruptionBudget",
                json!({"generation": 2}),
                json!({}),
                json!({"observedGeneration": 2}),
            ),
            Current,
            "AllowedDisruptions has been computed.",
        ),
        case(
            "PodDisruptionBudget not observed",
            object(
                "policy/v1beta1",
                "PodDisruptionBudget",
                json!({"generation": 2}),
                json!({}),
                json!({"observedGeneration": 1}),
            ),
            InProgress,
            "PodDisruptionBudget generation is 2, but latest observed generation is 1",
        ),
    ]);
}

/// The typed entry points read k8s-openapi's objects exactly as their JSON.
#[test]
fn typed_objects_read_as_their_json() {
    use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::core::v1::{Pod, Service};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

    fn same<K: serde::de::DeserializeOwned + serde::Serialize>(object: Value) {
        let typed: K = serde_json::from_value(object.clone()).expect("the typed object");
        assert_eq!(
            compute_for_at(&typed, now()),
            compute_at(&object, now()),
            "{object}"
        );
    }
    let spec = json!({"selector": {}, "template": {}});
    same::<Deployment>(object(
        "apps/v1",
        "Deployment",
        json!({"generation": 1}),
        with(&spec, json!({"replicas": 2})),
        json!({"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 1}),
    ));
    same::<StatefulSet>(object(
        "apps/v1",
        "StatefulSet",
        json!({}),
        with(&spec, json!({"serviceName": "db"})),
        json!({"replicas": 1, "readyReplicas": 1, "currentReplicas": 1}),
    ));
    same::<DaemonSet>(object(
        "apps/v1",
        "DaemonSet",
        json!({"generation": 1}),
        spec.clone(),
        json!({"observedGeneration": 1, "desiredNumberScheduled": 2, "currentNumberScheduled": 2,
               "numberMisscheduled": 0, "numberReady": 2}),
    ));
    same::<Job>(object(
        "batch/v1",
        "Job",
        json!({}),
        json!({"template": {}}),
        json!({"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}),
    ));
    same::<Pod>(object(
        "v1",
        "Pod",
        json!({"creationTimestamp": seconds_before_now(5)}),
        Value::Null,
        json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}),
    ));
    same::<Service>(object(
        "v1",
        "Service",
        json!({}),
        json!({"type": "LoadBalancer"}),
        Value::Null,
    ));
    same::<CustomResourceDefinition>(object(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        json!({}),
        json!({"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced", "versions": []}),
        json!({"conditions": [{"type": "Established", "status": "True"}]}),
    ));

    let web: Deployment = serde_json::from_value(object(
        "apps/v1",
        "Deployment",
        json!({}),
        spec,
        Value::Null,
    ))
    .expect("a Deployment");
    let result = ObjectResult::of_at(&web, now());
    assert_eq!(result.label(), "Deployment/test");
    assert_eq!(result.result, compute_for_at(&web, now()));
    assert!(!result.is_current());
}
