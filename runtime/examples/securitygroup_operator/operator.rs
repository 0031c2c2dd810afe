//! The operator of the example (see `main.rs`): reconciling a SecurityGroup, the objects it
//! owns and the checks around it. `tests/tests/e2e.rs` runs this very module against the
//! real API server.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::leader::{Election, Fence, run_elected};
use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kondition::controller::{
    CheckFuture, Error, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
    StatusReconciler, error_policy, with_finalizer,
};
use kondition::profile::orc::{self, MainResource};
use kondition::{Failure, StatusResource, SubResources};
use kondition_generated::securitygroup::v1alpha1::{Rule, SecurityGroup};
use kube::api::{Patch, PatchParams};
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::watcher;
use kube::runtime::{Controller, controller};
use kube::{Api, Client, Resource, ResourceExt};

/// The finalizer that deletes the security group in the cloud before the object goes.
pub const FINALIZER: &str = "openstack.k-orc.cloud/securitygroup";

/// The annotation that pauses reconciliation of one security group.
pub const PAUSED: &str = "example.com/paused";

/// Postpones reconciling a paused security group until the annotation goes.
struct PauseAnnotation;

impl PreReconcileCheck<SecurityGroup> for PauseAnnotation {
    fn check<'a>(
        &'a self,
        object: &'a SecurityGroup,
        client: &'a Client,
        next: Next<'a, SecurityGroup>,
    ) -> CheckFuture<'a, PreCheck> {
        Box::pin(async move {
            if object
                .annotations()
                .get(PAUSED)
                .is_some_and(|v| v == "true")
            {
                return Ok(PreCheck::Postpone(format!(
                    "paused by the {PAUSED} annotation"
                )));
            }
            next.run(object, client).await
        })
    }
}

/// After a reconcile, the security group must have an ID.
struct HasId;

impl PostReconcileCheck<SecurityGroup> for HasId {
    fn check<'a>(&'a self, object: &'a SecurityGroup, _: &'a Client) -> CheckFuture<'a, PostCheck> {
        Box::pin(async move {
            Ok(match object.status.as_ref().and_then(|s| s.id.as_ref()) {
                Some(_) => PostCheck::Success,
                None => PostCheck::Failure("the security group has no ID".to_owned()),
            })
        })
    }
}

/// "Creates" a rule: fails when its remote prefix is not a CIDR.
pub fn ensure_rule(rule: &Rule) -> Result<(), String> {
    let Some(prefix) = &rule.remote_ip_prefix else {
        return Ok(());
    };
    let (address, length) = prefix
        .split_once('/')
        .ok_or("invalid CIDR: no prefix length")?;
    let address: IpAddr = address
        .parse()
        .map_err(|_| "invalid CIDR address".to_owned())?;
    let length: u8 = length
        .parse()
        .map_err(|_| "invalid CIDR prefix length".to_owned())?;
    let max = if address.is_ipv4() { 32 } else { 128 };
    if length > max {
        return Err(format!("invalid CIDR: /{length} is longer than /{max}"));
    }
    Ok(())
}

/// The object the operator owns for a security group: a ConfigMap holding its rules, as an
/// enforcement agent on each node would read them. Owned by the group, so it goes with it.
pub fn rules_config_map(group: &SecurityGroup, rules: &[Rule]) -> Result<ConfigMap, Failure> {
    let rendered = serde_json::to_string(rules)
        .map_err(|e| Failure::fatal("RulesNotRendered", e.to_string()))?;
    Ok(ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("{}-rules", group.name_any())),
            namespace: group.namespace(),
            owner_references: group.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("rules.json".to_owned(), rendered)])),
        ..ConfigMap::default()
    })
}

/// The other object the operator owns: the Deployment of the agents that enforce the rules
/// on the nodes. Its readiness is the Deployment controller's to report (kstatus reads it);
/// until it is rolled out, SubResourcesReady says it is pending.
pub fn agents_deployment(group: &SecurityGroup) -> Result<Deployment, Failure> {
    let name = format!("{}-agents", group.name_any());
    serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": group.namespace(),
            "ownerReferences": group.controller_owner_ref(&()).map(|owner| vec![owner]),
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{
                    "name": "agent",
                    "image": "registry.example.com/securitygroup-agent:1.0",
                    "args": ["--rules", format!("/etc/rules/{}-rules/rules.json", group.name_any())],
                }]},
            },
        },
    }))
    .map_err(|e| Failure::fatal("AgentsNotRendered", e.to_string()))
}

/// The reconcile body: the security group, its rules and the objects it owns, reported
/// through the orc profile.
async fn reconcile_security_group(
    client: &Client,
    group: &mut SecurityGroup,
) -> Result<(), Failure> {
    let mut rules = SubResources::new();
    let rule_list = group
        .spec
        .resource
        .as_ref()
        .and_then(|r| r.rules.clone())
        .unwrap_or_default();
    for (i, rule) in rule_list.iter().enumerate() {
        let name = rule
            .description
            .clone()
            .unwrap_or_else(|| format!("rule-{i}"));
        match ensure_rule(rule) {
            Ok(()) => rules.ready("Rule", &name),
            Err(message) => rules.failed("Rule", &name, &message, false),
        };
    }
    // The owned object, applied and read back as the cluster has it: its readiness comes from
    // kstatus (any kind, typed or dynamic: a Deployment reads pending until rolled out, a
    // failed Job reads failed), so the operator writes no readiness rule of its own.
    let namespace = group.namespace().unwrap_or_default();
    let config_map = rules_config_map(group, &rule_list)?;
    rules.object(&apply_owned(Api::namespaced(client.clone(), &namespace), &config_map).await?);
    let agents = agents_deployment(group)?;
    rules.object(&apply_owned(Api::namespaced(client.clone(), &namespace), &agents).await?);
    let uid = group.uid().unwrap_or_default();
    let status = group.status_or_insert();
    status.id = Some(format!("sg-{}", uid.get(..8).unwrap_or("00000000")));
    for condition in orc::conditions(MainResource::UpToDate, Some(&rules)) {
        status.conditions.set(condition);
    }
    Ok(())
}

