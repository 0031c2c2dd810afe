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
    fields.iter().all(|f| !f.required || f.schema.nullable)
}

/// A field's Rust name (unique in `scope`) and type, and whether it is an `Option`.
pub struct FieldShape {
    /// The field's identifier.
    pub ident: syn::Ident,
    /// Its type, `Option<...>` when optional.
    pub ty: TokenStream,
    /// Whether it may be absent.
    pub optional: bool,
}

/// The Rust shape of `field`. `force_optional` makes it an `Option` whatever the schema says
/// (status fields: a controller fills the status piece by piece).
pub fn shape(field: &Field, scope: &mut names::Scope, force_optional: bool) -> FieldShape {
    let ident = ident(&scope.unique(&snake_case(&field.name)));
    let optional = is_optional(field, force_optional);
    FieldShape {
        ident,
        ty: tokens(&field_type(&field.schema.ty, optional).to_string()),
        optional,
    }
}

/// Whether `field` is an `Option`.
pub fn is_optional(field: &Field, force_optional: bool) -> bool {
    force_optional || !field.required || field.schema.nullable
}

/// A field's Rust type: `Option<...>` when optional.
pub fn field_type(ty: &Type, optional: bool) -> RustType {
    let ty = RustType::of(ty);
    if optional {
        RustType::generic("::core::option::Option", vec![ty])
    } else {
        ty
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
            Type::DateTime => Self::path("::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time"),
            Type::Raw => Self::path("::serde_json::Value"),
            Type::WellKnown(known) => Self::path(format!("::{}", known.rust_path())),
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
                optional,
            } = shape(field, scope, force_optional);
            let rename = serde_rename(&field.name);
            let serde_attr = if optional {
                tokens(&format!("#[serde({rename}, {})]", OPTIONAL_ARGS.join(", ")))
            } else {
                tokens(&format!("#[serde({rename})]"))
            };
            let doc = field.schema.docs.as_deref().map(docs::attrs);
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
fn tokens(text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|e| panic!("internal error: `{text}` does not tokenize: {e}"))
}

/// Whether a value of this type has a `Default` (a root field that may be absent but is not
/// an `Option`, such as a spec whose fields are all optional, needs one).
pub fn has_default(ty: &Type) -> bool {
    match ty {
        Type::Object(object) => all_optional(&object.fields),
        Type::String(_)
        | Type::Integer(_)
        | Type::Number(_)
        | Type::Boolean
        | Type::Map(_)
        | Type::List(_)
        | Type::Raw => true,
        _ => false,
    }
}
