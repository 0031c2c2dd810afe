//! The `Document` kind of kube-rs's controller-rs example as an operator migrated to
//! kondition has it (written here): a status with a required non-condition field
//! (`hidden: bool`, neither an `Option` nor defaulted, so the CRD requires it) beside the
//! standard conditions, and an `endpoint` whose pattern the API server checks (the CRD's
//! schema, [`crd`]), so that a status can be refused with 422.

#![allow(missing_docs)] // The derives write undocumented items (the CustomResource types).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::{Conditions, KubeStatus};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A document's desired state.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Document",
    namespaced,
    status = "DocumentStatus"
)]
pub struct DocumentSpec {
    /// What it says.
    pub text: String,
    /// Whether it is hidden from readers.
    #[serde(default)]
    pub hide: bool,
    /// Where it is served, reported as `status.endpoint` (the CRD's pattern may refuse it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// A document's observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Document, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct DocumentStatus {
    /// The conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// The generation this status describes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Whether the document is hidden (required by the CRD).
    pub hidden: bool,
    /// Where it is served: lowercase letters, digits, `.`, `:` and `-` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// The pattern the CRD gives `status.endpoint`.
pub const ENDPOINT_PATTERN: &str = "^[a-z0-9.:-]*$";

/// Document's CRD: `Document::crd()` with [`ENDPOINT_PATTERN`] on `status.endpoint`.
pub fn crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(Document::crd()).expect("the CRD as JSON");
    let status =
        &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"];
    status["properties"]["endpoint"]["pattern"] = json!(ENDPOINT_PATTERN);
    serde_json::from_value(crd).expect("a CRD")
}

/// A new Document named `name` saying `text`.
pub fn document(name: &str, text: &str) -> Document {
    Document::new(
        name,
        DocumentSpec {
            text: text.to_owned(),
            hide: false,
            host: None,
        },
    )
}
