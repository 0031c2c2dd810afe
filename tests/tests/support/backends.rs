//! One scenario, two API servers (included by the test binaries that need it with
//! `#[path = "support/backends.rs"] mod backends;`): the real one (the launcher of `kondition_tests::cluster`, a
//! least-privileged recorded client as in every chokepoint test) and kondition's test double
//! (`kondition::testing::double`), behind one [`Backend`], so that a scenario written once
//! runs on both and the two runs can be compared: the requests sent ([`Seen`]: method,
//! path, query, answer code, and an Event's reason), normalised where the two must differ
//! (the namespace, an Event's generated name).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::testing::double::ApiDouble;
use kube::{Api, Client};
use serde_json::Value;

use kondition_tests::cluster::TestEnv;
use kondition_tests::recording::Requests;

/// A request as both backends see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The method.
    pub method: String,
    /// The path, the namespace written `NS` and an Event's name `EVENT`.
    pub path: String,
    /// The query's pairs, sorted.
    pub query: Vec<(String, String)>,
    /// The answer's code (0 when none came).
    pub status: u16,
    /// For an Event written, its type and reason (`Normal/ReconciliationSuccess`).
    pub event: Option<String>,
}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let query: Vec<String> = self.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(
            f,
            "{} {}?{} -> {}",
            self.method,
            self.path,
            query.join("&"),
            self.status
        )?;
        if let Some(event) = &self.event {
            write!(f, " [{event}]")?;
        }
        Ok(())
    }
}

enum Log {
    Double(ApiDouble),
    Server(Requests),
}

/// An API server with a kind installed, a namespace, the controller's recorded client and
/// an unrecorded one for the test's own reads and writes.
pub struct Backend {
    /// The controller's client (recorded).
    pub client: Client,
    /// The test's own client (not recorded).
    pub admin: Client,
    /// The namespace the scenario's objects live in.
    pub namespace: String,
    log: Log,
}

impl Backend {
    /// The test double, serving `crd`'s kind.
    pub fn double(crd: &CustomResourceDefinition) -> Backend {
        let double = ApiDouble::new().crd(crd);
        Backend {
            client: double.client(),
            admin: double.unrecorded_client(),
            namespace: "scenario".to_owned(),
            log: Log::Double(double),
        }
    }

    /// The real API server with `crd` installed, in a namespace of the calling test, the
    /// controller speaking as the identity [`TestEnv::with_finalizer`] makes (what the
    /// chokepoint and a finalizer need).
    pub async fn server(crd: CustomResourceDefinition) -> Backend {
        let env = TestEnv::with_finalizer([crd]).await;
        Backend {
            client: env.client,
            admin: env.admin,
            namespace: env.namespace,
            log: Log::Server(env.requests),
        }
    }

    /// An `Api` of `K` in the scenario's namespace, through the test's unrecorded client.
    pub fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        Api::namespaced(self.admin.clone(), &self.namespace)
    }

    /// The controller's requests since the last [`Backend::clear`], normalised.
    pub fn requests(&self) -> Vec<Seen> {
        match &self.log {
            Log::Double(double) => double
                .requests()
                .into_iter()
                .map(|r| self.seen(&r.method, &r.path, &r.query, r.status, &r.body))
                .collect(),
            Log::Server(requests) => requests
                .all()
                .into_iter()
                .map(|r| {
                    let status = r.status.unwrap_or(0);
                    self.seen(&r.method, &r.path, &r.query, status, &r.body)
                })
                .collect(),
        }
    }

    /// Forgets the requests recorded so far.
    pub fn clear(&self) {
        match &self.log {
            Log::Double(double) => double.clear_requests(),
            Log::Server(requests) => requests.clear(),
        }
    }

    fn seen(
        &self,
        method: &str,
        path: &str,
        query: &[(String, String)],
        status: u16,
        body: &Value,
    ) -> Seen {
        let mut path = path.replace(
            &format!("/namespaces/{}/", self.namespace),
            "/namespaces/NS/",
        );
        if let Some((events, _)) = path.split_once("/events/") {
            path = format!("{events}/events/EVENT");
        }
        let mut query = query.to_vec();
        query.sort();
        let event = (path.ends_with("/events") && method == "POST").then(|| {
            format!(
                "{}/{}",
                body["type"].as_str().unwrap_or_default(),
                body["reason"].as_str().unwrap_or_default()
            )
        });
        Seen {
            method: method.to_owned(),
            path,
            query,
            status,
            event,
        }
    }
}

/// The requests, one a line, for an assertion's message.
pub fn lines(requests: &[Seen]) -> String {
    requests.iter().map(|r| format!("\n  {r}")).collect()
}
