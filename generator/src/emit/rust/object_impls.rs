//! The impls of a kind's object type: `new`, its `Serialize` (with apiVersion and kind
//! first) and kube's `Resource`, `HasSpec`, `HasStatus` and `CustomResourceExt`. Written
//! as text in prettyplease's layout when every line fits its width, else as tokens that
//! prettyplease lays out (past the width its breaking rules for calls and signatures apply).
//! Through tokens, syn's parser and prettyplease, the impls of every kind and version cost
//! 116 M of `generate`'s 1,923 M instructions on the corpus; as text, 102 M fewer in all
//! (issue 48, one core). A test sweeps every length that moves a line against prettyplease.

use std::fmt::Write as _;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::types;
use super::writer::Writer;
use crate::emit::EmitError;
use crate::model::Scope;

/// `crd()`'s signature: one path prettyplease cannot break, however long the line.
const CRD_SIGNATURE: &str = "fn crd() -> ::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {";

/// What the impls are written from: names as the module spells them, strings as the wire
/// has them.
#[derive(Clone)]
pub struct ObjectImpls<'a> {
    /// The object type's name.
    pub name: &'a str,
    /// `new(name, spec)`, when everything but the spec may be left out.
    pub constructor: Option<Constructor<'a>>,
    /// The kind, group, version and plural, as `Resource` gives them.
    pub kind: &'a str,
    pub group: &'a str,
    pub version: &'a str,
    pub plural: &'a str,
    pub scope: Scope,
    /// How the module names `ObjectMeta`.
    pub meta: &'a str,
    /// The spec field and the `HasSpec::Spec` type, when the object has `HasSpec`.
    pub spec: Option<(&'a str, String)>,
    /// The status field and the `HasStatus::Status` type, when the object has `HasStatus`.
    pub status: Option<(&'a str, String)>,
    /// The file module's constant holding the kind's CRD JSON.
    pub crd_const: &'a str,
    pub short_names: &'a [String],
    /// The fields `Serialize` writes after metadata, in order.
    pub fields: Vec<SerializedField<'a>>,
    /// The flattened map of unknown keys, when the root preserves them: then `Serialize`
    /// writes a map (a struct has a fixed set of fields).
    pub extra: Option<&'a str>,
}

/// What `new(name, spec)` sets: the spec, every other root field to its default.
#[derive(Clone)]
pub struct Constructor<'a> {
    /// The spec field.
    pub spec: &'a str,
    /// Whether the spec field is an `Option`.
    pub spec_optional: bool,
    /// The spec's type, without `Option`.
    pub spec_ty: String,
    /// The other root fields, all optional.
    pub others: Vec<&'a str>,
}

/// An impl as text, and the tokens to write instead when the text does not fit, made only
/// then.
type Item<'s> = (String, Box<dyn FnOnce() -> TokenStream + 's>);

/// A root field as `Serialize` writes it.
#[derive(Clone, Copy)]
pub struct SerializedField<'a> {
    pub ident: &'a str,
    pub wire: &'a str,
    /// Left out when `None`.
    pub skips_none: bool,
}

