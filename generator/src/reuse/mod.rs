//! k8s-openapi types for CRD subtrees that have their structure.
//!
//! The catalog ([`catalog`]) holds every type of `api::core::v1`, `api::apps::v1`,
//! `api::batch::v1` and `apimachinery::pkg::apis::meta::v1`, and every type they reference,
//! at every Kubernetes version k8s-openapi supports (1.33 to 1.37), as extracted from
//! k8s-openapi's own source (`tests/k8s_openapi_catalog.rs` checks it is up to date).

pub mod catalog;
