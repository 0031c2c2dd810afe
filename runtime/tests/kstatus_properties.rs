//! Properties of `kondition::kstatus` over random objects: Current is never reported before
//! every one of the kind's conditions for it holds (the dangerous direction for whatever waits
//! on the answer), Failed only for the reasons the rules name, and no object, however odd its
//! fields, makes the computation panic.

use k8s_openapi::jiff::Timestamp;
use kondition::kstatus::{KStatus, compute_at};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn now() -> Timestamp {
    "2024-05-01T12:00:00Z".parse().expect("a time")
}

/// A count that may be missing.
fn count() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![Just(None), (0i64..4).prop_map(Some)]
}

/// Puts `value` at `key` when it is there.
fn put(map: &mut Map<String, Value>, key: &str, value: Option<i64>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), json!(value));
    }
}

fn condition_status() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("True"), Just("False"), Just("Unknown")]
}

/// A condition's status and one of `reasons`, or no condition.
fn maybe_condition(
    reasons: &'static [&'static str],
) -> impl Strategy<Value = Option<(&'static str, &'static str)>> {
    proptest::option::of((condition_status(), proptest::sample::select(reasons)))
}

fn conditions(list: &[(&str, Option<(&str, &str)>)]) -> Value {
    Value::Array(
        list.iter()
            .filter_map(|(type_, c)| {
                c.map(|(status, reason)| json!({"type": type_, "status": status, "reason": reason}))
            })
            .collect(),
    )
}

fn at_least(have: Option<i64>, want: i64) -> bool {
    have.unwrap_or(0) >= want
}

