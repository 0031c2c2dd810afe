//! The status chokepoint under API faults, request by request, on the real API server (the
//! launcher of `kondition_tests::cluster`), with faults injected between the client and the
//! server by `kondition_tests::faults`. Each test checks the requests the chokepoint sent and
//! then reads back from the server what it holds (conditions, `observedGeneration`,
//! `metadata.managedFields` managers, `resourceVersion`).
//!
//! The cases: every status write carries the `resourceVersion` read as a precondition, and
//! a steady state sends nothing; a copy made stale by a second client's write gets the
//! server's own 409; 429 with a retry delay and 500 (answers made up by the fault layer,
//! never forwarded); a reset connection (the write did not land); a lost response (the write
//! landed, its answer was lost: the retry from the old copy gets a real 409, the next copy is
//! steady); a real rejection by the CRD's schema and its conditions-only fallback, whose
//! precondition holds while the release after a later full apply carries none; the release
//! failing, or lost with the full apply before it, and made up by the next reconcile; the
//! backoff counted across failed writes; a delay and a timeout on tokio's clock; and a real
//! compaction of etcd, which gives 410 Gone to a watch served from etcd (not to one served
//! from the watch cache) and from which kube's watcher recovers by listing again. soak.rs
//! does the same at random for many objects at once.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::events::v1::Event;
use kondition::controller::{StatusReconciler, error_policy};
use kondition::{ConditionStatus, Failure, RequeuePolicy, Severity, StatusResource};
use kondition_tests::cluster::{HARNESS, TestEnv, cluster};
use kondition_tests::faults::{Exchange, Fault, FaultKind, Faults, Sent, faulty, widget_crd};
use kondition_tests::kinds::{Widget, WidgetSpec, WidgetStatus};
use kube::api::{Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::controller::Action;
use kube::runtime::watcher;
use kube::{Api, ResourceExt};
use serde_json::{Value, json};

const OWNER: &str = "example.com/widget-controller";
const FALLBACK: &str = "example.com/widget-controller-fallback";

/// What a reconcile body does.
#[derive(Clone, Copy)]
enum Body {
    /// Records the spec's size in the status: the status the CRD accepts.
    Sees,
    /// Records a negative size, which the CRD's `minimum: 0` rejects.
    SeesNegative,
    /// Records the size, then fails (retryably) with this message.
    Fails(&'static str),
}

/// A test's namespace on the real server, a chokepoint whose client goes through the fault
/// layer, and that layer's controls.
struct Fixture {
    env: TestEnv,
    /// The client through the fault layer.
    client: kube::Client,
    faults: Faults,
    reconciler: StatusReconciler<Widget>,
}

async fn fixture() -> Fixture {
    let env = TestEnv::new([widget_crd()]).await;
    // Faults sit in front of the harness's recorded client: `env.requests` is what reached
    // the server.
    let (client, faults) = faulty(env.client.clone());
    Fixture {
        reconciler: StatusReconciler::new(client.clone()),
        client,
        env,
        faults,
    }
}

impl Fixture {
    /// Creates widget `name` (as the harness, another manager) and returns it as stored.
    async fn create(&self, name: &str, size: i64) -> Widget {
        let params = PostParams {
            field_manager: Some(HARNESS.into()),
            ..PostParams::default()
        };
        self.env
            .api::<Widget>()
            .create(&params, &Widget::new(name, WidgetSpec { size }))
            .await
            .expect("created")
    }

    /// What the server holds now, read by the unfaulted admin client.
    async fn stored(&self, name: &str) -> Widget {
        self.env.api::<Widget>().get(name).await.expect("read back")
    }

    /// A second client's write: the spec's size (a new generation).
    async fn resize(&self, name: &str, size: i64) -> Widget {
        self.env
            .api::<Widget>()
            .patch(
                name,
                &PatchParams {
                    field_manager: Some(HARNESS.into()),
                    ..PatchParams::default()
                },
                &Patch::Merge(json!({"spec": {"size": size}})),
            )
            .await
            .expect("resized")
    }

    /// A second client's write to metadata only: a label (same generation).
    async fn label(&self, name: &str, value: &str) -> Widget {
        label(&self.env.api::<Widget>(), name, value).await
    }

    async fn reconcile(
        &self,
        object: &Widget,
        body: Body,
    ) -> Result<Action, kondition::controller::Error> {
        reconcile(&self.reconciler, object, body).await
    }
}

/// Moves tokio's paused clock past the retry time of an episode of failures (the default
/// policy's longest backoff): a reconcile before it does nothing.
async fn retry_time_passes() {
    tokio::time::advance(RequeuePolicy::default().backoff_max).await;
}

async fn label(api: &Api<Widget>, name: &str, value: &str) -> Widget {
    api.patch(
        name,
        &PatchParams {
            field_manager: Some(HARNESS.into()),
            ..PatchParams::default()
        },
        &Patch::Merge(json!({"metadata": {"labels": {"touched": value}}})),
    )
    .await
    .expect("labelled")
}

async fn reconcile(
    reconciler: &StatusReconciler<Widget>,
    object: &Widget,
    body: Body,
) -> Result<Action, kondition::controller::Error> {
    reconciler
        .reconcile(Arc::new(object.clone()), async |w: &mut Widget| {
            let size = w.spec.size;
            match body {
                Body::Sees => w.status_or_insert().seen_size = Some(size),
                Body::SeesNegative => w.status_or_insert().seen_size = Some(-1),
                Body::Fails(message) => {
                    w.status_or_insert().seen_size = Some(size);
                    return Err(Failure::retryable("Throttled", message));
                }
            }
            Ok::<(), Failure>(())
        })
        .await
}

/// The `resourceVersion` of the object the server answered `entry` with.
fn answered_version(entry: &Exchange) -> Value {
    entry.answer.as_ref().map_or(Value::Null, |answer| {
        answer["metadata"]["resourceVersion"].clone()
    })
}

/// The full status apply (the controller's manager).
fn is_full_apply(sent: &Sent) -> bool {
    sent.is_status_apply() && sent.manager() == Some(OWNER)
}

/// The fallback manager's apply of conditions.
fn is_fallback_apply(sent: &Sent) -> bool {
    sent.is_status_apply() && sent.manager() == Some(FALLBACK) && sent.carries_status()
}

/// The fallback manager's release: an apply without a status.
fn is_release(sent: &Sent) -> bool {
    sent.is_status_apply() && sent.manager() == Some(FALLBACK) && !sent.carries_status()
}

/// Each exchange's field manager.
fn managers_sent(journal: &[Exchange]) -> Vec<Option<&str>> {
    journal.iter().map(|e| e.sent.manager()).collect()
}

/// Each exchange's method, subresource and the real server's status code (None: not
/// forwarded, or no answer yet).
fn requests(journal: &[Exchange]) -> Vec<(&str, Option<&str>, Option<u16>)> {
    journal
        .iter()
        .map(|e| (e.sent.method.as_str(), e.sent.subresource(), e.server))
        .collect()
}

/// `body` with every condition's `lastTransitionTime` replaced by `"<now>"`.
fn without_times(mut body: Value) -> Value {
    for condition in body["status"]["conditions"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        condition["lastTransitionTime"] = json!("<now>");
    }
    body
}

/// The status an apply body carries.
fn applied_status(body: &Value) -> WidgetStatus {
    serde_json::from_value(body["status"].clone()).expect("a status")
}

/// The object's managers as `manager operation [subresource]`, sorted.
fn managers(object: &Widget) -> BTreeSet<String> {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|entry| {
            let mut text = format!(
                "{} {}",
                entry.manager.as_deref().unwrap_or_default(),
                entry.operation.as_deref().unwrap_or_default()
            );
            if let Some(subresource) = entry.subresource.as_deref() {
                text = format!("{text} {subresource}");
            }
            text
        })
        .collect()
}

fn created_by_harness() -> String {
    format!("{HARNESS} Update")
}

fn applied_by(manager: &str) -> String {
    format!("{manager} Apply status")
}

fn status(object: &Widget) -> &WidgetStatus {
    object.status.as_ref().expect("a status")
}

/// The status as the server holds it, as JSON, every `lastTransitionTime` checked to be whole
/// seconds and then replaced by `"<now>"`.
fn stored_status(object: &Widget) -> Value {
    let value = without_times(json!({"status": object.status}));
    for condition in status(object).conditions.iter() {
        let time = condition.last_transition_time.0;
        assert_eq!(time.subsec_nanosecond(), 0, "whole seconds: {time}");
    }
    value["status"].clone()
}

#[tokio::test]
async fn every_status_write_is_conditional_on_the_version_read() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    let read_version = copy.resource_version().expect("a version");
    f.reconcile(&copy, Body::Sees).await.expect("written");

    let journal = f.faults.journal();
    assert_eq!(journal.len(), 1);
    assert_eq!(journal[0].sent.manager(), Some(OWNER));
    assert_eq!(journal[0].sent.param("force"), Some("true"));
    assert_eq!(
        without_times(journal[0].sent.body.clone()),
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w1", "namespace": f.env.namespace, "resourceVersion": read_version},
            "status": {
                "conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                                "message": "", "lastTransitionTime": "<now>",
                                "observedGeneration": 1}],
                "observedGeneration": 1,
                "seenSize": 3,
            },
        })
    );
    assert_eq!(journal[0].server, Some(200));

    // The server took it: the status of generation 1, a new version, the controller's
    // manager beside the harness that created the object.
    let stored = f.stored("w1").await;
    assert_eq!(
        stored_status(&stored),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 1}],
               "observedGeneration": 1, "seenSize": 3})
    );
    assert_eq!(stored.metadata.generation, Some(1));
    assert_ne!(stored.resource_version(), Some(read_version));
    assert_eq!(
        managers(&stored),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );
}

