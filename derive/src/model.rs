//! The derive's model of a status struct: everything the code generation needs, checked,
//! with every misuse reported together.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{
    Data, DeriveInput, Fields, GenericArgument, Ident, LitStr, Path, PathArguments, Type,
    Visibility,
};

use crate::attrs::{self, DeclaredCondition};
use crate::condition_idents;
use crate::errors::Errors;
use crate::serde_attrs;
use kondition_names::api_rules;
use kondition_names::profile::{CUSTOM_SUMMARY, builtin};

/// The wire name of the conditions list.
const CONDITIONS: &str = "conditions";
/// The wire name of the observed generation.
const OBSERVED_GENERATION: &str = "observedGeneration";
/// The error on a `conditions` field of another type.
const CONDITIONS_TYPE_ERROR: &str = "the `conditions` field must be a `kondition::Conditions` (or `Option<kondition::Conditions>`), the list that merges by type under server-side apply; it reads and writes the same JSON as a list of conditions: convert a `Vec<kondition::Condition>` with `Conditions::from(vec)`, k8s-openapi's `Vec<Condition>` with `Conditions::try_from(vec)`";
/// The error on an `observedGeneration` field of another type.
const GENERATION_TYPE_ERROR: &str =
    "the `observedGeneration` field must be an `Option<i64>` (or `i64`)";

/// A status struct, ready for code generation.
pub struct Status {
    /// The path the generated code names the runtime by: `::kondition`, or `crate = "..."`.
    pub krate: Path,
    pub ident: Ident,
    pub vis: Visibility,
    pub resource: Option<Path>,
    pub field_owner: Option<LitStr>,
    /// `profile = "..."`: the runtime profile the status follows (`None`: `CUSTOM`).
    pub profile: Option<LitStr>,
    /// `summary = "..."`, a declared condition type overriding the profile's summary.
    pub summary: Option<LitStr>,
    /// `success_reason = "..."`, overriding the profile's.
    pub success_reason: Option<LitStr>,
    /// `transition_rule = "..."`, overriding the profile's: a `TransitionRule` variant.
    pub transition_rule: Option<Ident>,
    /// Whether the kind's CRD serves a status subresource: `false` for
    /// `status_subresource = false`, else `true` (`StatusResource::STATUS_SUBRESOURCE`).
    pub status_subresource: bool,
    /// The standard block; `None` when a field of it is missing or of another type, an
    /// error the derive has reported (see [`Derived`]).
    pub block: Option<StandardBlock>,
    /// What the status' schema holds of the standard block.
    pub shape: Shape,
    /// Every field that reaches the wire, in order.
    pub fields: Vec<ApplyField>,
    pub condition_types: Vec<ConditionType>,
}

/// The fields of the standard block.
pub struct StandardBlock {
    /// The field holding `conditions`: a `Conditions` or an `Option<Conditions>`.
    pub conditions: StandardField,
    /// The field holding `observedGeneration`: an `i64` or an `Option<i64>`; `None` for a
    /// status that keeps the generation only on its conditions.
    pub observed_generation: Option<StandardField>,
}

/// What the status' schema holds of the standard block (`kondition::StatusShape`), from
/// `observed_generation = "..."`, `conditions_list = "..."` and `conditions_without(...)`.
#[derive(Default)]
pub struct Shape {
    /// `observed_generation = "conditions"`: no field of the status' own.
    pub generation_on_conditions: bool,
    /// `observed_generation = "none"`: no generation anywhere.
    pub generation_nowhere: bool,
    /// `conditions_list = "atomic"`.
    pub atomic: bool,
    /// `conditions_without(severity)`.
    pub without_severity: bool,
    /// `conditions_without(observed_generation)`.
    pub without_observed_generation: bool,
    /// How `reason`, `message` and `lastTransitionTime` are held, in that order: the name
    /// of a `kondition::shape::Presence` variant, from `conditions_without(...)` and
    /// `conditions_optional(...)`.
    pub metav1_fields: [&'static str; 3],
}

/// The metav1 fields [`Shape::metav1_fields`] describes, as the attributes name them.
pub const METAV1_FIELDS: [&str; 3] = ["reason", "message", "last_transition_time"];

impl Shape {
    /// Whether this is the standard status' shape, so `SHAPE` keeps its default.
    pub fn is_standard(&self) -> bool {
        !(self.generation_on_conditions
            || self.generation_nowhere
            || self.atomic
            || self.without_severity
            || self.without_observed_generation)
            && self.metav1_fields == ["Required"; 3]
    }

