//! Rust CRD types with kondition's standard status, generated from schema files or CRDs.
//!
//! The schema loader, the model, the emitters, `Builder` and the `kondition` binary are the
//! subject of the generator issue and are not in this crate yet; the crate exists so the
//! workspace has its fixed layout.
