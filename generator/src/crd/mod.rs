//! The CRD front-end: CustomResourceDefinition YAML (apiextensions.k8s.io/v1) into the model.
//!
//! A file may hold many documents; those of other kinds are skipped with a note. Every version
//! of every CRD becomes a version of a kind. The CRD's `spec` is kept whole in the model, so
//! the CRD the generated code returns is the input's; the Rust types are read from each
//! version's `openAPIV3Schema` by [`types`].

mod api_check;
pub mod status;
pub mod types;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};


use crate::caller::Caller;
use crate::model::{
    Body, CrdMetadata, Kind, Names, Origin, PrinterColumn, Scale, SchemaFile, Scope,
    SourceSpec, Version,
};
use crate::name_rules::{check_group, is_dns_label, is_pascal_case};
use crate::profile::Profiles;
use crate::source::diagnostic::{Diagnostic, Diagnostics};
use crate::source::reader::{MapReader, Sink};
use crate::source::yaml::{Node, Pos, Value};
use kondition_names::ROOT_TYPE_SUFFIXES;
use types::{SchemaReader, TypeNames};

/// The `kind` of a CRD document.
pub const CRD_KIND: &str = "CustomResourceDefinition";
const API_VERSION: &str = "apiextensions.k8s.io/v1";

/// How CRDs are read into the model.
#[derive(Clone, Debug)]
pub struct Options {
    /// Use k8s-openapi's types for subtrees that have their structure (`crate::reuse`); on
    /// by default, `--no-reuse` turns it off.
    pub reuse_k8s_types: bool,
    /// The condition types and profile of the kinds whose status is the standard one
    /// ([`status`]); a kind not named gets the standard profile.
    pub statuses: status::StatusChoices,
    /// Who chose these options, for the words of an error about them.
    pub caller: Caller,
    /// Whether a driven status with an atomic `conditions` list gets a note of what the
    /// chokepoint can and cannot do with it: on by default, off where the output does not
    /// concern the chokepoint (CRD manifests, imported schema files).
    pub atomic_list_notes: bool,
    /// The kinds whose atomic `conditions` list the user knows of: no note for them.
    pub acknowledged_atomic_lists: Vec<String>,
    /// The kinds whose status kondition does not drive, though it could (`--no-drive`,
    /// `Builder::drive(kind, false)`): plain types, without `KubeStatus`, for a kind an
    /// operator only reads, or whose conditions never include the profile's summary.
    pub not_driven: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            reuse_k8s_types: true,
            statuses: status::StatusChoices::new(),
            caller: Caller::default(),
            atomic_list_notes: true,
            acknowledged_atomic_lists: Vec::new(),
            not_driven: Vec::new(),
        }
    }
}

/// Whether a document is a CustomResourceDefinition.
pub fn is_crd(document: &Node) -> bool {
    document.get("kind").and_then(Node::as_str) == Some(CRD_KIND)
}

