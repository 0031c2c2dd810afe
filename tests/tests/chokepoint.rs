//! The status chokepoint on the real Kubernetes API server (kube-apiserver with etcd, run by
//! the launcher of `kondition_tests::cluster`). Objects are created through the server, which
//! sets their generation, uid and resourceVersion (a generation above 1 is a spec changed
//! through the admin client). Each test asserts the exact requests a reconcile sent (method,
//! path, query, content type, body, the code the server answered), the requeue it returned,
//! and what the server then holds: status, conditions, `observedGeneration`, the field
//! managers of `managedFields`, the `resourceVersion` when nothing may be written, and the
//! Events in the test's namespace.
//!
//! The server's own answers drive every case: rejections come from the Widget CRD's schema
//! (a `pattern`, a `required` field) and its CEL rule on the status (422), a 404 from a real
//! deletion, a 409 from a real write between the read and the apply, a 500 from a conversion
//! webhook the server cannot reach. Only throttling (429) is made up, by a layer between the
//! client and the server, because the server throttles by its load, which a test cannot
//! cause on demand. Time is tokio's paused clock where a backoff matters (the clients have no
//! timers, so it moves only when a test advances it).

#![allow(missing_docs)] // The derives write undocumented items (the CustomResource types).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::jiff::Timestamp;
use kondition::controller::{
    CheckFuture, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
    REASON_STATUS_REJECTED, Reconciled, StatusReconciler, fallback_owner,
};
use kondition::{
    Condition, ConditionStatus, Conditions, Failure, KubeStatus, StatusResource, Time,
};
use kondition_tests::cluster::TestEnv;
use kondition_tests::recording::Received;
use kube::api::{ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use kube::{Api, Client, CustomResource, CustomResourceExt, ResourceExt};
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

/// A widget's observed state. Its CRD holds the rules the chokepoint cannot check before
/// sending: `endpoint` is host:port (a pattern), a certificate names its secret (required),
/// and `readyReplicas` never exceeds `replicas` (a CEL rule on the status).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, conditions(Ready, Available))]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "!has(self.readyReplicas) || !has(self.replicas) || self.readyReplicas <= self.replicas",
    "message": "readyReplicas must not exceed replicas"
}]))]
pub struct WidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers: host:port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^[a-z0-9.-]+:[0-9]+$"))]
    pub endpoint: Option<String>,
    /// Replicas wanted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Replicas ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
    /// The serving certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<Certificate>,
    /// When a backup agent (another field manager) last backed the widget up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_backup: Option<String>,
}

/// A serving certificate: the CRD requires `secretName`, which the operator's type (an
/// older or careless one) leaves optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("required" = ["secretName"]))]
pub struct Certificate {
    /// The secret holding it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_name: Option<String>,
    /// When it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,
}

const OWNER: &str = "example.com/widget-controller";
const FALLBACK: &str = "example.com/widget-controller-fallback";
const APPLY_YAML: &str = "application/apply-patch+yaml";

fn at(second: i64) -> Time {
    Time(Timestamp::from_second(second).expect("valid"))
}

/// A test's corner of the cluster, with the Widget CRD installed.
struct Setup {
    env: TestEnv,
}

impl Setup {
    async fn new() -> Self {
        Self::with_crds([Widget::crd()]).await
    }

    async fn with_crds(crds: impl IntoIterator<Item = CustomResourceDefinition>) -> Self {
        Self {
            env: TestEnv::new(crds).await,
        }
    }

    /// The Widget CRD, and a controller identity also allowed what
    /// `kondition::controller::with_finalizer` needs.
    async fn with_finalizer() -> Self {
        Self {
            env: TestEnv::with_finalizer([Widget::crd()]).await,
        }
    }

    fn ns(&self) -> &str {
        &self.env.namespace
    }

    /// Widgets through the unrecorded client.
    fn widgets(&self) -> Api<Widget> {
        self.env.api::<Widget>()
    }

    /// A chokepoint writing through the recorded client, which records Events through the
    /// same client.
    fn reconciler(&self) -> StatusReconciler<Widget> {
        let reporter = Reporter {
            controller: "widget-controller".into(),
            instance: None,
        };
        StatusReconciler::<Widget>::new(self.env.client.clone())
            .recorder(Recorder::new(self.env.client.clone(), reporter))
    }

    /// Creates `name` (size 3, finalizers as given) and changes its spec until the server
    /// says `generation`; returns it as the server then holds it.
    async fn create(&self, name: &str, generation: i64, finalizers: &[&str]) -> Widget {
        let mut widget = Widget::new(name, WidgetSpec { size: 3 });
        if !finalizers.is_empty() {
            widget.metadata.finalizers = Some(finalizers.iter().map(|f| (*f).to_owned()).collect());
        }
        let mut created = self
            .widgets()
            .create(&PostParams::default(), &widget)
            .await
            .expect("created");
        assert_eq!(created.metadata.generation, Some(1));
        for size in 4..3 + generation {
            created = self
                .set_size(name, i32::try_from(size).expect("a small size"))
                .await;
        }
        assert_eq!(created.metadata.generation, Some(generation));
        created
    }

    /// Changes the spec (a new generation) through the admin client.
    async fn set_size(&self, name: &str, size: i32) -> Widget {
        self.widgets()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": size}})),
            )
            .await
            .expect("spec changed")
    }

    /// The object as the server holds it, typed (what a reconcile is handed).
    async fn get(&self, name: &str) -> Widget {
        self.widgets().get(name).await.expect("read back")
    }

    /// The object as the server holds it, as JSON: its spec and status as the server sent
    /// them, not read through the test's types.
    async fn stored(&self, name: &str) -> Value {
        let resource = ApiResource::erase::<Widget>(&());
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.env.admin.clone(), self.ns(), &resource);
        let object = api.get(name).await.expect("read back");
        serde_json::to_value(object).expect("JSON")
    }

    /// One reconcile of the object as the server holds it now.
    async fn reconcile<F>(
        &self,
        reconciler: &StatusReconciler<Widget>,
        name: &str,
        body: F,
    ) -> Action
    where
        F: AsyncFnOnce(&mut Widget) -> Result<(), Failure>,
    {
        let object = self.get(name).await;
        reconciler
            .reconcile(Arc::new(object), body)
            .await
            .expect("status written")
    }

    fn status_path(&self, name: &str) -> String {
        format!(
            "/apis/example.com/v1/namespaces/{}/widgets/{name}/status",
            self.ns()
        )
    }

    /// The status PATCHes sent so far.
    fn status_patches(&self) -> Vec<Received> {
        self.env
            .requests
            .all()
            .into_iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .collect()
    }

    /// The Events created so far (POSTs of the recorder).
    fn event_posts(&self) -> Vec<Received> {
        self.env
            .requests
            .all()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path.contains("/events"))
            .collect()
    }

    /// The Events the server holds in the test's namespace.
    async fn events(&self) -> Vec<Event> {
        kondition_tests::cluster::recorded_events(&self.env.admin, self.ns()).await
    }

    /// An apply of `status` to the status subresource by another field manager.
    async fn apply_status_as(&self, manager: &str, force: bool, name: &str, status: Value) {
        let mut params = PatchParams::apply(manager);
        params.force = force;
        let body = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                          "metadata": {"name": name}, "status": status});
        self.widgets()
            .patch_status(name, &params, &Patch::Apply(body))
            .await
            .unwrap_or_else(|e| panic!("{manager}'s apply: {e}"));
    }

    /// A full status apply as the chokepoint sends it: `PATCH .../status` forced under its
    /// field owner, applied only at `resource_version`, carrying `status`.
    fn assert_full_apply(&self, request: &Received, resource_version: &str, status: Value) {
        assert_apply(request, &self.status_path("w1"), OWNER);
        assert_eq!(
            without_now(&request.body),
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": "w1", "namespace": self.ns(),
                                "resourceVersion": resource_version},
                   "status": status}),
        );
    }
}

