//! The machinery of `tests/tests/architecture.rs`, which holds docs/ARCHITECTURE.md to the
//! code of the runtime (`runtime/src`) and of the generator (`generator/src`): a crate's Rust
//! files and their product code, the top module a file belongs to, the imports between
//! modules as the code has them (`crate::...` paths and groups), a circle among them, the
//! marked blocks of the document and the drawing of the imports written there
//! (`KONDITION_BLESS=1` rewrites it from the code), the source files the document names, and
//! the functions of a file with their lengths. It only reads files: nothing here links the
//! crates it reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The workspace's folder.
pub const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// docs/ARCHITECTURE.md.
pub const ARCHITECTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ARCHITECTURE.md");

/// Which module imports which: each module with the modules it names.
pub type Arrows = BTreeMap<String, BTreeSet<String>>;

/// A folder of the workspace (`runtime/src`).
pub fn folder(relative: &str) -> PathBuf {
    Path::new(WORKSPACE).join(relative)
}

/// docs/ARCHITECTURE.md's text.
pub fn document() -> String {
    std::fs::read_to_string(ARCHITECTURE).expect("docs/ARCHITECTURE.md")
}

/// Every `.rs` file under `dir`, as its path relative to `base`, `/`-separated, sorted.
pub fn rust_files(base: &Path, dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()));
        for entry in entries {
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

/// A file's code as the product compiles it: its `#[cfg(test)]` module (which kondition's
/// crates keep at a file's end) and its comments left out. A `#[cfg(test)]` on any other
/// item leaves the rest of the file in.
pub fn product_code(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut rest = text.lines().peekable();
    while let Some(line) = rest.next() {
        if line.trim() == "#[cfg(test)]" && rest.peek().is_some_and(|next| opens_module(next)) {
            break;
        }
        if !line.trim_start().starts_with("//") {
            lines.push(line);
        }
    }
    lines.join("\n")
}

/// Whether a line declares a module (`mod x`, `pub mod x`).
fn opens_module(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("mod ") || line.starts_with("pub mod ")
}

/// The top module a file belongs to (`kstatus/kinds/pod.rs` -> `kstatus`, `lib.rs` -> `lib`).
pub fn module_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The first path segment of each item of a `{...}` group (`a, b::c, d as e` -> a b d), with
/// the name each item is known by (a b e).
pub fn group_items(group: &str) -> Vec<(String, String)> {
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
            let first: String = item.chars().take_while(|c| is_ident(*c)).collect();
            if first.is_empty() {
                return None;
            }
            let known = match item.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim().to_owned(),
                None => item
                    .rsplit("::")
                    .next()
                    .unwrap_or(item)
                    .trim_matches(|c: char| !is_ident(c))
                    .to_owned(),
            };
            Some((first, known))
        })
        .collect()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The names `code` reaches through each of `roots` (`crate::`, and `kondition_gen::` in
/// the generator's binary): the first segment of each path, of each item of a group
/// (`crate::{a::B, c}` -> a c). A root that is the end of a longer word (`x_crate::`) or a
/// macro's `$crate::` is none.
pub fn names_reached(code: &str, roots: &[&str]) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for root in roots {
        for (at, _) in code.match_indices(root) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == '$') {
                continue;
            }
            let rest = &code[at + root.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                named.extend(group_items(group).into_iter().map(|(first, _)| first));
            } else {
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                if !name.is_empty() {
                    named.insert(name);
                }
            }
        }
    }
    named
}

