//! `knative`: knative.dev/pkg's living condition set, `Ready` the happy condition; and the
//! semantics of knative.dev/pkg's `ConditionSet` that `knative` and
//! [`knative_batch`](super::knative_batch) share.
//!
//! Knative reads a condition's severity otherwise than kondition: a condition with no
//! severity (the field absent or `""`) is of severity Error, and only such conditions decide
//! the happy condition; a False condition of severity Info or Warning (any other text too)
//! does not make the resource unready. The happy condition itself carries no severity.
//! [`ConditionSet`] computes the happy condition as `ConditionSet` does; a status of these
//! profiles gets it from the chokepoint after a successful reconcile, its dependents being
//! the status' condition types beside the happy one (`--conditions`).
//!
//! | dependents of severity Error (newest transition first) | happy condition |
//! | --- | --- |
//! | none declared | True |
//! | one is False | False, the newest False one's reason and message |
//! | none is False, one is Unknown | Unknown, the newest Unknown one's reason and message |
//! | fewer present than declared (counting every non-happy condition of severity Error) | Unknown |
//! | all True | True |

use std::cmp::Reverse;

use crate::condition::{Condition, ConditionStatus, Severity};
use crate::conditions::Conditions;
pub use kondition_names::profile::knative::*;

/// Reason of a happy condition that is Unknown because a dependent was never reported
/// (Knative writes none; kondition's own summary writes the same word).
pub const REASON_CONDITION_MISSING: &str = "ConditionMissing";

/// Whether `condition` is of severity Error as Knative reads it: its `severity` absent or
/// `""` on the wire (Knative's `ConditionSeverityError` is the empty string, so even the
/// text `Error` is not).
pub fn is_error(condition: &Condition) -> bool {
    matches!(condition.severity_text(), None | Some(""))
}

/// A knative.dev/pkg `ConditionSet`: the happy condition and the dependents (Knative's
/// terminal conditions) it summarises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionSet {
    happy: String,
    dependents: Vec<String>,
}

/// The happy condition's status as [`ConditionSet`] computes it, and the dependent that
/// decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Happiness<'a> {
    /// True, or False or Unknown.
    pub status: ConditionStatus,
    /// The condition whose status, reason and message the happy condition takes; `None`
    /// when it is True, or Unknown because a dependent is missing.
    pub decided_by: Option<&'a Condition>,
}

impl ConditionSet {
    /// A set whose happy condition is `happy`, with these dependents (the happy condition
    /// and repeats left out).
    pub fn new<I, S>(happy: impl Into<String>, dependents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let happy = happy.into();
        let mut kept: Vec<String> = Vec::new();
        for dependent in dependents.into_iter().map(Into::into) {
            if dependent != happy && !kept.contains(&dependent) {
                kept.push(dependent);
            }
        }
        Self {
            happy,
            dependents: kept,
        }
    }

    /// Knative's living set: `Ready` the happy condition.
    pub fn living<I, S>(dependents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(READY, dependents)
    }

    /// Knative's batch set: `Succeeded` the happy condition.
    pub fn batch<I, S>(dependents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(super::knative_batch::SUCCEEDED, dependents)
    }

    /// The happy condition's type.
    pub fn happy_type(&self) -> &str {
        &self.happy
    }

    /// The dependents, in the order given.
    pub fn dependents(&self) -> &[String] {
        &self.dependents
    }

    /// Whether `type_` is the happy condition or a dependent (Knative's terminal conditions).
    pub fn is_terminal(&self, type_: &str) -> bool {
        type_ == self.happy || self.dependents.iter().any(|d| d == type_)
    }

    /// The severity Knative writes on a condition of `type_`: none (which it reads as Error)
    /// on a terminal condition, Info on any other.
    pub fn severity(&self, type_: &str) -> Severity {
        if self.is_terminal(type_) {
            Severity::None
        } else {
            Severity::Info
        }
    }

