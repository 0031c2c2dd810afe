//! A rolling upgrade is a steady state: during the window when a replica of the old version
//! and one of the new version run side by side (without leader election, as a Deployment's
//! rolling update runs them), both reconcile the same objects with different status structs
//! under the same field manager. The CRD is already the new one, so the old replica's status
//! is rejected: in one case its struct lacks a field the new CRD requires (422), in the other
//! it sends one the new CRD no longer declares (500, `failed to create typed patch object`).
//!
//! The old replica then writes its conditions-only fallback (Ready False, StatusRejected); the
//! new one applies its full status over it and releases the fallback manager's fields. Each
//! write is a watch event for the other side. Before the fallback was rate-limited, every
//! reconcile of the old replica answered the new one's status with its fallback again, and
//! every such pair was two writes, a release and two Events, without end. Now the fallback is
//! sent once per rejection of the full apply (which waits for its backoff): over 100
//! reconciles (50 of each replica, alternating, each from the object as stored), the writes
//! and Events are those of the first round, and the same after 10 reconciles as after 100.
//!
//! On the real API server (the launcher of `kondition_tests::cluster`). The backoff is an
//! hour, so that no retry of the full apply falls within the test however slow the machine:
//! the figures depend on the number of reconciles only.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::controller::{StatusReconciler, fallback_owner};
use kondition::{Failure, RequeuePolicy, StatusResource};
use kondition_tests::cluster::{TestEnv, recorded_events};
use kondition_tests::recording::Requests;
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::events::{Recorder, Reporter};
use kube::{Api, Client, CustomResourceExt};
use serde_json::{Value, json};

/// The new version: the CRD installed is this kind's, where `phase` is required.
mod new {
    #![allow(missing_docs)]
    use kondition::{Conditions, KubeStatus};
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A gadget's desired state.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Gadget",
        namespaced,
        status = "GadgetStatus"
    )]
    pub struct GadgetSpec {
        /// How big.
        pub size: i64,
    }

    /// The new version's status: `phase` (required by the CRD) and the endpoint with its
    /// TLS port.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(resource = Gadget, conditions(Ready))]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        #[serde(default)]
        pub conditions: Conditions,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
        #[serde(default)]
        pub phase: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub endpoint: Option<String>,
    }
}

/// An old version that lacks `phase`, which the new CRD requires, and writes the endpoint
/// with its old port.
mod lacking {
    #![allow(missing_docs)]
    use kondition::{Conditions, KubeStatus};
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A gadget's desired state.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Gadget",
        namespaced,
        status = "GadgetStatus"
    )]
    pub struct GadgetSpec {
        /// How big.
        pub size: i64,
    }

    /// The old status: no `phase`.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(resource = Gadget, conditions(Ready))]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        #[serde(default)]
        pub conditions: Conditions,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub endpoint: Option<String>,
    }
}

/// An old version that sends `port`, which the new CRD no longer declares.
mod extra {
    #![allow(missing_docs)]
    use kondition::{Conditions, KubeStatus};
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A gadget's desired state.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Gadget",
        namespaced,
        status = "GadgetStatus"
    )]
    pub struct GadgetSpec {
        /// How big.
        pub size: i64,
    }

    /// The old status: `phase` as the new one, and `port`, dropped since.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
    #[kondition(resource = Gadget, conditions(Ready))]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        #[serde(default)]
        pub conditions: Conditions,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
        #[serde(default)]
        pub phase: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub endpoint: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub port: Option<i64>,
    }
}

/// The new CRD: the new kind's, with `status.phase` required.
fn crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(new::Gadget::crd()).expect("CRD JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    assert!(
        status["properties"]["phase"].is_object() && status["properties"]["port"].is_null(),
        "{status:#}"
    );
    // Required, with no default for the server to fill in.
    status["required"] = json!(["phase"]);
    if let Some(phase) = status["properties"]["phase"].as_object_mut() {
        phase.remove("default");
    }
    serde_json::from_value(crd).expect("a CRD")
}

