//! Objects as JSON on the wire: what generated code calls and what compares objects as the
//! API server does, free of the condition model.
//!
//! - [`crd`]: the CustomResourceDefinitions that generated code carries as JSON text.
//! - [`nullable`]: fields that may be absent, `null` or a value, kept apart.
//! - [`json`]: JSON equality as the API server compares values, and where two values first
//!   differ.
//!
//! Generated code names the first two by their paths at the crate's root, `kondition::crd`
//! and `kondition::nullable`, which stay as aliases of these (hidden from the documentation):
//! the generator's output, in this repository and in operators' trees, did not change when
//! they moved here.
//!
//! A status' conditions as its schema holds them, for a status read from another operator's
//! CRD, are written by [`shape::serialize_conditions`](crate::shape::serialize_conditions),
//! beside the shape they follow.

pub mod crd;
pub mod json;
pub mod nullable;
