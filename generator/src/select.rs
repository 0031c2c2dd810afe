//! Choosing the kinds to generate: `--kind Kind[/version]` (or `Kind.group` where two groups
//! share a kind name) and a list of versions. Only the chosen kinds, at the chosen versions,
//! are generated, and `crds()` returns only their CRDs. A CRD stays whole (every version):
//! versions choose the Rust types, not what the API server serves.

use crate::caller::Caller;
use crate::model::{Kind, Model, NamedType, SourceSpec};
use kondition_names::{Quote, hint};

/// Which kinds and versions to generate; empty lists choose everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// `Kind`, `Kind/version`, `Kind.group` or `Kind.group/version`.
    pub kinds: Vec<String>,
    /// Versions to generate of every chosen kind.
    pub versions: Vec<String>,
    /// Who chose them, for the words of an error about them.
    pub caller: Caller,
}

impl Selection {
    /// Whether it chooses everything.
    pub fn is_all(&self) -> bool {
        self.kinds.is_empty() && self.versions.is_empty()
    }
}

/// One `--kind`: the kind, its group if given, its version if given.
struct Selector<'s> {
    text: &'s str,
    kind: &'s str,
    group: Option<&'s str>,
    version: Option<&'s str>,
}

impl<'s> Selector<'s> {
    fn parse(text: &'s str) -> Self {
        let (name, version) = match text.split_once('/') {
            Some((name, version)) => (name, Some(version)),
            None => (text, None),
        };
        let (kind, group) = match name.split_once('.') {
            Some((kind, group)) => (kind, Some(group)),
            None => (name, None),
        };
        Self {
            text,
            kind,
            group,
            version,
        }
    }

    fn matches(&self, kind: &Kind) -> bool {
        kind.kind == self.kind && self.group.is_none_or(|g| g == kind.group)
    }
}

/// Keeps in `model` only what `selection` chooses; every selector that chooses nothing is
/// an error (with the nearest kind or version as a suggestion), each on a line of its own.
pub fn apply(model: &mut Model, selection: &Selection) -> Result<(), SelectionError> {
    if selection.is_all() {
        return Ok(());
    }
    let selectors: Vec<Selector> = selection.kinds.iter().map(|s| Selector::parse(s)).collect();
    let all: Vec<&Kind> = model.files.iter().flat_map(|f| &f.kinds).collect();
    let problems: Vec<String> = selectors
        .iter()
        .filter_map(|selector| selector_problem(selector, &all, selection.caller))
        .collect();
    if !problems.is_empty() {
        return Err(SelectionError { problems });
    }
    let mut problems = Vec::new();
    for file in &mut model.files {
        let mut kept = Vec::new();
        for kind in std::mem::take(&mut file.kinds) {
            match keep_versions(kind, &selectors, selection, &file.types) {
                Ok(Some(kind)) => kept.push(kind),
                Ok(None) => {}
                Err(problem) => problems.push(problem),
            }
        }
        file.kinds = kept;
    }
    model.files.retain(|f| !f.kinds.is_empty());
    if !problems.is_empty() {
        return Err(SelectionError { problems });
    }
    if model.files.is_empty() {
        return Err(SelectionError {
            problems: vec!["kondition: no kind has the versions chosen".to_owned()],
        });
    }
    Ok(())
}

