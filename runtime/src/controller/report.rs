//! How a reconcile's outcome shows in the status (steps 1 to 3 of the chokepoint, and the
//! conditions of the fallback): the summary condition and the profile's companions, each set
//! over the stored one at its place, so that an outcome repeated changes nothing, not even a
//! `lastTransitionTime` or the list's order.

use super::apply::{Owned, Writer};
use super::{
    REASON_BLOCKED, REASON_DELETING, REASON_PANICKED, REASON_POST_RECONCILE_FAILURE,
    REASON_POSTPONED, REASON_STATUS_REJECTED,
};
use crate::condition::{Condition, ConditionStatus, Severity};
use crate::conditions::Conditions;
use crate::error::Requeue;
use crate::profile::knative::ConditionSet;
use crate::profile::{Activity, Profile, Semantics};
use crate::shape::GenerationField;
use crate::status::{KubeStatus, StatusResource};

/// How the reconcile went, before the status is written.
pub(crate) enum Outcome {
    /// The body (and the post-checks) succeeded.
    Succeeded,
    /// The body failed: the summary condition its error becomes, and the requeue it asks.
    Failed {
        condition: Condition,
        requeue: Requeue,
    },
    /// A pre-check blocked the body, with its reason.
    Blocked(String),
    /// A pre-check postponed the body, with its reason.
    Postponed(String),
    /// A post-check failed, with its reason.
    PostCheckFailed(String),
    /// The body panicked, with the panic's message.
    Panicked(String),
}

/// The profile of one kind's status as the chokepoint applies it: the kind's profile, with
/// the summary and success reason the reconciler may have been given instead.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub profile: Profile,
    pub summary: String,
    pub success_reason: String,
    /// Who writes: a second controller keeps neither the profile's companions nor
    /// `observedGeneration`, which are the kind's controller's.
    pub writer: Writer,
}

impl Report {
    /// The kind's profile as it is, written by `writer`.
    pub(crate) fn new(profile: Profile, writer: Writer) -> Self {
        Self {
            profile,
            summary: profile.summary.to_owned(),
            success_reason: profile.success_reason.to_owned(),
            writer,
        }
    }

