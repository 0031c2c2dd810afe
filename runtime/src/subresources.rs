//! The SubResourcesReady condition: one condition for everything a resource manages inside
//! it (a SecurityGroup's rules, a Router's interfaces and routes), after ORC's enhancement.
//!
//! The Kubernetes objects a resource owns are sub-resources too: [`SubResources::object`]
//! records any object (k8s-openapi's `Deployment`, a `DynamicObject`, a custom resource) by
//! its [kstatus](crate::kstatus) result, so an operator needs no readiness rule of its own.

use std::fmt::Write;

use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::kstatus::{KStatus, KStatusResult, ObjectResult};

/// The condition type.
pub const SUB_RESOURCES_READY: &str = "SubResourcesReady";
/// Reason: every sub-resource is in its desired state.
pub const REASON_SUB_RESOURCES_READY: &str = "SubResourcesReady";
/// Reason: some sub-resources are still being reconciled, none failed.
pub const REASON_SUB_RESOURCES_PENDING: &str = "SubResourcesPending";
/// Reason: exactly one sub-resource failed.
pub const REASON_SUB_RESOURCE_FAILED: &str = "SubResourceFailed";
/// Reason: more than one sub-resource failed.
pub const REASON_MULTIPLE_FAILURES: &str = "MultipleFailures";

/// How many sub-resources a message names before it says "and K more".
pub const DEFAULT_MAX_LISTED: usize = 5;
/// The most bytes of one failure's detail a message quotes.
pub const MAX_DETAIL_BYTES: usize = 256;

/// Where one sub-resource stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubResourceState {
    /// In its desired state.
    Ready,
    /// Still being created or updated.
    Pending,
    /// Failed, with what went wrong.
    Failed {
        /// A short explanation, such as "invalid CIDR".
        message: String,
        /// Whether the controller retries by itself.
        retryable: bool,
    },
}

/// One sub-resource's result from a reconcile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubResource {
    /// What kind of sub-resource, as users know it ("Rule", "Interface").
    pub kind: String,
    /// Its name or another identifier users recognise ("allow-ssh").
    pub name: String,
    /// Where it stands.
    pub state: SubResourceState,
}

impl SubResource {
    fn label(&self) -> String {
        format!("{} '{}'", self.kind, self.name)
    }
}

/// An owned object's kstatus result as a sub-resource's state: Current is ready,
/// InProgress and Terminating are pending, Failed is failed with kstatus's message. Failed is
/// kstatus's Stalled (a Deployment past its progress deadline, a failed Job, a crash-looping
/// Pod): nothing changes until someone acts, so it is not retryable.
impl From<&KStatusResult> for SubResourceState {
    fn from(result: &KStatusResult) -> Self {
        match result.status {
            KStatus::Current => Self::Ready,
            KStatus::InProgress | KStatus::Terminating => Self::Pending,
            KStatus::Failed => Self::Failed {
                message: result.message.clone(),
                retryable: false,
            },
        }
    }
}

impl From<&ObjectResult> for SubResource {
    fn from(object: &ObjectResult) -> Self {
        Self {
            kind: object.kind.clone(),
            name: object.name.clone(),
            state: (&object.result).into(),
        }
    }
}

/// The results of every sub-resource of one object, turned into SubResourcesReady.
///
/// ```
/// use kondition::{ConditionStatus, SubResources};
///
/// let mut rules = SubResources::new();
/// rules.failed("Rule", "allow-ssh", "invalid CIDR", false);
/// rules.failed("Rule", "allow-http", "port out of range", false);
/// rules.ready("Rule", "allow-https");
/// let condition = rules.condition(Some(2));
/// assert_eq!(condition.status, ConditionStatus::False);
/// assert_eq!(condition.reason, "MultipleFailures");
/// assert_eq!(
///     condition.message,
///     "2 sub-resources failed: Rule 'allow-ssh' (invalid CIDR), Rule 'allow-http' (port out of range)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubResources {
    items: Vec<SubResource>,
    /// Why each item is pending, when known (an owned object's kstatus message); in step
    /// with `items`.
    pending_details: Vec<Option<String>>,
    max_listed: usize,
}

impl Default for SubResources {
    fn default() -> Self {
        Self::new()
    }
}

impl SubResources {
    /// No sub-resources yet; messages name at most [`DEFAULT_MAX_LISTED`].
    pub fn new() -> Self {
        Self {
            items: Vec::new(),
            pending_details: Vec::new(),
            max_listed: DEFAULT_MAX_LISTED,
        }
    }

    /// How many sub-resources a message names before "and K more" (at least one).
    #[must_use]
    pub fn max_listed(mut self, max_listed: usize) -> Self {
        self.max_listed = max_listed.max(1);
        self
    }

