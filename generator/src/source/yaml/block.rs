//! The block-style YAML that CRDs and schema files are written in, read straight into the
//! tree (issue 48: saphyr-parser's scanner was close to half of generation's instructions on
//! one core, building every scalar a character at a time).
//!
//! The reader knows a part of YAML: block mappings and sequences, plain scalars, single-quoted
//! and double-quoted scalars (each over several lines too; double-quoted with every escape
//! YAML has), literal block scalars (`|`, `|-`, `|+`, with an indentation indicator too), flow
//! sequences of scalars on one line, `{}`, comments and `---`. Whatever else it meets
//! (anchors, tags, folded block scalars, flow mappings, complex keys, keys over 1,000 bytes,
//! directives, `...`, tabs, line ends other than `\n`, characters saphyr-parser may treat
//! apart, a text whose last line has no line end), anything that is not YAML, and anything
//! [`Tree`] refuses (nesting, duplicate keys) sends the whole text to saphyr-parser, whose
//! reading (or error) is then the answer. What it reads, it reads as saphyr-parser does,
//! positions included: the tests compare the two on random texts and on every YAML file of
//! the repository.

use super::split::indentation;
use super::{Node, Pos, Tree, Value, YamlError, resolve_plain};

/// The reader met what it does not read: the text goes to saphyr-parser.
struct Elsewhere;

impl From<YamlError> for Elsewhere {
    fn from(_: YamlError) -> Self {
        Elsewhere
    }
}

type Step = Result<(), Elsewhere>;

/// The documents of `text`, or `None` when saphyr-parser is to read it.
pub(super) fn read(text: &str, depth: usize) -> Option<Vec<Node>> {
    // A text that ends inside a line, and characters the reader does not take as they stand.
    if !(text.is_empty() || text.ends_with('\n')) || !printable(text.as_bytes()) {
        return None;
    }
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
        line_start: 0,
        end: 0,
        tree: Tree::new(depth),
    };
    reader.end = reader.find_line_end();
    reader.documents().ok()?;
    Some(reader.tree.documents)
}

/// Whether every character is one the reader takes as it stands: printable, no tab, no line
/// end but `\n`, none of the characters YAML or saphyr-parser treat apart (C1 controls and
/// NEL, the line and paragraph separators, the byte order mark, U+FFFE and U+FFFF).
fn printable(bytes: &[u8]) -> bool {
    // Most of a text is ASCII: looked at 32 bytes at a time, with no early exit, which the
    // compiler makes into vector instructions; a block with other bytes is looked at
    // character by character.
    const BLOCK: usize = 32;
    let plain = |b: u8| b.wrapping_sub(0x20) < 0x5f || b == b'\n';
    bytes.chunks(BLOCK).enumerate().all(|(n, block)| {
        block.iter().fold(true, |all, &b| all & plain(b))
            || (n * BLOCK..n * BLOCK + block.len()).all(|i| printable_at(bytes, i))
    })
}