    /// The profile's companions of the summary, which only the kind's controller keeps.
    fn companion_types(&self) -> &'static [&'static str] {
        if self.writer.second {
            &[]
        } else {
            self.profile.companion_types()
        }
    }

    /// The companions of `summary` in `activity`, as [`companion_types`](Self::companion_types).
    fn companions(&self, summary: &Condition, activity: Activity) -> Vec<Condition> {
        if self.writer.second {
            Vec::new()
        } else {
            self.profile.companions(summary, activity)
        }
    }

    /// The condition types the chokepoint derives: the summary, then the companions.
    fn derived_types(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.summary.as_str()).chain(self.companion_types().iter().copied())
    }

    /// Step 1: the derived conditions are cleared before the body runs, so any found
    /// afterwards were set by this reconcile on purpose.
    pub(crate) fn clear<K: StatusResource>(&self, object: &mut K) {
        let conditions = object.status_or_insert().conditions_mut();
        for type_ in self.derived_types() {
            conditions.remove(type_);
        }
    }

    /// The summary condition for `error` (the profile's error reason if it names none).
    pub(crate) fn failure<E: crate::error::ReconcileError + ?Sized>(&self, error: &E) -> Condition {
        let mut condition = self.profile.failure(error);
        condition.type_.clone_from(&self.summary);
        condition
    }

    /// Steps 2 and 3: the summary (unless the body set it) and its companions (each unless the
    /// body set it) follow the outcome; `observedGeneration` follows `metadata.generation`.
    /// Returns the requeue the outcome asks for.
    pub(crate) fn finish<K: StatusResource>(
        &self,
        stored: &K,
        object: &mut K,
        outcome: &Outcome,
    ) -> Requeue {
        let generation = object.meta().generation;
        let deleting = object.meta().deletion_timestamp.is_some();
        let (condition, requeue) = self.summary_of(outcome, deleting);
        let conditions = object.status_or_insert().conditions_mut();
        // A summary the body set on purpose stands; only its generation is stamped.
        let mut summary = match conditions.remove(&self.summary) {
            Some(set) => set,
            None => self.written_summary::<K>(condition, outcome, deleting, conditions),
        };
        summary.observed_generation = generation;
        let activity = match outcome {
            Outcome::Succeeded if deleting => Activity::Working,
            Outcome::Succeeded => Activity::of_summary(&summary),
            Outcome::Postponed(_) => Activity::Done,
            Outcome::Failed { requeue, .. } => match requeue {
                Requeue::Resync => Activity::Done,
                Requeue::Backoff => Activity::Working,
                Requeue::AwaitChange => Activity::Stuck,
            },
            Outcome::Blocked(_) | Outcome::PostCheckFailed(_) | Outcome::Panicked(_) => {
                Activity::Working
            }
        };
        let companions: Vec<Condition> = self
            .companions(&summary, activity)
            .into_iter()
            .filter(|c| !conditions.contains(&c.type_))
            .collect();
        let stored_conditions = stored.status().map(KubeStatus::conditions);
        // A companion the body set itself was set on a list it had been cleared from, so it
        // came last: put it back at its stored place, as `set_over` does for the others, or
        // the list's order (and so the status) would differ from the stored one whenever the
        // stored order was written by a reconcile that started without a status (the first,
        // or another replica's), and every such object would be written once more.
        for type_ in self.profile.companion_types() {
            let stored_at =
                stored_conditions.and_then(|s| s.iter().position(|c| c.type_ == *type_));
            if let Some(index) = stored_at
                && let Some(set) = conditions.remove(type_)
            {
                conditions.insert_at(index, set);
            }
        }
        self.set_over(conditions, stored_conditions, summary, generation);
        for companion in companions {
            self.set_over(conditions, stored_conditions, companion, generation);
        }
        // Where the generation lives only on conditions, each condition this controller
        // writes says which generation it describes, not only the summary: one the body set
        // this reconcile, or one the controller owns (kept as its own).
        if let Some(generation) = generation
            && K::Status::SHAPE.generation == GenerationField::Conditions
        {
            let owned = Owned::of(stored, &self.writer.managers());
            stamp_own(conditions, stored_conditions, &owned, generation);
        }
        // Every condition (the body's too) as the schema stores it, so what the server would
        // drop is neither written nor counted as a transition.
        K::Status::SHAPE.settle(conditions, stored_conditions);
        if let Some(generation) = generation.filter(|_| !self.writer.second) {
            object
                .status_or_insert()
                .set_observed_generation(generation);
        }
        requeue
    }

    /// The summary the chokepoint writes for `outcome` (`condition`, which
    /// [`summary_of`](Self::summary_of) made of it), as the profile's semantics have it: with
    /// Knative's, a success is the happy condition its `ConditionSet` computes from the
    /// status' other condition types, and no summary carries a severity.
    fn written_summary<K: StatusResource>(
        &self,
        condition: Condition,
        outcome: &Outcome,
        deleting: bool,
        conditions: &Conditions,
    ) -> Condition {
        if self.profile.semantics != Semantics::Knative {
            return condition;
        }
        let condition = match outcome {
            Outcome::Succeeded if !deleting => {
                let set = ConditionSet::new(
                    self.summary.as_str(),
                    <K::Status as KubeStatus>::CONDITION_TYPES.iter().copied(),
                );
                set.happy_condition(conditions, &self.success_reason)
            }
            _ => condition,
        };
        self.profile.written_summary(condition)
    }

    /// The summary condition an outcome becomes, and the requeue it asks for.
    fn summary_of(&self, outcome: &Outcome, deleting: bool) -> (Condition, Requeue) {
        let failed = |reason: &str, severity: Severity, message: &str| {
            Condition::new(&self.summary, ConditionStatus::False, reason)
                .with_severity(severity)
                .with_message(message)
        };
        match outcome {
            // Finalizer work went well, but the object is on its way out: not ready.
            Outcome::Succeeded if deleting => (
                failed(
                    REASON_DELETING,
                    Severity::Info,
                    "The resource is being deleted",
                ),
                Requeue::Resync,
            ),
            Outcome::Succeeded => (
                Condition::new(&self.summary, ConditionStatus::True, &self.success_reason),
                Requeue::Resync,
            ),
            Outcome::Failed { condition, requeue } => (condition.clone(), *requeue),
            Outcome::Blocked(reason) => (
                failed(REASON_BLOCKED, Severity::Warning, reason),
                Requeue::Backoff,
            ),
            Outcome::Postponed(reason) => (
                failed(REASON_POSTPONED, Severity::Info, reason),
                Requeue::Resync,
            ),
            Outcome::PostCheckFailed(reason) => (
                failed(REASON_POST_RECONCILE_FAILURE, Severity::Warning, reason),
                Requeue::Backoff,
            ),
            Outcome::Panicked(message) => (
                failed(REASON_PANICKED, Severity::Warning, message),
                Requeue::Backoff,
            ),
        }
    }

    /// The conditions of the fallback apply after the API server rejected `desired`'s
    /// status with `message`: the valid ones; a summary that claimed success (or was missing)
    /// becomes False, `StatusRejected`, and the companions say the controller is retrying.
    /// Each changed condition is set over the stored one, so a rejection repeated gives the
    /// stored conditions back unchanged.
    pub(crate) fn fallback<K: StatusResource>(
        &self,
        stored: &K,
        desired: &K,
        message: &str,
    ) -> Conditions {
        let generation = desired.meta().generation;
        let mut conditions: Conditions = desired
            .status()
            .map(|s| {
                s.conditions()
                    .iter()
                    .filter(|c| c.is_valid())
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if conditions.is_true(&self.summary) || !conditions.contains(&self.summary) {
            let rejected = Condition::new(
                &self.summary,
                ConditionStatus::False,
                REASON_STATUS_REJECTED,
            )
            .with_severity(Severity::Warning)
            .with_message(format!("the API server rejected the status: {message}"));
            let stored_conditions = stored.status().map(KubeStatus::conditions);
            let rejected = keep_stored_wording(rejected, stored_conditions);
            let rejected = self.profile.written_summary(rejected);
            let companions = self.companions(&rejected, Activity::Working);
            self.set_over(&mut conditions, stored_conditions, rejected, generation);
            for companion in companions {
                self.set_over(&mut conditions, stored_conditions, companion, generation);
            }
            K::Status::SHAPE.settle(&mut conditions, stored_conditions);
        }
        conditions
    }

    /// Sets `condition` (stamped with `generation`) over the stored condition of its type,
    /// put back at its stored place first: an unchanged condition keeps its time and the
    /// list its order, so a steady state writes nothing.
    fn set_over(
        &self,
        conditions: &mut Conditions,
        stored: Option<&Conditions>,
        mut condition: Condition,
        generation: Option<i64>,
    ) {
        condition.observed_generation = generation;
        let previous = stored.and_then(|stored| {
            stored
                .iter()
                .position(|c| c.type_ == condition.type_)
                .map(|index| (index, stored[index].clone()))
        });
        if let Some((index, previous)) = previous {
            conditions.insert_at(index, previous);
        }
        conditions.set_with(condition, self.profile.transition_rule);
    }
}

/// Stamps `generation` on each condition that is this controller's: set by this reconcile
/// (new, or changed from the stored one, its generation included: a body that sets a
/// condition again without one changes it) or owned by its field managers. In an atomic list
/// the managed fields name no condition types, so the first is all there is to go by: a
/// condition the body sets again, unchanged but for its missing generation, is the body's.
fn stamp_own(
    conditions: &mut Conditions,
    stored: Option<&Conditions>,
    owned: &Owned,
    generation: i64,
) {
    conditions.update_each(|condition| {
        let previous = stored.and_then(|s| s.get(&condition.type_));
        let set_now = previous.is_none_or(|p| !p.same_observation(condition));
        if set_now || owned.has_condition(&condition.type_) {
            condition.observed_generation = Some(generation);
        }
    });
}

/// The rejection as stored when the stored one says the same but for its numbers. The API
/// server's answer may count what it refused, the stored object included: etcd's client
/// says `trying to send message larger than max (2663515 vs. 2097152)`, whose first number
/// is the size of the object, which the fallback's own message changes. Written as it
/// comes, each fallback would change the next answer, and so the next fallback, for ever.
fn keep_stored_wording(mut rejected: Condition, stored: Option<&Conditions>) -> Condition {
    fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| c.is_ascii_digit())
            .filter(|part| !part.is_empty())
    }
    let same_but_numbers = |a: &str, b: &str| words(a).eq(words(b));
    if let Some(previous) = stored.and_then(|c| c.get(&rejected.type_))
        && previous.reason == rejected.reason
        && previous.message != rejected.message
        && same_but_numbers(&previous.message, &rejected.message)
    {
        rejected.message.clone_from(&previous.message);
    }
    rejected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_that_differs_only_in_its_numbers_keeps_the_stored_wording() {
        let rejected = |message: &str| {
            Condition::new("Ready", ConditionStatus::False, REASON_STATUS_REJECTED)
                .with_message(message)
        };
        let stored: Conditions = [rejected("larger than max (2663515 vs. 2097152)")]
            .into_iter()
            .collect();
        let kept = keep_stored_wording(
            rejected("larger than max (2663601 vs. 2097152)"),
            Some(&stored),
        );
        assert_eq!(kept.message, "larger than max (2663515 vs. 2097152)");
        // Other words are a new answer.
        let new = keep_stored_wording(rejected("request is too large (2663601)"), Some(&stored));
        assert_eq!(new.message, "request is too large (2663601)");
        // Numbers where the stored one has none are a new answer too.
        let stored: Conditions = [rejected("larger than max")].into_iter().collect();
        let new = keep_stored_wording(rejected("larger than max 7"), Some(&stored));
        assert_eq!(new.message, "larger than max 7");
    }
}
