//! The status chokepoint against an HTTP stand-in for the API server: every request a
//! reconcile sends (method, path, query, content type, exact body) and the requeue it returns.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use kondition::controller::{
    CheckFuture, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck, StatusReconciler,
};
use kondition::{
    Condition, ConditionStatus, Conditions, Failure, KubeStatus, StatusResource, Time,
};
use kondition_tests::api_server::{ApiServer, Received};
use kube::runtime::controller::Action;
use kube::{Client, CustomResource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A widget's desired state.
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

/// A widget's observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, conditions(Ready, Available))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

fn at(second: i64) -> Time {
    Time(Timestamp::from_second(second).expect("valid"))
}

fn widget(generation: i64, status: Option<WidgetStatus>) -> Widget {
    let mut widget = Widget::new("w1", WidgetSpec { size: 3 });
    widget.metadata.namespace = Some("team-a".into());
    widget.metadata.generation = Some(generation);
    widget.status = status;
    widget
}

const STATUS_PATH: &str = "/apis/example.com/v1/namespaces/team-a/widgets/w1/status";

fn assert_apply(request: &Received, owner: &str) {
    assert_eq!(request.method, "PATCH");
    assert_eq!(request.path, STATUS_PATH);
    assert_eq!(request.content_type, "application/apply-patch+yaml");
    let mut query = request.query.clone();
    query.sort();
    assert_eq!(
        query,
        [
            ("fieldManager".to_owned(), owner.to_owned()),
            ("force".to_owned(), "true".to_owned())
        ]
    );
}

/// The body's conditions with their times blanked (they are "now").
fn conditions_without_time(body: &Value) -> Value {
    let mut conditions = body["status"]["conditions"].clone();
    for condition in conditions.as_array_mut().into_iter().flatten() {
        condition["lastTransitionTime"] = json!("<now>");
    }
    conditions
}

#[tokio::test]
async fn success_applies_the_whole_status_once() {
    let object = widget(4, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    let action = reconciler
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            w.status_mut().endpoint = Some("10.0.0.7:443".into());
            Ok::<(), Failure>(())
        })
        .await
        .expect("status written");
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));

    let requests = server.received();
    assert_eq!(requests.len(), 1);
    assert_apply(&requests[0], "example.com/widget-controller");
    let body = &requests[0].body;
    assert_eq!(
        body["metadata"],
        json!({"name": "w1", "namespace": "team-a"}),
        "metadata carries name and namespace only"
    );
    assert_eq!(
        (body["apiVersion"].clone(), body["kind"].clone()),
        (json!("example.com/v1"), json!("Widget"))
    );
    assert_eq!(body["status"]["observedGeneration"], 4);
    assert_eq!(body["status"]["endpoint"], "10.0.0.7:443");
    assert_eq!(
        conditions_without_time(body),
        json!([{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
                "lastTransitionTime": "<now>", "observedGeneration": 4}])
    );
    assert_eq!(
        body.as_object().map(|o| o.len()),
        Some(4),
        "apiVersion, kind, metadata, status only"
    );
}

#[tokio::test]
async fn steady_state_sends_nothing() {
    let ready = Condition::new("Ready", ConditionStatus::True, "Succeeded")
        .with_observed_generation(4)
        .at(at(1_700_000_000));
    let stored = WidgetStatus {
        conditions: Conditions::from_iter([ready]),
        observed_generation: Some(4),
        endpoint: Some("10.0.0.7:443".into()),
    };
    let object = widget(4, Some(stored));
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    for _ in 0..3 {
        reconciler
            .reconcile(Arc::new(object.clone()), async |w: &mut Widget| {
                w.status_mut().endpoint = Some("10.0.0.7:443".into());
                Ok::<(), Failure>(())
            })
            .await
            .expect("reconciled");
    }
    assert!(server.received().is_empty(), "{:?}", server.received());
}

