//! kondition's test double (`kondition::testing::double`) against the real API server: each
//! scenario the double claims to model is written once and run on both, through the same
//! chokepoint code, and must end the same way on both: the same requests (method, path,
//! query, answer code, the Events' reasons, in order), the same stored status (conditions
//! without their times and messages) and the same field managers owning the same conditions.
//! The real server is the reference: a scenario where the two differ is a fault of the
//! double.
//!
//! | scenario | what the server does |
//! | --- | --- |
//! | a resourceVersion conflict | 409 on a status computed from a stale copy, the read-back, the next reconcile from the new copy |
//! | a deleted and a re-created object | 404 on the write, the read-back 404; then 409 and a read-back of another uid |
//! | a 422 with its fallback | the schema's pattern refuses the status; the conditions-only fallback with the required field |
//! | a fallback given up after a full apply | the fallback manager's empty apply leaves the kind's controller the only owner |
//! | two managers owning different conditions | both kept; a 409 from the other manager's write resolved by the read-back and one resend |

#[path = "support/backends.rs"]
mod backends;

use std::sync::Arc;

use backends::{Backend, Seen, lines};
use kondition::Failure;
use kondition::controller::{StatusReconciler, fallback_owner};
use kondition_tests::document::{self, Document};
use kube::ResourceExt;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::events::{Recorder, Reporter};
use serde_json::{Value, json};

/// How a scenario ended.
#[derive(Debug, PartialEq)]
struct Ending {
    requests: Vec<Seen>,
    /// Each stored Document's status, conditions without `lastTransitionTime` and `message`.
    statuses: Vec<Value>,
    /// Each stored Document's managers of the status and the condition types each owns.
    owners: Vec<Vec<(String, Vec<String>)>>,
    /// What each reconcile returned: `ok`, or the error's status code.
    results: Vec<String>,
}

/// The kind's controller on `backend`, with a Recorder.
fn controller(backend: &Backend) -> StatusReconciler<Document> {
    let reporter = Reporter {
        controller: "document-controller".into(),
        instance: None,
    };
    StatusReconciler::new(backend.client.clone())
        .recorder(Recorder::new(backend.client.clone(), reporter))
}

/// A reconcile whose body sets the endpoint to `endpoint`; `ok` or the failed write's code.
async fn reconcile(
    reconciler: &StatusReconciler<Document>,
    copy: &Document,
    endpoint: &str,
) -> String {
    let endpoint = endpoint.to_owned();
    let result = reconciler
        .reconcile(Arc::new(copy.clone()), async move |d: &mut Document| {
            d.status.get_or_insert_default().endpoint = Some(endpoint);
            Ok::<(), Failure>(())
        })
        .await;
    match result {
        Ok(_) => "ok".to_owned(),
        Err(error) => format!("{:?}", error.status_code()),
    }
}

/// How the scenario ended on `backend`, the Documents `names` read.
async fn ending(backend: &Backend, names: &[&str], results: Vec<String>) -> Ending {
    let api = backend.api::<Document>();
    let mut statuses = Vec::new();
    let mut owners = Vec::new();
    for name in names {
        let Some(stored) = api.get_opt(name).await.expect("read") else {
            statuses.push(Value::Null);
            owners.push(Vec::new());
            continue;
        };
        let mut status = serde_json::to_value(&stored.status).expect("JSON");
        for condition in status["conditions"].as_array_mut().into_iter().flatten() {
            if let Some(fields) = condition.as_object_mut() {
                fields.remove("lastTransitionTime");
                fields.remove("message");
            }
        }
        statuses.push(status);
        let mut managers = Vec::new();
        for entry in stored.managed_fields() {
            if entry.subresource.as_deref() != Some("status") {
                continue;
            }
            let fields = entry
                .fields_v1
                .as_ref()
                .map(|f| f.0.clone())
                .unwrap_or_default();
            let mut types: Vec<String> = fields["f:status"]["f:conditions"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(key, _)| key.strip_prefix("k:"))
                .filter_map(|key| serde_json::from_str::<Value>(key).ok())
                .filter_map(|key| key["type"].as_str().map(str::to_owned))
                .collect();
            types.sort();
            managers.push((entry.manager.clone().unwrap_or_default(), types));
        }
        managers.sort();
        owners.push(managers);
    }
    Ending {
        requests: backend.requests(),
        statuses,
        owners,
        results,
    }
}

/// A status computed from a copy older than a spec change: 409, the read-back; the
/// reconcile from the new copy writes it.
async fn a_resource_version_conflict(backend: &Backend) -> Ending {
    let api = backend.api::<Document>();
    let reconciler = controller(backend);
    let stale = api
        .create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    let change = json!({"spec": {"text": "v2"}});
    api.patch("d1", &PatchParams::default(), &Patch::Merge(&change))
        .await
        .expect("spec changed");
    backend.clear();
    let mut results = vec![reconcile(&reconciler, &stale, "a.example").await];
    let fresh = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &fresh, "a.example").await);
    let steady = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &steady, "a.example").await);
    ending(backend, &["d1"], results).await
}