#[tokio::test]
async fn the_precondition_does_not_stop_a_steady_state_from_sending_nothing() {
    // The object read back holds exactly the status the reconcile computes: no request.
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.reconcile(&copy, Body::Sees).await.expect("written");
    let current = f.stored("w1").await;
    for _ in 0..3 {
        f.reconcile(&current, Body::Sees)
            .await
            .expect("nothing to write");
    }
    assert_eq!(f.faults.journal().len(), 1, "only the first write");
    assert_eq!(f.env.requests.len(), 1);
    assert_eq!(
        f.stored("w1").await.resource_version(),
        current.resource_version()
    );
}

#[tokio::test]
async fn a_copy_made_stale_by_another_clients_write_gets_the_servers_409_and_writes_nothing() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    // Another client changes the spec after this copy (generation 1) was read.
    let moved_on = f.resize("w1", 4).await;
    assert_eq!(moved_on.metadata.generation, Some(2));

    let error = f.reconcile(&copy, Body::Sees).await.expect_err("refused");
    assert!(error.is_conflict(), "{error}");
    assert_eq!(error.status_code(), Some(409));
    // The object read back after the 409: its spec moved, so the status stays refused.
    let journal = f.faults.journal();
    let sent = requests(&journal);
    assert_eq!(
        sent,
        [
            ("PATCH", Some("status"), Some(409)),
            ("GET", None, Some(200))
        ],
        "no fallback after a conflict: {journal:#?}"
    );
    assert_eq!(journal[0].fault, None, "the server's own answer");
    let stored = f.stored("w1").await;
    assert_eq!(stored.status, None, "nothing written");
    assert_eq!(stored.resource_version(), moved_on.resource_version());
    assert_eq!(managers(&stored), BTreeSet::from([created_by_harness()]));

    // The error policy retries soon; the retry reads the new object and writes its status.
    let action = error_policy(Arc::new(copy), &error, Duration::from_secs(2));
    assert_eq!(action, Action::requeue(Duration::from_secs(2)));
    f.reconcile(&stored, Body::Sees).await.expect("written");
    let stored = f.stored("w1").await;
    assert_eq!(status(&stored).observed_generation, Some(2));
    assert_eq!(status(&stored).seen_size, Some(4));

    // A write to metadata alone (no new generation) makes a copy stale just the same.
    f.label("w1", "yes").await;
    let error = f
        .reconcile(&stored, Body::Fails("the cloud API is busy"))
        .await
        .expect_err("refused");
    assert!(error.is_conflict(), "{error}");
    let after = f.stored("w1").await;
    assert_eq!(after.status, stored.status, "nothing written");
}

