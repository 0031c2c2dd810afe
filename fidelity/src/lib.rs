//! The generated code for every CRD file of the corpus, compiled as a library (as an
//! operator's crate would hold it), with an index the round-trip binary walks.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// One generated corpus file.
pub struct CorpusFile {
    /// Relative to the corpus folder.
    pub path: &'static str,
    /// The generated `crds()`.
    pub crds: fn() -> Vec<CustomResourceDefinition>,
    /// Every kind at every version, with its generated type.
    pub kinds: &'static [KindVersion],
}

/// One kind at one version.
pub struct KindVersion {
    /// The kind.
    pub kind: &'static str,
    /// The version.
    pub version: &'static str,
    /// Reads an object into the generated type and writes it back.
    pub round_trip: fn(serde_json::Value) -> Result<serde_json::Value, serde_json::Error>,
}

/// `object` read into `T` and written back.
pub fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(
    object: serde_json::Value,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(serde_json::from_value::<T>(object)?)
}

include!(concat!(env!("OUT_DIR"), "/index.rs"));
