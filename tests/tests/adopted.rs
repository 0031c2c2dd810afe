//! Statuses that are not the standard one's shape, generated from their CRDs
//! (`kondition_tests::adopted`) and driven by the chokepoint on the real API server with
//! those CRDs installed:
//!
//! - NodePool's shape (the generation kept only on each condition, metav1 conditions without
//!   `severity`): a fixture written for these tests, and ORC's Router (real);
//! - Kafka's shape (`observedGeneration` on the status, conditions without one, an atomic
//!   list): a fixture, and Flux's Kustomization (real, an atomic list);
//! - KEDA's ScaledObject (real: conditions with only `type` and `status` required, no
//!   `lastTransitionTime`, no generation anywhere) and CloudNativePG's Cluster (real: metav1
//!   conditions in an atomic list, the generation only on each condition).
//!
//! Each test asserts the exact requests sent and what the server then holds, and that a
//! failure that persists writes once: a severity or a generation the schema has no place for
//! would be dropped by the server, seen missing by the next reconcile and written again.

#[path = "support/driven.rs"]
mod driven;

use std::path::PathBuf;
use std::sync::Arc;

use driven::{Driven, create, read, reconcile};

use kondition::controller::StatusReconciler;
use kondition::shape::{ConditionFields, ConditionsMerge, GenerationField, Presence};
use kondition::{Failure, KubeStatus, StatusResource, StatusShape};
use kondition_gen::emit::OutputFile;
use kondition_gen::output::diff_tree;
use kondition_gen::profile::Profiles;
use kondition_tests::adopted::kafka::v1beta2::{Kafka, KafkaStatus};
use kondition_tests::adopted::keda_sh_scaledobjects::v1alpha1::{ScaledObject, ScaledObjectStatus};
use kondition_tests::adopted::kustomize_toolkit_fluxcd_io_kustomizations::v1::{
    Kustomization, KustomizationStatus,
};
use kondition_tests::adopted::nodepool::v1::{NodePool, NodePoolStatus};
use kondition_tests::adopted::openstack_k_orc_cloud_routers::v1alpha1::{Router, RouterStatus};
use kondition_tests::adopted::postgresql_cnpg_io_clusters::v1::{
    Cluster as PgCluster, ClusterStatus,
};
use kondition_tests::cluster::TestEnv;
use kondition_tests::recording::Received;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The inputs of `tests/src/adopted/`, as its header names them (from `tests/`).
const INPUTS: [&str; 6] = [
    "../generator/tests/status_choices/nodepool.yaml",
    "../generator/tests/status_choices/kafka.yaml",
    "../corpus/k-orc/openstack.k-orc.cloud_routers.yaml",
    "../corpus/flux/kustomize.toolkit.fluxcd.io_kustomizations.yaml",
    "../corpus/keda/keda.sh_scaledobjects.yaml",
    "../corpus/cloudnative-pg/postgresql.cnpg.io_clusters.yaml",
];

/// `tests/src/adopted/` is what `kondition generate` writes for its inputs today.
#[test]
fn the_adopted_kinds_are_up_to_date() {
    let files: Vec<PathBuf> = INPUTS.iter().map(PathBuf::from).collect();
    let model = kondition_gen::load::load(
        &files,
        &Profiles::embedded(),
        &kondition_gen::crd::Options::default(),
    )
    .expect("the inputs load");
    let options = kondition_gen::emit::Options {
        inputs_relative_to: Some(PathBuf::from("src/adopted")),
    };
    let tree: Vec<OutputFile> = kondition_gen::emit::rust_tree(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        &options,
    )
    .expect("emits");
    let diff = diff_tree(std::path::Path::new("src/adopted"), &tree).expect("compares");
    assert!(
        diff.is_empty(),
        "tests/src/adopted is stale; from tests/, run `cargo run -p kondition-gen -- generate {} --out src/adopted`:\n{diff}",
        INPUTS.join(" ")
    );
}

/// The inputs of `tests/src/lean/`: those of `tests/src/adopted/`, and a schema-format kind
/// whose status holds types of its own (PromotionStrategy's environments).
const LEAN_INPUTS: [&str; 5] = [
    INPUTS[0],
    INPUTS[1],
    INPUTS[2],
    INPUTS[3],
    "../schemas/promotionstrategy.yaml",
];

