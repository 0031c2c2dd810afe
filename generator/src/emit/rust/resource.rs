//! The object type of one kind at one version, written out rather than derived: the struct
//! (metadata plus the root's fields), its `Serialize` (with apiVersion and kind), `new`, and
//! kube's `Resource`, `HasSpec`, `HasStatus` and `CustomResourceExt` (`object_impls.rs`). For a schema-format
//! kind, also the spec struct and the status struct with `KubeStatus`.

use kondition::shape::{ConditionsMerge, GenerationField, Presence as Held};
use kondition::{StatusShape, TransitionRule};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::imports::Imports;
use super::writer::Writer;
use super::object_impls::{Constructor, ObjectImpls, SerializedField};
use super::types::{self, Declaration, Declarations, Presence, RustType};
use crate::emit::{EmitError, docs};
use crate::model::{
    Bounds, DrivenStatus, Field, IntegerFormat, IntegerType, Kind, Schema, StatusDef, Type,
    Version, success_reason,
};
use crate::rust_names;

const META: &str = "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta";

/// The object struct and its impls, into `writer`. `crd_const` names the kind's CRD JSON in
/// the file module; the struct derives `PartialEq` when `partial_eq` says so.
pub fn object_items(
    writer: &mut Writer,
    kind: &Kind,
    version: &Version,
    root_fields: &[&Field],
    crd_const: &syn::Ident,
    partial_eq: bool,
    imports: &mut Imports,
) -> Result<(), EmitError> {
    let object = Object::new(kind, version, root_fields, imports);
    object.definition(writer, partial_eq, imports);
    let constructor = object.constructor(root_fields, imports);
    let spec = object
        .root_field("spec", &[Presence::Required, Presence::Optional])
        .map(|spec| (spec.ident.as_str(), spec.ty.to_string()));
    let status = object
        .root_field("status", &[Presence::Optional])
        .map(|status| (status.ident.as_str(), root_type_text(root_fields, "status", imports)));
    let crd_const = crd_const.to_string();
    let extra = object.extra.as_ref().map(ToString::to_string);
    ObjectImpls {
        name: kind.kind.as_str(),
        constructor,
        kind: &kind.kind,
        group: &kind.group,
        version: &version.name,
        plural: &kind.names.plural,
        scope: kind.scope,
        meta: &object.meta_path,
        spec,
        status,
        crd_const: &crd_const,
        short_names: &kind.names.short_names,
        fields: object
            .declarations
            .fields
            .iter()
            .map(|f| SerializedField {
                ident: &f.ident,
                wire: &f.wire,
                skips_none: f.presence.skips_none(),
            })
            .collect(),
        extra: extra.as_deref(),
    }
    .write(writer)
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
    meta_path: String,
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
        let meta_path = imports.name(META);
        Self {
            kind,
            version,
            name: format_ident!("{}", kind.kind),
            declarations,
            extra,
            meta_path,
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
    /// `partial_eq` says so. Written as text in prettyplease's layout, as the data types are:
    /// every struct's fields, docs and serde attributes are written one way (issue 48).
    fn definition(&self, writer: &mut Writer, partial_eq: bool, imports: &mut Imports) {
        let extra = self
            .extra
            .as_ref()
            .map(|ident| (ident.to_string(), types::unknown_fields(imports)));
        let deserialize = imports.name("serde::Deserialize");
        let mut derives = vec!["Clone", "Debug"];
        if partial_eq {
            derives.push("PartialEq");
        }
        derives.push(&deserialize);
        let own_doc;
        let doc = match &self.kind.docs {
            Some(doc) => doc.as_str(),
            None => {
                own_doc = format!(
                    "A {} object (`{}/{}`).",
                    self.kind.kind, self.kind.group, self.version.name
                );
                &own_doc
            }
        };
        writer.object_struct_item(
            &self.name.to_string(),
            doc,
            &derives,
            &self.meta_path,
            &self.declarations,
            extra.as_ref().map(|(ident, ty)| (ident.as_str(), ty)),
        );
    }

    /// `new(name, spec)`, when everything but the spec may be left out.
    fn constructor(&self, root_fields: &[&Field], imports: &mut Imports) -> Option<Constructor<'_>> {
        let spec = self.root_field("spec", &[Presence::Required, Presence::Optional])?;
        let fields = &self.declarations.fields;
        if !fields
            .iter()
            .all(|f| f.wire == spec.wire || f.presence.skips_none())
        {
            return None;
        }
        Some(Constructor {
            spec: &spec.ident,
            spec_optional: spec.presence == Presence::Optional,
            spec_ty: root_type_text(root_fields, "spec", imports),
            others: fields
                .iter()
                .filter(|f| f.wire != "spec")
                .map(|f| f.ident.as_str())
                .collect(),
        })
    }
}

/// The Rust type of root field `wire` (without `Option`), as text.
fn root_type_text(root_fields: &[&Field], wire: &str, imports: &mut Imports) -> String {
    root_fields
        .iter()
        .find(|f| f.name == wire)
        .map_or_else(|| "()".to_owned(), |f| RustType::of(&f.schema.ty, imports).to_string())
}