/// Applies an object the operator owns and returns it as the cluster has it (its status
/// included, for kstatus).
async fn apply_owned<O>(api: Api<O>, object: &O) -> Result<O, Failure>
where
    O: Resource<DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned,
{
    api.patch(
        &object.name_any(),
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(object),
    )
    .await
    .map_err(|e| Failure::retryable("OwnedObjectApplyFailed", e.to_string()))
}

/// How many security groups the operator reconciles at once.
const RECONCILES_AT_ONCE: u16 = 16;

/// The field manager of the objects the operator owns.
const FIELD_MANAGER: &str = "securitygroup-operator";

/// Deletes the security group "in the cloud": nothing to do in the simulation but say so.
async fn delete_security_group(group: &mut SecurityGroup) -> Result<(), Failure> {
    println!("deleting security group {}", group.name_any());
    Ok(())
}

/// What every reconcile needs.
struct Context {
    client: Client,
    reconciler: StatusReconciler<SecurityGroup>,
    /// Closed when this replica stops leading.
    fence: Fence,
}

/// Installs the generated CRDs with server-side apply.
pub async fn install_crds(client: &Client) -> Result<(), kube::Error> {
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(client.clone());
    for crd in kondition_generated::crds() {
        let name = crd.name_any();
        crds.patch(
            &name,
            &PatchParams::apply("kondition-example").force(),
            &Patch::Apply(&crd),
        )
        .await?;
        println!("installed {name}");
    }
    Ok(())
}

/// The controller for the security groups of `namespace` (every namespace when `None`), and
/// the ConfigMaps and Deployments they own: a change to one of those reconciles its group.
pub fn controller(client: &Client, namespace: Option<&str>) -> Controller<SecurityGroup> {
    let (groups, config_maps, deployments) = match namespace {
        Some(ns) => (
            Api::namespaced(client.clone(), ns),
            Api::namespaced(client.clone(), ns),
            Api::namespaced(client.clone(), ns),
        ),
        None => (
            Api::all(client.clone()),
            Api::all(client.clone()),
            Api::all(client.clone()),
        ),
    };
    // At most 16 reconciles at once: kube's default runs every object at once, each with its
    // requests and connections in flight (BENCHMARKS.md, "Side by side with controller-runtime").
    Controller::new(groups, watcher::Config::default())
        .owns::<ConfigMap>(config_maps, watcher::Config::default())
        .owns::<Deployment>(deployments, watcher::Config::default())
        .with_config(controller::Config::default().concurrency(RECONCILES_AT_ONCE))
}

/// Runs the operator for `namespace` (every namespace when `None`) as one of several
/// replicas: it reconciles only while it leads the `election` (see `leader.rs`), until `stop`
/// completes.
pub async fn run_replica(
    client: Client,
    namespace: Option<String>,
    election: Election,
    stop: impl Future<Output = ()>,
) -> Result<(), kube_lease_manager::LeaseManagerError> {
    run_elected(client.clone(), election, stop, |fence| {
        run_fenced(
            controller(&client, namespace.as_deref()),
            client.clone(),
            fence,
        )
    })
    .await
}

/// Runs `controller` with the status chokepoint (the generated status names the orc
/// profile: Available summarises, Progressing is kept), the checks, the finalizer and an
/// Event recorder, until its stream ends.
pub async fn run(controller: Controller<SecurityGroup>, client: Client) {
    run_fenced(controller, client, Fence::default()).await;
}

/// [`run`], each reconcile inside `fence`: once it is closed (this replica stopped leading),
/// a reconcile does nothing.
async fn run_fenced(controller: Controller<SecurityGroup>, client: Client, fence: Fence) {
    let reporter = Reporter {
        controller: "securitygroup-operator".into(),
        instance: None,
    };
    let open = fence.clone();
    let reconciler = StatusReconciler::<SecurityGroup>::new(client.clone())
        .pre_check(PauseAnnotation)
        .post_check(HasId)
        .recorder(Recorder::new(client.clone(), reporter))
        .may_write(move |_: &SecurityGroup| open.is_open());
    let context = Arc::new(Context {
        client,
        reconciler,
        fence,
    });
    controller
        .run(
            move |object: Arc<SecurityGroup>, context: Arc<Context>| async move {
                let Some(_entered) = context.fence.enter() else {
                    return Ok(controller::Action::await_change());
                };
                let namespace = object.namespace().unwrap_or_default();
                let api: Api<SecurityGroup> = Api::namespaced(context.client.clone(), &namespace);
                let client = context.client.clone();
                context
                    .reconciler
                    .reconcile(object, async |group: &mut SecurityGroup| {
                        with_finalizer(
                            &api,
                            FINALIZER,
                            group,
                            async |group: &mut SecurityGroup| {
                                reconcile_security_group(&client, group).await
                            },
                            delete_security_group,
                        )
                        .await
                    })
                    .await
            },
            |object: Arc<SecurityGroup>, error: &Error, _| {
                error_policy(object, error, Duration::from_secs(15))
            },
            context,
        )
        .for_each(|result| async move {
            match result {
                Ok((object, action)) => println!("reconciled {object}: {action:?}"),
                Err(error) => eprintln!("reconcile failed: {error}"),
            }
        })
        .await;
}