/// `tests/src/lean/` is what `kondition generate --without-derive PartialEq,Eq,Hash,Default`
/// writes for its inputs today: the types a `KubeStatus` status holds keep `PartialEq`, the
/// status keeps `Default`, nothing else has either (reviewed when it changes).
#[test]
fn the_kinds_without_optional_derives_are_up_to_date() {
    let files: Vec<PathBuf> = LEAN_INPUTS.iter().map(PathBuf::from).collect();
    let model = kondition_gen::load::load(
        &files,
        &Profiles::embedded(),
        &kondition_gen::crd::Options::default(),
    )
    .expect("the inputs load");
    let plans = kondition_gen::analysis::Plans::new(
        &model,
        kondition_gen::Derive::ALL.into_iter().collect(),
    );
    let options = kondition_gen::emit::Options {
        inputs_relative_to: Some(PathBuf::from("src/lean")),
    };
    let tree = kondition_gen::emit::rust_tree(&model, &plans, &options).expect("emits");
    let diff = diff_tree(std::path::Path::new("src/lean"), &tree).expect("compares");
    assert!(
        diff.is_empty(),
        "tests/src/lean is stale; from tests/, run `cargo run -p kondition-gen -- generate --without-derive PartialEq,Eq,Hash,Default {} --out src/lean`:\n{diff}",
        LEAN_INPUTS.join(" ")
    );
}

/// The kinds generated without the derives that can be left out still are what kube's `Api`
/// and the status chokepoint ask of a kind: naming these functions compiles only if their
/// bounds hold.
#[test]
fn kinds_without_optional_derives_can_be_driven() {
    use kondition_tests::lean;
    fn drivable<K>()
    where
        K: StatusResource + Clone + std::fmt::Debug + Serialize + DeserializeOwned,
        K: Send + Sync + 'static,
    {
        let _ = StatusReconciler::<K>::new;
        let _ = Api::<K>::get;
        let _ = Api::<K>::patch_status::<Value>;
    }
    drivable::<lean::kafka::v1beta2::Kafka>();
    drivable::<lean::nodepool::v1::NodePool>();
    drivable::<lean::openstack_k_orc_cloud_routers::v1alpha1::Router>();
    drivable::<lean::kustomize_toolkit_fluxcd_io_kustomizations::v1::Kustomization>();
    drivable::<lean::promotionstrategy::v1alpha1::PromotionStrategy>();
    drivable::<lean::promotionstrategy::v1alpha1::ChangeTransferPolicy>();
}

/// Each kind's shape is its CRD's, as the generator read it.
#[test]
fn each_status_has_its_crds_shape() {
    let shape = |generation, merge, severity, observed_generation| StatusShape {
        generation,
        merge,
        fields: ConditionFields {
            severity,
            observed_generation,
            ..ConditionFields::STANDARD
        },
    };
    use ConditionsMerge::{Atomic, ByType};
    use GenerationField::{Conditions, Status};
    let metav1_on_conditions = shape(Conditions, ByType, false, true);
    assert_eq!(NodePoolStatus::SHAPE, metav1_on_conditions);
    assert_eq!(RouterStatus::SHAPE, metav1_on_conditions);
    assert_eq!(KafkaStatus::SHAPE, shape(Status, Atomic, false, false));
    assert_eq!(
        KustomizationStatus::SHAPE,
        shape(Status, Atomic, false, true)
    );
    assert_eq!(ClusterStatus::SHAPE, shape(Conditions, Atomic, false, true));
    assert_eq!(
        ScaledObjectStatus::SHAPE,
        StatusShape {
            generation: GenerationField::None,
            merge: Atomic,
            fields: ConditionFields {
                severity: false,
                observed_generation: false,
                reason: Presence::Optional,
                message: Presence::Optional,
                last_transition_time: Presence::Absent,
            },
        }
    );
}

/// The one request sent since the last clear: a forced status apply under `owner` at
/// `object`'s resourceVersion. Returns its status, the condition times blanked.
fn the_apply<K: Resource<DynamicType = ()>>(env: &TestEnv, object: &K, owner: &str) -> Value {
    let mut status = the_apply_as_sent(env, object, owner);
    blank_times(&mut status);
    status
}

