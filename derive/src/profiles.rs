//! The condition types of each status profile, by name (`profile = "aso"`).
//!
//! These mirror `kondition::profile::*::CONDITION_TYPES`; a workspace test checks that a
//! status deriving each profile declares exactly the runtime's list.

/// Every profile with its condition types.
pub const PROFILES: &[(&str, &[&str])] = &[
    ("standard", &["Ready"]),
    ("aso", &["Ready"]),
    ("orc", &["Available", "Progressing"]),
    ("kstatus", &["Ready", "Reconciling", "Stalled"]),
];

/// The condition types of the named profile.
pub fn condition_types(name: &str) -> Option<&'static [&'static str]> {
    PROFILES
        .iter()
        .find(|(profile, _)| *profile == name)
        .map(|(_, types)| *types)
}

/// The profile names, for error messages.
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|(name, _)| format!("\"{name}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
