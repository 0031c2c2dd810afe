//! k8s-openapi's source into the catalog: every type of the candidate modules, and every type
//! they reference, at every Kubernetes version the crate supports.
//!
//! Each type's file has the facts: its `JsonSchema` impl (`json_schema!({...})`, JSON-like
//! tokens whose references to other types are `__gen.subschema_for::<crate::...::T>()`, with a
//! description set on the schema object), its `DeepMerge` impl (how lists and maps merge:
//! `crate::merge_strategies::list::map(&mut self.env, other.env, &[|lhs, rhs| lhs.name ==
//! rhs.name], ..)` merges by the item's Rust field `name`), its `Deserialize` impl (wire name
//! to Rust field: `"envFrom" => Field::Key_env_from`) and its struct (which fields are
//! `Option`). Anything in a form not foreseen here fails the extraction, naming the file:
//! the catalog is never silently wrong.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use kondition_gen::reuse::catalog::{
    CatalogData, DocHash, Leaf, ListMerge, MapMerge, Minor, ObjectShape, Property, PropertyType,
    Shape, Variant,
};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Expr, ImplItem, Item, Member, Stmt};

/// The modules whose every type is a candidate; the types they reference are too.
pub const CANDIDATE_MODULES: &[&str] = &[
    "api::core::v1",
    "api::apps::v1",
    "api::batch::v1",
    "apimachinery::pkg::apis::meta::v1",
];

/// The catalog of the k8s-openapi source folder `src` (the crate's `src/`), named `source`.
pub fn catalog(src: &Path, source: &str) -> CatalogData {
    let versions = versions(src);
    let mut files = FileCache::default();
    // Per type, its shape at each version that has it.
    let mut shapes: BTreeMap<String, BTreeMap<Minor, Shape>> = BTreeMap::new();
    for &minor in &versions {
        let root = src.join(format!("v1_{minor}"));
        let mut version = VersionTypes::new(&root, &mut files);
        let mut pending: Vec<String> = Vec::new();
        for module in CANDIDATE_MODULES {
            pending.extend(version.module(module).keys().cloned());
        }
        let mut seen = BTreeSet::new();
        while let Some(path) = pending.pop() {
            if !seen.insert(path.clone()) {
                continue;
            }
            let Some(parsed) = version.get(&path) else {
                panic!("v1_{minor}: {path} is referenced but has no file");
            };
            if parsed.resource {
                // A top-level kind: k8s-openapi checks and writes apiVersion and kind itself,
                // so it holds no CRD subtree losslessly.
                continue;
            }
            let Some(raw) = parsed.shape.clone() else {
                continue;
            };
            let shape = version.resolve(&path, raw);
            if let Shape::Object(object) = &shape {
                for property in object.properties.values() {
                    pending.extend(references(&property.ty));
                }
            }
            shapes.entry(path).or_default().insert(minor, shape);
        }
    }
    let types = shapes
        .into_iter()
        .map(|(path, by_version)| {
            let mut variants: Vec<Variant> = Vec::new();
            for (minor, shape) in by_version {
                match variants.iter_mut().find(|v| v.shape == shape) {
                    Some(variant) => variant.versions.push(minor),
                    None => variants.push(Variant {
                        versions: vec![minor],
                        shape,
                    }),
                }
            }
            (path, variants)
        })
        .collect();
    CatalogData {
        source: source.to_owned(),
        versions,
        types,
    }
}

/// The versions: the `v1_<minor>` folders.
fn versions(src: &Path) -> Vec<Minor> {
    let mut versions: Vec<Minor> = std::fs::read_dir(src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_prefix("v1_")?.parse().ok()
        })
        .collect();
    versions.sort_unstable();
    assert!(!versions.is_empty(), "no v1_* folders in {}", src.display());
    versions
}

fn references(ty: &PropertyType) -> Vec<String> {
    match ty {
        PropertyType::Ref(path) => vec![path.clone()],
        PropertyType::List(items, _) | PropertyType::Map(items, _) => references(items),
        _ => Vec::new(),
    }
}

/// Files parsed once whatever version folder they are in (most are the same in every version).
#[derive(Default)]
struct FileCache {
    by_text: HashMap<String, Vec<(String, ParsedType)>>,
}

