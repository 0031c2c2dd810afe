//! The standard status in a CRD: the `conditions` of a `status` that `kondition::Conditions`
//! holds become it; when the rest of the status allows, it is a status kondition drives,
//! with `KubeStatus` on the struct and `StatusResource` on the kind, so the chokepoint, the
//! condition accessors and the summary work with it.
//!
//! It is recognized only when the change is lossless, when every object the CRD admits reads
//! into the generated status and is written back the same:
//!
//! - each item has a required string `type` and a required `status`, an enum of True,
//!   False and Unknown (or some of them) or a free string: an item whose status is another
//!   word is kept by `Conditions` as it was read (a free-text `status` is KEDA's);
//! - `reason`, `message` (strings) and `lastTransitionTime` (a date-time, written back like
//!   every `metav1.Time` in UTC whole seconds, as the API server writes it) may each be
//!   required, optional (KEDA's `reason`, cert-manager's `lastTransitionTime`) or absent
//!   (KEDA's `lastTransitionTime`); the status then writes its conditions through
//!   `kondition::shape::serialize_optional_conditions`, and is recognized only where it has
//!   `KubeStatus`;
//! - `lastTransitionTime` may also be a plain string that admits an RFC 3339 time (Knative's
//!   `VolatileTime`: Tekton's runs, Knative Serving's kinds): the chokepoint writes it as it
//!   writes a date-time, and a text another writer left that is no time is kept as read
//!   (`kondition::Verbatim`);
//! - items may have `observedGeneration` (an integer) and `severity` (an enum within Info,
//!   Warning and Error, as in Cluster API v1beta1, or a plain string that admits them, as
//!   Knative's and ASO's: a text other than the three words, `""` among them, is kept as
//!   read), and nothing else;
//! - what is kept unread, as it was read and in its place: an item whose `status` is not
//!   True, False or Unknown, whose `severity` is null, or that has a field a condition has
//!   no place for; setting a condition of its type replaces it;
//! - nothing in the list or its items is nullable or keeps unknown fields;
//! - the status keeps no unknown fields of its own; an `observedGeneration` of its own is an
//!   int64 (not nullable); without one the generation is kept on the conditions (Karpenter's
//!   NodePool, ORC's kinds) or nowhere (KEDA's ScaledObject);
//! - the list merges by `type` (`x-kubernetes-list-type: map`) or is atomic (no list type,
//!   as Flux's): the chokepoint then applies it whole.
//!
//! When the user names a profile or conditions for a kind whose status is none of these,
//! the error lists every difference at once.
//!
//! How the status differs from the standard one (where the generation is kept, how the list
//! merges, which optional condition fields are stored) is its [`StatusShape`], written on
//! the struct as the derive's attributes, so the chokepoint writes nothing the schema would
//! drop.
//!
//! The condition types and the profile are the user's (`--conditions`, `--profile`); by
//! default the standard profile. Every status decision of the CRD front-end is made here:
//! each version's driven status ([`standard_status`]), then the kind's (`kind_status`: the
//! profile and conditions the options choose, an error where they name a kind whose status
//! kondition cannot drive, and the note on an atomic `conditions` list); the model records
//! the answers, and no later stage asks the CRD again.

use std::collections::BTreeMap;

use kondition::StatusShape;
use kondition::shape::{ConditionFields, ConditionsMerge, GenerationField, Presence};

use crate::caller::Caller;
use crate::model::{
    Body, ConditionDef, EnumValues, Field, IntegerFormat, ListKind, ListType, ObjectType,
    StatusDef, StringType, Type, Version,
};
use crate::profile::Profiles;
use crate::source::diagnostic::Diagnostic;
use crate::source::reader::Sink;
use crate::source::yaml::{Node, Pos};

/// What the user says about one kind's standard status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusChoice {
    /// The profile (default `standard`).
    pub profile: Option<String>,
    /// Condition types beyond the profile's.
    pub conditions: Vec<String>,
    /// The summary condition, instead of the profile's: one of the profile's condition types
    /// or of [`StatusChoice::conditions`].
    pub summary: Option<String>,
}