/// A write to a deleted object, then to a copy of it once an object of the same name was
/// created again (another uid): nothing lands on either; the new object's own reconcile
/// writes its status.
async fn a_deleted_and_a_recreated_object(backend: &Backend) -> Ending {
    let api = backend.api::<Document>();
    let reconciler = controller(backend);
    let first = api
        .create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    api.delete("d1", &DeleteParams::default())
        .await
        .expect("deleted");
    backend.clear();
    let mut results = vec![reconcile(&reconciler, &first, "a.example").await];
    let second = api
        .create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created again");
    assert_ne!(first.uid(), second.uid());
    results.push(reconcile(&reconciler, &first, "a.example").await);
    results.push(reconcile(&reconciler, &second, "a.example").await);
    ending(backend, &["d1"], results).await
}

/// A status the schema refuses (`endpoint` against its pattern) on a brand-new object: 422,
/// then the conditions-only fallback carrying the required `hidden`; the next reconcile
/// computing the same status sends nothing.
async fn a_rejected_status_and_its_fallback(backend: &Backend) -> Ending {
    let api = backend.api::<Document>();
    let reconciler = controller(backend);
    api.create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    backend.clear();
    let copy = api.get("d1").await.expect("read");
    let mut results = vec![reconcile(&reconciler, &copy, "Not Valid!").await];
    let copy = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &copy, "Not Valid!").await);
    ending(backend, &["d1"], results).await
}

/// After a rejected status and its fallback, a spec change whose status is accepted: the full
/// apply, then the fallback manager's empty apply gives its fields up, and only the kind's
/// controller owns the status.
async fn a_fallback_given_up_after_a_full_apply(backend: &Backend) -> Ending {
    let api = backend.api::<Document>();
    let reconciler = controller(backend);
    api.create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    let copy = api.get("d1").await.expect("read");
    let mut results = vec![reconcile(&reconciler, &copy, "Not Valid!").await];
    let change = json!({"spec": {"text": "v2"}});
    api.patch("d1", &PatchParams::default(), &Patch::Merge(&change))
        .await
        .expect("spec changed");
    backend.clear();
    let copy = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &copy, "a.example").await);
    let copy = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &copy, "a.example").await);
    ending(backend, &["d1"], results).await
}

/// The kind's controller (Ready) and an auditor (`example.com/auditor`, its own Audited):
/// each keeps its own condition; the controller's write from a copy read before the
/// auditor's is refused (409), read back, and sent again; a spec change later leaves
/// Audited alone.
async fn two_managers_owning_different_conditions(backend: &Backend) -> Ending {
    let api = backend.api::<Document>();
    let reconciler = controller(backend);
    let auditor = StatusReconciler::<Document>::new(backend.client.clone())
        .field_manager("example.com/auditor")
        .summary("Audited", "Checked");
    api.create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    backend.clear();
    let copy = api.get("d1").await.expect("read");
    let mut results = vec![reconcile(&reconciler, &copy, "a.example").await];
    let before_audit = api.get("d1").await.expect("read");
    let audited = auditor
        .reconcile(Arc::new(before_audit.clone()), async |_: &mut Document| {
            Ok::<(), Failure>(())
        })
        .await;
    results.push(if audited.is_ok() { "ok" } else { "failed" }.to_owned());
    results.push(reconcile(&reconciler, &before_audit, "b.example").await);
    let change = json!({"spec": {"text": "v2"}});
    api.patch("d1", &PatchParams::default(), &Patch::Merge(&change))
        .await
        .expect("spec changed");
    let copy = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &copy, "b.example").await);
    let copy = api.get("d1").await.expect("read");
    results.push(reconcile(&reconciler, &copy, "b.example").await);
    ending(backend, &["d1"], results).await
}

/// Runs `scenario` on the double and on the real server, asserts the two ended alike, and
/// returns the real server's ending for the test's own assertions.
macro_rules! on_both {
    ($scenario:ident) => {{
        let crd = document::crd();
        let double = Backend::double(&crd);
        let on_double = $scenario(&double).await;
        let server = Backend::server(crd).await;
        let on_server = $scenario(&server).await;
        assert_eq!(
            on_double.requests,
            on_server.requests,
            "requests differ:\ndouble:{}\nserver:{}",
            lines(&on_double.requests),
            lines(&on_server.requests)
        );
        assert_eq!(on_double, on_server, "the endings differ");
        eprintln!(
            "{}:{}\n{:#?}",
            stringify!($scenario),
            lines(&on_server.requests),
            on_server.statuses
        );
        on_server
    }};
}

fn codes(ending: &Ending, method: &str) -> Vec<u16> {
    ending
        .requests
        .iter()
        .filter(|r| r.method == method && r.event.is_none() && !r.path.contains("/events"))
        .map(|r| r.status)
        .collect()
}

