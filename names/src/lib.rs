//! The rules kondition's generator, derive and runtime share, written once and free of heavy
//! dependencies (the derive reads them while it expands, before the runtime is compiled):
//! a wire name becomes the same Rust name in generated code and in derived code, a
//! condition type is valid or not by the same rule everywhere, and a built-in profile is
//! the same profile in every crate.
//!
//! - [`snake_case`] and [`pascal_case`]: heck's word splitting (a word ends where a lower-case
//!   letter meets an upper-case one, or an acronym meets a capitalized word; digits stay in
//!   their word), on the ASCII letters and digits of the name.
//! - [`RenameRule`]: serde's `rename_all` rules, exactly as serde_derive applies them.
//! - [`ident`] and [`ident_text`]: an identifier for a name, raw for keywords.
//! - [`kind_items`]: the names a kind's own items take, which its schema's types may not.
//! - [`suggest`] and [`hint`]: the known name a misspelt one most likely meant, and the
//!   did-you-mean that ends a message about it.
//! - [`api_rules`]: the API server's rules for a condition's type and reason
//!   (metav1.Condition's patterns and lengths).
//! - [`profile`]: the built-in status profiles, their templates and their names, and
//!   [`TransitionRule`](profile::TransitionRule).

pub mod api_rules;
mod case;
mod identifier;
mod items;
pub mod profile;
mod serde_rule;
mod suggest;

pub use case::{pascal_case, snake_case};
pub use identifier::{Spelling, ident, ident_text, is_keyword, spelling};
pub use items::{
    APPLY_SUFFIX, CONDITION_TYPE_SUFFIX, KIND_ITEM_SUFFIXES, ROOT_TYPE_SUFFIXES, kind_items,
};
pub use serde_rule::RenameRule;
pub use suggest::{Quote, did_you_mean, hint, suggest};
