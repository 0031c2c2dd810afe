//! One structure, one type: structures shared across versions, kinds and files are defined
//! once, every place keeps its name, and adding a kind renames nothing.

#[allow(dead_code)] // The scratch folders and the build-and-run of the random tests only.
mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use kondition_gen::emit;
use kondition_gen::profile::Profiles;
use serde_json::json;
use support::scratch;

/// A CRD of `kind` with `versions`, each with a spec holding a `tls` object and an `endpoints`
/// list of objects; `extra` adds a property to the later versions' spec `tls` (so they differ
/// there from the first). Written as JSON, which is YAML.
fn crd(kind: &str, plural: &str, versions: &[&str], extra: bool) -> String {
    let ca = json!({"type": "string", "description": "The CA bundle."});
    let mode = json!({"type": "string", "enum": ["strict", "lax"]});
    let versions: Vec<serde_json::Value> = versions
        .iter()
        .enumerate()
        .map(|(i, version)| {
            let mut tls = json!({
                "description": format!("TLS of {kind}."),
                "type": "object",
                "properties": {"ca": ca}
            });
            if extra && i > 0 {
                tls["properties"]["insecure"] = json!({"type": "boolean"});
            }
            let endpoint = json!({
                "type": "object",
                "required": ["url"],
                "properties": {
                    "url": {"type": "string", "description": "Where to send."},
                    "mode": mode,
                    "tls": {"description": "TLS of one endpoint.", "type": "object", "properties": {"ca": ca}}
                }
            });
            json!({
                "name": version, "served": true, "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object",
                    "properties": {"tls": tls, "endpoints": {"type": "array", "items": endpoint}}
                }}}}
            })
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.example.com")},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": plural},
            "scope": "Namespaced",
            "versions": versions
        }
    })
    .to_string()
        + "\n"
}

fn generate(files: &[(&str, String)]) -> Vec<emit::OutputFile> {
    let dir = scratch(&format!("sharing-{}", files.len()));
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write");
            path
        })
        .collect();
    let model = kondition_gen::load::load(&paths, &Profiles::embedded(), &Default::default())
        .expect("loads");
    emit::rust_tree(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        &Default::default(),
    )
    .expect("emits")
}

fn text<'a>(files: &'a [emit::OutputFile], name: &str) -> &'a str {
    files
        .iter()
        .find(|f| f.path.to_str() == Some(name))
        .map_or("", |f| f.contents.as_str())
}

/// The `shared` types a module file re-exports, as (version, shared name, local name).
fn reexports(module: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    let mut version = String::new();
    let mut rest = module;
    while let Some(at) = rest
        .find("pub mod ")
        .into_iter()
        .chain(rest.find("pub use super::super::shared::"))
        .min()
    {
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("pub mod ") {
            version = after.split(' ').next().unwrap_or_default().to_owned();
            rest = after;
            continue;
        }
        let after = &rest["pub use super::super::shared::".len()..];
        let end = after.find(';').expect("a use item ends");
        for entry in after[..end]
            .trim_matches(|c| "{} \n".contains(c))
            .split(',')
        {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let (there, local) = entry.split_once(" as ").unwrap_or((entry, entry));
            found.push((version.clone(), there.to_owned(), local.to_owned()));
        }
        rest = &after[end..];
    }
    found
}

/// Every type name a module file gives (structs, enums and `pub use` names), by version.
fn names(module: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut version = String::new();
    for line in module.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("pub mod ") {
            version = rest.trim_end_matches(" {").to_owned();
        } else if let Some(rest) = line
            .strip_prefix("pub struct ")
            .or_else(|| line.strip_prefix("pub enum "))
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            names.insert(format!("{version}::{name}"));
        }
    }
    names.extend(
        reexports(module)
            .into_iter()
            .map(|(version, _, local)| format!("{version}::{local}")),
    );
    names
}

