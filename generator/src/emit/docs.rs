//! Documentation text from input, made safe for doc comments: it can never become a doc
//! test (code fences are marked `text`, indentation that would start an indented code block
//! is removed) and, being emitted as a string literal, never becomes code. Control
//! characters, which a doc comment may not hold (a bare carriage return is a compile error),
//! are written as escapes.

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
        } else {
            out.push_str(line.trim_end());
        }
    }
    if in_fence {
        out.push_str("\n```");
    }
    out
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
    fn control_characters_cannot_break_a_doc_comment() {
        assert_eq!(
            sanitize("a\rb\r\nc\0d\u{1b}e\tf\u{85}g"),
            "a\nb\nc\\u{0}d\\u{1b}e\tf\\u{85}g"
        );
    }
}
