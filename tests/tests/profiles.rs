//! Every profile x every outcome through the real chokepoint, with nothing configured but
//! `StatusReconciler::new(client)`: the kind's profile alone decides the summary condition,
//! its reasons and the companions beside it. Each case checks the exact stored conditions
//! and what kstatus (kubectl wait, Helm, Flux) reads from the stored object. On the real API
//! server (the launcher of `kondition_tests::cluster`), each case in a namespace of its own;
//! the CRDs reject the endpoint `x` by a CEL rule.

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::controller::{CheckFuture, Next, PreCheck, PreReconcileCheck, StatusReconciler};
use kondition::kstatus::{self, KStatus};
use kondition::{Failure, KubeStatus};
use kondition_tests::cluster::TestEnv;
use kondition_tests::kinds::{
    AsoWidget, KnativeBatchWidget, KnativeWidget, KstatusWidget, OrcWidget, StandardWidget,
    StatusOnlyWidget, StatusOnlyWidgetStatus, TestKind,
};
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, CustomResourceExt};
use serde_json::{Value, json};

/// How the reconcile goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Success,
    Retryable,
    Fatal,
    Panic,
    Blocked,
    Rejected,
    /// An error that names no reason.
    Unnamed,
}

const CASES: [Case; 7] = [
    Case::Success,
    Case::Retryable,
    Case::Fatal,
    Case::Panic,
    Case::Blocked,
    Case::Rejected,
    Case::Unnamed,
];

/// Blocks every reconcile.
struct Paused;

impl<K: Send + Sync> PreReconcileCheck<K> for Paused {
    fn check<'a>(&'a self, _: &'a K, _: &'a Client, _: Next<'a, K>) -> CheckFuture<'a, PreCheck> {
        Box::pin(async { Ok(PreCheck::Block("the owner is paused".into())) })
    }
}

/// `crd` with a CEL rule on the status: the endpoint `x` is invalid (where the CRD has an
/// endpoint).
fn with_rule(crd: CustomResourceDefinition) -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(crd).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    if status["properties"].get("endpoint").is_some() {
        status["x-kubernetes-validations"] = json!([
            {"rule": "!has(self.endpoint) || self.endpoint != 'x'", "message": "must be host:port"}
        ]);
    }
    serde_json::from_value(crd).expect("a CRD")
}

/// The test kinds, all namespaced.
trait Namespaced: TestKind + kube::Resource<Scope = kube::core::NamespaceResourceScope> {}

impl<K: TestKind + kube::Resource<Scope = kube::core::NamespaceResourceScope>> Namespaced for K {}

/// A namespace of the test's own on the server, with one kind's CRD.
struct Cluster {
    env: TestEnv,
}

impl Cluster {
    async fn new(crd: CustomResourceDefinition) -> Self {
        Self {
            env: TestEnv::new([with_rule(crd)]).await,
        }
    }

    fn client(&self) -> Client {
        self.env.client.clone()
    }

    fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>,
    {
        Api::namespaced(self.env.admin.clone(), &self.env.namespace)
    }

    /// Creates `name` of kind `K` with `spec`.
    async fn create<K>(&self, name: &str, spec: Value)
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>
            + Clone
            + std::fmt::Debug
            + serde::Serialize
            + serde::de::DeserializeOwned,
    {
        let object: K = serde_json::from_value(json!({
            "apiVersion": K::api_version(&()), "kind": K::kind(&()),
            "metadata": {"name": name}, "spec": spec
        }))
        .expect("an object");
        self.api::<K>()
            .create(&PostParams::default(), &object)
            .await
            .expect("created");
    }

    async fn get<K>(&self, name: &str) -> K
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
    {
        self.api::<K>().get_status(name).await.expect("stored")
    }

    /// Status applies the server took.
    fn writes(&self) -> usize {
        self.env
            .requests
            .all()
            .iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .filter(|r| r.status.is_some_and(|s| (200..300).contains(&s)))
            .count()
    }
}

