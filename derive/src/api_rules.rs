//! The API server's rules for the texts a declaration names: condition types (from
//! `conditions(...)`) and the success reason, checked while the derive reads its input, so
//! that a value the server would refuse is a compile error on its own span.
//!
//! They are metav1.Condition's patterns and lengths, as `kondition::validation` checks them
//! at run time; a unit test holds the two to the same answers.

/// The longest condition type the API server accepts.
const MAX_TYPE_LEN: usize = 316;
/// The longest reason the API server accepts.
const MAX_REASON_LEN: usize = 1024;

/// What a condition type must be, for error messages.
pub const TYPE_RULE: &str = "use letters, digits, '-', '_' and '.', starting and ending with a letter or digit, optionally after a lowercase DNS prefix and '/' (such as example.com/Ready), at most 316 characters";

/// What a reason must be, for error messages.
pub const REASON_RULE: &str = "a letter, then letters, digits, '_', ',' or ':', not ending in ',' or ':', at most 1024 characters";

/// Whether the API server accepts `value` as a condition type:
/// `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
/// at most 316 characters.
pub fn is_valid_type(value: &str) -> bool {
    if value.len() > MAX_TYPE_LEN {
        return false;
    }
    match value.split_once('/') {
        None => is_name_part(value),
        Some((prefix, name)) => prefix.split('.').all(is_dns_label) && is_name_part(name),
    }
}

/// Whether the API server accepts `value` as a reason:
/// `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`, at most 1024 characters.
pub fn is_valid_reason(value: &str) -> bool {
    let bytes = value.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    bytes.len() <= MAX_REASON_LEN
        && first.is_ascii_alphabetic()
        && (last.is_ascii_alphanumeric() || *last == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b':'))
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns_label(label: &str) -> bool {
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = label.as_bytes();
    bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|b| edge(b) || *b == b'-')
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_name_part(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A valid condition type that an invalid one most likely meant, as `conditions(...)` would
/// take it (an identifier, or a string): the words of each part joined in PascalCase
/// (`schema applied` gives `SchemaApplied`), a prefix before `/` in lower case
/// (`Example.com/Synced` gives `"example.com/Synced"`). `None` where that is not valid
/// either.
pub fn suggested_type(value: &str) -> Option<String> {
    let mend = |name: &str| {
        if is_name_part(name) {
            name.to_owned()
        } else {
            kondition_names::pascal_case(name)
        }
    };
    let candidate = match value.split_once('/') {
        None => mend(value),
        Some((prefix, name)) if !name.contains('/') => {
            format!("{}/{}", prefix.to_ascii_lowercase(), mend(name))
        }
        Some(_) => return None,
    };
    if !is_valid_type(&candidate) {
        return None;
    }
    let identifier = candidate.starts_with(|c: char| c.is_ascii_alphabetic())
        && candidate
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    Some(if identifier {
        format!("`{candidate}`")
    } else {
        format!("`{candidate:?}`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts built from the characters and edges the patterns care about.
    fn samples() -> Vec<String> {
        let alphabet = [
            "a", "Z", "0", "-", "_", ".", "/", ",", ":", " ", "é", "x.y", "a/b",
        ];
        let mut texts = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for text in &frontier {
                for piece in alphabet {
                    next.push(format!("{text}{piece}"));
                }
            }
            texts.extend(next.iter().cloned());
            frontier = next;
        }
        for len in [315, 316, 317, 1023, 1024, 1025] {
            texts.push("a".repeat(len));
            texts.push(format!(
                "example.com/{}",
                "a".repeat(len.saturating_sub(12))
            ));
        }
        texts
    }

    /// The derive refuses exactly what the runtime's validator refuses.
    #[test]
    fn the_rules_agree_with_the_runtime() {
        let mut checked = 0;
        for text in samples() {
            assert_eq!(
                is_valid_type(&text),
                kondition::validation::is_valid_type(&text),
                "type {text:?}"
            );
            assert_eq!(
                is_valid_reason(&text),
                kondition::validation::is_valid_reason(&text),
                "reason {text:?}"
            );
            checked += 1;
        }
        assert!(checked > 30_000, "{checked}");
    }

    #[test]
    fn invalid_types_get_the_valid_type_they_most_likely_meant() {
        for (written, suggested) in [
            ("schema applied", Some("`SchemaApplied`")),
            ("not-ready yet", Some("`NotReadyYet`")),
            ("Example.com/Synced", Some("`\"example.com/Synced\"`")),
            (
                "example.com/all synced",
                Some("`\"example.com/AllSynced\"`"),
            ),
            ("Ready!", Some("`Ready`")),
            ("a/b/c", None),
            ("!!!", None),
        ] {
            assert_eq!(suggested_type(written).as_deref(), suggested, "{written}");
        }
    }
}
