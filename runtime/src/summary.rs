//! One condition (usually Ready) summarizing others, as knative's living condition set and
//! Cluster API's summary do: the worst dependent wins and its reason and message flow up.

use crate::condition::{Condition, ConditionStatus, Polarity, Severity};

use crate::conditions::Conditions;

/// The reason of a summary that is Unknown because a dependent was never reported.
pub const REASON_CONDITION_MISSING: &str = "ConditionMissing";

/// Computes a summary condition from dependent conditions.
///
/// Each dependent is ranked, best to worst: healthy; missing; Unknown; unhealthy with
/// severity Info, None, Warning, then Error. The worst decides (the first listed, on a tie):
///
/// | worst dependent | summary |
/// | --- | --- |
/// | all healthy | True, the success reason and message |
/// | missing | Unknown, `ConditionMissing` |
/// | Unknown | Unknown, its reason and message |
/// | unhealthy | False, its reason, message and severity |
///
/// A negative-polarity dependent (Stalled, Degraded) is healthy when False.
///
/// Cluster API's way, every issue named in the message with a reason for the group that
/// decided, types ignored when missing, overrides and priorities of the caller's, is
/// [`merge::MergedSummary`](crate::merge::MergedSummary).
///
/// ```
/// use kondition::{Condition, ConditionStatus::*, Conditions, Summary};
///
/// let conditions: Conditions = [
///     Condition::new("Available", True, "Success"),
///     Condition::new("SubResourcesReady", False, "SubResourcesPending")
///         .with_message("1 of 2 sub-resources pending: Rule 'allow-ssh'"),
/// ]
/// .into_iter()
/// .collect();
/// let ready = Summary::new("Ready")
///     .dependent("Available")
///     .dependent("SubResourcesReady")
///     .compute(&conditions);
/// assert_eq!(ready.status, False);
/// assert_eq!(ready.reason, "SubResourcesPending");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    type_: String,
    dependents: Vec<(String, Polarity)>,
    success_reason: String,
    success_message: String,
    observed_generation: Option<i64>,
}

impl Summary {
    /// A summary condition of the given type. With no dependents it is True; the default
    /// success reason is `Succeeded`.
    pub fn new(type_: impl Into<String>) -> Self {
        Self {
            type_: type_.into(),
            dependents: Vec::new(),
            success_reason: "Succeeded".into(),
            success_message: String::new(),
            observed_generation: None,
        }
    }

    /// Adds a dependent of positive polarity (healthy when True).
    #[must_use]
    pub fn dependent(self, type_: impl Into<String>) -> Self {
        self.dependent_with_polarity(type_, Polarity::Positive)
    }

    /// Adds a dependent of the given polarity.
    #[must_use]
    pub fn dependent_with_polarity(mut self, type_: impl Into<String>, polarity: Polarity) -> Self {
        self.dependents.push((type_.into(), polarity));
        self
    }

    /// The reason and message when every dependent is healthy.
    #[must_use]
    pub fn success(mut self, reason: impl Into<String>, message: impl Into<String>) -> Self {
        self.success_reason = reason.into();
        self.success_message = message.into();
        self
    }

    /// The generation the summary is computed for.
    #[must_use]
    pub fn observed_generation(mut self, generation: i64) -> Self {
        self.observed_generation = Some(generation);
        self
    }

    /// The summary condition for `conditions`.
    pub fn compute(&self, conditions: &Conditions) -> Condition {
        let worst = self
            .dependents
            .iter()
            .map(|(type_, polarity)| {
                let condition = conditions.get(type_);
                (rank(condition, *polarity), type_, condition)
            })
            // `max_by_key` keeps the last of equals; reversing keeps the first listed.
            .rev()
            .max_by_key(|(rank, _, _)| *rank);

        let mut summary = match worst {
            None | Some((Rank::Healthy, _, _)) => {
                Condition::new(&self.type_, ConditionStatus::True, &self.success_reason)
                    .with_message(&self.success_message)
            }
            Some((_, type_, None)) => Condition::new(
                &self.type_,
                ConditionStatus::Unknown,
                REASON_CONDITION_MISSING,
            )
            .with_message(format!("condition {type_} has not been reported")),
            Some((rank, _, Some(dependent))) => {
                let (status, severity) = if rank == Rank::Unknown {
                    (ConditionStatus::Unknown, Severity::None)
                } else {
                    (ConditionStatus::False, dependent.severity)
                };
                Condition::new(&self.type_, status, &dependent.reason)
                    .with_message(&dependent.message)
                    .with_severity(severity)
            }
        };
        summary.observed_generation = self.observed_generation;
        summary
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Healthy,
    Missing,
    Unknown,
    Unhealthy(UnhealthyRank),
}

/// Within unhealthy conditions: Info is progress, None is unspecified, then Warning, Error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum UnhealthyRank {
    Info,
    Unspecified,
    Warning,
    Error,
}

