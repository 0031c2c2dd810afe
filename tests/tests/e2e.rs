//! End to end against a real cluster: runs only when `KUBECONFIG` is set, and says so when it
//! is skipped. It installs the example CRDs, creates a SecurityGroup, reconciles it once
//! through the status chokepoint, reads the status back, and cleans up.

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::profile::orc;
use kondition::{Failure, StatusResource};
use kondition_generated::securitygroup::v1alpha1::SecurityGroup;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client, ResourceExt};

#[tokio::test]
async fn reconcile_against_a_real_cluster() {
    if std::env::var_os("KUBECONFIG").is_none() {
        eprintln!("skipped: KUBECONFIG is not set, so there is no cluster to test against");
        return;
    }
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
