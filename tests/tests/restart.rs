//! The API server restarted in place, in the middle of a run: a launcher of the test's own
//! (`kondition_tests::restart`) is stopped and started again on the same etcd data, the same
//! address and the same certificates, as a control plane restarts. The chokepoint and a
//! `kube::runtime::Controller` meet it down and then back; what they wrote is read back from
//! the restarted server.
//!
//! Nothing waits for a time: every wait is for the server's state (a watch of the test's
//! own), and a request retried after the restart is retried a counted number of times, for a
//! connection the client pooled before the restart.
//!
//! And how the launcher stops: when its stdin closes while it is still starting (the test
//! process died before READY), on SIGTERM, removing its temporary folder but keeping a
//! `-state` folder, and when another process holds a port it was to bind.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use kondition::controller::{StatusReconciler, error_policy};
use kondition::{ConditionStatus, Failure, RequeuePolicy, StatusResource};
use kondition_tests::cluster::EXIT_PORT_TAKEN;
use kondition_tests::cluster::install;
use kondition_tests::faults::widget_crd;
use kondition_tests::kinds::Widget;
use kondition_tests::restart::{LauncherProcess, RestartableServer, addresses_with_api_server};
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::wait::{Condition, await_condition};
use kube::runtime::{Controller, watcher};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};

const NAMESPACE: &str = "restart";
const CREATOR: &str = "widget-creator";

/// Requests sent right after a restart may meet a connection the client pooled before it;
/// they are sent again, at most this many times, on a transport error (never on an answer
/// of the server's).
const ATTEMPTS: usize = 20;

/// `request` until it gets an answer from the server: a transport error (the connection of
/// before the restart) is retried, up to [`ATTEMPTS`] times.
async fn answered<T, F: Future<Output = kube::Result<T>>>(
    mut request: impl FnMut() -> F,
) -> kube::Result<T> {
    let mut last = None;
    for _ in 0..ATTEMPTS {
        match request().await {
            Err(kube::Error::Api(status)) => return Err(kube::Error::Api(status)),
            Err(error) => {
                last = Some(error);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            answer => return answer,
        }
    }
    Err(last.expect("at least one attempt"))
}

/// The namespace and the Widget CRD on a fresh server; its Widget API.
async fn widgets(client: &Client) -> Api<Widget> {
    install(client, [widget_crd()]).await;
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": NAMESPACE}})).expect("a namespace");
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("the namespace");
    Api::namespaced(client.clone(), NAMESPACE)
}

async fn create(widgets: &Api<Widget>, name: &str, size: i64) {
    let widget: Widget = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": name}, "spec": {"size": size},
    }))
    .expect("a widget");
    let params = PostParams {
        field_manager: Some(CREATOR.into()),
        ..PostParams::default()
    };
    widgets.create(&params, &widget).await.expect("created");
}

async fn resize(widgets: &Api<Widget>, name: &str, size: i64) -> Widget {
    let params = PatchParams {
        field_manager: Some(CREATOR.into()),
        ..PatchParams::default()
    };
    let patch = Patch::Merge(json!({"spec": {"size": size}}));
    answered(|| widgets.patch(name, &params, &patch))
        .await
        .expect("resized")
}

/// The reconcile of every test here: the status records the size the body saw.
async fn reconcile(
    reconciler: &StatusReconciler<Widget>,
    object: Arc<Widget>,
) -> Result<Action, kondition::controller::Error> {
    reconciler
        .reconcile(object, async |w: &mut Widget| {
            w.status_or_insert().seen_size = Some(w.spec.size);
            Ok::<(), Failure>(())
        })
        .await
}