/// `request` is a forced server-side apply of `path` under `owner`.
fn assert_apply(request: &Received, path: &str, owner: &str) {
    assert_eq!(request.method, "PATCH");
    assert_eq!(request.path, path);
    assert_eq!(request.content_type, APPLY_YAML);
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

/// `body` with each condition's `lastTransitionTime` checked to be a whole-second time and
/// blanked (it is "now").
fn without_now(body: &Value) -> Value {
    let mut body = body.clone();
    let conditions = body
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut);
    for condition in conditions.into_iter().flatten() {
        let time = condition["lastTransitionTime"].as_str().unwrap_or_default();
        let parsed: Timestamp = time.parse().expect("an RFC 3339 time");
        assert_eq!(parsed.subsec_nanosecond(), 0, "whole seconds: {time}");
        condition["lastTransitionTime"] = json!("<now>");
    }
    body
}

/// The `conditions` of `object`'s status with their times blanked.
fn conditions_without_time(object: &Value) -> Value {
    without_now(object)["status"]["conditions"].clone()
}

/// The managers of `object`'s status, as `managedFields` lists them: (manager, operation).
fn status_managers(object: &Value) -> Vec<(String, String)> {
    let entries = object["metadata"]["managedFields"].as_array();
    entries
        .into_iter()
        .flatten()
        .filter(|e| e["subresource"] == "status")
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_owned();
            (text("manager"), text("operation"))
        })
        .collect()
}

/// The `fieldsV1` of `manager`'s status entry, if it has one.
fn fields_of(object: &Value, manager: &str) -> Option<Value> {
    object["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|e| e["manager"] == manager && e["subresource"] == "status")
        .map(|e| e["fieldsV1"].clone())
}

fn resource_version(object: &Value) -> String {
    object["metadata"]["resourceVersion"]
        .as_str()
        .expect("a resourceVersion")
        .to_owned()
}

#[tokio::test]
async fn success_applies_the_whole_status_once() {
    let setup = Setup::new().await;
    let object = setup.create("w1", 4, &[]).await;
    let read = object.resource_version().expect("a resourceVersion");
    let action = setup
        .reconciler()
        .reconcile(Arc::new(object), async |w: &mut Widget| {
            w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
            Ok::<(), Failure>(())
        })
        .await
        .expect("status written");
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));

    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    let apply = &patches[0];
    setup.assert_full_apply(
        apply,
        &read,
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 4}],
               "observedGeneration": 4, "endpoint": "10.0.0.7:443"}),
    );
    assert_eq!(apply.status, Some(200));

    // The server holds exactly the status sent, under the controller's manager only.
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], apply.body["status"]);
    assert_eq!(stored["metadata"]["generation"], 4);
    assert_eq!(status_managers(&stored), [(OWNER.into(), "Apply".into())]);
    assert_ne!(resource_version(&stored), read);

    // Ready appeared: one Normal Event.
    assert_eq!(setup.event_posts().len(), 1);
    let events = setup.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Normal"));
    assert_eq!(events[0].reason.as_deref(), Some("Succeeded"));
    assert_eq!(
        events[0].note.as_deref(),
        Some("Ready is True"),
        "no dangling colon without a message"
    );
    assert_eq!(
        setup.env.requests.len(),
        2,
        "the status apply and the Event, nothing else"
    );
}

#[tokio::test(start_paused = true)]
async fn steady_state_sends_nothing() {
    let setup = Setup::new().await;
    setup.create("w1", 4, &[]).await;
    // What an earlier run of the controller left: its own apply, an old transition time.
    let ready = Condition::new("Ready", ConditionStatus::True, "Succeeded")
        .with_observed_generation(4)
        .at(at(1_700_000_000));
    let status = WidgetStatus {
        conditions: Conditions::from_iter([ready]),
        observed_generation: Some(4),
        endpoint: Some("10.0.0.7:443".into()),
        ..Default::default()
    };
    setup
        .apply_status_as(
            OWNER,
            true,
            "w1",
            serde_json::to_value(&status).expect("JSON"),
        )
        .await;
    let before = setup.stored("w1").await;

    let reconciler = setup.reconciler();
    for _ in 0..5 {
        let action = setup
            .reconcile(&reconciler, "w1", async |w: &mut Widget| {
                w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
                Ok(())
            })
            .await;
        assert_eq!(action, Action::requeue(Duration::from_secs(600)));
        tokio::time::advance(Duration::from_secs(600)).await;
    }
    let requests = setup.env.requests.all();
    assert!(requests.is_empty(), "no request at all: {requests:#?}");
    let after = setup.stored("w1").await;
    assert_eq!(resource_version(&after), resource_version(&before));
    assert_eq!(
        after["status"]["conditions"][0]["lastTransitionTime"],
        "2023-11-14T22:13:20Z"
    );
    assert!(setup.events().await.is_empty());
}