/// The backoff of both replicas: longer than any test run, so that the old replica's full
/// apply is never retried within it.
fn policy() -> RequeuePolicy {
    RequeuePolicy {
        backoff_initial: Duration::from_secs(3600),
        backoff_max: Duration::from_secs(3600),
        ..RequeuePolicy::default()
    }
}

/// A replica's chokepoint on `client`, recording Events as instance `instance` of the
/// operator (both replicas are the same controller, as in a Deployment).
fn replica<K>(client: &Client, instance: &str) -> StatusReconciler<K>
where
    K: StatusResource
        + Clone
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static,
{
    let reporter = Reporter {
        controller: "gadget-controller".into(),
        instance: Some(instance.into()),
    };
    StatusReconciler::new(client.clone())
        .recorder(Recorder::new(client.clone(), reporter))
        .requeue_policy(policy())
}

/// One reconcile of the object `name` as stored (read by the administrator) through
/// `reconciler`, whose body sets what `set` sets.
async fn reconcile<K>(env: &TestEnv, reconciler: &StatusReconciler<K>, name: &str, set: fn(&mut K))
where
    K: StatusResource
        + Clone
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>
        + Send
        + Sync
        + 'static,
{
    let object: K = Api::namespaced(env.admin.clone(), &env.namespace)
        .get_status(name)
        .await
        .expect("stored");
    reconciler
        .reconcile(Arc::new(object), async |g: &mut K| -> Result<(), Failure> {
            set(g);
            Ok(())
        })
        .await
        .expect("written");
}

/// What a replica sent and recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Figures {
    /// Status applies the server took (full, fallback, release).
    writes: usize,
    /// Status applies the server refused.
    rejected: usize,
    /// Events recorded.
    events: usize,
}

async fn figures(env: &TestEnv, requests: &Requests, instance: &str) -> Figures {
    let patches = requests.all();
    let status = |ok: bool| {
        patches
            .iter()
            .filter(|r| r.method == "PATCH" && r.path.ends_with("/status"))
            .filter(|r| r.status.is_some_and(|s| (200..300).contains(&s)) == ok)
            .count()
    };
    let events = recorded_events(&env.admin, &env.namespace)
        .await
        .iter()
        .filter(|e| e.reporting_instance.as_deref() == Some(instance))
        .count();
    Figures {
        writes: status(true),
        rejected: status(false),
        events,
    }
}

