//! How much of a CRD another CRD reproduces, node by node.
//!
//! A schema node is every schema object of a version's `openAPIV3Schema`: the root, each
//! value of `properties`, `items`, an `additionalProperties` schema, each branch of `oneOf`,
//! `anyOf` and `allOf`, and `not`. A node is reproduced when the node at the same path in the
//! output has the same keywords with the same values (numbers compared as numbers), leaving
//! out only the nodes below it and `title`; so a property added, dropped or renamed makes its
//! parent differ, and a missing node counts as different. Everything else of a version
//! (flags, subresources, printer columns, selectable fields) and of the CRD (group, names,
//! scope) is compared whole.
//!
//! The figures in FIDELITY.md come from here, for kondition's output and for other tools'.

use kondition::wire::json::same;
use serde_json::{Map, Value as Json};

/// Keywords that hold child schemas (compared as nodes of their own).
const CHILD_KEYWORDS: &[&str] = &[
    "properties",
    "items",
    "additionalProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
];

/// Keywords that may differ.
const IGNORED_KEYWORDS: &[&str] = &["title"];

/// The comparison of one version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionReport {
    /// The version's name.
    pub name: String,
    /// Schema nodes in the input.
    pub nodes: usize,
    /// Of those, reproduced exactly.
    pub equal: usize,
    /// The paths of the first nodes that differ (at most [`MAX_PATHS`]).
    pub differing: Vec<String>,
    /// Whether the version's other fields are equal (name, served, storage, deprecation,
    /// subresources, printer columns, selectable fields).
    pub rest_equal: bool,
    /// Whether the output has this version at all.
    pub present: bool,
}

/// The comparison of one CRD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrdReport {
    /// `metadata.name` (plural.group) of the input.
    pub name: String,
    /// Whether group, names and scope are equal.
    pub names_equal: bool,
    /// One entry per input version.
    pub versions: Vec<VersionReport>,
}

/// The most differing paths kept per version.
pub const MAX_PATHS: usize = 10;

impl CrdReport {
    /// Schema nodes in the input, every version.
    pub fn nodes(&self) -> usize {
        self.versions.iter().map(|v| v.nodes).sum()
    }

    /// Schema nodes reproduced, every version.
    pub fn equal(&self) -> usize {
        self.versions.iter().map(|v| v.equal).sum()
    }

    /// Whether everything compared is equal.
    pub fn exact(&self) -> bool {
        self.names_equal
            && self
                .versions
                .iter()
                .all(|v| v.present && v.rest_equal && v.equal == v.nodes)
    }
}

/// Compares `output` with `input` (both whole CRDs as JSON). Versions are matched by name;
/// `versions` limits the comparison to those the output was meant to hold (all when `None`).
pub fn compare(input: &Json, output: &Json, versions: Option<&[String]>) -> CrdReport {
    let name = input["metadata"]["name"].as_str().unwrap_or_default();
    let names_equal = ["group", "names", "scope"]
        .iter()
        .all(|key| same(&input["spec"][key], &output["spec"][key]));
    let empty = Vec::new();
    let input_versions = input["spec"]["versions"].as_array().unwrap_or(&empty);
    let output_versions = output["spec"]["versions"].as_array().unwrap_or(&empty);
    let reports = input_versions
        .iter()
        .filter(|v| {
            versions
                .is_none_or(|names| names.iter().any(|n| Some(n.as_str()) == v["name"].as_str()))
        })
        .map(|version| {
            let version_name = version["name"].as_str().unwrap_or_default();
            let found = output_versions
                .iter()
                .find(|v| v["name"].as_str() == Some(version_name));
            let expected = &version["schema"]["openAPIV3Schema"];
            let mut report = VersionReport {
                name: version_name.to_owned(),
                present: found.is_some(),
                ..VersionReport::default()
            };
            let actual = found.map(|v| &v["schema"]["openAPIV3Schema"]);
            walk(expected, actual, "", &mut report);
            report.rest_equal = found
                .is_some_and(|found| same(&without(version, "schema"), &without(found, "schema")));
            report
        })
        .collect();
    CrdReport {
        name: name.to_owned(),
        names_equal,
        versions: reports,
    }
}

fn without(value: &Json, key: &str) -> Json {
    match value {
        Json::Object(map) => {
            let mut map = map.clone();
            map.remove(key);
            Json::Object(map)
        }
        other => other.clone(),
    }
}

