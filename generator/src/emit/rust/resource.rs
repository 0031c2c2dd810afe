//! The object type of one kind at one version, written out rather than derived: the struct
//! (metadata plus the root's fields), its `Serialize` (with apiVersion and kind), kube's
//! `Resource`, `HasSpec`, `HasStatus` and `CustomResourceExt`, and `new`. For a schema-format
//! kind, also the spec struct and the status struct with `KubeStatus`.

use kondition::shape::{ConditionsMerge, GenerationField, Presence as Held};
use kondition::{StatusShape, TransitionRule};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::imports::Imports;
use super::types::{self, Declaration, Declarations, Presence};
use crate::emit::docs;
use crate::model::{
    Bounds, DrivenStatus, Field, IntegerFormat, IntegerType, Kind, Schema, Scope, StatusDef, Type,
    Version, success_reason,
};
use crate::rust_names;

const META: &str = "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta";

/// The object struct and its impls. `crd_const` names the kind's CRD JSON in the file module;
/// the struct derives `PartialEq` when `partial_eq` says so.
pub fn object_items(
    kind: &Kind,
    version: &Version,
    root_fields: &[&Field],
    crd_const: &syn::Ident,
    partial_eq: bool,
    imports: &mut Imports,
) -> TokenStream {
    let object = Object::new(kind, version, root_fields, imports);
    let definition = object.definition(partial_eq, imports);
    let constructor = object.constructor(root_fields, imports);
    let serialize = object.serialize_impl();
    let resource = resource_impl(kind, version, &object.name, &object.meta);
    let has_spec = object.has_spec_impl();
    let has_status = object.has_status_impl(root_fields, imports);
    let crd_ext = object.crd_ext_impl(crd_const);
    quote! {
        #definition
        #constructor
        #serialize
        #resource
        #has_spec
        #has_status
        #crd_ext
    }
}

/// One kind's object type at one version, as its items are written from it.
struct Object<'k> {
    kind: &'k Kind,
    version: &'k Version,
    name: syn::Ident,
    /// The root fields but `metadata`.
    declarations: Declarations,
    /// The flattened map of unknown keys, when the root preserves them.
    extra: Option<syn::Ident>,
    /// How the module names `ObjectMeta`.
    meta: TokenStream,
}

impl<'k> Object<'k> {
    fn new(
        kind: &'k Kind,
        version: &'k Version,
        root_fields: &[&Field],
        imports: &mut Imports,
    ) -> Self {
        let mut scope = rust_names::Scope::with_reserved(&["metadata"]);
        // Optional root fields are `Option`s like any other (a status always is: it is absent
        // until a controller writes it), so an object without them is written back without
        // them.
        let declarations =
            Declarations::of(root_fields, &mut scope, |f| f.name == "status", imports);
        // A root that preserves unknown fields keeps them in a flattened map, written back.
        let extra = version
            .preserve_unknown
            .then(|| rust_names::ident(&scope.unique("extra")));
        Self {
            kind,
            version,
            name: format_ident!("{}", kind.kind),
            declarations,
            extra,
            meta: types::tokens(&imports.name(META)),
        }
    }

    /// The root field called `wire`, if its presence is one of `presences` (those that
    /// `HasSpec` or `HasStatus` can hand out).
    fn root_field(&self, wire: &str, presences: &[Presence]) -> Option<&Declaration> {
        self.declarations
            .fields
            .iter()
            .find(|f| f.wire == wire && presences.contains(&f.presence))
    }

