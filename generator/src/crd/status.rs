//! The standard status in a CRD: the `conditions` of a `status` that are metav1 Conditions
//! become `kondition::Conditions`; when the status also has `observedGeneration`, it is a
//! status kondition drives, with `KubeStatus` on the struct and `StatusResource` on the kind,
//! so the chokepoint, the condition accessors and the summary work with it.
//!
//! It is recognized only when the change is lossless, when every object the CRD admits reads
//! into `kondition::Condition` and is written back the same:
//!
//! - each item has exactly `type`, `status`, `reason`, `message` and `lastTransitionTime`,
//!   all required (kondition's `Condition` has them all), and may have `observedGeneration`
//!   (an integer) and `severity` (as in Cluster API v1beta1);
//! - `status` is an enum of True, False and Unknown (or some of them), `severity` an enum of
//!   Info, Warning and Error (or some of them): a free string could hold a value
//!   `Condition` cannot;
//! - `lastTransitionTime` is a date-time: like every `metav1.Time`, it is written back in UTC
//!   whole seconds, as the API server itself writes it;
//! - nothing in the list or its items is nullable or keeps unknown fields;
//! - the status keeps no unknown fields of its own, and has an int64 `observedGeneration`
//!   (not nullable), or, without one, conditions that each have `observedGeneration`
//!   (Karpenter's NodePool, ORC's kinds);
//! - the list merges by `type` (`x-kubernetes-list-type: map`) or is atomic (no list type,
//!   as Flux's): the chokepoint then applies it whole.
//!
//! How the status differs from the standard one (where the generation is kept, how the list
//! merges, which optional condition fields are stored) is its [`StatusShape`], written on
//! the struct as the derive's attributes, so the chokepoint writes nothing the schema would
//! drop.
//!
//! The condition types and the profile are the user's (`--conditions`, `--profile`); by
//! default the standard profile.

use std::collections::BTreeMap;

use kondition::StatusShape;
use kondition::shape::{ConditionFields, ConditionsMerge, GenerationField};

use crate::caller::Caller;
use crate::model::{
    EnumValues, Field, IntegerFormat, ListKind, ListType, ObjectType, Schema, Type,
};

/// What the user says about one kind's standard status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusChoice {
    /// The profile (default `standard`).
    pub profile: Option<String>,
    /// Condition types beyond the profile's.
    pub conditions: Vec<String>,
}

impl StatusChoice {
    /// How the caller made this choice for `kind`, for an error about it.
    pub fn how(&self, kind: &str, caller: Caller) -> String {
        match &self.profile {
            Some(profile) => caller.profile(kind, profile),
            None => caller.conditions(kind),
        }
    }
}

/// Choices per kind name.
pub type StatusChoices = BTreeMap<String, StatusChoice>;

/// Makes the `conditions` of the root's `status` a `Type::Conditions` when they are metav1
/// conditions, losslessly ([`standard_status`] then tells whether the status can have
/// `KubeStatus`).
pub fn recognize(root_fields: &mut [Field]) {
    let Some(status) = root_fields.iter_mut().find(|f| f.name == "status") else {
        return;
    };
    let Type::Object(object) = &mut status.schema.ty else {
        return;
    };
    let Some(conditions) = object.fields.iter_mut().find(|f| f.name == "conditions") else {
        return;
    };
    if !conditions.schema.nullable && condition_list_problem(&conditions.schema.ty).is_none() {
        let list = std::mem::replace(&mut conditions.schema.ty, Type::Raw);
        conditions.schema.ty = Type::Conditions(Box::new(list));
    }
}

