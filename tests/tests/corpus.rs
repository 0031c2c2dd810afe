//! The CRD corpus (corpus/) is part of the repository: every YAML file in it is listed, with
//! its checksum, in corpus/SHA256SUMS (CI checks the checksums with `sha256sum --check`), and
//! its provenance and license in corpus/SOURCES.md.

use std::collections::BTreeSet;
use std::path::Path;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

/// Every `*.yaml` under `dir`, relative to `root`, with `/` separators.
fn yaml_files(root: &Path, dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("corpus folder") {
        let path = entry.expect("corpus entry").path();
        if path.is_dir() {
            yaml_files(root, &path, found);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            let relative = path.strip_prefix(root).expect("under the corpus");
            let parts: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
            found.insert(parts.join("/"));
        }
    }
}

#[test]
fn sha256sums_lists_every_corpus_file_once() {
    let root = Path::new(CORPUS);
    let sums = std::fs::read_to_string(root.join("SHA256SUMS")).expect("corpus/SHA256SUMS");
    let mut listed = BTreeSet::new();
    for line in sums.lines() {
        let (hash, file) = line.split_once("  ").expect("`<sha256>  <file>` lines");
        assert_eq!(hash.len(), 64, "{line}");
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{line}");
        assert!(listed.insert(file.to_owned()), "{file} listed twice");
    }
    let mut found = BTreeSet::new();
    yaml_files(root, root, &mut found);
    assert_eq!(listed, found);
    assert_eq!(found.len(), 31);
}

#[test]
fn sources_md_names_every_corpus_file() {
    let root = Path::new(CORPUS);
    let sources = std::fs::read_to_string(root.join("SOURCES.md")).expect("corpus/SOURCES.md");
    let mut found = BTreeSet::new();
    yaml_files(root, root, &mut found);
    for file in &found {
        assert!(
            sources.contains(&format!("`{file}`")),
            "{file} is not in SOURCES.md"
        );
    }
    for license in ["Apache-2.0.txt", "MIT-azure-service-operator.txt"] {
        assert!(root.join("LICENSES").join(license).is_file(), "{license}");
    }
}
