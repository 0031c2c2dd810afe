//! Condition declarations as profiles and schema files both write them: a condition type
//! with its polarity, documentation and reasons, each reason a name or `{name, severity,
//! docs}`. One reader for both, so a profile's conditions and a schema's own are checked
//! with the same rules and the same words.

use kondition::{Polarity, Severity};
use kondition_names::api_rules::{is_valid_reason, is_valid_type};

use crate::model::{ConditionDef, ReasonDef};
use crate::source::reader::{MapReader, Sink};
use crate::source::yaml::Node;

const CONDITION_KEYS: &[&str] = &["type", "polarity", "reasons", "docs"];
const REASON_KEYS: &[&str] = &["name", "severity", "docs"];

/// Reads a condition declaration (profiles and schemas share the form); `reasons` items are
/// names or `{name, severity, docs}`.
pub fn read_condition(node: &Node, sink: &Sink) -> Option<ConditionDef> {
    let map = MapReader::new(node, "a condition", CONDITION_KEYS, sink);
    let (type_, pos) = map.required_string("type")?;
    if !is_valid_type(&type_) {
        sink.error(
            pos,
            format!(
                "condition type `{type_}` would be rejected by the API server: it must match {}",
                kondition_names::api_rules::TYPE_PATTERN
            ),
        );
    }
    let polarity = map
        .get("polarity")
        .and_then(|p| parse_polarity(p, sink))
        .unwrap_or_default();
    let reasons = map
        .list("reasons")
        .iter()
        .filter_map(|reason| read_reason(reason, sink))
        .collect();
    Some(ConditionDef {
        type_,
        polarity,
        reasons,
        docs: map.string("docs"),
    })
}

/// Reads a reason: a name, or `{name, severity, docs}`.
pub fn read_reason(node: &Node, sink: &Sink) -> Option<ReasonDef> {
    let (name, pos, severity, docs) = match node.as_str() {
        Some(name) => (name.to_owned(), node.pos, Severity::None, None),
        None => {
            let map = MapReader::new(node, "a reason", REASON_KEYS, sink);
            let (name, pos) = map.required_string("name")?;
            let severity = map
                .get("severity")
                .and_then(|s| parse_severity(s, sink))
                .unwrap_or_default();
            (name, pos, severity, map.string("docs"))
        }
    };
    if !is_valid_reason(&name) {
        sink.error(
            pos,
            format!(
                "reason `{name}` would be rejected by the API server: it must match {}",
                kondition_names::api_rules::REASON_PATTERN
            ),
        );
    }
    Some(ReasonDef {
        name,
        severity,
        docs,
    })
}

/// `Positive` or `Negative`.
fn parse_polarity(node: &Node, sink: &Sink) -> Option<Polarity> {
    match node.as_str() {
        Some("Positive") => Some(Polarity::Positive),
        Some("Negative") => Some(Polarity::Negative),
        _ => {
            sink.error(node.pos, "`polarity` must be Positive or Negative");
            None
        }
    }
}

/// `Error`, `Warning`, `Info` or `None`.
fn parse_severity(node: &Node, sink: &Sink) -> Option<Severity> {
    match node.as_str() {
        Some("Error") => Some(Severity::Error),
        Some("Warning") => Some(Severity::Warning),
        Some("Info") => Some(Severity::Info),
        Some("None") => Some(Severity::None),
        _ => {
            sink.error(node.pos, "`severity` must be Error, Warning, Info or None");
            None
        }
    }
}
