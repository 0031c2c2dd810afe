//! A failure that persists is a steady state: a status the API server keeps rejecting, or a
//! body that keeps failing the same way, writes nothing after its first report, bumps no
//! resourceVersion and records no further event, while the full apply is retried on its
//! backoff (never on the watch event the fallback caused). And the chokepoint's memory of
//! objects stays bounded. Time is tokio's paused clock.

use std::sync::Arc;
use std::time::Duration;

use kondition::controller::StatusReconciler;
use kondition::{Failure, StatusResource};
use kondition_tests::fake_cluster::{CREATOR, FakeCluster};
use kondition_tests::kinds::{KstatusWidget, StandardWidget};
use kube::CustomResourceExt;
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use serde_json::{Value, json};

const INVALID: &str = "status.endpoint: Invalid value: \"x\": must be host:port";

/// A cluster of standard widgets whose status is invalid when its endpoint is `x`.
fn cluster() -> FakeCluster {
    let cluster = FakeCluster::new(&StandardWidget::crd(), "team-a", 1);
    cluster.validate_status(|status| (status["endpoint"] == "x").then(|| INVALID.to_owned()));
    cluster
}

fn reconciler(cluster: &FakeCluster) -> StatusReconciler<StandardWidget> {
    let client = cluster.client();
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    StatusReconciler::new(client.clone()).recorder(Recorder::new(client, reporter))
}

/// One reconcile of the stored `name` whose body sets `endpoint` (or fails with `error`).
async fn reconcile(
    cluster: &FakeCluster,
    reconciler: &StatusReconciler<StandardWidget>,
    name: &str,
    outcome: Result<&str, Failure>,
) -> Action {
    let object: StandardWidget = cluster.get(name).expect("stored");
    reconciler
        .reconcile(
            Arc::new(object),
            async |w: &mut StandardWidget| -> Result<(), Failure> {
                let endpoint = outcome?;
                w.status_mut().endpoint = Some(endpoint.to_owned());
                Ok(())
            },
        )
        .await
        .expect("written")
}

fn ready(object: &Value) -> Value {
    object["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
        .cloned()
        .unwrap_or(Value::Null)
}

fn stored(cluster: &FakeCluster, name: &str) -> Value {
    cluster.objects().remove(name).expect("stored")
}

#[tokio::test(start_paused = true)]
async fn a_status_rejected_every_time_writes_once() {
    let cluster = cluster();
    cluster.create("w1", json!({"size": 3}));
    let reconciler = reconciler(&cluster);

    // First reconcile: the full apply is rejected, the fallback says so, one event.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
    assert_eq!(
        action,
        Action::requeue(Duration::from_secs(5)),
        "the backoff, not the resync"
    );
    let first = stored(&cluster, "w1");
    assert_eq!(
        (
            ready(&first)["status"].clone(),
            ready(&first)["reason"].clone()
        ),
        (json!("False"), json!("StatusRejected"))
    );
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.events, stats.invalid), (1, 1, 1));

    // The reconcile the fallback's own watch event causes, at once: nothing is sent at all,
    // and the requeue still waits for the backoff.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(cluster.stats().requests, stats.requests, "no request");

    // Then each requeue retries the full apply once, on a growing backoff, and writes
    // nothing: the fallback already stored says the same.
    let mut delay = Duration::from_secs(5);
    for next in [10, 20, 40, 80, 160, 300, 300, 300, 300, 300] {
        tokio::time::advance(delay).await;
        let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
        delay = Duration::from_secs(next);
        assert_eq!(action, Action::requeue(delay));
    }
    let stats = cluster.stats();
    assert_eq!(
        (stats.writes, stats.events, stats.invalid),
        (1, 1, 11),
        "{stats:#?}"
    );
    let last = stored(&cluster, "w1");
    assert_eq!(
        last["metadata"]["resourceVersion"],
        first["metadata"]["resourceVersion"]
    );
    assert_eq!(
        ready(&last)["lastTransitionTime"],
        ready(&first)["lastTransitionTime"]
    );
    assert_eq!(reconciler.tracked_objects(), 1);

    // A new status is applied at once, accepted, and the fallback gives its fields up.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("10.0.0.7:443")).await;
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));
    let accepted = stored(&cluster, "w1");
    assert_eq!(ready(&accepted)["status"], "True");
    assert_eq!(accepted["status"]["endpoint"], "10.0.0.7:443");
    let managers: Vec<_> = accepted["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["manager"].clone())
        .collect();
    // The fallback manager's entry is gone; the creator's (the spec) stays.
    assert_eq!(
        managers,
        [
            json!("example.com/standardwidget-controller"),
            json!(CREATOR)
        ]
    );
    let stats = cluster.stats();
    assert_eq!(
        (stats.writes, stats.events),
        (3, 2),
        "the apply, the release; Ready became True"
    );
    assert_eq!(reconciler.tracked_objects(), 0);
}

