//! One kind: its names, versions, status and columns.

use kondition::Severity;
use kondition::subresources::{
    REASON_MULTIPLE_FAILURES, REASON_SUB_RESOURCE_FAILED, REASON_SUB_RESOURCES_PENDING,
    REASON_SUB_RESOURCES_READY, SUB_RESOURCES_READY,
};
use kondition_names::api_rules::is_valid_reason;

use crate::conditions::{read_condition, read_reason};
use crate::format::types::TypeReader;
use crate::model::{
    Body, ConditionDef, CrdMetadata, Kind, Names, Origin, PrinterColumn, ReasonDef, Scale, Scope,
    StatusDef, SubResourceDef, Version,
};
use crate::name_rules::{check_group, is_dns_label, is_pascal_case};
use crate::profile::Profiles;
use crate::source::reader::{MapReader, Sink};
use crate::source::yaml::{Node, Pos};

/// Every key of a kind document.
pub const KIND_KEYS: &[&str] = &[
    "group",
    "kind",
    "version",
    "versions",
    "scope",
    "names",
    "docs",
    "fieldOwner",
    "status",
    "printerColumns",
    "scale",
    "validations",
    "spec",
    "types",
];
/// Every key of `names`.
pub const NAMES_KEYS: &[&str] = &["plural", "singular", "shortNames", "categories", "listKind"];
/// Every key of `status`.
pub const STATUS_KEYS: &[&str] = &["profile", "conditions", "reasons", "subResources", "fields"];
/// Every key of an entry of `versions`.
pub const VERSION_KEYS: &[&str] = &[
    "name",
    "served",
    "storage",
    "deprecated",
    "deprecationWarning",
    "spec",
    "statusFields",
    "printerColumns",
    "validations",
    "scale",
];
/// Every key of a printer column.
pub const PRINTER_KEYS: &[&str] = &[
    "name",
    "type",
    "jsonPath",
    "description",
    "priority",
    "format",
];
/// Every key of `scale`.
pub const SCALE_KEYS: &[&str] = &[
    "specReplicasPath",
    "statusReplicasPath",
    "labelSelectorPath",
];
/// Every key of an entry of `status.subResources`.
pub const SUB_RESOURCE_KEYS: &[&str] = &["kind", "docs"];
const PRINTER_TYPES: &[&str] = &["string", "integer", "number", "boolean", "date"];

/// Reads one kind document.
pub fn read_kind(root: &Node, types: &mut TypeReader, profiles: &Profiles) -> Option<Kind> {
    let sink = types.sink;
    let map = MapReader::new(root, "a kind", KIND_KEYS, sink);
    let group = map.required_string("group");
    let kind = map.required_string("kind");
    if let Some((group, pos)) = &group {
        check_group(group, *pos, sink);
    }
    if let Some((kind, pos)) = &kind
        && !is_pascal_case(kind)
    {
        sink.error(
            *pos,
            format!("kind `{kind}` must be PascalCase: a capital letter, then letters and digits"),
        );
    }
    let scope = match map.get("scope").map(|n| (n.as_str(), n.pos)) {
        None | Some((Some("Namespaced"), _)) => Scope::Namespaced,
        Some((Some("Cluster"), _)) => Scope::Cluster,
        Some((_, pos)) => {
            sink.error(pos, "`scope` must be Namespaced or Cluster");
            Scope::Namespaced
        }
    };
    let field_owner = map.string("fieldOwner");
    if let (Some(owner), Some(node)) = (&field_owner, map.get("fieldOwner"))
        && (owner.is_empty() || owner.len() > 128)
    {
        sink.error(
            node.pos,
            "`fieldOwner` must be 1 to 128 characters, the API server's limit for a field manager",
        );
    }
    let status = map.get("status");
    let (group, _) = group?;
    let (kind, _) = kind?;
    let names = read_names(map.get("names"), &kind, sink);
    let status_def = read_status(status, profiles, sink);
    let versions = read_versions(&map, &kind, status, types);
    Some(Kind {
        origin: Origin {
            path: sink.path().to_owned(),
            pos: root.pos,
        },
        group,
        kind,
        scope,
        names,
        docs: map.string("docs"),
        field_owner,
        status: Some(status_def?),
        versions,
        source_crd: None,
        crd_metadata: CrdMetadata::default(),
    })
}

/// The English plural of a lowercase kind, as the API conventions name resources.
pub fn plural_of(singular: &str) -> String {
    if singular.ends_with(['s', 'x', 'z']) || singular.ends_with("ch") || singular.ends_with("sh") {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    }
}