fn walk(expected: &Json, actual: Option<&Json>, path: &str, report: &mut VersionReport) {
    let Json::Object(expected_map) = expected else {
        return;
    };
    report.nodes += 1;
    let actual_map = actual.and_then(Json::as_object);
    if actual_map.is_some_and(|a| same_own(expected_map, a)) {
        report.equal += 1;
    } else if report.differing.len() < MAX_PATHS {
        report
            .differing
            .push(if path.is_empty() { "." } else { path }.to_owned());
    }
    let child = |key: &str| actual_map.and_then(|a| a.get(key));
    if let Some(Json::Object(properties)) = expected_map.get("properties") {
        for (name, schema) in properties {
            let actual = child("properties").and_then(|p| p.get(name));
            walk(schema, actual, &format!("{path}.{name}"), report);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(schema) = expected_map.get(key) {
            walk(schema, child(key), &format!("{path}[{key}]"), report);
        }
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Json::Array(branches)) = expected_map.get(key) {
            for (i, schema) in branches.iter().enumerate() {
                let actual = child(key).and_then(|b| b.get(i));
                walk(schema, actual, &format!("{path}[{key}][{i}]"), report);
            }
        }
    }
}

/// Whether two nodes have the same keywords, children aside (but the names of properties
/// and the number of branches count).
fn same_own(expected: &Map<String, Json>, actual: &Map<String, Json>) -> bool {
    let own = |map: &Map<String, Json>| -> Map<String, Json> {
        map.iter()
            .filter(|(k, _)| !IGNORED_KEYWORDS.contains(&k.as_str()))
            .map(|(k, v)| {
                let v = match (k.as_str(), v) {
                    ("properties", Json::Object(p)) => {
                        // Which properties, not their order: JSON objects have none.
                        let mut names: Vec<&String> = p.keys().collect();
                        names.sort();
                        Json::from(names.into_iter().cloned().collect::<Vec<_>>())
                    }
                    ("oneOf" | "anyOf" | "allOf", Json::Array(b)) => Json::from(b.len()),
                    (key, Json::Object(_)) if CHILD_KEYWORDS.contains(&key) => Json::from("schema"),
                    _ => v.clone(),
                };
                (k.clone(), v)
            })
            .collect()
    };
    same(&Json::Object(own(expected)), &Json::Object(own(actual)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Json) -> Json {
        json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                              "schema": {"openAPIV3Schema": schema}}]
            }
        })
    }

    #[test]
    fn identical_crds_are_exact() {
        let input = crd(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 5}}}
        }}));
        let report = compare(&input, &input, None);
        assert_eq!((report.equal(), report.nodes()), (3, 3));
        assert!(report.exact());
    }

    #[test]
    fn each_difference_costs_its_node() {
        let input = crd(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "maximum": 5},
                "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self != ''"}]},
                "tags": {"type": "array", "items": {"type": "string"}}
            }}
        }}));
        let output = crd(json!({"type": "object", "title": "Widget", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "maximum": 5.0},
                "name": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }}
        }}));
        let report = compare(&input, &output, None);
        assert_eq!((report.equal(), report.nodes()), (5, 6));
        assert_eq!(report.versions[0].differing, [".spec.name"]);
        assert!(!report.exact());
    }

    #[test]
    fn a_dropped_property_costs_its_parent_and_itself() {
        let input = crd(
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
        );
        let output = crd(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let report = compare(&input, &output, None);
        assert_eq!((report.equal(), report.nodes()), (1, 3));
        assert_eq!(report.versions[0].differing, [".", ".b"]);
    }

    #[test]
    fn the_order_of_properties_does_not_count() {
        let input = crd(
            json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}}),
        );
        let output = crd(
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "type": "object"}),
        );
        assert!(compare(&input, &output, None).exact());
    }

    #[test]
    fn versions_and_names_are_compared_whole() {
        let input = crd(json!({"type": "object"}));
        let mut output = input.clone();
        output["spec"]["versions"][0]["served"] = json!(false);
        output["spec"]["names"]["shortNames"] = json!(["w"]);
        let report = compare(&input, &output, None);
        assert!(!report.names_equal);
        assert!(!report.versions[0].rest_equal);
        assert_eq!(report.equal(), 1);
        let missing = compare(&input, &crd(json!({})), Some(&["v2".to_owned()]));
        assert_eq!(missing.nodes(), 0);
    }
}
