//! The traits a status struct and its resource implement (written by
//! `#[derive(KubeStatus)]`), and the server-side apply bodies built from them.
//!
//! The status chokepoint works on any kind through these traits: the per-kind part (which
//! status type, which field owner, how to build the apply configurations) is a trait impl
//! the derive writes, not a switch over kinds.

use std::borrow::Cow;
use std::fmt;

use kube_core::Resource;
use kube_core::object::HasStatus;
use serde::Serialize;

use crate::conditions::Conditions;
use crate::profile::{self, Profile};
use crate::shape::StatusShape;

/// A status struct with the standard block: a `conditions` list and `observedGeneration`.
///
/// Implemented by `#[derive(KubeStatus)]`, which also gives the struct inherent methods of the
/// same names (no import needed) and typed accessors for each declared condition type.
pub trait KubeStatus {
    /// The status's partial apply configuration: every field optional and omitted when
    /// unset, so an apply body holds exactly the fields its field manager owns.
    type Apply: Serialize + Clone + Default + PartialEq + fmt::Debug;

    /// The condition types this status declares, in declaration order.
    const CONDITION_TYPES: &'static [&'static str];

    /// How the status chokepoint reports a reconcile's outcome in this status: the summary
    /// condition with its reasons, and the conditions it keeps beside it.
    /// `#[derive(KubeStatus)]` sets it from `profile = "..."`, `summary = "..."` and
    /// `success_reason = "..."`; by default Ready, `Succeeded`, nothing beside it.
    const PROFILE: Profile = profile::CUSTOM;

    /// What the status' schema holds of the standard block: where the observed generation
    /// is kept, how the `conditions` list merges, which optional condition fields are
    /// stored. The chokepoint writes nothing the schema would drop and, for a list that
    /// does not merge by `type`, applies it whole. `#[derive(KubeStatus)]` sets it from
    /// `observed_generation = "..."`, `conditions_list = "..."` and `conditions_without(...)`;
    /// by default [`StatusShape::STANDARD`].
    const SHAPE: StatusShape = StatusShape::STANDARD;

    /// The JSON names of the status fields its CRD requires besides the standard block. The
    /// chokepoint's conditions-only fallback carries a value for each that the object does
    /// not hold yet (a brand-new object), or the API server refuses it as a whole
    /// (`status.<field>: Required value`). `#[derive(KubeStatus)]` lists every field that is
    /// neither an `Option` nor defaulted by `#[serde(default)]` (on the field or the struct),
    /// the fields schemars makes required; by default none.
    const REQUIRED_FIELDS: &'static [&'static str] = &[];

    /// The conditions (empty when the status holds no list).
    fn conditions(&self) -> &Conditions;

    /// The conditions, to change them through [`Conditions::set`] (an empty list is
    /// inserted first when the status holds none).
    fn conditions_mut(&mut self) -> &mut Conditions;

    /// `status.observedGeneration`; for a status that keeps the generation only on its
    /// conditions ([`GenerationField::Conditions`](crate::shape::GenerationField)), the
    /// summary condition's.
    fn observed_generation(&self) -> Option<i64>;

    /// Sets `status.observedGeneration`, normally to `metadata.generation` after a
    /// reconcile; for a status that keeps the generation only on its conditions, sets the
    /// summary condition's (if there is one).
    fn set_observed_generation(&mut self, generation: i64);

    /// The full apply configuration: every field of this status.
    fn to_apply(&self) -> Self::Apply;

    /// An apply configuration holding only `conditions`.
    fn conditions_apply(conditions: Conditions) -> Self::Apply;
}

impl<T: KubeStatus + ?Sized> crate::shape::Shaped for T {
    const SHAPE: StatusShape = <T as KubeStatus>::SHAPE;
}