/// The managers of `object`'s fields, as (manager, operation, subresource).
fn managers(object: &Widget) -> BTreeSet<(String, String, String)> {
    object
        .managed_fields()
        .iter()
        .map(|entry| {
            (
                entry.manager.clone().unwrap_or_default(),
                entry.operation.clone().unwrap_or_default(),
                entry.subresource.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// The stored status of its latest generation, for the size of its spec.
fn settled() -> impl Condition<Widget> {
    |object: Option<&Widget>| {
        object.is_some_and(|w| {
            w.status.as_ref().is_some_and(|s| {
                s.observed_generation == w.metadata.generation && s.seen_size == Some(w.spec.size)
            })
        })
    }
}

fn ready(object: &Widget) -> (ConditionStatus, String, Value) {
    let status = object.status.as_ref().expect("a status");
    let ready = status.conditions.get("Ready").expect("Ready");
    (
        ready.status,
        ready.reason.clone(),
        serde_json::to_value(&ready.last_transition_time).expect("JSON"),
    )
}

#[tokio::test]
async fn a_status_write_the_stopped_server_missed_is_made_after_its_restart() {
    let mut server = RestartableServer::start();
    let client = server.client().await;
    let widgets = widgets(&client).await;
    create(&widgets, "w", 1).await;
    // A short backoff: the retries after the restart run on the real clock.
    let reconciler = StatusReconciler::<Widget>::new(client.clone()).requeue_policy(POLICY);
    let owner = reconciler.field_owner();

    let copy = widgets.get("w").await.expect("read");
    reconcile(&reconciler, Arc::new(copy))
        .await
        .expect("the first status");
    let first = widgets.get("w").await.expect("read");
    let (status, reason, since) = ready(&first);
    assert_eq!(status, ConditionStatus::True);

    // A new generation, read by the controller, and then the server goes down under it.
    let changed = resize(&widgets, "w", 2).await;
    assert_eq!(changed.metadata.generation, Some(2));
    server.stop();
    let error = reconcile(&reconciler, Arc::new(changed.clone()))
        .await
        .expect_err("no server to write to");
    assert!(!error.is_conflict(), "{error}");

    // Back on the same data: the same copy is reconciled again, as the error policy requeues
    // it (a reconcile before the episode's retry time does nothing, and is tried again), and
    // its status lands.
    server.start_again();
    answered(|| reconcile_once(&reconciler, &changed))
        .await
        .expect("the status after the restart");
    let stored = answered(|| widgets.get("w")).await.expect("read back");
    let status_block = stored.status.as_ref().expect("a status");
    assert_eq!(status_block.observed_generation, Some(2));
    assert_eq!(status_block.seen_size, Some(2));
    // Ready stayed True through it all: its lastTransitionTime is the first one.
    assert_eq!(ready(&stored), (ConditionStatus::True, reason, since));
    assert_eq!(
        managers(&stored),
        BTreeSet::from([
            (owner, "Apply".to_owned(), "status".to_owned()),
            (CREATOR.to_owned(), "Update".to_owned(), String::new()),
        ]),
        "the controller owns the status, nothing is left to its fallback"
    );
    // The data of before the restart is there: the uid and the creation are the same.
    assert_eq!(stored.uid(), first.uid());

    // Nothing more to write: the next reconcile sends nothing the server stores.
    reconcile(&reconciler, Arc::new(stored.clone()))
        .await
        .expect("steady");
    let after = widgets.get("w").await.expect("read");
    assert_eq!(after.resource_version(), stored.resource_version());
}

/// One reconcile of `object`, for [`answered`]: an answer of the server's stays one (its
/// status code), anything else is the transport's.
async fn reconcile_once(
    reconciler: &StatusReconciler<Widget>,
    object: &Widget,
) -> kube::Result<()> {
    match reconcile(reconciler, Arc::new(object.clone())).await {
        Ok(action) if action == Action::requeue(POLICY.resync) => Ok(()),
        // Before the retry time: nothing was done.
        Ok(_) => Err(kube::Error::Service("backing off".into())),
        Err(error) => match error.status_code() {
            Some(code) => Err(kube::Error::Api(
                kube::core::Status::failure(&error.to_string(), "")
                    .with_code(code)
                    .boxed(),
            )),
            None => Err(kube::Error::Service(error.to_string().into())),
        },
    }
}

/// The requeue policy of the reconciler that writes through the restart: its backoff is
/// shorter than the wait between [`answered`]'s attempts.
const POLICY: RequeuePolicy = RequeuePolicy {
    resync: Duration::from_secs(600),
    backoff_initial: Duration::from_millis(10),
    backoff_max: Duration::from_millis(100),
};

#[tokio::test]
async fn a_controller_watching_through_a_restart_reconciles_what_changed_after_it() {
    const OBJECTS: i64 = 5;
    let mut server = RestartableServer::start();
    let client = server.client().await;
    let widgets = widgets(&client).await;
    let names: Vec<String> = (0..OBJECTS).map(|i| format!("w{i}")).collect();
    for (size, name) in names.iter().enumerate() {
        create(&widgets, name, i64::try_from(size).expect("small")).await;
    }

    // The controller has a client of its own; it outlives the restart.
    let controller_client = server.client().await;
    let reconciler = Arc::new(StatusReconciler::<Widget>::new(controller_client.clone()));
    let owner = reconciler.field_owner();
    let controller = Controller::new(
        Api::<Widget>::namespaced(controller_client, NAMESPACE),
        watcher::Config::default(),
    )
    .run(
        |object, reconciler: Arc<StatusReconciler<Widget>>| async move {
            reconcile(&reconciler, object).await
        },
        |object, error, _| error_policy(object, error, Duration::from_millis(200)),
        reconciler,
    )
    .for_each(|_| async {});
    let running = tokio::spawn(controller);

    for name in &names {
        await_condition(widgets.clone(), name, settled())
            .await
            .expect("settled before the restart");
    }
    let before: Vec<Widget> = widgets.list(&Default::default()).await.expect("list").items;

    server.stop();
    server.start_again();

    // Changes made after the restart reach the controller through its recovered watch.
    for (i, name) in names.iter().enumerate() {
        resize(&widgets, name, 100 + i64::try_from(i).expect("small")).await;
    }
    for name in &names {
        answered(|| await_condition(widgets.clone(), name, settled()).map_ok_kube())
            .await
            .expect("settled after the restart");
    }
    running.abort();

    for old in before {
        let name = old.name_any();
        let stored = widgets.get(&name).await.expect("read back");
        let status = stored.status.as_ref().expect("a status");
        assert_eq!(status.observed_generation, Some(2), "{name}");
        assert_eq!(status.seen_size, Some(stored.spec.size), "{name}");
        assert_eq!(stored.uid(), old.uid(), "{name}: the same object");
        // Ready never left True: the transition time is the one from before the restart.
        assert_eq!(ready(&stored), ready(&old), "{name}");
        assert_eq!(
            managers(&stored),
            BTreeSet::from([
                (owner.clone(), "Apply".to_owned(), "status".to_owned()),
                (CREATOR.to_owned(), "Update".to_owned(), String::new()),
            ]),
            "{name}"
        );
    }
}

/// `await_condition`'s answer as a kube result, for [`answered`]: its watch may first meet
/// the connection of before the restart.
trait MapOkKube<T> {
    fn map_ok_kube(self) -> impl Future<Output = kube::Result<T>>;
}

impl<T, F> MapOkKube<T> for F
where
    F: Future<Output = Result<T, kube::runtime::wait::Error>>,
{
    async fn map_ok_kube(self) -> kube::Result<T> {
        self.await
            .map_err(|error| kube::Error::Service(error.to_string().into()))
    }
}

/// Whether a launcher's temporary folder in `tmpdir` holds etcd's folder: etcd is starting.
fn etcd_started(tmpdir: &std::path::Path) -> bool {
    std::fs::read_dir(tmpdir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("kondition-apiserver-")
                && entry.path().join("etcd").is_dir()
        })
    })
}

/// A test process that dies while its launcher is still starting closes the launcher's stdin
/// and stdout: the launcher stops then, without waiting to be ready, and removes its temporary
/// folder, etcd's data with it. (It used to read stdin only after READY, whose write to the
/// closed stdout then killed it, SIGPIPE, with the folder left behind.)
#[test]
fn a_launcher_whose_stdin_closes_before_ready_stops_and_leaves_nothing() {
    let mut launcher = LauncherProcess::spawn("abandoned", false);
    let bound = std::time::Instant::now() + Duration::from_secs(600);
    while !etcd_started(&launcher.tmpdir) {
        let exited = launcher.child.try_wait().expect("its status");
        assert!(exited.is_none(), "the launcher ended first: {exited:?}");
        assert!(
            std::time::Instant::now() < bound,
            "etcd not started after 10 minutes: {:?}",
            launcher.leftovers()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(launcher.child.stdin.take());
    drop(launcher.child.stdout.take());
    let status = launcher.wait_exit();
    assert!(status.success(), "{status}");
    assert_eq!(launcher.leftovers(), Vec::<String>::new());
}

/// SIGTERM stops a ready launcher, whose stdin is still open: it removes its temporary folder
/// and exits; with `-state DIR` it keeps DIR (etcd's data, the kubeconfig) for a restart.
#[test]
fn sigterm_stops_a_launcher_removing_its_temporary_folder_but_not_its_state() {
    for kept in [false, true] {
        let mut launcher = LauncherProcess::spawn("sigterm", kept);
        let stdout = launcher.child.stdout.take().expect("its stdout");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("the launcher's stdout");
        assert!(line.starts_with("READY "), "{line:?}");
        let signalled = std::process::Command::new("kill")
            .args(["-TERM", &launcher.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(signalled.success());
        let status = launcher.wait_exit();
        assert!(status.success(), "{status}");
        if kept {
            assert_eq!(launcher.leftovers(), ["state"]);
            let state = launcher.tmpdir.join("state");
            assert!(state.join("etcd").is_dir() && state.join("kubeconfig").is_file());
        } else {
            assert_eq!(launcher.leftovers(), Vec::<String>::new());
        }
    }
}

/// A port that another process holds when the launcher binds it ends the launcher before
/// READY with status 75, the harness's cue to start it again (`cluster::spawn_launcher`), and
/// a state folder's addresses stay as they were: a restart keeps its address. (CI failed once
/// on a port taken between the launcher's pick and kube-apiserver's bind: the launcher ended
/// with status 1 and the test binary's every test with it.) The port held is kube-apiserver's,
/// which reports the failure only in its error's text; etcd's two are free a moment before
/// the launcher starts, and had another process taken one since, etcd's failure would end it
/// with the same status.
#[test]
fn a_port_held_by_another_process_ends_the_launcher_with_status_75_keeping_its_state() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addresses = addresses_with_api_server(&held);
    let mut launcher = LauncherProcess::spawn_on_addresses("port-held", &addresses);
    let status = launcher.wait_exit();
    assert_eq!(status.code(), Some(EXIT_PORT_TAKEN), "{status}");
    let kept = std::fs::read_to_string(launcher.tmpdir.join("state/addresses.json"))
        .expect("the state folder's addresses.json");
    assert_eq!(
        serde_json::from_str::<Value>(&kept).expect("JSON"),
        addresses
    );
    drop(held);
}
