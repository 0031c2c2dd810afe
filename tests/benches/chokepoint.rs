//! The status chokepoint's own cost: CPU per reconcile of a status with 10 conditions, in
//! steady state (nothing to write) and with one change (one apply through the in-process
//! stand-in); and the figures behind them: writes per steady-state reconcile, bytes per
//! apply body.
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
        Condition::new("Ready", ConditionStatus::True, "Succeeded")
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

fn chokepoint(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let widget = Arc::new(steady_widget());
    let server = ApiServer::new(&*widget);
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
