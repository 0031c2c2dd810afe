//! The built-in profiles (`profile = "aso"`): their condition types and summaries.
//!
//! The macro needs them while it expands, before the runtime is compiled, so it carries its
//! own table of them ([`table`]), written from `templates/*.yaml` as the runtime's is; a test
//! of the generator fails while either differs from the templates. The profiles' meaning
//! (reasons, companions) stays in the runtime's `kondition::profile::<NAME>` constant, which
//! the generated code names.

mod table;

use table::TEMPLATES;

/// What the macro knows of one built-in profile.
pub struct Template {
    /// The name `profile = "..."` gives.
    pub name: &'static str,
    /// The condition that summarises the others.
    pub summary: &'static str,
    /// The condition types a status of this profile starts with.
    pub condition_types: &'static [&'static str],
}

/// The summary condition of a status that names no profile (`kondition::profile::CUSTOM`).
pub const DEFAULT_SUMMARY: &str = "Ready";

/// The built-in profile of that name.
pub fn get(name: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|template| template.name == name)
}

/// The summary condition of the named profile: the runtime's `kondition::profile::<NAME>`.
pub fn summary(name: &str) -> &'static str {
    get(name).map_or(DEFAULT_SUMMARY, |template| template.summary)
}

/// The condition types of the named profile.
pub fn condition_types(name: &str) -> Option<&'static [&'static str]> {
    get(name).map(|template| template.condition_types)
}

/// The profile names, in the table's order.
pub fn all_names() -> Vec<&'static str> {
    TEMPLATES.iter().map(|template| template.name).collect()
}
