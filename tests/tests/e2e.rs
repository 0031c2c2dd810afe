//! End to end on the real API server (the launcher of `kondition_tests::cluster`): the example
//! kinds' CRDs installed and Established, a SecurityGroup reconciled once through the status
//! chokepoint and its status read back; then the example operator itself
//! (`runtime/examples/securitygroup_operator/operator.rs`, this very file of it) running as a
//! `kube::runtime::Controller` while the test plays the rest of the cluster: no controller
//! manager runs beside the API server, so the test reports the agents' Deployment rolled out
//! by writing its status, as the Deployment controller would. The operator runs as a
//! ServiceAccount bound to the ClusterRoles it ships (`clusterrole.yaml` beside it), the first
//! of which is checked to be exactly what `kondition::permissions` gives for its kind.
//!
//! `KONDITION_TEST_KUBECONFIG` runs it against a cluster of one's own (see the user guide,
//! `docs/guide/src/testing.md`).

#[path = "../../runtime/examples/securitygroup_operator/operator.rs"]
#[allow(dead_code, missing_docs)]
mod operator;

use std::sync::Arc;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use kondition::ConditionStatus;
use kondition::check::Checker;
use kondition::controller::StatusReconciler;
use kondition::profile::orc;
use kondition::{Failure, StatusResource};
use kondition_generated::securitygroup::v1alpha1::SecurityGroup;
use kondition_tests::cluster::TestEnv;
use kondition_tests::faults::faulty;
use kube::api::{ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::runtime::wait::{Condition, await_condition, conditions};
use kube::{Api, CustomResourceExt, ResourceExt};

/// The ClusterRoles the example operator ships, as its file has them.
const OPERATOR_ROLES: &str = "runtime/examples/securitygroup_operator/clusterrole.yaml";

/// A managed security group named `name` with no rules.
fn managed_group(name: &str) -> SecurityGroup {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "openstack.k-orc.cloud/v1alpha1",
        "kind": "SecurityGroup",
        "metadata": {"name": name},
        "spec": {"cloudCredentialsRef": {"secretName": "openstack", "cloudName": "e2e"},
                 "managementPolicy": "managed", "resource": {}}
    }))
    .expect("a security group")
}

/// The ClusterRoles of [`OPERATOR_ROLES`], in order.
fn operator_roles() -> Vec<ClusterRole> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(OPERATOR_ROLES);
    let text = std::fs::read_to_string(&path).expect("the operator's ClusterRoles");
    kondition_gen::source::yaml::parse(&text)
        .unwrap_or_else(|e| panic!("{OPERATOR_ROLES}: {e:?}"))
        .iter()
        .map(|document| {
            serde_json::from_value(document.to_json())
                .unwrap_or_else(|e| panic!("{OPERATOR_ROLES}: not a ClusterRole: {e}"))
        })
        .collect()
}

/// The operator's first ClusterRole is what kondition says the status chokepoint needs for
/// SecurityGroup, whose reconciler runs a finalizer: exactly, so that the operator's own
/// role can neither miss a rule kondition lists nor grant the chokepoint more.
#[test]
fn the_example_operator_ships_the_cluster_role_kondition_prints_for_its_kind() {
    let access =
        kondition::permissions::KindAccess::from_crd(&SecurityGroup::crd()).with_finalizer();
    let expected = kondition::permissions::cluster_role("securitygroup-operator-status", [&access]);
    let roles = operator_roles();
    assert_eq!(
        roles.len(),
        2,
        "the status role and the operator's own: {roles:#?}"
    );
    let json = |role: &ClusterRole| serde_json::to_value(role).expect("JSON");
    assert_eq!(
        json(&roles[0]),
        json(&expected),
        "{OPERATOR_ROLES} should start with:\n{}",
        kondition_gen::emit::yaml::to_yaml(&json(&expected))
    );
}

