//! Soak: 1,000 objects reconciled by a real `kube::runtime::Controller` through the status
//! chokepoint, against the stateful stand-in (`kondition_tests::fake_cluster`) injecting
//! random API faults while specs keep changing. Afterwards every object's stored status must
//! be that of its latest generation, and no status computed from a stale copy may ever have
//! been written. Time is tokio's paused clock, so minutes of backoff take no wall time.
//!
//! `cargo test -p kondition-tests --test soak -- --nocapture` prints the figures. The faults
//! are drawn from a fixed seed, so that every run meets every kind of fault (a fresh seed
//! could draw none of a rare one); `KONDITION_SOAK_SEED=<n>` sets another, to explore.
//!
//! A cohort of objects has a status the API server rejects on every apply: after its first
//! rejection each must see no write and no event, however often it is reconciled.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures::StreamExt;
use kondition::controller::{StatusReconciler, error_policy};
use kondition::{Failure, StatusResource};
use kondition_tests::fake_cluster::{FakeCluster, Faults};
use kondition_tests::kinds::Widget;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::{Controller, watcher};
use kube::{Api, CustomResourceExt};
use serde_json::json;

const OBJECTS: usize = 1_000;

/// The faults' seed unless `KONDITION_SOAK_SEED` says otherwise.
const SEED: u64 = 20_261_123;

/// Objects whose status the API server rejects on every apply (a negative size is seen, and
/// the CRD's schema wants `seenSize >= 0`): after the first rejection each must be a steady
/// state, with no write and no event.
const REJECTED: usize = 50;

/// The faults while the soak runs: about one request in five fails one way or another.
const FAULTS: Faults = Faults {
    reset: 0.03,
    timeout: 0.02,
    lost_response: 0.03,
    throttle: 0.04,
    server_error: 0.04,
    spurious_conflict: 0.03,
    reject: 0.03,
    failed_list: 0.2,
    cut_watch: 0.01,
    compaction: 0.002,
    delayed_event: 0.05,
};

struct Context {
    reconciler: StatusReconciler<Widget>,
    cluster: FakeCluster,
    /// While true, a reconcile body fails now and then (a cloud API error).
    failing: AtomicBool,
    /// Reconciles run.
    reconciles: AtomicU64,
    /// Reconcile bodies that failed.
    body_failures: AtomicU64,
    /// Status writes that failed, so the error policy requeued.
    write_errors: AtomicU64,
    /// Of those, how many were 409 Conflict.
    write_conflicts: AtomicU64,
}

/// What the controller's side counted.
#[derive(Debug)]
#[allow(dead_code)] // Read through Debug.
struct Counts {
    reconciles: u64,
    body_failures: u64,
    write_errors: u64,
    write_conflicts: u64,
}