/// Why `selector` chooses nothing among `all` kinds (no such kind, no such version, or a kind
/// of several groups), or `None` when it chooses one kind.
fn selector_problem(selector: &Selector, all: &[&Kind], caller: Caller) -> Option<String> {
    let found: Vec<&&Kind> = all.iter().filter(|k| selector.matches(k)).collect();
    match found.as_slice() {
        [] => {
            let (wanted, known): (String, Vec<String>) = match selector.group {
                Some(group) => (
                    format!("{}.{group}", selector.kind),
                    all.iter()
                        .map(|k| format!("{}.{}", k.kind, k.group))
                        .collect(),
                ),
                None => (
                    selector.kind.to_owned(),
                    all.iter().map(|k| k.kind.clone()).collect(),
                ),
            };
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let hint = hint(&wanted, &known, Quote::Code, || {
                if known.len() <= 10 {
                    format!("the kinds are {}", known.join(", "))
                } else {
                    String::new()
                }
            });
            Some(format!(
                "kondition: {}: no kind `{wanted}` in the inputs{hint}",
                caller.kind(selector.text)
            ))
        }
        [kind] => {
            let version = selector.version?;
            if kind.versions.iter().any(|v| v.name == version) {
                return None;
            }
            let versions: Vec<&str> = kind.versions.iter().map(|v| v.name.as_str()).collect();
            let hint = hint(version, &versions, Quote::Code, || {
                format!("its versions are {}", versions.join(", "))
            });
            Some(format!(
                "kondition: {}: {} has no version `{version}`{hint}",
                caller.kind(selector.text),
                kind.kind
            ))
        }
        several => {
            let qualified: Vec<String> = several
                .iter()
                .map(|k| format!("`{}.{}`", k.kind, k.group))
                .collect();
            Some(format!(
                "kondition: {}: {} groups have kind `{}`; write {}",
                caller.kind(selector.text),
                several.len(),
                selector.kind,
                qualified.join(" or ")
            ))
        }
    }
}

/// `kind` with only the versions chosen: those named with it, else those the selection asks
/// for, else all. `Ok(None)` when it is not chosen, or none of its versions is and it was
/// not named; an error when it was named and has none of the versions asked for.
fn keep_versions(
    mut kind: Kind,
    selectors: &[Selector],
    selection: &Selection,
    types: &[NamedType],
) -> Result<Option<Kind>, String> {
    let chosen: Vec<&Selector> = selectors.iter().filter(|s| s.matches(&kind)).collect();
    if !selectors.is_empty() && chosen.is_empty() {
        return Ok(None);
    }
    let mut versions: Vec<&str> = chosen.iter().filter_map(|s| s.version).collect();
    if versions.is_empty() || chosen.iter().any(|s| s.version.is_none()) {
        versions = if selection.versions.is_empty() {
            kind.versions.iter().map(|v| v.name.as_str()).collect()
        } else {
            selection.versions.iter().map(String::as_str).collect()
        };
        versions.extend(chosen.iter().filter_map(|s| s.version));
    }
    let versions: Vec<String> = versions.into_iter().map(str::to_owned).collect();
    if kind.versions.iter().all(|v| versions.contains(&v.name)) {
        return Ok(Some(kind));
    }
    // The CRD keeps every version: pin it before the model loses some.
    if kind.source_crd.is_none() {
        let crd = crate::manifest::crd(&kind, types);
        kind.source_crd = Some(SourceSpec::new(&crd["spec"]));
    }
    kind.versions.retain(|v| versions.contains(&v.name));
    if !kind.versions.is_empty() {
        return Ok(Some(kind));
    }
    // A kind chosen by name must have a version asked for; others are just left out.
    if chosen.is_empty() {
        Ok(None)
    } else {
        Err(format!(
            "kondition: {} has none of {}",
            kind.kind,
            selection.caller.versions(&selection.versions)
        ))
    }
}

/// Why a selection chose nothing: one problem per selector that matched nothing (with the
/// nearest kind or version as a suggestion), or that no kind has the versions chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectionError {
    problems: Vec<String>,
}

impl SelectionError {
    /// Each problem, as one line.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// One problem per line.
impl std::fmt::Display for SelectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}

impl std::error::Error for SelectionError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_read_kind_group_and_version() {
        let s = Selector::parse("Certificate.cert-manager.io/v1");
        assert_eq!(
            (s.kind, s.group, s.version),
            ("Certificate", Some("cert-manager.io"), Some("v1"))
        );
        let s = Selector::parse("Router");
        assert_eq!((s.kind, s.group, s.version), ("Router", None, None));
    }
}