/// Reads the CRDs among `documents` into one schema file. Documents of other kinds are
/// skipped; each skip is returned as a note.
pub fn read_documents(
    path: &Path,
    documents: &[Node],
    options: &Options,
    profiles: &Profiles,
) -> Result<(SchemaFile, Vec<Diagnostic>), Diagnostics> {
    let sink = Sink::new(path);
    let mut notes = Vec::new();
    let module = crate::rust_names::file_module_name(path);
    let mut kinds: Vec<Kind> = Vec::new();
    // Type names are unique per version module, which every kind of the file shares.
    let mut scopes: Vec<(String, TypeNames)> = Vec::new();
    let crds: Vec<&Node> = documents
        .iter()
        .filter(|document| {
            if matches!(document.value, Value::Null) || is_crd(document) {
                return true;
            }
            let what = document.get("kind").and_then(Node::as_str).map_or_else(
                || "a document without `kind`".to_owned(),
                |k| format!("a {k}"),
            );
            notes.push(Diagnostic::new(
                path,
                document.pos,
                format!("note: skipped {what}: only CustomResourceDefinitions are read"),
            ));
            false
        })
        .filter(|document| !matches!(document.value, Value::Null))
        .collect();
    let reserved: Vec<String> = crds
        .iter()
        .filter_map(|crd| {
            crd.get("spec")
                .and_then(|s| s.get("names"))
                .and_then(|n| n.get("kind"))
                .and_then(Node::as_str)
        })
        // A schema type never takes one of the kind's own item names in any version module,
        // whether or not the kind has a status they are written for; the names of the root
        // fields' types are theirs (set aside by `TypeNames`).
        .flat_map(|kind| {
            kondition_names::kind_items(kind).filter(move |name| {
                !ROOT_TYPE_SUFFIXES
                    .iter()
                    .any(|suffix| *name == format!("{kind}{suffix}"))
            })
        })
        .collect();
    let reserved_names: Vec<&str> = reserved.iter().map(String::as_str).collect();
    let kind_notes = RefCell::new(Vec::new());
    for crd in crds {
        let context = Context {
            sink: &sink,
            notes: &kind_notes,
            options,
            profiles,
        };
        if let Some(kind) = read_crd(crd, &context, &reserved_names, &mut scopes) {
            if let Some(first) = kinds
                .iter()
                .find(|k| k.kind == kind.kind && k.group == kind.group)
            {
                sink.error(
                    kind.origin.pos,
                    format!(
                        "{}.{} is defined twice (first at line {})",
                        kind.kind, kind.group, first.origin.pos.line
                    ),
                );
                continue;
            }
            if kinds.iter().any(|k| k.kind == kind.kind) {
                sink.error(
                    kind.origin.pos,
                    format!(
                        "kind {} is defined in two groups in one file; the generated module would hold two types of that name, so put the CRDs in separate files",
                        kind.kind
                    ),
                );
                continue;
            }
            kinds.push(kind);
        }
    }
    notes.extend(kind_notes.into_inner());
    if kinds.is_empty() && sink.is_empty() {
        sink.error(Pos::default(), "the file holds no CustomResourceDefinition");
    }
    let diagnostics = sink.finish();
    diagnostics
        .into_result(SchemaFile {
            path: path.to_owned(),
            module,
            kinds,
            types: Vec::new(),
        })
        .map(|file| (file, notes))
}

/// The API server's rules for a CRD's names, checked here because they also name output
/// files (`<group>_<plural>.yaml`): a DNS group, DNS-label plural, singular, short names and
/// categories, and `metadata.name` of `<plural>.<group>`.
fn check_names(crd: &Node, spec: &Node, names: &Node, group: &str, plural: &str, sink: &Sink) {
    let group_pos = spec.get("group").map_or(spec.pos, |n| n.pos);
    check_group(group, group_pos, sink);
    for key in ["plural", "singular", "shortNames", "categories"] {
        let Some(node) = names.get(key) else { continue };
        let values = match node.as_seq() {
            Some(items) => items.iter().collect(),
            None => vec![node],
        };
        for value in values {
            if let Some(text) = value.as_str()
                && !is_dns_label(text)
            {
                sink.error(
                    value.pos,
                    format!("`{key}` entry `{text}` must be a lowercase DNS label"),
                );
            }
        }
    }
    if let Some(list_kind) = names.get("listKind")
        && let Some(text) = list_kind.as_str()
        && !is_pascal_case(text)
    {
        sink.error(
            list_kind.pos,
            format!(
                "listKind `{text}` must be PascalCase (a capital letter, then letters and digits)"
            ),
        );
    }
    let expected = format!("{plural}.{group}");
    if let Some(name) = crd.get("metadata").and_then(|m| m.get("name"))
        && name.as_str() != Some(expected.as_str())
    {
        sink.error(
            name.pos,
            format!("a CRD's `metadata.name` must be `<plural>.<group>`, here `{expected}`"),
        );
    }
}

