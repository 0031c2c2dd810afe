//! A kind generated from an existing CRD whose status has metav1 conditions and
//! observedGeneration (Cluster API's Cluster, `v1beta2`, in `generated/`) is driven by the
//! chokepoint like a hand-written one, on the real API server with that CRD installed (the
//! launcher of `kondition_tests::cluster`).

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::{Failure, KubeStatus, StatusResource};
use kondition_generated::cluster::v1beta2::{Cluster, ClusterStatus};
use kondition_tests::cluster::TestEnv;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// A Cluster as a user would write it.
fn cluster() -> Cluster {
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "Cluster",
        "metadata": {"name": "c1"},
        "spec": {"paused": false}
    }))
    .expect("a Cluster")
}

#[test]
fn the_generated_status_has_the_standard_accessors() {
    let mut status = ClusterStatus::default();
    assert_eq!(<ClusterStatus as KubeStatus>::CONDITION_TYPES, ["Ready"]);
    assert!(status.conditions().is_empty());
    status.set_observed_generation(4);
    assert_eq!(status.observed_generation, Some(4));
    // An absent list stays absent on the wire until a condition is set.
    assert_eq!(
        serde_json::to_value(&status).expect("JSON"),
        json!({"observedGeneration": 4})
    );
    assert_eq!(
        <Cluster as StatusResource>::field_owner(),
        "cluster.x-k8s.io/cluster-controller"
    );
}

/// The Cluster is created, its spec changed once (generation 2), and another controller
/// leaves a phase in its status; then one reconcile. The chokepoint applies the standard
/// profile's summary and observedGeneration and leaves the phase out (another manager's,
/// unchanged), and the server, validating against Cluster API's own CRD, holds both, each
/// owned by its manager. Reconciled again as stored, it sends nothing.
#[tokio::test]
async fn the_chokepoint_drives_a_kind_generated_from_a_crd() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    let clusters = env.api::<Cluster>();
    clusters
        .create(&PostParams::default(), &cluster())
        .await
        .expect("created");
    clusters
        .patch(
            "c1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"paused": true}})),
        )
        .await
        .expect("spec changed");
    clusters
        .patch_status(
            "c1",
            &PatchParams::apply("topology-controller"),
            &Patch::Apply(
                json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
                                 "metadata": {"name": "c1"},
                                 "status": {"phase": "Provisioning"}}),
            ),
        )
        .await
        .expect("the other controller's phase");
    let read = clusters.get_status("c1").await.expect("read");
    assert_eq!(read.metadata.generation, Some(2));

    StatusReconciler::<Cluster>::new(env.client.clone())
        .reconcile(Arc::new(read.clone()), async |_: &mut Cluster| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("status written");

    // One request: a forced server-side apply of the status under the kind's field owner,
    // only at the resourceVersion read, with the standard profile's summary and
    // observedGeneration, and not the phase (the other controller's).
    let requests = env.requests.all();
    assert_eq!(requests.len(), 1, "one apply: {requests:?}");
    let request = &requests[0];
    assert_eq!(request.status, Some(200));
    assert_eq!(request.method, "PATCH");
    assert_eq!(
        request.path,
        format!(
            "/apis/cluster.x-k8s.io/v1beta2/namespaces/{}/clusters/c1/status",
            env.namespace
        )
    );
    assert_eq!(request.content_type, "application/apply-patch+yaml");
    let mut query = request.query.clone();
    query.sort();
    assert_eq!(
        query,
        [
            (
                "fieldManager".to_owned(),
                "cluster.x-k8s.io/cluster-controller".to_owned()
            ),
            ("force".to_owned(), "true".to_owned())
        ]
    );
    let ready = json!({
        "type": "Ready",
        "status": "True",
        "lastTransitionTime": "<now>",
        "reason": "ReconciliationSuccess",
        "message": "",
        "observedGeneration": 2
    });
    let mut body = request.body.clone();
    blank_time(&mut body["status"]);
    assert_eq!(
        body,
        json!({
            "apiVersion": "cluster.x-k8s.io/v1beta2",
            "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": env.namespace,
                         "resourceVersion": read.resource_version()},
            "status": {"conditions": [ready], "observedGeneration": 2}
        })
    );
    let stored = clusters.get_status("c1").await.expect("read back");
    // Each manager owns what it applied: the controller the summary and observedGeneration,
    // the other the phase (and the spec its writer, an update).
    let owners: Vec<(String, Value)> = stored
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|entry| {
            (
                entry.manager.clone().unwrap_or_default(),
                serde_json::to_value(&entry.fields_v1).expect("JSON"),
            )
        })
        .collect();
    let condition_fields = json!({".": {}, "f:lastTransitionTime": {}, "f:message": {},
        "f:observedGeneration": {}, "f:reason": {}, "f:status": {}, "f:type": {}});
    assert_eq!(
        owners,
        [
            (
                "cluster.x-k8s.io/cluster-controller".to_owned(),
                json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": condition_fields},
                                    "f:observedGeneration": {}}})
            ),
            (
                "topology-controller".to_owned(),
                json!({"f:status": {"f:phase": {}}})
            ),
            (
                "unknown".to_owned(),
                json!({"f:spec": {".": {}, "f:paused": {}}})
            ),
        ]
    );
    assert!(stored.status.as_ref().is_some_and(ClusterStatus::is_ready));
    let mut status = serde_json::to_value(stored.status).expect("JSON");
    blank_time(&mut status);
    assert_eq!(
        status,
        json!({"conditions": [ready], "observedGeneration": 2, "phase": "Provisioning"})
    );

    // Reconciled again as stored: nothing to write, nothing sent.
    env.requests.clear();
    let stored = clusters.get_status("c1").await.expect("read back");
    StatusReconciler::<Cluster>::new(env.client.clone())
        .reconcile(Arc::new(stored.clone()), async |_: &mut Cluster| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("steady");
    assert!(env.requests.is_empty(), "{:?}", env.requests.all());
    let again = clusters.get_status("c1").await.expect("read again");
    assert_eq!(again.resource_version(), stored.resource_version());
}

/// The Ready condition's `lastTransitionTime` in `status`, checked to be a time in whole
/// seconds, UTC (`2026-01-02T03:04:05Z`), and blanked (it is "now").
fn blank_time(status: &mut Value) {
    let time = &mut status["conditions"][0]["lastTransitionTime"];
    assert!(
        time.as_str()
            .is_some_and(|t| t.len() == 20 && t.ends_with('Z') && !t.contains('.')),
        "{time}"
    );
    *time = json!("<now>");
}
