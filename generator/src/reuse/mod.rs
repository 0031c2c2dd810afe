//! k8s-openapi types for CRD subtrees that have their structure.
//!
//! CRDs embed Kubernetes structures (a `Container`, an `Affinity`) as copies of their schemas.
//! [`Catalog::find`] tells, by structure, when a CRD's object subtree is exactly a k8s-openapi
//! 0.29 type, so the generated code can name `::k8s_openapi::api::core::v1::Container`
//! instead of a struct of its own. (What that type writes back for an object it read is
//! predicted by the test kit, `kondition-testkit`'s `k8s_writes`, for the object round trips.)
//!
//! The catalog ([`catalog`]) holds every type of `api::core::v1`, `api::apps::v1`,
//! `api::batch::v1` and `apimachinery::pkg::apis::meta::v1`, and every type they reference,
//! at every Kubernetes version k8s-openapi supports (1.33 to 1.37), as extracted from
//! k8s-openapi's own source (`tests/k8s_openapi_catalog.rs` checks it is up to date).
//!
//! # The rule
//!
//! This is the contract: the generator may use a k8s-openapi type for a subtree only when
//! it holds.
//!
//! A CRD object subtree (an [`ObjectType`]) is held by type T at Kubernetes version v when
//! all of these hold:
//!
//! - Its property names are exactly T's at v: with one property more, or one fewer, it is
//!   not.
//! - Every property's schema is compatible with T's, recursively at the same v:
//!   - a string (or a string enum) is held by a string; a `date-time` string also by `Time`
//!     and `MicroTime` (which rewrite it to UTC); base64 bytes hold
//!     only a `byte` string; an int-or-string is held by `IntOrString` and `Quantity`;
//!   - integers have the same width: `int32` only for an `i32`, `int64` (or an integer enum)
//!     only for an `i64`; a number is held by a number, a boolean by a boolean;
//!   - any JSON (no type, or an object without properties) only by an any-JSON type;
//!   - a list by a list whose items are compatible and whose merge is the same: atomic (also
//!     when the CRD says nothing), set, or map, where every key k8s-openapi merges items by
//!     is among the CRD's `x-kubernetes-list-map-keys` (`Container.ports` merges by
//!     `containerPort`; a CRD keying them by `containerPort` and `protocol` is fine, one
//!     keying them by `name` is not);
//!   - a string-keyed map by a map whose values are compatible and that is atomic exactly
//!     when the CRD's is (`x-kubernetes-map-type: atomic`);
//!   - a nested object (or one already [`Type::Reused`]: its original is compared) by the
//!     type T references, by this same rule at the same v.
//! - Every property T requires is required in the subtree: k8s-openapi fails or invents a
//!   value when a required property is absent. A property the subtree leaves optional but
//!   defaults to exactly the value k8s-openapi invents (`""` for a string, `0`, `false`,
//!   `[]`, `{}`) counts as required: the API server fills the default in before anyone reads
//!   the object, and k8s-openapi writes the same value back. That is how every CRD made with
//!   controller-gen has the `name` of a `LocalObjectReference` (`default: ""`).
//! - Nothing in the subtree is `nullable` (k8s-openapi writes a null back as absent), and no
//!   object in it preserves unknown fields (k8s-openapi drops unknown keys).
//! - Small structures coincide by chance: when T has fewer than 3 properties at v, one
//!   description must agree, compared with whitespace runs made one space and the ends
//!   trimmed: the subtree's own (with T's, or, nested, with that of the property referencing
//!   T) or one of its properties' (with T's property of the same name). Descriptions of any
//!   supported version count: a rewording is no change of structure. So a `{name: string}`
//!   "Name of the tenant" is not a `LocalObjectReference`.
//!
//! T holds the subtree *as a superset* at v when all the same holds except that T has more
//! properties, all optional (Kubernetes added fields).
//!
//! Let E be the versions at which T holds the subtree exactly. T matches when E is not empty
//! and every version from the oldest of E up to the newest k8s-openapi supports (1.37) holds
//! it exactly or as a superset; [`Reused::since`] is the oldest of E. So a subtree with a
//! property only newer versions have is held from the version that added it, and a subtree
//! lacking a property every version has is held by none.
//!
//! When several types match, the one with the most agreeing descriptions (the subtree's own
//! and its properties', as above) is taken, then the first by module (`core/v1`, `apps/v1`,
//! `batch/v1`, `meta/v1`, any other), then by path. Returned is
//! `Reused { path, since, original: Type::Object(object.clone()) }`.

