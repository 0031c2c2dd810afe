//! Rust code for one input file: each kind's CRD constant (its JSON in a file beside the
//! module, loaded with `include_str!`) and reasons enum, then per version the `use` items
//! its code needs, each kind's object type with its impls, and every struct and enum its
//! fields need. One `Writer` writes it all as text in prettyplease's layout: the structs
//! (the data types, nearly all of the text, and each kind's object and status struct) in
//! `writer.rs`, a kind's impls in `object_impls.rs` (as tokens laid out by prettyplease when
//! a line of theirs would not fit the width; a few items of the file module are tokens
//! too); a blank line then goes between items (`spacing.rs`).
//! Every text from the input enters as a string literal or a checked identifier, never as
//! code.

mod imports;
mod object_impls;
mod reasons;
mod resource;
mod spacing;
mod types;
mod writer;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{EmitError, OutputFile};
use crate::analysis::{DerivePlan, Plan};
use crate::model::{Body, EnumValues, Field, Kind, Schema, SchemaFile, Type, Version};
use crate::rust_names::{self, ident, snake_case};
use imports::Imports;
pub use spacing::separate_items;
use writer::{Optional, Writer};

/// The contents of one input file's module, laid out `depth` modules deep: its doc (naming
/// the input file `input`), each kind's CRD as a JSON constant and reasons enum (kind-level,
/// so written once), and `pub mod <version> { ... }` for each version, which re-exports the
/// reasons of its kinds. Each data type gets the derives `derives` gives it.
pub fn file_module(
    file: &SchemaFile,
    input: &str,
    depth: usize,
    plan: &Plan,
    derives: &DerivePlan,
    data_prefix: &str,
) -> Result<String, EmitError> {
    let mut versions: Vec<&str> = Vec::new();
    for kind in &file.kinds {
        for version in &kind.versions {
            if !versions.contains(&version.name.as_str()) {
                versions.push(&version.name);
            }
        }
    }
    let crd_consts = crd_const_names(file);
    let doc = format!(" Kinds from `{input}`.");
    let reasons = file
        .kinds
        .iter()
        .filter_map(|k| k.status.as_ref().map(|status| reasons::item(k, status)));
    let crds = file
        .kinds
        .iter()
        .zip(&crd_consts)
        .map(|(kind, name)| crd_const(kind, name, &crd_file_name(file, name, data_prefix)));
    let gate = version_gate(file);
    let allow: TokenStream = DOC_LINTS_ALLOWED.parse().unwrap_or_default();
    let mut writer = Writer::new(depth * 4);
    writer.tokens(quote! {
        #![doc = #doc]
        #allow
        #gate
        #(#crds)*
        #(#reasons)*
    })?;
    // The version modules are written apart, on as many cores as there are, then joined in
    // order: they are most of a file's work, and a large CRD is one file (issue 28).
    let indent = writer.indent();
    let modules = crate::parallel::map(
        &versions,
        |_| 0,
        |version| {
            // Idents stay on their thread: each names the constants again, as above.
            let crd_consts = crd_const_names(file);
            let mut module = Writer::new(indent);
            version_module(&mut module, file, version, &crd_consts, plan, derives).map(|()| module)
        },
    );
    for module in modules {
        writer.append(module?);
    }
    Ok(writer.finish())
}

