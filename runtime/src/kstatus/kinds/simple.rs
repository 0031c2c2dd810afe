//! Kinds whose rule reads one field or none: PersistentVolumeClaim, Service,
//! PodDisruptionBudget, and the kinds with nothing to wait for (ConfigMap, Secret, CronJob).

use k8s_openapi::jiff::Timestamp;

use super::super::KStatusResult;
use super::super::fields::{Fields, FoundCondition};

/// Bound, or not yet.
pub(super) fn persistent_volume_claim(
    fields: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    // A missing phase reads as "unknown", as in kstatus's message.
    match fields.string(&["status", "phase"], "unknown") {
        "Bound" => KStatusResult::current("PVC is Bound"),
        phase => KStatusResult::in_progress(format!("PVC is not Bound. phase: {phase}")),
    }
}

/// Current as soon as it exists, but for a LoadBalancer without a cluster IP. kstatus does
/// not wait for the load balancer's external address, so neither does this.
pub(super) fn service(
    fields: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    let type_ = fields.string(&["spec", "type"], "ClusterIP");
    if type_ == "LoadBalancer" && fields.string(&["spec", "clusterIP"], "").is_empty() {
        return KStatusResult::in_progress("ClusterIP not set. Service type: LoadBalancer");
    }
    KStatusResult::current("Service is ready")
}

/// Once the disruption controller has observed the latest generation (the generic rule),
/// the allowed disruptions are computed; nothing else tells.
pub(super) fn pod_disruption_budget(
    _: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    KStatusResult::current("AllowedDisruptions has been computed.")
}

/// ConfigMap, Secret and CronJob have no state to reach: they are Current once they exist
/// (a CronJob's runs are Jobs of their own).
pub(super) fn nothing_to_wait_for(
    _: &Fields<'_>,
    _: &[FoundCondition<'_>],
    _: Timestamp,
) -> KStatusResult {
    KStatusResult::current("Resource is always ready")
}
