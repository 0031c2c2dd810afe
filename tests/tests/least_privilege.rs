//! The chokepoint under the identity an operator really runs as, on the real API server: a
//! ClusterRole that lacks `patch` on `<plural>/status` (the most common RBAC mistake of an
//! operator), and an identity that API Priority and Fairness throttles. Nothing is retried at
//! a fixed delay for ever in silence: a refusal is an Event (once), the reconcile's error, and
//! a backoff that doubles; real throttling is waited out as its `Retry-After` header says.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::rbac::v1::PolicyRule;
use kondition::controller::{AnswerClass, REASON_STATUS_REJECTED, StatusReconciler, error_policy};
use kondition::{Condition, ConditionStatus, Failure, KubeStatus, RequeuePolicy, StatusResource};
use kondition_tests::cluster::{TestEnv, recorded_events};
use kondition_tests::faults::{Fault, faulty};
use kondition_tests::kinds::{StandardWidget, StandardWidgetSpec};
use kondition_tests::recording::Requests;
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::{Controller, watcher};
use kube::{Api, CustomResourceExt, Resource, ResourceExt};
use serde_json::json;

/// The log lines at error level written on this thread while it is held: a subscriber that
/// keeps each such event's message and fields as text (the tests run on a current-thread
/// runtime, so every poll of the chokepoint is on the test's thread).
#[derive(Clone, Default)]
struct Errors(Arc<Mutex<Vec<String>>>);

impl Errors {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Writes an event's fields as `name=value`, space-separated.
struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
}

