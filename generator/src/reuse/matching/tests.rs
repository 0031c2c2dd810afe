//! The rule on real CRD subtrees (prometheus-operator's Prometheus embeds a `Container`, an
//! `Affinity`, ...) and on near misses made from them, each one condition of the rule broken;
//! the version window and the tie-break on a small catalog of made-up types.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use crate::model::{Body, Field, IntegerType, ListType, MapType, Reused, SchemaFile, StringType};
use crate::source::yaml::Pos;

use super::super::catalog::{CatalogData, ObjectShape, Property, Variant};
use super::*;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");
const PROMETHEUS: &str = "prometheus-operator/monitoring.coreos.com_prometheuses.yaml";
const CONTAINER: &str = "api::core::v1::Container";

fn read(relative: &str) -> SchemaFile {
    let path = Path::new(CORPUS).join(relative);
    let text = std::fs::read_to_string(&path).expect("a corpus file");
    // The subtrees as the CRD has them: the reader would make the matches k8s-openapi types.
    let documents = crate::source::yaml::parse(&text).expect("YAML");
    let options = crate::crd::Options {
        reuse_k8s_types: false,
        ..Default::default()
    };
    let profiles = crate::profile::Profiles::embedded();
    crate::crd::read_documents(&path, &documents, &options, &profiles)
        .expect("reads")
        .0
}

/// The fields of Prometheus v1 (read once).
fn prometheus() -> &'static [Field] {
    static FILE: OnceLock<SchemaFile> = OnceLock::new();
    let file = FILE.get_or_init(|| read(PROMETHEUS));
    match &file.kinds[0].versions[0].body {
        Body::Root(fields) => fields,
        Body::Standard { .. } => panic!("a CRD's kinds have root fields"),
    }
}

/// The schema at `path` below `fields`: names separated by dots, `[]` for a list's items.
fn schema_mut<'a>(fields: &'a mut [Field], path: &str) -> &'a mut Schema {
    let (first, rest) = path.split_once('.').unwrap_or((path, ""));
    let (name, items) = match first.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (first, false),
    };
    let field = fields
        .iter_mut()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}"));
    let mut schema = &mut field.schema;
    if items {
        let Type::List(list) = &mut schema.ty else {
            panic!("{name} is not a list");
        };
        schema = &mut list.items;
    }
    if rest.is_empty() {
        return schema;
    }
    let Type::Object(object) = &mut schema.ty else {
        panic!("{name} is not an object");
    };
    schema_mut(&mut object.fields, rest)
}

fn object_mut(schema: &mut Schema) -> &mut ObjectType {
    match &mut schema.ty {
        Type::Object(object) => object,
        other => panic!("not an object: {other:?}"),
    }
}

/// The Prometheus subtree at `path` (an object) and its description, changed by `change`.
fn subtree(path: &str, change: impl FnOnce(&mut Schema)) -> (ObjectType, Option<String>) {
    let mut fields = prometheus().to_vec();
    let schema = schema_mut(&mut fields, path);
    change(schema);
    let docs = schema.docs.clone();
    (object_mut(schema).clone(), docs)
}

fn find_at(path: &str, change: impl FnOnce(&mut Schema)) -> Option<(String, Minor)> {
    let (object, docs) = subtree(path, change);
    Catalog::get()
        .find(&object, docs.as_deref())
        .map(|reused| (reused.path, reused.since))
}

fn found(path: &str, since: Minor) -> Option<(String, Minor)> {
    Some((path.to_owned(), since))
}

fn field_mut<'a>(object: &'a mut ObjectType, name: &str) -> &'a mut Field {
    object
        .fields
        .iter_mut()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}"))
}

