//! What the block reader reads, it reads as saphyr-parser does (the same nodes at the same
//! places): every YAML file of the repository, written cases at YAML's corners, random
//! texts of valid YAML in the part it reads (each of which it must read), and random texts of
//! lines (most of them not YAML). And it reads every file of the corpus itself.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::read;
use crate::source::yaml::{Node, YamlError, difference, parse_with_saphyr};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Reads `text` here and with saphyr-parser; asserts that a reading here is saphyr-parser's,
/// and says whether there was one.
fn agrees(text: &str) -> Result<bool, String> {
    let Some(here) = read(text, 0) else {
        return Ok(false);
    };
    let theirs = parse_with_saphyr(text, 0);
    let here: Result<Vec<Node>, YamlError> = Ok(here);
    if here == theirs {
        Ok(true)
    } else {
        Err(format!("{}\n{text}", difference(&here, &theirs)))
    }
}

fn yaml_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && !matches!(name.to_str(), Some("target" | ".git" | "node_modules")) {
            yaml_files(&path, found);
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml")
        {
            found.push(path);
        }
    }
}

#[test]
fn every_yaml_file_of_the_repository_reads_as_saphyr_reads_it() {
    let mut files = Vec::new();
    yaml_files(Path::new(ROOT), &mut files);
    files.sort();
    assert!(files.len() > 40, "{} YAML files", files.len());
    let mut not_here = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        match agrees(&text) {
            Ok(true) => {}
            Ok(false) => {
                if path.starts_with(Path::new(ROOT).join("corpus")) {
                    not_here.push(path.display().to_string());
                }
            }
            Err(difference) => panic!("{}: {difference}", path.display()),
        }
    }
    // The corpus is what generation reads: all of it is read here.
    assert_eq!(not_here, Vec::<String>::new());
}

