//! The status chokepoint deployed as operators are deployed, on the real API server: kinds
//! whose CRD serves no status subresource, a 404 on `/status` for an object that exists,
//! admission policies that deny or change a status, a CRD default the status struct leaves
//! out, an answer lost after the write landed, and status text the API server's YAML reader
//! refuses unescaped. Every answer here is kube-apiserver's own.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::controller::{
    AnswerClass, Error, REASON_STATUS_REJECTED, REASON_STATUS_WRITE_FAILED, StatusReconciler,
    error_policy,
};
use kondition::permissions::KindAccess;
use kondition::{Conditions, Failure, KubeStatus, RequeuePolicy, StatusResource};
use kondition_tests::cluster::{TestEnv, recorded_events};
use kondition_tests::faults::{Fault, Sent, faulty};
use kondition_tests::recording::{Received, Requests};
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use kube::{Api, CustomResource, CustomResourceExt, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A kind `$kind` (plural `$plural`) whose status derives `KubeStatus` with
/// `#[kondition($attrs)]`: a size in the spec; conditions, a generation, an endpoint and a
/// tier in the status.
macro_rules! kind {
    ($kind:ident, $kind_name:literal, $spec:ident, $status:ident, $status_name:literal, ($($attrs:tt)*)) => {
        #[doc = concat!("The desired state of a ", $kind_name, ".")]
        #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[kube(group = "example.com", version = "v1", kind = $kind_name, namespaced, status = $status_name)]
        pub struct $spec {
            /// How big.
            pub size: i64,
        }

        #[doc = concat!("The observed state of a ", $kind_name, ".")]
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
        #[kondition($($attrs)*)]
        #[serde(rename_all = "camelCase")]
        pub struct $status {
            /// Conditions.
            #[serde(default)]
            pub conditions: Conditions,
            /// Generation.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub observed_generation: Option<i64>,
            /// Where it answers.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub endpoint: Option<String>,
            /// A tier, which the CRD may default.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tier: Option<String>,
        }

        impl Kind for $kind {
            fn named(name: &str) -> Self {
                $kind::new(name, $spec { size: 1 })
            }

            fn endpoint(&mut self) -> &mut Option<String> {
                &mut self.status_or_insert().endpoint
            }

            fn tier(&mut self) -> &mut Option<String> {
                &mut self.status_or_insert().tier
            }
        }
    };
}

kind!(
    PlainWidget,
    "PlainWidget",
    PlainWidgetSpec,
    PlainWidgetStatus,
    "PlainWidgetStatus",
    (
        resource = PlainWidget,
        profile = "kstatus",
        status_subresource = false
    )
);
kind!(
    LostWidget,
    "LostWidget",
    LostWidgetSpec,
    LostWidgetStatus,
    "LostWidgetStatus",
    (resource = LostWidget, profile = "standard")
);
kind!(
    DeniedWidget,
    "DeniedWidget",
    DeniedWidgetSpec,
    DeniedWidgetStatus,
    "DeniedWidgetStatus",
    (resource = DeniedWidget, profile = "standard")
);
kind!(
    InvalidWidget,
    "InvalidWidget",
    InvalidWidgetSpec,
    InvalidWidgetStatus,
    "InvalidWidgetStatus",
    (resource = InvalidWidget, profile = "standard")
);
kind!(
    MutatedWidget,
    "MutatedWidget",
    MutatedWidgetSpec,
    MutatedWidgetStatus,
    "MutatedWidgetStatus",
    (resource = MutatedWidget, profile = "standard")
);
kind!(
    DefaultedWidget,
    "DefaultedWidget",
    DefaultedWidgetSpec,
    DefaultedWidgetStatus,
    "DefaultedWidgetStatus",
    (resource = DefaultedWidget, profile = "standard")
);

kind!(
    CheckedWidget,
    "CheckedWidget",
    CheckedWidgetSpec,
    CheckedWidgetStatus,
    "CheckedWidgetStatus",
    (resource = CheckedWidget, profile = "standard")
);

/// What the tests need of the kinds here.
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
    fn endpoint(&mut self) -> &mut Option<String>;
    fn tier(&mut self) -> &mut Option<String>;
}

/// `crd` with no subresources in any version: the status is part of the main resource.
fn without_status_subresource(mut crd: CustomResourceDefinition) -> CustomResourceDefinition {
    for version in &mut crd.spec.versions {
        version.subresources = None;
    }
    crd
}

/// `crd` whose schema defaults `status.tier` to `basic`.
fn with_tier_default(crd: CustomResourceDefinition) -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(crd).expect("CRD JSON");
    for version in crd["spec"]["versions"].as_array_mut().into_iter().flatten() {
        let tier =
            &mut version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["tier"];
        assert!(tier.is_object(), "the status has a tier");
        tier["default"] = json!("basic");
    }
    serde_json::from_value(crd).expect("a CRD")
}