proptest! {
    #[test]
    fn a_deployment_is_current_only_when_rolled_out_and_available(
        desired in count(), replicas in count(), updated in count(), ready in count(),
        available in count(), deadline in proptest::option::of(Just(600i64)),
        progressing in maybe_condition(&["NewReplicaSetAvailable", "ReplicaSetUpdated", "ProgressDeadlineExceeded"]),
        available_condition in maybe_condition(&["MinimumReplicasAvailable", "MinimumReplicasUnavailable"]),
    ) {
        let mut spec = Map::new();
        put(&mut spec, "replicas", desired);
        put(&mut spec, "progressDeadlineSeconds", deadline);
        let mut status = Map::new();
        put(&mut status, "replicas", replicas);
        put(&mut status, "updatedReplicas", updated);
        put(&mut status, "readyReplicas", ready);
        put(&mut status, "availableReplicas", available);
        status.insert("conditions".into(), conditions(&[("Progressing", progressing), ("Available", available_condition)]));
        let object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                            "spec": spec, "status": status});
        let result = compute_at(&object, now());

        let desired = desired.unwrap_or(1);
        let deadline_exceeded = progressing.is_some_and(|(_, reason)| reason == "ProgressDeadlineExceeded");
        prop_assert_eq!(result.status == KStatus::Failed, deadline_exceeded, "{}", result.message);
        if result.status == KStatus::Current {
            prop_assert!(at_least(replicas, desired) && replicas.unwrap_or(0) <= desired);
            prop_assert!(at_least(updated, desired) && at_least(ready, desired));
            prop_assert!(at_least(available, updated.unwrap_or(0)));
            prop_assert!(available_condition.is_some_and(|(status, _)| status == "True"));
            prop_assert!(deadline.is_none() || progressing == Some(("True", "NewReplicaSetAvailable")));
        }
        prop_assert_ne!(result.status, KStatus::Terminating);
    }

    #[test]
    fn a_replica_set_is_current_only_with_every_replica_available(
        desired in count(), replicas in count(), labeled in count(), ready in count(),
        available in count(),
        failure in maybe_condition(&["FailedCreate"]),
    ) {
        let mut status = Map::new();
        put(&mut status, "replicas", replicas);
        put(&mut status, "fullyLabeledReplicas", labeled);
        put(&mut status, "readyReplicas", ready);
        put(&mut status, "availableReplicas", available);
        status.insert("conditions".into(), conditions(&[("ReplicaFailure", failure)]));
        let mut spec = Map::new();
        put(&mut spec, "replicas", desired);
        let object = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r"},
                            "spec": spec, "status": status});
        let result = compute_at(&object, now());
        let desired = desired.unwrap_or(1);
        prop_assert_ne!(result.status, KStatus::Failed);
        if result.status == KStatus::Current {
            prop_assert!(failure.is_none_or(|(status, _)| status != "True"));
            prop_assert!(at_least(labeled, desired) && at_least(available, desired) && at_least(ready, desired));
            prop_assert!(replicas.unwrap_or(0) <= desired);
        }
    }

    #[test]
    fn a_stateful_set_is_current_only_when_its_rollout_is_done(
        desired in count(), replicas in count(), ready in count(), current in count(),
        updated in count(), partition in proptest::option::of(0i64..3), on_delete in any::<bool>(),
        same_revision in any::<bool>(),
    ) {
        let mut spec = Map::new();
        put(&mut spec, "replicas", desired);
        if on_delete {
            spec.insert("updateStrategy".into(), json!({"type": "OnDelete"}));
        } else if let Some(partition) = partition {
            spec.insert("updateStrategy".into(), json!({"type": "RollingUpdate", "rollingUpdate": {"partition": partition}}));
        }
        let mut status = Map::new();
        put(&mut status, "replicas", replicas);
        put(&mut status, "readyReplicas", ready);
        put(&mut status, "currentReplicas", current);
        put(&mut status, "updatedReplicas", updated);
        status.insert("currentRevision".into(), json!("a"));
        status.insert("updateRevision".into(), json!(if same_revision { "a" } else { "b" }));
        let object = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
                            "spec": spec, "status": status});
        let result = compute_at(&object, now());
        let desired = desired.unwrap_or(1);
        prop_assert_ne!(result.status, KStatus::Failed);
        if result.status == KStatus::Current && !on_delete {
            prop_assert!(at_least(replicas, desired) && at_least(ready, desired));
            prop_assert!(replicas.unwrap_or(0) <= desired);
            match partition {
                Some(partition) => prop_assert!(at_least(updated, desired - partition)),
                None => prop_assert!(at_least(current, desired) && same_revision),
            }
        }
    }

    #[test]
    fn a_daemon_set_is_current_only_with_every_pod_ready(
        generation in count(), observed in count(), desired in count(), scheduled in count(),
        updated in count(), available in count(), ready in count(),
    ) {
        let mut metadata = Map::new();
        metadata.insert("name".into(), json!("d"));
        put(&mut metadata, "generation", generation);
        let mut status = Map::new();
        put(&mut status, "observedGeneration", observed);
        put(&mut status, "desiredNumberScheduled", desired);
        put(&mut status, "currentNumberScheduled", scheduled);
        put(&mut status, "updatedNumberScheduled", updated);
        put(&mut status, "numberAvailable", available);
        put(&mut status, "numberReady", ready);
        let object = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": metadata, "status": status});
        let result = compute_at(&object, now());
        prop_assert_ne!(result.status, KStatus::Failed);
        if result.status == KStatus::Current {
            prop_assert!(generation.is_some() && generation == observed);
            let desired = desired.unwrap_or(i64::MAX);
            prop_assert!(at_least(scheduled, desired) && at_least(updated, desired));
            prop_assert!(at_least(available, desired) && at_least(ready, desired));
        }
    }

    #[test]
    fn a_pod_is_current_only_when_finished_or_ready_and_failed_only_when_stuck(
        phase in proptest::option::of(proptest::sample::select(&["Pending", "Running", "Succeeded", "Failed", "Unknown"][..])),
        ready in maybe_condition(&["", "ContainersNotReady"]),
        scheduled in maybe_condition(&["Unschedulable", "SchedulingGated"]),
        crash_looping in any::<bool>(),
        age in proptest::option::of(0i64..40),
    ) {
        let mut metadata = Map::new();
        metadata.insert("name".into(), json!("p"));
        if let Some(age) = age {
            let created = now().checked_sub(k8s_openapi::jiff::SignedDuration::from_secs(age)).expect("in range");
            metadata.insert("creationTimestamp".into(), json!(created.to_string()));
        }
        let mut status = Map::new();
        if let Some(phase) = phase {
            status.insert("phase".into(), json!(phase));
        }
        status.insert("conditions".into(), conditions(&[("Ready", ready), ("PodScheduled", scheduled)]));
        let waiting = if crash_looping { "CrashLoopBackOff" } else { "ContainerCreating" };
        status.insert("containerStatuses".into(), json!([{"name": "app", "state": {"waiting": {"reason": waiting}}}]));
        let object = json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "status": status});
        let result = compute_at(&object, now());

        let is_ready = ready.is_some_and(|(status, _)| status == "True");
        match result.status {
            KStatus::Current => prop_assert!(
                matches!(phase, Some("Succeeded" | "Failed")) || (phase == Some("Running") && is_ready)
            ),
            KStatus::Failed => {
                let unschedulable = scheduled == Some(("False", "Unschedulable"));
                let past_grace = age.is_none_or(|age| age >= 15);
                prop_assert!(
                    (phase == Some("Running") && !is_ready && crash_looping)
                        || (phase == Some("Pending") && unschedulable && past_grace),
                    "{}", result.message
                );
            }
            KStatus::InProgress => {}
            KStatus::Terminating => prop_assert!(false, "not deleted"),
        }
    }

    #[test]
    fn a_job_is_failed_only_when_marked_so_and_current_only_once_started_or_done(
        started in any::<bool>(), suspend in any::<bool>(),
        first in maybe_condition(&["Complete", "Failed", "Suspended"]),
        second in maybe_condition(&["Complete", "Failed", "Suspended"]),
    ) {
        // The reason slot carries the condition type here.
        let list: Vec<Value> = [first, second].iter().flatten()
            .map(|(status, type_)| json!({"type": type_, "status": status}))
            .collect();
        let mut status = Map::new();
        if started {
            status.insert("startTime".into(), json!("2024-05-01T11:00:00Z"));
        }
        status.insert("conditions".into(), Value::Array(list));
        let object = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                            "spec": {"suspend": suspend}, "status": status});
        let result = compute_at(&object, now());

        // kstatus reads no Suspended condition, whatever spec.suspend says.
        let _ = suspend;
        let deciding = [first, second].into_iter().flatten()
            .find(|&(status, type_)| status == "True" && type_ != "Suspended")
            .map(|(_, type_)| type_);
        prop_assert_eq!(result.status == KStatus::Failed, deciding == Some("Failed"), "{}", result.message);
        if result.status == KStatus::Current {
            prop_assert!(started || deciding == Some("Complete"));
        }
    }

    #[test]
    fn no_object_makes_it_panic(object in object()) {
        // Any field of any JSON type: a result, never a panic. (The message may be empty:
        // kstatus repeats a deciding condition's message, even an empty one.)
        let result = compute_at(&object, now());
        let deleting = object["metadata"]["deletionTimestamp"]
            .as_str()
            .is_some_and(|t| !t.is_empty());
        prop_assert_eq!(result.status == KStatus::Terminating, deleting);
    }
}

