//! Properties of the condition rules over random conditions and random edit sequences.

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use k8s_openapi::jiff::Timestamp;
use kondition::validation::{
    MAX_MESSAGE_BYTES, TRUNCATION_MARKER, is_valid_reason, sanitize_reason, truncate_message,
};
use kondition::{
    Condition, ConditionStatus, Conditions, SetOutcome, Severity, Time, TransitionRule, Verbatim,
};
use proptest::prelude::*;

fn time() -> impl Strategy<Value = Time> {
    (0i64..4_000_000_000).prop_map(|s| Time(Timestamp::from_second(s).expect("in range")))
}

fn status() -> impl Strategy<Value = ConditionStatus> {
    prop_oneof![
        Just(ConditionStatus::True),
        Just(ConditionStatus::False),
        Just(ConditionStatus::Unknown)
    ]
}

fn severity() -> impl Strategy<Value = Severity> {
    prop_oneof![
        Just(Severity::None),
        Just(Severity::Info),
        Just(Severity::Warning),
        Just(Severity::Error)
    ]
}

/// Few types, so that sequences of sets collide often.
fn condition_type() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Ready".to_owned()),
        Just("Available".to_owned()),
        Just("SubResourcesReady".to_owned()),
        Just("example.com/Synced".to_owned()),
    ]
}

prop_compose! {
    fn condition()(
        type_ in condition_type(),
        status in status(),
        severity in severity(),
        time in time(),
        reason in "[A-Z][A-Za-z0-9_]{0,12}",
        message in ".{0,24}",
        observed_generation in proptest::option::of(0i64..20),
    ) -> Condition {
        Condition { type_, status, severity, last_transition_time: time, reason, message, observed_generation, verbatim: Verbatim::new() }
    }
}

#[derive(Clone, Debug)]
enum Edit {
    Set(Condition, TransitionRule),
    Remove(String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (condition(), prop_oneof![Just(TransitionRule::AnyChange), Just(TransitionRule::StatusOnly)])
            .prop_map(|(c, rule)| Edit::Set(c, rule)),
        1 => condition_type().prop_map(Edit::Remove),
    ]
}

proptest! {
    #[test]
    fn setting_the_same_condition_twice_changes_nothing(
        edits in proptest::collection::vec(edit(), 0..12),
        condition in condition(),
    ) {
        let mut conditions = Conditions::new();
        apply(&mut conditions, edits);
        conditions.set(condition.clone());
        let after_first = conditions.clone();
        prop_assert_eq!(conditions.set(condition), SetOutcome::Unchanged);
        prop_assert_eq!(conditions, after_first);
    }

    #[test]
    fn a_list_never_holds_two_conditions_of_one_type(edits in proptest::collection::vec(edit(), 0..40)) {
        let mut conditions = Conditions::new();
        apply(&mut conditions, edits);
        let mut types: Vec<_> = conditions.iter().map(|c| c.type_.clone()).collect();
        let count = types.len();
        types.sort();
        types.dedup();
        prop_assert_eq!(types.len(), count);
        prop_assert!(conditions.validate().is_ok(), "{:?}", conditions.validate());
    }

    #[test]
    fn last_transition_time_never_moves_on_an_identical_set(
        condition in condition(),
        later in time(),
        rule in prop_oneof![Just(TransitionRule::AnyChange), Just(TransitionRule::StatusOnly)],
    ) {
        let mut conditions = Conditions::new();
        conditions.set(condition.clone());
        let stored = conditions[0].last_transition_time.clone();
        let outcome = conditions.set_with(condition.at(later), rule);
        prop_assert_eq!(outcome, SetOutcome::Unchanged);
        prop_assert_eq!(&conditions[0].last_transition_time, &stored);
    }

    #[test]
    fn only_a_transition_moves_last_transition_time(
        first in condition(),
        second in condition(),
        rule in prop_oneof![Just(TransitionRule::AnyChange), Just(TransitionRule::StatusOnly)],
    ) {
        let second = Condition { type_: first.type_.clone(), ..second };
        let mut conditions = Conditions::new();
        conditions.set(first.clone());
        let outcome = conditions.set_with(second.clone(), rule);
        let expected_time = if outcome == SetOutcome::Transitioned {
            &second.last_transition_time
        } else {
            &first.last_transition_time
        };
        prop_assert_eq!(&conditions[0].last_transition_time, expected_time);
        let status_changed = first.status != second.status;
        if status_changed {
            prop_assert_eq!(outcome, SetOutcome::Transitioned);
        }
    }

    #[test]
    fn truncated_messages_are_utf8_within_the_limit(
        chars in proptest::collection::vec(any::<char>(), 0..14_000),
    ) {
        let original: String = chars.into_iter().collect();
        let mut message = original.clone();
        let cut = truncate_message(&mut message);
        prop_assert!(message.len() <= MAX_MESSAGE_BYTES);
        prop_assert!(std::str::from_utf8(message.as_bytes()).is_ok());
        prop_assert_eq!(cut, original.len() > MAX_MESSAGE_BYTES);
        if cut {
            let kept = message.strip_suffix(TRUNCATION_MARKER).expect("marker");
            prop_assert!(original.starts_with(kept));
            prop_assert!(kept.len() + 3 >= MAX_MESSAGE_BYTES - TRUNCATION_MARKER.len());
        } else {
            prop_assert_eq!(message, original);
        }
    }

    #[test]
    fn sanitized_reasons_are_always_valid(raw in ".{0,40}") {
        let reason = sanitize_reason(&raw);
        prop_assert!(is_valid_reason(&reason), "{:?} -> {:?}", raw, reason);
        if is_valid_reason(&raw) {
            prop_assert_eq!(reason, raw);
        }
    }

    #[test]
    fn json_equals_k8s_openapi_both_ways(condition in condition()) {
        let condition = Condition { severity: Severity::None, ..condition };
        let ours = serde_json::to_value(&condition).expect("serializes");
        let theirs = serde_json::to_value(metav1::Condition::from(condition.clone())).expect("serializes");
        prop_assert_eq!(&ours, &theirs);

        let from_theirs: Condition = serde_json::from_value(theirs.clone()).expect("reads k8s JSON");
        prop_assert_eq!(&from_theirs, &condition);
        let theirs_from_ours: metav1::Condition = serde_json::from_value(ours).expect("k8s reads ours");
        prop_assert_eq!(Condition::try_from(theirs_from_ours).expect("valid status"), condition);
    }
}

fn apply(conditions: &mut Conditions, edits: Vec<Edit>) {
    for edit in edits {
        match edit {
            Edit::Set(condition, rule) => {
                conditions.set_with(condition, rule);
            }
            Edit::Remove(type_) => {
                conditions.remove(&type_);
            }
        }
    }
}
