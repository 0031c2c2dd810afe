//! Code generation from the model: the condition type enum, the accessors, the apply
//! configuration, and the `KubeStatus` and `StatusResource` impls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{ApplyField, FieldKind, StandardBlock, Status};

/// Everything the derive writes for one status struct.
pub fn expand(status: &Status) -> TokenStream {
    let condition_enum = condition_type_enum(status);
    let accessors = accessors(status);
    let apply = apply_configuration(status);
    let kube_status = kube_status_impl(status);
    let status_resource = status_resource_impl(status);
    quote! {
        #condition_enum
        #accessors
        #apply
        #kube_status
        #status_resource
    }
}

fn enum_ident(status: &Status) -> syn::Ident {
    format_ident!("{}{}", status.ident, kondition_names::CONDITION_TYPE_SUFFIX)
}

fn apply_ident(status: &Status) -> syn::Ident {
    format_ident!("{}{}", status.ident, kondition_names::APPLY_SUFFIX)
}

fn condition_type_enum(status: &Status) -> TokenStream {
    let vis = &status.vis;
    let ident = enum_ident(status);
    let doc = format!("The condition types `{}` declares.", status.ident);
    let variants: Vec<_> = status.condition_types.iter().map(|t| &t.variant).collect();
    let names: Vec<_> = status.condition_types.iter().map(|t| &t.name).collect();
    let variant_docs = names.iter().map(|name| format!("`{name}`"));
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #vis enum #ident {
            #( #[doc = #variant_docs] #variants, )*
        }

        impl #ident {
            /// Every declared condition type, in declaration order.
            pub const ALL: &'static [Self] = &[#(Self::#variants),*];

            /// The condition type as it appears on the wire.
            #[inline]
            pub const fn as_str(self) -> &'static str {
                match self {
                    #( Self::#variants => #names, )*
                }
            }
        }

        impl ::core::convert::From<#ident> for ::std::string::String {
            #[inline]
            fn from(value: #ident) -> Self {
                ::std::string::String::from(value.as_str())
            }
        }
    }
}

/// The body of a function that reads or writes the standard block's fields.
///
/// A struct whose block is missing a field or has one of another type has had its error
/// reported, so its code never becomes a program: it keeps the impls' signatures, with
/// bodies that do not touch the fields, only so that the user's calls of them give no
/// error after the one that matters.
fn with_block(status: &Status, body: impl FnOnce(&StandardBlock) -> TokenStream) -> TokenStream {
    status
        .block
        .as_ref()
        .map_or_else(|| quote!(::core::unreachable!()), body)
}

fn set_observed_generation_body(status: &Status) -> TokenStream {
    let krate = &status.krate;
    with_block(status, |block| match &block.observed_generation {
        Some(field) if field.optional => {
            let field = &field.ident;
            quote!(self.#field = ::core::option::Option::Some(generation);)
        }
        Some(field) => {
            let field = &field.ident;
            quote!(self.#field = generation;)
        }
        // Kept nowhere: nothing to set.
        None if status.shape.generation_nowhere => quote!(let _ = generation;),
        // Kept on the conditions: the summary's says which generation the status reflects.
        None => {
            let present = conditions_access(status, block).present;
            quote! {
                let summary = <Self as #krate::KubeStatus>::PROFILE.summary;
                if let ::core::option::Option::Some(conditions) = #present {
                    if let ::core::option::Option::Some(mut condition) = conditions.get(summary).cloned() {
                        condition.observed_generation = ::core::option::Option::Some(generation);
                        conditions.set(condition);
                    }
                }
            }
        }
    })
}

/// `const SHAPE` when the status is not the standard one's shape.
fn shape_const(status: &Status) -> TokenStream {
    let shape = &status.shape;
    if shape.is_standard() {
        return TokenStream::new();
    }
    let krate = &status.krate;
    let generation = if shape.generation_on_conditions {
        format_ident!("Conditions")
    } else if shape.generation_nowhere {
        format_ident!("None")
    } else {
        format_ident!("Status")
    };
    let [reason, message, last_transition_time] = shape
        .metav1_fields
        .map(|presence| format_ident!("{presence}"));
    let merge = if shape.atomic {
        format_ident!("Atomic")
    } else {
        format_ident!("ByType")
    };
    let severity = !shape.without_severity;
    // A status that keeps the generation nowhere keeps none on its conditions either.
    let observed_generation = !shape.without_observed_generation && !shape.generation_nowhere;
    quote! {
        const SHAPE: #krate::StatusShape = #krate::StatusShape {
            generation: #krate::shape::GenerationField::#generation,
            merge: #krate::shape::ConditionsMerge::#merge,
            fields: #krate::shape::ConditionFields {
                severity: #severity,
                observed_generation: #observed_generation,
                reason: #krate::shape::Presence::#reason,
                message: #krate::shape::Presence::#message,
                last_transition_time: #krate::shape::Presence::#last_transition_time,
            },
        };
    }
}