fn rank(condition: Option<&Condition>, polarity: Polarity) -> Rank {
    let Some(condition) = condition else {
        return Rank::Missing;
    };
    if condition.status == polarity.healthy_status() {
        return Rank::Healthy;
    }
    if condition.status == ConditionStatus::Unknown {
        return Rank::Unknown;
    }
    Rank::Unhealthy(match condition.severity {
        Severity::Info => UnhealthyRank::Info,
        Severity::None => UnhealthyRank::Unspecified,
        Severity::Warning => UnhealthyRank::Warning,
        Severity::Error => UnhealthyRank::Error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConditionStatus::*;

    fn list(conditions: &[(&str, ConditionStatus, &str, Severity)]) -> Conditions {
        conditions
            .iter()
            .map(|(type_, status, reason, severity)| {
                Condition::new(*type_, *status, *reason)
                    .with_severity(*severity)
                    .with_message(format!("{type_} says {reason}"))
            })
            .collect()
    }

    fn summary() -> Summary {
        Summary::new("Ready")
            .dependent("Available")
            .dependent("SubResourcesReady")
            .dependent_with_polarity("Stalled", Polarity::Negative)
            .success("Succeeded", "all good")
            .observed_generation(5)
    }

    #[test]
    fn all_healthy_is_true_with_the_success_reason() {
        let conditions = list(&[
            ("Available", True, "Success", Severity::None),
            (
                "SubResourcesReady",
                True,
                "SubResourcesReady",
                Severity::None,
            ),
            ("Stalled", False, "NotStalled", Severity::None),
        ]);
        let ready = summary().compute(&conditions);
        assert_eq!(
            (ready.status, ready.reason.as_str(), ready.message.as_str()),
            (True, "Succeeded", "all good")
        );
        assert_eq!(ready.observed_generation, Some(5));
    }

    #[test]
    fn the_worst_dependent_wins_and_its_reason_flows_up() {
        let conditions = list(&[
            ("Available", False, "Creating", Severity::Info),
            (
                "SubResourcesReady",
                False,
                "SubResourceFailed",
                Severity::Warning,
            ),
            ("Stalled", True, "InvalidSpec", Severity::Error),
        ]);
        let ready = summary().compute(&conditions);
        assert_eq!(ready.status, False);
        assert_eq!(ready.reason, "InvalidSpec");
        assert_eq!(ready.severity, Severity::Error);
        assert_eq!(ready.message, "Stalled says InvalidSpec");
    }

    #[test]
    fn ties_go_to_the_first_dependent_listed() {
        let conditions = list(&[
            ("Available", False, "First", Severity::Warning),
            ("SubResourcesReady", False, "Second", Severity::Warning),
            ("Stalled", False, "NotStalled", Severity::None),
        ]);
        assert_eq!(summary().compute(&conditions).reason, "First");
    }

    #[test]
    fn unspecified_severity_ranks_above_info_and_below_warning() {
        let conditions = list(&[
            ("Available", False, "Progressing", Severity::Info),
            ("SubResourcesReady", False, "Unspecified", Severity::None),
            ("Stalled", False, "NotStalled", Severity::None),
        ]);
        assert_eq!(summary().compute(&conditions).reason, "Unspecified");
    }

    #[test]
    fn a_missing_dependent_makes_it_unknown() {
        let conditions = list(&[
            ("Available", True, "Success", Severity::None),
            ("Stalled", False, "NotStalled", Severity::None),
        ]);
        let ready = summary().compute(&conditions);
        assert_eq!(ready.status, Unknown);
        assert_eq!(ready.reason, REASON_CONDITION_MISSING);
        assert_eq!(
            ready.message,
            "condition SubResourcesReady has not been reported"
        );
    }

    #[test]
    fn an_unknown_dependent_passes_its_reason_without_severity() {
        let conditions = list(&[
            ("Available", Unknown, "Initializing", Severity::Warning),
            (
                "SubResourcesReady",
                True,
                "SubResourcesReady",
                Severity::None,
            ),
            ("Stalled", False, "NotStalled", Severity::None),
        ]);
        let ready = summary().compute(&conditions);
        assert_eq!(
            (ready.status, ready.reason.as_str(), ready.severity),
            (Unknown, "Initializing", Severity::None)
        );
    }

    #[test]
    fn false_beats_unknown_and_missing() {
        let conditions = list(&[
            ("Available", Unknown, "Initializing", Severity::None),
            ("Stalled", True, "Stuck", Severity::Warning),
        ]);
        let ready = summary().compute(&conditions);
        assert_eq!((ready.status, ready.reason.as_str()), (False, "Stuck"));
    }

    /// kondition's summary reads a False Info condition as unhealthy; knative.dev/pkg's
    /// `ConditionSet` does not (the reason its kinds have profiles of their own,
    /// [`profile::knative`](crate::profile::knative)).
    #[test]
    fn knative_and_kondition_read_a_false_info_condition_otherwise() {
        let conditions = list(&[
            ("A", True, "Done", Severity::None),
            ("C", False, "Cold", Severity::Info),
        ]);
        let kondition = Summary::new("Ready")
            .dependent("A")
            .dependent("C")
            .compute(&conditions);
        assert_eq!(kondition.status, False);
        let knative = crate::profile::knative::ConditionSet::living(["A"]).happiness(&conditions);
        assert_eq!(knative.status, True);
    }
}