#[tokio::test]
async fn the_reconciles_after_a_write_send_nothing() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let reconciler = setup.reconciler();
    let endpoint = async |w: &mut Widget| {
        w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
        Ok(())
    };
    setup.reconcile(&reconciler, "w1", endpoint).await;
    let written = setup.stored("w1").await;
    for _ in 0..5 {
        setup.reconcile(&reconciler, "w1", endpoint).await;
    }
    let writes = setup.env.requests.writes();
    assert_eq!(
        writes.len(),
        2,
        "the first reconcile's apply and Event only: {writes:#?}"
    );
    assert_eq!(setup.status_patches().len(), 1);
    let after = setup.stored("w1").await;
    assert_eq!(resource_version(&after), resource_version(&written));
    assert_eq!(setup.events().await.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn errors_requeue_by_their_severity() {
    let setup = Setup::new().await;
    setup.create("w1", 2, &[]).await;
    let reconciler = setup.reconciler();
    let throttled = async |_: &mut Widget| {
        Err(Failure::retryable(
            "TooManyRequests",
            "the cloud API is throttling",
        ))
    };

    let retry = setup.reconcile(&reconciler, "w1", throttled).await;
    assert_eq!(retry, Action::requeue(Duration::from_secs(5)));
    // The watch event of its own write: nothing done before the retry time.
    let waiting = setup.reconcile(&reconciler, "w1", throttled).await;
    assert_eq!(waiting, Action::requeue(Duration::from_secs(5)));
    tokio::time::advance(Duration::from_secs(5)).await;
    let again = setup.reconcile(&reconciler, "w1", throttled).await;
    assert_eq!(
        again,
        Action::requeue(Duration::from_secs(10)),
        "backoff grows"
    );
    let throttled_stored = setup.stored("w1").await;
    tokio::time::advance(Duration::from_secs(10)).await;
    let fatal = setup
        .reconcile(&reconciler, "w1", async |_: &mut Widget| {
            Err(Failure::fatal("InvalidLocation", "eastus3 does not exist"))
        })
        .await;
    assert_eq!(fatal, Action::await_change());

    // The repeated failure is stored already: two writes for three reconciles.
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 2, "{patches:#?}");
    assert!(patches.iter().all(|p| p.status == Some(200)));
    assert_eq!(
        conditions_without_time(&patches[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Warning", "reason": "TooManyRequests",
                "message": "the cloud API is throttling", "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
    assert_eq!(
        patches[1].body["metadata"]["resourceVersion"],
        json!(resource_version(&throttled_stored))
    );
    assert_eq!(
        conditions_without_time(&patches[1].body),
        json!([{"type": "Ready", "status": "False", "severity": "Error", "reason": "InvalidLocation",
                "message": "eastus3 does not exist", "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], patches[1].body["status"]);
    // Two transitions of Ready, two Warning Events.
    let events = setup.events().await;
    let mut reasons: Vec<_> = events
        .iter()
        .map(|e| (e.type_.clone(), e.reason.clone()))
        .collect();
    reasons.sort();
    assert_eq!(
        reasons,
        [
            (Some("Warning".into()), Some("InvalidLocation".into())),
            (Some("Warning".into()), Some("TooManyRequests".into()))
        ]
    );
}

/// The first reconcile of `w1` (generation 7) whose body changes the status with `set`, which
/// the server rejects (422): the exact requests (the full apply answered 422, the
/// conditions-only fallback 200), what the server holds (the fallback's Ready, no
/// `observedGeneration`, none of the rejected fields, the fallback manager alone) and one
/// Warning Event. `full_status` is the status the full apply carries (times blanked).
/// Returns the server's message.
async fn first_rejection(
    setup: &Setup,
    reconciler: &StatusReconciler<Widget>,
    set: impl Fn(&mut Widget) + Send + Sync,
    full_status: Value,
) -> String {
    let object = setup.create("w1", 7, &[]).await;
    let read = object.resource_version().expect("a resourceVersion");
    let action = setup
        .reconcile(reconciler, "w1", async |w: &mut Widget| {
            set(w);
            Ok(())
        })
        .await;
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));

    let patches = setup.status_patches();
    assert_eq!(patches.len(), 2, "{patches:#?}");
    let (full, fallback) = (&patches[0], &patches[1]);
    setup.assert_full_apply(full, &read, full_status);
    assert_eq!(
        full.status,
        Some(422),
        "the server's answer to the full apply"
    );
    assert_apply(
        fallback,
        &setup.status_path("w1"),
        &fallback_owner::<Widget>(),
    );
    assert_eq!(fallback.status, Some(200));
    let message = fallback.body["status"]["conditions"][0]["message"]
        .as_str()
        .and_then(|m| m.strip_prefix("the API server rejected the status: "))
        .expect("the server's message in Ready")
        .to_owned();
    assert_eq!(
        without_now(&fallback.body),
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": setup.ns(), "resourceVersion": read},
               "status": {"conditions": [{
                   "type": "Ready", "status": "False", "severity": "Warning",
                   "reason": REASON_STATUS_REJECTED,
                   "message": format!("the API server rejected the status: {message}"),
                   "lastTransitionTime": "<now>", "observedGeneration": 7}]}}),
        "conditions only, no observedGeneration"
    );

    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], fallback.body["status"]);
    assert_eq!(
        status_managers(&stored),
        [(FALLBACK.into(), "Apply".into())]
    );
    let events = setup.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(events[0].reason.as_deref(), Some(REASON_STATUS_REJECTED));
    assert_eq!(
        events[0].note.as_deref(),
        Some(format!("Ready is False: the API server rejected the status: {message}").as_str())
    );
    message
}

/// [`first_rejection`], then the steady state: the reconcile right after (the one the
/// fallback's own watch event causes) sends nothing, and each of five later ones, on the
/// rejection's backoff, sends the full apply once more, which the server rejects again,
/// and nothing else: no write lands, no further Event.
async fn rejected_with_422(set: impl Fn(&mut Widget) + Send + Sync, full_status: Value) -> String {
    let setup = Setup::new().await;
    let reconciler = setup.reconciler();
    let message = first_rejection(&setup, &reconciler, &set, full_status).await;
    let version = resource_version(&setup.stored("w1").await);
    let body = async |w: &mut Widget| {
        set(w);
        Ok(())
    };
    setup.reconcile(&reconciler, "w1", body).await;
    assert_eq!(setup.status_patches().len(), 2, "nothing sent right after");
    for _ in 0..5 {
        tokio::time::advance(Duration::from_secs(300)).await;
        setup.reconcile(&reconciler, "w1", body).await;
    }
    let retries: Vec<_> = setup.status_patches()[2..]
        .iter()
        .map(|r| (r.param("fieldManager").map(str::to_owned), r.status))
        .collect();
    assert_eq!(
        retries,
        vec![(Some(OWNER.to_owned()), Some(422)); 5],
        "one full apply per backoff, rejected again; no fallback"
    );
    assert_eq!(resource_version(&setup.stored("w1").await), version);
    assert_eq!(setup.events().await.len(), 1, "no further Event");
    message
}

/// The status of a first reconcile at generation 7 that succeeded, with `fields` beside it.
fn succeeded_at_7(fields: Value) -> Value {
    let mut status = json!({"conditions": [{"type": "Ready", "status": "True",
                                            "reason": "Succeeded", "message": "",
                                            "lastTransitionTime": "<now>",
                                            "observedGeneration": 7}],
                            "observedGeneration": 7});
    for (key, value) in fields.as_object().into_iter().flatten() {
        status[key] = value.clone();
    }
    status
}

#[tokio::test(start_paused = true)]
async fn a_status_breaking_the_schemas_pattern_falls_back() {
    let message = rejected_with_422(
        |w| w.status_or_insert().endpoint = Some("x".into()),
        succeeded_at_7(json!({"endpoint": "x"})),
    )
    .await;
    assert_eq!(
        message,
        r#"Widget.example.com "w1" is invalid: status.endpoint: Invalid value: "x": endpoint in body should match '^[a-z0-9.-]+:[0-9]+$'"#
    );
}

#[tokio::test(start_paused = true)]
async fn a_status_missing_a_required_field_falls_back() {
    let message = rejected_with_422(
        |w| {
            w.status_or_insert().certificate = Some(Certificate {
                secret_name: None,
                not_after: Some("2027-01-01T00:00:00Z".into()),
            });
        },
        succeeded_at_7(json!({"certificate": {"notAfter": "2027-01-01T00:00:00Z"}})),
    )
    .await;
    // The server names the missing field, and says that the CEL rules were not run.
    assert_eq!(
        message,
        r#"Widget.example.com "w1" is invalid: [status.certificate.secretName: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
}

#[tokio::test(start_paused = true)]
async fn a_status_breaking_a_cel_rule_falls_back() {
    let message = rejected_with_422(
        |w| {
            let status = w.status_or_insert();
            status.replicas = Some(2);
            status.ready_replicas = Some(3);
        },
        succeeded_at_7(json!({"replicas": 2, "readyReplicas": 3})),
    )
    .await;
    assert_eq!(
        message,
        r#"Widget.example.com "w1" is invalid: status: Invalid value: readyReplicas must not exceed replicas"#
    );
}

/// And then a steady state: the list the server returns after the fallback holds the
/// conditions in another order (Ready first), which is not another status; the reconcile
/// after it sends nothing. (The real server showed the bug: the order counted, the full
/// apply went again and a second fallback landed with the message's index moved.)
#[tokio::test(start_paused = true)]
async fn a_condition_the_server_rejects_is_left_out_of_the_fallback() {
    let setup = Setup::new().await;
    let reconciler = setup.reconciler();
    // The full apply carries it; the fallback does not.
    let full_status = json!({"conditions": [
                                 {"type": "Available", "status": "True", "reason": "not a reason",
                                  "message": "", "lastTransitionTime": "<now>"},
                                 {"type": "Ready", "status": "True", "reason": "Succeeded",
                                  "message": "", "lastTransitionTime": "<now>",
                                  "observedGeneration": 7}],
                             "observedGeneration": 7});
    let message = first_rejection(
        &setup,
        &reconciler,
        |w: &mut Widget| {
            // A reason that breaks the pattern of the conditions' schema.
            w.status_or_insert().conditions_mut().set(Condition::new(
                "Available",
                ConditionStatus::True,
                "not a reason",
            ));
        },
        full_status,
    )
    .await;
    assert_eq!(
        message,
        r#"Widget.example.com "w1" is invalid: status.conditions[0].reason: Invalid value: "not a reason": conditions[0].reason in body should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'"#
    );
    let after_fallback = setup.stored("w1").await;
    setup.env.requests.clear();
    setup
        .reconcile(&reconciler, "w1", async |w: &mut Widget| {
            w.status_or_insert().conditions_mut().set(Condition::new(
                "Available",
                ConditionStatus::True,
                "not a reason",
            ));
            Ok(())
        })
        .await;
    assert_eq!(setup.status_patches().len(), 0, "nothing sent");
    assert_eq!(
        resource_version(&setup.stored("w1").await),
        resource_version(&after_fallback)
    );
    assert_eq!(setup.events().await.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn recovery_releases_the_fallback_manager() {
    let setup = Setup::new().await;
    setup.create("w1", 8, &[]).await;
    let reconciler = setup.reconciler();
    // Rejected: the fallback's Ready (StatusRejected, Warning) is stored, owned by the
    // fallback manager.
    setup
        .reconcile(&reconciler, "w1", async |w: &mut Widget| {
            w.status_or_insert().endpoint = Some("x".into());
            Ok(())
        })
        .await;
    let rejected = setup.stored("w1").await;
    assert_eq!(
        status_managers(&rejected),
        [(FALLBACK.into(), "Apply".into())]
    );
    assert_eq!(
        rejected["status"]["conditions"][0]["severity"], "Warning",
        "{rejected}"
    );

    // The status mended (by the time the rejection's backoff passed): the full apply
    // lands, then the fallback manager lets go.
    tokio::time::advance(Duration::from_secs(5)).await;
    setup.env.requests.clear();
    setup
        .reconcile(&reconciler, "w1", async |w: &mut Widget| {
            w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
            Ok(())
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 2, "{patches:#?}");
    setup.assert_full_apply(
        &patches[0],
        &resource_version(&rejected),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 8}],
               "observedGeneration": 8, "endpoint": "10.0.0.7:443"}),
    );
    assert_apply(&patches[1], &setup.status_path("w1"), FALLBACK);
    // Conditional on the version the full apply left: the release lands on that object or
    // not at all (never on one deleted or created again meanwhile).
    let version = patches[1].body["metadata"]["resourceVersion"].clone();
    assert!(version.is_string(), "a precondition: {:#}", patches[1].body);
    assert_ne!(
        version,
        json!(resource_version(&rejected)),
        "the version after the apply"
    );
    assert_eq!(
        patches[1].body,
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w1", "namespace": setup.ns(), "resourceVersion": version}}),
        "no status at all: an empty one would leave the fallback owning `status`"
    );
    assert_eq!(
        (patches[0].status, patches[1].status),
        (Some(200), Some(200))
    );
    // Ready as the full apply said (the severity only the fallback held is gone), and no
    // entry of the fallback manager.
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], patches[0].body["status"]);
    assert_eq!(status_managers(&stored), [(OWNER.into(), "Apply".into())]);
    // Two transitions of Ready: StatusRejected, then Succeeded.
    let events = setup.events().await;
    let mut reasons: Vec<_> = events.iter().filter_map(|e| e.reason.clone()).collect();
    reasons.sort();
    assert_eq!(reasons, ["StatusRejected", "Succeeded"]);
}

