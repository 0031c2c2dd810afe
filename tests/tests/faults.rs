//! The status chokepoint under API faults, request by request: the stale-write guard (the
//! `resourceVersion` precondition), 409, 429 with a retry delay, 500, a reset connection, a
//! lost response, a failed or lost release of the fallback manager, and the backoff counter across
//! failed writes. soak.rs does the same for 1,000 objects at once.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};
use kondition::controller::{StatusReconciler, error_policy};
use kondition::{Condition, ConditionStatus, Failure, RequeuePolicy, Severity, StatusResource};
use kondition_tests::api_server::ApiServer;
use kondition_tests::kinds::{Widget, WidgetSpec, WidgetStatus};
use kube::runtime::controller::Action;
use serde_json::{Value, json};

/// A widget at `generation` and `resourceVersion` 41, as read from the cache.
fn widget(generation: i64) -> Widget {
    let mut widget = Widget::new("w1", WidgetSpec { size: 3 });
    widget.metadata.namespace = Some("team-a".into());
    widget.metadata.generation = Some(generation);
    widget.metadata.resource_version = Some("41".into());
    widget
}

async fn reconcile(
    server: &ApiServer,
    object: Widget,
) -> Result<Action, kondition::controller::Error> {
    StatusReconciler::<Widget>::new(server.client())
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            w.status_mut().seen_size = Some(w.spec.size);
            Ok::<(), Failure>(())
        })
        .await
}

fn api_status(code: u16, reason: &str, details: Value) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
           "reason": reason, "message": format!("{reason} from the stand-in"), "details": details})
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

fn field_manager(query: &[(String, String)]) -> Option<&str> {
    query
        .iter()
        .find(|(k, _)| k == "fieldManager")
        .map(|(_, v)| v.as_str())
}

/// The status an apply body carries.
fn applied_status(body: &Value) -> WidgetStatus {
    serde_json::from_value(body["status"].clone()).expect("a status")
}

const OWNER: &str = "example.com/widget-controller";
const FALLBACK: &str = "example.com/widget-controller-fallback";

/// Entries as the API server writes them after the status was rejected and the fallback
/// applied: the controller owns Ready's fields from an earlier full apply, the fallback
/// manager the severity only it sent.
fn managed_by(managers: &[&str]) -> Option<Vec<ManagedFieldsEntry>> {
    Some(
        managers
            .iter()
            .map(|manager| {
                let fields = if manager.ends_with("-fallback") {
                    json!({".": {}, "f:type": {}, "f:severity": {}})
                } else {
                    json!({".": {}, "f:type": {}, "f:status": {}, "f:reason": {}, "f:message": {},
                           "f:lastTransitionTime": {}, "f:observedGeneration": {}})
                };
                let owned =
                    json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": fields}}});
                ManagedFieldsEntry {
                    manager: Some((*manager).into()),
                    operation: Some("Apply".into()),
                    subresource: Some("status".into()),
                    api_version: Some("example.com/v1".into()),
                    fields_type: Some("FieldsV1".into()),
                    fields_v1: Some(FieldsV1(owned)),
                    ..Default::default()
                }
            })
            .collect(),
    )
}

#[tokio::test]
async fn every_status_write_is_conditional_on_the_version_read() {
    let server = ApiServer::new(&widget(5));
    reconcile(&server, widget(5)).await.expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        without_times(requests[0].body.clone()),
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "team-a", "resourceVersion": "41"},
            "status": {
                "conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                                "message": "", "lastTransitionTime": "<now>",
                                "observedGeneration": 5}],
                "observedGeneration": 5,
                "seenSize": 3,
            },
        })
    );
    assert_eq!(field_manager(&requests[0].query), Some(OWNER));
}