impl FileCache {
    fn parse(&mut self, path: &Path) -> Vec<(String, ParsedType)> {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(types) = self.by_text.get(&text) {
            return types.clone();
        }
        let types = parse_file(path, &text);
        self.by_text.insert(text, types.clone());
        types
    }
}

/// The types of one version folder, read module by module as they are needed.
struct VersionTypes<'c> {
    root: PathBuf,
    files: &'c mut FileCache,
    modules: BTreeMap<String, BTreeMap<String, ParsedType>>,
}

impl<'c> VersionTypes<'c> {
    fn new(root: &Path, files: &'c mut FileCache) -> Self {
        Self {
            root: root.to_owned(),
            files,
            modules: BTreeMap::new(),
        }
    }

    /// Every type of a module (`api::core::v1`), by path.
    fn module(&mut self, module: &str) -> &BTreeMap<String, ParsedType> {
        if !self.modules.contains_key(module) {
            let dir = self.root.join(module.replace("::", "/"));
            let mut types = BTreeMap::new();
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|entry| Some(entry.ok()?.path()))
                .filter(|path| {
                    path.extension().is_some_and(|e| e == "rs")
                        && path.file_name().is_some_and(|n| n != "mod.rs")
                })
                .collect();
            entries.sort();
            for file in entries {
                for (name, parsed) in self.files.parse(&file) {
                    types.insert(format!("{module}::{name}"), parsed);
                }
            }
            self.modules.insert(module.to_owned(), types);
        }
        &self.modules[module]
    }

    fn get(&mut self, path: &str) -> Option<ParsedType> {
        let (module, _) = path.rsplit_once("::")?;
        self.module(module).get(path).cloned()
    }

    /// The shape with list merge keys made wire names (they were Rust field paths).
    fn resolve(&mut self, path: &str, shape: Shape) -> Shape {
        let Shape::Object(mut object) = shape else {
            return shape;
        };
        for (name, property) in &mut object.properties {
            property.ty = self.resolve_type(property.ty.clone(), &format!("{path}.{name}"));
        }
        Shape::Object(object)
    }

    fn resolve_type(&mut self, ty: PropertyType, place: &str) -> PropertyType {
        match ty {
            PropertyType::List(items, ListMerge::Map(keys)) => {
                let PropertyType::Ref(item_path) = items.as_ref() else {
                    panic!("{place}: a map list of {items:?}");
                };
                let wire = keys
                    .iter()
                    .map(|key| self.wire_path(item_path, key, place))
                    .collect();
                PropertyType::List(items, ListMerge::Map(wire))
            }
            PropertyType::List(items, merge) => {
                PropertyType::List(Box::new(self.resolve_type(*items, place)), merge)
            }
            PropertyType::Map(values, merge) => {
                PropertyType::Map(Box::new(self.resolve_type(*values, place)), merge)
            }
            other => other,
        }
    }

    /// A Rust field path of the type at `path` (`metadata.name`) as wire names.
    fn wire_path(&mut self, path: &str, rust: &str, place: &str) -> String {
        let mut type_path = path.to_owned();
        let mut wire = Vec::new();
        for field in rust.split('.') {
            let parsed = self
                .get(&type_path)
                .unwrap_or_else(|| panic!("{place}: merge key type {type_path} not found"));
            let Some(name) = parsed.wire_names.get(field) else {
                panic!("{place}: {type_path} has no field {field}");
            };
            wire.push(name.clone());
            if let Some(next) = parsed.field_types.get(field) {
                type_path.clone_from(next);
            }
        }
        wire.join(".")
    }
}

/// What one type's file says about it.
#[derive(Clone, Debug)]
struct ParsedType {
    /// A top-level kind (`impl crate::Resource`).
    resource: bool,
    /// The shape, list merge keys still Rust field paths; None for types that are neither
    /// objects nor known leaves.
    shape: Option<Shape>,
    /// Rust field name to wire name.
    wire_names: BTreeMap<String, String>,
    /// Rust field name to the path of the type it holds (for nested merge keys).
    field_types: BTreeMap<String, String>,
}

