//! Every way the real API server rejects a status is a steady state for the chokepoint: the
//! first reconcile writes once (the conditions-only fallback saying `StatusRejected`) and
//! records one Event; the reconciles after it, including the one the fallback's own watch
//! event causes and the retries on the backoff, write nothing and record nothing, until the
//! status changes. Each case is answered by kube-apiserver itself (the launcher of
//! `kondition_tests::cluster`), with the code it really gives:
//!
//! | case | the server's answer |
//! | --- | --- |
//! | a field the CRD does not declare (operator and CRD versions differ) | 500 `failed to create typed patch object ... field not declared in schema` |
//! | two list entries with one key | 500 `failed to create typed patch object ... duplicate entries for key` |
//! | a CEL rule on the status | 422 Invalid |
//! | a pattern of the schema | 422 Invalid |
//! | a status over etcd's limit (1.5 MiB) | 500 `etcdserver: request is too large` |
//! | a status over the API server's etcd client's limit (2 MiB) | 500 `trying to send message larger than max` |
//! | a body over the request limit (3 MiB) | 413 Request Entity Too Large |
//! | a body the API server cannot read (nested deeper than 10,000) | 400 Bad Request |
//!
//! and when the fallback is rejected too (a CEL rule that conditions alone cannot satisfy),
//! nothing is written at all: one Warning Event says so, the reconcile fails with the
//! backoff, then nothing. A 403 (an admission policy that says Forbidden) is in
//! `tests/tests/deployed.rs`, with the admission policies. Time is tokio's paused
//! clock (the clients have no timers, so it moves only when the test advances it).

#![allow(missing_docs)] // The derives write undocumented items (the CustomResource types).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::controller::{REASON_STATUS_REJECTED, StatusReconciler, fallback_owner};
use kondition::{Conditions, Failure, KubeStatus, StatusResource};
use kondition_tests::cluster::TestEnv;
use kube::api::PostParams;
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use kube::{Api, CustomResource, CustomResourceExt, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A gizmo's desired state.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Gizmo",
    namespaced,
    status = "GizmoStatus"
)]
pub struct GizmoSpec {
    /// How big.
    pub size: i64,
}

/// A gizmo's observed state, as the operator's (newer) code has it: `addedLater` is not in
/// the installed CRD (see [`gizmo_crd`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Gizmo, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct GizmoStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers: lowercase letters, digits, `.`, `:` and `-` (a pattern), never
    /// `forbidden` (a CEL rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// A field the operator's code has and the installed CRD does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_later: Option<String>,
    /// Listeners, a list keyed by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listeners: Option<Vec<Listener>>,
    /// Anything (the CRD preserves unknown fields here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

/// One listener.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Listener {
    /// Its key.
    pub name: String,
    /// Its port.
    pub port: i32,
}

/// The CRD as installed: `Gizmo::crd()` with the status' rules added and `addedLater` left
/// out (the CRD of an older release of the operator).
fn gizmo_crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(Gizmo::crd()).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    let properties = status["properties"]
        .as_object_mut()
        .expect("status properties");
    properties.remove("addedLater");
    properties["endpoint"]["pattern"] = json!("^[a-z0-9.:-]*$");
    properties["listeners"]["x-kubernetes-list-type"] = json!("map");
    properties["listeners"]["x-kubernetes-list-map-keys"] = json!(["name"]);
    properties["extra"] = json!({"x-kubernetes-preserve-unknown-fields": true});
    status["x-kubernetes-validations"] = json!([{
        "rule": "!has(self.endpoint) || self.endpoint != 'forbidden'",
        "message": "endpoint must not be forbidden"
    }]);
    serde_json::from_value(crd).expect("a CRD")
}

/// A sprocket's desired state.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Sprocket",
    namespaced,
    status = "SprocketStatus"
)]
pub struct SprocketSpec {
    /// How big.
    pub size: i64,
}

/// A sprocket's observed state: its CRD wants an endpoint (lowercase) whenever there are
/// conditions, which conditions alone cannot satisfy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Sprocket, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct SprocketStatus {
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

fn sprocket_crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(Sprocket::crd()).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    status["properties"]["endpoint"]["pattern"] = json!("^[a-z0-9.:-]*$");
    status["x-kubernetes-validations"] = json!([{
        "rule": "!has(self.conditions) || has(self.endpoint)",
        "message": "a status with conditions needs an endpoint"
    }]);
    serde_json::from_value(crd).expect("a CRD")
}

/// The kinds this file drives.
trait Kind:
    StatusResource
    + CustomResourceExt
    + kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>
    + Clone
    + std::fmt::Debug
    + Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    fn named(name: &str) -> Self;
}

impl Kind for Gizmo {
    fn named(name: &str) -> Self {
        Gizmo::new(name, GizmoSpec { size: 1 })
    }
}