#[tokio::test]
async fn errors_requeue_by_their_severity() {
    let object = widget(2, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());

    let retry = reconciler
        .reconcile(Arc::new(object.clone()), async |_: &mut Widget| {
            Err(Failure::retryable(
                "TooManyRequests",
                "the cloud API is throttling",
            ))
        })
        .await
        .expect("written");
    assert_eq!(retry, Action::requeue(Duration::from_secs(5)));
    let again = reconciler
        .reconcile(Arc::new(object.clone()), async |_: &mut Widget| {
            Err(Failure::retryable(
                "TooManyRequests",
                "the cloud API is throttling",
            ))
        })
        .await
        .expect("written");
    assert_eq!(
        again,
        Action::requeue(Duration::from_secs(10)),
        "backoff grows"
    );

    let fatal = reconciler
        .reconcile(Arc::new(object.clone()), async |_: &mut Widget| {
            Err(Failure::fatal("InvalidLocation", "eastus3 does not exist"))
        })
        .await
        .expect("written");
    assert_eq!(fatal, Action::await_change());

    let requests = server.received();
    assert_eq!(
        conditions_without_time(&requests[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Warning", "reason": "TooManyRequests",
                "message": "the cloud API is throttling", "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
    assert_eq!(
        conditions_without_time(&requests[2].body),
        json!([{"type": "Ready", "status": "False", "severity": "Error", "reason": "InvalidLocation",
                "message": "eastus3 does not exist", "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
}

#[tokio::test]
async fn a_rejected_status_falls_back_to_its_valid_conditions() {
    let object = widget(7, None);
    let server = ApiServer::new(&object);
    server.respond(
        422,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 422, "reason": "Invalid",
               "message": "Widget.example.com \"w1\" is invalid: status.endpoint: Invalid value: \"x\": must be host:port",
               "details": {"name": "w1", "group": "example.com", "kind": "Widget",
                           "causes": [{"reason": "FieldValueInvalid", "message": "Invalid value: \"x\": must be host:port", "field": "status.endpoint"}]}}),
    );
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    reconciler
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            let status = w.status_mut();
            status.endpoint = Some("x".into());
            // A condition the API server would reject does not go into the fallback.
            status.conditions_mut().set(Condition::new(
                "Available",
                ConditionStatus::True,
                "not a reason",
            ));
            Ok::<(), Failure>(())
        })
        .await
        .expect("fallback written");

    let requests = server.received();
    assert_eq!(requests.len(), 2);
    assert_apply(&requests[0], "example.com/widget-controller");
    assert_apply(&requests[1], "example.com/widget-controller-fallback");
    let fallback = &requests[1].body;
    assert!(
        fallback["status"].get("observedGeneration").is_none(),
        "{fallback}"
    );
    assert!(fallback["status"].get("endpoint").is_none(), "{fallback}");
    assert_eq!(
        conditions_without_time(fallback),
        json!([{"type": "Ready", "status": "False", "severity": "Warning", "reason": "StatusRejected",
                "message": "the API server rejected the status: Widget.example.com \"w1\" is invalid: status.endpoint: Invalid value: \"x\": must be host:port",
                "lastTransitionTime": "<now>", "observedGeneration": 7}])
    );
}

#[tokio::test]
async fn recovery_releases_the_fallback_manager() {
    // Stored: the fallback's Ready (StatusRejected, Warning), owned by the fallback manager.
    let rejected = Condition::new("Ready", ConditionStatus::False, "StatusRejected")
        .with_severity(kondition::Severity::Warning)
        .with_message("the API server rejected the status")
        .with_observed_generation(8)
        .at(at(1_700_000_000));
    let mut object = widget(
        8,
        Some(WidgetStatus {
            conditions: [rejected].into_iter().collect(),
            ..Default::default()
        }),
    );
    let owned = json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {
        ".": {}, "f:type": {}, "f:status": {}, "f:severity": {}, "f:reason": {}, "f:message": {},
        "f:lastTransitionTime": {}, "f:observedGeneration": {}}}}});
    object.metadata.managed_fields = Some(vec![
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry {
            manager: Some("example.com/widget-controller-fallback".into()),
            operation: Some("Apply".into()),
            subresource: Some("status".into()),
            api_version: Some("example.com/v1".into()),
            fields_type: Some("FieldsV1".into()),
            fields_v1: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1(
                owned,
            )),
            ..Default::default()
        },
    ]);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2);
    assert_apply(&requests[0], "example.com/widget-controller");
    assert_apply(&requests[1], "example.com/widget-controller-fallback");
    assert_eq!(
        requests[1].body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": "team-a"}}),
        "no status at all: an empty one would leave the fallback owning `status`"
    );
    // As the API server's libraries store it: Ready as the full apply said (the severity
    // only the fallback held is gone), and no entry of the fallback manager.
    let stored = server.stored().expect("stored");
    let ready = &stored["status"]["conditions"][0];
    assert_eq!(
        (&ready["status"], &ready["reason"], ready.get("severity")),
        (&json!("True"), &json!("Succeeded"), None)
    );
    let managers: Vec<_> = stored["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| entry["manager"].clone())
        .collect();
    assert_eq!(managers, [json!("example.com/widget-controller")]);
}

