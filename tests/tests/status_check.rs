//! The offline status checker (`kondition::check::Checker` with a CRD) on every object
//! `kondition_testkit::objects` synthesizes for the corpus' CRDs (every version with a status
//! schema; full, minimal and nulls), made valid where the synthesizer's "text" and 7 are not
//! (`conform`, support/conform.rs, as crds_on_server.rs sends them to the real server):
//!
//! - each valid object: no schema violation at all (nothing refused, dropped or unchecked
//!   but transition rules, which an offline check cannot evaluate);
//! - the same object with one value broken per rule its status schema states, at every
//!   place it states one (a wrong type, a value outside an enum, a text its pattern
//!   refuses, a required field removed, a text a CEL rule refuses: [`CEL_BREAKS`]), at the
//!   first [`PLACES_PER_RULE`] places of each:
//!   exactly that violation, at that path, and nothing else (but for the CEL rules the CRD
//!   states at the same place, which the value may break too, as the server reports them).
//!
//! Only the checker's `schema-*` rules are counted: the conventions (`condition-*`) are
//! kondition's own, which third-party statuses need not follow (the synthesizer writes
//! fractional seconds, for one).

mod support;

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::check::{Checker, Level, Violation};
use kondition_testkit::objects::{self, Sample};
use serde_json::{Map, Value, json};
use support::conform::conform;

/// The corpus' CRD documents as JSON, with the file each comes from.
fn corpus_crds() -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = kondition_gen::inputs::schema_files(std::slice::from_ref(&root)).expect("corpus");
    let mut crds = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a corpus file");
        let documents = kondition_gen::source::yaml::parse(&text)
            .unwrap_or_else(|e| panic!("{}: {}", file.display(), e.message));
        for document in documents {
            let crd = document.to_json();
            if crd["kind"] == "CustomResourceDefinition" {
                crds.push((file.clone(), crd));
            }
        }
    }
    crds
}

/// The schema rules' violations, but transition rules and the formats left to the server
/// (reported, never evaluated offline) and
/// the note that a schema error kept the CEL rules from being evaluated (as the server does).
fn schema_violations(found: Vec<Violation>) -> Vec<Violation> {
    found
        .into_iter()
        .filter(|v| {
            v.rule.starts_with("schema-")
                && v.rule != "schema-cel-transition"
                && v.rule != "schema-format-unchecked"
                && v.rule != "schema-cel-not-evaluated"
        })
        .collect()
}

/// How many places of each rule are broken in each object, first in document order.
const PLACES_PER_RULE: usize = 8;

/// One value broken on purpose: where, and the rule that must catch it.
struct Break {
    path: String,
    pointer: String,
    rule: &'static str,
    /// The broken value, or `None` to remove the field.
    value: Option<Value>,
    /// Whether the CRD also states CEL rules at this place, which the broken value may break
    /// too (a URL's pattern and its `isURL(self)`), as the server reports both.
    cel_here: bool,
}

/// The path of the object holding the field at `path`.
fn parent_path(path: &str) -> &str {
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    &path[..cut]
}

/// `.status.foo` or `.status["a.b"]`, as the checker writes paths.
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

/// A text `pattern` refuses that fits the schema's lengths, if one of a few does.
fn refused_by_pattern(schema: &Value) -> Option<String> {
    let pattern = regex::Regex::new(schema["pattern"].as_str()?).ok()?;
    let (min, max) = (
        schema["minLength"].as_u64().unwrap_or(0),
        schema["maxLength"].as_u64().unwrap_or(u64::MAX),
    );
    ["~", "~~~~~~~~", "Not Matching ~", ""]
        .iter()
        .map(|t| (*t).to_owned())
        .chain(std::iter::once(
            "~".repeat(usize::try_from(min).unwrap_or(1)),
        ))
        .find(|t| {
            let length = t.chars().count() as u64;
            length >= min && length <= max && !pattern.is_match(t)
        })
}

/// A value that breaks each CEL rule the corpus' status schemas state, by the rule's text,
/// and passes the schema's other rules at its place (gitops-promoter's URLs also have the
/// pattern `^(https?://.*)?$`). A rule without one here fails the test: a new CRD of the
/// corpus brings its own break.
const CEL_BREAKS: [(&str, &str); 1] = [
    // An IPv6 host left open: what Go's url.ParseRequestURI, behind the server's isURL,
    // refuses.
    ("self == '' || isURL(self)", "http://[::1"),
];

