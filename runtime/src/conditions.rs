//! The list of conditions a status holds, and the rules for changing it.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::validation::{self, Field, Problem, ValidationError, ValidationErrors};
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;

use crate::condition::InvalidStatus;
use crate::condition::{Condition, ConditionStatus, Severity, Verbatim};

/// What a set did to the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetOutcome {
    /// The same observation was already stored; nothing changed, not even the timestamp.
    Unchanged,
    /// The condition changed in a way the transition rule does not count as a transition
    /// (its `observedGeneration`, say); `lastTransitionTime` was kept.
    Updated,
    /// The condition is new or transitioned; `lastTransitionTime` is the new condition's.
    Transitioned,
}

impl SetOutcome {
    /// Whether the list changed at all.
    pub fn changed(self) -> bool {
        self != Self::Unchanged
    }
}

/// When `lastTransitionTime` moves: defined beside the built-in profiles, whose templates
/// and `#[kondition(transition_rule = "...")]` name it.
pub use kondition_names::profile::TransitionRule;

/// Whether `rule` counts the change from `stored` to `new` as a transition.
fn is_transition(rule: TransitionRule, stored: &Condition, new: &Condition) -> bool {
    match rule {
        TransitionRule::StatusOnly => stored.status != new.status,
        TransitionRule::AnyChange => {
            stored.status != new.status
                || stored.severity_text() != new.severity_text()
                || stored.reason != new.reason
                || stored.message != new.message
        }
    }
}

/// The conditions of a status: a list keyed by `type`, as the API server stores it.
///
/// On the wire it is a plain JSON array of [`Condition`]s; its JSON Schema marks it as a map
/// list keyed by `type` (`x-kubernetes-list-type: map`), so server-side apply merges it entry
/// by entry and several field managers can own different conditions. It reads like a slice;
/// changes go through [`set`](Self::set) and [`remove`](Self::remove), which keep every type
/// unique and `lastTransitionTime` stable.
///
/// Read from the wire, an item that is not a condition kondition can hold (a `status` other
/// than True, False and Unknown, which a schema with a free-text status admits) is kept as
/// it was read, in its place, and written back unchanged; it is not among the conditions
/// this list shows, and setting a condition of its type replaces it. An item without a
/// `reason`, `message` or `lastTransitionTime` (a schema without them: KEDA's) reads with
/// an empty text and the Unix epoch there; see [`StatusShape`](crate::StatusShape) on
/// writing such a list back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    /// The conditions, in order.
    items: Vec<Condition>,
    /// The items read that are no [`Condition`], each with its index in the list as read.
    unread: Vec<(usize, serde_json::Value)>,
}

impl Conditions {
    /// An empty list.
    pub const fn new() -> Self {
        Self {
            items: Vec::new(),
            unread: Vec::new(),
        }
    }

    /// The items read that are no condition kondition can hold, each with its index in the
    /// list as read: what the list writes back beside its conditions.
    pub fn unread(&self) -> impl Iterator<Item = &serde_json::Value> {
        self.unread.iter().map(|(_, value)| value)
    }

    /// Changes each condition in place, the unread items kept: for the chokepoint's passes
    /// that stamp or fit every condition, which must neither change a type nor lose an item.
    pub(crate) fn update_each(&mut self, change: impl FnMut(&mut Condition)) {
        self.items.iter_mut().for_each(change);
    }

    /// Drops the unread items of type `type_`: a condition of that type takes their place.
    fn forget_unread(&mut self, type_: &str) {
        self.unread
            .retain(|(_, value)| value.get("type").and_then(|t| t.as_str()) != Some(type_));
    }

    /// The condition of the given type.
    pub fn get(&self, type_: &str) -> Option<&Condition> {
        self.items.iter().find(|c| c.type_ == type_)
    }

    /// Whether a condition of the given type is present.
    pub fn contains(&self, type_: &str) -> bool {
        self.get(type_).is_some()
    }

    /// The status of the condition of the given type, if present.
    pub fn status(&self, type_: &str) -> Option<ConditionStatus> {
        self.get(type_).map(|c| c.status)
    }

