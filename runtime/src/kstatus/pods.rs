//! A workload read with the Pods it owns, as the status readers of kstatus's polling engine
//! read it (what `helm install --wait` and Flux's health checks wait on), and the one place
//! where the libraries those tools use differ.
//!
//! The engine asks [`compute_at`] of the object; then, for an `apps` ReplicaSet or
//! StatefulSet that is InProgress, it looks at the Pods its selector lists, and a Pod that is
//! Failed by its own rules (a container in `CrashLoopBackOff`, unschedulable past the
//! grace period) makes the workload Failed: "N pods have failed". Which failed Pods count is
//! where [`Rules`] differ. A Deployment is not read through its ReplicaSets' Pods (its status
//! is [`compute_at`]'s alone), and every other kind is [`compute_at`]'s too.

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use super::fields::Fields;
use super::{KStatus, KStatusResult, compute_at};

/// Which library's rules decide, where the two that tools use differ.
///
/// `status.Compute` itself is the same in both (the same code, line for line); they differ
/// only in how a workload's failed Pods count (see [`compute_with_pods_at`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rules {
    /// `github.com/fluxcd/cli-utils`, Flux's fork, v1.2.3 to v1.3.0 (the newest that builds
    /// with Go 1.26; v1.4.0 asks for Go 1.27 and has the same rules): what Helm 4's `--wait`
    /// and Flux compute. A failed Pod that the scheduler reports as Unschedulable
    /// (`PodScheduled=False`, reason `Unschedulable`), or that is being deleted, does not
    /// fail its workload: a cluster autoscaler may yet place it, and a rolling update
    /// deletes Pods on purpose.
    #[default]
    Flux,
    /// `sigs.k8s.io/cli-utils` v0.37.2, the upstream library's latest release: every failed
    /// Pod fails its workload.
    CliUtils,
}

impl Rules {
    /// The library and version the rules come from, as the docs and test output name it.
    pub fn source(self) -> &'static str {
        match self {
            Self::Flux => "github.com/fluxcd/cli-utils v1.3.0",
            Self::CliUtils => "sigs.k8s.io/cli-utils v0.37.2",
        }
    }
}

/// The kstatus result of a workload with the Pods it owns, at the system clock's time. See
/// [`compute_with_pods_at`].
pub fn compute_with_pods(object: &Value, pods: &[Value], rules: Rules) -> KStatusResult {
    compute_with_pods_at(object, pods, Timestamp::now(), rules)
}

/// The kstatus result of a workload with the Pods it owns (those its `spec.selector`
/// selects, as the caller listed them), as kstatus's polling engine reads it, with `now` as
/// the time for the rules that depend on it.
///
/// An `apps` ReplicaSet or StatefulSet that [`compute_at`] finds InProgress is Failed when
/// one of its Pods counts as failed under `rules`: "N pods have failed". Anything else is
/// [`compute_at`]'s result: another kind, a workload that is Current, Failed or Terminating
/// already, or one without a `spec.selector` object (the engine cannot list its Pods; it
/// reports an error there, which this reads as not knowing of any failed Pod).
///
/// ```
/// use kondition::kstatus::{KStatus, Rules, compute_with_pods_at};
/// use serde_json::json;
///
/// let web = json!({
///     "apiVersion": "apps/v1", "kind": "StatefulSet",
///     "metadata": {"name": "web", "generation": 1},
///     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}},
///     "status": {"observedGeneration": 1},
/// });
/// // Its Pod crash-loops, and the scheduler also reports it as unschedulable.
/// let pod = json!({
///     "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"},
///     "status": {"phase": "Running",
///                "conditions": [{"type": "PodScheduled", "status": "False",
///                                "reason": "Unschedulable"}],
///                "containerStatuses": [{"name": "app",
///                                       "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]},
/// });
/// let now = "2024-01-01T00:00:00Z".parse().expect("time");
/// let flux = compute_with_pods_at(&web, &[pod.clone()], now, Rules::Flux);
/// assert_eq!(flux.status, KStatus::InProgress);
/// let upstream = compute_with_pods_at(&web, &[pod], now, Rules::CliUtils);
/// assert_eq!(upstream.status, KStatus::Failed);
/// assert_eq!(upstream.message, "1 pods have failed");
/// ```
pub fn compute_with_pods_at(
    object: &Value,
    pods: &[Value],
    now: Timestamp,
    rules: Rules,
) -> KStatusResult {
    let own = compute_at(object, now);
    let fields = Fields::new(object);
    let reads_pods = matches!(
        (fields.group(), fields.string(&["kind"], "")),
        ("apps", "ReplicaSet" | "StatefulSet")
    );
    let selects = fields
        .get(&["spec", "selector"])
        .is_some_and(Value::is_object);
    if own.status != KStatus::InProgress || !reads_pods || !selects {
        return own;
    }
    let failed = pods
        .iter()
        .filter(|pod| compute_at(pod, now).status == KStatus::Failed)
        .filter(|pod| rules == Rules::CliUtils || !transient(pod))
        .count();
    if failed == 0 {
        return own;
    }
    KStatusResult::failed(format!("{failed} pods have failed"))
}

