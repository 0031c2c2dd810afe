//! An example operator for the generated `SecurityGroup` kind (schemas/securitygroup.yaml):
//! `kube::runtime::Controller` with the status chokepoint, the `orc` profile's Available,
//! Progressing and SubResourcesReady conditions built from the security group's rules and
//! the Kubernetes object the operator owns for it (a ConfigMap with the rules, read back and
//! judged by kstatus, as a Deployment or a Service would be), a pre-reconciliation check and
//! a post-reconciliation check.
//!
//! The "cloud" is simulated: a rule is created when its CIDR parses, and fails otherwise, so
//! the conditions can be watched without OpenStack:
//!
//! ```text
//! cargo run -p kondition --features controller --example securitygroup_operator
//! ```
//!
//! with `KUBECONFIG` pointing at a cluster where `kondition_generated::crds()` are installed
//! (the example installs them itself with server-side apply when started with `--install`).

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
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
use kube::runtime::Controller;
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};

/// The finalizer that deletes the security group in the cloud before the object goes.
const FINALIZER: &str = "openstack.k-orc.cloud/securitygroup";

/// The annotation that pauses reconciliation of one security group.
const PAUSED: &str = "example.com/paused";

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
fn ensure_rule(rule: &Rule) -> Result<(), String> {
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
fn rules_config_map(group: &SecurityGroup, rules: &[Rule]) -> Result<ConfigMap, Failure> {
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
    let config_map = rules_config_map(group, &rule_list)?;
    let config_maps: Api<ConfigMap> =
        Api::namespaced(client.clone(), &group.namespace().unwrap_or_default());
    let applied = config_maps
        .patch(
            &config_map.name_any(),
            &PatchParams::apply("securitygroup-operator").force(),
            &Patch::Apply(&config_map),
        )
        .await
        .map_err(|e| Failure::retryable("OwnedObjectApplyFailed", e.to_string()))?;
    rules.object(&applied);
    let uid = group.uid().unwrap_or_default();
    let status = group.status_mut();
    status.id = Some(format!("sg-{}", uid.get(..8).unwrap_or("00000000")));
    for condition in orc::conditions(MainResource::UpToDate, Some(&rules)) {
        status.conditions.set(condition);
    }
    Ok(())
}

/// Deletes the security group "in the cloud": nothing to do in the simulation but say so.
async fn delete_security_group(group: &mut SecurityGroup) -> Result<(), Failure> {
    println!("deleting security group {}", group.name_any());
    Ok(())
}

/// What every reconcile needs.
struct Context {
    client: Client,
    reconciler: StatusReconciler<SecurityGroup>,
}

async fn install_crds(client: &Client) -> Result<(), kube::Error> {
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::try_default().await?;
    if std::env::args().any(|a| a == "--install") {
        install_crds(&client).await?;
    }
    // The generated status names the orc profile: the chokepoint summarises into Available
    // and keeps Progressing.
    let reconciler = StatusReconciler::<SecurityGroup>::new(client.clone())
        .pre_check(PauseAnnotation)
        .post_check(HasId);
    let context = Arc::new(Context {
        client: client.clone(),
        reconciler,
    });
    let groups: Api<SecurityGroup> = Api::all(client);
    Controller::new(groups, watcher::Config::default())
        .shutdown_on_signal()
        .run(
            move |object: Arc<SecurityGroup>, context: Arc<Context>| async move {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_fail_on_bad_cidrs() {
        let rule = |prefix: &str| Rule {
            description: None,
            direction: None,
            protocol: None,
            port_range_min: None,
            port_range_max: None,
            remote_ip_prefix: Some(prefix.to_owned()),
            ethertype: None,
        };
        assert!(ensure_rule(&rule("10.0.0.0/8")).is_ok());
        assert!(ensure_rule(&rule("2001:db8::/32")).is_ok());
        assert_eq!(
            ensure_rule(&rule("10.0.0.0/33")),
            Err("invalid CIDR: /33 is longer than /32".to_owned())
        );
        assert!(ensure_rule(&rule("10.0.0.0")).is_err());
    }

    #[test]
    fn owned_objects_feed_sub_resources_ready() {
        use k8s_openapi::api::apps::v1::Deployment;
        use kondition::ConditionStatus;

        let group: SecurityGroup = serde_json::from_value(serde_json::json!({
            "apiVersion": "openstack.k-orc.cloud/v1alpha1", "kind": "SecurityGroup",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"cloudCredentialsRef": {"secretName": "openstack", "cloudName": "dev"}}
        }))
        .expect("a security group");
        let config_map = rules_config_map(&group, &[]).expect("rendered");
        assert_eq!(config_map.name_any(), "web-rules");

        // A ConfigMap is ready once it exists; a Deployment without ready replicas is pending.
        let mut agents = Deployment::default();
        agents.metadata.name = Some("web-agents".into());
        let mut children = SubResources::new();
        children.object(&config_map).object(&agents);
        let condition = children.condition(None);
        assert_eq!(condition.status, ConditionStatus::False);
        assert_eq!(condition.reason, "SubResourcesPending");
        assert_eq!(
            condition.message,
            "1 of 2 sub-resources pending: Deployment 'web-agents' (Deployment has 0 of 1 replicas)"
        );
    }
}
