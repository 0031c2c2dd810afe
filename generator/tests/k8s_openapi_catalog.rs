//! The committed catalog of k8s-openapi types (`generator/data/k8s-openapi-0.29.json`) is what
//! k8s-openapi's own source gives: the source is the one this test binary was built from,
//! found through the dep-info file cargo wrote beside the built dependency, read by
//! `extract`, and compared. Nothing here asks cargo anything or needs the network: whatever
//! built this test also unpacked that source. `KONDITION_BLESS=1 cargo test -p kondition-gen
//! --test k8s_openapi_catalog` rewrites the file where it differs, and fails all the same.

#[path = "k8s_openapi_catalog/extract.rs"]
mod extract;
#[path = "k8s_openapi_catalog/write.rs"]
mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use kondition_gen::reuse::catalog::{
    CatalogData, DocHash, Leaf, ListMerge, MapMerge, Minor, ObjectShape, Property, PropertyType,
    Shape, Variant,
};

const CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/k8s-openapi-0.29.json");

/// The `src/` folder of the k8s-openapi 0.29 this test was built with, and its version.
///
/// Cargo writes a dep-info file (`deps/<crate>-<hash>.d`, a Makefile rule) for every crate it
/// compiles, listing the crate's source files by absolute path; the test binary lives in the
/// same `deps/` folder. `cargo metadata` would need every package of `Cargo.lock`, those of
/// other platforms included, which a build never downloads (issue 29).
fn k8s_openapi_source() -> (PathBuf, String) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe
        .parent()
        .expect("the test binary is in cargo's deps/ folder");
    let mut found: Vec<(PathBuf, String)> = std::fs::read_dir(deps)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", deps.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "d")
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("k8s_openapi-"))
        })
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|rule| source_of_dep_info(&rule))
        .filter(|(_, version)| version.starts_with("0.29."))
        .collect();
    found.sort();
    found.dedup();
    match found.as_slice() {
        [one] => one.clone(),
        [] => panic!(
            "no dep-info file of k8s-openapi 0.29 in {}: this test reads the source cargo built \
             it from; run it through `cargo test`",
            deps.display()
        ),
        many => panic!(
            "several k8s-openapi 0.29 sources were built into {}: {many:?}; `cargo clean -p \
             k8s-openapi` leaves only the locked one",
            deps.display()
        ),
    }
}

/// The `src/` folder and version of the crate a dep-info rule was written for: the folder
/// of its `lib.rs` (the rule's first prerequisite), named `k8s-openapi-<version>`.
fn source_of_dep_info(rule: &str) -> Option<(PathBuf, String)> {
    let (_, prerequisites) = rule.lines().next()?.split_once(": ")?;
    let lib = make_words(prerequisites)
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.ends_with("src/lib.rs"))?;
    let src = lib.parent()?;
    let package = src.parent()?.file_name()?.to_str()?;
    let version = package.strip_prefix("k8s-openapi-")?;
    Some((src.to_path_buf(), version.to_owned()))
}

/// The words of a Makefile prerequisite list, where cargo writes a space in a path as `\ `.
fn make_words(list: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                chars.next();
                word.push(' ');
            }
            ' ' => words.extend((!word.is_empty()).then(|| std::mem::take(&mut word))),
            c => word.push(c),
        }
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

#[test]
fn a_dep_info_rule_names_the_source_folder_and_version() {
    let rule = "/t/deps/k8s_openapi-1f.d: /home/a\\ b/.cargo/registry/src/index-x/k8s-openapi-0.29.0/src/lib.rs \
                /home/a\\ b/.cargo/registry/src/index-x/k8s-openapi-0.29.0/src/v1_37/mod.rs\n\n\
                /home/a\\ b/.cargo/registry/src/index-x/k8s-openapi-0.29.0/src/lib.rs:\n";
    assert_eq!(
        source_of_dep_info(rule),
        Some((
            PathBuf::from("/home/a b/.cargo/registry/src/index-x/k8s-openapi-0.29.0/src"),
            "0.29.0".to_owned()
        ))
    );
    assert_eq!(
        source_of_dep_info("/t/deps/x.d: /src/other/src/lib.rs\n"),
        None
    );
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
    let text = write::catalog(data);
    let committed = std::fs::read_to_string(CATALOG).unwrap_or_default();
    if committed != text {
        // Blessing writes the catalog and still fails: a run that changed it checked nothing
        // against it. The next run, without KONDITION_BLESS, checks what was written.
        if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(CATALOG, &text).expect("write the catalog");
            panic!(
                "{CATALOG} rewritten from {}: review the diff and run the test again without \
                 KONDITION_BLESS",
                src.display()
            );
        }
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
    write::property_type(&object(data, path, minor).properties[name].ty)
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

#[test]
fn property_types_read_back_as_written() {
    for text in [
        "string",
        "bytes",
        "int32",
        "[atomic]string",
        "[set]int64",
        "[map:containerPort,protocol]api::core::v1::ContainerPort",
        "{granular}apimachinery::pkg::api::resource::Quantity",
        "{atomic}[atomic]string",
    ] {
        let ty = PropertyType::parse(text).expect(text);
        assert_eq!(write::property_type(&ty), text);
    }
    assert_eq!(PropertyType::parse("[sorted]string"), None);
    assert_eq!(PropertyType::parse("strin"), None);
}

#[test]
fn the_text_reads_back_as_the_data() {
    let mut properties = BTreeMap::new();
    properties.insert(
        "name".to_owned(),
        Property {
            ty: PropertyType::String,
            doc: Some(DocHash::of("The name.")),
        },
    );
    properties.insert(
        "items".to_owned(),
        Property {
            ty: PropertyType::List(
                Box::new(PropertyType::Ref("api::core::v1::KeyToPath".to_owned())),
                ListMerge::Map(vec!["key".to_owned()]),
            ),
            doc: None,
        },
    );
    let mut types = BTreeMap::new();
    types.insert(
        "api::core::v1::Example".to_owned(),
        vec![
            Variant {
                versions: vec![33, 34],
                shape: Shape::Object(ObjectShape {
                    doc: None,
                    required: vec!["name".to_owned()],
                    properties: properties.clone(),
                }),
            },
            Variant {
                versions: vec![35],
                shape: Shape::Object(ObjectShape::default()),
            },
        ],
    );
    types.insert(
        "apimachinery::pkg::apis::meta::v1::Time".to_owned(),
        vec![Variant {
            versions: vec![33, 34, 35],
            shape: Shape::Leaf(Leaf::Time),
        }],
    );
    let data = CatalogData {
        source: "k8s-openapi 0.0.0".to_owned(),
        versions: vec![33, 34, 35],
        types,
    };
    let text = write::catalog(&data);
    assert_eq!(CatalogData::from_text(&text), Ok(data));
    assert!(CatalogData::from_text("{}").is_err());
}
