//! Rust code for one schema file: each kind's reasons enum, then per version each kind's
//! spec (with kube's `CustomResource`), its status (with `KubeStatus`), and every struct and
//! enum its fields need. Built with `quote`; every text from the input enters as a string literal
//! or a checked identifier, never as code.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::docs;
use crate::model::{
    EnumType, EnumValues, Field, IntegerFormat, Kind, ListKind, Schema, SchemaFile, Scope, Type,
    Version,
};
use crate::names::{self, ident, pascal_case, snake_case};

/// The contents of one schema file's module: its doc, each kind's reasons enum (kind-level,
/// so written once), and `pub mod <version> { ... }` for each version, which re-exports the
/// reasons of its kinds.
pub fn file_module(file: &SchemaFile) -> TokenStream {
    let mut versions: Vec<&str> = Vec::new();
    for kind in &file.kinds {
        for version in &kind.versions {
            if !versions.contains(&version.name.as_str()) {
                versions.push(&version.name);
            }
        }
    }
    let modules = versions.iter().map(|version| {
        let module = ident(version);
        let doc = format!(" Version `{version}`.");
        let reasons = file
            .kinds
            .iter()
            .filter(|k| k.versions.iter().any(|v| v.name == *version))
            .map(|k| format_ident!("{}Reason", k.kind));
        let items = version_items(file, version);
        quote! {
            pub mod #module {
                #![doc = #doc]
                #(pub use super::#reasons;)*
                #items
            }
        }
    });
    let doc = format!(" Kinds from `{}`.", super::display_path(&file.path));
    let reasons = file.kinds.iter().map(reasons_item);
    quote! {
        #![doc = #doc]
        #(#reasons)*
        #(#modules)*
    }
}

/// The items of one version: its kinds, then the types they use.
fn version_items(file: &SchemaFile, version: &str) -> TokenStream {
    let mut types = TypeCollector::new(file);
    let mut items = TokenStream::new();
    for kind in &file.kinds {
        let Some(v) = kind.versions.iter().find(|v| v.name == version) else {
            continue;
        };
        items.extend(kind_items(kind, v, &mut types));
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
                Type::Object(object) => struct_item(name, schema.docs.as_deref(), &object.fields),
                Type::Enum(e) => enum_item(e, schema.docs.as_deref()),
                _ => TokenStream::new(),
            })
            .collect()
    }
}

fn kind_items<'m>(
    kind: &'m Kind,
    version: &'m Version,
    types: &mut TypeCollector<'m>,
) -> TokenStream {
    for field in version.spec.iter().chain(&version.status_fields) {
        types.collect(&field.schema);
    }
    let spec_name = format!("{}Spec", kind.kind);
    let status_name = format!("{}Status", kind.kind);
    let kube_attr = kube_attribute(kind, version, &status_name);
    let spec_doc = docs::attrs(&format!("The desired state of a {}.", kind.kind));
    let spec_extensions = schemars_attr(None, &validations_extension(&version.spec_validations));
    let spec_fields = fields(&version.spec);
    let spec_ident = format_ident!("{}", spec_name);
    let spec = quote! {
        #spec_doc
        #[derive(::kube::CustomResource, Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        #kube_attr
        #spec_extensions
        pub struct #spec_ident {
            #spec_fields
        }
    };
    let status = status_item(kind, version, &status_name);
    quote! {
        #spec
        #status
    }
}

