//! Documentation text from input, made safe for doc comments: it can never become a doc
//! test (code fences are marked `text`, indentation that would start an indented code block
//! is removed) and, being emitted as a string literal, never becomes code. Control
//! characters, which a doc comment may not hold (a bare carriage return is a compile error),
//! are written as escapes, and HTML as text (rustdoc renders the HTML of a doc comment: a
//! description holding `<script>` would run in the crate's documentation, and
//! `<namespace>/<name>` would vanish from it).

pub use crate::facts::code;
use crate::facts::facts;
use crate::model::Schema;

/// `#[doc = "..."]` attributes for `text`, one per line, each line led by a space so that
/// it prints as `/// line`.
pub fn attrs(text: &str) -> proc_macro2::TokenStream {
    let lines = sanitize(text);
    let lines = lines.lines().map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    quote::quote!(#(#[doc = #lines])*)
}

/// A field's documentation as users read it in an API reference: the schema's description,
/// then what the schema says of the value (default, allowed values, bounds, pattern).
pub fn field(schema: &Schema) -> Option<String> {
    let facts = facts(schema);
    match (&schema.docs, facts.is_empty()) {
        (Some(docs), true) => Some(docs.clone()),
        (Some(docs), false) => Some(format!(
            "{}

{facts}",
            docs.trim_end()
        )),
        (None, false) => Some(facts),
        (None, true) => None,
    }
}

/// `text` as doc comment content.
pub fn sanitize(text: &str) -> String {
    let text = printable(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_fence = false;
    for (i, line) in text.trim().lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_start();
        if line.starts_with("```") || line.starts_with("~~~") {
            out.push_str(if in_fence { "```" } else { "```text" });
            in_fence = !in_fence;
        } else if in_fence {
            out.push_str(line.trim_end());
        } else {
            out.push_str(&escape_html(line.trim_end()));
        }
    }
    if in_fence {
        out.push_str("\n```");
    }
    out
}

/// `line` with each `<` that could open an HTML tag (before a letter, `/`, `!` or `?`)
/// written `&lt;`, except in code spans, where rustdoc shows it as it is.
fn escape_html(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('<') {
        return std::borrow::Cow::Borrowed(line);
    }
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() + 8);
    // The length of the run of backticks that opened the code span we are in.
    let mut code_span: Option<usize> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            code_span = match code_span {
                Some(open) if open == run => None,
                Some(open) => Some(open),
                // A run opens a span only if the same run closes it later on the line.
                None => has_run(&chars[i + run..], run).then_some(run),
            };
            out.extend(&chars[i..i + run]);
            i += run;
            continue;
        }
        let opens_tag = chars
            .get(i + 1)
            .is_some_and(|next| next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?'));
        if c == '<' && opens_tag && code_span.is_none() {
            out.push_str("&lt;");
        } else {
            out.push(c);
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `chars` holds a run of exactly `len` backticks.
fn has_run(chars: &[char], len: usize) -> bool {
    chars.split(|&c| c != '`').any(|run| run.len() == len)
}

/// `text` with every line break a `\n` and other control characters but tabs escaped
/// (borrowed when it has none, as almost every description).
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let is_escaped = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(|c| c == '\r' || is_escaped(c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_escaped(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_cannot_become_doctests() {
        let text = "Example:\n```yaml\nfoo: bar\n```\n    indented code\n```rust\nfn main() {}";
        assert_eq!(
            sanitize(text),
            "Example:\n```text\nfoo: bar\n```\nindented code\n```text\nfn main() {}\n```"
        );
    }

    #[test]
    fn facts_show_default_values_bounds_and_pattern() {
        use crate::model::{Bounds, IntegerFormat, IntegerType, StringType, Type};
        let mut port = Schema::of(Type::Integer(IntegerType {
            format: IntegerFormat::Int32,
            bounds: Bounds {
                minimum: Some(1.0),
                maximum: Some(65536.0),
                exclusive_maximum: true,
                ..Bounds::default()
            },
        }));
        port.default = Some(serde_json::json!(80));
        port.docs = Some("The port.\n".to_owned());
        assert_eq!(
            field(&port).as_deref(),
            Some("The port.\n\nDefault: `80`. Minimum: 1. Maximum: 65536 (exclusive).")
        );
        let name = Schema::of(Type::String(StringType {
            format: None,
            pattern: Some("^`[a-z]+`$".to_owned()),
            min_length: Some(1),
            max_length: Some(63),
        }));
        assert_eq!(
            field(&name).as_deref(),
            Some("Length: 1 to 63. Pattern: ``^`[a-z]+`$``.")
        );
        assert_eq!(field(&Schema::of(Type::Boolean)), None);
        assert_eq!(code("`a`"), "`` `a` ``");
    }

    #[test]
    fn html_is_text_outside_code() {
        assert_eq!(
            sanitize("Runs <script>alert(1)</script> and <!-- c --> <?x>"),
            "Runs &lt;script>alert(1)&lt;/script> and &lt;!-- c --> &lt;?x>"
        );
        // In code spans and fences it stays as written; comparisons are not tags.
        assert_eq!(
            sanitize("`<name>` and ``a `<b>` c`` then <ns>/<name>, a < b, a<3\n```\n<p>\n```"),
            "`<name>` and ``a `<b>` c`` then &lt;ns>/&lt;name>, a < b, a<3\n```text\n<p>\n```"
        );
        // A backtick that no run closes is a backtick, not a code span.
        assert_eq!(sanitize("it's ` <b>"), "it's ` &lt;b>");
    }

    #[test]
    fn control_characters_cannot_break_a_doc_comment() {
        assert_eq!(
            sanitize("a\rb\r\nc\0d\u{1b}e\tf\u{85}g"),
            "a\nb\nc\\u{0}d\\u{1b}e\tf\\u{85}g"
        );
    }
}