/// Every type a file defines, by name.
fn parse_file(path: &Path, text: &str) -> Vec<(String, ParsedType)> {
    let place = path.display().to_string();
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{place}: {e}"));
    let mut structs: BTreeMap<String, syn::ItemStruct> = BTreeMap::new();
    let mut enums: BTreeSet<String> = BTreeSet::new();
    let mut impls: Vec<(String, String, syn::ItemImpl)> = Vec::new();
    for item in file.items {
        match item {
            Item::Struct(item) => {
                structs.insert(item.ident.to_string(), item);
            }
            Item::Enum(item) => {
                enums.insert(item.ident.to_string());
            }
            Item::Impl(item) => {
                let Some((trait_path, _)) = &item.trait_ else {
                    continue;
                };
                let trait_name = path_text(trait_path);
                let self_name = item.self_ty.to_token_stream().to_string();
                impls.push((trait_name, self_name, item));
            }
            _ => {}
        }
    }
    let impl_of = |trait_name: &str, ty: &str| {
        impls
            .iter()
            .find(|(t, s, _)| t.rsplit("::").next() == Some(trait_name) && s == ty)
            .map(|(_, _, item)| item)
    };
    let mut types = Vec::new();
    for (_, self_name, item) in impls.iter().filter(|(t, _, _)| t.ends_with("::JsonSchema")) {
        let place = format!("{place}: {self_name}");
        let schema = json_schema(item).unwrap_or_else(|| panic!("{place}: no json_schema!"));
        let resource = impl_of("Resource", self_name).is_some();
        let wire_names = impl_of("Deserialize", self_name)
            .map(|item| wire_names(&item.to_token_stream()))
            .unwrap_or_default();
        let strukt = structs.get(self_name);
        let field_types = strukt.map(field_types).unwrap_or_default();
        let shape = if resource {
            // Only its field names are of use (merge keys through it).
            None
        } else if schema.get("properties").is_some() {
            // An enum with properties (WatchEvent) is no struct a CRD subtree could be.
            strukt.map(|strukt| {
                let merges = impl_of("DeepMerge", self_name)
                    .map(|item| merge_strategies(item, &place))
                    .unwrap_or_default();
                Shape::Object(object(&schema, strukt, &wire_names, &merges, &place))
            })
        } else {
            leaf(
                &schema,
                strukt,
                enums.contains(self_name),
                impl_of("Serialize", self_name),
            )
            .map(Shape::Leaf)
        };
        types.push((
            self_name.clone(),
            ParsedType {
                resource,
                shape,
                wire_names,
                field_types,
            },
        ));
    }
    types
}

fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// A `crate::api::core::v1::EnvVar` type as a catalog path (`api::core::v1::EnvVar`).
fn type_path(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let text = path_text(&path.path);
    text.strip_prefix("crate::").map(str::to_owned)
}

/// Rust field name to the catalog path of its type (inside Option and Vec).
fn field_types(strukt: &syn::ItemStruct) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let syn::Fields::Named(fields) = &strukt.fields {
        for field in &fields.named {
            let Some(name) = &field.ident else { continue };
            if let Some(path) = innermost(&field.ty).and_then(type_path) {
                out.insert(name.to_string(), path);
            }
        }
    }
    out
}

/// The type inside `Option<..>` and `Vec<..>`.
fn innermost(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return Some(ty);
    };
    let last = path.path.segments.last()?;
    if matches!(last.ident.to_string().as_str(), "Option" | "Vec")
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return innermost(inner);
    }
    Some(ty)
}

/// Whether a struct field is an `Option`.
fn optional_fields(strukt: &syn::ItemStruct) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    if let syn::Fields::Named(fields) = &strukt.fields {
        for field in &fields.named {
            let Some(name) = &field.ident else { continue };
            let optional = matches!(&field.ty, syn::Type::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "Option"));
            out.insert(name.to_string(), optional);
        }
    }
    out
}

/// A JSON-like value of `json_schema!`.
#[derive(Clone, Debug)]
enum Schema {
    Object(Vec<(String, Schema)>),
    Array(Vec<Schema>),
    String(String),
    Other(String),
    /// A Rust expression: a reference to a type, with the description set on it.
    Reference {
        path: String,
        description: Option<String>,
    },
}

