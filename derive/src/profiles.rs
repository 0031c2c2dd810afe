//! The condition types of each status profile, by name (`profile = "aso"`).
//!
//! The macro needs the types while it expands, before the runtime is compiled, so they are
//! repeated here; the profiles' meaning (summary, reasons, companions) stays in the runtime's
//! `kondition::profile::<NAME>` constant, which the generated code names. A workspace test
//! checks that a status deriving each profile declares exactly the runtime's list.

/// Every profile with its condition types.
pub const PROFILES: &[(&str, &[&str])] = &[
    ("standard", &["Ready"]),
    ("aso", &["Ready"]),
    ("orc", &["Available", "Progressing"]),
    ("kstatus", &["Ready", "Reconciling", "Stalled"]),
];

/// The summary condition of a status that names no profile (`kondition::profile::CUSTOM`).
pub const DEFAULT_SUMMARY: &str = "Ready";

/// The summary condition of the named profile: the runtime's `kondition::profile::<NAME>`.
pub fn summary(name: &str) -> &'static str {
    if name == "orc" {
        "Available"
    } else {
        DEFAULT_SUMMARY
    }
}

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