#[tokio::test]
async fn a_vanished_object_is_not_an_error() {
    let setup = Setup::new().await;
    let object = setup.create("w1", 1, &[]).await;
    setup
        .widgets()
        .delete("w1", &DeleteParams::default())
        .await
        .expect("deleted");
    let action = setup
        .reconciler()
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await;
    assert_eq!(action.expect("not an error"), Action::await_change());
    let requests = setup.env.requests.all();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_apply(&requests[0], &setup.status_path("w1"), OWNER);
    assert_eq!(requests[0].status, Some(404), "the server's answer");
    // A 404 on /status is also what a kind without a status subresource gets: the object is
    // read to tell.
    assert_eq!(
        (requests[1].method.as_str(), requests[1].status),
        ("GET", Some(404)),
        "gone"
    );
    let gone = setup.widgets().get_opt("w1").await.expect("a read");
    assert!(gone.is_none(), "the apply made no object: {gone:?}");
    assert!(
        setup.events().await.is_empty(),
        "no Event about a gone object"
    );
}

/// A gauge, the kind of [`gauge_crd`]: served as v1 (stored) and v2, converted between them
/// by a webhook the API server cannot reach.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v2",
    kind = "Gauge",
    namespaced,
    status = "GaugeStatus"
)]
pub struct GaugeSpec {
    /// How big.
    pub size: i32,
}

/// A gauge's observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Gauge, conditions(Ready))]
#[serde(rename_all = "camelCase")]
pub struct GaugeStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// Gauge's CRD with v1 (the storage version) beside v2, converted by a webhook at a port
/// where nothing listens: every request for v2 of a stored object fails in the server.
fn gauge_crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(Gauge::crd()).expect("CRD JSON");
    let mut v2 = crd["spec"]["versions"][0].clone();
    let mut v1 = v2.clone();
    v1["name"] = json!("v1");
    v1["storage"] = json!(true);
    v2["storage"] = json!(false);
    crd["spec"]["versions"] = json!([v1, v2]);
    crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:1/convert"}}});
    serde_json::from_value(crd).expect("a CRD")
}

#[tokio::test]
async fn server_errors_reach_the_error_policy() {
    let setup = Setup::with_crds([gauge_crd()]).await;
    // Created as v1, which needs no conversion; the reconcile gets it as v2 would read.
    let v1 = ApiResource {
        version: "v1".into(),
        api_version: "example.com/v1".into(),
        ..ApiResource::erase::<Gauge>(&())
    };
    let gauges: Api<DynamicObject> = Api::namespaced_with(setup.env.admin.clone(), setup.ns(), &v1);
    let created = gauges
        .create(
            &PostParams::default(),
            &DynamicObject::new("g1", &v1).data(json!({"spec": {"size": 1}})),
        )
        .await
        .expect("created as v1");
    let mut object = serde_json::to_value(&created).expect("JSON");
    object["apiVersion"] = json!("example.com/v2");
    let object: Gauge = serde_json::from_value(object).expect("a gauge");

    let result = StatusReconciler::<Gauge>::new(setup.env.client.clone())
        .reconcile(
            Arc::new(object),
            async |_: &mut Gauge| Ok::<(), Failure>(()),
        )
        .await;
    let error = result.expect_err("a 500 is not swallowed");
    assert_eq!(error.status_code(), Some(500));
    assert!(!error.is_conflict());
    assert!(
        error.to_string().contains("conversion webhook"),
        "the server's words: {error}"
    );
    let requests = setup.env.requests.all();
    assert_eq!(requests.len(), 1, "no fallback for a fault: {requests:#?}");
    assert_eq!(
        requests[0].path,
        format!(
            "/apis/example.com/v2/namespaces/{}/gauges/g1/status",
            setup.ns()
        )
    );
    assert_eq!(requests[0].status, Some(500));
    let stored = gauges.get("g1").await.expect("read back as v1");
    assert_eq!(stored.data.get("status"), None, "nothing written");
    assert_eq!(stored.resource_version(), created.resource_version());
}

#[tokio::test]
async fn long_messages_are_truncated_before_sending() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    setup
        .reconcile(&setup.reconciler(), "w1", async |_: &mut Widget| {
            Err(Failure::retryable("CloudError", "é".repeat(40_000)))
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(patches[0].status, Some(200), "the server takes it");
    let message = patches[0].body["status"]["conditions"][0]["message"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_default();
    assert!(message.len() <= 32_768, "{}", message.len());
    assert!(
        message.len() > 32_000,
        "cut near the limit: {}",
        message.len()
    );
    assert!(message.ends_with(kondition::validation::TRUNCATION_MARKER));
    let stored = setup.stored("w1").await;
    assert_eq!(
        stored["status"]["conditions"][0]["message"],
        json!(message),
        "stored as sent"
    );
    // The Event's note is cut to its own limit: recorded, not lost.
    let events = setup.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert!(events[0].note.as_ref().is_some_and(|n| n.len() <= 1024));
}

#[tokio::test]
async fn a_panic_ends_as_ready_false() {
    let setup = Setup::new().await;
    setup.create("w1", 3, &[]).await;
    let action = setup
        .reconcile(
            &setup.reconciler(),
            "w1",
            async |w: &mut Widget| -> Result<(), Failure> {
                if w.spec.size > 0 {
                    panic!("index out of bounds: the len is 0 but the index is 3");
                }
                Ok(())
            },
        )
        .await;
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(
        conditions_without_time(&patches[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Warning", "reason": "ReconcilePanicked",
                "message": "index out of bounds: the len is 0 but the index is 3",
                "lastTransitionTime": "<now>", "observedGeneration": 3}])
    );
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], patches[0].body["status"]);
}

