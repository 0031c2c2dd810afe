//! A kind generated from an existing CRD whose status has metav1 conditions and
//! observedGeneration (Cluster API's Cluster, `v1beta2`, in `generated/`) is driven by the
//! chokepoint like a hand-written one, against the API server's own validation of that CRD.

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::{Failure, KubeStatus, StatusResource};
use kondition_generated::cluster::v1beta2::{Cluster, ClusterStatus};
use kondition_tests::api_server::ApiServer;
use serde_json::{Value, json};

/// A Cluster as a user would write it, with a status another controller left (no
/// conditions yet, and a phase kondition must keep).
fn cluster() -> Cluster {
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "Cluster",
        "metadata": {"name": "c1", "namespace": "team-a", "generation": 3},
        "spec": {"paused": false},
        "status": {"phase": "Provisioning"}
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

#[tokio::test]
async fn the_chokepoint_drives_a_kind_generated_from_a_crd() {
    let cluster = cluster();
    let server = ApiServer::new(&cluster);
    StatusReconciler::<Cluster>::new(server.client())
        .reconcile(Arc::new(cluster), async |_: &mut Cluster| {
            Ok::<(), Failure>(())
        })
        .await
        .expect("status written");

    let requests = server.received();
    assert_eq!(requests.len(), 1, "one apply: {requests:?}");
    let stored = server.stored().expect("stored");
    let back: Cluster = serde_json::from_value(stored.clone()).expect("reads back");
    assert!(back.status.as_ref().is_some_and(ClusterStatus::is_ready));
    let expected = json!({
        "conditions": [{
            "type": "Ready",
            "status": "True",
            "lastTransitionTime": "<now>",
            "reason": "ReconciliationSuccess",
            "message": "",
            "observedGeneration": 3
        }],
        "observedGeneration": 3,
        "phase": "Provisioning"
    });
    // The status struct is the controller's: it applies the whole status it read, with the
    // standard profile's summary added, and the API server (validating against Cluster
    // API's own CRD) stores exactly that.
    for mut status in [requests[0].body["status"].clone(), stored["status"].clone()] {
        blank_time(&mut status);
        assert_eq!(status, expected);
    }
}

fn blank_time(status: &mut Value) {
    let time = &mut status["conditions"][0]["lastTransitionTime"];
    assert!(time.is_string(), "{time}");
    *time = json!("<now>");
}