#[tokio::test]
async fn throttling_waits_as_long_as_the_server_asks() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.faults.next(
        Sent::is_status_apply,
        Fault::Throttle {
            retry_after_seconds: 7,
        },
    );
    let error = f.reconcile(&copy, Body::Sees).await.expect_err("throttled");
    assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
    assert!(!error.is_conflict());
    let action = error_policy(Arc::new(copy.clone()), &error, Duration::from_secs(2));
    assert_eq!(action, Action::requeue(Duration::from_secs(7)));
    // A delay of our own longer than the server's stands.
    let action = error_policy(Arc::new(copy.clone()), &error, Duration::from_secs(30));
    assert_eq!(action, Action::requeue(Duration::from_secs(30)));

    // The 429 was made up in front of the server: nothing reached it, nothing changed.
    let journal = f.faults.journal();
    assert_eq!(
        (journal[0].fault, journal[0].forwarded, journal[0].client),
        (Some(FaultKind::Throttle), false, Some(429))
    );
    assert!(f.env.requests.is_empty());
    let stored = f.stored("w1").await;
    assert_eq!(
        (stored.status.clone(), stored.resource_version()),
        (None, copy.resource_version())
    );
}

/// The answer API Priority and Fairness itself gives an identity it throttles (no fault layer:
/// `kondition_tests::throttle`), and what kube's client makes of it: a plain-text body, so
/// `kube::Error::Api` with a `Status` made up from the text, without `details`, and the
/// `Retry-After` header lost; and kube's own retry layer, on by default, sends a refused
/// request 15 times more (after `Retry-After` each time; tokio's paused clock lets those waits
/// pass at once) before the caller sees the 429.
#[tokio::test(start_paused = true)]
async fn the_servers_own_429_is_plain_text_with_retry_after_and_kube_retries_it() {
    let env = TestEnv::new([widget_crd()]).await;
    let throttled = env.throttled("throttled").await;
    let answer = throttled.probe().await;
    assert_eq!(answer.status, 429);
    assert_eq!(
        answer.content_type.as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(answer.body, "Too many requests, please try again later.\n");
    assert_eq!(
        answer.flow_schema_uid.as_deref(),
        Some(throttled.flow_schema_uid.as_str())
    );
    let seconds: u32 = answer
        .retry_after
        .as_deref()
        .expect("a Retry-After header")
        .parse()
        .expect("whole seconds");
    assert!((1..=32).contains(&seconds), "{answer:?}");

    let throttled_error = |error: kube::Error| {
        let kube::Error::Api(status) = error else {
            panic!("not an answer of the server: {error:?}");
        };
        assert_eq!(
            (
                status.status,
                status.code,
                status.message.as_str(),
                status.reason.as_str(),
                &status.details,
            ),
            (
                Some(kube::core::response::StatusSummary::Failure),
                429,
                "Too many requests, please try again later.",
                "Failed to parse error data",
                &None,
            ),
            "{status:?}"
        );
    };
    // Without kube's retry layer: one request, its 429 as kube reads it.
    let (client, requests) = throttled.identity.recorded_without_retry();
    let widgets: Api<Widget> = Api::namespaced(client, &env.namespace);
    throttled_error(
        widgets
            .list(&Default::default())
            .await
            .expect_err("throttled"),
    );
    let statuses: Vec<Option<u16>> = requests.all().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(429)]);
    // With it (kube's default, the identity's own client): 16 requests, then the same error.
    let widgets: Api<Widget> = Api::namespaced(throttled.identity.client.clone(), &env.namespace);
    throttled_error(
        widgets
            .list(&Default::default())
            .await
            .expect_err("throttled"),
    );
    let statuses: Vec<Option<u16>> = throttled
        .identity
        .requests
        .all()
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [Some(429); 16]);

    // Released, the identity lists what its rules allow.
    throttled.release().await;
    let listed = widgets.list(&Default::default()).await.expect("a list");
    assert!(listed.items.is_empty());
}