#[tokio::test]
async fn a_ready_set_by_the_body_stands() {
    let setup = Setup::new().await;
    setup.create("w1", 2, &[]).await;
    setup
        .reconcile(&setup.reconciler(), "w1", async |w: &mut Widget| {
            // Inherited from a child: not ready although this reconcile succeeded.
            w.status_or_insert().set_ready(
                Condition::new("Ready", ConditionStatus::False, "ChildNotReady")
                    .with_message("Deployment web: 1/3 ready"),
            );
            Ok(())
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(
        conditions_without_time(&patches[0].body),
        json!([{"type": "Ready", "status": "False", "reason": "ChildNotReady", "message": "Deployment web: 1/3 ready",
                "lastTransitionTime": "<now>", "observedGeneration": 2}])
    );
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], patches[0].body["status"]);
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

/// One reconcile of `name` as the server holds it, by `reconciler`, with a body that only
/// notes it ran: the action, Ready as the one status write sent it (time blanked; the
/// server then holds exactly that status), and whether the body ran.
async fn ready_after(
    setup: &Setup,
    reconciler: StatusReconciler<Widget>,
    name: &str,
) -> (Action, Value, bool) {
    let before = setup.status_patches().len();
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let action = setup
        .reconcile(&reconciler, name, async move |_: &mut Widget| {
            flag.store(true, Ordering::SeqCst);
            Ok(())
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), before + 1, "one write: {patches:#?}");
    let write = &patches[before];
    assert_apply(write, &setup.status_path(name), OWNER);
    assert_eq!(write.status, Some(200));
    assert_eq!(setup.stored(name).await["status"], write.body["status"]);
    let ready = conditions_without_time(&write.body)[0].clone();
    (action, ready, ran.load(Ordering::SeqCst))
}

#[tokio::test]
async fn pre_checks_block_postpone_or_proceed() {
    let setup = Setup::new().await;
    setup.create("big", 1, &[]).await;
    setup.set_size("big", 500).await;
    let chain = || {
        setup
            .reconciler()
            .pre_check(SizeGate)
            .pre_check(Maintenance)
    };
    let (action, ready, ran) = ready_after(&setup, chain(), "big").await;
    assert!(!ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(
        ready,
        json!({"type": "Ready", "status": "False", "severity": "Warning",
               "reason": "ReconciliationBlocked", "message": "the quota allows 100",
               "lastTransitionTime": "<now>", "observedGeneration": 2})
    );

    // A small widget passes the gate, which calls the next check: maintenance postpones.
    setup.create("small", 1, &[]).await;
    let (action, ready, ran) = ready_after(&setup, chain(), "small").await;
    assert!(!ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));
    assert_eq!(
        ready,
        json!({"type": "Ready", "status": "False", "severity": "Info",
               "reason": "ReconciliationPostponed", "message": "maintenance window until 02:00",
               "lastTransitionTime": "<now>", "observedGeneration": 1})
    );

    // An error is a block the user can see.
    let (_, ready, ran) = ready_after(&setup, setup.reconciler().pre_check(Broken), "small").await;
    assert!(!ran);
    assert_eq!(
        (&ready["reason"], &ready["message"]),
        (
            &json!("ReconciliationBlocked"),
            &json!("the quota service is unreachable")
        )
    );

    // Only the gate, passed: the body runs.
    let (_, ready, ran) =
        ready_after(&setup, setup.reconciler().pre_check(SizeGate), "small").await;
    assert!(ran);
    assert_eq!(
        (&ready["status"], &ready["reason"]),
        (&json!("True"), &json!("Succeeded"))
    );
    // Ready changed on each of the four writes: four Events.
    assert_eq!(setup.events().await.len(), 4);
}

#[tokio::test]
async fn post_checks_can_fail_a_reconcile() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let reconciler = setup.reconciler().post_check(EndpointSet);
    let (action, ready, ran) = ready_after(&setup, reconciler, "w1").await;
    assert!(ran);
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    assert_eq!(
        ready,
        json!({"type": "Ready", "status": "False", "severity": "Warning",
               "reason": "PostReconcileFailure", "message": "no endpoint after the reconcile",
               "lastTransitionTime": "<now>", "observedGeneration": 1})
    );
}

/// Every reconcile tells the operator's hook what it came to: a body's failure (which the
/// reconcile's error never carries), the reconciles that waited for the retry time, a
/// success.
#[tokio::test(start_paused = true)]
async fn the_outcome_hook_sees_every_reconcile() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let reconciler =
        setup
            .reconciler()
            .on_outcome(move |object: &Widget, reconciled: &Reconciled| {
                let mut seen = record
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                seen.push((object.name_any(), reconciled.clone()));
            });
    let throttled =
        async |_: &mut Widget| Err(Failure::retryable("Throttled", "the cloud API is busy"));
    setup.reconcile(&reconciler, "w1", throttled).await;
    setup.reconcile(&reconciler, "w1", throttled).await;
    tokio::time::advance(Duration::from_secs(5)).await;
    setup
        .reconcile(&reconciler, "w1", async |_: &mut Widget| Ok(()))
        .await;
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let w1 = || "w1".to_owned();
    assert_eq!(
        seen,
        [
            (
                w1(),
                Reconciled::Unsuccessful {
                    reason: "Throttled".into(),
                    severity: kondition::Severity::Warning
                }
            ),
            (
                w1(),
                Reconciled::Waiting {
                    retry_in: Duration::from_secs(5)
                }
            ),
            (w1(), Reconciled::Succeeded),
        ]
    );
}

/// A replica that may not write (`may_write`: it does not lead, or does not hold the
/// object's shard) does nothing for the object: no body, no request, no Event; one whose
/// permit is lost while the body runs drops the status it computed; with the permit held,
/// the status is written as without one. The hook hears each.
#[tokio::test]
async fn a_replica_that_may_not_write_sends_nothing() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let permitted = Arc::new(AtomicBool::new(false));
    let permit = permitted.clone();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let reconciler = setup
        .reconciler()
        .may_write(move |_: &Widget| permit.load(Ordering::SeqCst))
        .on_outcome(move |_: &Widget, reconciled: &Reconciled| {
            let mut seen = record
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            seen.push(reconciled.clone());
        });
    let runs = AtomicUsize::new(0);
    let endpoint = async |w: &mut Widget| {
        runs.fetch_add(1, Ordering::SeqCst);
        w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
        Ok(())
    };

    let sent_before = setup.env.requests.len();
    let action = setup.reconcile(&reconciler, "w1", endpoint).await;
    assert_eq!(action, Action::await_change());
    assert_eq!(runs.load(Ordering::SeqCst), 0, "no body");
    assert_eq!(setup.env.requests.len(), sent_before, "nothing sent");

    // Lost while the body runs: the status it computed is dropped.
    permitted.store(true, Ordering::SeqCst);
    let losing = async |w: &mut Widget| {
        permitted.store(false, Ordering::SeqCst);
        endpoint(w).await
    };
    let sent_before = setup.env.requests.len();
    let action = setup.reconcile(&reconciler, "w1", losing).await;
    assert_eq!(action, Action::await_change());
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the body ran");
    assert_eq!(setup.env.requests.len(), sent_before, "nothing sent");
    assert!(setup.stored("w1").await.get("status").is_none());

    permitted.store(true, Ordering::SeqCst);
    setup.reconcile(&reconciler, "w1", endpoint).await;
    assert_eq!(setup.status_patches().len(), 1);
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"]["endpoint"], "10.0.0.7:443");
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    assert_eq!(
        seen,
        [
            Reconciled::NotPermitted,
            Reconciled::NotPermitted,
            Reconciled::Succeeded
        ]
    );
}

/// A post-check that panics on one object (a bug in the check).
struct PanicsOnW1;

impl PostReconcileCheck<Widget> for PanicsOnW1 {
    fn check<'a>(&'a self, object: &'a Widget, _: &'a Client) -> CheckFuture<'a, PostCheck> {
        Box::pin(async move {
            assert_ne!(object.name_any(), "w1", "the check's own bug");
            Ok(PostCheck::Success)
        })
    }
}

