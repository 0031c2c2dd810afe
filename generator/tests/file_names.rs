//! Any input file name works: names the generated crate uses itself (`lib`, `crds`), keywords
//! (`mod`) and the same name in different folders all generate, deterministically, and the
//! output compiles.

use std::path::{Path, PathBuf};
use std::process::Command;

use kondition_gen::profile::Profiles;

#[allow(dead_code)] // Only the crate scaffold of the random tests' support.
mod support;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-names-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn schema(kind: &str) -> String {
    format!("group: example.com\nkind: {kind}\nversion: v1\nspec:\n  size: int32\n")
}

fn crd(kind: &str) -> String {
    let plural = format!("{}s", kind.to_ascii_lowercase());
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.crd.example.com
spec:
  group: crd.example.com
  names: {{kind: {kind}, plural: {plural}}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {{type: object, properties: {{size: {{type: integer}}}}}}
"
    )
}

/// The inputs: what each file is called, and what it holds.
fn inputs(dir: &Path) {
    write(&dir.join("schemas/crds.yaml"), &crd("Rook"));
    write(&dir.join("schemas/lib.yaml"), &schema("Library"));
    write(&dir.join("schemas/mod.yaml"), &schema("Module"));
    write(&dir.join("schemas/a/bundle.yaml"), &schema("First"));
    write(&dir.join("schemas/b/bundle.yaml"), &crd("Second"));
}

fn modules(paths: &[&str]) -> Vec<String> {
    let files: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let dir = scratch("modules");
    for (i, path) in paths.iter().enumerate() {
        write(&dir.join(path), &schema(&format!("K{i}")));
    }
    let files: Vec<PathBuf> = files.iter().map(|f| dir.join(f)).collect();
    let model = kondition_gen::load::load(&files, &Profiles::embedded(), &Default::default())
        .expect("loads");
    model.files.iter().map(|f| f.module.clone()).collect()
}

#[test]
fn module_names_are_derived_from_the_paths() {
    assert_eq!(
        modules(&[
            "crds.yaml",
            "lib.yaml",
            "mod.yaml",
            "self.yaml",
            "plain.yaml"
        ]),
        ["crds_", "lib_", "mod", "self_", "plain"]
    );
    // The same stem in different folders: as many folders as tell them apart.
    assert_eq!(
        modules(&["a/bundle.yaml", "b/bundle.yaml", "c/other.yaml"]),
        ["a_bundle", "b_bundle", "other"]
    );
    assert_eq!(
        modules(&["x/a/bundle.yaml", "y/a/bundle.yaml", "bundle.yml"]),
        ["x_a_bundle", "y_a_bundle", "bundle"]
    );
    // What is still taken gets a number; `lib_` from `lib.yaml` comes first.
    assert_eq!(
        modules(&["lib.yaml", "lib_.yaml", "d/x.yaml", "d/x.yml"]),
        ["lib_", "lib__2", "x", "x_2"]
    );
}

#[test]
fn crds_lib_mod_and_two_bundles_generate_and_compile() {
    let dir = scratch("compile");
    inputs(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "schemas", "--out", "crate/src"])
        .current_dir(&dir)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let mut written: Vec<String> = std::fs::read_dir(dir.join("crate/src"))
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            // Each kind's CRD beside its module, named after both.
            "a_bundle.first_crd.json",
            "a_bundle.rs",
            "b_bundle.rs",
            "b_bundle.second_crd.json",
            "crds.rs",
            "crds_.rook_crd.json",
            "crds_.rs",
            "lib.rs",
            "lib_.library_crd.json",
            "lib_.rs",
            "mod.module_crd.json",
            "mod.rs",
            // The bundles' kinds have the same structures: defined once.
            "shared.rs"
        ]
    );

    // The same inputs again: the same output, nothing rewritten.
    let again = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["check", "schemas", "--out", "crate/src"])
        .current_dir(&dir)
        .output()
        .expect("run");
    assert_eq!(again.status.code(), Some(0), "{again:?}");

    support::scaffold_crate(&dir.join("crate"), "file-names", "main.rs");
    write(
        &dir.join("crate/main.rs"),
        "#![allow(warnings)]\n\
         #[path = \"src/lib.rs\"]\n\
         mod generated;\n\
         fn main() {\n\
             let _ = generated::a_bundle::v1::First::new(\"x\", Default::default());\n\
             let _ = generated::r#mod::v1::Module::new(\"x\", Default::default());\n\
             let _ = generated::lib_::v1::Library::new(\"x\", Default::default());\n\
             let _ = generated::crds_::v1::Rook::new(\"x\", Default::default());\n\
             let _ = generated::b_bundle::v1::Second::new(\"x\", Default::default());\n\
             for crd in generated::crds() { println!(\"{}\", crd.metadata.name.unwrap_or_default()); }\n\
         }\n",
    );
    let output = support::cargo("random-inputs")
        .args(["run", "--quiet", "--manifest-path"])
        .arg(dir.join("crate/Cargo.toml"))
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "the generated code does not build or run (see {}):\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "firsts.example.com\nseconds.crd.example.com\nrooks.crd.example.com\nlibraries.example.com\nmodules.example.com\n"
    );
}

#[test]
fn a_whole_file_problem_names_the_file_without_a_position() {
    let dir = scratch("empty");
    write(&dir.join("schemas/empty.yaml"), "");
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "schemas/empty.yaml", "--out", "out"])
        .current_dir(&dir)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "schemas/empty.yaml: the file holds no kind\n"
    );
    assert!(!dir.join("out").exists(), "nothing written");
}
