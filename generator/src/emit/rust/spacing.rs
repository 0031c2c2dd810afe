//! One blank line between items, as people write Rust and rustfmt keeps it: prettyplease,
//! whose layout the generated code otherwise follows, prints items back to back. Applied
//! to whole files once they are laid out, so every writer gets it the same way.

/// `text` (laid out Rust, no blank lines) with a blank line between consecutive items of
/// one block: before an item (or its docs and attributes) that follows the end of another at
/// the same indentation. Runs of `use` items and of associated types stay together.
pub fn separate_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    // Each line's indentation and the rest, found once (a large CRD's module has hundreds of
    // thousands of lines: finding them again for each pair of lines was a fifth of writing a
    // file of one CRD on the main thread; issue 28).
    let mut previous: Option<(usize, &str)> = None;
    for line in text.lines() {
        let current = indented(line);
        if previous.is_some_and(|previous| needs_blank(previous, current)) {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(current);
    }
    out
}

/// The starts of items, their docs and their attributes (fields and variants are separated
/// from each other by their commas, so they never follow an item's end).
const ITEM_STARTS: [&str; 12] = [
    "///", "#[", "pub ", "impl ", "impl<", "fn ", "struct ", "enum ", "mod ", "const ", "type ",
    "use ",
];

/// A line's indentation (its leading whitespace, in bytes) and the rest of it, as
/// `str::trim_start` divides them; spaces, the only indentation written here, are counted
/// as bytes.
fn indented(line: &str) -> (usize, &str) {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    let rest = &line[spaces..];
    let rest = if rest.starts_with(char::is_whitespace) {
        rest.trim_start()
    } else {
        rest
    };
    (line.len() - rest.len(), rest)
}

/// Whether a blank line goes between `previous` and `line`, each its indentation and the
/// rest ([`indented`]).
fn needs_blank((previous_indent, before): (usize, &str), (indent, after): (usize, &str)) -> bool {
    let commentary = ["//", "#[", "#!["].iter().any(|p| before.starts_with(p));
    if before.is_empty() || commentary || previous_indent != indent {
        return false;
    }
    let ends_item = before == "}"
        || (before.ends_with('}') && !before.starts_with('}'))
        || before.ends_with(';');
    if !ends_item {
        return false;
    }
    let starts_item =
        ITEM_STARTS.iter().any(|start| after.starts_with(start)) || after.starts_with("::");
    let same_run = |prefixes: &[&str]| {
        prefixes.iter().any(|p| before.starts_with(p))
            && prefixes.iter().any(|p| after.starts_with(p))
    };
    starts_item && !same_run(&["use ", "pub use "]) && !same_run(&["type "])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_is_what_trim_start_leaves() {
        for line in [
            "",
            "x",
            "    x",
            "        ",
            " \t x",
            "\u{a0}x",
            "  \u{2003} y  ",
            "é",
        ] {
            let rest = line.trim_start();
            assert_eq!(indented(line), (line.len() - rest.len(), rest), "{line:?}");
        }
    }

    #[test]
    fn items_are_separated_and_their_insides_are_not() {
        let text = "\
//! A module.
use a::B;
use c::{D, E};
pub use super::F;
/// A struct; its doc ends {with} braces;
/// and goes on.
#[derive(Clone)]
pub struct G {
    /// A field.
    pub h: B,
    #[serde(rename = \"x\")]
    pub x: D,
}
pub struct Empty {}
impl G {
    fn one(&self) {
        match self.h {
            _ => {}
        }
        let _ = 1;
    }
    fn two() {}
}
impl Iterator for G {
    type Item = B;
    type Other = D;
    fn next(&mut self) -> Option<B> {
        None
    }
}
::k8s_openapi::k8s_if_le_1_34! {
    ::core::compile_error!(\"old\");
}
pub const C: &str = include_str!(\"c.json\");
pub mod v1 {
    use a::B;
    pub struct I;
}
";
        let expected = "\
//! A module.
use a::B;
use c::{D, E};
pub use super::F;

/// A struct; its doc ends {with} braces;
/// and goes on.
#[derive(Clone)]
pub struct G {
    /// A field.
    pub h: B,
    #[serde(rename = \"x\")]
    pub x: D,
}

pub struct Empty {}

impl G {
    fn one(&self) {
        match self.h {
            _ => {}
        }
        let _ = 1;
    }

    fn two() {}
}

impl Iterator for G {
    type Item = B;
    type Other = D;

    fn next(&mut self) -> Option<B> {
        None
    }
}

::k8s_openapi::k8s_if_le_1_34! {
    ::core::compile_error!(\"old\");
}

pub const C: &str = include_str!(\"c.json\");

pub mod v1 {
    use a::B;

    pub struct I;
}
";
        assert_eq!(separate_items(text), expected);
        assert_eq!(separate_items(expected), expected, "idempotent");
    }
}
