//! End to end on the real API server (the launcher of `kondition_tests::cluster`): the example
//! kinds' CRDs installed and Established, a SecurityGroup created, reconciled once through
//! the status chokepoint, its status read back from the server.

use std::sync::Arc;

use kondition::controller::StatusReconciler;
use kondition::profile::orc;
use kondition::{Failure, StatusResource};
use kondition_generated::securitygroup::v1alpha1::SecurityGroup;
use kondition_tests::cluster::TestEnv;
use kube::api::PostParams;

#[tokio::test]
async fn a_security_group_is_reconciled_and_its_status_read_back() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    let groups = env.api::<SecurityGroup>();
    let object: SecurityGroup = serde_json::from_value(serde_json::json!({
        "apiVersion": "openstack.k-orc.cloud/v1alpha1",
        "kind": "SecurityGroup",
        "metadata": {"name": "e2e"},
        "spec": {"cloudCredentialsRef": {"secretName": "openstack", "cloudName": "e2e"},
                 "managementPolicy": "managed", "resource": {}}
    }))
    .expect("object");
    let created = groups
        .create(&PostParams::default(), &object)
        .await
        .expect("created");

    // The generated status names the orc profile: Available summarises.
    let reconciler = StatusReconciler::<SecurityGroup>::new(env.client.clone());
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

    let stored = groups.get_status("e2e").await.expect("read back");
    let status = stored.status.expect("a status");
    assert_eq!(status.observed_generation, stored.metadata.generation);
    assert!(status.is_available());
    assert_eq!(status.id.as_deref(), Some("sg-e2e"));
    let writes = env.requests.writes();
    assert_eq!(writes.len(), 1, "one status apply: {writes:#?}");
    assert_eq!(writes[0].status, Some(200));
}
