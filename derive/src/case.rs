//! Names: serde's `rename_all` rules for fields, and Rust identifiers made from condition
//! types (`SubResourcesReady` gives `sub_resources_ready` and `SubResourcesReady`).

use proc_macro2::Span;
use syn::Ident;

/// serde's `rename_all` rules, as they apply to a snake_case field name.
#[derive(Clone, Copy)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// The rule serde names so, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// The wire name of a field called `field` (already without `r#`).
    pub fn apply(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
            Self::Pascal => pascal_from_snake(field),
            Self::Camel => {
                let pascal = pascal_from_snake(field);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
        }
    }
}

/// serde's PascalCase of a snake_case name: each `_` starts a capitalised word.
fn pascal_from_snake(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut capitalize = true;
    for c in field.chars() {
        if c == '_' {
            capitalize = true;
        } else if capitalize {
            out.push(c.to_ascii_uppercase());
            capitalize = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The words of a condition type: split at anything not alphanumeric and at case changes
/// (`example.com/HTTPRouteReady` gives example, com, HTTP, Route, Ready).
fn words(condition_type: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in condition_type.split(|c: char| !c.is_ascii_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            let boundary = (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                || (prev.is_ascii_uppercase() && cur.is_ascii_uppercase() && next_lower)
                || (prev.is_ascii_digit() && cur.is_ascii_alphabetic());
            if boundary {
                words.push(chars[start..i].iter().collect());
                start = i;
            }
        }
        if start < chars.len() {
            words.push(chars[start..].iter().collect());
        }
    }
    words
}

/// The snake_case method stem for a condition type (`sub_resources_ready`); `None` if the
/// type has no alphanumeric character at all.
pub fn snake(condition_type: &str) -> Option<String> {
    let words = words(condition_type);
    if words.is_empty() {
        return None;
    }
    let mut name = words
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "type_");
    }
    Some(name)
}

/// The PascalCase enum variant for a condition type (`SubResourcesReady`).
pub fn pascal(condition_type: &str) -> Option<String> {
    let words = words(condition_type);
    if words.is_empty() {
        return None;
    }
    let mut name: String = words
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
            })
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "Type");
    }
    Some(name)
}

/// An identifier for `name`, raw if it is a keyword (`r#type`), with `_` appended for the
/// keywords that cannot be raw (`self`, `super`, ...).
pub fn ident(name: &str, span: Span) -> Ident {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => Ident::new(&format!("{name}_"), span),
        _ if is_keyword(name) => Ident::new_raw(name, span),
        _ => Ident::new(name, span),
    }
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "as" | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "gen"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "try"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
    )
}
