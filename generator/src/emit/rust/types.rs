//! The Rust shapes of the model's types and fields: type names, `Option` or not, serde
//! attributes. The data types are written as text (`writer.rs`); the per-kind items take the
//! same shapes as tokens.

use std::fmt;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use kondition_names::RenameRule;

use super::imports::Imports;
use crate::emit::docs;
use crate::model::{EnumType, EnumValues, Field, IntegerFormat, Type};
use crate::rust_names::{self, snake_case};

/// How a field's type is wrapped, from whether it may be absent and whether it may be `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// `T`: always present, never `null`.
    Required,
    /// `Option<T>`, absent when `None` (an optional field that is not nullable).
    Optional,
    /// `Option<T>`, `null` when `None` (a required field that is nullable).
    RequiredNullable,
    /// `Option<Option<T>>`: absent when `None`, `null` when `Some(None)` (an optional field
    /// that is nullable), so an explicit `null` comes back as it went in.
    OptionalNullable,
}

impl Presence {
    /// The presence of `field`. `force_optional` makes it optional whatever the schema says
    /// (status fields: a controller fills the status piece by piece).
    pub fn of(field: &Field, force_optional: bool) -> Self {
        match (force_optional || !field.required, field.schema.nullable) {
            (false, false) => Self::Required,
            (true, false) => Self::Optional,
            (false, true) => Self::RequiredNullable,
            (true, true) => Self::OptionalNullable,
        }
    }

    /// Whether the Rust type is an `Option` (so the field has a `Default`).
    pub fn is_option(self) -> bool {
        self != Self::Required
    }

    /// Whether `None` is left out when writing.
    pub fn skips_none(self) -> bool {
        matches!(self, Self::Optional | Self::OptionalNullable)
    }

    /// The field's `#[serde(...)]` arguments besides a rename. An optional field has
    /// `default`: serde would read a missing `Option` as `None` without it, but through its
    /// generic `missing_field`, instantiated once per field type, which costs the generated
    /// crate 7% more memory to compile (BENCHMARKS.md); it is also the attribute readers of
    /// kube-rs code expect. A nullable field needs it, since its `deserialize_with` would
    /// otherwise make it required.
    pub fn serde_args(self, imports: &mut Imports) -> Vec<String> {
        let mut skip_none = || {
            format!(
                "skip_serializing_if = \"{}::is_none\"",
                imports.name("core::option::Option")
            )
        };
        match self {
            Self::Required => Vec::new(),
            Self::Optional => vec!["default".to_owned(), skip_none()],
            Self::RequiredNullable => vec!["default".to_owned()],
            Self::OptionalNullable => vec![
                "default".to_owned(),
                skip_none(),
                "deserialize_with = \"::kondition::nullable::deserialize\"".to_owned(),
            ],
        }
    }
}

/// A struct's fields as they are declared: the struct's rename rule, and per field its name,
/// type and serde arguments.
pub struct Declarations {
    /// The struct's `#[serde(rename_all = ...)]` rule (camelCase, when that saves renames).
    pub rename_all: Option<RenameRule>,
    /// The fields, in schema order.
    pub fields: Vec<Declaration>,
}

/// One field's declaration.
pub struct Declaration {
    /// The field's wire name.
    pub wire: String,
    /// Its identifier as written (`r#type`, `self_`).
    pub ident: String,
    /// Its type, `Option<...>` when optional or nullable.
    pub ty: RustType,
    /// Its `#[serde(...)]` arguments: a rename only where the identifier (under the
    /// struct's rule) does not give the wire name.
    pub serde: Vec<String>,
    /// How it is wrapped.
    pub presence: Presence,
    /// Its doc: the schema's description and what the schema says besides.
    pub doc: Option<String>,
}

impl Declarations {
    /// The declarations of `fields_in`, their identifiers unique in `scope`. A field for
    /// which `force_optional` holds is optional whatever the schema says.
    pub fn of(
        fields_in: &[&Field],
        scope: &mut rust_names::Scope,
        force_optional: impl Fn(&Field) -> bool,
        imports: &mut Imports,
    ) -> Self {
        let idents: Vec<String> = fields_in
            .iter()
            .map(|f| rust_names::ident_text(&scope.unique(&snake_case(&f.name))))
            .collect();
        // Whether serde names each field right without a rename, with no rule and under
        // `camelCase`, found once per field (each was found again for the struct's rule).
        let plain: Vec<bool> = fields_in
            .iter()
            .zip(&idents)
            .map(|(f, ident)| ident.strip_prefix("r#").unwrap_or(ident) == f.name)
            .collect();
        let camel: Vec<bool> = fields_in
            .iter()
            .zip(&idents)
            .map(|(f, ident)| {
                serde_name(ident, Some(RenameRule::Camel)).as_deref() == Some(&f.name)
            })
            .collect();
        let count = |named: &[bool]| named.iter().filter(|&&named| named).count();
        let rename_all = (count(&camel) > count(&plain)).then_some(RenameRule::Camel);
        let named = if rename_all.is_some() { camel } else { plain };
        let fields = fields_in
            .iter()
            .zip(idents)
            .zip(named)
            .map(|((field, ident), named)| {
                let presence = Presence::of(field, force_optional(field));
                let mut serde = Vec::new();
                if !named {
                    serde.push(serde_rename(&field.name));
                }
                serde.extend(presence.serde_args(imports));
                Declaration {
                    wire: field.name.clone(),
                    doc: docs::field(&field.schema),
                    ty: field_type(&field.schema.ty, presence, imports),
                    ident,
                    serde,
                    presence,
                }
            })
            .collect();
        Self { rename_all, fields }
    }
}

