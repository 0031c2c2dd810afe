//! Soak on the real API server (the launcher of `kondition_tests::cluster`): a
//! `kube::runtime::Controller` reconciles 200 widgets (and 20 whose status is always rejected)
//! through the status chokepoint, its client going through `kondition_tests::faults`, which
//! injects faults at random from a seed (lost responses, resets, delays, timeouts, made-up
//! 429s and 500s, watch streams cut short), while a second client keeps changing specs and
//! labels (real 409s) and etcd is compacted twice under the running watches. The controller
//! also watches the Events it records, which kube-apiserver serves from etcd, so that watch
//! gets a real 410 Gone and lists again; the Widget watch is served from the watch cache,
//! which a compaction does not reach. Then the faults stop, and the test awaits, through a
//! watch of its own, the moment every object is settled: its stored status that of its latest
//! generation, with nothing left to the fallback manager. Every status write the server
//! accepted is checked from its answer (the object right after it): none was computed from a
//! stale copy.
//!
//! The seed changes every run and is printed; `KONDITION_SOAK_SEED=<n>` replays its fault
//! draws (the order in which requests meet them still follows the machine's timing). Each
//! kind of fault is also injected once on purpose, so that every run meets every kind.
//! `cargo test -p kondition-tests --test soak -- --nocapture` prints the figures.
//!
//! The rejected cohort's status breaks the CRD's schema (a negative size is seen, and the CRD
//! says `seenSize >= 0`): after its first rejection each object must be a steady state, with
//! one write (its fallback) and at most one event.
//!
//! No step waits for a time to pass: the run advances by the controller's progress (counted
//! reconciles) and ends when the server's state says so, so a slow machine takes longer and
//! never fails for it. Only a controller that keeps reconciling without settling fails (after
//! twenty reconciles per widget once the faults stopped; settling takes a handful in all).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::events::v1::Event;
use kondition::controller::{REASON_STATUS_REJECTED, StatusReconciler, error_policy};
use kondition::{Failure, RequeuePolicy, StatusResource};
use kondition_tests::cluster::{HARNESS, TestEnv, cluster};
use kondition_tests::faults::{
    Exchange, Fault, FaultKind, Faults, Rates, Sent, faulty, widget_crd,
};
use kondition_tests::kinds::{Widget, WidgetSpec};
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::utils::Backoff;
use kube::runtime::{Controller, watcher};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};

/// Objects the controller reconciles; `KONDITION_SOAK_OBJECTS` sets another number (to
/// measure how many the machine sustains: BENCHMARKS.md).
const OBJECTS: usize = 200;

