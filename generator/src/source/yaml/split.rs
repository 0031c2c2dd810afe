//! A large YAML text read on the cores in parallel (issue 28: one large CRD was read on one
//! core, while the other waited for its tree).
//!
//! The text is cut where YAML's own rules say a piece starts: at a document marker (`---` at
//! the start of a line always starts a document), or, in a file of one CRD laid out as
//! controller-gen and kubebuilder write it, at each item of `spec.versions` (a line indented
//! as the list's items and starting `- ` cannot be inside an item: a block scalar's or a
//! multi-line scalar's lines are indented further). Each piece is read on its own, with the
//! depth it has in the whole text, so the limit on nesting is the same; its nodes are then
//! moved down by the lines before it (a column does not depend on other lines), and the
//! pieces joined.
//!
//! The result is the tree [`parse`] makes of the whole text. Every piece is checked to be
//! what the cut says it is (one item of a list at its place, a `versions:` with nothing
//! under it, nothing empty at its end, whose place the next piece would give); any piece
//! that is not, and any error, sends the whole text to [`parse`] on one core, whose result
//! (or first error) is the one returned.

use super::{Node, Value, YamlError, parse, parse_at};

/// Texts below this size are read on one core: the pieces would cost more than they save.
const SPLIT_FROM: usize = 256 * 1024;

/// How deep a CRD's `spec.versions` list is: in the document's mapping, in `spec`'s.
const VERSIONS_DEPTH: usize = 2;

/// The indentation of `versions:` in `spec:`.
const KEY_INDENT: usize = 2;

/// Parses every document of `text`, as [`parse`] does, using the cores for a large text.
pub fn parse_on_cores(text: &str) -> Result<Vec<Node>, YamlError> {
    read(text, SPLIT_FROM).0
}

/// [`parse_on_cores`], cutting every text from `split_from` bytes, whatever its size: the
/// fuzz target's way to compare the cuts with reading whole on small texts.
#[cfg(feature = "internals")]
pub fn parse_on_cores_from(text: &str, split_from: usize) -> Result<Vec<Node>, YamlError> {
    read(text, split_from).0
}

/// How a text was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// On one core.
    Whole,
    /// Its documents, each on its own.
    Documents,
    /// Its `spec.versions` items, each on its own, and the rest.
    Versions,
}

/// [`parse_on_cores`], cutting texts from `split_from` bytes, and how it read `text`.
fn read(text: &str, split_from: usize) -> (Result<Vec<Node>, YamlError>, Read) {
    if text.len() < split_from {
        return (parse(text), Read::Whole);
    }
    let lines = Line::all(text);
    // Directives apply to the documents after them, and `...` ends one: such texts are read
    // whole.
    if lines
        .iter()
        .any(|line| line.text.starts_with('%') || is_marker(line.text, "..."))
    {
        return (parse(text), Read::Whole);
    }
    let joined = match documents(&lines) {
        Some(pieces) => by_documents(text, &lines, &pieces).map(|d| (d, Read::Documents)),
        None => by_versions(text, &lines).map(|d| (d, Read::Versions)),
    };
    match joined {
        Some((documents, how)) => (Ok(documents), how),
        None => (parse(text), Read::Whole),
    }
}

/// Whether `line` is the marker `marker` (`---` or `...`), alone or before a space.
fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
}

/// A line of the text (its line end included), and what the cuts look at in it.
#[derive(Clone, Copy)]
struct Line<'t> {
    /// The line, its end included.
    text: &'t str,
    /// Where it starts in the whole text.
    start: usize,
    /// How many spaces it starts with.
    indent: usize,
    /// Whether it holds more than spaces and a comment.
    content: bool,
}

impl<'t> Line<'t> {
    /// The lines of `text`, each looked at once (the cuts look at every line several
    /// times, and at its indentation most).
    fn all(text: &'t str) -> Vec<Self> {
        let mut start = 0;
        text.split_inclusive('\n')
            .map(|text| {
                let indent = indentation(text);
                let content = match text.as_bytes().get(indent) {
                    None | Some(b'#' | b'\n') => false,
                    Some(b'\r') => text.len() > indent + 2,
                    Some(_) => true,
                };
                let line = Line {
                    text,
                    start,
                    indent,
                    content,
                };
                start += text.len();
                line
            })
            .collect()
    }

