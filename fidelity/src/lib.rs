//! The generated code for every CRD file of the corpus, compiled as a library (as an
//! operator's crate would hold it), with an index the round-trip binary walks.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// One generated corpus file.
pub struct CorpusFile {
    /// Relative to the corpus folder.
    pub path: &'static str,
    /// The generated `crds()`.
    pub crds: fn() -> Vec<CustomResourceDefinition>,
}

include!(concat!(env!("OUT_DIR"), "/index.rs"));
