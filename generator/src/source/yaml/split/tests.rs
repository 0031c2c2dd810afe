//! Reading on the cores gives exactly what reading on one core gives: the same nodes at the
//! same places, or the same first error; on the corpus, on written cases that put YAML's
//! traps at the cuts, and on random texts built from them.

use std::path::Path;

use proptest::prelude::*;

use super::{Read, read};
use crate::source::yaml::{MAX_DEPTH, difference, parse};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

/// Reads `text` cut from the first byte, asserts it equals the whole text's reading, and
/// says how it was read.
fn same_as_whole(text: &str) -> Read {
    let (result, how) = read(text, 0);
    let whole = parse(text);
    assert!(
        result == whole,
        "read {how:?}: {}\n{text}",
        difference(&result, &whole)
    );
    how
}

#[test]
fn every_corpus_file_reads_as_on_one_core() {
    let files = crate::inputs::schema_files(&[Path::new(CORPUS).to_owned()]).expect("corpus");
    let mut cut = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file");
        let (result, how) = read(&text, super::SPLIT_FROM);
        let whole = parse(&text);
        assert!(
            result == whole,
            "{}: {}",
            path.display(),
            difference(&result, &whole)
        );
        if how != Read::Whole {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            cut.push(format!("{name}: {how:?}"));
        }
    }
    cut.sort();
    assert_eq!(
        cut,
        [
            "300-pipelinerun.yaml: Versions",
            "capz-vendored-aso-v2.16.0-crds.yaml: Documents",
            "containerservice.azure.com_managedclusters.extracted.yaml: Versions",
            "crd-all.gen.yaml: Documents",
            "gateway.networking.k8s.io_httproutes.standard.yaml: Versions",
            "kueue.x-k8s.io_workloads.yaml: Versions",
            "monitoring.coreos.com_alertmanagerconfigs.full.yaml: Versions",
        ]
    );
}

const HEAD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  versions:\n";

#[test]
fn versions_are_cut_at_their_items_only() {
    let cases = [
        // Plain items, compact and indented lists, and what follows the list.
        "  - name: v1\n    served: true\n  - name: v2\n    served: false\nstatus: {}\n",
        "    - name: v1\n    - name: v2\n      x: 1\n  names: {kind: K}\n",
        "  - name: v1\n  # a comment between items\n\n  - name: v2\n  -\n  - [a, b]\n",
        // A block scalar's lines that look like items.
        "  - name: v1\n    description: |\n      - not an item\n        - nor this\n  - name: v2\n",
        // A block scalar with less indented lines: the item line ends it.
        "  - name: v1\n    description: >\n     text\n  - name: v2\n",
        // Multi-line scalars and flow lists crossing an item's line: errors, or not, as whole.
        "  - name: v1\n    description: \"quoted\n  - name: inside\"\n  - name: v2\n",
        "  - name: v1\n    description: plain\n  - name: v2\n",
        "  - name: v1\n    enum: [a,\n  - b]\n  - name: v2\n",
        "  - name: v1\n    enum: {a: 1,\n  - b: 2}\n  - name: v2\n",
        // Keys repeated across items are not duplicates; within one they are.
        "  - name: v1\n  - name: v1\n",
        "  - name: v1\n    name: v2\n  - name: v3\n",
        // A key of spec after the list, at the items' indentation.
        "  - name: v1\n  - name: v2\n  scope: Namespaced\n",
        "  - name: v1\n  - name: v2\n  versions: again\n",
        // Anchors and tags in an item.
        "  - name: v1\n  - &a name: v2\n",
        "  - !!map {name: v1}\n  - name: v2\n",
        // A character across the items' indentation (it panicked once: sliced as text).
        "  - name: v1\naé: x\n  - name: v2\n",
        "    - name: v1\n   é\n    - name: v2\n",
        "  - name: v1\n    d: |\n     é- x\n  - name: v2\n",
        // Tabs and line ends.
        "  - name: v1\r\n  - name: v2\r\n",
        "  - name: v1\n\t- name: v2\n",
        "  - name: v1\n  - name: v2",
        // A first item whose value starts on the next line: read whole, the list starts
        // after its `- `, not where the item's mapping does (the property test found it).
        "  - \n    served: true\n  - name: v1\n",
        "  -\n    served: true\n  - name: v1\n",
        "  - # a comment\n    served: true\n  - name: v1\n",
        "    - \n      served: true\n    - name: v1\n",
    ];
    let mut cut = 0;
    for case in cases {
        if same_as_whole(&format!("{HEAD}{case}")) == Read::Versions {
            cut += 1;
        }
    }
    // Most cases are cut; those whose pieces do not read as items are read whole.
    assert!(cut >= 10, "{cut} cut");
}

