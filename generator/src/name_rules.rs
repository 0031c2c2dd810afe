//! The rules the names in a schema or CRD must follow, in one place: those the API server
//! sets for groups, versions and resource names, and the one Rust sets for type names.
//! Condition types and reasons follow the API server's rules for conditions,
//! `kondition_names::api_rules`, which the derive and the runtime's `kondition::validation`
//! check by too.

use crate::source::reader::Sink;
use crate::source::yaml::Pos;

/// A capital letter, then ASCII letters and digits: a kind, list kind or type name that can
/// become a Rust type name as it is.
pub fn is_pascal_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A DNS label as versions and resource names take it (RFC 1035): a lowercase letter, then
/// lowercase letters, digits and `-`, not ending in `-`, at most 63 characters.
pub fn is_dns_label(value: &str) -> bool {
    value.len() <= 63
        && value.starts_with(|c: char| c.is_ascii_lowercase())
        && !value.ends_with('-')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An API group: a lowercase DNS name (RFC 1123 labels joined by dots) with at least one
/// dot, at most 253 characters.
pub fn is_group(group: &str) -> bool {
    group.len() <= 253
        && group.contains('.')
        && group.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Reports `group` unless it is a lowercase DNS name with at least one dot.
pub(crate) fn check_group(group: &str, pos: Pos, sink: &Sink) {
    if !is_group(group) {
        sink.error(pos, format!("group `{group}` must be a lowercase DNS name with at least one dot, such as example.com"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        for good in ["Widget", "V1", "HTTPRoute", "A"] {
            assert!(is_pascal_case(good), "{good}");
        }
        for bad in ["", "widget", "1Widget", "My_Widget", "Wid-get", "Widgét"] {
            assert!(!is_pascal_case(bad), "{bad}");
        }
    }

    #[test]
    fn dns_labels() {
        for good in ["v1", "v1beta1", "widgets", "a-b", &"a".repeat(63)] {
            assert!(is_dns_label(good), "{good}");
        }
        for bad in ["", "V1", "1v", "-a", "a-", "a.b", "a_b", &"a".repeat(64)] {
            assert!(!is_dns_label(bad), "{bad}");
        }
    }

    #[test]
    fn groups() {
        for good in [
            "example.com",
            "monitoring.coreos.com",
            "1.example.com",
            "a-b.c",
        ] {
            assert!(is_group(good), "{good}");
        }
        let long = format!("{}.com", "a".repeat(250));
        for bad in [
            "",
            "example",
            "Example.com",
            "a..b",
            "-a.b",
            "a-.b",
            "a_b.c",
            &long,
        ] {
            assert!(!is_group(bad), "{bad}");
        }
    }
}