#[tokio::test]
async fn the_precondition_does_not_stop_a_steady_state_from_sending_nothing() {
    // The stored object is at a resourceVersion and holds exactly the status the reconcile
    // computes: no request.
    let mut stored = widget(5);
    let server = ApiServer::new(&stored);
    reconcile(&server, stored.clone()).await.expect("written");
    stored.status = Some(applied_status(&server.received()[0].body));
    stored.metadata.resource_version = Some("42".into());
    let server = ApiServer::new(&stored);
    reconcile(&server, stored).await.expect("nothing to write");
    assert_eq!(server.received().len(), 0);
}

#[tokio::test]
async fn a_stale_copy_gets_409_and_writes_nothing() {
    // The object moved on to generation 6 after this copy (generation 5) was read.
    let server = ApiServer::new(&widget(5));
    server.respond(
        409,
        api_status(
            409,
            "Conflict",
            json!({"name": "w1", "group": "example.com", "kind": "widgets"}),
        ),
    );
    let error = reconcile(&server, widget(5)).await.expect_err("refused");
    assert!(error.is_conflict(), "{error}");
    assert_eq!(error.status_code(), Some(409));
    assert_eq!(server.received().len(), 1, "no fallback after a conflict");
    // The error policy retries soon; the retry reads the new object.
    let action = error_policy(Arc::new(widget(5)), &error, Duration::from_secs(2));
    assert_eq!(action, Action::requeue(Duration::from_secs(2)));
}

#[tokio::test]
async fn throttling_waits_as_long_as_the_server_asks() {
    let server = ApiServer::new(&widget(5));
    server.respond(
        429,
        api_status(429, "TooManyRequests", json!({"retryAfterSeconds": 7})),
    );
    let error = reconcile(&server, widget(5)).await.expect_err("throttled");
    assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
    assert!(!error.is_conflict());
    let action = error_policy(Arc::new(widget(5)), &error, Duration::from_secs(2));
    assert_eq!(action, Action::requeue(Duration::from_secs(7)));
    // A delay of our own longer than the server's stands.
    let action = error_policy(Arc::new(widget(5)), &error, Duration::from_secs(30));
    assert_eq!(action, Action::requeue(Duration::from_secs(30)));
}

#[tokio::test]
async fn a_server_error_without_retry_after_uses_the_policy_delay() {
    let server = ApiServer::new(&widget(5));
    server.respond(500, api_status(500, "InternalError", json!({})));
    let error = reconcile(&server, widget(5)).await.expect_err("failed");
    assert_eq!(
        (error.status_code(), error.retry_after()),
        (Some(500), None)
    );
    let action = error_policy(Arc::new(widget(5)), &error, Duration::from_secs(2));
    assert_eq!(action, Action::requeue(Duration::from_secs(2)));
}

#[tokio::test]
async fn a_reset_connection_is_retried_and_the_retry_writes_the_same_status() {
    let server = ApiServer::new(&widget(5));
    server.reset();
    let error = reconcile(&server, widget(5)).await.expect_err("reset");
    assert_eq!(error.status_code(), None, "a transport error: {error}");
    assert!(!error.is_conflict());
    // The retry (from the same cached object: nothing changed) sends the same body.
    reconcile(&server, widget(5)).await.expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2);
    let without_time = |mut body: Value| {
        body["status"]["conditions"][0]["lastTransitionTime"] = json!("<now>");
        body
    };
    assert_eq!(
        without_time(requests[0].body.clone()),
        without_time(requests[1].body.clone())
    );
    assert_eq!(requests[1].body["status"]["seenSize"], 3);
}

