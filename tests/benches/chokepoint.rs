//! The status chokepoint's own cost: CPU per reconcile of a status with 10 conditions, in
//! steady state (nothing to write) and with one change (one apply through the in-process
//! stand-in); and the figures behind them: writes per steady-state reconcile, bytes per
//! apply body, and the writes, events and requests of 1,000 reconciles in a steady state of
//! success and of a status the API server keeps rejecting (against the stateful stand-in, on
//! tokio's paused clock).
//!
//! `cargo bench -p kondition-tests --bench chokepoint`

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use k8s_openapi::jiff::Timestamp;
use kondition::controller::StatusReconciler;
use kondition::{
    Condition, ConditionStatus, Conditions, Failure, KubeStatus, StatusResource, Time,
};
use kondition_tests::api_server::ApiServer;
use kube::{CustomResource, CustomResourceExt};
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
    let status = widget.status_mut();
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

/// Writes, events and requests of 1,000 reconciles of one standard widget, `spacing` apart,
/// once its first reconcile is done: its status is rejected on every apply when `rejected`.
fn steady_state(rejected: bool, spacing: std::time::Duration) -> (u64, u64, u64) {
    use kondition_tests::fake_cluster::FakeCluster;
    use kondition_tests::kinds::StandardWidget;
    use kube::runtime::events::{Recorder, Reporter};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let cluster = FakeCluster::new(&StandardWidget::crd(), "team-a", 1);
        cluster.validate_status(|status| {
            (status["endpoint"] == "x").then(|| "status.endpoint: Invalid value".to_owned())
        });
        cluster.create("w1", serde_json::json!({"size": 3}));
        let client = cluster.client();
        let reporter = Reporter {
            controller: "widget-controller".into(),
            instance: None,
        };
        let reconciler = StatusReconciler::<StandardWidget>::new(client.clone())
            .recorder(Recorder::new(client, reporter));
        let endpoint = if rejected { "x" } else { "10.0.0.7:443" };
        let reconcile = async || {
            let object: StandardWidget = cluster.get("w1").expect("stored");
            reconciler
                .reconcile(Arc::new(object), async |w: &mut StandardWidget| {
                    w.status_mut().endpoint = Some(endpoint.to_owned());
                    Ok::<(), Failure>(())
                })
                .await
                .expect("reconciled");
        };
        reconcile().await;
        let before = cluster.stats();
        for _ in 0..1000 {
            tokio::time::advance(spacing).await;
            reconcile().await;
        }
        let after = cluster.stats();
        (
            after.writes - before.writes,
            after.events - before.events,
            after.requests - before.requests,
        )
    })
}

fn chokepoint(c: &mut Criterion) {
    use std::time::Duration;
    println!("1,000 reconciles after the first, in a steady state:");
    println!("| state | reconciles every | writes | events | API requests |");
    println!("| --- | --- | --- | --- | --- |");
    for (rejected, spacing) in [
        (false, Duration::from_secs(1)),
        (true, Duration::from_secs(1)),
        (true, Duration::from_secs(600)),
    ] {
        let (writes, events, requests) = steady_state(rejected, spacing);
        let state = if rejected {
            "status rejected"
        } else {
            "success"
        };
        println!(
            "| {state} | {} s | {writes} | {events} | {requests} |",
            spacing.as_secs()
        );
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let widget = Arc::new(steady_widget());
    let server = ApiServer::echo(&*widget);
    let reconciler = runtime.block_on(async { StatusReconciler::<Widget>::new(server.client()) });

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
        server.received().len()
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

criterion_group!(benches, chokepoint);
criterion_main!(benches);
