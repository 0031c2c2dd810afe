//! Derives left out of the generated data types (`kondition_gen::Derive`): gone where nothing
//! of kondition's needs them, kept where it does, the default output unchanged.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use kondition_gen::Derive;
use kondition_gen::emit::{self, OutputFile};
use kondition_gen::profile::Profiles;

/// One version of a CRD with a standard status: metav1 conditions, an observedGeneration, and
/// `endpoints`, a list of objects with an enum; the spec has a `target` object with an enum.
fn version(name: &str, storage: bool) -> String {
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
              target:
                type: object
                properties:
                  host: {{type: string}}
                  scheme: {{type: string, enum: [http, https]}}
          status:
            type: object
            properties:
              observedGeneration: {{type: integer, format: int64}}
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [lastTransitionTime, message, reason, status, type]
                  properties:
                    lastTransitionTime: {{type: string, format: date-time}}
                    message: {{type: string, maxLength: 32768}}
                    observedGeneration: {{type: integer, format: int64, minimum: 0}}
                    reason: {{type: string, maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'}}
                    status: {{type: string, enum: ["True", "False", Unknown]}}
                    type: {{type: string, maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'}}
              endpoints:
                type: array
                items:
                  type: object
                  properties:
                    url: {{type: string}}
                    health: {{type: string, enum: [up, down]}}
"#
    )
}

/// A kind with two identical versions, so that every structure is shared (`shared.rs`).
fn crd() -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: probes.example.com
spec:
  group: example.com
  names: {{kind: Probe, plural: probes}}
  scope: Namespaced
  versions:
{}{}",
        version("v1", true),
        version("v2", false)
    )
}

fn generate(without: &[Derive]) -> Vec<OutputFile> {
    // A folder per call: the tests run in parallel threads of one process.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kondition-derives-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path: PathBuf = dir.join("probe.yaml");
    std::fs::write(&path, crd()).expect("write");
    let model = kondition_gen::load::load(&[path], &Profiles::embedded(), &Default::default())
        .expect("loads");
    let plans = kondition_gen::analysis::Plans::new(&model, without.iter().copied().collect());
    let files = emit::rust_tree(&model, &plans, &Default::default()).expect("emits");
    let _ = std::fs::remove_dir_all(&dir);
    files
}

/// Each item's derive line, by the item's name, in the order written.
fn derives(files: &[OutputFile], name: &str) -> Vec<(String, String)> {
    let text = &files
        .iter()
        .find(|f| f.path == std::path::Path::new(name))
        .unwrap_or_else(|| panic!("no {name}"))
        .contents;
    let mut out = Vec::new();
    let mut derive = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[derive(") {
            derive = Some(line.to_owned());
        } else if let Some(item) = line
            .strip_prefix("pub struct ")
            .or_else(|| line.strip_prefix("pub enum "))
        {
            let item = item
                .trim_end_matches(" {")
                .trim_end_matches(" {}")
                .to_owned();
            if let Some(derive) = derive.take() {
                out.push((item, derive));
            }
        }
    }
    out
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn every_derive_by_default() {
    assert_eq!(
        derives(&generate(&[]), "shared.rs"),
        pairs(&[
            (
                "ProbeEndpoints",
                "#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]"
            ),
            (
                "ProbeHealth",
                "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]"
            ),
            (
                "ProbeScheme",
                "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]"
            ),
            (
                "ProbeSpec",
                "#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]"
            ),
            (
                "ProbeTarget",
                "#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]"
            ),
        ])
    );
}

/// Without every derive that can be left out: what the status holds keeps `PartialEq` (its
/// apply configuration derives it), the status keeps `Default`; the spec's types and the
/// object type have neither. The kind's reasons enum, kondition's own (one per kind), keeps
/// its derives.
#[test]
fn what_the_status_holds_keeps_partial_eq() {
    let files = generate(&Derive::ALL);
    assert_eq!(
        derives(&files, "shared.rs"),
        pairs(&[
            (
                "ProbeEndpoints",
                "#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]"
            ),
            (
                "ProbeHealth",
                "#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]"
            ),
            (
                "ProbeScheme",
                "#[derive(Clone, Copy, Debug, Serialize, Deserialize)]"
            ),
            (
                "ProbeSpec",
                "#[derive(Clone, Debug, Serialize, Deserialize)]"
            ),
            (
                "ProbeTarget",
                "#[derive(Clone, Debug, Serialize, Deserialize)]"
            ),
        ])
    );
    let module = derives(&files, "probe.rs");
    assert_eq!(
        module,
        pairs(&[
            (
                "ProbeReason",
                "#[derive(Clone, Debug, PartialEq, Eq, Hash)]"
            ),
            ("Probe", "#[derive(Clone, Debug, Deserialize)]"),
            (
                "ProbeStatus",
                "#[derive(Clone, Debug, Default, Serialize, Deserialize, KubeStatus)]"
            ),
            ("Probe", "#[derive(Clone, Debug, Deserialize)]"),
            (
                "ProbeStatus",
                "#[derive(Clone, Debug, Default, Serialize, Deserialize, KubeStatus)]"
            ),
        ])
    );
}

/// Each derive alone: `PartialEq` takes `Eq` with it; `Eq`, `Hash` and `Default` go alone.
#[test]
fn each_derive_alone() {
    let enums = |without: &[Derive]| {
        derives(&generate(without), "shared.rs")
            .into_iter()
            .filter(|(name, _)| name == "ProbeHealth" || name == "ProbeScheme")
            .map(|(_, derive)| derive)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        enums(&[Derive::PartialEq]),
        [
            "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]",
            "#[derive(Clone, Copy, Debug, Hash, Serialize, Deserialize)]",
        ]
    );
    assert_eq!(
        enums(&[Derive::Eq]),
        [
            "#[derive(Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]",
            "#[derive(Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]",
        ]
    );
    assert_eq!(
        enums(&[Derive::Hash]),
        [
            "#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]",
            "#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]",
        ]
    );
    let structs = derives(&generate(&[Derive::Default]), "shared.rs");
    assert_eq!(
        structs[0],
        (
            "ProbeEndpoints".to_owned(),
            "#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]".to_owned()
        )
    );
}