/// One reconcile of a new object of kind `K`; the stored object afterwards.
async fn reconcile_once<K: Namespaced>(case: Case) -> Value {
    let cluster = Cluster::new(K::crd()).await;
    cluster.create::<K>("w1", json!({"size": 3})).await;
    let mut reconciler = StatusReconciler::<K>::new(cluster.client());
    if case == Case::Blocked {
        reconciler = reconciler.pre_check(Paused);
    }
    let object: K = cluster.get("w1").await;
    reconciler
        .reconcile(
            Arc::new(object),
            async |object: &mut K| -> Result<(), Failure> {
                match case {
                    Case::Success | Case::Blocked => object.set_endpoint("10.0.0.7:443"),
                    Case::Rejected => object.set_endpoint("x"),
                    Case::Retryable => {
                        return Err(Failure::retryable("Throttled", "the cloud API is busy"));
                    }
                    Case::Fatal => return Err(Failure::fatal("InvalidSize", "size must be even")),
                    Case::Unnamed => return Err(Failure::retryable("", "the disk is full")),
                    Case::Panic => {
                        if object.meta().generation.is_some() {
                            panic!("the cloud SDK panicked");
                        }
                    }
                }
                Ok(())
            },
        )
        .await
        .expect("written");
    serde_json::to_value(cluster.get::<K>("w1").await).expect("JSON")
}

