//! A failure that persists is a steady state: a status the API server keeps rejecting, or a
//! body that keeps failing the same way, writes nothing after its first report, bumps no
//! resourceVersion and records no further event, while the full apply is retried on its
//! backoff (never on the watch event the fallback caused). And the chokepoint's memory of
//! objects stays bounded. On the real API server (the launcher of `kondition_tests::cluster`),
//! whose CRD rejects the endpoint `x` by a CEL rule; time is tokio's paused clock (the
//! clients have no timers, so it moves only when a test advances it).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, stream};

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::controller::StatusReconciler;
use kondition::{Failure, RequeuePolicy, StatusResource};
use kondition_tests::cluster::TestEnv;
use kondition_tests::kinds::{KstatusWidget, StandardWidget, TestKind};
use kube::api::{DeleteParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use kube::{Api, CustomResourceExt};
use serde_json::{Value, json};

/// How many objects' requests the memory test has in flight at once.
const IN_FLIGHT: usize = 32;

/// The field manager the objects are created under (the spec's manager).
const CREATOR: &str = "widget-creator";

/// The message of the CRD's rule.
const INVALID: &str = "endpoint must be host:port";

/// `K`'s CRD with a CEL rule on the status: the endpoint `x` is invalid.
fn crd<K: CustomResourceExt>() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(K::crd()).expect("CRD JSON");
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["x-kubernetes-validations"] = json!([
        {"rule": "!has(self.endpoint) || self.endpoint != 'x'", "message": INVALID}
    ]);
    serde_json::from_value(crd).expect("a CRD")
}

/// What the recorded client sent so far.
#[derive(Debug, PartialEq)]
struct Stats {
    /// Status applies the server took (full, fallback and releases).
    writes: usize,
    /// Status applies the server refused as invalid (422).
    invalid: usize,
    /// Requests of any kind.
    requests: usize,
}

/// A test's namespace on the server, with `K`'s CRD (the rule above) installed.
struct Cluster<K> {
    env: TestEnv,
    _kind: std::marker::PhantomData<K>,
}

impl<K: TestKind + kube::Resource<Scope = kube::core::NamespaceResourceScope>> Cluster<K> {
    async fn new() -> Self {
        Self {
            env: TestEnv::new([crd::<K>()]).await,
            _kind: std::marker::PhantomData,
        }
    }

    fn api(&self) -> Api<K> {
        Api::namespaced(self.env.admin.clone(), &self.env.namespace)
    }

    /// A chokepoint on the recorded client, recording Events.
    fn reconciler(&self) -> StatusReconciler<K> {
        let client = self.env.client.clone();
        let reporter = Reporter {
            controller: "widget-controller".into(),
            instance: None,
        };
        StatusReconciler::new(client.clone()).recorder(Recorder::new(client, reporter))
    }

    /// Creates `name` with spec `{size}`.
    async fn create(&self, name: &str, size: i64) {
        let object: K = serde_json::from_value(json!({
            "apiVersion": K::api_version(&()), "kind": K::kind(&()),
            "metadata": {"name": name}, "spec": {"size": size}
        }))
        .expect("an object");
        self.api()
            .create(
                &PostParams {
                    field_manager: Some(CREATOR.to_owned()),
                    ..PostParams::default()
                },
                &object,
            )
            .await
            .expect("created");
    }

    async fn get(&self, name: &str) -> K {
        self.api().get_status(name).await.expect("stored")
    }

    /// The object as the server holds it, as JSON.
    async fn stored(&self, name: &str) -> Value {
        serde_json::to_value(self.get(name).await).expect("JSON")
    }

    async fn delete(&self, name: &str) {
        self.api()
            .delete(name, &DeleteParams::default())
            .await
            .expect("deleted");
    }

    /// The Events of the namespace, by name.
    async fn events(&self) -> Vec<Event> {
        kondition_tests::cluster::recorded_events(&self.env.admin, &self.env.namespace).await
    }

    fn stats(&self) -> Stats {
        let all = self.env.requests.all();
        let status_patches = || {
            all.iter()
                .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
        };
        Stats {
            writes: status_patches()
                .filter(|r| r.status.is_some_and(|s| (200..300).contains(&s)))
                .count(),
            invalid: status_patches().filter(|r| r.status == Some(422)).count(),
            requests: all.len(),
        }
    }
}