/// Flux's fork: a failed Pod that will likely recover by itself (being deleted, or waiting
/// for a node the autoscaler may add).
fn transient(pod: &Value) -> bool {
    let fields = Fields::new(pod);
    if fields.is_deleting() {
        return true;
    }
    let is_pod = fields.group().is_empty() && fields.string(&["kind"], "") == "Pod";
    let conditions: Vec<_> = fields.conditions().collect();
    is_pod
        && conditions.iter().any(|c| {
            c.type_ == "PodScheduled" && c.status == "False" && c.reason == "Unschedulable"
        })
}

#[cfg(test)]
mod tests {
    use super::super::fields::find;
    use super::*;
    use serde_json::json;

    fn now() -> Timestamp {
        "2024-01-02T00:00:00Z".parse().expect("a time")
    }

    fn replica_set(selector: Option<Value>) -> Value {
        let mut spec = json!({"replicas": 2});
        if let Some(selector) = selector {
            spec["selector"] = selector;
        }
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "web", "generation": 1},
               "spec": spec, "status": {"observedGeneration": 1, "replicas": 2}})
    }

    fn crash_looping(unschedulable: bool) -> Value {
        let mut conditions = vec![];
        if unschedulable {
            conditions.push(json!({"type": "PodScheduled", "status": "False",
                                   "reason": "Unschedulable"}));
        }
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1"},
               "status": {"phase": "Running", "conditions": conditions,
                          "containerStatuses": [{"name": "app",
                              "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}})
    }

    #[test]
    fn a_crash_looping_pod_fails_its_replica_set_under_both_rules() {
        let set = replica_set(Some(json!({"matchLabels": {"app": "web"}})));
        let pods = [crash_looping(false), crash_looping(false)];
        for rules in [Rules::Flux, Rules::CliUtils] {
            let result = compute_with_pods_at(&set, &pods, now(), rules);
            assert_eq!(
                result,
                KStatusResult::failed("2 pods have failed"),
                "{rules:?}"
            );
        }
    }

    #[test]
    fn an_unschedulable_failed_pod_counts_only_upstream() {
        let set = replica_set(Some(json!({})));
        let pods = [crash_looping(true)];
        assert_eq!(
            compute_with_pods_at(&set, &pods, now(), Rules::Flux),
            compute_at(&set, now())
        );
        assert_eq!(
            compute_with_pods_at(&set, &pods, now(), Rules::CliUtils),
            KStatusResult::failed("1 pods have failed")
        );
        assert_eq!(Rules::default(), Rules::Flux);
    }

    #[test]
    fn without_a_selector_or_of_another_kind_pods_are_not_read() {
        let pods = [crash_looping(false)];
        let set = replica_set(None);
        assert_eq!(
            compute_with_pods_at(&set, &pods, now(), Rules::CliUtils),
            compute_at(&set, now())
        );
        let mut old = replica_set(Some(json!({})));
        old["apiVersion"] = json!("extensions/v1beta1");
        assert_eq!(
            compute_with_pods_at(&old, &pods, now(), Rules::CliUtils).status,
            KStatus::InProgress
        );
    }

    #[test]
    fn find_is_what_transient_reads() {
        // The fork looks at any PodScheduled=False condition, not only the first.
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "status": {"conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Other"},
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"},
        ]}});
        assert!(transient(&pod));
        let conditions: Vec<_> = Fields::new(&pod).conditions().collect();
        assert_eq!(
            find(&conditions, "PodScheduled", "False").map(|c| c.reason),
            Some("Other")
        );
    }
}