/// [`the_apply`]'s status as it was sent, times and all.
fn the_apply_as_sent<K: Resource<DynamicType = ()>>(
    env: &TestEnv,
    object: &K,
    owner: &str,
) -> Value {
    let requests = env.requests.all();
    assert_eq!(requests.len(), 1, "one apply: {requests:#?}");
    let Received {
        method,
        path,
        content_type,
        body,
        status,
        ..
    } = &requests[0];
    assert_eq!((method.as_str(), *status), ("PATCH", Some(200)));
    let namespace = object.meta().namespace.as_deref();
    let name = object.meta().name.as_deref().unwrap_or_default();
    assert_eq!(
        path,
        &format!("{}/{name}/status", K::url_path(&(), namespace))
    );
    assert_eq!(content_type, "application/apply-patch+yaml");
    assert_eq!(requests[0].param("fieldManager"), Some(owner));
    assert_eq!(requests[0].param("force"), Some("true"));
    assert_eq!(
        body["metadata"]["resourceVersion"].as_str(),
        object.meta().resource_version.as_deref()
    );
    body["status"].clone()
}

/// Every condition's `lastTransitionTime` in `status` checked to be whole seconds in UTC and
/// blanked.
fn blank_times(status: &mut Value) {
    for condition in status["conditions"].as_array_mut().into_iter().flatten() {
        let time = &mut condition["lastTransitionTime"];
        assert!(
            time.as_str()
                .is_some_and(|t| t.len() == 20 && t.ends_with('Z') && !t.contains('.')),
            "{time}"
        );
        *time = json!("<time>");
    }
}

/// The status of `object` as JSON.
fn status_of<K: Serialize>(object: &K) -> Value {
    serde_json::to_value(object).expect("JSON")["status"].take()
}

/// The status the server holds, times blanked.
fn stored_status<K: Serialize>(object: &K) -> Value {
    let mut status = status_of(object);
    blank_times(&mut status);
    status
}

/// Reconciled with the same failure as stored: nothing sent, nothing changed.
async fn steady<K: Driven>(env: &TestEnv, api: &Api<K>, name: &str, failure: Option<Failure>) {
    let before: K = read(api, name).await;
    env.requests.clear();
    reconcile(env, &before, failure).await;
    assert!(env.requests.is_empty(), "{:#?}", env.requests.all());
    let after: K = read(api, name).await;
    assert_eq!(after.resource_version(), before.resource_version());
}

fn unreachable() -> Failure {
    Failure::retryable("Unreachable", "the API of the cloud did not answer")
}

/// Success, then a failure that persists, for a kind of NodePool's shape: the summary
/// carries the generation (the status has none of its own) and no severity (metav1's
/// conditions have none); the failure, reconciled again, writes nothing.
async fn drive_generation_on_conditions<K: Driven>(env: &TestEnv, api: &Api<K>, object: Value) {
    let created: K = create(api, object).await;
    let name = created.name_any();
    let owner = K::field_owner();
    env.requests.clear();
    reconcile(env, &created, None).await;
    let ready = json!({"type": "Ready", "status": "True", "lastTransitionTime": "<time>",
                       "reason": "ReconciliationSuccess", "message": "", "observedGeneration": 1});
    assert_eq!(
        the_apply(env, &created, &owner),
        json!({"conditions": [ready]})
    );
    let stored: K = read(api, &name).await;
    assert_eq!(stored_status(&stored), json!({"conditions": [ready]}));
    let status = stored.status().expect("a status");
    assert_eq!(status.observed_generation(), Some(1));
    steady(env, api, &name, None).await;

    // The failure: Ready False with the failure's reason; its Warning has no place.
    env.requests.clear();
    reconcile(env, &stored, Some(unreachable())).await;
    let not_ready = json!({"type": "Ready", "status": "False", "lastTransitionTime": "<time>",
                           "reason": "Unreachable",
                           "message": "the API of the cloud did not answer",
                           "observedGeneration": 1});
    assert_eq!(
        the_apply(env, &stored, &owner),
        json!({"conditions": [not_ready]})
    );
    let failed: K = read(api, &name).await;
    assert_eq!(stored_status(&failed), json!({"conditions": [not_ready]}));
    // Persisting, twice: nothing more is written, even past the second of the transition (a
    // time stamped again would then differ and be written).
    let stamped =
        serde_json::from_value(status_of(&failed)["conditions"][0]["lastTransitionTime"].clone())
            .expect("a lastTransitionTime");
    kondition_tests::cluster::past_the_second_of(&stamped).await;
    steady(env, api, &name, Some(unreachable())).await;
    steady(env, api, &name, Some(unreachable())).await;
    let still: K = read(api, &name).await;
    assert_eq!(
        status_of(&still),
        status_of(&failed),
        "lastTransitionTime kept"
    );
}

