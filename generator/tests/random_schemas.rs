//! Random schemas, from proptest strategies over a small model of the schema format:
//!
//! - valid ones are generated, all of one run into one crate that is compiled and run
//!   (one build per run keeps this to seconds once the dependencies are built); its
//!   `crds()` must equal the CRD the generator computes in process, that CRD must say what
//!   the random model says (types, required fields, enum values, defaults, keywords), and
//!   an object of each kind with every field set must read into the generated type and
//!   write back unchanged;
//! - invalid edits of valid ones are refused, every one with an error at its place and
//!   exit code 2, never a panic.
//!
//! A run's seed is printed; `KONDITION_SEED=<hex>` repeats it. random_crds.rs does the same
//! for random CustomResourceDefinitions.

mod layout;
mod support;

use std::process::Command;

use kondition_gen::profile::Profiles;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};
use support::{runner, scratch};

/// A field's type, as the schema format writes it.
#[derive(Clone, Debug)]
enum Ty {
    String { default: Option<String> },
    Int32 { minimum: Option<i32> },
    Int64,
    Number,
    Boolean { default: Option<bool> },
    Enum(Vec<String>),
    List(Box<Ty>),
    Map(Box<Ty>),
    Object(Vec<Field>),
    IntOrString,
    DateTime,
    Raw,
}

#[derive(Clone, Debug)]
struct Field {
    name: String,
    ty: Ty,
    required: bool,
    docs: Option<String>,
    /// Further keywords: (schema-format key, value, the CRD's key).
    keywords: Vec<(&'static str, Value, &'static str)>,
}

#[derive(Clone, Debug)]
struct KindDef {
    kind: String,
    profile: &'static str,
    spec: Vec<Field>,
    status: Vec<Field>,
    rule: Option<String>,
}

/// Wire names that are Rust keywords, JSON Schema words or need renaming; distinct in
/// snake_case, so one object may hold any of them together.
const NAMES: &[&str] = &[
    "type",
    "self",
    "crate",
    "super",
    "match",
    "async",
    "fn",
    "mod",
    "enum",
    "default",
    "properties",
    "kind",
    "apiVersion",
    "x-forwarded-for",
    "$ref",
    "proxyURL",
    "replicas",
    "minReplicas",
    "a",
    "b2",
    "snake_case_name",
    "HTTPRoute",
];

const VALUES: &[&str] = &[
    "=~",
    "!=",
    "",
    "Drop",
    "1.0",
    "*",
    "with space",
    "a\"quote",
    "ok",
];

fn text() -> impl Strategy<Value = String> {
    // Quotes, backslashes, comment ends, fences and control characters included.
    proptest::string::string_regex(r#"[ -~\n\t\r\u{1b}é✓]{0,30}"#).expect("regex")
}

fn leaf() -> BoxedStrategy<Ty> {
    prop_oneof![
        proptest::option::of(text()).prop_map(|default| Ty::String { default }),
        proptest::option::of(-5i32..5).prop_map(|minimum| Ty::Int32 { minimum }),
        Just(Ty::Int64),
        Just(Ty::Number),
        proptest::option::of(any::<bool>()).prop_map(|default| Ty::Boolean { default }),
        proptest::sample::subsequence(VALUES, 1..5)
            .prop_map(|v| Ty::Enum(v.into_iter().map(str::to_owned).collect())),
        Just(Ty::IntOrString),
        Just(Ty::DateTime),
        Just(Ty::Raw),
    ]
    .boxed()
}

fn ty() -> BoxedStrategy<Ty> {
    leaf()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| Ty::List(Box::new(t))),
                inner.clone().prop_map(|t| Ty::Map(Box::new(t))),
                fields(inner).prop_map(Ty::Object),
            ]
        })
        .boxed()
}