impl StatusChoice {
    /// How the caller made this choice for `kind`, for an error about it.
    pub fn how(&self, kind: &str, caller: Caller) -> String {
        match (&self.profile, &self.summary) {
            (Some(profile), _) => caller.profile(kind, profile),
            (None, Some(summary)) if self.conditions.is_empty() => caller.summary(kind, summary),
            (None, _) => caller.conditions(kind),
        }
    }
}

/// Choices per kind name.
pub type StatusChoices = BTreeMap<String, StatusChoice>;

/// Makes the `conditions` of the root's `status` a `Type::Conditions` when they are
/// conditions `kondition::Conditions` holds losslessly ([`standard_status`] then tells
/// whether the status can have `KubeStatus`). Conditions that lack a field metav1 requires
/// are written back through the status' shape, which only a status with `KubeStatus` has:
/// they are made `Type::Conditions` only in a status kondition drives (never without `drive`,
/// the user's `--no-drive`).
pub fn recognize(root_fields: &mut [Field], drive: bool) {
    let Some(status) = root_fields.iter_mut().find(|f| f.name == "status") else {
        return;
    };
    let Type::Object(object) = &mut status.schema.ty else {
        return;
    };
    let status_drivable = drive
        && keeps_unknown(object)
            .or_else(|| generation_problem(object))
            .is_none();
    let Some(list) = object.fields.iter_mut().find(|f| f.name == "conditions") else {
        return;
    };
    if list.schema.nullable || !condition_list_problems(&list.schema.ty).is_empty() {
        return;
    }
    let lenient = !item_fields_of(&list.schema.ty)
        .is_some_and(|fields| fields_of(fields).has_metav1_fields());
    if lenient && !status_drivable {
        return;
    }
    let ty = std::mem::replace(&mut list.schema.ty, Type::Raw);
    list.schema.ty = Type::Conditions(Box::new(ty));
}

/// The fields of a list type's items, when they are objects.
fn item_fields_of(ty: &Type) -> Option<&[Field]> {
    match ty {
        Type::List(list) => item_object(list).map(|object| object.fields.as_slice()),
        _ => None,
    }
}

/// Which condition fields items with these fields hold, and how.
fn fields_of(item_fields: &[Field]) -> ConditionFields {
    let presence = |name: &str| match item_fields.iter().find(|f| f.name == name) {
        None => Presence::Absent,
        Some(field) if field.required => Presence::Required,
        Some(_) => Presence::Optional,
    };
    ConditionFields {
        severity: item_fields.iter().any(|f| f.name == "severity"),
        observed_generation: item_fields.iter().any(|f| f.name == "observedGeneration"),
        reason: presence("reason"),
        message: presence("message"),
        last_transition_time: presence("lastTransitionTime"),
    }
}

/// Every way in which `ty` is not a list of conditions that `kondition::Conditions` holds
/// losslessly, each as the end of a sentence about the list; empty when it is one.
///
/// The items need a required string `type` and a required `status`, an enum of True,
/// False and Unknown or a free string (an item whose status is another word is kept
/// unread, as it is); `reason`, `message` and `lastTransitionTime` may be required,
/// optional or absent (KEDA's conditions); `severity` and `observedGeneration` may be there.
fn condition_list_problems(ty: &Type) -> Vec<String> {
    condition_list_problems_at(ty)
        .into_iter()
        .map(|(_, problem)| problem)
        .collect()
}

/// Where in a `conditions` list a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum InList {
    /// The list itself.
    List,
    /// Its items.
    Items,
    /// A property of its items.
    Field(String),
}