impl Schema {
    fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Self::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Self::String(text) => Some(text),
            _ => None,
        }
    }

    fn is_true(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Self::Other(text)) if text == "true")
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Self::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }
}

/// The schema `json_schema` builds.
fn json_schema(item: &syn::ItemImpl) -> Option<Schema> {
    let body = item.items.iter().find_map(|item| match item {
        ImplItem::Fn(f) if f.sig.ident == "json_schema" => Some(&f.block),
        _ => None,
    })?;
    let tokens = body.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Macro(m) if m.mac.path.segments.last()?.ident == "json_schema" => {
            Some(m.mac.tokens.clone())
        }
        Stmt::Expr(Expr::Macro(m), _) if m.mac.path.segments.last()?.ident == "json_schema" => {
            Some(m.mac.tokens.clone())
        }
        _ => None,
    })?;
    Some(value(&tokens.into_iter().collect::<Vec<_>>()))
}

/// One value's tokens.
fn value(tokens: &[TokenTree]) -> Schema {
    match tokens {
        [TokenTree::Group(group)] if group.delimiter() == Delimiter::Brace => {
            let inner: Vec<TokenTree> = group.stream().into_iter().collect();
            let mut entries = Vec::new();
            for entry in split_commas(&inner) {
                let [TokenTree::Literal(key), TokenTree::Punct(colon), rest @ ..] = entry else {
                    panic!("unexpected object entry: {}", stream(entry));
                };
                assert_eq!(colon.as_char(), ':', "{}", stream(entry));
                entries.push((string_literal(key), value(rest)));
            }
            Schema::Object(entries)
        }
        [TokenTree::Group(group)] if group.delimiter() == Delimiter::Bracket => {
            let inner: Vec<TokenTree> = group.stream().into_iter().collect();
            Schema::Array(split_commas(&inner).iter().map(|v| value(v)).collect())
        }
        [TokenTree::Literal(literal)] if literal.to_string().starts_with('"') => {
            Schema::String(string_literal(literal))
        }
        [TokenTree::Literal(_) | TokenTree::Ident(_)] => Schema::Other(stream(tokens).to_string()),
        _ => {
            let expr: Expr =
                syn::parse2(stream(tokens)).unwrap_or_else(|e| panic!("{e}: {}", stream(tokens)));
            let mut found = (None, None);
            reference(&expr, &mut found);
            let (Some(path), description) = found else {
                panic!("not a reference to a type: {}", stream(tokens));
            };
            Schema::Reference { path, description }
        }
    }
}

fn stream(tokens: &[TokenTree]) -> TokenStream {
    tokens.iter().cloned().collect()
}

fn split_commas(tokens: &[TokenTree]) -> Vec<&[TokenTree]> {
    tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter(|part| !part.is_empty())
        .collect()
}

fn string_literal(literal: &proc_macro2::Literal) -> String {
    let lit: syn::LitStr = syn::parse2(TokenTree::Literal(literal.clone()).into())
        .unwrap_or_else(|e| panic!("{e}: {literal}"));
    lit.value()
}

/// The type `subschema_for::<T>()` names, and the description inserted on the schema object.
fn reference(expr: &Expr, found: &mut (Option<String>, Option<String>)) {
    match expr {
        Expr::Paren(paren) => reference(&paren.expr, found),
        Expr::Block(block) => {
            for stmt in &block.block.stmts {
                match stmt {
                    Stmt::Local(local) => {
                        if let Some(init) = &local.init {
                            reference(&init.expr, found);
                        }
                    }
                    Stmt::Expr(expr, _) => reference(expr, found),
                    other => panic!("unexpected statement: {}", other.to_token_stream()),
                }
            }
        }
        Expr::MethodCall(call) if call.method == "subschema_for" => {
            let ty = call
                .turbofish
                .as_ref()
                .and_then(|t| t.args.first())
                .and_then(|arg| match arg {
                    syn::GenericArgument::Type(ty) => type_path(ty),
                    _ => None,
                });
            found.0 =
                Some(ty.unwrap_or_else(|| {
                    panic!("subschema_for of what? {}", expr.to_token_stream())
                }));
        }
        Expr::MethodCall(call) if call.method == "insert" => {
            let args: Vec<&Expr> = call.args.iter().collect();
            let [key, text] = args.as_slice() else {
                panic!("unexpected insert: {}", call.to_token_stream());
            };
            assert_eq!(
                into_string(key).as_deref(),
                Some("description"),
                "only descriptions are set on a referenced schema: {}",
                call.to_token_stream()
            );
            found.1 = into_string(text);
            reference(&call.receiver, found);
        }
        Expr::MethodCall(call) if call.method == "ensure_object" => {
            reference(&call.receiver, found);
        }
        Expr::Path(_) => {}
        other => panic!("unexpected expression: {}", other.to_token_stream()),
    }
}