/// Keywords that fit `ty`, each present or not.
fn keywords(ty: &Ty) -> BoxedStrategy<Vec<(&'static str, Value, &'static str)>> {
    let mut options: Vec<BoxedStrategy<(&'static str, Value, &'static str)>> = vec![
        text()
            .prop_filter("a rule", |t| !t.trim().is_empty())
            .prop_map(|rule| {
                (
                    "validations",
                    json!([{"rule": rule}]),
                    "x-kubernetes-validations",
                )
            })
            .boxed(),
        Just(("nullable", json!(true), "nullable")).boxed(),
    ];
    match ty {
        Ty::String { .. } => {
            options.push(
                proptest::sample::select(&["^[a-z]+$", "^\\d{3}$", "a\"b", "(?i)x|y"][..])
                    .prop_map(|p| ("pattern", json!(p), "pattern"))
                    .boxed(),
            );
            options.push(
                (1u32..100)
                    .prop_map(|n| ("maxLength", json!(n), "maxLength"))
                    .boxed(),
            );
        }
        Ty::Int32 { .. } | Ty::Int64 => {
            options.push(
                (5i64..50)
                    .prop_map(|n| ("maximum", json!(n), "maximum"))
                    .boxed(),
            );
        }
        Ty::List(items) => {
            options.push(
                (0u32..3)
                    .prop_map(|n| ("minItems", json!(n), "minItems"))
                    .boxed(),
            );
            if matches!(**items, Ty::String { .. } | Ty::Int64 | Ty::Enum(_)) {
                options.push(Just(("listType", json!("set"), "x-kubernetes-list-type")).boxed());
            }
        }
        _ => {}
    }
    let count = options.len();
    (options, proptest::collection::vec(any::<bool>(), count))
        .prop_map(|(all, keep)| {
            all.into_iter()
                .zip(keep)
                .filter_map(|(k, keep)| keep.then_some(k))
                .collect()
        })
        .boxed()
}

/// Up to 5 fields with distinct names from [`NAMES`].
fn fields(ty: BoxedStrategy<Ty>) -> BoxedStrategy<Vec<Field>> {
    proptest::sample::subsequence(NAMES, 0..5)
        .prop_flat_map(move |names| {
            let count = names.len();
            (
                Just(names),
                proptest::collection::vec(
                    (
                        ty.clone().prop_flat_map(|ty| (keywords(&ty), Just(ty))),
                        any::<bool>(),
                        proptest::option::of(text()),
                    ),
                    count,
                ),
            )
                .prop_map(|(names, defs)| {
                    names
                        .into_iter()
                        .zip(defs)
                        .map(|(name, ((keywords, ty), required, docs))| Field {
                            name: name.to_owned(),
                            ty,
                            required,
                            docs,
                            keywords,
                        })
                        .collect()
                })
        })
        .boxed()
}

fn kind(index: usize) -> impl Strategy<Value = KindDef> {
    (
        proptest::sample::select(&["standard", "aso", "orc", "kstatus"][..]),
        fields(ty()),
        fields(leaf()),
        proptest::option::of(text().prop_filter("a rule", |t| !t.trim().is_empty())),
    )
        .prop_map(move |(profile, spec, status, rule)| KindDef {
            kind: format!("Random{index}"),
            profile,
            spec,
            status,
            rule,
        })
}

/// The schema format's JSON (which is YAML) for a field.
fn field_json(field: &Field) -> Value {
    let mut out = ty_json(&field.ty);
    if field.required {
        out["required"] = json!(true);
    }
    if let Some(docs) = &field.docs {
        out["docs"] = json!(docs);
    }
    for (key, value, _) in &field.keywords {
        out[*key] = value.clone();
    }
    out
}

fn ty_json(ty: &Ty) -> Value {
    match ty {
        Ty::String { default } => with(json!({"type": "string"}), "default", default.clone()),
        Ty::Int32 { minimum } => with(json!({"type": "int32"}), "minimum", *minimum),
        Ty::Int64 => json!({"type": "int64"}),
        Ty::Number => json!({"type": "number"}),
        Ty::Boolean { default } => with(json!({"type": "boolean"}), "default", *default),
        Ty::Enum(values) => json!({"type": "enum", "values": values}),
        Ty::List(items) => json!({"type": "list", "items": ty_json(items)}),
        Ty::Map(values) => json!({"type": "map", "values": ty_json(values)}),
        Ty::Object(fields) => json!({"type": "object", "fields": fields_json(fields)}),
        Ty::IntOrString => json!({"type": "int-or-string"}),
        Ty::DateTime => json!({"type": "date-time"}),
        Ty::Raw => json!({"type": "raw"}),
    }
}

fn with(mut value: Value, key: &str, extra: Option<impl Into<Value> + Clone>) -> Value {
    if let Some(extra) = extra {
        value[key] = extra.into();
    }
    value
}

fn fields_json(fields: &[Field]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|f| (f.name.clone(), field_json(f)))
            .collect(),
    )
}

fn schema_file(kind: &KindDef) -> String {
    let mut file = json!({
        "group": "random.example.com",
        "kind": kind.kind,
        "version": "v1",
        "status": {"profile": kind.profile, "fields": fields_json(&kind.status)},
        "spec": fields_json(&kind.spec),
    });
    if let Some(rule) = &kind.rule {
        file["validations"] = json!([{"rule": rule, "message": rule}]);
    }
    serde_json::to_string_pretty(&file).expect("JSON")
}