/// [`condition_list_problems`], each with its place.
fn condition_list_problems_at(ty: &Type) -> Vec<(InList, String)> {
    let Type::List(list) = ty else {
        return vec![(InList::List, "is not a list".to_owned())];
    };
    match &list.kind {
        ListKind::Atomic => {}
        ListKind::Map(keys) if keys == &["type"] => {}
        ListKind::Map(keys) => {
            return vec![(
                InList::List,
                format!(
                    "is a map keyed by {}, not by `type` alone",
                    keys.iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            )];
        }
        ListKind::Set => {
            return vec![(
                InList::List,
                "is a set, which holds no objects".to_owned(),
            )];
        }
    }
    if list.items.nullable {
        return vec![(InList::Items, "has nullable items".to_owned())];
    }
    let Some(object) = item_object(list) else {
        return vec![(
            InList::Items,
            "has items that are not objects".to_owned(),
        )];
    };
    let mut problems = Vec::new();
    if object.preserve_unknown {
        problems.push((
            InList::Items,
            "has items that keep unknown fields, which `kondition::Condition` would drop"
                .to_owned(),
        ));
    }
    for name in ["type", "status"] {
        match object.fields.iter().find(|f| f.name == name) {
            None => problems.push((
                InList::Items,
                format!("has items without `{name}`, which every condition needs"),
            )),
            Some(field) if !field.required => problems.push((
                InList::Field(name.to_owned()),
                format!(
                    "has items where `{name}` is optional: a condition without one cannot be told apart or read"
                ),
            )),
            Some(_) => {}
        }
    }
    problems.extend(object.fields.iter().filter_map(|field| {
        let name = &field.name;
        let at = InList::Field(name.clone());
        if field.schema.nullable {
            return Some((at, format!("has items whose `{name}` is nullable")));
        }
        let problem = match (name.as_str(), &field.schema.ty) {
            ("type" | "reason" | "message", Type::String(_)) => return None,
            ("type" | "reason" | "message", _) => "is not a string",
            ("status", ty) if enum_within(ty, &["True", "False", "Unknown"]) => return None,
            ("status", Type::String(_)) => return None,
            ("status", _) => {
                "is neither a string nor an enum of \"True\", \"False\" and \"Unknown\""
            }
            ("severity", ty) if enum_within(ty, &["Info", "Warning", "Error"]) => return None,
            ("severity", Type::String(string)) if admits(string, SEVERITIES) => return None,
            ("severity", _) => {
                "is neither a string that admits Info, Warning and Error nor an enum of them"
            }
            ("lastTransitionTime", Type::DateTime) => return None,
            ("lastTransitionTime", Type::String(string)) if admits(string, &[WHOLE_SECONDS]) => {
                return None;
            }
            ("lastTransitionTime", _) => {
                "is neither a `date-time` nor a string that admits an RFC 3339 time"
            }
            ("observedGeneration", Type::Integer(_)) => return None,
            ("observedGeneration", _) => "is not an integer",
            _ => {
                return Some((
                    at,
                    format!(
                        "has items with a field `{name}` that `kondition::Condition` does not hold"
                    ),
                ));
            }
        };
        Some((at, format!("has items whose `{name}` {problem}")))
    }));
    problems
}

/// The severities the chokepoint writes.
const SEVERITIES: &[&str] = &["Info", "Warning", "Error"];

/// A `lastTransitionTime` as the chokepoint writes it: RFC 3339, UTC, whole seconds.
const WHOLE_SECONDS: &str = "2024-01-02T03:04:05Z";

/// Whether a plain string (no `format`, no `pattern`) admits each of `values` by its length
/// bounds: a free-text `severity` (Knative's, ASO's) or `lastTransitionTime` (Knative's
/// `VolatileTime`), which the chokepoint writes as it writes them everywhere. What another
/// writer left there that the typed fields cannot hold, `kondition::Verbatim` keeps.
fn admits(string: &StringType, values: &[&str]) -> bool {
    string.format.is_none()
        && string.pattern.is_none()
        && values.iter().all(|value| {
            let length = value.chars().count() as u64;
            string.min_length.is_none_or(|min| length >= min)
                && string.max_length.is_none_or(|max| length <= max)
        })
}

/// Whether `ty` is a string enum whose values are all among `allowed`.
fn enum_within(ty: &Type, allowed: &[&str]) -> bool {
    match ty {
        Type::Enum(e) => match &e.values {
            EnumValues::Str(values) => values.iter().all(|v| allowed.contains(&v.as_str())),
            EnumValues::Int(_) => false,
        },
        _ => false,
    }
}

/// The shape of the root's `status` of one version when kondition drives it: its
/// `conditions` made `Type::Conditions` by [`recognize`], the generation kept on the status
/// (an int64 `observedGeneration`), on each condition or nowhere, and no unknown fields kept
/// (the derive writes only the fields it names). Read once, into `Version::driven_status`.
pub fn standard_status(root_fields: &[Field]) -> Option<StatusShape> {
    if why_not_standard(root_fields).is_some() {
        return None;
    }
    let status = root_fields.iter().find(|f| f.name == "status")?;
    let Type::Object(object) = &status.schema.ty else {
        return None;
    };
    let conditions = object.fields.iter().find(|f| f.name == "conditions")?;
    let (list, item_fields) = condition_items(conditions)?;
    let fields = fields_of(item_fields);
    Some(StatusShape {
        generation: if object.fields.iter().any(|f| f.name == "observedGeneration") {
            GenerationField::Status
        } else if fields.observed_generation {
            GenerationField::Conditions
        } else {
            GenerationField::None
        },
        merge: match list.kind {
            ListKind::Atomic => ConditionsMerge::Atomic,
            _ => ConditionsMerge::ByType,
        },
        fields,
    })
}

/// The list of a `conditions` field made `Type::Conditions`, and its items' fields.
fn condition_items(conditions: &Field) -> Option<(&ListType, &[Field])> {
    let Type::Conditions(list) = &conditions.schema.ty else {
        return None;
    };
    let Type::List(list) = list.as_ref() else {
        return None;
    };
    Some((list, &item_object(list)?.fields))
}

/// The object a list's items are (a reused k8s-openapi type's too: its original structure).
fn item_object(list: &ListType) -> Option<&ObjectType> {
    match &list.items.ty {
        Type::Object(object) => Some(object),
        Type::Reused(reused) => match &reused.original {
            Type::Object(object) => Some(object),
            _ => None,
        },
        _ => None,
    }
}

/// Why the root's `status` of one version is not a status kondition drives, saying what
/// differs and what to change; `None` when it is.
pub fn why_not_standard(root_fields: &[Field]) -> Option<String> {
    let Some(status) = root_fields.iter().find(|f| f.name == "status") else {
        return Some("it has no `status`".to_owned());
    };
    let Type::Object(object) = &status.schema.ty else {
        return Some("its `status` is not an object with properties".to_owned());
    };
    if let Some(problem) = keeps_unknown(object) {
        return Some(problem);
    }
    match object.fields.iter().find(|f| f.name == "conditions") {
        None => return Some("its `status` has no `conditions`".to_owned()),
        Some(field) if matches!(field.schema.ty, Type::Conditions(_)) => {}
        Some(field) if field.schema.nullable => {
            return Some("its `status.conditions` is nullable".to_owned());
        }
        Some(field) => {
            let problems = condition_list_problems(&field.schema.ty);
            if problems.is_empty() {
                return Some("its `status.conditions` is not a list of conditions".to_owned());
            }
            return Some(format!(
                "its `status.conditions` {}",
                problems.join("; it ")
            ));
        }
    };
    generation_problem(object)
}

/// One reason a version's status is not one kondition drives: where it is (the property
/// names from the version's schema root, `[]` for a list's items) and what differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    /// The place in the version's schema: `["status", "conditions", "[]", "lastUpdateTime"]`.
    pub at: Vec<String>,
    /// What differs, in [`why_not_standard`]'s words.
    pub message: String,
}

