//! Who the tests speak as. The launcher's kubeconfig names an administrator (a client
//! certificate in `system:masters`), whom RBAC never refuses and API Priority and Fairness
//! never throttles (the `exempt` FlowSchema). An operator runs as a ServiceAccount allowed only
//! what its ClusterRole grants, so the tests' controllers do too: [`Identity`] is a
//! ServiceAccount of a test's namespace, created by the administrator and bound through a
//! ClusterRoleBinding to a ClusterRole holding exactly the rules a test names (for the
//! chokepoint, `kondition::permissions::rules` of the kinds installed:
//! [`TestEnv::client`](crate::cluster::TestEnv::client)), and clients that send its token.
//!
//! The token comes from the TokenRequest API (`serviceaccounts/<name>/token`), which the
//! launcher's server serves (it signs tokens with a key of its own, `--service-account-*`);
//! a client of the identity has the launcher's CA, the token, and nothing of the administrator.
//! RBAC reads roles and bindings from caches that follow the server's writes a moment later:
//! an identity is handed out once the server answers, as the identity itself, that each of its
//! rules is allowed (a SelfSubjectAccessReview, polled with a bound).

use std::time::{Duration, Instant};

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::PostParams;
use kube::config::{AuthInfo, Kubeconfig};
use kube::{Api, Client, Config};

use crate::cluster::{Cluster, config_of};
use crate::recording::{Requests, recorded_config, without_retry};

/// How long a token lives: longer than any test binary runs.
const TOKEN_SECONDS: i64 = 24 * 60 * 60;

/// How long to wait for the server to authorize a new identity: a bound only so that a broken
/// server fails the test instead of hanging it (it takes milliseconds).
const AUTHORIZED_WITHIN: Duration = Duration::from_secs(120);

/// A ServiceAccount of a test's namespace, bound to a ClusterRole of its own, and a client that
/// speaks as it.
pub struct Identity {
    /// The ServiceAccount's name.
    pub name: String,
    /// Its namespace (the test's).
    pub namespace: String,
    /// The name of its ClusterRole and of the ClusterRoleBinding to it:
    /// `kondition-tests:<namespace>:<name>`.
    pub cluster_role: String,
    /// A client speaking as the identity, its default namespace the test's, with kube's
    /// defaults (as `Client::try_default` gives an operator: kube retries 429, 503 and 504 by
    /// itself, see [`recorded_config`]); every request it sends, each retry included, is
    /// recorded in [`Identity::requests`].
    pub client: Client,
    /// What [`Identity::client`] sent, in order.
    pub requests: Requests,
    /// The ServiceAccount's token.
    token: String,
    /// The cluster's kubeconfig with the token as every user's credentials.
    kubeconfig: Kubeconfig,
    config: Config,
}

impl Identity {
    /// The user name the API server knows the identity by (what RBAC, APF and the
    /// managedFields' requests name): `system:serviceaccount:<namespace>:<name>`.
    pub fn user(&self) -> String {
        format!("system:serviceaccount:{}:{}", self.namespace, self.name)
    }

    /// The identity's client configuration: the server and the launcher's CA, the token,
    /// the test's namespace as default, no timeouts (see
    /// [`Cluster::client`](crate::cluster::Cluster::client)), kube's default retry.
    pub fn config(&self) -> Config {
        self.config.clone()
    }

    /// A new client of the identity that records nothing.
    pub fn unrecorded(&self) -> Client {
        kube::client::ClientBuilder::try_from(self.config())
            .expect("a client for the test API server")
            .build()
    }

    /// A new recorded client of the identity without kube's retry layer: a 429 (or 503, 504)
    /// reaches the caller at once, as the server sent it.
    pub fn recorded_without_retry(&self) -> (Client, Requests) {
        recorded_config(without_retry(self.config()))
    }

