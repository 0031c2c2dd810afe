//! YAML documents as trees of nodes that remember where they were written.
//!
//! Built from saphyr-parser's events with an explicit stack, so deep input cannot overflow
//! the call stack here; nesting beyond [`MAX_DEPTH`] is an error, which bounds the
//! recursion of every later stage (reading, the API types' own deserializers, emitting).
//! Anchors and aliases are refused: schema files and CRDs have no use for them, and
//! refusing them rules out alias bombs.
//! Plain scalars are resolved by the YAML 1.2 core schema; quoted and block scalars are
//! strings.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

mod block;
mod split;

pub use split::parse_on_cores;
#[cfg(feature = "internals")]
pub use split::parse_on_cores_from;

/// The deepest nesting of sequences and mappings accepted: over three times the deepest
/// real CRD seen (38 levels, cert-manager's ClusterIssuer), and shallow enough that every
/// stage runs on a 2 MiB thread stack even in a debug build (tests/limits.rs).
pub const MAX_DEPTH: usize = 128;

/// A place in the input: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A YAML value with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Where the value starts.
    pub pos: Pos,
    /// The value.
    pub value: Value,
}

/// A YAML value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in input order; keys are unique.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What kind of value this is, for messages ("a string", "a mapping").
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "a boolean",
            Self::Int(_) => "an integer",
            Self::Float(_) => "a number",
            Self::Str(_) => "a string",
            Self::Seq(_) => "a list",
            Self::Map(_) => "a mapping",
        }
    }
}

