//! templates/ is the one source of the built-in profiles. The runtime's and the derive's
//! tables of them are written from it here, and checked against it on every run:
//! `KONDITION_BLESS=1 cargo test -p kondition-gen --test profiles` rewrites both after a
//! template changes, and fails all the same (the next run checks what it wrote).

use std::fmt::Write as _;
use std::path::Path;

use kondition::profile;
use kondition_gen::model;
use kondition_gen::profile::{Profile, Profiles};

const HEADER: &str = "\
//! Written from `templates/*.yaml` by `generator/tests/profiles.rs`; do not edit it by hand:
//! `KONDITION_BLESS=1 cargo test -p kondition-gen --test profiles` rewrites it after a
//! template changes, and that test fails while it differs from the templates.
";

/// The embedded profiles, in name order.
fn templates() -> Vec<Profile> {
    let profiles = Profiles::embedded();
    profiles
        .names()
        .into_iter()
        .filter_map(|name| profiles.get(name).cloned())
        .collect()
}

/// `SCREAMING_SNAKE_CASE` of a condition type or reason.
fn constant(name: &str) -> String {
    kondition_names::snake_case(name).to_uppercase()
}

/// The reason a successful reconcile gives the summary, as the generator reads it.
fn success_reason(profile: &Profile) -> &str {
    model::success_reason(&profile.conditions, &profile.summary).unwrap_or_else(|| {
        panic!(
            "{}: the summary has no reason of severity None",
            profile.name
        )
    })
}

/// A doc comment of `text`, each line indented by `indent` and wrapped at 92 columns (a
/// list item's continuation lines indented under its text).
fn doc(out: &mut String, indent: &str, text: &str) {
    const WIDTH: usize = 92;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
            continue;
        }
        let hanging = if line.starts_with("- ") { "  " } else { "" };
        let mut current = format!("{indent}///");
        let mut first = true;
        for word in line.split_whitespace() {
            if !first && current.len() + 1 + word.len() > WIDTH {
                let _ = writeln!(out, "{current}");
                current = format!("{indent}/// {hanging}{word}");
            } else {
                current.push(' ');
                current.push_str(word);
            }
            first = false;
        }
        let _ = writeln!(out, "{current}");
    }
}

/// The runtime's table: a module per profile with its condition types and reasons as
/// constants, and what `kondition::profile::Profile` takes from the template.
fn runtime_table(profiles: &[Profile]) -> String {
    let mut out = String::from(HEADER);
    out.push_str("//!\n//! Each `kondition::profile::<name>` module re-exports its table.\n\n");
    out.push_str("use crate::conditions::TransitionRule;\n");
    for profile in profiles {
        let _ = writeln!(out);
        doc(
            &mut out,
            "",
            &format!(
                "`{}`: {}",
                profile.name,
                profile.docs.as_deref().unwrap_or_default()
            ),
        );
        let _ = writeln!(out, "pub mod {} {{", profile.name);
        out.push_str("    use super::TransitionRule;\n");
        for condition in &profile.conditions {
            let _ = writeln!(out);
            let mut text = format!(
                "Condition type `{}` ({:?}: {} is healthy).",
                condition.type_,
                condition.polarity,
                match condition.polarity {
                    kondition::Polarity::Positive => "True",
                    kondition::Polarity::Negative => "False",
                }
            );
            if let Some(docs) = &condition.docs {
                let _ = write!(text, "\n\n{docs}");
            }
            doc(&mut out, "    ", &text);
            let _ = writeln!(
                out,
                "    pub const {}: &str = \"{}\";",
                constant(&condition.type_),
                condition.type_
            );
        }
        let mut reasons: Vec<&str> = Vec::new();
        for condition in &profile.conditions {
            for reason in &condition.reasons {
                if !reasons.contains(&reason.name.as_str()) {
                    reasons.push(&reason.name);
                }
            }
        }
        for reason in reasons {
            let _ = writeln!(out);
            let mut text = format!("Reason `{reason}`:\n");
            for condition in &profile.conditions {
                for declared in condition.reasons.iter().filter(|r| r.name == reason) {
                    let _ = write!(
                        text,
                        "\n- of {} (severity {:?}){}",
                        condition.type_,
                        declared.severity,
                        declared
                            .docs
                            .as_deref()
                            .map(|d| format!(": {d}"))
                            .unwrap_or_default()
                    );
                }
            }
            doc(&mut out, "    ", &text);
            let _ = writeln!(
                out,
                "    pub const REASON_{}: &str = \"{reason}\";",
                constant(reason)
            );
        }
        let types: Vec<String> = profile
            .conditions
            .iter()
            .map(|c| constant(&c.type_))
            .collect();
        let _ = write!(
            out,
            "
    /// The condition types of this profile.
    pub const CONDITION_TYPES: &[&str] = &[{types}];

    /// The condition that summarises the others.
    pub(crate) const SUMMARY: &str = {summary};

    /// The summary's reason after a successful reconcile: its first reason of severity None.
    pub(crate) const SUCCESS_REASON: &str = REASON_{success};

    /// When a condition's `lastTransitionTime` moves.
    pub(crate) const TRANSITION_RULE: TransitionRule = TransitionRule::{rule:?};
}}
",
            types = types.join(", "),
            summary = constant(&profile.summary),
            success = constant(success_reason(profile)),
            rule = profile.transition_rule,
        );
    }
    out
}

