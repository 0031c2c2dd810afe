//! Issue 47's acceptance operator (`kondition_tests::document_operator`: a `Document` kind
//! with a required `hidden: bool` beside the conditions, a finalizer, Events, metrics on
//! outcomes), on the real API server with 20 Documents, under `kube::runtime::Controller`, as
//! the controller's least-privileged identity; every status write counted per phase:
//!
//! | phase | status writes accepted | other requests |
//! | --- | --- | --- |
//! | 20 created | 20 (one each) | 20 finalizer PATCHes |
//! | each spec changed | 20 | - |
//! | steady, then each annotated | 0 | - |
//! | each deleted | 0 | 20 finalizer PATCHes |
//!
//! and no GET of a Document beyond one per 409 (a reconcile of a copy older than the
//! operator's own last write, which the watch had not delivered yet: refused, read back, found
//! written; seen for 0 to 4 of the 20 on create, from run to run). Each phase ends when every Document's last
//! reconcile read the version now stored (the operator's own metrics say which it read): a
//! state, not a time. A rejected status on a new Document still writes its conditions.
//!
//! Its unit tests (the test below the first) assert the exact requests of each step, as a
//! tower-test mock would: they run on kondition's test double and on the real server alike,
//! and must see the same.

#[path = "support/backends.rs"]
mod backends;

use std::sync::Arc;
use std::time::Duration;

use backends::{Backend, Seen, lines};
use kondition::StatusResource;
use kondition_tests::cluster::TestEnv;
use kondition_tests::document::{self, Document};
use kondition_tests::document_operator::{FINALIZER, Operator};
use kondition_tests::recording::Received;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::json;

const DOCUMENTS: usize = 20;

/// Polls `done` until it holds; fails the test after 3,000 polls (a state never reached, not
/// a deadline: each poll yields to the operator).
async fn settle<F: AsyncFn() -> bool>(what: &str, done: F) {
    for _ in 0..3_000 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never settled: {what}");
}

/// Whether every Document stored was last reconciled at the version now stored.
async fn all_reconciled(
    api: &Api<Document>,
    operator: &Operator,
    check: impl Fn(&Document) -> bool,
) -> bool {
    let Ok(list) = api.list(&ListParams::default()).await else {
        return false;
    };
    list.items.len() == DOCUMENTS
        && list
            .items
            .iter()
            .all(|d| check(d) && operator.metrics.last_read(&d.name_any()) == d.resource_version())
}

