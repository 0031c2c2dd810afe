//! Every name the generator makes up for a kind (`<Kind>Reason`, the derive's
//! `<Kind>StatusApply` and `<Kind>StatusConditionType`, the spec's and status' types) is
//! kept from the names it gives schema types by their path: a CRD whose fields are named so
//! that their types would take each of those names, in two versions (so that some types go
//! to `shared`) and beside a second kind, generates a crate that compiles, with each field's
//! value read and written back.

#[allow(dead_code)] // The scratch folders and the build-and-run only.
mod support;

use kondition_gen::emit;
use kondition_gen::profile::Profiles;
use serde_json::json;

/// A CRD of `kind` whose standard status sits beside spec fields named after the types the
/// generator makes up for the kind.
fn crd(kind: &str, plural: &str) -> String {
    let version = |name: &str, storage: bool| {
        format!(
            r#"  - name: {name}
    served: true
    storage: {storage}
    subresources: {{status: {{}}}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              reason: {{type: string, enum: [Fast, Slow]}}
              statusApply:
                type: object
                properties:
                  target: {{type: string}}
              statusConditionType: {{type: string, enum: [Left, Right]}}
              status:
                type: object
                properties:
                  phase: {{type: string}}
              spec:
                type: object
                properties:
                  size: {{type: integer, format: int32}}
          status:
            type: object
            properties:
              observedGeneration: {{type: integer, format: int64}}
              reason: {{type: string, enum: [Up, Down]}}
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [lastTransitionTime, message, reason, status, type]
                  properties:
                    lastTransitionTime: {{type: string, format: date-time}}
                    message: {{type: string}}
                    observedGeneration: {{type: integer, format: int64}}
                    reason: {{type: string}}
                    status: {{type: string, enum: ["True", "False", Unknown]}}
                    type: {{type: string}}
"#
        )
    };
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.example.com\nspec:\n  group: example.com\n  names: {{kind: {kind}, plural: {plural}}}\n  scope: Namespaced\n  versions:\n{}{}",
        version("v1", false),
        version("v2", true)
    )
}

#[test]
fn names_the_generator_makes_up_are_kept_from_schema_types() {
    let dir = support::scratch("reserved-names");
    let path = dir.join("bundle.yaml");
    std::fs::write(
        &path,
        crd("Widget", "widgets") + "---\n" + &crd("Gadget", "gadgets"),
    )
    .expect("write");
    let model = kondition_gen::load::load(
        std::slice::from_ref(&path),
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect("loads");
    let files = emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("emits");
    let object = json!({
        "apiVersion": "example.com/v2",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {
            "reason": "Fast",
            "statusApply": {"target": "t"},
            "statusConditionType": "Left",
            "status": {"phase": "p"},
            "spec": {"size": 1}
        },
        "status": {
            "observedGeneration": 1,
            "reason": "Up",
            "conditions": [{"type": "Ready", "status": "True", "reason": "Done", "message": "",
                            "lastTransitionTime": "2024-01-01T00:00:00Z"}]
        }
    });
    let mut gadget = object.clone();
    gadget["kind"] = json!("Gadget");
    gadget["apiVersion"] = json!("example.com/v1");
    // build_and_run compiles the crate and asserts each object comes back as it went in.
    support::build_and_run(
        &dir.join("crate"),
        &files,
        &[
            ("bundle::v2::Widget".to_owned(), object),
            ("bundle::v1::Gadget".to_owned(), gadget),
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
