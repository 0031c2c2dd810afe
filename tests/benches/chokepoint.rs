//! The status chokepoint's own cost: CPU per reconcile of a status with 10 conditions, in
//! steady state (nothing to write) and with one change (one apply answered by an in-process
//! echo, so that only the client's side is timed); and the figures behind them: writes per
//! steady-state reconcile, bytes per apply body, and the writes, events and requests of 1,000
//! reconciles in a steady state of success and of a status the API server keeps rejecting,
//! on the real API server (the launcher of `kondition_tests::cluster`; tokio's paused clock).
//!
//! `bash tests/run.sh --no-run && cargo bench -p kondition-tests --bench chokepoint`

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use k8s_openapi::jiff::Timestamp;
use kondition::controller::StatusReconciler;
use kondition::{
    Condition, ConditionStatus, Conditions, Failure, KubeStatus, StatusResource, Time,
};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A widget's desired state.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    /// How big.
    pub size: i32,
}

/// A widget's observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// A meter's desired state: the kind of the steady-state figures.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Meter",
    namespaced,
    status = "MeterStatus"
)]
pub struct MeterSpec {
    /// How big.
    pub size: i32,
}

/// A meter's observed state, as the operator's code has it: the installed CRD lacks
/// `addedLater` and rejects the endpoint `x` by a CEL rule (see `meter_crd`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Meter, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct MeterStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Not in the installed CRD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_later: Option<String>,
}

/// `Meter::crd()` without `addedLater`, with a CEL rule against the endpoint `x`.
fn meter_crd()
-> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
    use kube::CustomResourceExt;
    let mut crd = serde_json::to_value(Meter::crd()).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    if let Some(properties) = status["properties"].as_object_mut() {
        properties.remove("addedLater");
    }
    status["x-kubernetes-validations"] = serde_json::json!([
        {"rule": "!has(self.endpoint) || self.endpoint != 'x'", "message": "endpoint must be host:port"}
    ]);
    serde_json::from_value(crd).expect("a CRD")
}

const TYPES: [&str; 9] = [
    "Available",
    "Progressing",
    "Degraded",
    "Synced",
    "NetworkReady",
    "StorageReady",
    "BackupReady",
    "CertificateReady",
    "DnsReady",
];

/// A widget whose stored status holds Ready and nine more conditions, all current.
fn steady_widget() -> Widget {
    let at = Time(Timestamp::from_second(1_700_000_000).expect("valid"));
    let mut conditions: Conditions = TYPES
        .iter()
        .map(|t| {
            Condition::new(*t, ConditionStatus::True, "AsExpected")
                .with_message(format!("{t} has been fine since the last change"))
                .with_observed_generation(5)
                .at(at.clone())
        })
        .collect();
    conditions.insert_at(
        0,
        Condition::new("Ready", ConditionStatus::True, "ReconciliationSuccess")
            .with_observed_generation(5)
            .at(at),
    );
    let mut widget = Widget::new("w1", WidgetSpec { size: 3 });
    widget.metadata.namespace = Some("team-a".into());
    widget.metadata.generation = Some(5);
    widget.status = Some(WidgetStatus {
        conditions,
        observed_generation: Some(5),
    });
    widget
}

/// The body: sets every condition again, as a reconcile does.
async fn body(widget: &mut Widget, flip: bool) -> Result<(), Failure> {
    let status = widget.status_or_insert();
    for t in TYPES {
        let condition = if flip && t == "Synced" {
            Condition::new(t, ConditionStatus::False, "OutOfSync").with_message("drift detected")
        } else {
            Condition::new(t, ConditionStatus::True, "AsExpected")
                .with_message(format!("{t} has been fine since the last change"))
        };
        status.conditions.set(condition.with_observed_generation(5));
    }
    Ok(())
}

/// How a steady state is reached.
#[derive(Clone, Copy)]
enum State {
    /// The status is accepted.
    Success,
    /// The status breaks a CEL rule of the CRD (422).
    RejectedByCel,
    /// The status has a field the CRD does not declare (500, failed to create typed patch).
    UndeclaredField,
}