/// The text of `"...".into()`.
fn into_string(expr: &Expr) -> Option<String> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    match call.receiver.as_ref() {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(text.value()),
        _ => None,
    }
}

/// `"envFrom" => Field::Key_env_from` of a Deserialize impl: Rust field to wire name.
fn wire_names(tokens: &TokenStream) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let flat = flatten(tokens);
    let punct = |t: &TokenTree, c: char| matches!(t, TokenTree::Punct(p) if p.as_char() == c);
    for window in flat.windows(7) {
        if let [
            TokenTree::Literal(wire),
            eq,
            gt,
            TokenTree::Ident(field),
            colon1,
            colon2,
            TokenTree::Ident(variant),
        ] = window
            && punct(eq, '=')
            && punct(gt, '>')
            && field == "Field"
            && punct(colon1, ':')
            && punct(colon2, ':')
            && wire.to_string().starts_with('"')
            && let Some(rust) = variant.to_string().strip_prefix("Key_")
        {
            out.insert(rust.to_owned(), string_literal(wire));
        }
    }
    out
}

fn flatten(tokens: &TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for token in tokens.clone() {
        match token {
            TokenTree::Group(group) => out.extend(flatten(&group.stream())),
            other => out.push(other),
        }
    }
    out
}

/// How a field merges.
#[derive(Clone, Debug, PartialEq)]
enum Strategy {
    /// `DeepMerge::merge_from`.
    Plain,
    List(ListMerge),
    Map(MapMerge, Box<Strategy>),
}

/// Rust field to strategy, from `merge_from`'s calls.
fn merge_strategies(item: &syn::ItemImpl, place: &str) -> BTreeMap<String, Strategy> {
    let mut out = BTreeMap::new();
    let Some(body) = item.items.iter().find_map(|item| match item {
        ImplItem::Fn(f) if f.sig.ident == "merge_from" => Some(&f.block),
        _ => None,
    }) else {
        return out;
    };
    for stmt in &body.stmts {
        let Stmt::Expr(Expr::Call(call), _) = stmt else {
            panic!("{place}: unexpected merge: {}", stmt.to_token_stream());
        };
        let args: Vec<&Expr> = call.args.iter().collect();
        let Some(field) = args.first().and_then(|a| self_field(a)) else {
            // A newtype merging its content.
            continue;
        };
        out.insert(field, strategy(call, &args, place));
    }
    out
}