#[tokio::test]
async fn a_security_group_is_reconciled_and_its_status_read_back() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    let groups = env.api::<SecurityGroup>();
    let object: SecurityGroup = managed_group("e2e");
    let created = groups
        .create(&PostParams::default(), &object)
        .await
        .expect("created");

    // The generated status names the orc profile: Available summarises.
    let reconciler = StatusReconciler::<SecurityGroup>::new(env.client.clone());
    reconciler
        .reconcile(Arc::new(created), async |group: &mut SecurityGroup| {
            let status = group.status_or_insert();
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

/// Waits until `name` satisfies `condition`: a bound only so that a broken operator fails the
/// test instead of hanging it, far above what any machine needs (the wait is for watch
/// events, not for time).
async fn wait_for<K>(api: &Api<K>, name: &str, what: &str, condition: impl Condition<K>)
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
    K::DynamicType: Default + Eq + std::hash::Hash + Clone,
{
    let wait = await_condition(api.clone(), name, condition);
    match tokio::time::timeout(std::time::Duration::from_secs(600), wait).await {
        Ok(result) => {
            result.expect("the watch");
        }
        Err(_) => panic!("{name} never came to {what}"),
    }
}

/// The condition `type_` of a security group's status, if set.
fn condition_of(group: &SecurityGroup, type_: &str) -> Option<(ConditionStatus, String)> {
    let condition = group.status.as_ref()?.conditions.get(type_)?;
    Some((condition.status, condition.reason.clone()))
}

#[tokio::test]
async fn the_example_operator_runs_end_to_end() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    // The operator speaks as a ServiceAccount allowed what its ClusterRoles grant, no more.
    let rules: Vec<PolicyRule> = operator_roles()
        .into_iter()
        .flat_map(|role| role.rules.unwrap_or_default())
        .collect();
    let identity = env.identity("securitygroup-operator", rules).await;
    let operator = tokio::spawn(operator::run(
        operator::controller(&identity.client, Some(&env.namespace)),
        identity.client.clone(),
    ));
    let groups = env.api::<SecurityGroup>();
    let group: SecurityGroup = serde_json::from_value(serde_json::json!({
        "apiVersion": "openstack.k-orc.cloud/v1alpha1",
        "kind": "SecurityGroup",
        "metadata": {"name": "web"},
        "spec": {
            "cloudCredentialsRef": {"secretName": "openstack", "cloudName": "e2e"},
            "managementPolicy": "managed",
            "resource": {"rules": [
                {"description": "https", "remoteIPPrefix": "10.0.0.0/8", "protocol": "tcp",
                 "portRangeMin": 443, "portRangeMax": 443}
            ]}
        }
    }))
    .expect("a security group");
    groups
        .create(&PostParams::default(), &group)
        .await
        .expect("created");

    // Reconciled: the finalizer is on, the owned objects exist, and the agents' Deployment is
    // not rolled out (no controller manager), so SubResourcesReady is pending while the
    // security group itself is Available.
    wait_for(
        &groups,
        "web",
        "SubResourcesPending",
        |g: Option<&SecurityGroup>| {
            g.and_then(|g| condition_of(g, "SubResourcesReady"))
                == Some((ConditionStatus::False, "SubResourcesPending".into()))
        },
    )
    .await;
    let stored = groups.get_status("web").await.expect("read back");
    passes_the_checker(&env, "web").await;
    let status = stored.status.as_ref().expect("a status");
    assert_eq!(status.observed_generation, stored.metadata.generation);
    assert_eq!(
        condition_of(&stored, "Available"),
        Some((ConditionStatus::True, "Success".into()))
    );
    assert_eq!(
        condition_of(&stored, "Progressing"),
        Some((ConditionStatus::True, "Progressing".into())),
        "still working on its sub-resources"
    );
    assert!(status.id.as_deref().is_some_and(|id| id.starts_with("sg-")));
    assert_eq!(stored.finalizers(), [operator::FINALIZER]);
    let config_map = env
        .api::<ConfigMap>()
        .get("web-rules")
        .await
        .expect("the rules' ConfigMap");
    assert_eq!(
        config_map.owner_references()[0].uid,
        stored.uid().expect("a uid")
    );
    let message = &status
        .conditions
        .get("SubResourcesReady")
        .expect("set")
        .message;
    assert!(message.contains("Deployment 'web-agents'"), "{message}");

    // The test does what the Deployment controller would: the agents are rolled out. The
    // operator's watch of the Deployments it owns reconciles the group again.
    let deployments = env.api::<Deployment>();
    let agents = deployments.get("web-agents").await.expect("the agents");
    let generation = agents.metadata.generation.expect("a generation");
    let rolled_out = serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web-agents"},
        "status": {
            "observedGeneration": generation, "replicas": 1, "updatedReplicas": 1,
            "readyReplicas": 1, "availableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}
            ]
        }
    });
    deployments
        .patch_status(
            "web-agents",
            &PatchParams::apply("deployment-controller").force(),
            &Patch::Apply(&rolled_out),
        )
        .await
        .expect("the agents' status");
    wait_for(
        &groups,
        "web",
        "SubResourcesReady",
        |g: Option<&SecurityGroup>| {
            g.and_then(|g| condition_of(g, "SubResourcesReady"))
                == Some((ConditionStatus::True, "SubResourcesReady".into()))
        },
    )
    .await;
    let stored = groups.get_status("web").await.expect("read back");
    passes_the_checker(&env, "web").await;
    assert_eq!(
        condition_of(&stored, "Progressing"),
        Some((ConditionStatus::False, "Success".into())),
        "done"
    );

    // Deleted: the finalizer runs (the "cloud" resource goes), then the object is gone.
    groups
        .delete("web", &DeleteParams::default())
        .await
        .expect("deleted");
    wait_for(
        &groups,
        "web",
        "deletion",
        conditions::is_deleted(&stored.uid().expect("a uid")),
    )
    .await;
    operator.abort();
}

