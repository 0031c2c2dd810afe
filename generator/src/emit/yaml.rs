//! JSON values as block-style YAML, for CRD manifests and schema files people read.
//!
//! Strings are written plain only when YAML would read them back as the same string (not a
//! number, boolean or null, no indicator characters); multi-line text becomes a literal
//! block; anything else is double-quoted with JSON's escapes, which YAML reads the same way.

use serde_json::Value as Json;

/// `value` as a YAML document (no `---`), ending in a newline.
pub fn to_yaml(value: &Json) -> String {
    let mut out = String::new();
    match value {
        Json::Object(map) if !map.is_empty() => write_map(&mut out, map, 0),
        Json::Array(items) if !items.is_empty() => write_list(&mut out, items, 0),
        scalar => {
            write_scalar(&mut out, scalar, 0);
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_map(out: &mut String, map: &serde_json::Map<String, Json>, level: usize) {
    for (i, (key, value)) in map.iter().enumerate() {
        // The first entry of a map inside a list continues the `- ` line.
        if i > 0 || !out.ends_with("- ") {
            indent(out, level);
        }
        write_string(out, key, level, true);
        out.push(':');
        write_value(out, value, level);
    }
}

fn write_list(out: &mut String, items: &[Json], level: usize) {
    for item in items {
        indent(out, level);
        out.push_str("- ");
        match item {
            Json::Object(map) if !map.is_empty() => write_map(out, map, level + 2),
            Json::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_list(out, inner, level + 2);
            }
            scalar => {
                write_scalar(out, scalar, level + 2);
                out.push('\n');
            }
        }
    }
}

/// A mapping value after `key:`.
fn write_value(out: &mut String, value: &Json, level: usize) {
    match value {
        Json::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(out, map, level + 2);
        }
        Json::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_list(out, items, level);
        }
        scalar => {
            out.push(' ');
            write_scalar(out, scalar, level + 2);
            out.push('\n');
        }
    }
}

fn write_scalar(out: &mut String, value: &Json, level: usize) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&n.to_string()),
        Json::String(s) => write_string(out, s, level, false),
        Json::Object(_) => out.push_str("{}"),
        Json::Array(_) => out.push_str("[]"),
    }
}

fn write_string(out: &mut String, s: &str, level: usize, key: bool) {
    if is_plain_safe(s) {
        out.push_str(s);
    } else if !key && fits_literal_block(s) {
        let trailing = s.len() - s.trim_end_matches('\n').len();
        let chomp = match trailing {
            0 => "-",
            1 => "",
            _ => "+",
        };
        // YAML takes a block's indentation from its first line that is not empty: if that
        // one starts with a space, the indentation must be stated.
        let first_line = s.split('\n').find(|line| !line.is_empty());
        let indicator = if first_line.is_some_and(|line| line.starts_with(' ')) {
            "2"
        } else {
            ""
        };
        out.push('|');
        out.push_str(indicator);
        out.push_str(chomp);
        let body = if trailing > 1 {
            &s[..s.len() - 1]
        } else {
            s.trim_end_matches('\n')
        };
        for line in body.split('\n') {
            out.push('\n');
            if !line.is_empty() {
                indent(out, level);
                out.push_str(line);
            }
        }
    } else {
        out.push_str(&Json::String(s.to_owned()).to_string());
    }
}

/// Whether `s` reads back as itself when written plain.
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}'))
    {
        return false;
    }
    // Words and numbers YAML 1.1 or 1.2 would read as something else.
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off" | "y" | "n"
    ) {
        return false;
    }
    // Anything that might be a number (`5`, `1.0`, `0x1F`, `+1`, `.inf`) is quoted.
    !(first.is_ascii_digit() || first == '+' || first == '.')
}

/// Whether `s` can be a literal block: several lines, nothing YAML would fold or refuse.
fn fits_literal_block(s: &str) -> bool {
    s.contains('\n')
        && !s.trim_end_matches('\n').is_empty()
        && s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control())
        && !s
            .chars()
            .any(|c| matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}' | '\r'))
        && s.split('\n')
            .all(|line| line.trim_end() == line || !line.trim().is_empty())
        && !s.split('\n').any(|line| line.starts_with('\t'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::yaml;
    use proptest::prelude::*;
    use serde_json::json;

    fn round_trip(value: &Json) -> Json {
        let text = to_yaml(value);
        let documents = yaml::parse(&text).unwrap_or_else(|e| panic!("{e:?} in\n{text}"));
        documents
            .first()
            .map(yaml::Node::to_json)
            .unwrap_or(Json::Null)
    }

    #[test]
    fn a_crd_shaped_value_reads_back_the_same() {
        let value = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "spec": {
                "versions": [
                    {"name": "v1", "served": true, "additionalPrinterColumns": [], "schema": {}},
                    {"name": "1.0", "enum": ["=~", "!=", "", "drop", "Drop", "*", "a b", "yes", "null", "0x1F", "1e3", "- x", "#", "a: b"]}
                ],
                "description": "Line one.\nLine two:\n\n  indented\n",
                "leading": "  starts with spaces\nand more",
                "trailing": "ends with newlines\n\n\n",
                "nested": [[1, 2.5], [], {}],
                "maximum": 65535,
                "default": null,
                "weird key: yes": "\u{1}control",
            }
        });
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn plain_where_it_reads_back() {
        assert_eq!(
            to_yaml(&json!({"name": "v1", "rule": "self.x == 'a'", "x": "5", "e": "", "n": "no"})),
            "name: v1\nrule: self.x == 'a'\nx: \"5\"\ne: \"\"\n\"n\": \"no\"\n"
        );
        assert_eq!(
            to_yaml(&json!({"list": [{"a": 1, "b": [true]}]})),
            "list:\n- a: 1\n  b:\n  - true\n"
        );
        assert_eq!(to_yaml(&json!({"d": "one\ntwo"})), "d: |-\n  one\n  two\n");
    }

    #[test]
    fn a_block_whose_first_text_is_indented_says_its_indentation() {
        // Found by `any_string_reads_back`: the empty first line hid the leading space.
        for s in ["\n !", "\n\n  x\ny", " a\nb"] {
            let value = json!({ "k": s, "l": [s] });
            assert_eq!(round_trip(&value), value, "{s:?}");
        }
        assert_eq!(to_yaml(&json!({"d": "\n !"})), "d: |2-\n\n   !\n");
    }

    proptest! {
        #[test]
        fn any_string_reads_back(s in "\\PC*|[ -~\\n\\t]{0,40}") {
            let value = json!({"k": s.clone(), "l": [s.clone()], s.clone(): 1});
            prop_assert_eq!(round_trip(&value), value);
        }
    }
}