    /// The struct: metadata, the root's fields, and the unknown keys' map; `PartialEq` when
    /// `partial_eq` says so.
    fn definition(&self, partial_eq: bool, imports: &mut Imports) -> TokenStream {
        let name = &self.name;
        let meta = &self.meta;
        let rename_all = types::rename_all_attr(self.declarations.rename_all);
        let fields = types::fields(&self.declarations);
        let extra = self.extra.as_ref().map(|ident| {
            let ty = types::tokens(&types::unknown_fields(imports).to_string());
            quote! {
                /// Keys the schema does not name, kept as they were (it preserves unknown fields).
                #[serde(flatten)]
                pub #ident: #ty,
            }
        });
        let deserialize = types::tokens(&imports.name("serde::Deserialize"));
        let partial_eq = partial_eq.then(|| quote!(PartialEq,));
        let doc = docs::attrs(self.kind.docs.as_deref().unwrap_or(&format!(
            "A {} object (`{}/{}`).",
            self.kind.kind, self.kind.group, self.version.name
        )));
        quote! {
            #doc
            #[derive(Clone, Debug, #partial_eq #deserialize)]
            #rename_all
            pub struct #name {
                /// Standard object metadata.
                #[serde(default)]
                pub metadata: #meta,
                #fields
                #extra
            }
        }
    }

    /// `Serialize`, with `apiVersion` and `kind` first: a struct, or a map when unknown keys
    /// follow the fields (a struct has a fixed set of fields).
    fn serialize_impl(&self) -> TokenStream {
        let name = &self.name;
        let api_version = format!("{}/{}", self.kind.group, self.version.name);
        let kind_name = &self.kind.kind;
        let (put, skip) = if self.extra.is_some() {
            (quote!(serialize_entry), None)
        } else {
            (quote!(serialize_field), Some(quote!(state.skip_field)))
        };
        let fields = &self.declarations.fields;
        let serialize_fields = fields.iter().map(|f| {
            let ident = types::tokens(&f.ident);
            let wire = &f.wire;
            if f.presence.skips_none() {
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
        let len = Literal::usize_unsuffixed(fields.len() + 3);
        match &self.extra {
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

    /// `HasSpec`, unless the spec is nullable. An optional spec is `HasSpec::Spec =
    /// Option<...>`: absent stays absent.
    fn has_spec_impl(&self) -> Option<TokenStream> {
        let spec = self.root_field("spec", &[Presence::Required, Presence::Optional])?;
        let name = &self.name;
        let ident = types::tokens(&spec.ident);
        let ty = types::tokens(&spec.ty.to_string());
        Some(quote! {
            impl ::kube::core::object::HasSpec for #name {
                type Spec = #ty;
                fn spec(&self) -> &Self::Spec {
                    &self.#ident
                }
                fn spec_mut(&mut self) -> &mut Self::Spec {
                    &mut self.#ident
                }
            }
        })
    }

    /// `HasStatus`, for an optional status that is not nullable.
    fn has_status_impl(
        &self,
        root_fields: &[&Field],
        imports: &mut Imports,
    ) -> Option<TokenStream> {
        let status = self.root_field("status", &[Presence::Optional])?;
        let name = &self.name;
        let ident = types::tokens(&status.ident);
        let ty = root_type(root_fields, "status", imports);
        Some(quote! {
            impl ::kube::core::object::HasStatus for #name {
                type Status = #ty;
                fn status(&self) -> ::core::option::Option<&Self::Status> {
                    self.#ident.as_ref()
                }
                fn status_mut(&mut self) -> &mut ::core::option::Option<Self::Status> {
                    &mut self.#ident
                }
            }
        })
    }

    /// `new(name, spec)`, when everything but the spec may be left out.
    fn constructor(&self, root_fields: &[&Field], imports: &mut Imports) -> Option<TokenStream> {
        let spec = self.root_field("spec", &[Presence::Required, Presence::Optional])?;
        let fields = &self.declarations.fields;
        if !fields
            .iter()
            .all(|f| f.wire == spec.wire || f.presence.skips_none())
        {
            return None;
        }
        let (name, meta) = (&self.name, &self.meta);
        let spec_ident = types::tokens(&spec.ident);
        let spec_ty = root_type(root_fields, "spec", imports);
        let spec_value = if spec.presence == Presence::Optional {
            quote!(#spec_ident: ::core::option::Option::Some(#spec_ident),)
        } else {
            quote!(#spec_ident,)
        };
        let others = fields.iter().filter(|f| f.wire != "spec").map(|f| {
            let ident = types::tokens(&f.ident);
            quote!(#ident: ::core::default::Default::default(),)
        });
        let doc = format!(
            " A {} named `name` with `spec`, the rest empty.",
            self.kind.kind
        );
        let extra_init = self
            .extra
            .as_ref()
            .map(|ident| quote!(#ident: ::core::default::Default::default(),));
        Some(quote! {
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
                        #extra_init
                    }
                }
            }
        })
    }

    /// `CustomResourceExt`: the CRD from the file module's JSON, cut to this version.
    fn crd_ext_impl(&self, crd_const: &syn::Ident) -> TokenStream {
        let name = &self.name;
        let crd_name = format!("{}.{}", self.kind.names.plural, self.kind.group);
        let short_names = &self.kind.names.short_names;
        let version_name = &self.version.name;
        quote! {
            impl ::kube::core::crd::v1::CustomResourceExt for #name {
                fn crd() -> ::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                    ::kondition::crd::version_from_json(super::#crd_const, #version_name)
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

/// The Rust type of root field `wire` (without `Option`).
fn root_type(root_fields: &[&Field], wire: &str, imports: &mut Imports) -> TokenStream {
    root_fields
        .iter()
        .find(|f| f.name == wire)
        .map_or_else(|| quote!(()), |f| types::rust_type(&f.schema.ty, imports))
}

fn resource_impl(
    kind: &Kind,
    version: &Version,
    name: &syn::Ident,
    meta: &TokenStream,
) -> TokenStream {
    let scope = match kind.scope {
        Scope::Namespaced => quote!(::k8s_openapi::NamespaceResourceScope),
        Scope::Cluster => quote!(::k8s_openapi::ClusterResourceScope),
    };
    let (kind_name, group, version_name, plural) =
        (&kind.kind, &kind.group, &version.name, &kind.names.plural);
    let api_version = format!("{group}/{version_name}");
    quote! {
        impl ::kube::core::Resource for #name {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#kind_name)
            }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#group)
            }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#version_name)
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

/// The profile part of `#[kondition(...)]`: a profile the runtime knows is named, so that the
/// chokepoint follows its summary and companions, with the kind's own condition types after
/// it; a profile of the user's own (a template file) spells out its types, summary, success
/// reason and transition rule.
fn profile_attr(status: &StatusDef) -> TokenStream {
    let runtime = kondition::profile::Profile::by_name(&status.profile).filter(|profile| {
        profile.summary == status.summary
            && profile.transition_rule == status.transition_rule
            && status
                .conditions
                .iter()
                .map(|c| c.type_.as_str())
                .take(profile.condition_types.len())
                .eq(profile.condition_types.iter().copied())
    });
    let declared = |skip: usize| {
        let types: Vec<_> = status.conditions[skip..]
            .iter()
            .map(|c| Literal::string(&c.type_))
            .collect();
        (!types.is_empty()).then(|| quote!(conditions(#(#types),*)))
    };
    match runtime {
        Some(profile) => {
            let name = profile.name;
            let extra = declared(profile.condition_types.len()).map(|c| quote!(, #c));
            quote!(profile = #name #extra)
        }
        None => {
            let types = declared(0);
            let summary = &status.summary;
            let success_reason =
                success_reason(&status.conditions, summary).map(|r| quote!(, success_reason = #r));
            let transition_rule =
                (status.transition_rule != TransitionRule::default()).then(|| {
                    let rule = format!("{:?}", status.transition_rule);
                    quote!(, transition_rule = #rule)
                });
            quote!(#types, summary = #summary #success_reason #transition_rule)
        }
    }
}

/// The standard status struct of a schema-format kind: conditions, observedGeneration and the
/// kind's own status fields, with `KubeStatus` (and `PartialEq` when `partial_eq` says so).
pub fn status_item(
    kind: &Kind,
    status: &StatusDef,
    status_name: &str,
    fields: &[Field],
    partial_eq: bool,
    imports: &mut Imports,
) -> TokenStream {
    let status_ident = format_ident!("{}", status_name);
    let resource = format_ident!("{}", kind.kind);
    let doc = docs::attrs(&format!(
        "The observed state of a {}: the standard conditions and observedGeneration.",
        kind.kind
    ));
    let profile = profile_attr(status);
    let field_owner = kind
        .field_owner
        .as_ref()
        .map(|owner| quote!(, field_owner = #owner));
    // The standard fields first, under the same rule as the kind's own.
    let standard = [
        Field {
            name: "conditions".to_owned(),
            required: true,
            schema: Schema {
                docs: Some(
                    "The conditions, one per type; see the condition type enum for the types."
                        .to_owned(),
                ),
                ..Schema::of(Type::Conditions(Box::new(Type::Raw)))
            },
        },
        Field {
            name: "observedGeneration".to_owned(),
            required: false,
            schema: Schema {
                docs: Some("The metadata.generation the status was last computed from.".to_owned()),
                ..Schema::of(Type::Integer(IntegerType {
                    format: IntegerFormat::Int64,
                    bounds: Bounds::default(),
                }))
            },
        },
    ];
    let all: Vec<&Field> = standard.iter().chain(fields).collect();
    let mut declarations = Declarations::of(
        &all,
        &mut rust_names::Scope::default(),
        |f| f.name != "conditions",
        imports,
    );
    // An absent list is an empty one: the derive's accessors hand out `&Conditions`.
    if let Some(conditions) = declarations.fields.first_mut() {
        conditions.serde.insert(0, "default".to_owned());
    }
    status_struct(
        Some(doc),
        &status_ident,
        quote!(resource = #resource, #profile #field_owner),
        &declarations,
        partial_eq,
        imports,
    )
}

/// The status struct of a kind read from a CRD whose status is the standard one: the CRD's
/// own fields, every one optional (so the struct is `Default`, and an object is written back
/// with exactly the fields it had), with `KubeStatus` (and `PartialEq` when `partial_eq` says
/// so). A version that serves no status subresource says so (`status_subresource = false`),
/// so that the chokepoint writes the status through the main resource.
pub fn crd_status_item(
    kind: &Kind,
    version: &Version,
    status: &StatusDef,
    driven: &DrivenStatus<'_>,
    partial_eq: bool,
    imports: &mut Imports,
) -> TokenStream {
    let status_ident = format_ident!("{}", driven.object.name);
    let resource = format_ident!("{}", kind.kind);
    let doc = driven.schema.docs.as_deref().map(docs::attrs);
    let profile = profile_attr(status);
    let shape = shape_attrs(&driven.shape);
    let subresource = (!version.status_subresource).then(|| quote!(, status_subresource = false));
    let fields: Vec<&Field> = driven.object.fields.iter().collect();
    let mut declarations = Declarations::of(
        &fields,
        &mut rust_names::Scope::default(),
        |_| true,
        imports,
    );
    // Conditions without a field metav1 requires are written back without it, through the
    // status' shape.
    if !driven.shape.fields.has_metav1_fields()
        && let Some(conditions) = declarations
            .fields
            .iter_mut()
            .find(|f| f.wire == "conditions")
    {
        let serialize = if conditions.presence.is_option() {
            "serialize_optional_conditions"
        } else {
            "serialize_conditions"
        };
        conditions.serde.push(format!(
            "serialize_with = \"::kondition::shape::{serialize}::<{status_ident}, _>\""
        ));
    }
    status_struct(
        doc,
        &status_ident,
        quote!(resource = #resource, #profile #shape #subresource),
        &declarations,
        partial_eq,
        imports,
    )
}

/// The derive's attributes for how a status read from a CRD differs from the standard one
/// (each after a comma); none for the standard shape.
fn shape_attrs(shape: &StatusShape) -> TokenStream {
    let generation = match shape.generation {
        GenerationField::Status => None,
        GenerationField::Conditions => Some(quote!(, observed_generation = "conditions")),
        GenerationField::None => Some(quote!(, observed_generation = "none")),
    };
    let fields = &shape.fields;
    let metav1 = [
        (fields.reason, quote!(reason)),
        (fields.message, quote!(message)),
        (fields.last_transition_time, quote!(last_transition_time)),
    ];
    let held_as = |presence: Held| {
        metav1
            .iter()
            .filter(move |(p, _)| *p == presence)
            .map(|(_, name)| name.clone())
    };
    let list =
        (shape.merge == ConditionsMerge::Atomic).then(|| quote!(, conditions_list = "atomic"));
    // The generation kept nowhere is said once, by `observed_generation = "none"`.
    let without_generation =
        !fields.observed_generation && shape.generation != GenerationField::None;
    let without: Vec<TokenStream> = [
        (!fields.severity).then(|| quote!(severity)),
        without_generation.then(|| quote!(observed_generation)),
    ]
    .into_iter()
    .flatten()
    .chain(held_as(Held::Absent))
    .collect();
    let without = (!without.is_empty()).then(|| quote!(, conditions_without(#(#without),*)));
    let optional: Vec<TokenStream> = held_as(Held::Optional).collect();
    let optional = (!optional.is_empty()).then(|| quote!(, conditions_optional(#(#optional),*)));
    quote!(#generation #list #without #optional)
}

/// A status struct that derives `KubeStatus` with `#[kondition(#kondition)]`, of the fields
/// `declarations` declares.
fn status_struct(
    doc: Option<TokenStream>,
    ident: &syn::Ident,
    kondition: TokenStream,
    declarations: &Declarations,
    partial_eq: bool,
    imports: &mut Imports,
) -> TokenStream {
    let derives = status_derives(partial_eq, imports);
    let rename_all = types::rename_all_attr(declarations.rename_all);
    let fields = types::fields(declarations);
    quote! {
        #doc
        #derives
        #rename_all
        #[kondition(#kondition)]
        pub struct #ident {
            #fields
        }
    }
}

/// The derives of a status struct with `KubeStatus`: `Default` always (the status chokepoint
/// creates an empty status to fill), `PartialEq` when `partial_eq` says so.
fn status_derives(partial_eq: bool, imports: &mut Imports) -> TokenStream {
    let serialize = types::tokens(&imports.name("serde::Serialize"));
    let deserialize = types::tokens(&imports.name("serde::Deserialize"));
    let kube_status = types::tokens(&imports.name("kondition::KubeStatus"));
    let partial_eq = partial_eq.then(|| quote!(PartialEq,));
    quote!(#[derive(Clone, Debug, Default, #partial_eq #serialize, #deserialize, #kube_status)])
}