/// A 500 whose wording says nothing (made up: kube-apiserver gives a plain 500 only under a
/// fault of etcd): a failed write, retried after the reconciler's backoff, which doubles with
/// each failure in a row (the default policy: 5 s, 10 s...), or the error policy's own delay
/// when that is longer. Never a fixed delay for ever.
#[tokio::test(start_paused = true)]
async fn a_server_error_without_retry_after_backs_off() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    let mut backoffs = Vec::new();
    for _ in 0..3 {
        f.faults.next(Sent::is_status_apply, Fault::ServerError);
        let error = f.reconcile(&copy, Body::Sees).await.expect_err("failed");
        assert_eq!(
            (error.status_code(), error.retry_after()),
            (Some(500), None)
        );
        backoffs.push(error.backoff());
        let action = error_policy(Arc::new(copy.clone()), &error, Duration::from_secs(2));
        assert_eq!(action, Action::requeue(error.backoff().expect("a backoff")));
        let action = error_policy(Arc::new(copy.clone()), &error, Duration::from_secs(3600));
        assert_eq!(action, Action::requeue(Duration::from_secs(3600)));
        // Within the backoff a reconcile does nothing.
        let waiting = f.reconcile(&copy, Body::Sees).await.expect("waiting");
        assert_eq!(
            waiting,
            Action::requeue(error.backoff().expect("a backoff"))
        );
        tokio::time::advance(error.backoff().expect("a backoff")).await;
    }
    let secs = |s| Some(Duration::from_secs(s));
    assert_eq!(backoffs, [secs(5), secs(10), secs(20)]);
    assert!(f.env.requests.is_empty(), "made up, not forwarded");
    let stored = f.stored("w1").await;
    assert_eq!(
        (stored.status.clone(), stored.resource_version()),
        (None, copy.resource_version())
    );
}

#[tokio::test(start_paused = true)]
async fn a_reset_connection_did_not_land_and_the_retry_writes_the_same_status() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.faults.next(Sent::is_status_apply, Fault::Reset);
    let error = f.reconcile(&copy, Body::Sees).await.expect_err("reset");
    assert_eq!(error.status_code(), None, "a transport error: {error}");
    assert!(!error.is_conflict());
    // The server never saw it.
    assert!(f.env.requests.is_empty());
    let stored = f.stored("w1").await;
    assert_eq!(
        (stored.status.clone(), stored.resource_version()),
        (None, copy.resource_version())
    );

    // The retry (from the same copy: nothing changed, so the watch brought no newer one)
    // sends the same body, and it lands.
    retry_time_passes().await;
    f.reconcile(&copy, Body::Sees).await.expect("written");
    let journal = f.faults.journal();
    assert_eq!(journal.len(), 2);
    assert_eq!(
        without_times(journal[0].sent.body.clone()),
        without_times(journal[1].sent.body.clone())
    );
    assert_eq!(
        (journal[0].forwarded, journal[1].server),
        (false, Some(200))
    );
    let stored = f.stored("w1").await;
    assert_eq!(status(&stored).seen_size, Some(3));
    assert_eq!(status(&stored).observed_generation, Some(1));
    assert_eq!(
        managers(&stored),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );
}

#[tokio::test(start_paused = true)]
async fn a_lost_response_landed_so_the_retry_from_the_old_copy_finds_it_written_and_the_new_copy_is_steady()
 {
    // The write lands but its answer is lost: the chokepoint sees a transport error.
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.faults.next(Sent::is_status_apply, Fault::LoseResponse);
    let error = f.reconcile(&copy, Body::Sees).await.expect_err("lost");
    assert_eq!(error.status_code(), None, "a transport error: {error}");
    let journal = f.faults.journal();
    assert_eq!(
        (journal[0].fault, journal[0].server, journal[0].client),
        (Some(FaultKind::LostResponse), Some(200), None),
        "the server answered 200; the client never saw it"
    );
    let landed = f.stored("w1").await;
    assert_ne!(landed.resource_version(), copy.resource_version());
    assert_eq!(status(&landed).seen_size, Some(3));
    assert_eq!(status(&landed).observed_generation, Some(1));
    assert_eq!(
        managers(&landed),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );

    // The retry from the old copy (before the watch brings the new one) is refused by the
    // server, the write that landed having moved the version on; the object read back holds
    // what the retry would write (its Ready a moment later, the same transition): done,
    // nothing sent again, no fallback.
    retry_time_passes().await;
    f.reconcile(&copy, Body::Sees).await.expect("found written");
    let journal = f.faults.journal();
    let sent = requests(&journal[1..]);
    assert_eq!(
        sent,
        [
            ("PATCH", Some("status"), Some(409)),
            ("GET", None, Some(200))
        ],
        "{journal:#?}"
    );
    assert_eq!(
        journal[1].sent.body["metadata"]["resourceVersion"],
        json!(copy.resource_version())
    );
    assert_eq!(
        f.stored("w1").await.resource_version(),
        landed.resource_version()
    );

    // The copy the first write made already holds the status: the reconcile from it sends
    // nothing. The retry converged.
    f.reconcile(&landed, Body::Sees)
        .await
        .expect("nothing to write");
    assert_eq!(f.faults.journal().len(), 3);
    assert_eq!(
        f.stored("w1").await.resource_version(),
        landed.resource_version()
    );
}