/// Why `ty` is not a list of metav1-shaped conditions that `kondition::Condition` holds
/// losslessly, as the end of a sentence about the list; `None` when it is one.
fn condition_list_problem(ty: &Type) -> Option<String> {
    let Type::List(list) = ty else {
        return Some("is not a list".to_owned());
    };
    match &list.kind {
        ListKind::Atomic => {}
        ListKind::Map(keys) if keys == &["type"] => {}
        ListKind::Map(keys) => {
            return Some(format!(
                "is a map keyed by {}, not by `type` alone",
                keys.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        ListKind::Set => return Some("is a set, which holds no objects".to_owned()),
    }
    if list.items.nullable {
        return Some("has nullable items".to_owned());
    }
    let Some(object) = item_object(list) else {
        return Some("has items that are not objects".to_owned());
    };
    if object.preserve_unknown {
        return Some(
            "has items that keep unknown fields, which `kondition::Condition` would drop"
                .to_owned(),
        );
    }
    const REQUIRED: [&str; 5] = ["type", "status", "reason", "message", "lastTransitionTime"];
    for name in REQUIRED {
        match object.fields.iter().find(|f| f.name == name) {
            None => {
                return Some(format!(
                    "has items without `{name}`, which every metav1 condition has"
                ));
            }
            Some(field) if !field.required => {
                return Some(format!(
                    "has items where `{name}` is optional: a metav1 condition requires it (add it to the items' `required`)"
                ));
            }
            Some(_) => {}
        }
    }
    object.fields.iter().find_map(|field| {
        let name = &field.name;
        if field.schema.nullable {
            return Some(format!("has items whose `{name}` is nullable"));
        }
        let problem = match (name.as_str(), &field.schema.ty) {
            ("type" | "reason" | "message", Type::String(_)) => return None,
            ("type" | "reason" | "message", _) => "is not a string",
            ("status", ty) if enum_within(ty, &["True", "False", "Unknown"]) => return None,
            ("status", _) => {
                "is not an enum of \"True\", \"False\" and \"Unknown\" (a free string could hold a value `kondition::Condition` cannot)"
            }
            ("severity", ty) if enum_within(ty, &["Info", "Warning", "Error"]) => return None,
            ("severity", _) => "is not an enum of Info, Warning and Error",
            ("lastTransitionTime", Type::DateTime) => return None,
            ("lastTransitionTime", _) => "is not a `date-time` string",
            ("observedGeneration", Type::Integer(_)) => return None,
            ("observedGeneration", _) => "is not an integer",
            _ => {
                return Some(format!(
                    "has items with a field `{name}` that `kondition::Condition` does not hold"
                ));
            }
        };
        Some(format!("has items whose `{name}` {problem}"))
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

/// A status kondition drives, read from a CRD: its schema, its object and its shape.
pub struct Adopted<'a> {
    /// The status' schema.
    pub schema: &'a Schema,
    /// Its properties.
    pub object: &'a ObjectType,
    /// How it differs from the standard status.
    pub shape: StatusShape,
}

/// The root's `status` of one version when kondition drives it: its `conditions` made
/// `Type::Conditions` by [`recognize`], the generation kept on the status (an int64
/// `observedGeneration`) or on each condition, and no unknown fields kept (the derive writes
/// only the fields it names).
pub fn standard_status(root_fields: &[Field]) -> Option<Adopted<'_>> {
    if why_not_standard(root_fields).is_some() {
        return None;
    }
    let status = root_fields.iter().find(|f| f.name == "status")?;
    let Type::Object(object) = &status.schema.ty else {
        return None;
    };
    let conditions = object.fields.iter().find(|f| f.name == "conditions")?;
    let (list, item_fields) = condition_items(conditions)?;
    let item_has = |name: &str| item_fields.iter().any(|f| f.name == name);
    let shape = StatusShape {
        generation: if object.fields.iter().any(|f| f.name == "observedGeneration") {
            GenerationField::Status
        } else {
            GenerationField::Conditions
        },
        merge: match list.kind {
            ListKind::Atomic => ConditionsMerge::Atomic,
            _ => ConditionsMerge::ByType,
        },
        fields: ConditionFields {
            severity: item_has("severity"),
            observed_generation: item_has("observedGeneration"),
        },
    };
    Some(Adopted {
        schema: &status.schema,
        object,
        shape,
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

/// Whether the conditions (made `Type::Conditions`) each have an integer
/// `observedGeneration`.
fn conditions_keep_generation(conditions: &Field) -> bool {
    condition_items(conditions).is_some_and(|(_, fields)| {
        fields
            .iter()
            .any(|f| f.name == "observedGeneration" && matches!(f.schema.ty, Type::Integer(_)))
    })
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
    if object.preserve_unknown {
        return Some("its `status` keeps unknown fields (`x-kubernetes-preserve-unknown-fields`), which the generated status would not write back".to_owned());
    }
    let conditions = match object.fields.iter().find(|f| f.name == "conditions") {
        None => return Some("its `status` has no `conditions`".to_owned()),
        Some(field) if matches!(field.schema.ty, Type::Conditions(_)) => field,
        Some(field) if field.schema.nullable => {
            return Some("its `status.conditions` is nullable".to_owned());
        }
        Some(field) => {
            let problem = condition_list_problem(&field.schema.ty)
                .unwrap_or_else(|| "is not a list of metav1 conditions".to_owned());
            return Some(format!("its `status.conditions` {problem}"));
        }
    };
    // `KubeStatus` keeps the generation as an `i64`.
    let add = "add `observedGeneration: {type: integer, format: int64}` to the status' properties, or name no profile or conditions for this kind (its conditions stay `kondition::Conditions`, without `KubeStatus`)";
    match object
        .fields
        .iter()
        .find(|f| f.name == "observedGeneration")
    {
        // The generation is kept on each condition.
        None if conditions_keep_generation(conditions) => None,
        None => Some(format!(
            "its `status` has no `observedGeneration`, and its conditions have none either, so nothing would say which generation the status reflects; {add}"
        )),
        Some(field) if field.schema.nullable => {
            Some("its `status.observedGeneration` is nullable".to_owned())
        }
        Some(field) => match &field.schema.ty {
            Type::Integer(int) if int.format == IntegerFormat::Int64 => None,
            _ => Some(format!(
                "its `status.observedGeneration` is not an integer of format int64; {add}"
            )),
        },
    }
}