/// Every reason the root's `status` of one version is not a status kondition drives, each at
/// its place (where [`why_not_standard`] says the first); empty when it is driven.
pub fn reasons_not_standard(root_fields: &[Field]) -> Vec<Reason> {
    let at = |path: &[&str]| path.iter().map(|&p| p.to_owned()).collect::<Vec<_>>();
    let reason = |path: Vec<String>, message: String| Reason { at: path, message };
    let Some(status) = root_fields.iter().find(|f| f.name == "status") else {
        return vec![reason(Vec::new(), "it has no `status`".to_owned())];
    };
    let Type::Object(object) = &status.schema.ty else {
        return vec![reason(
            at(&["status"]),
            "its `status` is not an object with properties".to_owned(),
        )];
    };
    let mut reasons = Vec::new();
    if let Some(problem) = keeps_unknown(object) {
        reasons.push(reason(at(&["status"]), problem));
    }
    if let Some(problem) = generation_problem(object) {
        reasons.push(reason(at(&["status", "observedGeneration"]), problem));
    }
    let conditions = at(&["status", "conditions"]);
    match object.fields.iter().find(|f| f.name == "conditions") {
        None => reasons.push(reason(
            at(&["status"]),
            "its `status` has no `conditions`".to_owned(),
        )),
        Some(field) if matches!(field.schema.ty, Type::Conditions(_)) => {}
        Some(field) if field.schema.nullable => reasons.push(reason(
            conditions,
            "its `status.conditions` is nullable".to_owned(),
        )),
        Some(field) => {
            let problems = condition_list_problems_at(&field.schema.ty);
            // A list of conditions that only the status' own problems above keep from being
            // driven says nothing of its own.
            if problems.is_empty() && reasons.is_empty() {
                reasons.push(reason(
                    conditions.clone(),
                    "its `status.conditions` is not a list of conditions".to_owned(),
                ));
            }
            for (place, problem) in problems {
                let mut path = conditions.clone();
                match place {
                    InList::List => {}
                    InList::Items => path.push("[]".to_owned()),
                    InList::Field(name) => path.extend(["[]".to_owned(), name]),
                }
                reasons.push(reason(path, format!("its `status.conditions` {problem}")));
            }
        }
    }
    reasons
}

