//! The rule of the module documentation: which catalog type holds a CRD object subtree, from
//! which version on.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::HashMap;

use crate::model::{
    EnumType, EnumValues, IntegerFormat, ListKind, ObjectType, Schema, Type, WellKnown,
};

use super::catalog::{DocHash, Leaf, ListMerge, MapMerge, Minor, PropertyType, Shape};
use super::Catalog;

/// How a type holds a subtree at one version; ordered from worst to best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Fit {
    /// It does not.
    No,
    /// It has more properties, all optional.
    Superset,
    /// Exactly.
    Exact,
}

/// Where a nested object is: the type and property that reference it, whose descriptions
/// count as the object's own.
#[derive(Clone, Copy)]
struct Context<'a> {
    parent: &'a str,
    property: &'a str,
}

/// The best match for `object` (its description `docs`): the type's path and the oldest
/// version from which it holds the object.
pub(super) fn find(
    catalog: &Catalog,
    object: &ObjectType,
    docs: Option<&str>,
) -> Option<(String, Minor)> {
    // Only a type that has every field's name, in some version, can hold the object: the
    // types that have the rarest of them are the candidates.
    let ids = object
        .fields
        .iter()
        .map(|f| catalog.property_ids.get(&f.name).copied())
        .collect::<Option<Vec<u32>>>()?;
    let rarest = ids
        .iter()
        .map(|&id| &catalog.by_property[id as usize])
        .min_by_key(|types| types.len())?;
    let hashes = Hashes::default();
    let mut matches = Vec::new();
    for &place in rarest {
        let (path, type_docs) = &catalog.types[place];
        if !ids.iter().all(|id| type_docs.names.binary_search(id).is_ok()) {
            continue;
        }
        if let Some(since) = since(catalog, &hashes, object, docs, path) {
            let score = agreeing_docs(catalog, &hashes, object, docs, path, None);
            matches.push((Reverse(score), group_rank(path), path.as_str(), since));
        }
    }
    matches
        .into_iter()
        .min()
        .map(|(_, _, path, since)| (path.to_owned(), since))
}

/// The oldest version from which `path` holds `object`: exactly then, and exactly or as a
/// superset at every later version.
fn since(
    catalog: &Catalog,
    hashes: &Hashes,
    object: &ObjectType,
    docs: Option<&str>,
    path: &str,
) -> Option<Minor> {
    // Every version from the first exact one on must hold the object, the newest included:
    // a type that does not hold it at the newest is out without trying the others (most
    // candidates are).
    let newest = catalog.data.latest();
    if object_fit(catalog, hashes, object, docs, path, newest, None) == Fit::No {
        return None;
    }
    let fits: Vec<(Minor, Fit)> = catalog
        .data
        .versions
        .iter()
        .map(|&v| (v, object_fit(catalog, hashes, object, docs, path, v, None)))
        .collect();
    let start = fits.iter().position(|(_, fit)| *fit == Fit::Exact)?;
    fits[start..]
        .iter()
        .all(|(_, fit)| *fit >= Fit::Superset)
        .then_some(fits[start].0)
}

/// core/v1, apps/v1, batch/v1, meta/v1, then the rest.
fn group_rank(path: &str) -> usize {
    const ORDER: [&str; 4] = [
        "api::core::v1::",
        "api::apps::v1::",
        "api::batch::v1::",
        "apimachinery::pkg::apis::meta::v1::",
    ];
    ORDER
        .iter()
        .position(|prefix| path.starts_with(prefix))
        .unwrap_or(ORDER.len())
}

/// The hashes of the descriptions met while matching one object, each computed once: the
/// same descriptions are compared for every candidate type and every Kubernetes version,
/// and hashing them again each time was a third of the matching's cost (issue 28).
///
/// A description is known by where its text is (address and length): every text hashed is
/// borrowed from the object being matched, which stays unchanged while it is matched, so
/// one place is one text. Looking the text itself up would hash it anyway.
#[derive(Default)]
struct Hashes(RefCell<HashMap<(usize, usize), Option<DocHash>>>);

impl Hashes {
    /// The hash of a description; none for an empty one, which agrees with nothing.
    fn of(&self, docs: Option<&str>) -> Option<DocHash> {
        let docs = docs?;
        let place = (docs.as_ptr() as usize, docs.len());
        *self
            .0
            .borrow_mut()
            .entry(place)
            .or_insert_with(|| (!docs.trim().is_empty()).then(|| DocHash::of(docs)))
    }
}

/// How many of the object's descriptions (its own, its properties') agree with the type's in
/// any version.
fn agreeing_docs(
    catalog: &Catalog,
    hashes: &Hashes,
    object: &ObjectType,
    docs: Option<&str>,
    path: &str,
    context: Option<Context<'_>>,
) -> usize {
    let Some(type_docs) = catalog.type_docs(path) else {
        return 0;
    };
    // Descriptions are hashed only when there is something to compare them with: hashing
    // them was half of the matching's cost (issue 28).
    let context_docs = context.and_then(|c| {
        catalog
            .type_docs(c.parent)
            .and_then(|parent| parent.properties.get(c.property))
    });
    let own = (!type_docs.own.is_empty() || context_docs.is_some_and(|set| !set.is_empty()))
        && hashes.of(docs).is_some_and(|h| {
            type_docs.own.contains(&h) || context_docs.is_some_and(|set| set.contains(&h))
        });
    let properties = object
        .fields
        .iter()
        .filter(|field| {
            type_docs.properties.get(&field.name).is_some_and(|set| {
                !set.is_empty()
                    && hashes
                        .of(field.schema.docs.as_deref())
                        .is_some_and(|h| set.contains(&h))
            })
        })
        .count();
    usize::from(own) + properties
}

