//! Identifiers for names that may be keywords.

/// Keywords that cannot be raw identifiers; they get a trailing `_`.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Rust's keywords (strict, reserved, and edition 2024's `gen`).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// How a name is written as an identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// As it is.
    Plain,
    /// `r#name`: a keyword.
    Raw,
    /// `name_`: a keyword that cannot be raw (`self`, `Self`, `super`, `crate`, `_`).
    Suffixed,
}

/// Whether `name` is a Rust keyword, `self` and its kind included.
pub fn is_keyword(name: &str) -> bool {
    NOT_RAW.contains(&name) || KEYWORDS.contains(&name)
}

/// How `name` is written as an identifier.
pub fn spelling(name: &str) -> Spelling {
    if NOT_RAW.contains(&name) {
        Spelling::Suffixed
    } else if KEYWORDS.contains(&name) {
        Spelling::Raw
    } else {
        Spelling::Plain
    }
}

/// An identifier for `name` at `span`: raw for keywords (`r#type`), `self_` for the few
/// that cannot be.
pub fn ident(name: &str, span: proc_macro2::Span) -> proc_macro2::Ident {
    match spelling(name) {
        Spelling::Plain => proc_macro2::Ident::new(name, span),
        Spelling::Raw => proc_macro2::Ident::new_raw(name, span),
        Spelling::Suffixed => proc_macro2::Ident::new(&format!("{name}_"), span),
    }
}

/// `name` as an identifier's text: `r#type`, `self_`, or `name` itself.
pub fn ident_text(name: &str) -> String {
    match spelling(name) {
        Spelling::Plain => name.to_owned(),
        Spelling::Raw => format!("r#{name}"),
        Spelling::Suffixed => format!("{name}_"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_raw_or_suffixed() {
        assert_eq!(ident_text("type"), "r#type");
        assert_eq!(ident_text("gen"), "r#gen");
        assert_eq!(ident_text("self"), "self_");
        assert_eq!(ident_text("Self"), "Self_");
        assert_eq!(ident_text("_"), "__");
        assert_eq!(ident_text("types"), "types");
        assert!(is_keyword("crate") && is_keyword("match") && !is_keyword("matches"));
        for name in ["type", "self", "_", "types"] {
            let span = proc_macro2::Span::call_site();
            assert_eq!(ident(name, span).to_string(), ident_text(name), "{name}");
        }
    }
}