    /// The happy condition's status for `conditions`, as Knative computes it when it marks a
    /// dependent (see the [module](self)). Conditions of equal transition times keep their
    /// order in the list.
    pub fn happiness<'a>(&self, conditions: &'a Conditions) -> Happiness<'a> {
        let happy = Happiness {
            status: ConditionStatus::True,
            decided_by: None,
        };
        if self.dependents.is_empty() {
            return happy;
        }
        let mut deciding: Vec<&Condition> = conditions
            .iter()
            .filter(|c| is_error(c) && c.type_ != self.happy)
            .collect();
        deciding.sort_by_key(|c| Reverse(c.last_transition_time.0));
        for status in [ConditionStatus::False, ConditionStatus::Unknown] {
            if let Some(condition) = deciding.iter().find(|c| c.status == status) {
                return Happiness {
                    status,
                    decided_by: Some(condition),
                };
            }
        }
        if deciding.len() != self.dependents.len() {
            return Happiness {
                status: ConditionStatus::Unknown,
                decided_by: None,
            };
        }
        happy
    }

    /// Whether the happy condition in `conditions` is True (Knative's `IsHappy`).
    pub fn is_happy(&self, conditions: &Conditions) -> bool {
        conditions.is_true(&self.happy)
    }

    /// The happy condition for `conditions`, as the chokepoint writes it: True with
    /// `success_reason`, or the deciding dependent's status, reason and message
    /// (`ConditionMissing` when a dependent is missing), never a severity.
    pub fn happy_condition(&self, conditions: &Conditions, success_reason: &str) -> Condition {
        let happiness = self.happiness(conditions);
        match (happiness.status, happiness.decided_by) {
            (ConditionStatus::True, _) => {
                Condition::new(&self.happy, ConditionStatus::True, success_reason)
            }
            (status, Some(dependent)) => {
                // Knative's reason may be empty, which the API server's rule for a reason
                // (kondition's too) refuses: the dependent's type says who decided.
                let reason = if dependent.reason.is_empty() {
                    crate::validation::sanitize_reason(&dependent.type_)
                } else {
                    dependent.reason.clone()
                };
                Condition::new(&self.happy, status, reason).with_message(&dependent.message)
            }
            (status, None) => Condition::new(&self.happy, status, REASON_CONDITION_MISSING)
                .with_message("a dependent condition has not been reported"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Time;
    use ConditionStatus::False;
    use k8s_openapi::jiff::Timestamp;

    /// One condition of a row as the table writes it.
    #[derive(serde::Deserialize)]
    struct In {
        #[serde(rename = "type")]
        type_: String,
        status: ConditionStatus,
        severity: Option<String>,
        second: i64,
    }

    /// One row: the set (its happy condition and dependents) and the conditions in, the
    /// happy status and the condition that decided it out.
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        name: String,
        happy: String,
        dependents: Vec<String>,
        conditions: Vec<In>,
        status: ConditionStatus,
        decided_by: Option<String>,
    }

    /// A list read from the wire, as another writer (Knative's code) left it: each
    /// condition's reason `<type>Reason`, its message `<type> says so`.
    fn read(conditions: &[In]) -> Conditions {
        let items: Vec<serde_json::Value> = conditions
            .iter()
            .map(|c| {
                let time = Time(Timestamp::from_second(c.second).expect("a time"));
                let mut item = serde_json::json!({
                    "type": c.type_, "status": c.status, "reason": format!("{}Reason", c.type_),
                    "message": format!("{} says so", c.type_), "lastTransitionTime": time,
                });
                if let Some(severity) = &c.severity {
                    item["severity"] = serde_json::json!(severity);
                }
                item
            })
            .collect();
        serde_json::from_value(serde_json::Value::Array(items)).expect("a list")
    }

    /// A list of `(type, status, severity, second)`.
    fn list(conditions: &[(&str, ConditionStatus, Option<&str>, i64)]) -> Conditions {
        let conditions: Vec<In> = conditions
            .iter()
            .map(|(type_, status, severity, second)| In {
                type_: (*type_).to_owned(),
                status: *status,
                severity: severity.map(str::to_owned),
                second: *second,
            })
            .collect();
        read(&conditions)
    }

    /// The readiness table (`knative_readiness.json`): each row the set's dependents and the
    /// conditions in, the happy status and the condition that decided it out, as
    /// knative.dev/pkg's `ConditionSet` computes them (`findUnhappyDependent`, which
    /// `markHappy` runs when a condition is marked). `tests/knative/` checks every row
    /// against knative.dev/pkg itself: `(cd tests/knative && go run . <
    /// ../../runtime/src/profile/knative_readiness.json)`. A row named "quirk" is Knative's
    /// behaviour kept as it is.
    #[test]
    fn the_readiness_table_follows_knatives_condition_set() {
        let rows: Vec<Row> =
            serde_json::from_str(include_str!("knative_readiness.json")).expect("the table");
        assert!(rows.len() >= 19);
        for row in rows {
            let name = &row.name;
            let set = ConditionSet::new(
                row.happy.as_str(),
                row.dependents.iter().map(String::as_str),
            );
            let conditions = read(&row.conditions);
            let happiness = set.happiness(&conditions);
            assert_eq!(happiness.status, row.status, "{name}");
            assert_eq!(
                happiness.decided_by.map(|c| c.type_.as_str()),
                row.decided_by.as_deref(),
                "{name}"
            );
            let happy = set.happy_condition(&conditions, REASON_SUCCEEDED);
            assert_eq!(happy.status, row.status, "{name}");
            assert_eq!(happy.severity_text(), None, "{name}: no severity written");
            assert!(happy.is_valid(), "{name}: {happy:?}");
            if let Some(decided_by) = &row.decided_by {
                assert_eq!(happy.reason, format!("{decided_by}Reason"), "{name}");
                assert_eq!(happy.message, format!("{decided_by} says so"), "{name}");
            }
        }
    }

    #[test]
    fn severities_as_knative_writes_them() {
        let set = ConditionSet::batch(["A", "Succeeded", "A"]);
        assert_eq!(set.happy_type(), "Succeeded");
        assert_eq!(set.dependents(), ["A"]);
        assert_eq!(set.severity("Succeeded"), Severity::None);
        assert_eq!(set.severity("A"), Severity::None);
        assert_eq!(set.severity("Other"), Severity::Info);
        // An empty reason of the deciding dependent becomes its type.
        let mut conditions = list(&[("A", False, None, 1)]);
        conditions.update_each(|c| c.reason.clear());
        let happy = set.happy_condition(&conditions, "Succeeded");
        assert_eq!((happy.status, happy.reason.as_str()), (False, "A"));
    }
}