/// The same without memory, as after a restart of the controller: the full apply is sent
/// and rejected again, but the fallback computed equals the stored one, so still no write.
#[tokio::test(start_paused = true)]
async fn a_new_controller_meets_the_stored_fallback_without_writing() {
    let cluster = cluster();
    cluster.create("w1", json!({"size": 3}));
    reconcile(&cluster, &reconciler(&cluster), "w1", Ok("x")).await;
    let first = stored(&cluster, "w1");
    for _ in 0..5 {
        tokio::time::advance(Duration::from_secs(1)).await;
        reconcile(&cluster, &reconciler(&cluster), "w1", Ok("x")).await;
    }
    let stats = cluster.stats();
    assert_eq!(
        (stats.writes, stats.events, stats.invalid),
        (1, 1, 6),
        "{stats:#?}"
    );
    assert_eq!(stored(&cluster, "w1"), first);
}

/// A kstatus kind: the fallback's Ready, Reconciling and Stalled all stay put.
#[tokio::test(start_paused = true)]
async fn the_companions_of_a_rejected_status_stay_put() {
    let cluster = FakeCluster::new(&KstatusWidget::crd(), "team-a", 1);
    cluster.validate_status(|status| (status["endpoint"] == "x").then(|| INVALID.to_owned()));
    cluster.create("w1", json!({"size": 3}));
    let reconciler = StatusReconciler::<KstatusWidget>::new(cluster.client());
    let mut stored_objects = Vec::new();
    for step in 0..8u64 {
        tokio::time::advance(Duration::from_secs(step * 7)).await;
        let object: KstatusWidget = cluster.get("w1").expect("stored");
        reconciler
            .reconcile(Arc::new(object), async |w: &mut KstatusWidget| {
                w.status_mut().endpoint = Some("x".into());
                Ok::<(), Failure>(())
            })
            .await
            .expect("written");
        stored_objects.push(stored(&cluster, "w1"));
    }
    assert!(
        stored_objects.windows(2).all(|w| w[0] == w[1]),
        "nothing changes"
    );
    assert_eq!(cluster.stats().writes, 1);
    let stored = &stored_objects[0];
    assert_eq!(
        kondition::kstatus::compute(stored).status,
        kondition::kstatus::KStatus::InProgress
    );
}

