//! The standard status of a Kubernetes custom resource, for kube-rs operators: a typed
//! `conditions` list and `observedGeneration` that mean exactly what the Kubernetes API
//! conventions say, and the rules that keep them right.
//!
//! - [`Condition`], [`ConditionStatus`] and [`Severity`]: metav1.Condition plus ASO's and
//!   Cluster API's severity, with lossless conversion to and from k8s-openapi's `Condition`.
//! - [`Conditions`]: the list a status holds. Its JSON Schema makes it a map keyed by `type`
//!   so server-side apply merges it; [`Conditions::set`] keeps `lastTransitionTime` stable
//!   (no churn, no hot loops) and messages within the API server's limits.
//! - [`validation`]: the API server's rules, checked before anything is sent.
//! - [`ReconcileError`] and [`Requeue`]: errors that carry their reason, severity and retry
//!   class, so the Ready condition and the requeue follow from the error.
//! - [`Summary`]: a Ready condition summarising other conditions.
//! - [`SubResources`]: the SubResourcesReady condition, from sub-resources and from the
//!   objects a resource owns.
//! - [`kstatus`]: what `kubectl wait`, Helm and Flux will conclude from any object, built-in
//!   kinds included, and so whether the objects an operator owns are ready.
//! - [`inherit`]: a parent not Ready while one of its children is not.
//! - [`merge`]: Cluster API v1beta2's Mirror, Aggregate and merged summary: conditions of
//!   children copied, one condition across many objects, every issue named.
//! - [`profile`]: the standard condition sets (`standard`, `aso`, `orc`, `kstatus`, and
//!   `knative` and `knative_batch` with knative.dev/pkg's semantics).
//! - `check` (feature `check`): a status checked offline against the API conventions and
//!   kstatus' conventions (and, on request, Flux's `conditions/check`), each violation with
//!   its path, for an operator's tests.
//! - [`wire`]: objects as JSON: the CRDs generated code carries, nullable fields, and JSON
//!   equality as the API server compares values.
//! - [`testing`]: assertions for an operator's tests: conditions and statuses compared
//!   without `lastTransitionTime` (and messages, if asked), with a readable diff.
//!
//! This crate needs neither kube's client nor an async runtime, so a crate of API types can
//! depend on it cheaply.
//!
//! ```
//! use kondition::{Condition, ConditionStatus, Conditions, SetOutcome};
//!
//! let mut conditions = Conditions::new();
//! let ready = Condition::new("Ready", ConditionStatus::True, "Succeeded").with_observed_generation(1);
//! assert_eq!(conditions.set(ready.clone()), SetOutcome::Transitioned);
//! // Setting the same condition again changes nothing, not even lastTransitionTime.
//! assert_eq!(conditions.set(ready), SetOutcome::Unchanged);
//! assert!(conditions.is_true("Ready"));
//! ```

#[cfg(feature = "check")]
pub mod check;
mod condition;
mod condition_schema;
mod conditions;
#[cfg(feature = "controller")]
pub mod controller;
mod error;
pub mod inherit;
pub mod kstatus;
pub mod merge;
pub mod permissions;
pub mod profile;
pub mod shape;
#[cfg(feature = "shards")]
pub mod shards;
mod status;
pub mod subresources;
mod summary;
pub mod testing;
pub mod validation;
pub mod wire;

/// The paths generated code names ([`wire::crd`], [`wire::nullable`]).
#[doc(hidden)]
pub use wire::{crd, nullable};

pub use condition::{
    Condition, ConditionStatus, InvalidStatus, NegativeTypes, Polarity, Severity, Verbatim, now,
};
pub use condition_schema::observed_generation_schema;
pub use conditions::{Conditions, SetOutcome, TransitionRule};
pub use error::{Failure, ReconcileError, Requeue, RequeuePolicy};
pub use shape::StatusShape;
pub use status::{ApplyMetadata, KubeStatus, StatusApply, StatusResource, default_field_owner};
pub use subresources::{SubResource, SubResourceState, SubResources};
pub use summary::Summary;

/// A point in time as Kubernetes serializes it (RFC 3339, whole seconds): k8s-openapi's
/// `metav1.Time`, so conditions convert to and from k8s-openapi's without loss.
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// `#[derive(KubeStatus)]`: implements [`KubeStatus`] (and [`StatusResource`] for the kind
/// named by `resource = Kind`), with typed accessors for each declared condition type.
///
/// Its helper attribute, `#[kondition(...)]`:
///
/// | key | meaning |
/// | --- | --- |
/// | `resource = Kind` | the kind whose status this is: implements [`StatusResource`] for it |
/// | `conditions(Ready, "example.com/Synced", ...)` | the condition types, after the profile's |
/// | `profile = "standard"` | a [`profile`]'s condition types and its [`KubeStatus::PROFILE`] |
/// | `summary = "Synced"` | the summary condition (declared), instead of the profile's |
/// | `success_reason = "UpToDate"` | the summary's reason on success, instead of the profile's |
/// | `transition_rule = "StatusOnly"` | when `lastTransitionTime` moves (a [`TransitionRule`]), instead of the profile's |
/// | `field_owner = "..."` | the field manager, instead of `<group>/<kind>-controller` |
/// | `crate = "my_api::kondition"` | the path to this crate, for a crate that re-exports it (the generated code names it by this path instead of `::kondition`) |
/// | `observed_generation = "conditions"` | the status keeps the generation only on its conditions, and has no `observedGeneration` field ([`shape::GenerationField::Conditions`]); `"none"`: nowhere ([`shape::GenerationField::None`]); by default `"status"` |
/// | `conditions_list = "atomic"` | the CRD's `conditions` list has no `x-kubernetes-list-type: map`: applied whole ([`shape::ConditionsMerge::Atomic`]); by default `"map"` |
/// | `conditions_without(severity, observed_generation)` | condition fields the CRD's schema does not store, which the chokepoint then never writes ([`shape::ConditionFields`]); also `reason`, `message` and `last_transition_time` |
/// | `conditions_optional(reason, message)` | condition fields metav1 requires that the CRD's schema holds but does not require, written only when they say something ([`shape::Presence`]); also `last_transition_time` |
/// | `status_subresource = false` | the kind's CRD serves no status subresource (`subresources: {}`): the chokepoint writes the status through the main resource ([`StatusResource::STATUS_SUBRESOURCE`]); needs `resource`; by default `true` |
///
/// The four before the last describe another operator's CRD as it is (see [`shape`]); a
/// CRD made from the struct itself has the standard shape, their default.
///
/// The struct needs a `conditions` field (wire name `conditions`) of type [`Conditions`] or
/// `Option<Conditions>`, and (unless `observed_generation = "conditions"` or `"none"`) an
/// `observedGeneration` field of type `Option<i64>` or `i64`;
/// any other type is a compile error on the field. `Option<Conditions>` (with
/// `#[serde(default, skip_serializing_if = "Option::is_none")]`) is for a status read from
/// an existing CRD: it keeps an object without a `conditions` key apart from one with
/// `conditions: []`, so each is written back as it was read, by the status and by its apply
/// configuration alike. [`KubeStatus::conditions`] reads an absent list as empty;
/// [`KubeStatus::conditions_mut`] and the `set_*` accessors create it.
#[cfg(feature = "derive")]
pub use kondition_derive::KubeStatus;

/// What generated code refers to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use kube_core;
    pub use serde;
}
