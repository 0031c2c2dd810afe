//! Conditions as knative.dev/pkg writes them (a free-text `severity`, a plain-string
//! `lastTransitionTime`: Tekton's PipelineRun, Knative Serving's Service) and as Azure Service
//! Operator declares them (a free-text `severity`), generated from the corpus's CRDs
//! (`kondition_tests::knative`) and driven by the chokepoint on the real API server with
//! those CRDs installed.
//!
//! Each test has another writer (Knative's, Tekton's or ASO's controller) leave conditions
//! with text kondition's typed fields cannot hold, then asserts the exact status the
//! chokepoint applies: the other writer's conditions as they were written, byte for byte;
//! the happy condition as knative.dev/pkg's `ConditionSet` computes it, with no severity
//! (Knative writes none, and reads none as Error); `lastTransitionTime` in RFC 3339 whole
//! seconds; then nothing more while nothing changes.

#[path = "support/driven.rs"]
mod driven;

use std::path::PathBuf;
use std::sync::Arc;

use driven::{Driven, create, read, reconcile};

use kondition::controller::StatusReconciler;
use kondition::{Failure, KubeStatus, StatusResource};
use kondition_gen::crd::Options;
use kondition_gen::crd::status::StatusChoice;
use kondition_gen::emit::OutputFile;
use kondition_gen::output::diff_tree;
use kondition_gen::profile::Profiles;
use kondition_tests::cluster::TestEnv;
use kondition_tests::knative::_300_pipelinerun::v1::PipelineRun;
use kondition_tests::knative::resources_azure_com_resourcegroups_extracted::v1api20200601storage::ResourceGroup;
use kondition_tests::knative::service::v1::Service;
use kondition_tests::recording::Received;
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams};
use serde::Serialize;
use serde_json::{Value, json};

/// The inputs of `tests/src/knative/` (from `tests/`).
const INPUTS: [&str; 3] = [
    "../corpus/tekton/300-pipelinerun.yaml",
    "../corpus/knative-serving/service.yaml",
    "../corpus/azure-service-operator/resources.azure.com_resourcegroups.extracted.yaml",
];

/// The choices `tests/src/knative/` is generated with, as the command line says them.
const CHOICES: &str = "--profile PipelineRun=knative_batch --profile Service=knative \
     --conditions Service=ConfigurationsReady,RoutesReady --profile ResourceGroup=aso";

/// `tests/src/knative/` is what `kondition generate` writes for its inputs today.
#[test]
fn the_knative_kinds_are_up_to_date() {
    let files: Vec<PathBuf> = INPUTS.iter().map(PathBuf::from).collect();
    let choice = |profile: &str, conditions: &[&str]| StatusChoice {
        profile: Some(profile.to_owned()),
        conditions: conditions.iter().map(|c| (*c).to_owned()).collect(),
        summary: None,
    };
    let mut options = Options::default();
    options
        .statuses
        .insert("PipelineRun".into(), choice("knative_batch", &[]));
    options.statuses.insert(
        "Service".into(),
        choice("knative", &["ConfigurationsReady", "RoutesReady"]),
    );
    options
        .statuses
        .insert("ResourceGroup".into(), choice("aso", &[]));
    let model = kondition_gen::load::load(&files, &Profiles::embedded(), &options)
        .expect("the inputs load");
    let emit = kondition_gen::emit::Options {
        inputs_relative_to: Some(PathBuf::from("src/knative")),
    };
    let tree: Vec<OutputFile> = kondition_gen::emit::rust_tree(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        &emit,
    )
    .expect("emits");
    let diff = diff_tree(std::path::Path::new("src/knative"), &tree).expect("compares");
    assert!(
        diff.is_empty(),
        "tests/src/knative is stale; from tests/, run `cargo run -p kondition-gen -- generate {} {CHOICES} --out src/knative`:\n{diff}",
        INPUTS.join(" ")
    );
}