/// What reading one CRD needs besides the CRD.
struct Context<'a> {
    sink: &'a Sink<'a>,
    /// What the user should know of a kind read well (printed, not an error).
    notes: &'a RefCell<Vec<Diagnostic>>,
    options: &'a Options,
    profiles: &'a Profiles,
}

/// One CRD as a kind; `None` (with its problems reported) when it cannot be read.
fn read_crd(
    crd: &Node,
    context: &Context<'_>,
    reserved_names: &[&str],
    scopes: &mut Vec<(String, TypeNames)>,
) -> Option<Kind> {
    let sink = context.sink;
    check_api_version(crd, sink)?;
    let Some(spec) = crd.get("spec") else {
        sink.error(crd.pos, "a CRD needs `spec`");
        return None;
    };
    let group = MapReader::open(spec, "a CRD's spec", sink).required_str("group");
    let names_node = spec.get("names");
    if names_node.is_none() {
        sink.error(spec.pos, "a CRD's spec needs `names`");
    }
    let names_node = names_node?;
    let names_map = MapReader::open(names_node, "`names`", sink);
    let kind = names_map.required_str("kind");
    let plural = names_map.required_str("plural");
    if let Some(kind) = kind
        && !is_pascal_case(kind)
    {
        let pos = names_node.get("kind").map_or(names_node.pos, |n| n.pos);
        sink.error(
            pos,
            format!("kind `{kind}` must be PascalCase (a capital letter, then letters and digits) to become a Rust type"),
        );
        return None;
    }
    let scope = read_scope(spec, sink)?;
    let (group, kind, plural) = (group?, kind?, plural?);
    check_names(crd, spec, names_node, group, plural, sink);
    let names = Names {
        plural: plural.to_owned(),
        singular: names_map
            .string("singular")
            .unwrap_or_else(|| kind.to_ascii_lowercase()),
        short_names: names_map
            .strings("shortNames")
            .into_iter()
            .map(|(s, _)| s)
            .collect(),
        categories: names_map
            .strings("categories")
            .into_iter()
            .map(|(s, _)| s)
            .collect(),
        list_kind: names_map.string("listKind"),
    };
    let Some(version_nodes) = spec.get("versions").and_then(Node::as_seq) else {
        sink.error(spec.pos, "a CRD's spec needs `versions`, a list");
        return None;
    };
    // The spec's text and the API types' check need only the YAML: they are made on a thread
    // of their own while the versions are read, which on one large CRD is a core's work of
    // its own (issue 28).
    let ((source, checked), versions) = crate::parallel::beside(
        || {
            let source = SourceSpec::of_node(spec);
            let checked = api_check::check_with_api_types(spec, version_nodes);
            (source, checked)
        },
        || read_crd_versions(spec, version_nodes, kind, context, reserved_names, scopes),
    );
    let docs = storage_docs(&versions, version_nodes);
    // The API's own types catch what the reads above do not look at; a problem already
    // reported is not reported again in their words.
    if sink.is_empty()
        && let Err((pos, message)) = checked
    {
        sink.error(pos, message);
        return None;
    }
    let status = status::kind_status(crd, kind, &versions, context)?;
    Some(Kind {
        origin: Origin {
            path: sink.path().to_owned(),
            pos: crd.pos,
        },
        group: group.to_owned(),
        kind: kind.to_owned(),
        scope,
        names,
        docs,
        field_owner: None,
        status,
        versions,
        source_crd: Some(source),
        crd_metadata: CrdMetadata {
            labels: string_map(crd, "labels", sink),
            annotations: string_map(crd, "annotations", sink),
        },
    })
}

/// `metadata.<key>` of a CRD, a map of strings (absent: empty).
fn string_map(crd: &Node, key: &str, sink: &Sink) -> BTreeMap<String, String> {
    let Some(value) = crd.get("metadata").and_then(|m| m.get(key)) else {
        return BTreeMap::new();
    };
    let Some(entries) = value.as_map() else {
        sink.error(
            value.pos,
            format!("`metadata.{key}` must be a map of strings"),
        );
        return BTreeMap::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| match (k.as_str(), v.as_str()) {
            (Some(k), Some(v)) => Some((k.to_owned(), v.to_owned())),
            _ => {
                sink.error(v.pos, format!("`metadata.{key}` must be a map of strings"));
                None
            }
        })
        .collect()
}

