//! The user guide (`docs/guide/`, an mdBook) holds together without mdBook: `SUMMARY.md` lists
//! every chapter file of `src/` and only files that exist, and every chapter is included in
//! `tests/src/lib.rs` as doc tests, so that its Rust blocks are compiled and run (mdBook's own
//! `mdbook test` cannot link the workspace's crates).

use std::collections::BTreeSet;

const GUIDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide");

/// The chapter files `SUMMARY.md` links to, in its order.
fn summary_chapters() -> Vec<String> {
    let summary = std::fs::read_to_string(format!("{GUIDE}/src/SUMMARY.md"))
        .expect("docs/guide/src/SUMMARY.md");
    let link = regex::Regex::new(r"\]\(([^)]+\.md)\)").expect("a regex");
    link.captures_iter(&summary)
        .map(|c| c[1].to_owned())
        .collect()
}

/// The Markdown files of `src/` but `SUMMARY.md`.
fn chapter_files() -> BTreeSet<String> {
    std::fs::read_dir(format!("{GUIDE}/src"))
        .expect("docs/guide/src")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md") && name != "SUMMARY.md")
        .collect()
}

#[test]
fn the_summary_lists_every_chapter_once_and_only_chapters_that_exist() {
    let listed = summary_chapters();
    let unique: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a chapter listed twice: {listed:?}"
    );
    let files = chapter_files();
    let unlisted: Vec<&String> = files.difference(&unique).collect();
    assert!(
        unlisted.is_empty(),
        "chapters SUMMARY.md does not list: {unlisted:?}"
    );
    let missing: Vec<&String> = unique.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md lists files that do not exist: {missing:?}"
    );
}

#[test]
fn every_chapter_is_compiled_as_doc_tests() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
        .expect("tests/src/lib.rs");
    for chapter in chapter_files() {
        let include = format!("include_str!(\"../../docs/guide/src/{chapter}\")");
        assert!(
            lib.contains(&include),
            "tests/src/lib.rs does not include {chapter}"
        );
    }
}

#[test]
fn the_book_builds_from_src() {
    let book = std::fs::read_to_string(format!("{GUIDE}/book.toml")).expect("docs/guide/book.toml");
    assert!(
        book.contains("src = \"src\""),
        "book.toml names src/ as its source"
    );
}

/// Links between chapters (`[text](chapter.md)`) and to files of the repository
/// (`[text](../../../README.md)`) name files that exist.
#[test]
fn relative_links_name_files_that_exist() {
    let link = regex::Regex::new(r"\]\(([^)#:]+?)(#[^)]*)?\)").expect("a regex");
    let mut broken = Vec::new();
    for chapter in chapter_files() {
        let text = std::fs::read_to_string(format!("{GUIDE}/src/{chapter}")).expect("a chapter");
        for captures in link.captures_iter(&text) {
            let target = &captures[1];
            if !std::path::Path::new(&format!("{GUIDE}/src/{target}")).exists() {
                broken.push(format!("{chapter}: {target}"));
            }
        }
    }
    let readme = std::fs::read_to_string(format!("{GUIDE}/../../README.md")).expect("README.md");
    for captures in link.captures_iter(&readme) {
        let target = &captures[1];
        if !std::path::Path::new(&format!("{GUIDE}/../../{target}")).exists() {
            broken.push(format!("README.md: {target}"));
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}
