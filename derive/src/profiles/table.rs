//! Written from `templates/*.yaml` by `generator/tests/profiles.rs`; do not edit it by hand:
//! `KONDITION_BLESS=1 cargo test -p kondition-gen --test profiles` rewrites it after a
//! template changes, and that test fails while it differs from the templates.

use super::Template;

/// The built-in profiles, by name.
pub const TEMPLATES: &[Template] = &[
    Template {
        name: "aso",
        summary: "Ready",
        condition_types: &["Ready"],
    },
    Template {
        name: "kstatus",
        summary: "Ready",
        condition_types: &["Ready", "Reconciling", "Stalled"],
    },
    Template {
        name: "orc",
        summary: "Available",
        condition_types: &["Available", "Progressing"],
    },
    Template {
        name: "standard",
        summary: "Ready",
        condition_types: &["Ready"],
    },
];