impl Kind for Sprocket {
    fn named(name: &str) -> Self {
        Sprocket::new(name, SprocketSpec { size: 1 })
    }
}

/// A test's cluster corner with a chokepoint that records events.
struct Harness<K> {
    env: TestEnv,
    reconciler: StatusReconciler<K>,
}

impl<K: Kind> Harness<K> {
    async fn new(crd: CustomResourceDefinition) -> Self {
        let env = TestEnv::new([crd]).await;
        let reporter = Reporter {
            controller: "gizmo-controller".into(),
            instance: None,
        };
        let recorder = Recorder::new(env.client.clone(), reporter);
        let reconciler = StatusReconciler::<K>::new(env.client.clone()).recorder(recorder);
        Self { env, reconciler }
    }

    fn api(&self) -> Api<K> {
        Api::namespaced(self.env.admin.clone(), &self.env.namespace)
    }

    async fn create(&self, name: &str) {
        self.api()
            .create(&PostParams::default(), &K::named(name))
            .await
            .expect("created");
    }

    async fn stored(&self, name: &str) -> K {
        self.api().get_status(name).await.expect("read back")
    }

    /// One reconcile of the stored object, the body changing its status with `set`.
    async fn reconcile(&self, name: &str, set: impl FnOnce(&mut K) + Send) {
        self.try_reconcile(name, set)
            .await
            .expect("the chokepoint handles the rejection");
    }

    /// The same, for a status of which nothing can be written: the reconcile's error.
    async fn try_reconcile(
        &self,
        name: &str,
        set: impl FnOnce(&mut K) + Send,
    ) -> Result<Action, kondition::controller::Error> {
        let object = self.stored(name).await;
        self.reconciler
            .reconcile(Arc::new(object), async |o: &mut K| {
                set(o);
                Ok::<(), Failure>(())
            })
            .await
    }

    async fn events(&self) -> Vec<Event> {
        kondition_tests::cluster::recorded_events(&self.env.admin, &self.env.namespace).await
    }

    /// PATCHes of the status sent so far, with the status code of each answer.
    fn status_patches(&self) -> Vec<(String, u16)> {
        self.env
            .requests
            .all()
            .into_iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .map(|r| {
                let manager = r.param("fieldManager").unwrap_or_default().to_owned();
                (manager, r.status.unwrap_or_default())
            })
            .collect()
    }
}