#[tokio::test(start_paused = true)]
async fn a_rejected_status_falls_back_under_the_precondition_and_the_release_carries_its_version() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    // The CRD says seenSize >= 0: the server rejects the status and the fallback applies
    // its conditions, conditional on the same version.
    f.reconcile(&copy, Body::SeesNegative)
        .await
        .expect("fallback written");
    let journal = f.faults.journal();
    assert_eq!(managers_sent(&journal), [Some(OWNER), Some(FALLBACK)]);
    assert_eq!(journal[0].server, Some(422), "{:#?}", journal[0].answer);
    assert_eq!(
        journal[0].answer.as_ref().map(|a| a["message"].clone()),
        Some(json!(
            "Widget.example.com \"w1\" is invalid: status.seenSize: Invalid value: -1: \
             seenSize in body should be greater than or equal to 0"
        ))
    );
    assert_eq!(journal[1].server, Some(200));
    assert_eq!(
        journal[1].sent.body["metadata"]["resourceVersion"],
        json!(copy.resource_version())
    );
    assert_eq!(
        without_times(journal[1].sent.body.clone())["status"],
        json!({"conditions": [{"type": "Ready", "status": "False", "severity": "Warning",
            "reason": "StatusRejected",
            "message": "the API server rejected the status: Widget.example.com \"w1\" is invalid: \
                        status.seenSize: Invalid value: -1: seenSize in body should be greater than \
                        or equal to 0",
            "lastTransitionTime": "<now>", "observedGeneration": 1}]})
    );
    let rejected = f.stored("w1").await;
    assert_eq!(
        stored_status(&rejected),
        without_times(journal[1].sent.body.clone())["status"],
        "the conditions only: no observedGeneration, no seenSize"
    );
    assert_eq!(
        managers(&rejected),
        BTreeSet::from([created_by_harness(), applied_by(FALLBACK)])
    );

    // A later full apply (from the copy read back) is conditional; the release after it is
    // not: the full apply has just moved the version on.
    retry_time_passes().await;
    f.reconcile(&rejected, Body::Sees).await.expect("written");
    let journal = f.faults.journal();
    assert_eq!(managers_sent(&journal[2..]), [Some(OWNER), Some(FALLBACK)]);
    assert_eq!(
        journal[2].sent.body["metadata"]["resourceVersion"],
        json!(rejected.resource_version())
    );
    assert_eq!(
        journal[3].sent.body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": f.env.namespace,
                            "resourceVersion": answered_version(&journal[2])}}),
        "conditional on the version the full apply left"
    );
    assert_eq!(
        (journal[2].server, journal[3].server),
        (Some(200), Some(200))
    );
    let recovered = f.stored("w1").await;
    assert_eq!(
        stored_status(&recovered),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 1}],
               "observedGeneration": 1, "seenSize": 3})
    );
    assert_eq!(
        managers(&recovered),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );
}

#[tokio::test]
async fn a_fallback_from_a_copy_made_stale_meanwhile_gets_the_servers_409() {
    // Between the rejection and the fallback another client writes: the fallback's
    // precondition fails on the server, and nothing is written.
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    let api = f.env.api::<Widget>();
    f.faults.next(
        is_fallback_apply,
        Fault::After(Box::pin(async move {
            label(&api, "w1", "meanwhile").await;
        })),
    );
    let error = f
        .reconcile(&copy, Body::SeesNegative)
        .await
        .expect_err("stale");
    assert!(error.is_conflict(), "{error}");
    let journal = f.faults.journal();
    assert_eq!(
        journal.iter().map(|e| e.server).collect::<Vec<_>>(),
        [Some(422), Some(409)]
    );
    let stored = f.stored("w1").await;
    assert_eq!(stored.status, None);
    assert_eq!(managers(&stored), BTreeSet::from([created_by_harness()]));
}

