//! Structs, enums and fields for the model's types.
//!
//! They derive serde's traits and nothing schema-related: the CRD is carried as data, so the
//! compiler spends nothing per field on schemas.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::docs;
use crate::model::{EnumType, EnumValues, Field, IntegerFormat, Type};
use crate::names::{self, ident, snake_case};

/// A struct with `fields_in`; `Default` when every field is optional.
pub fn struct_item(name: &str, doc: Option<&str>, fields_in: &[Field]) -> TokenStream {
    let ident = format_ident!("{}", name);
    let default = all_optional(fields_in).then(|| quote!(Default,));
    let body = fields(fields_in, &mut names::Scope::default(), false);
    let doc = doc.map(docs::attrs);
    quote! {
        #doc
        #[derive(Clone, Debug, #default PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct #ident {
            #body
        }
    }
}

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
    let ty = rust_type(&field.schema.ty);
    let optional = force_optional || !field.required || field.schema.nullable;
    let ty = if optional {
        quote!(::core::option::Option<#ty>)
    } else {
        ty
    };
    FieldShape {
        ident,
        ty,
        optional,
    }
}

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
            let wire = &field.name;
            let serde_attr = if optional {
                quote!(#[serde(rename = #wire, default, skip_serializing_if = "Option::is_none")])
            } else {
                quote!(#[serde(rename = #wire)])
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

/// A string enum, one variant per value with its wire spelling.
pub fn enum_item(e: &EnumType, doc: Option<&str>) -> TokenStream {
    let EnumValues::Str(values) = &e.values else {
        return TokenStream::new();
    };
    let ident = format_ident!("{}", e.name);
    let mut scope = names::Scope::default();
    let variants = values.iter().map(|value| {
        let variant = format_ident!("{}", scope.unique_pascal(&names::variant_name(value)));
        quote!(#[serde(rename = #value)] #variant,)
    });
    let doc = doc.map(docs::attrs);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        pub enum #ident {
            #(#variants)*
        }
    }
}

/// The Rust type of a model type.
pub fn rust_type(ty: &Type) -> TokenStream {
    match ty {
        Type::String(_) => quote!(::std::string::String),
        Type::Integer(int) => match int.format {
            IntegerFormat::Int32 => quote!(i32),
            IntegerFormat::Int64 => quote!(i64),
        },
        Type::Enum(EnumType {
            values: EnumValues::Int(_),
            ..
        }) => quote!(i64),
        Type::Number(_) => quote!(f64),
        Type::Boolean => quote!(bool),
        Type::Object(object) => {
            let name = format_ident!("{}", object.name);
            quote!(#name)
        }
        Type::Enum(e) => {
            let name = format_ident!("{}", e.name);
            quote!(#name)
        }
        Type::Map(map) => {
            let values = rust_type(&map.values.ty);
            quote!(::std::collections::BTreeMap<::std::string::String, #values>)
        }
        Type::List(list) => {
            let items = rust_type(&list.items.ty);
            quote!(::std::vec::Vec<#items>)
        }
        Type::IntOrString => quote!(::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString),
        Type::Quantity => quote!(::k8s_openapi::apimachinery::pkg::api::resource::Quantity),
        Type::DateTime => quote!(::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time),
        Type::Raw => quote!(::serde_json::Value),
        Type::Named(name) => {
            let name = format_ident!("{}", name);
            quote!(#name)
        }
        Type::WellKnown(known) => {
            let path: syn::Path = syn::parse_str(&format!("::{}", known.rust_path()))
                .unwrap_or_else(|_| syn::parse_quote!(::serde_json::Value));
            quote!(#path)
        }
    }
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
