//! The API server's rules for a condition's `type` and `reason`: metav1.Condition's patterns
//! and lengths, which every CRD's conditions schema carries and the server enforces.
//!
//! One implementation for every crate: the runtime checks a condition with them before it
//! is sent (`kondition::validation`), the derive while it reads `conditions(...)` (a value
//! the server would refuse is a compile error on its own span), the generator while it
//! reads a schema or a profile. The patterns are matched by hand: they are simple, a regex
//! engine would be the heaviest dependency of the runtime, and hand-written matchers can be
//! `const` (the loops below are `while` loops for that reason).

use crate::case::pascal_case;

/// The longest `type` the API server accepts, in characters.
pub const MAX_TYPE_LEN: usize = 316;
/// The longest `reason` the API server accepts, in characters.
pub const MAX_REASON_LEN: usize = 1024;

/// The `type` pattern of metav1.Condition.
pub const TYPE_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";
/// The `reason` pattern of metav1.Condition.
pub const REASON_PATTERN: &str = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$";

/// [`TYPE_PATTERN`] and [`MAX_TYPE_LEN`] in words, for a message to a person.
pub const TYPE_RULE: &str = "use letters, digits, '-', '_' and '.', starting and ending with a letter or digit, optionally after a lowercase DNS prefix and '/' (such as example.com/Ready), at most 316 characters";

/// [`REASON_PATTERN`] and [`MAX_REASON_LEN`] in words, for a message to a person.
pub const REASON_RULE: &str = "a letter, then letters, digits, '_', ',' or ':', not ending in ',' or ':', at most 1024 characters";

/// Whether `value` is a condition type the API server accepts (pattern and length).
pub const fn is_valid_type(value: &str) -> bool {
    value.len() <= MAX_TYPE_LEN && matches_type_pattern(value)
}

/// Whether `value` is a reason the API server accepts (pattern and length; never empty).
pub const fn is_valid_reason(value: &str) -> bool {
    value.len() <= MAX_REASON_LEN && matches_reason_pattern(value)
}

/// Whether `value` matches [`TYPE_PATTERN`], whatever its length: an optional DNS-subdomain
/// prefix and `/`, then a qualified name part.
pub const fn matches_type_pattern(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mut slash = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' {
            if slash.is_some() {
                return false;
            }
            slash = Some(i);
        }
        i += 1;
    }
    match slash {
        None => is_qualified_name_part(bytes, 0, bytes.len()),
        Some(slash) => {
            is_dns_subdomain(bytes, 0, slash)
                && is_qualified_name_part(bytes, slash + 1, bytes.len())
        }
    }
}

/// Whether `value` matches [`REASON_PATTERN`], whatever its length:
/// `[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?`.
pub const fn matches_reason_pattern(value: &str) -> bool {
    let bytes = value.as_bytes();
    let Some(&last) = bytes.last() else {
        return false;
    };
    if !bytes[0].is_ascii_alphabetic() || !(last.is_ascii_alphanumeric() || last == b'_') {
        return false;
    }
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b',' || b == b':') {
            return false;
        }
        i += 1;
    }
    true
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*` over `bytes[start..end]`.
const fn is_dns_subdomain(bytes: &[u8], start: usize, end: usize) -> bool {
    let mut label_start = start;
    let mut i = start;
    while i <= end {
        if i == end || bytes[i] == b'.' {
            if !is_dns_label(bytes, label_start, i) {
                return false;
            }
            label_start = i + 1;
        }
        i += 1;
    }
    true
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over `bytes[start..end]`.
const fn is_dns_label(bytes: &[u8], start: usize, end: usize) -> bool {
    const fn edge(b: u8) -> bool {
        b.is_ascii_lowercase() || b.is_ascii_digit()
    }
    if start >= end || !edge(bytes[start]) || !edge(bytes[end - 1]) {
        return false;
    }
    let mut i = start;
    while i < end {
        if !edge(bytes[i]) && bytes[i] != b'-' {
            return false;
        }
        i += 1;
    }
    true
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` over `bytes[start..end]`.
const fn is_qualified_name_part(bytes: &[u8], start: usize, end: usize) -> bool {
    if start >= end
        || !bytes[start].is_ascii_alphanumeric()
        || !bytes[end - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    let mut i = start;
    while i < end {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.') {
            return false;
        }
        i += 1;
    }
    true
}

/// A valid condition type that an invalid one most likely meant, as the derive's
/// `conditions(...)` would take it (an identifier, or a string): the words of each part
/// joined in PascalCase (`schema applied` gives `SchemaApplied`), a prefix before `/` in
/// lower case (`Example.com/Synced` gives `"example.com/Synced"`). `None` where that is not
/// valid either.
pub fn suggested_type(value: &str) -> Option<String> {
    let mend = |name: &str| {
        if is_qualified_name_part(name.as_bytes(), 0, name.len()) {
            name.to_owned()
        } else {
            pascal_case(name)
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

    #[test]
    fn types_follow_the_metav1_pattern() {
        for valid in [
            "Ready",
            "A",
            "9",
            "SubResourcesReady",
            "sub.resources_ready-2",
            "example.com/Ready",
            "a.b-c.d/Ready",
            "x/y",
        ] {
            assert!(is_valid_type(valid), "{valid} should be valid");
        }
        for invalid in [
            "",
            "-Ready",
            "Ready-",
            "Ready.",
            "_Ready",
            "Not Ready",
            "Example.com/Ready",
            "example..com/Ready",
            "-example.com/Ready",
            "example.com-/Ready",
            "/Ready",
            "example.com/",
            "a/b/c",
            "Réady",
        ] {
            assert!(!is_valid_type(invalid), "{invalid} should be invalid");
        }
        assert!(is_valid_type(&"a".repeat(MAX_TYPE_LEN)));
        assert!(!is_valid_type(&"a".repeat(MAX_TYPE_LEN + 1)));
        assert!(matches_type_pattern(&"a".repeat(MAX_TYPE_LEN + 1)));
    }

    #[test]
    fn reasons_follow_the_metav1_pattern() {
        for valid in ["Succeeded", "A", "a", "Error_1", "Foo,Bar:Baz", "x_"] {
            assert!(is_valid_reason(valid), "{valid} should be valid");
        }
        for invalid in [
            "", "1Error", "_Error", "Foo,", "Foo:", "Foo Bar", "Foo-Bar", "Foo.Bar",
        ] {
            assert!(!is_valid_reason(invalid), "{invalid} should be invalid");
        }
        assert!(is_valid_reason(&"a".repeat(MAX_REASON_LEN)));
        assert!(!is_valid_reason(&"a".repeat(MAX_REASON_LEN + 1)));
        assert!(matches_reason_pattern(&"a".repeat(MAX_REASON_LEN + 1)));
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