/// What the CEL rules of a kind's status schema need of `status` that the synthesizer's
/// values break, each rule quoted; a kind of the corpus whose status rules a synthesized
/// object breaks brings its case here.
fn satisfy_status_rules(kind: &str, status: &mut Value) {
    if kind != "Workload" {
        return;
    }
    // Kueue's Workload. "!has(self.clusterName) || (!has(self.nominatedClusterNames) || ...
    // size(self.nominatedClusterNames) == 0)".
    if let Some(status) = status.as_object_mut()
        && status.get("clusterName").is_some_and(|c| !c.is_null())
    {
        status.remove("nominatedClusterNames");
    }
    // Each of admissionChecks[].podSetUpdates[].tolerations: "!has(x.key) ? x.operator ==
    // 'Exists' : true", "has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true",
    // "x.operator in ['Equal', 'Exists']", "x.effect in ['NoSchedule', 'PreferNoSchedule',
    // 'NoExecute']": a key, Equal and NoExecute hold them all.
    for toleration in each_object(status, &["admissionChecks", "podSetUpdates", "tolerations"]) {
        toleration.insert("key".into(), json!("example.com/text"));
        toleration.insert("operator".into(), json!("Equal"));
        toleration.insert("effect".into(), json!("NoExecute"));
    }
    // v1beta2's admission.podSetAssignments[].topologyAssignment.slices[]: podCounts and each
    // of valuesPerLevel[] hold "exactly one of the fields in [universal individual]"; with
    // `universal` alone, the rules on `individual`'s length hold too.
    let slices = [
        "admission",
        "podSetAssignments",
        "topologyAssignment",
        "slices",
    ];
    for field in ["podCounts", "valuesPerLevel"] {
        for held in each_object(status, &[&slices[..], &[field]].concat()) {
            held.remove("individual");
        }
    }
}