/// What a crate's root (`lib`, its text) re-exports from its own `modules`: each name, with
/// its module (`Condition` -> `condition`, `crd` -> `wire`).
pub fn root_exports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    let code = product_code(lib);
    for (at, _) in code.match_indices("pub use ") {
        let statement = &code[at + "pub use ".len()..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let Some((module, rest)) = statement.split_once("::") else {
            continue;
        };
        if !modules.contains(module.trim()) {
            continue; // another crate's (a derive macro, k8s-openapi's Time)
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

/// A circle of imports, if there is one: its modules in order, the first again at the end.
pub fn circle(arrows: &Arrows) -> Option<Vec<String>> {
    fn visit<'a>(
        module: &'a str,
        arrows: &'a Arrows,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let mut circle: Vec<String> = path[at..].iter().map(|m| (*m).to_owned()).collect();
            circle.push(module.to_owned());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module);
        for target in arrows.get(module).into_iter().flatten() {
            if let Some(circle) = visit(target, arrows, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module);
        None
    }
    let mut done = BTreeSet::new();
    arrows
        .keys()
        .find_map(|module| visit(module, arrows, &mut Vec::new(), &mut done))
}

/// The lines of the fenced block that follows `mark` in `doc`.
pub fn block_after<'d>(doc: &'d str, mark: &str) -> Vec<&'d str> {
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
pub fn imports_text(arrows: &Arrows) -> String {
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

/// One rewrite of the document at a time: the tests of both crates run in one binary.
static REWRITING: Mutex<()> = Mutex::new(());

/// Panics unless the block after `mark` in `doc` draws `arrows` (`whose` names them in the
/// message: "the runtime's imports"). With `KONDITION_BLESS=1` it rewrites the block from
/// the code first (and still fails, so that the next run checks what it wrote).
pub fn assert_drawn(doc: &str, mark: &str, arrows: &Arrows, whose: &str) {
    let drawn: String = block_after(doc, mark)
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    let from_code = imports_text(arrows);
    if drawn == from_code {
        return;
    }
    if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
        let _one = REWRITING.lock().unwrap_or_else(|e| e.into_inner());
        let doc = document(); // as the other crate's rewrite may have left it
        let start = doc.find(mark).expect("the mark") + mark.len();
        let open = start + doc[start..].find("```").expect("the block");
        let body = open + doc[open..].find('\n').expect("the fence's line") + 1;
        let close = body + doc[body..].find("```").expect("the block's end");
        let rewritten = format!("{}{from_code}{}", &doc[..body], &doc[close..]);
        std::fs::write(ARCHITECTURE, rewritten).expect("write docs/ARCHITECTURE.md");
        panic!("docs/ARCHITECTURE.md's drawing of {whose} rewritten from the code: run again");
    }
    panic!(
        "docs/ARCHITECTURE.md draws {whose} as\n{drawn}\nthe code has\n{from_code}\
         (KONDITION_BLESS=1 rewrites the drawing)"
    );
}

/// The part of `doc` from the heading `from` to the heading `to` (`## The runtime`).
pub fn section<'d>(doc: &'d str, from: &str, to: &str) -> &'d str {
    let start = doc
        .find(from)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no `{from}`"));
    let end = start
        + doc[start..]
            .find(&format!("\n{to}"))
            .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no `{to}` after `{from}`"));
    &doc[start..end]
}

/// The backticked names in a section that look like paths in its crate's `src`
/// (`controller/apply.rs`, `kstatus/`), not like paths from the workspace's folder.
pub fn paths_named(section: &str) -> BTreeSet<String> {
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

/// Against the paths a section `named`: the `files` of `src` it does not describe (a folder
/// module is described by its folder, `kstatus/`, or its `mod.rs`), and what it names that
/// `src` does not have.
pub fn description_gaps(
    src: &Path,
    files: &[String],
    named: &BTreeSet<String>,
) -> (Vec<String>, Vec<String>) {
    let undescribed = files
        .iter()
        .filter(|file| {
            let folder = file.strip_suffix("mod.rs");
            !named.contains(*file) && !folder.is_some_and(|folder| named.contains(folder))
        })
        .cloned()
        .collect();
    let missing = named
        .iter()
        .filter(|path| !src.join(path).exists())
        .cloned()
        .collect();
    (undescribed, missing)
}

/// A function of a file: its name, the line of its `fn` (from 1) and its length in lines,
/// from the `fn` line to its closing brace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// The line of its `fn`, from 1.
    pub line: usize,
    /// Lines from the `fn` line to the closing brace, both counted.
    pub lines: usize,
}

