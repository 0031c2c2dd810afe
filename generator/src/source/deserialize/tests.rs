//! Every type reads from a node exactly what it reads from the node's JSON value, and fails
//! with the same message: on written cases, on random trees and on every CRD of the corpus.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, JSONSchemaProps,
};
use proptest::prelude::*;
use serde::Deserialize;

use super::NodeDeserializer;
use crate::source::yaml::{self, Node, Pos, Value};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

/// A test enum of every variant form, as serde derives it.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
enum Shape {
    Unit,
    Newtype(i32),
    Tuple(u8, String),
    Struct { side: f64 },
}

/// A test struct with a flattened map and an optional field, as serde derives it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Record {
    name: String,
    max_count: Option<u32>,
    #[serde(default)]
    shape: Option<Shape>,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

/// What `T` reads from `node` both ways, as text: the value's Debug or the error's message.
fn both<T: for<'de> Deserialize<'de> + Debug>(node: &Node) -> (String, String) {
    let show = |result: Result<T, String>| match result {
        Ok(value) => format!("ok: {value:?}"),
        Err(message) => format!("error: {message}"),
    };
    let direct = show(T::deserialize(NodeDeserializer::new(node)).map_err(|e| e.to_string()));
    let through_json = show(T::deserialize(node.to_json()).map_err(|e| e.to_string()));
    (direct, through_json)
}

fn parse_one(text: &str) -> Node {
    let mut documents = yaml::parse(text).expect("YAML");
    assert_eq!(documents.len(), 1, "{text}");
    documents.remove(0)
}

/// Reads `text` as each type both ways and asserts they agree; returns the direct results.
fn agree(text: &str) -> Vec<String> {
    let node = parse_one(text);
    let results = [
        both::<serde_json::Value>(&node),
        both::<JSONSchemaProps>(&node),
        both::<CustomResourceDefinitionVersion>(&node),
        both::<Record>(&node),
        both::<Shape>(&node),
        both::<Option<Vec<i64>>>(&node),
        both::<(u8, String)>(&node),
        both::<BTreeMap<String, f32>>(&node),
        both::<bool>(&node),
        both::<u16>(&node),
        both::<()>(&node),
    ];
    for (direct, through_json) in &results {
        assert_eq!(direct, through_json, "{text}");
    }
    results.into_iter().map(|(direct, _)| direct).collect()
}

