//! `kondition import` loses nothing silently, and keeps the types `generate` gives a CRD.
//!
//! For every CRD of `corpus/`, each kind is imported into a schema file, which is read back
//! and turned into a CRD again. What was left out is computed here independently of the
//! importer: every keyword of the original schema whose value the regenerated CRD does not
//! have at the same place must be on stderr, with its place, and nothing else may be. Then
//! the structs and enums `generate` makes of the CRD are compared with those it makes of the
//! imported file: the same names, fields, optionality, docs and field types. And the objects
//! synthesized from each CRD (`kondition_testkit::objects`) change alike through both sets of
//! types (what the types write back is what `normalize` predicts).
//!
//! A NodePool-like fixture (`tests/import/pool.yaml`) pins the exact stderr and the names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use kondition_gen::model::{Body, EnumValues, Field, Kind, SchemaFile, Type};
use kondition_gen::profile::Profiles;
use serde_json::Value as Json;

/// The corpus' CRD files, in path order: the generator's own folder walk.
fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    kondition_gen::inputs::schema_files(&[root]).expect("the corpus")
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Each kind of `crd` imported: (kind, its schema file read back, the import's notes).
fn import(path: &Path, dir: &Path) -> Vec<(Kind, SchemaFile, Vec<String>)> {
    let text = std::fs::read_to_string(path).expect("read CRD");
    let (file, _) = kondition_gen::load::read_crd_text(path, &text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.kinds
        .into_iter()
        .map(|kind| {
            let (schema, notes) = kondition_gen::emit::schema_file::schema_file(&kind);
            let out = dir.join(format!("{}.yaml", kind.kind.to_ascii_lowercase()));
            std::fs::write(&out, &schema).expect("write schema file");
            let read = kondition_testkit::schema_file::read(&out, &schema, &Profiles::embedded())
                .unwrap_or_else(|e| {
                    panic!(
                        "{}: the imported {} does not read: {e}",
                        path.display(),
                        kind.kind
                    )
                });
            (kind, read, notes)
        })
        .collect()
}

/// Keywords whose value says what their absence says.
fn says_nothing(key: &str, value: &Json) -> bool {
    match value {
        Json::Bool(false) => matches!(
            key,
            "nullable"
                | "exclusiveMinimum"
                | "exclusiveMaximum"
                | "x-kubernetes-preserve-unknown-fields"
                | "x-kubernetes-int-or-string"
                | "x-kubernetes-embedded-resource"
        ),
        Json::Array(items) => items.is_empty() && key != "enum",
        Json::Object(map) => map.is_empty() && key == "properties",
        Json::String(s) => key == "x-kubernetes-list-type" && s == "atomic",
        _ => false,
    }
}

/// JSON equality with numbers by value and `required` as a set.
fn same(key: &str, a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => kondition::wire::json::same_number(x, y),
        (Json::Array(x), Json::Array(y)) if key == "required" => {
            x.iter().map(Json::to_string).collect::<BTreeSet<_>>()
                == y.iter().map(Json::to_string).collect::<BTreeSet<_>>()
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same("", x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(k, v, w)))
        }
        _ => a == b,
    }
}

fn left_out(version: &str, path: &str, key: &str) -> String {
    format!("version {version}: {path}: `{key}` has no place in the schema format; it was left out")
}