fn strategy(call: &syn::ExprCall, args: &[&Expr], place: &str) -> Strategy {
    let Expr::Path(func) = call.func.as_ref() else {
        panic!("{place}: unexpected merge: {}", call.to_token_stream());
    };
    let func = path_text(&func.path);
    let name = func
        .strip_prefix("crate::merge_strategies::")
        .unwrap_or(&func);
    match name {
        "crate::DeepMerge::merge_from" => Strategy::Plain,
        "list::atomic" => Strategy::List(ListMerge::Atomic),
        "list::set" => Strategy::List(ListMerge::Set),
        "list::map" => {
            let Some(Expr::Reference(keys)) = args.get(2) else {
                panic!(
                    "{place}: list::map without keys: {}",
                    call.to_token_stream()
                );
            };
            let Expr::Array(keys) = keys.expr.as_ref() else {
                panic!("{place}: list::map keys: {}", call.to_token_stream());
            };
            let keys = keys
                .elems
                .iter()
                .map(|key| {
                    let Expr::Closure(closure) = key else {
                        panic!("{place}: key {}", key.to_token_stream());
                    };
                    let Expr::Binary(binary) = closure.body.as_ref() else {
                        panic!("{place}: key {}", key.to_token_stream());
                    };
                    field_chain(&binary.left)
                        .unwrap_or_else(|| panic!("{place}: key {}", key.to_token_stream()))
                })
                .collect();
            Strategy::List(ListMerge::Map(keys))
        }
        "map::atomic" => Strategy::Map(MapMerge::Atomic, Box::new(Strategy::Plain)),
        "map::granular" => {
            let Some(Expr::Closure(closure)) = args.get(2) else {
                panic!("{place}: map::granular: {}", call.to_token_stream());
            };
            let inner = match closure.body.as_ref() {
                Expr::Block(block) => match block.block.stmts.as_slice() {
                    [Stmt::Expr(Expr::Call(inner), _)] => {
                        let inner_args: Vec<&Expr> = inner.args.iter().collect();
                        strategy(inner, &inner_args, place)
                    }
                    _ => panic!("{place}: map::granular: {}", call.to_token_stream()),
                },
                _ => panic!("{place}: map::granular: {}", call.to_token_stream()),
            };
            Strategy::Map(MapMerge::Granular, Box::new(inner))
        }
        other => panic!("{place}: unknown merge strategy {other}"),
    }
}

/// `&mut self.field` -> `field`.
fn self_field(expr: &Expr) -> Option<String> {
    let Expr::Reference(reference) = expr else {
        return None;
    };
    let Expr::Field(field) = reference.expr.as_ref() else {
        return None;
    };
    match (&field.member, field.base.as_ref()) {
        (Member::Named(name), Expr::Path(base)) if base.path.is_ident("self") => {
            Some(name.to_string())
        }
        _ => None,
    }
}

/// `lhs.metadata.name` -> `metadata.name`.
fn field_chain(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Field(field) => {
            let Member::Named(name) = &field.member else {
                return None;
            };
            match field.base.as_ref() {
                Expr::Path(base) if base.path.is_ident("lhs") => Some(name.to_string()),
                base => Some(format!("{}.{name}", field_chain(base)?)),
            }
        }
        _ => None,
    }
}

fn doc_of(schema: &Schema) -> Option<DocHash> {
    match schema {
        Schema::Reference { description, .. } => description.as_deref().map(DocHash::of),
        _ => schema.str("description").map(DocHash::of),
    }
}

fn object(
    schema: &Schema,
    strukt: &syn::ItemStruct,
    wire_names: &BTreeMap<String, String>,
    merges: &BTreeMap<String, Strategy>,
    place: &str,
) -> ObjectShape {
    let Some(Schema::Object(properties)) = schema.get("properties") else {
        panic!("{place}: properties is not an object");
    };
    let rust_of: BTreeMap<&str, &str> = wire_names
        .iter()
        .map(|(rust, wire)| (wire.as_str(), rust.as_str()))
        .collect();
    let optional = optional_fields(strukt);
    let mut required: Vec<String> = match schema.get("required") {
        Some(Schema::Array(names)) => names
            .iter()
            .map(|n| match n {
                Schema::String(name) => name.clone(),
                other => panic!("{place}: required {other:?}"),
            })
            .collect(),
        None => Vec::new(),
        Some(other) => panic!("{place}: required {other:?}"),
    };
    required.sort();
    let mut out = BTreeMap::new();
    for (name, property) in properties {
        let Some(rust) = rust_of.get(name.as_str()).copied() else {
            panic!("{place}: property {name} has no field");
        };
        let is_optional = optional
            .get(rust)
            .unwrap_or_else(|| panic!("{place}: no struct field {rust}"));
        assert_eq!(
            !is_optional,
            required.contains(name),
            "{place}: {name} is required in the schema iff its field is not an Option"
        );
        let merge = merges.get(rust).cloned().unwrap_or(Strategy::Plain);
        out.insert(
            name.clone(),
            Property {
                ty: property_type(property, &merge, &format!("{place}.{name}")),
                doc: doc_of(property),
            },
        );
    }
    if let Some(extra) = schema
        .keys()
        .into_iter()
        .find(|k| !["description", "type", "properties", "required"].contains(k))
    {
        panic!("{place}: unexpected keyword {extra}");
    }
    ObjectShape {
        doc: doc_of(schema),
        required,
        properties: out,
    }
}

