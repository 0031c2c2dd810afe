//! Conditions made from other conditions by Cluster API v1beta2's rules (`util/conditions`
//! of `sigs.k8s.io/cluster-api` v1.14), for operators with children:
//!
//! - [`Mirror`]: one condition of another object, copied as it is (its type changed if
//!   asked), or a stand-in when that object has not reported it yet.
//! - [`Aggregate`]: one condition type across many objects, merged into one condition whose
//!   message names the objects by kind, grouped by message, bounded: at most three messages,
//!   at most three objects named for each, then counts ("* Machines m1, m2, m3, ... (2 more):
//!   not ready", "And 2 Machines with other issues").
//! - [`MergedSummary`]: several conditions of one object merged into one, every issue named
//!   ("* Available: ...\n* Progressing: ..."), where kondition's [`Summary`](crate::Summary)
//!   lets the worst dependent speak alone.
//!
//! Aggregate and MergedSummary share a [`MergeStrategy`]: each condition is an issue, unknown
//! or info ([`Priority`]: by default, by its status and polarity); the merged condition is
//! False when there is an issue, else Unknown when something is unknown, else True (the
//! other way round for a target of negative polarity), with a reason naming the group that
//! decided (`IssuesReported`, `UnknownReported`, `InfoReported` unless the strategy names
//! others).
//!
//! What differs from Cluster API, so that every condition made here passes kondition's own
//! validation: a copied reason that is not a valid reason is made one with
//! [`sanitize_reason`](crate::validation::sanitize_reason) (`AllGood!` becomes `AllGood`),
//! messages are cut to the API server's limit with the visible marker, and options Cluster
//! API refuses at run time (negative polarity named for another type than the aggregated
//! one) cannot be expressed. Plural kinds in messages follow English's regular rules
//! (`Machine` to `Machines`, `Policy` to `Policies`, `Ingress` to `Ingresses`), where Cluster
//! API asks a pluralization library with a table of irregular words.

mod aggregate;
mod mirror;
mod summary;

use std::fmt;

use crate::condition::{Condition, ConditionStatus, NegativeTypes, Polarity};

pub use aggregate::Aggregate;
pub use mirror::Mirror;
pub use summary::MergedSummary;

/// The reason of a condition made up for one that an object has not reported yet.
pub const REASON_NOT_YET_REPORTED: &str = "NotYetReported";
/// The default reason of a merged condition when a merged condition is an issue.
pub const REASON_ISSUES_REPORTED: &str = "IssuesReported";
/// The default reason of a merged condition when, with no issue, one is Unknown.
pub const REASON_UNKNOWN_REPORTED: &str = "UnknownReported";
/// The default reason of a merged condition when every merged condition is fine.
pub const REASON_INFO_REPORTED: &str = "InfoReported";

/// How a condition counts in a merge, most important first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Not in its healthy state: a positive condition False, a negative one True.
    Issue,
    /// Unknown (or any other status).
    Unknown,
    /// In its healthy state.
    Info,
}

/// The object a condition comes from, as messages name it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Owner {
    /// Its kind (`Machine`).
    pub kind: String,
    /// Its name.
    pub name: String,
    /// Whether it is a control plane Machine: its messages and name come first.
    pub control_plane_machine: bool,
}

/// The label that marks a Machine as one of the control plane, in Cluster API.
pub const CONTROL_PLANE_LABEL: &str = "cluster.x-k8s.io/control-plane";

impl Owner {
    /// An object of the given kind and name (not a control plane Machine).
    pub fn new(kind: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            name: name.into(),
            control_plane_machine: false,
        }
    }

    /// A Kubernetes object: its kind and name, and, as Cluster API does, whether it is a
    /// `Machine` with the [`CONTROL_PLANE_LABEL`].
    pub fn of<K: kube_core::Resource>(object: &K, dynamic_type: &K::DynamicType) -> Self {
        let kind = K::kind(dynamic_type).into_owned();
        let meta = object.meta();
        let control_plane_machine = kind == "Machine"
            && meta
                .labels
                .as_ref()
                .is_some_and(|labels| labels.contains_key(CONTROL_PLANE_LABEL));
        Self {
            kind,
            name: meta.name.clone().unwrap_or_default(),
            control_plane_machine,
        }
    }

    /// Marks it as a control plane Machine.
    #[must_use]
    pub fn control_plane_machine(mut self) -> Self {
        self.control_plane_machine = true;
        self
    }
}

