//! The behaviours of server-side apply and validation the status chokepoint relies on,
//! pinned against the API server's own libraries (structured-merge-diff's merge and
//! kube-openapi's validator, behind the fake cluster), through a real `kube::Client`:
//! two managers' conditions kept apart in one list, force taking a field, the fallback's
//! reduced apply and its release, an identical re-apply writing nothing, a condition left
//! holding only its `type`, and statuses that break the CRD's schema.

use std::sync::Arc;

use kondition::controller::{StatusReconciler, fallback_owner};
use kondition::{Conditions, Failure, KubeStatus, StatusResource};
use kondition_tests::fake_cluster::FakeCluster;
use kube::api::{Patch, PatchParams};
use kube::{Api, CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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

/// A gadget's observed state, with fields the CRD's schema constrains beyond the
/// conditions: what the chokepoint cannot check before sending.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Gadget, conditions(Ready, Synced))]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers: host:port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^[a-z0-9.-]+:[0-9]+$", "maxLength" = 64))]
    pub endpoint: Option<String>,
    /// Its phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["Pending", "Running"]))]
    pub phase: Option<String>,
}

const CONTROLLER: &str = "example.com/gadget-controller";
const OTHER: &str = "sync-agent";
const TIME: &str = "2026-01-01T00:00:00Z";

fn cluster() -> (FakeCluster, Api<Gadget>) {
    let cluster = FakeCluster::new(&Gadget::crd(), "team-a", 1);
    cluster.create("g1", json!({"size": 3}));
    let api = Api::namespaced(cluster.client(), "team-a");
    (cluster, api)
}

fn condition(type_: &str, status: &str, reason: &str) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": "",
           "lastTransitionTime": TIME, "observedGeneration": 1})
}

/// `PATCH .../g1/status` as a server-side apply of `status` by `manager`.
async fn apply(
    api: &Api<Gadget>,
    manager: &str,
    force: bool,
    status: Value,
) -> Result<Gadget, kube::Error> {
    let mut params = PatchParams::apply(manager);
    params.force = force;
    let mut body = json!({"apiVersion": "example.com/v1", "kind": "Gadget",
                          "metadata": {"name": "g1", "namespace": "team-a"}});
    if !status.is_null() {
        body["status"] = status;
    }
    api.patch_status("g1", &params, &Patch::Apply(body)).await
}

fn stored(cluster: &FakeCluster) -> Value {
    cluster.objects().remove("g1").expect("stored")
}