#[test]
fn one_structure_is_one_type_across_versions_and_kinds() {
    let files = generate(&[
        (
            "a.yaml",
            crd("Alpha", "alphas", &["v1", "v2"], false)
                + "---\n"
                + &crd("Beta", "betas", &["v1"], false),
        ),
        ("c.yaml", crd("Gamma", "gammas", &["v1"], true)),
    ]);
    let shared = text(&files, "shared.rs");
    // The endpoint and the TLS objects are each defined once for all their places: the TLS
    // objects' own descriptions ("TLS of Alpha.", "TLS of one endpoint.") do not keep them
    // apart. Alpha's spec is one type for v1 and v2; the other kinds' specs document their
    // `tls` field differently, so they are types of their own. A shared type takes the
    // shortest of its places' names.
    let defined: Vec<&str> = shared
        .lines()
        .filter_map(|l| l.strip_prefix("pub struct "))
        .map(|l| l.trim_end_matches(" {"))
        .collect();
    assert_eq!(
        defined,
        ["AlphaSpec", "BetaEndpoints", "BetaTls"],
        "{shared}"
    );
    // Each place keeps its own name.
    let a = text(&files, "a.rs");
    let pair = |(_, there, local): (String, String, String)| format!("{there} as {local}");
    let a_reexports: Vec<String> = reexports(a).into_iter().map(pair).collect();
    for expected in [
        "AlphaSpec as AlphaSpec",
        "BetaEndpoints as AlphaEndpoints",
        "BetaTls as AlphaTls",
        "BetaEndpoints as BetaEndpoints",
        "BetaTls as BetaTls",
    ] {
        assert!(
            a_reexports.iter().any(|r| r == expected),
            "{expected} missing from:\n{a}"
        );
    }
    assert_eq!(
        a_reexports
            .iter()
            .filter(|r| *r == "AlphaSpec as AlphaSpec")
            .count(),
        2,
        "v1 and v2"
    );
    assert!(a.contains("pub struct BetaSpec {"), "{a}");
    let c = text(&files, "c.rs");
    let c_reexports: Vec<String> = reexports(c).into_iter().map(pair).collect();
    assert!(
        c_reexports.iter().any(|r| r == "BetaTls as GammaTls"),
        "{c}"
    );
    assert!(c.contains("pub struct GammaSpec {"), "{c}");
    // The places describe the TLS object differently, so the shared type has a neutral doc
    // and each field keeps its own.
    let neutral = "/// Held by several fields, each of which documents its use.\n\
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]\n\
        pub struct BetaTls {";
    assert!(shared.contains(neutral), "{shared}");
    assert!(shared.contains("    /// TLS of Alpha.\n"), "{shared}");
}

#[test]
fn adding_a_kind_renames_nothing() {
    let alone = generate(&[("a.yaml", crd("Alpha", "alphas", &["v1", "v2"], true))]);
    let before = names(text(&alone, "a.rs"));
    assert!(before.contains("v1::AlphaTls") && before.contains("v2::AlphaEndpoints"));
    // The same kind with others beside it: in its own file (before and after it) and in
    // another; some share its structures, one has a clashing structure under the same names.
    let clash = crd("Alpha2", "alpha2s", &["v1"], true).replace("The CA bundle.", "Other docs.");
    let together = generate(&[
        ("0.yaml", crd("Zeta", "zetas", &["v1", "v2"], true)),
        (
            "a.yaml",
            crd("Alpha", "alphas", &["v1", "v2"], true)
                + "---\n"
                + &crd("Beta", "betas", &["v1", "v2"], true),
        ),
        ("b.yaml", clash),
    ]);
    let after = names(text(&together, "a.rs"));
    let missing: Vec<&String> = before.difference(&after).collect();
    assert!(missing.is_empty(), "renamed or gone: {missing:?}");
}

#[test]
fn shared_types_are_the_same_rust_type_in_every_version() {
    let dir = scratch("sharing-compile");
    let crd_path = dir.join("alpha.yaml");
    // With Beta beside it, shared structs and enums take Beta's (shorter) names.
    let bundle = crd("Alpha", "alphas", &["v1", "v2"], true)
        + "---\n"
        + &crd("Beta", "betas", &["v1"], false);
    std::fs::write(&crd_path, bundle).expect("write");
    let model = kondition_gen::load::load(&[crd_path], &Profiles::embedded(), &Default::default())
        .expect("loads");
    let mut files = emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("emits");
    // v1 and v2 differ in the spec's TLS only: an endpoint moves between them as it is.
    let sample = json!({"url": "https://example.com", "mode": "lax", "tls": {"ca": "x"}});
    let crate_dir = dir.join("crate");
    std::fs::create_dir_all(&crate_dir).expect("mkdir");
    files[0].contents +=
        "pub fn convert(e: alpha::v1::AlphaEndpoints) -> alpha::v2::AlphaEndpoints { e }\n";
    support::build_and_run(
        &crate_dir,
        &files,
        &[("alpha::v2::AlphaEndpoints".to_owned(), sample)],
    );
}