/// One reconcile of the stored `name` whose body sets `endpoint` (or fails with `error`).
async fn reconcile<K: TestKind + kube::Resource<Scope = kube::core::NamespaceResourceScope>>(
    cluster: &Cluster<K>,
    reconciler: &StatusReconciler<K>,
    name: &str,
    outcome: Result<&str, Failure>,
) -> Action {
    let object = cluster.get(name).await;
    reconciler
        .reconcile(Arc::new(object), async |w: &mut K| -> Result<(), Failure> {
            let endpoint = outcome?;
            w.set_endpoint(endpoint);
            Ok(())
        })
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

#[tokio::test(start_paused = true)]
async fn a_status_rejected_every_time_writes_once() {
    let cluster = Cluster::<StandardWidget>::new().await;
    cluster.create("w1", 3).await;
    let reconciler = cluster.reconciler();

    // First reconcile: the full apply is rejected, the fallback says so, one event.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
    assert_eq!(
        action,
        Action::requeue(Duration::from_secs(5)),
        "the backoff, not the resync"
    );
    let first = cluster.stored("w1").await;
    assert_eq!(
        (
            ready(&first)["status"].clone(),
            ready(&first)["reason"].clone()
        ),
        (json!("False"), json!("StatusRejected"))
    );
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.invalid), (1, 1));
    assert_eq!(cluster.events().await.len(), 1);

    // The reconcile the fallback's own watch event causes, at once: nothing is sent at all,
    // and the requeue still waits for the backoff.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(cluster.stats().requests, stats.requests, "no request");

    // Then each requeue retries the full apply once, on a growing backoff, and writes
    // nothing: the fallback already stored says the same. Past the second of the stored
    // transition, so that a time stamped again would differ and be written.
    let stamped = serde_json::from_value(ready(&first)["lastTransitionTime"].clone())
        .expect("a lastTransitionTime");
    kondition_tests::cluster::past_the_second_of(&stamped).await;
    let mut delay = Duration::from_secs(5);
    for next in [10, 20, 40, 80, 160, 300, 300, 300, 300, 300] {
        tokio::time::advance(delay).await;
        let action = reconcile(&cluster, &reconciler, "w1", Ok("x")).await;
        delay = Duration::from_secs(next);
        assert_eq!(action, Action::requeue(delay));
    }
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.invalid), (1, 11), "{stats:#?}");
    assert_eq!(cluster.events().await.len(), 1);
    let last = cluster.stored("w1").await;
    assert_eq!(
        last["metadata"]["resourceVersion"],
        first["metadata"]["resourceVersion"]
    );
    assert_eq!(
        ready(&last)["lastTransitionTime"],
        ready(&first)["lastTransitionTime"]
    );
    assert_eq!(reconciler.tracked_objects(), 1);

    // Within the backoff nothing is run: a status the body would compute differently waits
    // for the retry time too.
    let action = reconcile(&cluster, &reconciler, "w1", Ok("10.0.0.7:443")).await;
    assert_eq!(action, Action::requeue(delay));
    assert_eq!(cluster.stats().requests, stats.requests, "no request");
    // Then the new status is applied, accepted, and the fallback gives its fields up.
    tokio::time::advance(delay).await;
    let action = reconcile(&cluster, &reconciler, "w1", Ok("10.0.0.7:443")).await;
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));
    let accepted = cluster.stored("w1").await;
    assert_eq!(ready(&accepted)["status"], "True");
    assert_eq!(accepted["status"]["endpoint"], "10.0.0.7:443");
    // Every entry as (manager, operation, subresource), in no order: the server lists them
    // in its own.
    let managers: BTreeSet<(String, String, String)> = accepted["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let text = |key: &str| m[key].as_str().unwrap_or_default().to_owned();
            (text("manager"), text("operation"), text("subresource"))
        })
        .collect();
    // The fallback manager's entry is gone; the creator's (the spec) stays.
    assert_eq!(
        managers,
        BTreeSet::from([
            (
                "example.com/standardwidget-controller".to_owned(),
                "Apply".to_owned(),
                "status".to_owned()
            ),
            (CREATOR.to_owned(), "Update".to_owned(), String::new()),
        ])
    );
    let stats = cluster.stats();
    assert_eq!(stats.writes, 3, "the fallback, the apply, the release");
    assert_eq!(cluster.events().await.len(), 2, "Ready became True");
    assert_eq!(reconciler.tracked_objects(), 0);
}

/// The same without memory, as after a restart of the controller: the full apply is sent
/// and rejected again, but the fallback computed equals the stored one, so still no write.
#[tokio::test(start_paused = true)]
async fn a_new_controller_meets_the_stored_fallback_without_writing() {
    let cluster = Cluster::<StandardWidget>::new().await;
    cluster.create("w1", 3).await;
    reconcile(&cluster, &cluster.reconciler(), "w1", Ok("x")).await;
    let first = cluster.stored("w1").await;
    for _ in 0..5 {
        tokio::time::advance(Duration::from_secs(1)).await;
        reconcile(&cluster, &cluster.reconciler(), "w1", Ok("x")).await;
    }
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.invalid), (1, 6), "{stats:#?}");
    assert_eq!(cluster.events().await.len(), 1);
    assert_eq!(cluster.stored("w1").await, first);
}

