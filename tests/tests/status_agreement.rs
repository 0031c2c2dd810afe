//! The offline checker agrees with the real API server (`kondition_tests::cluster`'s
//! kube-apiserver) on which statuses it refuses with 422 and where: a CRD whose status states
//! schema constraints (enum, pattern, maxLength, bounds, type, format, required, maxItems,
//! list-type map and set) and CEL rules (on the status and on a list item's field) is
//! installed; each status below is sent through the status subresource (a merge patch on a
//! fresh object); the server's refusals are compared with the checker's error-level
//! violations, field path by field path, and the statuses the server takes with no error from
//! the checker.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::check::{Checker, Level};
use kondition_tests::cluster::TestEnv;
use kube::api::{ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use serde_json::{Value, json};

fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "probes.agree.kondition.dev"},
        "spec": {
            "group": "agree.kondition.dev",
            "names": {"kind": "Probe", "plural": "probes", "singular": "probe", "listKind": "ProbeList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "status": status_schema(),
                    },
                }},
            }],
        },
    })
}

/// The status' schema: constraints and CEL rules.
fn status_schema() -> Value {
    json!({
        "type": "object",
        "x-kubernetes-validations": [{
            "rule": "!has(self.ready) || !self.ready || (has(self.replicas) && self.replicas > 0)",
            "message": "a ready probe has replicas",
        }],
        "properties": {
            "phase": {"type": "string", "enum": ["Pending", "Running", "Done"]},
            "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$", "maxLength": 10},
            "replicas": {"type": "integer", "minimum": 0, "maximum": 5},
            "ready": {"type": "boolean"},
            "at": {"type": "string", "format": "date-time"},
            "ports": {
                "type": "array", "maxItems": 2,
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {
                    "type": "object", "required": ["name"],
                    "properties": {
                        "name": {"type": "string"},
                        "port": {"type": "integer", "x-kubernetes-validations": [
                            {"rule": "self >= 1024", "message": "unprivileged ports only"},
                        ]},
                    },
                },
            },
            "tags": {"type": "array", "x-kubernetes-list-type": "set",
                     "items": {"type": "string"}},
            // gitops-promoter's URLs (corpus/), whose CEL rule status_check.rs breaks.
            "url": {"type": "string", "pattern": "^(https?://.*)?$",
                    "x-kubernetes-validations": [
                        {"rule": "self == '' || isURL(self)", "message": "must be a valid URL"},
                    ]},
        },
    })
}

/// The statuses sent: each takes or breaks one rule (or none, or only what is pruned).
fn statuses() -> Vec<Value> {
    vec![
        json!({"phase": "Running", "name": "web", "replicas": 3, "ready": true,
               "at": "2024-01-02T03:04:05Z", "ports": [{"name": "http", "port": 8080}],
               "tags": ["a", "b"]}),
        json!({"replicas": 0, "ready": false}),
        json!({"phase": "Done", "extra": 1}),
        json!({"phase": "Sleeping"}),
        json!({"name": "Web!"}),
        json!({"name": "abcdefghijkl"}),
        json!({"replicas": 9}),
        json!({"replicas": -1}),
        json!({"replicas": "3"}),
        json!({"ready": "yes"}),
        json!({"at": "yesterday"}),
        json!({"ready": true, "replicas": 0}),
        json!({"ports": [{"name": "a", "port": 80}]}),
        json!({"ports": [{"name": "a", "port": 2000}, {"name": "a", "port": 2001}]}),
        json!({"ports": [{"port": 2000}]}),
        json!({"ports": [{"name": "a", "port": 2000}, {"name": "b", "port": 2001},
                         {"name": "c", "port": 2002}]}),
        json!({"tags": ["a", "a"]}),
        json!({"url": "https://example.com/pulls/1"}),
        json!({"url": "http://[::1"}),
        json!({"phase": "Sleeping", "replicas": 9, "name": "Web!"}),
        // A value outside the enum keeps the server from evaluating the CEL rules; a pattern
        // does not.
        json!({"phase": "Sleeping", "ready": true, "replicas": 0}),
        json!({"name": "Web!", "ready": true, "replicas": 0}),
    ]
}

/// The server's words when schema errors keep it from evaluating the CEL rules.
const NOT_EVALUATED: &str = "Invalid value: null: some validation rules were not checked because the \
                             object was invalid; correct the existing errors to complete validation";

#[tokio::test]
async fn the_checker_refuses_what_the_server_refuses_at_the_same_paths() {
    let crd_json = crd();
    let crd: CustomResourceDefinition = serde_json::from_value(crd_json).expect("a CRD");
    let env = TestEnv::new([crd.clone()]).await;
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("agree.kondition.dev", "v1", "Probe"),
        "probes",
    );
    let api: kube::Api<DynamicObject> =
        kube::Api::namespaced_with(env.admin.clone(), &env.namespace, &resource);
    let checker = Checker::new().crd(&crd);
    let (mut accepted, mut refused, mut not_evaluated) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for (index, status) in statuses().into_iter().enumerate() {
        let name = format!("probe-{index}");
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "agree.kondition.dev/v1", "kind": "Probe",
            "metadata": {"name": name}, "spec": {},
        }))
        .expect("an object");
        api.create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let answer = api
            .patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": status})),
            )
            .await;
        let mut server: Vec<String> = match answer {
            Ok(_) => {
                accepted += 1;
                Vec::new()
            }
            Err(kube::Error::Api(error)) if error.code == 422 => {
                refused += 1;
                let causes: Vec<_> = error.details.iter().flat_map(|d| &d.causes).collect();
                // A cause without a field says the CEL rules were not evaluated because the
                // schema refused the object already; the checker evaluates them anyway.
                for cause in causes.iter().filter(|c| c.field == "<nil>") {
                    assert_eq!(cause.message, NOT_EVALUATED, "{status}");
                    not_evaluated += 1;
                }
                causes
                    .iter()
                    .filter(|c| c.field != "<nil>")
                    .map(|c| c.field.clone())
                    .collect()
            }
            Err(other) => panic!("{name}: {other}"),
        };
        let found = checker.check(&json!({
            "apiVersion": "agree.kondition.dev/v1", "kind": "Probe",
            "metadata": {"name": name}, "status": status,
        }));
        let mut offline: Vec<String> = found
            .iter()
            .filter(|v| v.level == Level::Fail && v.rule.starts_with("schema-"))
            .map(|v| v.path.trim_start_matches('.').to_owned())
            .collect();
        server.sort();
        server.dedup();
        offline.sort();
        offline.dedup();
        println!("{status}: server {server:?}, checker {offline:?}");
        if server != offline {
            disagreements.push(format!(
                "{status}: the server refused at {server:?}, the checker at {offline:?}: {found:#?}"
            ));
        }
    }
    println!(
        "{accepted} statuses accepted, {refused} refused with 422 ({not_evaluated} saying the \
         CEL rules were not evaluated)"
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert_eq!((accepted, refused), (4, 18));
}
