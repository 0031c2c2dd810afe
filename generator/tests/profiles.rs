//! The profiles in templates/ give exactly the condition types, summaries and reasons the
//! runtime's `kondition::profile` modules implement.

use kondition::profile;
use kondition_gen::profile::Profiles;

fn types(name: &str) -> Vec<String> {
    let profiles = Profiles::embedded();
    let profile = profiles
        .get(name)
        .unwrap_or_else(|| panic!("profile {name} is embedded"));
    profile.conditions.iter().map(|c| c.type_.clone()).collect()
}

fn reasons(name: &str, type_: &str) -> Vec<String> {
    let profiles = Profiles::embedded();
    let profile = profiles
        .get(name)
        .unwrap_or_else(|| panic!("profile {name} is embedded"));
    let condition = profile
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .expect("declared");
    condition.reasons.iter().map(|r| r.name.clone()).collect()
}

#[test]
fn templates_match_the_runtime_profiles() {
    assert_eq!(
        Profiles::embedded().names(),
        ["aso", "kstatus", "orc", "standard"]
    );
    assert_eq!(types("standard"), profile::standard::CONDITION_TYPES);
    assert_eq!(types("aso"), profile::aso::CONDITION_TYPES);
    assert_eq!(types("orc"), profile::orc::CONDITION_TYPES);
    assert_eq!(types("kstatus"), profile::kstatus::CONDITION_TYPES);

    assert_eq!(
        reasons("standard", profile::READY),
        [
            profile::standard::REASON_RECONCILIATION_SUCCESS,
            profile::standard::REASON_RECONCILIATION_ERROR
        ]
    );
    assert_eq!(
        reasons("aso", profile::READY),
        [
            profile::aso::REASON_RECONCILING,
            profile::aso::REASON_WAITING_FOR_OWNER,
            profile::aso::REASON_DELETING,
            profile::aso::REASON_SUCCEEDED,
        ]
    );
    let profiles = Profiles::embedded();
    assert_eq!(
        profiles.get("orc").map(|p| p.summary.as_str()),
        Some(profile::orc::AVAILABLE)
    );
    assert_eq!(
        profiles.get("kstatus").map(|p| p.summary.as_str()),
        Some(profile::READY)
    );
}

/// What the chokepoint writes for each profile (the runtime's `Profile`) is what the
/// templates declare: the same summary, and a success reason the summary declares as healthy.
#[test]
fn the_runtime_s_summaries_are_the_templates() {
    let profiles = Profiles::embedded();
    for runtime in profile::PROFILES {
        let template = profiles.get(runtime.name).expect("embedded");
        assert_eq!(template.summary, runtime.summary, "{}", runtime.name);
        let summary = template
            .conditions
            .iter()
            .find(|c| c.type_ == runtime.summary)
            .expect("the summary is declared");
        let success = summary
            .reasons
            .iter()
            .find(|r| r.name == runtime.success_reason)
            .unwrap_or_else(|| panic!("{}: no reason {}", runtime.name, runtime.success_reason));
        assert_eq!(
            success.severity,
            kondition::Severity::None,
            "{}",
            runtime.name
        );
        assert_eq!(
            types(runtime.name),
            runtime.condition_types,
            "{}",
            runtime.name
        );
    }
}
