//! Choosing the kinds: `kondition generate --kind Kind[/version]` and `Builder::kinds` /
//! `Builder::versions` write exactly the chosen kinds; a misspelled kind gets a did-you-mean.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-select-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas");

fn kondition(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kondition")
}

/// What `stderr` says but the notes (`path:line:col: note: ...`) the inputs give.
fn errors(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .split_inclusive('\n')
        .filter(|line| !line.contains(": note: "))
        .collect()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn only_the_chosen_kinds_and_versions_are_written() {
    let dir = scratch("chosen");
    let output = kondition(
        &dir,
        &[
            "generate",
            SCHEMAS,
            "--kind",
            "Router",
            "--kind",
            "Database/v1",
            "--out",
            "out",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        files(&dir.join("out")),
        [
            "crds.rs",
            "database.database_crd.json",
            "database.rs",
            "lib.rs",
            "router.router_crd.json",
            "router.rs"
        ]
    );
    let crds = std::fs::read_to_string(dir.join("out/crds.rs")).expect("crds.rs");
    assert_eq!(
        crds.matches("::kondition::crd::from_json(").count(),
        2,
        "{crds}"
    );
    let database = std::fs::read_to_string(dir.join("out/database.rs")).expect("database.rs");
    assert!(database.contains("pub mod v1 {"));
    assert!(!database.contains("pub mod v1beta1 {"), "only v1's types");
    // The CRD stays whole: the API server still serves both versions.
    let crd = std::fs::read_to_string(dir.join("out/database.database_crd.json")).expect("CRD");
    assert!(crd.contains("\"name\": \"v1beta1\""));

    // Every kind but the chosen ones is left out of what a second kind adds.
    let output = kondition(
        &dir,
        &[
            "generate",
            SCHEMAS,
            "--kind",
            "PromotionStrategy",
            "--out",
            "out2",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let promotion =
        std::fs::read_to_string(dir.join("out2/promotionstrategy.rs")).expect("written");
    assert!(promotion.contains("pub struct PromotionStrategy {"));
    assert!(
        !promotion.contains("pub struct ChangeTransferPolicy {"),
        "the file's other kind is left out"
    );
}

#[test]
fn a_misspelled_kind_gets_a_did_you_mean_and_nothing_is_written() {
    let dir = scratch("misspelled");
    let output = kondition(
        &dir,
        &["generate", SCHEMAS, "--kind", "Routr", "--out", "out"],
    );
    assert_eq!(output.status.code(), Some(2));
    // The notes the inputs give (Cluster v1beta1's atomic list) come first, then the error.
    assert_eq!(
        errors(&output.stderr),
        "kondition: `--kind Routr`: no kind `Routr` in the inputs; did you mean `Router`?\n"
    );
    assert!(files(&dir.join("out")).is_empty());

    let output = kondition(
        &dir,
        &["generate", SCHEMAS, "--kind", "Database/v2", "--out", "out"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        errors(&output.stderr),
        "kondition: `--kind Database/v2`: Database has no version `v2`; did you mean `v1`?\n"
    );
}

#[test]
fn a_kind_in_two_groups_is_chosen_by_its_group() {
    let dir = scratch("groups");
    let widget = |group: &str| format!("group: {group}\nkind: Widget\nversion: v1\n");
    std::fs::create_dir_all(dir.join("schemas")).expect("mkdir");
    std::fs::write(dir.join("schemas/a.yaml"), widget("a.example.com")).expect("write");
    std::fs::write(dir.join("schemas/b.yaml"), widget("b.example.com")).expect("write");
    let output = kondition(&dir, &["generate", "--kind", "Widget", "--out", "out"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "kondition: `--kind Widget`: 2 groups have kind `Widget`; write `Widget.a.example.com` or `Widget.b.example.com`\n"
    );
    let output = kondition(
        &dir,
        &[
            "generate",
            "--kind",
            "Widget.b.example.com/v1",
            "--out",
            "out",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        files(&dir.join("out")),
        ["b.rs", "b.widget_crd.json", "crds.rs", "lib.rs"]
    );
}

#[test]
fn the_builder_chooses_kinds_and_versions() {
    let dir = scratch("builder");
    let path = kondition_gen::Builder::new()
        .schemas([SCHEMAS])
        .kinds(["Database", "SecurityGroup"])
        .versions(["v1", "v1alpha1"])
        .out_dir(&dir)
        .generate()
        .expect("generates");
    let rust = std::fs::read_to_string(path).expect("written");
    assert!(rust.contains("pub struct Database {") && rust.contains("pub struct SecurityGroup {"));
    assert!(!rust.contains("pub mod v1beta1 {") && !rust.contains("pub struct Router {"));

    // Versions alone: the kinds that have one of them, at those versions.
    let path = kondition_gen::Builder::new()
        .schemas([SCHEMAS])
        .versions(["v1beta1"])
        .out_dir(&dir)
        .file_name("versions.rs")
        .generate()
        .expect("generates");
    let rust = std::fs::read_to_string(path).expect("written");
    assert!(rust.contains("pub mod v1beta1 {") && !rust.contains("pub mod v1 {"));
    // Database (schemas/database.yaml) and Cluster API's Cluster (schemas/crds/cluster.yaml).
    assert_eq!(rust.matches("::kondition::crd::from_json(").count(), 2);
    assert!(rust.contains("pub struct Database {") && rust.contains("pub struct Cluster {"));

    let error = kondition_gen::Builder::new()
        .schemas([SCHEMAS])
        .kinds(["SecurityGrup"])
        .out_dir(&dir)
        .generate()
        .expect_err("no such kind");
    assert_eq!(
        error.to_string(),
        "kondition: `Builder::kinds([\"SecurityGrup\"])`: no kind `SecurityGrup` in the inputs; did you mean `SecurityGroup`?"
    );
}
