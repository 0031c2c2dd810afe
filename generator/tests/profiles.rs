//! The built-in profiles are written twice on purpose: as YAML in `templates/` (what the
//! generator reads whole, docs and severities included, and what users copy to write their
//! own) and as `kondition_names::profile::BUILTIN` (what the derive needs while it expands
//! and the runtime as constants, neither of which reads YAML). This test holds the two
//! together: every template is an entry of the list and every entry a template, with the
//! same condition types, reasons, summary, success reason and transition rule.

use std::path::Path;

use kondition_gen::model;
use kondition_gen::profile::{self, Profile};
use kondition_names::profile::{BUILTIN, BuiltinProfile};

/// The template of `builtin`, read as the generator reads it.
fn read_template(builtin: &BuiltinProfile) -> Profile {
    profile::parse(Path::new(builtin.path), builtin.template)
        .unwrap_or_else(|errors| panic!("{} reads: {errors:?}", builtin.path))
}

#[test]
fn every_template_is_an_entry_of_the_list() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates");
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .expect("templates/ can be read")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".yaml"))
        .map(|name| format!("templates/{name}"))
        .collect();
    files.sort();
    let mut listed: Vec<&str> = BUILTIN.iter().map(|builtin| builtin.path).collect();
    listed.sort_unstable();
    assert_eq!(
        files, listed,
        "a template in templates/ needs its entry in kondition_names::profile::BUILTIN"
    );
    for builtin in BUILTIN {
        let on_disk = std::fs::read_to_string(folder.join("..").join(builtin.path))
            .expect("the template can be read");
        assert_eq!(on_disk, builtin.template, "{} is compiled in", builtin.path);
    }
}

#[test]
fn each_entry_says_what_its_template_says() {
    for builtin in BUILTIN {
        let template = read_template(&builtin);
        let name = builtin.name;
        assert_eq!(template.name, name);
        let types: Vec<&str> = template
            .conditions
            .iter()
            .map(|c| c.type_.as_str())
            .collect();
        assert_eq!(types, builtin.condition_types, "{name}: condition types");
        let mut reasons: Vec<&str> = Vec::new();
        for reason in template.conditions.iter().flat_map(|c| &c.reasons) {
            if !reasons.contains(&reason.name.as_str()) {
                reasons.push(&reason.name);
            }
        }
        assert_eq!(reasons, builtin.reasons, "{name}: reasons");
        assert_eq!(template.summary, builtin.summary, "{name}: summary");
        assert_eq!(
            model::success_reason(&template.conditions, &template.summary),
            Some(builtin.success_reason),
            "{name}: success reason (the summary's first reason of severity None)"
        );
        assert_eq!(
            template.transition_rule, builtin.transition_rule,
            "{name}: transition rule"
        );
    }
}