    /// Records a result.
    pub fn push(&mut self, sub_resource: SubResource) -> &mut Self {
        self.items.push(sub_resource);
        self.pending_details.push(None);
        self
    }

    /// Records an object the resource owns, of any kind, typed or dynamic, by its kstatus
    /// result at the system clock's time: Current is ready, InProgress and Terminating are
    /// pending (with kstatus's message saying why), Failed is failed with kstatus's message.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Service;
    /// use kondition::{ConditionStatus, SubResources};
    ///
    /// let mut web = Service::default();
    /// web.metadata.name = Some("web".into());
    /// let mut children = SubResources::new();
    /// children.object(&web);
    /// let condition = children.condition(None);
    /// assert_eq!(condition.status, ConditionStatus::True);
    /// assert_eq!(condition.reason, "SubResourcesReady");
    /// ```
    pub fn object<K: Serialize + ?Sized>(&mut self, object: &K) -> &mut Self {
        self.object_at(object, Timestamp::now())
    }

    /// [`object`](Self::object) with `now` as the time for the kstatus rules that depend
    /// on it.
    pub fn object_at<K: Serialize + ?Sized>(&mut self, object: &K, now: Timestamp) -> &mut Self {
        self.object_result(&ObjectResult::of_at(object, now))
    }

    /// Records an object by a kstatus result already computed.
    pub fn object_result(&mut self, object: &ObjectResult) -> &mut Self {
        let sub_resource = SubResource::from(object);
        let detail = (sub_resource.state == SubResourceState::Pending)
            .then(|| object.result.message.clone());
        self.items.push(sub_resource);
        self.pending_details.push(detail);
        self
    }

    /// Records a sub-resource in its desired state.
    pub fn ready(&mut self, kind: &str, name: &str) -> &mut Self {
        self.record(kind, name, SubResourceState::Ready)
    }

    /// Records a sub-resource still being reconciled.
    pub fn pending(&mut self, kind: &str, name: &str) -> &mut Self {
        self.record(kind, name, SubResourceState::Pending)
    }

    /// Records a failed sub-resource.
    pub fn failed(&mut self, kind: &str, name: &str, message: &str, retryable: bool) -> &mut Self {
        let state = SubResourceState::Failed {
            message: message.to_owned(),
            retryable,
        };
        self.record(kind, name, state)
    }

    fn record(&mut self, kind: &str, name: &str, state: SubResourceState) -> &mut Self {
        self.push(SubResource {
            kind: kind.to_owned(),
            name: name.to_owned(),
            state,
        })
    }

    /// Every result recorded, in order.
    pub fn items(&self) -> &[SubResource] {
        &self.items
    }

    /// Whether every sub-resource is ready (true when there are none).
    pub fn all_ready(&self) -> bool {
        self.items
            .iter()
            .all(|s| s.state == SubResourceState::Ready)
    }

    /// Whether any sub-resource is still being reconciled.
    pub fn any_pending(&self) -> bool {
        self.items
            .iter()
            .any(|s| s.state == SubResourceState::Pending)
    }

    /// Whether any sub-resource failed.
    pub fn any_failed(&self) -> bool {
        self.failures().next().is_some()
    }

    fn failures(&self) -> impl Iterator<Item = (&SubResource, &str, bool)> {
        self.items.iter().filter_map(|s| match &s.state {
            SubResourceState::Failed { message, retryable } => {
                Some((s, message.as_str(), *retryable))
            }
            _ => None,
        })
    }