/// `pub mod <version> { ... }`: the re-exports of its kinds' reasons, the `use` items its
/// code needs, then its items.
fn version_module(
    writer: &mut Writer,
    file: &SchemaFile,
    version: &str,
    crd_consts: &[syn::Ident],
    plan: &Plan,
    derives: &DerivePlan,
) -> Result<(), EmitError> {
    let reasons: Vec<(String, String)> = file
        .kinds
        .iter()
        .filter(|k| k.status.is_some() && k.versions.iter().any(|v| v.name == *version))
        .map(|k| (format!("{}Reason", k.kind), format!("{}Reason", k.kind)))
        .collect();
    let reasons = reexport(&quote!(super), &reasons);
    let module = ident(&rust_names::version_module(version)).to_string();
    writer.open_module(&module, &format!("Version `{version}`."));
    let mut body = Writer::new(writer.indent());
    let uses = version_items(&mut body, file, version, crd_consts, plan, derives)?;
    writer.tokens(quote!(#reasons #uses))?;
    writer.append(body);
    writer.close();
    Ok(())
}

/// The lints that the docs of generated code may trip: they are the input's descriptions,
/// prose written for `kubectl explain` (`containers[*]` reads as a link to rustdoc, a
/// wrapped list item as a lazy continuation to clippy), not Rust docs of the user's.
pub const DOC_LINTS_ALLOWED: &str = "#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags, rustdoc::bare_urls, rustdoc::invalid_rust_codeblocks)]";

/// A compile error under a Kubernetes version of k8s-openapi older than every reused
/// k8s-openapi type of `file` needs (a type that gained a field the CRD has), or nothing.
fn version_gate(file: &SchemaFile) -> Option<TokenStream> {
    fn since(ty: &Type) -> u32 {
        match ty {
            Type::Reused(reused) => reused.since,
            Type::Object(object) => object
                .fields
                .iter()
                .map(|f| since(&f.schema.ty))
                .max()
                .unwrap_or(0),
            Type::List(list) => since(&list.items.ty),
            Type::Map(map) => since(&map.values.ty),
            Type::Conditions(list) => since(list),
            _ => 0,
        }
    }
    let oldest = crate::reuse::Catalog::get()
        .data()
        .versions
        .first()
        .copied()?;
    let needed = file
        .kinds
        .iter()
        .flat_map(|k| &k.versions)
        .flat_map(|v| v.body.fields())
        .map(|f| since(&f.schema.ty))
        .max()?;
    if needed <= oldest {
        return None;
    }
    let older = format_ident!("k8s_if_le_1_{}", needed - 1);
    let message = format!(
        "these types use k8s-openapi types as Kubernetes 1.{needed} defines them: enable k8s-openapi's `v1_{needed}` feature or a later one, or generate them with structures of their own instead (`kondition generate --no-reuse`, `Builder::reuse_k8s_openapi(false)`)"
    );
    Some(quote! {
        ::k8s_openapi::#older! {
            ::core::compile_error!(#message);
        }
    })
}

/// The names of the kinds' CRD constants (`SECURITY_GROUP_CRD`), distinct within the file.
pub fn crd_const_names(file: &SchemaFile) -> Vec<syn::Ident> {
    let mut scope = rust_names::Scope::default();
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

/// The file beside the module's that holds the CRD of the kind whose constant is `name`:
/// `<data_prefix><module>.<name in lower case>.json` (`prometheus.prometheus_crd.json`).
pub fn crd_file_name(file: &SchemaFile, name: &syn::Ident, data_prefix: &str) -> String {
    format!(
        "{data_prefix}{}.{}.json",
        file.module,
        name.to_string().to_ascii_lowercase()
    )
}

/// Every kind's CRD as JSON, each in the file [`crd_file_name`] names.
#[cfg(feature = "internals")]
pub fn crd_files(file: &SchemaFile, data_prefix: &str) -> Vec<OutputFile> {
    file.kinds
        .iter()
        .zip(crd_const_names(file))
        .map(|(kind, name)| OutputFile {
            path: crd_file_name(file, &name, data_prefix).into(),
            contents: crate::manifest::crd_text(kind, &file.types) + "\n",
        })
        .collect()
}

/// [`crd_files`], each kind's CRD text taken out of `file` rather than copied
/// ([`crate::manifest::take_crd_file_text`]).
pub fn take_crd_files(file: &mut SchemaFile, data_prefix: &str) -> Vec<OutputFile> {
    let paths: Vec<String> = crd_const_names(file)
        .iter()
        .map(|name| crd_file_name(file, name, data_prefix))
        .collect();
    let SchemaFile { kinds, types, .. } = file;
    kinds
        .iter_mut()
        .zip(paths)
        .map(|(kind, path)| OutputFile {
            path: path.into(),
            contents: crate::manifest::take_crd_file_text(kind, types),
        })
        .collect()
}

/// A kind's CRD constant: the JSON file beside the module, loaded at compile time.
fn crd_const(kind: &Kind, name: &syn::Ident, file_name: &str) -> TokenStream {
    let doc = format!(
        " `{}`'s CustomResourceDefinition as JSON, every version.",
        kind.kind
    );
    quote! {
        #[doc = #doc]
        pub const #name: &str = include_str!(#file_name);
    }
}

/// The items of one version into `writer`: its kinds, then the types they use (those defined
/// in `shared` re-exported by their own names here). Returns the `use` items they need.
fn version_items(
    writer: &mut Writer,
    file: &SchemaFile,
    version: &str,
    crd_consts: &[syn::Ident],
    plan: &Plan,
    derives: &DerivePlan,
) -> Result<TokenStream, EmitError> {
    let kinds: Vec<(&Kind, &Version, &syn::Ident)> = file
        .kinds
        .iter()
        .zip(crd_consts)
        .filter_map(|(kind, crd_const)| {
            let v = kind.versions.iter().find(|v| v.name == version)?;
            Some((kind, v, crd_const))
        })
        .collect();
    let mut types = TypeCollector::new(file);
    for (_, v, _) in &kinds {
        for field in v.body.fields() {
            types.collect(&field.schema);
        }
    }
    let mut imports = Imports::new(module_item_names(file, &types));
    for (kind, v, crd_const) in kinds {
        kind_items(
            writer,
            kind,
            v,
            crd_const,
            &mut types,
            derives,
            &mut imports,
        )?;
    }
    let shared: Vec<(String, String)> = types
        .take_shared(|name| plan.shared_name(&file.module, version, name))
        .into_iter()
        .map(|(local, shared)| (local, shared.to_owned()))
        .collect();
    if let Some(reexport) = reexport(&quote!(super::super::shared), &shared) {
        writer.tokens(reexport)?;
    }
    types.write(
        writer,
        |name| derives.local(&file.module, version, name),
        &mut imports,
    );
    Ok(imports.use_items())
}

/// One `pub use` of the items of `path` named `(local, there)`, or nothing. Unused imports
/// are allowed: a crate that includes the generated code in a private module and names
/// only some of its types must not be warned about the re-exports it does not use.
fn reexport(path: &TokenStream, names: &[(String, String)]) -> Option<TokenStream> {
    let names: Vec<TokenStream> = names
        .iter()
        .map(|(local, there)| {
            let (local, there) = (format_ident!("{}", local), format_ident!("{}", there));
            if local == there {
                quote!(#there)
            } else {
                quote!(#there as #local)
            }
        })
        .collect();
    match names.as_slice() {
        [] => None,
        [one] => Some(quote!(#[allow(unused_imports)] pub use #path::#one;)),
        _ => Some(quote!(#[allow(unused_imports)] pub use #path::{#(#names),*};)),
    }
}

/// Every item name a version module of `file` may define or re-export: its kinds with their
/// spec, status and reasons, and the structs and enums `types` collected. More than one
/// version defines is harmless: the names only keep imports from clashing.
fn module_item_names(file: &SchemaFile, types: &TypeCollector) -> Vec<String> {
    let kinds = file
        .kinds
        .iter()
        .flat_map(|kind| kondition_names::kind_items(&kind.kind));
    kinds.chain(types.order.iter().cloned()).collect()
}

/// The `shared` module's contents, `depth` modules deep: its doc, then its items.
pub fn shared_module(plan: &Plan, derives: &DerivePlan, depth: usize) -> Result<String, EmitError> {
    let doc = " Structs and enums that several places of the input have (versions, kinds, files), defined once; name them through the modules of their kinds, whose names for them do not change when kinds are added.";
    let allow: TokenStream = DOC_LINTS_ALLOWED.parse().unwrap_or_default();
    let mut imports = Imports::new(plan.defs.iter().map(|def| def.name.clone()));
    let mut items = Writer::new(depth * 4);
    for def in &plan.defs {
        write_def(
            &mut items,
            &def.name,
            &def.schema,
            def.docs_agree,
            derives.shared(&def.name),
            &mut imports,
        );
    }
    let uses = imports.use_items();
    let mut writer = Writer::new(depth * 4);
    writer.tokens(quote!(#![doc = #doc] #allow #uses))?;
    writer.append(items);
    Ok(writer.finish())
}

/// The struct or enum `name` of `schema`, documented by the schema's description when every
/// place that holds it agrees on it, else by [`SHARED_DOC`], with the derives of `optional`.
fn write_def(
    writer: &mut Writer,
    name: &str,
    schema: &Schema,
    docs_agree: bool,
    optional: Optional,
    imports: &mut Imports,
) {
    let docs = if docs_agree {
        schema.docs.as_deref()
    } else {
        Some(SHARED_DOC)
    };
    match &schema.ty {
        Type::Object(object) => {
            writer.struct_item(
                name,
                docs,
                &object.fields,
                object.preserve_unknown,
                optional,
                imports,
            );
        }
        Type::Enum(e) => writer.enum_item(name, e, docs, optional, imports),
        _ => {}
    }
}

/// Structs and enums to emit, by name, in the order first needed.
struct TypeCollector<'m> {
    file: &'m SchemaFile,
    order: Vec<String>,
    defs: BTreeMap<String, Def<'m>>,
}

/// A struct or enum to emit: the first schema met of that name, and whether every place that
/// holds it describes it the same way.
struct Def<'m> {
    schema: &'m Schema,
    docs_agree: bool,
}

/// The doc of a type whose places describe it differently: each place's description stays
/// on the field that holds it.
pub const SHARED_DOC: &str = "Held by several fields, each of which documents its use.";

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

    /// Leaves `name` out of what is written (it is written apart).
    fn exclude(&mut self, name: &str) {
        self.order.retain(|n| n != name);
    }

    /// Takes out the types `shared` names, as (local name, shared name), in the order met.
    fn take_shared<'p>(
        &mut self,
        shared: impl Fn(&str) -> Option<&'p str>,
    ) -> Vec<(String, &'p str)> {
        let mut taken = Vec::new();
        self.order.retain(|name| match shared(name) {
            Some(shared) => {
                taken.push((name.clone(), shared));
                false
            }
            None => true,
        });
        taken
    }

    fn add(&mut self, name: &str, schema: &'m Schema) -> bool {
        if let Some(def) = self.defs.get_mut(name) {
            def.docs_agree &= def.schema.docs == schema.docs;
            return false;
        }
        self.order.push(name.to_owned());
        let def = Def {
            schema,
            docs_agree: true,
        };
        self.defs.insert(name.to_owned(), def);
        true
    }

    /// Every struct and enum collected, into `writer`, each with the derives `optional`
    /// gives it by name.
    fn write(
        &self,
        writer: &mut Writer,
        optional: impl Fn(&str) -> Optional,
        imports: &mut Imports,
    ) {
        for name in &self.order {
            if let Some(Def { schema, docs_agree }) = self.defs.get(name) {
                write_def(writer, name, schema, *docs_agree, optional(name), imports);
            }
        }
    }
}

/// One kind at one version into `writer`: the object type, and for a schema-format kind its
/// spec and standard status (the types its fields need are in `types` already).
fn kind_items<'m>(
    writer: &mut Writer,
    kind: &'m Kind,
    version: &'m Version,
    crd_const: &syn::Ident,
    types: &mut TypeCollector<'m>,
    derives: &DerivePlan,
    imports: &mut Imports,
) -> Result<(), EmitError> {
    let partial_eq = derives.object_partial_eq();
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
            resource::object_items(writer, kind, version, &root, crd_const, partial_eq, imports)?;
            let spec_doc = format!("The desired state of a {}.", kind.kind);
            writer.struct_item(
                &spec_name,
                Some(&spec_doc),
                spec,
                false,
                derives.optional(false),
                imports,
            );
            writer.tokens(resource::status_item(
                kind,
                status,
                &status_name,
                status_fields,
                partial_eq,
                imports,
            ))
        }
        (Body::Root(fields), status) => {
            let root: Vec<&Field> = fields.iter().collect();
            resource::object_items(writer, kind, version, &root, crd_const, partial_eq, imports)?;
            // A standard status read from a CRD: its struct gets `KubeStatus`.
            if let (Some(status), Some(driven)) = (status, version.driven_status()) {
                types.exclude(&driven.object.name);
                resource::crd_status_item(
                    writer, kind, version, status, &driven, partial_eq, imports,
                )?;
            }
            Ok(())
        }
        (body @ Body::Standard { .. }, None) => {
            let root: Vec<&Field> = body.fields().collect();
            resource::object_items(writer, kind, version, &root, crd_const, partial_eq, imports)
        }
    }
}
