//! docs/ARCHITECTURE.md against the code: the generator's stages in the order data flows,
//! the imports between its modules as the document draws them, every module described and
//! every module described existing; and the rules that have one home each, found nowhere
//! else. `KONDITION_BLESS=1 cargo test -p kondition-gen --test architecture` rewrites the
//! drawing of the imports from the code (and fails, so the next run checks what it wrote).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const ARCHITECTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ARCHITECTURE.md");

/// The marker before the fenced block of the stages.
const STAGES_MARK: &str = "<!-- stages: checked by generator/tests/architecture.rs -->";
/// The marker before the fenced block of the imports.
const IMPORTS_MARK: &str = "<!-- imports: written by generator/tests/architecture.rs -->";

/// Every `.rs` file under `dir`, as its path relative to `base`, `/`-separated, sorted: the
/// generator's own folder walk.
fn rust_files(base: &Path, dir: &Path) -> Vec<String> {
    kondition_gen::inputs::files_with(&[dir.to_path_buf()], &["rs"])
        .expect("read the folder")
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(base).expect("below the base");
            relative.to_string_lossy().replace('\\', "/")
        })
        .collect()
}

/// A file's code as the product compiles it: its unit tests (`tests.rs` files, and a
/// `#[cfg(test)]` module, which this crate keeps at a file's end) and its comments left out.
/// A `#[cfg(test)]` on any other item leaves the rest of the file in.
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

/// The generator's source files that are not unit tests, with their product code.
fn generator_sources() -> Vec<(String, String)> {
    rust_files(Path::new(SRC), Path::new(SRC))
        .into_iter()
        .filter(|file| !file.ends_with("/tests.rs"))
        .map(|file| {
            let text = std::fs::read_to_string(Path::new(SRC).join(&file)).expect("read");
            let code = product_code(&text);
            (file, code)
        })
        .collect()
}

/// The top module a file belongs to (`emit/rust/writer.rs` -> `emit`, `lib.rs` -> `lib`).
fn module_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The crate's top modules a file's code names: `crate::x`, `crate::{x, y::z}` and, in the
/// binary, `kondition_gen::x`.
fn modules_named(code: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for prefix in ["crate::", "kondition_gen::"] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // The first segment of each item of the group, at its own depth.
                let mut depth = 0;
                let mut item_start = true;
                let mut segment = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            item_start = true;
                            if !segment.is_empty() {
                                named.insert(std::mem::take(&mut segment));
                            }
                            continue;
                        }
                        _ => {}
                    }
                    if depth == 0 && item_start {
                        if c.is_alphanumeric() || c == '_' {
                            segment.push(c);
                        } else if !segment.is_empty() || !c.is_whitespace() {
                            item_start = false;
                        }
                    }
                }
                if !segment.is_empty() {
                    named.insert(segment);
                }
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
    }
    named
}

/// Which module imports which, drawn from the code.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in generator_sources() {
        let module = module_of(&file).to_owned();
        let named = modules_named(&code);
        let entry = arrows.entry(module.clone()).or_default();
        entry.extend(named.into_iter().filter(|m| *m != module && m != "self"));
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

/// The stages as the document lists them: each module with its stage's number.
fn stages(doc: &str) -> BTreeMap<String, usize> {
    let mut stage_of = BTreeMap::new();
    for line in block_after(doc, STAGES_MARK) {
        let mut words = line.split_whitespace();
        let Some(number) = words.next().and_then(|w| w.parse::<usize>().ok()) else {
            continue;
        };
        // The stage's name, then `:`, then its modules.
        let modules = line
            .split_once(':')
            .map(|(_, modules)| modules)
            .unwrap_or_else(|| panic!("a stage line is `N name: modules`: {line}"));
        for module in modules.split_whitespace() {
            let earlier = stage_of.insert(module.to_owned(), number);
            assert!(earlier.is_none(), "{module} is in two stages");
        }
    }
    stage_of
}