/// The object `name` as the server holds it (read as JSON, not through the generated type),
/// checked offline against the CRD installed for it, schema and CEL rules included: a status
/// the example operator wrote breaks no rule of the checker (`kondition::check`).
async fn passes_the_checker(env: &TestEnv, name: &str) {
    let resource = ApiResource::erase::<SecurityGroup>(&());
    let api: Api<DynamicObject> =
        Api::namespaced_with(env.admin.clone(), &env.namespace, &resource);
    let object = serde_json::to_value(api.get(name).await.expect("read back")).expect("JSON");
    let checker = kondition_generated::crds()
        .iter()
        .fold(Checker::new(), |checker, crd| checker.crd(crd));
    let found: Vec<String> = checker
        .check(&object)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found, Vec::<String>::new(), "{object:#}");
    // The checker does read this kind's schema: the same status with a word the CRD's enum
    // lacks is found at its place.
    let mut broken = object.clone();
    broken["status"]["conditions"][0]["status"] = "Yes".into();
    let found: Vec<String> = checker
        .check(&broken)
        .iter()
        .map(|v| v.path.clone())
        .collect();
    assert!(
        found.contains(&".status.conditions[0].status".to_owned()),
        "{found:?}"
    );
}

/// The observedGeneration of each status apply in `requests` (what each write was for).
fn status_writes(requests: &[kondition_tests::recording::Received]) -> Vec<i64> {
    requests
        .iter()
        .filter(|r| {
            r.is_write() && r.path.contains("/securitygroups/") && r.path.ends_with("/status")
        })
        .map(|r| {
            r.body["status"]["observedGeneration"]
                .as_i64()
                .unwrap_or_else(|| panic!("a full status apply: {:#?}", r.body))
        })
        .collect()
}

/// Changes the security group's spec (a new generation) and waits until its status reports
/// that generation reconciled.
async fn change_and_wait(groups: &Api<SecurityGroup>, generation: i64) {
    let rule = format!("10.{generation}.0.0/16");
    let patch = serde_json::json!({"spec": {"resource": {"rules": [
        {"description": "https", "remoteIPPrefix": rule, "protocol": "tcp",
         "portRangeMin": 443, "portRangeMax": 443}
    ]}}});
    let changed = groups
        .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("the spec changed");
    assert_eq!(changed.metadata.generation, Some(generation));
    wait_for(
        groups,
        "web",
        "its new generation reconciled",
        move |g: Option<&SecurityGroup>| {
            g.and_then(|g| g.status.as_ref())
                .and_then(|s| s.observed_generation)
                == Some(generation)
        },
    )
    .await;
}

/// Waits until the operator's Lease names `holder`.
async fn wait_for_holder(leases: &Api<Lease>, holder: &str) {
    let expected = holder.to_owned();
    wait_for(
        leases,
        operator::LEASE,
        &format!("held by {holder}"),
        move |l: Option<&Lease>| {
            l.and_then(|l| l.spec.as_ref())
                .and_then(|s| s.holder_identity.as_deref())
                == Some(expected.as_str())
        },
    )
    .await;
}