/// The backoff of the tests: 1 s, doubling, up to 16 s.
const POLICY: RequeuePolicy = RequeuePolicy {
    resync: Duration::from_secs(600),
    backoff_initial: Duration::from_secs(1),
    backoff_max: Duration::from_secs(16),
};

/// A test's corner of the cluster and a chokepoint for `K` that records Events.
struct Harness<K> {
    env: TestEnv,
    reconciler: StatusReconciler<K>,
    /// What the reconciler's client sent.
    requests: Requests,
}

impl<K: Kind> Harness<K> {
    async fn new(crd: CustomResourceDefinition) -> Self {
        let env = TestEnv::new([crd]).await;
        let reconciler = Self::reconciler(&env, env.client.clone());
        let requests = env.requests.clone();
        Self {
            env,
            reconciler,
            requests,
        }
    }

    /// As [`Harness::new`], the reconciler speaking as an identity bound to the rules
    /// `kondition::permissions` gives for `K` as its Rust type declares it (rather than as
    /// the installed CRD has it).
    async fn as_declared(crd: CustomResourceDefinition) -> Self {
        let env = TestEnv::new([crd]).await;
        let rules = kondition::permissions::rules([&KindAccess::of::<K>()]);
        let identity = env.identity("operator", rules).await;
        let reconciler = Self::reconciler(&env, identity.client.clone());
        Self {
            requests: identity.requests.clone(),
            env,
            reconciler,
        }
    }

    fn reconciler(env: &TestEnv, client: kube::Client) -> StatusReconciler<K> {
        let reporter = Reporter {
            controller: "widget-controller".into(),
            instance: None,
        };
        StatusReconciler::<K>::new(client)
            .recorder(Recorder::new(env.client.clone(), reporter))
            .requeue_policy(POLICY)
    }

    fn api(&self) -> Api<K> {
        Api::namespaced(self.env.admin.clone(), &self.env.namespace)
    }

    async fn create(&self, name: &str) -> K {
        self.api()
            .create(&PostParams::default(), &K::named(name))
            .await
            .expect("created")
    }

    async fn stored(&self, name: &str) -> K {
        self.api().get(name).await.expect("read back")
    }

    /// One reconcile of the stored object, the body changing it with `set`.
    async fn reconcile(
        &self,
        name: &str,
        set: impl FnOnce(&mut K) + Send,
    ) -> Result<Action, Error> {
        let object = self.stored(name).await;
        self.reconciler
            .reconcile(Arc::new(object), async |o: &mut K| {
                set(o);
                Ok::<(), Failure>(())
            })
            .await
    }

    async fn events(&self) -> Vec<Event> {
        recorded_events(&self.env.admin, &self.env.namespace).await
    }

    /// The requests to the kind (not Events) sent so far: method, the path after the
    /// namespace's, and the answer's status code.
    fn requests(&self) -> Vec<(String, String, u16)> {
        let prefix = format!(
            "/apis/example.com/v1/namespaces/{}/{}/",
            self.env.namespace,
            K::plural(&())
        );
        self.requests
            .all()
            .into_iter()
            .filter_map(|r: Received| {
                let path = r.path.strip_prefix(&prefix)?.to_owned();
                Some((r.method, path, r.status.unwrap_or_default()))
            })
            .collect()
    }
}

fn condition<'a>(object: &'a Value, type_: &str) -> &'a Value {
    object["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == type_))
        .unwrap_or(&Value::Null)
}

fn json_of(object: &impl Serialize) -> Value {
    serde_json::to_value(object).expect("JSON")
}

fn patch(path: &str, code: u16) -> (String, String, u16) {
    ("PATCH".to_owned(), path.to_owned(), code)
}