fn property_type(schema: &Schema, merge: &Strategy, place: &str) -> PropertyType {
    if let Schema::Reference { path, .. } = schema {
        assert_eq!(merge, &Strategy::Plain, "{place}");
        return PropertyType::Ref(path.clone());
    }
    for key in schema.keys() {
        assert!(
            [
                "description",
                "type",
                "format",
                "items",
                "additionalProperties"
            ]
            .contains(&key),
            "{place}: unexpected keyword {key}"
        );
    }
    let plain = |ty: PropertyType| {
        assert_eq!(merge, &Strategy::Plain, "{place}");
        ty
    };
    match (schema.str("type"), schema.str("format")) {
        (Some("string"), None) => plain(PropertyType::String),
        (Some("string"), Some("byte")) => plain(PropertyType::Bytes),
        (Some("integer"), Some("int32")) => plain(PropertyType::Int32),
        (Some("integer"), Some("int64")) => plain(PropertyType::Int64),
        (Some("number"), Some("double") | None) => plain(PropertyType::Number),
        (Some("boolean"), None) => plain(PropertyType::Boolean),
        (Some("array"), None) => {
            let Strategy::List(list) = merge else {
                panic!("{place}: a list merged as {merge:?}");
            };
            let items = schema
                .get("items")
                .unwrap_or_else(|| panic!("{place}: a list without items"));
            PropertyType::List(
                Box::new(property_type(items, &Strategy::Plain, place)),
                list.clone(),
            )
        }
        (Some("object"), None) => {
            let Strategy::Map(map, inner) = merge else {
                panic!("{place}: a map merged as {merge:?}");
            };
            let values = schema
                .get("additionalProperties")
                .unwrap_or_else(|| panic!("{place}: an object without properties or values"));
            PropertyType::Map(Box::new(property_type(values, inner, place)), *map)
        }
        (ty, format) => panic!("{place}: unexpected type {ty:?} format {format:?}"),
    }
}

/// A type without properties: a leaf k8s-openapi serializes its own way, or None.
fn leaf(
    schema: &Schema,
    strukt: Option<&syn::ItemStruct>,
    is_enum: bool,
    serialize: Option<&syn::ItemImpl>,
) -> Option<Leaf> {
    let newtype_of = |inner: &str| {
        strukt.is_some_and(|s| match &s.fields {
            syn::Fields::Unnamed(fields) => {
                fields.unnamed.len() == 1
                    && fields.unnamed[0]
                        .ty
                        .to_token_stream()
                        .to_string()
                        .replace(' ', "")
                        == inner
            }
            _ => false,
        })
    };
    if schema.is_true("x-kubernetes-int-or-string") {
        if is_enum {
            return Some(Leaf::IntOrString);
        }
        if newtype_of("std::string::String") {
            return Some(Leaf::Quantity);
        }
        return None;
    }
    match (schema.str("type"), schema.str("format")) {
        (Some("string"), Some("date-time")) if newtype_of("crate::jiff::Timestamp") => {
            let formats: Vec<String> = serialize
                .map(|item| flatten(&item.to_token_stream()))
                .unwrap_or_default()
                .iter()
                .filter_map(|t| match t {
                    TokenTree::Literal(l) if l.to_string().starts_with("\"%Y") => {
                        Some(string_literal(l))
                    }
                    _ => None,
                })
                .collect();
            match formats.as_slice() {
                [f] if f == "%Y-%m-%dT%H:%M:%SZ" => Some(Leaf::Time),
                [f] if f == "%Y-%m-%dT%H:%M:%S%.6fZ" => Some(Leaf::MicroTime),
                other => panic!("a date-time written as {other:?}"),
            }
        }
        (Some("object"), None)
            if newtype_of("crate::serde_json::Value") && schema.get("properties").is_none() =>
        {
            Some(Leaf::Json)
        }
        _ => None,
    }
}
