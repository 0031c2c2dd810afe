//! Rust names from wire names: snake_case fields, PascalCase types, keywords made valid, and
//! names that collide after conversion made distinct.

use std::collections::BTreeSet;

pub use kondition_names::ident_text;
use kondition_names::{Spelling, spelling};

/// `proxyURL` -> `proxy_url` (`kondition_names::snake_case`); never empty, never starting
/// with a digit.
pub fn snake_case(name: &str) -> String {
    valid_start(kondition_names::snake_case(name), "field", "_")
}

/// `security-group_rule` -> `SecurityGroupRule` (`kondition_names::pascal_case`); never
/// empty, never starting with a digit.
pub fn pascal_case(name: &str) -> String {
    valid_start(kondition_names::pascal_case(name), "Value", "V")
}

/// An enum variant for a wire value: `PascalCase` of its words, or, for a value with no
/// letters or digits, its symbols spelled out (`!=` gives `NotEq`, `""` gives `Empty`).
pub fn variant_name(value: &str) -> String {
    if value.chars().any(|c| c.is_ascii_alphanumeric()) {
        return pascal_case(value);
    }
    if value.is_empty() {
        return "Empty".to_owned();
    }
    value
        .chars()
        .map(|c| match c {
            '=' => "Eq",
            '!' => "Not",
            '~' => "Tilde",
            '*' => "Star",
            '<' => "Lt",
            '>' => "Gt",
            '+' => "Plus",
            '-' => "Minus",
            '/' => "Slash",
            '.' => "Dot",
            '&' => "And",
            '|' => "Or",
            '%' => "Percent",
            '^' => "Caret",
            '?' => "Question",
            '@' => "At",
            '#' => "Hash",
            '$' => "Dollar",
            ':' => "Colon",
            ',' => "Comma",
            ' ' => "Space",
            _ => "Symbol",
        })
        .collect()
}

fn valid_start(name: String, empty: &str, digit_prefix: &str) -> String {
    if name.is_empty() {
        empty.to_owned()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{digit_prefix}{name}")
    } else {
        name
    }
}

/// The module of an API version: `v1beta1` stays, `my-version` becomes `my_version`.
pub fn version_module(version: &str) -> String {
    snake_case(version)
}

/// The Rust module for an input file, before clashes between files are settled: its stem,
/// snake_cased. Both front-ends name their files so.
pub fn file_module_name(path: &std::path::Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("schema");
    module_name(snake_case(stem))
}

/// `name` as a module name that is also its file's stem: `ident` would turn `self` into
/// `self_`, so the file must be named that way too.
pub fn module_name(name: String) -> String {
    if spelling(&name) == Spelling::Suffixed {
        name + "_"
    } else {
        name
    }
}

/// An identifier for `name`: raw for keywords (`r#type`), `self_` for the few that cannot be.
pub fn ident(name: &str) -> syn::Ident {
    kondition_names::ident(name, proc_macro2::Span::call_site())
}

