//! The CRD check through the API's own types (k8s-openapi's), read from the YAML nodes a
//! schema at a time.
//!
//! Reading a version whole into `CustomResourceDefinitionVersion` builds its typed schema
//! tree: a `JSONSchemaProps` of a kilobyte for every schema node, in maps of them. On a large
//! CRD that was a fifth of generating it and half its memory (issue 28). Here each schema is
//! read with the schemas in it read as null (every field that holds schemas is optional),
//! then each of those, in the mapping's order, the same way; nothing typed outlives its
//! read.
//!
//! The result is the whole read's: a value whose read fails has every earlier value read
//! successfully, so the first failure met here, in the order the whole read meets values, is
//! the whole read's. When a schema's own read fails, the whole read of that schema gives the
//! error, word for word.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceValidation,
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, JSONSchemaPropsOrStringArray,
};
use k8s_openapi::serde::Deserialize;
use k8s_openapi::serde::de::DeserializeOwned;
use std::collections::BTreeMap;

use crate::source::deserialize::{Error, NodeDeserializer, object_entries};
use crate::source::yaml::{Node, Pos, Value};

/// The keys of a `JSONSchemaProps` whose values hold schemas.
const SCHEMA_KEYS: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "definitions",
    "dependencies",
    "items",
    "not",
    "oneOf",
    "patternProperties",
    "properties",
];

/// Reads `spec` into the API's own types: each version on its own, at its place, then the
/// rest with an empty list of versions. They are read from the YAML nodes, as they would be
/// from the spec's JSON value.
pub(super) fn check_with_api_types(
    spec: &Node,
    version_nodes: &[Node],
) -> Result<(), (Pos, String)> {
    check_reading_versions(spec, version_nodes, version)
}

/// [`check_with_api_types`], each version read by `read_version`: a schema at a time here,
/// whole in the tests that compare the two.
fn check_reading_versions(
    spec: &Node,
    version_nodes: &[Node],
    read_version: impl Fn(&Node) -> Result<(), Error>,
) -> Result<(), (Pos, String)> {
    for node in version_nodes {
        if let Err(error) = read_version(node) {
            let name = node.get("name").and_then(Node::as_str).unwrap_or_default();
            let message = format!(
                "version `{name}` is not a valid CustomResourceDefinition version: {error}"
            );
            return Err((node.pos, message));
        }
    }
    // The versions were read one by one above: the spec is read with an empty list of them.
    CustomResourceDefinitionSpec::deserialize(NodeDeserializer::with_empty(spec, "versions"))
        .map(drop)
        .map_err(|error| {
            let message = format!("this is not a valid CustomResourceDefinition spec: {error}");
            (spec.pos, message)
        })
}

/// A `CustomResourceDefinitionVersion`, its `schema` read apart.
fn version(node: &Node) -> Result<(), Error> {
    in_pieces::<CustomResourceDefinitionVersion>(node, &["schema"], |_, validation| {
        optional(validation, |validation| {
            in_pieces::<CustomResourceValidation>(validation, &["openAPIV3Schema"], |_, root| {
                optional(root, schema)
            })
        })
    })
}

/// A `JSONSchemaProps`, the schemas in it read apart.
fn schema(node: &Node) -> Result<(), Error> {
    in_pieces::<JSONSchemaProps>(node, SCHEMA_KEYS, |key, value| {
        optional(value, |value| match (key, &value.value) {
            ("properties" | "patternProperties" | "definitions", Value::Map(entries)) => {
                each_value(entries, schema)
            }
            ("allOf" | "anyOf" | "oneOf", Value::Seq(items)) => items.iter().try_for_each(schema),
            ("items", Value::Map(_)) | ("not", Value::Map(_)) => schema(value),
            ("items", Value::Seq(items)) => items.iter().try_for_each(schema),
            ("additionalProperties" | "additionalItems", Value::Map(_)) => schema(value),
            ("dependencies", Value::Map(entries)) => {
                each_value(entries, |dependency| match dependency.value {
                    Value::Map(_) => schema(dependency),
                    _ => whole::<JSONSchemaPropsOrStringArray>(dependency),
                })
            }
            // Anything else is read whole: it holds no schema to read apart (a wrong type
            // fails at once, a `true` of additionalProperties reads).
            ("properties" | "patternProperties" | "definitions", _) => {
                whole::<BTreeMap<String, JSONSchemaProps>>(value)
            }
            ("allOf" | "anyOf" | "oneOf", _) => whole::<Vec<JSONSchemaProps>>(value),
            ("items", _) => whole::<JSONSchemaPropsOrArray>(value),
            ("not", _) => whole::<JSONSchemaProps>(value),
            ("additionalProperties" | "additionalItems", _) => {
                whole::<JSONSchemaPropsOrBool>(value)
            }
            ("dependencies", _) => whole::<BTreeMap<String, JSONSchemaPropsOrStringArray>>(value),
            _ => unreachable!("`{key}` is not one of SCHEMA_KEYS"),
        })
    })
}

/// Reads `node` as `T` with the values under `hidden` read as null, then each of those
/// values, in the mapping's order, with `piece`. When the first read fails, `node` is read
/// whole for the error.
fn in_pieces<T: DeserializeOwned>(
    node: &Node,
    hidden: &'static [&'static str],
    piece: impl Fn(&str, &Node) -> Result<(), Error>,
) -> Result<(), Error> {
    let Value::Map(entries) = &node.value else {
        return whole::<T>(node);
    };
    if T::deserialize(NodeDeserializer::with_nulls(node, hidden)).is_err() {
        return whole::<T>(node);
    }
    object_entries(entries)
        .filter(|(key, _)| hidden.contains(&key.as_str()))
        .try_for_each(|(key, value)| piece(key.as_str(), value))
}

/// An optional value: none when it reads as none (null, or a float JSON cannot hold), else
/// `read`.
fn optional(node: &Node, read: impl Fn(&Node) -> Result<(), Error>) -> Result<(), Error> {
    match node.value {
        Value::Null => Ok(()),
        Value::Float(f) if !f.is_finite() => Ok(()),
        _ => read(node),
    }
}

/// Every value of a mapping, in its order as a JSON object holds it, with `read`.
fn each_value(
    entries: &[(Node, Node)],
    read: impl Fn(&Node) -> Result<(), Error>,
) -> Result<(), Error> {
    object_entries(entries).try_for_each(|(_, value)| read(value))
}

/// Reads `node` as `T`, whole.
fn whole<T: DeserializeOwned>(node: &Node) -> Result<(), Error> {
    T::deserialize(NodeDeserializer::new(node)).map(drop)
}

#[cfg(test)]
mod tests;