#[test]
fn documents_are_cut_at_their_markers() {
    for text in [
        "a: 1\n---\nb: 2\n",
        "# only a comment\n---\na: 1\n--- \nb: 2\n---\n",
        "---\n---\n---\n",
        "--- |\n  text\n--- >\n  folded\n",
        "a: |\n  x\n---\nb: \"multi\n---\nline\"\n",
        "a: [1,\n---\n2]\n",
        "---\na: 1\n...\n---\nb: 2\n",
        "%YAML 1.2\n---\na: 1\n---\nb: 2\n",
        "---x: 1\n---\ny: 2\n",
    ] {
        same_as_whole(text);
    }
}

#[test]
fn the_nesting_limit_counts_what_holds_a_version() {
    // An item nested to the limit and one nested beyond it, as deep as in the whole text.
    let nested = |levels: usize| {
        let mut item = String::from("  - name: v1\n    x:\n");
        for level in 0..levels {
            item.push_str(&" ".repeat(6 + 2 * level));
            item.push_str("y:\n");
        }
        item.push_str(&" ".repeat(6 + 2 * levels));
        item.push_str("z: 1\n  - name: v2\n");
        format!("{HEAD}{item}")
    };
    // The document's mapping, spec's, the list, the item and its `x` hold the chain.
    let at_limit = nested(MAX_DEPTH - 5);
    assert!(parse(&at_limit).is_ok());
    assert_eq!(same_as_whole(&at_limit), Read::Versions);
    let beyond = nested(MAX_DEPTH - 4);
    assert!(parse(&beyond).is_err());
    assert_eq!(same_as_whole(&beyond), Read::Whole);
}

/// Lines that make YAML's traps at the cuts.
fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("  - name: v1".to_owned()),
        Just("  - name: v1".to_owned()),
        Just("    served: true".to_owned()),
        Just("    - x".to_owned()),
        Just("  -".to_owned()),
        Just("  - [a,".to_owned()),
        Just("  b]".to_owned()),
        Just("    d: |".to_owned()),
        Just("    e:".to_owned()),
        Just("  - ".to_owned()),
        Just("    f: ''".to_owned()),
        Just("      - text".to_owned()),
        Just("    q: \"open".to_owned()),
        Just("  - close\"".to_owned()),
        Just("  # comment".to_owned()),
        Just(String::new()),
        Just("---".to_owned()),
        Just("  scope: x".to_owned()),
        Just("status: {}".to_owned()),
        Just("\t- tab".to_owned()),
        Just(" é- x".to_owned()),
        Just("aé".to_owned()),
        Just("   é".to_owned()),
        Just("  versions:".to_owned()),
        Just("spec:".to_owned()),
        "  [a-z -]{0,8}",
    ]
}

proptest! {
    #[test]
    fn random_texts_read_as_on_one_core(lines in prop::collection::vec(any_line(), 0..24)) {
        let text = format!("{HEAD}{}\n", lines.join("\n"));
        let (result, how) = read(&text, 0);
        let whole = parse(&text);
        prop_assert!(result == whole, "read {:?}: {}\n{}", how, difference(&result, &whole), text);
    }
}