/// What `kondition explain` says of `kind` (read from `documents`, the YAML of its file): a
/// line saying it is driven, with its profile, and for each version whose status is not
/// driven, every reason, each at the line of the field it is about.
pub fn explain(kind: &crate::model::Kind, documents: &[Node]) -> Vec<Diagnostic> {
    let path = &kind.origin.path;
    let mut lines = Vec::new();
    if kind.source_crd.is_none() {
        let what = match &kind.status {
            Some(status) => format!("driven, with the profile `{}`", status.profile),
            None => "left as plain types".to_owned(),
        };
        lines.push(Diagnostic::new(
            path,
            kind.origin.pos,
            format!("{}: a kind of a schema file, which declares its status: {what}", kind.kind),
        ));
        return lines;
    }
    if let Some(status) = &kind.status {
        let driven: Vec<&str> = kind
            .versions
            .iter()
            .filter(|v| v.driven_status.is_some())
            .map(|v| v.name.as_str())
            .collect();
        lines.push(Diagnostic::new(
            path,
            kind.origin.pos,
            format!(
                "{}: driven by the status chokepoint in {} {}, with the profile `{}` (its status has `KubeStatus`)",
                kind.kind,
                if driven.len() == 1 { "version" } else { "versions" },
                driven.join(", "),
                status.profile
            ),
        ));
    }
    let crd = documents.iter().find(|document| {
        let spec = document.get("spec");
        super::is_crd(document)
            && spec.and_then(|s| s.get("group")).and_then(Node::as_str) == Some(&kind.group)
            && spec
                .and_then(|s| s.get("names"))
                .and_then(|n| n.get("kind"))
                .and_then(Node::as_str)
                == Some(&kind.kind)
    });
    for version in &kind.versions {
        let Body::Root(fields) = &version.body else {
            continue;
        };
        if version.driven_status.is_some() {
            continue;
        }
        let root = crd
            .and_then(|crd| crd.get("spec")?.get("versions")?.as_seq())
            .and_then(|versions| {
                versions
                    .iter()
                    .find(|v| v.get("name").and_then(Node::as_str) == Some(&version.name))
            })
            .and_then(|v| v.get("schema")?.get("openAPIV3Schema"));
        let reasons = reasons_not_standard(fields);
        let mut placed: Vec<Diagnostic> = reasons
            .iter()
            .map(|reason| {
                let pos = root.map_or(kind.origin.pos, |root| place(root, &reason.at));
                Diagnostic::new(
                    path,
                    pos,
                    format!("{} {}: {}", kind.kind, version.name, reason.message),
                )
            })
            .collect();
        // In the order of the file.
        placed.sort_by_key(|line| line.pos);
        lines.extend(placed);
        if kind.status.is_none() && reasons.is_empty() {
            // Drivable, and left plain by the user's choice.
            lines.push(Diagnostic::new(
                path,
                kind.origin.pos,
                format!(
                    "{} {}: left as plain types by your choice (`--no-drive`)",
                    kind.kind, version.name
                ),
            ));
        }
    }
    lines
}

/// The place in a version's schema `root` of the property at `at` (`[]` is a list's items):
/// the line of its key, or of the deepest one found.
fn place(root: &Node, at: &[String]) -> Pos {
    let mut node = root;
    let mut pos = root.pos;
    for step in at {
        let (parent, key) = if step == "[]" {
            (Some(node), "items")
        } else {
            (node.get("properties"), step.as_str())
        };
        let Some((key, value)) = parent
            .and_then(Node::as_map)
            .and_then(|map| map.iter().find(|(k, _)| k.as_str() == Some(key)))
        else {
            break;
        };
        pos = key.pos;
        node = value;
    }
    pos
}

