//! `#[derive(KubeStatus)]` for kondition status structs; use it through `kondition::KubeStatus`.
//!
//! The derive reads the struct and its `#[kondition(...)]` and `#[serde(...)]` attributes
//! into a model ([`model`]), reporting every misuse at once on its own span, then writes the
//! code from the model ([`expand`]). See the `kondition` crate for what the generated code
//! gives.

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

mod attrs;
mod case;
mod errors;
mod expand;
mod model;
mod profiles;
mod serde_attrs;

/// Implements `kondition::KubeStatus` for a status struct, and `kondition::StatusResource`
/// for the kind named by `resource = Kind`; see the `kondition` crate's documentation.
#[proc_macro_derive(KubeStatus, attributes(kondition))]
pub fn derive_kube_status(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    model::Status::from_input(&input)
        .map(|status| expand::expand(&status))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
