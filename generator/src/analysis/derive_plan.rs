//! The derive plan: which derives each generated data type gets, decided for the whole run
//! before any Rust is written (`--without-derive` leaves some out; the types a `KubeStatus`
//! status holds keep `PartialEq`, which a status needs wherever its types are defined,
//! in a version module or in `shared`, so the share plan is read first).

use std::collections::{HashMap, HashSet};

use super::share::Plan;
use crate::derives::{Derive, Derives};
use crate::model::{Body, Field, Model, Schema, SchemaFile, Type};

/// Which derives each data type gets: all but those left out, except that the types a
/// `KubeStatus` status holds keep `PartialEq` (and `Eq`, unless it is left out): the status's
/// apply configuration holds them and derives `PartialEq`.
#[derive(Debug, Default)]
pub struct DerivePlan {
    without: Derives,
    /// The types a standard status holds, by (file module, version, local name).
    status_local: HashSet<(String, String, String)>,
    /// The same types, by their names in `shared`.
    status_shared: HashSet<String>,
}

impl DerivePlan {
    /// The plan for `model`, whose shared types `plan` names, without the derives `without`.
    pub fn new(model: &Model, plan: &Plan, without: Derives) -> Self {
        let mut this = Self {
            without,
            ..Self::default()
        };
        if !without.contains(Derive::PartialEq) {
            return this;
        }
        let shared: HashMap<&str, &Schema> = plan
            .defs
            .iter()
            .map(|def| (def.name.as_str(), &def.schema))
            .collect();
        for file in &model.files {
            for kind in file.kinds.iter().filter(|k| k.status.is_some()) {
                for version in &kind.versions {
                    let status_fields: &[Field] = match (&version.body, version.driven_status()) {
                        (Body::Standard { status_fields, .. }, _) => status_fields,
                        (Body::Root(_), Some(driven)) => &driven.object.fields,
                        (Body::Root(_), None) => continue,
                    };
                    let mut marker = StatusMarker {
                        file,
                        version: &version.name,
                        plan,
                        shared: &shared,
                        derives: &mut this,
                    };
                    for field in status_fields {
                        marker.local(&field.schema);
                    }
                }
            }
        }
        this
    }

    /// The derives of the object types and status structs: whether `PartialEq` is kept.
    pub(crate) fn object_partial_eq(&self) -> bool {
        !self.without.contains(Derive::PartialEq)
    }

    /// The derives of a data type; `in_status` when a standard status holds it.
    pub(crate) fn optional(&self, in_status: bool) -> Optional {
        let partial_eq = in_status || !self.without.contains(Derive::PartialEq);
        Optional {
            partial_eq,
            eq: partial_eq && !self.without.contains(Derive::Eq),
            hash: !self.without.contains(Derive::Hash),
            default: !self.without.contains(Derive::Default),
        }
    }

    /// The derives of the type `name` of a version module.
    pub(crate) fn local(&self, module: &str, version: &str, name: &str) -> Optional {
        // Called for every data type: the key is made only when some status holds types.
        let in_status = !self.status_local.is_empty()
            && self.status_local.contains(&(
                module.to_owned(),
                version.to_owned(),
                name.to_owned(),
            ));
        self.optional(in_status)
    }

    /// The derives of the type `name` of `shared`.
    pub(crate) fn shared(&self, name: &str) -> Optional {
        self.optional(self.status_shared.contains(name))
    }
}

/// Walks the types a standard status holds, in one version module, into a [`DerivePlan`].
struct StatusMarker<'a> {
    file: &'a SchemaFile,
    version: &'a str,
    plan: &'a Plan,
    shared: &'a HashMap<&'a str, &'a Schema>,
    derives: &'a mut DerivePlan,
}

impl StatusMarker<'_> {
    /// Marks the types of `schema`, named as the version module names them.
    fn local(&mut self, schema: &Schema) {
        let (name, fields) = match &schema.ty {
            Type::Object(object) => (&object.name, Some(&object.fields)),
            Type::Enum(e) => (&e.name, None),
            Type::List(list) => return self.local(&list.items),
            Type::Map(map) => return self.local(&map.values),
            Type::Named(name) => {
                if let Some(named) = self.file.types.iter().find(|t| &t.name == name) {
                    self.local(&named.schema);
                }
                return;
            }
            _ => return,
        };
        if let Some(shared) = self.plan.shared_name(&self.file.module, self.version, name) {
            return self.in_shared(shared);
        }
        let key = (
            self.file.module.clone(),
            self.version.to_owned(),
            name.clone(),
        );
        if self.derives.status_local.insert(key) {
            for field in fields.into_iter().flatten() {
                self.local(&field.schema);
            }
        }
    }

    /// Marks the shared type `name` and what it holds (named by their shared names).
    fn in_shared(&mut self, name: &str) {
        if !self.derives.status_shared.insert(name.to_owned()) {
            return;
        }
        if let Some(schema) = self.shared.get(name).copied() {
            self.in_shared_schema(schema);
        }
    }

    fn in_shared_schema(&mut self, schema: &Schema) {
        match &schema.ty {
            Type::Object(object) => {
                // The definition itself is marked by its caller; what it holds here.
                for field in &object.fields {
                    match &field.schema.ty {
                        Type::Object(inner) => self.in_shared(&inner.name),
                        Type::Enum(e) => self.in_shared(&e.name),
                        _ => self.in_shared_schema(&field.schema),
                    }
                }
            }
            Type::List(list) => match &list.items.ty {
                Type::Object(inner) => self.in_shared(&inner.name),
                Type::Enum(e) => self.in_shared(&e.name),
                _ => self.in_shared_schema(&list.items),
            },
            Type::Map(map) => match &map.values.ty {
                Type::Object(inner) => self.in_shared(&inner.name),
                Type::Enum(e) => self.in_shared(&e.name),
                _ => self.in_shared_schema(&map.values),
            },
            _ => {}
        }
    }
}

/// Which of the derives that can be left out ([`crate::Derive`]) one data type gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optional {
    /// `PartialEq` (structs and enums).
    pub partial_eq: bool,
    /// `Eq` (enums, with `PartialEq` only).
    pub eq: bool,
    /// `Hash` (enums).
    pub hash: bool,
    /// `Default` (structs whose fields are all optional).
    pub default: bool,
}

impl Optional {
    /// Every derive: the default output.
    #[cfg(test)]
    pub const ALL: Optional = Optional {
        partial_eq: true,
        eq: true,
        hash: true,
        default: true,
    };
}