#[tokio::test]
async fn a_nodepool_shaped_status_is_driven() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let name = format!("pool-{}", env.namespace);
    let object = json!({"apiVersion": "pools.example.com/v1", "kind": "NodePool",
                        "metadata": {"name": name}, "spec": {"weight": 10}});
    let pools = Api::<NodePool>::all(env.admin.clone());
    drive_generation_on_conditions(&env, &pools, object).await;
    pools
        .delete(&name, &Default::default())
        .await
        .expect("deleted");
}

/// Where the generation lives only on conditions, every condition the controller writes
/// carries the generation of its reconcile: one the body sets (not only the summary), and one
/// it owns when a later generation keeps it; another manager's condition keeps its own.
#[tokio::test]
async fn conditions_the_body_sets_carry_the_generation_where_it_lives_on_conditions() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let name = format!("pool-{}", env.namespace);
    let pools = Api::<NodePool>::all(env.admin.clone());
    let created: NodePool = create(
        &pools,
        json!({"apiVersion": "pools.example.com/v1", "kind": "NodePool",
               "metadata": {"name": name}, "spec": {"weight": 10}}),
    )
    .await;
    let reconciler = StatusReconciler::<NodePool>::new(env.client.clone());
    let healthy = || {
        kondition::Condition::new(
            "InstancesHealthy",
            kondition::ConditionStatus::True,
            "AllHealthy",
        )
    };
    let reconcile = async |object: NodePool| {
        reconciler
            .reconcile(Arc::new(object), async |pool: &mut NodePool| {
                pool.status_or_insert().conditions_mut().set(healthy());
                Ok::<(), Failure>(())
            })
            .await
            .expect("status written");
    };
    let generations = |pool: &NodePool| -> Vec<(String, Value)> {
        status_of(pool)["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let type_ = c["type"].as_str().unwrap_or_default().to_owned();
                (type_, c["observedGeneration"].clone())
            })
            .collect()
    };

    reconcile(created).await;
    let first = read(&pools, &name).await;
    assert_eq!(
        generations(&first),
        [
            ("InstancesHealthy".to_owned(), json!(1)),
            ("Ready".to_owned(), json!(1))
        ]
    );
    // Another manager adds a condition of its own, without a generation.
    pools
        .patch_status(
            &name,
            &PatchParams::apply("backup-agent"),
            &Patch::Apply(json!({"apiVersion": "pools.example.com/v1", "kind": "NodePool",
                "metadata": {"name": name},
                "status": {"conditions": [{"type": "BackedUp", "status": "True",
                    "reason": "Done", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})),
        )
        .await
        .expect("another manager's condition");
    // The spec changes: generation 2. The body sets the same InstancesHealthy: kept as the
    // controller's own, it says 2, as Ready does; BackedUp is left as its manager wrote it.
    pools
        .patch(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"weight": 20}})),
        )
        .await
        .expect("spec changed");
    reconcile(read(&pools, &name).await).await;
    let second = read(&pools, &name).await;
    assert_eq!(
        generations(&second),
        [
            ("InstancesHealthy".to_owned(), json!(2)),
            ("Ready".to_owned(), json!(2)),
            ("BackedUp".to_owned(), Value::Null)
        ]
    );
    // Steady: nothing more to write.
    env.requests.clear();
    reconcile(second.clone()).await;
    assert!(
        env.requests.writes().is_empty(),
        "{:?}",
        env.requests.writes()
    );
}

#[tokio::test]
async fn orcs_router_is_driven() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let object = json!({
        "apiVersion": "openstack.k-orc.cloud/v1alpha1", "kind": "Router",
        "metadata": {"name": "r1", "namespace": env.namespace},
        "spec": {"cloudCredentialsRef": {"cloudName": "openstack", "secretName": "clouds"},
                 "resource": {}}
    });
    drive_generation_on_conditions(&env, &env.api::<Router>(), object).await;
}