impl Node {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items, if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value under `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value as JSON (mapping keys become strings).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as Json;
        match &self.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::Str(s) => Json::String(s.clone()),
            Value::Seq(items) => Json::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.key_text(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// A mapping key as text.
    pub fn key_text(&self) -> String {
        match &self.value {
            Value::Str(s) => s.clone(),
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Seq(_) | Value::Map(_) => String::new(),
        }
    }
}

/// Why the input is not YAML we accept, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where.
    pub pos: Pos,
    /// Why.
    pub message: String,
}

fn pos(span: &Span) -> Pos {
    Pos {
        line: span.start.line(),
        col: span.start.col() + 1,
    }
}

/// A collection being built. Its items are gathered at the end of one buffer shared by every
/// open collection of its sort (the innermost open one is always the last), from the index
/// held here, and moved into a list of their exact number when it closes: a list grown item
/// by item was copied at each doubling, and kept up to half its room unused (issue 48).
enum Open {
    /// Where its items start in the sequences' buffer.
    Seq(Pos, usize),
    /// Where its entries start in the mappings' buffer, the key waiting for its value, and
    /// (once the mapping is large) the line of every key seen.
    Map(Pos, usize, Option<Node>, Option<HashMap<KeyId, usize>>),
}

/// From how many keys a mapping looks its keys up in a table; below, comparing a new key
/// with each earlier one is faster than hashing copies of them all (most mappings of a CRD
/// have a few keys).
const KEY_TABLE_FROM: usize = 16;

/// A scalar mapping key as something hashable: two keys are the same exactly when their
/// values are equal. A large mapping's duplicates are looked up ([`earlier_key`]).
#[derive(PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    /// The bits, with -0.0 as 0.0 (they are equal).
    Float(u64),
    Str(String),
}

impl KeyId {
    /// None for NaN, which equals no key, not even itself.
    fn of(value: &Value) -> Option<Self> {
        Some(match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Int(i) => Self::Int(*i),
            Value::Float(f) if f.is_nan() => return None,
            Value::Float(f) => Self::Float(float_bits(*f)),
            Value::Str(s) => Self::Str(s.clone()),
            Value::Seq(_) | Value::Map(_) => return None,
        })
    }

    /// Whether two keys are the same, as their `KeyId`s compare, without making them.
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => {
                !a.is_nan() && !b.is_nan() && float_bits(*a) == float_bits(*b)
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// A float's bits, with -0.0 as 0.0 (they are equal).
fn float_bits(f: f64) -> u64 {
    if f == 0.0 { 0 } else { f.to_bits() }
}

/// The line of an earlier key of a mapping equal to `key`, if any: looked up in `seen`, made
/// once the mapping has [`KEY_TABLE_FROM`] keys (a mapping of 100,000 keys took minutes when
/// every key was compared with every earlier one; found by fuzzing), else by comparing.
fn earlier_key(
    entries: &[(Node, Node)],
    seen: &mut Option<HashMap<KeyId, usize>>,
    key: &Node,
) -> Option<usize> {
    if seen.is_none() && entries.len() < KEY_TABLE_FROM {
        return entries
            .iter()
            .find(|(k, _)| KeyId::same(&k.value, &key.value))
            .map(|(k, _)| k.pos.line);
    }
    let table = seen.get_or_insert_with(|| {
        let mut table = HashMap::with_capacity(entries.len() * 2);
        for (k, _) in entries {
            if let Some(id) = KeyId::of(&k.value) {
                // The first line of a key stays: the keys so far are unique.
                table.entry(id).or_insert(k.pos.line);
            }
        }
        table
    });
    match table.entry(KeyId::of(&key.value)?) {
        Entry::Occupied(first) => Some(*first.get()),
        Entry::Vacant(slot) => {
            slot.insert(key.pos.line);
            None
        }
    }
}

/// Parses every document of `text`.
pub fn parse(text: &str) -> Result<Vec<Node>, YamlError> {
    parse_at(text, 0)
}

/// Parses every document of `text`, a piece of a larger text whose collections hold it
/// `depth` deep: the limit on nesting counts them.
///
/// Text in the block style CRDs are written in is read by [`block`]; any other text (and any
/// text that is not YAML) by saphyr-parser, whose tree (or error) is the same by definition.
fn parse_at(text: &str, depth: usize) -> Result<Vec<Node>, YamlError> {
    if let Some(documents) = block::read(text, depth) {
        return Ok(documents);
    }
    parse_with_saphyr(text, depth)
}

/// [`parse`] by saphyr-parser alone: the fuzz target's way to compare the block reader with
/// it on any text.
#[cfg(feature = "internals")]
pub fn parse_by_saphyr(text: &str) -> Result<Vec<Node>, YamlError> {
    parse_with_saphyr(text, 0)
}

/// [`parse_at`] by saphyr-parser's events.
fn parse_with_saphyr(text: &str, depth: usize) -> Result<Vec<Node>, YamlError> {
    let mut tree = Tree::new(depth);
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| YamlError {
            pos: Pos {
                line: e.marker().line(),
                col: e.marker().col() + 1,
            },
            message: match e.info() {
                // The scanner's own guard against deep `[[[...` and `{{{...`.
                "recursion limit exceeded" => {
                    "flow collections ([...] and {...}) nested too deeply".to_owned()
                }
                other => other.to_owned(),
            },
        })?;
        let at = pos(&span);
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                refuse_anchor(anchor, at)?;
                let is_str_tag = tag.as_ref().is_some_and(|t| t.suffix == "str");
                // A string keeps the parser's own text (no copy of every string scalar).
                let value = if style == ScalarStyle::Plain && !is_str_tag {
                    resolve_plain(&text)
                } else {
                    None
                }
                .unwrap_or_else(|| Value::Str(text.into_owned()));
                tree.add(Node { pos: at, value })?;
            }
            Event::SequenceStart(anchor, _) => {
                refuse_anchor(anchor, at)?;
                tree.open_seq(at)?;
            }
            Event::MappingStart(anchor, _) => {
                refuse_anchor(anchor, at)?;
                tree.open_map(at)?;
            }
            Event::SequenceEnd => tree.close_seq(at)?,
            Event::MappingEnd => tree.close_map(at)?,
            Event::Alias(_) => {
                return Err(YamlError {
                    pos: at,
                    message: "aliases (*name) are not supported; write the value out".to_owned(),
                });
            }
            Event::DocumentEnd
            | Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_) => {}
        }
    }
    Ok(tree.documents)
}

/// The documents being built from a reader's events: the open collections, and the nodes
/// made so far.
struct Tree {
    /// How deep the text's collections are held in a larger text.
    depth: usize,
    documents: Vec<Node>,
    stack: Vec<Open>,
    /// The items of the open sequences, the innermost's last.
    items: Vec<Node>,
    /// The entries of the open mappings, the innermost's last.
    entries: Vec<(Node, Node)>,
}

impl Tree {
    fn new(depth: usize) -> Self {
        Self {
            depth,
            documents: Vec::new(),
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
        }
    }

    fn open_seq(&mut self, at: Pos) -> Result<(), YamlError> {
        open(
            &mut self.stack,
            self.depth,
            Open::Seq(at, self.items.len()),
            at,
        )
    }

    fn open_map(&mut self, at: Pos) -> Result<(), YamlError> {
        open(
            &mut self.stack,
            self.depth,
            Open::Map(at, self.entries.len(), None, None),
            at,
        )
    }

    fn close_seq(&mut self, at: Pos) -> Result<(), YamlError> {
        match self.stack.pop() {
            Some(Open::Seq(start, from)) => {
                let value = Value::Seq(self.items.drain(from..).collect());
                self.add(Node { pos: start, value })
            }
            _ => Err(internal(at)),
        }
    }

    fn close_map(&mut self, at: Pos) -> Result<(), YamlError> {
        match self.stack.pop() {
            Some(Open::Map(start, from, None, _)) => {
                let value = Value::Map(self.entries.drain(from..).collect());
                self.add(Node { pos: start, value })
            }
            _ => Err(internal(at)),
        }
    }

    /// Adds a finished node to the innermost open collection, or as a document.
    fn add(&mut self, node: Node) -> Result<(), YamlError> {
        match self.stack.last_mut() {
            None => self.documents.push(node),
            Some(Open::Seq(..)) => self.items.push(node),
            Some(Open::Map(_, from, pending, seen)) => match pending.take() {
                None => {
                    if matches!(node.value, Value::Seq(_) | Value::Map(_)) {
                        return Err(YamlError {
                            pos: node.pos,
                            message: "a mapping key must be a scalar".to_owned(),
                        });
                    }
                    if let Some(first) = earlier_key(&self.entries[*from..], seen, &node) {
                        return Err(YamlError {
                            pos: node.pos,
                            message: format!(
                                "duplicate key `{}` (first at line {first})",
                                node.key_text(),
                            ),
                        });
                    }
                    *pending = Some(node);
                }
                Some(key) => self.entries.push((key, node)),
            },
        }
        Ok(())
    }
}

fn open(stack: &mut Vec<Open>, depth: usize, collection: Open, at: Pos) -> Result<(), YamlError> {
    if stack.len() + depth >= MAX_DEPTH {
        return Err(YamlError {
            pos: at,
            message: format!("nesting deeper than {MAX_DEPTH} levels"),
        });
    }
    stack.push(collection);
    Ok(())
}

fn refuse_anchor(anchor: usize, at: Pos) -> Result<(), YamlError> {
    if anchor == 0 {
        Ok(())
    } else {
        Err(YamlError {
            pos: at,
            message: "anchors (&name) are not supported; write the value out".to_owned(),
        })
    }
}

fn internal(at: Pos) -> YamlError {
    YamlError {
        pos: at,
        message: "unbalanced YAML structure".to_owned(),
    }
}

/// The YAML 1.2 core schema's resolution of a plain scalar; `None` for a string, which the
/// caller makes of the parser's text without copying it.
fn resolve_plain(text: &str) -> Option<Value> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Value::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse::<i64>()
            .map(Value::Int)
            .or_else(|_| text.parse::<f64>().map(Value::Float))
            .ok();
    }
    if let Some(Ok(i)) = text
        .strip_prefix("0x")
        .map(|hex| i64::from_str_radix(hex, 16))
    {
        return Some(Value::Int(i));
    }
    if let Some(Ok(i)) = text
        .strip_prefix("0o")
        .map(|octal| i64::from_str_radix(octal, 8))
    {
        return Some(Value::Int(i));
    }
    if is_core_float(text)
        && let Ok(f) = text.parse::<f64>()
    {
        return Some(Value::Float(f));
    }
    None
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_core_float(text: &str) -> bool {
    // Most plain scalars are words: none of them can be a number.
    if !text
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'))
    {
        return false;
    }
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(frac) => digits(int) && digits(frac) && (!int.is_empty() || !frac.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Where two readings first differ, briefly (for the tests of the readers).
#[cfg(test)]
pub(crate) fn difference(a: &Result<Vec<Node>, YamlError>, b: &Result<Vec<Node>, YamlError>) -> String {
    fn nodes(a: &Node, b: &Node, path: &str) -> Option<String> {
        if a.pos != b.pos {
            return Some(format!("{path}: at {} and {}", a.pos, b.pos));
        }
        match (&a.value, &b.value) {
            (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (x, y))| nodes(x, y, &format!("{path}[{i}]"))),
            (Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
                x.iter().zip(y).find_map(|((kx, vx), (ky, vy))| {
                    let here = format!("{path}.{}", kx.key_text());
                    nodes(kx, ky, &here).or_else(|| nodes(vx, vy, &here))
                })
            }
            (x, y) if x != y => Some(format!("{path}: {} and {}", x.describe(), y.describe())),
            _ => None,
        }
    }
    match (a, b) {
        (Ok(x), Ok(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| nodes(x, y, &format!("document {i}")))
            .unwrap_or_default(),
        (Ok(x), Ok(y)) => format!("{} and {} documents", x.len(), y.len()),
        (x, y) => format!("{:?} and {:?}", x.as_ref().err(), y.as_ref().err()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Node {
        let mut docs = parse(text).expect("valid YAML");
        assert_eq!(docs.len(), 1);
        docs.remove(0)
    }

    #[test]
    fn nodes_know_where_they_start() {
        let doc = one("kind: Widget\nspec:\n  size: int32\n  tags: [a, b]\n");
        assert_eq!(doc.pos, Pos { line: 1, col: 1 });
        let spec = doc.get("spec").expect("spec");
        assert_eq!(spec.pos, Pos { line: 3, col: 3 });
        let size = spec.get("size").expect("size");
        assert_eq!(
            (size.pos, size.as_str()),
            (Pos { line: 3, col: 9 }, Some("int32"))
        );
        let tags = spec.get("tags").and_then(Node::as_seq).expect("tags");
        assert_eq!(tags[1].pos, Pos { line: 4, col: 13 });
    }

    #[test]
    fn plain_scalars_follow_the_core_schema_and_quoted_ones_stay_strings() {
        let doc = one(
            "a: 1\nb: -2.5\nc: true\nd: ~\ne: '1'\nf: \"true\"\ng: 1e3\nh: 0x1F\ni: 1.2.3\nj: 99999999999999999999\nk: !!str 12\nl:\n",
        );
        let value = |k: &str| doc.get(k).map(|n| n.value.clone());
        assert_eq!(value("a"), Some(Value::Int(1)));
        assert_eq!(value("b"), Some(Value::Float(-2.5)));
        assert_eq!(value("c"), Some(Value::Bool(true)));
        assert_eq!(value("d"), Some(Value::Null));
        assert_eq!(value("e"), Some(Value::Str("1".into())));
        assert_eq!(value("f"), Some(Value::Str("true".into())));
        assert_eq!(value("g"), Some(Value::Float(1000.0)));
        assert_eq!(value("h"), Some(Value::Int(31)));
        assert_eq!(value("i"), Some(Value::Str("1.2.3".into())));
        assert_eq!(value("j"), Some(Value::Float(1e20)));
        assert_eq!(value("k"), Some(Value::Str("12".into())));
        assert_eq!(value("l"), Some(Value::Null));
    }

    #[test]
    fn several_documents() {
        let docs = parse("a: 1\n---\nb: 2\n---\n").expect("valid");
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[1].pos.line, 3);
        assert_eq!(docs[2].value, Value::Null);
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let error = parse("a: 1\nb: 2\na: 3\n").expect_err("duplicate");
        assert_eq!(error.pos, Pos { line: 3, col: 1 });
        assert_eq!(error.message, "duplicate key `a` (first at line 1)");
    }

    #[test]
    fn keys_are_the_same_when_their_values_are_equal() {
        for (text, key) in [
            ("1: a\n0x1: b\n", "1"),
            ("~: a\nnull: b\n", "null"),
            ("true: a\nTrue: b\n", "true"),
            ("0.0: a\n-0.0: b\n", "-0"),
            (".inf: a\n+.inf: b\n", "inf"),
            ("x: a\n\"x\": b\n", "x"),
        ] {
            let error = parse(text).expect_err(text);
            assert_eq!(error.pos, Pos { line: 2, col: 1 }, "{text}");
            assert_eq!(
                error.message,
                format!("duplicate key `{key}` (first at line 1)")
            );
        }
        // A number and a string, and NaN (equal to nothing), are different keys.
        for text in ["1: a\n\"1\": b\n", "1: a\n1.0: b\n", ".nan: a\n.nan: b\n"] {
            parse(text).expect(text);
        }
    }

    #[test]
    fn a_large_mappings_keys_are_the_same_as_a_small_ones() {
        // The duplicate comes after the mapping switched to a table of its keys; the first
        // key before the switch, or after it.
        let filler: String = (0..2 * KEY_TABLE_FROM)
            .map(|i| format!("k{i}: v\n"))
            .collect();
        let filler_lines = 2 * KEY_TABLE_FROM;
        for (first, again, key) in [
            ("1", "0x1", "1"),
            ("~", "null", "null"),
            ("true", "True", "true"),
            ("0.0", "-0.0", "-0"),
            (".inf", "+.inf", "inf"),
            ("x", "\"x\"", "x"),
        ] {
            let before = format!("{first}: a\n{filler}{again}: b\n");
            let error = parse(&before).expect_err(&before);
            assert_eq!(error.pos.line, filler_lines + 2, "{before}");
            assert_eq!(
                error.message,
                format!("duplicate key `{key}` (first at line 1)")
            );
            let after = format!("{filler}{first}: a\n{again}: b\n");
            let error = parse(&after).expect_err(&after);
            assert_eq!(error.pos.line, filler_lines + 2, "{after}");
            assert_eq!(
                error.message,
                format!("duplicate key `{key}` (first at line {})", filler_lines + 1)
            );
        }
        for (first, again) in [("1", "\"1\""), ("1", "1.0"), (".nan", ".nan")] {
            parse(&format!("{first}: a\n{filler}{again}: b\n")).expect(first);
            parse(&format!("{filler}{first}: a\n{again}: b\n")).expect(first);
        }
    }

    #[test]
    fn anchors_and_aliases_are_refused() {
        let error = parse("a: &x [1, 2]\nb: *x\n").expect_err("anchor");
        assert_eq!(error.pos, Pos { line: 1, col: 4 });
        assert!(error.message.starts_with("anchors"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // Block nesting is bounded here...
        let block = "- ".repeat(20_000) + "x\n";
        let error = parse(&block).expect_err("too deep");
        assert_eq!(
            error.message,
            format!("nesting deeper than {MAX_DEPTH} levels")
        );
        assert_eq!(
            error.pos,
            Pos {
                line: 1,
                col: 2 * MAX_DEPTH + 1
            }
        );
        // ...and flow nesting by the parser itself, at 255 levels.
        let flow = "[".repeat(20_000) + &"]".repeat(20_000);
        let error = parse(&flow).expect_err("too deep");
        assert_eq!(
            error.message,
            "flow collections ([...] and {...}) nested too deeply"
        );
        assert_eq!(error.pos.line, 1);
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let error = parse("a: [1, 2\nb: 3\n").expect_err("unclosed");
        assert!(error.pos.line >= 1, "{error:?}");
        assert!(!error.message.is_empty());
    }

    #[test]
    fn json_conversion() {
        let doc = one("a: [1, 'x', {b: null}]\n");
        assert_eq!(
            doc.to_json(),
            serde_json::json!({"a": [1, "x", {"b": null}]})
        );
    }
}
