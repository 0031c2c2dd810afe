//! Random CustomResourceDefinitions, from proptest strategies over OpenAPI schemas: one
//! bundle of kinds, each with one to three versions (one of them hyphenated), whose property names collide in Rust
//! (`proxyURL`/`proxyUrl`, `self`/`Self`, `$ref`/`ref`, `_`, `1st`, `ü`; and names
//! whose serde spelling under `rename_all = "camelCase"` is or is not the wire name), whose enums hold
//! symbols, and whose schemas use the Kubernetes extensions. The generated code compiles;
//! its `crds()` equal the input node by node; an object of every version, with every field
//! set, reads into the generated type and writes back unchanged, and so do the full,
//! minimal and nulls objects of `kondition_testkit::objects`.
//!
//! A run's seed is printed; `KONDITION_SEED=<hex>` repeats it.

mod layout;
mod support;

use kondition_gen::profile::Profiles;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Map, Value, json};

/// Property names that are keywords, JSON Schema words, or collide once made Rust names.
const NAMES: &[&str] = &[
    "type",
    "Type",
    "self",
    "Self",
    "proxyURL",
    "proxyUrl",
    "mirror_percent",
    "mirrorPercent",
    "podIPs",
    "IPv6",
    "URL",
    "v1beta1",
    "a__b",
    "x_",
    "$ref",
    "ref",
    "x-forwarded-for",
    "default",
    "properties",
    "items",
    "enum",
    "crate",
    "super",
    "a",
    "A",
    "_",
    "1st",
    "with space",
    "ü",
    "kind",
    "apiVersion",
    "spec",
    "status",
];

const VALUES: &[&str] = &[
    "=~",
    "!=",
    "",
    "Drop",
    "drop",
    "1.0",
    "*",
    "with space",
    "a\"b",
];

fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex(r#"[ -~\n\t\u{1b}é✓]{0,24}"#).expect("regex")
}

/// `schema` with a description, sometimes.
fn described(schema: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (schema, proptest::option::of(text()))
        .prop_map(|(mut schema, description)| {
            if let Some(description) = description {
                schema["description"] = json!(description);
            }
            schema
        })
        .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    described(
        prop_oneof![
            Just(json!({"type": "string"})),
            Just(json!({"type": "string", "format": "date-time"})),
            Just(json!({"type": "string", "pattern": "^[a-z]+$", "maxLength": 63})),
            proptest::sample::subsequence(VALUES, 1..5)
                .prop_map(|values| json!({"type": "string", "enum": values})),
            Just(json!({"type": "integer", "format": "int32", "minimum": 0})),
            Just(json!({"type": "integer", "format": "int64"})),
            Just(json!({"type": "integer"})),
            Just(json!({"type": "integer", "enum": [1, 2, 3]})),
            Just(json!({"type": "number"})),
            Just(json!({"type": "boolean", "default": false})),
            Just(json!({"x-kubernetes-int-or-string": true})),
            Just(json!({"x-kubernetes-int-or-string": true,
                        "anyOf": [{"type": "integer"}, {"type": "string"}]})),
            Just(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})),
            Just(
                json!({"type": "object", "x-kubernetes-embedded-resource": true,
                        "x-kubernetes-preserve-unknown-fields": true})
            ),
        ]
        .boxed(),
    )
}

fn schema() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(3, 32, 5, |inner| {
            described(
                prop_oneof![
                    inner
                        .clone()
                        .prop_map(|items| json!({"type": "array", "items": items})),
                    inner.clone().prop_map(
                        |items| json!({"type": "array", "items": items, "x-kubernetes-list-type": "atomic"})
                    ),
                    inner.clone().prop_map(
                        |values| json!({"type": "object", "additionalProperties": values})
                    ),
                    object(inner.clone()),
                    object(inner.clone()).prop_map(|mut o| {
                        o["x-kubernetes-validations"] =
                            json!([{"rule": "has(self.a) || !has(self.a)", "message": "m"}]);
                        o["x-kubernetes-map-type"] = json!("atomic");
                        o
                    }),
                    // A list of objects keyed by a required field.
                    object(inner).prop_map(|mut item| {
                        item["properties"]["name"] = json!({"type": "string"});
                        item["required"] = json!(["name"]);
                        json!({"type": "array", "items": item,
                               "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["name"]})
                    }),
                ]
                .boxed(),
            )
        })
        .boxed()
}

/// An object with up to 6 properties named from [`NAMES`], some required.
fn object(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    proptest::sample::subsequence(NAMES, 0..6)
        .prop_flat_map(move |names| {
            let count = names.len();
            (
                Just(names),
                proptest::collection::vec((inner.clone(), any::<bool>()), count),
            )
        })
        .prop_map(|(names, properties)| {
            let mut map = Map::new();
            let mut required = Vec::new();
            for (name, (schema, is_required)) in names.into_iter().zip(properties) {
                map.insert(name.to_owned(), schema);
                if is_required {
                    required.push(name);
                }
            }
            let mut object = json!({"type": "object", "properties": map});
            if !required.is_empty() {
                object["required"] = json!(required);
            }
            object
        })
        .boxed()
}

/// A CRD of kind `Random<index>` with one to three versions; later versions sometimes
/// repeat the first one's spec (identical types are shared between version modules).
fn crd(index: usize) -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec((object(schema()), object(leaf()), any::<bool>()), 1..4),
        any::<proptest::sample::Index>(),
        proptest::option::of(text()),
    )
        .prop_map(move |(versions, storage, description)| {
            let storage = storage.index(versions.len());
            let names = ["v1", "v2-preview", "v1alpha1"];
            let first_spec = versions[0].0.clone();
            let versions: Vec<Value> = versions
                .into_iter()
                .enumerate()
                .map(|(i, (spec, status, repeat))| {
                    let spec = if repeat { first_spec.clone() } else { spec };
                    let mut root = json!({
                        "type": "object",
                        "properties": {"spec": spec, "status": status},
                    });
                    if let Some(description) = &description {
                        root["description"] = json!(description);
                    }
                    json!({
                        "name": names[i],
                        "served": true,
                        "storage": i == storage,
                        "schema": {"openAPIV3Schema": root},
                        "subresources": {"status": {}},
                    })
                })
                .collect();
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("random{index}s.random.example.com")},
                "spec": {
                    "group": "random.example.com",
                    "names": {"kind": format!("Random{index}"), "plural": format!("random{index}s")},
                    "scope": "Namespaced",
                    "versions": versions,
                },
            })
        })
}

