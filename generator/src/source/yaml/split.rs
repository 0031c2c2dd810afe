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

/// [`parse_on_cores`], cutting every text from `split_from` bytes, whatever its size: for
/// fuzzing the cuts against reading whole.
#[doc(hidden)]
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
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // Directives apply to the documents after them, and `...` ends one: such texts are read
    // whole.
    if lines
        .iter()
        .any(|line| line.starts_with('%') || is_marker(line, "..."))
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

/// The line ranges of the documents, when there are two or more.
fn documents(lines: &[&str]) -> Option<Vec<(usize, usize)>> {
    let mut starts: Vec<usize> = (0..lines.len())
        .filter(|&i| is_marker(lines[i], "---"))
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
fn piece(text: &str, lines: &[&str], start: usize, end: usize, depth: usize) -> Option<Vec<Node>> {
    let from: usize = lines[..start].iter().map(|l| l.len()).sum();
    let length: usize = lines[start..end].iter().map(|l| l.len()).sum();
    let mut documents = parse_at(text.get(from..from + length)?, depth).ok()?;
    for document in &mut documents {
        move_down(document, start);
    }
    Some(documents)
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
fn by_documents(text: &str, lines: &[&str], pieces: &[(usize, usize)]) -> Option<Vec<Node>> {
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
fn by_versions(text: &str, lines: &[&str]) -> Option<Vec<Node>> {
    let key = key_line(lines)?;
    let indent = item_indent(lines, key)?;
    // The first `indent` bytes are looked at as bytes: a line of other text may have a
    // character across that place.
    let is_item = |line: &str| {
        let spaces = line.as_bytes().get(..indent);
        spaces.is_some_and(|s| s.iter().all(|&b| b == b' '))
            && (line[indent..].starts_with("- ") || line[indent..].trim_end() == "-")
    };
    let mut items: Vec<usize> = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(key + 1) {
        if is_item(line) {
            items.push(i);
        } else if is_content(line) && indentation(line) <= indent {
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
            Piece::Rest => {
                let mut rest = String::new();
                for (i, line) in lines.iter().enumerate() {
                    rest.push_str(if (first..end).contains(&i) {
                        "\n"
                    } else {
                        line
                    });
                }
                parse(&rest).ok()
            }
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
            // list at its key's indentation starts where its first item does. The CRD's
            // versions are mappings; a list of anything else is read whole.
            None if matches!(entries[0].value, Value::Map(_)) => {
                let pos = if indent == KEY_INDENT {
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
fn key_line(lines: &[&str]) -> Option<usize> {
    let spec = lines.iter().position(|l| l.trim_end() == "spec:")?;
    let key = spec
        + 1
        + lines[spec + 1..].iter().position(|l| {
            l.trim_end() == "  versions:" || (is_content(l) && indentation(l) == 0)
        })?;
    (lines[key].trim_end() == "  versions:").then_some(key)
}

/// The indentation of the list's items: that of the first line after the key with content,
/// which must be an item.
fn item_indent(lines: &[&str], key: usize) -> Option<usize> {
    let first = lines[key + 1..].iter().find(|l| is_content(l))?;
    let indent = indentation(first);
    let under_key = indent == KEY_INDENT || indent == KEY_INDENT + 2;
    (under_key && first[indent..].starts_with("- ")).then_some(indent)
}

/// Whether a line holds more than spaces and a comment.
fn is_content(line: &str) -> bool {
    match line.as_bytes().get(indentation(line)) {
        None | Some(b'#' | b'\n') => false,
        Some(b'\r') => line.len() > indentation(line) + 2,
        Some(_) => true,
    }
}

/// The number of spaces a line starts with.
fn indentation(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ').count()
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