/// Kafka's shape: the list is one value, so the apply holds every condition read (another
/// manager's too, unchanged), the conditions carry neither severity nor generation, and
/// the status its observedGeneration. A list changed since the read is not overwritten.
#[tokio::test]
async fn a_kafka_shaped_status_is_driven() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let kafkas = env.api::<Kafka>();
    create::<Kafka>(
        &kafkas,
        json!({"apiVersion": "streams.example.com/v1beta2", "kind": "Kafka",
               "metadata": {"name": "k1", "namespace": env.namespace},
               "spec": {"replicas": 3}}),
    )
    .await;
    // Another manager's condition, first.
    let rebalance = json!({"type": "RebalanceReady", "status": "True",
                           "lastTransitionTime": "2026-01-02T03:04:05Z",
                           "reason": "Proposed", "message": "a proposal is ready"});
    kafkas
        .patch_status(
            "k1",
            &PatchParams::apply("cruise-control").force(),
            &Patch::Apply(
                json!({"apiVersion": "streams.example.com/v1beta2", "kind": "Kafka",
                                 "metadata": {"name": "k1"},
                                 "status": {"conditions": [rebalance]}}),
            ),
        )
        .await
        .expect("the other manager's condition");
    let read1: Kafka = read(&kafkas, "k1").await;
    env.requests.clear();
    reconcile(&env, &read1, None).await;
    let owner = Kafka::field_owner();
    let ready = json!({"type": "Ready", "status": "True", "lastTransitionTime": "<time>",
                       "reason": "ReconciliationSuccess", "message": ""});
    let mut rebalance_read = rebalance.clone();
    rebalance_read["lastTransitionTime"] = json!("<time>");
    assert_eq!(
        the_apply(&env, &read1, &owner),
        json!({"conditions": [rebalance_read, ready], "observedGeneration": 1})
    );
    let stored: Kafka = read(&kafkas, "k1").await;
    assert_eq!(
        stored_status(&stored),
        json!({"conditions": [rebalance_read, ready], "observedGeneration": 1})
    );
    let written: kondition::Condition =
        serde_json::from_value(rebalance.clone()).expect("a condition");
    assert_eq!(
        stored
            .status
            .as_ref()
            .and_then(|s| s.conditions().get("RebalanceReady")),
        Some(&written),
        "the other manager's condition as it wrote it"
    );
    steady(&env, &kafkas, "k1", None).await;

    // A failure: the whole list again, the other manager's condition unchanged in it (an
    // apply without it would delete it); persisting, nothing more.
    env.requests.clear();
    reconcile(&env, &stored, Some(unreachable())).await;
    let not_ready = json!({"type": "Ready", "status": "False", "lastTransitionTime": "<time>",
                           "reason": "Unreachable",
                           "message": "the API of the cloud did not answer"});
    assert_eq!(
        the_apply(&env, &stored, &owner),
        json!({"conditions": [rebalance_read, not_ready], "observedGeneration": 1})
    );
    steady(&env, &kafkas, "k1", Some(unreachable())).await;
    steady(&env, &kafkas, "k1", Some(unreachable())).await;

    // The other manager changes the list after the controller read it: the controller's
    // apply of its stale list is refused (409), and the other's change stays.
    let stale: Kafka = read(&kafkas, "k1").await;
    let mut changed = serde_json::to_value(&stale).expect("JSON")["status"]["conditions"].take();
    changed[0]["status"] = json!("False");
    changed[0]["reason"] = json!("Stale");
    kafkas
        .patch_status(
            "k1",
            &PatchParams::apply("cruise-control").force(),
            &Patch::Apply(
                json!({"apiVersion": "streams.example.com/v1beta2", "kind": "Kafka",
                                 "metadata": {"name": "k1"},
                                 "status": {"conditions": changed}}),
            ),
        )
        .await
        .expect("the other manager's change");
    let error = StatusReconciler::<Kafka>::new(env.client.clone())
        .reconcile(Arc::new(stale), async |_: &mut Kafka| Ok::<(), Failure>(()))
        .await
        .expect_err("a stale list is refused");
    assert!(error.is_conflict(), "{error}");
    let now: Kafka = read(&kafkas, "k1").await;
    let rebalance_now = now
        .status
        .as_ref()
        .and_then(|s| s.conditions().get("RebalanceReady"))
        .expect("still there");
    assert_eq!(rebalance_now.reason, "Stale");
}

