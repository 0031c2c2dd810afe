//! Server-side apply of a status, as the double models it: each field manager's set of owned
//! fields, forced applies that take over the fields whose value they change and share those
//! whose value they keep, removal of what a manager stopped applying and nobody else owns, and
//! the `conditions` list merged by `type` when the CRD says it is a map.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// One field a manager owns of the status.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Leaf {
    /// A top-level status field, atomic (`f:<name>`); for a `conditions` map list, the list
    /// itself (its `.`).
    Field(String),
    /// A field of the condition of a type (`k:{"type":...}` / `f:<name>`, or `.` for the item).
    Item(String, String),
}

/// A field manager's entry: what it owns of the status, and when it last wrote.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Manager {
    pub(crate) name: String,
    pub(crate) api_version: String,
    pub(crate) time: String,
    pub(crate) owned: BTreeSet<Leaf>,
}

/// The fields an applied status (`applied`, a JSON object) sets.
fn leaves_of(applied: &Map<String, Value>, list_map: bool) -> BTreeSet<Leaf> {
    let mut leaves = BTreeSet::new();
    for (name, value) in applied {
        leaves.insert(Leaf::Field(name.clone()));
        if name != "conditions" || !list_map {
            continue;
        }
        for item in value.as_array().into_iter().flatten() {
            let (Some(type_), Some(fields)) = (item["type"].as_str(), item.as_object()) else {
                continue;
            };
            leaves.insert(Leaf::Item(type_.to_owned(), ".".to_owned()));
            for key in fields.keys() {
                leaves.insert(Leaf::Item(type_.to_owned(), format!("f:{key}")));
            }
        }
    }
    leaves
}

/// The value at `leaf` in `status` (None when absent; the marker `.` of a list or an item
/// has none to compare).
fn value_at<'a>(status: &'a Map<String, Value>, leaf: &Leaf, list_map: bool) -> Option<&'a Value> {
    match leaf {
        Leaf::Field(name) if name == "conditions" && list_map => None,
        Leaf::Field(name) => status.get(name),
        Leaf::Item(_, key) if key == "." => None,
        Leaf::Item(type_, key) => item(status, type_)?.get(key.strip_prefix("f:")?),
    }
}