/// The kinds read from CRDs whose status has `conditions` but is left as plain types (no
/// `KubeStatus`) though the user did not choose it (`--no-drive`), as one note for the whole
/// run: the user learns which kinds the chokepoint cannot drive, and how to ask why
/// (`kondition explain`) or to say it is their choice.
pub fn undriven_note(model: &crate::model::Model, options: &super::Options) -> Option<Diagnostic> {
    let mut kinds: Vec<&str> = Vec::new();
    for kind in model.files.iter().flat_map(|f| &f.kinds) {
        let has_conditions = kind.versions.iter().any(|version| match &version.body {
            Body::Root(fields) => fields.iter().any(|f| {
                f.name == "status"
                    && matches!(&f.schema.ty, Type::Object(o) if o.fields.iter().any(|c| c.name == "conditions"))
            }),
            Body::Standard { .. } => false,
        });
        if kind.source_crd.is_some()
            && kind.status.is_none()
            && has_conditions
            && !options.not_driven.contains(&kind.kind)
            && !kinds.contains(&kind.kind.as_str())
        {
            kinds.push(&kind.kind);
        }
    }
    if kinds.is_empty() {
        return None;
    }
    let caller = options.caller;
    Some(Diagnostic::new(
        caller.place(),
        Pos::default(),
        format!(
            "note: status left as plain types, which the status chokepoint cannot drive: {}; \
             `kondition explain KIND` says why; {} says it is your choice, and ends this note",
            kinds.join(", "),
            caller.no_drive("KIND")
        ),
    ))
}

/// Why a status that keeps unknown fields is not driven; `None` when it keeps none.
fn keeps_unknown(status: &ObjectType) -> Option<String> {
    status.preserve_unknown.then(|| "its `status` keeps unknown fields (`x-kubernetes-preserve-unknown-fields`), which the generated status would not write back".to_owned())
}

/// Why the status' own `observedGeneration` is not one `KubeStatus` keeps (an `i64`), if it
/// has one. A status that keeps none anywhere is driven too (`GenerationField::None`): the
/// chokepoint writes it, but nothing in it says which generation it reflects.
fn generation_problem(status: &ObjectType) -> Option<String> {
    let add = "add `observedGeneration: {type: integer, format: int64}` to the status' properties, or name no profile or conditions for this kind (its conditions stay `kondition::Conditions`, without `KubeStatus`)";
    let field = status
        .fields
        .iter()
        .find(|f| f.name == "observedGeneration")?;
    if field.schema.nullable {
        return Some("its `status.observedGeneration` is nullable".to_owned());
    }
    match &field.schema.ty {
        Type::Integer(int) if int.format == IntegerFormat::Int64 => None,
        _ => Some(format!(
            "its `status.observedGeneration` is not an integer of format int64; {add}"
        )),
    }
}

/// The kind's standard status, when its status is the standard one (`Some(None)` when it is
/// not); `None` when the status the options choose cannot be given.
pub(super) fn kind_status(
    crd: &Node,
    kind: &str,
    versions: &[Version],
    context: &super::Context<'_>,
) -> Option<Option<StatusDef>> {
    let sink = context.sink;
    // Each version whose status kondition drives, with that status's shape.
    let driven: Vec<(&str, StatusShape)> = versions
        .iter()
        .filter_map(|v| Some((v.name.as_str(), v.driven_status?)))
        .collect();
    let choice = context.options.statuses.get(kind);
    let caller = context.options.caller;
    if context.options.not_driven.iter().any(|k| k == kind) {
        if let Some(choice) = choice {
            sink.error(
                crd.pos,
                format!(
                    "{}: {kind} is left undriven by {}, so it has no profile, conditions \
                     or summary; name one or the other",
                    choice.how(kind, caller),
                    caller.no_drive(kind)
                ),
            );
            return None;
        }
        return Some(None);
    }
    if !driven.is_empty() {
        note_atomic_conditions(crd, kind, &driven, context);
        return standard_status_def(kind, choice, context.profiles, crd.pos, sink, caller)
            .map(Some);
    }
    if let Some(choice) = choice {
        // The stored version's reason (else the first's): the one most objects are in.
        let version = versions
            .iter()
            .find(|v| v.storage)
            .or_else(|| versions.first());
        let why = version.map_or_else(String::new, |version| match &version.body {
            Body::Root(fields) => why_not_standard(fields)
                .map_or_else(String::new, |why| {
                    format!(" in version {}: {why}", version.name)
                }),
            Body::Standard { .. } => String::new(),
        });
        sink.error(
            crd.pos,
            format!(
                "{}: {kind} has no status kondition can drive (a `conditions` list whose items have a required `type` and `status`){why}",
                choice.how(kind, caller)
            ),
        );
    }
    Some(None)
}

