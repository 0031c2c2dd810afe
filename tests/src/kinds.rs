//! Kinds as an operator author writes them (kube's `CustomResource`, kondition's
//! `KubeStatus`), for tests that drive them through the status chokepoint: one per status
//! profile (a spec with a size, a status with the standard block and an endpoint; they
//! differ only in their `#[kondition(...)]`), one with the `aso` profile under
//! apimachinery's transition rule, and `Widget`, which the fault tests share.

#![allow(missing_docs)] // The derives write undocumented items (the CustomResource types).

use kondition::{Conditions, KubeStatus};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kind `$kind` (plural `$plural`) with spec `$spec` and status `$status`, whose status
/// derives `KubeStatus` with `#[kondition($attrs)]`.
macro_rules! widget_kind {
    ($kind:ident, $kind_name:literal, $plural:literal, $spec:ident, $status:ident, $status_name:literal, $doc:literal, ($($attrs:tt)*)) => {
        #[doc = concat!("A widget's desired state: ", $doc)]
        #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[kube(group = "example.com", version = "v1", kind = $kind_name, namespaced, status = $status_name)]
        pub struct $spec {
            /// How big.
            pub size: i64,
        }

        #[doc = concat!("A widget's observed state: ", $doc)]
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
        #[kondition($($attrs)*)]
        #[serde(rename_all = "camelCase")]
        pub struct $status {
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

        impl TestKind for $kind {
            const PLURAL: &'static str = $plural;

            fn set_endpoint(&mut self, endpoint: &str) {
                kondition::StatusResource::status_or_insert(self).endpoint = Some(endpoint.to_owned());
            }
        }
    };
}

widget_kind!(
    StandardWidget,
    "StandardWidget",
    "standardwidgets",
    StandardWidgetSpec,
    StandardWidgetStatus,
    "StandardWidgetStatus",
    "the `standard` profile, Ready.",
    (resource = StandardWidget, profile = "standard")
);
widget_kind!(
    AsoWidget,
    "AsoWidget",
    "asowidgets",
    AsoWidgetSpec,
    AsoWidgetStatus,
    "AsoWidgetStatus",
    "the `aso` profile, Ready with severity.",
    (resource = AsoWidget, profile = "aso")
);
widget_kind!(
    OrcWidget,
    "OrcWidget",
    "orcwidgets",
    OrcWidgetSpec,
    OrcWidgetStatus,
    "OrcWidgetStatus",
    "the `orc` profile, Available and Progressing, plus SubResourcesReady.",
    (
        resource = OrcWidget,
        profile = "orc",
        conditions(SubResourcesReady)
    )
);
widget_kind!(
    KstatusWidget,
    "KstatusWidget",
    "kstatuswidgets",
    KstatusWidgetSpec,
    KstatusWidgetStatus,
    "KstatusWidgetStatus",
    "the `kstatus` profile, Ready, Reconciling and Stalled.",
    (resource = KstatusWidget, profile = "kstatus")
);
widget_kind!(
    KnativeWidget,
    "KnativeWidget",
    "knativewidgets",
    KnativeWidgetSpec,
    KnativeWidgetStatus,
    "KnativeWidgetStatus",
    "the `knative` profile, Ready with knative.dev/pkg's semantics.",
    (resource = KnativeWidget, profile = "knative")
);
widget_kind!(
    KnativeBatchWidget,
    "KnativeBatchWidget",
    "knativebatchwidgets",
    KnativeBatchWidgetSpec,
    KnativeBatchWidgetStatus,
    "KnativeBatchWidgetStatus",
    "the `knative_batch` profile, Succeeded with knative.dev/pkg's semantics.",
    (resource = KnativeBatchWidget, profile = "knative_batch")
);
widget_kind!(
    StatusOnlyWidget,
    "StatusOnlyWidget",
    "statusonlywidgets",
    StatusOnlyWidgetSpec,
    StatusOnlyWidgetStatus,
    "StatusOnlyWidgetStatus",
    "the `aso` profile under apimachinery's transition rule.",
    (
        resource = StatusOnlyWidget,
        profile = "aso",
        transition_rule = "StatusOnly"
    )
);

/// A widget's desired state: the kind the fault tests (`faults.rs`, `soak.rs`) drive, whose
/// reconcile records the size it saw.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    /// How big.
    pub size: i64,
}

/// A widget's observed state: the standard block and the size the reconcile last saw.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, KubeStatus)]
#[kondition(resource = Widget, conditions(Ready))]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// Conditions.
    #[serde(default)]
    pub conditions: Conditions,
    /// Generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The size the reconcile last saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen_size: Option<i64>,
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