/// A panic in a check is caught like the body's: that object's Ready says it (reason
/// `ReconcilePanicked`, the panic's message), its reconcile returns (kube's Controller would
/// otherwise lose its whole stream to the panic), and the other objects are reconciled.
#[tokio::test]
async fn a_panicking_check_fails_its_object_only() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    setup.create("w2", 1, &[]).await;
    let reconciler = setup.reconciler().post_check(PanicsOnW1);
    let endpoint = async |w: &mut Widget| {
        w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
        Ok(())
    };
    let action = setup.reconcile(&reconciler, "w1", endpoint).await;
    assert_eq!(action, Action::requeue(Duration::from_secs(5)));
    let w1 = setup.stored("w1").await;
    let ready = &w1["status"]["conditions"][0];
    assert_eq!(
        (&ready["type"], &ready["status"], &ready["reason"]),
        (
            &json!("Ready"),
            &json!("False"),
            &json!("ReconcilePanicked")
        )
    );
    assert!(
        ready["message"]
            .as_str()
            .is_some_and(|m| m.contains("the check's own bug")),
        "{ready}"
    );
    setup.reconcile(&reconciler, "w2", endpoint).await;
    let w2 = setup.stored("w2").await;
    assert_eq!(
        (
            &w2["status"]["conditions"][0]["status"],
            &w2["status"]["endpoint"]
        ),
        (&json!("True"), &json!("10.0.0.7:443"))
    );
}

#[tokio::test]
async fn an_event_is_recorded_when_ready_changes_and_only_then() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let reconciler = setup.reconciler();
    let invalid = async |_: &mut Widget| Err(Failure::fatal("InvalidSize", "size must be even"));
    setup.reconcile(&reconciler, "w1", invalid).await;
    let requests = setup.env.requests.all();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_apply(&requests[0], &setup.status_path("w1"), OWNER);
    let post = &requests[1];
    assert_eq!(post.method, "POST");
    assert_eq!(
        post.path,
        format!("/apis/events.k8s.io/v1/namespaces/{}/events", setup.ns())
    );
    assert_eq!(post.status, Some(201));
    assert_eq!(post.body["type"], "Warning");
    assert_eq!(post.body["reason"], "InvalidSize");
    assert_eq!(post.body["note"], "Ready is False: size must be even");
    assert_eq!(post.body["regarding"]["name"], "w1");
    let events = setup.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].reason.as_deref(), Some("InvalidSize"));
    assert_eq!(
        events[0].note.as_deref(),
        Some("Ready is False: size must be even")
    );
    let regarding = events[0].regarding.as_ref().expect("about the widget");
    assert_eq!(regarding.name.as_deref(), Some("w1"));
    assert_eq!(regarding.uid, setup.get("w1").await.uid());

    // The same failure again, from the object as stored: Ready already says so, so no write
    // and no Event.
    let written = setup.stored("w1").await;
    for _ in 0..3 {
        setup.reconcile(&reconciler, "w1", invalid).await;
    }
    assert_eq!(
        setup.env.requests.len(),
        2,
        "{:#?}",
        setup.env.requests.all()
    );
    assert_eq!(
        resource_version(&setup.stored("w1").await),
        resource_version(&written)
    );
    assert_eq!(setup.events().await.len(), 1);
}

/// Deletes `name` through the admin client (its finalizer keeps it) and returns it as the
/// server then holds it: deletionTimestamp set.
async fn delete_held(setup: &Setup, name: &str) -> Widget {
    setup
        .widgets()
        .delete(name, &DeleteParams::default())
        .await
        .expect("deletion started");
    let object = setup.get(name).await;
    assert!(object.metadata.deletion_timestamp.is_some());
    object
}

#[tokio::test]
async fn while_deleting_ready_says_so() {
    let setup = Setup::new().await;
    setup.create("w1", 5, &["example.com/cleanup"]).await;
    let object = delete_held(&setup, "w1").await;
    let generation = object.metadata.generation.expect("a generation");
    assert_eq!(
        generation, 6,
        "setting deletionTimestamp is a new generation"
    );
    setup
        .reconciler()
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(patches[0].status, Some(200));
    assert_eq!(
        conditions_without_time(&patches[0].body),
        json!([{"type": "Ready", "status": "False", "severity": "Info", "reason": "Deleting",
                "message": "The resource is being deleted", "lastTransitionTime": "<now>",
                "observedGeneration": generation}])
    );
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"], patches[0].body["status"]);
    assert_eq!(
        stored["metadata"]["finalizers"],
        json!(["example.com/cleanup"])
    );
}

#[tokio::test]
async fn a_conflict_reaches_the_error_policy_without_a_fallback() {
    let setup = Setup::new().await;
    let object = setup.create("w1", 1, &[]).await;
    // The spec changes after the reconcile read the object.
    let changed = setup.set_size("w1", 9).await;
    let result = setup
        .reconciler()
        .reconcile(Arc::new(object.clone()), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await;
    let error = result.expect_err("409 must be retried by the error policy");
    assert!(error.is_conflict(), "{error}");
    // The object read back: its spec changed, so the status computed stays refused.
    let requests = setup.env.requests.all();
    let sent: Vec<_> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path.rsplit('/').next(), r.status))
        .collect();
    assert_eq!(
        sent,
        [
            ("PATCH", Some("status"), Some(409)),
            ("GET", Some("w1"), Some(200))
        ],
        "no fallback, no Event: {requests:#?}"
    );
    assert_eq!(
        requests[0].body["metadata"]["resourceVersion"],
        json!(object.resource_version())
    );
    let stored = setup.stored("w1").await;
    assert_eq!(stored.get("status"), None, "nothing written");
    assert_eq!(Some(resource_version(&stored)), changed.resource_version());

    // The retry reads the new object: generation 2 observed.
    setup
        .reconcile(&setup.reconciler(), "w1", async |_: &mut Widget| Ok(()))
        .await;
    assert_eq!(
        setup.stored("w1").await["status"]["observedGeneration"],
        json!(2)
    );
}

/// Another field manager writes its own condition between the reconcile's read and its write:
/// the 409 is answered within the reconcile. The object read back differs from the copy only
/// in what the other manager owns, so the same status goes again at the version now stored,
/// and the other manager's condition stays. Exact requests: the apply refused, the read,
/// the same apply accepted.
#[tokio::test]
async fn a_conflict_with_another_managers_own_condition_is_sent_again_at_once() {
    let setup = Setup::new().await;
    let object = setup.create("w1", 1, &[]).await;
    let healthy = json!({"type": "Healthy", "status": "True", "reason": "Checked",
        "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"});
    setup
        .apply_status_as(
            "example.com/health-checker",
            false,
            "w1",
            json!({"conditions": [healthy]}),
        )
        .await;
    let between = setup.get("w1").await;
    setup
        .reconciler()
        .reconcile(Arc::new(object.clone()), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("sent again");
    let requests = setup.env.requests.all();
    let sent: Vec<_> = requests
        .iter()
        .filter(|r| !r.path.contains("/events"))
        .map(|r| (r.method.as_str(), r.path.rsplit('/').next(), r.status))
        .collect();
    assert_eq!(
        sent,
        [
            ("PATCH", Some("status"), Some(409)),
            ("GET", Some("w1"), Some(200)),
            ("PATCH", Some("status"), Some(200)),
        ],
        "{requests:#?}"
    );
    let (refused, resent) = (&requests[0], &requests[2]);
    assert_eq!(
        refused.body["metadata"]["resourceVersion"],
        json!(object.resource_version())
    );
    assert_eq!(
        resent.body["metadata"]["resourceVersion"],
        json!(between.resource_version())
    );
    assert_eq!(resent.body["status"], refused.body["status"]);
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"]["observedGeneration"], json!(1));
    let types: Vec<&Value> = stored["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["type"])
        .collect();
    assert_eq!(types, [&json!("Healthy"), &json!("Ready")]);
    assert_eq!(stored["status"]["conditions"][0], healthy);
}

/// A client that answers the first status PATCH with a made-up `429 TooManyRequests`
/// (`retryAfterSeconds: 1`) without sending it, and sends everything else through `client`.
fn throttled_once(client: Client) -> (Client, Arc<AtomicUsize>) {
    let namespace = client.default_namespace().to_owned();
    let throttled = Arc::new(AtomicUsize::new(0));
    let service = Throttle {
        client,
        throttled: throttled.clone(),
    };
    (Client::new(service, namespace), throttled)
}

/// The service [`throttled_once`] makes.
#[derive(Clone)]
struct Throttle {
    client: Client,
    throttled: Arc<AtomicUsize>,
}

impl tower::Service<http::Request<kube::client::Body>> for Throttle {
    type Response = http::Response<kube::client::Body>;
    type Error = tower::BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<kube::client::Body>) -> Self::Future {
        let Throttle { client, throttled } = self.clone();
        Box::pin(async move {
            let status_patch = request.method() == http::Method::PATCH
                && request.uri().path().ends_with("/status");
            if status_patch && throttled.fetch_add(1, Ordering::SeqCst) == 0 {
                let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                                  "status": "Failure", "code": 429, "reason": "TooManyRequests",
                                  "message": "injected by the test: too many requests",
                                  "details": {"retryAfterSeconds": 1}});
                let response = http::Response::builder()
                    .status(429)
                    .header(http::header::CONTENT_TYPE, "application/json")
                    .header(http::header::RETRY_AFTER, "1")
                    .body(kube::client::Body::from(body.to_string().into_bytes()))?;
                return Ok(response);
            }
            Ok(client.send(request).await?)
        })
    }
}