/// Every keyword of `original` (at `path`) that `regenerated` does not have alike, as the
/// import must report it, and every root field but spec and status; the children of
/// properties, items and map values are walked.
fn expected(version: &str, original: &Json, regenerated: &Json, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Json::Object(map) = original else {
        return out;
    };
    let children = ["properties", "items", "additionalProperties"];
    for (key, value) in map {
        if says_nothing(key, value) || (children.contains(&key.as_str()) && value.is_object()) {
            continue;
        }
        let theirs = &regenerated[key.as_str()];
        if key == "x-kubernetes-validations"
            && let (Some(ours), Some(theirs)) = (value.as_array(), theirs.as_array())
            && ours.len() == theirs.len()
        {
            for (i, (rule, kept)) in ours.iter().zip(theirs).enumerate() {
                for (k, v) in rule.as_object().into_iter().flatten() {
                    if !same(k, v, &kept[k.as_str()]) {
                        let place = format!("{path}: x-kubernetes-validations[{i}]");
                        out.push(left_out(version, &place, k));
                    }
                }
            }
            continue;
        }
        // Requiring a field every object has (the API server requires them of every request)
        // says nothing.
        if path == "the root" && key == "required" {
            let said: Vec<&Json> = value
                .as_array()
                .into_iter()
                .flatten()
                .filter(|name| !matches!(name.as_str(), Some("apiVersion" | "kind" | "metadata")))
                .collect();
            let said = Json::Array(said.into_iter().cloned().collect());
            if !says_nothing(key, &said) && !same(key, &said, theirs) {
                out.push(left_out(version, path, key));
            }
            continue;
        }
        if !same(key, value, theirs) {
            out.push(left_out(version, path, key));
        }
    }
    if let Some(properties) = original["properties"].as_object() {
        for (name, property) in properties {
            let standard =
                path == "status" && matches!(name.as_str(), "conditions" | "observedGeneration");
            if standard {
                continue;
            }
            let place = match path {
                "the root" => name.clone(),
                _ => format!("{path}.{name}"),
            };
            // apiVersion, kind and metadata are Kubernetes' own; only constraints on
            // metadata's fields (`metadata.name`'s length) say something of the kind's.
            if path == "the root" && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                if property["properties"]
                    .as_object()
                    .is_some_and(|p| !p.is_empty())
                {
                    out.push(left_out(version, "metadata", "properties"));
                }
                continue;
            }
            if path == "the root" && !matches!(name.as_str(), "spec" | "status") {
                out.push(format!("version {version}: the root field `{name}` is not part of the schema format (only spec and status are); it was left out"));
                continue;
            }
            out.extend(expected(
                version,
                property,
                &regenerated["properties"][name.as_str()],
                &place,
            ));
        }
    }
    if original["items"].is_object() {
        let place = format!("{path}[*]");
        out.extend(expected(
            version,
            &original["items"],
            &regenerated["items"],
            &place,
        ));
    }
    if original["additionalProperties"].is_object() {
        let place = format!("{path}.*");
        let values = &original["additionalProperties"];
        out.extend(expected(
            version,
            values,
            &regenerated["additionalProperties"],
            &place,
        ));
    }
    out
}

/// A field as Rust sees it: wire name, optionality, docs, and its type (structs and enums by
/// name; a reused k8s-openapi type as `reused`, which an imported file writes out as a struct).
fn field_shape(field: &Field) -> String {
    fn ty(t: &Type) -> String {
        match t {
            Type::Object(object) => format!("struct {}", object.name),
            Type::Enum(e) => match &e.values {
                EnumValues::Str(_) => format!("enum {}", e.name),
                EnumValues::Int(_) => "i64".to_owned(),
            },
            Type::List(list) => format!("[{}]", ty(&list.items.ty)),
            Type::Map(map) => format!("{{{}}}", ty(&map.values.ty)),
            Type::Integer(int) => format!("{:?}", int.format),
            Type::String(_) => "string".to_owned(),
            Type::Number(_) => "number".to_owned(),
            Type::Reused(_) => "reused".to_owned(),
            other => format!("{other:?}"),
        }
    }
    format!(
        "{} required={} nullable={} docs={:?}: {}",
        field.name,
        field.required,
        field.schema.nullable,
        field.schema.docs,
        ty(&field.schema.ty)
    )
}

