//! The double's objects and how it answers each request it models.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Map, Value, json};

use super::ssa::{self, Manager};
use crate::check::{Checker, Level};

/// A rule of the test's own that refuses a status: given the object as it would be stored,
/// the field error to answer 422 with (`status.<field>: Invalid value: ...`), or None.
pub(crate) type Rule = Box<dyn Fn(&Value) -> Option<String> + Send + Sync>;

/// A kind the double serves.
#[derive(Clone, Debug)]
pub(crate) struct Kind {
    group: String,
    plural: String,
    kind: String,
    /// Whether `status` is a subresource (writes to the main resource leave it alone).
    status_subresource: bool,
    /// Whether the status' `conditions` list is a map keyed by `type`.
    list_map: bool,
    /// The CRD, whose schema a status is checked against (none for Events).
    crd: Option<CustomResourceDefinition>,
}

impl Kind {
    /// The kind a CRD defines (its first version's schema decides the status' shape).
    pub(crate) fn of(crd: &CustomResourceDefinition) -> Kind {
        let version = crd.spec.versions.first();
        let status = version
            .and_then(|v| v.schema.as_ref())
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .and_then(|s| s.properties.as_ref())
            .and_then(|p| p.get("status"));
        let conditions = status
            .and_then(|s| s.properties.as_ref())
            .and_then(|p| p.get("conditions"));
        Kind {
            group: crd.spec.group.clone(),
            plural: crd.spec.names.plural.clone(),
            kind: crd.spec.names.kind.clone(),
            status_subresource: version
                .and_then(|v| v.subresources.as_ref())
                .is_some_and(|s| s.status.is_some()),
            list_map: conditions
                .is_some_and(|c| c.x_kubernetes_list_type.as_deref() == Some("map")),
            crd: Some(crd.clone()),
        }
    }

    /// events.k8s.io/v1 Events.
    pub(crate) fn events() -> Kind {
        Kind {
            group: "events.k8s.io".to_owned(),
            plural: "events".to_owned(),
            kind: "Event".to_owned(),
            status_subresource: false,
            list_map: false,
            crd: None,
        }
    }

    /// `plural.group`, as the API server names a resource in its messages.
    fn resource(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }
}

/// An object stored, its status' field managers apart.
#[derive(Clone, Debug)]
struct Stored {
    object: Value,
    managers: Vec<Manager>,
}

/// An answer: the code and its JSON body.
pub(crate) type Answer = (u16, Value);

/// What a request is about, from its path.
struct Target {
    kind: Kind,
    version: String,
    namespace: String,
    name: Option<String>,
    status: bool,
}

/// Every object of the double, and what answers for it.
pub(crate) struct Store {
    kinds: Vec<Kind>,
    objects: BTreeMap<(String, String, String), Stored>,
    version: u64,
    uids: u64,
    pub(crate) rules: Vec<Rule>,
}

impl Store {
    /// A store serving Events only.
    pub(crate) fn new() -> Store {
        Store {
            kinds: vec![Kind::events()],
            objects: BTreeMap::new(),
            version: 100,
            uids: 0,
            rules: Vec::new(),
        }
    }

    /// Serves `kind` too.
    pub(crate) fn add_kind(&mut self, kind: Kind) {
        self.kinds
            .retain(|k| k.group != kind.group || k.plural != kind.plural);
        self.kinds.push(kind);
    }

    /// The objects of `plural` in `group` (Events: `events`, `events.k8s.io`), in the order
    /// of their names.
    pub(crate) fn objects(&self, group: &str, plural: &str) -> Vec<Value> {
        self.objects
            .iter()
            .filter(|((resource, _, _), _)| *resource == format!("{plural}.{group}"))
            .map(|(_, stored)| rendered(stored))
            .collect()
    }

    /// The object `name` of `plural` in `group` and `namespace`.
    pub(crate) fn object(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        name: &str,
    ) -> Option<Value> {
        let key = (
            format!("{plural}.{group}"),
            namespace.to_owned(),
            name.to_owned(),
        );
        self.objects.get(&key).map(rendered)
    }

