//! The operator of the example (see `main.rs`): reconciling a SecurityGroup, the objects it
//! owns and the checks around it. `tests/tests/e2e.rs` runs this very module against the
//! real API server.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kondition::controller::{
    CheckFuture, Error, Next, PostCheck, PostReconcileCheck, PreCheck, PreReconcileCheck,
    StatusReconciler, error_policy, with_finalizer,
};
use kondition::profile::orc::{self, MainResource};
use kondition::shards::{Fence, Replica, Shard, holds, owner_holds, shard_watcher};
use kondition::{Failure, StatusResource, SubResources};
use kondition_generated::securitygroup::v1alpha1::{Rule, SecurityGroup};
use kube::api::{Patch, PatchParams};
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::{Controller, WatchStreamExt, controller, reflector, watcher};
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
    /// Closed when this replica stops holding the shard.
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

/// The prefix of the operator's Leases: the Lease itself with one shard (leader election),
/// `securitygroup-operator-leader-I-of-N` for shard I of N.
pub const LEASE: &str = "securitygroup-operator-leader";

/// The replica named `identity` among those sharing the security groups, its Leases in
/// `namespace`.
pub fn replica(namespace: impl Into<String>, identity: impl Into<String>) -> Replica {
    Replica::new(namespace, LEASE, identity)
}

/// The controller for the security groups of `shard` in `namespace` (every namespace when
/// `None`), and the ConfigMaps and Deployments they own: the shard's objects only, selected by
/// the API server where it shards lists and watches and by the client always; the owned
/// objects by their owner's uid (the server cannot).
pub fn shard_controller(
    client: &Client,
    namespace: Option<&str>,
    shard: Shard,
) -> Controller<SecurityGroup> {
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
    {
        match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        }
    }
    let (reader, writer) = reflector::store();
    let groups = shard_watcher(
        client,
        shard,
        |c| api::<SecurityGroup>(c, namespace),
        watcher::Config::default(),
    )
    .default_backoff()
    .reflect(writer)
    .applied_objects();
    // The owned objects of every namespace's groups travel; those of the shard's groups stay.
    fn owned<K>(
        client: &Client,
        namespace: Option<&str>,
        shard: Shard,
    ) -> impl futures::Stream<Item = Result<K, watcher::Error>> + Send + use<K>
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned
            + Send
            + 'static,
    {
        watcher(
            api::<K>(client.clone(), namespace),
            watcher::Config::default(),
        )
        .default_backoff()
        .touched_objects()
        .try_filter(move |o| std::future::ready(owner_holds::<SecurityGroup, _>(shard, o)))
    }
    let config_maps = owned::<ConfigMap>(client, namespace, shard);
    let deployments = owned::<Deployment>(client, namespace, shard);
    Controller::for_stream(groups, reader)
        .owns_stream(config_maps)
        .owns_stream(deployments)
        .with_config(controller::Config::default().concurrency(RECONCILES_AT_ONCE))
}

/// Runs the operator for `namespace` (every namespace when `None`) as one of several
/// replicas: a controller for each shard while it holds the shard's Lease
/// (`kondition::shards::run_replica`), until `stop` completes. With one shard, it reconciles
/// only while it leads.
pub async fn run_replica(
    client: Client,
    namespace: Option<String>,
    replica: Replica,
    stop: impl Future<Output = ()>,
) -> Result<(), kondition::shards::LeaseManagerError> {
    let shards_client = client.clone();
    kondition::shards::run_replica(shards_client, replica, stop, move |shard, fence| {
        let controller = shard_controller(&client, namespace.as_deref(), shard);
        run_fenced(controller, client.clone(), shard, fence)
    })
    .await
}

/// Runs `controller` with the status chokepoint (the generated status names the orc
/// profile: Available summarises, Progressing is kept), the checks, the finalizer and an
/// Event recorder, until its stream ends.
pub async fn run(controller: Controller<SecurityGroup>, client: Client) {
    let every_object = Shard::new(0, 1).expect("the one shard");
    run_fenced(controller, client, every_object, Fence::default()).await;
}

/// [`run`] for the objects of `shard`, each reconcile inside `fence`: once it is closed (this
/// replica no longer holds the shard), a reconcile does nothing and no status is written.
async fn run_fenced(
    controller: Controller<SecurityGroup>,
    client: Client,
    shard: Shard,
    fence: Fence,
) {
    let reporter = Reporter {
        controller: "securitygroup-operator".into(),
        instance: None,
    };
    let open = fence.clone();
    let reconciler = StatusReconciler::<SecurityGroup>::new(client.clone())
        .pre_check(PauseAnnotation)
        .post_check(HasId)
        .recorder(Recorder::new(client.clone(), reporter))
        .may_write(move |group: &SecurityGroup| open.is_open() && holds(shard, group));
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