#[tokio::test(start_paused = true)]
async fn a_thousand_objects_under_api_faults_end_with_their_latest_status() {
    let started = std::time::Instant::now();
    let (cluster, settled, counts) = soak(true).await;
    let stats = cluster.stats();
    eprintln!(
        "{counts:#?}\n{stats:#?}\nwall time: {:?}",
        started.elapsed()
    );
    let objects = cluster.objects();
    // The rejected cohort: one write (the first fallback) and at most one event each (none
    // when the fallback's response was lost), however often it was reconciled.
    let events = cluster.events();
    for i in 0..REJECTED {
        let name = format!("r{i:03}");
        let object = &objects[&name];
        assert!(rejected(object), "{object:#}");
        assert_eq!(
            cluster.writes_of(&name),
            1,
            "{name} was written again: {object:#}"
        );
        let reported = events
            .iter()
            .filter(|e| e["regarding"]["name"] == name.as_str())
            .count();
        assert!(reported <= 1, "{name} has {reported} events");
    }
    let behind: Vec<&String> = objects
        .iter()
        .filter(|(name, _)| name.starts_with('w'))
        .filter(|(_, object)| !current(object))
        .map(|(name, _)| name)
        .collect();
    assert!(
        behind.is_empty(),
        "{} objects without their latest status after an hour, such as {:?}",
        behind.len(),
        behind.first().map(|name| &objects[*name])
    );
    // The fallback manager released every field it held on the objects that recovered: no
    // condition keeps a severity it left behind, and it owns nothing.
    let held: Vec<&String> = objects
        .iter()
        .filter(|(name, _)| name.starts_with('w'))
        .filter(|(_, object)| holds_fallback_fields(object))
        .map(|(name, _)| name)
        .collect();
    assert!(
        held.is_empty(),
        "{} objects still hold fields of the fallback manager, such as {:?}",
        held.len(),
        held.first().map(|name| &objects[*name])
    );
    assert!(settled, "the objects did not settle within an hour");
    assert_eq!(objects.len(), OBJECTS + REJECTED);
    assert_eq!(
        stats.stale_writes, 0,
        "a status from a stale copy was written"
    );
    // The faults did happen.
    assert!(stats.spec_changes >= 1_000);
    for (fault, count) in [
        ("resets", stats.resets),
        ("timeouts", stats.timeouts),
        ("lost responses", stats.lost_responses),
        ("429s", stats.throttled),
        ("500s", stats.server_errors),
        ("spurious 409s", stats.spurious_conflicts),
        ("422s", stats.rejections),
        ("fallback writes", stats.fallback_writes),
        ("fallback releases", stats.releases),
        ("conflicts", stats.conflicts),
        ("failed lists", stats.failed_lists),
        ("cut watches", stats.cut_watches),
        ("410s", stats.gone),
        ("delayed events", stats.delayed_events),
    ] {
        assert!(count > 0, "no {fault} happened");
    }
}

/// The same run against a server that ignores the precondition: stale copies then do
/// overwrite newer statuses. This is what the check above would catch if the chokepoint
/// stopped sending the precondition.
#[tokio::test(start_paused = true)]
async fn without_the_precondition_stale_copies_overwrite_newer_statuses() {
    let (cluster, _, _) = soak(false).await;
    let stats = cluster.stats();
    eprintln!("without preconditions: {stats:#?}");
    assert!(stats.stale_writes > 0, "{stats:#?}");
    assert_eq!(stats.conflicts, 0);
}

