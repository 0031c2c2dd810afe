//! Several controllers on one status, on the real API server (the launcher of
//! `kondition_tests::cluster`): three `kube::runtime::Controller`s run at once on the same 100
//! widgets, each through its own `StatusReconciler`, as its own ServiceAccount, under its own
//! field manager, owning its own condition types:
//!
//! - the kind's controller (`example.com/standardwidget-controller`): Ready and
//!   `observedGeneration`;
//! - a health checker (`example.com/health-checker`, `field_manager`): Healthy;
//! - a backup agent (`example.com/backup-agent`, `field_manager`): BackedUp, and, in the
//!   second test, by mistake, Ready too (False, `BackupPending`): the contested condition.
//!
//! The widgets are created with the controllers running, and once everything settled each
//! one's spec is changed, and everything settles again. Every request of each controller is
//! journaled with the server's answer (`kondition_tests::faults`, with no fault injected).
//!
//! What must hold: no reconcile of the second controllers ever ends with a 409 (their
//! writes carry the `resourceVersion` read, so that they never land on an object deleted and
//! created again under the same name; one refused because another manager wrote between
//! their read and their write is read back and sent again at once: the figures printed count
//! those 409s, the price of the precondition);
//! without the contest, no reconcile of the kind's controller ends with a 409 (its writes
//! carry the precondition, and one refused because another manager wrote its own conditions
//! in between is sent again at once, or found written already by its own earlier write); no
//! accepted write was computed from a stale copy (every generation it stamps is the object's
//! right after it); with the contest, Ready was written by the two writers of it once each
//! at most per generation, and exactly one of them reported the other, once per widget (a
//! Warning Event `ConditionContested` naming the other field manager), and left Ready to it
//! since; every widget ends with the three conditions at its latest generation.
//!
//! No step waits for a time: the run is settled when each controller's last reconcile of
//! each widget started from the widget as it is stored (so it wrote nothing), which a
//! consistent list of the widgets tells after every reconcile.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kondition::controller::{REASON_CONDITION_CONTESTED, StatusReconciler, error_policy};
use kondition::{Condition, ConditionStatus, Failure, RequeuePolicy, StatusResource};
use kondition_tests::cluster::{TestEnv, recorded_events};
use kondition_tests::faults::{Exchange, Faults, faulty};
use kondition_tests::kinds::{
    AsoWidget, AsoWidgetSpec, StandardWidget, StandardWidgetSpec, TestKind,
};
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::{Controller, watcher};
use kube::{Api, Client, CustomResourceExt, ResourceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The widgets.
const OBJECTS: usize = 100;

/// What a run counts as its three controllers reconcile (the two tests of this binary run
/// at once, each with its own).
#[derive(Default)]
struct Counters {
    /// Reconciles of the three controllers so far.
    reconciles: AtomicUsize,
    /// Reconciles of the kind's controller that ended with its status refused by a 409.
    main_conflicted: AtomicUsize,
    /// Reconciles of the second controllers that ended with a 409.
    second_conflicted: AtomicUsize,
}

const MAIN: &str = "example.com/standardwidget-controller";
const HEALTH: &str = "example.com/health-checker";
const BACKUP: &str = "example.com/backup-agent";

/// What each controller's last completed reconcile of each widget started from: its
/// resourceVersion, by (controller, widget).
type Seen = Arc<Mutex<HashMap<(&'static str, String), String>>>;

/// One of the three controllers.
struct Running {
    manager: &'static str,
    faults: Faults,
    task: tokio::task::JoinHandle<()>,
}

/// A long backoff: a contested condition is not taken back within the test, however slow the
/// machine, so what the test sees follows from the order of the writes only.
fn policy() -> RequeuePolicy {
    RequeuePolicy {
        backoff_initial: Duration::from_secs(3600),
        backoff_max: Duration::from_secs(3600),
        ..RequeuePolicy::default()
    }
}

/// Starts controller `manager` as identity `identity`'s client, journaled.
fn start(env: &TestEnv, client: Client, manager: &'static str, run: &Run) -> Running {
    let (seen, reconciled, counters, contest) = (
        run.seen.clone(),
        run.reconciled.clone(),
        run.counters.clone(),
        run.contest,
    );
    let (client, faults) = faulty(client);
    let reporter = Reporter {
        controller: manager.into(),
        instance: None,
    };
    let mut reconciler = StatusReconciler::<StandardWidget>::new(client.clone())
        .recorder(Recorder::new(client.clone(), reporter))
        .requeue_policy(policy());
    reconciler = match manager {
        HEALTH => reconciler
            .field_manager(HEALTH)
            .summary("Healthy", "Checked"),
        BACKUP => reconciler.field_manager(BACKUP).summary("BackedUp", "Done"),
        _ => reconciler,
    };
    assert_eq!(reconciler.field_owner(), manager);
    let reconciler = Arc::new(reconciler);
    let api = Api::<StandardWidget>::namespaced(client, &env.namespace);
    let task = tokio::spawn(
        Controller::new(api, watcher::Config::default())
            .run(
                move |object: Arc<StandardWidget>, reconciler: Arc<StatusReconciler<_>>| {
                    let seen = seen.clone();
                    let reconciled = reconciled.clone();
                    let counters = counters.clone();
                    async move {
                        let name = object.name_any();
                        let version = object.resource_version().unwrap_or_default();
                        let result = reconciler
                            .reconcile(object, async |w: &mut StandardWidget| {
                                match manager {
                                    MAIN => w.set_endpoint("10.0.0.7:443"),
                                    BACKUP if contest => {
                                        w.status_or_insert().conditions.set(
                                            Condition::new(
                                                "Ready",
                                                ConditionStatus::False,
                                                "BackupPending",
                                            )
                                            .with_message("no backup yet"),
                                        );
                                    }
                                    _ => {}
                                }
                                Ok::<(), Failure>(())
                            })
                            .await;
                        if result.is_ok() {
                            seen.lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .insert((manager, name), version);
                        }
                        if result
                            .as_ref()
                            .is_err_and(kondition::controller::Error::is_conflict)
                        {
                            let counter = match manager {
                                MAIN => &counters.main_conflicted,
                                _ => &counters.second_conflicted,
                            };
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                        counters.reconciles.fetch_add(1, Ordering::SeqCst);
                        reconciled.notify_one();
                        result
                    }
                },
                |object, error, _| error_policy(object, error, Duration::ZERO),
                reconciler,
            )
            .for_each(|_| async {}),
    );
    Running {
        manager,
        faults,
        task,
    }
}

/// Waits until every controller's last reconcile of every widget started from the widget as
/// stored (a consistent list, after each reconcile): none has anything left to write. Fails
/// once the controllers have reconciled `bound` times in all without settling (two writers
/// fighting over a condition never settle).
async fn settle(env: &TestEnv, run: &Run, bound: usize) {
    let api: Api<StandardWidget> = env.api();
    loop {
        run.reconciled.notified().await;
        let reconciles = run.counters.reconciles.load(Ordering::SeqCst);
        assert!(
            reconciles <= bound,
            "not settled after {reconciles} reconciles"
        );
        let stored = api.list(&ListParams::default()).await.expect("the widgets");
        if stored.items.len() != OBJECTS {
            continue;
        }
        let seen = run.seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let settled = stored.items.iter().all(|w| {
            [MAIN, HEALTH, BACKUP].iter().all(|manager| {
                seen.get(&(*manager, w.name_any())).map(String::as_str)
                    == w.resource_version().as_deref()
            })
        });
        if settled {
            return;
        }
    }
}

/// What a controller's journal holds about status writes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Writes {
    /// Status applies the server accepted.
    accepted: usize,
    /// Of those, the ones that carried Ready.
    ready: usize,
    /// Status applies the server answered 409.
    conflicts: usize,
    /// Of those, the ones sent again at once with the same status (the object read back
    /// showed that only other managers wrote in between).
    resent: usize,
    /// Status applies the server answered otherwise.
    failed: usize,
    /// Accepted applies computed from a stale copy.
    stale: usize,
}

fn writes(journal: &[Exchange]) -> Writes {
    let mut writes = Writes::default();
    // The status of each widget's last apply that got 409.
    let mut refused: HashMap<&str, &Value> = HashMap::new();
    for exchange in journal.iter().filter(|e| e.sent.is_status_apply()) {
        let name = exchange.sent.name().unwrap_or_default();
        let status = &exchange.sent.body["status"];
        if refused.remove(name) == Some(status) {
            writes.resent += 1;
        }
        match exchange.server {
            Some(200) => {
                writes.accepted += 1;
                let conditions = exchange.sent.body["status"]["conditions"].as_array();
                writes.ready += usize::from(
                    conditions
                        .into_iter()
                        .flatten()
                        .any(|c| c["type"] == "Ready"),
                );
                writes.stale += usize::from(stale(exchange));
            }
            Some(409) => {
                writes.conflicts += 1;
                refused.insert(name, status);
            }
            _ => writes.failed += 1,
        }
    }
    writes
}

/// Whether an accepted status apply said it saw another generation than the object's right
/// after it: in `observedGeneration`, or in a condition's. An answer without a generation
/// fails the test (it cannot be judged).
fn stale(exchange: &Exchange) -> bool {
    let generation = exchange
        .answer
        .as_ref()
        .map(|answer| &answer["metadata"]["generation"])
        .filter(|generation| generation.is_i64())
        .unwrap_or_else(|| panic!("an accepted write without a readable answer: {exchange:#?}"));
    let status = &exchange.sent.body["status"];
    let conditions = status["conditions"].as_array().into_iter().flatten();
    let stamped = conditions
        .filter_map(|c| c.get("observedGeneration"))
        .chain(status.get("observedGeneration"));
    stamped.into_iter().any(|g| g != generation)
}

fn condition<'a>(widget: &'a Value, type_: &str) -> &'a Value {
    widget["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == type_))
        .unwrap_or(&Value::Null)
}

/// The condition's status, reason and observedGeneration.
fn said(condition: &Value) -> (String, String, i64) {
    (
        condition["status"].as_str().unwrap_or_default().to_owned(),
        condition["reason"].as_str().unwrap_or_default().to_owned(),
        condition["observedGeneration"].as_i64().unwrap_or(-1),
    )
}

/// The field managers owning the condition of type `type_` of `widget`.
fn owners(widget: &Value, type_: &str) -> Vec<String> {
    let key = format!(r#"k:{{"type":"{type_}"}}"#);
    widget["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| {
            m["fieldsV1"]["f:status"]["f:conditions"]
                .get(&key)
                .is_some()
        })
        .map(|m| m["manager"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// What the widgets say at generation `generation`: each with Healthy and BackedUp as their
/// controllers set them, `observedGeneration` the kind's controller's, and Ready as the one of
/// its two writers that the other left it to. Returns, by widget, Ready's field manager.
async fn check_widgets(env: &TestEnv, generation: i64) -> BTreeMap<String, String> {
    let api: Api<StandardWidget> = env.api();
    let mut ready_owner = BTreeMap::new();
    for widget in api
        .list(&ListParams::default())
        .await
        .expect("listed")
        .items
    {
        let name = widget.name_any();
        let widget = serde_json::to_value(widget).expect("JSON");
        assert_eq!(widget["metadata"]["generation"], generation, "{widget:#}");
        assert_eq!(widget["status"]["observedGeneration"], generation);
        assert_eq!(
            said(condition(&widget, "Healthy")),
            ("True".into(), "Checked".into(), generation),
            "{widget:#}"
        );
        assert_eq!(
            said(condition(&widget, "BackedUp")),
            ("True".into(), "Done".into(), generation),
            "{widget:#}"
        );
        assert_eq!(owners(&widget, "Healthy"), [HEALTH], "{widget:#}");
        assert_eq!(owners(&widget, "BackedUp"), [BACKUP], "{widget:#}");
        // Ready is as its writer that the other left it to set it; the other, which had
        // written it before, may share the fields whose values it applies unchanged since.
        let owner = owners(&widget, "Ready");
        let winner = match said(condition(&widget, "Ready")) {
            ready if ready == ("True".into(), "ReconciliationSuccess".into(), generation) => MAIN,
            // The backup agent's body sets Ready without a generation (the chokepoint stamps
            // only the conditions it derives: the agent's is BackedUp).
            (status, reason, _)
                if (status.as_str(), reason.as_str()) == ("False", "BackupPending") =>
            {
                BACKUP
            }
            ready => panic!("Ready is {ready:?}: {widget:#}"),
        };
        assert!(owner.iter().any(|m| m == winner), "{owner:?}: {widget:#}");
        ready_owner.insert(name, winner.to_owned());
    }
    ready_owner
}

/// One run: its widgets' copies seen, its reconciles, whether the backup agent sets Ready.
struct Run {
    seen: Seen,
    reconciled: Arc<Notify>,
    counters: Arc<Counters>,
    contest: bool,
}

/// The three controllers, each owning its own conditions only: no reconcile of any of them
/// ends with a 409, and nothing is contested.
#[tokio::test]
async fn three_controllers_on_one_status_never_conflict_over_disjoint_conditions() {
    three_controllers(false).await;
}

/// The same, with the backup agent setting Ready too: the contested condition is reported
/// once per widget and left to one writer, and the disjoint ones still never conflict.
#[tokio::test]
async fn three_controllers_with_one_contested_condition_report_it_and_settle() {
    three_controllers(true).await;
}

async fn three_controllers(contest: bool) {
    let env = TestEnv::new([StandardWidget::crd()]).await;
    let health = env.identity("health-checker", env.rules()).await;
    let backup = env.identity("backup-agent", env.rules()).await;
    let run = Run {
        seen: Arc::default(),
        reconciled: Arc::new(Notify::new()),
        counters: Arc::default(),
        contest,
    };
    let controllers = [
        start(&env, env.client.clone(), MAIN, &run),
        start(&env, health.client.clone(), HEALTH, &run),
        start(&env, backup.client.clone(), BACKUP, &run),
    ];

    let api: Api<StandardWidget> = env.api();
    for i in 0..OBJECTS {
        let widget = StandardWidget::new(&format!("w{i:03}"), StandardWidgetSpec { size: 1 });
        api.create(&PostParams::default(), &widget)
            .await
            .expect("created");
    }
    // Each controller reconciles each widget a few times at most (its own writes and the
    // others' wake it); far past that, something keeps writing.
    settle(&env, &run, 20 * 3 * OBJECTS).await;
    let creation_reconciles = run.counters.reconciles.load(Ordering::SeqCst);
    let first = check_widgets(&env, 1).await;
    let at_first: Vec<Writes> = controllers
        .iter()
        .map(|c| writes(&c.faults.journal()))
        .collect();

    for i in 0..OBJECTS {
        api.patch(
            &format!("w{i:03}"),
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 2}})),
        )
        .await
        .expect("spec changed");
    }
    settle(&env, &run, creation_reconciles + 20 * 3 * OBJECTS).await;
    let reconciles = run.counters.reconciles.load(Ordering::SeqCst);
    let main_conflicted = run.counters.main_conflicted.load(Ordering::SeqCst);
    let second_conflicted = run.counters.second_conflicted.load(Ordering::SeqCst);
    let second = check_widgets(&env, 2).await;
    assert_eq!(first, second, "Ready stays with the writer it was left to");
    let at_end: Vec<Writes> = controllers
        .iter()
        .map(|c| writes(&c.faults.journal()))
        .collect();
    for controller in &controllers {
        controller.task.abort();
    }

    let main_won = first.values().filter(|m| *m == MAIN).count();
    eprintln!(
        "reconciles: {creation_reconciles} until settled after creation, {reconciles} in all; \
         of the main controller's, {main_conflicted} ended with a 409"
    );
    eprintln!(
        "{OBJECTS} widgets, 3 controllers; writes after creation and after the spec change \
         (main, health, backup): {at_first:#?} {at_end:#?}; Ready left to the main \
         controller on {main_won}, to the backup agent on {}",
        OBJECTS - main_won
    );

    // The Events about the contested condition: one per widget, by the writer of Ready that
    // left it to the other, naming the other (none without the contest).
    let events = recorded_events(&env.admin, &env.namespace).await;
    let contested: Vec<_> = events
        .iter()
        .filter(|e| e.reason.as_deref() == Some(REASON_CONDITION_CONTESTED))
        .collect();
    let expected = if contest { OBJECTS } else { 0 };
    assert_eq!(contested.len(), expected, "{contested:#?}");
    if !contest {
        assert_eq!(main_won, OBJECTS, "Ready is the kind's controller's alone");
    }
    for (name, winner) in first.iter().filter(|_| contest) {
        let about: Vec<_> = contested
            .iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
            .collect();
        assert_eq!(about.len(), 1, "{name}: {about:#?}");
        let loser = if winner == MAIN { BACKUP } else { MAIN };
        assert_eq!(about[0].reporting_controller.as_deref(), Some(loser));
        let note = about[0].note.as_deref().unwrap_or_default();
        assert!(note.contains(&format!("Ready by {winner}")), "{note}");
        assert_eq!(about[0].type_.as_deref(), Some("Warning"));
    }

    for (controller, (first, end)) in controllers.iter().zip(at_first.iter().zip(&at_end)) {
        let manager = controller.manager;
        assert_eq!(
            end.stale, 0,
            "{manager}: a write from a stale copy: {end:?}"
        );
        assert_eq!(end.failed, 0, "{manager}: {end:?}");
        if manager == MAIN {
            // Its writes carry the precondition: one write per widget and generation landed.
            assert_eq!((first.accepted, end.accepted), (OBJECTS, 2 * OBJECTS));
            // A 409 from another manager's write of its own conditions in between is
            // resolved within the reconcile: sent again (counted), or found written (the
            // rest). Only a write of Ready by the backup agent (the contest) makes one stand.
            assert!(end.resent <= end.conflicts, "{end:?}");
            if !contest {
                assert_eq!(
                    main_conflicted, 0,
                    "reconciles of the kind's controller that ended with a 409"
                );
            }
        } else {
            // A 409 of its precondition (another manager wrote in between) is resolved
            // within the reconcile: read back and sent again (counted), or found written
            // already by its own earlier write (the rest). Never one that stands: the others
            // change each widget once per generation, fewer times than it sends again. A write
            // from a copy older than its own last one (the watch had not brought it yet) is
            // found written, or sent again and changes nothing (counted below).
            assert!(end.resent <= end.conflicts, "{manager}: {end:?}");
            assert_eq!(
                second_conflicted, 0,
                "reconciles of a second controller that ended with a 409"
            );
            assert!(
                (OBJECTS..=2 * OBJECTS).contains(&first.accepted),
                "{first:?}"
            );
            assert!((OBJECTS..=2 * OBJECTS).contains(&(end.accepted - first.accepted)));
        }
    }
    // What the accepted writes changed: each change gives the object a new resourceVersion,
    // a write that changes nothing answers the one it found. One change per controller, widget
    // and generation: the backup agent's first write holds its Ready, whether or not it kept
    // it; the writer that left Ready to the other never wrote it again.
    let changes = |journals: &[Vec<Exchange>]| -> usize {
        let versions: std::collections::BTreeSet<String> = journals
            .iter()
            .flatten()
            .filter(|e| e.sent.is_status_apply() && e.server == Some(200))
            .filter_map(|e| e.answer.as_ref())
            .map(|a| {
                a["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        versions.len()
    };
    let journals: Vec<Vec<Exchange>> = controllers.iter().map(|c| c.faults.journal()).collect();
    let changed = changes(&journals);
    eprintln!("status changes: {changed}");
    if changed != 3 * 2 * OBJECTS {
        let mut by_widget: BTreeMap<String, Vec<(String, String, Value)>> = BTreeMap::new();
        for (controller, journal) in controllers.iter().zip(&journals) {
            for e in journal
                .iter()
                .filter(|e| e.sent.is_status_apply() && e.server == Some(200))
            {
                let answer = e.answer.clone().unwrap_or_default();
                by_widget
                    .entry(e.sent.name().unwrap_or_default().to_owned())
                    .or_default()
                    .push((
                        controller.manager.to_owned(),
                        answer["metadata"]["resourceVersion"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        e.sent.body["status"].clone(),
                    ));
            }
        }
        for (name, writes) in &by_widget {
            let versions: std::collections::BTreeSet<&String> =
                writes.iter().map(|w| &w.1).collect();
            if versions.len() != 6 {
                eprintln!("{name}: {writes:#?}");
            }
        }
    }
    assert_eq!(changed, 3 * 2 * OBJECTS);
}

/// A second controller's requests, one by one, beside the kind's controller (both driven by
/// hand): its full apply holds its own condition only (no `observedGeneration`, no Ready),
/// at the `resourceVersion` read; when the CRD rejects what it sets (a CEL rule on the endpoint), its
/// fallback under `<manager>-fallback` holds its own condition only (Healthy False,
/// `StatusRejected`), not the kind's controller's Ready; once accepted again, the fallback
/// manager is released and Ready was never touched. On AsoWidget, whose CRD this test alone
/// installs with its rule (the other test of this binary installs StandardWidget's as it is).
#[tokio::test(start_paused = true)]
async fn a_second_controller_writes_its_own_conditions_only() {
    let mut crd = serde_json::to_value(AsoWidget::crd()).expect("CRD JSON");
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["x-kubernetes-validations"] =
        json!([{"rule": "!has(self.endpoint) || self.endpoint != 'x'", "message": "no x"}]);
    let env = TestEnv::new([serde_json::from_value(crd).expect("a CRD")]).await;
    let health_identity = env.identity("health-checker", env.rules()).await;
    let main = StatusReconciler::<AsoWidget>::new(env.client.clone());
    let health = StatusReconciler::<AsoWidget>::new(health_identity.client.clone())
        .field_manager(HEALTH)
        .summary("Healthy", "Checked");
    let api: Api<AsoWidget> = env.api();
    api.create(
        &PostParams::default(),
        &AsoWidget::new("w1", AsoWidgetSpec { size: 1 }),
    )
    .await
    .expect("created");
    let reconcile = async |reconciler: &StatusReconciler<AsoWidget>, endpoint: Option<&str>| {
        let object = api.get_status("w1").await.expect("stored");
        reconciler
            .reconcile(Arc::new(object), async |w: &mut AsoWidget| {
                if let Some(endpoint) = endpoint {
                    w.set_endpoint(endpoint);
                }
                Ok::<(), Failure>(())
            })
            .await
            .expect("written");
    };
    reconcile(&main, Some("10.0.0.7:443")).await;
    let ready = condition(
        &serde_json::to_value(api.get_status("w1").await.expect("stored")).expect("JSON"),
        "Ready",
    )
    .clone();

    let status_applies = || {
        health_identity
            .requests
            .all()
            .into_iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .collect::<Vec<_>>()
    };
    // Each body at the version of the copy its reconcile read (the copy right before).
    let without_time = |body: &Value| {
        let mut body = body.clone();
        let version = body["metadata"]
            .as_object_mut()
            .and_then(|m| m.remove("resourceVersion"));
        assert!(
            version.as_ref().is_some_and(Value::is_string),
            "{version:?}"
        );
        for c in body["status"]["conditions"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            c.as_object_mut().map(|c| c.remove("lastTransitionTime"));
        }
        body
    };
    let identity = |status: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "AsoWidget",
               "metadata": {"name": "w1", "namespace": env.namespace}, "status": status})
    };

    reconcile(&health, None).await;
    let applies = status_applies();
    assert_eq!(applies.len(), 1, "{applies:#?}");
    assert_eq!(applies[0].param("fieldManager"), Some(HEALTH));
    assert_eq!(
        without_time(&applies[0].body),
        identity(json!({"conditions": [{"type": "Healthy", "status": "True",
            "reason": "Checked", "message": "", "observedGeneration": 1}]}))
    );

    // Rejected: the fallback holds Healthy alone.
    reconcile(&health, Some("x")).await;
    let applies = status_applies();
    assert_eq!(applies.len(), 3, "{applies:#?}");
    assert_eq!(applies[1].status, Some(422));
    assert_eq!(applies[2].status, Some(200));
    assert_eq!(
        applies[2].param("fieldManager"),
        Some(format!("{HEALTH}-fallback").as_str())
    );
    let fallback = without_time(&applies[2].body);
    let conditions = fallback["status"]["conditions"]
        .as_array()
        .expect("conditions");
    assert_eq!(conditions.len(), 1, "{fallback:#}");
    assert_eq!(
        (
            &conditions[0]["type"],
            &conditions[0]["status"],
            &conditions[0]["reason"]
        ),
        (&json!("Healthy"), &json!("False"), &json!("StatusRejected"))
    );

    // Accepted again (once the rejection's backoff has passed: before it, nothing is run):
    // the full apply and the release; Ready as the kind's controller wrote it.
    tokio::time::advance(kondition::RequeuePolicy::default().backoff_max).await;
    reconcile(&health, None).await;
    let applies = status_applies();
    assert_eq!(
        applies[3..]
            .iter()
            .map(|r| (r.param("fieldManager").map(str::to_owned), r.status))
            .collect::<Vec<_>>(),
        [
            (Some(HEALTH.to_owned()), Some(200)),
            (Some(format!("{HEALTH}-fallback")), Some(200))
        ]
    );
    let stored = serde_json::to_value(api.get_status("w1").await.expect("stored")).expect("JSON");
    assert_eq!(condition(&stored, "Ready"), &ready);
    assert_eq!(owners(&stored, "Ready"), [main.field_owner()]);
    assert_eq!(owners(&stored, "Healthy"), [HEALTH]);
    assert_eq!(
        said(condition(&stored, "Healthy")),
        ("True".into(), "Checked".into(), 1)
    );
}