#[test]
fn corners_read_as_saphyr_reads_them() {
    // (text, whether it is read here)
    let cases = [
        ("a: 1\nb:\nc: |-\n  x\n  y\nd:\n- e\n-\n- f: g\n  h: \"q\"\n", true),
        ("", true),
        ("# c\n", true),
        ("---\n", true),
        ("---\n---\na: 1\n", true),
        ("# x\n---\n\n# y\n", true),
        ("a: 1\n---\n", true),
        ("---  # c\na: 1\n", true),
        ("a:\n- x\nb: 2\n", true),
        ("a:\n  - x\n", true),
        ("- a\n- - b\n  - c\n-   d: 1\n    e: 2\n", true),
        ("a: b #c\n\"k\": v\n'q': w\n", true),
        ("a:   \nb: # c\nc:\n", true),
        ("-   \n- # c\n-\n", true),
        // Block scalars: empty lines first, between, last; lines of spaces beyond the
        // indentation; each chomping.
        ("a: |-\n\n  x\n\n\n  y\n\n\nb: 1\n", true),
        ("a: |\n  x\n\n", true),
        ("a: |+\n  x\n\n", true),
        ("a: |-\n  x\n     \n  y\n", true),
        ("a: |+\n  x\n     \n\n", true),
        ("a: |\n    x\n     y\n    # not a comment\nb: 2\n", true),
        ("a: |  # c\n  x\n", true),
        // Indentation indicators, from the collection's indentation.
        ("a: |2\n   x\n", true),
        ("- |2\n   x\n", true),
        ("b:\n  - a: |-1\n      x\n", true),
        ("a: |2-\n\n   x\n", true),
        ("a: |+1\n  x\n\n", true),
        // Plain and single-quoted scalars over lines.
        ("a: x\n\n\n  y\n", true),
        ("a: x\n  y\n  # c\n", true),
        ("- foo\n bar\n", true),
        ("a: x\n  [y ]z *w 'v \"u |t - s ? r\n", true),
        ("a: 'x \n\n   y\n  z  '\n", true),
        ("- 'a\n b'\n", true),
        ("a: '\n  x'\n", true),
        ("a: 'it''s\n  ''here'''\n", true),
        // Flow.
        ("a: []\nb: {}\nc: [x, \"y\", 'z', 1]\nd: [x, ]\n", true),
        ("a: \"x\\u00e9\\/\\\"\\\\\"\n", true),
        // Double-quoted scalars over lines, and every escape.
        ("a: \"x\n  y\"\n", true),
        ("a: \"x \\\n   y\"\n", true),
        ("a: \"x  \n\n  y\\ \n  z\"\n", true),
        ("a: \"x\\\n\n  y\"\n", true),
        (
            "a: \"\\e\\a\\v\\N\\_\\L\\P\\x41\\U0001F600\\ \\0\\t\\r\\b\\f\"\n",
            true,
        ),
        ("a: \"\\q\"\n", false),
        // Keys as long as YAML allows, and longer (saphyr-parser refuses those).
        (&format!("{}: 1\n", "k".repeat(900)), true),
        (&format!("'{}': 1\n", "k".repeat(900)), true),
        (&format!("{}: 1\n", "k".repeat(1025)), false),
        (&format!("'{}': 1\n", "k".repeat(2000)), false),
        ("a: \"\\uD800\"\n", false),
        ("é: ü\nü:\n  - é: x\n", true),
        ("a: 0x1F\nb: -1.5e3\nc: .inf\nd: ~\ne: 'true'\nf: True\n", true),
        // Not read here: saphyr-parser reads them (or refuses them).
        ("a: >\n  x\n", false),
        ("a: &x 1\n", false),
        ("a: !!str 1\n", false),
        ("? a\n: b\n", false),
        ("a: {b: c}\n", false),
        // Plain scalars among flow indicators (found by fuzzing: saphyr-parser refuses ` -]`).
        ("t: [regd -]\n", false),
        ("t: [de  -, x]\n", false),
        ("t: [a b]\n", false),
        ("a: 1", false),
        ("a:\tb\n", false),
        ("a: 1\r\n", false),
        ("%YAML 1.2\n---\na: 1\n", false),
        ("a: 1\n...\n", false),
        // A marker at a line's start ends the document, even where a key could be (found by
        // fuzzing: `...  b` was read as a key).
        ("a: 1\n...  b: 2\n", false),
        ("a: 1\n... # c\n", false),
        ("a:\n  b: 1\n--- # c\n", true),
        ("scalar\n", false),
        ("a: b: c\n", false),
        ("a: 1\n  b: 2\n", false),
        ("a: 1\na: 2\n", false),
        ("a: |-\nb: 1\n", false),
        ("a: x\n  y: z\n", false),
        ("a: x\n  y #z\n", false),
        ("a: 'x\ny'\n", false),
        ("\u{feff}a: 1\n", false),
        ("a: \u{85}\n", false),
    ];
    for (text, here) in cases {
        assert_eq!(agrees(text), Ok(here), "{text:?}");
    }
}

#[test]
fn texts_either_reader_may_take_read_the_same() {
    for text in [
        "a: b\n\u{a0}c: d\n",
        "a: \u{a0}x\n",
        "a: 'x\n\u{a0}y'\n",
        "- \u{3000}x\n",
        "a   : 1\n'b'  : 2\n",
        "- -\n- - -\n",
        "<<: x\n",
        "a: 'x'y\n",
        "'a':b\n",
        "a: x:\n",
        "a: [b: c]\n",
        "  a: 1\nb: 2\n",
        "a:\n  - x\n  b: 1\n",
        "a: |\n  x\n   \n",
        "a: |-\n    x\n  y\n",
        "a: \"x\\\n\"\n",
        "a: 'x\n---\n'\n",
        "a: x\n---\n b\n",
    ] {
        assert!(agrees(text).is_ok(), "{text:?}: {:?}", agrees(text));
    }
}

#[test]
fn nesting_beyond_the_limit_is_saphyr_parsers_to_refuse() {
    let deep = "- ".repeat(200) + "x\n";
    assert_eq!(read(&deep, 0), None);
    let deep_map: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    assert_eq!(read(&deep_map, 0), None);
}

/// A value to write as YAML in the part the reader reads, with the choices of how.
#[derive(Clone, Debug)]
enum Shape {
    Scalar(Scalar),
    Seq(Vec<Shape>),
    Map(Vec<(Key, Shape)>),
}

#[derive(Clone, Debug)]
enum Key {
    Plain(String),
    Single(String),
    Double(String),
}

