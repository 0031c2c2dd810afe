//! Status profiles: the standard condition sets a schema names (`status.profile`).
//!
//! kondition's own profiles (`templates/*.yaml`) are compiled in, listed by
//! `kondition_names::profile::BUILTIN` (the list the derive and the runtime read); users may
//! add a folder of their own, which may not redefine kondition's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::conditions::read_condition;
use crate::model::ConditionDef;
use crate::source::diagnostic::{Diagnostic, Diagnostics};
use crate::source::reader::{MapReader, Sink};
use crate::source::yaml::{self, Node};
use kondition_names::profile::{BUILTIN, TransitionRule};
use kondition_names::{Quote, hint};

/// One profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Its name, as schemas refer to it.
    pub name: String,
    /// Documentation.
    pub docs: Option<String>,
    /// The condition that summarises the others.
    pub summary: String,
    /// When a condition's `lastTransitionTime` moves (`transitionRule`, AnyChange by default).
    pub transition_rule: TransitionRule,
    /// The condition types it gives, with their reasons.
    pub conditions: Vec<ConditionDef>,
    /// The file it was read from (`None` for kondition's own).
    pub path: Option<PathBuf>,
}

/// The profile of a kind that names none.
pub const DEFAULT: &str = "standard";

/// Every profile known to one generation run.
#[derive(Clone, Debug, Default)]
pub struct Profiles {
    by_name: BTreeMap<String, Profile>,
}

impl Profiles {
    /// kondition's own profiles.
    pub fn embedded() -> Self {
        let mut profiles = Self::default();
        for builtin in BUILTIN {
            // The embedded profiles are checked by this crate's tests; a broken one would be
            // a bug in kondition, not in the user's input, so it is skipped rather than fatal.
            if let Ok(profile) = parse(Path::new(builtin.path), builtin.template) {
                profiles.by_name.insert(profile.name.clone(), profile);
            }
        }
        profiles
    }

    /// Adds every `*.yaml` profile in `dir`. Returns the files read.
    pub fn add_dir(&mut self, dir: &Path) -> Result<Vec<PathBuf>, Diagnostics> {
        let mut diagnostics = Diagnostics::default();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect(),
            Err(error) => {
                return Err(Diagnostic::new(
                    dir,
                    Default::default(),
                    format!("cannot read the profile folder: {error}"),
                )
                .into());
            }
        };
        files.sort();
        // Bounded in all, as the schema inputs are (each file is by `read_input`).
        crate::source::diagnostic::within_total(
            files
                .iter()
                .map(|path| (path.as_path(), std::fs::metadata(path).map_or(0, |m| m.len()))),
            0,
        )?;
        for path in &files {
            let text = match crate::source::diagnostic::read_input(path) {
                Ok(text) => text,
                Err(problem) => {
                    diagnostics.push(problem);
                    continue;
                }
            };
            match parse(path, &text) {
                Ok(mut profile) => {
                    if self.by_name.contains_key(&profile.name) {
                        diagnostics.push(Diagnostic::new(
                            path,
                            yaml::Pos { line: 1, col: 1 },
                            format!("profile `{}` is already defined", profile.name),
                        ));
                        continue;
                    }
                    profile.path = Some(path.clone());
                    self.by_name.insert(profile.name.clone(), profile);
                }
                Err(errors) => diagnostics.0.extend(errors.0),
            }
        }
        diagnostics.into_result(files)
    }

    /// The profile of that name.
    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.by_name.get(name)
    }

    /// The profile of that name, or the end of a message for a user who named one that does
    /// not exist: the nearest name ("; did you mean `orc`?"), else every known one.
    pub fn lookup(&self, name: &str) -> Result<&Profile, String> {
        self.get(name).ok_or_else(|| {
            let names = self.names();
            hint(name, &names, Quote::Code, || {
                format!("known profiles: {}", names.join(", "))
            })
        })
    }

    /// Every profile name, for messages.
    pub fn names(&self) -> Vec<&str> {
        self.by_name.keys().map(String::as_str).collect()
    }
}

const PROFILE_KEYS: &[&str] = &["name", "docs", "summary", "transitionRule", "conditions"];

/// Reads one profile file.
pub fn parse(path: &Path, text: &str) -> Result<Profile, Diagnostics> {
    let documents = yaml::parse(text)
        .map_err(|e| Diagnostics::from(Diagnostic::new(path, e.pos, e.message)))?;
    let sink = Sink::new(path);
    let Some(root) = documents.first() else {
        sink.error(yaml::Pos { line: 1, col: 1 }, "empty profile");
        return Err(sink.finish());
    };
    let profile = read_profile(root, &sink);
    let diagnostics = sink.finish();
    match profile {
        Some(profile) => diagnostics.into_result(profile),
        None => Err(diagnostics),
    }
}

fn read_profile(root: &Node, sink: &Sink) -> Option<Profile> {
    let map = MapReader::new(root, "a profile", PROFILE_KEYS, sink);
    let (name, _) = map.required_string("name")?;
    let (summary, summary_pos) = map.required_string("summary")?;
    let transition_rule = match map.get("transitionRule") {
        None => TransitionRule::default(),
        Some(rule) => match rule.as_str().and_then(TransitionRule::from_name) {
            Some(rule) => rule,
            None => {
                sink.error(rule.pos, "`transitionRule` must be AnyChange or StatusOnly");
                TransitionRule::default()
            }
        },
    };
    let conditions: Vec<ConditionDef> = map
        .list("conditions")
        .iter()
        .filter_map(|node| read_condition(node, sink))
        .collect();
    if !conditions.iter().any(|c| c.type_ == summary) {
        sink.error(
            summary_pos,
            format!("the summary condition `{summary}` is not among the profile's conditions"),
        );
    }
    Some(Profile {
        name,
        docs: map.string("docs"),
        summary,
        transition_rule,
        conditions,
        path: None,
    })
}
