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
//! - the conditions are metav1's, with no `severity`, or have no `observedGeneration`, or
//!   hold only some of metav1's fields (KEDA's have no `lastTransitionTime`, and an optional
//!   `reason` and `message`): [`ConditionFields`];
//! - nothing records the generation at all (KEDA's ScaledObject): [`GenerationField::None`].
//!
//! A status whose conditions lack a field metav1 requires also reads and writes its own
//! objects through [`serialize_conditions`], so that a condition read without the field is
//! written back without it.

use serde::Serializer;

use crate::condition::unstored_time;
use crate::condition::{Condition, Severity};
use crate::conditions::Conditions;

/// Where a status records the `metadata.generation` it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GenerationField {
    /// `status.observedGeneration`, the standard block's field (and each condition's, when
    /// the conditions have one).
    Status,
    /// Only `conditions[].observedGeneration`: the status has no field of its own. The
    /// generation the status as a whole reflects is its summary condition's.
    Conditions,
    /// Nowhere: neither the status nor its conditions have an `observedGeneration`. The
    /// chokepoint drives such a status all the same, but nothing in it can say which
    /// generation it was computed from: a reader (kstatus, `kubectl wait`) cannot tell a
    /// status written for the previous spec from one written for the current spec, and
    /// [`KubeStatus::observed_generation`](crate::KubeStatus::observed_generation) is always
    /// `None`.
    None,
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

/// The fields of a condition that the status' schema stores. A field it does not store is
/// never written: the API server would drop it, and the next reconcile, seeing it gone,
/// would write it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConditionFields {
    /// `severity` (kondition's and Cluster API v1beta1's conditions; not metav1's).
    pub severity: bool,
    /// `observedGeneration` (metav1's conditions; not Cluster API v1beta1's).
    pub observed_generation: bool,
    /// `reason`: required in metav1's conditions, optional in KEDA's.
    pub reason: Presence,
    /// `message`: required in metav1's conditions, optional in KEDA's.
    pub message: Presence,
    /// `lastTransitionTime`: required in metav1's conditions, absent from KEDA's.
    pub last_transition_time: Presence,
}

impl ConditionFields {
    /// metav1's fields, all required, with `severity` and `observedGeneration` beside them:
    /// the standard status' conditions.
    pub const STANDARD: Self = Self {
        severity: true,
        observed_generation: true,
        reason: Presence::Required,
        message: Presence::Required,
        last_transition_time: Presence::Required,
    };

    /// Whether every field metav1 requires is required here too: a condition of this
    /// shape is written whole, as [`Condition`]'s own `Serialize` writes it.
    pub const fn has_metav1_fields(&self) -> bool {
        matches!(
            (self.reason, self.message, self.last_transition_time),
            (Presence::Required, Presence::Required, Presence::Required)
        )
    }
}

/// Whether the schema of a condition holds one of metav1's required fields, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// Held and required: always written.
    Required,
    /// Held, not required: written when it says something. An empty `reason` or
    /// `message`, or a `lastTransitionTime` at the Unix epoch (how an absent one reads), is
    /// left out, as Go's `omitempty` leaves it out: a condition read without the field is
    /// written back without it.
    Optional,
    /// Not in the schema: never written (the API server would drop it).
    Absent,
}

/// The unstored time (the Unix epoch) as `Time` writes it, compared as text on every condition fitted.
const UNSTORED_TIME: &str = "1970-01-01T00:00:00Z";

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
        fields: ConditionFields::STANDARD,
    };

    /// `condition` as the schema stores it: every field it has no place for cleared
    /// (`severity` None, no `observedGeneration`, an empty `reason` or `message`, the Unix
    /// epoch for `lastTransitionTime`), so that it compares equal to the condition as read.
    pub fn fit(&self, condition: &mut Condition) {
        let fields = &self.fields;
        if !fields.severity {
            condition.severity = Severity::None;
        }
        if !fields.observed_generation || self.generation == GenerationField::None {
            condition.observed_generation = None;
        }
        if fields.reason == Presence::Absent {
            condition.reason.clear();
        }
        if fields.message == Presence::Absent {
            condition.message.clear();
        }
        if fields.last_transition_time == Presence::Absent {
            condition.last_transition_time = unstored_time();
        }
    }

    /// `condition`'s JSON (as [`Condition`] writes it) without the fields the schema does
    /// not hold, nor the optional ones that say nothing; see [`Presence`].
    pub fn fit_json(&self, condition: &mut serde_json::Value) {
        let Some(map) = condition.as_object_mut() else {
            return;
        };
        let fields = &self.fields;
        let drop =
            |presence: Presence, value: Option<&serde_json::Value>, empty: &str| match presence {
                Presence::Required => false,
                Presence::Absent => true,
                Presence::Optional => value.is_none_or(|v| v.as_str() == Some(empty)),
            };
        for (key, presence, empty) in [
            ("reason", fields.reason, ""),
            ("message", fields.message, ""),
            (
                "lastTransitionTime",
                fields.last_transition_time,
                UNSTORED_TIME,
            ),
        ] {
            if drop(presence, map.get(key), empty) {
                map.remove(key);
            }
        }
        if !fields.severity {
            map.remove("severity");
        }
        if !fields.observed_generation || self.generation == GenerationField::None {
            map.remove("observedGeneration");
        }
    }

    /// Fits every condition of `conditions`, and gives each one that, so fitted, says what
    /// the `stored` condition of its type says the stored `lastTransitionTime`: a change
    /// that the schema cannot hold (a severity, say) is no transition, or every reconcile
    /// would move the time of a condition that never changed on the server.
    pub fn settle(&self, conditions: &mut Conditions, stored: Option<&Conditions>) {
        conditions.update_each(|condition| {
            self.fit(condition);
            if let Some(before) = stored.and_then(|s| s.get(&condition.type_))
                && before.same_observation(condition)
            {
                condition.keep_time_of(before);
            }
        });
    }
}