/// A resource whose status is a [`KubeStatus`]: what the status chokepoint dispatches on.
///
/// Implemented by `#[derive(KubeStatus)]` for the kind named by `resource = Kind`. The status
/// is the one of kube's [`HasStatus`] (which kube's `CustomResource` derive and `kondition
/// generate` implement), so `status()` and `status_mut()` are kube's, and importing both
/// traits makes no call ambiguous.
pub trait StatusResource:
    Resource<DynamicType = ()> + HasStatus<Status: KubeStatus + Default>
{
    /// Whether the kind's CRD serves a status subresource (`subresources: {status: {}}`), as
    /// almost every CRD does. The status chokepoint then writes `.../<name>/status`; a kind
    /// without one (Argo CD's Application, say) keeps its status in the main resource, which
    /// the chokepoint writes instead, and where every status change also moves
    /// `metadata.generation` (see the `controller` module on what `observedGeneration` means
    /// there). `#[derive(KubeStatus)]` sets it from `status_subresource = false`; `kondition
    /// generate` from the CRD.
    const STATUS_SUBRESOURCE: bool = true;

    /// The server-side apply field manager of this kind's controller; by default
    /// `<group>/<kind, lowercase>-controller`.
    fn field_owner() -> Cow<'static, str> {
        Cow::Owned(default_field_owner::<Self>())
    }

    /// The status, created empty if the object has none.
    fn status_or_insert(&mut self) -> &mut Self::Status {
        self.status_mut().get_or_insert_with(Default::default)
    }

    /// The body of a full status apply: apiVersion, kind, name, namespace and the whole
    /// status, without a precondition (so two objects' bodies compare by their status
    /// alone); the status chokepoint adds one with [`StatusApply::precondition`].
    fn status_apply(&self) -> StatusApply<<Self::Status as KubeStatus>::Apply> {
        let status = self.status().map(KubeStatus::to_apply).unwrap_or_default();
        StatusApply::new(self, status)
    }

    /// The body of a conditions-only apply (the fallback when a full apply is rejected).
    fn conditions_apply(
        &self,
        conditions: Conditions,
    ) -> StatusApply<<Self::Status as KubeStatus>::Apply> {
        StatusApply::new(self, Self::Status::conditions_apply(conditions))
    }
}

/// `<group>/<kind, lowercase>-controller`, or `<kind, lowercase>-controller` for the core
/// group.
pub fn default_field_owner<K: Resource<DynamicType = ()> + ?Sized>() -> String {
    let group = K::group(&());
    let kind = K::kind(&()).to_lowercase();
    if group.is_empty() {
        format!("{kind}-controller")
    } else {
        format!("{group}/{kind}-controller")
    }
}

/// A server-side apply body for the status subresource: the object's identity and a status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatusApply<S> {
    /// `apiVersion`, from [`Resource`].
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// `kind`, from [`Resource`].
    pub kind: String,
    /// Name and namespace only.
    pub metadata: ApplyMetadata,
    /// The (partial) status.
    pub status: S,
}

/// The metadata of an apply body: what identifies the object and, as a precondition, the
/// version it was computed from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApplyMetadata {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, omitted for cluster-scoped objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `metadata.resourceVersion`: when set, the API server applies the body only if the
    /// object is still at this version, and answers 409 Conflict otherwise. Unset by
    /// [`StatusApply::new`]; see [`StatusApply::precondition`].
    #[serde(rename = "resourceVersion", skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

impl<S> StatusApply<S> {
    /// An apply body for `object` carrying `status`.
    pub fn new<K: Resource<DynamicType = ()> + ?Sized>(object: &K, status: S) -> Self {
        let meta = object.meta();
        Self {
            api_version: K::api_version(&()).into_owned(),
            kind: K::kind(&()).into_owned(),
            metadata: ApplyMetadata {
                name: meta.name.clone().unwrap_or_default(),
                namespace: meta.namespace.clone(),
                resource_version: None,
            },
            status,
        }
    }

    /// The body applied only if the object is still at `object`'s `resourceVersion` (when
    /// it has one). The status chokepoint applies every status it computed this way: a
    /// status computed from a stale copy (an older generation, say) is refused with 409
    /// Conflict and recomputed, instead of overwriting a newer one.
    #[must_use]
    pub fn precondition<K: Resource + ?Sized>(mut self, object: &K) -> Self {
        self.metadata.resource_version = object.meta().resource_version.clone();
        self
    }
}