/// A kind whose CRD serves no status subresource keeps its status in the main resource,
/// where every change of the status moves `metadata.generation`: the chokepoint writes the
/// main resource once, stamps the generation that write gives the object, and then sends
/// nothing, across reconcilers too; a change of the spec is one more write.
#[tokio::test(start_paused = true)]
async fn a_kind_without_a_status_subresource_is_written_once_then_never() {
    let harness = Harness::<PlainWidget>::new(without_status_subresource(PlainWidget::crd())).await;
    let created = harness.create("p1").await;
    assert_eq!(created.metadata.generation, Some(1));

    harness
        .reconcile("p1", |w| *w.endpoint() = Some("10.0.0.1:80".into()))
        .await
        .expect("written");
    assert_eq!(harness.requests(), [patch("p1", 200)], "the main resource");
    let stored = json_of(&harness.stored("p1").await);
    assert_eq!(stored["metadata"]["generation"], 2, "the write moved it");
    assert_eq!(stored["status"]["observedGeneration"], 2);
    assert_eq!(stored["status"]["endpoint"], "10.0.0.1:80");
    for type_ in ["Ready", "Reconciling", "Stalled"] {
        assert_eq!(
            condition(&stored, type_)["observedGeneration"],
            2,
            "{type_}"
        );
    }
    assert_eq!(condition(&stored, "Ready")["status"], "True");
    // kstatus reads it as current.
    let result = kondition::kstatus::compute(&stored);
    assert_eq!(
        result.status,
        kondition::kstatus::KStatus::Current,
        "{result:?}"
    );
    let written = harness.stored("p1").await.resource_version();

    for _ in 0..20 {
        harness
            .reconcile("p1", |w| *w.endpoint() = Some("10.0.0.1:80".into()))
            .await
            .expect("nothing to write");
    }
    assert_eq!(harness.requests().len(), 1, "{:?}", harness.requests());
    // A new reconciler (a restarted operator) remembers nothing and needs nothing.
    let restarted = Harness::<PlainWidget>::reconciler(&harness.env, harness.env.client.clone());
    let object = harness.stored("p1").await;
    restarted
        .reconcile(Arc::new(object), async |w: &mut PlainWidget| {
            *w.endpoint() = Some("10.0.0.1:80".into());
            Ok::<(), Failure>(())
        })
        .await
        .expect("nothing to write");
    assert_eq!(harness.requests().len(), 1);
    assert_eq!(harness.stored("p1").await.resource_version(), written);

    // The spec changes (generation 3): one write, which makes it 4.
    harness
        .api()
        .patch(
            "p1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 2}})),
        )
        .await
        .expect("spec changed");
    harness
        .reconcile("p1", |w| *w.endpoint() = Some("10.0.0.1:80".into()))
        .await
        .expect("written");
    harness
        .reconcile("p1", |w| *w.endpoint() = Some("10.0.0.1:80".into()))
        .await
        .expect("nothing to write");
    assert_eq!(harness.requests(), [patch("p1", 200), patch("p1", 200)]);
    let stored = json_of(&harness.stored("p1").await);
    assert_eq!(
        (
            &stored["metadata"]["generation"],
            &stored["status"]["observedGeneration"]
        ),
        (&json!(4), &json!(4))
    );
    assert_eq!(stored["spec"]["size"], 2, "the spec is the user's");
    // The write owns the status only.
    let owned: Vec<Value> = stored["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["manager"] == PlainWidget::field_owner().as_ref())
        .map(|m| m["fieldsV1"].clone())
        .collect();
    assert_eq!(owned.len(), 1, "{owned:?}");
    let fields: Vec<&String> = owned[0]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(fields, ["f:status"], "{owned:?}");
}

/// On the main resource an apply to a missing object creates it, `resourceVersion` or not:
/// every write of a kind without a status subresource carries the object's uid, so that a
/// status computed from a copy of an object deleted since, or deleted and created again
/// under the same name, never lands: the API server answers 409 `uid mismatch` or 422
/// `metadata.uid: field is immutable`, read as the object gone (no fallback, no Event, no
/// error, forgotten). The reconciler's identity may create the kind (the harness's admin).
#[tokio::test(start_paused = true)]
async fn a_write_for_a_deleted_or_recreated_object_never_lands() {
    let harness = Harness::<PlainWidget>::new(without_status_subresource(PlainWidget::crd())).await;
    harness.create("p1").await;
    let copy = harness.stored("p1").await;
    harness
        .api()
        .delete("p1", &Default::default())
        .await
        .expect("deleted");
    let write = async |copy: &PlainWidget| {
        harness
            .reconciler
            .reconcile(Arc::new(copy.clone()), async |w: &mut PlainWidget| {
                *w.endpoint() = Some("10.0.0.1:80".into());
                Ok::<(), Failure>(())
            })
            .await
    };
    let action = write(&copy).await.expect("gone is no error");
    assert_eq!(action, Action::await_change());
    assert_eq!(
        harness.requests(),
        [patch("p1", 409)],
        "refused, not created"
    );
    let found = harness.api().get_opt("p1").await.expect("a read");
    assert!(found.is_none(), "not created again: {found:?}");

    // Created again under the same name: the old copy's status does not land on it.
    harness.create("p1").await;
    let again = harness.stored("p1").await;
    assert_ne!(again.uid(), copy.uid());
    let action = write(&copy).await.expect("gone is no error");
    assert_eq!(action, Action::await_change());
    let requests = harness.requests();
    assert_eq!(
        requests[1..],
        [patch("p1", 409), ("GET".to_owned(), "p1".to_owned(), 200)],
        "the precondition's 409, then the read that finds another object"
    );
    let stored = harness.stored("p1").await;
    assert_eq!(
        stored.resource_version(),
        again.resource_version(),
        "untouched"
    );
    assert!(json_of(&stored).get("status").is_none());
    assert!(harness.events().await.is_empty(), "no Event");
    assert_eq!(harness.reconciler.tracked_objects(), 0, "forgotten");
}

/// A second controller (`field_manager`) writes on `/status`, where the API server drops a
/// uid from the body: its writes carry the `resourceVersion` read, so that one computed from
/// a copy of an object deleted, or deleted and created again under the same name, never
/// lands; a 409 is followed by a read-back, which tells a re-created object (another uid:
/// gone) from the same object another manager wrote meanwhile (the same body sent again at
/// the version now stored, and it lands).
#[tokio::test(start_paused = true)]
async fn a_second_controllers_write_never_lands_on_a_recreated_object() {
    let harness = Harness::<CheckedWidget>::new(CheckedWidget::crd()).await;
    let checker = StatusReconciler::<CheckedWidget>::new(harness.env.client.clone())
        .requeue_policy(POLICY)
        .field_manager("example.com/health-checker")
        .summary("Healthy", "Checked");
    let check = async |copy: &CheckedWidget| {
        checker
            .reconcile(Arc::new(copy.clone()), async |_: &mut CheckedWidget| {
                Ok::<(), Failure>(())
            })
            .await
    };

    // Deleted: the write's 404, and the read that tells a deletion from a missing
    // subresource.
    harness.create("c1").await;
    let copy = harness.stored("c1").await;
    harness
        .api()
        .delete("c1", &Default::default())
        .await
        .expect("deleted");
    assert_eq!(check(&copy).await.expect("gone"), Action::await_change());
    assert_eq!(
        harness.requests(),
        [
            patch("c1/status", 404),
            ("GET".to_owned(), "c1".to_owned(), 404)
        ]
    );

    // Created again under the same name: the precondition's 409, and the read that finds
    // another object. Nothing lands on it.
    harness.create("c1").await;
    let again = harness.stored("c1").await;
    assert_ne!(again.uid(), copy.uid());
    harness.requests.clear();
    assert_eq!(check(&copy).await.expect("gone"), Action::await_change());
    assert_eq!(
        harness.requests(),
        [
            patch("c1/status", 409),
            ("GET".to_owned(), "c1".to_owned(), 200)
        ]
    );
    let stored = harness.stored("c1").await;
    assert_eq!(
        stored.resource_version(),
        again.resource_version(),
        "untouched"
    );
    assert!(json_of(&stored).get("status").is_none());
    assert_eq!(checker.tracked_objects(), 0, "forgotten");

    // The same object, written by another manager since the copy was read: the write goes
    // again at the version now stored, and both managers' conditions are kept.
    let copy = harness.stored("c1").await;
    let other = json!({
        "apiVersion": "example.com/v1",
        "kind": "CheckedWidget",
        "status": {"conditions": [{
            "type": "BackedUp", "status": "True", "reason": "Done", "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
        }]},
    });
    harness
        .api()
        .patch_status(
            "c1",
            &PatchParams::apply("example.com/backup-agent").force(),
            &Patch::Apply(&other),
        )
        .await
        .expect("another manager's condition");
    harness.requests.clear();
    check(&copy).await.expect("written");
    assert_eq!(
        harness.requests(),
        [
            patch("c1/status", 409),
            ("GET".to_owned(), "c1".to_owned(), 200),
            patch("c1/status", 200),
        ]
    );
    let stored = json_of(&harness.stored("c1").await);
    assert_eq!(condition(&stored, "Healthy")["status"], "True");
    assert_eq!(condition(&stored, "BackedUp")["status"], "True");
    assert_eq!(stored["metadata"]["uid"], json!(copy.uid()));
}

/// A kind declared with a status subresource whose installed CRD serves none: the API server
/// answers 404 to the status write, worded as for a deleted object. The object still exists,
/// so this is an error that says what is wrong, in an Event (once) and the reconcile's
/// error, backed off, never "deleted".
#[tokio::test(start_paused = true)]
async fn a_404_on_status_for_an_existing_object_is_an_error_not_a_deletion() {
    // The operator's rules follow its type (patch on lostwidgets/status): with the installed
    // CRD's (patch on lostwidgets), RBAC would refuse the write before it reaches the missing
    // subresource, a 403 reported as a status nothing of which can be written.
    let harness =
        Harness::<LostWidget>::as_declared(without_status_subresource(LostWidget::crd())).await;
    harness.create("l1").await;

    // Reconciles come as fast as watch events bring them; within the backoff they do
    // nothing at all. Each backoff step sends one write (and the read that tells the 404
    // from a deletion), then nothing until the next.
    let mut backoffs = Vec::new();
    for _ in 0..4 {
        let error = harness
            .reconcile("l1", |_| {})
            .await
            .expect_err("not written");
        assert_eq!(error.status_code(), Some(404));
        assert_eq!(error.class(), AnswerClass::NoStatusSubresource);
        let message = error.to_string();
        assert!(
            message.contains("serves no status subresource")
                && message.contains("status_subresource = false"),
            "{message}"
        );
        let backoff = error.backoff().expect("a backoff");
        backoffs.push(backoff);
        assert_eq!(
            error_policy(Arc::new(LostWidget::named("l1")), &error, Duration::ZERO),
            Action::requeue(backoff)
        );
        for _ in 0..10 {
            let action = harness
                .reconcile("l1", |_| {})
                .await
                .expect("nothing done within the backoff");
            assert_eq!(action, Action::requeue(backoff), "the clock is paused");
        }
        tokio::time::advance(backoff).await;
    }
    let secs = Duration::from_secs;
    assert_eq!(
        backoffs,
        [secs(1), secs(2), secs(4), secs(8)],
        "exponential"
    );
    // Each backoff step: the status write, then the read that finds the object still there.
    let one = [
        patch("l1/status", 404),
        ("GET".to_owned(), "l1".to_owned(), 200),
    ];
    assert_eq!(
        harness.requests(),
        one.iter().cycle().take(8).cloned().collect::<Vec<_>>()
    );
    assert_eq!(harness.reconciler.tracked_objects(), 1, "not forgotten");
    let events = harness.events().await;
    assert_eq!(events.len(), 1, "once per episode: {events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(
        events[0].reason.as_deref(),
        Some(REASON_STATUS_WRITE_FAILED)
    );
    let note = events[0].note.as_deref().unwrap_or_default();
    assert!(
        note.contains("no status subresource") && note.contains("status_subresource = false"),
        "the class and the fix: {note}"
    );

    // Deleted, it is gone: no error, and forgotten.
    let last_read = harness.stored("l1").await;
    harness
        .api()
        .delete("l1", &Default::default())
        .await
        .expect("deleted");
    let action = harness
        .reconciler
        .reconcile(Arc::new(last_read), async |_: &mut LostWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("gone is not an error");
    assert_eq!(action, Action::await_change());
    assert_eq!(harness.reconciler.tracked_objects(), 0, "forgotten");
}

/// The resource of a kind's admission policies (`admissionregistration.k8s.io/v1`), read
/// as dynamic objects.
fn admission(kind: &str) -> ApiResource {
    ApiResource::from_gvk(&GroupVersionKind::gvk(
        "admissionregistration.k8s.io",
        "v1",
        kind,
    ))
}

/// Applies an admission policy and its binding (cluster-wide objects, named after the kind
/// they are about).
async fn install_policy(admin: &kube::Client, kind: &str, name: &str, spec: Value) {
    let mut binding = json!({"policyName": name});
    if kind == "ValidatingAdmissionPolicy" {
        binding["validationActions"] = json!(["Deny"]);
    }
    for (kind, spec) in [(kind.to_owned(), spec), (format!("{kind}Binding"), binding)] {
        let resource = admission(&kind);
        let api: Api<DynamicObject> = Api::all_with(admin.clone(), &resource);
        let object = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                            "metadata": {"name": name}, "spec": spec});
        api.patch(
            name,
            &PatchParams::apply("kondition-tests").force(),
            &Patch::Apply(object),
        )
        .await
        .unwrap_or_else(|e| panic!("{kind} {name}: {e}"));
    }
}