#[tokio::test(start_paused = true)]
async fn a_failed_release_of_the_fallback_is_made_up_by_the_next_reconcile() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.reconcile(&copy, Body::SeesNegative)
        .await
        .expect("fallback written");
    let rejected = f.stored("w1").await;
    assert_eq!(
        managers(&rejected),
        BTreeSet::from([created_by_harness(), applied_by(FALLBACK)])
    );

    // The status is good again: the full apply lands, but the release after it is reset
    // before it reaches the server.
    retry_time_passes().await;
    f.faults.next(is_release, Fault::Reset);
    let error = f
        .reconcile(&rejected, Body::Sees)
        .await
        .expect_err("the release failed");
    assert_eq!(error.status_code(), None);
    let journal = f.faults.journal();
    assert_eq!(managers_sent(&journal[2..]), [Some(OWNER), Some(FALLBACK)]);
    assert_eq!(
        (journal[2].server, journal[3].forwarded),
        (Some(200), false)
    );

    // On the server the full apply took Ready over, but the severity it does not send is
    // still the fallback manager's: Ready True with severity Warning, both managers.
    let half = f.stored("w1").await;
    let ready = status(&half).conditions.get("Ready").expect("Ready");
    assert_eq!(
        (ready.status, ready.reason.as_str(), ready.severity),
        (ConditionStatus::True, "Succeeded", Severity::Warning)
    );
    assert_eq!(status(&half).observed_generation, Some(1));
    assert_eq!(
        managers(&half),
        BTreeSet::from([
            created_by_harness(),
            applied_by(FALLBACK),
            applied_by(OWNER)
        ])
    );

    // The next reconcile, from that copy, applies the status again and releases.
    retry_time_passes().await;
    f.reconcile(&half, Body::Sees).await.expect("written");
    let journal = f.faults.journal();
    assert_eq!(managers_sent(&journal[4..]), [Some(OWNER), Some(FALLBACK)]);
    assert_eq!(
        without_times(journal[4].sent.body.clone())["status"]["conditions"],
        json!([{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
                "lastTransitionTime": "<now>", "observedGeneration": 1}])
    );
    assert_eq!(
        journal[4].sent.body["metadata"]["resourceVersion"],
        json!(half.resource_version())
    );
    assert_eq!(
        journal[5].sent.body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": f.env.namespace,
                            "resourceVersion": answered_version(&journal[4])}}),
        "no status at all: an empty one would leave the fallback owning `status`"
    );
    let healed = f.stored("w1").await;
    assert_eq!(
        stored_status(&healed),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 1}],
               "observedGeneration": 1, "seenSize": 3}),
        "the severity went with its only owner"
    );
    assert_eq!(
        managers(&healed),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );
    f.reconcile(&healed, Body::Sees).await.expect("steady");
    assert_eq!(f.faults.journal().len(), 6);
}

#[tokio::test(start_paused = true)]
async fn a_release_lost_with_the_full_apply_is_made_up_although_the_status_is_stored() {
    // After a rejection, the full apply lands but its answer is lost, so no release follows.
    // The status it stored is exactly what the next reconcile computes (a retryable failure:
    // Ready False with severity Warning, as the fallback's was), and the fallback manager
    // still shares the fields whose values it had set too.
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    f.reconcile(&copy, Body::SeesNegative)
        .await
        .expect("fallback written");
    let rejected = f.stored("w1").await;
    retry_time_passes().await;
    f.faults.next(is_full_apply, Fault::LoseResponse);
    let busy = Body::Fails("the cloud API is busy");
    f.reconcile(&rejected, busy).await.expect_err("lost");
    let journal = f.faults.journal();
    assert_eq!(journal.len(), 3, "no release after the lost answer");
    assert_eq!(journal[2].server, Some(200));
    let stored = f.stored("w1").await;
    let ready = status(&stored).conditions.get("Ready").expect("Ready");
    assert_eq!(
        (ready.status, ready.reason.as_str(), ready.severity),
        (ConditionStatus::False, "Throttled", Severity::Warning)
    );
    assert_eq!(
        managers(&stored),
        BTreeSet::from([
            created_by_harness(),
            applied_by(FALLBACK),
            applied_by(OWNER)
        ])
    );

    // The same status is applied again, from that copy, and the release follows.
    retry_time_passes().await;
    f.reconcile(&stored, busy).await.expect("written");
    let journal = f.faults.journal();
    assert_eq!(managers_sent(&journal[3..]), [Some(OWNER), Some(FALLBACK)]);
    assert_eq!(
        journal[3].sent.body["metadata"]["resourceVersion"],
        json!(stored.resource_version())
    );
    assert_eq!(
        applied_status(&journal[3].sent.body),
        stored.status.clone().expect("a status"),
        "the stored status, unchanged"
    );
    assert_eq!(
        journal[4].sent.body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": f.env.namespace,
                            "resourceVersion": answered_version(&journal[3])}})
    );
    let released = f.stored("w1").await;
    assert_eq!(released.status, stored.status, "the same status");
    assert_eq!(
        managers(&released),
        BTreeSet::from([created_by_harness(), applied_by(OWNER)])
    );

    // Once the fallback manager holds nothing, the same status sends nothing.
    retry_time_passes().await;
    f.reconcile(&released, busy).await.expect("steady");
    assert_eq!(f.faults.journal().len(), 5);
}