impl tracing::Subscriber for Errors {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() == tracing::Level::ERROR
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The backoff of the tests: 1 s, doubling, up to 16 s.
const POLICY: RequeuePolicy = RequeuePolicy {
    resync: Duration::from_secs(600),
    backoff_initial: Duration::from_secs(1),
    backoff_max: Duration::from_secs(16),
};

fn reconciler(client: kube::Client) -> StatusReconciler<StandardWidget> {
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    StatusReconciler::new(client.clone())
        .recorder(Recorder::new(client, reporter))
        .requeue_policy(POLICY)
}

/// `rules` without the `patch` of `<plural>/status`.
fn without_status_patch(rules: Vec<PolicyRule>, plural: &str) -> Vec<PolicyRule> {
    let status = format!("{plural}/status");
    let rules: Vec<PolicyRule> = rules
        .into_iter()
        .filter(|rule| !rule.resources.iter().flatten().any(|r| *r == status))
        .collect();
    assert!(
        rules.iter().all(|rule| !rule
            .resources
            .iter()
            .flatten()
            .any(|r| r.ends_with("/status"))),
        "{rules:?}"
    );
    rules
}

/// A ServiceAccount allowed everything the chokepoint needs but `patch` on
/// `standardwidgets/status`: the full apply and its fallback are refused (403); one Warning
/// Event says nothing could be written; each reconcile is an error carrying a backoff that
/// doubles (1, 2, 4, 8, 16, 16 s) and nothing is sent before it has passed: one request per
/// backoff, not a request per reconcile at a fixed delay. The body's condition carries a
/// message that changes at every reconcile (a request id, say): free text neither restarts
/// the backoff nor makes a second Event.
#[tokio::test(start_paused = true)]
async fn a_clusterrole_without_patch_on_the_status() {
    let env = TestEnv::new([StandardWidget::crd()]).await;
    let plural = StandardWidget::plural(&()).into_owned();
    let identity = env
        .identity("no-status", without_status_patch(env.rules(), &plural))
        .await;
    let (client, requests) = identity.recorded_without_retry();
    let reconciler = reconciler(client);
    let api: Api<StandardWidget> = env.api();
    api.create(
        &PostParams::default(),
        &StandardWidget::new("w1", StandardWidgetSpec { size: 1 }),
    )
    .await
    .expect("created");
    let created = api.get("w1").await.expect("read");
    let request = std::sync::atomic::AtomicU32::new(0);
    let reconcile = async || {
        let object = api.get("w1").await.expect("read");
        let id = request.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        reconciler
            .reconcile(Arc::new(object), async |w: &mut StandardWidget| {
                let synced = Condition::new("Synced", ConditionStatus::True, "Checked")
                    .with_message(format!("request {id}"));
                w.status_or_insert().conditions_mut().set(synced);
                Ok::<(), Failure>(())
            })
            .await
            .expect_err("nothing can be written")
    };
    let status_patches = || {
        requests
            .all()
            .into_iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .map(|r| r.status.unwrap_or_default())
            .collect::<Vec<_>>()
    };

    let errors = Errors::default();
    let logging = tracing::subscriber::set_default(errors.clone());
    let error = reconcile().await;
    drop(logging);
    assert_eq!(error.status_code(), Some(403), "{error}");
    assert!(
        error.to_string().contains("cannot patch resource"),
        "the server's words: {error}"
    );
    let logged = errors.lines();
    assert_eq!(logged.len(), 1, "one error line: {logged:?}");
    assert!(
        logged[0].contains("status and its fallback rejected; nothing written")
            && logged[0].contains("cannot patch resource"),
        "{logged:?}"
    );
    assert_eq!(
        status_patches(),
        [403, 403],
        "the full apply, then its fallback"
    );
    let second = Duration::from_secs(1);
    assert_eq!(error.backoff(), Some(second));
    assert_eq!(
        error_policy(Arc::new(created.clone()), &error, Duration::ZERO),
        Action::requeue(second)
    );

    // Reconciles before the backoff has passed (watch events, another controller's write)
    // do nothing: no body, no request; each asks to come back at the retry time.
    for _ in 0..10 {
        let object = api.get("w1").await.expect("read");
        let action = reconciler
            .reconcile(Arc::new(object), async |_: &mut StandardWidget| {
                Ok::<(), Failure>(())
            })
            .await
            .expect("nothing done within the backoff");
        assert_eq!(action, Action::requeue(second), "the clock is paused");
    }
    assert_eq!(status_patches().len(), 2, "nothing sent before the backoff");

    let mut backoffs = Vec::new();
    for wait in [1, 2, 4, 8, 16, 16] {
        requests.clear();
        tokio::time::advance(Duration::from_secs(wait)).await;
        let error = reconcile().await;
        assert_eq!(status_patches(), [403], "one full apply after {wait} s");
        backoffs.push(error.backoff().map(|b| b.as_secs()));
    }
    assert_eq!(
        backoffs,
        [Some(2), Some(4), Some(8), Some(16), Some(16), Some(16)],
        "doubling, bounded"
    );

    let events = recorded_events(&env.admin, &env.namespace).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(events[0].reason.as_deref(), Some(REASON_STATUS_REJECTED));
    let stored = api.get("w1").await.expect("read");
    assert_eq!(stored.resource_version(), created.resource_version());
}

/// Throttling as the API server sends it (API Priority and Fairness: 429, a plain-text
/// body, `Retry-After`): the status write fails, and the error says how long the server asked
/// to wait, which `error_policy` waits at least. Once the throttle ends, the status is
/// written.
#[tokio::test]
async fn real_throttling_is_waited_out_as_its_header_says() {
    let env = TestEnv::new([StandardWidget::crd()]).await;
    let api: Api<StandardWidget> = env.api();
    api.create(
        &PostParams::default(),
        &StandardWidget::new("w1", StandardWidgetSpec { size: 1 }),
    )
    .await
    .expect("created");
    let object = Arc::new(api.get("w1").await.expect("read"));
    let throttled = env.throttled("throttled").await;
    let (client, requests) = throttled.identity.recorded_without_retry();
    let reconciler = reconciler(client);

    let error = reconciler
        .reconcile(object.clone(), async |_: &mut StandardWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect_err("throttled");
    assert_eq!(error.status_code(), Some(429), "{error}");
    assert!(
        error.to_string().contains("Too many requests"),
        "the plain-text body: {error}"
    );
    let after = error.retry_after().expect("the Retry-After header, read");
    assert!(after >= Duration::from_secs(1), "{after:?}");
    assert_eq!(
        error_policy(object.clone(), &error, Duration::ZERO),
        Action::requeue(after.max(error.backoff().unwrap_or_default()))
    );
    assert_eq!(
        error_policy(object.clone(), &error, Duration::from_secs(3600)),
        Action::requeue(Duration::from_secs(3600)),
        "the error policy's own delay when longer"
    );
    let writes: Vec<_> = requests
        .all()
        .into_iter()
        .filter(|r| r.is_write())
        .collect();
    assert_eq!(writes.len(), 1, "no fallback after a 429: {writes:?}");

    // Before the server's wait has passed, a reconcile does nothing; once it has (the real
    // clock: the throttle is the real server's), the status goes.
    let action = reconciler
        .reconcile(object.clone(), async |_: &mut StandardWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("nothing done before the wait");
    assert_ne!(action, Action::await_change(), "requeued at the retry time");
    let writes = requests.all().into_iter().filter(|r| r.is_write()).count();
    assert_eq!(writes, 1, "nothing sent before the server's wait");
    throttled.release().await;
    tokio::time::sleep(after.max(error.backoff().unwrap_or_default())).await;
    reconciler
        .reconcile(object, async |_: &mut StandardWidget| Ok::<(), Failure>(()))
        .await
        .expect("written once the throttle ends");
    let stored = api.get("w1").await.expect("read");
    assert!(stored.status.is_some_and(|s| s.is_ready()));
}

/// An identity the API server no longer knows (its ServiceAccount deleted, so its token no
/// longer authenticates): 401 on every write. Not a rejection (the status is not at fault; no
/// fallback): the reconcile's error, a Warning Event at once and only once, a backoff that
/// doubles.
#[tokio::test(start_paused = true)]
async fn an_identity_the_server_no_longer_knows() {
    let env = TestEnv::new([StandardWidget::crd()]).await;
    let api: Api<StandardWidget> = env.api();
    api.create(
        &PostParams::default(),
        &StandardWidget::new("w1", StandardWidgetSpec { size: 1 }),
    )
    .await
    .expect("created");
    let (client, requests) = unknown_identity(&env).await;
    let reconciler = reconciler_with_events(&env, client);

    // Four reconciles back to back: one PATCH, the other three within its backoff do
    // nothing. Then one PATCH per backoff step, doubling.
    let mut backoffs = Vec::new();
    for _ in 0..4 {
        let object = api.get("w1").await.expect("read");
        let error = reconciler
            .reconcile(Arc::new(object), async |_: &mut StandardWidget| {
                Ok::<(), Failure>(())
            })
            .await
            .expect_err("unauthorized");
        assert_eq!(error.status_code(), Some(401), "{error}");
        assert_eq!(error.class(), AnswerClass::Refused);
        let backoff = error.backoff().expect("a backoff");
        backoffs.push(backoff.as_secs());
        for _ in 0..3 {
            let object = api.get("w1").await.expect("read");
            let action = reconciler
                .reconcile(Arc::new(object), async |_: &mut StandardWidget| {
                    Ok::<(), Failure>(())
                })
                .await
                .expect("nothing done within the backoff");
            assert_eq!(action, Action::requeue(backoff), "the clock is paused");
        }
        tokio::time::advance(backoff).await;
    }
    assert_eq!(backoffs, [1, 2, 4, 8]);
    let sent: Vec<_> = requests
        .all()
        .into_iter()
        .map(|r| (r.method, r.status))
        .collect();
    assert_eq!(
        sent,
        vec![("PATCH".to_owned(), Some(401)); 4],
        "one per backoff step, no fallback"
    );
    let events = recorded_events(&env.admin, &env.namespace).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(
        events[0].reason.as_deref(),
        Some(kondition::controller::REASON_STATUS_WRITE_FAILED)
    );
}

/// An identity the API server no longer knows: a ServiceAccount made with the test's rules,
/// then deleted, so that its token no longer authenticates. Its recorded client, without
/// kube's retry layer.
async fn unknown_identity(env: &TestEnv) -> (kube::Client, Requests) {
    let gone = env.identity("gone", env.rules()).await;
    let (client, requests) = gone.recorded_without_retry();
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> = env.api();
    accounts
        .delete(&gone.name, &Default::default())
        .await
        .expect("deleted");
    // The authenticator reads ServiceAccounts through a cache: polled, with a bound, on the
    // real clock, until a request of the identity is refused.
    let probe: Api<StandardWidget> = Api::namespaced(gone.unrecorded(), &env.namespace);
    let mut refused = false;
    for _ in 0..600 {
        if let Err(kube::Error::Api(status)) = probe.get("w1").await
            && status.code == 401
        {
            refused = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        refused,
        "the deleted ServiceAccount's token still authenticates"
    );
    (client, requests)
}

/// A chokepoint writing through `client`, its Events posted as the controller's own (valid)
/// identity.
fn reconciler_with_events(env: &TestEnv, client: kube::Client) -> StatusReconciler<StandardWidget> {
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    StatusReconciler::<StandardWidget>::new(client)
        .recorder(Recorder::new(env.client.clone(), reporter))
        .requeue_policy(POLICY)
}

/// Widget w1 of size 1, made by the admin.
async fn create_w1(env: &TestEnv) {
    let api: Api<StandardWidget> = env.api();
    api.create(
        &PostParams::default(),
        &StandardWidget::new("w1", StandardWidgetSpec { size: 1 }),
    )
    .await
    .expect("created");
}

/// What `under_labels` saw of the reconciles a real Controller ran.
#[derive(Debug, Default)]
struct Storm {
    /// Each reconcile that ran its body (so sent its status): when its body started, and the
    /// wait its error asked for.
    attempts: Vec<(tokio::time::Instant, Duration)>,
    /// Reconciles that did nothing (within the retry time).
    waited: usize,
    /// Reconciles that did neither: a write that succeeded, a failure with no write.
    unexpected: Vec<String>,
}

/// Runs a real `kube::runtime::Controller` over the test's widgets (watching through the
/// admin's client), each reconcile through `reconciler`, while another field manager labels
/// w1 every 200 ms on the real clock, each label a watch event and a reconcile. Stops once
/// three reconciles ran their body and five did nothing, or fails after 400 labels.
async fn under_labels(env: &TestEnv, reconciler: StatusReconciler<StandardWidget>) -> Storm {
    let storm = Arc::new(Mutex::new(Storm::default()));
    let seen = storm.clone();
    let widgets: Api<StandardWidget> = env.api();
    let controller = tokio::spawn(
        Controller::new(widgets.clone(), watcher::Config::default())
            .run(
                move |object: Arc<StandardWidget>, reconciler: Arc<StatusReconciler<_>>| {
                    let seen = seen.clone();
                    async move {
                        let started = Mutex::new(None);
                        let result = reconciler
                            .reconcile(object, async |_: &mut StandardWidget| {
                                *started.lock().unwrap_or_else(|e| e.into_inner()) =
                                    Some(tokio::time::Instant::now());
                                Ok::<(), Failure>(())
                            })
                            .await;
                        let mut storm = seen.lock().unwrap_or_else(|e| e.into_inner());
                        match (
                            started.into_inner().unwrap_or_else(|e| e.into_inner()),
                            &result,
                        ) {
                            (Some(at), Err(error)) => {
                                storm
                                    .attempts
                                    .push((at, error.backoff().unwrap_or_default()));
                            }
                            (None, Ok(_)) => storm.waited += 1,
                            other => storm.unexpected.push(format!("{other:?}")),
                        }
                        result
                    }
                },
                |object, error, _| error_policy(object, error, Duration::ZERO),
                Arc::new(reconciler),
            )
            .for_each(|_| async {}),
    );
    let mut labels = tokio::time::interval(Duration::from_millis(200));
    for tick in 0..400 {
        labels.tick().await;
        {
            let storm = storm.lock().unwrap_or_else(|e| e.into_inner());
            if storm.attempts.len() >= 3 && storm.waited >= 5 {
                break;
            }
        }
        assert!(
            tick < 399,
            "not three attempts after 80 s of labels: {storm:?}"
        );
        let label = json!({"metadata": {"labels": {"tick": tick.to_string()}}});
        widgets
            .patch("w1", &PatchParams::default(), &Patch::Merge(&label))
            .await
            .expect("labelled");
    }
    controller.abort();
    let _ = controller.await;
    let mut storm = storm.lock().unwrap_or_else(|e| e.into_inner());
    std::mem::take(&mut *storm)
}

/// Each attempt of `storm` came after the wait the one before asked for (a backoff step),
/// whatever the watch events in between: at most one request per step. The wait is the
/// backoff (1 s, doubling) or more (the server's `Retry-After`).
fn one_per_step(storm: &Storm, answered: &[Option<u16>], code: u16) {
    assert!(storm.unexpected.is_empty(), "{:?}", storm.unexpected);
    let steps: Vec<Duration> = storm.attempts.iter().map(|(_, wait)| *wait).collect();
    for (step, pair) in storm.attempts.windows(2).enumerate() {
        let ((before, wait), (after, _)) = (pair[0], pair[1]);
        assert!(
            after.duration_since(before) >= wait,
            "attempt {} came {:?} after the one before, which asked for {wait:?}",
            step + 2,
            after.duration_since(before)
        );
    }
    let secs = Duration::from_secs;
    assert!(
        steps
            .iter()
            .zip([secs(1), secs(2), secs(4)])
            .all(|(wait, step)| *wait >= step),
        "doubling from 1 s: {steps:?}"
    );
    // The status PATCHes (`answered`, the codes the client got): one per attempt, and
    // one more that may have been on its way when the Controller stopped.
    assert!(
        (storm.attempts.len()..=storm.attempts.len() + 1).contains(&answered.len()),
        "{} attempts, PATCHes answered {answered:?}",
        storm.attempts.len()
    );
    assert!(
        answered.iter().all(|c| c.is_none_or(|c| c == code)),
        "{answered:?}"
    );
}

/// The codes answered to the requests of `requests` on the widgets: status PATCHes only.
fn patches(requests: &Requests) -> Vec<Option<u16>> {
    requests
        .all()
        .into_iter()
        .filter(|r| r.path.contains("/standardwidgets/"))
        .map(|r| {
            assert_eq!(r.method, "PATCH", "{}", r.path);
            r.status
        })
        .collect()
}

/// Watch events as they come in production (another manager labelling the object every
/// 200 ms, each a reconcile of a real Controller) do not bring a failed status write back
/// before its backoff step: for an identity the server no longer knows (401), one API
/// Priority and Fairness throttles (429, its `Retry-After` a floor) and a server error (500),
/// at most one request per step, each step the wait the one before asked for. A slow machine
/// only makes the gaps longer: every bound is a lower one on a gap.
#[tokio::test]
async fn watch_events_do_not_bring_a_failed_write_back_before_its_step() {
    // 401.
    let env = TestEnv::new([StandardWidget::crd()]).await;
    create_w1(&env).await;
    let (client, requests) = unknown_identity(&env).await;
    let storm = under_labels(&env, reconciler_with_events(&env, client)).await;
    one_per_step(&storm, &patches(&requests), 401);

    // 429, from the real server's API Priority and Fairness.
    let env = TestEnv::new([StandardWidget::crd()]).await;
    create_w1(&env).await;
    let throttled = env.throttled("throttled").await;
    let (client, requests) = throttled.identity.recorded_without_retry();
    let storm = under_labels(&env, reconciler_with_events(&env, client)).await;
    throttled.release().await;
    one_per_step(&storm, &patches(&requests), 429);

    // 500 (the fault layer answers in the server's place: the server gives none at will).
    let env = TestEnv::new([StandardWidget::crd()]).await;
    create_w1(&env).await;
    let (client, faults) = faulty(env.client.clone());
    for _ in 0..50 {
        faults.next(|sent| sent.is_status_apply(), Fault::ServerError);
    }
    let storm = under_labels(&env, reconciler_with_events(&env, client)).await;
    let answered: Vec<Option<u16>> = faults
        .journal()
        .iter()
        .filter(|e| e.sent.path.contains("/standardwidgets/"))
        .map(|e| {
            assert!(e.sent.is_status_apply(), "{:?}", e.sent);
            e.client
        })
        .collect();
    one_per_step(&storm, &answered, 500);
}