/// The profile part of `#[kondition(...)]`: a profile the runtime knows is named, so that the
/// chokepoint follows its summary and companions, with the kind's own condition types after
/// it; a profile of the user's own (a template file) spells out its types, summary, success
/// reason and transition rule.
fn profile_args(status: &StatusDef) -> Vec<String> {
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
    let literal = |text: &str| Literal::string(text).to_string();
    let declared = |skip: usize| {
        let types: Vec<String> = status.conditions[skip..]
            .iter()
            .map(|c| literal(&c.type_))
            .collect();
        (!types.is_empty()).then(|| format!("conditions({})", types.join(", ")))
    };
    match runtime {
        Some(profile) => std::iter::once(format!("profile = {}", literal(profile.name)))
            .chain(declared(profile.condition_types.len()))
            .collect(),
        None => {
            let summary = &status.summary;
            let success_reason = success_reason(&status.conditions, summary)
                .map(|r| format!("success_reason = {}", literal(r)));
            let transition_rule = (status.transition_rule != TransitionRule::default())
                .then(|| {
                    let rule = format!("{:?}", status.transition_rule);
                    format!("transition_rule = {}", literal(&rule))
                });
            declared(0)
                .into_iter()
                .chain([format!("summary = {}", literal(summary))])
                .chain(success_reason)
                .chain(transition_rule)
                .collect()
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
    let profile = types::tokens(&profile_args(status).join(", "));
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

/// The status struct of a kind read from a CRD whose status is the standard one, into
/// `writer`: the CRD's own fields, every one optional (so the struct is `Default`, and an
/// object is written back with exactly the fields it had), with `KubeStatus` (and `PartialEq`
/// when `partial_eq` says so). A version that serves no status subresource says so
/// (`status_subresource = false`), so that the chokepoint writes the status through the main
/// resource. Written as text in prettyplease's layout, as the data types are (through tokens,
/// syn and prettyplease, the corpus's 35 statuses cost 4% of generating it; issue 48), but
/// for a `#[kondition]` argument too long for a line of its own.
pub fn crd_status_item(
    writer: &mut Writer,
    kind: &Kind,
    version: &Version,
    status: &StatusDef,
    driven: &DrivenStatus<'_>,
    partial_eq: bool,
    imports: &mut Imports,
) -> Result<(), EmitError> {
    let fields: Vec<&Field> = driven.object.fields.iter().collect();
    let mut declarations = Declarations::of(
        &fields,
        &mut rust_names::Scope::default(),
        |_| true,
        imports,
    );
    let status_name = &driven.object.name;
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
            "serialize_with = \"::kondition::shape::{serialize}::<{status_name}, _>\""
        ));
    }
    let mut kondition = vec![format!("resource = {}", kind.kind)];
    kondition.extend(profile_args(status));
    kondition.extend(shape_args(&driven.shape));
    if !version.status_subresource {
        kondition.push("status_subresource = false".to_owned());
    }
    let derives = status_derives(partial_eq, imports);
    let derives: Vec<&str> = derives.iter().map(String::as_str).collect();
    let doc = driven.schema.docs.as_deref();
    if writer.status_struct_item(status_name, doc, &derives, &kondition, &declarations) {
        return Ok(());
    }
    writer.tokens(status_struct(
        doc.map(docs::attrs),
        &format_ident!("{}", status_name),
        types::tokens(&kondition.join(", ")),
        &declarations,
        partial_eq,
        imports,
    ))
}

/// The derive's arguments for how a status read from a CRD differs from the standard one;
/// none for the standard shape.
fn shape_args(shape: &StatusShape) -> Vec<String> {
    let mut args = Vec::new();
    match shape.generation {
        GenerationField::Status => {}
        GenerationField::Conditions => args.push(r#"observed_generation = "conditions""#.into()),
        GenerationField::None => args.push(r#"observed_generation = "none""#.into()),
    }
    let fields = &shape.fields;
    let metav1 = [
        (fields.reason, "reason"),
        (fields.message, "message"),
        (fields.last_transition_time, "last_transition_time"),
    ];
    let held_as = |presence: Held| {
        metav1
            .iter()
            .filter(move |(p, _)| *p == presence)
            .map(|(_, name)| *name)
    };
    if shape.merge == ConditionsMerge::Atomic {
        args.push(r#"conditions_list = "atomic""#.into());
    }
    // The generation kept nowhere is said once, by `observed_generation = "none"`.
    let without_generation =
        !fields.observed_generation && shape.generation != GenerationField::None;
    let without: Vec<&str> = [
        (!fields.severity).then_some("severity"),
        without_generation.then_some("observed_generation"),
    ]
    .into_iter()
    .flatten()
    .chain(held_as(Held::Absent))
    .collect();
    if !without.is_empty() {
        args.push(format!("conditions_without({})", without.join(", ")));
    }
    let optional: Vec<&str> = held_as(Held::Optional).collect();
    if !optional.is_empty() {
        args.push(format!("conditions_optional({})", optional.join(", ")));
    }
    args
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
    let derives = types::tokens(&format!(
        "#[derive({})]",
        status_derives(partial_eq, imports).join(", ")
    ));
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
fn status_derives(partial_eq: bool, imports: &mut Imports) -> Vec<String> {
    let mut derives = vec!["Clone".to_owned(), "Debug".to_owned(), "Default".to_owned()];
    if partial_eq {
        derives.push("PartialEq".to_owned());
    }
    derives.push(imports.name("serde::Serialize"));
    derives.push(imports.name("serde::Deserialize"));
    derives.push(imports.name("kondition::KubeStatus"));
    derives
}