fn kube_attribute(kind: &Kind, version: &Version, status: &str) -> TokenStream {
    let group = &kind.group;
    let version_name = &version.name;
    let kind_name = &kind.kind;
    let plural = &kind.names.plural;
    let singular = &kind.names.singular;
    let mut args = vec![
        quote!(group = #group),
        quote!(version = #version_name),
        quote!(kind = #kind_name),
        quote!(plural = #plural),
        quote!(singular = #singular),
    ];
    if kind.scope == Scope::Namespaced {
        args.push(quote!(namespaced));
    }
    args.push(quote!(status = #status));
    if let Some(doc) = &kind.docs {
        let doc = docs::sanitize(doc);
        args.push(quote!(doc = #doc));
    }
    args.extend(
        kind.names
            .short_names
            .iter()
            .map(|s| quote!(shortname = #s)),
    );
    args.extend(kind.names.categories.iter().map(|c| quote!(category = #c)));
    for column in printer_columns(kind, version) {
        args.push(quote!(printcolumn = #column));
    }
    if let Some(scale) = &version.scale {
        let mut value = serde_json::json!({
            "specReplicasPath": scale.spec_replicas_path,
            "statusReplicasPath": scale.status_replicas_path,
        });
        if let Some(selector) = &scale.label_selector_path {
            value["labelSelectorPath"] = serde_json::Value::from(selector.as_str());
        }
        let scale = value.to_string();
        args.push(quote!(scale = #scale));
    }
    if version.deprecated {
        match &version.deprecation_warning {
            Some(warning) => args.push(quote!(deprecated = #warning)),
            None => args.push(quote!(deprecated)),
        }
    }
    if !version.storage {
        args.push(quote!(storage = false));
    }
    if !version.served {
        args.push(quote!(served = false));
    }
    quote!(#[kube(#(#args),*)])
}

/// Ready, Reason and Age, then the kind's own columns, as kube's JSON form.
fn printer_columns(kind: &Kind, version: &Version) -> Vec<String> {
    let summary = &kind.status.summary;
    let mut columns = vec![
        serde_json::json!({"name": "Ready", "type": "string", "jsonPath": format!(".status.conditions[?(@.type==\"{summary}\")].status")}),
        serde_json::json!({"name": "Reason", "type": "string", "jsonPath": format!(".status.conditions[?(@.type==\"{summary}\")].reason")}),
        serde_json::json!({"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}),
    ];
    for column in &version.printer_columns {
        let mut value = serde_json::json!({"name": column.name, "type": column.type_, "jsonPath": column.json_path});
        if let Some(description) = &column.description {
            value["description"] = serde_json::Value::from(description.as_str());
        }
        if let Some(priority) = column.priority {
            value["priority"] = serde_json::Value::from(priority);
        }
        if let Some(format) = &column.format {
            value["format"] = serde_json::Value::from(format.as_str());
        }
        columns.push(value);
    }
    columns.iter().map(serde_json::Value::to_string).collect()
}

fn status_item(kind: &Kind, version: &Version, status_name: &str) -> TokenStream {
    let status_ident = format_ident!("{}", status_name);
    let resource = format_ident!("{}", kind.kind);
    let doc = docs::attrs(&format!(
        "The observed state of a {}: the standard conditions and observedGeneration.",
        kind.kind
    ));
    let types = kind
        .status
        .conditions
        .iter()
        .map(|c| Literal::string(&c.type_));
    let field_owner = kind
        .field_owner
        .as_ref()
        .map(|owner| quote!(, field_owner = #owner));
    let mut scope = names::Scope::with_reserved(&["conditions", "observed_generation"]);
    let extra = field_tokens(&version.status_fields, true, &mut scope);
    quote! {
        #doc
        #[derive(Clone, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema, ::kondition::KubeStatus)]
        #[kondition(resource = #resource, conditions(#(#types),*) #field_owner)]
        pub struct #status_ident {
            /// The conditions, one per type; see the condition type enum for the types.
            #[serde(default)]
            pub conditions: ::kondition::Conditions,
            /// The metadata.generation the status was last computed from.
            #[serde(rename = "observedGeneration", default, skip_serializing_if = "Option::is_none")]
            #[schemars(with = "i64")]
            pub observed_generation: ::core::option::Option<i64>,
            #extra
        }
    }
}

fn reasons_item(kind: &Kind) -> TokenStream {
    let name = format_ident!("{}Reason", kind.kind);
    let mut scope = names::Scope::with_reserved(&["Other"]);
    let mut seen: Vec<&str> = Vec::new();
    let mut variants = Vec::new();
    for condition in &kind.status.conditions {
        for reason in &condition.reasons {
            if seen.contains(&reason.name.as_str()) {
                continue;
            }
            seen.push(&reason.name);
            let variant = format_ident!("{}", scope.unique_pascal(&pascal_case(&reason.name)));
            let doc = docs::attrs(&match &reason.docs {
                Some(docs) => format!("`{}` ({}): {}", reason.name, condition.type_, docs),
                None => format!("`{}` ({}).", reason.name, condition.type_),
            });
            variants.push((variant, reason.name.clone(), doc));
        }
    }
    let doc = docs::attrs(&format!(
        "The reasons {}'s conditions carry; `Other` holds a reason from outside, such as a cloud provider's error code.",
        kind.kind
    ));
    let defs = variants.iter().map(|(v, _, doc)| quote!(#doc #v,));
    let to_str = variants
        .iter()
        .map(|(v, wire, _)| quote!(Self::#v => #wire,));
    let from_str = variants
        .iter()
        .map(|(v, wire, _)| quote!(#wire => Self::#v,));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum #name {
            #(#defs)*
            /// A reason not declared in the schema.
            Other(::std::string::String),
        }

        impl #name {
            /// The reason as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(#to_str)*
                    Self::Other(reason) => reason,
                }
            }
        }

        impl ::core::convert::From<&str> for #name {
            fn from(reason: &str) -> Self {
                match reason {
                    #(#from_str)*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::core::convert::From<#name> for ::std::string::String {
            fn from(reason: #name) -> Self {
                reason.as_str().to_owned()
            }
        }

        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

fn struct_item(name: &str, doc: Option<&str>, fields_in: &[Field]) -> TokenStream {
    let ident = format_ident!("{}", name);
    let all_optional = fields_in.iter().all(|f| !f.required);
    let default = all_optional.then(|| quote!(Default,));
    let body = fields(fields_in);
    let doc = doc.map(docs::attrs);
    quote! {
        #doc
        #[derive(Clone, Debug, #default PartialEq, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        pub struct #ident {
            #body
        }
    }
}

/// The fields of a spec or nested struct.
fn fields(fields_in: &[Field]) -> TokenStream {
    field_tokens(fields_in, false, &mut names::Scope::default())
}

/// The fields of a struct. Status fields are always optional: a controller fills the status
/// piece by piece, and the status struct must have a `Default`.
fn field_tokens(fields_in: &[Field], status: bool, scope: &mut names::Scope) -> TokenStream {
    fields_in
        .iter()
        .map(|field| {
            let rust = scope.unique(&snake_case(&field.name));
            let field_ident = ident(&rust);
            let wire = &field.name;
            let ty = rust_type(&field.schema.ty);
            let optional = status || !field.required;
            // schemars would describe `Option<T>` as nullable (and add `null` to enums); an
            // optional field is not nullable unless the schema says so, so it is described
            // by `T`'s schema.
            let schema_with = optional.then(|| type_text(&ty));
            let (ty, serde_attr) = if optional {
                (
                    quote!(::core::option::Option<#ty>),
                    quote!(#[serde(rename = #wire, default, skip_serializing_if = "Option::is_none")]),
                )
            } else {
                (ty, quote!(#[serde(rename = #wire)]))
            };
            let doc = field.schema.docs.as_deref().map(docs::attrs);
            let schema_attr = schemars_attr(schema_with.as_deref(), &field_extensions(&field.schema));
            quote! {
                #doc
                #serde_attr
                #schema_attr
                pub #field_ident: #ty,
            }
        })
        .collect()
}

fn enum_item(e: &EnumType, doc: Option<&str>) -> TokenStream {
    let EnumValues::Str(values) = &e.values else {
        return TokenStream::new();
    };
    let ident = format_ident!("{}", e.name);
    let mut scope = names::Scope::default();
    let variants = values.iter().map(|value| {
        let variant = format_ident!("{}", scope.unique_pascal(&pascal_case(value)));
        quote!(#[serde(rename = #value)] #variant,)
    });
    let doc = doc.map(docs::attrs);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        pub enum #ident {
            #(#variants)*
        }
    }
}

fn rust_type(ty: &Type) -> TokenStream {
    match ty {
        Type::String(_) => quote!(::std::string::String),
        Type::Integer(int) => match int.format {
            IntegerFormat::Int32 => quote!(i32),
            IntegerFormat::Int64 => quote!(i64),
        },
        Type::Enum(EnumType {
            values: EnumValues::Int(_),
            ..
        }) => quote!(i64),
        Type::Number(_) => quote!(f64),
        Type::Boolean => quote!(bool),
        Type::Object(object) => {
            let name = format_ident!("{}", object.name);
            quote!(#name)
        }
        Type::Enum(e) => {
            let name = format_ident!("{}", e.name);
            quote!(#name)
        }
        Type::Map(map) => {
            let values = rust_type(&map.values.ty);
            quote!(::std::collections::BTreeMap<::std::string::String, #values>)
        }
        Type::List(list) => {
            let items = rust_type(&list.items.ty);
            quote!(::std::vec::Vec<#items>)
        }
        Type::IntOrString => quote!(::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString),
        Type::Quantity => quote!(::k8s_openapi::apimachinery::pkg::api::resource::Quantity),
        Type::DateTime => quote!(::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time),
        Type::Raw => quote!(::serde_json::Value),
        Type::Named(name) => {
            let name = format_ident!("{}", name);
            quote!(#name)
        }
        Type::WellKnown(known) => {
            let path: syn::Path = syn::parse_str(&format!("::{}", known.rust_path()))
                .unwrap_or_else(|_| syn::parse_quote!(::serde_json::Value));
            quote!(#path)
        }
    }
}

/// A type's tokens as the text a `with = "..."` attribute holds, without token spacing.
fn type_text(ty: &TokenStream) -> String {
    let mut text = ty.to_string();
    for (spaced, tight) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
    ] {
        text = text.replace(spaced, tight);
    }
    text.replace(",", ", ")
}

/// The schema keywords a field's Rust type does not already carry, as JSON.
fn field_extensions(schema: &Schema) -> Vec<(&'static str, serde_json::Value)> {
    use serde_json::Value as Json;
    let mut ext: Vec<(&'static str, Json)> = Vec::new();
    match &schema.ty {
        Type::String(s) => {
            push_opt(&mut ext, "format", s.format.clone().map(Json::from));
            push_opt(&mut ext, "pattern", s.pattern.clone().map(Json::from));
            push_opt(&mut ext, "minLength", s.min_length.map(Json::from));
            push_opt(&mut ext, "maxLength", s.max_length.map(Json::from));
        }
        Type::Integer(i) => bounds(&mut ext, &i.bounds),
        Type::Number(n) => {
            push_opt(&mut ext, "format", n.format.clone().map(Json::from));
            bounds(&mut ext, &n.bounds);
        }
        Type::Enum(EnumType {
            values: EnumValues::Int(values),
            ..
        }) => {
            ext.push(("enum", Json::from(values.clone())));
        }
        Type::Map(map) => {
            push_opt(
                &mut ext,
                "minProperties",
                map.min_properties.map(Json::from),
            );
            push_opt(
                &mut ext,
                "maxProperties",
                map.max_properties.map(Json::from),
            );
        }
        Type::Object(object) => {
            push_opt(
                &mut ext,
                "minProperties",
                object.min_properties.map(Json::from),
            );
            push_opt(
                &mut ext,
                "maxProperties",
                object.max_properties.map(Json::from),
            );
        }
        Type::List(list) => {
            push_opt(&mut ext, "minItems", list.min_items.map(Json::from));
            push_opt(&mut ext, "maxItems", list.max_items.map(Json::from));
            match &list.kind {
                ListKind::Atomic => {}
                ListKind::Set => ext.push(("x-kubernetes-list-type", Json::from("set"))),
                ListKind::Map(keys) => {
                    ext.push(("x-kubernetes-list-type", Json::from("map")));
                    ext.push(("x-kubernetes-list-map-keys", Json::from(keys.clone())));
                }
            }
        }
        Type::Raw => ext.push(("x-kubernetes-preserve-unknown-fields", Json::Bool(true))),
        _ => {}
    }
    if schema.nullable {
        ext.push(("nullable", Json::Bool(true)));
    }
    if let Some(default) = &schema.default {
        ext.push(("default", default.clone()));
    }
    ext.extend(validations_extension(&schema.validations));
    ext
}

fn push_opt(
    ext: &mut Vec<(&'static str, serde_json::Value)>,
    key: &'static str,
    value: Option<serde_json::Value>,
) {
    if let Some(value) = value {
        ext.push((key, value));
    }
}

fn bounds(ext: &mut Vec<(&'static str, serde_json::Value)>, bounds: &crate::model::Bounds) {
    use serde_json::Value as Json;
    let number = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation)]
            Json::from(n as i64)
        } else {
            Json::from(n)
        }
    };
    push_opt(ext, "minimum", bounds.minimum.map(number));
    push_opt(ext, "maximum", bounds.maximum.map(number));
    if bounds.exclusive_minimum {
        ext.push(("exclusiveMinimum", Json::Bool(true)));
    }
    if bounds.exclusive_maximum {
        ext.push(("exclusiveMaximum", Json::Bool(true)));
    }
    push_opt(ext, "multipleOf", bounds.multiple_of.map(number));
}

fn validations_extension(
    validations: &[crate::model::Validation],
) -> Vec<(&'static str, serde_json::Value)> {
    if validations.is_empty() {
        return Vec::new();
    }
    let rules: Vec<serde_json::Value> = validations
        .iter()
        .map(|v| {
            let mut rule = serde_json::json!({"rule": v.rule});
            for (key, value) in [
                ("message", &v.message),
                ("messageExpression", &v.message_expression),
                ("reason", &v.reason),
                ("fieldPath", &v.field_path),
            ] {
                if let Some(value) = value {
                    rule[key] = serde_json::Value::from(value.as_str());
                }
            }
            rule
        })
        .collect();
    vec![("x-kubernetes-validations", serde_json::Value::Array(rules))]
}

/// `#[schemars(with = "T", extend("key" = value, ...))]`, or nothing.
fn schemars_attr(with: Option<&str>, ext: &[(&'static str, serde_json::Value)]) -> TokenStream {
    let mut args = Vec::new();
    if let Some(with) = with {
        args.push(quote!(with = #with));
    }
    if !ext.is_empty() {
        let entries = ext.iter().map(|(key, value)| {
            let value = json_tokens(value);
            quote!(#key = #value)
        });
        args.push(quote!(extend(#(#entries),*)));
    }
    if args.is_empty() {
        return TokenStream::new();
    }
    quote!(#[schemars(#(#args),*)])
}

/// A JSON value as `json!` tokens, every string a proper Rust literal.
fn json_tokens(value: &serde_json::Value) -> TokenStream {
    use serde_json::Value as Json;
    match value {
        Json::Null => quote!(null),
        Json::Bool(b) => quote!(#b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => {
                let lit = Literal::i64_unsuffixed(i);
                quote!(#lit)
            }
            (_, Some(u), _) => {
                let lit = Literal::u64_unsuffixed(u);
                quote!(#lit)
            }
            (_, _, Some(f)) => {
                let lit = Literal::f64_unsuffixed(f);
                quote!(#lit)
            }
            _ => quote!(null),
        },
        Json::String(s) => {
            let lit = Literal::string(s);
            quote!(#lit)
        }
        Json::Array(items) => {
            let items = items.iter().map(json_tokens);
            quote!([#(#items),*])
        }
        Json::Object(entries) => {
            let entries = entries.iter().map(|(k, v)| {
                let key = Literal::string(k);
                let v = json_tokens(v);
                quote!(#key: #v)
            });
            quote!({#(#entries),*})
        }
    }
}