    /// Whether the status has no `observedGeneration` field of its own.
    pub fn generation_elsewhere(&self) -> bool {
        self.generation_on_conditions || self.generation_nowhere
    }
}

/// What the derive makes of its input: every error, and the status to write code for.
///
/// A struct with errors still gets its code where the struct's shape allows (named fields,
/// no generics), so that a mistake gives its one error and the user's own calls of the
/// accessors, of `KubeStatus` and of the chokepoint give none after it.
pub struct Derived {
    pub status: Option<Status>,
    pub errors: Errors,
}

/// A field of the standard block (`conditions`, `observedGeneration`).
pub struct StandardField {
    pub ident: Ident,
    /// Whether the struct holds it in an `Option`, so that an absent field stays absent
    /// (`None`) and apart from an empty or zero one.
    pub optional: bool,
}

/// A field of the status as its apply configuration holds it.
pub struct ApplyField {
    pub ident: Ident,
    pub vis: Visibility,
    pub wire_name: String,
    /// The field's type in the apply configuration (always wrapped in `Option` there).
    pub inner_ty: Type,
    pub kind: FieldKind,
    /// The CRD requires it (schemars makes it required): neither an `Option` nor defaulted
    /// by `#[serde(default)]`, on the field or the struct; never a field of the standard
    /// block, which every apply of the chokepoint carries.
    pub required: bool,
}

/// How a field maps to its apply configuration.
pub enum FieldKind {
    /// `Option<T>` in the status: the apply configuration holds the same `Option<T>`.
    Optional,
    /// `T` in the status: `Some(value)` in the apply configuration.
    Required,
    /// `#[serde(flatten)]`: `Option<T>`, flattened.
    Flatten,
    /// `#[serde(with)]` or `serialize_with`: `Some(value)`, serialized by `serialize`,
    /// called as `serialize(&value, serializer)`.
    SerializeWith(Path),
}

/// A declared condition type and the names made from it.
pub struct ConditionType {
    /// The wire value.
    pub name: String,
    pub span: Span,
    /// `ready`, for `ready()`, `is_ready()`, `set_ready()`, `remove_ready()`.
    pub method_stem: String,
    /// `Ready`, the enum variant.
    pub variant: Ident,
}

impl Derived {
    /// Reads and checks the derive input.
    pub fn from_input(input: &DeriveInput) -> Self {
        let mut errors = Errors::default();
        let status = Status::read(input, &mut errors);
        Self { status, errors }
    }
}

impl Status {
    /// Reads the input; errors go to `errors`. `None` for a shape no code can be written
    /// for: not a struct of named fields, or generic.
    fn read(input: &DeriveInput, errors: &mut Errors) -> Option<Self> {
        let attrs = attrs::parse(&input.attrs, &input.ident, errors);
        let generic = !input.generics.params.is_empty();
        if generic {
            errors.spanned(
                &input.generics,
                "KubeStatus cannot be derived for a generic struct: a CRD's status has one concrete schema",
            );
        }
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => Some(named),
                _ => None,
            },
            _ => None,
        };
        let Some(named) = named else {
            errors.spanned(
                &input.ident,
                "KubeStatus can only be derived for a struct with named fields, such as `struct WidgetStatus { conditions: Conditions, observed_generation: Option<i64> }`",
            );
            return None;
        };

        let rename_all = serde_attrs::rename_all(&input.attrs);
        let defaulted = serde_attrs::container_default(&input.attrs);
        let mut fields = Vec::new();
        let mut conditions = None;
        let mut observed_generation = None;
        // Whether a standard field has another type than the block's (reported).
        let mut mistyped = false;
        for field in &named.named {
            let Some((mut field, role)) = classify(field, rename_all, &mut mistyped, errors) else {
                continue;
            };
            field.required &= !defaulted;
            let slot = match role {
                Role::Conditions => &mut conditions,
                Role::ObservedGeneration => &mut observed_generation,
                Role::Other => {
                    fields.push(field);
                    continue;
                }
            };
            *slot = Some(StandardField {
                ident: field.ident.clone(),
                optional: matches!(field.kind, FieldKind::Optional),
            });
            // The chokepoint writes the standard block in every apply, the fallback too.
            field.required = false;
            fields.push(field);
        }