#[tokio::test]
async fn a_resource_version_conflict_on_both() {
    let ending = on_both!(a_resource_version_conflict);
    assert_eq!(
        ending.results,
        ["Some(409)", "ok", "ok"],
        "{}",
        lines(&ending.requests)
    );
    assert_eq!(
        codes(&ending, "PATCH"),
        [409, 200],
        "{}",
        lines(&ending.requests)
    );
    assert_eq!(codes(&ending, "GET"), [200], "one read-back per conflict");
    assert_eq!(ending.statuses[0]["observedGeneration"], 2);
}

#[tokio::test]
async fn a_deleted_and_a_recreated_object_on_both() {
    let ending = on_both!(a_deleted_and_a_recreated_object);
    assert_eq!(
        ending.results,
        ["ok", "ok", "ok"],
        "{}",
        lines(&ending.requests)
    );
    assert_eq!(
        codes(&ending, "PATCH"),
        [404, 409, 200],
        "{}",
        lines(&ending.requests)
    );
    assert_eq!(ending.statuses[0]["conditions"][0]["status"], "True");
}

#[tokio::test]
async fn a_rejected_status_and_its_fallback_on_both() {
    let ending = on_both!(a_rejected_status_and_its_fallback);
    assert_eq!(
        codes(&ending, "PATCH"),
        [422, 200],
        "{}",
        lines(&ending.requests)
    );
    let fallback = ending
        .requests
        .iter()
        .filter(|r| r.method == "PATCH")
        .nth(1);
    let manager = fallback.and_then(|r| r.query.iter().find(|(k, _)| k == "fieldManager"));
    assert_eq!(
        manager.map(|(_, v)| v.clone()),
        Some(fallback_owner::<Document>())
    );
    let status = &ending.statuses[0];
    assert_eq!(
        status["hidden"], false,
        "the required field carried: {status:#}"
    );
    assert_eq!(status["conditions"][0]["reason"], "StatusRejected");
    assert!(status.get("endpoint").is_none() && status.get("observedGeneration").is_none());
}

#[tokio::test]
async fn a_fallback_given_up_after_a_full_apply_on_both() {
    let ending = on_both!(a_fallback_given_up_after_a_full_apply);
    assert_eq!(
        ending.results,
        ["ok", "ok", "ok"],
        "{}",
        lines(&ending.requests)
    );
    let managers: Vec<String> = ending
        .requests
        .iter()
        .filter(|r| r.method == "PATCH")
        .filter_map(|r| r.query.iter().find(|(k, _)| k == "fieldManager"))
        .map(|(_, v)| v.clone())
        .collect();
    let owner = <Document as kondition::StatusResource>::field_owner().into_owned();
    assert_eq!(
        managers,
        [owner.clone(), fallback_owner::<Document>()],
        "the full apply, then the release"
    );
    assert_eq!(ending.owners[0], [(owner, vec!["Ready".to_owned()])]);
    assert_eq!(ending.statuses[0]["endpoint"], "a.example");
}

#[tokio::test]
async fn two_managers_owning_different_conditions_on_both() {
    let ending = on_both!(two_managers_owning_different_conditions);
    assert_eq!(
        ending.results,
        ["ok", "ok", "ok", "ok", "ok"],
        "{}",
        lines(&ending.requests)
    );
    assert_eq!(
        codes(&ending, "PATCH"),
        [200, 200, 409, 200, 200],
        "{}",
        lines(&ending.requests)
    );
    let owner = <Document as kondition::StatusResource>::field_owner().into_owned();
    assert_eq!(
        ending.owners[0],
        [
            ("example.com/auditor".to_owned(), vec!["Audited".to_owned()]),
            (owner, vec!["Ready".to_owned()]),
        ]
    );
    let types: Vec<&Value> = ending.statuses[0]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["type"])
        .collect();
    assert_eq!(types.len(), 2, "{:#}", ending.statuses[0]);
}

/// What the double does not model is answered 501, naming it, never with a guess: a watch,
/// and a server-side apply of the main resource.
#[tokio::test]
async fn what_the_double_does_not_model_is_answered_501() {
    let double = kondition::testing::double::ApiDouble::new().crd(&document::crd());
    let api = kube::Api::<Document>::namespaced(double.client(), "default");
    api.create(&PostParams::default(), &document::document("d1", "v1"))
        .await
        .expect("created");
    let applied =
        json!({"apiVersion": "example.com/v1", "kind": "Document", "spec": {"text": "v2"}});
    let refused = api
        .patch(
            "d1",
            &PatchParams::apply("test").force(),
            &Patch::Apply(&applied),
        )
        .await
        .expect_err("not modeled");
    let kube::Error::Api(status) = refused else {
        panic!("an API error: {refused:?}");
    };
    assert_eq!(status.code, 501, "{status:?}");
    assert!(
        status.message.contains("does not model"),
        "{}",
        status.message
    );
    let params = kube::api::WatchParams::default();
    let watched = api
        .watch(&params, "0")
        .await
        .map(|_| ())
        .expect_err("not modeled");
    assert!(watched.to_string().contains("does not model"), "{watched}");
}