#[derive(Clone, Debug)]
enum Scalar {
    /// Words; after each but the last, a space (0), a line break (1) or an empty line (2).
    Plain(Vec<String>, Vec<u8>),
    /// The same, single-quoted.
    Single(Vec<String>, Vec<u8>),
    /// Pieces of text or escapes, on lines as the gaps say.
    Double(Vec<String>, Vec<u8>),
    /// Lines (empty ones too), the chomping (0 `|`, 1 `|-`, 2 `|+`), empty lines after,
    /// whether the indentation is given (as the step).
    Literal(Vec<String>, u8, u8, bool),
    /// Nothing.
    Null,
    /// A flow sequence of words, `[]` if none.
    Flow(Vec<String>),
    EmptyMap,
}

/// A word a plain scalar can start with.
fn first_word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9]{0,5}",
        "[0-9]{1,3}",
        prop::sample::select(vec![
            "1.5", "-2", "0x1F", "true", "null", "~", "a:b", "a#b", "é", "x'y", "-w",
        ])
        .prop_map(str::to_owned),
    ]
}

/// A word of a plain scalar after its first.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => first_word(),
        1 => prop::sample::select(vec!["\"q\"", "[x]", "{y}", "*z", "'v"]).prop_map(str::to_owned),
    ]
}

fn words() -> impl Strategy<Value = (Vec<String>, Vec<u8>)> {
    (
        first_word(),
        prop::collection::vec((0u8..3, word()), 0..5),
    )
        .prop_map(|(first, rest)| {
            let mut words = vec![first];
            let mut gaps = Vec::new();
            for (gap, word) in rest {
                gaps.push(gap);
                words.push(word);
            }
            (words, gaps)
        })
}

/// A piece of a double-quoted scalar: text, or an escape.
fn double_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[ a-z'#:é]{0,6}",
        1 => prop::sample::select(vec![
            "\\\"", "\\\\", "\\/", "\\ ", "\\n", "\\t", "\\r", "\\0", "\\a", "\\b",
            "\\e", "\\f", "\\v", "\\N", "\\_", "\\L", "\\P", "\\x41", "\\xe9",
            "\\u00e9", "\\u2028", "\\U0001F600",
        ])
        .prop_map(str::to_owned),
    ]
}

fn scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        3 => words().prop_map(|(w, g)| Scalar::Plain(w, g)),
        2 => words().prop_map(|(w, g)| Scalar::Single(w, g)),
        2 => (
            prop::collection::vec(double_piece(), 1..5),
            prop::collection::vec(0u8..4, 4),
        )
            .prop_map(|(pieces, gaps)| Scalar::Double(pieces, gaps)),
        2 => (
            prop::collection::vec(prop_oneof![
                "[ a-z#:'\"-]{0,10}",
                Just(String::new()),
                Just("   ".to_owned()),
            ], 1..5),
            0u8..3,
            0u8..3,
            any::<bool>(),
        )
            .prop_map(|(lines, chomp, after, given)| Scalar::Literal(lines, chomp, after, given)),
        1 => Just(Scalar::Null),
        1 => prop::collection::vec("[a-z0-9]{1,4}", 0..3).prop_map(Scalar::Flow),
        1 => Just(Scalar::EmptyMap),
    ]
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        4 => "[a-z][a-zA-Z0-9-]{0,6}".prop_map(Key::Plain),
        1 => "[a-z :#]{0,5}".prop_map(Key::Single),
        1 => "[a-z :#]{0,5}".prop_map(Key::Double),
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    scalar().prop_map(Shape::Scalar).prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Shape::Seq),
            prop::collection::vec((key(), inner), 1..4).prop_map(map),
        ]
    })
}

/// A mapping of the entries whose keys come first.
fn map(entries: Vec<(Key, Shape)>) -> Shape {
    let mut seen = std::collections::HashSet::new();
    Shape::Map(
        entries
            .into_iter()
            .filter(|(k, _)| {
                seen.insert(match k {
                    Key::Plain(s) | Key::Single(s) | Key::Double(s) => s.clone(),
                })
            })
            .collect(),
    )
}

