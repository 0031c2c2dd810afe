//! `knative_batch`: knative.dev/pkg's batch condition set, `Succeeded` the happy condition
//! (Tekton's PipelineRun and TaskRun), with Knative's semantics: see
//! [`knative`](super::knative) and its [`ConditionSet::batch`](super::knative::ConditionSet::batch).

pub use kondition_names::profile::knative_batch::*;
