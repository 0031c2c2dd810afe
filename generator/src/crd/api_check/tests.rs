//! Reading a schema at a time gives exactly what reading each version whole gives: success,
//! or the same first error word for word; on every CRD of the corpus, on written errors at
//! every kind of place and in every order, and on random schema trees.

use std::path::Path;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion;
use proptest::prelude::*;

use super::{SCHEMA_KEYS, check_reading_versions, check_with_api_types, whole};
use crate::source::yaml::{self, Node, Pos, Value};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

/// The check as it read every version whole: what reading a schema at a time must give.
fn whole_check(spec: &Node, version_nodes: &[Node]) -> Result<(), (Pos, String)> {
    check_reading_versions(
        spec,
        version_nodes,
        whole::<CustomResourceDefinitionVersion>,
    )
}

/// Checks `spec` both ways, asserts they agree, and returns the result.
fn agree(spec: &Node) -> Result<(), (Pos, String)> {
    let versions = spec.get("versions").and_then(Node::as_seq).unwrap_or(&[]);
    let in_pieces = check_with_api_types(spec, versions);
    assert_eq!(in_pieces, whole_check(spec, versions));
    in_pieces
}

/// A spec of one version whose `openAPIV3Schema` is `schema` (flow YAML).
fn spec_with(schema: &str) -> Node {
    let text = format!(
        "{{group: g.io, names: {{kind: K, plural: ks}}, scope: Namespaced, versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {schema}}}}}]}}"
    );
    let mut documents = yaml::parse(&text).expect("YAML");
    documents.remove(0)
}

#[test]
fn every_crd_of_the_corpus_checks_as_whole() {
    let files = crate::inputs::schema_files(&[Path::new(CORPUS).to_owned()]).expect("corpus");
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file");
        for document in yaml::parse(&text).expect("corpus YAML") {
            if let Some(spec) = document.get("spec") {
                assert_eq!(agree(spec), Ok(()), "{}", path.display());
                checked += 1;
            }
        }
    }
    // The 29 files of one CRD, Istio's bundle of 15 and the ASO bundle of 11.
    assert_eq!(checked, 55);
}

#[test]
fn written_errors_are_the_whole_reads_first() {
    let cases = [
        // In a schema's own values, at the root and deep.
        ("{type: 5}", "invalid type: integer `5`, expected a string"),
        (
            "{properties: {a: {minimum: x}}}",
            "invalid type: string \"x\", expected f64",
        ),
        // A schema's own value after a nested schema's error: the nested one is met first.
        (
            "{properties: {a: {type: [1]}}, type: 5}",
            "invalid type: sequence, expected a string",
        ),
        // ... and before it: its own.
        (
            "{type: 5, properties: {a: {type: [1]}}}",
            "invalid type: integer `5`, expected a string",
        ),
        // Two nested errors: the first in the mapping's order.
        (
            "{items: {maxItems: x}, properties: {a: {type: 1}}}",
            "invalid type: string \"x\", expected i64",
        ),
        // Every key that holds schemas, holding the wrong kind of value.
        (
            "{properties: 1}",
            "invalid type: integer `1`, expected a map",
        ),
        (
            "{properties: {a: null}}",
            "invalid type: null, expected JSONSchemaProps",
        ),
        (
            "{patternProperties: [a]}",
            "invalid type: sequence, expected a map",
        ),
        (
            "{definitions: x}",
            "invalid type: string \"x\", expected a map",
        ),
        ("{allOf: {a: 1}}", "invalid type: map, expected a sequence"),
        (
            "{anyOf: [1]}",
            "invalid type: integer `1`, expected JSONSchemaProps",
        ),
        (
            "{oneOf: [{type: 1}]}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{items: 1}",
            "invalid type: integer `1`, expected JSONSchemaPropsOrArray",
        ),
        (
            "{items: [{type: 1}]}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{items: {type: 1}}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{not: 1}",
            "invalid type: integer `1`, expected JSONSchemaProps",
        ),
        (
            "{not: {not: {type: 1}}}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{additionalProperties: 1}",
            "invalid type: integer `1`, expected JSONSchemaPropsOrBool",
        ),
        (
            "{additionalProperties: {type: 1}}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{additionalItems: [1]}",
            "invalid type: sequence, expected JSONSchemaPropsOrBool",
        ),
        (
            "{dependencies: {a: 1}}",
            "invalid type: integer `1`, expected JSONSchemaPropsOrStringArray",
        ),
        (
            "{dependencies: {a: [1]}}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{dependencies: {a: {type: 1}}}",
            "invalid type: integer `1`, expected a string",
        ),
        (
            "{dependencies: 1}",
            "invalid type: integer `1`, expected a map",
        ),
    ];
    for (schema, error) in cases {
        let spec = spec_with(schema);
        let message = agree(&spec).expect_err(schema).1;
        assert!(
            message.ends_with(error),
            "{schema}: {message}, expected … {error}"
        );
    }
    // A version's own value and its schema's: the first in the version's order fails.
    for (version, error) in [
        (
            "{name: v1, served: 1, storage: true, schema: {openAPIV3Schema: {type: 1}}}",
            "invalid type: integer `1`, expected a boolean",
        ),
        (
            "{name: v1, schema: {openAPIV3Schema: {type: 1}}, served: 1, storage: true}",
            "invalid type: integer `1`, expected a string",
        ),
    ] {
        let spec = yaml::parse(&format!(
            "{{group: g.io, names: {{kind: K, plural: ks}}, scope: Namespaced, versions: [{version}]}}"
        ))
        .expect("YAML")
        .remove(0);
        let message = agree(&spec).expect_err(version).1;
        assert!(message.ends_with(error), "{version}: {message}");
    }
}