/// `apiVersion` must be the one the API server still serves.
fn check_api_version(crd: &Node, sink: &Sink) -> Option<()> {
    match crd.get("apiVersion").and_then(Node::as_str) {
        Some(API_VERSION) => Some(()),
        Some(other) => {
            let pos = crd.get("apiVersion").map_or(crd.pos, |n| n.pos);
            sink.error(
                pos,
                format!("`apiVersion: {other}` is not read; convert the CRD to {API_VERSION} (the only version the API server still serves)"),
            );
            None
        }
        None => {
            sink.error(crd.pos, format!("a CRD needs `apiVersion: {API_VERSION}`"));
            None
        }
    }
}

/// `spec.scope`: Namespaced or Cluster.
fn read_scope(spec: &Node, sink: &Sink) -> Option<Scope> {
    match spec.get("scope").map(|n| (n.as_str(), n.pos)) {
        Some((Some("Namespaced"), _)) => Some(Scope::Namespaced),
        Some((Some("Cluster"), _)) => Some(Scope::Cluster),
        Some((_, pos)) => {
            sink.error(pos, "`scope` must be Namespaced or Cluster");
            None
        }
        None => {
            sink.error(spec.pos, "a CRD's spec needs `scope`");
            None
        }
    }
}

/// Every version of the CRD whose name is a DNS label not listed before, each read in the
/// type names of its version module (shared by the file's kinds); exactly one must be stored.
fn read_crd_versions(
    spec: &Node,
    version_nodes: &[Node],
    kind: &str,
    context: &Context<'_>,
    reserved_names: &[&str],
    scopes: &mut Vec<(String, TypeNames)>,
) -> Vec<Version> {
    let sink = context.sink;
    // Each version is read with its own names and its own problems, so the versions of a
    // large CRD are read on the cores in parallel (issue 28); every problem is then reported
    // in the versions' order, as reading one after the other did.
    let mut entries: Vec<VersionEntry<'_>> = Vec::with_capacity(version_nodes.len());
    let mut names: Vec<&str> = Vec::new();
    for node in version_nodes {
        let problems = Sink::new(sink.path());
        let name = MapReader::open(node, "a version", &problems).required_str("name");
        match name {
            Some(name) if !is_dns_label(name) => problems.error(
                node.pos,
                format!("version `{name}` must be a DNS label such as v1"),
            ),
            Some(name) if names.contains(&name) => {
                problems.error(node.pos, format!("version `{name}` is listed twice"));
            }
            Some(name) => {
                names.push(name);
                if !scopes.iter().any(|(v, _)| v == name) {
                    // Every kind of the file, and the items made for it, are in every version
                    // module: their names are reserved.
                    scopes.push((name.to_owned(), TypeNames::with_reserved(reserved_names)));
                }
                entries.push(VersionEntry::Read(node, name));
                continue;
            }
            None => {}
        }
        entries.push(VersionEntry::Skipped(problems.finish()));
    }
    let mut scopes: Vec<(&str, &mut TypeNames)> = scopes
        .iter_mut()
        .map(|(name, scope)| (name.as_str(), scope))
        .collect();
    let mut to_read = Vec::with_capacity(names.len());
    for entry in &entries {
        if let VersionEntry::Read(node, name) = entry {
            let Some(at) = scopes.iter().position(|(v, _)| v == name) else {
                unreachable!("a scope was made above for every version read");
            };
            let (_, scope) = scopes.swap_remove(at);
            // Locked by its own version only: the lock is what lends it to another thread.
            to_read.push((*node, *name, Mutex::new(scope)));
        }
    }
    let (path, options) = (sink.path(), context.options);
    let read = crate::parallel::map(
        &to_read,
        |_| 0,
        |(node, name, scope)| {
            let problems = Sink::new(path);
            let mut scope = scope.lock().unwrap_or_else(PoisonError::into_inner);
            let version = read_version(node, name, kind, &problems, options, &mut scope);
            (version, problems.finish())
        },
    );
    let mut read = read.into_iter();
    let mut versions = Vec::new();
    for entry in entries {
        match entry {
            VersionEntry::Skipped(problems) => sink.absorb(problems),
            VersionEntry::Read(..) => {
                if let Some((version, problems)) = read.next() {
                    sink.absorb(problems);
                    versions.push(version);
                }
            }
        }
    }
    let storage = versions.iter().filter(|v| v.storage).count();
    if storage != 1 && !versions.is_empty() {
        sink.error(
            spec.pos,
            format!("exactly one version must have `storage: true`; {storage} do"),
        );
    }
    versions
}