        if conditions.is_none() {
            errors.spanned(
                &input.ident,
                format!(
                    "`{}` has no `conditions` field; add `#[serde(default)] pub conditions: kondition::Conditions`",
                    input.ident
                ),
            );
        }
        let shape = shape(&attrs, errors);
        // The generation's field is there exactly when the status keeps it (a missing one
        // leaves the block out, a field the attribute says is not there is only reported).
        let mut generation_missing = false;
        match (&observed_generation, shape.generation_elsewhere()) {
            (None, false) => {
                generation_missing = true;
                errors.spanned(
                    &input.ident,
                    format!(
                        "`{}` has no `observed_generation` field (wire name `observedGeneration`); add `#[serde(default, skip_serializing_if = \"Option::is_none\")] pub observed_generation: Option<i64>`, or say `#[kondition(observed_generation = \"conditions\")]` for a status that keeps the generation only on its conditions",
                        input.ident
                    ),
                );
            }
            (Some(field), true) if shape.generation_nowhere => errors.spanned(
                &field.ident,
                "`observed_generation = \"none\"` says the status keeps no generation; remove this field, or the attribute",
            ),
            (Some(field), true) => errors.spanned(
                &field.ident,
                "`observed_generation = \"conditions\"` says the status keeps the generation only on its conditions; remove this field, or the attribute",
            ),
            _ => {}
        }
        let observed_generation = observed_generation.filter(|_| !shape.generation_elsewhere());
        let block = match conditions {
            Some(conditions) if !mistyped && !generation_missing => Some(StandardBlock {
                conditions,
                observed_generation,
            }),
            _ => None,
        };
        let condition_types = condition_types(attrs.conditions, errors);
        check_success_reason(attrs.success_reason.as_ref(), errors);
        check_summary(
            &attrs.summary,
            &attrs.profile,
            &attrs.resource,
            &condition_types,
            input,
            errors,
        );
        if generic {
            return None;
        }
        Some(Self {
            krate: attrs
                .krate
                .unwrap_or_else(|| syn::parse_quote!(::kondition)),
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            resource: attrs.resource,
            field_owner: attrs.field_owner,
            profile: attrs.profile,
            summary: attrs.summary,
            success_reason: attrs.success_reason,
            transition_rule: attrs.transition_rule,
            status_subresource: attrs.status_subresource.is_none_or(|flag| flag.value),
            block,
            shape,
            fields,
            condition_types,
        })
    }
}

/// The shape `#[kondition(...)]` declares; a contradiction goes to `errors`.
fn shape(attrs: &attrs::KonditionAttrs, errors: &mut Errors) -> Shape {
    let is = |value: &Option<LitStr>, expected: &str| {
        value.as_ref().is_some_and(|v| v.value() == expected)
    };
    let without = |name: &str| attrs.conditions_without.iter().find(|field| *field == name);
    let optional = |name: &str| {
        attrs
            .conditions_optional
            .iter()
            .find(|field| *field == name)
    };
    let metav1_fields = METAV1_FIELDS.map(|name| match (without(name), optional(name)) {
        (Some(_), Some(field)) => {
            errors.spanned(
                field,
                format!("`{name}` is named both in `conditions_without(...)` and in `conditions_optional(...)`; a field the schema does not hold is only in the first, one it holds but does not require only in the second"),
            );
            "Absent"
        }
        (Some(_), None) => "Absent",
        (None, Some(_)) => "Optional",
        (None, None) => "Required",
    });
    let shape = Shape {
        generation_on_conditions: is(&attrs.observed_generation, "conditions"),
        generation_nowhere: is(&attrs.observed_generation, "none"),
        atomic: is(&attrs.conditions_list, "atomic"),
        without_severity: without("severity").is_some(),
        without_observed_generation: without("observed_generation").is_some(),
        metav1_fields,
    };
    if let (true, Some(field)) = (
        shape.generation_on_conditions,
        without("observed_generation"),
    ) {
        errors.spanned(
            field,
            "the conditions keep the observed generation (`observed_generation = \"conditions\"`), so they cannot be without it; a status that keeps it nowhere says `observed_generation = \"none\"`",
        );
    }
    shape
}