/// The stored conditions as `type status reason [severity]` lines, and what kstatus reads.
async fn outcome<K: Namespaced>(case: Case) -> (Vec<String>, KStatus) {
    let stored = reconcile_once::<K>(case).await;
    let object: K = serde_json::from_value(stored.clone()).expect("reads back");
    let conditions = object
        .status()
        .map(|s| {
            s.conditions()
                .iter()
                .map(|c| {
                    let line = format!("{} {} {}", c.type_, c.status, c.reason);
                    match c.severity {
                        kondition::Severity::None => line,
                        severity => format!("{line} {severity:?}"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    (conditions, kstatus::compute(&stored).status)
}

fn lines(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

/// The expected conditions and kstatus of every case, for a profile summarising into
/// `summary` with `success`.
async fn check_profile<K: Namespaced>(expected: &[(Case, &[&str], KStatus)]) {
    for (case, conditions, status) in expected {
        assert_eq!(
            outcome::<K>(*case).await,
            (lines(conditions), *status),
            "{} {case:?}",
            <K::Status as KubeStatus>::PROFILE.name
        );
    }
    assert_eq!(expected.len(), CASES.len(), "every case");
}

#[tokio::test]
async fn standard_reports_ready_with_its_reasons() {
    use KStatus::*;
    check_profile::<StandardWidget>(&[
        (
            Case::Success,
            &["Ready True ReconciliationSuccess"],
            Current,
        ),
        (
            Case::Retryable,
            &["Ready False Throttled Warning"],
            InProgress,
        ),
        (Case::Fatal, &["Ready False InvalidSize Error"], InProgress),
        (
            Case::Panic,
            &["Ready False ReconcilePanicked Warning"],
            InProgress,
        ),
        (
            Case::Blocked,
            &["Ready False ReconciliationBlocked Warning"],
            InProgress,
        ),
        (
            Case::Rejected,
            &["Ready False StatusRejected Warning"],
            InProgress,
        ),
        (
            Case::Unnamed,
            &["Ready False ReconciliationError Warning"],
            InProgress,
        ),
    ])
    .await;
}

#[tokio::test]
async fn aso_reports_ready_with_severity() {
    use KStatus::*;
    check_profile::<AsoWidget>(&[
        (Case::Success, &["Ready True Succeeded"], Current),
        (
            Case::Retryable,
            &["Ready False Throttled Warning"],
            InProgress,
        ),
        (Case::Fatal, &["Ready False InvalidSize Error"], InProgress),
        (
            Case::Panic,
            &["Ready False ReconcilePanicked Warning"],
            InProgress,
        ),
        (
            Case::Blocked,
            &["Ready False ReconciliationBlocked Warning"],
            InProgress,
        ),
        (
            Case::Rejected,
            &["Ready False StatusRejected Warning"],
            InProgress,
        ),
        (
            Case::Unnamed,
            &["Ready False ReconciliationError Warning"],
            InProgress,
        ),
    ])
    .await;
}

/// Knative's semantics: the summary never carries a severity (Knative reads none as Error
/// and writes none on its happy condition), whatever the outcome; with no dependents a
/// success is True.
#[tokio::test]
async fn knative_reports_ready_without_a_severity() {
    use KStatus::*;
    check_profile::<KnativeWidget>(&[
        (Case::Success, &["Ready True Succeeded"], Current),
        (Case::Retryable, &["Ready False Throttled"], InProgress),
        (Case::Fatal, &["Ready False InvalidSize"], InProgress),
        (Case::Panic, &["Ready False ReconcilePanicked"], InProgress),
        (
            Case::Blocked,
            &["Ready False ReconciliationBlocked"],
            InProgress,
        ),
        (Case::Rejected, &["Ready False StatusRejected"], InProgress),
        (
            Case::Unnamed,
            &["Ready False ReconciliationError"],
            InProgress,
        ),
    ])
    .await;
}

/// `knative_batch`: the same, Succeeded the happy condition (which kstatus does not read).
#[tokio::test]
async fn knative_batch_reports_succeeded_without_a_severity() {
    use KStatus::*;
    check_profile::<KnativeBatchWidget>(&[
        (Case::Success, &["Succeeded True Succeeded"], Current),
        (Case::Retryable, &["Succeeded False Throttled"], Current),
        (Case::Fatal, &["Succeeded False InvalidSize"], Current),
        (Case::Panic, &["Succeeded False ReconcilePanicked"], Current),
        (
            Case::Blocked,
            &["Succeeded False ReconciliationBlocked"],
            Current,
        ),
        (Case::Rejected, &["Succeeded False StatusRejected"], Current),
        (
            Case::Unnamed,
            &["Succeeded False ReconciliationError"],
            Current,
        ),
    ])
    .await;
}

/// kstatus knows neither Available nor Progressing: an `orc` object reads Current to it
/// whatever its conditions say (ORC's own design); the conditions carry the outcome.
#[tokio::test]
async fn orc_reports_available_and_progressing() {
    use KStatus::*;
    check_profile::<OrcWidget>(&[
        (
            Case::Success,
            &["Available True Success", "Progressing False Success"],
            Current,
        ),
        (
            Case::Retryable,
            &[
                "Available False Throttled Warning",
                "Progressing True Throttled",
            ],
            Current,
        ),
        (
            Case::Fatal,
            &[
                "Available False InvalidSize Error",
                "Progressing False InvalidSize",
            ],
            Current,
        ),
        (
            Case::Panic,
            &[
                "Available False ReconcilePanicked Warning",
                "Progressing True ReconcilePanicked",
            ],
            Current,
        ),
        (
            Case::Blocked,
            &[
                "Available False ReconciliationBlocked Warning",
                "Progressing True ReconciliationBlocked",
            ],
            Current,
        ),
        (
            Case::Rejected,
            &[
                "Available False StatusRejected Warning",
                "Progressing True StatusRejected",
            ],
            Current,
        ),
        (
            Case::Unnamed,
            &[
                "Available False ReconciliationError Warning",
                "Progressing True ReconciliationError",
            ],
            Current,
        ),
    ])
    .await;
}

#[tokio::test]
async fn kstatus_reads_current_in_progress_or_failed() {
    use KStatus::*;
    check_profile::<KstatusWidget>(&[
        (
            Case::Success,
            &[
                "Ready True Succeeded",
                "Reconciling False Succeeded",
                "Stalled False Succeeded",
            ],
            Current,
        ),
        (
            Case::Retryable,
            &[
                "Ready False Throttled Warning",
                "Reconciling True Throttled Warning",
                "Stalled False Progressing",
            ],
            InProgress,
        ),
        (
            Case::Fatal,
            &[
                "Ready False InvalidSize Error",
                "Reconciling False InvalidSize",
                "Stalled True InvalidSize Error",
            ],
            Failed,
        ),
        (
            Case::Panic,
            &[
                "Ready False ReconcilePanicked Warning",
                "Reconciling True ReconcilePanicked Warning",
                "Stalled False Progressing",
            ],
            InProgress,
        ),
        (
            Case::Blocked,
            &[
                "Ready False ReconciliationBlocked Warning",
                "Reconciling True ReconciliationBlocked Warning",
                "Stalled False Progressing",
            ],
            InProgress,
        ),
        (
            Case::Rejected,
            &[
                "Ready False StatusRejected Warning",
                "Reconciling True StatusRejected Warning",
                "Stalled False Progressing",
            ],
            InProgress,
        ),
        (
            Case::Unnamed,
            &[
                "Ready False ReconciliationError Warning",
                "Reconciling True ReconciliationError Warning",
                "Stalled False Progressing",
            ],
            InProgress,
        ),
    ])
    .await;
}

/// A kstatus kind that recovers: Stalled and Reconciling go back to False, and kstatus
/// follows from Failed to Current.
#[tokio::test]
async fn a_kstatus_kind_recovers_from_failed_to_current() {
    let cluster = Cluster::new(KstatusWidget::crd()).await;
    cluster
        .create::<KstatusWidget>("w1", json!({"size": 3}))
        .await;
    let reconciler = StatusReconciler::<KstatusWidget>::new(cluster.client());
    let mut seen = Vec::new();
    for fail in [true, true, false, false] {
        let object: KstatusWidget = cluster.get("w1").await;
        reconciler
            .reconcile(Arc::new(object), async |_: &mut KstatusWidget| {
                if fail {
                    return Err(Failure::fatal("InvalidSize", "size must be even"));
                }
                Ok(())
            })
            .await
            .expect("written");
        let stored = serde_json::to_value(cluster.get::<KstatusWidget>("w1").await).expect("JSON");
        seen.push(kstatus::compute(&stored).status);
    }
    use KStatus::*;
    assert_eq!(seen, [Failed, Failed, Current, Current]);
    // Two outcomes, two writes.
    assert_eq!(cluster.writes(), 2);
}

/// The profile's summary and success reason can be overridden per reconciler, and by the
/// derive (`summary = "..."`, `success_reason = "..."`).
#[tokio::test]
async fn summary_and_success_reason_can_be_overridden() {
    use kondition::{Conditions, KubeStatus};
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Mirror",
        namespaced,
        status = "MirrorStatus"
    )]
    pub struct MirrorSpec {
        pub url: String,
    }

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(
        resource = Mirror,
        profile = "kstatus",
        conditions(Synced),
        summary = "Synced",
        success_reason = "UpToDate"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct MirrorStatus {
        #[serde(default)]
        pub conditions: Conditions,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }

    let profile = <MirrorStatus as KubeStatus>::PROFILE;
    assert_eq!(
        (profile.name, profile.summary, profile.success_reason),
        ("kstatus", "Synced", "UpToDate")
    );
    let cluster = Cluster::new(Mirror::crd()).await;
    cluster
        .create::<Mirror>("m1", json!({"url": "https://example.com/repo.git"}))
        .await;
    let object: Mirror = cluster.get("m1").await;
    StatusReconciler::<Mirror>::new(cluster.client())
        .reconcile(Arc::new(object), async |_: &mut Mirror| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let stored: Mirror = cluster.get("m1").await;
    let mut conditions: Vec<_> = stored
        .status
        .iter()
        .flat_map(|s| s.conditions.iter())
        .map(|c| format!("{} {} {}", c.type_, c.status, c.reason))
        .collect();
    // The order is the chokepoint's; the names say it all.
    conditions.sort();
    assert_eq!(
        conditions,
        [
            "Reconciling False UpToDate",
            "Stalled False UpToDate",
            "Synced True UpToDate",
        ]
    );

    // And per reconciler, over the kind's profile.
    let cluster = Cluster::new(OrcWidget::crd()).await;
    cluster.create::<OrcWidget>("w1", json!({"size": 1})).await;
    let object: OrcWidget = cluster.get("w1").await;
    StatusReconciler::<OrcWidget>::new(cluster.client())
        .summary("SubResourcesReady", "AllReady")
        .reconcile(Arc::new(object), async |_: &mut OrcWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let stored: OrcWidget = cluster.get("w1").await;
    let status = stored.status.expect("status");
    assert_eq!(
        status.sub_resources_ready().map(|c| c.reason.as_str()),
        Some("AllReady")
    );
    assert_eq!(
        status.available(),
        None,
        "the overridden summary replaces Available"
    );
    assert!(!status.is_progressing());
}

/// Postpones every reconcile.
struct Maintenance;

impl<K: Send + Sync> PreReconcileCheck<K> for Maintenance {
    fn check<'a>(&'a self, _: &'a K, _: &'a Client, _: Next<'a, K>) -> CheckFuture<'a, PreCheck> {
        Box::pin(async { Ok(PreCheck::Postpone("maintenance until 02:00".into())) })
    }
}

/// A postponed reconcile is not work under way: the companions say done (False), with the
/// postponement's reason, and the requeue waits for the resync (the pre-checks' table).
#[tokio::test]
async fn a_postponed_reconcile_leaves_the_companions_false() {
    let cluster = Cluster::new(KstatusWidget::crd()).await;
    cluster
        .create::<KstatusWidget>("w1", json!({"size": 3}))
        .await;
    let object: KstatusWidget = cluster.get("w1").await;
    let action = StatusReconciler::<KstatusWidget>::new(cluster.client())
        .pre_check(Maintenance)
        .reconcile(Arc::new(object), async |_: &mut KstatusWidget| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    assert_eq!(
        action,
        kube::runtime::controller::Action::requeue(std::time::Duration::from_secs(600))
    );
    let stored: KstatusWidget = cluster.get("w1").await;
    let conditions: Vec<_> = stored
        .status
        .iter()
        .flat_map(|s| s.conditions.iter())
        .map(|c| format!("{} {} {} {}", c.type_, c.status, c.reason, c.message))
        .collect();
    assert_eq!(
        conditions,
        [
            "Ready False ReconciliationPostponed maintenance until 02:00",
            "Reconciling False ReconciliationPostponed maintenance until 02:00",
            "Stalled False ReconciliationPostponed maintenance until 02:00",
        ]
    );
}

/// A stored Ready False of 2020 with reason Throttled, then a reconcile that fails with
/// another reason: the stored Ready as `reason lastTransitionTime`.
async fn after_a_new_reason<K: Namespaced>() -> String {
    let cluster = Cluster::new(K::crd()).await;
    cluster.create::<K>("w1", json!({"size": 3})).await;
    // The status an earlier reconcile stored, under the controller's own field manager.
    cluster
        .api::<K>()
        .patch_status(
            "w1",
            &PatchParams::apply(&K::field_owner()).force(),
            &Patch::Apply(json!({
                "apiVersion": K::api_version(&()),
                "kind": K::kind(&()),
                "metadata": {"name": "w1"},
                "status": {
                    "observedGeneration": 1,
                    "conditions": [{
                        "type": "Ready", "status": "False", "reason": "Throttled",
                        "message": "the cloud API is busy", "severity": "Warning",
                        "observedGeneration": 1, "lastTransitionTime": "2020-01-01T00:00:00Z"
                    }]
                }
            })),
        )
        .await
        .expect("an earlier status");
    let object: K = cluster.get("w1").await;
    StatusReconciler::<K>::new(cluster.client())
        .reconcile(Arc::new(object), async |_: &mut K| {
            Err::<(), _>(Failure::retryable("QuotaExceeded", "the quota is used up"))
        })
        .await
        .expect("written");
    let stored = serde_json::to_value(cluster.get::<K>("w1").await).expect("JSON");
    let ready = &stored["status"]["conditions"][0];
    assert_eq!(ready["type"], "Ready");
    format!(
        "{} {}",
        ready["reason"].as_str().unwrap_or_default(),
        ready["lastTransitionTime"].as_str().unwrap_or_default()
    )
}

/// `transition_rule = "StatusOnly"` puts apimachinery's rule over the profile's: a new
/// reason with the same status keeps `lastTransitionTime`, where the profile's AnyChange
/// moves it.
#[tokio::test]
async fn the_transition_rule_can_be_overridden() {
    use kondition::TransitionRule;

    let profile = <StatusOnlyWidgetStatus as KubeStatus>::PROFILE;
    assert_eq!(
        (profile.name, profile.transition_rule),
        ("aso", TransitionRule::StatusOnly)
    );
    assert_eq!(
        after_a_new_reason::<StatusOnlyWidget>().await,
        "QuotaExceeded 2020-01-01T00:00:00Z"
    );
    let any_change = after_a_new_reason::<AsoWidget>().await;
    assert!(any_change.starts_with("QuotaExceeded "), "{any_change}");
    assert!(
        !any_change.ends_with(" 2020-01-01T00:00:00Z"),
        "AnyChange moves the time: {any_change}"
    );
}