/// The objects reached from `value` through the fields `keys` names in turn, a list's items
/// each: nothing absent is added (indexing a `Value` would add a null).
fn each_object<'v>(value: &'v mut Value, keys: &[&str]) -> Vec<&'v mut Map<String, Value>> {
    match (value, keys.split_first()) {
        (Value::Array(items), _) => items
            .iter_mut()
            .flat_map(|item| each_object(item, keys))
            .collect(),
        (Value::Object(map), None) => vec![map],
        (Value::Object(map), Some((first, rest))) => map
            .get_mut(*first)
            .map(|child| each_object(child, rest))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A text outside `schema`'s enum that its `maxLength` takes (Kueue's
/// `delayedTopologyRequest`: Pending or Ready, at most 7 bytes), so that only the enum
/// refuses it.
fn not_in_enum(schema: &Value) -> String {
    let most = schema["maxLength"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(usize::MAX);
    let text: String = "KonditionNotInTheEnum".chars().take(most.max(1)).collect();
    assert!(
        !schema["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v == &json!(text)),
        "{text} is in the enum: {schema}"
    );
    text
}

/// Whether `schema` states CEL rules at its own level.
fn has_cel(schema: &Value) -> bool {
    schema["x-kubernetes-validations"]
        .as_array()
        .is_some_and(|rules| !rules.is_empty())
}

/// Every break the schema states for `value` (at `path`, JSON pointer `pointer`).
fn breaks(schema: &Value, value: &Value, path: &str, pointer: &str, found: &mut Vec<Break>) {
    let typed = schema["type"]
        .as_str()
        .filter(|_| schema["x-kubernetes-int-or-string"] != true && !value.is_null());
    if let Some(type_) = typed {
        let wrong = if type_ == "string" {
            json!(12345)
        } else {
            json!("kondition")
        };
        found.push(Break {
            path: path.to_owned(),
            pointer: pointer.to_owned(),
            rule: "schema-type",
            value: Some(wrong),
            cel_here: has_cel(schema),
        });
    }
    if value.is_string() {
        if schema["enum"]
            .as_array()
            .is_some_and(|e| e.iter().all(Value::is_string))
        {
            found.push(Break {
                path: path.to_owned(),
                pointer: pointer.to_owned(),
                rule: "schema-enum",
                value: Some(json!(not_in_enum(schema))),
                cel_here: has_cel(schema),
            });
        } else if let Some(text) = refused_by_pattern(schema).filter(|_| schema["format"].is_null())
        {
            found.push(Break {
                path: path.to_owned(),
                pointer: pointer.to_owned(),
                rule: "schema-pattern",
                value: Some(json!(text)),
                cel_here: has_cel(schema),
            });
        }
    }
    if value.is_string() {
        for rule in schema["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let rule = rule["rule"].as_str().unwrap_or_default();
            let Some((_, text)) = CEL_BREAKS.iter().find(|(known, _)| *known == rule) else {
                panic!("no break for the CEL rule {rule:?} at {path}: add one to CEL_BREAKS");
            };
            found.push(Break {
                path: path.to_owned(),
                pointer: pointer.to_owned(),
                rule: "schema-cel",
                value: Some(json!(text)),
                cel_here: false,
            });
        }
    }
    match value {
        Value::Object(map) => {
            for required in schema["required"].as_array().into_iter().flatten() {
                let Some(key) = required.as_str() else {
                    continue;
                };
                if map.contains_key(key) {
                    found.push(Break {
                        path: child(path, key),
                        pointer: format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1")),
                        rule: "schema-required",
                        value: None,
                        cel_here: has_cel(schema),
                    });
                }
            }
            for (key, item) in map {
                let property = schema["properties"]
                    .get(key)
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(property) = property {
                    let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                    breaks(property, item, &child(path, key), &at, found);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                breaks(
                    &schema["items"],
                    item,
                    &format!("{path}[{index}]"),
                    &format!("{pointer}/{index}"),
                    found,
                );
            }
        }
        _ => {}
    }
}

#[test]
fn synthesized_objects_pass_and_each_broken_value_is_found_alone() {
    let (mut valid, mut broken, mut skipped_objects, mut also_cel) = (0, 0, 0, 0);
    let mut by_rule = std::collections::BTreeMap::<&str, usize>::new();
    let mut failures = Vec::new();
    for (file, crd_json) in corpus_crds() {
        let crd: CustomResourceDefinition =
            serde_json::from_value(crd_json.clone()).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let checker = Checker::new().crd(&crd);
        for version in crd_json["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let name = version["name"].as_str().expect("a version name");
            let root = &version["schema"]["openAPIV3Schema"];
            let Some(status_schema) = root["properties"].get("status") else {
                continue;
            };
            for sample in Sample::ALL {
                let Some(mut object) = objects::object(&crd_json, name, sample) else {
                    continue;
                };
                let Some(status) = object.get_mut("status") else {
                    skipped_objects += 1;
                    continue;
                };
                conform(status_schema, status, sample);
                satisfy_status_rules(
                    crd_json["spec"]["names"]["kind"]
                        .as_str()
                        .unwrap_or_default(),
                    status,
                );
                let what = format!(
                    "{}: {} {name} {}",
                    file.display(),
                    crd_json["spec"]["names"]["kind"],
                    sample.name()
                );
                let found = schema_violations(checker.check(&object));
                if !found.is_empty() {
                    failures.push(format!("{what}: valid, yet: {found:#?}"));
                    continue;
                }
                valid += 1;
                let mut sites = Vec::new();
                breaks(
                    status_schema,
                    &object["status"],
                    ".status",
                    "/status",
                    &mut sites,
                );
                // The first places of each rule: every place of a large status (ASO's, Istio's)
                // would check the whole status once per field.
                let mut taken = std::collections::BTreeMap::<&str, usize>::new();
                sites.retain(|site| {
                    let count = taken.entry(site.rule).or_default();
                    *count += 1;
                    *count <= PLACES_PER_RULE
                });
                for site in sites {
                    let mut changed = object.clone();
                    match &site.value {
                        Some(value) => {
                            *changed.pointer_mut(&site.pointer).expect("the site") = value.clone();
                        }
                        None => {
                            let (parent, key) = site.pointer.rsplit_once('/').expect("a parent");
                            let key = key.replace("~1", "/").replace("~0", "~");
                            changed
                                .pointer_mut(parent)
                                .and_then(Value::as_object_mut)
                                .expect("an object")
                                .remove(&key);
                        }
                    }
                    let found = schema_violations(checker.check(&changed));
                    // A required field is removed from the object that states the CEL rules,
                    // whose path is the parent's.
                    let cel_path = match site.value {
                        Some(_) => site.path.as_str(),
                        None => parent_path(&site.path),
                    };
                    let as_expected = found.first().is_some_and(|first| {
                        first.rule == site.rule
                            && first.path == site.path
                            && first.level == Level::Fail
                    }) && found[1..].iter().all(|other| {
                        site.cel_here
                            && other.rule.starts_with("schema-cel")
                            && other.path == cel_path
                    });
                    if as_expected && found.len() > 1 {
                        also_cel += 1;
                    }
                    if as_expected {
                        broken += 1;
                        *by_rule.entry(site.rule).or_default() += 1;
                    } else {
                        failures.push(format!(
                            "{what}: {} broken at {}: {found:#?}",
                            site.rule, site.path
                        ));
                    }
                }
            }
        }
    }
    println!(
        "{valid} valid objects without a violation, {broken} broken values each found alone \
         ({by_rule:?}; {also_cel} of them also breaking the CEL rules stated at the same \
         place); {skipped_objects} objects without a status"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(valid > 100, "{valid}");
    for rule in [
        "schema-type",
        "schema-enum",
        "schema-pattern",
        "schema-required",
        "schema-cel",
    ] {
        assert!(
            by_rule.get(rule).is_some_and(|&n| n > 0),
            "no {rule} break: {by_rule:?}"
        );
    }
}