/// What a field of the status is: a standard one or another.
enum Role {
    Conditions,
    ObservedGeneration,
    Other,
}

/// Every field of the struct goes through here, once: its wire name, its role, and how its
/// apply configuration holds it; `None` for a field serde skips. A standard field of the
/// wrong wire name or type is reported to `errors` on its span (and of the wrong type, marked
/// `mistyped`).
fn classify(
    field: &syn::Field,
    rename_all: Option<kondition_names::RenameRule>,
    mistyped: &mut bool,
    errors: &mut Errors,
) -> Option<(ApplyField, Role)> {
    let ident = field.ident.clone()?;
    // A bare trait object (`A + B`, no `dyn`) or `impl Trait` is no type a status can hold,
    // and written into the apply configuration's `Option<...>` it would not even parse.
    let inner = option_inner(&field.ty).unwrap_or(&field.ty);
    if matches!(inner, Type::TraitObject(_) | Type::ImplTrait(_)) {
        errors.spanned(
            &field.ty,
            "a status field needs a concrete type that serde can write (a trait object or `impl Trait` is none)",
        );
        return None;
    }
    let serde = serde_attrs::field(&field.attrs);
    if serde.skip {
        return None;
    }
    let unraw = ident.unraw().to_string();
    let wire_name = serde
        .rename
        .clone()
        .unwrap_or_else(|| rename_all.map_or_else(|| unraw.clone(), |rule| rule.apply(&unraw)));
    let is_conditions = wire_name == CONDITIONS || unraw == CONDITIONS;
    let is_generation = wire_name == OBSERVED_GENERATION || unraw == "observed_generation";
    for (is, expected) in [
        (is_conditions, CONDITIONS),
        (is_generation, OBSERVED_GENERATION),
    ] {
        if is && wire_name != expected {
            errors.spanned(
                &ident,
                format!(
                    "this field is `{wire_name}` on the wire but the standard status calls it `{expected}`; add `#[serde(rename_all = \"camelCase\")]` to the struct or `#[serde(rename = \"{expected}\")]` to the field"
                ),
            );
        }
    }
    // A standard field: its role, the type it holds, the error if not.
    let standard = match (is_conditions, is_generation) {
        _ if serde.flatten => None,
        (true, _) => Some((Role::Conditions, "Conditions", CONDITIONS_TYPE_ERROR)),
        (false, true) => Some((Role::ObservedGeneration, "i64", GENERATION_TYPE_ERROR)),
        (false, false) => None,
    };
    let mut serialize_with = serde.serialize_with.clone().or_else(|| {
        serde.with.clone().map(|mut module| {
            module
                .segments
                .push(Ident::new("serialize", Span::call_site()).into());
            module
        })
    });
    // The function is called by this path in an expression: generic arguments there take
    // the turbofish (`f::<T>`), which serde's string may leave out.
    for segment in serialize_with
        .iter_mut()
        .flat_map(|path| path.segments.iter_mut())
    {
        if let syn::PathArguments::AngleBracketed(arguments) = &mut segment.arguments {
            arguments.colon2_token = Some(Default::default());
        }
    }
    let (role, kind) = match standard {
        Some((role, expected, message)) => {
            let optional = standard_field_type(&field.ty, expected).unwrap_or_else(|| {
                errors.spanned(&field.ty, message);
                *mistyped = true;
                false
            });
            let kind = if optional {
                FieldKind::Optional
            } else {
                FieldKind::Required
            };
            (role, kind)
        }
        None if serde.flatten => (Role::Other, FieldKind::Flatten),
        None => match serialize_with {
            Some(path) => (Role::Other, FieldKind::SerializeWith(path)),
            None if option_inner(&field.ty).is_some() => (Role::Other, FieldKind::Optional),
            None => (Role::Other, FieldKind::Required),
        },
    };
    let inner_ty = match kind {
        FieldKind::Optional => option_inner(&field.ty)
            .cloned()
            .unwrap_or_else(|| field.ty.clone()),
        _ => field.ty.clone(),
    };
    let required = !serde.default && !serde.flatten && option_inner(&field.ty).is_none();
    let field = ApplyField {
        ident,
        vis: field.vis.clone(),
        wire_name,
        inner_ty,
        kind,
        required,
    };
    Some((field, role))
}

