//! `<Kind>Reason`: the reasons a schema-format kind's conditions carry, with an open variant.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::docs;
use crate::model::{Kind, StatusDef};
use crate::rust_names::{self, pascal_case};

/// The reasons enum of a kind with the standard status.
pub fn item(kind: &Kind, status: &StatusDef) -> TokenStream {
    let name = format_ident!("{}Reason", kind.kind);
    let mut scope = rust_names::Scope::with_reserved(&["Other"]);
    let mut seen: Vec<&str> = Vec::new();
    let mut variants = Vec::new();
    for condition in &status.conditions {
        for reason in &condition.reasons {
            if seen.contains(&reason.name.as_str()) {
                continue;
            }
            seen.push(&reason.name);
            let variant = format_ident!("{}", scope.unique_pascal(&pascal_case(&reason.name)));
            let doc = docs::attrs(&match &reason.docs {
                Some(docs) => format!("`{}` ({}): {}", reason.name, condition.type_, docs),
                None => format!("`{}` ({}).", reason.name, condition.type_),
            });
            variants.push((variant, reason.name.clone(), doc));
        }
    }
    let doc = docs::attrs(&format!(
        "The reasons {}'s conditions carry; `Other` holds a reason from outside, such as a cloud provider's error code.",
        kind.kind
    ));
    let defs = variants.iter().map(|(v, _, doc)| quote!(#doc #v,));
    let to_str = variants
        .iter()
        .map(|(v, wire, _)| quote!(Self::#v => #wire,));
    let from_str = variants
        .iter()
        .map(|(v, wire, _)| quote!(#wire => Self::#v,));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum #name {
            #(#defs)*
            /// A reason not declared in the schema.
            Other(::std::string::String),
        }

        impl #name {
            /// The reason as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(#to_str)*
                    Self::Other(reason) => reason,
                }
            }
        }

        impl ::core::convert::From<&str> for #name {
            fn from(reason: &str) -> Self {
                match reason {
                    #(#from_str)*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::core::convert::From<#name> for ::std::string::String {
            fn from(reason: #name) -> Self {
                reason.as_str().to_owned()
            }
        }

        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}