/// Objects of every kind with a rule (and a custom one), whose fields are random JSON.
fn object() -> impl Strategy<Value = Value> {
    const KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("v1", "PersistentVolumeClaim"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("apps/v1", "Deployment"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "StatefulSet"),
        ("apps/v1", "DaemonSet"),
        ("batch/v1", "Job"),
        ("batch/v1", "CronJob"),
        ("policy/v1", "PodDisruptionBudget"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ("example.com/v1", "Widget"),
    ];
    (proptest::sample::select(KINDS), json_value(), json_value(), json_value()).prop_map(
        |((api_version, kind), metadata, spec, status)| {
            json!({"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec, "status": status})
        },
    )
}

/// Random JSON whose keys are the ones the rules read, so the odd shapes reach them.
fn json_value() -> impl Strategy<Value = Value> {
    let keys = proptest::sample::select(
        &[
            "replicas",
            "readyReplicas",
            "conditions",
            "type",
            "status",
            "reason",
            "phase",
            "generation",
            "observedGeneration",
            "containerStatuses",
            "state",
            "waiting",
            "creationTimestamp",
            "deletionTimestamp",
            "updateStrategy",
            "rollingUpdate",
            "partition",
            "desiredNumberScheduled",
            "startTime",
            "suspend",
            "clusterIP",
        ][..],
    );
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..5).prop_map(Value::from),
        (-1.5f64..1.5).prop_map(Value::from),
        proptest::sample::select(
            &[
                "True",
                "False",
                "Running",
                "Pending",
                "",
                "2024-05-01T11:59:50Z",
                "LoadBalancer",
                "CrashLoopBackOff",
                "Unschedulable"
            ][..]
        )
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(keys.clone(), inner, 0..6).prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}
