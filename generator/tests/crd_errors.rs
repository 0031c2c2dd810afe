//! Bad CRDs: every problem reported as `path:line:col: message`, nothing generated.

use std::path::Path;

use kondition_gen::load::read_crd_text;

/// The problems in `text`, one `line:col: message` per line.
fn problems(text: &str) -> String {
    match read_crd_text(Path::new("crd.yaml"), text) {
        Ok(_) => String::new(),
        Err(diagnostics) => diagnostics
            .to_string()
            .lines()
            .map(|l| l.trim_start_matches("crd.yaml:").to_owned() + "\n")
            .collect(),
    }
}

const HEAD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n";

fn crd(spec: &str) -> String {
    format!("{HEAD}spec:\n{spec}")
}

const GOOD_SPEC: &str = "  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object}\n";

#[test]
fn a_good_crd_reads_and_other_documents_are_noted() {
    let text = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\n{}",
        crd(GOOD_SPEC)
    );
    let (file, notes) = read_crd_text(Path::new("crd.yaml"), &text).expect("reads");
    assert_eq!(file.kinds.len(), 1);
    assert_eq!(file.kinds[0].kind, "Widget");
    let notes: Vec<String> = notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        notes,
        ["crd.yaml:1:1: note: skipped a Namespace: only CustomResourceDefinitions are read"]
    );
}

#[test]
fn only_apiextensions_v1_is_read() {
    let text = crd(GOOD_SPEC).replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1");
    assert_eq!(
        problems(&text),
        "1:13: `apiVersion: apiextensions.k8s.io/v1beta1` is not read; convert the CRD to apiextensions.k8s.io/v1 (the only version the API server still serves)\n"
    );
}

#[test]
fn missing_and_mistyped_keys_are_placed() {
    let text = crd("  names: {kind: Widget}\n  scope: Global\n  versions: []\n");
    assert_eq!(
        problems(&text),
        "6:3: a CRD's spec needs `group`\n6:10: `names` needs `plural`\n7:10: `scope` must be Namespaced or Cluster\n"
    );
}

#[test]
fn a_kind_must_be_able_to_become_a_type() {
    let text = crd(&GOOD_SPEC.replace("kind: Widget", "kind: my-widget"));
    assert_eq!(
        problems(&text),
        "7:17: kind `my-widget` must be PascalCase (a capital letter, then letters and digits) to become a Rust type\n"
    );
}

#[test]
fn exactly_one_version_is_stored() {
    let spec = GOOD_SPEC.to_owned()
        + "  - name: v2\n    served: true\n    storage: true\n  - name: v2\n    served: yes\n    storage: false\n";
    assert_eq!(
        problems(&crd(&spec)),
        "6:3: exactly one version must have `storage: true`; 2 do\n18:5: version `v2` is listed twice\n"
    );
}

#[test]
fn schema_types_and_api_validation() {
    let bad_type = GOOD_SPEC.replace(
        "{type: object}",
        "{type: object, properties: {a: {type: strng}}}",
    );
    assert_eq!(
        problems(&crd(&bad_type)),
        "14:62: `type: strng` is not a JSON Schema type Kubernetes allows (string, integer, number, boolean, array, object)\n"
    );
    let not_a_crd = GOOD_SPEC.replace("served: true", "served: {}");
    assert_eq!(
        problems(&crd(&not_a_crd)),
        "11:13: `served` must be true or false, found a mapping\n"
    );
    let bad_schema = GOOD_SPEC.replace("{type: object}", "{type: object, required: true}");
    assert_eq!(
        problems(&crd(&bad_schema)),
        "10:5: version `v1` is not a valid CustomResourceDefinition version: invalid type: boolean `true`, expected a sequence\n"
    );
    let bad_spec = GOOD_SPEC.replace(
        "scope: Namespaced",
        "scope: Namespaced\n  conversion: {strategy: 5}",
    );
    assert_eq!(
        problems(&crd(&bad_spec)),
        "6:3: this is not a valid CustomResourceDefinition spec: invalid type: integer `5`, expected a string\n"
    );
}

#[test]
fn a_file_without_crds_and_a_kind_defined_twice() {
    assert_eq!(
        problems("apiVersion: v1\nkind: Namespace\n"),
        " the file holds no CustomResourceDefinition\n"
    );
    let twice = format!("{}---\n{}", crd(GOOD_SPEC), crd(GOOD_SPEC));
    assert_eq!(
        problems(&twice),
        "16:1: Widget.example.com is defined twice (first at line 1)\n"
    );
}

/// The versions of a CRD are read in parallel (issue 28): the problems of each, and of the
/// versions left out, are all reported, each at its place.
#[test]
fn every_versions_problems_are_reported_when_read_in_parallel() {
    let spec = "  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n\
        \x20 - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, properties: {a: {type: strin}}}\n\
        \x20 - name: V2\n    served: true\n    storage: false\n\
        \x20 - served: true\n    storage: false\n\
        \x20 - name: v1\n    served: true\n    storage: false\n\
        \x20 - name: v3\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, properties: {b: {type: objekt}}}\n";
    assert_eq!(
        problems(&crd(spec)),
        "6:3: exactly one version must have `storage: true`; 2 do\n\
         14:62: `type: strin` is not a JSON Schema type Kubernetes allows (string, integer, number, boolean, array, object)\n\
         15:5: version `V2` must be a DNS label such as v1\n\
         18:5: a version needs `name`\n\
         20:5: version `v1` is listed twice\n\
         27:62: `type: objekt` is not a JSON Schema type Kubernetes allows (string, integer, number, boolean, array, object)\n"
    );
}