    /// Whether the condition of the given type is present and True.
    pub fn is_true(&self, type_: &str) -> bool {
        self.status(type_) == Some(ConditionStatus::True)
    }

    /// Whether the condition of the given type is present and False.
    pub fn is_false(&self, type_: &str) -> bool {
        self.status(type_) == Some(ConditionStatus::False)
    }

    /// Stores `condition` with the default [`TransitionRule::AnyChange`].
    pub fn set(&mut self, condition: Condition) -> SetOutcome {
        self.set_with(condition, TransitionRule::AnyChange)
    }

    /// Stores `condition`, replacing the one of the same type.
    ///
    /// The condition is [normalized](Condition::normalize) first (message bounded, whole
    /// seconds). If the stored condition already says the same, nothing changes. Otherwise the
    /// new one replaces it, and its `lastTransitionTime` is taken only if `rule` counts the
    /// change as a transition; else the stored time stays. A new type is appended.
    pub fn set_with(&mut self, mut condition: Condition, rule: TransitionRule) -> SetOutcome {
        condition.normalize();
        self.forget_unread(&condition.type_);
        let Some(stored) = self.items.iter_mut().find(|c| c.type_ == condition.type_) else {
            self.items.push(condition);
            return SetOutcome::Transitioned;
        };
        if stored.same_observation(&condition) {
            return SetOutcome::Unchanged;
        }
        if is_transition(rule, stored, &condition) {
            *stored = condition;
            SetOutcome::Transitioned
        } else {
            condition.keep_time_of(stored);
            *stored = condition;
            SetOutcome::Updated
        }
    }

    /// Stores `condition` unless the stored one of the same type supersedes it (ASO's rule for
    /// several writers within one reconcile): a newer `observedGeneration` always wins, an
    /// older one never does, and within one generation an [`Severity::Info`] condition does
    /// not replace a [`Severity::Warning`] or [`Severity::Error`] one. Returns `None` when the
    /// stored condition was kept.
    pub fn set_unless_superseded(&mut self, condition: Condition) -> Option<SetOutcome> {
        if let Some(stored) = self.get(&condition.type_) {
            let keep = match condition
                .observed_generation
                .cmp(&stored.observed_generation)
            {
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => {
                    condition.severity == Severity::Info
                        && matches!(stored.severity, Severity::Warning | Severity::Error)
                }
            };
            if keep {
                return None;
            }
        }
        Some(self.set(condition))
    }

    /// Adds an Unknown condition for each type not present yet, so readers see from the first
    /// visit which conditions this controller maintains. Present conditions are left alone.
    pub fn init_unknown<'a>(
        &mut self,
        types: impl IntoIterator<Item = &'a str>,
        reason: &str,
        observed_generation: Option<i64>,
    ) {
        for type_ in types {
            if !self.contains(type_) {
                let mut condition = Condition::new(type_, ConditionStatus::Unknown, reason);
                condition.observed_generation = observed_generation;
                self.set(condition);
            }
        }
    }

    /// Removes the condition of the given type and returns it.
    pub fn remove(&mut self, type_: &str) -> Option<Condition> {
        self.forget_unread(type_);
        let index = self.items.iter().position(|c| c.type_ == type_)?;
        Some(self.items.remove(index))
    }

    /// Puts `condition` at `index` (or at the end), replacing one of its type: for restoring
    /// a list's order, not for setting (no transition rules apply).
    pub fn insert_at(&mut self, index: usize, condition: Condition) {
        self.remove(&condition.type_);
        let index = index.min(self.items.len());
        self.items.insert(index, condition);
    }

    /// Keeps only the conditions for which `keep` is true.
    pub fn retain(&mut self, keep: impl FnMut(&Condition) -> bool) {
        self.items.retain(keep);
    }

    /// Normalizes every condition in place (see [`Condition::normalize`]); needed only for a
    /// list that was built outside [`set`](Self::set), such as one read from the wire.
    pub fn normalize(&mut self) {
        self.items.iter_mut().for_each(Condition::normalize);
    }

    /// Checks every rule the API server enforces on the list, and reports all broken ones.
    pub fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();
        for (index, condition) in self.items.iter().enumerate() {
            validation::check_condition(condition.fields(), Some(index), &mut errors);
            if let Some(first) = self.items[..index]
                .iter()
                .position(|c| c.type_ == condition.type_)
            {
                errors.push(ValidationError {
                    index: Some(index),
                    field: Field::Type,
                    problem: Problem::Duplicate { first },
                });
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(errors))
        }
    }

    /// The conditions as a vector (without the [unread](Self::unread) items).
    pub fn into_vec(self) -> Vec<Condition> {
        self.items
    }
}

