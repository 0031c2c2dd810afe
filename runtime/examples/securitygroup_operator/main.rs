//! An example operator for the generated `SecurityGroup` kind (schemas/securitygroup.yaml):
//! `kube::runtime::Controller` with the status chokepoint, the `orc` profile's Available,
//! Progressing and SubResourcesReady conditions built from the security group's rules and
//! the Kubernetes objects the operator owns for it (a ConfigMap with the rules and the
//! Deployment of the agents that enforce them, read back and judged by kstatus), a
//! pre-reconciliation check, a post-reconciliation check, a finalizer and Events
//! (`operator.rs`).
//!
//! The "cloud" is simulated: a rule is created when its CIDR parses, and fails otherwise, so
//! the conditions can be watched without OpenStack:
//!
//! ```text
//! cargo run -p kondition --features controller --example securitygroup_operator -- --install
//! ```
//!
//! with `KUBECONFIG` pointing at a cluster (`--install` applies `kondition_generated::crds()`
//! first). With `--leader-elect` it runs as one of several replicas: only the replica that
//! holds the Lease `securitygroup-operator-leader` of its namespace reconciles
//! (`kondition::shards` with one shard; `POD_NAME` names the replica, `POD_NAMESPACE` the
//! Lease's namespace, both from the Downward API when deployed). With `--shards N` as well,
//! the security groups are cut into N shards by the hash of their uid, each with its Lease
//! (`securitygroup-operator-leader-I-of-N`): a replica reconciles the shards it holds, reaching
//! first for those whose number modulo `--replicas R` (default N) is its ordinal, the number
//! ending `POD_NAME` as a StatefulSet names its Pods (`operator-2`: 2), and for the others once
//! their holder left them to expire. Deployed, it runs as a ServiceAccount bound to the two ClusterRoles of
//! `clusterrole.yaml` beside this file: what kondition's status chokepoint needs for
//! SecurityGroup (as `kondition::permissions` gives it), and what the operator does with the
//! objects it owns. The test suite runs this operator end to end on the real API server, as
//! such a ServiceAccount (`tests/tests/e2e.rs`).

mod operator;

use kube::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::try_default().await?;
    if std::env::args().any(|a| a == "--install") {
        operator::install_crds(&client).await?;
    }
    if std::env::args().any(|a| a == "--leader-elect") {
        let identity = std::env::var("POD_NAME")
            .map_err(|_| "--leader-elect needs POD_NAME: this replica's unique name")?;
        let namespace = std::env::var("POD_NAMESPACE")
            .unwrap_or_else(|_| client.default_namespace().to_owned());
        let shards: u32 = option("--shards")?.unwrap_or(1);
        let replicas: u32 = option("--replicas")?.unwrap_or(shards);
        // A StatefulSet's Pod is named after its ordinal; another name starts at shard 0.
        let ordinal = identity
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let replica = operator::replica(namespace, identity)
            .shards(shards)
            .ordinal(ordinal, replicas);
        let stop = async {
            // Ctrl-C or SIGTERM (what Kubernetes sends a Pod it stops).
            let mut terminate =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("a SIGTERM handler");
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        };
        operator::run_replica(client, None, replica, stop).await?;
        return Ok(());
    }
    let controller = operator::controller(&client, None).shutdown_on_signal();
    operator::run(controller, client).await;
    Ok(())
}

/// The value following `flag` on the command line, parsed.
fn option<T: std::str::FromStr>(flag: &str) -> Result<Option<T>, String> {
    let mut args = std::env::args().skip_while(|a| a != flag).skip(1);
    match args.next() {
        None => Ok(None),
        Some(value) => value
            .parse()
            .map(Some)
            .map_err(|_| format!("{flag}: not a number: {value}")),
    }
}

#[cfg(test)]
mod tests {
    use kondition::SubResources;
    use kondition_generated::securitygroup::v1alpha1::{Rule, SecurityGroup};
    use kube::ResourceExt;

    use super::operator::{agents_deployment, ensure_rule, rules_config_map};

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
        let agents = agents_deployment(&group).expect("rendered");
        assert_eq!(agents.name_any(), "web-agents");
        let mut children = SubResources::new();
        children.object(&config_map).object(&agents);
        let condition = children.condition(None);
        assert_eq!(condition.status, ConditionStatus::False);
        assert_eq!(condition.reason, "SubResourcesPending");
        assert_eq!(
            condition.message,
            "1 of 2 sub-resources pending: Deployment 'web-agents' (Replicas: 0/1)"
        );
    }
}
