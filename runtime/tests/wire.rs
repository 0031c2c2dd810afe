//! The wire form of a condition: exactly metav1.Condition's JSON, plus `severity`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use k8s_openapi::jiff::Timestamp;
use kondition::{Condition, ConditionStatus, InvalidStatus, Severity, Time};
use serde_json::json;

fn ready() -> Condition {
    Condition::new("Ready", ConditionStatus::False, "WaitingForOwner")
        .with_message("owner rg-1 not found")
        .with_observed_generation(4)
        .at(Time(Timestamp::from_second(1_700_000_000).expect("valid")))
}

#[test]
fn json_has_metav1_fields_and_severity() {
    let condition = ready().with_severity(Severity::Warning);
    assert_eq!(
        serde_json::to_value(&condition).expect("serializes"),
        json!({
            "type": "Ready",
            "status": "False",
            "severity": "Warning",
            "lastTransitionTime": "2023-11-14T22:13:20Z",
            "reason": "WaitingForOwner",
            "message": "owner rg-1 not found",
            "observedGeneration": 4
        })
    );
}

#[test]
fn no_severity_and_no_generation_are_omitted_but_an_empty_message_is_not() {
    let mut condition = ready().with_message("");
    condition.observed_generation = None;
    assert_eq!(
        serde_json::to_value(&condition).expect("serializes"),
        json!({
            "type": "Ready",
            "status": "False",
            "lastTransitionTime": "2023-11-14T22:13:20Z",
            "reason": "WaitingForOwner",
            "message": ""
        })
    );
}

#[test]
fn equals_k8s_openapi_json_for_the_same_data() {
    let condition = ready();
    let k8s = metav1::Condition {
        type_: "Ready".into(),
        status: "False".into(),
        last_transition_time: Time(Timestamp::from_second(1_700_000_000).expect("valid")),
        reason: "WaitingForOwner".into(),
        message: "owner rg-1 not found".into(),
        observed_generation: Some(4),
    };
    assert_eq!(
        serde_json::to_value(&condition).expect("serializes"),
        serde_json::to_value(&k8s).expect("serializes")
    );
    assert_eq!(metav1::Condition::from(condition.clone()), k8s);
    assert_eq!(Condition::try_from(k8s), Ok(condition));
}

#[test]
fn conversion_drops_only_severity() {
    let condition = ready().with_severity(Severity::Error);
    let back = Condition::try_from(metav1::Condition::from(condition.clone())).expect("valid");
    assert_eq!(
        back,
        Condition {
            severity: Severity::None,
            ..condition
        }
    );
}

#[test]
fn reading_accepts_asos_empty_severity_and_rejects_unknown_words() {
    let aso: Condition = serde_json::from_value(json!({
        "type": "Ready", "status": "True", "severity": "", "reason": "Succeeded",
        "message": "", "lastTransitionTime": "2023-11-14T22:13:20Z"
    }))
    .expect("ASO's empty severity reads as None");
    assert_eq!(aso.severity, Severity::None);

    let bad_status = serde_json::from_value::<Condition>(json!({
        "type": "Ready", "status": "Yes", "reason": "Succeeded",
        "message": "", "lastTransitionTime": "2023-11-14T22:13:20Z"
    }));
    assert!(bad_status.is_err());

    let k8s = metav1::Condition {
        type_: "Ready".into(),
        status: "Yes".into(),
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
        reason: "R".into(),
        message: String::new(),
        observed_generation: None,
    };
    assert_eq!(Condition::try_from(k8s), Err(InvalidStatus("Yes".into())));
}

#[test]
fn a_missing_message_reads_as_empty() {
    let condition: Condition = serde_json::from_value(json!({
        "type": "Ready", "status": "True", "reason": "Succeeded",
        "lastTransitionTime": "2023-11-14T22:13:20Z"
    }))
    .expect("message is optional when reading");
    assert_eq!(condition.message, "");
}
