//! A CRD version that serves no status subresource keeps its status in the main resource: a
//! status kondition drives there says so to the derive (`status_subresource = false`), so the
//! chokepoint writes the main resource; a status it does not drive gets nothing; the CRD is
//! given back as it was read.

use std::path::{Path, PathBuf};

use kondition_gen::emit::OutputFile;
use kondition_gen::profile::Profiles;
use serde_json::{Value, json};

mod layout;

/// A standard status in three versions: v1 with a status subresource, v1beta1 with
/// `subresources: {}`, v1alpha1 without `subresources`.
const GADGET: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/status_subresource/gadget.yaml"
);

/// Argo CD's Application (`subresources: {}`), whose conditions have no `status` or `reason`:
/// a status kondition does not drive.
const APPLICATION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../corpus/argo-cd/application-crd.yaml"
);

/// What `kondition generate` writes for `files`.
fn generate(files: &[&Path]) -> Vec<OutputFile> {
    let files: Vec<PathBuf> = files.iter().map(|f| f.to_path_buf()).collect();
    let model = kondition_gen::load::load(&files, &Profiles::embedded(), &Default::default())
        .expect("the inputs load");
    kondition_gen::emit::rust_tree(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        &Default::default(),
    )
    .expect("emits")
}

fn file<'t>(tree: &'t [OutputFile], path: &str) -> &'t str {
    tree.iter()
        .find(|f| f.path == Path::new(path))
        .map(|f| f.contents.as_str())
        .unwrap_or_else(|| panic!("no {path} among {:?}", paths(tree)))
}

fn paths(tree: &[OutputFile]) -> Vec<&Path> {
    tree.iter().map(|f| f.path.as_path()).collect()
}

/// The status struct of `module`'s version `version`: from its derives to its closing brace.
fn status_struct<'r>(rust: &'r str, version: &str) -> &'r str {
    let module = rust
        .split_once(&format!("\npub mod {version} {{\n"))
        .unwrap_or_else(|| panic!("no module {version}"))
        .1;
    let start = module
        .find("    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, KubeStatus)]")
        .unwrap_or_else(|| panic!("no status with KubeStatus in {version}"));
    let len = module[start..]
        .find("\n    }\n")
        .unwrap_or_else(|| panic!("the status of {version} does not end"));
    &module[start..start + len + "\n    }\n".len()]
}

/// The status the derive is given in a version with a status subresource.
const WITH_SUBRESOURCE: &str = r#"    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, KubeStatus)]
    #[serde(rename_all = "camelCase")]
    #[kondition(resource = Gadget, profile = "standard", conditions_without(severity))]
    pub struct GadgetStatus {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub conditions: Option<Conditions>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
"#;

/// The same status in a version without one.
const WITHOUT_SUBRESOURCE: &str = r#"    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, KubeStatus)]
    #[serde(rename_all = "camelCase")]
    #[kondition(
        resource = Gadget,
        profile = "standard",
        conditions_without(severity),
        status_subresource = false
    )]
    pub struct GadgetStatus {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub conditions: Option<Conditions>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
"#;

#[test]
fn a_version_without_a_status_subresource_says_so_to_the_derive() {
    let tree = generate(&[Path::new(GADGET)]);
    let rust = file(&tree, "gadget.rs");
    layout::assert_laid_out_by_prettyplease("gadget.rs", rust);
    assert_eq!(status_struct(rust, "v1"), WITH_SUBRESOURCE);
    assert_eq!(status_struct(rust, "v1beta1"), WITHOUT_SUBRESOURCE);
    assert_eq!(status_struct(rust, "v1alpha1"), WITHOUT_SUBRESOURCE);
    assert_eq!(rust.matches("status_subresource =").count(), 2, "{rust}");
}

/// `subresources: {status: null}` is no status subresource to the API server (its
/// `status` is a pointer left nil), so none to the generator either.
#[test]
fn a_null_status_subresource_is_none() {
    let dir = std::env::temp_dir().join(format!("kondition-subresource-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("gadget.yaml");
    let text = std::fs::read_to_string(GADGET).expect("the fixture");
    assert_eq!(text.matches("subresources: {status: {}}").count(), 1);
    std::fs::write(
        &path,
        text.replace("subresources: {status: {}}", "subresources: {status: null}"),
    )
    .expect("write");
    let tree = generate(&[&path]);
    let _ = std::fs::remove_dir_all(&dir);
    let rust = file(&tree, "gadget.rs");
    for version in ["v1", "v1beta1", "v1alpha1"] {
        assert_eq!(
            status_struct(rust, version),
            WITHOUT_SUBRESOURCE,
            "{version}"
        );
    }
}

/// The CRD the code carries is the one read: no status subresource is added where it had
/// none.
#[test]
fn the_crd_keeps_its_subresources_as_read() {
    let tree = generate(&[Path::new(GADGET)]);
    let crd: Value =
        serde_json::from_str(file(&tree, "gadget.gadget_crd.json")).expect("the CRD is JSON");
    let subresources: Vec<(&Value, Option<&Value>)> = crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (&v["name"], v.get("subresources")))
        .collect();
    assert_eq!(
        subresources,
        [
            (&json!("v1"), Some(&json!({"status": {}}))),
            (&json!("v1beta1"), Some(&json!({}))),
            (&json!("v1alpha1"), None),
        ]
    );
}

/// Argo CD's Application serves no status subresource, but its status is not one kondition
/// drives (its conditions have no `status` or `reason`): it gets no `KubeStatus`, so nothing
/// to say about where the status is written.
#[test]
fn a_status_kondition_does_not_drive_needs_nothing() {
    let tree = generate(&[Path::new(APPLICATION)]);
    let rust = file(&tree, "application_crd.rs");
    assert!(!rust.contains("KubeStatus"), "the status is not driven");
    assert!(!rust.contains("status_subresource ="));
    assert!(!rust.contains("#[kondition("));
    let crd: Value = serde_json::from_str(file(&tree, "application_crd.application_crd.json"))
        .expect("the CRD is JSON");
    assert_eq!(crd["spec"]["versions"][0]["subresources"], json!({}));
}
