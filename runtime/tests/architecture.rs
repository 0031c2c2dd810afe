//! docs/ARCHITECTURE.md's runtime section against the code: the runtime's modules in layers
//! (the condition model, the tools built on it, the chokepoint on top), the imports between
//! them as the code has them (no circle, and upward only where [`UPWARD`] says why), the
//! drawing of those imports in the document, every source file described and every file
//! described existing. `KONDITION_BLESS=1 cargo test -p kondition --test architecture`
//! rewrites the drawing from the code (and fails, so that the next run checks what it wrote).
//!
//! Imports are read from the product code (comments and `#[cfg(test)]` modules left out):
//! `crate::module::...`, `crate::{a, b::c}`, and a name the crate's root re-exports
//! (`crate::Condition`) counts as an import of the module that defines it, as `lib.rs`'s
//! `pub use` says. `super::` stays inside a module (a folder module's files, or a file's
//! inline modules), so it is no import between modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const ARCHITECTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ARCHITECTURE.md");

/// The marker before the fenced block of the layers.
const LAYERS_MARK: &str = "<!-- layers: checked by runtime/tests/architecture.rs -->";
/// The marker before the fenced block of the imports.
const IMPORTS_MARK: &str = "<!-- runtime imports: written by runtime/tests/architecture.rs -->";

/// The imports that run up, from a module to one the layers list above it: at most three,
/// each with the reason it is there.
const UPWARD: &[(&str, &str, &str)] = &[(
    "profile",
    "subresources",
    "the orc profile's conditions take the kind's SubResources (SubResourcesReady is one of \
     its condition types), whose aggregation reads owned objects through kstatus, a tool",
)];

/// Every `.rs` file under `dir`, as its path relative to `base`, `/`-separated, sorted.
fn rust_files(base: &Path, dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read a folder of runtime/src") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(base).expect("below the base");
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

/// A file's code as the product compiles it: its `#[cfg(test)]` module (which this crate
/// keeps at a file's end) and its comments left out.
fn product_code(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut rest = text.lines().peekable();
    while let Some(line) = rest.next() {
        let test_module = line.trim() == "#[cfg(test)]"
            && rest.peek().is_some_and(|next| {
                let next = next.trim_start();
                next.starts_with("mod ") || next.starts_with("pub mod ")
            });
        if test_module {
            break;
        }
        if !line.trim_start().starts_with("//") {
            lines.push(line);
        }
    }
    lines.join("\n")
}

/// The top module a file belongs to (`kstatus/kinds/pod.rs` -> `kstatus`, `lib.rs` -> `lib`).
fn module_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The first path segment of each item of a `{...}` group (`a, b::c, d as e` -> a b d), with
/// the name each item is known by (a b e).
fn group_items(group: &str) -> Vec<(String, String)> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .iter()
        .filter_map(|item| {
            let item = item.trim();
            let first: String = item
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if first.is_empty() {
                return None;
            }
            let known = match item.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim().to_owned(),
                None => item
                    .rsplit("::")
                    .next()
                    .unwrap_or(item)
                    .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
                    .to_owned(),
            };
            Some((first, known))
        })
        .collect()
}

/// The names `code` reaches through `crate::`: the first segment of each path.
fn crate_names(code: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            named.extend(group_items(group).into_iter().map(|(first, _)| first));
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                named.insert(name);
            }
        }
    }
    named
}

/// What the crate's root re-exports from its own modules: each name, with its module
/// (`Condition` -> `condition`, `crd` -> `wire`).
fn root_exports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    let code = product_code(lib);
    for (at, _) in code.match_indices("pub use ") {
        let statement = &code[at + "pub use ".len()..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let Some((module, rest)) = statement.split_once("::") else {
            continue;
        };
        if !modules.contains(module.trim()) {
            continue; // another crate's (kondition_derive's macro, k8s-openapi's Time)
        }
        let items = match rest.trim().strip_prefix('{') {
            Some(group) => group_items(group),
            None => group_items(rest),
        };
        for (_, known) in items {
            exports.insert(known, module.trim().to_owned());
        }
    }
    exports
}