/// The one request sent since the last clear: a forced status apply under the kind's field
/// owner. Returns its status as sent.
fn the_apply<K: Driven>(env: &TestEnv, object: &K) -> Value {
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
    let name = object.meta().name.as_deref().unwrap_or_default();
    assert_eq!(
        path,
        &format!(
            "{}/{name}/status",
            K::url_path(&(), object.meta().namespace.as_deref())
        )
    );
    assert_eq!(content_type, "application/apply-patch+yaml");
    assert_eq!(
        requests[0].param("fieldManager"),
        Some(K::field_owner().as_ref())
    );
    assert_eq!(requests[0].param("force"), Some("true"));
    body["status"].clone()
}

/// The condition of `type_` in `status`, its `lastTransitionTime` checked to be RFC 3339
/// whole seconds in UTC and removed.
fn written(status: &Value, type_: &str) -> Value {
    let mut condition = status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == type_)
        .cloned()
        .unwrap_or_else(|| panic!("{type_} in {status}"));
    let time = condition["lastTransitionTime"].take();
    assert!(
        time.as_str()
            .is_some_and(|t| t.len() == 20 && t.ends_with('Z') && !t.contains('.')),
        "{time}"
    );
    condition
        .as_object_mut()
        .map(|c| c.remove("lastTransitionTime"));
    condition
}

/// The status of `object` as JSON.
fn status_of<K: Serialize>(object: &K) -> Value {
    serde_json::to_value(object).expect("JSON")["status"].take()
}

/// Reconciled again, as the last time: nothing sent, nothing changed.
async fn steady<K: Driven>(env: &TestEnv, api: &Api<K>, name: &str, failure: Option<Failure>) {
    let before: K = read(api, name).await;
    env.requests.clear();
    reconcile(env, &before, failure).await;
    assert!(env.requests.is_empty(), "{:#?}", env.requests.all());
    let after: K = read(api, name).await;
    assert_eq!(after.resource_version(), before.resource_version());
    assert_eq!(status_of(&after), status_of(&before));
}

/// Another controller's apply of `conditions` (the list is atomic: the whole list) under
/// `manager`, with the status' other fields in `rest`.
async fn other_writer<K: Driven>(
    api: &Api<K>,
    identity: &Value,
    manager: &str,
    status: Value,
) -> K {
    let name = identity["metadata"]["name"].as_str().unwrap_or_default();
    let mut body = identity.clone();
    body["status"] = status;
    api.patch_status(
        name,
        &PatchParams::apply(manager).force(),
        &Patch::Apply(body),
    )
    .await
    .expect("the other writer's status");
    read(api, name).await
}