/// The `fieldsV1` of `manager`'s status entry, if it has one.
fn fields_of(object: &Value, manager: &str) -> Option<Value> {
    object["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|e| e["manager"] == manager && e["subresource"] == "status")
        .map(|e| e["fieldsV1"].clone())
}

fn condition_types(object: &Value) -> Vec<String> {
    object["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn api_error(result: Result<Gadget, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn two_managers_keep_their_own_conditions_in_one_list() {
    let (cluster, api) = cluster();
    let ready = condition("Ready", "True", "Succeeded");
    let synced = condition("Synced", "True", "UpToDate");
    apply(&api, CONTROLLER, true, json!({"conditions": [ready]}))
        .await
        .expect("controller");
    apply(&api, OTHER, false, json!({"conditions": [synced]}))
        .await
        .expect("another manager, no conflict: another key of the list");
    let object = stored(&cluster);
    assert_eq!(condition_types(&object), ["Ready", "Synced"]);
    let ready_key = r#"k:{"type":"Ready"}"#;
    let synced_key = r#"k:{"type":"Synced"}"#;
    let controller = fields_of(&object, CONTROLLER).expect("controller's entry");
    let other = fields_of(&object, OTHER).expect("other's entry");
    assert!(
        controller["f:status"]["f:conditions"]
            .get(ready_key)
            .is_some()
    );
    assert!(
        controller["f:status"]["f:conditions"]
            .get(synced_key)
            .is_none()
    );
    assert!(other["f:status"]["f:conditions"].get(synced_key).is_some());
    assert!(other["f:status"]["f:conditions"].get(ready_key).is_none());

    // The controller applying its list again, without Synced, leaves the other's alone.
    apply(&api, CONTROLLER, true, json!({"conditions": [ready]}))
        .await
        .expect("controller again");
    assert_eq!(condition_types(&stored(&cluster)), ["Ready", "Synced"]);
    // And the other manager dropping Synced removes it: nobody else owns it.
    apply(&api, OTHER, false, json!({"conditions": []}))
        .await
        .expect("other without Synced");
    assert_eq!(condition_types(&stored(&cluster)), ["Ready"]);
}

#[tokio::test]
async fn force_takes_a_field_that_another_manager_owns() {
    let (cluster, api) = cluster();
    apply(&api, CONTROLLER, true, json!({"endpoint": "a.example:443"}))
        .await
        .expect("controller");
    let conflict = api_error(apply(&api, OTHER, false, json!({"endpoint": "b.example:443"})).await);
    assert_eq!((conflict.code, conflict.reason.as_str()), (409, "Conflict"));
    let causes = conflict.details.expect("details").causes;
    assert_eq!(causes.len(), 1);
    assert_eq!(causes[0].field, ".status.endpoint");
    assert_eq!(causes[0].reason, "FieldManagerConflict");
    assert_eq!(
        causes[0].message,
        format!(r#"conflict with "{CONTROLLER}" with subresource "status""#)
    );
    assert_eq!(cluster.stats().apply_conflicts, 1);
    assert_eq!(stored(&cluster)["status"]["endpoint"], "a.example:443");

    apply(&api, OTHER, true, json!({"endpoint": "b.example:443"}))
        .await
        .expect("forced");
    let object = stored(&cluster);
    assert_eq!(object["status"]["endpoint"], "b.example:443");
    assert!(fields_of(&object, OTHER).expect("other")["f:status"]["f:endpoint"].is_object());
    // The controller owned nothing else: it lost its entry.
    assert_eq!(fields_of(&object, CONTROLLER), None);

    // The same value applied by both is shared, not taken: no conflict without force.
    apply(
        &api,
        CONTROLLER,
        false,
        json!({"endpoint": "b.example:443"}),
    )
    .await
    .expect("same value, shared");
    let object = stored(&cluster);
    assert!(fields_of(&object, CONTROLLER).is_some() && fields_of(&object, OTHER).is_some());
}

#[tokio::test]
async fn the_fallbacks_reduced_apply_and_its_release() {
    let (cluster, api) = cluster();
    let fallback = fallback_owner::<Gadget>();
    let full = json!({"observedGeneration": 1, "endpoint": "a.example:443",
                      "conditions": [condition("Ready", "True", "Succeeded")]});
    apply(&api, CONTROLLER, true, full.clone())
        .await
        .expect("full");
    // The fallback: conditions only, Ready False with a severity, forced.
    let mut rejected = condition("Ready", "False", "StatusRejected");
    rejected["severity"] = json!("Warning");
    apply(&api, &fallback, true, json!({"conditions": [rejected]}))
        .await
        .expect("fallback");
    let object = stored(&cluster);
    assert_eq!(
        object["status"]["conditions"][0]["reason"],
        "StatusRejected"
    );
    assert_eq!(
        object["status"]["observedGeneration"], 1,
        "the fallback leaves the rest of the status alone"
    );
    let owned = fields_of(&object, &fallback).expect("fallback's entry");
    let ready = &owned["f:status"]["f:conditions"][r#"k:{"type":"Ready"}"#];
    // It took what it changed; what it set to the same value is shared.
    for field in ["f:status", "f:reason", "f:severity", "f:type"] {
        assert!(ready.get(field).is_some(), "{field} in {owned}");
    }

    // The full apply again takes its fields back, but not the severity it never applied.
    apply(&api, CONTROLLER, true, full)
        .await
        .expect("full again");
    let object = stored(&cluster);
    assert_eq!(object["status"]["conditions"][0]["reason"], "Succeeded");
    assert_eq!(
        object["status"]["conditions"][0]["severity"], "Warning",
        "left behind by the fallback until its release"
    );
    // The release (identity only) frees the severity and the fallback's entry.
    apply(&api, &fallback, true, Value::Null)
        .await
        .expect("release");
    let object = stored(&cluster);
    assert_eq!(object["status"]["conditions"][0].get("severity"), None);
    assert_eq!(fields_of(&object, &fallback), None);
    assert_eq!(cluster.stats().releases, 1);

    // What the chokepoint sent before: `status: {}` makes the fallback own `status` itself.
    apply(&api, &fallback, true, json!({}))
        .await
        .expect("empty status");
    assert_eq!(
        fields_of(&stored(&cluster), &fallback),
        Some(json!({"f:status": {}}))
    );
}

#[tokio::test]
async fn an_identical_reapply_changes_nothing() {
    let (cluster, api) = cluster();
    let status = json!({"observedGeneration": 1, "endpoint": "a.example:443",
                        "conditions": [condition("Ready", "True", "Succeeded")]});
    let first = apply(&api, CONTROLLER, true, status.clone())
        .await
        .expect("first");
    let again = apply(&api, CONTROLLER, true, status).await.expect("again");
    assert_eq!(
        first.metadata.resource_version,
        again.metadata.resource_version
    );
    assert_eq!(
        first.metadata.managed_fields, again.metadata.managed_fields,
        "not even the entry's time moves"
    );
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.unchanged_applies), (1, 1));
}

/// When the fallback took every field of a condition but its key and then releases them
/// without the controller applying the condition again, the item would be left holding only
/// `type` (the controller still owns the item and its key): the schema requires status,
/// reason, message and lastTransitionTime, so the API server refuses the release with 422.
/// The chokepoint never gets there: it releases only right after a full apply succeeded,
/// and that apply re-owns every field of every condition it sends.
#[tokio::test]
async fn a_release_that_would_leave_only_the_type_is_refused() {
    let (cluster, api) = cluster();
    let fallback = fallback_owner::<Gadget>();
    let mut ready = condition("Ready", "True", "Succeeded");
    ready["message"] = json!("all good");
    apply(&api, CONTROLLER, true, json!({"conditions": [ready]}))
        .await
        .expect("controller");
    let mut rejected = condition("Ready", "False", "StatusRejected");
    rejected["message"] = json!("rejected");
    rejected["lastTransitionTime"] = json!("2026-01-01T00:01:00Z");
    rejected["observedGeneration"] = json!(2);
    apply(&api, &fallback, true, json!({"conditions": [rejected]}))
        .await
        .expect("fallback takes every field but the key");
    let owned = fields_of(&stored(&cluster), CONTROLLER).expect("controller");
    assert_eq!(
        owned["f:status"]["f:conditions"][r#"k:{"type":"Ready"}"#],
        json!({".": {}, "f:type": {}}),
        "the controller is left owning the item and its key"
    );

    let refused = api_error(apply(&api, &fallback, true, Value::Null).await);
    assert_eq!((refused.code, refused.reason.as_str()), (422, "Invalid"));
    let fields: Vec<String> = refused
        .details
        .expect("details")
        .causes
        .into_iter()
        .map(|c| format!("{} {} {}", c.field, c.reason, c.message))
        .collect();
    // Debian's kube-openapi (2021) names a list item's field without its index; current
    // API servers say `status.conditions[0].status`.
    assert_eq!(
        fields,
        [
            "status.conditions.lastTransitionTime FieldValueRequired Required value",
            "status.conditions.message FieldValueRequired Required value",
            "status.conditions.reason FieldValueRequired Required value",
            "status.conditions.status FieldValueRequired Required value",
        ]
    );
    assert_eq!(
        stored(&cluster)["status"]["conditions"][0]["reason"],
        "StatusRejected"
    );
}

#[tokio::test]
async fn a_status_that_breaks_the_schema_is_refused_with_its_fields_named() {
    let (cluster, api) = cluster();
    let mut bad = condition("Ready", "False", "not-a-reason");
    bad["message"] = json!("x".repeat(32_769));
    bad["severity"] = json!("Fatal");
    let refused = api_error(
        apply(
            &api,
            CONTROLLER,
            true,
            json!({"conditions": [bad], "phase": "Exploded"}),
        )
        .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (422, "Invalid"));
    let causes: Vec<String> = refused
        .details
        .expect("details")
        .causes
        .into_iter()
        .map(|c| format!("{} {}", c.field, c.reason))
        .collect();
    assert_eq!(
        causes,
        [
            "status.conditions.message FieldValueTooLong",
            "status.conditions.reason FieldValueInvalid",
            "status.conditions.severity FieldValueNotSupported",
            "status.phase FieldValueNotSupported",
        ]
    );
    assert!(
        refused
            .message
            .starts_with(r#"Gadget.example.com "g1" is invalid: ["#),
        "{}",
        refused.message
    );
    assert!(refused.message.contains(
        r#"status.phase: Unsupported value: "Exploded": supported values: "Pending", "Running""#
    ));
    let stats = cluster.stats();
    assert_eq!((stats.writes, stats.invalid), (0, 1));
    assert_eq!(stored(&cluster).get("status"), None);
}

/// Through the chokepoint: a status whose endpoint breaks the CRD's pattern is refused by
/// the API server, and the fallback reports it in Ready with the API server's message.
#[tokio::test]
async fn a_status_the_schema_refuses_falls_back_to_its_conditions() {
    let (cluster, _) = cluster();
    let reconciler = StatusReconciler::<Gadget>::new(cluster.client());
    let object: Gadget = cluster.get("g1").expect("stored");
    reconciler
        .reconcile(Arc::new(object), async |g: &mut Gadget| {
            g.status_mut().endpoint = Some("not an endpoint".into());
            Ok::<(), Failure>(())
        })
        .await
        .expect("the fallback is written");
    let object = stored(&cluster);
    let ready = &object["status"]["conditions"][0];
    assert_eq!(
        (&ready["status"], &ready["reason"]),
        (&json!("False"), &json!("StatusRejected"))
    );
    assert_eq!(
        ready["message"],
        r#"the API server rejected the status: Gadget.example.com "g1" is invalid: status.endpoint: Invalid value: "not an endpoint": status.endpoint in body should match '^[a-z0-9.-]+:[0-9]+$'"#
    );
    assert_eq!(object["status"].get("endpoint"), None);
    assert_eq!(object["status"].get("observedGeneration"), None);
    assert!(fields_of(&object, &fallback_owner::<Gadget>()).is_some());
    let stats = cluster.stats();
    assert_eq!(
        (stats.invalid, stats.fallback_writes, stats.writes),
        (1, 1, 1)
    );

    // A valid endpoint later: the full apply lands and the fallback lets go.
    let object: Gadget = cluster.get("g1").expect("stored");
    reconciler
        .reconcile(Arc::new(object), async |g: &mut Gadget| {
            g.status_mut().endpoint = Some("g1.example:443".into());
            Ok::<(), Failure>(())
        })
        .await
        .expect("written");
    let object = stored(&cluster);
    assert_eq!(object["status"]["endpoint"], "g1.example:443");
    assert_eq!(fields_of(&object, &fallback_owner::<Gadget>()), None);
    assert_eq!(cluster.stats().releases, 1);
}