/// How the generated code reaches the conditions list, held as `Conditions` or as
/// `Option<Conditions>` (absent on the wire when `None`), from `&self` or `&mut self`.
struct ConditionsAccess {
    /// A `&Conditions`, empty when the list is absent.
    read: TokenStream,
    /// A `&mut Conditions`, inserted empty when the list is absent.
    write: TokenStream,
    /// An `Option<&mut Conditions>`, `None` when the list is absent (so removing from it
    /// leaves it absent).
    present: TokenStream,
}

fn conditions_access(status: &Status, block: &StandardBlock) -> ConditionsAccess {
    let krate = &status.krate;
    let field = &block.conditions.ident;
    if block.conditions.optional {
        ConditionsAccess {
            read: quote! {
                match &self.#field {
                    ::core::option::Option::Some(conditions) => conditions,
                    ::core::option::Option::None => {
                        static EMPTY: #krate::Conditions = #krate::Conditions::new();
                        &EMPTY
                    }
                }
            },
            write: quote!(self.#field.get_or_insert_with(#krate::Conditions::new)),
            present: quote!(self.#field.as_mut()),
        }
    } else {
        ConditionsAccess {
            read: quote!(&self.#field),
            write: quote!(&mut self.#field),
            present: quote!(::core::option::Option::Some(&mut self.#field)),
        }
    }
}

fn accessors(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let ident = &status.ident;
    let set_generation = set_observed_generation_body(status);
    let methods = status.condition_types.iter().map(|t| {
        let name = &t.name;
        let get = kondition_names::ident(&t.method_stem, t.span);
        let is = format_ident!("is_{}", t.method_stem, span = t.span);
        let set = format_ident!("set_{}", t.method_stem, span = t.span);
        let remove = format_ident!("remove_{}", t.method_stem, span = t.span);
        let get_doc = format!("The `{name}` condition, if present.");
        let is_doc = format!("Whether the `{name}` condition is present and True.");
        let set_doc = format!(
            "Stores `condition` as the `{name}` condition (its type is set to `{name}`), by the rules of `Conditions::set`: lastTransitionTime moves only on a change, the message is bounded."
        );
        let remove_doc = format!("Removes the `{name}` condition and returns it.");
        let remove_body = with_block(status, |block| {
            let present = conditions_access(status, block).present;
            quote! {
                match #present {
                    ::core::option::Option::Some(conditions) => conditions.remove(#name),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            }
        });
        quote! {
            #[doc = #get_doc]
            #[inline]
            pub fn #get(&self) -> ::core::option::Option<&#krate::Condition> {
                #krate::KubeStatus::conditions(self).get(#name)
            }

            #[doc = #is_doc]
            #[inline]
            pub fn #is(&self) -> bool {
                #krate::KubeStatus::conditions(self).is_true(#name)
            }

            #[doc = #set_doc]
            #[inline]
            pub fn #set(&mut self, condition: #krate::Condition) -> #krate::SetOutcome {
                #krate::KubeStatus::conditions_mut(self).set(condition.with_type(#name))
            }

            #[doc = #remove_doc]
            #[inline]
            pub fn #remove(&mut self) -> ::core::option::Option<#krate::Condition> {
                #remove_body
            }
        }
    });
    quote! {
        impl #ident {
            /// Sets `status.observedGeneration`, normally to `metadata.generation` once a
            /// reconcile has acted on it.
            #[inline]
            pub fn set_observed_generation(&mut self, generation: i64) {
                #set_generation
            }

            #(#methods)*
        }
    }
}

fn apply_field_ty(field: &ApplyField) -> TokenStream {
    let inner = &field.inner_ty;
    quote!(::core::option::Option<#inner>)
}

fn apply_configuration(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let vis = &status.vis;
    let ident = apply_ident(status);
    let doc = format!(
        "The apply configuration of `{}`: every field optional and omitted when unset, so a server-side apply body holds exactly the fields its field manager owns.",
        status.ident
    );
    let flattened = status
        .fields
        .iter()
        .any(|f| matches!(f.kind, FieldKind::Flatten));
    // serde's derive is needed only to flatten; otherwise a direct impl builds faster.
    let (derive_serialize, serialize_impl) = if flattened {
        (
            quote!(#krate::__private::serde::Serialize,),
            serialize_with_serde_derive(status),
        )
    } else {
        (TokenStream::new(), serialize_by_hand(status))
    };
    let fields = status.fields.iter().map(|field| {
        let field_ident = &field.ident;
        let field_vis = &field.vis;
        let ty = apply_field_ty(field);
        let wire = &field.wire_name;
        let serde_attr = flattened.then(|| serde_field_attr(&ident, field));
        let field_doc = format!("`{wire}`");
        quote! {
            #[doc = #field_doc]
            #serde_attr
            #field_vis #field_ident: #ty,
        }
    });
    let serde_container_attr = flattened.then(|| {
        let serde = format!("{}::__private::serde", quote!(#krate)).replace(' ', "");
        quote!(#[serde(crate = #serde)])
    });
    let builders = status.fields.iter().map(|field| {
        let field_ident = &field.ident;
        let builder = format_ident!("with_{}", syn::ext::IdentExt::unraw(field_ident));
        let inner = &field.inner_ty;
        let builder_doc = format!("Sets `{}`.", field.wire_name);
        quote! {
            #[doc = #builder_doc]
            #[must_use]
            #[inline]
            pub fn #builder(mut self, value: impl ::core::convert::Into<#inner>) -> Self {
                self.#field_ident = ::core::option::Option::Some(value.into());
                self
            }
        }
    });
    let has_condition_field = status
        .fields
        .iter()
        .any(|f| syn::ext::IdentExt::unraw(&f.ident) == "condition");
    let with_condition = status.block.as_ref().filter(|_| !has_condition_field).map(|block| {
        let conditions = &block.conditions.ident;
        quote! {
            /// Adds one condition (by the rules of `Conditions::set`), keeping the others.
            #[must_use]
            #[inline]
            pub fn with_condition(mut self, condition: #krate::Condition) -> Self {
                self.#conditions.get_or_insert_with(::core::default::Default::default).set(condition);
                self
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default, PartialEq, #derive_serialize)]
        #serde_container_attr
        #vis struct #ident {
            #(#fields)*
        }

        impl #ident {
            #(#builders)*
            #with_condition
        }

        #serialize_impl
    }
}

/// `Serialize` written out: each set field under its wire name, unset ones skipped.
fn serialize_by_hand(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let ident = apply_ident(status);
    let name = ident.to_string();
    let serde = quote!(#krate::__private::serde);
    let count = status.fields.iter().map(|field| {
        let field_ident = &field.ident;
        quote!(usize::from(self.#field_ident.is_some()))
    });
    let entries = status.fields.iter().map(|field| {
        let field_ident = &field.ident;
        let wire = &field.wire_name;
        let serialize = match &field.kind {
            FieldKind::SerializeWith(path) => {
                let inner = &field.inner_ty;
                quote! {{
                    struct With<'a>(&'a #inner);
                    impl #serde::Serialize for With<'_> {
                        fn serialize<S: #serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                            #path(self.0, serializer)
                        }
                    }
                    #serde::ser::SerializeStruct::serialize_field(&mut state, #wire, &With(value))?
                }}
            }
            _ => quote!(#serde::ser::SerializeStruct::serialize_field(&mut state, #wire, value)?),
        };
        quote! {
            match &self.#field_ident {
                ::core::option::Option::Some(value) => #serialize,
                ::core::option::Option::None => #serde::ser::SerializeStruct::skip_field(&mut state, #wire)?,
            }
        }
    });
    quote! {
        impl #serde::Serialize for #ident {
            fn serialize<S: #serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                let len = 0 #(+ #count)*;
                let mut state = serializer.serialize_struct(#name, len)?;
                #(#entries)*
                #serde::ser::SerializeStruct::end(state)
            }
        }
    }
}

/// The field attribute for serde's derive (used when a field is flattened).
fn serde_field_attr(apply: &syn::Ident, field: &ApplyField) -> TokenStream {
    let wire = &field.wire_name;
    match &field.kind {
        FieldKind::Flatten => quote!(#[serde(flatten)]),
        FieldKind::SerializeWith(_) => {
            let helper = format!("{apply}::{}", serialize_with_ident(field));
            quote!(#[serde(rename = #wire, skip_serializing_if = "::core::option::Option::is_none", serialize_with = #helper)])
        }
        _ => {
            quote!(#[serde(rename = #wire, skip_serializing_if = "::core::option::Option::is_none")])
        }
    }
}

fn serialize_with_ident(field: &ApplyField) -> syn::Ident {
    format_ident!(
        "__kondition_serialize_{}",
        syn::ext::IdentExt::unraw(&field.ident)
    )
}

/// For serde's derive: the helpers `serialize_with` points at, one per custom-serialized
/// field, serializing `Some(value)` with the field's own function.
fn serialize_with_serde_derive(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let ident = apply_ident(status);
    let helpers = status.fields.iter().filter_map(|field| {
        let FieldKind::SerializeWith(path) = &field.kind else {
            return None;
        };
        let helper = serialize_with_ident(field);
        let ty = apply_field_ty(field);
        Some(quote! {
            #[doc(hidden)]
            fn #helper<S: #krate::__private::serde::Serializer>(
                value: &#ty,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                match value {
                    ::core::option::Option::Some(value) => #path(value, serializer),
                    ::core::option::Option::None => serializer.serialize_none(),
                }
            }
        })
    });
    quote! {
        impl #ident {
            #(#helpers)*
        }
    }
}

fn kube_status_impl(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let ident = &status.ident;
    let apply = apply_ident(status);
    let read = with_block(status, |block| conditions_access(status, block).read);
    let write = with_block(status, |block| conditions_access(status, block).write);
    let get_generation = with_block(status, |block| match &block.observed_generation {
        Some(field) if field.optional => {
            let field = &field.ident;
            quote!(self.#field)
        }
        Some(field) => {
            let field = &field.ident;
            quote!(::core::option::Option::Some(self.#field))
        }
        None if status.shape.generation_nowhere => quote!(::core::option::Option::None),
        None => quote! {
            #krate::KubeStatus::conditions(self)
                .get(<Self as #krate::KubeStatus>::PROFILE.summary)
                .and_then(|condition| condition.observed_generation)
        },
    });
    let shape = shape_const(status);
    let names = status.condition_types.iter().map(|t| &t.name);
    let profile = profile_const(status);
    let to_apply = with_block(status, |_| {
        let fields = status.fields.iter().map(|field| {
            let field_ident = &field.ident;
            match field.kind {
                FieldKind::Optional => quote!(#field_ident: ::core::clone::Clone::clone(&self.#field_ident)),
                _ => quote!(#field_ident: ::core::option::Option::Some(::core::clone::Clone::clone(&self.#field_ident))),
            }
        });
        quote!(#apply { #(#fields,)* })
    });
    let conditions_apply = with_block(status, |block| {
        let conditions = &block.conditions.ident;
        quote! {
            #apply {
                #conditions: ::core::option::Option::Some(conditions),
                ..::core::default::Default::default()
            }
        }
    });
    let required = required_const(status);
    quote! {
        impl #krate::KubeStatus for #ident {
            type Apply = #apply;

            const CONDITION_TYPES: &'static [&'static str] = &[#(#names),*];

            const PROFILE: #krate::profile::Profile = #profile;

            #shape

            #required

            #[inline]
            fn conditions(&self) -> &#krate::Conditions {
                #read
            }

            #[inline]
            fn conditions_mut(&mut self) -> &mut #krate::Conditions {
                #write
            }

            #[inline]
            fn observed_generation(&self) -> ::core::option::Option<i64> {
                #get_generation
            }

            #[inline]
            fn set_observed_generation(&mut self, generation: i64) {
                #ident::set_observed_generation(self, generation);
            }

            #[inline]
            fn to_apply(&self) -> #apply {
                #to_apply
            }

            #[inline]
            fn conditions_apply(conditions: #krate::Conditions) -> #apply {
                #conditions_apply
            }
        }
    }
}

/// `const REQUIRED_FIELDS` when the CRD requires fields beside the standard block.
fn required_const(status: &Status) -> TokenStream {
    let names: Vec<&str> = status
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.wire_name.as_str())
        .collect();
    if names.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const REQUIRED_FIELDS: &'static [&'static str] = &[#(#names),*];
    }
}

/// The runtime's profile constant named by `profile = "..."` (`CUSTOM` without one), with
/// `summary`, `success_reason` and `transition_rule` put over it.
fn profile_const(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let base = status.profile.as_ref().map_or_else(
        || format_ident!("CUSTOM"),
        |name| format_ident!("{}", name.value().to_uppercase(), span = name.span()),
    );
    let base = quote!(#krate::profile::#base);
    if status.summary.is_none()
        && status.success_reason.is_none()
        && status.transition_rule.is_none()
    {
        return base;
    }
    let summary = status.summary.as_ref().map(|s| quote!(summary: #s,));
    let success_reason = status
        .success_reason
        .as_ref()
        .map(|r| quote!(success_reason: #r,));
    let transition_rule = status
        .transition_rule
        .as_ref()
        .map(|rule| quote!(transition_rule: #krate::TransitionRule::#rule,));
    quote! {
        #krate::profile::Profile {
            #summary
            #success_reason
            #transition_rule
            ..#base
        }
    }
}

fn status_resource_impl(status: &Status) -> TokenStream {
    let krate = &status.krate;
    let Some(resource) = &status.resource else {
        return TokenStream::new();
    };
    let ident = &status.ident;
    let field_owner = status.field_owner.as_ref().map(|owner| {
        quote! {
            #[inline]
            fn field_owner() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#owner)
            }
        }
    });
    // Written only for a kind without one: the trait's default says it has one.
    let status_subresource = (!status.status_subresource).then(|| {
        quote! {
            const STATUS_SUBRESOURCE: bool = false;
        }
    });
    // The kind's status is kube's `HasStatus::Status`; it must be this struct, or the
    // accessors and the chokepoint would work on another type than the one declared here.
    quote! {
        impl #krate::StatusResource for #resource {
            #status_subresource
            #field_owner
        }

        const _: fn() = || {
            fn the_status_of<K, S>()
            where
                K: #krate::__private::kube_core::object::HasStatus<Status = S>,
            {
            }
            the_status_of::<#resource, #ident>();
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code for `input`, as text.
    fn expanded(input: syn::DeriveInput) -> String {
        let derived = crate::model::Derived::from_input(&input);
        if let Err(error) = derived.errors.finish() {
            panic!("{error}");
        }
        let status = derived.status.unwrap_or_else(|| panic!("no status"));
        expand(&status).to_string()
    }

    #[test]
    fn the_runtime_is_named_by_the_crate_path_given() {
        let code = expanded(syn::parse_quote! {
            #[kondition(crate = "my_api::kondition", resource = Widget, profile = "standard")]
            #[serde(rename_all = "camelCase")]
            pub struct WidgetStatus {
                #[serde(default)]
                pub conditions: Conditions,
                pub observed_generation: Option<i64>,
                #[serde(flatten)]
                pub extra: BTreeMap<String, Value>,
            }
        });
        assert!(code.contains("impl my_api :: kondition :: KubeStatus for WidgetStatus"));
        assert!(
            code.contains("\"my_api::kondition::__private::serde\""),
            "{code}"
        );
        // Nothing names the runtime any other way.
        assert!(
            !code
                .replace("my_api :: kondition", "")
                .contains("kondition ::"),
            "{code}"
        );
        assert!(!code.contains("impl :: kondition"), "{code}");
        let default = expanded(syn::parse_quote! {
            #[kondition(profile = "standard")]
            #[serde(rename_all = "camelCase")]
            pub struct GadgetStatus {
                #[serde(default)]
                pub conditions: Conditions,
                pub observed_generation: Option<i64>,
            }
        });
        assert!(default.contains("impl :: kondition :: KubeStatus for GadgetStatus"));
    }

    /// The `StatusResource` impl written for `input`, as text.
    fn status_resource(input: syn::DeriveInput) -> String {
        let derived = crate::model::Derived::from_input(&input);
        if let Err(error) = derived.errors.finish() {
            panic!("{error}");
        }
        let status = derived.status.unwrap_or_else(|| panic!("no status"));
        status_resource_impl(&status).to_string()
    }

    /// The impl the derive writes for `WidgetStatus` of `Widget`, with `items` inside.
    fn widget_impl(items: TokenStream) -> String {
        quote! {
            impl ::kondition::StatusResource for Widget {
                #items
            }

            const _: fn() = || {
                fn the_status_of<K, S>()
                where
                    K: ::kondition::__private::kube_core::object::HasStatus<Status = S>,
                {
                }
                the_status_of::<Widget, WidgetStatus>();
            };
        }
        .to_string()
    }

    #[test]
    fn a_kind_without_a_status_subresource_says_so() {
        let code = status_resource(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard", status_subresource = false)]
            #[serde(rename_all = "camelCase")]
            pub struct WidgetStatus {
                #[serde(default)]
                pub conditions: Conditions,
                pub observed_generation: Option<i64>,
            }
        });
        assert_eq!(
            code,
            widget_impl(quote!(
                const STATUS_SUBRESOURCE: bool = false;
            ))
        );
        let with_owner = status_resource(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard")]
            #[kondition(status_subresource = false, field_owner = "me")]
            #[serde(rename_all = "camelCase")]
            pub struct WidgetStatus {
                #[serde(default)]
                pub conditions: Conditions,
                pub observed_generation: Option<i64>,
            }
        });
        assert_eq!(
            with_owner,
            widget_impl(quote! {
                const STATUS_SUBRESOURCE: bool = false;
                #[inline]
                fn field_owner() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed("me")
                }
            })
        );
    }

    #[test]
    fn a_kind_with_a_status_subresource_keeps_the_default() {
        for attr in [
            quote!(#[kondition(resource = Widget, profile = "standard")]),
            quote!(#[kondition(resource = Widget, profile = "standard", status_subresource = true)]),
        ] {
            let code = status_resource(syn::parse_quote! {
                #attr
                #[serde(rename_all = "camelCase")]
                pub struct WidgetStatus {
                    #[serde(default)]
                    pub conditions: Conditions,
                    pub observed_generation: Option<i64>,
                }
            });
            assert_eq!(code, widget_impl(TokenStream::new()), "{attr}");
        }
    }
}