/// A kstatus kind: the fallback's Ready, Reconciling and Stalled all stay put.
#[tokio::test(start_paused = true)]
async fn the_companions_of_a_rejected_status_stay_put() {
    let cluster = Cluster::<KstatusWidget>::new().await;
    cluster.create("w1", 3).await;
    let reconciler = StatusReconciler::<KstatusWidget>::new(cluster.env.client.clone());
    let mut stored_objects = Vec::new();
    for step in 0..8u64 {
        tokio::time::advance(Duration::from_secs(step * 7)).await;
        let object = cluster.get("w1").await;
        reconciler
            .reconcile(Arc::new(object), async |w: &mut KstatusWidget| {
                w.status_or_insert().endpoint = Some("x".into());
                Ok::<(), Failure>(())
            })
            .await
            .expect("written");
        stored_objects.push(cluster.stored("w1").await);
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
    let cluster = Cluster::<StandardWidget>::new().await;
    cluster.create("w1", 3).await;
    let reconciler = cluster.reconciler();
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
        // One entry per occurrence (see `recorded_events`): the new ones are those past the
        // count each Event had before.
        let occurrences = |events: Vec<Event>| {
            let mut counts = std::collections::BTreeMap::<String, (String, usize)>::new();
            for event in events {
                let reason = event.reason.clone().unwrap_or_default();
                let entry = counts
                    .entry(event.metadata.name.unwrap_or_default())
                    .or_insert((reason, 0));
                entry.1 += 1;
            }
            counts
        };
        let before = occurrences(cluster.events().await);
        reconcile(&cluster, &reconciler, "w1", outcome).await;
        let new: Vec<String> = occurrences(cluster.events().await)
            .into_iter()
            .filter(|(name, (_, count))| before.get(name).is_none_or(|(_, was)| was < count))
            .map(|(_, (reason, _))| reason)
            .collect();
        let expected: Vec<String> = if event.is_empty() {
            vec![]
        } else {
            vec![event.to_owned()]
        };
        assert_eq!(new, expected, "step {i}");
        tokio::time::advance(Duration::from_secs(400)).await;
    }
}

/// 10,000 objects are created, fail, are rejected, and deleted: the memory is empty again.
/// Objects whose last write found them gone (the server's 404) are forgotten at once; those
/// deleted with no reconcile to notice are swept once they were not seen for twice the
/// resync interval. Each phase sends its objects' requests [`IN_FLIGHT`] at a time, as a
/// controller's workers do; the clock does not move within a phase.
#[tokio::test(start_paused = true)]
async fn the_memory_of_ten_thousand_deleted_objects_returns_to_empty() {
    const OBJECTS: usize = 10_000;
    let cluster = Cluster::<StandardWidget>::new().await;
    let reconciler = StatusReconciler::<StandardWidget>::new(cluster.env.client.clone());
    let names: Vec<String> = (0..OBJECTS).map(|i| format!("w{i:05}")).collect();
    let copies: Vec<StandardWidget> = stream::iter(names.iter().enumerate())
        .map(|(i, name)| {
            let (cluster, reconciler) = (&cluster, &reconciler);
            async move {
                cluster.create(name, i64::try_from(i).expect("small")).await;
                let copy = cluster.get(name).await;
                // One in ten has its status rejected; the others fail in the body.
                let outcome = if i % 10 == 0 {
                    Ok("x")
                } else {
                    Err(Failure::retryable("Throttled", "the cloud API is busy"))
                };
                reconcile(cluster, reconciler, name, outcome).await;
                copy
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    assert_eq!(reconciler.tracked_objects(), OBJECTS);
    let stats = cluster.stats();
    assert_eq!(
        (stats.writes, stats.invalid),
        (OBJECTS, OBJECTS / 10),
        "one write each: the fallback of a rejected status, or the failure"
    );

    stream::iter(&names)
        .for_each_concurrent(IN_FLIGHT, |name| cluster.delete(name))
        .await;
    // Half race their deletion: a reconcile of the copy in the cache, once its backoff has
    // passed, finds them gone (404).
    tokio::time::advance(RequeuePolicy::default().backoff_initial).await;
    stream::iter(copies.iter().take(OBJECTS / 2))
        .for_each_concurrent(IN_FLIGHT, |copy| async {
            reconciler
                .reconcile(Arc::new(copy.clone()), async |w: &mut StandardWidget| {
                    w.status_or_insert().endpoint = Some("10.0.0.1:443".into());
                    Ok::<(), Failure>(())
                })
                .await
                .expect("a vanished object is no error");
        })
        .await;
    assert_eq!(reconciler.tracked_objects(), OBJECTS / 2);
    let gone = cluster
        .env
        .requests
        .all()
        .iter()
        .filter(|r| r.method == "PATCH" && r.status == Some(404))
        .count();
    assert_eq!(
        gone,
        OBJECTS / 2,
        "each raced reconcile met the server's 404"
    );

    // The other half go unnoticed; after twice the resync, any reconcile sweeps them out.
    tokio::time::advance(Duration::from_secs(2 * 600 + 1)).await;
    cluster.create("survivor", 1).await;
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
    tokio::time::advance(RequeuePolicy::default().backoff_initial).await;
    reconcile(&cluster, &reconciler, "survivor", Ok("10.0.0.2:443")).await;
    assert_eq!(reconciler.tracked_objects(), 0);
}

/// Past its capacity the memory forgets the objects reconciled longest ago.
#[tokio::test(start_paused = true)]
async fn the_memory_holds_its_capacity() {
    let cluster = Cluster::<StandardWidget>::new().await;
    let reconciler = StatusReconciler::<StandardWidget>::new(cluster.env.client.clone())
        .max_tracked_objects(100);
    for i in 0..1_000 {
        let name = format!("w{i:04}");
        cluster.create(&name, i).await;
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
