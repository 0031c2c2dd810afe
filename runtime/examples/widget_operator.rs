//! The guide's Getting started operator (`docs/guide/src/getting-started.md`, once the
//! README's) with an empty reconcile body: the Widget kind with
//! the standard status, a `kube::runtime::Controller` and the status chokepoint, nothing else.
//! `bench/side_by_side.sh` runs it against the same job written with controller-runtime
//! (`bench/side_by_side/`), on the launcher's API server.
//!
//! ```text
//! widget_operator --crd                 # the Widget CRD (JSON), to install
//! widget_operator [--concurrency N] [--resync SECONDS] [--full-store] [--streaming-list]
//! widget_operator --shards N --identity NAME [--ordinal I] [--replicas R]
//!                 [--lease-namespace NS] [--lease-seconds S] [--until-stdin-closes]
//!                 [options above]
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
//!
//! With `--shards N` it runs as the replica `NAME`, number `I` of `R` (default N), of the
//! Widgets cut into N shards (`kondition::shards`): one Lease per shard in `NS` (default
//! `default`), held `S` seconds per renewal (default 15), a controller per shard held (its
//! watch selected by the API server where its `ShardedListAndWatch` gate is on, and by the
//! replica always), its requests sent with the user agent `widget-operator/NAME`; with
//! `--until-stdin-closes` it stops when its stdin closes too (the test suite's replicas).
//! It prints a line when it takes a shard and when it gives one up (with the objects its
//! watch received and kept), and its peak memory and CPU time when it stops.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kondition::controller::{StatusReconciler, error_policy, fallback_owner};
use kondition::shards::{
    Fence, Replica, Selection, Shard, WatchTally, holds, run_replica, selection, shard_watcher,
};
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
            .ok_or_else(|| format!("{flag} needs a value")),
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

/// How the operator runs, from its command line.
#[derive(Clone)]
struct Options {
    concurrency: u16,
    resync: u64,
    full_store: bool,
    watch: watcher::Config,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--crd") {
        println!("{}", serde_json::to_string(&Widget::crd())?);
        return Ok(());
    }
    let options = Options {
        concurrency: option("--concurrency")?.unwrap_or(0),
        resync: option("--resync")?.unwrap_or(600),
        full_store: std::env::args().any(|a| a == "--full-store"),
        watch: if std::env::args().any(|a| a == "--streaming-list") {
            watcher::Config::default().streaming_lists()
        } else {
            watcher::Config::default()
        },
    };
    let Some(shards) = option::<u32>("--shards")? else {
        let client = Client::try_default().await?;
        let widgets = Api::<Widget>::all(client.clone());
        let controller = if options.full_store {
            Controller::new(widgets, options.watch.clone())
        } else {
            let (reader, writer) = reflector::store();
            let stream = watcher(widgets, options.watch.clone())
                .default_backoff()
                .modify(drop_foreign_managed_fields)
                .reflect(writer)
                .applied_objects();
            Controller::for_stream(stream, reader)
        };
        let reconciler = StatusReconciler::<Widget>::new(client);
        run(controller.shutdown_on_signal(), reconciler, &options, None).await;
        return Ok(());
    };
    let identity: String = option("--identity")?.ok_or("--shards needs --identity NAME")?;
    let namespace: String = option("--lease-namespace")?.unwrap_or_else(|| "default".into());
    let ordinal: u32 = option("--ordinal")?.unwrap_or(0);
    let replicas: u32 = option("--replicas")?.unwrap_or(shards);
    let lease_seconds: u64 = option("--lease-seconds")?.unwrap_or(15);
    // Every replica writes as one controller (one field manager); the API server tells their
    // requests apart by user agent (its audit log records it).
    let mut config = kube::Config::infer().await?;
    config.headers.push((
        http::header::USER_AGENT,
        format!("widget-operator/{identity}").parse()?,
    ));
    let client = Client::try_from(config)?;
    let replica = Replica::new(namespace, "widget-operator", identity)
        .shards(shards)
        .ordinal(ordinal, replicas)
        .timing(lease_seconds, lease_seconds / 3);
    let until_stdin_closes = std::env::args().any(|a| a == "--until-stdin-closes");
    let stop = async move {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("a SIGTERM handler");
        // A replica started by a test ends with the test's process, however it ends: the
        // kernel closes the pipe of its stdin.
        let stdin_closed = async {
            if until_stdin_closes {
                let _ = tokio::task::spawn_blocking(|| {
                    std::io::copy(&mut std::io::stdin(), &mut std::io::sink())
                })
                .await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
            () = stdin_closed => {}
        }
    };
    let work_client = client.clone();
    run_replica(client, replica, stop, move |shard, fence| {
        run_shard(work_client.clone(), shard, fence, options.clone())
    })
    .await?;
    report_usage();
    Ok(())
}