#[tokio::test]
async fn a_lost_response_is_retried_and_the_retry_is_refused_as_stale() {
    // The first write landed (the object is now at another resourceVersion) but its
    // response was lost; the retry from the old copy is refused, and the reconcile after
    // that, from the new copy, has nothing to write.
    let server = ApiServer::new(&widget(5));
    server.reset();
    assert!(reconcile(&server, widget(5)).await.is_err());
    server.respond(409, api_status(409, "Conflict", json!({})));
    let error = reconcile(&server, widget(5)).await.expect_err("stale");
    assert!(error.is_conflict());
    let requests = server.received();
    assert_eq!(requests.len(), 2, "no fallback after the conflict");
    assert_eq!(requests[1].body["metadata"]["resourceVersion"], "41");

    // The watch then brings the copy the first write made (resourceVersion 42): it already
    // holds the status, so the reconcile from it sends nothing. The retry converged.
    let mut current = widget(5);
    current.status = Some(applied_status(&requests[0].body));
    current.metadata.resource_version = Some("42".into());
    let server = ApiServer::new(&current);
    reconcile(&server, current).await.expect("nothing to write");
    assert_eq!(server.received().len(), 0);
}

#[tokio::test]
async fn a_failed_release_of_the_fallback_is_made_up_by_the_next_reconcile() {
    // The status had been rejected: the fallback manager applied Ready False with a
    // Warning severity. Now the full apply lands, but the release after it fails.
    let rejected = Condition::new("Ready", ConditionStatus::False, "StatusRejected")
        .with_severity(Severity::Warning)
        .with_message("the API server rejected the status: status.seenSize: Invalid value")
        .with_observed_generation(5);
    let mut stored = widget(5);
    stored.status_mut().conditions.set(rejected);
    stored.metadata.managed_fields = managed_by(&[OWNER, FALLBACK]);
    let server = ApiServer::new(&stored);
    server.respond(200, json!(stored));
    server.reset();
    let error = reconcile(&server, stored.clone())
        .await
        .expect_err("the release failed");
    assert_eq!(error.status_code(), None);
    let requests = server.received();
    assert_eq!(
        requests
            .iter()
            .map(|r| field_manager(&r.query))
            .collect::<Vec<_>>(),
        [Some(OWNER), Some(FALLBACK)]
    );

    // On the API server the full apply took Ready over, but the severity it does not send
    // is still the fallback manager's: Ready True with severity Warning, at version 42.
    let mut current = stored.clone();
    current.status = Some(applied_status(&requests[0].body));
    if let Some(ready) = current
        .status_mut()
        .conditions
        .get("Ready")
        .cloned()
        .map(|ready| ready.with_severity(Severity::Warning))
    {
        current.status_mut().conditions.set(ready);
    }
    current.metadata.resource_version = Some("42".into());
    let server = ApiServer::new(&current);
    reconcile(&server, current).await.expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2);
    assert_eq!(field_manager(&requests[0].query), Some(OWNER));
    assert_eq!(
        without_times(requests[0].body.clone())["status"]["conditions"],
        json!([{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
                "lastTransitionTime": "<now>", "observedGeneration": 5}])
    );
    assert_eq!(requests[0].body["metadata"]["resourceVersion"], "42");
    assert_eq!(field_manager(&requests[1].query), Some(FALLBACK));
    assert_eq!(
        requests[1].body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": "team-a"}}),
        "no status at all: an empty one would leave the fallback owning `status`"
    );
}

#[tokio::test]
async fn a_release_lost_with_the_full_apply_is_made_up_although_the_status_is_stored() {
    // The full apply after a rejection landed, but its response was lost, so no release
    // followed. The copy it made holds exactly the status the next reconcile computes, and
    // the fallback manager still holds fields of it (here the values they share).
    let server = ApiServer::new(&widget(5));
    reconcile(&server, widget(5)).await.expect("written");
    let mut current = widget(5);
    current.status = Some(applied_status(&server.received()[0].body));
    current.metadata.resource_version = Some("42".into());
    current.metadata.managed_fields = managed_by(&[OWNER, FALLBACK]);

    // The status is applied again, from that copy, and the release follows.
    let server = ApiServer::new(&current);
    reconcile(&server, current.clone()).await.expect("written");
    let requests = server.received();
    assert_eq!(
        requests
            .iter()
            .map(|r| field_manager(&r.query))
            .collect::<Vec<_>>(),
        [Some(OWNER), Some(FALLBACK)]
    );
    assert_eq!(requests[0].body["metadata"]["resourceVersion"], "42");
    assert_eq!(
        applied_status(&requests[0].body),
        current.status.clone().expect("a status"),
        "the stored status, unchanged"
    );
    assert_eq!(
        requests[1].body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": "team-a"}})
    );

    // Once the fallback manager holds nothing, the same status sends nothing.
    current.metadata.managed_fields = managed_by(&[OWNER]);
    let server = ApiServer::new(&current);
    reconcile(&server, current).await.expect("steady");
    assert_eq!(server.received().len(), 0);
}