#[tokio::test]
async fn throttling_reaches_the_error_policy_without_a_fallback() {
    let setup = Setup::new().await;
    let object = setup.create("w1", 1, &[]).await;
    let (client, throttled) = throttled_once(setup.env.client.clone());
    let result = StatusReconciler::<Widget>::new(client)
        .reconcile(Arc::new(object), async |_: &mut Widget| {
            Ok::<(), Failure>(())
        })
        .await;
    let error = result.expect_err("429 must be retried by the error policy");
    assert_eq!(
        throttled.load(Ordering::SeqCst),
        1,
        "one status apply tried"
    );
    assert_eq!(error.status_code(), Some(429));
    assert_eq!(error.retry_after(), Some(Duration::from_secs(1)));
    let requests = setup.env.requests.all();
    assert!(
        requests.is_empty(),
        "no fallback for a request the server did not judge: {requests:#?}"
    );
    assert_eq!(setup.stored("w1").await.get("status"), None);
}

/// The controller's finalizer released (its cleanup done), no status is written after it:
/// the object is gone (its last finalizer) or kept only by finalizers that are not this
/// controller's. The one request is kube's finalizer patch.
#[tokio::test]
async fn no_status_is_written_once_the_finalizer_is_released() {
    for others in [&[][..], &["other.example.com/keep"][..]] {
        let setup = Setup::with_finalizer().await;
        let finalizers: Vec<&str> = ["example.com/cleanup"]
            .into_iter()
            .chain(others.iter().copied())
            .collect();
        setup.create("w1", 6, &finalizers).await;
        let object = delete_held(&setup, "w1").await;
        let uid = object.uid().expect("a uid");
        let api: Api<Widget> = Api::namespaced(setup.env.client.clone(), setup.ns());
        let cleaned = Arc::new(AtomicBool::new(false));
        let flag = cleaned.clone();
        let reconciler = setup.reconciler();
        let action = reconciler
            .reconcile(Arc::new(object), async |w: &mut Widget| {
                kondition::controller::with_finalizer(
                    &api,
                    "example.com/cleanup",
                    w,
                    async |_: &mut Widget| Ok::<(), Failure>(()),
                    async |_: &mut Widget| {
                        flag.store(true, Ordering::SeqCst);
                        Ok(())
                    },
                )
                .await
            })
            .await
            .expect("not an error");
        assert!(cleaned.load(Ordering::SeqCst));
        assert_eq!(action, Action::await_change());
        assert_eq!(reconciler.tracked_objects(), 0);
        let requests = setup.env.requests.all();
        assert_eq!(requests.len(), 1, "{others:?}: {requests:#?}");
        assert_eq!(requests[0].method, "PATCH");
        assert_eq!(
            requests[0].path,
            format!("/apis/example.com/v1/namespaces/{}/widgets/w1", setup.ns())
        );
        assert_eq!(requests[0].content_type, "application/json-patch+json");
        assert_eq!(
            requests[0].body,
            json!([{"op": "test", "path": "/metadata/finalizers/0", "value": "example.com/cleanup"},
                   {"op": "remove", "path": "/metadata/finalizers/0"}])
        );
        assert_eq!(requests[0].status, Some(200));
        let left = setup.widgets().get_opt("w1").await.expect("a read");
        if others.is_empty() {
            assert!(left.is_none_or(|w| w.uid().as_ref() != Some(&uid)), "gone");
        } else {
            let left = left.expect("kept by the other finalizer");
            assert_eq!(left.finalizers(), others);
            assert_eq!(left.status, None, "no status written after the release");
        }
    }
}

/// A new object that holds another controller's finalizer: this one is added after it, by a
/// JSON patch that applies only to the finalizers read (a `test` of the list); the status
/// lands in the same reconcile.
#[tokio::test]
async fn a_finalizer_is_added_after_the_ones_read() {
    let setup = Setup::with_finalizer().await;
    let created = setup.create("w1", 1, &["other.example.com/keep"]).await;
    let api: Api<Widget> = Api::namespaced(setup.env.client.clone(), setup.ns());
    let reconciler = setup.reconciler();
    reconciler
        .reconcile(Arc::new(created), async |w: &mut Widget| {
            kondition::controller::with_finalizer(
                &api,
                "example.com/cleanup",
                w,
                async |_: &mut Widget| Ok::<(), Failure>(()),
                async |_: &mut Widget| Ok(()),
            )
            .await
        })
        .await
        .expect("status written");
    let requests = setup.env.requests.all();
    assert_eq!(
        requests[0].body,
        json!([{"op": "test", "path": "/metadata/finalizers", "value": ["other.example.com/keep"]},
               {"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/cleanup"}])
    );
    let shape: Vec<(&str, Option<u16>)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.status))
        .collect();
    assert_eq!(
        shape,
        [
            ("PATCH", Some(200)),
            ("PATCH", Some(200)),
            ("POST", Some(201))
        ]
    );
    let stored = setup.stored("w1").await;
    assert_eq!(
        stored["metadata"]["finalizers"],
        json!(["other.example.com/keep", "example.com/cleanup"])
    );
    assert_eq!(stored["status"]["conditions"][0]["type"], "Ready");
    assert_eq!(stored["status"]["conditions"][0]["status"], "True");
}

