//! `#[derive(KubeStatus)]` for kondition status structs; use it through `kondition::KubeStatus`
//! (the `kondition` crate re-exports it, and the code it writes refers to `::kondition`).
//!
//! ```
//! use kondition::{Condition, ConditionStatus, Conditions, KubeStatus};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, KubeStatus)]
//! #[kondition(profile = "standard", conditions(Synced))]
//! #[serde(rename_all = "camelCase")]
//! pub struct WidgetStatus {
//!     #[serde(default)]
//!     pub conditions: Conditions,
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     pub observed_generation: Option<i64>,
//! }
//!
//! let mut status = WidgetStatus::default();
//! status.set_synced(Condition::new("Synced", ConditionStatus::True, "UpToDate"));
//! status.set_observed_generation(2);
//! assert!(status.is_synced());
//! assert!(!status.is_ready()); // declared by the profile, not set yet
//! assert_eq!(WidgetStatus::CONDITION_TYPES, ["Ready", "Synced"]);
//! ```
//!
//! The `conditions` field is a `kondition::Conditions` or an `Option<kondition::Conditions>`,
//! and `observedGeneration` an `Option<i64>` or an `i64`. The `Option` form of `conditions`
//! is for a status read from an existing CRD, where an object may have no `conditions` key
//! at all: `None` keeps that absence apart from an empty list, so an object is written back
//! as it was read (no key stays no key, `[]` stays `[]`). An absent list reads as empty, and
//! the first write to it (`set_*`, `conditions_mut`) creates it:
//!
//! ```
//! use kondition::{Condition, ConditionStatus, Conditions, KubeStatus};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, KubeStatus)]
//! #[kondition(profile = "standard")]
//! #[serde(rename_all = "camelCase")]
//! pub struct GadgetStatus {
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     pub conditions: Option<Conditions>,
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     pub observed_generation: Option<i64>,
//! }
//!
//! let mut status = GadgetStatus::default(); // as read from `status: {}`
//! assert!(status.conditions().is_empty());
//! assert!(status.remove_ready().is_none()); // removing leaves the list absent
//! assert_eq!(status.conditions, None);
//! status.set_ready(Condition::new("Ready", ConditionStatus::True, "Succeeded"));
//! assert_eq!(status.conditions.as_ref().map(|c| c.len()), Some(1));
//! ```
//!
//! The `kondition` crate documents the attribute's keys and what the generated code gives.
//! The derive reads the struct and its `#[kondition(...)]` and `#[serde(...)]` attributes
//! into a model, reporting every misuse at once on its own span, then writes the code from
//! the model. One mistake gives one error: a misspelt key or profile is reported with its
//! likely meaning (`profle`: did you mean `profile`?) and read as that meaning, and a struct
//! with errors still gets its accessors and impls (with bodies that never run where a field
//! of the standard block is wrong), so the user's own code reports nothing more.

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

mod attrs;
mod condition_idents;
mod errors;
mod expand;
mod model;
mod serde_attrs;

/// Implements `kondition::KubeStatus` for a status struct, and `kondition::StatusResource`
/// for the kind named by `resource = Kind`; see the `kondition` crate's documentation.
#[proc_macro_derive(KubeStatus, attributes(kondition))]
pub fn derive_kube_status(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let derived = model::Derived::from_input(&input);
    // The errors, and beside them the code for what could be read (see `model::Derived`).
    let mut output = derived.errors.finish().err().map_or_else(
        proc_macro2::TokenStream::new,
        syn::Error::into_compile_error,
    );
    if let Some(status) = &derived.status {
        output.extend(expand::expand(status));
    }
    output.into()
}