/// How a text is laid out: the indentation step, and what goes between entries.
#[derive(Clone, Copy, Debug)]
struct Layout {
    step: usize,
    /// Between entries: nothing (0), an empty line (1), a comment (2), spaces (3).
    between: u8,
}

struct Writer {
    text: String,
    layout: Layout,
    /// Turns through the layout's `between` at each entry.
    count: usize,
}

impl Writer {
    fn between(&mut self, indent: usize) {
        self.count += 1;
        if !self.count.is_multiple_of(3) {
            return;
        }
        match self.layout.between {
            1 => self.text.push('\n'),
            2 => {
                self.text.push_str(&" ".repeat(indent));
                self.text.push_str("# note: here\n");
            }
            3 => self.text.push_str("     \n"),
            _ => {}
        }
    }

    /// `words` joined by their gaps, lines after the first indented `indent`.
    fn folded(&mut self, words: &[String], gaps: &[u8], indent: usize) {
        self.text.push_str(&words[0]);
        for (word, gap) in words[1..].iter().zip(gaps) {
            match gap {
                0 => self.text.push(' '),
                1 => self.text.push('\n'),
                _ => self.text.push_str("\n\n"),
            }
            if *gap > 0 {
                self.text.push_str(&" ".repeat(indent));
            }
            self.text.push_str(word);
        }
    }

    /// A scalar after its key or `- ` in a collection indented `parent`, its lines below
    /// indented `indent`; the line ended.
    fn scalar(&mut self, scalar: &Scalar, parent: usize, indent: usize) {
        match scalar {
            Scalar::Plain(words, gaps) => self.folded(words, gaps, indent),
            Scalar::Single(words, gaps) => {
                let escaped: Vec<String> = words.iter().map(|w| w.replace('\'', "''")).collect();
                self.text.push('\'');
                self.folded(&escaped, gaps, indent);
                self.text.push('\'');
            }
            Scalar::Double(pieces, gaps) => {
                self.text.push('"');
                for (i, piece) in pieces.iter().enumerate() {
                    self.text.push_str(piece);
                    // A line break, an empty line, or an escaped line break.
                    match gaps.get(i) {
                        Some(1) => self.text.push('\n'),
                        Some(2) => self.text.push_str("\n\n"),
                        Some(3) => self.text.push_str("\\\n"),
                        _ => continue,
                    }
                    self.text.push_str(&" ".repeat(indent));
                }
                self.text.push('"');
            }
            Scalar::Literal(lines, chomp, after, given) => {
                self.text.push_str(["|", "|-", "|+"][usize::from(*chomp)]);
                if *given {
                    self.text.push_str(&(indent - parent).to_string());
                }
                // The first line has content: it sets the indentation.
                self.text.push('\n');
                self.text.push_str(&" ".repeat(indent));
                self.text.push('x');
                for line in lines {
                    self.text.push('\n');
                    if !line.is_empty() {
                        self.text.push_str(&" ".repeat(indent));
                        self.text.push_str(line);
                    }
                }
                for _ in 0..*after {
                    self.text.push('\n');
                }
            }
            Scalar::Null => {}
            Scalar::Flow(words) => {
                self.text.push('[');
                self.text.push_str(&words.join(", "));
                self.text.push(']');
            }
            Scalar::EmptyMap => self.text.push_str("{}"),
        }
        self.text.push('\n');
    }

    fn key(&mut self, key: &Key) {
        match key {
            Key::Plain(k) => self.text.push_str(k),
            Key::Single(k) => {
                self.text.push('\'');
                self.text.push_str(k);
                self.text.push('\'');
            }
            Key::Double(k) => {
                self.text.push('"');
                self.text.push_str(k);
                self.text.push('"');
            }
        }
        self.text.push(':');
    }

