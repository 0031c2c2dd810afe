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
//! - `observedGeneration` of the status is an int64, not nullable, and the status keeps no
//!   unknown fields of its own.
//!
//! The condition types and the profile are the user's (`--conditions`, `--profile`); by
//! default the standard profile.

use std::collections::BTreeMap;

use crate::model::{EnumValues, Field, IntegerFormat, ObjectType, Schema, Type};

/// What the user says about one kind's standard status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusChoice {
    /// The profile (default `standard`).
    pub profile: Option<String>,
    /// Condition types beyond the profile's.
    pub conditions: Vec<String>,
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
    if !conditions.schema.nullable && is_condition_list(&conditions.schema.ty) {
        let list = std::mem::replace(&mut conditions.schema.ty, Type::Raw);
        conditions.schema.ty = Type::Conditions(Box::new(list));
    }
}

/// Whether `ty` is a list of metav1-shaped conditions.
fn is_condition_list(ty: &Type) -> bool {
    let Type::List(list) = ty else {
        return false;
    };
    if list.items.nullable {
        return false;
    }
    let object = match &list.items.ty {
        Type::Object(object) => object,
        Type::Reused(reused) => match &reused.original {
            Type::Object(object) => object,
            _ => return false,
        },
        _ => return false,
    };
    if object.preserve_unknown {
        return false;
    }
    const REQUIRED: [&str; 5] = ["type", "status", "reason", "message", "lastTransitionTime"];
    let has_all = REQUIRED
        .iter()
        .all(|name| object.fields.iter().any(|f| f.name == *name && f.required));
    has_all
        && object.fields.iter().all(|field| {
            !field.schema.nullable
                && match (field.name.as_str(), &field.schema.ty) {
                    ("type" | "reason" | "message", Type::String(_)) => true,
                    ("status", ty) => enum_within(ty, &["True", "False", "Unknown"]),
                    ("severity", ty) => enum_within(ty, &["Info", "Warning", "Error"]),
                    ("lastTransitionTime", Type::DateTime) => true,
                    ("observedGeneration", Type::Integer(_)) => true,
                    _ => false,
                }
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

/// The root's `status` of one version when it is the standard status: its `conditions` made
/// `Type::Conditions` by [`recognize`], an int64 `observedGeneration` beside them, and no
/// unknown fields kept (the derive writes only the fields it names).
pub fn standard_status(root_fields: &[Field]) -> Option<(&Schema, &ObjectType)> {
    let status = root_fields.iter().find(|f| f.name == "status")?;
    let Type::Object(object) = &status.schema.ty else {
        return None;
    };
    let conditions = object
        .fields
        .iter()
        .any(|f| matches!(f.schema.ty, Type::Conditions(_)));
    // `KubeStatus` keeps the generation as an `i64`.
    let generation = object.fields.iter().any(|f| {
        f.name == "observedGeneration"
            && !f.schema.nullable
            && matches!(&f.schema.ty, Type::Integer(int) if int.format == IntegerFormat::Int64)
    });
    (conditions && generation && !object.preserve_unknown).then_some((&status.schema, object))
}
