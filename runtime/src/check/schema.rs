//! A status checked against the structural schema of its CRD's version, as the API server's
//! validation checks it before it stores a status (apiextensions-apiserver's
//! `pkg/apiserver/validation` on kube-openapi's `validate`, then the list-type rules of
//! `pkg/apiserver/schema/listtype`).
//!
//! Messages read as the server's field errors without the path, which the violation holds
//! apart: `Unsupported value: "Bad": supported values: "A", "B"`, `Required value`,
//! `Invalid value: 12: should be less than or equal to 10`, `Duplicate value: {"type":"Ready"}`.
//!
//! What the server drops rather than refuses (a field the schema does not name and does not
//! preserve, a `null` where the schema is not nullable and has no default) is reported at
//! [`Level::Dropped`]: the write succeeds, and the value is silently gone. A pattern the
//! `regex` crate cannot compile (Go's RE2 and Rust's regex agree on nearly everything) is
//! reported at [`Level::Unchecked`], never passed.
//!
//! Checked: `type` (and `nullable`, `x-kubernetes-int-or-string`,
//! `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-embedded-resource`), `required`,
//! `enum`, `pattern`, `minimum`/`maximum` and their `exclusive*`, `multipleOf`,
//! `minLength`/`maxLength` (in characters, as the server counts), `minItems`/`maxItems`,
//! `minProperties`/`maxProperties`, `format` (`date-time`, `date`, `byte`; the other formats
//! the server validates, `uri` to `duration`, are reported at [`Level::Unchecked`]; the
//! server ignores formats it does not know), `additionalProperties`, `x-kubernetes-list-type` `set`
//! and `map` (keys unique), and `allOf`/`anyOf`/`oneOf`/`not`. CEL rules
//! (`x-kubernetes-validations`) are check/cel.rs's (feature `cel`); this walk reports the ones
//! no offline check can evaluate (transition rules), and without the feature every rule, at
//! [`Level::Unchecked`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use k8s_openapi::jiff::civil::Date;
use regex::Regex;
use serde_json::Value;

use super::{Found, Level, rules};
use crate::wire::json::same;

/// Checks `status` (found at `path`, `.status`) against `schema`, the status property of a
/// version's `openAPIV3Schema`.
pub(super) fn check_status(found: &mut Found, schema: &JSONSchemaProps, status: &Value) {
    let mut walk = Walk { found };
    walk.value(schema, status, ".status", Place::Property, true);
}

/// Where a value sits: a `null` in an object's property is pruned when the schema is not
/// nullable (the server's `PruneNonNullableNullsWithoutDefaults`), elsewhere refused.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Property,
    Item,
}

struct Walk<'f> {
    found: &'f mut Found,
}

/// How many compiled patterns a thread keeps: the distinct patterns of the CRDs it checks
/// against; past this (a process checking ever new CRDs) the cache starts again.
const MAX_PATTERNS: usize = 1024;

thread_local! {
    /// Each pattern compiled once per thread, not once per check: compiling is most of what a
    /// check of a status with a few patterned fields costs. `None` if `regex` cannot compile
    /// it.
    static PATTERNS: RefCell<HashMap<String, Option<Regex>>> = RefCell::new(HashMap::new());
}