    /// The SubResourcesReady condition.
    ///
    /// Failures come first: one is `SubResourceFailed` ("Rule 'allow-ssh' failed: invalid
    /// CIDR"), several are `MultipleFailures` ("2 sub-resources failed: Rule 'a' (x), Rule 'b'
    /// (y)"); severity Warning if any is retryable, else Error. Then pending ones:
    /// `SubResourcesPending`, Info. Else True, `SubResourcesReady`. Messages name at most
    /// `max_listed` sub-resources, end with "and K more", and quote at most
    /// [`MAX_DETAIL_BYTES`] of each failure.
    pub fn condition(&self, observed_generation: Option<i64>) -> Condition {
        let failures: Vec<_> = self.failures().collect();
        let mut condition = match failures.as_slice() {
            [] if self.any_pending() => {
                let pending: Vec<String> = self
                    .items
                    .iter()
                    .zip(&self.pending_details)
                    .filter(|(s, _)| s.state == SubResourceState::Pending)
                    .map(|(s, detail)| match detail {
                        Some(detail) => format!("{} ({})", s.label(), bounded_detail(detail)),
                        None => s.label(),
                    })
                    .collect();
                let message = format!(
                    "{} of {} sub-resources pending: {}",
                    pending.len(),
                    self.items.len(),
                    self.bounded_list(&pending)
                );
                Condition::new(
                    SUB_RESOURCES_READY,
                    ConditionStatus::False,
                    REASON_SUB_RESOURCES_PENDING,
                )
                .with_severity(Severity::Info)
                .with_message(message)
            }
            [] => Condition::new(
                SUB_RESOURCES_READY,
                ConditionStatus::True,
                REASON_SUB_RESOURCES_READY,
            )
            .with_message("All sub-resources are ready"),
            [(sub, detail, _)] => Condition::new(
                SUB_RESOURCES_READY,
                ConditionStatus::False,
                REASON_SUB_RESOURCE_FAILED,
            )
            .with_message(format!(
                "{} failed: {}",
                sub.label(),
                bounded_detail(detail)
            )),
            many => {
                let listed: Vec<String> = many
                    .iter()
                    .map(|(sub, detail, _)| format!("{} ({})", sub.label(), bounded_detail(detail)))
                    .collect();
                let message = format!(
                    "{} sub-resources failed: {}",
                    many.len(),
                    self.bounded_list(&listed)
                );
                Condition::new(
                    SUB_RESOURCES_READY,
                    ConditionStatus::False,
                    REASON_MULTIPLE_FAILURES,
                )
                .with_message(message)
            }
        };
        if !failures.is_empty() {
            let retryable = failures.iter().any(|(_, _, retryable)| *retryable);
            condition.severity = if retryable {
                Severity::Warning
            } else {
                Severity::Error
            };
        }
        condition.observed_generation = observed_generation;
        condition
    }

    fn bounded_list(&self, entries: &[String]) -> String {
        let mut list = entries[..entries.len().min(self.max_listed)].join(", ");
        let rest = entries.len().saturating_sub(self.max_listed);
        if rest > 0 {
            let _ = write!(list, ", and {rest} more");
        }
        list
    }
}