impl Condition {
    /// The fields the API server's rules read.
    fn fields(&self) -> validation::ConditionFields<'_> {
        validation::ConditionFields {
            type_: &self.type_,
            reason: &self.reason,
            message: &self.message,
            observed_generation: self.observed_generation,
        }
    }

    /// Checks every rule the API server enforces on one condition.
    pub fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();
        validation::check_condition(self.fields(), None, &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(errors))
        }
    }

    /// Whether the API server would accept this condition.
    pub fn is_valid(&self) -> bool {
        self.validate().is_ok()
    }
}

impl Serialize for Conditions {
    /// A JSON array: the conditions, with each unread item back at its index as read (or
    /// at the end, when the list has since become shorter).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq = serializer.serialize_seq(Some(self.items.len() + self.unread.len()))?;
        let mut unread = self.unread.iter().peekable();
        let mut written = 0;
        for condition in &self.items {
            while let Some((_, value)) = unread.next_if(|(index, _)| *index <= written) {
                seq.serialize_element(value)?;
                written += 1;
            }
            seq.serialize_element(condition)?;
            written += 1;
        }
        for (_, value) in unread {
            seq.serialize_element(value)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Conditions {
    /// A JSON array of conditions; see [`Conditions`] on the items that are not.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let values = Vec::<serde_json::Value>::deserialize(deserializer)?;
        let mut conditions = Self::new();
        for (index, value) in values.into_iter().enumerate() {
            match read_condition(&value) {
                Some(condition) => conditions.items.push(condition),
                None => conditions.unread.push((index, value)),
            }
        }
        Ok(conditions)
    }
}

/// One item of a list as read: a condition whose `type` and `status` kondition holds;
/// a missing `reason`, `message` or `lastTransitionTime` reads as empty and as the Unix epoch;
/// a `severity` or `lastTransitionTime` text the typed fields cannot hold is kept in the
/// condition's [`Verbatim`](crate::condition::Verbatim).
fn read_condition(value: &serde_json::Value) -> Option<Condition> {
    // An item with a field `Condition` has no place for is kept unread, not read without it.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Item {
        #[serde(rename = "type")]
        type_: String,
        status: ConditionStatus,
        severity: Option<String>,
        last_transition_time: Option<String>,
        #[serde(default)]
        reason: String,
        #[serde(default)]
        message: String,
        #[serde(default)]
        observed_generation: Option<i64>,
    }
    // A null severity says something no severity does: kept unread, as it was read.
    if value
        .get("severity")
        .is_some_and(serde_json::Value::is_null)
    {
        return None;
    }
    let item = Item::deserialize(value).ok()?;
    let mut verbatim = Verbatim::new();
    let severity = verbatim.read_severity(item.severity);
    let last_transition_time = verbatim.read_time(item.last_transition_time);
    Some(Condition {
        type_: item.type_,
        status: item.status,
        severity,
        last_transition_time,
        reason: item.reason,
        message: item.message,
        observed_generation: item.observed_generation,
        verbatim,
    })
}

impl Deref for Conditions {
    type Target = [Condition];

    fn deref(&self) -> &[Condition] {
        &self.items
    }
}

impl AsRef<[Condition]> for Conditions {
    fn as_ref(&self) -> &[Condition] {
        &self.items
    }
}