    /// The text after the indentation.
    fn rest(&self) -> &'t str {
        // The indentation is spaces: a character boundary follows it.
        &self.text[self.indent..]
    }
}

/// The number of spaces a line starts with, looked at eight bytes at a time (deep YAML is
/// indented by tens of spaces on every line).
pub(super) fn indentation(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut spaces = 0;
    while bytes.get(spaces..spaces + 8) == Some(b"        ") {
        spaces += 8;
    }
    spaces + bytes[spaces..].iter().take_while(|&&b| b == b' ').count()
}

/// Where line `i` of `text` starts (the text's end for the line after the last).
fn offset(text: &str, lines: &[Line], i: usize) -> usize {
    lines.get(i).map_or(text.len(), |line| line.start)
}

/// The line ranges of the documents, when there are two or more.
fn documents(lines: &[Line]) -> Option<Vec<(usize, usize)>> {
    let mut starts: Vec<usize> = (0..lines.len())
        .filter(|&i| is_marker(lines[i].text, "---"))
        .collect();
    if starts.len() < 2 {
        return None;
    }
    // What comes before the first marker (comments, or a document without one) is a piece.
    if starts[0] != 0 {
        starts.insert(0, 0);
    }
    let ends = starts.iter().skip(1).copied().chain([lines.len()]);
    Some(starts.iter().copied().zip(ends).collect())
}

/// The lines of `lines` from `start` to `end` read alone, `depth` deep, their nodes then
/// moved down by the lines before them.
fn piece(text: &str, lines: &[Line], start: usize, end: usize, depth: usize) -> Option<Vec<Node>> {
    let lines_text = text.get(offset(text, lines, start)..offset(text, lines, end))?;
    let mut documents = parse_at(lines_text, depth).ok()?;
    for document in &mut documents {
        move_down(document, start);
    }
    Some(documents)
}

/// The text of `lines` with the lines from `start` to `end` left empty (their line ends
/// kept, so that every other line keeps its number).
fn blank(text: &str, lines: &[Line], start: usize, end: usize) -> String {
    let (from, to) = (offset(text, lines, start), offset(text, lines, end));
    let mut blanked = String::with_capacity(text.len() - (to - from) + (end - start));
    blanked.push_str(&text[..from]);
    blanked.extend(std::iter::repeat_n('\n', end - start));
    blanked.push_str(&text[to..]);
    blanked
}

/// Adds `lines` to the line of every node in `node`.
fn move_down(node: &mut Node, lines: usize) {
    node.pos.line += lines;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|item| move_down(item, lines)),
        Value::Map(entries) => entries.iter_mut().for_each(|(key, value)| {
            move_down(key, lines);
            move_down(value, lines);
        }),
        _ => {}
    }
}

/// Every document, each read on its own.
fn by_documents(text: &str, lines: &[Line], pieces: &[(usize, usize)]) -> Option<Vec<Node>> {
    let read = crate::parallel::map(
        pieces,
        |(start, end)| (end - start) as u64,
        |&(start, end)| piece(text, lines, start, end, 0),
    );
    let mut documents = Vec::new();
    for piece in read {
        let piece = piece?;
        if piece.iter().any(ends_empty) {
            return None;
        }
        documents.extend(piece);
    }
    Some(documents)
}

/// Whether the last value in `node` is empty (a missing value, an empty block scalar):
/// such a value is placed where the next token starts, which is in the next piece.
fn ends_empty(node: &Node) -> bool {
    match &node.value {
        Value::Null => true,
        Value::Str(s) => s.is_empty(),
        Value::Seq(items) => items.last().is_some_and(ends_empty),
        Value::Map(entries) => entries.last().is_some_and(|(_, value)| ends_empty(value)),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => false,
    }
}

/// A piece of the text read on its own.
enum Piece {
    /// The whole text with the versions' lines left empty.
    Rest,
    /// One item of `spec.versions`: its lines.
    Version(usize, usize),
}