/// The derive's table: each profile's name, summary and condition types, which the macro
/// needs while it expands, before the runtime is compiled.
fn derive_table(profiles: &[Profile]) -> String {
    let mut out = String::from(HEADER);
    out.push_str("\nuse super::Template;\n\n/// The built-in profiles, by name.\n");
    out.push_str("pub const TEMPLATES: &[Template] = &[\n");
    for profile in profiles {
        let types: Vec<String> = profile
            .conditions
            .iter()
            .map(|c| format!("\"{}\"", c.type_))
            .collect();
        let _ = write!(
            out,
            "    Template {{
        name: \"{}\",
        summary: \"{}\",
        condition_types: &[{}],
    }},
",
            profile.name,
            profile.summary,
            types.join(", ")
        );
    }
    out.push_str("];\n");
    out
}

/// Compares `path` (relative to the workspace) with `expected`. When blessing, a table that
/// differs is rewritten and the test fails all the same: a run that changed the table checked
/// nothing against it, and the next run checks what was written.
fn check_table(path: &str, expected: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected && std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, expected).expect("the table can be written");
        panic!(
            "{} rewritten from templates/: review the diff and run the test again without \
             KONDITION_BLESS",
            path.display()
        );
    }
    assert!(
        actual == expected,
        "{} differs from templates/; rewrite it with \
         `KONDITION_BLESS=1 cargo test -p kondition-gen --test profiles`",
        path.display()
    );
}

#[test]
fn the_runtime_and_derive_tables_are_written_from_the_templates() {
    let profiles = templates();
    assert_eq!(
        profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["aso", "kstatus", "orc", "standard"]
    );
    check_table("runtime/src/profile/table.rs", &runtime_table(&profiles));
    check_table("derive/src/profiles/table.rs", &derive_table(&profiles));
}

/// What the chokepoint writes for each profile (the runtime's `Profile`) is what the
/// template declares: the table's condition types, summary, success reason and transition
/// rule, and companions that are exactly the template's conditions beside the summary.
#[test]
fn the_runtime_s_profiles_are_the_templates() {
    let templates = templates();
    assert_eq!(profile::PROFILES.len(), templates.len());
    for runtime in profile::PROFILES {
        let template = templates
            .iter()
            .find(|t| t.name == runtime.name)
            .unwrap_or_else(|| panic!("{} has a template", runtime.name));
        let types: Vec<&str> = template
            .conditions
            .iter()
            .map(|c| c.type_.as_str())
            .collect();
        assert_eq!(types, runtime.condition_types, "{}", runtime.name);
        assert_eq!(template.summary, runtime.summary, "{}", runtime.name);
        assert_eq!(
            success_reason(template),
            runtime.success_reason,
            "{}",
            runtime.name
        );
        assert_eq!(
            template.transition_rule, runtime.transition_rule,
            "{}",
            runtime.name
        );
        let beside: Vec<&str> = types
            .iter()
            .copied()
            .filter(|t| *t != template.summary)
            .collect();
        assert_eq!(beside, runtime.companion_types(), "{}", runtime.name);
    }
}

/// The table's text is valid for reasons shared by several conditions and for any rule.
#[test]
fn a_reason_of_several_conditions_is_one_constant_documented_for_each() {
    let table = runtime_table(&templates());
    assert_eq!(
        table
            .matches("pub const REASON_PROGRESSING: &str = \"Progressing\";")
            .count(),
        2,
        "orc and kstatus each declare it once"
    );
    assert!(table.contains(
        "    /// Reason `Progressing`:
    ///
    /// - of Ready (severity Info): Work on the latest spec is under way.
    /// - of Reconciling (severity None): Work on the latest spec is under way.
    /// - of Stalled (severity None): Not stalled; work is under way or retrying by itself.
    pub const REASON_PROGRESSING: &str = \"Progressing\";"
    ));
}
