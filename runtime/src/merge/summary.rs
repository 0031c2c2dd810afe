//! Several conditions of one object merged into one, every issue named.

use super::{MergeError, MergeStrategy, Operation, Owned, Owner, finish, not_yet_reported};
use crate::condition::{Condition, NegativeTypes};

/// Merges several conditions of one object into one, as Cluster API's
/// `NewSummaryCondition` does: the condition types in scope in their order of relevance, a
/// missing one counted as Unknown (`NotYetReported`, "Condition not yet reported") unless it
/// is to be ignored when missing. The result is False when one is an issue, else Unknown
/// when one is Unknown, else True; its message has a line for every issue and unknown
/// ("* Type: message", or the reason when there is no message; a message of several lines
/// or bullets indented below), in the order of relevance, and for the info ones with a
/// message only when it is True.
///
/// Beside kondition's [`Summary`](crate::Summary), where the worst dependent alone gives
/// the reason and message (and its severity), this names every issue, with a reason for
/// the group that decided.
///
/// ```
/// use kondition::merge::{MergedSummary, Owner};
/// use kondition::{Condition, ConditionStatus::*};
///
/// let conditions = [
///     Condition::new("Available", False, "NoReplicas").with_message("0 of 3 replicas"),
///     Condition::new("Progressing", True, "Rolling"),
///     Condition::new("Degraded", True, "DiskPressure").with_message("node n1 disk full"),
/// ];
/// let ready = MergedSummary::new("Ready")
///     .for_types(["Available", "Degraded", "Progressing"])
///     .negative_polarity(["Degraded"])
///     .compute(Owner::new("Cluster", "c1"), &conditions)
///     .expect("conditions");
/// assert_eq!(ready.status, False);
/// assert_eq!(ready.reason, "IssuesReported");
/// assert_eq!(ready.message, "* Available: 0 of 3 replicas\n* Degraded: node n1 disk full");
/// ```
#[derive(Clone, Debug)]
pub struct MergedSummary {
    type_: String,
    types: Vec<String>,
    negative_polarity: NegativeTypes,
    ignore_if_missing: Vec<String>,
    overrides: Vec<Condition>,
    strategy: Option<MergeStrategy>,
}

impl MergedSummary {
    /// A merged condition of the given type.
    pub fn new(type_: impl Into<String>) -> Self {
        Self {
            type_: type_.into(),
            types: Vec::new(),
            negative_polarity: NegativeTypes::new(),
            ignore_if_missing: Vec::new(),
            overrides: Vec::new(),
            strategy: None,
        }
    }

    /// The condition types merged, most relevant first (needed; not the merged type).
    #[must_use]
    pub fn for_types<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.types.extend(types.into_iter().map(Into::into));
        self
    }

    /// Types among them whose healthy status is False.
    #[must_use]
    pub fn negative_polarity<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.negative_polarity.extend(types);
        self
    }

    /// Types left out when the object does not have them, instead of counted as Unknown.
    #[must_use]
    pub fn ignore_if_missing<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ignore_if_missing
            .extend(types.into_iter().map(Into::into));
        self
    }

    /// A condition to merge in place of the object's own of its type, for this merge only
    /// (the object must have one).
    #[must_use]
    pub fn override_condition(mut self, condition: Condition) -> Self {
        self.overrides.push(condition);
        self
    }

    /// A strategy of the caller's instead of the default one (which follows
    /// [`negative_polarity`](Self::negative_polarity)).
    #[must_use]
    pub fn strategy(mut self, strategy: MergeStrategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// The merged condition of the conditions of `owner`.
    pub fn compute(&self, owner: Owner, conditions: &[Condition]) -> Result<Condition, MergeError> {
        if self.types.is_empty() {
            return Err(MergeError::NoConditionTypes);
        }
        if self.types.contains(&self.type_) {
            return Err(MergeError::MergesItself(self.type_.clone()));
        }
        for (i, replacement) in self.overrides.iter().enumerate() {
            if self.overrides[..i]
                .iter()
                .any(|o| o.type_ == replacement.type_)
            {
                return Err(MergeError::OverriddenTwice(replacement.type_.clone()));
            }
            if !conditions.iter().any(|c| c.type_ == replacement.type_) {
                return Err(MergeError::OverrideOfMissing(replacement.type_.clone()));
            }
        }
        let mut in_scope: Vec<Owned> = conditions
            .iter()
            .filter(|c| self.types.contains(&c.type_))
            .map(|c| {
                let condition = self
                    .overrides
                    .iter()
                    .find(|o| o.type_ == c.type_)
                    .unwrap_or(c)
                    .clone();
                Owned {
                    owner: owner.clone(),
                    condition,
                }
            })
            .collect();
        for type_ in &self.types {
            let present = conditions.iter().any(|c| c.type_ == *type_);
            if !present && !self.ignore_if_missing.contains(type_) {
                in_scope.push(Owned {
                    owner: owner.clone(),
                    condition: not_yet_reported(type_, "Condition not yet reported".to_owned()),
                });
            }
        }
        if in_scope.is_empty() {
            return Err(MergeError::NothingToMerge);
        }
        let default;
        let strategy = match &self.strategy {
            Some(strategy) => strategy,
            None => {
                default = MergeStrategy {
                    negative_polarity: self.negative_polarity.clone(),
                    ..MergeStrategy::new()
                };
                &default
            }
        };
        let (status, reason, message) = strategy.merge(Operation::Summary, in_scope, &self.types);
        Ok(finish(&self.type_, status, &reason, message))
    }
}