/// At most [`MAX_DETAIL_BYTES`] of a failure's detail, cut at a character boundary.
fn bounded_detail(detail: &str) -> std::borrow::Cow<'_, str> {
    if detail.len() <= MAX_DETAIL_BYTES {
        return detail.into();
    }
    let mut cut = MAX_DETAIL_BYTES - 3;
    while !detail.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &detail[..cut]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_sub_resources_or_all_ready_is_true() {
        for subs in [SubResources::new(), {
            let mut s = SubResources::new();
            s.ready("Rule", "a").ready("Rule", "b");
            s
        }] {
            assert!(subs.all_ready() && !subs.any_pending() && !subs.any_failed());
            let condition = subs.condition(Some(1));
            assert_eq!(condition.status, ConditionStatus::True);
            assert_eq!(condition.reason, REASON_SUB_RESOURCES_READY);
            assert_eq!(condition.severity, Severity::None);
            assert_eq!(condition.message, "All sub-resources are ready");
            assert_eq!(condition.observed_generation, Some(1));
        }
    }

    #[test]
    fn pending_sub_resources_are_named() {
        let mut subs = SubResources::new();
        subs.ready("Interface", "ext")
            .pending("Interface", "int")
            .pending("Route", "default");
        assert!(subs.any_pending() && !subs.any_failed() && !subs.all_ready());
        let condition = subs.condition(None);
        assert_eq!(condition.status, ConditionStatus::False);
        assert_eq!(condition.reason, REASON_SUB_RESOURCES_PENDING);
        assert_eq!(condition.severity, Severity::Info);
        assert_eq!(
            condition.message,
            "2 of 3 sub-resources pending: Interface 'int', Route 'default'"
        );
    }

    #[test]
    fn one_failure_names_it_with_its_detail() {
        let mut subs = SubResources::new();
        subs.ready("Rule", "allow-https")
            .pending("Rule", "allow-dns")
            .failed(
                "Rule",
                "allow-ssh",
                "invalid CIDR format for remoteIPPrefix",
                true,
            );
        let condition = subs.condition(None);
        assert_eq!(condition.reason, REASON_SUB_RESOURCE_FAILED);
        assert_eq!(condition.severity, Severity::Warning);
        assert_eq!(
            condition.message,
            "Rule 'allow-ssh' failed: invalid CIDR format for remoteIPPrefix"
        );
    }

    #[test]
    fn many_failures_aggregate_and_stay_bounded() {
        let mut subs = SubResources::new().max_listed(2);
        for i in 0..7 {
            subs.failed("Rule", &format!("r{i}"), "quota exceeded", i == 6);
        }
        let condition = subs.condition(None);
        assert_eq!(condition.reason, REASON_MULTIPLE_FAILURES);
        assert_eq!(condition.severity, Severity::Warning);
        assert_eq!(
            condition.message,
            "7 sub-resources failed: Rule 'r0' (quota exceeded), Rule 'r1' (quota exceeded), and 5 more"
        );
    }

    #[test]
    fn fatal_failures_are_errors_and_long_details_are_cut() {
        let mut subs = SubResources::new();
        subs.failed("Rule", "huge", &"é".repeat(1000), false);
        let condition = subs.condition(None);
        assert_eq!(condition.severity, Severity::Error);
        let detail = condition
            .message
            .strip_prefix("Rule 'huge' failed: ")
            .expect("prefix");
        assert!(detail.len() <= MAX_DETAIL_BYTES, "{}", detail.len());
        assert!(detail.ends_with("..."));
    }

    #[test]
    fn fifty_failures_fit_in_a_short_message() {
        let mut subs = SubResources::new();
        for i in 0..50 {
            subs.failed("Rule", &format!("rule-{i}"), &"x".repeat(10_000), true);
        }
        let condition = subs.condition(None);
        assert!(condition.message.starts_with("50 sub-resources failed: "));
        assert!(condition.message.ends_with(", and 45 more"));
        assert!(
            condition.message.len() < 2 * 1024,
            "{}",
            condition.message.len()
        );
        assert!(condition.is_valid());
    }

    /// Owned objects: one typed Deployment short of ready replicas, one dynamic Service.
    fn deployment(ready: i64) -> k8s_openapi::api::apps::v1::Deployment {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "generation": 1},
            "spec": {"replicas": 2, "selector": {}, "template": {}},
            "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2,
                       "availableReplicas": 2, "readyReplicas": ready,
                       "conditions": [
                           {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
                           {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}
        }))
        .expect("a Deployment")
    }

    fn service() -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Service",
                           "metadata": {"name": "web"}, "spec": {"type": "ClusterIP"}})
    }

    fn now() -> Timestamp {
        "2024-01-01T00:00:00Z".parse().expect("a time")
    }

    #[test]
    fn owned_objects_that_are_current_are_ready() {
        let mut children = SubResources::new();
        children
            .object_at(&deployment(2), now())
            .object_at(&service(), now());
        assert_eq!(
            children.items(),
            [
                SubResource {
                    kind: "Deployment".into(),
                    name: "web".into(),
                    state: SubResourceState::Ready
                },
                SubResource {
                    kind: "Service".into(),
                    name: "web".into(),
                    state: SubResourceState::Ready
                },
            ]
        );
        let condition = children.condition(Some(4));
        assert_eq!(condition.status, ConditionStatus::True);
        assert_eq!(condition.reason, REASON_SUB_RESOURCES_READY);
        assert_eq!(condition.observed_generation, Some(4));
    }

    #[test]
    fn an_owned_object_in_progress_is_pending_and_says_why() {
        let mut children = SubResources::new();
        children
            .object_at(&service(), now())
            .object_at(&deployment(1), now());
        let condition = children.condition(None);
        assert_eq!(condition.status, ConditionStatus::False);
        assert_eq!(condition.reason, REASON_SUB_RESOURCES_PENDING);
        assert_eq!(condition.severity, Severity::Info);
        assert_eq!(
            condition.message,
            "1 of 2 sub-resources pending: Deployment 'web' (Ready: 1/2)"
        );
    }

    #[test]
    fn a_terminating_object_is_pending() {
        let mut service = service();
        service["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z".into();
        let mut children = SubResources::new();
        children.object_at(&service, now());
        assert_eq!(children.items()[0].state, SubResourceState::Pending);
        assert_eq!(
            children.condition(None).message,
            "1 of 1 sub-resources pending: Service 'web' (Resource scheduled for deletion)"
        );
    }

    #[test]
    fn a_failed_object_fails_with_kstatus_message_and_is_not_retryable() {
        let job = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "migrate"},
            "status": {"failed": 6, "conditions": [
                {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                 "message": "Job has reached the specified backoff limit"}]}});
        let mut children = SubResources::new();
        children.object_at(&service(), now()).object_at(&job, now());
        assert_eq!(
            children.items()[1].state,
            SubResourceState::Failed {
                message: "Job Failed. failed: 6/1".into(),
                retryable: false
            }
        );
        let condition = children.condition(None);
        assert_eq!(condition.reason, REASON_SUB_RESOURCE_FAILED);
        assert_eq!(condition.severity, Severity::Error);
        assert!(
            condition
                .message
                .starts_with("Job 'migrate' failed: Job Failed. failed: 6/1"),
            "{}",
            condition.message
        );
    }

    #[test]
    fn recorded_results_and_hand_made_ones_mix() {
        let mut children = SubResources::new();
        children
            .pending("Rule", "allow-ssh")
            .object_result(&ObjectResult::of_at(&deployment(0), now()));
        assert_eq!(
            children.condition(None).message,
            "2 of 2 sub-resources pending: Rule 'allow-ssh', Deployment 'web' (Ready: 0/2)"
        );
    }
}