/// Whether the byte at `i` is ASCII that [`printable`] takes, or starts (or continues) a
/// character it takes.
fn printable_at(bytes: &[u8], i: usize) -> bool {
    let next = |n: usize| bytes.get(i + n).copied();
    match bytes[i] {
        b'\n' | 0x20..=0x7e => true,
        0xc2 => next(1).is_some_and(|c| c >= 0xa0),
        0xe2 => !(next(1) == Some(0x80) && matches!(next(2), Some(0xa8 | 0xa9))),
        0xef => !matches!(
            (next(1), next(2)),
            (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
        ),
        0x80.. => true,
        _ => false,
    }
}

/// How a literal block scalar ends (its chomping indicator).
#[derive(Clone, Copy)]
enum Chomp {
    /// `|-`: no line break at the end.
    Strip,
    /// `|`: one.
    Clip,
    /// `|+`: every one.
    Keep,
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    /// The next byte to read.
    at: usize,
    /// The line being read, from 1.
    line: usize,
    /// Where it starts.
    line_start: usize,
    /// Where it ends (its `\n`, or the text's end): found once a line.
    end: usize,
    tree: Tree,
}

impl Reader<'_> {
    /// The byte at `i`; past the end, a line end.
    fn byte(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(b'\n')
    }

    /// Where the line being read ends (its `\n`).
    fn line_end(&self) -> usize {
        self.end
    }

    /// Finds where the line being read ends, once a line ([`Self::next_line`]).
    fn find_line_end(&self) -> usize {
        self.text[self.line_start..]
            .find('\n')
            .map_or(self.bytes.len(), |n| self.line_start + n)
    }

    /// The place of byte `i` of the line being read.
    fn pos(&self, i: usize) -> Pos {
        let before = &self.bytes[self.line_start..i];
        let col = if before.is_ascii() {
            before.len()
        } else {
            self.text[self.line_start..i].chars().count()
        };
        Pos {
            line: self.line,
            col: col + 1,
        }
    }

    /// Moves to the start of the next line.
    fn next_line(&mut self) {
        self.at = (self.end + 1).min(self.bytes.len());
        self.line += 1;
        self.line_start = self.at;
        self.end = self.find_line_end();
    }

    /// Whether the text is at its end (every line of it read).
    fn at_end(&self) -> bool {
        self.line_start >= self.bytes.len()
    }

    /// The spaces the line being read starts with.
    fn indentation(&self) -> usize {
        indentation(&self.text[self.line_start..])
    }

    /// From the start of a line, past blank and comment lines to the first character of the
    /// next line with content; its indentation, or `None` at the end of the text.
    fn content_line(&mut self) -> Option<usize> {
        loop {
            if self.at_end() {
                self.at = self.line_start;
                return None;
            }
            let indent = self.indentation();
            match self.byte(self.line_start + indent) {
                b'\n' | b'#' => self.next_line(),
                _ => {
                    self.at = self.line_start + indent;
                    return Some(indent);
                }
            }
        }
    }

    /// From the start of a line, past the lines of spaces only (the empty lines of a
    /// scalar), to the next line with other characters.
    fn past_empty_lines(&mut self) -> EmptyLines {
        let (mut count, mut widest) = (0, 0);
        loop {
            if self.at_end() {
                return EmptyLines {
                    count,
                    widest,
                    next: None,
                };
            }
            let indent = self.indentation();
            if self.byte(self.line_start + indent) != b'\n' {
                return EmptyLines {
                    count,
                    widest,
                    next: Some(indent),
                };
            }
            count += 1;
            widest = widest.max(indent);
            self.next_line();
        }
    }

    fn skip_spaces(&mut self) {
        while self.byte(self.at) == b' ' {
            self.at += 1;
        }
    }

    /// Whether the line has nothing more: its end, or a comment (a `#` after a space).
    fn at_line_end(&self) -> bool {
        match self.byte(self.at) {
            b'\n' => true,
            b'#' => self.at > 0 && self.bytes[self.at - 1] == b' ',
            _ => false,
        }
    }

    /// Past spaces and a comment to the next line; anything else is not read here.
    fn end_line(&mut self) -> Step {
        self.skip_spaces();
        if !self.at_line_end() {
            return Err(Elsewhere);
        }
        self.next_line();
        Ok(())
    }

    /// Whether the line being read is a document marker (`---` or `...`) at the reader.
    fn marker(&self, marker: &[u8; 3]) -> bool {
        self.at == self.line_start
            && self.bytes[self.at..].starts_with(marker)
            && matches!(self.byte(self.at + 3), b' ' | b'\n')
    }

    /// Whether the line being read is a document marker, `---` or `...`.
    fn at_marker(&self) -> bool {
        self.marker(b"---") || self.marker(b"...")
    }

    /// Whether a block sequence's item (`-` and a space or the line's end) starts here.
    fn is_item(&self) -> bool {
        self.byte(self.at) == b'-' && matches!(self.byte(self.at + 1), b' ' | b'\n')
    }

    /// Whether a plain scalar can start at `i` (YAML's indicators cannot, but `-`, `?` and `:`
    /// before a character that is not a space can).
    fn plain_starts(&self, i: usize) -> bool {
        match self.byte(i) {
            b'-' | b'?' | b':' => !matches!(self.byte(i + 1), b' ' | b'\n'),
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>'
            | b'\'' | b'"' | b'%' | b'@' | b'`' | b'\n' | b' ' => false,
            _ => true,
        }
    }

    fn add(&mut self, pos: Pos, value: Value) -> Step {
        Ok(self.tree.add(Node { pos, value })?)
    }

    /// The text's documents, each a block mapping or sequence, or empty after `---`.
    fn documents(&mut self) -> Step {
        // Whether a `---` began a document that has no node yet.
        let mut empty = false;
        loop {
            let indent = self.content_line();
            if indent == Some(0) && self.marker(b"---") {
                if empty {
                    self.add(self.pos(self.at), Value::Null)?;
                }
                self.at += 3;
                self.end_line()?;
                empty = true;
                continue;
            }
            let Some(indent) = indent else {
                if empty {
                    self.add(self.pos(self.at), Value::Null)?;
                }
                return Ok(());
            };
            if indent == 0 && (self.marker(b"...") || self.byte(self.at) == b'%') {
                return Err(Elsewhere);
            }
            empty = false;
            if self.is_item() {
                self.sequence(indent, false)?;
            } else if let Some((key, after)) = self.key()? {
                self.mapping(indent, key, after)?;
            } else {
                // A scalar document.
                return Err(Elsewhere);
            }
            // A document ends at the text's end or at the next marker.
            match self.content_line() {
                None => return Ok(()),
                Some(0) if self.marker(b"---") => {}
                Some(_) => return Err(Elsewhere),
            }
        }
    }

    /// A node starting at the reader, in a block collection indented `parent`: a block
    /// collection of its own (indented as its first character), or a scalar.
    fn node(&mut self, parent: usize) -> Step {
        let indent = self.at - self.line_start;
        if self.is_item() {
            return self.sequence(indent, false);
        }
        if let Some((key, after)) = self.key()? {
            return self.mapping(indent, key, after);
        }
        self.scalar(parent)
    }

    /// The mapping key starting at the reader, and where its `:` ends, if a key starts here.
    fn key(&self) -> Result<Option<(Node, usize)>, Elsewhere> {
        let start = self.at;
        let pos = self.pos(start);
        let (value, end) = match self.byte(start) {
            b'\'' | b'"' => {
                let Some((text, mut end)) = self.quoted_on_line(start) else {
                    return Ok(None);
                };
                while self.byte(end) == b' ' {
                    end += 1;
                }
                (Value::Str(text), end)
            }
            _ if !self.plain_starts(start) => return Ok(None),
            _ => {
                let line_end = self.line_end();
                let Some(colon) = self.plain_end(start, line_end).colon else {
                    return Ok(None);
                };
                let text = self.text[start..colon].trim_end_matches(' ');
                let value = resolve_plain(text).unwrap_or_else(|| Value::Str(text.to_owned()));
                (value, colon)
            }
        };
        if self.byte(end) == b':' && matches!(self.byte(end + 1), b' ' | b'\n') {
            // YAML bounds a key without `?` to 1,024 characters, and saphyr-parser refuses a
            // longer one; counted in bytes (no fewer than characters), with room to spare.
            if end - start > 1000 {
                return Err(Elsewhere);
            }
            Ok(Some((Node { pos, value }, end + 1)))
        } else {
            Ok(None)
        }
    }

    /// A block mapping indented `indent`, from its first key (read, its `:` ending at
    /// `after`).
    fn mapping(&mut self, indent: usize, first: Node, after: usize) -> Step {
        let start = first.pos;
        self.tree.open_map(start)?;
        let (mut key, mut after) = (first, after);
        loop {
            self.tree.add(key)?;
            self.value(indent, after)?;
            match self.content_line() {
                Some(i) if i == indent && !(i == 0 && self.at_marker()) => {
                    (key, after) = self.key()?.ok_or(Elsewhere)?;
                }
                Some(i) if i > indent => return Err(Elsewhere),
                _ => break,
            }
        }
        Ok(self.tree.close_map(start)?)
    }

    /// A mapping value, after its key's `:` (which ends at `after`), in a mapping indented
    /// `indent`.
    fn value(&mut self, indent: usize, after: usize) -> Step {
        self.at = after;
        self.skip_spaces();
        if !self.at_line_end() {
            return self.scalar(indent);
        }
        // Nothing after the key: the value is below it, or null (placed at the `:`).
        let null = self.pos(after - 1);
        self.next_line();
        match self.content_line() {
            Some(i) if i > indent => self.node(indent),
            Some(i) if i == indent && self.is_item() => self.sequence(indent, true),
            _ => self.add(null, Value::Null),
        }
    }

    /// A block sequence indented `indent`, from its first `-`; `indentless` when it is a
    /// mapping's value as deep as its key (saphyr-parser then places the sequence after
    /// the `-`, where its first item or the item's null is).
    fn sequence(&mut self, indent: usize, indentless: bool) -> Step {
        let mut start = self.pos(self.at);
        let mut first = true;
        loop {
            self.at += 1;
            self.skip_spaces();
            if first {
                if indentless {
                    start = self.pos(if self.at_line_end() {
                        self.line_end()
                    } else {
                        self.at
                    });
                }
                self.tree.open_seq(start)?;
                first = false;
            }
            if self.at_line_end() {
                // Nothing after the `-`: the item is below it, or null (placed at the line's
                // end).
                let null = self.pos(self.line_end());
                self.next_line();
                match self.content_line() {
                    Some(i) if i > indent => self.node(indent)?,
                    _ => self.add(null, Value::Null)?,
                }
            } else {
                self.node(indent)?;
            }
            match self.content_line() {
                Some(i) if i == indent && self.is_item() => {}
                Some(i) if i > indent => return Err(Elsewhere),
                _ => break,
            }
        }
        Ok(self.tree.close_seq(start)?)
    }

    /// A scalar (or a flow collection on one line) starting at the reader, in a block
    /// collection indented `parent`; read to the start of the line after it.
    fn scalar(&mut self, parent: usize) -> Step {
        let pos = self.pos(self.at);
        match self.byte(self.at) {
            b'\'' | b'"' => {
                let text = self.quoted(parent)?;
                self.add(pos, Value::Str(text))?;
                self.end_line()
            }
            b'|' => self.literal(parent),
            b'[' => self.flow_sequence(),
            b'{' if self.byte(self.at + 1) == b'}' => {
                self.tree.open_map(pos)?;
                self.tree.close_map(pos)?;
                self.at += 2;
                self.end_line()
            }
            _ if self.plain_starts(self.at) => self.plain(parent),
            _ => Err(Elsewhere),
        }
    }

    /// Where a plain scalar starting at `start` ends on its line (before a comment, or at
    /// `line_end`), or the `:` that makes it a mapping key.
    fn plain_end(&self, start: usize, line_end: usize) -> PlainEnd {
        let mut i = start;
        while i < line_end {
            match self.bytes[i] {
                b':' if matches!(self.byte(i + 1), b' ' | b'\n') => {
                    return PlainEnd {
                        end: i,
                        comment: false,
                        colon: Some(i),
                    };
                }
                b'#' if i > start && self.bytes[i - 1] == b' ' => {
                    return PlainEnd {
                        end: i,
                        comment: true,
                        colon: None,
                    };
                }
                _ => i += 1,
            }
        }
        PlainEnd {
            end: line_end,
            comment: false,
            colon: None,
        }
    }

    /// A plain scalar, with the lines that continue it (indented more than `parent`).
    fn plain(&mut self, parent: usize) -> Step {
        let start = self.at;
        let pos = self.pos(start);
        let first = self.plain_end(start, self.line_end());
        if first.colon.is_some() {
            return Err(Elsewhere);
        }
        let first_text = self.text[start..first.end].trim_end_matches(' ');
        self.next_line();
        // A comment ends a plain scalar.
        let folded = if first.comment {
            None
        } else {
            self.plain_lines(parent, first_text)?
        };
        let text = folded.as_deref().unwrap_or(first_text);
        let value = resolve_plain(text).unwrap_or_else(|| match folded {
            Some(text) => Value::Str(text),
            None => Value::Str(first_text.to_owned()),
        });
        self.add(pos, value)
    }

    /// The lines that continue a plain scalar whose first line's text is `first`, folded
    /// into it; `None` if there are none (the reader is left at the line after the first).
    fn plain_lines(&mut self, parent: usize, first: &str) -> Result<Option<String>, Elsewhere> {
        let mut folded: Option<String> = None;
        loop {
            let (at, line, line_start, end) = (self.at, self.line, self.line_start, self.end);
            let empty = self.past_empty_lines();
            let (breaks, indent) = (empty.count, empty.next);
            // A line indented more than the collection, not a comment, continues it.
            let continues =
                indent.filter(|&i| i > parent && self.byte(self.line_start + i) != b'#');
            let Some(indent) = continues else {
                (self.at, self.line, self.line_start, self.end) = (at, line, line_start, end);
                return Ok(folded);
            };
            let from = self.line_start + indent;
            let rest = self.plain_end(from, self.line_end());
            // A `: ` (not YAML) or a comment in the lines of a plain scalar.
            if rest.colon.is_some() || rest.comment {
                return Err(Elsewhere);
            }
            let text = folded.get_or_insert_with(|| first.to_owned());
            if breaks == 0 {
                text.push(' ');
            } else {
                text.extend(std::iter::repeat_n('\n', breaks));
            }
            text.push_str(self.text[from..rest.end].trim_end_matches(' '));
            self.next_line();
        }
    }

    /// The text of the single-quoted or double-quoted scalar starting at `start`, and where
    /// it ends, if it ends on its line (and, double-quoted, has only the escapes read here).
    fn quoted_on_line(&self, start: usize) -> Option<(String, usize)> {
        let line_end = self.line_end();
        let mut text = String::new();
        let end = if self.byte(start) == b'"' {
            self.double_quoted_part(start + 1, line_end, &mut text).ok()?
        } else {
            self.single_quoted_part(start + 1, line_end, &mut text)
        };
        match end {
            QuotedLine::Closed(end) => Some((text, end)),
            QuotedLine::Folds | QuotedLine::Escaped => None,
        }
    }

    /// A single-quoted or double-quoted scalar starting at the reader (over several lines,
    /// each indented more than `parent`), the reader after it.
    fn quoted(&mut self, parent: usize) -> Result<String, Elsewhere> {
        let double = self.byte(self.at) == b'"';
        let mut text = String::new();
        let mut from = self.at + 1;
        loop {
            let line_end = self.line_end();
            let end = if double {
                self.double_quoted_part(from, line_end, &mut text)?
            } else {
                self.single_quoted_part(from, line_end, &mut text)
            };
            let escaped = match end {
                QuotedLine::Closed(end) => {
                    self.at = end;
                    return Ok(text);
                }
                QuotedLine::Folds => false,
                QuotedLine::Escaped => true,
            };
            // The line breaks inside the scalar: folded, a break into a space (none after a
            // `\`), the empty lines after it into as many line breaks.
            self.next_line();
            let empty = self.past_empty_lines();
            let (breaks, indent) = (empty.count, empty.next.ok_or(Elsewhere)?);
            if indent <= parent {
                return Err(Elsewhere);
            }
            if breaks == 0 && !escaped {
                text.push(' ');
            } else {
                text.extend(std::iter::repeat_n('\n', breaks));
            }
            from = self.line_start + indent;
        }
    }

    /// A single-quoted scalar's text on one line, from `from` to `line_end`, added to `text`
    /// (when the line ends inside the scalar, without its trailing spaces).
    fn single_quoted_part(&self, mut from: usize, line_end: usize, text: &mut String) -> QuotedLine {
        loop {
            match self.text[from..line_end].find('\'') {
                // `''` is a quote.
                Some(n) if self.byte(from + n + 1) == b'\'' => {
                    text.push_str(&self.text[from..=from + n]);
                    from += n + 2;
                }
                Some(n) => {
                    text.push_str(&self.text[from..from + n]);
                    return QuotedLine::Closed(from + n + 1);
                }
                None => {
                    text.push_str(self.text[from..line_end].trim_end_matches(' '));
                    return QuotedLine::Folds;
                }
            }
        }
    }

    /// A double-quoted scalar's text on one line, as [`Self::single_quoted_part`]; escapes
    /// not read here are for saphyr-parser.
    fn double_quoted_part(
        &self,
        mut from: usize,
        line_end: usize,
        text: &mut String,
    ) -> Result<QuotedLine, Elsewhere> {
        loop {
            let Some(n) = self.bytes[from..line_end]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
            else {
                text.push_str(self.text[from..line_end].trim_end_matches(' '));
                return Ok(QuotedLine::Folds);
            };
            text.push_str(&self.text[from..from + n]);
            let at = from + n;
            if self.bytes[at] == b'"' {
                return Ok(QuotedLine::Closed(at + 1));
            }
            let (c, len) = match self.byte(at + 1) {
                b'\n' => return Ok(QuotedLine::Escaped),
                b'"' => ('"', 2),
                b'\\' => ('\\', 2),
                b'/' => ('/', 2),
                b' ' => (' ', 2),
                b'n' => ('\n', 2),
                b't' => ('\t', 2),
                b'r' => ('\r', 2),
                b'0' => ('\0', 2),
                b'a' => ('\u{7}', 2),
                b'b' => ('\u{8}', 2),
                b'e' => ('\u{1b}', 2),
                b'f' => ('\u{c}', 2),
                b'v' => ('\u{b}', 2),
                b'N' => ('\u{85}', 2),
                b'_' => ('\u{a0}', 2),
                b'L' => ('\u{2028}', 2),
                b'P' => ('\u{2029}', 2),
                b'x' => (self.hex_char(at + 2, 2, line_end)?, 4),
                b'u' => (self.hex_char(at + 2, 4, line_end)?, 6),
                b'U' => (self.hex_char(at + 2, 8, line_end)?, 10),
                _ => return Err(Elsewhere),
            };
            text.push(c);
            from = at + len;
        }
    }

    /// The character of the `digits` hexadecimal digits at `from`, before `line_end`.
    fn hex_char(&self, from: usize, digits: usize, line_end: usize) -> Result<char, Elsewhere> {
        let hex = self.text.get(from..from + digits).ok_or(Elsewhere)?;
        if from + digits > line_end || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Elsewhere);
        }
        let code = u32::from_str_radix(hex, 16).map_err(|_| Elsewhere)?;
        char::from_u32(code).ok_or(Elsewhere)
    }

    /// A literal block scalar from its `|`, in a block collection indented `parent`.
    fn literal(&mut self, parent: usize) -> Step {
        self.at += 1;
        // The header: a chomping indicator and an indentation indicator, in either order.
        let mut chomp = None;
        let mut explicit = None;
        loop {
            match self.byte(self.at) {
                b'-' if chomp.is_none() => chomp = Some(Chomp::Strip),
                b'+' if chomp.is_none() => chomp = Some(Chomp::Keep),
                digit @ b'1'..=b'9' if explicit.is_none() => {
                    explicit = Some(usize::from(digit - b'0'));
                }
                _ => break,
            }
            self.at += 1;
        }
        let chomp = chomp.unwrap_or(Chomp::Clip);
        if !matches!(self.byte(self.at), b' ' | b'\n') {
            return Err(Elsewhere);
        }
        self.end_line()?;
        // Empty lines before the first line of content; the indentation is the indicator's
        // (from the collection's), or the first line of content's.
        let empty = self.past_empty_lines();
        let first_spaces = empty.next.ok_or(Elsewhere)?;
        let mut text = "\n".repeat(empty.count);
        let indent = explicit.map_or(first_spaces, |n| parent + n);
        // An empty scalar, or empty lines indented more than the content.
        if indent <= parent || first_spaces < indent || empty.widest > indent {
            return Err(Elsewhere);
        }
        let pos = Pos {
            line: self.line,
            col: indent + 1,
        };
        // Empty lines (no more spaces than the indentation) count until the next line of
        // content; the last ones go by the chomping.
        let mut empty_lines = 0;
        let mut first = true;
        while !self.at_end() {
            let spaces = self.indentation();
            let line_end = self.line_end();
            if self.line_start + spaces == line_end && spaces <= indent {
                empty_lines += 1;
                self.next_line();
                continue;
            }
            if spaces < indent {
                break;
            }
            if !first {
                text.push('\n');
            }
            text.extend(std::iter::repeat_n('\n', empty_lines));
            text.push_str(&self.text[self.line_start + indent..line_end]);
            empty_lines = 0;
            first = false;
            self.next_line();
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => text.push('\n'),
            Chomp::Keep => text.extend(std::iter::repeat_n('\n', empty_lines + 1)),
        }
        self.add(pos, Value::Str(text))
    }

    /// A flow sequence of scalars on one line (`[]`, `["a", "b"]`).
    fn flow_sequence(&mut self) -> Step {
        let start = self.pos(self.at);
        self.tree.open_seq(start)?;
        self.at += 1;
        self.skip_spaces();
        if self.byte(self.at) == b']' {
            self.at += 1;
        } else {
            loop {
                let pos = self.pos(self.at);
                let value = match self.byte(self.at) {
                    b'\'' | b'"' => {
                        let (text, end) = self.quoted_on_line(self.at).ok_or(Elsewhere)?;
                        self.at = end;
                        Value::Str(text)
                    }
                    _ if self.plain_starts(self.at) => self.flow_plain()?,
                    _ => return Err(Elsewhere),
                };
                self.add(pos, value)?;
                self.skip_spaces();
                match self.byte(self.at) {
                    b',' => {
                        self.at += 1;
                        self.skip_spaces();
                        if self.byte(self.at) == b']' {
                            self.at += 1;
                            break;
                        }
                    }
                    b']' => {
                        self.at += 1;
                        break;
                    }
                    _ => return Err(Elsewhere),
                }
            }
        }
        self.tree.close_seq(start)?;
        self.end_line()
    }

    /// A plain scalar in a flow sequence: one word of letters, digits, `.`, `_` and `/` (the
    /// rules of plain scalars among flow indicators have corners, such as ` -]`, that are
    /// saphyr-parser's to read: found by fuzzing).
    fn flow_plain(&mut self) -> Result<Value, Elsewhere> {
        let start = self.at;
        let mut end = start;
        while matches!(self.byte(end), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'/') {
            end += 1;
        }
        if end == start || !matches!(self.byte(end), b' ' | b',' | b']') {
            return Err(Elsewhere);
        }
        self.at = end;
        let text = &self.text[start..end];
        Ok(resolve_plain(text).unwrap_or_else(|| Value::Str(text.to_owned())))
    }
}

/// The lines of spaces only [`Reader::past_empty_lines`] passed.
struct EmptyLines {
    /// How many.
    count: usize,
    /// The most spaces one of them has.
    widest: usize,
    /// The indentation of the line after them; `None` at the text's end.
    next: Option<usize>,
}

/// How a quoted scalar's line ends.
enum QuotedLine {
    /// With the scalar, before this byte.
    Closed(usize),
    /// Inside the scalar: the break is folded.
    Folds,
    /// Inside the scalar, after a `\`: the break is not kept.
    Escaped,
}

/// Where a plain scalar's text ends on its line, and why.
struct PlainEnd {
    /// The end of its text, spaces before a comment included.
    end: usize,
    /// Whether a comment follows.
    comment: bool,
    /// The `:` after it that makes it a mapping key.
    colon: Option<usize>,
}

#[cfg(test)]
mod tests;