/// The name serde gives a field spelled `ident` (`r#` dropped) under the struct's
/// `rename_all` rule, or `None` where that does not surely follow serde (a name not all
/// ASCII, or nothing left once the rule drops the `_`s): such a field gets an explicit
/// rename, and serde applies no rule to it.
fn serde_name(ident: &str, rename_all: Option<RenameRule>) -> Option<String> {
    let name = ident.strip_prefix("r#").unwrap_or(ident);
    match rename_all {
        None => Some(name.to_owned()),
        Some(rule) => Some(rule.apply(name)).filter(|wire| name.is_ascii() && !wire.is_empty()),
    }
}

/// A field's Rust type, wrapped as `presence` says.
pub fn field_type(ty: &Type, presence: Presence, imports: &mut Imports) -> RustType {
    let ty = RustType::of(ty, imports);
    let mut option = |ty| RustType::generic(imports.name("core::option::Option"), vec![ty]);
    match presence {
        Presence::Required => ty,
        Presence::Optional | Presence::RequiredNullable => option(ty),
        Presence::OptionalNullable => {
            let inner = option(ty);
            option(inner)
        }
    }
}

/// A Rust type as generated code spells it: a path, and generic arguments that a long line
/// breaks one per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustType {
    /// The path as the module names it (`String`, `Container`, or a full path).
    pub path: String,
    /// The generic arguments.
    pub args: Vec<RustType>,
}

impl RustType {
    fn path(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            args: Vec::new(),
        }
    }

    fn generic(path: String, args: Vec<RustType>) -> Self {
        Self { path, args }
    }

    /// The Rust type of a model type, outside types named through `imports`.
    pub fn of(ty: &Type, imports: &mut Imports) -> Self {
        let mut outside = |path: &str| Self::path(imports.name(path));
        match ty {
            // The text as written: k8s-openapi's `Time` would rewrite fractions and offsets.
            Type::String(_) | Type::DateTime => outside("std::string::String"),
            Type::Integer(int) => match int.format {
                IntegerFormat::Int32 => Self::path("i32"),
                IntegerFormat::Int64 => Self::path("i64"),
            },
            Type::Enum(EnumType {
                values: EnumValues::Int(_),
                ..
            }) => Self::path("i64"),
            Type::Number(_) => Self::path("f64"),
            Type::Boolean => Self::path("bool"),
            // Type names are PascalCase identifiers made by `names` (never keywords).
            Type::Object(object) => Self::path(object.name.clone()),
            Type::Enum(e) => Self::path(e.name.clone()),
            Type::Named(name) => Self::path(name.clone()),
            Type::Map(map) => Self::generic(
                imports.name("std::collections::BTreeMap"),
                vec![
                    Self::path(imports.name("std::string::String")),
                    Self::of(&map.values.ty, imports),
                ],
            ),
            Type::List(list) => Self::generic(
                imports.name("std::vec::Vec"),
                vec![Self::of(&list.items.ty, imports)],
            ),
            Type::IntOrString => {
                outside("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString")
            }
            Type::Quantity => outside("k8s_openapi::apimachinery::pkg::api::resource::Quantity"),
            Type::Raw => outside("serde_json::Value"),
            Type::WellKnown(known) => outside(known.rust_path()),
            Type::Reused(reused) => outside(&format!("k8s_openapi::{}", reused.path)),
            Type::Conditions(_) => outside("kondition::Conditions"),
        }
    }

    /// The length of the type written on one line.
    pub fn flat_len(&self) -> usize {
        let args: usize = self.args.iter().map(Self::flat_len).sum();
        let punctuation = if self.args.is_empty() {
            0
        } else {
            "<>".len() + ", ".len() * (self.args.len() - 1)
        };
        self.path.len() + args + punctuation
    }
}

impl fmt::Display for RustType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if let Some((first, rest)) = self.args.split_first() {
            write!(f, "<{first}")?;
            for arg in rest {
                write!(f, ", {arg}")?;
            }
            f.write_str(">")?;
        }
        Ok(())
    }
}

/// The map a struct keeps unknown keys in: `BTreeMap<String, serde_json::Value>`.
pub fn unknown_fields(imports: &mut Imports) -> RustType {
    RustType::generic(
        imports.name("std::collections::BTreeMap"),
        vec![
            RustType::path(imports.name("std::string::String")),
            RustType::path(imports.name("serde_json::Value")),
        ],
    )
}

/// `rename = "wire"`: a field's or variant's wire name, as a `#[serde(...)]` argument.
pub fn serde_rename(wire: &str) -> String {
    format!("rename = {}", Literal::string(wire))
}

/// The `#[serde(rename_all = ...)]` of a struct whose fields follow a rule, as tokens.
pub fn rename_all_attr(rename_all: Option<RenameRule>) -> Option<TokenStream> {
    rename_all.map(|rule| {
        let rule = rule.name();
        quote!(#[serde(rename_all = #rule)])
    })
}

/// Field declarations with their docs and serde attributes, as tokens.
pub fn fields(declarations: &Declarations) -> TokenStream {
    declarations
        .fields
        .iter()
        .map(|field| {
            let serde = (!field.serde.is_empty())
                .then(|| tokens(&format!("#[serde({})]", field.serde.join(", "))));
            let doc = field.doc.as_deref().map(docs::attrs);
            let ident = tokens(&field.ident);
            let ty = tokens(&field.ty.to_string());
            quote! {
                #doc
                #serde
                pub #ident: #ty,
            }
        })
        .collect()
}

/// Text this module wrote (a type, an attribute) as tokens.
pub fn tokens(text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|e| panic!("internal error: `{text}` does not tokenize: {e}"))
}
