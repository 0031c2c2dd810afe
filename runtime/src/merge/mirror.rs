//! A condition of another object, copied.

use super::{finish, not_yet_reported};
use crate::condition::{Condition, ConditionStatus};

/// Copies one condition of another object (a child, an infrastructure object) onto this
/// one, as Cluster API's `NewMirrorCondition` does: status, reason, message (and kondition's
/// severity) and `lastTransitionTime` as they are (the time is when the source changed); no
/// `observedGeneration` (this object's own is set when it is stored). When the source has
/// not reported the condition: the fallback if one is given, else Unknown,
/// `NotYetReported`, "Condition Ready not yet reported".
///
/// ```
/// use kondition::merge::Mirror;
/// use kondition::{Condition, ConditionStatus};
///
/// let machine = [Condition::new("Ready", ConditionStatus::False, "Provisioning")
///     .with_message("waiting for the instance")];
/// let mirrored = Mirror::new("Ready").target_type("InfrastructureReady").compute(&machine);
/// assert_eq!(mirrored.type_, "InfrastructureReady");
/// assert_eq!(mirrored.reason, "Provisioning");
/// assert_eq!(mirrored.message, "waiting for the instance");
///
/// let unreported = Mirror::new("Ready").compute(&[]);
/// assert_eq!(unreported.status, ConditionStatus::Unknown);
/// assert_eq!(unreported.message, "Condition Ready not yet reported");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirror {
    source_type: String,
    target_type: Option<String>,
    fallback: Option<(ConditionStatus, String, String)>,
}

impl Mirror {
    /// Mirrors the source's condition of this type, under the same type.
    pub fn new(source_type: impl Into<String>) -> Self {
        Self {
            source_type: source_type.into(),
            target_type: None,
            fallback: None,
        }
    }

    /// The type of the mirrored condition, instead of the source's.
    #[must_use]
    pub fn target_type(mut self, type_: impl Into<String>) -> Self {
        self.target_type = Some(type_.into());
        self
    }

    /// The condition to give when the source has not reported one.
    #[must_use]
    pub fn fallback(
        mut self,
        status: ConditionStatus,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        self.fallback = Some((status, reason.into(), message.into()));
        self
    }

    /// The mirrored condition, from the source object's conditions.
    pub fn compute(&self, source: &[Condition]) -> Condition {
        self.of(source.iter().find(|c| c.type_ == self.source_type))
    }

    /// The mirrored condition, from the source's condition (`None`: not reported).
    pub fn of(&self, source: Option<&Condition>) -> Condition {
        let type_ = self.target_type.as_deref().unwrap_or(&self.source_type);
        match (source, &self.fallback) {
            (Some(source), _) => {
                let mut mirrored =
                    finish(type_, source.status, &source.reason, source.message.clone());
                mirrored.last_transition_time = source.last_transition_time.clone();
                mirrored.severity = source.severity;
                mirrored.normalize();
                mirrored
            }
            (None, Some((status, reason, message))) => {
                finish(type_, *status, reason, message.clone())
            }
            (None, None) => {
                let mut condition = not_yet_reported(
                    type_,
                    format!("Condition {} not yet reported", self.source_type),
                );
                condition.last_transition_time = crate::now();
                condition
            }
        }
    }
}
