//! The naming rules kondition's generator and derive share, so that a wire name becomes the
//! same Rust name in generated code and in derived code.
//!
//! - [`snake_case`] and [`pascal_case`]: heck's word splitting (a word ends where a lower-case
//!   letter meets an upper-case one, or an acronym meets a capitalized word; digits stay in
//!   their word), on the ASCII letters and digits of the name.
//! - [`RenameRule`]: serde's `rename_all` rules, exactly as serde_derive applies them.
//! - [`ident`] and [`ident_text`]: an identifier for a name, raw for keywords.
//! - [`suggest`]: the known name a misspelt one most likely meant, for did-you-mean hints.

mod case;
mod identifier;
mod serde_rule;
mod suggest;

pub use case::{pascal_case, snake_case};
pub use identifier::{Spelling, ident, ident_text, is_keyword, spelling};
pub use serde_rule::RenameRule;
pub use suggest::suggest;