/// Waits until `probe` (a dry-run write as the admin) says the policy is in force: the API
/// server loads new policies asynchronously. Bounded by a count of probes, each a round trip
/// to the server, with a pause of the real clock between them.
async fn until_in_force(mut probe: impl AsyncFnMut() -> bool) {
    for _ in 0..600 {
        if probe().await {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the admission policy never came in force");
}

/// A dry-run apply of `status` to `name`'s status, as the admin: the stored object's
/// status as the API server would make it, or its answer's code.
async fn dry_run<K: Kind>(api: &Api<K>, name: &str, status: Value) -> Result<Value, u16> {
    let body = json!({"apiVersion": K::api_version(&()), "kind": K::kind(&()),
                      "metadata": {"name": name}, "status": status});
    let params = PatchParams::apply("kondition-tests-probe")
        .force()
        .dry_run();
    match api.patch_status(name, &params, &Patch::Apply(body)).await {
        Ok(object) => Ok(json_of(&object)["status"].clone()),
        Err(kube::Error::Api(status)) => Err(status.code),
        Err(other) => panic!("{other}"),
    }
}

/// A ValidatingAdmissionPolicy that denies an endpoint `denied` on the kind's status, with
/// `reason` (none: the API server's default, 422 Invalid).
fn deny_policy(plural: &str, reason: Option<&str>) -> Value {
    let mut validation = json!({
        "expression": "!has(object.status) || !has(object.status.endpoint) || object.status.endpoint != 'denied'",
        "message": "the endpoint must not be denied",
    });
    if let Some(reason) = reason {
        validation["reason"] = json!(reason);
    }
    json!({
        "failurePolicy": "Fail",
        "matchConstraints": {"resourceRules": [{
            "apiGroups": ["example.com"], "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"], "resources": [format!("{plural}/status")]}]},
        "validations": [validation],
    })
}

/// A status an admission policy denies: the full apply is refused with `code`, the
/// conditions-only fallback lands (Ready False `StatusRejected`), one Warning Event; then
/// nothing more is sent until the backoff has passed, and each retry is one request.
async fn denied_by_a_policy<K: Kind>(reason: Option<&str>, code: u16) {
    let harness = Harness::<K>::new(K::crd()).await;
    let plural = K::plural(&()).into_owned();
    let name = format!("deny-{plural}");
    install_policy(
        &harness.env.admin,
        "ValidatingAdmissionPolicy",
        &name,
        deny_policy(&plural, reason),
    )
    .await;
    harness.create("d1").await;
    let api = harness.api();
    until_in_force(async || dry_run(&api, "d1", json!({"endpoint": "denied"})).await == Err(code))
        .await;

    let deny = |w: &mut K| *w.endpoint() = Some("denied".into());
    harness
        .reconcile("d1", deny)
        .await
        .expect("fallen back from");
    let owner = K::field_owner().into_owned();
    let sent: Vec<(String, u16)> = harness
        .requests
        .all()
        .iter()
        .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
        .map(|r| {
            (
                r.param("fieldManager").unwrap_or_default().to_owned(),
                r.status.unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        sent,
        [
            (owner.clone(), code),
            (kondition::controller::fallback_owner::<K>(), 200)
        ]
    );
    let stored = json_of(&harness.stored("d1").await);
    let ready = condition(&stored, "Ready");
    assert_eq!(
        (&ready["status"], &ready["reason"]),
        (&json!("False"), &json!(REASON_STATUS_REJECTED))
    );
    assert!(
        ready["message"]
            .as_str()
            .is_some_and(|m| m.contains("the endpoint must not be denied")),
        "{ready}"
    );
    assert_eq!(
        stored["status"].get("endpoint"),
        None,
        "the denied value is not stored"
    );

    // The reconciles the fallback's watch event and anything else cause before the backoff
    // has passed send nothing.
    let before = harness.requests().len();
    for _ in 0..20 {
        harness.reconcile("d1", deny).await.expect("nothing sent");
    }
    assert_eq!(harness.requests().len(), before, "{:?}", harness.requests());
    // Each backoff, one full apply: 1 s, 2 s, 4 s, 8 s, 16 s, 16 s.
    for wait in [1, 2, 4, 8, 16, 16] {
        harness.requests.clear();
        tokio::time::advance(Duration::from_secs(wait) - Duration::from_millis(1)).await;
        harness.reconcile("d1", deny).await.expect("nothing sent");
        assert_eq!(harness.requests(), [], "not before the backoff ({wait} s)");
        tokio::time::advance(Duration::from_millis(1)).await;
        harness.reconcile("d1", deny).await.expect("retried");
        assert_eq!(
            harness.requests(),
            [patch("d1/status", code)],
            "one full apply after {wait} s"
        );
    }
    let events = harness.events().await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    assert_eq!(events[0].reason.as_deref(), Some(REASON_STATUS_REJECTED));
}

#[tokio::test(start_paused = true)]
async fn a_validating_admission_policy_that_says_forbidden() {
    denied_by_a_policy::<DeniedWidget>(Some("Forbidden"), 403).await;
}

#[tokio::test(start_paused = true)]
async fn a_validating_admission_policy_that_says_invalid() {
    denied_by_a_policy::<InvalidWidget>(None, 422).await;
}

/// The first write, then 20 reconciles computing the same status: exactly one request.
async fn steady_after_one_write<K: Kind>(harness: &Harness<K>, set: impl Fn(&mut K) + Copy + Send) {
    harness.reconcile("s1", set).await.expect("written");
    assert_eq!(harness.requests(), [patch("s1/status", 200)]);
    let written = harness.stored("s1").await.resource_version();
    for _ in 0..20 {
        harness.reconcile("s1", set).await.expect("nothing to send");
    }
    assert_eq!(harness.requests().len(), 1, "{:?}", harness.requests());
    assert_eq!(harness.stored("s1").await.resource_version(), written);
}

/// A MutatingAdmissionPolicy overrides the endpoint the status sets: what is stored is never
/// what is sent, and the chokepoint sends it once, then nothing; a real change of the body
/// is still sent.
#[tokio::test(start_paused = true)]
async fn a_mutating_admission_policy_that_overrides_a_field() {
    let harness = Harness::<MutatedWidget>::new(MutatedWidget::crd()).await;
    install_policy(
        &harness.env.admin,
        "MutatingAdmissionPolicy",
        "mutate-mutatedwidgets",
        json!({
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "matchConstraints": {"resourceRules": [{
                "apiGroups": ["example.com"], "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"], "resources": ["mutatedwidgets/status"]}]},
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{status: Object.status{endpoint: \"mutated\"}}"}}],
        }),
    )
    .await;
    harness.create("s1").await;
    let api = harness.api();
    until_in_force(async || {
        dry_run(&api, "s1", json!({"endpoint": "mine"}))
            .await
            .is_ok_and(|status| status["endpoint"] == "mutated")
    })
    .await;

    steady_after_one_write(&harness, |w| *w.endpoint() = Some("mine".into())).await;
    assert_eq!(
        harness
            .stored("s1")
            .await
            .status
            .and_then(|s| s.endpoint)
            .as_deref(),
        Some("mutated")
    );
    harness.requests.clear();
    steady_after_one_write(&harness, |w| *w.endpoint() = Some("other".into())).await;
}

/// The CRD defaults `status.tier`, which the status struct leaves out (`None`, not
/// serialized): the stored status always has it, the computed one never; one write, then
/// nothing.
#[tokio::test(start_paused = true)]
async fn a_crd_default_on_a_field_left_out() {
    let harness = Harness::<DefaultedWidget>::new(with_tier_default(DefaultedWidget::crd())).await;
    harness.create("s1").await;
    steady_after_one_write(&harness, |w| {
        *w.endpoint() = Some("10.0.0.1:80".into());
        *w.tier() = None;
    })
    .await;
    assert_eq!(
        harness
            .stored("s1")
            .await
            .status
            .and_then(|s| s.tier)
            .as_deref(),
        Some("basic")
    );
}

/// The answer to a full apply that landed is lost: the reconcile fails (a transport error),
/// and the next one finds the status stored and sends nothing; the transition that write
/// made (Ready True) is still announced, once.
#[tokio::test]
async fn the_transition_of_a_write_whose_answer_was_lost_is_announced() {
    let env = TestEnv::new([without_status_subresource(PlainWidget::crd())]).await;
    let (client, faults) = faulty(env.client.clone());
    let reconciler = Harness::<PlainWidget>::reconciler(&env, client);
    let api: Api<PlainWidget> = Api::namespaced(env.admin.clone(), &env.namespace);
    api.create(&PostParams::default(), &PlainWidget::named("p1"))
        .await
        .expect("created");
    let reconcile = async || {
        let object = api.get("p1").await.expect("read");
        reconciler
            .reconcile(Arc::new(object), async |_: &mut PlainWidget| {
                Ok::<(), Failure>(())
            })
            .await
    };

    faults.next(|sent: &Sent| sent.method == "PATCH", Fault::LoseResponse);
    let error = reconcile().await.expect_err("the answer was lost");
    assert_eq!(error.status_code(), None, "{error}");
    let stored = json_of(&api.get("p1").await.expect("read"));
    assert_eq!(condition(&stored, "Ready")["status"], "True", "it landed");
    assert!(recorded_events(&env.admin, &env.namespace).await.is_empty());

    reconcile().await.expect("nothing to write");
    reconcile().await.expect("nothing to write");
    let writes: Vec<_> = faults
        .journal()
        .into_iter()
        .filter(|e| e.sent.method == "PATCH")
        .collect();
    assert_eq!(writes.len(), 1, "the lost write only");
    let events = recorded_events(&env.admin, &env.namespace).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].type_.as_deref(), Some("Normal"));
    assert_eq!(events[0].reason.as_deref(), Some("Succeeded"));
}