/// Prints this process's peak resident memory and CPU time (user and system), for
/// `bench/shards.sh`'s figures per replica, from Linux's `/proc/self` (elsewhere: nothing).
fn report_usage() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak_kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
    // utime and stime are the 14th and 15th fields, in clock ticks (USER_HZ, 100 on Linux);
    // the command's name (the 2nd, in parentheses) may hold spaces: count after it.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let ticks: Option<u64> = stat.rsplit_once(')').and_then(|(_, rest)| {
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    });
    if let (Some(peak_kib), Some(ticks)) = (peak_kib, ticks) {
        println!(
            "stopped: peak RSS {peak_kib} KiB, CPU {:.2} s",
            ticks as f64 / 100.0
        );
    }
}

/// One shard's controller, while this replica holds the shard: its Widgets only (selected by
/// the API server where it shards watches, by the client always), reconciled inside `fence`,
/// and no status written once the fence shuts.
async fn run_shard(client: Client, shard: Shard, fence: Fence, options: Options) {
    // The shard's work is dropped when the replica gives the shard up: say so then, with
    // what its watch decoded and kept.
    struct Holding(Shard, Option<WatchTally>);
    impl Drop for Holding {
        fn drop(&mut self) {
            match &self.1 {
                Some(tally) => println!(
                    "{}: given up; its watch received {} objects, kept {}",
                    self.0,
                    tally.received(),
                    tally.kept()
                ),
                None => println!("{}: given up", self.0),
            }
        }
    }
    let mut holding = Holding(shard, None);
    match selection(&Api::<Widget>::all(client.clone()), shard).await {
        Ok(Selection::Server) => println!("{shard}: held, selected by the API server"),
        Ok(Selection::Client) => println!("{shard}: held, selected by this client"),
        Ok(Selection::Unknown) => println!("{shard}: held, no Widget yet to tell who selects"),
        Err(error) => eprintln!("{shard}: held; asking how it is selected failed: {error}"),
    }
    let (reader, writer) = reflector::store();
    let watch = shard_watcher(&client, shard, Api::<Widget>::all, options.watch.clone());
    holding.1 = Some(watch.tally());
    let stream = watch
        .default_backoff()
        .modify(drop_foreign_managed_fields)
        .reflect(writer)
        .applied_objects();
    let open = fence.clone();
    let reconciler = StatusReconciler::<Widget>::new(client)
        .may_write(move |widget: &Widget| open.is_open() && holds(shard, widget));
    run(
        Controller::for_stream(stream, reader),
        reconciler,
        &options,
        Some(fence),
    )
    .await;
}

/// Runs `controller` with the status chokepoint and an empty body until its stream ends, each
/// reconcile inside `fence` when there is one.
async fn run(
    controller: Controller<Widget>,
    reconciler: StatusReconciler<Widget>,
    options: &Options,
    fence: Option<Fence>,
) {
    let reconciler = Arc::new(reconciler.requeue_policy(RequeuePolicy {
        resync: Duration::from_secs(options.resync),
        ..RequeuePolicy::default()
    }));
    controller
        .with_config(Config::default().concurrency(options.concurrency))
        .run(
            move |widget, reconciler| {
                let entered = fence.as_ref().map(Fence::enter);
                async move {
                    if matches!(entered, Some(None)) {
                        // The shard was given up: nothing for this replica to do.
                        return Ok(kube::runtime::controller::Action::await_change());
                    }
                    reconciler
                        .reconcile(widget, async |_: &mut Widget| Ok::<(), Failure>(()))
                        .await
                }
            },
            |widget, error, _| error_policy(widget, error, Duration::from_secs(15)),
            reconciler,
        )
        .for_each(|_| async {})
        .await;
}