#[tokio::test]
async fn a_vanished_object_is_not_an_error() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    server.respond(404, json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404, "reason": "NotFound", "message": "widgets.example.com \"w1\" not found"}));
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    let action = reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await;
    assert!(action.is_ok(), "{action:?}");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn server_errors_reach_the_error_policy() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    server.respond(500, json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500, "reason": "InternalError", "message": "etcdserver: request timed out"}));
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    let result = reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await;
    let error = result.expect_err("a 500 is not swallowed");
    assert!(
        error.to_string().contains("etcdserver: request timed out"),
        "{error}"
    );
}

#[tokio::test]
async fn long_messages_are_truncated_before_sending() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Err(Failure::retryable("CloudError", "é".repeat(40_000)))
        })
        .await
        .expect("written");
    let message = server.received()[0].body["status"]["conditions"][0]["message"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_default();
    assert!(message.len() <= 32_768, "{}", message.len());
    assert!(message.ends_with(kondition::validation::TRUNCATION_MARKER));
}

#[tokio::test]
async fn a_panic_ends_as_ready_false() {
    let object = widget(3, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    let action = reconciler
        .reconcile(
            Arc::new(object),
            async |w: &mut Widget| -> Result<(), Failure> {
                if w.spec.size > 0 {
                    panic!("index out of bounds: the len is 0 but the index is 3");
                }
                Ok(())
            },
        )
        .await
        .expect("written");
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(
        conditions_without_time(&server.received()[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Warning", "reason": "ReconcilePanicked",
                "message": "index out of bounds: the len is 0 but the index is 3",
                "lastTransitionTime": "<now>", "observedGeneration": 3}])
    );
}

#[tokio::test]
async fn a_ready_set_by_the_body_stands() {
    let object = widget(2, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    reconciler
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            // Inherited from a child: not ready although this reconcile succeeded.
            w.status_mut().set_ready(
                Condition::new("Ready", ConditionStatus::False, "ChildNotReady")
                    .with_message("Deployment web: 1/3 ready"),
            );
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    assert_eq!(
        conditions_without_time(&server.received()[0].body),
        json!([{"type": "Ready", "status": "False", "reason": "ChildNotReady", "message": "Deployment web: 1/3 ready",
                "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
}

/// Blocks when the widget is too big, else defers to the rest of the chain.
struct SizeGate;

impl PreReconcileCheck<Widget> for SizeGate {
    fn check<'a>(
        &'a self,
        object: &'a Widget,
        client: &'a Client,
        next: Next<'a, Widget>,
    ) -> CheckFuture<'a, PreCheck> {
        Box::pin(async move {
            if object.spec.size > 100 {
                return Ok(PreCheck::Block("the quota allows 100".into()));
            }
            next.run(object, client).await
        })
    }
}

/// Postpones every reconcile during a maintenance window.
struct Maintenance;

impl PreReconcileCheck<Widget> for Maintenance {
    fn check<'a>(
        &'a self,
        _: &'a Widget,
        _: &'a Client,
        _: Next<'a, Widget>,
    ) -> CheckFuture<'a, PreCheck> {
        Box::pin(async { Ok(PreCheck::Postpone("maintenance window until 02:00".into())) })
    }
}

/// Fails every check with an error.
struct Broken;

impl PreReconcileCheck<Widget> for Broken {
    fn check<'a>(
        &'a self,
        _: &'a Widget,
        _: &'a Client,
        _: Next<'a, Widget>,
    ) -> CheckFuture<'a, PreCheck> {
        Box::pin(async { Err("the quota service is unreachable".into()) })
    }
}

/// Checks the endpoint answered after the body.
struct EndpointSet;

impl PostReconcileCheck<Widget> for EndpointSet {
    fn check<'a>(&'a self, object: &'a Widget, _: &'a Client) -> CheckFuture<'a, PostCheck> {
        Box::pin(async move {
            Ok(
                match object.status.as_ref().and_then(|s| s.endpoint.as_ref()) {
                    Some(_) => PostCheck::Success,
                    None => PostCheck::Failure("no endpoint after the reconcile".into()),
                },
            )
        })
    }
}