impl ObjectImpls<'_> {
    /// The impls into `writer`, each as text when it fits, else as tokens.
    pub fn write(&self, writer: &mut Writer) -> Result<(), EmitError> {
        for (text, tokens) in self.items(writer.indent()) {
            if !writer.item_if_it_fits(&text, &[CRD_SIGNATURE]) {
                writer.tokens(tokens())?;
            }
        }
        Ok(())
    }

    /// The impls the object has, in their order, for an item `indent` columns deep.
    fn items(&self, indent: usize) -> impl Iterator<Item = Item<'_>> {
        [
            self.constructor(),
            Some(self.item(self.serialize_text(indent), Self::serialize_tokens)),
            Some(self.item(self.resource_text(), Self::resource_tokens)),
            self.has_spec(),
            self.has_status(),
            Some(self.item(self.crd_ext_text(), Self::crd_ext_tokens)),
        ]
        .into_iter()
        .flatten()
    }

    fn item<'s>(&'s self, text: String, tokens: fn(&Self) -> TokenStream) -> Item<'s> {
        (text, Box::new(move || tokens(self)))
    }

    fn scope_path(&self) -> &'static str {
        match self.scope {
            Scope::Namespaced => "::k8s_openapi::NamespaceResourceScope",
            Scope::Cluster => "::k8s_openapi::ClusterResourceScope",
        }
    }

    fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }

    /// `new`, when the object has it. The doc is a line prettyplease never breaks; past the
    /// width the text is not taken all the same (the tokens give the same doc line).
    fn constructor(&self) -> Option<Item<'_>> {
        let constructor = self.constructor.as_ref()?;
        let (spec, ty) = (constructor.spec, &constructor.spec_ty);
        let mut text = String::with_capacity(512);
        let _ = write!(
            text,
            "impl {name} {{\n    /// A {name} named `name` with `spec`, the rest empty.\n    \
             #[allow(dead_code)]\n    pub fn new(name: &str, {spec}: {ty}) -> Self {{\n        \
             Self {{\n            metadata: {meta} {{\n                \
             name: ::core::option::Option::Some(name.to_owned()),\n                \
             ..::core::default::Default::default()\n            }},\n",
            name = self.name,
            meta = self.meta,
        );
        if constructor.spec_optional {
            let _ = writeln!(
                text,
                "            {spec}: ::core::option::Option::Some({spec}),"
            );
        } else {
            let _ = writeln!(text, "            {spec},");
        }
        for other in constructor.others.iter().copied().chain(self.extra) {
            let _ = writeln!(
                text,
                "            {other}: ::core::default::Default::default(),"
            );
        }
        text.push_str("        }\n    }\n}\n");

        let tokens = move || {
            let (name, meta) = (types::tokens(self.name), types::tokens(self.meta));
            let spec_ident = types::tokens(spec);
            let spec_ty = types::tokens(ty);
            let spec_value = if constructor.spec_optional {
                quote!(#spec_ident: ::core::option::Option::Some(#spec_ident),)
            } else {
                quote!(#spec_ident,)
            };
            let others = constructor.others.iter().copied().chain(self.extra).map(|other| {
                let ident = types::tokens(other);
                quote!(#ident: ::core::default::Default::default(),)
            });
            let doc = format!(" A {} named `name` with `spec`, the rest empty.", self.name);
            quote! {
                impl #name {
                    #[doc = #doc]
                    // API for the user, who may never call it: no warning where the file is
                    // included in a private module (issue 37, item 9).
                    #[allow(dead_code)]
                    pub fn new(name: &str, #spec_ident: #spec_ty) -> Self {
                        Self {
                            metadata: #meta {
                                name: ::core::option::Option::Some(name.to_owned()),
                                ..::core::default::Default::default()
                            },
                            #spec_value
                            #(#others)*
                        }
                    }
                }
            }
        };
        Some((text, Box::new(tokens)))
    }

    /// How `Serialize` puts an entry and what it does for a `None` it leaves out.
    fn put_and_skip(&self) -> (&'static str, Option<&'static str>) {
        if self.extra.is_some() {
            ("serialize_entry", None)
        } else {
            ("serialize_field", Some("state.skip_field"))
        }
    }

    /// `Serialize` as text for an item `indent` columns deep: a `match` arm on one line when
    /// it fits, else its expression in a block, as prettyplease writes it.
    fn serialize_text(&self, indent: usize) -> String {
        let (put, skip) = self.put_and_skip();
        let kind = Literal::string(self.kind);
        let mut text = String::with_capacity(1024);
        let _ = write!(
            text,
            "impl ::serde::Serialize for {name} {{\n    fn serialize<S: ::serde::Serializer>(\n        \
             &self,\n        serializer: S,\n    ) -> ::core::result::Result<S::Ok, S::Error> {{\n",
            name = self.name
        );
        if self.extra.is_some() {
            text.push_str(
                "        use ::serde::ser::SerializeMap as _;\n        \
                 let mut state = serializer.serialize_map(::core::option::Option::None)?;\n",
            );
        } else {
            let _ = write!(
                text,
                "        use ::serde::ser::SerializeStruct as _;\n        \
                 let mut state = serializer.serialize_struct({kind}, {})?;\n",
                self.fields.len() + 3
            );
        }
        let _ = write!(
            text,
            "        state.{put}(\"apiVersion\", {})?;\n        state.{put}(\"kind\", {kind})?;\n        \
             state.{put}(\"metadata\", &self.metadata)?;\n",
            Literal::string(&self.api_version())
        );
        let arm_width = super::writer::space(indent + 12);
        let arm = |text: &mut String, pattern: &str, expr: &str| {
            // The arm's comma does not count: prettyplease lets it pass the width.
            if pattern.len() + " => ".len() + expr.len() <= arm_width {
                let _ = writeln!(text, "            {pattern} => {expr},");
            } else {
                let _ = writeln!(
                    text,
                    "            {pattern} => {{\n                {expr}\n            }}"
                );
            }
        };
        for field in &self.fields {
            let wire = Literal::string(field.wire);
            if field.skips_none {
                let _ = writeln!(text, "        match &self.{} {{", field.ident);
                arm(
                    &mut text,
                    "::core::option::Option::Some(value)",
                    &format!("state.{put}({wire}, value)?"),
                );
                match skip {
                    Some(skip) => arm(
                        &mut text,
                        "::core::option::Option::None",
                        &format!("{skip}({wire})?"),
                    ),
                    // prettyplease prints the arm's `()` as an empty block.
                    None => text.push_str("            ::core::option::Option::None => {}\n"),
                }
                text.push_str("        }\n");
            } else {
                let _ = writeln!(text, "        state.{put}({wire}, &self.{})?;", field.ident);
            }
        }
        if let Some(extra) = self.extra {
            let _ = writeln!(
                text,
                "        for (key, value) in &self.{extra} {{\n            \
                 state.serialize_entry(key, value)?;\n        }}"
            );
        }
        text.push_str("        state.end()\n    }\n}\n");
        text
    }

    fn serialize_tokens(&self) -> TokenStream {
        let name = types::tokens(self.name);
        let api_version = self.api_version();
        let kind_name = self.kind;
        let (put, skip) = self.put_and_skip();
        let put = types::tokens(put);
        let skip = skip.map(types::tokens);
        let serialize_fields = self.fields.iter().map(|f| {
            let ident = types::tokens(f.ident);
            let wire = f.wire;
            if f.skips_none {
                let none = match &skip {
                    Some(skip) => quote!(#skip(#wire)?),
                    None => quote!(()),
                };
            quote! {
                    match &self.#ident {
                        ::core::option::Option::Some(value) => state.#put(#wire, value)?,
                        ::core::option::Option::None => #none,
                    }
                }
            } else {
                quote!(state.#put(#wire, &self.#ident)?;)
            }
        });
        let len = Literal::usize_unsuffixed(self.fields.len() + 3);
        match self.extra.map(types::tokens) {
            None => quote! {
                impl ::serde::Serialize for #name {
                    fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                        use ::serde::ser::SerializeStruct as _;
                        let mut state = serializer.serialize_struct(#kind_name, #len)?;
                        state.serialize_field("apiVersion", #api_version)?;
                        state.serialize_field("kind", #kind_name)?;
                        state.serialize_field("metadata", &self.metadata)?;
                        #(#serialize_fields)*
                        state.end()
                    }
                }
            },
            Some(extra) => quote! {
                impl ::serde::Serialize for #name {
                    fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                        use ::serde::ser::SerializeMap as _;
                        let mut state = serializer.serialize_map(::core::option::Option::None)?;
                        state.serialize_entry("apiVersion", #api_version)?;
                        state.serialize_entry("kind", #kind_name)?;
                        state.serialize_entry("metadata", &self.metadata)?;
                        #(#serialize_fields)*
                        for (key, value) in &self.#extra {
                            state.serialize_entry(key, value)?;
                        }
                        state.end()
                    }
                }
            },
        }
    }

    fn resource_text(&self) -> String {
        let mut text = String::with_capacity(1024);
        let _ = writeln!(text, "impl ::kube::core::Resource for {} {{", self.name);
        text.push_str("    type DynamicType = ();\n");
        let _ = writeln!(text, "    type Scope = {};", self.scope_path());
        for (function, value) in [
            ("kind", self.kind),
            ("group", self.group),
            ("version", self.version),
            ("api_version", &self.api_version()),
            ("plural", self.plural),
        ] {
            let _ = writeln!(
                text,
                "    fn {function}(_: &()) -> ::std::borrow::Cow<'_, str> {{\n        \
                 ::std::borrow::Cow::Borrowed({})\n    }}",
                Literal::string(value)
            );
        }
        let _ = writeln!(
            text,
            "    fn meta(&self) -> &{meta} {{\n        &self.metadata\n    }}\n    \
             fn meta_mut(&mut self) -> &mut {meta} {{\n        &mut self.metadata\n    }}\n}}",
            meta = self.meta
        );
        text
    }

    fn resource_tokens(&self) -> TokenStream {
        let name = types::tokens(self.name);
        let meta = types::tokens(self.meta);
        let scope = types::tokens(self.scope_path());
        let (kind, group, version, plural) = (self.kind, self.group, self.version, self.plural);
        let api_version = self.api_version();
        quote! {
            impl ::kube::core::Resource for #name {
                type DynamicType = ();
                type Scope = #scope;
                fn kind(_: &()) -> ::std::borrow::Cow<'_, str> {
                    ::std::borrow::Cow::Borrowed(#kind)
                }
                fn group(_: &()) -> ::std::borrow::Cow<'_, str> {
                    ::std::borrow::Cow::Borrowed(#group)
                }
                fn version(_: &()) -> ::std::borrow::Cow<'_, str> {
                    ::std::borrow::Cow::Borrowed(#version)
                }
                fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> {
                    ::std::borrow::Cow::Borrowed(#api_version)
                }
                fn plural(_: &()) -> ::std::borrow::Cow<'_, str> {
                    ::std::borrow::Cow::Borrowed(#plural)
                }
                fn meta(&self) -> &#meta {
                    &self.metadata
                }
                fn meta_mut(&mut self) -> &mut #meta {
                    &mut self.metadata
                }
            }
        }
    }

    /// `HasSpec`, when the object has it (an optional spec is `Spec = Option<...>`: absent
    /// stays absent).
    fn has_spec(&self) -> Option<Item<'_>> {
        let (field, ty) = self.spec.as_ref()?;
        let text = format!(
            "impl ::kube::core::object::HasSpec for {name} {{\n    type Spec = {ty};\n    \
             fn spec(&self) -> &Self::Spec {{\n        &self.{field}\n    }}\n    \
             fn spec_mut(&mut self) -> &mut Self::Spec {{\n        &mut self.{field}\n    }}\n}}\n",
            name = self.name,
        );
        let tokens = move || {
            let (name, field, ty) = (
                types::tokens(self.name),
                types::tokens(field),
                types::tokens(ty),
            );
            quote! {
                impl ::kube::core::object::HasSpec for #name {
                    type Spec = #ty;
                    fn spec(&self) -> &Self::Spec {
                        &self.#field
                    }
                    fn spec_mut(&mut self) -> &mut Self::Spec {
                        &mut self.#field
                    }
                }
            }
        };
        Some((text, Box::new(tokens)))
    }

    /// `HasStatus`, when the object has it (an optional status that is not nullable).
    fn has_status(&self) -> Option<Item<'_>> {
        let (field, ty) = self.status.as_ref()?;
        let text = format!(
            "impl ::kube::core::object::HasStatus for {name} {{\n    type Status = {ty};\n    \
             fn status(&self) -> ::core::option::Option<&Self::Status> {{\n        \
             self.{field}.as_ref()\n    }}\n    \
             fn status_mut(&mut self) -> &mut ::core::option::Option<Self::Status> {{\n        \
             &mut self.{field}\n    }}\n}}\n",
            name = self.name,
        );
        let tokens = move || {
            let (name, field, ty) = (
                types::tokens(self.name),
                types::tokens(field),
                types::tokens(ty),
            );
            quote! {
                impl ::kube::core::object::HasStatus for #name {
                    type Status = #ty;
                    fn status(&self) -> ::core::option::Option<&Self::Status> {
                        self.#field.as_ref()
                    }
                    fn status_mut(&mut self) -> &mut ::core::option::Option<Self::Status> {
                        &mut self.#field
                    }
                }
            }
        };
        Some((text, Box::new(tokens)))
    }

    fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    fn crd_ext_text(&self) -> String {
        let mut short_names = String::new();
        for (i, short) in self.short_names.iter().enumerate() {
            if i > 0 {
                short_names.push_str(", ");
            }
            let _ = write!(short_names, "{}", Literal::string(short));
        }
        format!(
            "impl ::kube::core::crd::v1::CustomResourceExt for {name} {{\n    {CRD_SIGNATURE}\n        \
             ::kondition::crd::version_from_json(super::{crd_const}, {version})\n    }}\n    \
             fn crd_name() -> &'static str {{\n        {crd_name}\n    }}\n    \
             fn api_resource() -> ::kube::core::discovery::ApiResource {{\n        \
             ::kube::core::discovery::ApiResource::erase::<Self>(&())\n    }}\n    \
             fn shortnames() -> &'static [&'static str] {{\n        &[{short_names}]\n    }}\n}}\n",
            name = self.name,
            crd_const = self.crd_const,
            version = Literal::string(self.version),
            crd_name = Literal::string(&self.crd_name()),
        )
    }

    fn crd_ext_tokens(&self) -> TokenStream {
        let name = types::tokens(self.name);
        let crd_const = types::tokens(self.crd_const);
        let crd_name = self.crd_name();
        let (version, short_names) = (self.version, self.short_names);
        quote! {
            impl ::kube::core::crd::v1::CustomResourceExt for #name {
                fn crd() -> ::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                    ::kondition::crd::version_from_json(super::#crd_const, #version)
                }
                fn crd_name() -> &'static str {
                    #crd_name
                }
                fn api_resource() -> ::kube::core::discovery::ApiResource {
                    ::kube::core::discovery::ApiResource::erase::<Self>(&())
                }
                fn shortnames() -> &'static [&'static str] {
                    &[#(#short_names),*]
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The impls as text and as tokens, at `depth` modules deep: equal whenever the text is
    /// taken. Returns how many were.
    fn text_is_prettyplease(impls: &ObjectImpls, depth: usize) -> usize {
        let mut texts = 0;
        for (text, tokens) in impls.items(depth * 4) {
            let mut ours = Writer::new(depth * 4);
            if !ours.item_if_it_fits(&text, &[CRD_SIGNATURE]) {
                continue;
            }
            let mut theirs = Writer::new(depth * 4);
            theirs.tokens(tokens()).expect("formats");
            assert_eq!(ours.finish(), theirs.finish(), "depth {depth}");
            texts += 1;
        }
        texts
    }

    /// Every input whose length moves a line of the impls, one at a time from lengths past
    /// prettyplease's width down to one character, at every depth a generated module has
    /// (and deeper), namespaced and not, with and without spec and status: wherever the
    /// text is written, it is prettyplease's layout to the byte.
    #[test]
    fn impls_as_text_are_prettyplease_layout_at_every_length() {
        let word = |c: &str, len: usize| format!("{c}{}", "x".repeat(len.saturating_sub(1)));
        let base_short = vec!["pr".to_owned(), "prs".to_owned()];
        let mut taken = 0;
        let mut left_to_tokens = 0;
        for len in 1..=110 {
            let long = word("L", len);
            let lower = word("l", len);
            let option = format!("Option<{long}>");
            let shorts: Vec<String> = (0..len / 4).map(|i| word("s", 1 + i % 6)).collect();
            let short_long = vec![lower.clone()];
            let meta_path = format!("k8s_openapi::{lower}::ObjectMeta");
            let constructor = Constructor {
                spec: "spec",
                spec_optional: true,
                spec_ty: "PipelineRunSpec".to_owned(),
                others: vec!["status"],
            };
            let base = ObjectImpls {
                name: "PipelineRun",
                constructor: Some(constructor.clone()),
                kind: "PipelineRun",
                group: "tekton.dev",
                version: "v1beta1",
                plural: "pipelineruns",
                scope: Scope::Namespaced,
                meta: "ObjectMeta",
                spec: Some(("spec", "Option<PipelineRunSpec>".to_owned())),
                status: Some(("status", "PipelineRunStatus".to_owned())),
                crd_const: "PIPELINE_RUN_CRD",
                short_names: &base_short,
                fields: vec![
                    SerializedField {
                        ident: "spec",
                        wire: "spec",
                        skips_none: true,
                    },
                    SerializedField {
                        ident: "status",
                        wire: "status",
                        skips_none: true,
                    },
                ],
                extra: None,
            };
            let field_names: Vec<(String, String)> = (0..4)
                .map(|i| (format!("{}{i}", word("f", len)), format!("{}{i}", word("w", len))))
                .collect();
            let fields: Vec<SerializedField> = field_names
                .iter()
                .enumerate()
                .map(|(i, (ident, wire))| SerializedField {
                    ident,
                    wire,
                    skips_none: i % 2 == 0,
                })
                .collect();
            let upper = long.to_uppercase();
            let variants = [
                ObjectImpls {
                    name: &long,
                    kind: &long,
                    ..base.clone()
                },
                ObjectImpls {
                    group: &lower,
                    ..base.clone()
                },
                ObjectImpls {
                    version: &lower,
                    ..base.clone()
                },
                ObjectImpls {
                    plural: &lower,
                    ..base.clone()
                },
                ObjectImpls {
                    meta: &meta_path,
                    scope: Scope::Cluster,
                    ..base.clone()
                },
                ObjectImpls {
                    spec: Some(("r#spec", long.clone())),
                    status: Some(("status", option.clone())),
                    ..base.clone()
                },
                ObjectImpls {
                    spec: Some(("spec", option.clone())),
                    status: None,
                    ..base.clone()
                },
                ObjectImpls {
                    spec: None,
                    status: Some(("status", long.clone())),
                    ..base.clone()
                },
                ObjectImpls {
                    crd_const: &upper,
                    ..base.clone()
                },
                ObjectImpls {
                    short_names: &shorts,
                    ..base.clone()
                },
                ObjectImpls {
                    short_names: &short_long,
                    ..base.clone()
                },
                ObjectImpls {
                    fields: fields.clone(),
                    ..base.clone()
                },
                ObjectImpls {
                    fields: fields.clone(),
                    extra: Some("extra"),
                    ..base.clone()
                },
                ObjectImpls {
                    extra: Some(&lower),
                    ..base.clone()
                },
                ObjectImpls {
                    constructor: Some(Constructor {
                        spec: "r#spec",
                        spec_optional: false,
                        spec_ty: long.clone(),
                        others: vec![&lower, "status"],
                    }),
                    ..base.clone()
                },
                ObjectImpls {
                    constructor: Some(Constructor {
                        spec_ty: option.clone(),
                        others: vec![],
                        ..constructor.clone()
                    }),
                    extra: Some("extra"),
                    ..base.clone()
                },
            ];
            for impls in &variants {
                for depth in [0, 1, 2, 3, 8] {
                    let items = 3
                        + usize::from(impls.constructor.is_some())
                        + usize::from(impls.spec.is_some())
                        + usize::from(impls.status.is_some());
                    let texts = text_is_prettyplease(impls, depth);
                    taken += texts;
                    left_to_tokens += items - texts;
                }
            }
        }
        // Both ways are exercised: the shorter lengths fit, the longest do not.
        assert!(taken > left_to_tokens, "{taken} as text, {left_to_tokens} as tokens");
        assert!(left_to_tokens > 1000, "{left_to_tokens} as tokens");
    }
}