/// Which module imports which, drawn from the code.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(Path::new(SRC), Path::new(SRC));
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f).to_owned()).collect();
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("lib.rs");
    let exports = root_exports(&lib, &modules);
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file).to_owned();
        if module == "lib" {
            continue; // the root names every module: it declares them
        }
        let text = std::fs::read_to_string(Path::new(SRC).join(file)).expect("read");
        let entry = arrows.entry(module.clone()).or_default();
        for name in crate_names(&product_code(&text)) {
            let target = if modules.contains(&name) {
                name
            } else if let Some(owner) = exports.get(&name) {
                owner.clone()
            } else if name == "Time" {
                continue; // k8s-openapi's, re-exported
            } else {
                panic!("{file} names crate::{name}, which is no module and no re-export");
            };
            if target != module {
                entry.insert(target);
            }
        }
    }
    arrows
}

/// The lines of the fenced block that follows `mark` in `doc`.
fn block_after<'d>(doc: &'d str, mark: &str) -> Vec<&'d str> {
    let start = doc
        .find(mark)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no `{mark}`"));
    let mut lines = doc[start + mark.len()..]
        .lines()
        .skip_while(|l| l.trim().is_empty());
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "a fenced block must follow `{mark}`"
    );
    lines.take_while(|line| !line.starts_with("```")).collect()
}

/// The layers as the document lists them (`layer: modules`, lowest first), each module with
/// its place in the whole order, lowest first.
fn layers(doc: &str) -> BTreeMap<String, (String, usize)> {
    let mut place = BTreeMap::new();
    for line in block_after(doc, LAYERS_MARK) {
        let (layer, modules) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("a layer line is `layer: modules`: {line}"));
        for module in modules.split_whitespace() {
            let at = place.len();
            let earlier = place.insert(module.to_owned(), (layer.trim().to_owned(), at));
            assert!(earlier.is_none(), "{module} is listed twice");
        }
    }
    place
}

/// The imports as the document writes them: `module -> a b c`, one line per module.
fn imports_text(arrows: &BTreeMap<String, BTreeSet<String>>) -> String {
    let width = arrows.keys().map(String::len).max().unwrap_or(0);
    arrows
        .iter()
        .map(|(module, to)| {
            let to: Vec<&str> = to.iter().map(String::as_str).collect();
            let line = format!("{module:width$} -> {}", to.join(" "));
            line.trim_end().to_owned() + "\n"
        })
        .collect()
}

fn document() -> String {
    std::fs::read_to_string(ARCHITECTURE).expect("docs/ARCHITECTURE.md")
}

#[test]
fn every_module_is_in_a_layer_and_imports_run_down_but_for_the_listed_ones() {
    let doc = document();
    let arrows = imports();
    let place = layers(&doc);

    let modules: BTreeSet<&String> = arrows.keys().collect();
    let layered: BTreeSet<&String> = place.keys().collect();
    assert_eq!(
        modules, layered,
        "the modules of runtime/src and the layers' modules"
    );

    let mut upward = BTreeSet::new();
    for (module, to) in &arrows {
        for target in to {
            if place[target].1 > place[module].1 {
                upward.insert((module.as_str(), target.as_str()));
            }
        }
    }
    let allowed: BTreeSet<(&str, &str)> = UPWARD.iter().map(|(from, to, _)| (*from, *to)).collect();
    assert!(UPWARD.len() <= 3, "at most three imports may run up");
    assert!(
        UPWARD.iter().all(|(_, _, why)| !why.is_empty()),
        "each upward import says why"
    );
    let unlisted: Vec<_> = upward.difference(&allowed).collect();
    assert!(
        unlisted.is_empty(),
        "imports running up the layers that UPWARD does not list (move what belongs lower): \
         {unlisted:?}"
    );
    let gone: Vec<_> = allowed.difference(&upward).collect();
    assert!(
        gone.is_empty(),
        "UPWARD lists imports the code no longer has: {gone:?}"
    );
}

