//! The guide's Getting started operator (`docs/guide/src/getting-started.md`, once the
//! README's) with an empty reconcile body: the Widget kind with
//! the standard status, a `kube::runtime::Controller` and the status chokepoint, nothing else.
//! `bench/side_by_side.sh` runs it against the same job written with controller-runtime
//! (`bench/side_by_side/`), on the launcher's API server.
//!
//! ```text
//! widget_operator --crd                 # the Widget CRD (JSON), to install
//! widget_operator [--concurrency N] [--resync SECONDS] [--full-store] [--streaming-list]
//! ```
//!
//! `--concurrency N` runs at most N reconciles at once (kube's default, 0, is every object at
//! once: as many requests in flight, and connections, as objects); `--resync` is the chokepoint's
//! resync interval (default 600 s); `--full-store` keeps every Widget in the controller's store
//! as the watch delivered it, `managedFields` included, where by default a watcher transform
//! drops the managedFields entries of every manager but kondition's own (the chokepoint reads
//! those: whether its fallback manager still holds fields); `--streaming-list` has the watch
//! start with the objects sent as watch events (`sendInitialEvents`, what client-go does by
//! default) instead of a list in pages of 500.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kondition::controller::{StatusReconciler, error_policy, fallback_owner};
use kondition::{Conditions, Failure, KubeStatus, RequeuePolicy, StatusResource};
use kube::runtime::controller::Config;
use kube::runtime::{Controller, WatchStreamExt, reflector, watcher};
use kube::{Api, Client, CustomResource, CustomResourceExt, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Getting started's Widget.
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

/// The standard status: conditions (Ready summarises) and observedGeneration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// The conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// The generation the status describes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The value following `flag` on the command line, parsed.
fn option<T: std::str::FromStr>(flag: &str) -> Result<Option<T>, String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == flag) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{flag} needs a number")),
    }
}

/// Drops the managedFields entries the chokepoint never reads (every manager's but its own
/// and its fallback's): most of an object's size as the watch delivers it.
fn drop_foreign_managed_fields(widget: &mut Widget) {
    let owner = Widget::field_owner();
    let fallback = fallback_owner::<Widget>();
    if let Some(entries) = widget.meta_mut().managed_fields.as_mut() {
        entries.retain(|e| {
            e.manager
                .as_deref()
                .is_some_and(|m| m == owner || m == fallback)
        });
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--crd") {
        println!("{}", serde_json::to_string(&Widget::crd())?);
        return Ok(());
    }
    let concurrency: u16 = option("--concurrency")?.unwrap_or(0);
    let resync: u64 = option("--resync")?.unwrap_or(600);
    let full_store = std::env::args().any(|a| a == "--full-store");
    let watch = if std::env::args().any(|a| a == "--streaming-list") {
        watcher::Config::default().streaming_lists()
    } else {
        watcher::Config::default()
    };

    let client = Client::try_default().await?;
    let reconciler = Arc::new(
        StatusReconciler::<Widget>::new(client.clone()).requeue_policy(RequeuePolicy {
            resync: Duration::from_secs(resync),
            ..RequeuePolicy::default()
        }),
    );
    let widgets = Api::<Widget>::all(client);
    let controller = if full_store {
        Controller::new(widgets, watch)
    } else {
        let (reader, writer) = reflector::store();
        let stream = watcher(widgets, watch)
            .default_backoff()
            .modify(drop_foreign_managed_fields)
            .reflect(writer)
            .applied_objects();
        Controller::for_stream(stream, reader)
    };
    controller
        .with_config(Config::default().concurrency(concurrency))
        .shutdown_on_signal()
        .run(
            |widget, reconciler| async move {
                reconciler
                    .reconcile(widget, async |_: &mut Widget| Ok::<(), Failure>(()))
                    .await
            },
            |widget, error, _| error_policy(widget, error, Duration::from_secs(15)),
            reconciler,
        )
        .for_each(|_| async {})
        .await;
    Ok(())
}