fn objects() -> usize {
    std::env::var("KONDITION_SOAK_OBJECTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(OBJECTS)
}

/// Objects whose status the API server rejects on every apply.
const REJECTED: usize = 20;

const OWNER: &str = "example.com/widget-controller";
const FALLBACK: &str = "example.com/widget-controller-fallback";

/// The random faults: about one request in five meets one.
const RATES: Rates = Rates {
    lose_response: 0.03,
    reset: 0.03,
    delay: 0.05,
    timeout: 0.02,
    throttle: 0.03,
    server_error: 0.03,
    cut_watch: 0.3,
    max_delay: Duration::from_millis(50),
};

/// While faults are on, how often a reconcile body fails (a cloud API error), and how often
/// it sees a negative size, which the server rejects.
const BODY_FAILURE: f64 = 0.05;
const BODY_NEGATIVE: f64 = 0.03;

/// The chokepoint's requeues, short so that a run takes seconds: backoff from 100 ms to 4 s;
/// the resync stays at the default ten minutes, longer than any run.
const POLICY: RequeuePolicy = RequeuePolicy {
    resync: Duration::from_secs(600),
    backoff_initial: Duration::from_millis(100),
    backoff_max: Duration::from_secs(4),
};

/// The error policy's delay after a failed status write (a 429 asks for longer).
const RETRY: Duration = Duration::from_millis(50);

struct Context {
    reconciler: StatusReconciler<Widget>,
    /// The bodies' own random draws.
    rng: Mutex<u64>,
    /// While true, bodies fail now and then, or see a negative size.
    faulty_bodies: AtomicBool,
    /// Whether `w0002` was seen holding the fallback's conditions: until then its body sees
    /// a negative size, so that every run has a widget whose status is rejected and later
    /// recovers (and the fallback manager releases its fields).
    rejected_once: AtomicBool,
    /// Reconciles run, and of those, of the `w` objects.
    reconciles: tokio::sync::watch::Sender<u64>,
    /// The highest generation a reconcile of each object started from.
    seen: Mutex<BTreeMap<String, i64>>,
    widget_reconciles: AtomicU64,
    body_failures: AtomicU64,
    negative_sizes: AtomicU64,
    /// Status writes that failed, so the error policy requeued; of those, 409s.
    write_errors: AtomicU64,
    write_conflicts: AtomicU64,
}

impl Context {
    fn random(&self) -> f64 {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        *rng ^= *rng >> 12;
        *rng ^= *rng << 25;
        *rng ^= *rng >> 27;
        let value = rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (value >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Returns once at least `count` reconciles ran, or a reconcile of `name` started from
    /// generation `generation` or later (which a change always leads to: so this never waits
    /// for reconciles that nothing would cause).
    async fn reconciled(&self, count: u64, name: &str, generation: i64) {
        let mut changes = self.reconciles.subscribe();
        // The sender lives in `self`.
        let _ = changes
            .wait_for(|&n| {
                let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                n >= count || seen.get(name).is_some_and(|&g| g >= generation)
            })
            .await;
    }
}

/// The trigger watches' backoff: 20 ms each time (the default grows to 30 s).
struct Quick;

impl Iterator for Quick {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        Some(Duration::from_millis(20))
    }
}

impl Backoff for Quick {
    fn reset(&mut self) {}
}

/// What a run did, for the figures and the checks.
struct Run {
    env: TestEnv,
    faults: Faults,
    context: Arc<Context>,
    seed: u64,
    spec_changes: u64,
    labels: u64,
    compactions: u64,
    /// Reconciles of the `w` objects from the end of the faults until all were settled.
    settle_reconciles: u64,
    /// The stored objects once settled, by name.
    objects: BTreeMap<String, Widget>,
}

#[tokio::test]
async fn hundreds_of_objects_under_api_faults_end_with_their_latest_status() {
    let started = std::time::Instant::now();
    let objects = objects();
    let run = soak(objects, REJECTED, true).await;
    let figures = Figures::of(&run);
    eprintln!("{figures:#?}\nwall time: {:?}", started.elapsed());

    // The rejected cohort: one write each (its first fallback), one StatusRejected Event
    // (never repeated), however often it was reconciled. (A fault repeated on its writes may
    // add a StatusWriteFailed Event of its own.) An Event is never lost: one whose post failed
    // is posted again; so one whose answer was lost after the server recorded it is there
    // twice (the chokepoint cannot tell it landed), and only then.
    let events: Api<Event> = Api::namespaced(run.env.admin.clone(), &run.env.namespace);
    let events = events.list(&ListParams::default()).await.expect("events");
    for i in 0..REJECTED {
        let name = format!("r{i:03}");
        let object = &run.objects[&name];
        assert!(rejected(object), "{object:#?}");
        // Status applies of this object the server answered 200, and those forwarded whose
        // answer never came (the connection failed after the request left: the journal has
        // no code, and the write may have landed). The stored status holds the fallback, so
        // one of them wrote it; a second write would be a loop.
        let (writes, unknown) = run.faults.inspect(|journal| {
            let of_this = |e: &&Exchange| {
                e.sent.is_status_apply()
                    && e.sent.carries_status()
                    && e.sent.name() == Some(name.as_str())
            };
            let landed = journal
                .iter()
                .filter(of_this)
                .filter(|e| landed_status_write(e));
            let unknown = journal
                .iter()
                .filter(of_this)
                .filter(|e| e.forwarded && e.server.is_none());
            (landed.count(), unknown.count())
        });
        assert!(
            writes == 1 || writes == 0 && unknown >= 1,
            "{name} was written {writes} times ({unknown} forwarded without an answer): {object:#?}"
        );
        let reported: Vec<&Event> = events
            .items
            .iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(&name))
            .filter(|e| e.reason.as_deref() == Some(REASON_STATUS_REJECTED))
            .collect();
        let lost_answers = run.faults.inspect(|journal| {
            journal
                .iter()
                .filter(|e| e.sent.body["regarding"]["name"].as_str() == Some(name.as_str()))
                .filter(|e| e.sent.body["reason"] == REASON_STATUS_REJECTED)
                .filter(|e| e.server.is_some() && e.client.is_none())
                .count()
        });
        assert!(
            (1..=1 + lost_answers).contains(&reported.len())
                && reported.iter().all(|e| e.series.is_none()),
            "{name} has not one {REASON_STATUS_REJECTED} Event ({lost_answers} lost answers) but \
             {reported:#?}; its requests:\n{}",
            requests_about(&run.faults, &name)
        );
    }
    assert_eq!(run.objects.len(), objects + REJECTED);
    assert_eq!(
        figures.stale_writes, 0,
        "a status from a stale copy was written"
    );
    assert!(run.spec_changes >= objects as u64);
    // Every kind of fault and of real answer did happen.
    for (what, count) in [
        ("lost responses", figures.lost_responses),
        ("resets", figures.resets),
        ("delays", figures.delays),
        ("timeouts", figures.timeouts),
        ("made-up 429s", figures.throttled),
        ("made-up 500s", figures.server_errors),
        ("cut watches", figures.cut_watches),
        ("failed lists", figures.failed_lists),
        ("real 409s", figures.conflicts),
        ("real 422s", figures.rejections),
        ("real 410s", figures.gone),
        ("fallback writes", figures.fallback_writes),
        ("fallback releases", figures.releases),
        ("compactions", run.compactions as usize),
    ] {
        assert!(count > 0, "no {what} happened: {figures:#?}");
    }
}

/// A smaller run (40 widgets, no rejected cohort, no compactions) with the precondition
/// taken off every status apply on its way (the fault layer drops `metadata.resourceVersion`):
/// a status computed from a copy that a second client's write made stale then does overwrite
/// the newer object (at least `w0001`'s, whose apply reaches the server only after its spec
/// changed), and the server never answers 409. This is what the check above would catch if
/// the chokepoint stopped sending the precondition.
#[tokio::test]
async fn without_the_precondition_stale_copies_overwrite_newer_statuses() {
    let run = soak(40, 0, false).await;
    let figures = Figures::of(&run);
    eprintln!("without preconditions: {figures:#?}");
    assert!(figures.stale_writes > 0, "{figures:#?}");
    assert_eq!(figures.conflicts, 0, "{figures:#?}");
}

/// Creates `objects` widgets (`w0000`...) and `rejected` ones (`r000`...), runs the
/// controller through faults and a second client's spec and label changes (and, with
/// `preconditions`, two compactions under its watches), then without faults until every
/// object is settled.
async fn soak(objects: usize, rejected_objects: usize, preconditions: bool) -> Run {
    let seed = std::env::var("KONDITION_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("KONDITION_SOAK_SEED={seed}");
    let env = TestEnv::new([widget_crd()]).await;
    let namespace = env.namespace.clone();
    let widgets = env.api::<Widget>();
    let names: Vec<String> = (0..objects)
        .map(|i| format!("w{i:04}"))
        .chain((0..rejected_objects).map(|i| format!("r{i:03}")))
        .collect();
    futures::stream::iter(names.clone())
        .for_each_concurrent(16, |name| {
            let widgets = widgets.clone();
            async move {
                let size = if name.starts_with('r') { -1 } else { 1 };
                let params = PostParams {
                    field_manager: Some(HARNESS.into()),
                    ..PostParams::default()
                };
                widgets
                    .create(&params, &Widget::new(&name, WidgetSpec { size }))
                    .await
                    .expect("created");
            }
        })
        .await;

    // The controller speaks as an operator does: a ServiceAccount allowed what kondition's
    // status chokepoint needs for widgets, and (this controller's own choice, below) to list
    // and watch the Events it records. Its requests are journaled by the fault layer; the
    // identity's own record is not used.
    let mut rules = env.rules();
    rules.push(
        serde_json::from_value(
            json!({"apiGroups": ["events.k8s.io"], "resources": ["events"],
                                      "verbs": ["list", "watch"]}),
        )
        .expect("a rule"),
    );
    let identity = env.identity("soak-controller", rules).await;
    let (client, faults) = faulty(identity.unrecorded());
    if !preconditions {
        faults.drop_preconditions();
    }
    faults.random(seed, RATES, |_| true);
    inject_each_kind_once(&faults, &env);
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let context = Arc::new(Context {
        reconciler: StatusReconciler::new(client.clone())
            .recorder(Recorder::new(client.clone(), reporter))
            .requeue_policy(POLICY),
        rng: Mutex::new(seed.rotate_left(17).max(1)),
        faulty_bodies: AtomicBool::new(true),
        rejected_once: AtomicBool::new(false),
        reconciles: tokio::sync::watch::Sender::new(0),
        seen: Mutex::default(),
        widget_reconciles: AtomicU64::new(0),
        body_failures: AtomicU64::new(0),
        negative_sizes: AtomicU64::new(0),
        write_errors: AtomicU64::new(0),
        write_conflicts: AtomicU64::new(0),
    });
    // The controller also watches the Events it records, which kube-apiserver serves from
    // etcd (no watch cache): a compaction gives that watch a real 410 Gone when it resumes
    // from a version before it. The Widget watch is served from the watch cache, which a
    // compaction does not reach.
    let event_namespace = namespace.clone();
    let controller = Controller::new(
        Api::<Widget>::namespaced(client.clone(), &namespace),
        watcher::Config::default(),
    )
    .watches(
        Api::<Event>::namespaced(client.clone(), &namespace),
        watcher::Config::default(),
        move |event: Event| {
            event
                .regarding
                .filter(|r| r.kind.as_deref() == Some("Widget"))
                .and_then(|r| r.name)
                .map(|name| ObjectRef::new(&name).within(&event_namespace))
        },
    )
    .trigger_backoff(Quick)
    .run(
        |object, context: Arc<Context>| async move {
            let name = object.name_any();
            let widget = name.starts_with('w');
            // The rejected cohort's body never fails: its status stays the rejected one.
            if name == "w0002" && fallback_holds(&object) {
                context.rejected_once.store(true, Ordering::SeqCst);
            }
            let draw = if name == "w0002" && !context.rejected_once.load(Ordering::SeqCst) {
                BODY_FAILURE
            } else if widget && context.faulty_bodies.load(Ordering::SeqCst) {
                context.random()
            } else {
                1.0
            };
            if widget {
                context.widget_reconciles.fetch_add(1, Ordering::SeqCst);
            }
            if let Some(generation) = object.metadata.generation {
                let mut seen = context.seen.lock().unwrap_or_else(|e| e.into_inner());
                let highest = seen.entry(name.clone()).or_default();
                *highest = generation.max(*highest);
            }
            let result = context
                .reconciler
                .reconcile(object, async |w: &mut Widget| {
                    if draw < BODY_FAILURE {
                        context.body_failures.fetch_add(1, Ordering::SeqCst);
                        return Err(Failure::retryable("Throttled", "the cloud API is busy"));
                    }
                    if draw < BODY_FAILURE + BODY_NEGATIVE {
                        context.negative_sizes.fetch_add(1, Ordering::SeqCst);
                        w.status_or_insert().seen_size = Some(-1);
                    } else {
                        w.status_or_insert().seen_size = Some(w.spec.size);
                    }
                    Ok(())
                })
                .await;
            context.reconciles.send_modify(|n| *n += 1);
            result
        },
        |object, error, context| {
            context.write_errors.fetch_add(1, Ordering::SeqCst);
            if error.is_conflict() {
                context.write_conflicts.fetch_add(1, Ordering::SeqCst);
            }
            error_policy(object, error, RETRY)
        },
        context.clone(),
    )
    .for_each(|_| async {});
    let running = tokio::spawn(controller);

    // Faults while a second client changes specs and labels, paced by the controller's
    // progress: a change every two reconciles (or once the last change was reconciled).
    // Twice, etcd is compacted under the watches.
    let mut spec_changes = 0;
    let mut labels = 0;
    let mut compactions = 0;
    let widget_names = &names[..objects];
    let changes = objects as u64;
    let mut last: Option<(String, i64)> = None;
    for step in 0..changes {
        if let Some((name, generation)) = &last {
            context.reconciled(2 * step, name, *generation).await;
        }
        let name = &widget_names[(context.random() * objects as f64) as usize % objects];
        let size = i64::try_from(step).unwrap_or_default() + 10_000;
        let changed = patch(&widgets, name, json!({"spec": {"size": size}})).await;
        last = Some((
            name.clone(),
            changed.metadata.generation.unwrap_or_default(),
        ));
        spec_changes += 1;
        if step % 10 == 5 {
            let name = &widget_names[(context.random() * objects as f64) as usize % objects];
            patch(
                &widgets,
                name,
                json!({"metadata": {"labels": {"step": step.to_string()}}}),
            )
            .await;
            labels += 1;
        }
        if preconditions && (step == changes / 3 || step == 2 * changes / 3) {
            compact_under_the_event_watch(&faults, &widgets, widget_names).await;
            compactions += 1;
        }
    }
    // Every kind of fault happened (the ones injected on purpose included) before they stop.
    faults
        .wait_for(|journal| {
            let kinds: BTreeSet<FaultKind> = journal.iter().filter_map(|e| e.fault).collect();
            kinds.len() == ALL_KINDS.len()
        })
        .await;
    faults.calm();
    context.faulty_bodies.store(false, Ordering::SeqCst);

    let quiet_from = context.widget_reconciles.load(Ordering::SeqCst);
    let objects = settle(&env, &context, objects).await;
    // A StatusRejected Event whose post failed (a fault on the Event's own request) is posted
    // at the object's next reconcile, within the backoff after the status settled: the
    // controller runs until every rejected object's is there.
    rejections_announced(&env, rejected_objects).await;
    running.abort();
    let settle_reconciles = context.widget_reconciles.load(Ordering::SeqCst) - quiet_from;
    Run {
        env,
        faults,
        context,
        seed,
        spec_changes,
        labels,
        compactions,
        settle_reconciles,
        objects,
    }
}

const ALL_KINDS: [FaultKind; 8] = [
    FaultKind::LostResponse,
    FaultKind::Reset,
    FaultKind::Delay,
    FaultKind::After,
    FaultKind::Timeout,
    FaultKind::Throttle,
    FaultKind::ServerError,
    FaultKind::Cut,
];

/// Each kind of fault once on purpose, so that every run meets every kind whatever its
/// seed draws: on status applies, on a LIST, on a watch; and a full status apply of `w0001`
/// that reaches the server only after a second client changed the object's spec (a real 409,
/// or without the precondition a stale write).
fn inject_each_kind_once(faults: &Faults, env: &TestEnv) {
    // First, so that the faults below for any status apply do not take `w0001`'s first.
    let widgets = env.api::<Widget>();
    faults.next(
        |sent: &Sent| {
            sent.is_status_apply() && sent.manager() == Some(OWNER) && sent.name() == Some("w0001")
        },
        Fault::After(Box::pin(async move {
            patch(&widgets, "w0001", json!({"spec": {"size": 5_000}})).await;
        })),
    );
    for fault in [
        Fault::LoseResponse,
        Fault::Reset,
        Fault::Delay(Duration::from_millis(20)),
        Fault::Timeout(Duration::from_millis(20)),
        Fault::Throttle {
            retry_after_seconds: 1,
        },
        Fault::ServerError,
    ] {
        faults.next(Sent::is_status_apply, fault);
    }
    faults.next(Sent::is_list, Fault::ServerError);
    faults.next(
        |sent: &Sent| sent.is_watch() && sent.resource() == Some("widgets"),
        Fault::CutAfter(3),
    );
}

/// The journal's requests about object `name` (to it, or Events regarding it), one line each:
/// what was sent, the fault, the server's and the client's status codes.
fn requests_about(faults: &Faults, name: &str) -> String {
    faults.inspect(|journal| {
        journal
            .iter()
            .filter(|e| {
                e.sent.name() == Some(name)
                    || e.sent.body["regarding"]["name"].as_str() == Some(name)
            })
            .map(|e| {
                format!(
                    "{} {} manager={:?} fault={:?} server={:?} client={:?}",
                    e.sent.method,
                    e.sent.path,
                    e.sent.manager(),
                    e.fault,
                    e.server,
                    e.client
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// A second client's merge patch of widget `name`; returns the object after it.
async fn patch(widgets: &Api<Widget>, name: &str, patch: Value) -> Widget {
    let params = PatchParams {
        field_manager: Some(HARNESS.into()),
        ..PatchParams::default()
    };
    widgets
        .patch(name, &params, &Patch::Merge(patch))
        .await
        .unwrap_or_else(|e| panic!("patching {name}: {e}"))
}

fn is_event_watch(sent: &Sent) -> bool {
    sent.is_watch() && sent.resource() == Some("events")
}

/// Compacts etcd while the controller's watches run, such that the Event watch gets a real
/// 410 Gone: its running stream is cut and its resumption held until etcd has moved on twice
/// past the version it resumes from and been compacted; then it goes on, and gets 410. The
/// controller's watcher lists again. Waits (retrying, if the watch was between two streams)
/// until the 410 came.
async fn compact_under_the_event_watch(faults: &Faults, widgets: &Api<Widget>, names: &[String]) {
    loop {
        faults
            .wait_for(|journal| {
                journal
                    .iter()
                    .any(|e| is_event_watch(&e.sent) && e.streaming)
            })
            .await;
        let before = faults.inspect(gone);
        let (open, gate) = tokio::sync::oneshot::channel::<()>();
        if faults.cut_and_hold(is_event_watch, async move {
            let _ = gate.await;
        }) == 0
        {
            // It ended just now: wait for the next one.
            tokio::task::yield_now().await;
            continue;
        }
        for name in &names[..2] {
            patch(
                widgets,
                name,
                json!({"metadata": {"annotations": {"compaction": "next"}}}),
            )
            .await;
        }
        cluster().compact();
        let _ = open.send(());
        faults.wait_for(|journal| gone(journal) > before).await;
        return;
    }
}

/// How many 410 Gone the watches got.
fn gone(journal: &[Exchange]) -> usize {
    journal
        .iter()
        .map(|e| e.watch_errors.iter().filter(|&&code| code == 410).count())
        .sum()
}

/// Watches the widgets (unfaulted) until every one is settled: current, or rejected for the
/// `r` cohort. Fails if the controller keeps reconciling without getting there: twenty
/// reconciles per widget after the faults stopped is far beyond what settling needs.
async fn settle(env: &TestEnv, context: &Context, widgets: usize) -> BTreeMap<String, Widget> {
    let quiet_from = context.widget_reconciles.load(Ordering::SeqCst);
    let bound = quiet_from + 20 * widgets as u64;
    let mut reconciles = context.reconciles.subscribe();
    let mut stream = watcher(env.api::<Widget>(), watcher::Config::default()).boxed();
    let mut objects: BTreeMap<String, Widget> = BTreeMap::new();
    let mut listed = false;
    loop {
        tokio::select! {
            event = stream.try_next() => match event.expect("the test's own watch") {
                Some(watcher::Event::Apply(w) | watcher::Event::InitApply(w)) => {
                    objects.insert(w.name_any(), w);
                }
                Some(watcher::Event::InitDone) => listed = true,
                Some(watcher::Event::Init | watcher::Event::Delete(_)) => {}
                None => panic!("the test's own watch ended"),
            },
            _ = reconciles.changed() => {}
        }
        if listed && objects.values().all(settled) {
            return objects;
        }
        let done = context.widget_reconciles.load(Ordering::SeqCst);
        assert!(
            done <= bound,
            "{} widget reconciles since the faults stopped and still not settled, such as {:#?}",
            done - quiet_from,
            objects.values().find(|o| !settled(o))
        );
    }
}

/// Waits until each of the rejected cohort's `count` objects (`r000`, ...) has a
/// StatusRejected Event (at most 10 minutes: a bound on a hang, not a deadline).
async fn rejections_announced(env: &TestEnv, count: usize) {
    let events: Api<Event> = Api::namespaced(env.admin.clone(), &env.namespace);
    let all = async {
        loop {
            let listed = events.list(&ListParams::default()).await.expect("events");
            let announced = |name: &str| {
                listed.items.iter().any(|e| {
                    e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name)
                        && e.reason.as_deref() == Some(REASON_STATUS_REJECTED)
                })
            };
            if (0..count).all(|i| announced(&format!("r{i:03}"))) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(600), all)
        .await
        .expect("every rejected object's StatusRejected Event posted");
}

fn settled(object: &Widget) -> bool {
    if object.name_any().starts_with('r') {
        rejected(object)
    } else {
        current(object) && !fallback_holds(object)
    }
}

/// Whether `object` is one of the rejected cohort, with its rejection reported for its
/// generation: Ready False, `StatusRejected`, and no `observedGeneration` (never accepted).
fn rejected(object: &Widget) -> bool {
    let Some(status) = &object.status else {
        return false;
    };
    object.spec.size == -1
        && status.observed_generation.is_none()
        && status.conditions.get("Ready").is_some_and(|ready| {
            ready.status == kondition::ConditionStatus::False
                && ready.reason == REASON_STATUS_REJECTED
                && ready.observed_generation == object.metadata.generation
        })
}

/// Whether `object`'s stored status is that of its generation: observedGeneration, Ready
/// True for that generation, and the spec's size seen.
fn current(object: &Widget) -> bool {
    let Some(status) = &object.status else {
        return false;
    };
    status.observed_generation == object.metadata.generation
        && status.seen_size == Some(object.spec.size)
        && status.conditions.get("Ready").is_some_and(|ready| {
            ready.status == kondition::ConditionStatus::True
                && ready.observed_generation == object.metadata.generation
                && ready.severity == kondition::Severity::None
        })
}

/// Whether the fallback manager still owns fields of `object`.
fn fallback_holds(object: &Widget) -> bool {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .any(|entry| entry.manager.as_deref() == Some(FALLBACK))
}

/// A status apply that the server accepted (whether or not the client saw the answer) and
/// that wrote a status (not a release).
fn landed_status_write(exchange: &Exchange) -> bool {
    exchange.sent.is_status_apply()
        && exchange.sent.carries_status()
        && exchange.server == Some(200)
}

/// Whether an accepted status apply wrote a status computed from a stale copy: the object
/// the server answered with (right after the write) has another generation than the one the
/// apply's Ready condition (and a full apply's `observedGeneration`) says it saw. An accepted
/// write whose answer cannot be read (none journaled, or no generation in it) fails the test:
/// it cannot be judged, and counting it as fresh would let a stale write pass.
fn stale(exchange: &Exchange) -> bool {
    let generation = exchange
        .answer
        .as_ref()
        .map(|answer| &answer["metadata"]["generation"])
        .filter(|generation| generation.is_i64())
        .unwrap_or_else(|| {
            panic!("an accepted status write without a readable answer: {exchange:#?}")
        });
    let sent = &exchange.sent.body["status"];
    let ready_seen = sent["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "Ready")
        .any(|c| c["observedGeneration"] != *generation);
    let full = exchange.sent.manager() == Some(OWNER);
    ready_seen || (full && sent["observedGeneration"] != *generation)
}

/// The figures of a run.
#[derive(Debug)]
#[allow(dead_code)] // Read through Debug.
struct Figures {
    seed: u64,
    objects: usize,
    reconciles: u64,
    body_failures: u64,
    negative_sizes: u64,
    write_errors: u64,
    write_conflicts: u64,
    spec_changes: u64,
    labels: u64,
    compactions: u64,
    settle_reconciles: u64,
    requests: usize,
    status_applies: usize,
    /// Status applies the server accepted that wrote a status (full or fallback).
    landed_writes: usize,
    fallback_writes: usize,
    releases: usize,
    events_recorded: usize,
    lists: usize,
    watches: usize,
    lost_responses: usize,
    resets: usize,
    delays: usize,
    held: usize,
    timeouts: usize,
    throttled: usize,
    server_errors: usize,
    cut_watches: usize,
    failed_lists: usize,
    /// The server's own answers.
    conflicts: usize,
    rejections: usize,
    gone: usize,
    stale_writes: usize,
}

impl Figures {
    fn of(run: &Run) -> Figures {
        let counts: BTreeMap<FaultKind, usize> = ALL_KINDS
            .iter()
            .map(|&k| (k, run.faults.count(k)))
            .collect();
        let count = |kind| counts[&kind];
        run.faults.inspect(|journal| {
            let applies = || journal.iter().filter(|e| e.sent.is_status_apply());
            let by_fallback = |e: &&Exchange| e.sent.manager() == Some(FALLBACK);
            Figures {
                seed: run.seed,
                objects: run.objects.len(),
                reconciles: *run.context.reconciles.borrow(),
                body_failures: run.context.body_failures.load(Ordering::SeqCst),
                negative_sizes: run.context.negative_sizes.load(Ordering::SeqCst),
                write_errors: run.context.write_errors.load(Ordering::SeqCst),
                write_conflicts: run.context.write_conflicts.load(Ordering::SeqCst),
                spec_changes: run.spec_changes,
                labels: run.labels,
                compactions: run.compactions,
                settle_reconciles: run.settle_reconciles,
                requests: journal.len(),
                status_applies: applies().count(),
                landed_writes: journal.iter().filter(|e| landed_status_write(e)).count(),
                fallback_writes: applies()
                    .filter(by_fallback)
                    .filter(|e| e.sent.carries_status() && e.server == Some(200))
                    .count(),
                releases: applies()
                    .filter(by_fallback)
                    .filter(|e| !e.sent.carries_status() && e.server == Some(200))
                    .count(),
                events_recorded: journal
                    .iter()
                    .filter(|e| e.sent.resource() == Some("events") && e.sent.method != "GET")
                    .filter(|e| e.server.is_some_and(|c| c < 300))
                    .count(),
                lists: journal.iter().filter(|e| e.sent.is_list()).count(),
                watches: journal.iter().filter(|e| e.sent.is_watch()).count(),
                lost_responses: count(FaultKind::LostResponse),
                resets: count(FaultKind::Reset),
                delays: count(FaultKind::Delay),
                held: count(FaultKind::After),
                timeouts: count(FaultKind::Timeout),
                throttled: count(FaultKind::Throttle),
                server_errors: count(FaultKind::ServerError),
                cut_watches: count(FaultKind::Cut),
                failed_lists: journal
                    .iter()
                    .filter(|e| e.sent.is_list() && e.client != Some(200))
                    .count(),
                conflicts: applies().filter(|e| e.server == Some(409)).count(),
                rejections: applies().filter(|e| e.server == Some(422)).count(),
                gone: gone(journal),
                stale_writes: journal
                    .iter()
                    .filter(|e| landed_status_write(e) && stale(e))
                    .count(),
            }
        })
    }
}