/// A new object through [`kondition::controller::with_finalizer`]: the first reconcile adds
/// the finalizer (a JSON patch, which moves the object's `resourceVersion`), follows that
/// patch by its answer (the patch is the only change since the copy was read: the same
/// metadata and spec, no field manager's fields but finalizers changed; no request to read
/// the object again), and runs the body at once; its status apply carries the version the
/// finalizer patch left, so it lands in the same reconcile. (The real server showed the bug:
/// with the version read before the patch, every new object's first status write was
/// refused with 409.)
#[tokio::test]
async fn a_new_object_gets_its_finalizer_and_its_status_in_one_reconcile() {
    let setup = Setup::with_finalizer().await;
    let created = setup.create("w1", 1, &[]).await;
    let api: Api<Widget> = Api::namespaced(setup.env.client.clone(), setup.ns());
    let reconciler = setup.reconciler();
    let body = async |w: &mut Widget| {
        kondition::controller::with_finalizer(
            &api,
            "example.com/cleanup",
            w,
            async |w: &mut Widget| {
                w.status_or_insert().endpoint = Some("10.0.0.9:443".into());
                Ok::<(), Failure>(())
            },
            async |_: &mut Widget| Ok(()),
        )
        .await
    };
    let action = reconciler
        .reconcile(Arc::new(created.clone()), body)
        .await
        .expect("status written");
    assert_eq!(action, Action::requeue(Duration::from_secs(600)));
    let requests = setup.env.requests.all();
    let shape: Vec<(&str, Option<u16>)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.status))
        .collect();
    assert_eq!(
        shape,
        [
            ("PATCH", Some(200)),
            ("PATCH", Some(200)),
            ("POST", Some(201))
        ],
        "the finalizer, the status, the Event: {requests:#?}"
    );
    assert_eq!(
        requests[0].path,
        format!("/apis/example.com/v1/namespaces/{}/widgets/w1", setup.ns())
    );
    assert_eq!(requests[0].content_type, "application/json-patch+json");
    assert_eq!(
        requests[0].body,
        json!([{"op": "test", "path": "/metadata/finalizers", "value": null},
               {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/cleanup"]}])
    );
    let stored = setup.stored("w1").await;
    assert_eq!(
        stored["metadata"]["finalizers"],
        json!(["example.com/cleanup"])
    );
    assert_ne!(
        requests[1].body["metadata"]["resourceVersion"],
        json!(created.resource_version()),
        "not the version read before the finalizer"
    );
    setup.assert_full_apply(
        &requests[1],
        requests[1].body["metadata"]["resourceVersion"]
            .as_str()
            .expect("a version"),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 1}],
               "observedGeneration": 1, "endpoint": "10.0.0.9:443"}),
    );
    assert_eq!(stored["status"], requests[1].body["status"]);
    assert_eq!(setup.events().await.len(), 1);

    // The next reconcile: the finalizer is there, the status stored: nothing is written.
    setup.env.requests.clear();
    let object = setup.get("w1").await;
    reconciler
        .reconcile(Arc::new(object), body)
        .await
        .expect("reconciled");
    assert_eq!(setup.env.requests.writes().len(), 0);
}

/// The `fieldsV1` of one condition: the entry itself and each of `fields`.
fn condition_fields(fields: &[&str]) -> Value {
    let mut entry = json!({".": {}});
    for field in fields {
        entry[format!("f:{field}")] = json!({});
    }
    entry
}

/// The fields of a condition without `observedGeneration` or `severity`.
const CONDITION: [&str; 5] = ["lastTransitionTime", "message", "reason", "status", "type"];
/// The fields of a condition the chokepoint set.
const OBSERVED_CONDITION: [&str; 6] = [
    "lastTransitionTime",
    "message",
    "observedGeneration",
    "reason",
    "status",
    "type",
];

/// Another field manager, a backup agent, owns a status field and a condition of its own.
/// The chokepoint's full apply leaves out what the agent set and the body did not change, so
/// the controller owns only its own fields and the agent alone its own; when the agent then
/// drops its condition and field, they go. One write, one Event. (The real server showed the
/// bug: applied whole, the status made the controller co-own the agent's fields, which then
/// outlived the agent's removal.)
#[tokio::test]
async fn two_managers_each_keep_their_own_status_fields() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    let backed_up = json!({"type": "BackedUp", "status": "True", "reason": "Succeeded",
                           "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"});
    setup
        .apply_status_as(
            "backup-agent",
            false,
            "w1",
            json!({"lastBackup": "2026-01-01T00:00:00Z", "conditions": [backed_up]}),
        )
        .await;
    let before = setup.stored("w1").await;

    setup
        .reconcile(&setup.reconciler(), "w1", async |w: &mut Widget| {
            w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
            Ok(())
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    setup.assert_full_apply(
        &patches[0],
        &resource_version(&before),
        json!({"conditions": [
                   {"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
                    "lastTransitionTime": "<now>", "observedGeneration": 1}],
               "observedGeneration": 1, "endpoint": "10.0.0.7:443"}),
    );
    assert_eq!(patches[0].status, Some(200));

    let stored = setup.stored("w1").await;
    assert_eq!(
        stored["status"]["conditions"][0], backed_up,
        "the agent's condition as the agent set it, time and all"
    );
    assert_eq!(stored["status"]["lastBackup"], "2026-01-01T00:00:00Z");
    assert_eq!(
        status_managers(&stored),
        [
            ("backup-agent".into(), "Apply".into()),
            (OWNER.into(), "Apply".into())
        ]
    );
    let backed_up_key = r#"k:{"type":"BackedUp"}"#;
    let ready_key = r#"k:{"type":"Ready"}"#;
    assert_eq!(
        fields_of(&stored, "backup-agent"),
        Some(json!({"f:status": {
            "f:conditions": {backed_up_key: condition_fields(&CONDITION)},
            "f:lastBackup": {}}})),
        "the agent's fields are still the agent's"
    );
    assert_eq!(
        fields_of(&stored, OWNER),
        Some(json!({"f:status": {
            "f:conditions": {ready_key: condition_fields(&OBSERVED_CONDITION)},
            "f:endpoint": {}, "f:observedGeneration": {}}})),
        "the controller's own, and none of the agent's"
    );
    assert_eq!(setup.env.requests.writes().len(), 2, "one apply, one Event");
    assert_eq!(setup.events().await.len(), 1);

    // The agent gives up its field and condition: they go, the controller's stay.
    setup
        .apply_status_as("backup-agent", false, "w1", json!({}))
        .await;
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"].get("lastBackup"), None);
    let types: Vec<&Value> = stored["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["type"])
        .collect();
    assert_eq!(types, [&json!("Ready")]);
}

/// Another field manager wrote the endpoint first; the chokepoint's apply of another one
/// conflicts without force (the server says so) and lands with it: the endpoint becomes the
/// controller's alone, while the other manager keeps its other field, which the apply leaves
/// out (the body did not change it).
#[tokio::test]
async fn force_takes_a_field_another_manager_owns() {
    let setup = Setup::new().await;
    setup.create("w1", 1, &[]).await;
    setup
        .apply_status_as(
            "migration-tool",
            false,
            "w1",
            json!({"endpoint": "old.example:80", "replicas": 3}),
        )
        .await;
    let before = setup.stored("w1").await;
    // The same apply without force, as a dry run: the server names the conflict.
    let conflict = setup
        .widgets()
        .patch_status(
            "w1",
            &PatchParams {
                dry_run: true,
                ..PatchParams::apply(OWNER)
            },
            &Patch::Apply(json!({"apiVersion": "example.com/v1", "kind": "Widget",
                                 "metadata": {"name": "w1"},
                                 "status": {"endpoint": "10.0.0.7:443"}})),
        )
        .await
        .expect_err("a conflict without force");
    let kube::Error::Api(status) = conflict else {
        panic!("not the server's answer: {conflict}");
    };
    assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"));
    let causes = status.details.expect("details").causes;
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert_eq!(
        (causes[0].field.as_str(), causes[0].reason.as_str()),
        (".status.endpoint", "FieldManagerConflict")
    );

    setup
        .reconcile(&setup.reconciler(), "w1", async |w: &mut Widget| {
            w.status_or_insert().endpoint = Some("10.0.0.7:443".into());
            Ok(())
        })
        .await;
    let patches = setup.status_patches();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    setup.assert_full_apply(
        &patches[0],
        &resource_version(&before),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                               "message": "", "lastTransitionTime": "<now>",
                               "observedGeneration": 1}],
               "observedGeneration": 1, "endpoint": "10.0.0.7:443"}),
    );
    assert_eq!(patches[0].status, Some(200));
    let stored = setup.stored("w1").await;
    assert_eq!(stored["status"]["replicas"], 3);
    assert_eq!(stored["status"]["endpoint"], "10.0.0.7:443");
    assert_eq!(
        fields_of(&stored, "migration-tool"),
        Some(json!({"f:status": {"f:replicas": {}}})),
        "the endpoint is taken"
    );
    assert_eq!(
        fields_of(&stored, OWNER),
        Some(json!({"f:status": {
            "f:conditions": {r#"k:{"type":"Ready"}"#: condition_fields(&OBSERVED_CONDITION)},
            "f:endpoint": {}, "f:observedGeneration": {}}}))
    );
    assert_eq!(setup.env.requests.writes().len(), 2, "one apply, one Event");
    assert_eq!(setup.events().await.len(), 1);
}