/// The condition of type `type_` in `status`.
fn item<'a>(status: &'a Map<String, Value>, type_: &str) -> Option<&'a Value> {
    status
        .get("conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// The status after manager `name` applied `applied` (None: an apply without a status, which
/// gives up every field) to `status`, forced, and the managers' entries after it. `time` and
/// `api_version` go into the manager's entry.
pub(crate) fn apply(
    status: &Map<String, Value>,
    managers: &[Manager],
    name: &str,
    applied: Option<&Map<String, Value>>,
    list_map: bool,
    (api_version, time): (&str, &str),
) -> (Map<String, Value>, Vec<Manager>) {
    let empty = Map::new();
    let applied = applied.unwrap_or(&empty);
    let new = leaves_of(applied, list_map);
    let old = managers
        .iter()
        .find(|m| m.name == name)
        .map(|m| m.owned.clone())
        .unwrap_or_default();
    let mut managers = managers.to_vec();
    // Forced: a field whose value the apply changes is taken from every other manager; one
    // it sets to the value stored is shared.
    for leaf in &new {
        if value_at(status, leaf, list_map) != value_at(applied, leaf, list_map) {
            for other in managers.iter_mut().filter(|m| m.name != name) {
                other.owned.remove(leaf);
            }
        }
    }
    match managers.iter_mut().find(|m| m.name == name) {
        Some(entry) => entry.owned = new.clone(),
        None => managers.push(Manager {
            name: name.to_owned(),
            api_version: api_version.to_owned(),
            time: time.to_owned(),
            owned: new.clone(),
        }),
    }
    let mut status = status.clone();
    set_values(&mut status, applied, list_map);
    let owned_by_anyone = |leaf: &Leaf| managers.iter().any(|m| m.owned.contains(leaf));
    for leaf in old.difference(&new).filter(|leaf| !owned_by_anyone(leaf)) {
        remove(&mut status, leaf, list_map);
    }
    if list_map && !owned_by_anyone(&Leaf::Field("conditions".to_owned())) {
        let empty = status
            .get("conditions")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        if empty && old.contains(&Leaf::Field("conditions".to_owned())) {
            status.remove("conditions");
        }
    }
    managers.retain(|m| !m.owned.is_empty());
    (status, managers)
}

/// Writes the applied values into `status`: top-level fields whole, conditions by type (the
/// fields applied replace the stored ones, the others stay; a new type goes last).
fn set_values(status: &mut Map<String, Value>, applied: &Map<String, Value>, list_map: bool) {
    for (name, value) in applied {
        if name != "conditions" || !list_map || !value.is_array() {
            status.insert(name.clone(), value.clone());
            continue;
        }
        let list = status
            .entry("conditions")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        for condition in value.as_array().into_iter().flatten() {
            match list.iter_mut().find(|c| c["type"] == condition["type"]) {
                Some(Value::Object(stored)) => {
                    for (key, value) in condition.as_object().into_iter().flatten() {
                        stored.insert(key.clone(), value.clone());
                    }
                }
                _ => list.push(condition.clone()),
            }
        }
    }
}

/// Removes the value at `leaf` (a field nobody owns any more) from `status`.
fn remove(status: &mut Map<String, Value>, leaf: &Leaf, list_map: bool) {
    match leaf {
        Leaf::Field(name) if name == "conditions" && list_map => {}
        Leaf::Field(name) => {
            status.remove(name);
        }
        Leaf::Item(type_, key) => {
            let Some(list) = status.get_mut("conditions").and_then(Value::as_array_mut) else {
                return;
            };
            if key == "." {
                list.retain(|c| c["type"] != type_.as_str());
            } else if let Some(Value::Object(fields)) =
                list.iter_mut().find(|c| c["type"] == type_.as_str())
            {
                fields.remove(key.strip_prefix("f:").unwrap_or(key));
            }
        }
    }
}

/// The managers' entries as `metadata.managedFields` (operation `Apply`, subresource `status`).
pub(crate) fn managed_fields(managers: &[Manager]) -> Value {
    let entries = managers.iter().map(|manager| {
        let mut status = Map::new();
        for leaf in &manager.owned {
            match leaf {
                Leaf::Field(name) => {
                    let entry = status.entry(format!("f:{name}")).or_insert(json!({}));
                    if name == "conditions"
                        && let Some(fields) = entry.as_object_mut()
                    {
                        fields.insert(".".to_owned(), json!({}));
                    }
                }
                Leaf::Item(type_, key) => {
                    let list = status.entry("f:conditions").or_insert(json!({}));
                    let item_key = format!("k:{}", json!({ "type": type_ }));
                    if let Some(list) = list.as_object_mut() {
                        let item = list.entry(item_key).or_insert(json!({}));
                        if let Some(item) = item.as_object_mut() {
                            item.insert(key.clone(), json!({}));
                        }
                    }
                }
            }
        }
        json!({
            "manager": manager.name,
            "operation": "Apply",
            "apiVersion": manager.api_version,
            "time": manager.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": status},
            "subresource": "status",
        })
    });
    Value::Array(entries.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    const AT: (&str, &str) = ("example.com/v1", "2026-01-01T00:00:00Z");

    #[test]
    fn two_managers_keep_their_own_conditions_and_a_release_removes_only_the_unshared() {
        let first = object(json!({"conditions": [{"type": "Ready", "status": "True"}]}));
        let (status, managers) = apply(&Map::new(), &[], "a", Some(&first), true, AT);
        let second = object(json!({"conditions": [{"type": "Synced", "status": "False"}]}));
        let (status, managers) = apply(&status, &managers, "b", Some(&second), true, AT);
        assert_eq!(status["conditions"].as_array().map(Vec::len), Some(2));
        // `a` applies Ready again, without Synced: b's stays.
        let (status, managers) = apply(&status, &managers, "a", Some(&first), true, AT);
        assert_eq!(status["conditions"].as_array().map(Vec::len), Some(2));
        // `b` gives everything up: its condition goes, a's stays.
        let (status, managers) = apply(&status, &managers, "b", None, true, AT);
        assert_eq!(
            Value::Object(status),
            json!({"conditions": [{"type": "Ready", "status": "True"}]})
        );
        assert_eq!(managers.len(), 1);
    }

    #[test]
    fn a_forced_change_takes_a_field_and_an_equal_value_shares_it() {
        let ready =
            object(json!({"hidden": false, "conditions": [{"type": "Ready", "status": "True"}]}));
        let (status, managers) = apply(&Map::new(), &[], "a", Some(&ready), true, AT);
        let (status, managers) = apply(&status, &managers, "b", Some(&ready), true, AT);
        assert!(
            managers
                .iter()
                .all(|m| m.owned.contains(&Leaf::Field("hidden".into())))
        );
        let changed = object(json!({"hidden": true}));
        let (_, managers) = apply(&status, &managers, "b", Some(&changed), true, AT);
        let a = managers.iter().find(|m| m.name == "a").map(|m| &m.owned);
        assert!(a.is_some_and(|a| !a.contains(&Leaf::Field("hidden".into()))));
    }
}