/// One episode counts every failed attempt, the body's and the status write's alike: each
/// waits for the one before's retry time (5, 10, 20, 40 s), and only an attempt that
/// succeeded, its status written, ends it.
#[tokio::test(start_paused = true)]
async fn the_backoff_counts_every_failed_attempt_of_the_body_and_of_the_write() {
    // Each reconcile starts from the object as the server holds it, as a controller's would;
    // each failure says something new, so that each has a status to write.
    let f = fixture().await;
    let reconciler =
        StatusReconciler::<Widget>::new(f.client.clone()).requeue_policy(RequeuePolicy {
            resync: Duration::from_secs(600),
            backoff_initial: Duration::from_secs(5),
            backoff_max: Duration::from_secs(300),
        });
    f.create("w1", 3).await;
    let backoff = |secs| Action::requeue(Duration::from_secs(secs));
    let run = async |body| reconcile(&reconciler, &f.stored("w1").await, body).await;
    let pass = async |secs| tokio::time::advance(Duration::from_secs(secs)).await;

    assert_eq!(
        run(Body::Fails("busy (1)")).await.expect("written"),
        backoff(5)
    );
    // Before the retry time: nothing run, nothing sent.
    assert_eq!(
        run(Body::Fails("busy (-)")).await.expect("waiting"),
        backoff(5)
    );
    pass(5).await;
    // The second failure's status write fails: it counts once.
    f.faults.next(Sent::is_status_apply, Fault::ServerError);
    let error = run(Body::Fails("busy (2)")).await.expect_err("not written");
    assert_eq!(error.backoff(), Some(Duration::from_secs(10)));
    pass(10).await;
    assert_eq!(
        run(Body::Fails("busy (3)")).await.expect("written"),
        backoff(20)
    );
    pass(20).await;
    // A success whose write fails is a failed attempt: the episode goes on.
    f.faults.next(Sent::is_status_apply, Fault::ServerError);
    let error = run(Body::Sees).await.expect_err("not written");
    assert_eq!(error.backoff(), Some(Duration::from_secs(40)));
    pass(40).await;
    // A success written ends it: the next failure starts again at the first step.
    assert_eq!(
        run(Body::Sees).await.expect("written"),
        Action::requeue(Duration::from_secs(600))
    );
    assert_eq!(
        run(Body::Fails("busy (5)")).await.expect("written"),
        backoff(5)
    );

    let journal = f.faults.journal();
    assert_eq!(
        journal
            .iter()
            .map(|e| (e.fault, e.server))
            .collect::<Vec<_>>(),
        [
            (None, Some(200)),
            (Some(FaultKind::ServerError), None),
            (None, Some(200)),
            (Some(FaultKind::ServerError), None),
            (None, Some(200)),
            (None, Some(200)),
        ]
    );
    let stored = f.stored("w1").await;
    let ready = status(&stored).conditions.get("Ready").expect("Ready");
    assert_eq!(ready.message, "busy (5)");
}

#[tokio::test(start_paused = true)]
async fn a_delay_and_a_timeout_run_on_tokios_clock() {
    let f = fixture().await;
    let copy = f.create("w1", 3).await;
    // A timeout: the request waited, then failed, and never reached the server.
    f.faults.next(
        Sent::is_status_apply,
        Fault::Timeout(Duration::from_secs(30)),
    );
    let start = tokio::time::Instant::now();
    let error = f.reconcile(&copy, Body::Sees).await.expect_err("timed out");
    assert_eq!(error.status_code(), None, "{error}");
    assert!(start.elapsed() >= Duration::from_secs(30));
    assert!(f.env.requests.is_empty());
    assert_eq!(f.stored("w1").await.status, None);

    // A delay: the request waits a minute of the paused clock (no wall time), then lands.
    f.faults
        .next(Sent::is_status_apply, Fault::Delay(Duration::from_secs(60)));
    let start = tokio::time::Instant::now();
    f.reconcile(&copy, Body::Sees).await.expect("written");
    assert!(start.elapsed() >= Duration::from_secs(60));
    let journal = f.faults.journal();
    assert_eq!(
        journal
            .iter()
            .map(|e| (e.fault, e.server))
            .collect::<Vec<_>>(),
        [
            (Some(FaultKind::Timeout), None),
            (Some(FaultKind::Delay), Some(200))
        ]
    );
    assert_eq!(status(&f.stored("w1").await).seen_size, Some(3));
}

/// Whether `sent` is a watch of Events.
fn is_event_watch(sent: &Sent) -> bool {
    sent.is_watch() && sent.resource() == Some("events")
}

/// Two compactions with nothing written between them are at one revision, which etcd
/// refuses to compact again ("required revision has been compacted"): the second is done
/// all the same, every revision before it being gone. Two tests of this binary compacting
/// one after the other failed on it once (CI, 2026-11-26).
#[test]
fn compacting_again_at_the_revision_compacted_is_done() {
    let first = cluster().compact();
    let second = cluster().compact();
    assert!(second >= first, "{second} after {first}");
}