/// What the CRD schema of `fields` must say, checked against `schema` (`path` for messages).
fn check_schema(fields: &[Field], schema: &Value, path: &str) {
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    let listed: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(listed, required, "{path}: required");
    for field in fields {
        let property = &schema["properties"][&field.name];
        check_field(field, property, &format!("{path}.{}", field.name));
        if let Some(docs) = &field.docs {
            assert!(
                property["description"].is_string() || docs.trim().is_empty(),
                "{path}"
            );
        }
    }
}

fn check_field(field: &Field, schema: &Value, path: &str) {
    check_ty(&field.ty, schema, path);
    for (_, value, crd_key) in &field.keywords {
        assert!(
            kondition::wire::json::same(&schema[*crd_key], value),
            "{path}: {crd_key} is {}, not {value}",
            schema[*crd_key]
        );
    }
}

fn check_ty(ty: &Ty, schema: &Value, path: &str) {
    let expect = |key: &str, value: Value| assert_eq!(schema[key], value, "{path}: {key}");
    match ty {
        Ty::String { default } => {
            expect("type", json!("string"));
            if let Some(default) = default {
                expect("default", json!(default));
            }
        }
        Ty::Int32 { minimum } => {
            expect("type", json!("integer"));
            expect("format", json!("int32"));
            if let Some(minimum) = minimum {
                expect("minimum", json!(minimum));
            }
        }
        Ty::Int64 => expect("format", json!("int64")),
        Ty::Number => expect("type", json!("number")),
        Ty::Boolean { default } => {
            expect("type", json!("boolean"));
            if let Some(default) = default {
                expect("default", json!(default));
            }
        }
        Ty::Enum(values) => expect("enum", json!(values)),
        Ty::List(items) => {
            expect("type", json!("array"));
            check_ty(items, &schema["items"], &format!("{path}[]"));
        }
        Ty::Map(values) => {
            expect("type", json!("object"));
            check_ty(
                values,
                &schema["additionalProperties"],
                &format!("{path}{{}}"),
            );
        }
        Ty::Object(fields) => {
            expect("type", json!("object"));
            check_schema(fields, schema, path);
        }
        Ty::IntOrString => expect("x-kubernetes-int-or-string", json!(true)),
        Ty::DateTime => expect("format", json!("date-time")),
        Ty::Raw => expect("x-kubernetes-preserve-unknown-fields", json!(true)),
    }
}

/// An object's JSON for `fields`: every field, with a value of its type.
fn sample(fields: &[Field]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|f| (f.name.clone(), sample_ty(&f.ty)))
            .collect(),
    )
}

fn sample_ty(ty: &Ty) -> Value {
    match ty {
        Ty::String { .. } => json!("s \" é\n"),
        Ty::Int32 { .. } => json!(7),
        Ty::Int64 => json!(9_007_199_254_740_993_i64),
        Ty::Number => json!(1.5),
        Ty::Boolean { .. } => json!(true),
        Ty::Enum(values) => json!(values.last()),
        Ty::List(items) => json!([sample_ty(items), sample_ty(items)]),
        Ty::Map(values) => json!({"k": sample_ty(values), "other key": sample_ty(values)}),
        Ty::Object(fields) => sample(fields),
        Ty::IntOrString => json!("50%"),
        Ty::DateTime => json!("2024-01-02T03:04:05Z"),
        Ty::Raw => json!({"any": [1, "x", null, {"deep": true}]}),
    }
}

/// A whole object of `kind` on the wire.
fn sample_object(kind: &KindDef) -> Value {
    let mut status = sample(&kind.status);
    status["conditions"] = json!([]);
    status["observedGeneration"] = json!(3);
    json!({
        "apiVersion": "random.example.com/v1",
        "kind": kind.kind,
        "metadata": {"name": "sample", "namespace": "default"},
        "spec": sample(&kind.spec),
        "status": status,
    })
}