fn ready(object: &impl Serialize) -> Value {
    let object = serde_json::to_value(object).expect("JSON");
    object["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The steady state of a status the server keeps rejecting: the reconcile after the first
/// (the one the fallback's watch event causes) and ten more on the backoff, each a full
/// apply tried again, write nothing and record no event.
async fn assert_steady<K: Kind>(
    harness: &Harness<K>,
    name: &str,
    set: impl Fn(&mut K) + Send + Sync,
    nothing_written: bool,
) {
    let version = harness.stored(name).await.resource_version();
    let events = harness.events().await.len();
    let patches = harness.status_patches().len();
    let reconcile = async || {
        let result = harness.try_reconcile(name, &set).await;
        match result {
            Err(error) if nothing_written => {
                assert_eq!(error.status_code(), Some(422), "{error}");
                assert!(error.backoff().is_some(), "retried on the backoff");
            }
            other => {
                other.expect("the chokepoint handles the rejection");
            }
        }
    };
    reconcile().await;
    assert_eq!(
        harness.status_patches().len(),
        patches,
        "the reconcile right after sends nothing"
    );
    for _ in 0..10 {
        tokio::time::advance(Duration::from_secs(300)).await;
        reconcile().await;
    }
    let stored = harness.stored(name).await;
    assert_eq!(stored.resource_version(), version, "nothing written");
    assert_eq!(harness.events().await.len(), events, "no further event");
    let retries = &harness.status_patches()[patches..];
    assert_eq!(retries.len(), 10, "one full apply per backoff: {retries:?}");
    let owner = K::field_owner().into_owned();
    assert!(
        retries.iter().all(|(manager, _)| *manager == owner),
        "only the full apply is retried: {retries:?}"
    );
}

/// A case whose full apply the server rejects with `code` and whose fallback lands: exactly
/// one write (the fallback) and one Warning Event, Ready False `StatusRejected` carrying the
/// server's message, the stored observedGeneration untouched; then the steady state.
async fn rejected_once(code: u16, message_part: &str, set: impl Fn(&mut Gizmo) + Send + Sync) {
    let harness = Harness::<Gizmo>::new(gizmo_crd()).await;
    harness.create("g1").await;
    let created = harness.stored("g1").await;

    harness.reconcile("g1", &set).await;
    let owner = Gizmo::field_owner().into_owned();
    assert_eq!(
        harness.status_patches(),
        [(owner, code), (fallback_owner::<Gizmo>(), 200)]
    );
    let stored = harness.stored("g1").await;
    assert_ne!(stored.resource_version(), created.resource_version());
    let ready = ready(&stored);
    assert_eq!(
        (&ready["status"], &ready["reason"]),
        (&json!("False"), &json!(REASON_STATUS_REJECTED))
    );
    let message = ready["message"].as_str().expect("a message");
    assert!(message.contains(message_part), "{message}");
    assert_eq!(ready["observedGeneration"], json!(1));
    let status = serde_json::to_value(&stored.status).expect("JSON");
    assert_eq!(status.get("observedGeneration"), None, "{status}");
    let events = harness.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(events[0].reason.as_deref(), Some(REASON_STATUS_REJECTED));
    assert!(
        events[0].note.as_ref().is_some_and(|n| n.len() <= 1024),
        "the note fits the API server's limit"
    );

    assert_steady(&harness, "g1", &set, false).await;
}

#[tokio::test(start_paused = true)]
async fn a_field_the_crd_does_not_declare() {
    rejected_once(500, "field not declared in schema", |g| {
        let status = g.status_or_insert();
        status.endpoint = Some("10.0.0.1:80".into());
        status.added_later = Some("new in this release".into());
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn two_list_entries_with_one_key() {
    rejected_once(500, "duplicate entries for key", |g| {
        let listener = |port| Listener {
            name: "web".into(),
            port,
        };
        g.status_or_insert().listeners = Some(vec![listener(80), listener(8080)]);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_cel_rule_on_the_status() {
    rejected_once(422, "endpoint must not be forbidden", |g| {
        g.status_or_insert().endpoint = Some("forbidden".into());
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_pattern_of_the_schema() {
    rejected_once(422, "should match", |g| {
        g.status_or_insert().endpoint = Some("Not A Host!".into());
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_status_over_the_storage_limit() {
    // 1.6 MiB: under the 3 MiB request limit, over etcd's 1.5 MiB.
    rejected_once(500, "request is too large", |g| {
        g.status_or_insert().endpoint = Some("a".repeat(1_600 * 1024));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_status_over_the_etcd_clients_limit() {
    // 2.5 MiB: under the 3 MiB request limit, over the 2 MiB the API server's etcd client
    // sends (checked before etcd's own 1.5 MiB).
    rejected_once(500, "trying to send message larger than max", |g| {
        g.status_or_insert().endpoint = Some("a".repeat(2_560 * 1024));
    })
    .await;
}

/// A body the API server cannot read: YAML (an apply body is read as YAML) nested deeper
/// than 10,000 levels. Serializing, comparing and dropping such a value recurses once per
/// level, so the test runs on a thread with a large stack.
#[test]
fn a_body_the_server_cannot_read() {
    let thread = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .expect("a runtime");
            runtime.block_on(rejected_once(400, "exceeded max depth", |g| {
                // Built level by level (`json!` would copy the whole value at each level).
                let mut deep = json!(1);
                for _ in 0..10_001 {
                    let mut level = serde_json::Map::new();
                    level.insert("x".to_owned(), deep);
                    deep = Value::Object(level);
                }
                g.status_or_insert().extra = Some(deep);
            }));
        })
        .expect("a thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

#[tokio::test(start_paused = true)]
async fn a_body_over_the_request_limit() {
    rejected_once(413, "Request entity too large", |g| {
        g.status_or_insert().endpoint = Some("a".repeat(3 * 1024 * 1024));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_fallback_rejected_too_writes_nothing_and_says_so_once() {
    let harness = Harness::<Sprocket>::new(sprocket_crd()).await;
    harness.create("s1").await;
    let created = harness.stored("s1").await;
    let set = |s: &mut Sprocket| s.status_or_insert().endpoint = Some("Not A Host!".into());

    let error = harness
        .try_reconcile("s1", set)
        .await
        .expect_err("nothing could be written");
    assert_eq!(error.status_code(), Some(422), "{error}");
    assert_eq!(
        error.backoff(),
        Some(Duration::from_secs(5)),
        "the first backoff"
    );
    let owner = Sprocket::field_owner().into_owned();
    assert_eq!(
        harness.status_patches(),
        [(owner, 422), (fallback_owner::<Sprocket>(), 422)]
    );
    let stored = harness.stored("s1").await;
    assert_eq!(stored.resource_version(), created.resource_version());
    assert_eq!(stored.status, None, "nothing could be written");
    let events = harness.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(events[0].reason.as_deref(), Some(REASON_STATUS_REJECTED));
    let note = events[0].note.as_deref().unwrap_or_default();
    assert!(
        note.contains("should match") && note.contains("needs an endpoint"),
        "{note}"
    );

    assert_steady(&harness, "s1", set, true).await;

    // The status changes to one the server takes: written at the retry time (before it
    // nothing is run), Ready True, and the transition is the second Event.
    tokio::time::advance(Duration::from_secs(300)).await;
    harness
        .reconcile("s1", |s: &mut Sprocket| {
            s.status_or_insert().endpoint = Some("10.0.0.1:80".into());
        })
        .await;
    let stored = harness.stored("s1").await;
    let ready = ready(&stored);
    assert_eq!(ready["status"], json!("True"));
    assert_eq!(harness.events().await.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_event_for_a_long_message_is_cut_to_fit() {
    let harness = Harness::<Gizmo>::new(gizmo_crd()).await;
    harness.create("g1").await;
    let object = harness.stored("g1").await;
    let long = "the cloud said no. ".repeat(300);
    harness
        .reconciler
        .reconcile(Arc::new(object), async |_: &mut Gizmo| {
            Err::<(), _>(Failure::fatal("CloudRefused", long.clone()))
        })
        .await
        .expect("written");
    let ready = ready(&harness.stored("g1").await);
    assert_eq!(ready["message"].as_str().map(str::len), Some(long.len()));
    let events = harness.events().await;
    assert_eq!(events.len(), 1, "the Event is recorded: {events:#?}");
    let note = events[0].note.as_deref().unwrap_or_default();
    assert!(note.len() <= 1024 && note.ends_with(kondition::validation::TRUNCATION_MARKER));
}

/// A kind whose status has a field the CRD requires (`hidden: bool`, neither an `Option`
/// nor defaulted: schemars lists it under `required`), as kube-rs's controller-rs example
/// has it.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Document",
    namespaced,
    status = "DocumentStatus"
)]
pub struct DocumentSpec {
    /// What it says.
    pub content: String,
}

/// The observed state of a Document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Document, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct DocumentStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Whether the document is hidden.
    pub hidden: bool,
    /// Where it is served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// A status rejected on a brand-new object (no status stored yet) still ends with its
/// conditions written: the fallback carries the fields the CRD requires, without which the
/// API server refuses it as a whole (`status.hidden: Required value`). The desired value
/// when the rejection is about another field (a CEL rule on the endpoint); the type's
/// default when it is about the required field itself (a CEL rule on `hidden`).
#[tokio::test(start_paused = true)]
async fn a_rejected_status_on_a_new_object_writes_its_conditions_with_the_required_fields() {
    assert_eq!(DocumentStatus::REQUIRED_FIELDS, ["hidden"]);
    let mut crd = serde_json::to_value(Document::crd()).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    assert_eq!(
        status["required"],
        json!(["hidden"]),
        "as schemars makes it"
    );
    status["x-kubernetes-validations"] =
        json!([{"rule": "!has(self.endpoint) || self.endpoint != 'x'", "message": "no x"}]);
    status["properties"]["hidden"]["x-kubernetes-validations"] =
        json!([{"rule": "self == false", "message": "no hidden documents"}]);
    let env = TestEnv::new([serde_json::from_value(crd).expect("a CRD")]).await;
    let api: Api<Document> = env.api();
    let reconciler = StatusReconciler::<Document>::new(env.client.clone());
    /// A change of the status, made by the body.
    type Set = fn(&mut DocumentStatus);
    let cases: [(&str, Set, bool); 2] = [
        ("d1", |s| s.endpoint = Some("x".into()), false),
        ("d2", |s| s.hidden = true, false),
    ];
    for (name, set, hidden) in cases {
        let document = Document::new(
            name,
            DocumentSpec {
                content: "hi".into(),
            },
        );
        let created = api
            .create(&PostParams::default(), &document)
            .await
            .expect("created");
        env.requests.clear();
        reconciler
            .reconcile(Arc::new(created), async |d: &mut Document| {
                set(d.status.get_or_insert_default());
                Ok::<(), Failure>(())
            })
            .await
            .expect("the fallback written");
        let answered: Vec<Option<u16>> = env
            .requests
            .all()
            .iter()
            .filter(|r| r.method == "PATCH")
            .map(|r| r.status)
            .collect();
        assert_eq!(
            answered,
            [Some(422), Some(200)],
            "{name}: rejected, then the fallback"
        );
        let stored = serde_json::to_value(api.get(name).await.expect("read")).expect("JSON");
        assert_eq!(stored["status"]["hidden"], hidden, "{name}: {stored:#}");
        assert_eq!(stored["status"].get("endpoint"), None, "{name}");
        let ready = &stored["status"]["conditions"][0];
        assert_eq!(
            (&ready["type"], &ready["status"], &ready["reason"]),
            (
                &json!("Ready"),
                &json!("False"),
                &json!(REASON_STATUS_REJECTED)
            ),
            "{name}: {stored:#}"
        );
    }
}