fn list_mut(schema: &mut Schema) -> &mut ListType {
    match &mut schema.ty {
        Type::List(list) => list,
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn the_embedded_catalog_has_every_supported_version() {
    let data = Catalog::get().data();
    assert_eq!(data.versions, vec![33, 34, 35, 36, 37]);
    assert!(data.source.starts_with("k8s-openapi 0.29."));
    assert!(data.types.contains_key(CONTAINER));
    assert!(data.types.len() > 200, "{} types", data.types.len());
}

#[test]
fn prometheus_containers_are_containers_since_1_34() {
    // restartPolicyRules (and env[].valueFrom.fileKeyRef) came with Kubernetes 1.34.
    assert_eq!(find_at("spec.containers[]", |_| {}), found(CONTAINER, 34));
    assert_eq!(
        find_at("spec.initContainers[]", |_| {}),
        found(CONTAINER, 34)
    );
    let (object, docs) = subtree("spec.containers[]", |_| {});
    let reused = Catalog::get().find(&object, docs.as_deref());
    assert_eq!(
        reused,
        Some(Reused {
            path: CONTAINER.to_owned(),
            since: 34,
            original: Type::Object(object),
        })
    );
}

#[test]
fn prometheus_affinity_is_affinity() {
    assert_eq!(
        find_at("spec.affinity", |_| {}),
        found("api::core::v1::Affinity", 33)
    );
    assert_eq!(
        find_at("spec.podMonitorSelector", |_| {}),
        found("apimachinery::pkg::apis::meta::v1::LabelSelector", 33)
    );
    assert_eq!(
        find_at("spec.imagePullSecrets[]", |_| {}),
        found("api::core::v1::LocalObjectReference", 33)
    );
}

#[test]
fn a_nested_object_already_reused_is_compared_by_its_original() {
    let container = find_at("spec.containers[]", |schema| {
        let resources = &mut field_mut(object_mut(schema), "resources").schema;
        let original = resources.ty.clone();
        resources.ty = Type::Reused(Box::new(Reused {
            path: "api::core::v1::ResourceRequirements".to_owned(),
            since: 33,
            original,
        }));
    });
    assert_eq!(container, found(CONTAINER, 34));
}

#[test]
fn one_property_more_or_fewer_does_not_match() {
    let extra = find_at("spec.containers[]", |schema| {
        let object = object_mut(schema);
        let mut field = object.fields[0].clone();
        field.name = "sidecarMode".to_owned();
        field.schema = Schema::of(Type::String(StringType::default()));
        object.fields.push(field);
    });
    assert_eq!(extra, None);
    // `stdin` is in every version: a Container without it is held by no version exactly.
    let fewer = find_at("spec.containers[]", |schema| {
        object_mut(schema).fields.retain(|f| f.name != "stdin");
    });
    assert_eq!(fewer, None);
}

#[test]
fn a_property_the_type_requires_left_optional_does_not_match() {
    let loose = find_at("spec.containers[]", |schema| {
        field_mut(object_mut(schema), "name").required = false;
    });
    assert_eq!(loose, None);
    // Deeper: a port's containerPort.
    let loose = find_at("spec.containers[]", |schema| {
        let ports = &mut field_mut(object_mut(schema), "ports").schema;
        field_mut(object_mut(&mut list_mut(ports).items), "containerPort").required = false;
    });
    assert_eq!(loose, None);
}

#[test]
fn a_required_property_defaulted_to_what_k8s_openapi_invents_counts_as_required() {
    // `imagePullSecrets[].name` is optional with `default: ""`, and LocalObjectReference's
    // `name` is a String: an absent name is "" either way.
    let (object, _) = subtree("spec.imagePullSecrets[]", |_| {});
    let name = &object.fields[0];
    assert!(!name.required);
    assert_eq!(name.schema.default, Some(serde_json::json!("")));
    let other_default = find_at("spec.imagePullSecrets[]", |schema| {
        field_mut(object_mut(schema), "name").schema.default = Some(serde_json::json!("x"));
    });
    assert_eq!(other_default, None);
    let no_default = find_at("spec.imagePullSecrets[]", |schema| {
        field_mut(object_mut(schema), "name").schema.default = None;
    });
    assert_eq!(no_default, None);
}

#[test]
fn a_different_list_type_does_not_match() {
    let with_ports = |kind: ListKind| {
        find_at("spec.containers[]", move |schema| {
            let ports = &mut field_mut(object_mut(schema), "ports").schema;
            list_mut(ports).kind = kind;
        })
    };
    // The CRD keys ports by containerPort and protocol; k8s-openapi merges by containerPort.
    let keys = |keys: &[&str]| ListKind::Map(keys.iter().map(|k| (*k).to_owned()).collect());
    assert_eq!(
        with_ports(keys(&["containerPort", "protocol"])),
        found(CONTAINER, 34)
    );
    assert_eq!(with_ports(keys(&["containerPort"])), found(CONTAINER, 34));
    assert_eq!(with_ports(ListKind::Atomic), None);
    assert_eq!(with_ports(keys(&["name"])), None);
    assert_eq!(with_ports(ListKind::Set), None);
    // And an atomic list (args) made a set.
    let args_set = find_at("spec.containers[]", |schema| {
        let args = &mut field_mut(object_mut(schema), "args").schema;
        list_mut(args).kind = ListKind::Set;
    });
    assert_eq!(args_set, None);
}

#[test]
fn a_map_with_another_map_type_does_not_match() {
    let atomic_limits = find_at("spec.resources", |schema| {
        let limits = &mut field_mut(object_mut(schema), "limits").schema;
        let Type::Map(map) = &mut limits.ty else {
            panic!("limits is a map");
        };
        map.atomic = true;
    });
    assert_eq!(atomic_limits, None);
}

#[test]
fn a_nullable_property_does_not_match() {
    let nullable = find_at("spec.containers[]", |schema| {
        field_mut(object_mut(schema), "image").schema.nullable = true;
    });
    assert_eq!(nullable, None);
    // Anywhere in the subtree: a probe's timeout.
    let nullable = find_at("spec.containers[]", |schema| {
        let probe = &mut field_mut(object_mut(schema), "livenessProbe").schema;
        field_mut(object_mut(probe), "timeoutSeconds")
            .schema
            .nullable = true;
    });
    assert_eq!(nullable, None);
}

#[test]
fn an_int64_where_the_type_has_an_int32_does_not_match() {
    let wider = find_at("spec.containers[]", |schema| {
        let ports = &mut field_mut(object_mut(schema), "ports").schema;
        let port = &mut field_mut(object_mut(&mut list_mut(ports).items), "containerPort").schema;
        let Type::Integer(int) = &mut port.ty else {
            panic!("containerPort is an integer");
        };
        assert_eq!(int.format, IntegerFormat::Int32);
        int.format = IntegerFormat::Int64;
    });
    assert_eq!(wider, None);
}

#[test]
fn an_object_preserving_unknown_fields_does_not_match() {
    let open = find_at("spec.containers[]", |schema| {
        object_mut(schema).preserve_unknown = true;
    });
    assert_eq!(open, None);
    let nested = find_at("spec.containers[]", |schema| {
        let resources = &mut field_mut(object_mut(schema), "resources").schema;
        object_mut(resources).preserve_unknown = true;
    });
    assert_eq!(nested, None);
}

fn string_field(name: &str, required: bool, docs: &str) -> Field {
    let mut schema = Schema::of(Type::String(StringType::default()));
    schema.docs = Some(docs.to_owned());
    Field {
        name: name.to_owned(),
        required,
        schema,
    }
}

fn object(fields: Vec<Field>) -> ObjectType {
    ObjectType {
        name: "Test".to_owned(),
        pos: Pos::default(),
        fields,
        min_properties: None,
        max_properties: None,
        preserve_unknown: false,
    }
}

#[test]
fn small_structures_need_an_agreeing_description() {
    let catalog = Catalog::get();
    let tenant = object(vec![string_field("name", true, "Name of the tenant.")]);
    assert_eq!(catalog.find(&tenant, Some("A tenant.")), None);
    // The same shape with LocalObjectReference's description of `name` (any whitespace).
    let (real, _) = subtree("spec.imagePullSecrets[]", |_| {});
    let name_docs = real.fields[0].schema.docs.clone().expect("documented");
    let reference = object(vec![string_field(
        "name",
        true,
        &name_docs.replace('\n', "  "),
    )]);
    assert_eq!(
        catalog.find(&reference, None).map(|r| r.path),
        Some("api::core::v1::LocalObjectReference".to_owned())
    );
    // Or the object's own description.
    let described = object(vec![string_field("name", true, "Name of the tenant.")]);
    assert_eq!(
        catalog
            .find(
                &described,
                Some(
                    "LocalObjectReference contains enough information to let you locate the\n\
                 referenced object inside the same namespace."
                )
            )
            .map(|r| r.path),
        Some("api::core::v1::LocalObjectReference".to_owned())
    );
    // Two properties (Sysctl's name and value), foreign descriptions.
    let pair = object(vec![
        string_field("name", true, "The label."),
        string_field("value", true, "The label's value."),
    ]);
    assert_eq!(catalog.find(&pair, Some("A label.")), None);
}

#[test]
fn the_window_starts_at_the_version_that_added_a_property() {
    // Without what 1.34 added (restartPolicyRules, env[].valueFrom.fileKeyRef), the
    // Prometheus container is a Container of every version.
    let older = find_at("spec.containers[]", |schema| {
        let container = object_mut(schema);
        container.fields.retain(|f| f.name != "restartPolicyRules");
        let env = &mut field_mut(container, "env").schema;
        let value_from = &mut field_mut(object_mut(&mut list_mut(env).items), "valueFrom").schema;
        object_mut(value_from)
            .fields
            .retain(|f| f.name != "fileKeyRef");
    });
    assert_eq!(older, found(CONTAINER, 33));
    // With only restartPolicyRules removed, no version holds it exactly: 1.33 has no
    // env[].valueFrom.fileKeyRef, and from 1.34 on Container has restartPolicyRules too.
    let env_only = find_at("spec.containers[]", |schema| {
        object_mut(schema)
            .fields
            .retain(|f| f.name != "restartPolicyRules");
    });
    assert_eq!(env_only, None);
}

/// A catalog of made-up types: `path` has `shapes[i]` at minor `i + 1` (None: the type does
/// not exist then); the versions are 1 to the longest list's length.
fn made_up(types: &[(&str, Vec<Option<ObjectShape>>)]) -> Catalog {
    let last = types
        .iter()
        .map(|(_, shapes)| shapes.len())
        .max()
        .unwrap_or(0);
    let mut data = CatalogData {
        source: "made up".to_owned(),
        versions: (1..=Minor::try_from(last).unwrap_or(0)).collect(),
        types: BTreeMap::new(),
    };
    for (path, shapes) in types {
        let variants = shapes
            .iter()
            .zip(1..)
            .filter_map(|(shape, minor)| {
                Some(Variant {
                    versions: vec![minor],
                    shape: Shape::Object(shape.clone()?),
                })
            })
            .collect();
        data.types.insert((*path).to_owned(), variants);
    }
    Catalog::new(data)
}

fn shape(properties: &[(&str, &str)], required: &[&str]) -> ObjectShape {
    ObjectShape {
        doc: None,
        required: required.iter().map(|r| (*r).to_owned()).collect(),
        properties: properties
            .iter()
            .map(|(name, docs)| {
                (
                    (*name).to_owned(),
                    Property {
                        ty: PropertyType::String,
                        doc: Some(DocHash::of(docs)),
                    },
                )
            })
            .collect(),
    }
}

#[test]
fn every_version_after_the_first_exact_one_holds_the_subtree() {
    let abc = shape(&[("a", "A"), ("b", "B"), ("c", "C")], &[]);
    let abcd = shape(&[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")], &[]);
    let ab_c_required = shape(&[("a", "A"), ("b", "B"), ("c", "C")], &["c"]);
    let subtree = object(vec![
        string_field("a", false, ""),
        string_field("b", false, ""),
        string_field("c", false, ""),
    ]);
    let find = |shapes: Vec<Option<ObjectShape>>| {
        made_up(&[("api::core::v1::T", shapes)])
            .find(&subtree, None)
            .map(|r| r.since)
    };
    // Exact at 2; 3 added an optional property.
    assert_eq!(
        find(vec![None, Some(abc.clone()), Some(abcd.clone())]),
        Some(2)
    );
    // Exact at 1 and 3, but c required at 2: the window from 1 is broken.
    assert_eq!(
        find(vec![
            Some(abc.clone()),
            Some(ab_c_required.clone()),
            Some(abc.clone())
        ]),
        None
    );
    assert_eq!(
        find(vec![
            Some(ab_c_required),
            Some(abc.clone()),
            Some(abcd.clone())
        ]),
        Some(2)
    );
    // Exact at 1, gone at 3: the newest version does not hold it.
    assert_eq!(
        find(vec![Some(abc.clone()), Some(abcd.clone()), None]),
        None
    );
    // Never exact, only a superset.
    assert_eq!(find(vec![Some(abcd.clone()), Some(abcd), None]), None);
    assert_eq!(
        find(vec![Some(abc.clone()), Some(abc.clone()), Some(abc)]),
        Some(1)
    );
}

#[test]
fn ties_go_to_agreeing_descriptions_then_to_core_v1_then_by_path() {
    let abc = || shape(&[("a", "A"), ("b", "B"), ("c", "C")], &[]);
    let abc_documented = || shape(&[("a", "A"), ("b", "B"), ("c", "The c.")], &[]);
    let every = |s: ObjectShape| vec![Some(s.clone()), Some(s.clone()), Some(s)];
    let subtree = object(vec![
        string_field("a", false, "A"),
        string_field("b", false, "B"),
        string_field("c", false, "The c."),
    ]);
    let best = |types: &[(&str, Vec<Option<ObjectShape>>)]| {
        made_up(types).find(&subtree, None).map(|r| r.path)
    };
    assert_eq!(
        best(&[
            ("api::apps::v1::T", every(abc())),
            ("api::core::v1::U", every(abc())),
            ("api::core::v1::T", every(abc())),
            ("apimachinery::pkg::apis::meta::v1::T", every(abc())),
        ]),
        Some("api::core::v1::T".to_owned())
    );
    assert_eq!(
        best(&[
            ("api::apps::v1::T", every(abc_documented())),
            ("api::core::v1::T", every(abc())),
        ]),
        Some("api::apps::v1::T".to_owned())
    );
    assert_eq!(
        best(&[
            ("api::storage::v1::T", every(abc())),
            ("apimachinery::pkg::apis::meta::v1::T", every(abc())),
        ]),
        Some("apimachinery::pkg::apis::meta::v1::T".to_owned())
    );
}

#[test]
fn scalar_types_match_by_kind_and_width() {
    let catalog = made_up(&[(
        "api::core::v1::T",
        vec![Some(ObjectShape {
            doc: None,
            required: Vec::new(),
            properties: [
                ("a", PropertyType::Int32),
                ("b", PropertyType::Int64),
                ("c", PropertyType::Bytes),
                (
                    "d",
                    PropertyType::Map(Box::new(PropertyType::String), MapMerge::Granular),
                ),
            ]
            .into_iter()
            .map(|(name, ty)| (name.to_owned(), Property { ty, doc: None }))
            .collect(),
        })],
    )]);
    let int = |format| {
        Schema::of(Type::Integer(IntegerType {
            format,
            bounds: Default::default(),
        }))
    };
    let field = |name: &str, schema: Schema| Field {
        name: name.to_owned(),
        required: false,
        schema,
    };
    let byte = Schema::of(Type::String(StringType {
        format: Some("byte".to_owned()),
        ..StringType::default()
    }));
    let map = Schema::of(Type::Map(Box::new(MapType {
        values: Schema::of(Type::Enum(EnumType {
            name: "E".to_owned(),
            pos: Pos::default(),
            values: EnumValues::Str(vec!["x".to_owned()]),
        })),
        min_properties: None,
        max_properties: None,
        atomic: false,
    })));
    let enum_int = Schema::of(Type::Enum(EnumType {
        name: String::new(),
        pos: Pos::default(),
        values: EnumValues::Int(vec![1, 2]),
    }));
    let holds = |fields: Vec<Field>| catalog.find(&object(fields), None).is_some();
    let good = || {
        vec![
            field("a", int(IntegerFormat::Int32)),
            field("b", int(IntegerFormat::Int64)),
            field("c", byte.clone()),
            field("d", map.clone()),
        ]
    };
    assert!(holds(good()));
    let mut enum_for_int64 = good();
    enum_for_int64[1] = field("b", enum_int);
    assert!(holds(enum_for_int64));
    let mut swapped = good();
    swapped[0] = field("a", int(IntegerFormat::Int64));
    assert!(!holds(swapped));
    let mut plain = good();
    plain[2] = field("c", Schema::of(Type::String(StringType::default())));
    assert!(!holds(plain));
    let mut number = good();
    number[1] = field(
        "b",
        Schema::of(Type::Number(crate::model::NumberType {
            format: None,
            bounds: Default::default(),
        })),
    );
    assert!(!holds(number));
}

/// Every object subtree of `fields`, outermost first: (place, object, description).
fn subtrees<'a>(
    fields: &'a [Field],
    place: &str,
    out: &mut Vec<(String, &'a ObjectType, Option<&'a str>)>,
) {
    for field in fields {
        subtrees_of(&field.schema, &format!("{place}.{}", field.name), out);
    }
}

fn subtrees_of<'a>(
    schema: &'a Schema,
    place: &str,
    out: &mut Vec<(String, &'a ObjectType, Option<&'a str>)>,
) {
    match &schema.ty {
        Type::Object(object) => {
            out.push((place.to_owned(), object, schema.docs.as_deref()));
            subtrees(&object.fields, place, out);
        }
        Type::List(list) => subtrees_of(&list.items, &format!("{place}[]"), out),
        Type::Map(map) => subtrees_of(&map.values, &format!("{place}{{}}"), out),
        _ => {}
    }
}

/// The object subtrees of `fields`: how many there are, how many match, and the outermost
/// matches (those inside no other match) as (place, type path).
fn matches(fields: &[Field]) -> (usize, usize, Vec<(String, String)>) {
    let catalog = Catalog::get();
    let mut all = Vec::new();
    subtrees(fields, "", &mut all);
    let mut matched = 0;
    let mut outer: Vec<(String, String)> = Vec::new();
    for (place, object, docs) in &all {
        let Some(reused) = catalog.find(object, *docs) else {
            continue;
        };
        matched += 1;
        let inside = outer.iter().any(|(o, _)| {
            place
                .strip_prefix(o.as_str())
                .is_some_and(|rest| rest.starts_with(['.', '[', '{']))
        });
        if !inside {
            outer.push((place.clone(), reused.path));
        }
    }
    (all.len(), matched, outer)
}

/// How many of `outer` are of each type.
fn by_type(outer: &[(String, String)], types: &mut BTreeMap<String, usize>) {
    for (_, path) in outer {
        *types.entry(path.clone()).or_default() += 1;
    }
}

#[test]
fn prometheus_figures() {
    let (subtrees, matched, outer) = matches(prometheus());
    let mut types = BTreeMap::new();
    by_type(&outer, &mut types);
    let outermost = outer.len();
    eprintln!(
        "Prometheus v1: {subtrees} object subtrees, {matched} match, {outermost} outermost: {types:#?}"
    );
    assert_eq!((subtrees, matched, outermost), (450, 348, 143));
    assert_eq!(types.get(CONTAINER), Some(&2));
    assert_eq!(types.get("api::core::v1::Affinity"), Some(&1));
    assert_eq!(types.get("api::core::v1::SecretKeySelector"), Some(&63));
    assert_eq!(types.len(), 44);
}

/// Every file of the corpus, read once.
fn corpus() -> &'static [SchemaFile] {
    static FILES: OnceLock<Vec<SchemaFile>> = OnceLock::new();
    FILES.get_or_init(|| {
        crate::inputs::schema_files(&[Path::new(CORPUS).to_owned()])
            .expect("corpus")
            .iter()
            .map(|path| {
                read(
                    path.strip_prefix(CORPUS)
                        .unwrap_or(path)
                        .to_str()
                        .expect("UTF-8"),
                )
            })
            .collect()
    })
}

#[test]
fn corpus_figures() {
    let files = corpus();
    let (mut subtrees, mut matched) = (0, 0);
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for file in files {
        for version in file.kinds.iter().flat_map(|k| &k.versions) {
            let (s, m, outer) = matches(&version.body.fields().cloned().collect::<Vec<_>>());
            subtrees += s;
            matched += m;
            by_type(&outer, &mut types);
        }
    }
    let outermost: usize = types.values().sum();
    eprintln!(
        "{} files: {subtrees} object subtrees, {matched} match, {outermost} outermost: {types:#?}",
        files.len()
    );
    // Statuses whose conditions `kondition::Conditions` holds have it instead (`crd::status`),
    // 21 lists of the corpus (since issue 37 also those with an optional or absent `reason`,
    // `message` or `lastTransitionTime`, or a free-text `status`: Prometheus', cert-manager's,
    // Crossplane's XRD, Argo CD's ApplicationSet and KEDA's; since issue 48 Kueue's Workload,
    // in its two versions). Kueue's Workload and Argo Rollouts' Rollout (issue 48) brought
    // 971 subtrees, 793 matches, 148 outermost and 14 types (Rollout's conditions are apps/v1
    // `DeploymentCondition`s). Since issue 48's Knative item, 72 lists more are conditions
    // (a free-text `severity`, a plain-string `lastTransitionTime`: Tekton's PipelineRun,
    // Knative Serving's Service, every ASO kind), 72 item subtrees fewer.
    assert_eq!((subtrees, matched, outermost), (12060, 2403, 1109));
    assert_eq!(types.len(), 86);
}

/// What k8s-openapi's type at `path` writes for `value`, for the types the corpus's matches
/// are.
fn k8s_writes(path: &str, value: &serde_json::Value) -> Option<Result<serde_json::Value, String>> {
    use k8s_openapi::api::apps::v1 as apps;
    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
    use k8s_openapi::serde::{Serialize, de::DeserializeOwned};
    fn through<T: DeserializeOwned + Serialize>(
        value: &serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        serde_json::from_value::<T>(value.clone())
            .and_then(serde_json::to_value)
            .map_err(|e| e.to_string())
    }
    macro_rules! types {
        ($($module:ident::$name:ident),* $(,)?) => {
            match path.rsplit_once("::").map(|(_, name)| name) {
                $(Some(stringify!($name))
                    if path.ends_with(concat!(stringify!($module), "::v1::", stringify!($name))) =>
                {
                    Some(through::<$module::$name>(value))
                })*
                _ => None,
            }
        };
    }
    types!(
        apps::DeploymentCondition,
        apps::StatefulSetPersistentVolumeClaimRetentionPolicy,
        core::AWSElasticBlockStoreVolumeSource,
        core::Affinity,
        core::AzureDiskVolumeSource,
        core::AzureFileVolumeSource,
        core::CSIVolumeSource,
        core::Capabilities,
        core::CephFSVolumeSource,
        core::CinderVolumeSource,
        core::ConfigMapKeySelector,
        core::ConfigMapProjection,
        core::ConfigMapVolumeSource,
        core::Container,
        core::ContainerPort,
        core::ContainerResizePolicy,
        core::ContainerRestartRule,
        core::ContainerStateRunning,
        core::ContainerStateTerminated,
        core::ContainerStateWaiting,
        core::DownwardAPIProjection,
        core::DownwardAPIVolumeSource,
        core::EmptyDirVolumeSource,
        core::EnvFromSource,
        core::EnvVar,
        core::EphemeralContainer,
        core::ExecAction,
        core::FCVolumeSource,
        core::FlexVolumeSource,
        core::FlockerVolumeSource,
        core::GCEPersistentDiskVolumeSource,
        core::GitRepoVolumeSource,
        core::GlusterfsVolumeSource,
        core::HTTPHeader,
        core::HostAlias,
        core::HostPathVolumeSource,
        core::ISCSIVolumeSource,
        core::ImageVolumeSource,
        core::Lifecycle,
        core::LocalObjectReference,
        core::NFSVolumeSource,
        core::NamespaceCondition,
        core::NodeAffinity,
        core::NodeSelectorRequirement,
        core::NodeSystemInfo,
        core::ObjectReference,
        core::PersistentVolumeClaimSpec,
        core::PersistentVolumeClaimStatus,
        core::PersistentVolumeClaimVolumeSource,
        core::PhotonPersistentDiskVolumeSource,
        core::PodAffinity,
        core::PodAntiAffinity,
        core::PodDNSConfig,
        core::PodDNSConfigOption,
        core::PodOS,
        core::PodReadinessGate,
        core::PodResourceClaim,
        core::PodSchedulingGate,
        core::PodSchedulingGroup,
        core::PodSecurityContext,
        core::PortworxVolumeSource,
        core::Probe,
        core::ProjectedVolumeSource,
        core::QuobyteVolumeSource,
        core::RBDVolumeSource,
        core::ResourceClaim,
        core::ResourceRequirements,
        core::SELinuxOptions,
        core::ScaleIOVolumeSource,
        core::SeccompProfile,
        core::SecretKeySelector,
        core::SecretProjection,
        core::SecretVolumeSource,
        core::SecurityContext,
        core::ServiceAccountTokenProjection,
        core::ServiceSpec,
        core::StorageOSVolumeSource,
        core::Sysctl,
        core::Toleration,
        core::TopologySpreadConstraint,
        core::TypedLocalObjectReference,
        core::VolumeDevice,
        core::VolumeMount,
        core::VolumeResourceRequirements,
        core::VsphereVirtualDiskVolumeSource,
        meta::Condition,
        meta::LabelSelector,
    )
}

/// The JSON schema at a place of `subtrees` (`.spec.containers[]`) below `root`.
fn json_schema_at<'a>(root: &'a serde_json::Value, place: &str) -> &'a serde_json::Value {
    let mut node = root;
    for segment in place.split('.').filter(|s| !s.is_empty()) {
        let name = segment.trim_end_matches(['[', ']', '{', '}']);
        node = &node["properties"][name];
        let mut rest = &segment[name.len()..];
        while !rest.is_empty() {
            node = if let Some(after) = rest.strip_prefix("[]") {
                rest = after;
                &node["items"]
            } else {
                rest = rest.strip_prefix("{}").unwrap_or("");
                &node["additionalProperties"]
            };
        }
    }
    node
}