fn read_names(node: Option<&Node>, kind: &str, sink: &Sink) -> Names {
    let singular_default = kind.to_ascii_lowercase();
    let Some(node) = node else {
        return Names {
            plural: plural_of(&singular_default),
            singular: singular_default,
            short_names: Vec::new(),
            categories: Vec::new(),
            list_kind: None,
        };
    };
    let map = MapReader::new(node, "names", NAMES_KEYS, sink);
    let label = |key: &str, value: Option<(String, Pos)>| {
        if let Some((value, pos)) = &value
            && !is_dns_label(value)
        {
            sink.error(
                *pos,
                format!("`{key}` entry `{value}` must be a lowercase DNS label"),
            );
        }
        value.map(|(v, _)| v)
    };
    let plural = label(
        "plural",
        map.get("plural")
            .and_then(|n| n.as_str().map(|s| (s.to_owned(), n.pos))),
    );
    let singular = label(
        "singular",
        map.get("singular")
            .and_then(|n| n.as_str().map(|s| (s.to_owned(), n.pos))),
    );
    let short_names = map
        .strings("shortNames")
        .into_iter()
        .filter_map(|v| label("shortNames", Some(v)))
        .collect();
    let categories = map
        .strings("categories")
        .into_iter()
        .filter_map(|v| label("categories", Some(v)))
        .collect();
    let singular = singular.unwrap_or(singular_default);
    Names {
        plural: plural.unwrap_or_else(|| plural_of(&singular)),
        singular,
        short_names,
        categories,
        list_kind: map.string("listKind"),
    }
}

fn read_status(node: Option<&Node>, profiles: &Profiles, sink: &Sink) -> Option<StatusDef> {
    let empty = Node {
        pos: Pos::default(),
        value: crate::source::yaml::Value::Map(Vec::new()),
    };
    let node = node.unwrap_or(&empty);
    let map = MapReader::new(node, "status", STATUS_KEYS, sink);
    let (profile_name, profile_pos) = map
        .get("profile")
        .and_then(|n| n.as_str().map(|s| (s.to_owned(), n.pos)))
        .unwrap_or_else(|| (crate::profile::DEFAULT.to_owned(), node.pos));
    let profile = match profiles.lookup(&profile_name) {
        Ok(profile) => profile,
        Err(hint) => {
            sink.error(
                profile_pos,
                format!("profile `{profile_name}` does not exist{hint}"),
            );
            return None;
        }
    };
    let mut conditions: Vec<ConditionDef> = profile.conditions.clone();
    for node in map.list("conditions") {
        let Some(condition) = read_condition(node, sink) else {
            continue;
        };
        if conditions.iter().any(|c| c.type_ == condition.type_) {
            sink.error(
                node.pos,
                format!(
                    "condition type `{}` is already declared (by the profile or above)",
                    condition.type_
                ),
            );
            continue;
        }
        conditions.push(condition);
    }
    // Extra reasons belong to the summary condition.
    let extra_reasons: Vec<ReasonDef> = map
        .list("reasons")
        .iter()
        .filter_map(|n| read_reason(n, sink))
        .collect();
    if let Some(summary) = conditions.iter_mut().find(|c| c.type_ == profile.summary) {
        for reason in extra_reasons {
            if !summary.reasons.iter().any(|r| r.name == reason.name) {
                summary.reasons.push(reason);
            }
        }
    }
    let sub_resources: Vec<SubResourceDef> = map
        .list("subResources")
        .iter()
        .filter_map(|node| {
            let sub = MapReader::new(node, "a sub-resource", SUB_RESOURCE_KEYS, sink);
            let (kind, pos) = sub.required_string("kind")?;
            if !is_valid_reason(&kind) {
                sink.error(
                    pos,
                    format!("sub-resource kind `{kind}` must be a word such as Rule"),
                );
            }
            Some(SubResourceDef {
                kind,
                docs: sub.string("docs"),
            })
        })
        .collect();
    if !sub_resources.is_empty() && !conditions.iter().any(|c| c.type_ == SUB_RESOURCES_READY) {
        conditions.push(sub_resources_ready());
    }
    Some(StatusDef {
        profile: profile_name,
        summary: profile.summary.clone(),
        transition_rule: profile.transition_rule,
        conditions,
        sub_resources,
    })
}

/// SubResourcesReady with the runtime's reasons.
fn sub_resources_ready() -> ConditionDef {
    let reason = |name: &str, severity| ReasonDef {
        name: name.to_owned(),
        severity,
        docs: None,
    };
    ConditionDef {
        type_: SUB_RESOURCES_READY.to_owned(),
        polarity: kondition::Polarity::Positive,
        reasons: vec![
            reason(REASON_SUB_RESOURCES_READY, Severity::None),
            reason(REASON_SUB_RESOURCES_PENDING, Severity::Info),
            reason(REASON_SUB_RESOURCE_FAILED, Severity::Warning),
            reason(REASON_MULTIPLE_FAILURES, Severity::Warning),
        ],
        docs: Some("Whether every sub-resource is in its desired state.".to_owned()),
    }
}