/// How the type at `path` holds `object` at version `v`.
fn object_fit(
    catalog: &Catalog,
    hashes: &Hashes,
    object: &ObjectType,
    docs: Option<&str>,
    path: &str,
    v: Minor,
    context: Option<Context<'_>>,
) -> Fit {
    let Some(Shape::Object(shape)) = catalog.data.shape(path, v) else {
        return Fit::No;
    };
    if object.preserve_unknown || object.fields.is_empty() {
        return Fit::No;
    }
    let mut fit = Fit::Exact;
    for field in &object.fields {
        let Some(property) = shape.properties.get(&field.name) else {
            return Fit::No;
        };
        let context = Context {
            parent: path,
            property: &field.name,
        };
        fit = fit.min(schema_fit(
            catalog,
            hashes,
            &field.schema,
            &property.ty,
            v,
            context,
        ));
        if fit == Fit::No {
            return Fit::No;
        }
    }
    // A required property the CRD defaults to the value k8s-openapi gives it when absent is
    // as good as required: the API server fills it in, k8s-openapi writes the same back.
    let required = |name: &String| {
        object.fields.iter().any(|field| {
            &field.name == name
                && (field.required
                    || field.schema.default.as_ref().is_some_and(|default| {
                        shape
                            .properties
                            .get(name)
                            .and_then(|p| catalog.default_value(&p.ty))
                            .is_some_and(|absent| kondition::wire::json::same(default, &absent))
                    }))
        })
    };
    if !shape.required.iter().all(required) {
        return Fit::No;
    }
    if shape.properties.len() < 3
        && agreeing_docs(catalog, hashes, object, docs, path, context) == 0
    {
        return Fit::No;
    }
    // Every field is one of the type's properties, so a count tells whether it has more.
    if shape.properties.len() > object.fields.len() {
        fit = fit.min(Fit::Superset);
    }
    fit
}

fn schema_fit(
    catalog: &Catalog,
    hashes: &Hashes,
    schema: &Schema,
    target: &PropertyType,
    v: Minor,
    context: Context<'_>,
) -> Fit {
    if schema.nullable {
        return Fit::No;
    }
    type_fit(
        catalog,
        hashes,
        &schema.ty,
        schema.docs.as_deref(),
        target,
        v,
        context,
    )
}

fn exact(holds: bool) -> Fit {
    if holds { Fit::Exact } else { Fit::No }
}

fn type_fit(
    catalog: &Catalog,
    hashes: &Hashes,
    ty: &Type,
    docs: Option<&str>,
    target: &PropertyType,
    v: Minor,
    context: Context<'_>,
) -> Fit {
    if let Type::Reused(reused) = ty {
        return type_fit(catalog, hashes, &reused.original, docs, target, v, context);
    }
    match target {
        PropertyType::String => exact(matches!(
            ty,
            Type::String(_)
                | Type::DateTime
                | Type::WellKnown(WellKnown::Duration)
                | Type::Enum(EnumType {
                    values: EnumValues::Str(_),
                    ..
                })
        )),
        PropertyType::Bytes => exact(matches!(
            ty,
            Type::String(string) if string.format.as_deref() == Some("byte")
        )),
        PropertyType::Int32 => exact(matches!(
            ty,
            Type::Integer(int) if int.format == IntegerFormat::Int32
        )),
        PropertyType::Int64 => exact(
            matches!(
                ty,
                Type::Integer(int) if int.format == IntegerFormat::Int64
            ) || matches!(
                ty,
                Type::Enum(EnumType {
                    values: EnumValues::Int(_),
                    ..
                })
            ),
        ),
        PropertyType::Number => exact(matches!(ty, Type::Number(_))),
        PropertyType::Boolean => exact(matches!(ty, Type::Boolean)),
        PropertyType::List(items, merge) => {
            let Type::List(list) = ty else {
                return Fit::No;
            };
            let same_merge = match (&list.kind, merge) {
                (ListKind::Atomic, ListMerge::Atomic) | (ListKind::Set, ListMerge::Set) => true,
                (ListKind::Map(keys), ListMerge::Map(merged_by)) => {
                    merged_by.iter().all(|key| keys.contains(key))
                }
                _ => false,
            };
            if !same_merge {
                return Fit::No;
            }
            schema_fit(catalog, hashes, &list.items, items, v, context)
        }
        PropertyType::Map(values, merge) => {
            let Type::Map(map) = ty else {
                return Fit::No;
            };
            if map.atomic != (*merge == MapMerge::Atomic) {
                return Fit::No;
            }
            schema_fit(catalog, hashes, &map.values, values, v, context)
        }
        PropertyType::Ref(path) => match catalog.data.shape(path, v) {
            None => Fit::No,
            Some(Shape::Leaf(leaf)) => exact(leaf_holds(*leaf, ty)),
            Some(Shape::Object(_)) => match ty {
                Type::Object(object) => {
                    object_fit(catalog, hashes, object, docs, path, v, Some(context))
                }
                Type::WellKnown(known) => exact(
                    known
                        .rust_path()
                        .strip_prefix("k8s_openapi::")
                        .is_some_and(|p| p == path),
                ),
                _ => Fit::No,
            },
        },
    }
}

fn leaf_holds(leaf: Leaf, ty: &Type) -> bool {
    match leaf {
        Leaf::Time | Leaf::MicroTime => {
            matches!(ty, Type::DateTime | Type::WellKnown(WellKnown::Time))
        }
        Leaf::Quantity => matches!(ty, Type::IntOrString | Type::Quantity),
        Leaf::IntOrString => matches!(ty, Type::IntOrString),
        Leaf::Json => match ty {
            Type::Raw => true,
            // An object without properties: a map of anything.
            Type::Map(map) => map.values.ty == Type::Raw && !map.values.nullable,
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests;
