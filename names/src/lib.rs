//! The naming rules kondition's generator and derive share, so that a wire name becomes the
//! same Rust name in generated code and in derived code.
//!
//! - [`snake_case`] and [`pascal_case`]: heck's word splitting (a word ends where a lower-case
//!   letter meets an upper-case one, or an acronym meets a capitalized word; digits stay in
//!   their word), on the ASCII letters and digits of the name.
//! - [`RenameRule`]: serde's `rename_all` rules, exactly as serde_derive applies them.
//! - [`ident`] and [`ident_text`]: an identifier for a name, raw for keywords.
//! - [`kind_items`]: the names a kind's own items take, which its schema's types may not.
//! - [`suggest`] and [`hint`]: the known name a misspelt one most likely meant, and the
//!   did-you-mean that ends a message about it.

mod case;
mod identifier;
mod items;
mod serde_rule;
mod suggest;

pub use case::{pascal_case, snake_case};
pub use identifier::{Spelling, ident, ident_text, is_keyword, spelling};
pub use items::{
    APPLY_SUFFIX, CONDITION_TYPE_SUFFIX, KIND_ITEM_SUFFIXES, ROOT_TYPE_SUFFIXES, kind_items,
};
pub use serde_rule::RenameRule;
pub use suggest::{Quote, did_you_mean, hint, suggest};