/// Knative Serving's Service under `knative`: Knative's controller leaves its dependents
/// (ConfigurationsReady True, RoutesReady False, both without a severity: Error to Knative)
/// and a False condition of free-text severity with a `lastTransitionTime` that is no time.
/// The chokepoint writes Ready as the ConditionSet computes it (False, RoutesReady's reason
/// and message: the Info-like condition decides nothing), without a severity, Knative's
/// conditions as written, and nothing more while nothing changes; when RoutesReady becomes
/// True, Ready is True; a failed reconcile writes no `"Error"`.
#[tokio::test]
async fn knative_servings_service_is_driven_with_knatives_semantics() {
    let env = TestEnv::new(kondition_tests::knative::crds()).await;
    let services = env.api::<Service>();
    create::<Service>(
        &services,
        json!({"apiVersion": "serving.knative.dev/v1", "kind": "Service",
               "metadata": {"name": "hello", "namespace": env.namespace},
               "spec": {"template": {"spec": {"containers": [{"image": "hello:1"}]}}}}),
    )
    .await;
    let identity = json!({"apiVersion": "serving.knative.dev/v1", "kind": "Service",
                          "metadata": {"name": "hello"}});
    let configurations = json!({"type": "ConfigurationsReady", "status": "True",
                                "lastTransitionTime": "2024-01-02T03:04:05Z"});
    let routes = |status: &str| {
        json!({"type": "RoutesReady", "status": status, "reason": "IngressNotConfigured",
               "message": "Ingress has not yet been reconciled.",
               "lastTransitionTime": "2024-01-02T03:04:06Z"})
    };
    let hint = json!({"type": "ScaleHint", "status": "False", "severity": "Major",
                      "reason": "Cold", "lastTransitionTime": "yesterday"});
    let read1: Service = other_writer(
        &services,
        &identity,
        "knative-serving",
        json!({"conditions": [configurations, hint, routes("False")], "url": "http://hello"}),
    )
    .await;
    let status = read1.status.as_ref().expect("a status");
    assert_eq!(status.conditions().len(), 3, "every item is a condition");
    assert_eq!(status.conditions().unread().count(), 0);

    env.requests.clear();
    reconcile(&env, &read1, None).await;
    let applied = the_apply(&env, &read1);
    let conditions = applied["conditions"].as_array().expect("a list");
    assert_eq!(
        conditions[..3],
        [configurations.clone(), hint.clone(), routes("False")],
        "Knative's conditions as written"
    );
    assert_eq!(
        written(&applied, "Ready"),
        json!({"type": "Ready", "status": "False", "reason": "IngressNotConfigured",
               "message": "Ingress has not yet been reconciled."}),
        "RoutesReady decides; no severity"
    );
    assert_eq!(applied["observedGeneration"], json!(1));
    let stored: Service = read(&services, "hello").await;
    assert_eq!(
        status_of(&stored)["conditions"][1],
        hint,
        "stored as written"
    );
    steady(&env, &services, "hello", None).await;

    // Knative's controller marks RoutesReady True, keeping the list as it read it.
    let mut list: Vec<Value> = status_of(&stored)["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    list[2] = routes("True");
    let read2: Service = other_writer(
        &services,
        &identity,
        "knative-serving",
        json!({"conditions": list, "url": "http://hello"}),
    )
    .await;
    env.requests.clear();
    reconcile(&env, &read2, None).await;
    let applied = the_apply(&env, &read2);
    assert_eq!(
        written(&applied, "Ready"),
        json!({"type": "Ready", "status": "True", "reason": "Succeeded"})
    );
    assert_eq!(applied["conditions"][1], hint);
    steady(&env, &services, "hello", None).await;

    // A failure the spec must fix: Ready False with the error's reason, and no severity
    // (Knative reads none as Error; it never writes the word).
    let fatal = || Failure::fatal("RevisionMissing", "the revision hello-1 is gone");
    let before: Service = read(&services, "hello").await;
    env.requests.clear();
    reconcile(&env, &before, Some(fatal())).await;
    let applied = the_apply(&env, &before);
    assert_eq!(
        written(&applied, "Ready"),
        json!({"type": "Ready", "status": "False", "reason": "RevisionMissing",
               "message": "the revision hello-1 is gone"})
    );
    steady(&env, &services, "hello", Some(fatal())).await;
}

/// Tekton's PipelineRun under `knative_batch`: Succeeded is the happy condition; with no
/// dependents declared, a successful reconcile makes it True, and Tekton's own condition of
/// free-text severity and a `lastTransitionTime` that is no time goes back as written. A
/// Succeeded the body sets on purpose (Unknown, Running) stands.
#[tokio::test]
async fn tektons_pipeline_run_is_driven_with_knatives_semantics() {
    let env = TestEnv::new(kondition_tests::knative::crds()).await;
    let runs = env.api::<PipelineRun>();
    create::<PipelineRun>(
        &runs,
        json!({"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
               "metadata": {"name": "build", "namespace": env.namespace},
               "spec": {"pipelineRef": {"name": "build"}}}),
    )
    .await;
    let identity = json!({"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
                          "metadata": {"name": "build"}});
    let tekton = json!({"type": "Resolved", "status": "True", "severity": "",
                        "reason": "Resolved", "lastTransitionTime": "not a time"});
    let read1: PipelineRun = other_writer(
        &runs,
        &identity,
        "tekton-pipelines-controller",
        json!({"conditions": [tekton]}),
    )
    .await;

    // The body sets Succeeded itself: Unknown while the run runs.
    env.requests.clear();
    StatusReconciler::<PipelineRun>::new(env.client.clone())
        .reconcile(
            Arc::new(read1.clone()),
            async move |run: &mut PipelineRun| {
                run.status_or_insert().conditions_mut().set(
                    kondition::Condition::new(
                        "Succeeded",
                        kondition::ConditionStatus::Unknown,
                        "Running",
                    )
                    .with_message("Tasks Completed: 0 (Failed: 0, Cancelled 0), Incomplete: 1"),
                );
                Ok::<(), Failure>(())
            },
        )
        .await
        .expect("status written");
    let applied = the_apply(&env, &read1);
    assert_eq!(
        applied["conditions"][0], tekton,
        "Tekton's condition as written"
    );
    assert_eq!(
        written(&applied, "Succeeded"),
        json!({"type": "Succeeded", "status": "Unknown", "reason": "Running",
               "message": "Tasks Completed: 0 (Failed: 0, Cancelled 0), Incomplete: 1"})
    );

    // Then the run is done: Succeeded True, no severity; steady.
    let read2: PipelineRun = read(&runs, "build").await;
    env.requests.clear();
    reconcile(&env, &read2, None).await;
    let applied = the_apply(&env, &read2);
    assert_eq!(applied["conditions"][0], tekton);
    assert_eq!(
        written(&applied, "Succeeded"),
        json!({"type": "Succeeded", "status": "True", "reason": "Succeeded"})
    );
    steady(&env, &runs, "build", None).await;
    let stored: PipelineRun = read(&runs, "build").await;
    assert_eq!(status_of(&stored)["conditions"][0], tekton);
}

/// ASO's ResourceGroup under `aso` (its storage version: the CRD converts the other through
/// ASO's webhook, which the test server has not): a free-text `severity` ASO's schema admits
/// is read and written back as it was; Ready follows kondition's semantics (Warning on a retryable
/// failure), the generation kept on each condition; steady after each.
#[tokio::test]
async fn asos_resource_group_keeps_free_text_severities() {
    let env = TestEnv::new(kondition_tests::knative::crds()).await;
    let groups = env.api::<ResourceGroup>();
    create::<ResourceGroup>(
        &groups,
        json!({"apiVersion": "resources.azure.com/v1api20200601storage", "kind": "ResourceGroup",
               "metadata": {"name": "rg", "namespace": env.namespace},
               "spec": {"location": "westeurope"}}),
    )
    .await;
    let identity = json!({"apiVersion": "resources.azure.com/v1api20200601storage",
                          "kind": "ResourceGroup", "metadata": {"name": "rg"}});
    let aso = json!({"type": "Quota", "status": "False", "severity": "Critical",
                     "reason": "QuotaExceeded",
                     "lastTransitionTime": "2024-01-02T03:04:05Z", "observedGeneration": 1});
    let read1: ResourceGroup = other_writer(
        &groups,
        &identity,
        "azureserviceoperator",
        json!({"conditions": [aso], "location": "westeurope"}),
    )
    .await;
    env.requests.clear();
    reconcile(&env, &read1, None).await;
    let applied = the_apply(&env, &read1);
    assert_eq!(
        written(&applied, "Ready"),
        json!({"type": "Ready", "status": "True", "reason": "Succeeded",
               "observedGeneration": 1})
    );
    let stored: ResourceGroup = read(&groups, "rg").await;
    let conditions = status_of(&stored)["conditions"].clone();
    assert!(
        conditions
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c == &aso),
        "ASO's condition as written: {conditions}"
    );
    steady(&env, &groups, "rg", None).await;

    let retry = || Failure::retryable("Throttled", "slow down");
    let before: ResourceGroup = read(&groups, "rg").await;
    env.requests.clear();
    reconcile(&env, &before, Some(retry())).await;
    let applied = the_apply(&env, &before);
    assert_eq!(
        written(&applied, "Ready"),
        json!({"type": "Ready", "status": "False", "severity": "Warning",
               "reason": "Throttled", "message": "slow down", "observedGeneration": 1})
    );
    steady(&env, &groups, "rg", Some(retry())).await;
    let stored: ResourceGroup = read(&groups, "rg").await;
    assert!(
        status_of(&stored)["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c == &aso)
    );
}