    /// Writes a kubeconfig of the identity (the server, the launcher's CA, the token) to
    /// `path`, for a process the test runs (an operator's replica) to speak as the identity.
    pub fn write_kubeconfig(&self, path: &std::path::Path) {
        // JSON is YAML: kube and kubectl read it as a kubeconfig.
        let text = serde_json::to_string(&self.kubeconfig).expect("a kubeconfig as JSON");
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// The ServiceAccount's bearer token.
    pub(crate) fn token(&self) -> &str {
        &self.token
    }
}

/// Makes ServiceAccount `name` in `namespace`, a ClusterRole holding `rules` and a
/// ClusterRoleBinding of the one to the other (all as the administrator `admin`), asks the
/// TokenRequest API for its token, and waits until the server grants the identity each rule.
pub(crate) async fn service_account(
    cluster: &Cluster,
    admin: &Client,
    namespace: &str,
    name: &str,
    rules: Vec<PolicyRule>,
) -> Identity {
    let meta = |name: &str| ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
    };
    let accounts: Api<ServiceAccount> = Api::namespaced(admin.clone(), namespace);
    accounts
        .create(
            &PostParams::default(),
            &ServiceAccount {
                metadata: meta(name),
                ..ServiceAccount::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("ServiceAccount {namespace}/{name}: {e}"));
    let role_name = format!("kondition-tests:{namespace}:{name}");
    Api::<ClusterRole>::all(admin.clone())
        .create(
            &PostParams::default(),
            &ClusterRole {
                metadata: meta(&role_name),
                rules: Some(rules.clone()),
                ..ClusterRole::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("ClusterRole {role_name}: {e}"));
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(
            &PostParams::default(),
            &ClusterRoleBinding {
                metadata: meta(&role_name),
                role_ref: RoleRef {
                    api_group: Some("rbac.authorization.k8s.io".into()),
                    kind: "ClusterRole".into(),
                    name: role_name.clone(),
                },
                subjects: Some(vec![Subject {
                    kind: "ServiceAccount".into(),
                    name: name.to_owned(),
                    namespace: Some(namespace.to_owned()),
                    ..Subject::default()
                }]),
            },
        )
        .await
        .unwrap_or_else(|e| panic!("ClusterRoleBinding {role_name}: {e}"));
    let token = accounts
        .create_token_request(
            name,
            &PostParams::default(),
            &TokenRequest {
                spec: Some(TokenRequestSpec {
                    expiration_seconds: Some(TOKEN_SECONDS),
                    ..TokenRequestSpec::default()
                }),
                ..TokenRequest::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("a token of {namespace}/{name}: {e}"))
        .status
        .and_then(|status| status.token)
        .unwrap_or_else(|| panic!("a token of {namespace}/{name}: none in the answer"));
    let kubeconfig = with_token(cluster.kubeconfig(), &token);
    let config = config_of(&kubeconfig, namespace).await;
    let (client, requests) = recorded_config(config.clone());
    let identity = Identity {
        name: name.to_owned(),
        namespace: namespace.to_owned(),
        cluster_role: role_name,
        client,
        requests,
        token,
        config,
        kubeconfig,
    };
    wait_until_authorized(&identity, &rules).await;
    identity
}

/// `kubeconfig` with every user's credentials replaced by `token`.
fn with_token(kubeconfig: &Kubeconfig, token: &str) -> Kubeconfig {
    let mut kubeconfig = kubeconfig.clone();
    for user in &mut kubeconfig.auth_infos {
        user.auth_info = Some(AuthInfo {
            token: Some(token.to_owned().into()),
            ..AuthInfo::default()
        });
    }
    kubeconfig
}

/// Polls SelfSubjectAccessReviews as `identity` until the server answers that every rule of
/// `rules` (its first verb on its first group and resource, in the identity's namespace) is
/// allowed: the token is accepted and RBAC's caches hold the role and its binding. Without
/// rules, until one review is answered at all (the token is accepted).
async fn wait_until_authorized(identity: &Identity, rules: &[PolicyRule]) {
    let reviews: Api<SelfSubjectAccessReview> = Api::all(
        Client::try_from(without_retry(identity.config()))
            .expect("a client for the test API server"),
    );
    let mut asks: Vec<ResourceAttributes> = rules
        .iter()
        .filter_map(|rule| {
            let resource = rule.resources.as_ref()?.first()?;
            let (resource, subresource) = match resource.split_once('/') {
                Some((resource, sub)) => (resource, Some(sub.to_owned())),
                None => (resource.as_str(), None),
            };
            Some(ResourceAttributes {
                namespace: Some(identity.namespace.clone()),
                verb: rule.verbs.first().cloned(),
                group: rule.api_groups.as_ref()?.first().cloned(),
                resource: Some(resource.to_owned()),
                subresource,
                // A rule that names its objects allows nothing unnamed: ask for its first.
                name: rule
                    .resource_names
                    .as_ref()
                    .and_then(|n| n.first().cloned()),
                ..ResourceAttributes::default()
            })
        })
        .collect();
    if asks.is_empty() {
        // Anything: only that the identity is answered.
        asks.push(ResourceAttributes {
            namespace: Some(identity.namespace.clone()),
            verb: Some("get".into()),
            resource: Some("configmaps".into()),
            ..ResourceAttributes::default()
        });
    }
    let deadline = Instant::now() + AUTHORIZED_WITHIN;
    let mut pending = asks;
    let mut last: String;
    while !pending.is_empty() {
        let ask = pending[0].clone();
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ask.clone()),
                ..SelfSubjectAccessReviewSpec::default()
            },
            ..SelfSubjectAccessReview::default()
        };
        match reviews.create(&PostParams::default(), &review).await {
            Ok(answer) => {
                let status = answer.status.unwrap_or_default();
                if status.allowed || rules.is_empty() {
                    pending.remove(0);
                    continue;
                }
                last = format!("{ask:?} not allowed: {}", status.reason.unwrap_or_default());
            }
            Err(error) => last = format!("{ask:?}: {error}"),
        }
        assert!(
            Instant::now() < deadline,
            "{} not authorized after {AUTHORIZED_WITHIN:?}: {last}",
            identity.user()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