#[test]
fn imports_run_one_way_through_the_stages_the_document_lists() {
    let doc = std::fs::read_to_string(ARCHITECTURE).expect("docs/ARCHITECTURE.md");
    let arrows = imports();
    let stage_of = stages(&doc);

    // Every module is in a stage, and every module a stage names exists.
    let modules: BTreeSet<&String> = arrows.keys().collect();
    let staged: BTreeSet<&String> = stage_of.keys().collect();
    assert_eq!(
        modules, staged,
        "the modules of generator/src and the stages' modules"
    );

    // No arrow points to a later stage.
    let mut backwards = Vec::new();
    for (module, to) in &arrows {
        for target in to {
            let Some(&target_stage) = stage_of.get(target) else {
                // A name at the crate's root (a re-export or a macro) is no module.
                assert!(
                    !target.starts_with(|c: char| c.is_ascii_lowercase()),
                    "{module} names crate::{target}, which is no module"
                );
                continue;
            };
            if target_stage > stage_of[module] {
                backwards.push(format!("{module} -> {target}"));
            }
        }
    }
    assert!(
        backwards.is_empty(),
        "imports from an earlier stage to a later one: {backwards:?}"
    );

    // No circle, within a stage either.
    fn visit<'a>(
        module: &'a str,
        arrows: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(at) = path.iter().position(|m| *m == module) {
            panic!("a circle of imports: {}", path[at..].join(" -> "));
        }
        if !done.insert(module) {
            return;
        }
        path.push(module);
        for target in arrows.get(module).into_iter().flatten() {
            visit(target, arrows, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for module in arrows.keys() {
        visit(module, &arrows, &mut Vec::new(), &mut done);
    }

    // The drawing of the imports is the code's.
    let drawn: String = block_after(&doc, IMPORTS_MARK)
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    let from_code = imports_text(&arrows);
    if drawn != from_code {
        if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
            let start = doc.find(IMPORTS_MARK).expect("the mark") + IMPORTS_MARK.len();
            let open = start + doc[start..].find("```").expect("the block");
            let body = open + doc[open..].find('\n').expect("the fence's line") + 1;
            let close = body + doc[body..].find("```").expect("the block's end");
            let rewritten = format!("{}{from_code}{}", &doc[..body], &doc[close..]);
            std::fs::write(ARCHITECTURE, rewritten).expect("write docs/ARCHITECTURE.md");
            panic!("docs/ARCHITECTURE.md's imports rewritten from the code: run again");
        }
        panic!(
            "docs/ARCHITECTURE.md draws the imports as\n{drawn}\nthe code has\n{from_code}\
             (KONDITION_BLESS=1 rewrites the drawing)"
        );
    }
}

/// The backticked names in the document's generator section that look like paths in
/// `generator/src` (`emit/rust/writer.rs`, `format/`).
fn paths_named(section: &str) -> BTreeSet<String> {
    const ELSEWHERE: &[&str] = &[
        "generator/",
        "runtime/",
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
fn the_document_describes_every_module_and_only_modules_that_exist() {
    let doc = std::fs::read_to_string(ARCHITECTURE).expect("docs/ARCHITECTURE.md");
    let start = doc.find("## The generator").expect("a generator section");
    let end = start
        + doc[start..]
            .find("\n## The runtime")
            .expect("a runtime section");
    let section = &doc[start..end];
    let named = paths_named(section);

    let files: Vec<String> = rust_files(Path::new(SRC), Path::new(SRC))
        .into_iter()
        .filter(|file| !file.ends_with("/tests.rs"))
        .collect();
    // A folder module is described by its folder (`emit/`) or its `mod.rs`.
    let undescribed: Vec<&String> = files
        .iter()
        .filter(|file| {
            let folder = file.strip_suffix("mod.rs");
            !named.contains(*file) && !folder.is_some_and(|folder| named.contains(folder))
        })
        .collect();
    assert!(
        undescribed.is_empty(),
        "docs/ARCHITECTURE.md does not describe {undescribed:?}"
    );
    let missing: Vec<&String> = named
        .iter()
        .filter(|path| !Path::new(SRC).join(path).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md describes {missing:?}, which generator/src does not have"
    );
}

/// The places in the product code of `crates` (folders of the workspace) where `needle`
/// is written, beside `home`.
fn written_beside(needle: &str, home: &str, crates: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for krate in crates {
        let base = Path::new(WORKSPACE);
        let files = rust_files(base, &base.join(krate));
        for file in files.iter().filter(|f| !f.ends_with("/tests.rs")) {
            let text = std::fs::read_to_string(base.join(file)).expect("read");
            if file != home && product_code(&text).contains(needle) {
                found.push(file.clone());
            }
        }
    }
    found
}

#[test]
fn each_rule_is_written_in_its_one_place() {
    let rules: &[(&str, &str, &[&str], &str)] = &[
        (
            "\"standard\"",
            "generator/src/profile.rs",
            &["generator/src"],
            "the default profile's name (profile::DEFAULT)",
        ),
        (
            "did you mean",
            "names/src/suggest.rs",
            &["generator/src", "derive/src", "names/src"],
            "the did-you-mean wording (kondition_names::hint)",
        ),
        (
            "ConditionType\"",
            "names/src/items.rs",
            &["generator/src", "derive/src", "names/src"],
            "the names of a kind's own items (kondition_names::kind_items)",
        ),
        (
            "StatusApply\"",
            "names/src/items.rs",
            &["generator/src", "derive/src", "names/src"],
            "the names of a kind's own items (kondition_names::kind_items)",
        ),
        (
            "\"AnyChange\"",
            "names/src/profile.rs",
            &["generator/src", "derive/src", "names/src", "runtime/src"],
            "the transition rules' names (kondition_names::profile::TransitionRule)",
        ),
        (
            "[A-Za-z0-9_,:]",
            "names/src/api_rules.rs",
            &["generator/src", "derive/src", "names/src", "runtime/src"],
            "the API server's rules for condition types and reasons (kondition_names::api_rules)",
        ),
        (
            "must be true or false",
            "generator/src/source/reader.rs",
            &["generator/src"],
            "typed reading of a mapping (source::reader::MapReader)",
        ),
        (
            "thread::scope",
            "generator/src/parallel.rs",
            &["generator/src"],
            "work on the cores (parallel)",
        ),
        (
            "doc(hidden)",
            "",
            &["generator/src"],
            "an item public for tests only (the feature `internals` shows the stages instead)",
        ),
    ];
    let mut elsewhere = Vec::new();
    for (needle, home, crates, rule) in rules {
        for file in written_beside(needle, home, crates) {
            elsewhere.push(format!("{file}: `{needle}`, {rule}, whose place is {home}"));
        }
    }
    assert!(elsewhere.is_empty(), "{elsewhere:#?}");
}