impl Walk<'_> {
    /// Checks `value` against `schema`. `structural` is false inside `allOf`/`anyOf`/`oneOf`
    /// /`not`, whose schemas only add value validations: unknown fields are the structural
    /// schema's business.
    fn value(
        &mut self,
        schema: &JSONSchemaProps,
        value: &Value,
        path: &str,
        place: Place,
        structural: bool,
    ) {
        if value.is_null() {
            self.null(schema, path, place, structural);
            return;
        }
        if !self.type_matches(schema, value, path) {
            return;
        }
        self.enumeration(schema, value, path);
        match value {
            Value::String(text) => self.string(schema, text, path),
            Value::Number(_) => self.number(schema, value, path),
            Value::Array(items) => self.array(schema, items, path, structural),
            Value::Object(map) => self.object(schema, map, path, structural),
            Value::Bool(_) | Value::Null => {}
        }
        self.combinations(schema, value, path);
        if structural {
            self.cel_rules(schema, path);
        }
    }

    /// The CEL rules at this node that the checker cannot evaluate: transition rules (they
    /// read `oldSelf`, the stored object an offline check does not have) and, without the
    /// `cel` feature, every rule. The others are check/cel.rs's.
    fn cel_rules(&mut self, schema: &JSONSchemaProps, path: &str) {
        for rule in schema.x_kubernetes_validations.iter().flatten() {
            if mentions_old_self(&rule.rule) && rule.optional_old_self != Some(true) {
                self.found.report(
                    rules::SCHEMA_CEL_TRANSITION,
                    path,
                    format!(
                        "transition rule `{}` not evaluated: it compares with the stored object",
                        rule.rule
                    ),
                );
            } else if cfg!(not(feature = "cel")) {
                self.found.report(
                    rules::SCHEMA_CEL_UNCHECKED,
                    path,
                    format!(
                        "rule `{}` not evaluated: kondition is built without its `cel` feature",
                        rule.rule
                    ),
                );
            }
        }
    }

    fn null(&mut self, schema: &JSONSchemaProps, path: &str, place: Place, structural: bool) {
        if schema.nullable == Some(true) || !structural {
            return;
        }
        if place == Place::Property {
            if schema.default.is_none() {
                self.found.report(
                    rules::SCHEMA_NULL,
                    path,
                    "null where the schema is not nullable: the server drops the field".into(),
                );
            }
            return;
        }
        if let Some(type_) = &schema.type_ {
            self.found.report(
                rules::SCHEMA_TYPE,
                path,
                format!("Invalid value: \"null\": must be of type {type_}: \"null\""),
            );
        }
    }

    /// Whether `value` has the schema's type; a violation if not.
    fn type_matches(&mut self, schema: &JSONSchemaProps, value: &Value, path: &str) -> bool {
        let found = json_type(value);
        if schema.x_kubernetes_int_or_string == Some(true) {
            if found == "integer" || found == "string" {
                return true;
            }
            self.found.report(
                rules::SCHEMA_TYPE,
                path,
                format!(
                    "Invalid value: {}: must be of type integer or string: {found:?}",
                    shown(value)
                ),
            );
            return false;
        }
        let Some(wanted) = schema.type_.as_deref().filter(|t| !t.is_empty()) else {
            return true;
        };
        // An integer is a number; a number with no fraction is an integer, as kube-openapi's
        // type validator takes it (JSON decoding may have made `2` a float).
        let matches = wanted == found
            || (wanted == "number" && found == "integer")
            || (wanted == "integer" && value.as_f64().is_some_and(|f| f.fract() == 0.0));
        if !matches {
            self.found.report(
                rules::SCHEMA_TYPE,
                path,
                format!(
                    "Invalid value: {}: must be of type {wanted}: {found:?}",
                    shown(value)
                ),
            );
        }
        matches
    }

    fn enumeration(&mut self, schema: &JSONSchemaProps, value: &Value, path: &str) {
        let Some(allowed) = &schema.enum_ else {
            return;
        };
        if allowed.iter().any(|a| same(&a.0, value)) {
            return;
        }
        let listed: Vec<String> = allowed
            .iter()
            .map(|a| match &a.0 {
                Value::String(text) => format!("{text:?}"),
                other => format!("{:?}", other.to_string()),
            })
            .collect();
        self.found.report(
            rules::SCHEMA_ENUM,
            path,
            format!(
                "Unsupported value: {}: supported values: {}",
                shown(value),
                listed.join(", ")
            ),
        );
    }

    fn string(&mut self, schema: &JSONSchemaProps, text: &str, path: &str) {
        // Characters, as kube-openapi counts (utf8.RuneCountInString), though its message
        // says bytes.
        let length = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
        if let Some(max) = schema.max_length
            && length > max
        {
            let unit = if max == 1 { "byte" } else { "bytes" };
            self.found.report(
                rules::SCHEMA_MAX_LENGTH,
                path,
                format!("Too long: may not be more than {max} {unit}"),
            );
        }
        if let Some(min) = schema.min_length
            && length < min
        {
            self.found.report(
                rules::SCHEMA_MIN_LENGTH,
                path,
                format!("Invalid value: {text:?}: should be at least {min} chars long"),
            );
        }
        if let Some(pattern) = &schema.pattern {
            match matches(pattern, text) {
                Some(true) => {}
                Some(false) => self.found.report(
                    rules::SCHEMA_PATTERN,
                    path,
                    format!("Invalid value: {text:?}: should match '{pattern}'"),
                ),
                None => self.found.report(
                    rules::SCHEMA_PATTERN_UNCHECKED,
                    path,
                    format!("pattern '{pattern}' is not one the regex crate can compile"),
                ),
            }
        }
        match schema
            .format
            .as_deref()
            .map(|format| (format, format_holds(format, text)))
        {
            Some((format, Some(false))) => self.found.report(
                rules::SCHEMA_FORMAT,
                path,
                format!("Invalid value: {text:?}: must be of type {format}: {text:?}"),
            ),
            Some((format, None)) => self.found.report(
                rules::SCHEMA_FORMAT_UNCHECKED,
                path,
                format!("format {format} is checked by the API server, not by this checker"),
            ),
            _ => {}
        }
    }

    fn number(&mut self, schema: &JSONSchemaProps, value: &Value, path: &str) {
        let Some(number) = value.as_f64() else {
            return;
        };
        let shown = shown(value);
        if let Some(max) = schema.maximum {
            if schema.exclusive_maximum == Some(true) {
                if number >= max {
                    let message = format!("Invalid value: {shown}: should be less than {max}");
                    self.found.report(rules::SCHEMA_MAXIMUM, path, message);
                }
            } else if number > max {
                let message =
                    format!("Invalid value: {shown}: should be less than or equal to {max}");
                self.found.report(rules::SCHEMA_MAXIMUM, path, message);
            }
        }
        if let Some(min) = schema.minimum {
            if schema.exclusive_minimum == Some(true) {
                if number <= min {
                    let message = format!("Invalid value: {shown}: should be greater than {min}");
                    self.found.report(rules::SCHEMA_MINIMUM, path, message);
                }
            } else if number < min {
                let message =
                    format!("Invalid value: {shown}: should be greater than or equal to {min}");
                self.found.report(rules::SCHEMA_MINIMUM, path, message);
            }
        }
        if let Some(factor) = schema.multiple_of
            && factor > 0.0
            && (number / factor).fract() != 0.0
        {
            self.found.report(
                rules::SCHEMA_MULTIPLE_OF,
                path,
                format!("Invalid value: {shown}: should be a multiple of {factor}"),
            );
        }
    }

    fn array(&mut self, schema: &JSONSchemaProps, items: &[Value], path: &str, structural: bool) {
        let count = i64::try_from(items.len()).unwrap_or(i64::MAX);
        if let Some(max) = schema.max_items
            && count > max
        {
            let unit = if max == 1 { "item" } else { "items" };
            self.found.report(
                rules::SCHEMA_MAX_ITEMS,
                path,
                format!("Too many: {count}: must have at most {max} {unit}"),
            );
        }
        if let Some(min) = schema.min_items
            && count < min
        {
            self.found.report(
                rules::SCHEMA_MIN_ITEMS,
                path,
                format!("Invalid value: {count}: should have at least {min} items"),
            );
        }
        if let Some(JSONSchemaPropsOrArray::Schema(item)) = &schema.items {
            for (index, value) in items.iter().enumerate() {
                self.value(
                    item,
                    value,
                    &format!("{path}[{index}]"),
                    Place::Item,
                    structural,
                );
            }
        }
        if structural {
            self.list_type(schema, items, path);
        }
    }

    /// `x-kubernetes-list-type`: a set's items, a map's keys unique. As the server, each
    /// repeated value is reported once, at its second appearance.
    fn list_type(&mut self, schema: &JSONSchemaProps, items: &[Value], path: &str) {
        let keys: Vec<Value> = match schema.x_kubernetes_list_type.as_deref() {
            Some("set") => items.to_vec(),
            Some("map") => {
                let key_fields = schema
                    .x_kubernetes_list_map_keys
                    .as_deref()
                    .unwrap_or_default();
                let mut keys = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    let key: serde_json::Map<String, Value> = match item {
                        Value::Object(map) => key_fields
                            .iter()
                            .filter_map(|k| map.get(k).map(|v| (k.clone(), v.clone())))
                            .collect(),
                        // An item that is not an object has the schema's type error; as a
                        // key it is unique (the server adds "must be an object for an array
                        // of list-type map" at the same place, which says nothing more).
                        Value::Null => serde_json::Map::new(),
                        _ => {
                            keys.push(Value::Array(vec![Value::from(index)]));
                            continue;
                        }
                    };
                    keys.push(Value::Object(key));
                }
                keys
            }
            _ => return,
        };
        let mut counted: Vec<(&Value, usize)> = Vec::new();
        for (index, key) in keys.iter().enumerate() {
            match counted.iter_mut().find(|(seen, _)| same(seen, key)) {
                Some((_, times)) => {
                    *times += 1;
                    if *times == 2 {
                        self.found.report(
                            rules::SCHEMA_LIST_UNIQUE,
                            &format!("{path}[{index}]"),
                            format!("Duplicate value: {key}"),
                        );
                    }
                }
                None => counted.push((key, 1)),
            }
        }
    }

    fn object(
        &mut self,
        schema: &JSONSchemaProps,
        map: &serde_json::Map<String, Value>,
        path: &str,
        structural: bool,
    ) {
        let count = i64::try_from(map.len()).unwrap_or(i64::MAX);
        if let Some(max) = schema.max_properties
            && count > max
        {
            let unit = if max == 1 { "item" } else { "items" };
            self.found.report(
                rules::SCHEMA_MAX_PROPERTIES,
                path,
                format!("Too many: {count}: must have at most {max} {unit}"),
            );
        }
        if let Some(min) = schema.min_properties
            && count < min
        {
            self.found.report(
                rules::SCHEMA_MIN_PROPERTIES,
                path,
                format!("Invalid value: {count}: should have at least {min} properties"),
            );
        }
        for required in schema.required.iter().flatten() {
            // A null the server prunes leaves the field missing.
            let pruned = map.get(required).is_some_and(|v| {
                v.is_null()
                    && schema
                        .properties
                        .as_ref()
                        .and_then(|p| p.get(required))
                        .is_some_and(|p| p.nullable != Some(true) && p.default.is_none())
            });
            if !map.contains_key(required) || pruned {
                self.found.report(
                    rules::SCHEMA_REQUIRED,
                    &child(path, required),
                    "Required value".into(),
                );
            }
        }
        let embedded = schema.x_kubernetes_embedded_resource == Some(true);
        // In key order, whether or not serde_json keeps the input's order (its
        // `preserve_order` feature, which another crate of a build may enable): the same
        // object gives the same report.
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_unstable_by_key(|(key, _)| *key);
        for (key, value) in entries {
            let at = child(path, key);
            if let Some(property) = schema.properties.as_ref().and_then(|p| p.get(key)) {
                self.value(property, value, &at, Place::Property, structural);
            } else if let Some(JSONSchemaPropsOrBool::Schema(additional)) =
                &schema.additional_properties
            {
                self.value(additional, value, &at, Place::Property, structural);
            } else if structural
                && schema.x_kubernetes_preserve_unknown_fields != Some(true)
                && schema.additional_properties.is_none()
                && !(embedded && matches!(key.as_str(), "apiVersion" | "kind" | "metadata"))
            {
                self.found.report(
                    rules::SCHEMA_UNKNOWN_FIELD,
                    &at,
                    format!(
                        "unknown field {key:?}: the schema does not name it, the server drops it"
                    ),
                );
            }
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`: value validations over the same value.
    fn combinations(&mut self, schema: &JSONSchemaProps, value: &Value, path: &str) {
        for part in schema.all_of.iter().flatten() {
            self.value(part, value, path, Place::Item, false);
        }
        if let Some(any) = &schema.any_of
            && !any.is_empty()
            && !any.iter().any(|s| self.passes(s, value, path))
        {
            self.found.report(
                rules::SCHEMA_ANY_OF,
                path,
                format!(
                    "Invalid value: {}: should match at least one schema in anyOf",
                    shown(value)
                ),
            );
        }
        if let Some(one) = &schema.one_of
            && !one.is_empty()
        {
            let passing = one.iter().filter(|s| self.passes(s, value, path)).count();
            if passing != 1 {
                self.found.report(
                    rules::SCHEMA_ONE_OF,
                    path,
                    format!(
                        "Invalid value: {}: must validate one and only one schema (oneOf); \
                         it validates {passing}",
                        shown(value)
                    ),
                );
            }
        }
        if let Some(not) = &schema.not
            && self.passes(not, value, path)
        {
            self.found.report(
                rules::SCHEMA_NOT,
                path,
                format!(
                    "Invalid value: {}: must not validate the schema (not)",
                    shown(value)
                ),
            );
        }
    }

    /// Whether `value` passes `schema`'s value validations, without reporting.
    fn passes(&mut self, schema: &JSONSchemaProps, value: &Value, path: &str) -> bool {
        let mut found = Found(Vec::new());
        let mut walk = Walk { found: &mut found };
        walk.value(schema, value, path, Place::Item, false);
        !found.0.iter().any(|v| v.level == Level::Fail)
    }
}

/// Whether the CEL expression `rule` names the identifier `oldSelf`.
fn mentions_old_self(rule: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    rule.match_indices("oldSelf").any(|(at, _)| {
        !rule[..at].ends_with(word) && !rule[at + "oldSelf".len()..].starts_with(word)
    })
}

/// `.status.foo`, or `.status["a.b"]` where the key is not a plain name.
fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{key:?}]")
    }
}

/// The JSON type's name as the schema spells it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as the server's messages show it: text quoted, others as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::Array(_) | Value::Object(_) => "<value omitted>".to_owned(),
        other => other.to_string(),
    }
}

/// Whether `text` matches `pattern`; None if the `regex` crate cannot compile it.
fn matches(pattern: &str, text: &str) -> Option<bool> {
    PATTERNS.with(|patterns| {
        let mut patterns = patterns.borrow_mut();
        if patterns.len() >= MAX_PATTERNS && !patterns.contains_key(pattern) {
            patterns.clear();
        }
        patterns
            .entry(pattern.to_owned())
            .or_insert_with(|| Regex::new(pattern).ok())
            .as_ref()
            .map(|regex| regex.is_match(text))
    })
}

/// Whether `text` is of `format`: None for a format the server validates and this checker
/// does not.
fn format_holds(format: &str, text: &str) -> Option<bool> {
    match format {
        "date-time" | "datetime" => Some(is_date_time(text)),
        "date" => Some(is_date(text)),
        "byte" => Some(is_base64(text)),
        // The other formats the API server validates (the list `JSONSchemaProps.format`
        // documents): their Go parsers (net/url, net/mail, net.ParseMAC, ...) are not
        // reproduced here, so a value of one is reported unchecked rather than passed.
        "bsonobjectid" | "uri" | "email" | "hostname" | "ipv4" | "ipv6" | "cidr" | "mac"
        | "uuid" | "uuid3" | "uuid4" | "uuid5" | "isbn" | "isbn10" | "isbn13" | "creditcard"
        | "ssn" | "hexcolor" | "rgbcolor" | "duration" => None,
        // Formats the server does not know (and `password`, any text) it ignores.
        _ => Some(true),
    }
}

/// `2006-01-02`, a day that exists.
fn is_date(text: &str) -> bool {
    text.len() == 10 && text.parse::<Date>().is_ok()
}

/// A date-time as kube-openapi's format check takes it: case-insensitive, the date, a `t`,
/// then hours, minutes, seconds (each within range), an optional fraction, and `z` or an
/// offset. Laxer than RFC 3339 in one place the server is too: any one character may stand
/// before the fraction's digits.
fn is_date_time(text: &str) -> bool {
    static TIME: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$").ok()
    });
    let lower = text.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    let Some(captures) = TIME.as_ref().and_then(|t| t.captures(time)) else {
        return false;
    };
    is_date(date) && &captures[1] <= "23" && &captures[2] <= "59" && &captures[3] <= "59"
}

/// Standard base64 with padding, as Go's `base64.StdEncoding` decodes it.
fn is_base64(text: &str) -> bool {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let body = text.trim_end_matches('=');
    bytes.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::super::{Checker, Level, Violation};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use serde_json::{Value, json};

    fn crd() -> CustomResourceDefinition {
        let status = json!({
            "type": "object",
            "required": ["phase"],
            "properties": {
                "phase": {"type": "string", "enum": ["Pending", "Ready"]},
                "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 4},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
                "ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": true},
                "port": {"x-kubernetes-int-or-string": true},
                "note": {"type": "string", "nullable": true},
                "at": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "maxItems": 2, "x-kubernetes-list-type": "set",
                         "items": {"type": "string"}},
                "label": {"type": "string", "maxLength": 4},
                "entries": {"type": "array", "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["type"],
                               "items": {"type": "object", "required": ["type"],
                                         "properties": {"type": {"type": "string"}}}},
                "labels": {"type": "object", "maxProperties": 1,
                           "additionalProperties": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "host": {"type": "string", "format": "hostname"},
                "secret": {"type": "string", "format": "password"},
                "shape": {"type": "string", "format": "triangle"},
                "code": {"type": "integer", "enum": [9_007_199_254_740_993_u64]},
            },
        });
        serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                              "schema": {"openAPIV3Schema": {
                                  "type": "object",
                                  "properties": {"status": status}}}}],
            },
        }))
        .expect("a CRD")
    }

    fn check(status: Value) -> Vec<Violation> {
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                            "metadata": {"name": "w"}, "status": status});
        Checker::new().crd(&crd()).check(&object)
    }

    fn lines(found: &[Violation]) -> Vec<String> {
        found.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_valid_status_passes() {
        let status = json!({
            "phase": "Ready", "name": "abc", "replicas": 10, "ratio": 0.5, "port": "http",
            "note": null, "at": "2024-01-02T03:04:05.678+01:00", "tags": ["a", "b"],
            "entries": [{"type": "A"}, {"type": "B"}], "labels": {"a": "b"},
            "extra": {"anything": [1, {"goes": true}]},
        });
        assert_eq!(check(status), []);
        assert_eq!(
            check(json!({"phase": "Pending", "replicas": 2.0, "port": 80})),
            []
        );
    }

    #[test]
    fn each_rule_is_found_at_its_path_with_the_servers_words() {
        let status = json!({
            "name": "Abcde", "replicas": 11, "ratio": 1, "port": true, "at": "yesterday",
            "tags": ["a", "a", "a"], "entries": [{"type": "A"}, {"type": "A"}, {}],
            "labels": {"a": "b", "c": 1}, "surplus": 1, "phase": "Gone",
        });
        assert_eq!(
            lines(&check(status)),
            [
                ".status.at: schema-format: Invalid value: \"yesterday\": must be of type \
                 date-time: \"yesterday\"",
                ".status.entries[2].type: schema-required: Required value",
                ".status.entries[1]: schema-list-unique: Duplicate value: {\"type\":\"A\"}",
                ".status.labels: schema-max-properties: Too many: 2: must have at most 1 item",
                ".status.labels.c: schema-type: Invalid value: 1: must be of type string: \
                 \"integer\"",
                ".status.name: schema-max-length: Too long: may not be more than 4 bytes",
                ".status.name: schema-pattern: Invalid value: \"Abcde\": should match '^[a-z]+$'",
                ".status.phase: schema-enum: Unsupported value: \"Gone\": supported values: \
                 \"Pending\", \"Ready\"",
                ".status.port: schema-type: Invalid value: true: must be of type integer or \
                 string: \"boolean\"",
                ".status.ratio: schema-maximum: Invalid value: 1: should be less than 1",
                ".status.replicas: schema-maximum: Invalid value: 11: should be less than or \
                 equal to 10",
                ".status.surplus: schema-unknown-field (dropped): unknown field \"surplus\": the \
                 schema does not name it, the server drops it",
                ".status.tags: schema-max-items: Too many: 3: must have at most 2 items",
                ".status.tags[1]: schema-list-unique: Duplicate value: \"a\"",
            ]
        );
    }

    /// Integers in an enum compare exactly, as the server reads them (`int64`): above 2^53
    /// two of them can round to the same `f64`, and 2^53 is not 2^53 + 1.
    #[test]
    fn enum_integers_compare_exactly() {
        assert_eq!(
            check(json!({"phase": "Ready", "code": 9_007_199_254_740_993_u64})),
            []
        );
        assert_eq!(
            lines(&check(
                json!({"phase": "Ready", "code": 9_007_199_254_740_992_u64})
            )),
            [
                ".status.code: schema-enum: Unsupported value: 9007199254740992: supported values: \
              \"9007199254740993\""
            ]
        );
    }

    /// A format the server validates and the checker does not is said so, whatever the
    /// value; `password` (any text) and a format the server does not know pass, as there.
    #[test]
    fn formats_left_to_the_server_are_reported_unchecked() {
        let found = check(json!({"phase": "Ready", "host": "web-1.example.com",
                                 "secret": "*", "shape": "square"}));
        assert_eq!(
            lines(&found),
            [
                ".status.host: schema-format-unchecked (unchecked): format hostname is checked by \
              the API server, not by this checker"
            ]
        );
        assert_eq!(found[0].level, Level::Unchecked);
    }

    #[test]
    fn lengths_count_characters_and_nulls_are_dropped_or_refused_by_place() {
        // Four characters, eight bytes: within maxLength 4, as the server counts.
        assert_eq!(check(json!({"phase": "Ready", "label": "ääää"})), []);
        assert_eq!(
            lines(&check(json!({"phase": "Ready", "label": "äääää"}))),
            [".status.label: schema-max-length: Too long: may not be more than 4 bytes"]
        );
        let found = check(json!({"phase": null, "tags": [null]}));
        let found: Vec<(&str, Level, &str)> = found
            .iter()
            .map(|v| (v.rule, v.level, v.path.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("schema-required", Level::Fail, ".status.phase"),
                ("schema-null", Level::Dropped, ".status.phase"),
                ("schema-type", Level::Fail, ".status.tags[0]"),
            ]
        );
    }

    #[test]
    fn the_version_is_picked_by_api_version_and_an_unknown_one_is_a_violation() {
        let object = json!({"apiVersion": "example.com/v2", "kind": "Widget",
                            "status": {"phase": "Ready"}});
        assert_eq!(
            lines(&Checker::new().crd(&crd()).check(&object)),
            [
                ".apiVersion: schema-version: \"example.com/v2\" is not a version of \
              widgets.example.com: v1"
            ]
        );
        let other = json!({"apiVersion": "other.io/v1", "kind": "Gadget", "status": {}});
        assert_eq!(
            lines(&Checker::new().crd(&crd()).check(&other)),
            [
                ".apiVersion: schema-version: no CRD given describes apiVersion \"other.io/v1\", \
              kind \"Gadget\""
            ]
        );
    }

    #[test]
    fn a_pattern_regex_cannot_compile_is_reported_unchecked() {
        let root = serde_json::from_value(json!({"type": "object", "properties": {"status": {
            "type": "object", "properties": {"x": {"type": "string", "pattern": "(?P<"}}}}}))
        .expect("a schema");
        let object = json!({"status": {"x": "y"}});
        let found = Checker::new().schema(&root).check(&object);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].rule, found[0].level),
            ("schema-pattern-unchecked", Level::Unchecked)
        );
    }

    #[test]
    fn cel_rules_are_evaluated_or_reported_unchecked() {
        let root = serde_json::from_value(json!({"type": "object", "properties": {"status": {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.phase != 'Ready' || has(self.name)",
             "message": "a Ready widget has a name"},
        ],
        "properties": {
            "phase": {"type": "string"},
            "name": {"type": "string"},
            "replicas": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "self >= oldSelf", "message": "never fewer"},
                {"rule": "self % 2 == 0", "message": "even", "reason": "FieldValueForbidden"},
            ]},
        }}}}))
        .expect("a schema");
        let check = |status: Value| {
            lines(
                &Checker::new()
                    .schema(&root)
                    .check(&json!({"status": status})),
            )
        };
        let transition = ".status.replicas: schema-cel-transition (unchecked): transition rule \
                          `self >= oldSelf` not evaluated: it compares with the stored object";
        if cfg!(feature = "cel") {
            assert_eq!(
                check(json!({"phase": "Ready", "name": "w", "replicas": 2})),
                [transition]
            );
            assert_eq!(
                check(json!({"phase": "Ready", "replicas": 3})),
                [
                    transition,
                    ".status: schema-cel: Invalid value: \"object\": a Ready widget has a name",
                    ".status.replicas: schema-cel: Forbidden: even",
                ]
            );
            // A wrong type blocks the CEL rules, at the server as here.
            assert_eq!(
                check(json!({"phase": "Ready", "replicas": "3"})),
                [
                    ".status.replicas: schema-type: Invalid value: \"3\": must be of type \
                     integer: \"string\"",
                    ".status: schema-cel-not-evaluated (unchecked): some validation rules were \
                     not checked because the object was invalid; correct the existing errors to \
                     complete validation",
                ]
            );
        } else {
            assert_eq!(
                check(json!({"phase": "Ready", "replicas": 3})),
                [
                    transition,
                    ".status.replicas: schema-cel-unchecked (unchecked): rule `self % 2 == 0` not \
                     evaluated: kondition is built without its `cel` feature",
                    ".status: schema-cel-unchecked (unchecked): rule `self.phase != 'Ready' || \
                     has(self.name)` not evaluated: kondition is built without its `cel` feature",
                ]
            );
        }
        assert!(super::mentions_old_self("oldSelf.x == self.x"));
        assert!(!super::mentions_old_self("self.oldSelfish == 1"));
    }

    #[test]
    fn date_times_as_kube_openapi_takes_them() {
        for good in ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.5+01:00"] {
            assert!(super::is_date_time(good), "{good}");
        }
        for bad in [
            "2024-01-02",
            "2024-02-30T00:00:00Z",
            "2024-01-02T24:00:00Z",
            "x",
        ] {
            assert!(!super::is_date_time(bad), "{bad}");
        }
    }
}