/// Why a merge cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// An aggregate of no objects.
    NoObjects,
    /// A merged summary without condition types to merge.
    NoConditionTypes,
    /// A merged summary whose condition types include its own type.
    MergesItself(String),
    /// An override given twice for one condition type.
    OverriddenTwice(String),
    /// An override for a condition type the object does not have.
    OverrideOfMissing(String),
    /// Nothing left to merge (every type missing and ignored).
    NothingToMerge,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoObjects => f.write_str("an aggregate needs at least one object"),
            Self::NoConditionTypes => f.write_str("a merged summary needs condition types"),
            Self::MergesItself(type_) => {
                write!(
                    f,
                    "a merged summary of type {type_} cannot merge {type_} itself"
                )
            }
            Self::OverriddenTwice(type_) => write!(f, "condition {type_} is overridden twice"),
            Self::OverrideOfMissing(type_) => {
                write!(
                    f,
                    "condition {type_} is overridden but the object does not have it"
                )
            }
            Self::NothingToMerge => f.write_str("no condition is left to merge"),
        }
    }
}

impl std::error::Error for MergeError {}

/// Which merge a strategy is asked for: the messages differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operation {
    Summary,
    Aggregate,
}

/// A condition taking part in a merge, with the object it comes from.
#[derive(Clone, Debug)]
struct Owned {
    owner: Owner,
    condition: Condition,
}

/// Cluster API's default merge strategy, with its options.
#[derive(Clone, Debug)]
pub struct MergeStrategy {
    negative_polarity: NegativeTypes,
    priority: Option<fn(&Condition) -> Priority>,
    target: Polarity,
    reasons: [String; 3],
    summary_messages: Option<fn(Vec<String>) -> Vec<String>>,
}

impl Default for MergeStrategy {
    fn default() -> Self {
        Self::new()
    }
}

impl MergeStrategy {
    /// Every condition of positive polarity, a target of positive polarity, the generic
    /// reasons.
    pub fn new() -> Self {
        Self {
            negative_polarity: NegativeTypes::new(),
            priority: None,
            target: Polarity::Positive,
            reasons: [
                REASON_ISSUES_REPORTED.to_owned(),
                REASON_UNKNOWN_REPORTED.to_owned(),
                REASON_INFO_REPORTED.to_owned(),
            ],
            summary_messages: None,
        }
    }

    /// Condition types whose healthy status is False (an issue when True).
    #[must_use]
    pub fn negative_polarity<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.negative_polarity.extend(types);
        self
    }

    /// How each condition counts, instead of by status and polarity.
    #[must_use]
    pub fn priority(mut self, priority: fn(&Condition) -> Priority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// The polarity of the merged condition: Negative makes an issue True and all fine
    /// False.
    #[must_use]
    pub fn target_polarity(mut self, polarity: Polarity) -> Self {
        self.target = polarity;
        self
    }

    /// The reasons of the merged condition when an issue, an unknown, or only info decides.
    #[must_use]
    pub fn reasons(
        mut self,
        issue: impl Into<String>,
        unknown: impl Into<String>,
        info: impl Into<String>,
    ) -> Self {
        self.reasons = [issue.into(), unknown.into(), info.into()];
        self
    }

    /// Rewrites a merged summary's message lines (one per condition) before they are joined.
    #[must_use]
    pub fn summary_messages(mut self, transform: fn(Vec<String>) -> Vec<String>) -> Self {
        self.summary_messages = Some(transform);
        self
    }

    /// How `condition` counts under this strategy.
    pub fn priority_of(&self, condition: &Condition) -> Priority {
        if let Some(priority) = self.priority {
            return priority(condition);
        }
        let negative = self.negative_polarity.contains(&condition.type_);
        match (condition.status, negative) {
            (ConditionStatus::True, false) | (ConditionStatus::False, true) => Priority::Info,
            (ConditionStatus::False, false) | (ConditionStatus::True, true) => Priority::Issue,
            (ConditionStatus::Unknown, _) => Priority::Unknown,
        }
    }

    /// Status, reason and message of the merge of `conditions` (not empty), the types in
    /// `order` of relevance.
    fn merge(
        &self,
        operation: Operation,
        mut conditions: Vec<Owned>,
        order: &[String],
    ) -> (ConditionStatus, String, String) {
        // The order of relevance the caller gave (stable: objects keep their order).
        let rank = |c: &Owned| {
            order
                .iter()
                .position(|t| *t == c.condition.type_)
                .unwrap_or(0)
        };
        conditions.sort_by_key(rank);
        let in_group = |priority| -> Vec<&Owned> {
            conditions
                .iter()
                .filter(|c| self.priority_of(&c.condition) == priority)
                .collect()
        };
        let (issues, unknown, info) = (
            in_group(Priority::Issue),
            in_group(Priority::Unknown),
            in_group(Priority::Info),
        );
        let (status, reason) = if !issues.is_empty() {
            (self.target.unhealthy_status(), &self.reasons[0])
        } else if !unknown.is_empty() {
            (ConditionStatus::Unknown, &self.reasons[1])
        } else {
            (self.target.healthy_status(), &self.reasons[2])
        };
        let message = match operation {
            Operation::Summary => self.summary_message(&conditions, status),
            Operation::Aggregate => {
                let mut budget = MESSAGES;
                let lines = if issues.is_empty() && unknown.is_empty() {
                    aggregate::messages(self, &info, &mut budget, true)
                } else {
                    let troubled: Vec<&Owned> = issues.into_iter().chain(unknown).collect();
                    aggregate::messages(self, &troubled, &mut budget, false)
                };
                lines.join("\n")
            }
        };
        (status, reason.clone(), message)
    }

    /// Every issue's and unknown's message, one bullet each in the order of relevance, and
    /// the info ones (those with a message) only when the merged condition is True.
    fn summary_message(&self, conditions: &[Owned], status: ConditionStatus) -> String {
        let mut lines = Vec::new();
        for Owned { condition, .. } in conditions {
            if self.priority_of(condition) == Priority::Info
                && (status != ConditionStatus::True || condition.message.is_empty())
            {
                continue;
            }
            let text = if condition.message.is_empty() {
                format!(" {}", condition.reason)
            } else {
                indent_if_multiline(&condition.message)
            };
            lines.push(format!("* {}:{text}", condition.type_));
        }
        if let Some(transform) = self.summary_messages {
            lines = transform(lines);
        }
        lines.join("\n")
    }
}

