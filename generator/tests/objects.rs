//! Objects come back as they went in, on a CRD made of what used to change: a root field
//! that is optional (no `spec: {}` or `operation: {}` added), unknown keys under
//! `x-kubernetes-preserve-unknown-fields` (kept, in place, the root's included), explicit nulls in nullable fields
//! (kept apart from absent), and date-times with fractions and offsets (kept as text). Every
//! object `kondition_testkit::objects` synthesizes from it (full, minimal, nulls) and a few
//! written by hand are read into the generated types and written back unchanged.

#[allow(dead_code)] // Only what this test needs of the random tests' support.
mod support;

use kondition_gen::profile::Profiles;
use kondition_testkit::objects::{self, Sample};
use serde_json::{Value, json};

fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "applications.argoproj.example.com"},
        "spec": {
            "group": "argoproj.example.com",
            "names": {"kind": "Application", "plural": "applications"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["project"],
                            "properties": {
                                "project": {"type": "string"},
                                "values": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": true,
                                    "properties": {"replicas": {"type": "integer", "nullable": true}}
                                },
                                "paused": {"type": "boolean", "nullable": true},
                                "timeout": {"type": "number", "nullable": true},
                                "when": {"type": "string", "format": "date-time"},
                                "port": {"x-kubernetes-int-or-string": true},
                                "template": {
                                    "type": "object",
                                    "x-kubernetes-embedded-resource": true,
                                    "x-kubernetes-preserve-unknown-fields": true,
                                    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}
                                }
                            }
                        },
                        "operation": {
                            "type": "object",
                            "properties": {"sync": {"type": "object", "properties": {"prune": {"type": "boolean"}}}}
                        },
                        "status": {
                            "type": "object",
                            "properties": {"reconciledAt": {"type": "string", "format": "date-time"}}
                        }
                    }
                }}
            }]
        }
    })
}

#[test]
fn synthesized_and_written_objects_come_back_unchanged() {
    let crd = crd();
    let dir = support::scratch("objects");
    let path = dir.join("application.yaml");
    std::fs::write(&path, serde_json::to_string_pretty(&crd).expect("JSON")).expect("write");
    let model = kondition_gen::load::load(
        std::slice::from_ref(&path),
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect("a valid CRD");
    let files = kondition_gen::emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("generates");
    let ty = "application::v1alpha1::Application".to_owned();
    let mut samples: Vec<(String, Value)> = Sample::ALL
        .iter()
        .map(|&which| {
            let object = objects::object(&crd, "v1alpha1", which).expect("an object");
            (ty.clone(), object)
        })
        .collect();
    let head = json!({
        "apiVersion": "argoproj.example.com/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "a", "namespace": "default"},
    });
    let with = |extra: Value| {
        let mut object = head.clone();
        if let (Value::Object(object), Value::Object(extra)) = (&mut object, extra) {
            object.extend(extra);
        }
        (ty.clone(), object)
    };
    // Nothing but metadata: no spec, operation or status appears.
    samples.push(with(json!({})));
    samples.push(with(json!({"operation": {}})));
    samples.push(with(json!({"spec": {
        "project": "p",
        "values": {"replicas": null, "image": {"tag": "v1"}, "list": [1, null]},
        "paused": null,
        "when": "2024-01-02T03:04:05.123456789-07:00",
        "template": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}
    }})));
    samples.push(with(
        json!({"status": {"reconciledAt": "2024-01-02T03:04:05Z"}}),
    ));
    // The root preserves unknown fields too.
    samples.push(with(
        json!({"data": {"k": "v"}, "extra": 1, "spec": {"project": "p"}}),
    ));
    // build_and_run asserts that every object comes back exactly as it went in.
    let printed = support::build_and_run(&dir.join("crate"), &files, &samples);
    support::assert_same_crds(&printed["crds"], &[crd]);
}