/// Events are recorded when the summary's status or reason changes, and only then.
#[tokio::test(start_paused = true)]
async fn events_follow_changes_of_the_summary_only() {
    let cluster = cluster();
    cluster.create("w1", json!({"size": 3}));
    let reconciler = reconciler(&cluster);
    let throttled = || Err(Failure::retryable("Throttled", "the cloud API is busy"));
    let steps: [(Result<&str, Failure>, &str); 9] = [
        (throttled(), "Throttled"),
        (throttled(), ""),
        (Ok("x"), "StatusRejected"),
        (Ok("x"), ""),
        (Ok("10.0.0.7:443"), "ReconciliationSuccess"),
        (Ok("10.0.0.7:443"), ""),
        (
            Err(Failure::fatal("InvalidSize", "size must be even")),
            "InvalidSize",
        ),
        (Err(Failure::fatal("InvalidSize", "size must be even")), ""),
        (Ok("10.0.0.8:443"), "ReconciliationSuccess"),
    ];
    for (i, (outcome, event)) in steps.into_iter().enumerate() {
        let before = cluster.events().len();
        reconcile(&cluster, &reconciler, "w1", outcome).await;
        let events = cluster.events();
        let new: Vec<_> = events[before..]
            .iter()
            .map(|e| e["reason"].clone())
            .collect();
        let expected: Vec<Value> = if event.is_empty() {
            vec![]
        } else {
            vec![json!(event)]
        };
        assert_eq!(new, expected, "step {i}");
        tokio::time::advance(Duration::from_secs(400)).await;
    }
}

/// 10,000 objects are created, fail, are rejected, and deleted: the memory is empty again.
/// Objects whose last write found them gone are forgotten at once; those deleted with no
/// reconcile to notice are swept once they were not seen for twice the resync interval.
#[tokio::test(start_paused = true)]
async fn the_memory_of_ten_thousand_deleted_objects_returns_to_empty() {
    const OBJECTS: usize = 10_000;
    let cluster = cluster();
    let reconciler = StatusReconciler::<StandardWidget>::new(cluster.client());
    let names: Vec<String> = (0..OBJECTS).map(|i| format!("w{i:05}")).collect();
    let mut copies = Vec::new();
    for (i, name) in names.iter().enumerate() {
        cluster.create(name, json!({"size": i}));
        copies.push(cluster.get::<StandardWidget>(name).expect("stored"));
        // One in ten has its status rejected; the others fail in the body.
        let outcome = if i % 10 == 0 {
            Ok("x")
        } else {
            Err(Failure::retryable("Throttled", "the cloud API is busy"))
        };
        reconcile(&cluster, &reconciler, name, outcome).await;
    }
    assert_eq!(reconciler.tracked_objects(), OBJECTS);

    for name in &names {
        cluster.delete(name);
    }
    // Half race their deletion: a reconcile of the copy in the cache finds them gone.
    for copy in copies.iter().take(OBJECTS / 2) {
        reconciler
            .reconcile(Arc::new(copy.clone()), async |w: &mut StandardWidget| {
                w.status_mut().endpoint = Some("10.0.0.1:443".into());
                Ok::<(), Failure>(())
            })
            .await
            .expect("a vanished object is no error");
    }
    assert_eq!(reconciler.tracked_objects(), OBJECTS / 2);

    // The other half go unnoticed; after twice the resync, any reconcile sweeps them out.
    tokio::time::advance(Duration::from_secs(2 * 600 + 1)).await;
    cluster.create("survivor", json!({"size": 1}));
    reconcile(
        &cluster,
        &reconciler,
        "survivor",
        Err(Failure::retryable("Throttled", "busy")),
    )
    .await;
    assert_eq!(
        reconciler.tracked_objects(),
        1,
        "only the survivor's backoff"
    );
    reconcile(&cluster, &reconciler, "survivor", Ok("10.0.0.2:443")).await;
    assert_eq!(reconciler.tracked_objects(), 0);
}

/// Past its capacity the memory forgets the objects reconciled longest ago.
#[tokio::test(start_paused = true)]
async fn the_memory_holds_its_capacity() {
    let cluster = cluster();
    let reconciler =
        StatusReconciler::<StandardWidget>::new(cluster.client()).max_tracked_objects(100);
    for i in 0..1_000 {
        let name = format!("w{i:04}");
        cluster.create(&name, json!({"size": i}));
        reconcile(
            &cluster,
            &reconciler,
            &name,
            Err(Failure::retryable("Throttled", "busy")),
        )
        .await;
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(reconciler.tracked_objects() <= 100);
    }
    assert_eq!(reconciler.tracked_objects(), 100);
}