/// What 1,000 reconciles of one standard widget, `spacing` apart, cost the real API server
/// once its first reconcile is done: status PATCHes that landed (2xx), whether the object's
/// resourceVersion moved, Events recorded, and API requests in all.
fn steady_state(state: State, spacing: std::time::Duration) -> (usize, bool, usize, usize) {
    use kondition_tests::cluster::TestEnv;
    use kube::api::PostParams;
    use kube::runtime::events::{Recorder, Reporter};
    use kube::{Api, ResourceExt};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let env = TestEnv::new([meter_crd()]).await;
        let meters: Api<Meter> = env.api();
        meters
            .create(
                &PostParams::default(),
                &Meter::new("m1", MeterSpec { size: 3 }),
            )
            .await
            .expect("created");
        let reporter = Reporter {
            controller: "widget-controller".into(),
            instance: None,
        };
        let reconciler = StatusReconciler::<Meter>::new(env.client.clone())
            .recorder(Recorder::new(env.client.clone(), reporter));
        let reconcile = async || {
            let object = meters.get_status("m1").await.expect("stored");
            reconciler
                .reconcile(Arc::new(object), async |m: &mut Meter| {
                    let status = m.status_or_insert();
                    status.endpoint = Some("10.0.0.7:443".into());
                    match state {
                        State::Success => {}
                        State::RejectedByCel => status.endpoint = Some("x".into()),
                        State::UndeclaredField => status.added_later = Some("new".into()),
                    }
                    Ok::<(), Failure>(())
                })
                .await
                .expect("reconciled");
        };
        reconcile().await;
        let version = meters
            .get_status("m1")
            .await
            .expect("stored")
            .resource_version();
        let events = async || {
            kondition_tests::cluster::recorded_events(&env.admin, &env.namespace)
                .await
                .len()
        };
        let events_before = events().await;
        env.requests.clear();
        for _ in 0..1000 {
            tokio::time::advance(spacing).await;
            reconcile().await;
        }
        let writes = env
            .requests
            .all()
            .iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .filter(|r| r.status.is_some_and(|s| (200..300).contains(&s)))
            .count();
        let moved = meters
            .get_status("m1")
            .await
            .expect("stored")
            .resource_version()
            != version;
        let events_after = events().await;
        // The test's own reads (one per reconcile) went through the unrecorded client.
        (
            writes,
            moved,
            events_after - events_before,
            env.requests.len(),
        )
    })
}

/// A client whose every request is answered 200 with `object`, in process, and counted in
/// `requests`: the timings below measure the chokepoint's own side, not a server.
fn echo_client(
    object: &impl Serialize,
    requests: Arc<std::sync::atomic::AtomicUsize>,
) -> kube::Client {
    let body = serde_json::to_vec(object).expect("object JSON");
    let service = tower::service_fn(move |_: http::Request<kube::client::Body>| {
        let body = body.clone();
        requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        async move {
            http::Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        }
    });
    kube::Client::new(service, "team-a")
}