/// Hands out names unique within one scope: a name already taken gets `_2`, `_3`, ...
#[derive(Default)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope where `reserved` names are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Self {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Takes `name` if it is free; whether it was.
    pub fn take(&mut self, name: &str) -> bool {
        !self.taken.contains(name) && self.taken.insert(name.to_owned())
    }

    /// `base`, or `base_N` for the first N that is free (snake_case names); then taken.
    pub fn unique(&mut self, base: &str) -> String {
        self.unique_with(base, "_")
    }

    /// `Base`, or `BaseN` for the first N that is free (PascalCase names; `V1` gives `V1_2`,
    /// not the misleading `V12`); then taken.
    pub fn unique_pascal(&mut self, base: &str) -> String {
        let separator = if base.ends_with(|c: char| c.is_ascii_digit()) {
            "_"
        } else {
            ""
        };
        self.unique_with(base, separator)
    }

    fn unique_with(&mut self, base: &str, separator: &str) -> String {
        let mut candidate = base.to_owned();
        let mut n = 2;
        while !self.taken.insert(candidate.clone()) {
            candidate = format!("{base}{separator}{n}");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_as_text_are_the_identifiers() {
        let names = [
            "type", "gen", "match", "self", "Self", "super", "crate", "_",
        ]
        .into_iter()
        .chain(["name", "r", "type_"]);
        for name in names {
            assert_eq!(ident_text(name), ident(name).to_string(), "{name}");
        }
    }

    #[test]
    fn variants_of_symbol_values_spell_the_symbols() {
        let cases = [
            ("=~", "EqTilde"),
            ("!=", "NotEq"),
            ("", "Empty"),
            ("*", "Star"),
            ("drop", "Drop"),
            ("1.0", "V10"),
            ("with space", "WithSpace"),
        ];
        for (value, expected) in cases {
            assert_eq!(variant_name(value), expected, "{value:?}");
        }
    }

    #[test]
    fn snake_case_of_wire_names() {
        let cases = [
            ("size", "size"),
            ("proxyURL", "proxy_url"),
            ("proxyUrl", "proxy_url"),
            ("mirror_percent", "mirror_percent"),
            ("remoteIPPrefix", "remote_ip_prefix"),
            ("$ref", "ref"),
            ("x-kubernetes-list-type", "x_kubernetes_list_type"),
            ("404page", "_404page"),
            ("", "field"),
            ("IPv4Address", "i_pv4_address"),
        ];
        for (wire, rust) in cases {
            assert_eq!(snake_case(wire), rust, "{wire}");
        }
    }

    #[test]
    fn pascal_case_of_names() {
        let cases = [
            ("security-group", "SecurityGroup"),
            ("ingress", "Ingress"),
            ("IPv4", "IPv4"),
            ("TCP", "Tcp"),
            ("=~", "Value"),
            ("1.0", "V10"),
            ("drop", "Drop"),
        ];
        for (name, rust) in cases {
            assert_eq!(pascal_case(name), rust, "{name}");
        }
    }

    proptest::proptest! {
        /// Whatever a wire name, enum value or file stem holds, the Rust names made from it
        /// are identifiers (`ident` would panic otherwise), and a file stem stays one path
        /// component.
        #[test]
        fn any_text_becomes_an_identifier(text in "\\PC{0,12}|[-./\\\\ $_a-zA-Z0-9]{0,12}") {
            let is_ident = |name: &str| {
                name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            for name in [snake_case(&text), pascal_case(&text), variant_name(&text)] {
                proptest::prop_assert!(is_ident(&name), "{text:?} -> {name:?}");
                let _ = ident(&name);
            }
            let module = module_name(snake_case(&text));
            proptest::prop_assert!(is_ident(&module) && module != "_", "{text:?} -> {module:?}");
            let declared = ident(&module).to_string();
            proptest::prop_assert_eq!(declared.trim_start_matches("r#"), module.as_str());
        }
    }

    #[test]
    fn keywords_become_valid_identifiers() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("Self").to_string(), "Self_");
        assert_eq!(ident("size").to_string(), "size");
    }

    #[test]
    fn collisions_get_numbered() {
        let mut scope = Scope::with_reserved(&["conditions"]);
        assert_eq!(scope.unique("proxy_url"), "proxy_url");
        assert_eq!(scope.unique("proxy_url"), "proxy_url_2");
        assert_eq!(scope.unique("proxy_url"), "proxy_url_3");
        assert_eq!(scope.unique("conditions"), "conditions_2");
        assert_eq!(scope.unique("v1"), "v1");
        assert_eq!(scope.unique("v1"), "v1_2");
        let mut types = Scope::default();
        assert_eq!(types.unique_pascal("Drop"), "Drop");
        assert_eq!(types.unique_pascal("Drop"), "Drop2");
        assert_eq!(types.unique_pascal("V1"), "V1");
        assert_eq!(types.unique_pascal("V1"), "V1_2");
    }
}