#[test]
fn values_that_read_as_none_are_none_everywhere() {
    for schema in [
        "{properties: null, items: null, not: null, allOf: null}",
        "{additionalProperties: .nan, dependencies: .inf}",
        "{additionalProperties: true, additionalItems: false}",
        "{properties: {a: {items: [{}, {type: string}]}}}",
    ] {
        assert_eq!(agree(&spec_with(schema)), Ok(()), "{schema}");
    }
    let no_schema = yaml::parse(
        "{group: g.io, names: {kind: K, plural: ks}, scope: Namespaced, versions: [{name: v1, served: true, storage: true, schema: null}, {name: v2, served: true, storage: false, schema: {openAPIV3Schema: null}}]}",
    )
    .expect("YAML")
    .remove(0);
    assert_eq!(agree(&no_schema), Ok(()));
}

/// Random schema trees: the keys that hold schemas and a few others, with values of every
/// kind, nested schemas most often.
fn any_schema() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![Just(-1i64), Just(0), Just(3)].prop_map(Value::Int),
        prop_oneof![Just(1.5f64), Just(f64::NAN)].prop_map(Value::Float),
        prop_oneof![Just("string"), Just("object"), Just("x")]
            .prop_map(|s| Value::Str(s.to_owned())),
    ]
    .prop_map(node);
    let keys: Vec<&'static str> = SCHEMA_KEYS
        .iter()
        .copied()
        .chain([
            "type",
            "minimum",
            "required",
            "description",
            "x-kubernetes-list-type",
            "default",
            "other",
        ])
        .collect();
    leaf.prop_recursive(5, 64, 5, move |inner| {
        let keys = keys.clone();
        prop_oneof![
            2 => prop::collection::vec(inner.clone(), 0..4).prop_map(|items| node(Value::Seq(items))),
            5 => prop::collection::vec((prop::sample::select(keys), inner), 0..5).prop_map(|entries| {
                let mut unique: Vec<(Node, Node)> = Vec::new();
                for (key, value) in entries {
                    if !unique.iter().any(|(k, _)| k.as_str() == Some(key)) {
                        unique.push((node(Value::Str(key.to_owned())), value));
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
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn random_schemas_check_as_whole(schema in any_schema()) {
        let mut spec = spec_with("{}");
        // The version's openAPIV3Schema replaced by the random tree.
        if let Value::Map(entries) = &mut spec.value
            && let Some((_, Node { value: Value::Seq(versions), .. })) =
                entries.iter_mut().find(|(k, _)| k.as_str() == Some("versions"))
            && let Some(Node { value: Value::Map(version), .. }) = versions.first_mut()
            && let Some((_, validation)) = version.iter_mut().find(|(k, _)| k.as_str() == Some("schema"))
            && let Value::Map(validation) = &mut validation.value
        {
            validation[0].1 = schema;
        }
        let versions = spec.get("versions").and_then(Node::as_seq).unwrap_or(&[]);
        prop_assert_eq!(check_with_api_types(&spec, versions), whole_check(&spec, versions));
    }
}