/// Text the API server's YAML reader refuses unescaped (DEL, C1 controls, U+FFFF) in the
/// status and in a condition's message: written as it is, in one request. Unescaped, the
/// server answered 400 to the status and to its fallback alike.
#[tokio::test(start_paused = true)]
async fn status_text_with_control_characters_is_written() {
    let harness = Harness::<LostWidget>::new(LostWidget::crd()).await;
    harness.create("c1").await;
    let text = "a\u{7f}b\u{80}c\u{9f}d\u{ffff}e";
    let object = harness.stored("c1").await;
    harness
        .reconciler
        .reconcile(Arc::new(object), async |w: &mut LostWidget| {
            *w.endpoint() = Some(text.to_owned());
            Err::<(), _>(Failure::retryable("CloudSaidNo", text))
        })
        .await
        .expect("written");
    assert_eq!(harness.requests(), [patch("c1/status", 200)]);
    let stored = harness.stored("c1").await;
    let status = stored.status.as_ref().expect("a status");
    assert_eq!(status.endpoint.as_deref(), Some(text));
    assert_eq!(
        status.conditions().get("Ready").map(|c| c.message.as_str()),
        Some(text)
    );
}

/// The transition Event itself is lost (the connection resets as it is posted): the next
/// reconcile, which finds the status stored and writes nothing, records it; then nothing
/// more.
#[tokio::test]
async fn a_transition_event_that_could_not_be_posted_is_posted_by_the_next_reconcile() {
    let env = TestEnv::new([LostWidget::crd()]).await;
    let (client, faults) = faulty(env.client.clone());
    let reporter = Reporter {
        controller: "widget-controller".into(),
        instance: None,
    };
    let reconciler = StatusReconciler::<LostWidget>::new(env.client.clone())
        .recorder(Recorder::new(client, reporter))
        .requeue_policy(POLICY);
    let api: Api<LostWidget> = Api::namespaced(env.admin.clone(), &env.namespace);
    api.create(&PostParams::default(), &LostWidget::named("e1"))
        .await
        .expect("created");
    let reconcile = async || {
        let object = api.get("e1").await.expect("read");
        reconciler
            .reconcile(Arc::new(object), async |_: &mut LostWidget| {
                Ok::<(), Failure>(())
            })
            .await
            .expect("written, or nothing to write")
    };

    faults.next(
        |sent: &Sent| sent.resource() == Some("events"),
        Fault::Reset,
    );
    reconcile().await;
    assert!(
        recorded_events(&env.admin, &env.namespace).await.is_empty(),
        "lost"
    );
    for _ in 0..3 {
        reconcile().await;
    }
    let events = recorded_events(&env.admin, &env.namespace).await;
    assert_eq!(
        events.len(),
        1,
        "posted once, by the next reconcile: {events:#?}"
    );
    assert_eq!(events[0].reason.as_deref(), Some("ReconciliationSuccess"));
    let writes = env.requests.writes();
    assert_eq!(
        writes
            .iter()
            .filter(|r| r.path.ends_with("/status"))
            .count(),
        1,
        "one status write"
    );
}

