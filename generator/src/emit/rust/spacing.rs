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
    // The first line of the statement last begun at each indentation: a `use` item laid out
    // on several lines ends with `};`, which alone does not say it was a `use`.
    let mut heads: Vec<&str> = Vec::new();
    for line in text.lines() {
        let current = indented(line);
        let (indent, rest) = current;
        if let Some(before) = previous
            && needs_blank(
                before,
                heads.get(before.0).copied().unwrap_or_default(),
                current,
            )
        {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        let declares = ITEM_STARTS[2..].iter().any(|start| rest.starts_with(start));
        if declares {
            if heads.len() <= indent {
                heads.resize(indent + 1, "");
            }
            heads[indent] = rest;
        }
        previous = Some(current);
    }
    out
}

/// The starts of items, their docs and their attributes (fields and variants are separated
/// from each other by their commas, so they never follow an item's end); the declarations
/// themselves from the third on.
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
/// rest ([`indented`]); `head` is the first line of the statement `previous` ends.
fn needs_blank(
    (previous_indent, before): (usize, &str),
    head: &str,
    (indent, after): (usize, &str),
) -> bool {
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
    // A line that starts with a path is an item only as a macro call at item level
    // (`::k8s_openapi::k8s_if_le_1_34! {`); a match arm (`::core::option::Option::None =>`)
    // is not one.
    let starts_item = ITEM_STARTS.iter().any(|start| after.starts_with(start))
        || (after.starts_with("::") && !after.contains("=>"));
    let ended = if before.ends_with(';') && !head.is_empty() {
        head
    } else {
        before
    };
    let same_run = |prefixes: &[&str]| {
        prefixes.iter().any(|p| ended.starts_with(p))
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
use k8s_openapi::api::core::v1::{
    ConfigMapKeySelector, ObjectReference,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
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
        match &self.x {
            ::core::option::Option::Some(value) => {
                value.len()
            }
            ::core::option::Option::None => 0,
        };
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
use k8s_openapi::api::core::v1::{
    ConfigMapKeySelector, ObjectReference,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

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
        match &self.x {
            ::core::option::Option::Some(value) => {
                value.len()
            }
            ::core::option::Option::None => 0,
        };
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