#[tokio::test]
async fn a_compaction_gives_410_to_a_watch_served_from_etcd_not_to_one_served_from_the_watch_cache()
{
    let f = fixture().await;
    let widgets = f.env.api::<Widget>();
    let events: Api<Event> = Api::namespaced(f.env.admin.clone(), &f.env.namespace);
    // The watch cache of widgets starts on the kind's first request, from the version etcd
    // is at then: the object is created once it serves watches, so that it holds all of
    // the object's history.
    watch_cache_ready(&widgets).await;
    let widget = f.create("w1", 3).await;
    let event = events
        .create(&PostParams::default(), &event("first", &f.env.namespace))
        .await
        .expect("event");
    f.label("w1", "one").await;
    f.label("w1", "two").await;
    let revision = cluster().compact();
    let widget_version = widget.resource_version().expect("a version");
    let event_version = event.resource_version().expect("a version");
    assert!(widget_version.parse::<i64>().expect("a number") < revision);

    // Widgets are served from the API server's watch cache, which still holds the history
    // that etcd no longer does: no 410, the two changes since.
    let mut stream = widgets
        .watch(&WatchParams::default(), &widget_version)
        .await
        .expect("a watch")
        .boxed();
    for label in ["one", "two"] {
        match stream.try_next().await.expect("an event") {
            Some(WatchEvent::Modified(w)) => assert_eq!(w.labels()["touched"], label),
            other => panic!("expected the change to {label}, got {other:?}"),
        }
    }
    drop(stream);

    // Events are not cached by kube-apiserver: their watch goes to etcd, and from a
    // version before the compaction it gets 410 Gone.
    let mut stream = events
        .watch(&WatchParams::default(), &event_version)
        .await
        .expect("a watch")
        .boxed();
    match stream.try_next().await.expect("an event") {
        Some(WatchEvent::Error(status)) => {
            assert_eq!(
                (status.code, status.reason.as_str(), status.message.as_str()),
                (
                    410,
                    "Expired",
                    "The resourceVersion for the provided watch is too old."
                )
            );
        }
        other => panic!("expected 410 Gone, got {other:?}"),
    }
}

#[tokio::test]
async fn kubes_watcher_lists_again_after_a_real_410_from_a_compaction_under_its_watch() {
    let f = fixture().await;
    // The watcher lists and watches Events, which the chokepoint's rules do not allow: an
    // identity of its own, through a fault layer of its own.
    let mut rules = f.env.rules();
    rules.push(
        serde_json::from_value(
            json!({"apiGroups": ["events.k8s.io"], "resources": ["events"],
                                      "verbs": ["list", "watch"]}),
        )
        .expect("a rule"),
    );
    let watcher_identity = f.env.identity("event-watcher", rules).await;
    let (client, faults) = faulty(watcher_identity.client.clone());
    let events: Api<Event> = Api::namespaced(client, &f.env.namespace);
    let admin_events: Api<Event> = Api::namespaced(f.env.admin.clone(), &f.env.namespace);
    f.create("w1", 3).await;
    admin_events
        .create(&PostParams::default(), &event("before", &f.env.namespace))
        .await
        .expect("event");

    // kube's watcher, through the fault layer, run by a task of its own.
    let (seen, mut names) = tokio::sync::mpsc::unbounded_channel();
    let watching = tokio::spawn(watcher(events, watcher::Config::default()).for_each(
        move |event| {
            if let Ok(watcher::Event::Apply(e) | watcher::Event::InitApply(e)) = event {
                let _ = seen.send(e.name_any());
            }
            async {}
        },
    ));
    assert_eq!(names.recv().await.as_deref(), Some("before"));
    faults
        .wait_for(|journal| {
            journal
                .iter()
                .any(|e| is_event_watch(&e.sent) && e.streaming)
        })
        .await;

    // Its watch is cut, and its next watch held until etcd has moved on twice and been
    // compacted: it resumes from a version that is gone.
    let (open, gate) = tokio::sync::oneshot::channel::<()>();
    let held = faults.cut_and_hold(is_event_watch, async move {
        let _ = gate.await;
    });
    assert_eq!(held, 1, "one watch cut");
    f.label("w1", "one").await;
    f.label("w1", "two").await;
    cluster().compact();
    open.send(()).expect("the watch is held");

    // The server answers the resumed watch 410 Gone; the watcher lists again and watches
    // from the list's version, and sees what is created next.
    faults
        .wait_for(|journal| journal.iter().any(|e| e.watch_errors.contains(&410)))
        .await;
    admin_events
        .create(&PostParams::default(), &event("after", &f.env.namespace))
        .await
        .expect("event");
    while let Some(name) = names.recv().await {
        if name == "after" {
            break;
        }
    }
    watching.abort();
    let journal = faults.journal();
    let gone = journal
        .iter()
        .position(|e| e.watch_errors.contains(&410))
        .expect("410");
    assert_eq!(journal[gone].fault, Some(FaultKind::After));
    assert!(
        journal[gone + 1..].iter().any(|e| e.sent.is_list()),
        "listed again: {:#?}",
        journal.iter().map(|e| &e.sent).collect::<Vec<_>>()
    );
}

/// Returns once the API server's watch cache of `api`'s kind serves watches: until then it
/// answers 429 (`storage is (re)initializing`), and the test asks again after a short pause.
/// The bound only makes a cache that never becomes ready fail the test instead of hanging
/// it: it takes well under a second.
async fn watch_cache_ready(api: &Api<Widget>) {
    let bound = std::time::Instant::now() + Duration::from_secs(300);
    loop {
        match api.watch(&WatchParams::default(), "0").await {
            Ok(_) => return,
            Err(kube::Error::Api(status)) if status.code == 429 => {
                assert!(
                    std::time::Instant::now() < bound,
                    "the watch cache still answers 429 after 5 minutes: {status:?}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("watching {error}"),
        }
    }
}

/// An Event (events.k8s.io) named `name` about nothing in particular.
fn event(name: &str, namespace: &str) -> Event {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "regarding": {"kind": "Widget", "apiVersion": "example.com/v1", "name": "w1",
                      "namespace": namespace},
        "reportingController": "example.com/widget-controller",
        "reportingInstance": "faults",
        "action": "Test",
        "reason": "Test",
        "type": "Normal",
    }))
    .expect("an event")
}