/// One CRD, its `spec.versions` items each read on its own, and the rest of the text.
fn by_versions(text: &str, lines: &[Line]) -> Option<Vec<Node>> {
    let key = key_line(lines)?;
    let indent = item_indent(lines, key)?;
    let is_item = |line: &Line| {
        line.indent == indent && (line.rest().starts_with("- ") || line.rest().trim_end() == "-")
    };
    let mut items: Vec<usize> = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(key + 1) {
        if is_item(line) {
            items.push(i);
        } else if line.content && line.indent <= indent {
            end = i;
            break;
        }
    }
    if items.len() < 2 {
        return None;
    }
    let mut pieces = vec![Piece::Rest];
    let ends = items.iter().skip(1).copied().chain([end]);
    pieces.extend(
        items
            .iter()
            .zip(ends)
            .map(|(&start, end)| Piece::Version(start, end)),
    );
    let first = items[0];
    let read = crate::parallel::map(
        &pieces,
        |piece| match piece {
            Piece::Rest => (lines.len() - (end - first)) as u64,
            Piece::Version(start, end) => (end - start) as u64,
        },
        |task| match *task {
            Piece::Rest => parse(&blank(text, lines, first, end)).ok(),
            Piece::Version(start, end) => piece(text, lines, start, end, VERSIONS_DEPTH),
        },
    );
    let mut read = read.into_iter();
    let mut documents = read.next()??;
    let mut versions: Option<Node> = None;
    for (item, &start) in read.zip(&items) {
        // One list of one item, where the cut says it starts.
        let [list] = <[Node; 1]>::try_from(item?).ok()?;
        let at_cut = list.pos.line == start + 1 && list.pos.col == indent + 1;
        let Value::Seq(mut entries) = list.value else {
            return None;
        };
        if !at_cut || entries.len() != 1 || ends_empty(&entries[0]) {
            return None;
        }
        match &mut versions {
            // Read whole, a list indented under its key starts at its `-`, as read alone; a
            // list at its key's indentation starts where its first item does, when that is
            // on the `-`'s line (when the item starts on a later line, the whole reading
            // places the list after the `- ` instead: such a text is read whole). The CRD's
            // versions are mappings; a list of anything else is read whole.
            None if matches!(entries[0].value, Value::Map(_)) => {
                let pos = if indent == KEY_INDENT {
                    if entries[0].pos.line != list.pos.line {
                        return None;
                    }
                    entries[0].pos
                } else {
                    list.pos
                };
                versions = Some(Node {
                    pos,
                    value: Value::Seq(entries),
                });
            }
            None => return None,
            Some(Node {
                value: Value::Seq(all),
                ..
            }) => all.append(&mut entries),
            Some(_) => return None,
        }
    }
    // The rest: one document, whose `spec.versions` (on the key's line) holds nothing.
    let [document] = documents.as_mut_slice() else {
        return None;
    };
    let slot = map_value(document, "spec")
        .and_then(|spec| map_entry(spec, "versions"))
        .filter(|(key_node, value)| key_node.pos.line == key + 1 && value.value == Value::Null)
        .map(|(_, value)| value)?;
    *slot = versions?;
    Some(documents)
}

/// The line of `  versions:` in `spec:`, a CRD's layout as controller-gen writes it.
fn key_line(lines: &[Line]) -> Option<usize> {
    let spec = lines.iter().position(|l| l.text.trim_end() == "spec:")?;
    let key = spec
        + 1
        + lines[spec + 1..]
            .iter()
            .position(|l| l.text.trim_end() == "  versions:" || (l.content && l.indent == 0))?;
    (lines[key].text.trim_end() == "  versions:").then_some(key)
}

/// The indentation of the list's items: that of the first line after the key with content,
/// which must be an item.
fn item_indent(lines: &[Line], key: usize) -> Option<usize> {
    let first = lines[key + 1..].iter().find(|l| l.content)?;
    let under_key = first.indent == KEY_INDENT || first.indent == KEY_INDENT + 2;
    (under_key && first.rest().starts_with("- ")).then_some(first.indent)
}

/// The value under the string key `key`, if `node` is a mapping that has it.
fn map_value<'n>(node: &'n mut Node, key: &str) -> Option<&'n mut Node> {
    map_entry(node, key).map(|(_, value)| value)
}

/// The entry of the string key `key`, if `node` is a mapping that has it.
fn map_entry<'n>(node: &'n mut Node, key: &str) -> Option<(&'n Node, &'n mut Node)> {
    match &mut node.value {
        Value::Map(entries) => entries
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (&*k, v)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
