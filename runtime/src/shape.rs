//! What a status' schema holds of the standard block, for statuses that are not exactly the
//! standard one: another operator's CRD adopted as it is.
//!
//! The standard status (kondition's own schema) has `status.observedGeneration`, a
//! `conditions` list that server-side apply merges by `type`, and conditions that store
//! `severity` and `observedGeneration`. Real CRDs differ in three ways the chokepoint must
//! know of, or it writes what the API server then drops (and writes it again on every
//! reconcile), or deletes conditions it meant to keep:
//!
//! - the generation observed is kept only on each condition (Karpenter's NodePool, ORC's
//!   kinds): [`GenerationField::Conditions`];
//! - the list has no `x-kubernetes-list-type: map` (Flux's kinds, Strimzi's): server-side
//!   apply treats it as one value, [`ConditionsMerge::Atomic`];
//! - the conditions are metav1's, with no `severity`, or have no `observedGeneration`:
//!   [`ConditionFields`].

use crate::{Condition, Conditions, Severity};

/// Where a status records the `metadata.generation` it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GenerationField {
    /// `status.observedGeneration`, the standard block's field (and each condition's, when
    /// the conditions have one).
    Status,
    /// Only `conditions[].observedGeneration`: the status has no field of its own. The
    /// generation the status as a whole reflects is its summary condition's.
    Conditions,
}

/// How server-side apply merges the `conditions` list: its `x-kubernetes-list-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionsMerge {
    /// `map` keyed by `type`: each condition belongs to the field managers that applied it,
    /// so the controller's apply holds only its own conditions and leaves another
    /// manager's alone.
    ByType,
    /// `atomic` (a list without a list type): the list is one value. An apply that holds it
    /// replaces it whole, so the controller applies every condition it read (another
    /// manager's as it was read) and then owns the list alone. A list changed since the
    /// read is not overwritten: the apply's `resourceVersion` precondition fails, and the
    /// next reconcile starts from the new list. Nothing is merged per condition type, and
    /// another manager's server-side apply of the list conflicts unless forced.
    Atomic,
}

/// The optional fields of a condition that the status' schema stores. A field it does not
/// store is never written: the API server would drop it, and the next reconcile, seeing it
/// gone, would write it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConditionFields {
    /// `severity` (kondition's and Cluster API v1beta1's conditions; not metav1's).
    pub severity: bool,
    /// `observedGeneration` (metav1's conditions; not Cluster API v1beta1's).
    pub observed_generation: bool,
}

/// What a status' schema holds of the standard block; see the [module](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StatusShape {
    /// Where the observed generation is kept.
    pub generation: GenerationField,
    /// How the `conditions` list merges.
    pub merge: ConditionsMerge,
    /// Which optional condition fields are stored.
    pub fields: ConditionFields,
}

impl StatusShape {
    /// The standard status: `status.observedGeneration`, conditions merged by `type`, each
    /// with `severity` and `observedGeneration`.
    pub const STANDARD: Self = Self {
        generation: GenerationField::Status,
        merge: ConditionsMerge::ByType,
        fields: ConditionFields {
            severity: true,
            observed_generation: true,
        },
    };

    /// `condition` as the schema stores it: `severity` and `observedGeneration` cleared
    /// where it has no place for them.
    pub fn fit(&self, condition: &mut Condition) {
        if !self.fields.severity {
            condition.severity = Severity::None;
        }
        if !self.fields.observed_generation {
            condition.observed_generation = None;
        }
    }

    /// Fits every condition of `conditions`, and gives each one that, so fitted, says what
    /// the `stored` condition of its type says the stored `lastTransitionTime`: a change
    /// that the schema cannot hold (a severity, say) is no transition, or every reconcile
    /// would move the time of a condition that never changed on the server.
    pub fn settle(&self, conditions: &mut Conditions, stored: Option<&Conditions>) {
        *conditions = std::mem::take(conditions)
            .into_iter()
            .map(|mut condition| {
                self.fit(&mut condition);
                if let Some(before) = stored.and_then(|s| s.get(&condition.type_))
                    && before.same_observation(&condition)
                {
                    condition
                        .last_transition_time
                        .clone_from(&before.last_transition_time);
                }
                condition
            })
            .collect();
    }
}

impl Default for StatusShape {
    fn default() -> Self {
        Self::STANDARD
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConditionStatus, Time};
    use k8s_openapi::jiff::Timestamp;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).expect("a time"))
    }

    const METAV1: StatusShape = StatusShape {
        generation: GenerationField::Conditions,
        merge: ConditionsMerge::ByType,
        fields: ConditionFields {
            severity: false,
            observed_generation: true,
        },
    };

    const NO_GENERATION: StatusShape = StatusShape {
        generation: GenerationField::Status,
        merge: ConditionsMerge::Atomic,
        fields: ConditionFields {
            severity: true,
            observed_generation: false,
        },
    };

    fn blocked() -> Condition {
        Condition::new("Ready", ConditionStatus::False, "ReconciliationBlocked")
            .with_severity(Severity::Warning)
            .with_observed_generation(3)
            .at(at(200))
    }

    #[test]
    fn fitting_clears_what_the_schema_does_not_hold() {
        let mut condition = blocked();
        METAV1.fit(&mut condition);
        assert_eq!(condition.severity, Severity::None);
        assert_eq!(condition.observed_generation, Some(3));

        let mut condition = blocked();
        NO_GENERATION.fit(&mut condition);
        assert_eq!(condition.severity, Severity::Warning);
        assert_eq!(condition.observed_generation, None);

        let mut condition = blocked();
        StatusShape::STANDARD.fit(&mut condition);
        assert_eq!(condition, blocked());
    }

    /// The stored Ready (no severity: the schema dropped it) and a Ready set again with a
    /// severity: fitted, they say the same, so the stored time stays.
    #[test]
    fn a_change_the_schema_cannot_hold_is_no_transition() {
        let mut stored_ready = blocked().at(at(100));
        METAV1.fit(&mut stored_ready);
        let stored: Conditions = vec![stored_ready.clone()].into();
        let mut conditions: Conditions = vec![blocked()].into();
        METAV1.settle(&mut conditions, Some(&stored));
        assert_eq!(conditions, stored);
    }

    /// A change the schema holds (the reason) keeps the new time; a type not stored keeps
    /// its own.
    #[test]
    fn a_change_the_schema_holds_is_kept() {
        let stored: Conditions = vec![blocked().at(at(100))].into();
        let mut changed = blocked();
        changed.reason = "ReconciliationError".to_owned();
        let new = Condition::new("Synced", ConditionStatus::True, "Synced").at(at(300));
        let mut conditions: Conditions = vec![changed.clone(), new.clone()].into();
        StatusShape::STANDARD.settle(&mut conditions, Some(&stored));
        assert_eq!(conditions, Conditions::from(vec![changed, new]));
    }
}