    /// A block collection's entries, its first at the writer (indented `indent`, already
    /// written), the others indented `indent`.
    fn collection(&mut self, shape: &Shape, indent: usize) {
        let step = self.layout.step;
        match shape {
            Shape::Scalar(scalar) => self.scalar(scalar, indent, indent + step),
            Shape::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.between(indent);
                        self.text.push_str(&" ".repeat(indent));
                    }
                    self.text.push('-');
                    match item {
                        Shape::Scalar(Scalar::Null) => self.text.push('\n'),
                        Shape::Scalar(scalar) => {
                            self.text.push(' ');
                            self.scalar(scalar, indent, indent + 2);
                        }
                        collection => {
                            self.text.push(' ');
                            self.collection(collection, indent + 2);
                        }
                    }
                }
            }
            Shape::Map(entries) => {
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.between(indent);
                        self.text.push_str(&" ".repeat(indent));
                    }
                    self.key(key);
                    match value {
                        Shape::Scalar(Scalar::Null) => self.text.push('\n'),
                        Shape::Scalar(scalar) => {
                            self.text.push(' ');
                            self.scalar(scalar, indent, indent + step);
                        }
                        // A sequence as deep as its key, or deeper.
                        Shape::Seq(_) if i.is_multiple_of(2) => {
                            self.text.push('\n');
                            self.text.push_str(&" ".repeat(indent));
                            self.collection(value, indent);
                        }
                        collection => {
                            self.text.push('\n');
                            self.text.push_str(&" ".repeat(indent + step));
                            self.collection(collection, indent + step);
                        }
                    }
                }
            }
        }
    }
}

fn layout() -> impl Strategy<Value = Layout> {
    (1usize..5, 0u8..4).prop_map(|(step, between)| Layout { step, between })
}

/// Documents of block collections, empty ones between.
fn documents() -> impl Strategy<Value = (Vec<Option<Shape>>, Layout)> {
    let collection = prop_oneof![
        prop::collection::vec(shape(), 1..4).prop_map(Shape::Seq),
        prop::collection::vec((key(), shape()), 1..4).prop_map(map),
    ];
    (
        prop::collection::vec(prop::option::weighted(0.8, collection), 1..3),
        layout(),
    )
}

fn write(documents: &[Option<Shape>], layout: Layout) -> String {
    let mut writer = Writer {
        text: String::new(),
        layout,
        count: 0,
    };
    for (i, document) in documents.iter().enumerate() {
        if i > 0 || document.is_none() {
            writer.text.push_str("---\n");
        }
        if let Some(shape) = document {
            writer.collection(shape, 0);
        }
    }
    writer.text
}

/// Lines of YAML and of what is not.
fn any_line() -> impl Strategy<Value = String> {
    let written = prop::sample::select(vec![
        "a: 1",
        "b:",
        "- x",
        "-",
        "- c: d",
        "- - z",
        "'q''x'",
        "k: 'open",
        "close'",
        "k: \"dq\\n\"",
        "k: \"open",
        "k: |-",
        "k: |",
        "k: |+",
        "k: >",
        "plain words",
        "# comment",
        "",
        "---",
        "...",
        "...  k: v",
        "--- # c",
        "---x: y",
        "--- k: v",
        "k: [a, 'b', \"c\"]",
        "k: [a, [b]]",
        "k: {}",
        "k: {a: b}",
        "x: y #c",
        "x: y#c",
        "k: v: w",
        "? k",
        ": v",
        "&a x: y",
        "é: ü",
        "k: -1.5",
        "\"k\": v",
        "'k' : v",
    ])
    .prop_map(str::to_owned);
    prop_oneof![
        38 => written,
        // Short random ones, as often as one written line.
        1 => "[ ]{0,6}[a-z:#'\"|\\- ]{0,8}",
    ]
}

proptest! {
    // 2,000 texts each in the suite; `PROPTEST_CASES=400000` for a longer search (both
    // properties held at 400,000 in release).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn valid_texts_are_read_here_as_saphyr_reads_them((documents, layout) in documents()) {
        let text = write(&documents, layout);
        prop_assert_eq!(agrees(&text), Ok(true), "{}", text);
    }

    #[test]
    fn random_lines_read_here_read_as_saphyr_reads_them(
        lines in prop::collection::vec(
            (0usize..6, any_line()).prop_map(|(indent, line)| " ".repeat(indent) + &line),
            0..16,
        )
    ) {
        let text = lines.join("\n") + "\n";
        let agreed = agrees(&text);
        prop_assert!(agreed.is_ok(), "{}", agreed.err().unwrap_or_default());
    }
}