/// KEDA's ScaledObject: conditions with only `type` and `status` required (`status` a free
/// string), an optional `reason` and `message`, no `lastTransitionTime`; an atomic list; no
/// generation anywhere. The chokepoint writes only what the schema holds (no time, no empty
/// message, no severity, no generation), once, then nothing; KEDA's own conditions go back
/// as KEDA wrote them, one whose status is no True, False or Unknown among them.
#[tokio::test]
async fn kedas_scaled_object_is_driven() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let scaled = env.api::<ScaledObject>();
    let identity = |status: Value| {
        json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
               "metadata": {"name": "web"}, "status": status})
    };
    create::<ScaledObject>(
        &scaled,
        json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
               "metadata": {"name": "web", "namespace": env.namespace},
               "spec": {"scaleTargetRef": {"name": "web"},
                        "triggers": [{"type": "cpu", "metadata": {"value": "50"}}]}}),
    )
    .await;
    // KEDA's operator's conditions: Active without a reason, Fallback with a status its
    // schema admits and kondition's `ConditionStatus` has no word for.
    let active = json!({"type": "Active", "status": "False"});
    let fallback = json!({"type": "Fallback", "status": "Probing", "reason": "Starting"});
    scaled
        .patch_status(
            "web",
            &PatchParams::apply("keda-operator").force(),
            &Patch::Apply(identity(json!({"conditions": [active, fallback],
                                          "hpaName": "keda-hpa-web"}))),
        )
        .await
        .expect("KEDA's conditions");
    let read1: ScaledObject = read(&scaled, "web").await;
    let status = read1.status.as_ref().expect("a status");
    assert_eq!(
        status.conditions().len(),
        1,
        "Active is a condition, Fallback is kept unread"
    );
    assert_eq!(KubeStatus::observed_generation(status), None);

    env.requests.clear();
    reconcile(&env, &read1, None).await;
    let owner = ScaledObject::field_owner();
    let ready = json!({"type": "Ready", "status": "True", "reason": "ReconciliationSuccess"});
    assert_eq!(
        the_apply_as_sent(&env, &read1, &owner),
        json!({"conditions": [active, fallback, ready]}),
        "the whole list, KEDA's as read, and nothing the schema lacks"
    );
    let stored: ScaledObject = read(&scaled, "web").await;
    assert_eq!(
        status_of(&stored),
        json!({"conditions": [active, fallback, ready], "hpaName": "keda-hpa-web"})
    );
    steady(&env, &scaled, "web", None).await;

    // A spec change: nothing in the status records a generation, so nothing is written.
    scaled
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"minReplicaCount": 2}})),
        )
        .await
        .expect("spec changed");
    steady(&env, &scaled, "web", None).await;

    // A failure: Ready False, its Warning and its time left out; persisting, nothing more.
    let before: ScaledObject = read(&scaled, "web").await;
    env.requests.clear();
    reconcile(&env, &before, Some(unreachable())).await;
    let not_ready = json!({"type": "Ready", "status": "False", "reason": "Unreachable",
                           "message": "the API of the cloud did not answer"});
    assert_eq!(
        the_apply_as_sent(&env, &before, &owner),
        json!({"conditions": [active, fallback, not_ready]})
    );
    steady(&env, &scaled, "web", Some(unreachable())).await;
    steady(&env, &scaled, "web", Some(unreachable())).await;
    let failed: ScaledObject = read(&scaled, "web").await;
    assert_eq!(
        status_of(&failed),
        json!({"conditions": [active, fallback, not_ready], "hpaName": "keda-hpa-web"})
    );
}

/// A reconcile's future is small whatever the kind's size: its state (several copies of the
/// object) lives on the heap. Pinned on a test thread's 2 MiB stack, the future of
/// CloudNativePG's Cluster, the largest adopted kind, overflowed it in a debug build.
#[tokio::test]
async fn a_reconciles_future_holds_no_copy_of_the_object() {
    let env = TestEnv::new([]).await;
    let reconciler = StatusReconciler::<PgCluster>::new(env.client.clone());
    let object: PgCluster = serde_json::from_value(json!({
        "apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
        "metadata": {"name": "pg"}, "spec": {"instances": 1}
    }))
    .expect("a cluster");
    let future = reconciler.reconcile(Arc::new(object), async |_: &mut PgCluster| {
        Ok::<(), Failure>(())
    });
    let size = std::mem::size_of_val(&future);
    assert!(
        size < std::mem::size_of::<PgCluster>(),
        "{size} bytes, a Cluster {}",
        std::mem::size_of::<PgCluster>()
    );
}