/// How many messages an aggregate shows (Cluster API's: a control plane has three Machines).
const MESSAGES: usize = 3;

impl Polarity {
    /// The status that means something is wrong for a condition of this polarity.
    const fn unhealthy_status(self) -> ConditionStatus {
        match self {
            Self::Positive => ConditionStatus::False,
            Self::Negative => ConditionStatus::True,
        }
    }
}

/// Whether a line holds a bullet: a `*` followed by white space, anywhere in it (Cluster
/// API's test, unanchored).
fn has_bullet(line: &str) -> bool {
    line.as_bytes()
        .windows(2)
        .any(|pair| pair[0] == b'*' && matches!(pair[1], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'))
}

/// A message after a `*` heading: on the same line when it is one line without a bullet,
/// else on the next lines, indented, each line made a bullet (lines that are bullets
/// already indented once more when others are not).
fn indent_if_multiline(message: &str) -> String {
    if !message.contains('\n') && !has_bullet(message) {
        return format!(" {message}");
    }
    let lines: Vec<&str> = message.split('\n').collect();
    let unbulleted = lines.iter().any(|line| !has_bullet(line));
    let indented: Vec<String> = lines
        .iter()
        .map(|line| match (unbulleted, has_bullet(line)) {
            (false, _) => format!("  {line}"),
            (true, false) => format!("  * {line}"),
            (true, true) => format!("    {line}"),
        })
        .collect();
    format!("\n{}", indented.join("\n"))
}

/// A kind in the plural, by English's regular rules.
fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        return format!("{kind}es");
    }
    let mut chars = lower.chars().rev();
    if let (Some('y'), Some(before)) = (chars.next(), chars.next())
        && !"aeiou".contains(before)
    {
        return format!("{}ies", &kind[..kind.len() - 1]);
    }
    format!("{kind}s")
}

/// A merged condition in the form kondition stores: a valid reason, a bounded message.
fn finish(type_: &str, status: ConditionStatus, reason: &str, message: String) -> Condition {
    let mut condition = Condition::new(type_, status, crate::validation::sanitize_reason(reason))
        .with_message(message);
    condition.normalize();
    condition
}

/// The condition Cluster API makes up for one that was not reported.
fn not_yet_reported(type_: &str, message: String) -> Condition {
    let mut condition = Condition::new(type_, ConditionStatus::Unknown, REASON_NOT_YET_REPORTED)
        .with_message(message);
    // Older than any reported condition, as Cluster API's zero time is.
    condition.last_transition_time = crate::Time(k8s_openapi::jiff::Timestamp::MIN);
    condition
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_the_regular_rules() {
        for (kind, plural_) in [
            ("Machine", "Machines"),
            ("Phase3Obj", "Phase3Objs"),
            ("Policy", "Policies"),
            ("Gateway", "Gateways"),
            ("Ingress", "Ingresses"),
            ("Box", "Boxes"),
            ("Match", "Matches"),
        ] {
            assert_eq!(plural(kind), plural_);
        }
    }

    #[test]
    fn messages_are_indented_as_cluster_api_indents_them() {
        assert_eq!(indent_if_multiline("plain"), " plain");
        assert_eq!(indent_if_multiline("* one"), "\n  * one");
        assert_eq!(indent_if_multiline("* a\n* b"), "\n  * a\n  * b");
        assert_eq!(indent_if_multiline("a\n* b"), "\n  * a\n    * b");
        assert_eq!(indent_if_multiline("a*b"), " a*b");
    }
}