/// The derive route's CRD as the guide writes it: the summary condition's status and reason
/// as printer columns (kube's `printcolumn`, the columns `kondition generate` writes for the
/// CRD route), and `observedGeneration` as each condition's (non-negative, never null).
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "ListedWidget",
    namespaced,
    status = "ListedWidgetStatus",
    printcolumn = r#"{"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}"#,
    printcolumn = r#"{"name":"Reason","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].reason"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
pub struct ListedWidgetSpec {
    /// How big.
    pub size: i64,
}

/// The observed state of a ListedWidget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = ListedWidget, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct ListedWidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "kondition::observed_generation_schema")]
    pub observed_generation: Option<i64>,
}

/// `kubectl get` of a kind of the derive route shows the summary condition's status and
/// reason (the server's Table, as kubectl asks for it), and the server refuses a negative
/// `observedGeneration` as it does a condition's.
#[tokio::test(start_paused = true)]
async fn the_derive_routes_crd_lists_ready_and_keeps_the_generation_non_negative() {
    let crd = ListedWidget::crd();
    let schema = serde_json::to_value(&crd.spec.versions[0].schema).expect("JSON");
    let status = &schema["openAPIV3Schema"]["properties"]["status"];
    // As each condition's (the field's own description aside; kube writes the minimum as
    // a float).
    let generation = &status["properties"]["observedGeneration"];
    let of_conditions =
        &status["properties"]["conditions"]["items"]["properties"]["observedGeneration"];
    for field in ["type", "format", "minimum", "nullable"] {
        assert_eq!(
            generation.get(field),
            of_conditions.get(field),
            "{field}: {status:#}"
        );
    }
    assert_eq!(generation["minimum"].as_f64(), Some(0.0));
    assert_eq!(generation.get("nullable"), None);
    let env = TestEnv::new([crd]).await;
    let api: Api<ListedWidget> = env.api();
    let created = api
        .create(
            &PostParams::default(),
            &ListedWidget::new("l1", ListedWidgetSpec { size: 1 }),
        )
        .await
        .expect("created");
    StatusReconciler::<ListedWidget>::new(env.client.clone())
        .reconcile(Arc::new(created), async |_: &mut ListedWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");

    let url = format!(
        "/apis/example.com/v1/namespaces/{}/listedwidgets",
        env.namespace
    );
    let request = http::Request::get(url)
        .header(
            http::header::ACCEPT,
            "application/json;as=Table;v=v1;g=meta.k8s.io",
        )
        .body(Vec::new())
        .expect("a request");
    let table: Value = env.admin.request(request).await.expect("a Table");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(columns, ["Name", "Ready", "Reason", "Age"]);
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (&cells[0], &cells[1], &cells[2]),
        (
            &json!("l1"),
            &json!("True"),
            &json!("ReconciliationSuccess")
        )
    );

    let negative = json!({"apiVersion": "example.com/v1", "kind": "ListedWidget",
                          "status": {"observedGeneration": -1}});
    let refused = api
        .patch_status(
            "l1",
            &PatchParams::apply("someone").force(),
            &Patch::Apply(&negative),
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(&refused, kube::Error::Api(status) if status.code == 422
            && status.message.contains("status.observedGeneration")),
        "{refused}"
    );
}