/// CloudNativePG's Cluster: metav1 conditions in an atomic list, the generation kept only on
/// each condition. A condition the body sets carries the reconcile's generation, as Ready
/// does, at creation and after a spec change; then nothing more is written.
#[tokio::test]
async fn cloudnative_pgs_cluster_carries_the_generation_on_the_conditions_the_body_sets() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let clusters = env.api::<PgCluster>();
    create::<PgCluster>(
        &clusters,
        json!({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
               "metadata": {"name": "pg", "namespace": env.namespace},
               "spec": {"instances": 3, "storage": {"size": "1Gi"}}}),
    )
    .await;
    let reconciler = StatusReconciler::<PgCluster>::new(env.client.clone());
    let reconcile = async |object: PgCluster| {
        reconciler
            .reconcile(Arc::new(object), async |cluster: &mut PgCluster| {
                let healthy = kondition::Condition::new(
                    "InstancesHealthy",
                    kondition::ConditionStatus::True,
                    "AllHealthy",
                );
                cluster.status_or_insert().conditions_mut().set(healthy);
                Ok::<(), Failure>(())
            })
            .await
            .expect("status written");
    };
    let owner = PgCluster::field_owner();
    let conditions = |generation: i64| {
        json!({"conditions": [
            {"type": "InstancesHealthy", "status": "True", "lastTransitionTime": "<time>",
             "reason": "AllHealthy", "message": "", "observedGeneration": generation},
            {"type": "Ready", "status": "True", "lastTransitionTime": "<time>",
             "reason": "ReconciliationSuccess", "message": "", "observedGeneration": generation},
        ]})
    };

    let created: PgCluster = read(&clusters, "pg").await;
    env.requests.clear();
    reconcile(created.clone()).await;
    assert_eq!(the_apply(&env, &created, &owner), conditions(1));
    let first: PgCluster = read(&clusters, "pg").await;
    assert_eq!(stored_status(&first), conditions(1));
    env.requests.clear();
    reconcile(first).await;
    assert!(
        env.requests.writes().is_empty(),
        "{:?}",
        env.requests.writes()
    );

    clusters
        .patch(
            "pg",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"instances": 5}})),
        )
        .await
        .expect("spec changed");
    let changed: PgCluster = read(&clusters, "pg").await;
    env.requests.clear();
    reconcile(changed.clone()).await;
    assert_eq!(the_apply(&env, &changed, &owner), conditions(2));
    let second: PgCluster = read(&clusters, "pg").await;
    assert_eq!(stored_status(&second), conditions(2));
    env.requests.clear();
    reconcile(second).await;
    assert!(
        env.requests.writes().is_empty(),
        "{:?}",
        env.requests.writes()
    );
}

/// Flux's Kustomization (an atomic list, metav1 conditions, observedGeneration) beside
/// Flux's own fields of the status, which the controller leaves alone.
#[tokio::test]
async fn fluxs_kustomization_is_driven() {
    let env = TestEnv::new(kondition_tests::adopted::crds()).await;
    let kustomizations = env.api::<Kustomization>();
    create::<Kustomization>(
        &kustomizations,
        json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
               "metadata": {"name": "apps", "namespace": env.namespace},
               "spec": {"interval": "5m", "prune": true,
                        "sourceRef": {"kind": "GitRepository", "name": "fleet"}}}),
    )
    .await;
    kustomizations
        .patch_status(
            "apps",
            &PatchParams::apply("kustomize-controller"),
            &Patch::Apply(json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
                                 "kind": "Kustomization", "metadata": {"name": "apps"},
                                 "status": {"lastAppliedRevision": "main@sha1:0123"}})),
        )
        .await
        .expect("flux's field");
    let read1: Kustomization = read(&kustomizations, "apps").await;
    env.requests.clear();
    reconcile(&env, &read1, Some(unreachable())).await;
    let not_ready = json!({"type": "Ready", "status": "False", "lastTransitionTime": "<time>",
                           "reason": "Unreachable",
                           "message": "the API of the cloud did not answer",
                           "observedGeneration": 1});
    assert_eq!(
        the_apply(&env, &read1, &Kustomization::field_owner()),
        json!({"conditions": [not_ready], "observedGeneration": 1})
    );
    let stored: Kustomization = read(&kustomizations, "apps").await;
    assert_eq!(
        stored_status(&stored),
        json!({"conditions": [not_ready], "lastAppliedRevision": "main@sha1:0123",
               "observedGeneration": 1})
    );
    steady(&env, &kustomizations, "apps", Some(unreachable())).await;
    steady(&env, &kustomizations, "apps", Some(unreachable())).await;
}