/// Every function with a body in a file's product code (`text`, the whole file): its
/// `#[cfg(test)] mod` blocks left out wherever they are, and braces in comments, strings
/// and characters not counted. A function inside another is counted on its own too.
pub fn functions(text: &str) -> Vec<Function> {
    let code: Vec<char> = without_test_modules(&blank_literals(text))
        .chars()
        .collect();
    let line_at = |at: usize| 1 + code[..at].iter().filter(|c| **c == '\n').count();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = find_word(&code, at, "fn") {
        at = start + 2;
        let mut name_at = at;
        while code.get(name_at).is_some_and(|c| c.is_whitespace()) {
            name_at += 1;
        }
        let name: String = code[name_at..]
            .iter()
            .take_while(|c| is_ident(**c))
            .collect();
        if name.is_empty() {
            continue; // a function pointer's type, `fn(u32) -> u32`
        }
        let Some(open) = body_of(&code, name_at) else {
            continue; // a declaration without a body
        };
        let Some(close) = matching_brace(&code, open) else {
            continue;
        };
        found.push(Function {
            name,
            line: line_at(start),
            lines: line_at(close) - line_at(start) + 1,
        });
    }
    found
}

/// The `{` that opens the body of the function whose name starts at `at`: the first `{`
/// outside parentheses, unless a `;` comes first.
fn body_of(code: &[char], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code.iter().enumerate().skip(at) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => return None,
            '{' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The `}` that closes the `{` at `open`.
fn matching_brace(code: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where `word` next stands on its own in `code`, from `from`.
fn find_word(code: &[char], from: usize, word: &str) -> Option<usize> {
    let word: Vec<char> = word.chars().collect();
    (from..code.len().saturating_sub(word.len() - 1)).find(|&i| {
        code[i..i + word.len()] == word[..]
            && (i == 0 || !is_ident(code[i - 1]))
            && code.get(i + word.len()).is_none_or(|c| !is_ident(*c))
    })
}

/// `text` with every `#[cfg(test)]` module's block blanked (its lines kept, empty).
/// `text` has its literals and comments blanked already.
fn without_test_modules(text: &str) -> String {
    let mut code: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mark: Vec<char> = "#[cfg(test)]".chars().collect();
    while let Some(start) = (at..code.len().saturating_sub(mark.len() - 1))
        .find(|&i| code[i..i + mark.len()] == mark[..])
    {
        at = start + mark.len();
        let rest: String = code[at..].iter().take(200).collect();
        if !opens_module(rest.trim_start()) {
            continue;
        }
        let Some(open) = body_of(&code, at) else {
            continue; // `mod tests;`: a file of its own
        };
        let Some(close) = matching_brace(&code, open) else {
            break;
        };
        for c in &mut code[open..=close] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
    code.into_iter().collect()
}

/// `text` with its comments, strings and character literals made spaces, its lines kept.
fn blank_literals(text: &str) -> String {
    let text: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Copies text[from..to] as spaces, keeping its line breaks.
    let blank = |out: &mut String, from: usize, to: usize| {
        for c in &text[from..to.min(text.len())] {
            out.push(if *c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < text.len() {
        let c = text[i];
        let next = text.get(i + 1).copied();
        let after_word = i > 0 && is_ident(text[i - 1]);
        if c == '/' && next == Some('/') {
            let end = (i..text.len())
                .find(|&j| text[j] == '\n')
                .unwrap_or(text.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            let mut j = i;
            while j < text.len() {
                if text[j] == '/' && text.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if text[j] == '*' && text.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !after_word && raw_string_at(&text, i).is_some() {
            let (hashes, quote) = raw_string_at(&text, i).expect("a raw string");
            let closing: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let end = (quote + 1..text.len())
                .find(|&j| text[j..].starts_with(&closing))
                .map_or(text.len(), |j| j + closing.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < text.len() && text[j] != '"' {
                j += if text[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c == '\'' {
            // A character ('x', '\n', '\u{7f}'), or a lifetime or label ('a), left as it is.
            let end = if next == Some('\\') {
                (i + 2..text.len())
                    .find(|&j| text[j] == '\'')
                    .map(|j| j + 1)
            } else if text.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At `i`, a raw string (`r"`, `r#"`, `br#"`): its number of `#` and where its `"` is.
fn raw_string_at(text: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if text.get(j) == Some(&'b') || text.get(j) == Some(&'c') {
        j += 1;
    }
    if text.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = text[j..].iter().take_while(|c| **c == '#').count();
    (text.get(j + hashes) == Some(&'"')).then_some((hashes, j + hashes))
}