/// Waits until the server refuses `identity` to `verb` the operator's Lease (RBAC's caches
/// follow a changed role a moment later).
async fn wait_until_refused(identity: &kondition_tests::identity::Identity, verb: &str) {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let reviews: Api<SelfSubjectAccessReview> = Api::all(identity.unrecorded());
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                namespace: Some(identity.namespace.clone()),
                verb: Some(verb.to_owned()),
                group: Some("coordination.k8s.io".into()),
                resource: Some("leases".into()),
                name: Some(operator::LEASE.into()),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let refused = async {
        loop {
            let answer = reviews
                .create(&PostParams::default(), &review)
                .await
                .expect("a review");
            if !answer.status.is_some_and(|s| s.allowed) {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(600), refused)
        .await
        .unwrap_or_else(|_| panic!("{verb} on the Lease never refused"));
}

/// The example operator as several replicas under leader election (one shard): only the
/// replica holding the Lease reconciles; one that stops (its task ends: it gives the lease up)
/// hands over to another; one whose renewals the server refuses stops reconciling before
/// another takes over (its lease expires), though it still runs and may still write security
/// groups. Each change of the spec is written by exactly one replica: the generations each
/// replica's status applies carry are disjoint.
#[tokio::test]
async fn replicas_under_leader_election_write_each_change_once() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    let rules: Vec<PolicyRule> = operator_roles()
        .into_iter()
        .flat_map(|role| role.rules.unwrap_or_default())
        .collect();
    // Two ServiceAccounts, so that each replica's requests are recorded apart.
    let first = env
        .identity("securitygroup-operator-1", rules.clone())
        .await;
    let second = env
        .identity("securitygroup-operator-2", rules.clone())
        .await;
    let replica = |client: &kube::Client, name: &str| {
        tokio::spawn(operator::run_replica(
            client.clone(),
            Some(env.namespace.clone()),
            operator::replica(env.namespace.clone(), name),
            std::future::pending(),
        ))
    };
    let leases = env.api::<Lease>();
    let groups = env.api::<SecurityGroup>();

    // Replica a leads (it started first); b waits.
    let a = replica(&first.client, "a");
    wait_for_holder(&leases, "a").await;
    // b's requests go through a layer that can cut its watches (they are still recorded).
    let (second_client, second_faults) = faulty(second.client.clone());
    let b = replica(&second_client, "b");
    let group: SecurityGroup = managed_group("web");
    groups
        .create(&PostParams::default(), &group)
        .await
        .expect("created");
    change_and_wait(&groups, 2).await;
    let by_b: Vec<_> = second
        .requests
        .all()
        .into_iter()
        .filter(|r| !r.path.contains("/leases"))
        .collect();
    assert!(by_b.is_empty(), "b does not lead: {by_b:#?}");
    let by_a = status_writes(&first.requests.all());
    assert!(!by_a.is_empty(), "a wrote the status");

    // a stops (a replica shut down): it gives the lease up and b takes over.
    a.abort();
    assert!(a.await.expect_err("aborted").is_cancelled());
    wait_for_holder(&leases, "b").await;
    let a_stopped = first.requests.len();
    change_and_wait(&groups, 3).await;

    // b's renewals (and reads) of the Lease are refused from now on, while it may still do
    // all the rest: it stops leading before its lease expires; c, a new replica, takes over
    // once it has. From then on b sends nothing about security groups.
    let c = replica(&first.client, "c");
    let without_leases: Vec<PolicyRule> = rules
        .iter()
        .filter(|rule| rule.api_groups.as_deref() != Some(&["coordination.k8s.io".to_owned()][..]))
        .cloned()
        .collect();
    assert_eq!(without_leases.len(), rules.len() - 2, "the two Lease rules");
    Api::<ClusterRole>::all(env.admin.clone())
        .patch(
            &second.cluster_role,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"rules": without_leases})),
        )
        .await
        .expect("b's Lease rules revoked");
    // A watch already open outlives the revocation: once the server refuses b the Lease,
    // b's watch of it is cut, and b no longer sees it at all (as if cut off from the
    // server): it cannot learn that c took over.
    wait_until_refused(&second, "get").await;
    wait_until_refused(&second, "patch").await;
    let cut = second_faults.cut_watches(|sent| sent.resource() == Some("leases"));
    assert_eq!(cut, 1, "b's watch of the Lease");
    wait_for_holder(&leases, "c").await;
    let c_leads = second.requests.len();
    change_and_wait(&groups, 4).await;

    let first_requests = first.requests.all();
    let second_requests = second.requests.all();
    let by_a = status_writes(&first_requests[..a_stopped]);
    let by_b = status_writes(&second_requests);
    let by_c = status_writes(&first_requests[a_stopped..]);
    println!("status applies by generation: a {by_a:?}, b {by_b:?}, c {by_c:?}");
    // b stopped before c took over: since then it has sent nothing but its tries to renew
    // the lease (no reconcile of generation 4, no apply of the objects it owns).
    let after_handover: Vec<_> = second_requests[c_leads..]
        .iter()
        .filter(|r| !r.path.contains("/leases"))
        .collect();
    assert!(after_handover.is_empty(), "{after_handover:#?}");
    // Each replica wrote the changes made while it led, and only those.
    assert!(
        by_a.iter().all(|g| [1, 2].contains(g)) && by_a.contains(&2),
        "{by_a:?}"
    );
    assert!(by_b.iter().all(|g| *g == 3) && !by_b.is_empty(), "{by_b:?}");
    assert!(by_c.iter().all(|g| *g == 4) && !by_c.is_empty(), "{by_c:?}");
    b.abort();
    c.abort();
}

