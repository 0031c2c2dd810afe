//! What the random-input tests share: a seeded runner, scratch folders, and one crate per
//! run that compiles generated code and reports what it does.

use kondition_gen::emit::OutputFile;
use std::path::Path;
use std::process::Command;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

/// A run's random source: `KONDITION_SEED` (64 hex digits) or a fresh one, printed.
pub fn runner(cases: u32) -> TestRunner {
    let seed: [u8; 32] = match std::env::var("KONDITION_SEED") {
        Ok(hex) => {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .filter_map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                .collect();
            bytes.try_into().expect("KONDITION_SEED: 64 hex digits")
        }
        Err(_) => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let mut seed = [0u8; 32];
            seed[..16].copy_from_slice(&nanos.to_le_bytes());
            seed[16..20].copy_from_slice(&std::process::id().to_le_bytes());
            seed
        }
    };
    let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
    eprintln!("KONDITION_SEED={hex}");
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    )
}

/// A fresh, empty folder for one test.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-random-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `cargo`, offline, building into the workspace's `target/<target>` the scratch crates the
/// tests write under the system's temporary folder. The repository's `.cargo/config.toml`
/// (no debug info for dependencies) does not reach them there, and their dependencies'
/// debug info would be most of the folder's size (CI's disk is shared and has filled up):
/// none here, and no incremental state, which a crate built once never reuses.
pub fn cargo(target: &str) -> Command {
    let workspace = std::fs::canonicalize(WORKSPACE).expect("workspace");
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .arg("--offline")
        .env("CARGO_TARGET_DIR", workspace.join("target").join(target))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0");
    cargo
}

/// Writes, in `dir`, the manifest of a crate named `name` whose binary is `bin` and which
/// depends on the runtime and what generated code needs, at the workspace's locked versions
/// (so nothing is resolved anew).
pub fn scaffold_crate(dir: &Path, name: &str, bin: &str) {
    let workspace = std::fs::canonicalize(WORKSPACE).expect("workspace");
    let manifest = format!(
        r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[[bin]]
name = "{name}"
path = "{bin}"

[dependencies]
k8s-openapi = {{ version = "0.29", default-features = false, features = ["std", "latest"] }}
kondition = {{ path = "{runtime}" }}
kube = {{ version = "5", default-features = false }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
"#,
        runtime = workspace.join("runtime").display()
    );
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
}

/// Builds and runs, in `dir`, a crate holding `files` (a single generated Rust file named
/// `generated.rs`, and the CRD files beside it) whose binary prints `{"crds": crds(), "objects": [...]}`: each sample object read into the
/// type at its path and written back. Every run shares one target folder, so only the
/// generated code is compiled anew.
pub fn build_and_run(dir: &Path, files: &[OutputFile], samples: &[(String, Value)]) -> Value {
    scaffold_crate(dir, "random-inputs", "src/main.rs");
    for file in files {
        std::fs::write(dir.join("src").join(&file.path), &file.contents).expect("generated");
    }
    let objects: Vec<&Value> = samples.iter().map(|(_, v)| v).collect();
    std::fs::write(
        dir.join("src/samples.json"),
        serde_json::to_string(&objects).expect("JSON"),
    )
    .expect("samples");
    let read_back: String = samples
        .iter()
        .enumerate()
        .map(|(i, (path, _))| format!("back::<{path}>(&samples[{i}]),\n"))
        .collect();
    let main = format!(
        "#![allow(warnings)]\n\
         include!(\"generated.rs\");\n\
         fn back<T: serde::Serialize + serde::de::DeserializeOwned>(v: &serde_json::Value) -> serde_json::Value {{\n\
             let object: T = serde_json::from_value(v.clone()).expect(\"reads\");\n\
             serde_json::to_value(&object).expect(\"writes\")\n\
         }}\n\
         fn main() {{\n\
             let samples: Vec<serde_json::Value> = serde_json::from_str(include_str!(\"samples.json\")).expect(\"JSON\");\n\
             let objects = vec![{read_back}];\n\
             println!(\"{{}}\", serde_json::json!({{\"crds\": crds(), \"objects\": objects}}));\n\
         }}\n"
    );
    std::fs::write(dir.join("src/main.rs"), main).expect("main");

    let output = cargo("random-inputs")
        .args(["run", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "the generated code does not build or run (see {}):\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    // Every object comes back as it was: every wire name and value kept.
    let back = printed["objects"].as_array().expect("objects");
    assert_eq!(back.len(), samples.len());
    for (back, (path, sample)) in back.iter().zip(samples) {
        assert_eq!(back, sample, "{path}");
    }
    printed
}

/// `compiled` (crds() as JSON) equals `expected` node by node, numbers by value (k8s-openapi
/// writes a minimum of 3 as 3.0).
pub fn assert_same_crds(compiled: &Value, expected: &[Value]) {
    let compiled = compiled.as_array().expect("crds");
    assert_eq!(compiled.len(), expected.len());
    for (compiled, expected) in compiled.iter().zip(expected) {
        let report = kondition_testkit::fidelity::compare(expected, compiled, None);
        assert!(
            report.exact() && kondition::wire::json::same(expected, compiled),
            "{}: {report:?}",
            expected["metadata"]["name"]
        );
    }
}
