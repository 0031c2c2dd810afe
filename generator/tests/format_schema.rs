//! The format's JSON Schema (for editors) and the loader accept exactly the same keys.

use std::collections::BTreeSet;

use kondition_gen::format::{kind, types};
use serde_json::Value;

fn keys(schema: &Value) -> BTreeSet<String> {
    schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn set(keys: &[&str]) -> BTreeSet<String> {
    keys.iter().map(|k| (*k).to_owned()).collect()
}

#[test]
fn the_json_schema_knows_every_key_the_loader_knows() {
    let schema: Value =
        serde_json::from_str(kondition_gen::format::JSON_SCHEMA).expect("valid JSON");
    let defs = &schema["$defs"];
    let cases = [
        ("kind", keys(&schema), set(kind::KIND_KEYS)),
        ("names", keys(&defs["names"]), set(kind::NAMES_KEYS)),
        ("status", keys(&defs["status"]), set(kind::STATUS_KEYS)),
        ("version", keys(&defs["version"]), set(kind::VERSION_KEYS)),
        (
            "printerColumn",
            keys(&defs["printerColumn"]),
            set(kind::PRINTER_KEYS),
        ),
        ("scale", keys(&defs["scale"]), set(kind::SCALE_KEYS)),
        (
            "subResource",
            keys(&defs["subResource"]),
            set(kind::SUB_RESOURCE_KEYS),
        ),
        (
            "fieldLong",
            keys(&defs["fieldLong"]),
            set(types::FIELD_KEYS),
        ),
        (
            "validation",
            keys(&defs["validation"]),
            set(kondition_gen::model::Validation::KEYS),
        ),
    ];
    for (name, json_schema, loader) in cases {
        assert_eq!(json_schema, loader, "the keys of `{name}` differ");
    }
}

/// The schema offers editors the built-in profiles by name: exactly those of
/// `kondition_names::profile::BUILTIN`, so that a profile added there is offered too.
#[test]
fn the_json_schema_offers_every_built_in_profile() {
    let schema: Value =
        serde_json::from_str(kondition_gen::format::JSON_SCHEMA).expect("valid JSON");
    let offered: BTreeSet<String> = schema["$defs"]["status"]["properties"]["profile"]["anyOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|choice| choice["enum"].as_array())
        .flatten()
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        offered,
        set(&kondition_names::profile::builtin_names()),
        "format.schema.json's status.profile enum"
    );
}