#[test]
fn no_imports_go_round_in_a_circle() {
    fn visit<'a>(
        module: &'a str,
        arrows: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module);
            panic!("a circle of imports: {}", circle.join(" -> "));
        }
        if done.contains(module) {
            return;
        }
        path.push(module);
        for target in arrows.get(module).into_iter().flatten() {
            visit(target, arrows, path, done);
        }
        path.pop();
        done.insert(module);
    }
    let arrows = imports();
    let mut done = BTreeSet::new();
    for module in arrows.keys() {
        visit(module, &arrows, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_document_draws_the_imports_the_code_has() {
    let doc = document();
    let drawn: String = block_after(&doc, IMPORTS_MARK)
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    let from_code = imports_text(&imports());
    if drawn != from_code {
        if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
            let start = doc.find(IMPORTS_MARK).expect("the mark") + IMPORTS_MARK.len();
            let open = start + doc[start..].find("```").expect("the block");
            let body = open + doc[open..].find('\n').expect("the fence's line") + 1;
            let close = body + doc[body..].find("```").expect("the block's end");
            let rewritten = format!("{}{from_code}{}", &doc[..body], &doc[close..]);
            std::fs::write(ARCHITECTURE, rewritten).expect("write docs/ARCHITECTURE.md");
            panic!("docs/ARCHITECTURE.md's runtime imports rewritten from the code: run again");
        }
        panic!(
            "docs/ARCHITECTURE.md draws the runtime's imports as\n{drawn}\nthe code has\n\
             {from_code}(KONDITION_BLESS=1 rewrites the drawing)"
        );
    }
}

/// The backticked names in the runtime section that look like paths in `runtime/src`
/// (`controller/apply.rs`, `kstatus/`).
fn paths_named(section: &str) -> BTreeSet<String> {
    const ELSEWHERE: &[&str] = &[
        "runtime/",
        "generator/",
        "derive/",
        "names/",
        "tests/",
        "docs/",
        "templates/",
        "testkit/",
        "fidelity/",
        "fuzz/",
        "bench/",
        "corpus/",
        "schemas/",
        "generated/",
        "examples/",
        "src/",
    ];
    section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|token| {
            (token.ends_with(".rs") || token.ends_with('/'))
                && token
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c == '/' || c == '.')
                && !ELSEWHERE.iter().any(|root| token.starts_with(root))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_document_describes_every_file_and_only_files_that_exist() {
    let doc = document();
    let start = doc.find("## The runtime").expect("a runtime section");
    let end = start
        + doc[start..]
            .find("\n## The tests")
            .expect("a tests section");
    let named = paths_named(&doc[start..end]);

    let files = rust_files(Path::new(SRC), Path::new(SRC));
    // A folder module is described by its folder (`kstatus/`) or its `mod.rs`.
    let undescribed: Vec<&String> = files
        .iter()
        .filter(|file| {
            let folder = file.strip_suffix("mod.rs");
            !named.contains(*file) && !folder.is_some_and(|folder| named.contains(folder))
        })
        .collect();
    assert!(
        undescribed.is_empty(),
        "docs/ARCHITECTURE.md's runtime section does not describe {undescribed:?}"
    );
    let missing: Vec<&String> = named
        .iter()
        .filter(|path| !Path::new(SRC).join(path).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md's runtime section describes {missing:?}, which runtime/src \
         does not have"
    );
}

/// The reader of imports itself, on code written for it.
#[test]
fn imports_are_read_from_paths_groups_and_root_re_exports() {
    let code = "use crate::{a::B, c, d::{e, f}};\nfn g() { crate::h::i(); x_crate::j(); }\n\
                // crate::k in a comment\n";
    let names = crate_names(&product_code(code));
    let expected: BTreeSet<String> = ["a", "c", "d", "h"].map(String::from).into();
    assert_eq!(names, expected);

    let modules: BTreeSet<String> = ["condition", "wire"].map(String::from).into();
    let lib = "pub use condition::{\n    Condition, Polarity as P,\n};\npub use wire::{crd, \
               nullable};\npub use other_crate::Thing;\n";
    let exports = root_exports(lib, &modules);
    let expected: BTreeMap<String, String> = [
        ("Condition", "condition"),
        ("P", "condition"),
        ("crd", "wire"),
        ("nullable", "wire"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .into();
    assert_eq!(exports, expected);

    let test_module = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
    let expected: BTreeSet<String> = ["a"].map(String::from).into();
    assert_eq!(crate_names(&product_code(test_module)), expected);
}