/// A version of a CRD as [`read_crd_versions`] lists it: read, or left out with the problems
/// that say why.
enum VersionEntry<'n> {
    Read(&'n Node, &'n str),
    Skipped(Diagnostics),
}

/// The kind's docs: the description of the stored version's schema.
fn storage_docs(versions: &[Version], version_nodes: &[Node]) -> Option<String> {
    versions
        .iter()
        .zip(version_nodes)
        .find(|(v, _)| v.storage)
        .and_then(|(_, node)| {
            node.get("schema")?
                .get("openAPIV3Schema")?
                .get("description")?
                .as_str()
                .map(str::to_owned)
        })
}

fn read_version(
    node: &Node,
    name: &str,
    kind: &str,
    sink: &Sink<'_>,
    options: &Options,
    scope: &mut TypeNames,
) -> Version {
    let root = node.get("schema").and_then(|s| s.get("openAPIV3Schema"));
    let mut reader = SchemaReader::new(sink, scope, options.reuse_k8s_types);
    let mut fields = root
        .map(|root| reader.root_fields(root, kind))
        .unwrap_or_default();
    let drive = !options.not_driven.iter().any(|k| k == kind);
    status::recognize(&mut fields, drive);
    let driven_status = status::standard_status(&fields).filter(|_| drive);
    let subresources = node.get("subresources");
    let scale = subresources.and_then(|s| s.get("scale")).and_then(|scale| {
        let scale = MapReader::open(scale, "`scale`", sink);
        Some(Scale {
            spec_replicas_path: scale.required_string("specReplicasPath")?.0,
            status_replicas_path: scale.required_string("statusReplicasPath")?.0,
            label_selector_path: scale.string("labelSelectorPath"),
        })
    });
    let printer_columns = node
        .get("additionalPrinterColumns")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|column| {
            let column = MapReader::open(column, "a printer column", sink);
            Some(PrinterColumn {
                name: column.required_string("name")?.0,
                type_: column.required_string("type")?.0,
                json_path: column.required_string("jsonPath")?.0,
                description: column.string("description"),
                priority: column.get("priority").and_then(|p| match p.value {
                    Value::Int(i) => i32::try_from(i).ok(),
                    _ => None,
                }),
                format: column.string("format"),
            })
        })
        .collect();
    let version = MapReader::open(node, "a version", sink);
    Version {
        name: name.to_owned(),
        served: version.boolean("served").unwrap_or(true),
        storage: version.boolean("storage").unwrap_or(false),
        deprecated: version.boolean("deprecated").unwrap_or(false),
        deprecation_warning: version.string("deprecationWarning"),
        body: Body::Root(fields),
        driven_status,
        printer_columns,
        scale,
        // `status: null` is no status subresource to the API server, as no `status` is.
        status_subresource: subresources
            .and_then(|s| s.get("status"))
            .is_some_and(|status| !matches!(status.value, Value::Null)),
        preserve_unknown: root.is_some_and(|root| {
            root.get("x-kubernetes-preserve-unknown-fields")
                .is_some_and(|v| v.value == Value::Bool(true))
        }),
    }
}