async fn ready_after(
    reconciler: StatusReconciler<Widget>,
    server: &ApiServer,
    object: Widget,
) -> (Action, Value, bool) {
    let ran = Arc::new(Mutex::new(false));
    let flag = ran.clone();
    let action = reconciler
        .reconcile(Arc::new(object), async move |_: &mut Widget| {
            *flag.lock().expect("lock") = true;
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let ready =
        conditions_without_time(&server.received().last().expect("a write").body)[0].clone();
    let body_ran = *ran.lock().expect("lock");
    (action, ready, body_ran)
}

#[tokio::test]
async fn pre_checks_block_postpone_or_proceed() {
    let big = {
        let mut w = widget(1, None);
        w.spec.size = 500;
        w
    };
    let server = ApiServer::new(&big);
    let reconciler = StatusReconciler::new(server.client())
        .pre_check(SizeGate)
        .pre_check(Maintenance);
    let (action, ready, ran) = ready_after(reconciler, &server, big).await;
    assert!(!ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(
        (ready["reason"].clone(), ready["severity"].clone()),
        (json!("ReconciliationBlocked"), json!("Warning"))
    );
    assert_eq!(ready["message"], "the quota allows 100");

    // A small widget passes the gate, which calls the next check: maintenance postpones.
    let small = widget(1, None);
    let server = ApiServer::new(&small);
    let reconciler = StatusReconciler::new(server.client())
        .pre_check(SizeGate)
        .pre_check(Maintenance);
    let (action, ready, ran) = ready_after(reconciler, &server, small.clone()).await;
    assert!(!ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));
    assert_eq!(
        (ready["reason"].clone(), ready["severity"].clone()),
        (json!("ReconciliationPostponed"), json!("Info"))
    );

    // An error is a block the user can see.
    let server = ApiServer::new(&small);
    let reconciler = StatusReconciler::new(server.client()).pre_check(Broken);
    let (_, ready, ran) = ready_after(reconciler, &server, small.clone()).await;
    assert!(!ran);
    assert_eq!(ready["reason"], "ReconciliationBlocked");
    assert_eq!(ready["message"], "the quota service is unreachable");

    // Only the gate, passed: the body runs.
    let server = ApiServer::new(&small);
    let reconciler = StatusReconciler::new(server.client()).pre_check(SizeGate);
    let (_, ready, ran) = ready_after(reconciler, &server, small).await;
    assert!(ran);
    assert_eq!(ready["status"], "True");
}

#[tokio::test]
async fn post_checks_can_fail_a_reconcile() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::new(server.client()).post_check(EndpointSet);
    let (action, ready, ran) = ready_after(reconciler, &server, object).await;
    assert!(ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(
        (
            ready["status"].clone(),
            ready["reason"].clone(),
            ready["severity"].clone(),
            ready["message"].clone()
        ),
        (
            json!("False"),
            json!("PostReconcileFailure"),
            json!("Warning"),
            json!("no endpoint after the reconcile")
        )
    );
}

#[tokio::test]
async fn an_event_is_recorded_when_ready_changes_and_only_then() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    let client = server.client();
    let reporter = kube::runtime::events::Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let reconciler = StatusReconciler::<Widget>::new(client.clone())
        .recorder(kube::runtime::events::Recorder::new(client, reporter));
    reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Err(Failure::fatal("InvalidSize", "size must be even"))
        })
        .await
        .expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[1].method, "POST");
    assert_eq!(
        requests[1].path,
        "/apis/events.k8s.io/v1/namespaces/team-a/events"
    );
    assert_eq!(requests[1].body["type"], "Warning");
    assert_eq!(requests[1].body["reason"], "InvalidSize");
    assert_eq!(
        requests[1].body["note"],
        "Ready is False: size must be even"
    );
    assert_eq!(requests[1].body["regarding"]["name"], "w1");

    // The same failure again: the stored Ready already says so, so no write and no event.
    let stored = serde_json::from_value::<Widget>({
        let mut body = requests[0].body.clone();
        body["spec"] = json!({"size": 3});
        body["metadata"]["generation"] = json!(1);
        body
    })
    .expect("the applied object");
    let server = ApiServer::new(&stored);
    let client = server.client();
    let reporter = kube::runtime::events::Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let reconciler = StatusReconciler::<Widget>::new(client.clone())
        .recorder(kube::runtime::events::Recorder::new(client, reporter));
    reconciler
        .reconcile(Arc::new(stored), async |_: &mut Widget| {
            Err(Failure::fatal("InvalidSize", "size must be even"))
        })
        .await
        .expect("written");
    assert!(server.received().is_empty(), "{:?}", server.received());
}

#[tokio::test]
async fn while_deleting_ready_says_so() {
    let mut object = widget(5, None);
    object.metadata.deletion_timestamp = Some(
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Timestamp::UNIX_EPOCH),
    );
    object.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    let server = ApiServer::new(&object);
    let reconciler = StatusReconciler::<Widget>::new(server.client());
    reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    assert_eq!(
        conditions_without_time(&server.received()[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Info", "reason": "Deleting",
                "message": "The resource is being deleted", "lastTransitionTime": "<now>", "observedGeneration": 5}])
    );
}

