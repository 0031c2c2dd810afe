//! Loading: every input file read into one model, on the cores, then the rules that span
//! files (a kind declared once, version modules distinct, the status choices named for
//! kinds that exist) and every file's module name.

use std::path::{Path, PathBuf};

use crate::model::{self, Model};
use crate::profile::Profiles;
use crate::source::diagnostic::{Diagnostic, Diagnostics};
use crate::{crd, format, parallel, reuse, rust_names, source};
use kondition_names::{Quote, hint};

/// Reads every input file (schema files and CRDs, the latter as `options` say) into one
/// model. Every problem of every file is reported.
pub fn load(
    files: &[PathBuf],
    profiles: &Profiles,
    options: &crd::Options,
) -> Result<Model, Diagnostics> {
    // Files are read independently, one per core at a time; results come in the files' order.
    // A file larger than a core's share of the whole run would keep one core busy after the
    // others are done: its YAML is read on every core (`parse_on_cores`), which costs a few
    // per cent more work and pays only then.
    let sized: Vec<(&PathBuf, u64)> = files
        .iter()
        .map(|path| (path, std::fs::metadata(path).map_or(0, |m| m.len())))
        .collect();
    // Bounded in all, as each file is: refused from the sizes, before any file is read.
    source::diagnostic::within_total(sized.iter().map(|(path, size)| (path.as_path(), *size)), 0)?;
    let total: u64 = sized.iter().map(|(_, size)| size).sum();
    let cores = parallel::cores() as u64;
    // k8s-openapi's catalog is parsed on first use, the first file's reading of a schema,
    // which waits for it: it is parsed on a thread of its own from the start, beside the
    // YAML's reading.
    let ((), read) = parallel::beside(
        || {
            if options.reuse_k8s_types {
                reuse::Catalog::get();
            }
        },
        || {
            parallel::map(
                &sized,
                |(_, size)| *size,
                |&(path, size)| read_file(path, profiles, options, size * cores > total),
            )
        },
    );
    let mut diagnostics = Diagnostics::default();
    let mut model = Model::default();
    for result in read {
        match result {
            Ok((file, notes)) => {
                model.notes.extend(notes);
                model.files.push(file);
            }
            Err(errors) => diagnostics.0.extend(errors.0),
        }
    }
    check_across_files(&model, &mut diagnostics);
    // A file that failed to read has kinds of its own, unknown here: the choices are
    // checked against the kinds once every file reads.
    if diagnostics.0.is_empty() {
        check_status_choices(&model, options, &mut diagnostics);
    }
    assign_modules(&mut model.files);
    diagnostics.into_result(model)
}

/// One file's kinds: its CRDs if it holds a CustomResourceDefinition (with notes on
/// documents skipped), else its schemas; with `on_cores`, its YAML read on every core.
fn read_file(
    path: &Path,
    profiles: &Profiles,
    options: &crd::Options,
    on_cores: bool,
) -> Result<(model::SchemaFile, Vec<Diagnostic>), Diagnostics> {
    let text = source::diagnostic::read_input(path)?;
    let documents = if on_cores {
        source::yaml::parse_on_cores(&text)
    } else {
        source::yaml::parse(&text)
    }
    .map_err(|e| Diagnostics::from(Diagnostic::new(path, e.pos, e.message)))?;
    if documents.iter().any(crd::is_crd) {
        crd::read_documents(path, &documents, options, profiles)
    } else {
        format::read_documents(path, &documents, profiles).map(|file| (file, Vec::new()))
    }
}

/// Reads the CRDs in `text` (the contents of `path`), with notes on documents skipped.
pub fn read_crd_text(
    path: &Path,
    text: &str,
) -> Result<(model::SchemaFile, Vec<Diagnostic>), Diagnostics> {
    let documents = source::yaml::parse(text)
        .map_err(|e| Diagnostics::from(Diagnostic::new(path, e.pos, e.message)))?;
    // What an atomic conditions list means concerns the generated Rust, not the model read.
    let options = crd::Options {
        atomic_list_notes: false,
        ..crd::Options::default()
    };
    crd::read_documents(path, &documents, &options, &Profiles::embedded())
}

/// The generated crate's own modules (`lib.rs`, `crds.rs`, `shared.rs`), which no input's module may be.
const RESERVED_MODULES: &[&str] = &["lib", "crds", "shared"];