#[test]
fn random_valid_schemas_compile_and_their_crds_come_back() {
    let mut runner = runner(1);
    let batch: Vec<_> = (0..24).map(kind).collect();
    let kinds = batch.new_tree(&mut runner).expect("a batch").current();

    let dir = scratch("valid");
    let schemas = dir.join("schemas");
    std::fs::create_dir_all(&schemas).expect("mkdir");
    let mut paths = Vec::new();
    for kind in &kinds {
        let path = schemas.join(format!("{}.yaml", kind.kind.to_lowercase()));
        std::fs::write(&path, schema_file(kind)).expect("write");
        paths.push(path);
    }
    let model = match kondition_gen::load::load(&paths, &Profiles::embedded(), &Default::default())
    {
        Ok(model) => model,
        Err(errors) => panic!(
            "a valid random schema was refused:\n{}",
            errors
                .0
                .iter()
                .map(|e| format!("{e}\n"))
                .collect::<String>()
        ),
    };

    // The model's CRDs say what the random model says.
    let mut expected = Vec::new();
    for (file, kind) in model.files.iter().zip(&kinds) {
        let crd = kondition_gen::manifest::crd(&file.kinds[0], &file.types);
        let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        check_schema(
            &kind.spec,
            &schema["properties"]["spec"],
            &format!("{}.spec", kind.kind),
        );
        let status = &schema["properties"]["status"];
        for field in &kind.status {
            check_field(
                field,
                &status["properties"][&field.name],
                &format!("{}.status.{}", kind.kind, field.name),
            );
        }
        assert!(status["properties"]["conditions"].is_object());
        expected.push(crd);
    }

    // The generated code compiles, and its crds() are the same CRDs.
    let files = kondition_gen::emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("generates");
    layout::assert_laid_out_by_prettyplease("the generated file", &files[0].contents);
    let samples: Vec<(String, Value)> = kinds
        .iter()
        .map(|kind| {
            let path = format!("{}::v1::{}", kind.kind.to_lowercase(), kind.kind);
            (path, sample_object(kind))
        })
        .collect();
    let printed = support::build_and_run(&dir.join("crate"), &files, &samples);
    support::assert_same_crds(&printed["crds"], &expected);
}

/// Edits that make any valid schema file invalid, each with the message it must produce.
const EDITS: &[(&str, &str)] = &[
    ("kind-lowercase", "must be PascalCase"),
    ("unknown-type", "unknown type"),
    ("no-group", "needs `group`"),
    ("bad-group", "must be a lowercase DNS name"),
    ("unknown-key", "unknown key"),
    ("bad-profile", "profile"),
    ("required-not-bool", "must be true or false"),
    ("empty-enum", "enum"),
];

fn edit(file: &str, which: &str) -> String {
    let mut value: Value = serde_json::from_str(file).expect("JSON");
    match which {
        "kind-lowercase" => value["kind"] = json!("random"),
        "unknown-type" => value["spec"]["zz"] = json!({"type": "strnig"}),
        "no-group" => {
            value.as_object_mut().map(|m| m.remove("group"));
        }
        "bad-group" => value["group"] = json!("../Random"),
        "unknown-key" => value["specc"] = json!({}),
        "bad-profile" => value["status"]["profile"] = json!("no-such-profile"),
        "required-not-bool" => value["spec"]["zz"] = json!({"type": "string", "required": "yes"}),
        "empty-enum" => value["spec"]["zz"] = json!({"type": "enum", "values": []}),
        other => unreachable!("{other}"),
    }
    serde_json::to_string_pretty(&value).expect("JSON")
}

#[test]
fn invalid_edits_are_refused_never_a_panic() {
    let mut runner = runner(64);
    let dir = scratch("invalid");
    let cases = (kind(0), 0..EDITS.len(), any::<proptest::sample::Index>());
    runner
        .run(&cases, |(kind, which, cut)| {
            let valid = schema_file(&kind);
            let (name, message) = EDITS[which];
            let path = dir.join(format!("{name}.yaml"));
            std::fs::write(&path, edit(&valid, name)).expect("write");
            let errors = kondition_gen::load::load(
                std::slice::from_ref(&path),
                &Profiles::embedded(),
                &Default::default(),
            )
            .expect_err("an invalid edit is refused")
            .0;
            prop_assert!(
                errors
                    .iter()
                    .any(|e| e.message.contains(message) && e.pos.line > 0),
                "{name}: {errors:?}"
            );
            // Cut anywhere: refused or accepted, never a panic.
            let mut end = cut.index(valid.len());
            while !valid.is_char_boundary(end) {
                end -= 1;
            }
            let text = &valid[..end];
            let cut_path = dir.join("cut.yaml");
            std::fs::write(&cut_path, text).expect("write");
            let _ =
                kondition_gen::load::load(&[cut_path], &Profiles::embedded(), &Default::default());
            Ok(())
        })
        .expect("every edit refused with its message");

    // The binary: every edit of one file, one run, exit code 2 and every file named.
    let valid = schema_file(&kind(0).new_tree(&mut runner).expect("kind").current());
    let all = dir.join("all");
    std::fs::create_dir_all(&all).expect("mkdir");
    for (name, _) in EDITS {
        std::fs::write(all.join(format!("{name}.yaml")), edit(&valid, name)).expect("write");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--out"])
        .arg(dir.join("out"))
        .arg(&all)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (name, _) in EDITS {
        assert!(
            stderr.contains(&format!("{name}.yaml:")),
            "{name}: {stderr}"
        );
    }
    assert!(!dir.join("out").exists(), "nothing written");
}