#[tokio::test]
async fn conflicts_and_throttling_reach_the_error_policy_without_a_fallback() {
    for (code, reason) in [(409, "Conflict"), (429, "TooManyRequests")] {
        let object = widget(1, None);
        let server = ApiServer::new(&object);
        server.respond(
            code,
            json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason,
                   "message": format!("{reason} from the stand-in"), "details": {"retryAfterSeconds": 1}}),
        );
        let reconciler = StatusReconciler::<Widget>::new(server.client());
        let result = reconciler
            .reconcile(Arc::new(object), async |_: &mut Widget| {
                Ok::<(), Failure>(())
            })
            .await;
        assert!(
            result.is_err(),
            "{code} must be retried by the error policy"
        );
        assert_eq!(
            server.received().len(),
            1,
            "{code}: no fallback for a request the server did not judge"
        );
    }
}

#[tokio::test]
async fn finalizers_clean_up_while_ready_says_deleting() {
    let mut object = widget(6, None);
    object.metadata.deletion_timestamp = Some(
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Timestamp::UNIX_EPOCH),
    );
    object.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    let server = ApiServer::new(&object);
    let client = server.client();
    let api: kube::Api<Widget> = kube::Api::namespaced(client.clone(), "team-a");
    let cleaned = Arc::new(Mutex::new(false));
    let flag = cleaned.clone();
    let reconciler = StatusReconciler::<Widget>::new(client);
    reconciler
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            kondition::controller::with_finalizer(
                &api,
                "example.com/cleanup",
                w,
                async |_: &mut Widget| Ok::<(), Failure>(()),
                async |_: &mut Widget| {
                    *flag.lock().expect("lock") = true;
                    Ok(())
                },
            )
            .await
        })
        .await
        .expect("written");
    assert!(*cleaned.lock().expect("lock"));
    let requests = server.received();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].method, "PATCH");
    assert_eq!(
        requests[0].path,
        "/apis/example.com/v1/namespaces/team-a/widgets/w1"
    );
    assert_eq!(requests[0].content_type, "application/json-patch+json");
    assert_eq!(
        requests[0].body,
        json!([{"op": "test", "path": "/metadata/finalizers/0", "value": "example.com/cleanup"},
               {"op": "remove", "path": "/metadata/finalizers/0"}])
    );
    assert_apply(&requests[1], "example.com/widget-controller");
    assert_eq!(
        conditions_without_time(&requests[1].body)[0]["reason"],
        "Deleting"
    );
}

#[tokio::test]
async fn a_new_object_gets_its_finalizer_and_is_reconciled_at_once() {
    let object = widget(1, None);
    let server = ApiServer::new(&object);
    let client = server.client();
    let api: kube::Api<Widget> = kube::Api::namespaced(client.clone(), "team-a");
    let reconciler = StatusReconciler::<Widget>::new(client);
    reconciler
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            kondition::controller::with_finalizer(
                &api,
                "example.com/cleanup",
                w,
                async |w: &mut Widget| {
                    w.status_mut().endpoint = Some("10.0.0.9:443".into());
                    Ok::<(), Failure>(())
                },
                async |_: &mut Widget| Ok(()),
            )
            .await
        })
        .await
        .expect("written");
    let requests = server.received();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].content_type, "application/json-patch+json");
    assert_eq!(requests[0].body[1]["op"], "add");
    assert_eq!(requests[1].body["status"]["endpoint"], "10.0.0.9:443");
    assert_eq!(
        conditions_without_time(&requests[1].body)[0]["status"],
        "True"
    );
}

#[tokio::test]
async fn a_rejected_status_is_reported_as_a_warning_event() {
    let object = widget(2, None);
    let server = ApiServer::new(&object);
    server.respond(
        422,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 422, "reason": "Invalid",
               "message": "status.endpoint: Invalid value"}),
    );
    let client = server.client();
    let reporter = kube::runtime::events::Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let reconciler = StatusReconciler::<Widget>::new(client.clone())
        .recorder(kube::runtime::events::Recorder::new(client, reporter));
    reconciler
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("fallback written");
    let requests = server.received();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert_eq!(requests[2].method, "POST");
    assert_eq!(requests[2].body["type"], "Warning");
    assert_eq!(requests[2].body["reason"], "StatusRejected");
    assert_eq!(
        requests[2].body["note"],
        "Ready is False: the API server rejected the status: status.endpoint: Invalid value"
    );
}
