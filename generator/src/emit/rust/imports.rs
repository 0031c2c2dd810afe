//! How one generated module names the types it does not define: by their last segment,
//! brought in by a `use` at the module's top, as a person would write it. A name the module
//! defines itself (a kind called `Container`, a struct called `Option`) or that another
//! import already holds keeps the type's full path instead, so no input can make two names
//! meet.

use std::collections::{BTreeMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;

/// The types of Rust's prelude that generated code uses: named without a `use`.
const PRELUDE: [&str; 3] = [
    "core::option::Option",
    "std::string::String",
    "std::vec::Vec",
];

/// The names one module uses for outside types, and the `use` items that bring them in.
#[derive(Debug, Default)]
pub struct Imports {
    /// Names the module defines or re-exports itself: thousands in a large CRD's module, and
    /// looked up for every outside type a field names (a tree's comparisons of long names
    /// were a quarter of `name`'s work; issue 48).
    taken: HashSet<String>,
    /// Short name -> the path it stands for, for every short name handed out.
    short: BTreeMap<String, String>,
}

impl Imports {
    /// Imports for a module that defines (or re-exports) the item names `taken`.
    pub fn new(taken: impl IntoIterator<Item = String>) -> Self {
        Self {
            taken: taken.into_iter().collect(),
            short: BTreeMap::new(),
        }
    }

    /// How the module's code names the outside type at `path` (`serde_json::Value`, no
    /// leading `::`): `Value` when that name is free or already stands for `path`, else
    /// `::serde_json::Value`.
    pub fn name(&mut self, path: &str) -> String {
        let last = path.rsplit("::").next().unwrap_or(path);
        if self.taken.contains(last) {
            return format!("::{path}");
        }
        match self.short.get(last) {
            Some(held) if held == path => last.to_owned(),
            Some(_) => format!("::{path}"),
            None => {
                self.short.insert(last.to_owned(), path.to_owned());
                last.to_owned()
            }
        }
    }

    /// The `use` items for the names handed out (the prelude's need none), one per parent
    /// path, in path order.
    pub fn use_items(&self) -> TokenStream {
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (last, path) in &self.short {
            if PRELUDE.contains(&path.as_str()) {
                continue;
            }
            if let Some((parent, _)) = path.rsplit_once("::") {
                groups.entry(parent).or_default().push(last);
            }
        }
        groups
            .into_iter()
            .map(|(parent, mut names)| {
                names.sort_unstable();
                let parent: syn::Path = syn::parse_str(parent)
                    .unwrap_or_else(|e| panic!("internal error: `{parent}` is no path: {e}"));
                let names = names.into_iter().map(|n| quote::format_ident!("{}", n));
                if names.len() == 1 {
                    quote!(use #parent::#(#names)*;)
                } else {
                    quote!(use #parent::{#(#names),*};)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_free_name_is_imported_once_and_a_taken_one_stays_in_full() {
        let mut imports = Imports::new(["Container".to_owned(), "Option".to_owned()]);
        assert_eq!(
            imports.name("k8s_openapi::api::core::v1::Affinity"),
            "Affinity"
        );
        assert_eq!(
            imports.name("k8s_openapi::api::core::v1::Affinity"),
            "Affinity"
        );
        assert_eq!(
            imports.name("k8s_openapi::api::core::v1::Container"),
            "::k8s_openapi::api::core::v1::Container"
        );
        assert_eq!(
            imports.name("core::option::Option"),
            "::core::option::Option"
        );
        assert_eq!(imports.name("std::vec::Vec"), "Vec");
        // Another type of the same last segment keeps its full path.
        assert_eq!(
            imports.name("k8s_openapi::api::discovery::v1::Affinity"),
            "::k8s_openapi::api::discovery::v1::Affinity"
        );
        imports.name("serde::Serialize");
        imports.name("serde::Deserialize");
        assert_eq!(
            imports.use_items().to_string(),
            quote! {
                use k8s_openapi::api::core::v1::Affinity;
                use serde::{Deserialize, Serialize};
            }
            .to_string()
        );
    }
}
