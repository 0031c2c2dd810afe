//! The committed catalog of k8s-openapi types (`generator/data/k8s-openapi-0.29.json`) is what
//! k8s-openapi's own source gives: the source is found through `cargo metadata` (it is in
//! Cargo's registry whenever the workspace builds), read by `extract`, and compared.
//! `KONDITION_BLESS=1 cargo test -p kondition-gen --test k8s_openapi_catalog` rewrites the
//! file instead.

#[path = "k8s_openapi_catalog/extract.rs"]
mod extract;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kondition_gen::reuse::catalog::{
    CatalogData, DocHash, Leaf, ListMerge, MapMerge, Minor, ObjectShape, PropertyType, Shape,
};

const CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/k8s-openapi-0.29.json");

/// The `src/` folder of the workspace's k8s-openapi 0.29, and its version.
fn k8s_openapi_source() -> (PathBuf, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| {
            p["name"] == "k8s-openapi"
                && p["version"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("0.29."))
        })
        .expect("the workspace depends on k8s-openapi 0.29");
    let manifest = Path::new(package["manifest_path"].as_str().expect("manifest_path"));
    let version = package["version"].as_str().expect("version").to_owned();
    (manifest.with_file_name("src"), version)
}

/// The extraction (done once) and the source folder it read.
fn extracted() -> &'static (CatalogData, PathBuf) {
    static EXTRACTED: OnceLock<(CatalogData, PathBuf)> = OnceLock::new();
    EXTRACTED.get_or_init(|| {
        let (src, version) = k8s_openapi_source();
        let data = extract::catalog(&src, &format!("k8s-openapi {version}"));
        (data, src)
    })
}

#[test]
fn the_committed_catalog_is_what_k8s_openapi_gives() {
    let (data, src) = extracted();
    let text = data.to_text();
    if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(CATALOG, &text).expect("write the catalog");
        return;
    }
    let committed = std::fs::read_to_string(CATALOG).unwrap_or_default();
    if committed != text {
        let line = committed
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(text.lines().count()));
        panic!(
            "{CATALOG} is not what {} gives (first at line {}: committed {:?}, extracted {:?}); \
             refresh it with `KONDITION_BLESS=1 cargo test -p kondition-gen --test \
             k8s_openapi_catalog` and review the diff",
            src.display(),
            line + 1,
            committed.lines().nth(line).unwrap_or_default(),
            text.lines().nth(line).unwrap_or_default(),
        );
    }
}

/// The properties of the object type at `path` in version `minor`.
fn object<'d>(data: &'d CatalogData, path: &str, minor: Minor) -> &'d ObjectShape {
    match data.shape(path, minor) {
        Some(Shape::Object(object)) => object,
        other => panic!("{path} at 1.{minor}: {other:?}"),
    }
}

fn property_type(data: &CatalogData, path: &str, minor: Minor, name: &str) -> String {
    object(data, path, minor).properties[name].ty.text()
}

#[test]
fn the_extraction_reads_what_k8s_openapi_says() {
    let (data, _) = extracted();
    assert_eq!(data.versions, vec![33, 34, 35, 36, 37]);
    let container = "api::core::v1::Container";
    // Merge keys are the wire names of the Rust fields DeepMerge compares.
    assert_eq!(
        property_type(data, container, 37, "ports"),
        "[map:containerPort]api::core::v1::ContainerPort"
    );
    assert_eq!(
        property_type(data, container, 37, "env"),
        "[map:name]api::core::v1::EnvVar"
    );
    assert_eq!(property_type(data, container, 37, "args"), "[atomic]string");
    assert_eq!(
        property_type(
            data,
            "api::apps::v1::StatefulSetSpec",
            37,
            "volumeClaimTemplates"
        ),
        "[map:metadata.name]api::core::v1::PersistentVolumeClaim"
    );
    assert_eq!(
        object(data, "api::core::v1::ResourceRequirements", 37).properties["limits"].ty,
        PropertyType::Map(
            Box::new(PropertyType::Ref(
                "apimachinery::pkg::api::resource::Quantity".to_owned()
            )),
            MapMerge::Granular
        )
    );
    assert_eq!(
        property_type(
            data,
            "api::core::v1::ReplicationControllerSpec",
            37,
            "selector"
        ),
        "{atomic}string"
    );
    assert_eq!(
        property_type(data, "api::core::v1::Capabilities", 37, "add"),
        "[atomic]string"
    );
    assert!(matches!(
        &object(
            data,
            "apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement",
            37
        )
        .properties["values"]
            .ty,
        PropertyType::List(_, ListMerge::Atomic)
    ));
    assert_eq!(
        property_type(data, "api::core::v1::ContainerPort", 37, "containerPort"),
        "int32"
    );
    assert_eq!(
        property_type(data, "api::core::v1::PodSpec", 37, "activeDeadlineSeconds"),
        "int64"
    );
    // Kubernetes 1.34 added restartPolicyRules.
    assert!(
        !object(data, container, 33)
            .properties
            .contains_key("restartPolicyRules")
    );
    assert!(
        object(data, container, 34)
            .properties
            .contains_key("restartPolicyRules")
    );
    // Required: the schema's list, the fields that are not an Option.
    assert_eq!(
        object(data, container, 37).required,
        vec!["name".to_owned()]
    );
    assert_eq!(
        object(data, "api::core::v1::LocalObjectReference", 37).required,
        vec!["name".to_owned()]
    );
    // Descriptions: the type's own and a property's (set on a referenced type's schema).
    assert_eq!(
        object(data, container, 37).doc,
        Some(DocHash::of(
            "A single application container that you want to run within a pod."
        ))
    );
    assert_eq!(
        object(data, container, 37).properties["lifecycle"].doc,
        Some(DocHash::of(
            "Actions that the management system should take in response to container \
             lifecycle events. Cannot be updated."
        ))
    );
    // Leaves.
    for (path, leaf) in [
        ("apimachinery::pkg::apis::meta::v1::Time", Leaf::Time),
        (
            "apimachinery::pkg::apis::meta::v1::MicroTime",
            Leaf::MicroTime,
        ),
        ("apimachinery::pkg::api::resource::Quantity", Leaf::Quantity),
        (
            "apimachinery::pkg::util::intstr::IntOrString",
            Leaf::IntOrString,
        ),
        ("apimachinery::pkg::apis::meta::v1::FieldsV1", Leaf::Json),
    ] {
        assert_eq!(data.shape(path, 37), Some(&Shape::Leaf(leaf)), "{path}");
    }
    // Top-level kinds are left out: k8s-openapi writes their apiVersion and kind itself.
    assert!(!data.types.contains_key("api::core::v1::Pod"));
    assert!(data.types.contains_key("api::core::v1::PodSpec"));
}
