//! The Rust shapes of the model's types and fields: type names, `Option` or not, serde
//! attributes. The data types are written as text (`text.rs`); the per-kind items take the
//! same shapes as tokens.

use std::borrow::Cow;
use std::fmt;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::emit::docs;
use crate::model::{EnumType, EnumValues, Field, IntegerFormat, Type};
use crate::names::{self, ident, snake_case};

/// Whether every field may be absent (so the struct can be `Default`).
pub fn all_optional(fields: &[Field]) -> bool {
    fields.iter().all(|f| Presence::of(f, false).is_option())
}

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

    /// The arguments after the rename of the field's `#[serde(...)]`.
    pub fn serde_args(self) -> &'static [&'static str] {
        match self {
            Self::Required => &[],
            Self::Optional => &OPTIONAL_ARGS,
            Self::RequiredNullable => &["default"],
            Self::OptionalNullable => &[
                "default",
                "skip_serializing_if = \"Option::is_none\"",
                "deserialize_with = \"::kondition::nullable::deserialize\"",
            ],
        }
    }
}

/// A field's Rust name (unique in `scope`) and type, and how it is wrapped.
pub struct FieldShape {
    /// The field's identifier.
    pub ident: syn::Ident,
    /// Its type, `Option<...>` when optional or nullable.
    pub ty: TokenStream,
    /// How it is wrapped.
    pub presence: Presence,
}

/// The Rust shape of `field`. `force_optional` makes it optional whatever the schema says.
pub fn shape(field: &Field, scope: &mut names::Scope, force_optional: bool) -> FieldShape {
    let ident = ident(&scope.unique(&snake_case(&field.name)));
    let presence = Presence::of(field, force_optional);
    FieldShape {
        ident,
        ty: tokens(&field_type(&field.schema.ty, presence).to_string()),
        presence,
    }
}

/// A field's Rust type, wrapped as `presence` says.
pub fn field_type(ty: &Type, presence: Presence) -> RustType {
    let ty = RustType::of(ty);
    let option = |ty| RustType::generic("::core::option::Option", vec![ty]);
    match presence {
        Presence::Required => ty,
        Presence::Optional | Presence::RequiredNullable => option(ty),
        Presence::OptionalNullable => option(option(ty)),
    }
}

/// A Rust type as generated code spells it: a path, and generic arguments that a long line
/// breaks one per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustType {
    /// The path, absolute for everything not generated (`::std::string::String`).
    pub path: Cow<'static, str>,
    /// The generic arguments.
    pub args: Vec<RustType>,
}

impl RustType {
    fn path(path: impl Into<Cow<'static, str>>) -> Self {
        Self {
            path: path.into(),
            args: Vec::new(),
        }
    }

    fn generic(path: &'static str, args: Vec<RustType>) -> Self {
        Self {
            path: Cow::Borrowed(path),
            args,
        }
    }

    /// The Rust type of a model type.
    pub fn of(ty: &Type) -> Self {
        match ty {
            Type::String(_) => Self::path("::std::string::String"),
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
                "::std::collections::BTreeMap",
                vec![
                    Self::path("::std::string::String"),
                    Self::of(&map.values.ty),
                ],
            ),
            Type::List(list) => Self::generic("::std::vec::Vec", vec![Self::of(&list.items.ty)]),
            Type::IntOrString => {
                Self::path("::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString")
            }
            Type::Quantity => {
                Self::path("::k8s_openapi::apimachinery::pkg::api::resource::Quantity")
            }
            // The text as written: k8s-openapi's `Time` would rewrite fractions and offsets.
            Type::DateTime => Self::path("::std::string::String"),
            Type::Raw => Self::path("::serde_json::Value"),
            Type::WellKnown(known) => Self::path(format!("::{}", known.rust_path())),
            Type::Reused(reused) => Self::path(format!("::k8s_openapi::{}", reused.path)),
            Type::Conditions(_) => Self::path("::kondition::Conditions"),
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
pub fn unknown_fields() -> RustType {
    RustType::generic(
        "::std::collections::BTreeMap",
        vec![
            RustType::path("::std::string::String"),
            RustType::path("::serde_json::Value"),
        ],
    )
}

/// `rename = "wire"`: a field's or variant's wire name, as a `#[serde(...)]` argument.
pub fn serde_rename(wire: &str) -> String {
    format!("rename = {}", Literal::string(wire))
}

/// The arguments after the rename of an optional field's `#[serde(...)]`: absent is `None`,
/// and `None` is not written.
pub const OPTIONAL_ARGS: [&str; 2] = ["default", "skip_serializing_if = \"Option::is_none\""];

/// Field declarations with their docs and serde attributes.
pub fn fields(fields_in: &[Field], scope: &mut names::Scope, force_optional: bool) -> TokenStream {
    fields_in
        .iter()
        .map(|field| {
            let FieldShape {
                ident,
                ty,
                presence,
            } = shape(field, scope, force_optional);
            let mut args = vec![serde_rename(&field.name)];
            args.extend(presence.serde_args().iter().map(|a| (*a).to_owned()));
            let serde_attr = tokens(&format!("#[serde({})]", args.join(", ")));
            let doc = docs::field(&field.schema).map(|d| docs::attrs(&d));
            quote! {
                #doc
                #serde_attr
                pub #ident: #ty,
            }
        })
        .collect()
}

/// The Rust type of a model type, as tokens (for the per-kind items).
pub fn rust_type(ty: &Type) -> TokenStream {
    tokens(&RustType::of(ty).to_string())
}

/// Text this module wrote (a type, an attribute) as tokens.
pub fn tokens(text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|e| panic!("internal error: `{text}` does not tokenize: {e}"))
}
