//! The CRD's CEL rules (`x-kubernetes-validations`) on the status and below, evaluated with
//! kube's CEL support (the kube-cel crate kube-core re-exports), feature `cel`.
//!
//! kube-cel applies the schema's defaults, binds `self` at each node that carries rules and
//! evaluates them as the API server does on a create (no old object). Transition rules (those
//! reading `oldSelf`) cannot be evaluated without the stored object: the schema walk reports
//! them at [`Level::Unchecked`], and kube-cel skips them. A rule kube-cel cannot evaluate (a
//! function or macro it lacks, an evaluation error, a rule that does not compile) is reported
//! at [`Level::Unchecked`] with kube-cel's reason, never passed.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use kube_cel::{ErrorKind, ValidationError, Validator};
use serde_json::Value;

use super::Found;
use super::rules::{self, Rule};

/// The server's words when schema errors keep it from evaluating CEL rules.
const NOT_EVALUATED: &str = "some validation rules were not checked because the object was \
                             invalid; correct the existing errors to complete validation";

/// After the schema walk found `found.0[before..]`: the CEL rules evaluated, unless a schema
/// error is one the API server holds as blocking CEL (apiextensions' `hasBlockingErr`: a wrong
/// type or format, a value outside the enum, a required field missing, a text, list or map
/// too long), in which case it skips them and says so, as the checker does.
pub(super) fn after_schema(
    found: &mut Found,
    before: usize,
    schema: &JSONSchemaProps,
    status: &Value,
) {
    const BLOCKING: [Rule; 7] = [
        rules::SCHEMA_TYPE,
        rules::SCHEMA_FORMAT,
        rules::SCHEMA_ENUM,
        rules::SCHEMA_REQUIRED,
        rules::SCHEMA_MAX_LENGTH,
        rules::SCHEMA_MAX_ITEMS,
        rules::SCHEMA_MAX_PROPERTIES,
    ];
    let blocking = found.0[before..]
        .iter()
        .any(|v| BLOCKING.iter().any(|rule| rule.id == v.rule));
    if !blocking {
        check_status(found, schema, status);
    } else if has_rules(schema) {
        found.report(
            rules::SCHEMA_CEL_NOT_EVALUATED,
            ".status",
            NOT_EVALUATED.to_owned(),
        );
    }
}

/// Evaluates the CEL rules of `schema` (the status property's schema) on `status`.
fn check_status(found: &mut Found, schema: &JSONSchemaProps, status: &Value) {
    // Most statuses state no CEL rule: no evaluator is built, nothing converted.
    if !has_rules(schema) {
        return;
    }
    let schema = match serde_json::to_value(schema) {
        Ok(schema) => schema,
        Err(error) => {
            found.report(
                rules::SCHEMA_CEL_UNCHECKED,
                ".status",
                format!("the schema could not be handed to the CEL evaluator: {error}"),
            );
            return;
        }
    };
    // One evaluator per thread: building one registers every Kubernetes CEL function.
    thread_local! {
        static VALIDATOR: Validator = Validator::new();
    }
    let Err(errors) = VALIDATOR.with(|validator| validator.validate(&schema, status, None)) else {
        return;
    };
    for error in errors.iter() {
        let path = status_path(&error.field_path);
        match error.kind {
            ErrorKind::ValidationFailure => {
                found.report(rules::SCHEMA_CEL, &path, failure_message(error, status));
            }
            _ => found.report(
                rules::SCHEMA_CEL_UNCHECKED,
                &path,
                format!("rule `{}` not evaluated: {}", error.rule, error.message),
            ),
        }
    }
}

/// Whether `schema` or a schema below it states a CEL rule.
fn has_rules(schema: &JSONSchemaProps) -> bool {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    };
    schema
        .x_kubernetes_validations
        .as_ref()
        .is_some_and(|rules| !rules.is_empty())
        || schema
            .properties
            .iter()
            .flatten()
            .any(|(_, p)| has_rules(p))
        || matches!(&schema.items, Some(JSONSchemaPropsOrArray::Schema(item)) if has_rules(item))
        || matches!(
            &schema.additional_properties,
            Some(JSONSchemaPropsOrBool::Schema(value)) if has_rules(value)
        )
}

/// kube-cel's path below the status (`conditions[0].reason`, or empty for the status
/// itself) as the checker writes paths: `.status.conditions[0].reason`.
fn status_path(below: &str) -> String {
    match below.chars().next() {
        None => ".status".to_owned(),
        Some('.' | '[') => format!(".status{below}"),
        Some(_) => format!(".status.{below}"),
    }
}

/// The server's words: the error type its `reason` names, the value's type, the message.
fn failure_message(error: &ValidationError, status: &Value) -> String {
    let value_type = value_at(status, &error.field_path).map_or("object", type_name);
    match error.reason.as_deref() {
        Some("FieldValueForbidden") => format!("Forbidden: {}", error.message),
        Some("FieldValueRequired") => format!("Required value: {}", error.message),
        Some("FieldValueDuplicate") => {
            format!("Duplicate value: {value_type:?}: {}", error.message)
        }
        _ => format!("Invalid value: {value_type:?}: {}", error.message),
    }
}

/// The value at kube-cel's path below the status, if the path is one of plain names and
/// indices.
fn value_at<'v>(status: &'v Value, below: &str) -> Option<&'v Value> {
    let mut value = status;
    for segment in below.split('.').filter(|s| !s.is_empty()) {
        let (name, indices) = segment.split_once('[').unwrap_or((segment, ""));
        if !name.is_empty() {
            value = value.get(name)?;
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            value = value.get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(value)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_the_status_join_as_the_checker_writes_them() {
        assert_eq!(status_path(""), ".status");
        assert_eq!(status_path("phase"), ".status.phase");
        assert_eq!(status_path("items[1].name"), ".status.items[1].name");
        assert_eq!(status_path("[0]"), ".status[0]");
        let status = serde_json::json!({"items": [{"name": "a"}, {"name": 2}]});
        assert_eq!(
            value_at(&status, "items[1].name"),
            Some(&serde_json::json!(2))
        );
        assert_eq!(value_at(&status, ""), Some(&status));
    }
}
