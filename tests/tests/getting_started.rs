//! The guide's Getting started (`docs/guide/src/getting-started.md`, once the README's
//! section) has a `Cargo.toml` that names the versions and features this workspace builds
//! with: its `src/main.rs` is compiled as a doc test of this crate (with this crate's
//! dependencies), so the manifest beside it must ask for the same ones, or a new user's
//! first build would differ from the one CI checks. kondition's own crates are not on
//! crates.io (issue 37, item 1: `version = "0.1"` did not resolve), so the manifest depends
//! on a clone beside the operator's crate by path, and each path must name the crate it
//! says; the git form beside it names the same crates with the same features.

use std::collections::BTreeMap;

/// The chapter that holds Getting started.
const CHAPTER: &str = "docs/guide/src/getting-started.md";

/// The first ```toml block after `# Getting started`.
fn getting_started_manifest(readme: &str) -> &str {
    let section = readme
        .split_once("# Getting started")
        .map(|(_, rest)| rest)
        .expect("a Getting started section");
    let block = section
        .split_once("```toml\n")
        .map(|(_, rest)| rest)
        .expect("a toml block in Getting started");
    block.split_once("```").map_or(block, |(toml, _)| toml)
}

/// The `path = "..."` of each dependency of a `[section]` that has one.
fn paths(manifest: &str, section: &str) -> BTreeMap<String, String> {
    let path = regex::Regex::new(r#"path\s*=\s*"([^"]+)""#).expect("a regex");
    let mut paths = BTreeMap::new();
    let mut inside = false;
    for text in manifest.lines() {
        let text = text.trim();
        if text.starts_with('[') {
            inside = text == format!("[{section}]");
            continue;
        }
        let Some((name, value)) = text.split_once('=').filter(|_| inside) else {
            continue;
        };
        if let Some(captures) = path.captures(value) {
            paths.insert(name.trim().to_owned(), captures[1].to_owned());
        }
    }
    paths
}

/// The `name` of the `[package]` whose manifest is `manifest`.
fn package_name(manifest: &str) -> Option<String> {
    let name = regex::Regex::new(r#"^name\s*=\s*"([^"]+)""#).expect("a regex");
    let package = manifest.split_once("[package]")?.1;
    let package = package
        .split_once("\n[")
        .map_or(package, |(package, _)| package);
    package
        .lines()
        .find_map(|line| name.captures(line.trim()).map(|c| c[1].to_owned()))
}

/// The dependencies of a `[section]`, one per line (`name = "v"` or `name = { ... }`), as
/// name -> (version, features); a `workspace = true` one has no version here.
fn dependencies(manifest: &str, section: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let entry = regex::Regex::new(r#"^([a-z0-9_-]+)\s*=\s*(.*)$"#).expect("a regex");
    let version = regex::Regex::new(r#"^"([^"]+)"|version\s*=\s*"([^"]+)""#).expect("a regex");
    let features = regex::Regex::new(r#"features\s*=\s*\[([^\]]*)\]"#).expect("a regex");
    let mut deps = BTreeMap::new();
    let mut inside = false;
    for text in manifest.lines() {
        let text = text.trim();
        if text.starts_with('[') {
            inside = text == format!("[{section}]");
            continue;
        }
        let Some(captures) = entry.captures(text).filter(|_| inside) else {
            continue;
        };
        let value = &captures[2];
        let version = version
            .captures(value)
            .and_then(|c| c.get(1).or_else(|| c.get(2)))
            .map_or_else(String::new, |m| m.as_str().to_owned());
        let features = features.captures(value).map_or_else(Vec::new, |c| {
            c[1].split(',')
                .map(|f| f.trim().trim_matches('"').to_owned())
                .filter(|f| !f.is_empty())
                .collect()
        });
        deps.insert(captures[1].to_owned(), (version, features));
    }
    deps
}

#[test]
fn the_getting_started_manifest_asks_for_what_the_workspace_builds_with() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/{CHAPTER}")).expect(CHAPTER);
    let workspace = std::fs::read_to_string(format!("{root}/Cargo.toml")).expect("Cargo.toml");
    let tests = std::fs::read_to_string(format!("{root}/tests/Cargo.toml")).expect("Cargo.toml");
    let manifest = getting_started_manifest(&readme);
    let wanted = dependencies(manifest, "dependencies");
    let built = dependencies(&workspace, "workspace.dependencies");
    let used = dependencies(&tests, "dependencies");

    // kondition's own crates by path, from the operator's crate to a clone named `kondition`
    // beside it: the package at each path is the one named, and a version, if one is given
    // beside the path, is this one's major.minor.
    let version = env!("CARGO_PKG_VERSION");
    let minor = version.rsplit_once('.').map_or(version, |(minor, _)| minor);
    let built_deps = dependencies(manifest, "build-dependencies");
    let mut ours = paths(manifest, "dependencies");
    ours.extend(paths(manifest, "build-dependencies"));
    for (name, wanted_version) in [
        ("kondition", &wanted["kondition"].0),
        ("kondition-gen", &built_deps["kondition-gen"].0),
    ] {
        let path = ours.get(name).unwrap_or_else(|| {
            panic!("the README's {name} is no path dependency: it is not published")
        });
        let inside = path
            .strip_prefix("../kondition/")
            .unwrap_or_else(|| panic!("{name}'s path {path} is not in a clone beside the crate"));
        let crate_manifest = std::fs::read_to_string(format!("{root}/{inside}/Cargo.toml"))
            .unwrap_or_else(|e| panic!("{name}'s path {path}: no Cargo.toml in {inside}: {e}"));
        assert_eq!(
            package_name(&crate_manifest).as_deref(),
            Some(name),
            "the package at {path}"
        );
        assert!(
            wanted_version.is_empty() || wanted_version == minor,
            "{name}'s version {wanted_version}"
        );
    }
    let section = readme
        .split_once("# Getting started")
        .map_or("", |(_, rest)| rest);
    assert!(
        section
            .split_once("```toml")
            .is_some_and(|(before, _)| before.contains("not yet published on crates.io")),
        "Getting started says, before the manifest, that the crates are not published"
    );
    // The rest at the workspace's versions.
    for name in ["kube", "k8s-openapi", "schemars", "serde", "serde_json"] {
        assert_eq!(wanted[name].0, built[name].0, "{name}'s version");
    }
    // The features the doc test builds with: the README asks for at least those.
    for name in ["kondition", "kube"] {
        for feature in &used[name].1 {
            assert!(
                wanted[name].1.contains(feature),
                "the README's {name} lacks the feature `{feature}` the doc test builds with"
            );
        }
    }
    assert!(wanted["k8s-openapi"].1.contains(&"latest".to_owned()));

    // The git form: the same crates, each with the features of its path form.
    let git = section
        .split("```toml\n")
        .nth(2)
        .and_then(|block| block.split_once("```"))
        .map(|(toml, _)| toml)
        .expect("a second toml block in Getting started: the git dependencies");
    let url =
        regex::Regex::new(r#"git\s*=\s*"https://github\.com/<owner>/kondition""#).expect("a regex");
    for (name, section_name, path_form) in [
        ("kondition", "dependencies", &wanted),
        ("kondition-gen", "build-dependencies", &built_deps),
    ] {
        let git_deps = dependencies(git, section_name);
        let line = git
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} =")))
            .unwrap_or_else(|| panic!("the git form has no {name}"));
        assert!(url.is_match(line), "{name}'s git form: {line}");
        assert_eq!(git_deps[name].1, path_form[name].1, "{name}'s features");
    }
    assert!(
        git.contains("placeholder"),
        "the git form says that <owner> is a placeholder"
    );
}

/// The oldest Kubernetes the README's Getting started says an operator may name is the
/// oldest the generator's k8s-openapi catalog has (issue 37, item 8: it said `v1_33` while
/// the generated Prometheus module refused to compile below `v1_35`, and nothing said why),
/// and the later floor it quotes for the example Prometheus is the one the generated module
/// holds, word for word.
#[test]
fn the_getting_started_kubernetes_floor_is_the_generators() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/{CHAPTER}")).expect(CHAPTER);
    let section = readme
        .split_once("# Getting started")
        .and_then(|(_, rest)| rest.split_once("```toml"))
        .map(|(before, _)| before.split_whitespace().collect::<Vec<_>>().join(" "))
        .expect("a Getting started section with a manifest");
    let floor = regex::Regex::new(r"`latest`, or `v1_(\d+)` and up for kondition itself")
        .expect("a regex")
        .captures(&section)
        .map(|c| c[1].parse::<u32>().expect("a number"))
        .expect("Getting started names the oldest Kubernetes");
    let oldest = kondition_gen::reuse::Catalog::get()
        .data()
        .versions
        .first()
        .copied();
    assert_eq!(
        Some(floor),
        oldest,
        "the README's floor and the catalog's oldest version"
    );

    let generated = std::fs::read_to_string(format!("{root}/generated/src/prometheus.rs"))
        .expect("the generated Prometheus module");
    let gate = regex::Regex::new(
        r#"compile_error!\("(these types use k8s-openapi types as Kubernetes 1\.(\d+) [^"]*)"\)"#,
    )
    .expect("a regex")
    .captures(&generated)
    .expect("the Prometheus module has a Kubernetes floor of its own");
    assert!(
        gate[2].parse::<u32>().expect("a number") > floor,
        "Prometheus's floor is later than kondition's"
    );
    assert!(
        section.contains(&format!("below `v1_{}` it says \"{}\"", &gate[2], &gate[1])),
        "Getting started quotes the generated Prometheus module's floor: {}",
        &gate[1]
    );
}