/// Creates the objects, runs the controller through two minutes of faults and spec
/// changes, then up to an hour of quiet until every object is current; returns the
/// cluster, whether everything settled, and the controller's counts.
async fn soak(preconditions: bool) -> (FakeCluster, bool, Counts) {
    let seed = std::env::var("KONDITION_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    eprintln!("KONDITION_SOAK_SEED={seed}");
    let cluster = FakeCluster::new(&Widget::crd(), "team-a", seed);
    if !preconditions {
        cluster.ignore_preconditions();
    }
    for i in 0..OBJECTS {
        cluster.create(&format!("w{i:04}"), json!({"size": i}));
    }
    for i in 0..REJECTED {
        cluster.create(&format!("r{i:03}"), json!({"size": -1}));
    }
    cluster.validate_status(|status| {
        status["seenSize"]
            .as_i64()
            .is_some_and(|size| size < 0)
            .then(|| {
                "status.seenSize: Invalid value: -1: must be greater than or equal to 0".to_owned()
            })
    });
    cluster.set_faults(FAULTS);

    let client = cluster.client();
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let context = Arc::new(Context {
        reconciler: StatusReconciler::new(client.clone())
            .recorder(Recorder::new(client.clone(), reporter)),
        cluster: cluster.clone(),
        failing: AtomicBool::new(true),
        reconciles: AtomicU64::new(0),
        body_failures: AtomicU64::new(0),
        write_errors: AtomicU64::new(0),
        write_conflicts: AtomicU64::new(0),
    });
    let controller = Controller::new(Api::<Widget>::all(client), watcher::Config::default())
        .run(
            |object, context: Arc<Context>| async move {
                // The rejected cohort's body never fails: its status stays the rejected one.
                let fail = context.failing.load(Ordering::Relaxed)
                    && object
                        .metadata
                        .name
                        .as_deref()
                        .is_some_and(|n| n.starts_with('w'))
                    && context.cluster.random() < 0.05;
                context.reconciles.fetch_add(1, Ordering::Relaxed);
                if fail {
                    context.body_failures.fetch_add(1, Ordering::Relaxed);
                }
                context
                    .reconciler
                    .reconcile(object, async |widget: &mut Widget| {
                        if fail {
                            return Err(Failure::retryable("Throttled", "the cloud API is busy"));
                        }
                        widget.status_mut().seen_size = Some(widget.spec.size);
                        Ok(())
                    })
                    .await
            },
            |object, error, context| {
                context.write_errors.fetch_add(1, Ordering::Relaxed);
                if error.is_conflict() {
                    context.write_conflicts.fetch_add(1, Ordering::Relaxed);
                }
                error_policy(object, error, Duration::from_secs(1))
            },
            context.clone(),
        )
        .for_each(|_| async {});
    let running = tokio::spawn(controller);

    // Two minutes of faults while specs change: ten changes a second. Once a watch runs, the
    // history is compacted under it, so that its next watch gets 410 Gone whatever the random
    // compactions do (the one `set_faults` makes comes before any watch).
    let mut compacted = false;
    for step in 0..1_200u64 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if !compacted && cluster.stats().watches > 0 {
            cluster.compact();
            compacted = true;
        }
        let name = format!("w{:04}", (cluster.random() * OBJECTS as f64) as usize);
        cluster.bump(&name, |spec| spec["size"] = json!(step as i64 + 10_000));
    }
    cluster.set_faults(Faults::NONE);
    context.failing.store(false, Ordering::Relaxed);

    // Then quiet: every object must settle on its latest generation.
    let settle = async {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            // Settled is current with nothing left of the fallback manager: a release still
            // to come (its first attempt timed out as the faults stopped) is waited for.
            if cluster
                .objects()
                .values()
                .all(|o| (current(o) && !holds_fallback_fields(o)) || rejected(o))
            {
                break;
            }
        }
    };
    let settled = tokio::time::timeout(Duration::from_secs(3_600), settle)
        .await
        .is_ok();
    running.abort();
    let counts = Counts {
        reconciles: context.reconciles.load(Ordering::Relaxed),
        body_failures: context.body_failures.load(Ordering::Relaxed),
        write_errors: context.write_errors.load(Ordering::Relaxed),
        write_conflicts: context.write_conflicts.load(Ordering::Relaxed),
    };
    (cluster, settled, counts)
}

/// Whether `object` is one of the rejected cohort, with its rejection reported for its
/// generation: Ready False, `StatusRejected`, and no `observedGeneration` (never accepted).
fn rejected(object: &serde_json::Value) -> bool {
    let generation = &object["metadata"]["generation"];
    let status = &object["status"];
    let ready = status["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"));
    object["spec"]["size"] == -1
        && status.get("observedGeneration").is_none()
        && ready.is_some_and(|r| {
            r["status"] == "False"
                && r["reason"] == "StatusRejected"
                && r["observedGeneration"] == *generation
        })
}

/// Whether `object`'s stored status is that of its generation: observedGeneration, Ready
/// True for that generation, and the spec's size seen.
fn current(object: &serde_json::Value) -> bool {
    let generation = &object["metadata"]["generation"];
    let status = &object["status"];
    let ready = status["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"));
    status["observedGeneration"] == *generation
        && status["seenSize"] == object["spec"]["size"]
        && ready.is_some_and(|r| r["status"] == "True" && r["observedGeneration"] == *generation)
}

/// Whether the fallback manager still owns fields of `object`, or left a severity behind on
/// its Ready condition (a successful reconcile's Ready has none).
fn holds_fallback_fields(object: &serde_json::Value) -> bool {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|entry| entry["manager"] == "example.com/widget-controller-fallback")
        || object["status"]["conditions"][0].get("severity").is_some()
}