/// A note for each version whose driven status has an atomic `conditions` list: what the
/// chokepoint can and cannot do with it is the user's to know, until they say they do
/// ([`Options::acknowledged_atomic_lists`]).
fn note_atomic_conditions(
    crd: &Node,
    kind: &str,
    driven: &[(&str, StatusShape)],
    context: &super::Context<'_>,
) {
    let options = context.options;
    if !options.atomic_list_notes || options.acknowledged_atomic_lists.iter().any(|k| k == kind) {
        return;
    }
    let acknowledge = options.caller.acknowledge_atomic_list(kind);
    let atomic = driven
        .iter()
        .filter(|(_, shape)| shape.merge == ConditionsMerge::Atomic);
    for (version, _) in atomic {
        context.notes.borrow_mut().push(Diagnostic::new(
            context.sink.path(),
            crd.pos,
            format!(
                "note: {kind} {version}: `status.conditions` is an atomic list (no `x-kubernetes-list-type: map`): the controller's status apply holds it whole, other managers' conditions as it read them (a list changed since the read fails the apply's precondition, and the reconcile runs again), and the controller then owns the whole list: nothing is merged per condition type, and another manager's server-side apply of the list conflicts unless forced; {acknowledge} says you know, and ends this note"
            ),
        ));
    }
}

/// The status of a kind whose status is the standard one: the chosen profile's conditions
/// (standard by default), then the user's.
fn standard_status_def(
    kind: &str,
    choice: Option<&StatusChoice>,
    profiles: &Profiles,
    pos: Pos,
    sink: &Sink,
    caller: Caller,
) -> Option<StatusDef> {
    let name = choice
        .and_then(|c| c.profile.clone())
        .unwrap_or_else(|| crate::profile::DEFAULT.to_owned());
    let profile = match profiles.lookup(&name) {
        Ok(profile) => profile,
        Err(hint) => {
            let place = caller.profile(kind, &name);
            sink.error(pos, format!("{place}: no such profile{hint}"));
            return None;
        }
    };
    let mut conditions = profile.conditions.clone();
    for type_ in choice.map(|c| c.conditions.as_slice()).unwrap_or_default() {
        if !kondition_names::api_rules::is_valid_type(type_) {
            sink.error(
                pos,
                format!(
                    "{}: condition type `{type_}` would be rejected by the API server",
                    caller.conditions(kind)
                ),
            );
            return None;
        }
        if conditions.iter().any(|c| &c.type_ == type_) {
            sink.error(
                pos,
                format!(
                    "{}: condition type `{type_}` is already declared (by the profile or before)",
                    caller.conditions(kind)
                ),
            );
            return None;
        }
        conditions.push(ConditionDef {
            type_: type_.clone(),
            polarity: kondition::Polarity::Positive,
            reasons: Vec::new(),
            docs: None,
        });
    }
    let summary = match choice.and_then(|c| c.summary.as_ref()) {
        None => profile.summary.clone(),
        Some(summary) if conditions.iter().any(|c| &c.type_ == summary) => summary.clone(),
        Some(summary) => {
            let types: Vec<&str> = conditions.iter().map(|c| c.type_.as_str()).collect();
            sink.error(
                pos,
                format!(
                    "{}: `{summary}` is not a condition type of {kind} (its types: {}); add it with {}",
                    caller.summary(kind, summary),
                    types.join(", "),
                    caller.conditions(kind)
                ),
            );
            return None;
        }
    };
    Some(StatusDef {
        profile: name,
        summary,
        transition_rule: profile.transition_rule,
        conditions,
        sub_resources: Vec::new(),
    })
}