    /// Answers one request.
    pub(crate) fn handle(
        &mut self,
        method: &str,
        path: &str,
        query: &[(String, String)],
        content_type: &str,
        body: &[u8],
    ) -> Answer {
        let Some(target) = self.target(path) else {
            return failure(
                404,
                "NotFound",
                "the server could not find the requested resource",
            );
        };
        let param = |name: &str| {
            query
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if param("watch").is_some_and(|w| w == "true" || w == "1") {
            return not_modeled("watch");
        }
        if param("dryRun").is_some() {
            return not_modeled("dry runs");
        }
        let body: Value = if body.is_empty() {
            Value::Null
        } else {
            match serde_json::from_slice(body) {
                Ok(body) => body,
                // kube sends JSON, which is YAML too; anything else is not modeled.
                Err(error) => {
                    return failure(
                        400,
                        "BadRequest",
                        &format!("the double reads JSON bodies only: {error}"),
                    );
                }
            }
        };
        let kind = target.kind.clone();
        match (method, target.name.clone(), target.status) {
            ("GET", None, false) => self.list(&kind, &target),
            ("POST", None, false) => self.create(&kind, &target, body),
            ("GET", Some(name), _) => self.get(&kind, &target, &name),
            ("DELETE", Some(name), false) => self.delete(&kind, &target, &name),
            ("PATCH", Some(name), true) if content_type.starts_with("application/apply-patch") => {
                let manager = param("fieldManager").unwrap_or_default().to_owned();
                if param("force") != Some("true") {
                    return not_modeled("an apply without force (field conflicts)");
                }
                self.apply_status(&kind, &target, &name, &manager, &body)
            }
            ("PATCH", Some(name), false) => self.patch(&kind, &target, &name, content_type, body),
            (method, _, status) => not_modeled(&format!(
                "{method} {}{}",
                kind.resource(),
                if status { "/status" } else { "" }
            )),
        }
    }

    /// The kind, version, namespace and name a path names.
    fn target(&self, path: &str) -> Option<Target> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let ["apis", group, version, rest @ ..] = parts.as_slice() else {
            return None;
        };
        let (namespace, rest) = match rest {
            ["namespaces", namespace, rest @ ..] if !rest.is_empty() => {
                ((*namespace).to_owned(), rest)
            }
            rest => (String::new(), rest),
        };
        let (plural, name, status) = match rest {
            [plural] => (*plural, None, false),
            [plural, name] => (*plural, Some((*name).to_owned()), false),
            [plural, name, "status"] => (*plural, Some((*name).to_owned()), true),
            _ => return None,
        };
        let kind = self
            .kinds
            .iter()
            .find(|k| k.group == *group && k.plural == plural)?;
        if status && !kind.status_subresource {
            return None;
        }
        Some(Target {
            kind: kind.clone(),
            version: (*version).to_owned(),
            namespace,
            name,
            status,
        })
    }

    fn key(kind: &Kind, target: &Target, name: &str) -> (String, String, String) {
        (kind.resource(), target.namespace.clone(), name.to_owned())
    }

    fn next_version(&mut self) -> String {
        self.version += 1;
        self.version.to_string()
    }

    fn list(&self, kind: &Kind, target: &Target) -> Answer {
        let items: Vec<Value> = self
            .objects
            .iter()
            .filter(|((resource, namespace, _), _)| {
                *resource == kind.resource()
                    && (target.namespace.is_empty() || *namespace == target.namespace)
            })
            .map(|(_, stored)| rendered(stored))
            .collect();
        let api_version = api_version(kind, &target.version);
        (
            200,
            json!({"apiVersion": api_version, "kind": format!("{}List", kind.kind), "metadata": {"resourceVersion": self.version.to_string()}, "items": items}),
        )
    }

    fn get(&self, kind: &Kind, target: &Target, name: &str) -> Answer {
        match self.objects.get(&Self::key(kind, target, name)) {
            Some(stored) => (200, rendered(stored)),
            None => not_found(kind, name),
        }
    }