/// Reconciles `object` once with a body that fails (retryably) or succeeds.
async fn reconcile_failing(
    reconciler: &StatusReconciler<Widget>,
    object: &Widget,
    fail: bool,
) -> Result<Action, kondition::controller::Error> {
    reconciler
        .reconcile(Arc::new(object.clone()), async |w: &mut Widget| {
            if fail {
                return Err(Failure::retryable("Throttled", "the cloud API is busy"));
            }
            w.status_mut().seen_size = Some(w.spec.size);
            Ok(())
        })
        .await
}

#[tokio::test]
async fn the_backoff_counts_the_bodys_failures_whether_or_not_their_status_was_written() {
    // The same copy is reconciled again and again, each write answered as scripted: the
    // echo stand-in, since a stored object would move on and refuse the copy's precondition.
    let server = ApiServer::echo(&widget(5));
    let reconciler =
        StatusReconciler::<Widget>::new(server.client()).requeue_policy(RequeuePolicy {
            resync: Duration::from_secs(600),
            backoff_initial: Duration::from_secs(5),
            backoff_max: Duration::from_secs(300),
        });
    let object = widget(5);
    let error_500 = api_status(500, "InternalError", json!({}));
    let backoff = |secs| Action::requeue(Duration::from_secs(secs));

    assert_eq!(
        reconcile_failing(&reconciler, &object, true)
            .await
            .expect("written"),
        backoff(5)
    );
    // The second failure's status write fails: it still counts.
    server.respond(500, error_500.clone());
    assert!(reconcile_failing(&reconciler, &object, true).await.is_err());
    assert_eq!(
        reconcile_failing(&reconciler, &object, true)
            .await
            .expect("written"),
        backoff(20)
    );
    // A success whose write fails still ends the run of failures.
    server.respond(500, error_500);
    assert!(
        reconcile_failing(&reconciler, &object, false)
            .await
            .is_err()
    );
    assert_eq!(
        reconcile_failing(&reconciler, &object, true)
            .await
            .expect("written"),
        backoff(5)
    );
}

#[tokio::test]
async fn the_fallback_is_conditional_and_its_release_is_not() {
    // A rejected status falls back to its conditions, under the same precondition.
    let server = ApiServer::new(&widget(5));
    server.respond(
        422,
        api_status(
            422,
            "Invalid",
            json!({"causes": [{"field": "status.seenSize"}]}),
        ),
    );
    reconcile(&server, widget(5))
        .await
        .expect("fallback written");
    let requests = server.received();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].body["metadata"]["resourceVersion"], "41");

    // After a later full apply, the fallback manager's release carries no precondition:
    // the full apply has just changed the object's version.
    let mut stored = widget(6);
    stored.metadata.managed_fields = managed_by(&[FALLBACK]);
    let server = ApiServer::new(&stored);
    reconcile(&server, stored).await.expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["metadata"]["resourceVersion"], "41");
    assert_eq!(
        requests[1].body["metadata"],
        json!({"name": "w1", "namespace": "team-a"})
    );
    assert_eq!(
        requests[1]
            .query
            .iter()
            .find(|(k, _)| k == "fieldManager")
            .map(|(_, v)| v.as_str()),
        Some("example.com/widget-controller-fallback")
    );
}