/// Two field shapes are alike when they are equal, or when the CRD's holds a reused
/// k8s-openapi type where the imported file's holds a struct (written out, and reported).
fn alike(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    let Some((before, after)) = ours.split_once("reused") else {
        return false;
    };
    theirs
        .strip_prefix(before)
        .and_then(|rest| rest.strip_prefix("struct "))
        .and_then(|rest| rest.strip_suffix(after))
        .is_some_and(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Every struct and enum a version's fields need, by name, with its fields (or values);
/// reused k8s-openapi types are not descended into (`generate` writes no struct for them).
fn types(fields: &[Field], out: &mut BTreeMap<String, Vec<String>>) {
    fn walk(t: &Type, out: &mut BTreeMap<String, Vec<String>>) {
        match t {
            Type::Object(object) => {
                out.insert(
                    object.name.clone(),
                    object.fields.iter().map(field_shape).collect(),
                );
                types(&object.fields, out);
            }
            Type::Enum(e) => {
                if let EnumValues::Str(values) = &e.values {
                    out.insert(e.name.clone(), values.clone());
                }
            }
            Type::List(list) => walk(&list.items.ty, out),
            Type::Map(map) => walk(&map.values.ty, out),
            _ => {}
        }
    }
    for field in fields {
        walk(&field.schema.ty, out);
    }
}

/// The spec's and the status's own fields of a version (conditions and observedGeneration
/// are the standard status's in an imported file).
fn spec_and_status(body: &Body) -> (Vec<Field>, Vec<Field>) {
    let own = |fields: &[Field]| -> Vec<Field> {
        fields
            .iter()
            .filter(|f| !matches!(f.name.as_str(), "conditions" | "observedGeneration"))
            .cloned()
            .collect()
    };
    match body {
        Body::Standard {
            spec,
            status_fields,
            ..
        } => (spec.clone(), own(status_fields)),
        Body::Root(fields) => {
            let object = |name: &str| match fields.iter().find(|f| f.name == name) {
                Some(Field {
                    schema:
                        kondition_gen::model::Schema {
                            ty: Type::Object(object),
                            ..
                        },
                    ..
                }) => object.fields.clone(),
                _ => Vec::new(),
            };
            (object("spec"), own(&object("status")))
        }
    }
}

/// Compares what `generate` makes of `kind` (from its CRD) and of `imported`.
fn compare_types(file: &Path, kind: &Kind, imported: &SchemaFile) -> usize {
    let theirs = &imported.kinds[0];
    let mut compared = 0;
    for version in &kind.versions {
        let Some(other) = theirs.versions.iter().find(|v| v.name == version.name) else {
            panic!(
                "{}: {} {}: not imported",
                file.display(),
                kind.kind,
                version.name
            );
        };
        let (spec, status) = spec_and_status(&version.body);
        if spec.is_empty() {
            continue;
        }
        let (their_spec, their_status) = spec_and_status(&other.body);
        let place = format!("{}: {} {}", file.display(), kind.kind, version.name);
        let shapes = |fields: &[Field]| fields.iter().map(field_shape).collect::<Vec<_>>();
        let reused_as_struct = |ours: &[String], theirs: &[String]| {
            ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(a, b)| alike(a, b))
        };
        assert!(
            reused_as_struct(&shapes(&spec), &shapes(&their_spec)),
            "{place}: spec fields differ:\n{:#?}\n{:#?}",
            shapes(&spec),
            shapes(&their_spec)
        );
        assert!(
            reused_as_struct(&shapes(&status), &shapes(&their_status)),
            "{place}: status fields differ"
        );
        let (mut ours, mut imported_types) = (BTreeMap::new(), BTreeMap::new());
        types(&spec, &mut ours);
        types(&status, &mut ours);
        types(&their_spec, &mut imported_types);
        types(&their_status, &mut imported_types);
        for (name, fields) in &ours {
            let Some(their_fields) = imported_types.get(name) else {
                panic!("{place}: `{name}` is not generated from the imported file");
            };
            assert!(
                reused_as_struct(fields, their_fields),
                "{place}: `{name}` differs:\n{fields:#?}\n{their_fields:#?}"
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn every_corpus_crd_imports_with_every_loss_reported_and_the_same_types() {
    let files = corpus_files();
    assert_eq!(files.len(), 31, "the corpus's CRD files");
    let dir = scratch("corpus");
    let (mut reported, mut types) = (0, 0);
    for (n, file) in files.iter().enumerate() {
        let out = dir.join(n.to_string());
        std::fs::create_dir_all(&out).expect("mkdir");
        for (kind, imported, notes) in import(file, &out) {
            let crd = kondition_gen::manifest::crd(&kind, &[]);
            let again = kondition_gen::manifest::crd(&imported.kinds[0], &imported.types);
            let mut want = Vec::new();
            for version in crd["spec"]["versions"].as_array().into_iter().flatten() {
                let name = version["name"].as_str().unwrap_or_default();
                let Some(regenerated) = again["spec"]["versions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|v| v["name"] == name)
                else {
                    continue;
                };
                let schema = &version["schema"]["openAPIV3Schema"];
                // A spec or status the format cannot describe is noted whole.
                let whole = |field: &str| {
                    notes.iter().any(|n| {
                        n == &format!("version {name}: `{field}` is not an object with properties, which is all the schema format describes; it was left out")
                    })
                };
                let mut found = expected(
                    name,
                    schema,
                    &regenerated["schema"]["openAPIV3Schema"],
                    "the root",
                );
                found.retain(|line| {
                    let under = |field: &str| {
                        whole(field) && line.starts_with(&format!("version {name}: {field}"))
                    };
                    !under("spec") && !under("status")
                });
                want.extend(found);
            }
            let got: Vec<String> = notes
                .iter()
                .filter(|n| {
                    n.starts_with("version ")
                        && (n.ends_with("has no place in the schema format; it was left out")
                            || n.contains(": the root field `"))
                })
                .cloned()
                .collect();
            let (want_set, got_set): (BTreeSet<_>, BTreeSet<_>) =
                (want.iter().collect(), got.iter().collect());
            let missing: Vec<_> = want_set.difference(&got_set).collect();
            let extra: Vec<_> = got_set.difference(&want_set).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{} {}: not reported: {missing:#?}\nreported but carried: {extra:#?}",
                file.display(),
                kind.kind
            );
            reported += got.len();
            types += compare_types(file, &kind, &imported);
        }
    }
    // The figures the docs quote.
    eprintln!("{reported} keywords reported, {types} types compared");
    let _ = std::fs::remove_dir_all(&dir);
}

fn kondition(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kondition")
}

#[test]
fn a_node_pool_keeps_its_quantities_and_its_type_names() {
    let dir = scratch("pool");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import/pool.yaml");
    std::fs::copy(&fixture, dir.join("pool.yaml")).expect("copy fixture");
    let imported = kondition(&dir, &["import", "pool.yaml", "--out", "schemas"]);
    assert_eq!(imported.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&imported.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pool.yaml: note: NodePool: version v1: the root: the schema format requires `spec`, which the CRD does not",
            "pool.yaml: note: NodePool: version v1: metadata: `properties` has no place in the schema format; it was left out",
            "pool.yaml: note: NodePool: version v1: spec.disruption.budgets[*]: `x-kubernetes-map-type` has no place in the schema format; it was left out",
            "pool.yaml: note: NodePool: version v1: spec.template.taints[*].effect: `oneOf` has no place in the schema format; it was left out",
            "pool.yaml: note: NodePool: version v1: spec.weight: `anyOf` has no place in the schema format; it was left out",
            "pool.yaml: note: NodePool: version v1: spec.weight: `pattern` has no place in the schema format; it was left out",
            "pool.yaml: note: NodePool: version v1: status: the CRD's own `conditions` and `observedGeneration` give way to the standard status's",
            "wrote schemas/nodepool.yaml",
        ]
    );
    let schema = std::fs::read_to_string(dir.join("schemas/nodepool.yaml")).expect("written");
    for expected in [
        // Quantities are the format's `quantity`, wherever they are.
        "    limits:\n      type: map\n      values:\n        type: quantity\n      docs: The most the pool may hold.\n",
        "        resources:\n          type: map\n          values:\n            type: quantity\n",
        "    capacity:\n      type: quantity\n",
        // Inline types keep the names `generate` gives the CRD.
        "                  type: enum\n                  name: NodePoolReasons\n",
    ] {
        assert!(schema.contains(expected), "{expected} not in\n{schema}");
    }

    let from_crd = kondition(&dir, &["generate", "pool.yaml", "--out", "crd"]);
    assert_eq!(
        from_crd.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&from_crd.stderr)
    );
    let from_import = kondition(&dir, &["generate", "schemas", "--out", "imported"]);
    assert_eq!(
        from_import.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&from_import.stderr)
    );
    let items = |path: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join(path)).expect("module");
        text.lines()
            .filter_map(|line| {
                let line = line.trim_start();
                line.strip_prefix("pub struct ")
                    .or_else(|| line.strip_prefix("pub enum "))
                    .map(|rest| rest.trim_end_matches(" {").to_owned())
            })
            .collect()
    };
    assert_eq!(
        items("crd/pool.rs"),
        [
            "NodePool",
            "NodePoolSpec",
            "NodePoolDisruption",
            "NodePoolBudgets",
            "NodePoolReasons",
            "NodePoolTemplate",
            "NodePoolTaints",
            "NodePoolEffect",
            "NodePoolStatus",
        ]
    );
    assert_eq!(
        items("imported/nodepool.rs"),
        [
            // The standard status's reasons.
            "NodePoolReason",
            "NodePool",
            "NodePoolSpec",
            "NodePoolStatus",
            "NodePoolDisruption",
            "NodePoolBudgets",
            "NodePoolReasons",
            "NodePoolTemplate",
            "NodePoolTaints",
            "NodePoolEffect",
        ]
    );
    for (module, quantities) in [("crd/pool.rs", 3), ("imported/nodepool.rs", 3)] {
        let text = std::fs::read_to_string(dir.join(module)).expect("module");
        assert!(text.contains("use k8s_openapi::apimachinery::pkg::api::resource::Quantity;"));
        assert_eq!(
            text.matches("Quantity>").count(),
            quantities,
            "{module}:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The objects of every kind version (full, minimal, nulls; `kondition_testkit::objects`) change
/// alike through the types of the CRD and those of the imported file: both keep what the
/// other keeps, and both write a quantity given as a number as its text. The CRD is read
/// without reusing k8s-openapi types here, since the imported file writes those out (and
/// `import` says so); the standard status's own fields are left out of the objects.
#[test]
fn objects_change_alike_through_the_crd_and_the_imported_file() {
    use kondition::wire::json::same;
    use kondition_testkit::objects::{Sample, normalize, object};
    let files = corpus_files();
    let dir = scratch("objects");
    let options = kondition_gen::crd::Options {
        reuse_k8s_types: false,
        ..Default::default()
    };
    let mut compared = 0;
    for (n, file) in files.iter().enumerate() {
        let out = dir.join(n.to_string());
        std::fs::create_dir_all(&out).expect("mkdir");
        let model =
            kondition_gen::load::load(std::slice::from_ref(file), &Profiles::embedded(), &options)
                .unwrap_or_else(|e| panic!("{e}"));
        for (kind, imported, _) in import(file, &out) {
            let crd = kondition_gen::manifest::crd(&kind, &[]);
            let Some(ours) = model.files[0].kinds.iter().find(|k| k.kind == kind.kind) else {
                panic!("{}: {} not read", file.display(), kind.kind);
            };
            let theirs = &imported.kinds[0];
            for version in &ours.versions {
                let Some(other) = theirs.versions.iter().find(|v| v.name == version.name) else {
                    continue;
                };
                for sample in Sample::ALL {
                    let Some(mut value) = object(&crd, &version.name, sample) else {
                        continue;
                    };
                    if let Some(Json::Object(status)) = value.get_mut("status") {
                        status.remove("conditions");
                        status.remove("observedGeneration");
                    }
                    let (mut a, mut b) = (value.clone(), value);
                    normalize(&mut a, ours, version, &[]);
                    normalize(&mut b, theirs, other, &imported.types);
                    assert!(
                        same(&a, &b),
                        "{} {} {} {}: the objects differ",
                        file.display(),
                        kind.kind,
                        version.name,
                        sample.name()
                    );
                    compared += 1;
                }
            }
        }
    }
    // 134 kind versions (Kueue's two and Argo Rollouts' one since issue 48), three objects each.
    assert_eq!(compared, 402, "every kind version's three objects");
    let _ = std::fs::remove_dir_all(&dir);
}