/// A value that `schema` accepts, every property set.
fn sample(schema: &Value) -> Value {
    if let Some(values) = schema["enum"].as_array() {
        return values.last().cloned().unwrap_or(Value::Null);
    }
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        return json!("50%");
    }
    if schema["x-kubernetes-embedded-resource"] == json!(true) {
        return json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}});
    }
    match schema["type"].as_str() {
        Some("string") if schema["format"] == json!("date-time") => json!("2024-01-02T03:04:05Z"),
        Some("string") => json!("abc"),
        Some("integer") => json!(7),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => json!([sample(&schema["items"])]),
        Some("object") => match (
            schema["properties"].as_object(),
            &schema["additionalProperties"],
        ) {
            (Some(properties), _) => Value::Object(
                properties
                    .iter()
                    .map(|(name, property)| (name.clone(), sample(property)))
                    .collect(),
            ),
            (None, Value::Object(_)) => json!({"k": sample(&schema["additionalProperties"])}),
            _ => json!({"any": [1, "x", {"deep": null}]}),
        },
        _ => Value::Null,
    }
}

#[test]
fn random_crds_compile_and_come_back_exactly() {
    let mut runner = support::runner(1);
    let batch: Vec<_> = (0..12).map(crd).collect();
    let crds = batch.new_tree(&mut runner).expect("a batch").current();

    let dir = support::scratch("crds");
    let path = dir.join("random.yaml");
    // A YAML stream of JSON documents.
    let stream: String = crds
        .iter()
        .map(|crd| {
            format!(
                "---\n{}\n",
                serde_json::to_string_pretty(crd).expect("JSON")
            )
        })
        .collect();
    std::fs::write(&path, stream).expect("write");
    let model = match kondition_gen::load::load(
        std::slice::from_ref(&path),
        &Profiles::embedded(),
        &Default::default(),
    ) {
        Ok(model) => model,
        Err(errors) => panic!(
            "a valid random CRD was refused ({}):\n{}",
            path.display(),
            errors
                .0
                .iter()
                .map(|e| format!("{e}\n"))
                .collect::<String>()
        ),
    };
    let files = kondition_gen::emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("generates");
    layout::assert_laid_out_by_prettyplease("the generated file", &files[0].contents);

    let mut samples = Vec::new();
    for crd in &crds {
        let kind = crd["spec"]["names"]["kind"].as_str().expect("kind");
        for version in crd["spec"]["versions"].as_array().expect("versions") {
            let name = version["name"].as_str().expect("name");
            let root = &version["schema"]["openAPIV3Schema"];
            let object = json!({
                "apiVersion": format!("random.example.com/{name}"),
                "kind": kind,
                "metadata": {"name": "sample", "namespace": "default"},
                "spec": sample(&root["properties"]["spec"]),
                "status": sample(&root["properties"]["status"]),
            });
            let module = name.replace('-', "_");
            samples.push((format!("random::{module}::{kind}"), object));
            // And the objects the corpus round trip uses: full, minimal, nulls.
            for which in kondition_testkit::objects::Sample::ALL {
                let object = kondition_testkit::objects::object(crd, name, which).expect("object");
                samples.push((format!("random::{module}::{kind}"), object));
            }
        }
    }
    let printed = support::build_and_run(&dir.join("crate"), &files, &samples);
    support::assert_same_crds(&printed["crds"], &crds);
}