fn read_versions(
    map: &MapReader,
    kind: &str,
    status: Option<&Node>,
    types: &mut TypeReader,
) -> Vec<Version> {
    let sink = types.sink;
    let shared_status_fields = status
        .and_then(|s| s.get("fields"))
        .and_then(Node::as_map)
        .unwrap_or_default();
    let shared_scale = map.get("scale").and_then(|n| read_scale(n, sink));
    match (map.get("version"), map.get("versions")) {
        (Some(_), Some(node)) => {
            sink.error(
                node.pos,
                "give either `version` (one version) or `versions`, not both",
            );
            Vec::new()
        }
        (None, None) => {
            sink.error(map.pos(), "a kind needs `version` (or `versions`)");
            Vec::new()
        }
        (Some(node), None) => {
            let Some(name) = node.as_str() else {
                sink.error(node.pos, "`version` must be a string such as v1");
                return Vec::new();
            };
            check_version_name(name, node.pos, sink);
            vec![Version {
                name: name.to_owned(),
                served: true,
                storage: true,
                deprecated: false,
                deprecation_warning: None,
                body: Body::Standard {
                    spec: types.fields(map.entries("spec"), &format!("{kind}Spec")),
                    spec_validations: types.validations(map.list("validations")),
                    status_fields: types.fields(shared_status_fields, &format!("{kind}Status")),
                },
                printer_columns: read_columns(map.list("printerColumns"), sink),
                scale: shared_scale,
                status_subresource: true,
                preserve_unknown: false,
                driven_status: None,
            }]
        }
        (None, Some(node)) => {
            for key in ["spec", "validations", "printerColumns"] {
                if let Some(misplaced) = map.get(key) {
                    sink.error(
                        misplaced.pos,
                        format!("with `versions`, `{key}` belongs in each version"),
                    );
                }
            }
            let versions: Vec<Version> = map
                .list("versions")
                .iter()
                .filter_map(|v| {
                    let version = MapReader::new(v, "a version", VERSION_KEYS, sink);
                    let (name, pos) = version.required_string("name")?;
                    check_version_name(&name, pos, sink);
                    let mut status_fields =
                        types.fields(shared_status_fields, &format!("{kind}Status"));
                    status_fields.extend(
                        types.fields(version.entries("statusFields"), &format!("{kind}Status")),
                    );
                    Some(Version {
                        served: version.boolean("served").unwrap_or(true),
                        storage: version.boolean("storage").unwrap_or(false),
                        deprecated: version.boolean("deprecated").unwrap_or(false),
                        deprecation_warning: version.string("deprecationWarning"),
                        body: Body::Standard {
                            spec: types.fields(version.entries("spec"), &format!("{kind}Spec")),
                            spec_validations: types.validations(version.list("validations")),
                            status_fields,
                        },
                        printer_columns: read_columns(version.list("printerColumns"), sink),
                        scale: version
                            .get("scale")
                            .and_then(|n| read_scale(n, sink))
                            .or_else(|| shared_scale.clone()),
                        status_subresource: true,
                        preserve_unknown: false,
                        driven_status: None,
                        name,
                    })
                })
                .collect();
            let storage = versions.iter().filter(|v| v.storage).count();
            if storage != 1 && !versions.is_empty() {
                sink.error(
                    node.pos,
                    format!("exactly one version must have `storage: true`; {storage} do"),
                );
            }
            for (i, version) in versions.iter().enumerate() {
                if versions[..i].iter().any(|v| v.name == version.name) {
                    sink.error(
                        node.pos,
                        format!("version `{}` is listed twice", version.name),
                    );
                }
            }
            versions
        }
    }
}

fn check_version_name(name: &str, pos: Pos, sink: &Sink) {
    // The API server asks only for a DNS label; `v1`, `v2beta1` and ASO's `v1api20200601`
    // all qualify.
    if !is_dns_label(name) {
        sink.error(
            pos,
            format!("version `{name}` must be a lowercase DNS label such as v1 or v2beta1"),
        );
    }
}

fn read_columns(nodes: &[Node], sink: &Sink) -> Vec<PrinterColumn> {
    nodes
        .iter()
        .filter_map(|node| {
            let map = MapReader::new(node, "a printer column", PRINTER_KEYS, sink);
            let (name, _) = map.required_string("name")?;
            let (type_, pos) = map.required_string("type")?;
            if !PRINTER_TYPES.contains(&type_.as_str()) {
                sink.error(
                    pos,
                    format!(
                        "a printer column's `type` must be one of {}",
                        PRINTER_TYPES.join(", ")
                    ),
                );
            }
            let (json_path, _) = map.required_string("jsonPath")?;
            Some(PrinterColumn {
                name,
                type_,
                json_path,
                description: map.string("description"),
                priority: map.int("priority").and_then(|p| i32::try_from(p).ok()),
                format: map.string("format"),
            })
        })
        .collect()
}

fn read_scale(node: &Node, sink: &Sink) -> Option<Scale> {
    let map = MapReader::new(node, "scale", SCALE_KEYS, sink);
    Some(Scale {
        spec_replicas_path: map.required_string("specReplicasPath")?.0,
        status_replicas_path: map.required_string("statusReplicasPath")?.0,
        label_selector_path: map.string("labelSelectorPath"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        for (singular, plural) in [
            ("widget", "widgets"),
            ("policy", "policies"),
            ("gateway", "gateways"),
            ("class", "classes"),
            ("mesh", "meshes"),
            ("box", "boxes"),
        ] {
            assert_eq!(plural_of(singular), plural);
        }
    }
}