    fn create(&mut self, kind: &Kind, target: &Target, mut object: Value) -> Answer {
        let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
            return failure(400, "BadRequest", "an object without metadata");
        };
        let name = match (
            metadata.get("name").and_then(Value::as_str),
            metadata.get("generateName").and_then(Value::as_str),
        ) {
            (Some(name), _) => name.to_owned(),
            (None, Some(prefix)) => format!("{prefix}{:05x}", self.uids + 1),
            (None, None) => {
                return failure(
                    422,
                    "Invalid",
                    "metadata.name: Required value: name or generateName is required",
                );
            }
        };
        let key = Self::key(kind, target, &name);
        if self.objects.contains_key(&key) {
            return failure(
                409,
                "AlreadyExists",
                &format!("{} \"{name}\" already exists", kind.resource()),
            );
        }
        self.uids += 1;
        metadata.insert("name".to_owned(), name.clone().into());
        if !target.namespace.is_empty() {
            metadata.insert("namespace".to_owned(), target.namespace.clone().into());
        }
        metadata.insert(
            "uid".to_owned(),
            format!("00000000-0000-4000-8000-{:012x}", self.uids).into(),
        );
        metadata.insert("creationTimestamp".to_owned(), json!(crate::now()));
        metadata.remove("managedFields");
        metadata.remove("deletionTimestamp");
        if kind.crd.is_some() {
            metadata.insert("generation".to_owned(), 1.into());
        }
        if kind.status_subresource
            && let Some(fields) = object.as_object_mut()
        {
            fields.remove("status");
        }
        let version = self.next_version();
        object["metadata"]["resourceVersion"] = version.into();
        let stored = Stored {
            object,
            managers: Vec::new(),
        };
        let answer = rendered(&stored);
        self.objects.insert(key, stored);
        (201, answer)
    }

    fn delete(&mut self, kind: &Kind, target: &Target, name: &str) -> Answer {
        let key = Self::key(kind, target, name);
        let Some(stored) = self.objects.get(&key) else {
            return not_found(kind, name);
        };
        let finalized = stored.object["metadata"]["finalizers"]
            .as_array()
            .is_some_and(|f| !f.is_empty());
        if !finalized {
            let gone = rendered(stored);
            self.objects.remove(&key);
            return (200, gone);
        }
        if stored.object["metadata"].get("deletionTimestamp").is_some() {
            return (202, rendered(stored));
        }
        let version = self.next_version();
        let Some(stored) = self.objects.get_mut(&key) else {
            return not_found(kind, name);
        };
        stored.object["metadata"]["deletionTimestamp"] = json!(crate::now());
        stored.object["metadata"]["deletionGracePeriodSeconds"] = 0.into();
        stored.object["metadata"]["resourceVersion"] = version.into();
        (202, rendered(stored))
    }

    /// A JSON patch or a JSON merge patch of the main resource: the status (a subresource)
    /// and the server's metadata stay; a change outside metadata moves `generation`.
    fn patch(
        &mut self,
        kind: &Kind,
        target: &Target,
        name: &str,
        content_type: &str,
        patch: Value,
    ) -> Answer {
        let key = Self::key(kind, target, name);
        let Some(stored) = self.objects.get(&key) else {
            return not_found(kind, name);
        };
        let old = stored.object.clone();
        let patched = if content_type.starts_with("application/json-patch+json") {
            match json_patch(&old, &patch) {
                Ok(patched) => patched,
                Err(error) => {
                    return failure(
                        422,
                        "Invalid",
                        &format!(
                            "the server rejected our request due to an error in our request: {error}"
                        ),
                    );
                }
            }
        } else if content_type.starts_with("application/merge-patch+json") {
            if let Some(version) = patch["metadata"]["resourceVersion"].as_str()
                && old["metadata"]["resourceVersion"] != version
            {
                return conflict(kind, name);
            }
            merge_patch(&old, &patch)
        } else if content_type.starts_with("application/strategic-merge-patch") {
            return failure(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
            );
        } else {
            return not_modeled(&format!("PATCH of the main resource as {content_type}"));
        };
        let mut object = patched;
        for field in [
            "uid",
            "name",
            "namespace",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
            "resourceVersion",
            "managedFields",
        ] {
            match old["metadata"].get(field) {
                Some(value) => object["metadata"][field] = value.clone(),
                None => {
                    if let Some(metadata) = object["metadata"].as_object_mut() {
                        metadata.remove(field);
                    }
                }
            }
        }
        if kind.status_subresource
            && let Some(fields) = object.as_object_mut()
        {
            match old.get("status") {
                Some(status) => fields.insert("status".to_owned(), status.clone()),
                None => fields.remove("status"),
            };
        }
        let finalizers = |o: &Value| {
            o["metadata"]["finalizers"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        };
        let deleting = old["metadata"].get("deletionTimestamp").is_some();
        if deleting
            && finalizers(&object)
                .iter()
                .any(|f| !finalizers(&old).contains(f))
        {
            return failure(
                422,
                "Invalid",
                &format!(
                    "{} \"{name}\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted",
                    kind.kind
                ),
            );
        }
        if object == old {
            return (200, rendered(&self.objects[&key]));
        }
        let outside = |o: &Value| {
            let mut o = o.clone();
            if let Some(fields) = o.as_object_mut() {
                fields.remove("metadata");
                fields.remove("status");
            }
            o
        };
        if kind.crd.is_some() && outside(&object) != outside(&old) {
            let generation = old["metadata"]["generation"].as_i64().unwrap_or(0);
            object["metadata"]["generation"] = (generation + 1).into();
        }
        object["metadata"]["resourceVersion"] = self.next_version().into();
        let Some(stored) = self.objects.get_mut(&key) else {
            return not_found(kind, name);
        };
        stored.object = object;
        let answer = rendered(stored);
        if deleting && finalizers(&stored.object).is_empty() {
            self.objects.remove(&key);
        }
        (200, answer)
    }

    /// A forced server-side apply of the status as `manager`.
    fn apply_status(
        &mut self,
        kind: &Kind,
        target: &Target,
        name: &str,
        manager: &str,
        body: &Value,
    ) -> Answer {
        let key = Self::key(kind, target, name);
        let Some(stored) = self.objects.get(&key) else {
            return not_found(kind, name);
        };
        if let Some(version) = body["metadata"].get("resourceVersion")
            && *version != stored.object["metadata"]["resourceVersion"]
        {
            return conflict(kind, name);
        }
        let empty = Map::new();
        let status = stored
            .object
            .get("status")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let applied = body.get("status").and_then(Value::as_object);
        let api_version = api_version(kind, &target.version);
        let now = serde_json::to_value(crate::now()).unwrap_or_default();
        let time = now.as_str().unwrap_or_default();
        let (status, managers) = ssa::apply(
            status,
            &stored.managers,
            manager,
            applied,
            kind.list_map,
            (&api_version, time),
        );
        let mut object = stored.object.clone();
        object["status"] = Value::Object(status);
        let same_owners = |a: &[Manager], b: &[Manager]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(a, b)| a.name == b.name && a.owned == b.owned)
        };
        if object == stored.object && same_owners(&managers, &stored.managers) {
            return (200, rendered(stored));
        }
        if let Some(refusal) = self.refusal(kind, &object) {
            return failure(
                422,
                "Invalid",
                &format!(
                    "{}.{} \"{name}\" is invalid: {refusal}",
                    kind.kind, kind.group
                ),
            );
        }
        // Only the writer's own entry gets the time of this write.
        let managers = managers
            .into_iter()
            .map(|mut m| {
                let before = stored.managers.iter().find(|o| o.name == m.name);
                match before {
                    Some(before) if m.name != manager => m.time = before.time.clone(),
                    _ => m.time = time.to_owned(),
                }
                m
            })
            .collect();
        object["metadata"]["resourceVersion"] = self.next_version().into();
        let Some(stored) = self.objects.get_mut(&key) else {
            return not_found(kind, name);
        };
        *stored = Stored { object, managers };
        (200, rendered(stored))
    }

    /// Why the status of `object` is refused: the CRD's schema (kondition's offline
    /// checker, its `schema-*` rules that fail), then the test's own rules.
    fn refusal(&self, kind: &Kind, object: &Value) -> Option<String> {
        if let Some(crd) = &kind.crd {
            let errors: Vec<String> = Checker::new()
                .crd(crd)
                .check(object)
                .into_iter()
                .filter(|v| v.level == Level::Fail && v.rule.starts_with("schema-"))
                .map(|v| format!("{}: {}", v.path.trim_start_matches('.'), v.message))
                .collect();
            if !errors.is_empty() {
                return Some(errors.join(", "));
            }
        }
        self.rules.iter().find_map(|rule| rule(object))
    }
}