fn chokepoint(c: &mut Criterion) {
    use std::time::Duration;
    println!("1,000 reconciles after the first, in a steady state, on the real API server:");
    println!(
        "| state | reconciles every | status writes | resourceVersion moved | events | API requests |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (state, name, spacing) in [
        (State::Success, "success", Duration::from_secs(1)),
        (State::Success, "success", Duration::from_secs(600)),
        (
            State::RejectedByCel,
            "rejected by a CEL rule (422)",
            Duration::from_secs(1),
        ),
        (
            State::RejectedByCel,
            "rejected by a CEL rule (422)",
            Duration::from_secs(600),
        ),
        (
            State::UndeclaredField,
            "a field the CRD does not declare (500)",
            Duration::from_secs(1),
        ),
        (
            State::UndeclaredField,
            "a field the CRD does not declare (500)",
            Duration::from_secs(600),
        ),
    ] {
        let (writes, moved, events, requests) = steady_state(state, spacing);
        println!(
            "| {name} | {} s | {writes} | {} | {events} | {requests} |",
            spacing.as_secs(),
            if moved { "yes" } else { "no" }
        );
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let widget = Arc::new(steady_widget());
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let reconciler = runtime.block_on(async {
        StatusReconciler::<Widget>::new(echo_client(&*widget, requests.clone()))
    });

    // The figures behind the timings.
    runtime.block_on(async {
        for _ in 0..1000 {
            reconciler
                .reconcile(widget.clone(), async |w: &mut Widget| body(w, false).await)
                .await
                .expect("reconciled");
        }
    });
    println!(
        "status writes in 1000 steady-state reconciles: {}",
        requests.load(std::sync::atomic::Ordering::Relaxed)
    );
    let apply_bytes = serde_json::to_vec(&widget.status_apply())
        .map(|b| b.len())
        .unwrap_or_default();
    println!("bytes per full apply body (10 conditions): {apply_bytes}");

    c.bench_function("reconcile, steady state (10 conditions, no write)", |b| {
        b.iter(|| {
            runtime.block_on(
                reconciler.reconcile(widget.clone(), async |w: &mut Widget| body(w, false).await),
            )
        });
    });
    c.bench_function(
        "reconcile, one condition changed (10 conditions, one apply)",
        |b| {
            b.iter(|| {
                runtime.block_on(
                    reconciler
                        .reconcile(widget.clone(), async |w: &mut Widget| body(w, true).await),
                )
            });
        },
    );
}

/// What checking a status offline before sending would cost per reconcile (issue 40: the
/// chokepoint could refuse a status the server would, without the round trip): the
/// steady widget against its CRD's schema, and a meter against a schema with a CEL rule.
fn offline_check(c: &mut Criterion) {
    use kondition::check::Checker;
    use kube::CustomResourceExt;
    let widget = serde_json::to_value(steady_widget()).expect("JSON");
    let checker = Checker::new().crd(&Widget::crd());
    assert_eq!(checker.check(&widget), [], "a valid status");
    c.bench_function("offline check, schema (10 conditions)", |b| {
        b.iter(|| checker.check(&widget));
    });
    let mut meter = Meter::new("m1", MeterSpec { size: 1 });
    meter.metadata.generation = Some(1);
    meter.status = Some(MeterStatus {
        endpoint: Some("10.0.0.1:443".into()),
        ..MeterStatus::default()
    });
    let meter = serde_json::to_value(meter).expect("JSON");
    let checker = Checker::new().crd(&meter_crd());
    assert_eq!(checker.check(&meter), [], "a valid status");
    c.bench_function("offline check, schema and one CEL rule", |b| {
        b.iter(|| checker.check(&meter));
    });
}

/// Remembering a new object when the chokepoint's memory is full (issue 46): each reconcile
/// of a new object whose body fails is remembered (its backoff), and at capacity the entry
/// seen longest ago makes room. The time per reconcile is flat in the capacity: making room
/// takes the oldest entry from an index, never a scan of the map.
fn eviction(c: &mut Criterion) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let widget = steady_widget();
    let next = AtomicU64::new(0);
    let new_object = || {
        let mut object = widget.clone();
        object.metadata.uid = Some(format!("uid-{}", next.fetch_add(1, Ordering::Relaxed)));
        Arc::new(object)
    };
    let failing = async |_: &mut Widget| Err::<(), _>(Failure::retryable("Waiting", "not yet"));
    let mut group = c.benchmark_group("reconcile of a new failing object, memory full");
    for capacity in [1_000, 100_000] {
        let requests = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let reconciler = runtime.block_on(async {
            StatusReconciler::<Widget>::new(echo_client(&widget, requests))
                .max_tracked_objects(capacity)
        });
        runtime.block_on(async {
            for _ in 0..capacity {
                let _ = reconciler.reconcile(new_object(), failing).await;
            }
        });
        assert_eq!(reconciler.tracked_objects(), capacity, "full");
        group.bench_function(format!("{capacity} tracked"), |b| {
            b.iter(|| runtime.block_on(reconciler.reconcile(new_object(), failing)));
        });
        assert_eq!(reconciler.tracked_objects(), capacity, "still bounded");
    }
    group.finish();
}

criterion_group!(benches, chokepoint, offline_check, eviction);
criterion_main!(benches);