/// Among `requests`: the status writes the API server accepted (2xx), other PATCHes of
/// Documents (the finalizer's), GETs of a Document, and 409s (a status computed from a copy
/// older than the operator's own last write, which the watch had not delivered yet: refused,
/// read back once, and found written).
fn tally(requests: &[Received]) -> (usize, usize, usize, usize) {
    let documents = |r: &&Received| r.path.contains("/documents/");
    let accepted = |r: &&Received| r.status.is_some_and(|code| (200..300).contains(&code));
    let status = requests
        .iter()
        .filter(documents)
        .filter(accepted)
        .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
        .count();
    let patches = requests
        .iter()
        .filter(documents)
        .filter(|r| r.method == "PATCH" && !r.path.ends_with("/status"))
        .count();
    let gets = requests
        .iter()
        .filter(documents)
        .filter(|r| r.method == "GET")
        .count();
    let conflicts = requests.iter().filter(|r| r.status == Some(409)).count();
    (status, patches, gets, conflicts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_documents_cost_one_status_write_per_change_and_none_otherwise() {
    let env = TestEnv::with_finalizer([document::crd()]).await;
    let api: Api<Document> = env.api();
    let operator = Arc::new(Operator::new(env.client.clone()));
    let running = tokio::spawn(Arc::clone(&operator).run(env.namespace.clone()));
    let names: Vec<String> = (0..DOCUMENTS).map(|i| format!("doc-{i:02}")).collect();
    let ready_at = |generation: i64| {
        move |d: &Document| {
            let status = d.status.as_ref();
            d.finalizers().iter().any(|f| f == FINALIZER)
                && status.is_some_and(|s| {
                    s.observed_generation == Some(generation) && s.conditions.is_true("Ready")
                })
        }
    };

    for name in &names {
        api.create(&PostParams::default(), &document::document(name, "v1"))
            .await
            .expect("created");
    }
    settle("created", async || {
        all_reconciled(&api, &operator, ready_at(1)).await
    })
    .await;
    let (status, patches, gets, conflicts) = tally(&env.requests.all());
    eprintln!(
        "phase 1: status writes, other PATCHes, GETs, 409s: {:?}",
        tally(&env.requests.all())
    );
    assert_eq!(
        (status, patches),
        (DOCUMENTS, DOCUMENTS),
        "on create: one status write and one finalizer patch each"
    );
    assert!(
        gets <= conflicts,
        "no GET beyond one per conflict: {gets} GETs, {conflicts} 409s"
    );
    env.requests.clear();

    for name in &names {
        let change = json!({"spec": {"text": "v2"}});
        api.patch(name, &PatchParams::default(), &Patch::Merge(&change))
            .await
            .expect("spec changed");
    }
    settle("spec changed", async || {
        all_reconciled(&api, &operator, ready_at(2)).await
    })
    .await;
    let (status, patches, gets, conflicts) = tally(&env.requests.all());
    eprintln!(
        "phase 2: status writes, other PATCHes, GETs, 409s: {:?}",
        tally(&env.requests.all())
    );
    assert_eq!(
        (status, patches),
        (DOCUMENTS, 0),
        "on a spec change: one status write each"
    );
    assert!(
        gets <= conflicts,
        "no GET beyond one per conflict: {gets} GETs, {conflicts} 409s"
    );
    env.requests.clear();

    for name in &names {
        let change = json!({"metadata": {"annotations": {"example.com/note": "read me"}}});
        api.patch(name, &PatchParams::default(), &Patch::Merge(&change))
            .await
            .expect("annotated");
    }
    let annotated =
        |d: &Document| ready_at(2)(d) && d.annotations().contains_key("example.com/note");
    settle("annotated", async || {
        all_reconciled(&api, &operator, annotated).await
    })
    .await;
    let (status, patches, gets, _) = tally(&env.requests.all());
    eprintln!(
        "phase 3: status writes, other PATCHes, GETs, 409s: {:?}",
        tally(&env.requests.all())
    );
    assert_eq!(
        (status, patches, gets),
        (0, 0, 0),
        "steady and annotation-only: nothing"
    );
    env.requests.clear();

    let gone_before = operator.metrics.outcomes("gone");
    for name in &names {
        api.delete(name, &DeleteParams::default())
            .await
            .expect("deleted");
    }
    settle("deleted", async || {
        let list = api
            .list(&ListParams::default())
            .await
            .map(|l| l.items.len());
        list.is_ok_and(|n| n == 0)
            && operator.metrics.outcomes("gone") >= gone_before + DOCUMENTS as u64
    })
    .await;
    let (status, patches, _, _) = tally(&env.requests.all());
    eprintln!(
        "phase 4: status writes, other PATCHes, GETs, 409s: {:?}",
        tally(&env.requests.all())
    );
    assert_eq!(
        (status, patches),
        (0, DOCUMENTS),
        "after deletion: the finalizer's removal, no status"
    );
    let waiting = operator.metrics.outcomes("waiting");
    assert_eq!(
        operator.metrics.outcomes("write_failed"),
        0,
        "no failed write"
    );
    assert!(
        operator.metrics.outcomes("succeeded") >= 2 * DOCUMENTS as u64,
        "the metrics counted every success"
    );

    // A rejected status on a new Document still writes its conditions (and `hidden`).
    let mut bad = document::document("bad", "v1");
    bad.spec.host = Some("Not A Host".into());
    api.create(&PostParams::default(), &bad)
        .await
        .expect("created");
    settle("rejected", async || {
        let stored = api.get("bad").await.ok().and_then(|d| d.status);
        stored.is_some_and(|s| {
            s.ready()
                .is_some_and(|r| r.reason == kondition::controller::REASON_STATUS_REJECTED)
        })
    })
    .await;
    let stored = api
        .get("bad")
        .await
        .expect("read")
        .status
        .expect("a status");
    assert!(
        !stored.hidden && stored.endpoint.is_none() && stored.observed_generation.is_none(),
        "{stored:?}"
    );
    assert!(operator.metrics.outcomes("rejected") >= 1);
    running.abort();
    eprintln!(
        "outcomes: waiting {waiting}, {:?}",
        ["succeeded", "failed", "rejected", "gone"].map(|l| operator.metrics.outcomes(l))
    );
}

/// The operator's unit tests, each step's requests as a tower-test mock would assert them:
/// a new Document (the finalizer, the status, the Event of Ready), the same again (nothing),
/// hidden (its Event and the status), deleted (its Event and the finalizer's removal, no
/// status), and a new Document whose status is refused (the conditions-only fallback).
async fn operator_steps(backend: &Backend) -> Vec<Vec<Seen>> {
    let api = backend.api::<Document>();
    let operator = Operator::new(backend.client.clone());
    let mut steps = Vec::new();
    let step = async |name: &str| {
        backend.clear();
        let document = api.get(name).await.expect("read");
        let _ = operator.reconcile(Arc::new(document)).await;
        backend.requests()
    };
    api.create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    steps.push(step("d1").await);
    steps.push(step("d1").await);
    let hide = json!({"spec": {"hide": true}});
    api.patch("d1", &PatchParams::default(), &Patch::Merge(&hide))
        .await
        .expect("hidden");
    steps.push(step("d1").await);
    api.delete("d1", &DeleteParams::default())
        .await
        .expect("deleted");
    steps.push(step("d1").await);
    assert!(
        api.get_opt("d1").await.expect("read").is_none(),
        "gone once its finalizer is removed"
    );
    let mut bad = document::document("d2", "v1");
    bad.spec.host = Some("Not A Host".into());
    api.create(&PostParams::default(), &bad)
        .await
        .expect("created");
    steps.push(step("d2").await);
    let stored = api.get("d2").await.expect("read").status.expect("a status");
    assert!(!stored.hidden && stored.ready().is_some_and(|r| !r.is_true()));
    steps
}

#[tokio::test]
async fn the_operators_unit_tests_see_the_same_requests_on_the_double_and_the_server() {
    let crd = document::crd();
    let on_double = operator_steps(&Backend::double(&crd)).await;
    let on_server = operator_steps(&Backend::server(crd).await).await;
    for (at, (double, server)) in on_double.iter().zip(&on_server).enumerate() {
        assert_eq!(
            double,
            server,
            "step {at}:\ndouble:{}\nserver:{}",
            lines(double),
            lines(server)
        );
    }
    let documents = "/apis/example.com/v1/namespaces/NS/documents";
    let owner = Document::field_owner().into_owned();
    let apply = |name: &str, manager: &str, status: u16| Seen {
        method: "PATCH".into(),
        path: format!("{documents}/{name}/status"),
        query: vec![
            ("fieldManager".into(), manager.into()),
            ("force".into(), "true".into()),
        ],
        status,
        event: None,
    };
    let finalizer = |name: &str| Seen {
        method: "PATCH".into(),
        path: format!("{documents}/{name}"),
        query: vec![],
        status: 200,
        event: None,
    };
    let event = |event: &str| Seen {
        method: "POST".into(),
        path: "/apis/events.k8s.io/v1/namespaces/NS/events".into(),
        query: vec![],
        status: 201,
        event: Some(event.into()),
    };
    let fallback = kondition::controller::fallback_owner::<Document>();
    assert_eq!(
        on_server,
        [
            vec![
                finalizer("d1"),
                apply("d1", &owner, 200),
                event("Normal/ReconciliationSuccess")
            ],
            vec![],
            vec![event("Normal/HideRequested"), apply("d1", &owner, 200)],
            vec![event("Normal/Retracted"), finalizer("d1")],
            vec![
                finalizer("d2"),
                apply("d2", &owner, 422),
                apply("d2", &fallback, 200),
                event("Warning/StatusRejected"),
            ],
        ],
        "{}",
        on_server
            .iter()
            .map(|s| lines(s))
            .collect::<Vec<_>>()
            .join("\n--")
    );
}