/// The object as the API server shows it: its status' `managedFields`.
fn rendered(stored: &Stored) -> Value {
    let mut object = stored.object.clone();
    if !stored.managers.is_empty() {
        object["metadata"]["managedFields"] = ssa::managed_fields(&stored.managers);
    }
    object
}

fn api_version(kind: &Kind, version: &str) -> String {
    format!("{}/{version}", kind.group)
}

/// A `Status` answer.
pub(crate) fn failure(code: u16, reason: &str, message: &str) -> Answer {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}),
    )
}

fn not_found(kind: &Kind, name: &str) -> Answer {
    failure(
        404,
        "NotFound",
        &format!("{} \"{name}\" not found", kind.resource()),
    )
}

fn conflict(kind: &Kind, name: &str) -> Answer {
    failure(
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
            kind.resource()
        ),
    )
}

/// What the double does not model, said as a 501 so that a test sees it at once.
fn not_modeled(what: &str) -> Answer {
    failure(
        501,
        "NotImplemented",
        &format!("kondition's ApiDouble does not model {what}"),
    )
}

/// RFC 7386.
fn merge_patch(target: &Value, patch: &Value) -> Value {
    let Some(fields) = patch.as_object() else {
        return patch.clone();
    };
    let mut merged = target.as_object().cloned().unwrap_or_default();
    for (key, value) in fields {
        if value.is_null() {
            merged.remove(key);
        } else {
            let next = merge_patch(merged.get(key).unwrap_or(&Value::Null), value);
            merged.insert(key.clone(), next);
        }
    }
    Value::Object(merged)
}

