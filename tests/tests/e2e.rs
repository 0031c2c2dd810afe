//! End to end against a real cluster. Ignored by default; with a cluster (kind or k3d, see the
//! README) and `KUBECONFIG` pointing at it:
//!
//! ```sh
//! KUBECONFIG=~/.kube/config cargo test -p kondition-tests --test e2e -- --ignored
//! ```
//!
//! It installs the example CRDs, creates a SecurityGroup, reconciles it once through the
//! status chokepoint, reads the status back, and cleans up. Run without `KUBECONFIG` it fails
//! and says why.

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::profile::orc;
use kondition::{Failure, StatusResource};
use kondition_generated::securitygroup::v1alpha1::SecurityGroup;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client, ResourceExt};

#[tokio::test]
#[ignore = "needs a cluster: KUBECONFIG=... cargo test -p kondition-tests --test e2e -- --ignored"]
async fn reconcile_against_a_real_cluster() {
    assert!(
        std::env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: this test needs a cluster (see the README: kind or k3d)"
    );
    let client = Client::try_default()
        .await
        .expect("a client from KUBECONFIG");
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(client.clone());
    for crd in kondition_generated::crds() {
        crds.patch(
            &crd.name_any(),
            &PatchParams::apply("kondition-e2e").force(),
            &Patch::Apply(&crd),
        )
        .await
        .expect("CRD applied");
    }
    // The API server serves a new CRD once it is Established: wait for that, not for a time.
    for crd in kondition_generated::crds() {
        await_condition(
            crds.clone(),
            &crd.name_any(),
            conditions::is_crd_established(),
        )
        .await
        .expect("CRD established");
    }

    let groups: Api<SecurityGroup> = Api::namespaced(client.clone(), "default");
    let object: SecurityGroup = serde_json::from_value(serde_json::json!({
        "apiVersion": "openstack.k-orc.cloud/v1alpha1",
        "kind": "SecurityGroup",
        "metadata": {"name": "kondition-e2e", "namespace": "default"},
        "spec": {"cloudCredentialsRef": {"secretName": "openstack", "cloudName": "e2e"}, "managementPolicy": "managed", "resource": {}}
    }))
    .expect("object");
    let _ = groups
        .delete("kondition-e2e", &DeleteParams::default())
        .await;
    let created = groups
        .create(&PostParams::default(), &object)
        .await
        .expect("created");

    // The generated status names the orc profile: Available summarises.
    let reconciler = StatusReconciler::<SecurityGroup>::new(client);
    reconciler
        .reconcile(Arc::new(created), async |group: &mut SecurityGroup| {
            let status = group.status_mut();
            status.id = Some("sg-e2e".into());
            for condition in orc::conditions(orc::MainResource::UpToDate, None) {
                status.conditions.set(condition);
            }
            Ok::<(), Failure>(())
        })
        .await
        .expect("status written");

    let stored = groups.get_status("kondition-e2e").await.expect("read back");
    let status = stored.status.expect("a status");
    assert_eq!(status.observed_generation, stored.metadata.generation);
    assert!(status.is_available());
    assert_eq!(status.id.as_deref(), Some("sg-e2e"));
    groups
        .delete("kondition-e2e", &DeleteParams::default())
        .await
        .expect("deleted");
}