impl<'a> IntoIterator for &'a Conditions {
    type Item = &'a Condition;
    type IntoIter = std::slice::Iter<'a, Condition>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl IntoIterator for Conditions {
    type Item = Condition;
    type IntoIter = std::vec::IntoIter<Condition>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl FromIterator<Condition> for Conditions {
    /// Sets each condition in turn, so a later condition of a type replaces an earlier one.
    fn from_iter<I: IntoIterator<Item = Condition>>(iter: I) -> Self {
        let mut conditions = Self::new();
        for condition in iter {
            conditions.set(condition);
        }
        conditions
    }
}

impl Extend<Condition> for Conditions {
    fn extend<I: IntoIterator<Item = Condition>>(&mut self, iter: I) {
        for condition in iter {
            self.set(condition);
        }
    }
}

impl From<Vec<Condition>> for Conditions {
    /// As [`FromIterator`]: a later condition of a type replaces an earlier one.
    fn from(conditions: Vec<Condition>) -> Self {
        conditions.into_iter().collect()
    }
}

impl TryFrom<Vec<metav1::Condition>> for Conditions {
    type Error = InvalidStatus;

    /// k8s-openapi's conditions, each kept whole (see `Condition`'s `TryFrom`); a later
    /// condition of a type replaces an earlier one. Fails on the first status that is not
    /// True, False or Unknown.
    fn try_from(conditions: Vec<metav1::Condition>) -> Result<Self, Self::Error> {
        conditions.into_iter().map(Condition::try_from).collect()
    }
}

impl From<Conditions> for Vec<Condition> {
    fn from(conditions: Conditions) -> Self {
        conditions.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).expect("valid timestamp"))
    }

    fn ready(status: ConditionStatus, reason: &str, second: i64) -> Condition {
        Condition::new("Ready", status, reason).at(at(second))
    }

    #[test]
    fn a_new_type_is_appended_as_a_transition() {
        let mut conditions = Conditions::new();
        let outcome = conditions.set(ready(ConditionStatus::True, "Succeeded", 100));
        assert_eq!(outcome, SetOutcome::Transitioned);
        conditions.set(Condition::new("Available", ConditionStatus::True, "Success").at(at(100)));
        let types: Vec<_> = conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Ready", "Available"]);
    }

    #[test]
    fn an_identical_set_changes_nothing_not_even_the_time() {
        let mut conditions = Conditions::new();
        conditions.set(ready(ConditionStatus::True, "Succeeded", 100));
        let outcome = conditions.set(ready(ConditionStatus::True, "Succeeded", 200));
        assert_eq!(outcome, SetOutcome::Unchanged);
        assert_eq!(conditions[0].last_transition_time, at(100));
    }

    #[test]
    fn any_change_of_status_reason_message_or_severity_is_a_transition() {
        let base = ready(ConditionStatus::False, "Reconciling", 100).with_severity(Severity::Info);
        let changes = [
            base.clone().with_message("now with a message"),
            base.clone().with_severity(Severity::Warning),
            Condition {
                reason: "WaitingForOwner".into(),
                ..base.clone()
            },
            Condition {
                status: ConditionStatus::Unknown,
                ..base.clone()
            },
        ];
        for change in changes {
            let mut conditions = Conditions::from_iter([base.clone()]);
            let outcome = conditions.set(change.clone().at(at(200)));
            assert_eq!(outcome, SetOutcome::Transitioned, "{change:?}");
            assert_eq!(conditions[0].last_transition_time, at(200));
        }
    }

    #[test]
    fn a_new_observed_generation_alone_is_an_update() {
        let mut conditions =
            Conditions::from_iter([
                ready(ConditionStatus::True, "Succeeded", 100).with_observed_generation(1)
            ]);
        let outcome = conditions
            .set(ready(ConditionStatus::True, "Succeeded", 200).with_observed_generation(2));
        assert_eq!(outcome, SetOutcome::Updated);
        assert_eq!(conditions[0].observed_generation, Some(2));
        assert_eq!(conditions[0].last_transition_time, at(100));
    }

    #[test]
    fn the_status_only_rule_keeps_the_time_when_only_the_reason_changes() {
        let mut conditions =
            Conditions::from_iter([ready(ConditionStatus::False, "Reconciling", 100)]);
        let outcome = conditions.set_with(
            ready(ConditionStatus::False, "WaitingForOwner", 200),
            TransitionRule::StatusOnly,
        );
        assert_eq!(outcome, SetOutcome::Updated);
        assert_eq!(conditions[0].reason, "WaitingForOwner");
        assert_eq!(conditions[0].last_transition_time, at(100));

        let outcome = conditions.set_with(
            ready(ConditionStatus::True, "Succeeded", 300),
            TransitionRule::StatusOnly,
        );
        assert_eq!(outcome, SetOutcome::Transitioned);
        assert_eq!(conditions[0].last_transition_time, at(300));
    }

    #[test]
    fn times_are_stored_in_whole_seconds() {
        let precise = Timestamp::from_nanosecond(1_700_000_000_987_654_321).expect("valid");
        let mut conditions = Conditions::new();
        conditions.set(ready(ConditionStatus::True, "Succeeded", 0).at(Time(precise)));
        assert_eq!(conditions[0].last_transition_time, at(1_700_000_000));

        let before_epoch = Timestamp::from_nanosecond(-1_500_000_000).expect("valid");
        conditions.set(ready(ConditionStatus::False, "Failed", 0).at(Time(before_epoch)));
        assert_eq!(conditions[0].last_transition_time, at(-2));
    }

    #[test]
    fn set_bounds_the_message() {
        let mut conditions = Conditions::new();
        let long = "x".repeat(validation::MAX_MESSAGE_BYTES * 2);
        conditions.set(ready(ConditionStatus::False, "Failed", 1).with_message(long));
        assert!(conditions[0].message.len() <= validation::MAX_MESSAGE_BYTES);
        assert!(
            conditions[0]
                .message
                .ends_with(validation::TRUNCATION_MARKER)
        );
        assert!(conditions.validate().is_ok());
    }

    #[test]
    fn unknown_conditions_carry_no_severity() {
        let mut conditions = Conditions::new();
        conditions.set(
            ready(ConditionStatus::Unknown, "Initializing", 1).with_severity(Severity::Warning),
        );
        assert_eq!(conditions[0].severity, Severity::None);
    }

    #[test]
    fn remove_and_lookups() {
        let mut conditions = Conditions::from_iter([
            ready(ConditionStatus::True, "Succeeded", 1),
            Condition::new("Stalled", ConditionStatus::False, "NotStalled").at(at(1)),
        ]);
        assert!(conditions.is_true("Ready"));
        assert!(conditions.is_false("Stalled"));
        assert_eq!(conditions.status("Missing"), None);
        let removed = conditions.remove("Ready").expect("Ready was present");
        assert_eq!(removed.reason, "Succeeded");
        assert!(!conditions.contains("Ready"));
        assert_eq!(conditions.remove("Ready"), None);
        assert_eq!(conditions.len(), 1);
    }

    #[test]
    fn aso_overwrite_rule() {
        let stored_warning = ready(ConditionStatus::False, "WaitingForOwner", 1)
            .with_severity(Severity::Warning)
            .with_observed_generation(2);
        let info_same_generation = ready(ConditionStatus::False, "Reconciling", 2)
            .with_severity(Severity::Info)
            .with_observed_generation(2);
        let info_newer_generation = info_same_generation.clone().with_observed_generation(3);
        let error_older_generation = ready(ConditionStatus::False, "BadRequest", 2)
            .with_severity(Severity::Error)
            .with_observed_generation(1);
        let error_same_generation = error_older_generation.clone().with_observed_generation(2);

        let mut conditions = Conditions::from_iter([stored_warning.clone()]);
        assert_eq!(conditions.set_unless_superseded(info_same_generation), None);
        assert_eq!(
            conditions.set_unless_superseded(error_older_generation),
            None
        );
        assert_eq!(conditions[0].reason, "WaitingForOwner");

        assert_eq!(
            conditions.set_unless_superseded(error_same_generation),
            Some(SetOutcome::Transitioned)
        );
        assert_eq!(conditions[0].reason, "BadRequest");

        assert_eq!(
            conditions.set_unless_superseded(info_newer_generation),
            Some(SetOutcome::Transitioned)
        );
        assert_eq!(conditions[0].reason, "Reconciling");

        // Within a generation, an Info condition does replace another Info condition.
        let mut infos = Conditions::new();
        let info = ready(ConditionStatus::False, "Reconciling", 1)
            .with_severity(Severity::Info)
            .with_observed_generation(1);
        infos.set(info.clone());
        assert_eq!(
            infos.set_unless_superseded(info.with_message("still waiting")),
            Some(SetOutcome::Transitioned)
        );
    }

    #[test]
    fn init_unknown_adds_only_missing_types() {
        let mut conditions = Conditions::from_iter([ready(ConditionStatus::True, "Succeeded", 1)]);
        conditions.init_unknown(["Ready", "Available"], "Initializing", Some(4));
        assert!(conditions.is_true("Ready"));
        let available = conditions.get("Available").expect("added");
        assert_eq!(available.status, ConditionStatus::Unknown);
        assert_eq!(available.reason, "Initializing");
        assert_eq!(available.observed_generation, Some(4));
    }

    #[test]
    fn validate_reports_every_problem_with_its_index() {
        let list: Conditions = serde_json::from_value(serde_json::json!([
            {"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
             "lastTransitionTime": "2024-01-01T00:00:00Z"},
            {"type": "Ready", "status": "False", "reason": "no spaces", "message": "",
             "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": -3},
        ]))
        .expect("valid JSON");
        let errors = list.validate().expect_err("two problems").0;
        assert_eq!(
            errors,
            vec![
                ValidationError {
                    index: Some(1),
                    field: Field::Reason,
                    problem: Problem::Pattern {
                        value: "no spaces".into(),
                        pattern: validation::REASON_PATTERN
                    },
                },
                ValidationError {
                    index: Some(1),
                    field: Field::ObservedGeneration,
                    problem: Problem::Negative(-3),
                },
                ValidationError {
                    index: Some(1),
                    field: Field::Type,
                    problem: Problem::Duplicate { first: 0 },
                },
            ]
        );
    }

    #[test]
    fn k8s_openapi_conditions_convert_whole_and_a_bad_status_is_refused() {
        let wire = serde_json::json!([
            {"type": "Ready", "status": "False", "reason": "Pending", "message": "waiting",
             "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": 3},
            {"type": "Synced", "status": "True", "reason": "Synced", "message": "",
             "lastTransitionTime": "2024-01-02T00:00:00Z"},
        ]);
        let k8s: Vec<metav1::Condition> =
            serde_json::from_value(wire.clone()).expect("valid conditions");
        let conditions = Conditions::try_from(k8s.clone()).expect("valid statuses");
        // The same JSON: nothing of a condition is lost on the way.
        assert_eq!(serde_json::to_value(&conditions).expect("serializes"), wire);
        assert_eq!(Conditions::from(Vec::from(conditions.clone())), conditions);

        let mut bad = k8s;
        bad[1].status = "Yes".into();
        assert_eq!(Conditions::try_from(bad), Err(InvalidStatus("Yes".into())));
    }

    /// An item kondition cannot hold (a status that is no ConditionStatus, a field Condition
    /// has no place for) is kept unread in its place and written back as read; setting its
    /// type replaces it.
    #[test]
    fn items_that_are_no_condition_are_kept_in_their_place() {
        use serde_json::json;
        let ready = json!({"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "Done", "message": ""});
        let odd = json!({"type": "Active", "status": "Maybe"});
        let extra = json!({"type": "Paused", "status": "False", "reason": "R", "message": "", "lastTransitionTime": "2024-01-02T03:04:05Z", "lastProbeTime": null});
        let wire = json!([odd, ready, extra]);
        let conditions: Conditions = serde_json::from_value(wire.clone()).expect("read");
        assert_eq!(conditions.len(), 1, "only Ready is a condition");
        assert_eq!(conditions.unread().collect::<Vec<_>>(), [&odd, &extra]);
        assert_eq!(serde_json::to_value(&conditions).expect("written"), wire);

        let mut changed = conditions.clone();
        changed.set(Condition::new("Active", ConditionStatus::True, "Scaling").at(at(9)));
        let written = serde_json::to_value(&changed).expect("written");
        let types: Vec<_> = written
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["type"].clone())
            .collect();
        // Paused stays at its index as read (2), the new Active before it.
        assert_eq!(types, [json!("Ready"), json!("Active"), json!("Paused")]);
        changed.remove("Paused");
        assert_eq!(changed.unread().count(), 0);
    }

    /// Knative's and ASO's free text (a severity other than Error, Warning and Info, `""`
    /// among them; a `lastTransitionTime` that is no time) is read into the condition and
    /// written back as it was; an RFC 3339 time is held by `Time` as before.
    #[test]
    fn free_text_another_writer_left_is_written_back_unchanged() {
        use serde_json::json;
        let wire = json!([
            {"type": "Ready", "status": "False", "severity": "Major", "lastTransitionTime": "yesterday", "reason": "Down", "message": "m"},
            {"type": "Succeeded", "status": "True", "severity": "", "lastTransitionTime": "", "reason": "Done", "message": ""},
            {"type": "Synced", "status": "True", "severity": "Info", "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "Done", "message": ""},
        ]);
        let conditions: Conditions = serde_json::from_value(wire.clone()).expect("read");
        assert_eq!(conditions.len(), 3, "every item is a condition");
        assert_eq!(conditions.unread().count(), 0);
        let ready = conditions.get("Ready").expect("Ready");
        assert_eq!(ready.severity, Severity::None);
        assert_eq!(ready.severity_text(), Some("Major"));
        assert_eq!(ready.last_transition_time_text(), Some("yesterday"));
        assert_eq!(ready.last_transition_time, at(0));
        let succeeded = conditions.get("Succeeded").expect("Succeeded");
        assert_eq!(succeeded.severity_text(), Some(""));
        let synced = conditions.get("Synced").expect("Synced");
        assert!(synced.verbatim.is_empty());
        assert_eq!(serde_json::to_value(&conditions).expect("written"), wire);

        // Assigning a field writes the new value: no stale text over a change.
        let mut changed = conditions.clone();
        changed.update_each(|c| {
            if c.type_ == "Ready" {
                c.severity = Severity::Warning;
            }
        });
        let written = serde_json::to_value(&changed).expect("written");
        assert_eq!(written[0]["severity"], json!("Warning"));
        assert_eq!(written[0]["lastTransitionTime"], json!("yesterday"));

        // Setting the same observation with no severity is a change of severity (the text
        // is not "no severity"), and a transition: the time is this one's.
        let mut set = conditions.clone();
        let outcome = set.set(
            Condition::new("Ready", ConditionStatus::False, "Down")
                .with_message("m")
                .at(at(100)),
        );
        assert_eq!(outcome, SetOutcome::Transitioned);
        let written = serde_json::to_value(&set).expect("written");
        assert_eq!(written[0].get("severity"), None);
        assert_eq!(
            written[0]["lastTransitionTime"],
            json!("1970-01-01T00:01:40Z")
        );

        // A change that is no transition keeps the stored time's text.
        let mut updated = conditions;
        let outcome = updated.set_with(
            Condition::new("Ready", ConditionStatus::False, "Down")
                .with_message("m")
                .with_observed_generation(4)
                .at(at(100)),
            TransitionRule::StatusOnly,
        );
        assert_eq!(outcome, SetOutcome::Updated);
        let written = serde_json::to_value(&updated).expect("written");
        assert_eq!(written[0]["lastTransitionTime"], json!("yesterday"));
        assert_eq!(written[0].get("severity"), None);
    }

    /// A null severity is no severity kondition holds: the item is kept unread.
    #[test]
    fn a_null_severity_is_kept_unread() {
        let wire = serde_json::json!([{"type": "Ready", "status": "True", "severity": null}]);
        let conditions: Conditions = serde_json::from_value(wire.clone()).expect("read");
        assert_eq!(conditions.unread().count(), 1);
        assert_eq!(serde_json::to_value(&conditions).expect("written"), wire);
    }

    /// A condition without `reason`, `message` or `lastTransitionTime` (KEDA's) reads with
    /// empty texts and the Unix epoch.
    #[test]
    fn missing_metav1_fields_read_as_empty() {
        let conditions: Conditions =
            serde_json::from_value(serde_json::json!([{"type": "Ready", "status": "Unknown"}]))
                .expect("read");
        let ready = conditions.get("Ready").expect("a condition");
        assert_eq!((ready.reason.as_str(), ready.message.as_str()), ("", ""));
        assert_eq!(ready.last_transition_time, at(0));
        assert_eq!(conditions.unread().count(), 0);
    }
}
