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
/// unchanged), and the server, validating against Cluster API's own CRD, holds both.
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

    let requests = env.requests.all();
    assert_eq!(requests.len(), 1, "one apply: {requests:?}");
    assert_eq!(requests[0].status, Some(200));
    assert_eq!(
        requests[0].body["metadata"]["resourceVersion"],
        json!(read.resource_version())
    );
    let ready = json!({
        "type": "Ready",
        "status": "True",
        "lastTransitionTime": "<now>",
        "reason": "ReconciliationSuccess",
        "message": "",
        "observedGeneration": 2
    });
    let mut sent = requests[0].body["status"].clone();
    blank_time(&mut sent);
    assert_eq!(
        sent,
        json!({"conditions": [ready], "observedGeneration": 2}),
        "the phase is the other controller's"
    );
    let stored = clusters.get_status("c1").await.expect("read back");
    assert!(stored.status.as_ref().is_some_and(ClusterStatus::is_ready));
    let mut status = serde_json::to_value(stored.status).expect("JSON");
    blank_time(&mut status);
    assert_eq!(
        status,
        json!({"conditions": [ready], "observedGeneration": 2, "phase": "Provisioning"})
    );
}

fn blank_time(status: &mut Value) {
    let time = &mut status["conditions"][0]["lastTransitionTime"];
    assert!(time.is_string(), "{time}");
    *time = json!("<now>");
}
