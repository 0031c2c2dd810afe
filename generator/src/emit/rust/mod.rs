//! Rust code for one input file: each kind's CRD (as JSON text) and reasons enum, then per
//! version each kind's object type with its impls, and every struct and enum its fields need.
//! Built with `quote`; every text from the input enters as a string literal or a checked
//! identifier, never as code.

mod reasons;
mod resource;
mod types;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Body, EnumValues, Field, Kind, Schema, SchemaFile, Type, Version};
use crate::names::{self, ident, snake_case};

/// The contents of one input file's module: its doc, each kind's CRD as a JSON constant and
/// reasons enum (kind-level, so written once), and `pub mod <version> { ... }` for each
/// version, which re-exports the reasons of its kinds.
pub fn file_module(file: &SchemaFile) -> Result<TokenStream, String> {
    let mut versions: Vec<&str> = Vec::new();
    for kind in &file.kinds {
        for version in &kind.versions {
            if !versions.contains(&version.name.as_str()) {
                versions.push(&version.name);
            }
        }
    }
    let crd_consts = crd_const_names(file);
    let modules = versions.iter().map(|version| {
        let module = ident(&names::version_module(version));
        let doc = format!(" Version `{version}`.");
        let reasons = file
            .kinds
            .iter()
            .filter(|k| k.status.is_some() && k.versions.iter().any(|v| v.name == *version))
            .map(|k| format_ident!("{}Reason", k.kind));
        let items = version_items(file, version, &crd_consts);
        quote! {
            pub mod #module {
                #![doc = #doc]
                #(pub use super::#reasons;)*
                #items
            }
        }
    });
    let doc = format!(" Kinds from `{}`.", super::display_path(&file.path));
    let reasons = file
        .kinds
        .iter()
        .filter_map(|k| k.status.as_ref().map(|status| reasons::item(k, status)));
    let mut crds = Vec::new();
    for (kind, name) in file.kinds.iter().zip(&crd_consts) {
        let json = super::crd::crd(kind, &file.types);
        let text = serde_json::to_string_pretty(&json)
            .map_err(|e| format!("internal error: a CRD does not serialize: {e}"))?;
        let literal = raw_string(&text)?;
        let doc = format!(
            " `{}`'s CustomResourceDefinition as JSON, every version.",
            kind.kind
        );
        crds.push(quote! {
            #[doc = #doc]
            pub const #name: &str = #literal;
        });
    }
    Ok(quote! {
        #![doc = #doc]
        #(#crds)*
        #(#reasons)*
        #(#modules)*
    })
}

/// The names of the kinds' CRD constants (`SECURITY_GROUP_CRD`), distinct within the file.
pub fn crd_const_names(file: &SchemaFile) -> Vec<syn::Ident> {
    let mut scope = names::Scope::default();
    file.kinds
        .iter()
        .map(|kind| {
            let name = scope.unique(&format!(
                "{}_CRD",
                snake_case(&kind.kind).to_ascii_uppercase()
            ));
            format_ident!("{}", name)
        })
        .collect()
}

/// `text` as a raw string literal, with enough `#`s that nothing in it can end the literal.
fn raw_string(text: &str) -> Result<TokenStream, String> {
    let mut longest = 0;
    let mut run: Option<usize> = None;
    for c in text.chars() {
        run = match (c, run) {
            ('"', _) => Some(0),
            ('#', Some(n)) => Some(n + 1),
            _ => None,
        };
        if let Some(n) = run {
            longest = longest.max(n);
        }
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .map_err(|e| format!("internal error: a raw string does not tokenize: {e}"))
}

/// The items of one version: its kinds, then the types they use.
fn version_items(file: &SchemaFile, version: &str, crd_consts: &[syn::Ident]) -> TokenStream {
    let mut types = TypeCollector::new(file);
    let mut items = TokenStream::new();
    for (kind, crd_const) in file.kinds.iter().zip(crd_consts) {
        let Some(v) = kind.versions.iter().find(|v| v.name == version) else {
            continue;
        };
        items.extend(kind_items(kind, v, crd_const, &mut types));
    }
    items.extend(types.emit());
    items
}

/// Structs and enums to emit, by name, in the order first needed.
struct TypeCollector<'m> {
    file: &'m SchemaFile,
    order: Vec<String>,
    defs: BTreeMap<String, &'m Schema>,
}

impl<'m> TypeCollector<'m> {
    fn new(file: &'m SchemaFile) -> Self {
        Self {
            file,
            order: Vec::new(),
            defs: BTreeMap::new(),
        }
    }

    /// Records every struct and enum `schema` needs.
    fn collect(&mut self, schema: &'m Schema) {
        match &schema.ty {
            Type::Object(object) if self.add(&object.name, schema) => {
                for field in &object.fields {
                    self.collect(&field.schema);
                }
            }
            Type::Enum(e) if matches!(e.values, EnumValues::Str(_)) => {
                self.add(&e.name, schema);
            }
            Type::Map(map) => self.collect(&map.values),
            Type::List(list) => self.collect(&list.items),
            Type::Named(name) => {
                if let Some(named) = self.file.types.iter().find(|t| &t.name == name) {
                    self.collect(&named.schema);
                }
            }
            _ => {}
        }
    }

    fn add(&mut self, name: &str, schema: &'m Schema) -> bool {
        if self.defs.contains_key(name) {
            return false;
        }
        self.order.push(name.to_owned());
        self.defs.insert(name.to_owned(), schema);
        true
    }

    fn emit(&self) -> TokenStream {
        self.order
            .iter()
            .filter_map(|name| self.defs.get(name).map(|schema| (name, schema)))
            .map(|(name, schema)| match &schema.ty {
                Type::Object(object) => {
                    types::struct_item(name, schema.docs.as_deref(), &object.fields)
                }
                Type::Enum(e) => types::enum_item(e, schema.docs.as_deref()),
                _ => TokenStream::new(),
            })
            .collect()
    }
}

/// One kind at one version: the object type, and for a schema-format kind its spec and
/// standard status; the types its fields need go to `types`.
fn kind_items<'m>(
    kind: &'m Kind,
    version: &'m Version,
    crd_const: &syn::Ident,
    types: &mut TypeCollector<'m>,
) -> TokenStream {
    for field in version.body.fields() {
        types.collect(&field.schema);
    }
    match (&version.body, &kind.status) {
        (
            Body::Standard {
                spec,
                status_fields,
                ..
            },
            Some(status),
        ) => {
            let spec_name = format!("{}Spec", kind.kind);
            let status_name = format!("{}Status", kind.kind);
            let root = [
                Field {
                    name: "spec".into(),
                    required: true,
                    schema: Schema {
                        docs: Some(format!("The desired state of a {}.", kind.kind)),
                        ..Schema::of(Type::Named(spec_name.clone()))
                    },
                },
                Field {
                    name: "status".into(),
                    required: false,
                    schema: Schema {
                        docs: Some(format!("The observed state of a {}.", kind.kind)),
                        ..Schema::of(Type::Named(status_name.clone()))
                    },
                },
            ];
            let root: Vec<&Field> = root.iter().collect();
            let object = resource::object_items(kind, version, &root, crd_const);
            let spec_doc = format!("The desired state of a {}.", kind.kind);
            let spec = types::struct_item(&spec_name, Some(&spec_doc), spec);
            let status = resource::status_item(kind, status, &status_name, status_fields);
            quote! {
                #object
                #spec
                #status
            }
        }
        (body, _) => {
            let root: Vec<&Field> = body.fields().collect();
            resource::object_items(kind, version, &root, crd_const)
        }
    }
}
