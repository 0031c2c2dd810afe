//! Kinds written by hand as an operator author would, one per status profile, for tests that
//! drive them through the status chokepoint. Each has a spec with a size and a status with
//! the standard block and an endpoint.

#![allow(missing_docs)] // The derives write undocumented items (the CustomResource types).

use kondition::{Conditions, KubeStatus};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A widget's desired state under the `standard` profile.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "StandardWidget",
    namespaced,
    status = "StandardWidgetStatus"
)]
pub struct StandardWidgetSpec {
    /// How big.
    pub size: i64,
}

/// The `standard` profile: Ready.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = StandardWidget, profile = "standard")]
#[serde(rename_all = "camelCase")]
pub struct StandardWidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// A widget's desired state under the `aso` profile.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "AsoWidget",
    namespaced,
    status = "AsoWidgetStatus"
)]
pub struct AsoWidgetSpec {
    /// How big.
    pub size: i64,
}

/// The `aso` profile: Ready with severity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = AsoWidget, profile = "aso")]
#[serde(rename_all = "camelCase")]
pub struct AsoWidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// A widget's desired state under the `orc` profile.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "OrcWidget",
    namespaced,
    status = "OrcWidgetStatus"
)]
pub struct OrcWidgetSpec {
    /// How big.
    pub size: i64,
}

/// The `orc` profile: Available and Progressing, plus SubResourcesReady.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = OrcWidget, profile = "orc", conditions(SubResourcesReady))]
#[serde(rename_all = "camelCase")]
pub struct OrcWidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// A widget's desired state under the `kstatus` profile.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "KstatusWidget",
    namespaced,
    status = "KstatusWidgetStatus"
)]
pub struct KstatusWidgetSpec {
    /// How big.
    pub size: i64,
}

/// The `kstatus` profile: Ready, Reconciling and Stalled.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = KstatusWidget, profile = "kstatus")]
#[serde(rename_all = "camelCase")]
pub struct KstatusWidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Where it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// What the tests need of every kind here: the chokepoint's bounds and a way to set the
/// endpoint without knowing the status type.
pub trait TestKind:
    kondition::StatusResource
    + kube::CustomResourceExt
    + Clone
    + std::fmt::Debug
    + Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    /// The plural, for the stand-in's paths.
    const PLURAL: &'static str;

    /// Sets `status.endpoint`.
    fn set_endpoint(&mut self, endpoint: &str);
}

macro_rules! test_kind {
    ($kind:ty, $plural:literal) => {
        impl TestKind for $kind {
            const PLURAL: &'static str = $plural;

            fn set_endpoint(&mut self, endpoint: &str) {
                kondition::StatusResource::status_mut(self).endpoint = Some(endpoint.to_owned());
            }
        }
    };
}

test_kind!(StandardWidget, "standardwidgets");
test_kind!(AsoWidget, "asowidgets");
test_kind!(OrcWidget, "orcwidgets");
test_kind!(KstatusWidget, "kstatuswidgets");

/// The kind's profile, as the derive set it.
pub fn profile_of<K: kondition::StatusResource>() -> kondition::profile::Profile {
    <K::Status as KubeStatus>::PROFILE
}