#[test]
fn written_cases_read_as_their_json_values_do() {
    let cases = [
        "null",
        "true",
        "0",
        "65535",
        "65536",
        "-1",
        "-9223372036854775808",
        "1.5",
        ".nan",
        "-.inf",
        "text",
        "'quoted 1'",
        "[]",
        "[1, 2]",
        "[1, two, 3]",
        "[7, seven]",
        "[7, seven, extra]",
        "{}",
        "Unit",
        "Newtype: 5",
        "Newtype: five",
        "Tuple: [1, x]",
        "Tuple: 1",
        "Struct: {side: 2.5}",
        "Struct: [2.5]",
        "Unit: null",
        "Unit: 1",
        "{Unit: null, Newtype: 1}",
        "Missing",
        "{name: a, maxCount: 3, other: [1, {x: y}], shape: Unit}",
        "{name: a, maxCount: -3}",
        "{name: a, maxCount: null}",
        "{maxCount: 3}",
        "{name: a, name2: b, 5: c, true: d, null: e, 1.5: f}",
        // Keys that read alike as text: a JSON object keeps the last value at the first place.
        "{1: first, '1': second, x: 1}",
        "{'true': 1, true: 2}",
        "{name: v1, served: true, storage: false}",
        "{name: v1, served: yes, storage: false}",
        "{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, properties: {a: {type: string, default: 5, enum: [a, 1, null]}}}}}",
        "{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {items: [{type: string}], additionalProperties: false, x-kubernetes-int-or-string: true}}}",
        "{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {items: 5}}}",
        "{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {additionalProperties: [1]}}}",
        "{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {required: {a: b}}}}",
        "{name: v1, served: true, storage: false, subresources: {status: {}, scale: {specReplicasPath: .spec.r, statusReplicasPath: 3}}}",
        "{name: v1, served: true, storage: false, additionalPrinterColumns: [{name: Age, type: date, jsonPath: .m, priority: -1}]}",
        "{type: object, minimum: 1e400, maximum: -0.0, multipleOf: 3}",
        "{properties: {a: {}, a2: null}}",
    ];
    for text in cases {
        agree(text);
    }
    // A few direct results spelled out, so that agreement is not agreement on nothing.
    let results = agree("{1: first, '1': second, x: 1}");
    assert_eq!(
        results[0],
        r#"ok: Object {"1": String("second"), "x": Number(1)}"#
    );
    let results = agree("[7, seven, extra]");
    assert_eq!(
        results[6],
        "error: invalid length 3, expected fewer elements in array"
    );
    let results = agree("{name: v1, served: yes, storage: false}");
    assert_eq!(
        results[2],
        r#"error: invalid type: string "yes", expected a boolean"#
    );
    let results = agree("Tuple: [1, x]");
    assert_eq!(results[4], r#"ok: Tuple(1, "x")"#);
}

#[test]
fn a_spec_reads_with_its_versions_emptied() {
    let spec = parse_one(
        "{group: g.io, names: {kind: K, plural: ks}, scope: Namespaced, versions: [{name: v1, served: true, storage: true}]}",
    );
    let read =
        CustomResourceDefinitionSpec::deserialize(NodeDeserializer::with_empty(&spec, "versions"))
            .expect("a valid spec");
    assert!(read.versions.is_empty());
    assert_eq!(read.group, "g.io");
    // Only the mapping it is given: a nested `versions` is read as it is.
    let nested = parse_one("{versions: [1], inner: {versions: [2]}}");
    let read: serde_json::Value =
        Deserialize::deserialize(NodeDeserializer::with_empty(&nested, "versions")).expect("JSON");
    assert_eq!(
        read,
        serde_json::json!({"versions": [], "inner": {"versions": [2]}})
    );
}

/// Random trees of every kind of value, keys of every kind included.
fn any_node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        prop_oneof![Just(-1i64), Just(0), Just(1), Just(70_000)].prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        prop_oneof![
            "[a-z]{0,3}",
            Just("type".to_owned()),
            Just("name".to_owned()),
            Just("items".to_owned()),
            Just("properties".to_owned()),
            Just("1".to_owned()),
            Just("true".to_owned()),
        ]
        .prop_map(Value::Str),
    ];
    leaf.prop_map(node).prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|items| node(Value::Seq(items))),
            prop::collection::vec((inner.clone(), inner), 0..6).prop_map(|entries| {
                // Keys are scalars and unique by value, as the reader makes them.
                let mut unique: Vec<(Node, Node)> = Vec::new();
                for (key, value) in entries {
                    let scalar = !matches!(key.value, Value::Seq(_) | Value::Map(_));
                    if scalar && !unique.iter().any(|(k, _)| k.value == key.value) {
                        unique.push((key, value));
                    }
                }
                node(Value::Map(unique))
            }),
        ]
    })
}

fn node(value: Value) -> Node {
    Node {
        pos: Pos::default(),
        value,
    }
}

proptest! {
    #[test]
    fn random_trees_read_as_their_json_values_do(tree in any_node()) {
        for (direct, through_json) in [
            both::<serde_json::Value>(&tree),
            both::<JSONSchemaProps>(&tree),
            both::<CustomResourceDefinitionVersion>(&tree),
            both::<Record>(&tree),
            both::<Shape>(&tree),
            both::<Vec<(u8, String)>>(&tree),
            both::<BTreeMap<String, Option<i32>>>(&tree),
        ] {
            prop_assert_eq!(direct, through_json);
        }
    }
}

#[test]
fn every_crd_of_the_corpus_reads_as_its_json_value_does() {
    let files = crate::inputs::schema_files(&[Path::new(CORPUS).to_owned()]).expect("corpus");
    let mut versions = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file");
        for document in yaml::parse(&text).expect("corpus YAML") {
            let Some(spec) = document.get("spec") else {
                continue;
            };
            let (direct, through_json) = both::<CustomResourceDefinitionSpec>(spec);
            assert!(direct.starts_with("ok: "), "{}: {direct}", path.display());
            assert_eq!(direct, through_json, "{}", path.display());
            versions += spec
                .get("versions")
                .and_then(Node::as_seq)
                .map_or(0, <[Node]>::len);
        }
    }
    assert_eq!((files.len(), versions), (31, 134));
}