fn ready(object: &Value) -> (String, String) {
    let ready = object["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
        .cloned()
        .unwrap_or(Value::Null);
    let text = |key: &str| ready[key].as_str().unwrap_or_default().to_owned();
    (text("status"), text("reason"))
}

/// The rolling upgrade with an old replica of kind `Old` (whose body sets what `old_body`
/// sets), whose status the new CRD rejects with `code`: the new replica settles the object,
/// the spec changes, then 100 reconciles alternate between the old replica and the new one.
/// Returns the figures of each replica (old, new) after 10 and after 100 reconciles; checks
/// that the new replica's status stands at the end, with nothing left to the fallback manager.
async fn upgrade_window<Old>(old_body: fn(&mut Old), code: u16) -> Vec<(Figures, Figures)>
where
    Old: StatusResource
        + Clone
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + kube::Resource<Scope = kube::core::NamespaceResourceScope, DynamicType = ()>
        + Send
        + Sync
        + 'static,
{
    let env = TestEnv::new([crd()]).await;
    let old_identity = env.identity("old-replica", env.rules()).await;
    let new_replica = replica::<new::Gadget>(&env.client, "new");
    let old_replica = replica::<Old>(&old_identity.client, "old");
    let new_body = |g: &mut new::Gadget| {
        let status = g.status_or_insert();
        status.phase = "Running".into();
        status.endpoint = Some("gadget:8443".into());
    };
    let api: Api<new::Gadget> = env.api();
    let gadget = new::Gadget::new("g1", new::GadgetSpec { size: 1 });
    api.create(&PostParams::default(), &gadget)
        .await
        .expect("created");
    // Before the window: the object as the new version keeps it.
    reconcile(&env, &new_replica, "g1", new_body).await;
    // The spec changes: both replicas have a new generation to report.
    api.patch(
        "g1",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"size": 2}})),
    )
    .await
    .expect("spec changed");
    let before = figures(&env, &env.requests, "new").await;
    assert_eq!(
        before,
        Figures {
            writes: 1,
            rejected: 0,
            events: 1
        }
    );

    let mut taken = Vec::new();
    for round in 1..=50 {
        reconcile(&env, &old_replica, "g1", old_body).await;
        if round == 1 {
            let stored =
                serde_json::to_value(api.get_status("g1").await.expect("stored")).expect("JSON");
            assert_eq!(
                ready(&stored),
                ("False".to_owned(), "StatusRejected".to_owned()),
                "the old replica's fallback"
            );
            let rejected = old_identity.requests.all();
            assert_eq!(
                rejected
                    .iter()
                    .filter_map(|r| r.status)
                    .filter(|s| *s >= 400)
                    .collect::<Vec<_>>(),
                [code],
                "the old replica's full apply, refused: {rejected:#?}"
            );
        }
        reconcile(&env, &new_replica, "g1", new_body).await;
        if round == 5 || round == 50 {
            let old = figures(&env, &old_identity.requests, "old").await;
            let mut new = figures(&env, &env.requests, "new").await;
            new.writes -= before.writes;
            new.events -= before.events;
            taken.push((old, new));
        }
    }
    let stored = serde_json::to_value(api.get_status("g1").await.expect("stored")).expect("JSON");
    assert_eq!(
        ready(&stored),
        ("True".to_owned(), "Succeeded".to_owned()),
        "the new replica's status stands"
    );
    assert_eq!(stored["status"]["phase"], "Running");
    assert_eq!(stored["status"]["observedGeneration"], 2);
    let fallback = fallback_owner::<new::Gadget>();
    assert!(
        stored["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|m| m["manager"] != fallback.as_str()),
        "nothing left to the fallback manager: {stored:#}"
    );
    taken
}

/// What the two replicas did in the window, as the test asserts it: the old replica's full
/// apply refused once and its fallback written once (one Event, StatusRejected); the new
/// replica's full apply over it and the release of the fallback manager (one Event, Ready
/// True again); nothing more in the 98 reconciles after, the same after 10 as after 100.
fn assert_settled(taken: &[(Figures, Figures)]) {
    let old = Figures {
        writes: 1,
        rejected: 1,
        events: 1,
    };
    let new = Figures {
        writes: 2,
        rejected: 0,
        events: 1,
    };
    assert_eq!(taken, [(old, new), (old, new)]);
}

#[tokio::test]
async fn an_old_replica_lacking_a_required_field_and_the_new_one_settle() {
    let taken = upgrade_window::<lacking::Gadget>(
        |g| g.status_or_insert().endpoint = Some("gadget:80".into()),
        422,
    )
    .await;
    eprintln!("lacking a required field: (old, new) after 10 and after 100 reconciles: {taken:#?}");
    assert_settled(&taken);
}

#[tokio::test]
async fn an_old_replica_sending_an_undeclared_field_and_the_new_one_settle() {
    let taken = upgrade_window::<extra::Gadget>(
        |g| {
            let status = g.status_or_insert();
            status.phase = "Running".into();
            status.endpoint = Some("gadget:8443".into());
            status.port = Some(8443);
        },
        500,
    )
    .await;
    eprintln!(
        "sending an undeclared field: (old, new) after 10 and after 100 reconciles: {taken:#?}"
    );
    assert_settled(&taken);
}
