//! `kondition check-status`: objects read from YAML or JSON (files, folders, stdin; many
//! documents a file, `kind: List` items) checked offline against the CRDs that describe
//! them, with `kondition::check::Checker` (the CRD's schema and CEL rules for the status, the
//! conventions kondition enforces before sending, kstatus' conventions).
//!
//! Reading and picking are here; the command line (`cli.rs`) prints. An object no CRD given
//! describes, a file that cannot be read or parsed, a CRD that does not deserialize: each is
//! an input error at its place (`path:line:col: message`), not a violation.

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::check::{Checker, Violation};
use serde_json::Value as Json;

use crate::source::diagnostic::{Diagnostic, Diagnostics};
use crate::source::yaml::{self, Pos};

/// One object read, with where it was.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// The file it was read from (`<stdin>` for standard input).
    pub file: PathBuf,
    /// Where it starts in the file.
    pub pos: Pos,
    /// The object.
    pub value: Json,
}

impl Object {
    /// `namespace/name`, or `name` for a cluster-scoped object (`?` where it has none).
    pub fn name(&self) -> String {
        let text = |field: &str| {
            self.value
                .get("metadata")
                .and_then(|m| m.get(field))
                .and_then(Json::as_str)
        };
        let name = text("name").unwrap_or("?");
        match text("namespace") {
            Some(namespace) => format!("{namespace}/{name}"),
            None => name.to_owned(),
        }
    }
}

/// The files `paths` name: files as given, folders searched recursively for `.yaml`, `.yml`
/// and `.json` files (sorted), each once.
pub fn object_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Diagnostic> {
    crate::inputs::files_with(paths, &["yaml", "yml", "json"])
}

/// The objects in `text` (YAML or JSON, read from `file`): every document, the items of a
/// `kind: List`; empty documents skipped.
pub fn read_objects(file: &Path, text: &str) -> Result<Vec<Object>, Diagnostic> {
    let documents =
        yaml::parse(text).map_err(|e| Diagnostic::new(file, e.pos, e.message.clone()))?;
    let mut objects = Vec::new();
    for document in &documents {
        let value = document.to_json();
        if value.is_null() {
            continue;
        }
        if !value.is_object() {
            return Err(Diagnostic::new(
                file,
                document.pos,
                "not an object: a Kubernetes object is a mapping with apiVersion and kind",
            ));
        }
        if value["kind"] == "List" || value["kind"].as_str().is_some_and(is_typed_list) {
            let items = document.get("items").and_then(|i| i.as_seq());
            for item in items.unwrap_or_default() {
                objects.push(Object {
                    file: file.to_owned(),
                    pos: item.pos,
                    value: item.to_json(),
                });
            }
            continue;
        }
        objects.push(Object {
            file: file.to_owned(),
            pos: document.pos,
            value,
        });
    }
    Ok(objects)
}

/// `WidgetList`, as `kubectl get widgets -o yaml` may write: a list kind with items.
fn is_typed_list(kind: &str) -> bool {
    kind.len() > "List".len() && kind.ends_with("List")
}

/// The CRDs in `text` (read from `file`): each document of kind CustomResourceDefinition,
/// and those of a `kind: List`; other documents are an error.
pub fn read_crds(file: &Path, text: &str) -> Result<Vec<CustomResourceDefinition>, Diagnostic> {
    let mut crds = Vec::new();
    for object in read_objects(file, text)? {
        if object.value["kind"] != "CustomResourceDefinition" {
            return Err(Diagnostic::new(
                file,
                object.pos,
                format!(
                    "not a CustomResourceDefinition: kind {}",
                    object.value["kind"]
                ),
            ));
        }
        let crd = serde_json::from_value(object.value)
            .map_err(|e| Diagnostic::new(file, object.pos, format!("not a CRD: {e}")))?;
        crds.push(crd);
    }
    if crds.is_empty() {
        return Err(Diagnostic::new(
            file,
            Pos::default(),
            "no CustomResourceDefinition in the file",
        ));
    }
    Ok(crds)
}

/// Which of `crds` is of `object`'s group and kind and has its version, or an error at the
/// object naming what was given.
pub fn crd_of(crds: &[CustomResourceDefinition], object: &Object) -> Result<usize, Diagnostic> {
    let api_version = object.value["apiVersion"].as_str().unwrap_or_default();
    let kind = object.value["kind"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let found = crds.iter().position(|crd| {
        crd.spec.group == group
            && crd.spec.names.kind == kind
            && crd.spec.versions.iter().any(|v| v.name == version)
    });
    found.ok_or_else(|| {
        let mut given: Vec<String> =
            crds.iter()
                .flat_map(|crd| {
                    crd.spec.versions.iter().map(move |v| {
                        format!("{}/{} {}", crd.spec.group, v.name, crd.spec.names.kind)
                    })
                })
                .collect();
        given.sort();
        Diagnostic::new(
            &object.file,
            object.pos,
            format!(
                "no CRD given describes apiVersion {api_version:?}, kind {kind:?} (given: {})",
                given.join(", ")
            ),
        )
    })
}

/// The checks of a set of CRDs, each built once (a CRD may be megabytes, Azure's, and the
/// objects many), for the objects of one file after another: a run holds one file's objects
/// at a time.
pub struct Checks<'c> {
    crds: &'c [CustomResourceDefinition],
    checkers: Vec<Checker>,
}

impl<'c> Checks<'c> {
    /// The checks of `crds`.
    pub fn new(crds: &'c [CustomResourceDefinition]) -> Self {
        Self {
            crds,
            checkers: crds.iter().map(|crd| Checker::new().crd(crd)).collect(),
        }
    }

    /// Every object's violations, in order; or every object no CRD describes.
    pub fn check(&self, objects: &[Object]) -> Result<Vec<Vec<Violation>>, Diagnostics> {
        let mut problems = Diagnostics::default();
        let mut found = Vec::with_capacity(objects.len());
        for object in objects {
            match crd_of(self.crds, object) {
                Ok(index) => found.push(self.checkers[index].check(&object.value)),
                Err(problem) => problems.push(problem),
            }
        }
        problems.into_result(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn documents_and_list_items_are_objects_at_their_lines() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {kind: A, metadata: {name: a}}\n- \
                    {kind: B, metadata: {name: b, namespace: n}}\n---\n---\n{\"kind\": \"C\"}\n";
        let objects = read_objects(Path::new("x.yaml"), text).expect("objects");
        let read: Vec<(usize, String, Json)> = objects
            .iter()
            .map(|o| (o.pos.line, o.name(), o.value["kind"].clone()))
            .collect();
        assert_eq!(
            read,
            [
                (4, "a".to_owned(), json!("A")),
                (5, "n/b".to_owned(), json!("B")),
                (8, "?".to_owned(), json!("C")),
            ]
        );
        let error = read_objects(Path::new("x.yaml"), "- 1\n").expect_err("a list");
        assert_eq!(
            error.to_string(),
            "x.yaml:1:1: not an object: a Kubernetes object is a mapping with apiVersion and kind"
        );
    }
}