/// Gives every file a module (and output file) name of its own, whatever the inputs are
/// called: the file's stem, snake_cased; where stems clash, the stem after as many of the
/// parent folders (below those the clashing files share) as tell the files apart
/// (`schemas/a/bundle.yaml` and `schemas/b/bundle.yaml` are `a_bundle` and `b_bundle`); a
/// name the generated crate uses itself gets a trailing `_` (`crds.yaml` is `crds_`); a name
/// still taken, a number (`_2`). It depends only on the paths and their order, which is
/// sorted within folders, so every run gives the same names.
fn assign_modules(files: &mut [model::SchemaFile]) {
    let bases: Vec<String> = files.iter().map(|f| f.module.clone()).collect();
    let folders: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            f.path
                .parent()
                .into_iter()
                .flat_map(Path::components)
                .filter_map(|c| match c {
                    std::path::Component::Normal(name) => {
                        Some(rust_names::snake_case(&name.to_string_lossy()))
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut wanted = Vec::with_capacity(files.len());
    for i in 0..files.len() {
        let clashing: Vec<usize> = (0..files.len()).filter(|&j| bases[j] == bases[i]).collect();
        // The folders every clashing file is in tell nothing apart.
        let shared = (0..)
            .take_while(|&n| {
                let first = folders[clashing[0]].get(n);
                first.is_some() && clashing.iter().all(|&j| folders[j].get(n) == first)
            })
            .count();
        // The stem after the last `depth` folders of file `j` (as many as it has).
        let qualified = |j: usize, depth: usize| -> String {
            let own = &folders[j][shared.min(folders[j].len())..];
            let mut parts: Vec<&str> = own[own.len().saturating_sub(depth)..]
                .iter()
                .map(String::as_str)
                .collect();
            parts.push(&bases[j]);
            parts.join("_")
        };
        let own_folders = folders[i].len().saturating_sub(shared);
        let depth = (0..=own_folders)
            .find(|&d| {
                clashing
                    .iter()
                    .all(|&j| j == i || qualified(j, d) != qualified(i, d))
            })
            .unwrap_or(own_folders);
        wanted.push(qualified(i, depth));
    }
    let mut scope = rust_names::Scope::with_reserved(RESERVED_MODULES);
    for (file, name) in files.iter_mut().zip(wanted) {
        let name = if RESERVED_MODULES.contains(&name.as_str()) {
            name + "_"
        } else {
            name
        };
        file.module = scope.unique(&rust_names::module_name(name));
    }
}

/// Every kind given a profile or conditions is among the inputs' CRDs.
fn check_status_choices(model: &Model, options: &crd::Options, diagnostics: &mut Diagnostics) {
    let crd_kinds: Vec<&str> = model
        .files
        .iter()
        .flat_map(|f| &f.kinds)
        .filter(|k| k.source_crd.is_some())
        .map(|k| k.kind.as_str())
        .collect();
    let named = options
        .statuses
        .iter()
        .map(|(kind, choice)| (kind, choice.how(kind, options.caller)))
        .chain(
            options
                .not_driven
                .iter()
                .map(|kind| (kind, options.caller.no_drive(kind))),
        );
    for (kind, how) in named {
        if crd_kinds.contains(&kind.as_str()) {
            continue;
        }
        let of_a_schema_file = || {
            model
                .files
                .iter()
                .flat_map(|f| &f.kinds)
                .any(|k| k.kind == *kind)
        };
        let hint = hint(kind, &crd_kinds, Quote::Code, || {
            if of_a_schema_file() {
                "it is a kind of a schema file, whose status its schema declares".to_owned()
            } else {
                String::new()
            }
        });
        diagnostics.push(Diagnostic::new(
            options.caller.place(),
            source::yaml::Pos::default(),
            format!("{how}: no input CRD defines kind {kind}{hint}"),
        ));
    }
}

/// Rules that span files: a kind (group and kind) is declared once, and versions of one
/// file's kinds do not become the same module.
fn check_across_files(model: &Model, diagnostics: &mut Diagnostics) {
    let mut seen: Vec<(&str, &str, &Path)> = Vec::new();
    for file in &model.files {
        for kind in &file.kinds {
            if let Some((_, _, first)) = seen
                .iter()
                .find(|(g, k, _)| *g == kind.group && *k == kind.kind)
            {
                diagnostics.push(Diagnostic::new(
                    &kind.origin.path,
                    kind.origin.pos,
                    format!(
                        "duplicate kind {}.{} (first declared in {})",
                        kind.kind,
                        kind.group,
                        first.display()
                    ),
                ));
            } else {
                seen.push((&kind.group, &kind.kind, &file.path));
            }
        }
    }
    for file in &model.files {
        // Every version of the file's kinds is a module of the file's module.
        let mut modules: Vec<(String, &str)> = Vec::new();
        for kind in &file.kinds {
            for version in &kind.versions {
                let module = rust_names::version_module(&version.name);
                match modules.iter().find(|(m, _)| *m == module) {
                    Some((_, other)) if *other != version.name => diagnostics.push(Diagnostic::new(
                        &kind.origin.path,
                        kind.origin.pos,
                        format!(
                            "versions `{other}` and `{}` would both become module `{module}`; rename one",
                            version.name
                        ),
                    )),
                    Some(_) => {}
                    None => modules.push((module, &version.name)),
                }
            }
        }
    }
}
