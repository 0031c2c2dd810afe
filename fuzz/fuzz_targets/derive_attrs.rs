//! `#[derive(KubeStatus)]`'s parsing and expansion, on any input: the derive is a
//! proc-macro crate, which cannot export functions, so its modules are compiled into this
//! target as they are (they use only syn, proc-macro2, quote and `kondition-names`, where
//! the rules they share with the runtime live, a dependency of this target like any other).
//!
//! The first byte picks what the rest is: the contents of `#[kondition(...)]` on a valid
//! status struct, the contents of a `#[serde(...)]` on it, or a whole item.

#![no_main]
#![allow(dead_code)]

use libfuzzer_sys::fuzz_target;

#[path = "../../derive/src/attrs.rs"]
mod attrs;
#[path = "../../derive/src/condition_idents.rs"]
mod condition_idents;
#[path = "../../derive/src/errors.rs"]
mod errors;
#[path = "../../derive/src/expand.rs"]
mod expand;
#[path = "../../derive/src/model.rs"]
mod model;
#[path = "../../derive/src/serde_attrs.rs"]
mod serde_attrs;

const FIELDS: &str = "{ #[serde(default)] pub conditions: Conditions, \
                      #[serde(default)] pub observed_generation: Option<i64>, \
                      pub endpoint: Option<String> }";

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let item = match mode % 3 {
        0 => format!(
            "#[kondition({text})] #[serde(rename_all = \"camelCase\")] pub struct S {FIELDS}"
        ),
        1 => format!("#[kondition(resource = Widget)] #[serde({text})] pub struct S {FIELDS}"),
        _ => text.to_owned(),
    };
    if too_deep(&item) {
        return;
    }
    let Ok(input) = syn::parse_str::<syn::DeriveInput>(&item) else {
        return;
    };
    // The derive writes code beside its errors where the struct's shape allows: that code
    // must be Rust whether or not the input had errors.
    let derived = model::Derived::from_input(&input);
    if let Some(status) = &derived.status {
        let tokens = expand::expand(status);
        syn::parse2::<syn::File>(tokens).expect("the derive's output parses");
    }
});

/// Whether brackets nest more than 256 deep. syn's recursive-descent parser, which every
/// derive shares, overflows the stack on a type nested thousands deep (rustc grows its own
/// stack there, so such code compiles up to the derive); that is syn's limit, not this
/// derive's, and such inputs are skipped.
fn too_deep(text: &str) -> bool {
    let mut depth: i64 = 0;
    text.chars().any(|c| {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = (depth - 1).max(0),
            _ => {}
        }
        depth > 256
    })
}