/// A status type whose schema holds the standard block in a known [`StatusShape`]: every
/// [`KubeStatus`](crate::KubeStatus) (a blanket implementation), so that the serializers
/// below name the shape without naming the status trait.
pub trait Shaped {
    /// The shape of the type's status block.
    const SHAPE: StatusShape;
}

/// Writes a status' `conditions` as its schema holds them (see [`StatusShape::fit_json`]):
/// for a `#[serde(serialize_with = "...")]` on the conditions field of a status whose
/// conditions lack a field metav1 requires, so that an object read into the status type is
/// written back as it was. `kondition generate` writes it where it is needed, as
/// `kondition::shape::serialize_conditions::<TheStatus, _>` (or
/// [`serialize_optional_conditions`] for an `Option<Conditions>`).
pub fn serialize_conditions<T, S>(conditions: &Conditions, serializer: S) -> Result<S::Ok, S::Error>
where
    T: Shaped,
    S: Serializer,
{
    use serde::Serialize as _;
    use serde::ser::Error as _;
    let mut value = serde_json::to_value(conditions).map_err(S::Error::custom)?;
    if let Some(items) = value.as_array_mut() {
        items.iter_mut().for_each(|item| T::SHAPE.fit_json(item));
    }
    value.serialize(serializer)
}

/// [`serialize_conditions`] for a conditions field that is an `Option<Conditions>`.
pub fn serialize_optional_conditions<T, S>(
    conditions: &Option<Conditions>,
    serializer: S,
) -> Result<S::Ok, S::Error>
where
    T: Shaped,
    S: Serializer,
{
    match conditions {
        Some(conditions) => serialize_conditions::<T, S>(conditions, serializer),
        None => serializer.serialize_none(),
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
    use crate::condition::ConditionStatus;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).expect("a time"))
    }

    const METAV1: StatusShape = StatusShape {
        generation: GenerationField::Conditions,
        merge: ConditionsMerge::ByType,
        fields: ConditionFields {
            severity: false,
            ..ConditionFields::STANDARD
        },
    };

    const NO_GENERATION: StatusShape = StatusShape {
        generation: GenerationField::Status,
        merge: ConditionsMerge::Atomic,
        fields: ConditionFields {
            observed_generation: false,
            ..ConditionFields::STANDARD
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

    const KEDA: StatusShape = StatusShape {
        generation: GenerationField::None,
        merge: ConditionsMerge::Atomic,
        fields: ConditionFields {
            severity: false,
            observed_generation: false,
            reason: Presence::Optional,
            message: Presence::Optional,
            last_transition_time: Presence::Absent,
        },
    };

    /// What a schema lacks is never written, an optional field only when it says
    /// something; a generation kept nowhere is written nowhere.
    #[test]
    fn a_condition_is_written_as_its_schema_holds_it() {
        use serde_json::json;
        let mut condition = serde_json::to_value(blocked()).expect("JSON");
        KEDA.fit_json(&mut condition);
        assert_eq!(
            condition,
            json!({"type": "Ready", "status": "False", "reason": "ReconciliationBlocked"})
        );
        let mut said = serde_json::to_value(blocked().with_message("waiting")).expect("JSON");
        KEDA.fit_json(&mut said);
        assert_eq!(said["message"], json!("waiting"));

        let mut fitted = blocked();
        KEDA.fit(&mut fitted);
        assert_eq!(
            (
                fitted.severity,
                fitted.observed_generation,
                fitted.last_transition_time
            ),
            (Severity::None, None, at(0))
        );
        let mut standard = serde_json::to_value(blocked()).expect("JSON");
        let whole = standard.clone();
        StatusShape::STANDARD.fit_json(&mut standard);
        assert_eq!(standard, whole);
    }

    #[test]
    fn the_unstored_time_is_written_as_its_text() {
        assert_eq!(
            serde_json::to_value(unstored_time()).expect("JSON"),
            serde_json::json!(UNSTORED_TIME)
        );
    }
}