pub mod catalog;
mod defaults;
mod matching;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::model::{ObjectType, Reused, Type};
use catalog::{CatalogData, DocHash, Shape};

/// The committed catalog: k8s-openapi 0.29's types by shape, every version.
const CATALOG_TEXT: &str = include_str!("../../data/k8s-openapi-0.29.json");

/// The k8s-openapi types by structure, for every Kubernetes version k8s-openapi supports.
#[derive(Debug)]
pub struct Catalog {
    data: CatalogData,
    /// The object types, in path order, with their descriptions in any version.
    types: Vec<(String, TypeDocs)>,
    /// Each object type's place in `types`, by path.
    by_path: HashMap<String, usize>,
    /// Every property name of an object type, in any version, numbered: a CRD object's
    /// field names are looked up once, then compared with each candidate type's as numbers
    /// (looking each name up again for every candidate was a sixth of the matching's work;
    /// issue 48).
    property_ids: HashMap<String, u32>,
    /// Object types (places in `types`, in path order) by property number.
    by_property: Vec<Vec<usize>>,
}

/// Every description hash an object type has had.
#[derive(Debug, Default)]
struct TypeDocs {
    own: HashSet<DocHash>,
    properties: HashMap<String, HashSet<DocHash>>,
    /// Every property name, in any version, by number, sorted.
    names: Vec<u32>,
}

impl Catalog {
    /// The catalog of k8s-openapi 0.29 (parsed once).
    pub fn get() -> &'static Self {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| {
            // The file is part of the crate and a test reads it; a broken one reuses nothing.
            Self::new(CatalogData::from_text(CATALOG_TEXT).unwrap_or_default())
        })
    }

    /// A catalog of `data`.
    pub fn new(data: CatalogData) -> Self {
        let mut types: Vec<(String, TypeDocs)> = Vec::new();
        let mut property_ids: HashMap<String, u32> = HashMap::new();
        for (path, variants) in &data.types {
            let mut entry: Option<TypeDocs> = None;
            for variant in variants {
                let Shape::Object(object) = &variant.shape else {
                    continue;
                };
                let entry = entry.get_or_insert_with(TypeDocs::default);
                entry.own.extend(object.doc);
                for (name, property) in &object.properties {
                    entry
                        .properties
                        .entry(name.clone())
                        .or_default()
                        .extend(property.doc);
                    let next = u32::try_from(property_ids.len()).unwrap_or(u32::MAX);
                    entry
                        .names
                        .push(*property_ids.entry(name.clone()).or_insert(next));
                }
            }
            if let Some(mut entry) = entry {
                entry.names.sort_unstable();
                entry.names.dedup();
                types.push((path.clone(), entry));
            }
        }
        let mut by_property = vec![Vec::new(); property_ids.len()];
        for (place, (_, entry)) in types.iter().enumerate() {
            for &id in &entry.names {
                by_property[id as usize].push(place);
            }
        }
        let by_path = types
            .iter()
            .enumerate()
            .map(|(place, (path, _))| (path.clone(), place))
            .collect();
        Self {
            data,
            types,
            by_path,
            property_ids,
            by_property,
        }
    }

    /// The descriptions of the object type at `path`.
    fn type_docs(&self, path: &str) -> Option<&TypeDocs> {
        self.by_path.get(path).map(|&place| &self.types[place].1)
    }

    /// The catalog's data.
    pub fn data(&self) -> &CatalogData {
        &self.data
    }

    /// The k8s-openapi type that holds objects of this shape losslessly, if any, by the
    /// module's rule; `docs` is the description of the schema the object is (a property's,
    /// or a list's items').
    pub fn find(&self, object: &ObjectType, docs: Option<&str>) -> Option<Reused> {
        let (path, since) = matching::find(self, object, docs)?;
        Some(Reused {
            path,
            since,
            original: Type::Object(object.clone()),
        })
    }

    /// What the Rust type's `Default` writes for a property of type `ty` that is required
    /// and absent: k8s-openapi's value, which a schema's default must equal for the subtree
    /// to be reused (`None` where the type has none, a `Time`).
    pub fn default_value(&self, ty: &catalog::PropertyType) -> Option<serde_json::Value> {
        defaults::default(self, ty)
    }
}