/// The example operator as two replicas over three shards (`kondition::shards`, the shard
/// Leases its ClusterRole names; this server ignores the shard selector, so each replica
/// selects): the first holds shards 0 and 2, the second shard 1, and each security group is
/// reconciled by the replica holding its shard only. Every write a replica sends about security groups
/// (finalizer, status) and the objects they own (the rules ConfigMap, the agents'
/// Deployment) is for a group of its own shard, though each replica's watches of ConfigMaps
/// and Deployments deliver the other shard's too (`owner_holds` keeps them out of its
/// controller); every group's status is written.
#[tokio::test]
async fn two_replicas_over_three_shards_write_only_their_own_groups() {
    let env = TestEnv::new(kondition_generated::crds()).await;
    let rules: Vec<PolicyRule> = operator_roles()
        .into_iter()
        .flat_map(|role| role.rules.unwrap_or_default())
        .collect();
    // Two ServiceAccounts, so that each replica's requests are recorded apart.
    let identities = [
        env.identity("securitygroup-operator-1", rules.clone())
            .await,
        env.identity("securitygroup-operator-2", rules).await,
    ];
    let replicas: Vec<_> = identities
        .iter()
        .zip(0..)
        .map(|(identity, ordinal)| {
            let replica = operator::replica(env.namespace.clone(), format!("r{ordinal}"))
                .shards(3)
                .ordinal(ordinal, 2);
            tokio::spawn(operator::run_replica(
                identity.client.clone(),
                Some(env.namespace.clone()),
                replica,
                std::future::pending(),
            ))
        })
        .collect();
    let groups = env.api::<SecurityGroup>();
    // Groups until each replica has three (the uids decide where they go): the replica of
    // each group by name.
    let mut replica_of = std::collections::BTreeMap::new();
    for n in 0.. {
        let of_replica = |r| replica_of.values().filter(|o| **o == r).count();
        if of_replica(0) >= 3 && of_replica(1) >= 3 {
            break;
        }
        let created = groups
            .create(&PostParams::default(), &managed_group(&format!("web-{n}")))
            .await
            .expect("created");
        let uid = created.uid().expect("a uid");
        let shard = kondition::shards::Shard::of_uid(&uid, 3).expect("a shard");
        replica_of.insert(created.name_any(), shard.index() % 2);
    }
    // Reconciled: the owned objects applied, the Deployment not rolled out (no controller
    // manager).
    for name in replica_of.keys() {
        wait_for(
            &groups,
            name,
            "SubResourcesPending",
            |g: Option<&SecurityGroup>| {
                g.and_then(|g| condition_of(g, "SubResourcesReady"))
                    == Some((ConditionStatus::False, "SubResourcesPending".into()))
            },
        )
        .await;
    }
    for replica in &replicas {
        replica.abort();
    }
    let mut written = std::collections::BTreeSet::new();
    for (identity, ordinal) in identities.iter().zip(0u32..) {
        for request in identity.requests.all() {
            if !request.is_write() {
                continue;
            }
            let mut segments = request.path.split('/');
            let Some(name) = segments
                .by_ref()
                .find(|s| ["securitygroups", "configmaps", "deployments"].contains(s))
                .and_then(|_| segments.next())
            else {
                continue; // its Leases and Events
            };
            let group = name
                .strip_suffix("-rules")
                .or_else(|| name.strip_suffix("-agents"))
                .unwrap_or(name);
            assert_eq!(
                replica_of.get(group),
                Some(&ordinal),
                "r{ordinal} wrote {} {} for {group}, not of its shards",
                request.method,
                request.path
            );
            if request.path.ends_with("/status") {
                written.insert(group.to_owned());
            }
        }
    }
    assert_eq!(
        written.len(),
        replica_of.len(),
        "every group's status written"
    );
}