#[test]
fn every_corpus_match_reads_and_writes_through_k8s_openapi_as_normalize_predicts() {
    use kondition::wire::json::same;
    // Only JSON crosses: the testkit links its own copy of this library.
    use kondition_testkit::k8s_writes::normalize;
    use kondition_testkit::objects::{Sample, value};
    let mut checked = 0;
    for kind in corpus().iter().flat_map(|file| &file.kinds) {
        let crd = kind
            .source_crd
            .as_ref()
            .expect("a CRD's spec is kept")
            .to_json();
        for version in &kind.versions {
            let root = crd["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|v| v["name"] == version.name.as_str())
                .map(|v| &v["schema"]["openAPIV3Schema"])
                .expect("the version's schema");
            let fields: Vec<Field> = version.body.fields().cloned().collect();
            for (place, path) in matches(&fields).2 {
                let place = format!("{}/{}{place}", kind.kind, version.name);
                let schema = json_schema_at(root, place.split_once('.').map_or("", |(_, p)| p));
                assert!(schema.is_object(), "{place}: no schema");
                // Nulls is Full with no nulls here (nothing is nullable), and numbers for
                // int-or-strings.
                for sample in Sample::ALL {
                    let input = value(schema, sample);
                    let mut predicted = input.clone();
                    normalize(&path, &mut predicted);
                    let written = k8s_writes(&path, &input)
                        .unwrap_or_else(|| panic!("{place}: add {path} to k8s_writes"))
                        .unwrap_or_else(|e| panic!("{place} ({path}): {e}: {input:#}"));
                    assert!(
                        same(&written, &predicted),
                        "{place} ({path}, {}): k8s-openapi wrote {written:#}, predicted {predicted:#}",
                        sample.name()
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 1109);
}
