//! serde's `rename_all` rules, as serde_derive applies them to a field.

/// A `#[serde(rename_all = "...")]` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`
    Lower,
    /// `UPPERCASE`
    Upper,
    /// `PascalCase`
    Pascal,
    /// `camelCase`
    Camel,
    /// `snake_case`
    Snake,
    /// `SCREAMING_SNAKE_CASE`
    ScreamingSnake,
    /// `kebab-case`
    Kebab,
    /// `SCREAMING-KEBAB-CASE`
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

    /// How serde spells the rule.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lower => "lowercase",
            Self::Upper => "UPPERCASE",
            Self::Pascal => "PascalCase",
            Self::Camel => "camelCase",
            Self::Snake => "snake_case",
            Self::ScreamingSnake => "SCREAMING_SNAKE_CASE",
            Self::Kebab => "kebab-case",
            Self::ScreamingKebab => "SCREAMING-KEBAB-CASE",
        }
    }

    /// The wire name serde gives a field called `field` (its identifier without `r#`):
    /// serde_derive's own rule. For camelCase and PascalCase every `_` is dropped and the
    /// letter after it upper-cased; camelCase then lower-cases the first letter.
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

/// serde's PascalCase of a snake_case name: each `_` starts a capitalized word.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_as_serde_derive_spells_it() {
        for (field, wire) in [
            ("observed_generation", "observedGeneration"),
            ("pod_i_ps", "podIPs"),
            ("self_", "self"),
            ("i_pv6", "iPv6"),
            ("v1beta1", "v1beta1"),
            ("a__b", "aB"),
            ("_x", "x"),
            ("x_", "x"),
            ("_", ""),
        ] {
            assert_eq!(RenameRule::Camel.apply(field), wire, "{field}");
        }
        assert_eq!(RenameRule::ScreamingKebab.apply("a_b"), "A-B");
        for rule in [
            RenameRule::Camel,
            RenameRule::ScreamingSnake,
            RenameRule::Kebab,
        ] {
            assert_eq!(RenameRule::parse(rule.name()), Some(rule));
        }
    }
}