/// The summary condition must be declared: the status chokepoint writes it, and its accessors
/// and enum variant should exist. Without `resource`, no chokepoint writes this status, so
/// the profile's default summary need not be declared.
fn check_summary(
    summary: &Option<LitStr>,
    profile: &Option<LitStr>,
    resource: &Option<Path>,
    declared: &[ConditionType],
    input: &DeriveInput,
    errors: &mut Errors,
) {
    let is_declared = |name: &str| declared.iter().any(|t| t.name == name);
    match summary {
        Some(summary) if !is_declared(&summary.value()) => errors.push(syn::Error::new(
            summary.span(),
            format!(
                "the summary condition `{}` is not declared; add it to `conditions(...)`",
                summary.value()
            ),
        )),
        Some(_) => {}
        None => {
            let default = profile
                .as_ref()
                .and_then(|p| builtin(&p.value()))
                .map_or(CUSTOM_SUMMARY, |p| p.summary);
            if resource.is_some() && !is_declared(default) {
                errors.spanned(
                    &input.ident,
                    format!(
                        "the status chokepoint summarises a reconcile into `{default}`, which is not declared; add it to `conditions(...)`, or name a declared condition with `summary = \"...\"`"
                    ),
                );
            }
        }
    }
}

/// `success_reason = "..."` is a reason the API server accepts.
fn check_success_reason(reason: Option<&LitStr>, errors: &mut Errors) {
    if let Some(reason) = reason.filter(|r| !api_rules::is_valid_reason(&r.value())) {
        errors.spanned(
            reason,
            format!(
                "success_reason {:?} is not valid for the API server: {}",
                reason.value(),
                api_rules::REASON_RULE
            ),
        );
    }
}

/// Checks declared condition types against the API server's rules, for duplicates and for
/// name clashes, and names them.
fn condition_types(declared: Vec<DeclaredCondition>, errors: &mut Errors) -> Vec<ConditionType> {
    let mut types: Vec<ConditionType> = Vec::new();
    for DeclaredCondition { name, span } in declared {
        if !api_rules::is_valid_type(&name) {
            let hint = api_rules::suggested_type(&name)
                .map(|t| kondition_names::did_you_mean(&t))
                .unwrap_or_default();
            errors.push(syn::Error::new(
                span,
                format!(
                    "condition type {name:?} is not valid for the API server: {}{hint}",
                    api_rules::TYPE_RULE
                ),
            ));
            continue;
        }
        if types.iter().any(|t| t.name == name) {
            errors.push(syn::Error::new(
                span,
                format!("duplicate condition type `{name}`"),
            ));
            continue;
        }
        let (Some(method_stem), Some(variant)) = (
            condition_idents::snake(&name),
            condition_idents::pascal(&name),
        ) else {
            // A valid type holds a letter or digit: not reached.
            continue;
        };
        if let Some(other) = types
            .iter()
            .find(|t| t.method_stem == method_stem || t.variant == variant)
        {
            errors.push(syn::Error::new(
                span,
                format!(
                    "condition types `{}` and `{name}` would both be accessed as `{method_stem}()`; declare only one",
                    other.name
                ),
            ));
            continue;
        }
        if method_stem == "observed_generation" {
            errors.push(syn::Error::new(
                span,
                "a condition type named `ObservedGeneration` would clash with `set_observed_generation`; choose another name",
            ));
            continue;
        }
        let variant = kondition_names::ident(&variant, span);
        types.push(ConditionType {
            name,
            span,
            method_stem,
            variant,
        });
    }
    types
}

/// The `T` of `Option<T>` (also `std::option::Option<T>`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty)?;
    if segment.ident != "Option" {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `ty` is the type `name` of a standard field (`Some(false)`) or an `Option` of it
/// (`Some(true)`); `None` for anything else, `Option<Option<name>>` included.
fn standard_field_type(ty: &Type, name: &str) -> Option<bool> {
    match option_inner(ty) {
        Some(inner) => is_named(inner, name).then_some(true),
        None => is_named(ty, name).then_some(false),
    }
}

/// Whether `ty` is a path ending in `name` without generic arguments.
fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == name && s.arguments.is_empty())
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        _ => None,
    }
}