/// RFC 6902's `test`, `add`, `remove` and `replace` (what finalizers are patched with).
fn json_patch(target: &Value, patch: &Value) -> Result<Value, String> {
    let mut document = target.clone();
    for operation in patch.as_array().ok_or("a JSON patch is a list")? {
        let path = operation["path"]
            .as_str()
            .ok_or("an operation without a path")?;
        let (parent, last) = path.rsplit_once('/').ok_or("a path without /")?;
        let last = last.replace("~1", "/").replace("~0", "~");
        match operation["op"].as_str() {
            Some("test") => {
                let found = document.pointer(path).unwrap_or(&Value::Null);
                if *found != operation["value"] {
                    return Err(format!("testing value {path} failed"));
                }
            }
            Some(op @ ("add" | "replace")) => {
                let value = operation["value"].clone();
                match document.pointer_mut(parent) {
                    Some(Value::Object(fields)) => {
                        fields.insert(last, value);
                    }
                    Some(Value::Array(items)) if last == "-" && op == "add" => items.push(value),
                    Some(Value::Array(items)) => {
                        let at: usize = last.parse().map_err(|_| format!("bad index in {path}"))?;
                        match op {
                            "add" if at <= items.len() => items.insert(at, value),
                            "replace" if at < items.len() => items[at] = value,
                            _ => return Err(format!("index out of range in {path}")),
                        }
                    }
                    _ => return Err(format!("doc is missing path: {path}")),
                }
            }
            Some("remove") => match document.pointer_mut(parent) {
                Some(Value::Object(fields)) => {
                    if fields.remove(&last).is_none() {
                        return Err(format!("doc is missing path: {path}"));
                    }
                }
                Some(Value::Array(items)) => {
                    let at: usize = last.parse().map_err(|_| format!("bad index in {path}"))?;
                    if at >= items.len() {
                        return Err(format!("index out of range in {path}"));
                    }
                    items.remove(at);
                }
                _ => return Err(format!("doc is missing path: {path}")),
            },
            other => return Err(format!("operation {other:?} is not modeled")),
        }
    }
    Ok(document)
}
