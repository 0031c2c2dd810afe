//! Writing output, so that an interrupted or failed run never leaves a half-written file:
//!
//! - nothing is written before everything was generated, so bad input leaves the old
//!   output whole;
//! - every changed file is first written in full beside its target (`<name>.kondition-tmp`);
//!   only when all of them are written are they renamed over their targets, one atomic
//!   rename each. A failure while writing (a full disk, say) removes the temporary files
//!   and leaves every old file as it was;
//! - files whose content is unchanged are not touched, and stale files of an earlier run
//!   are removed;
//! - temporary files left behind by a run that was killed are removed by the next run.
//!
//! For tests, [`PAUSE_VAR`] stops a write at one chosen point and waits there, so that a
//! test can kill the process at exactly that point (`tests/interrupted.rs`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use similar::TextDiff;

use crate::emit::{HEADER_MARK, OutputFile};

/// The suffix of a file being written, before it is renamed over its target.
pub const TEMP_SUFFIX: &str = ".kondition-tmp";

/// For tests only: `KONDITION_TEST_PAUSE=<step>:<n>` makes each [`write_files`] stop at
/// one point and wait there, so that a test can kill the process at exactly that point. The
/// points of a write of `len` changed files (`n` counts from 0):
///
/// - `write:n` (`n` ≤ `len`): the first `n` temporary files written in full, nothing else;
///   `write:len` is every temporary file written, no target replaced;
/// - `torn:n` (`n` < `len`): as `write:n`, and the next temporary file half written;
/// - `rename:n` (`n` ≤ `len`): the first `n` targets replaced by their temporary files.
///
/// There the process prints `kondition: paused at <step>:<n>` to stderr and waits for a
/// line or the end of its stdin, then goes on as if nothing happened. Unset, or naming a
/// point a write does not reach, the variable does nothing; it can only make a write wait.
pub const PAUSE_VAR: &str = "KONDITION_TEST_PAUSE";

/// Waits at `step:n` when [`PAUSE_VAR`] names that point; otherwise does nothing.
fn pause_point(step: &str, n: usize) {
    static WANTED: OnceLock<Option<String>> = OnceLock::new();
    let Some(wanted) = WANTED.get_or_init(|| std::env::var(PAUSE_VAR).ok()) else {
        return;
    };
    if *wanted == format!("{step}:{n}") {
        let _ = writeln!(io::stderr(), "kondition: paused at {wanted}");
        let _ = io::stdin().read_line(&mut String::new());
    }
}

/// What writing changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Files written (new or changed).
    pub written: Vec<PathBuf>,
    /// Files of an earlier run that are no longer generated, removed.
    pub removed: Vec<PathBuf>,
}

/// Writes `files` under `out_dir`.
pub fn write_tree(out_dir: &Path, files: &[OutputFile]) -> io::Result<WriteReport> {
    let mut report = WriteReport {
        written: write_files(out_dir, files)?,
        ..WriteReport::default()
    };
    for stale in stale_files(out_dir, files)? {
        std::fs::remove_file(&stale).map_err(|e| at(&stale, e, ""))?;
        report.removed.push(stale);
    }
    Ok(report)
}

/// Writes `files` under `out_dir` (each only if changed), removing nothing; returns the
/// paths written. On an error no file has changed, unless a rename itself failed.
pub fn write_files(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    let changed: Vec<(PathBuf, &str)> = files
        .iter()
        .map(|file| (out_dir.join(&file.path), file.contents.as_str()))
        .filter(|(path, contents)| !holds(path, contents))
        .collect();
    let mut folders: Vec<&Path> = changed
        .iter()
        .filter_map(|(path, _)| path.parent())
        .collect();
    folders.dedup();
    for folder in folders {
        std::fs::create_dir_all(folder).map_err(|e| at(folder, e, ""))?;
        remove_leftover_temps(folder);
    }
    // Phase 1: every new content in full, beside its target.
    let mut temps = Vec::with_capacity(changed.len());
    for (i, (path, contents)) in changed.iter().enumerate() {
        pause_point("write", i);
        let temp = temp_path(path);
        match write_new(&temp, contents, i) {
            Ok(()) => temps.push(temp),
            Err(error) => {
                remove_all(&temps);
                let _ = std::fs::remove_file(&temp);
                return Err(at(path, error, " (no file was changed)"));
            }
        }
    }
    pause_point("write", changed.len());
    // Phase 2: one rename each.
    for (i, ((path, _), temp)) in changed.iter().zip(&temps).enumerate() {
        pause_point("rename", i);
        if let Err(error) = std::fs::rename(temp, path) {
            remove_all(&temps[i..]);
            return Err(at(path, error, " (the files before it were replaced)"));
        }
    }
    pause_point("rename", changed.len());
    Ok(changed.into_iter().map(|(path, _)| path).collect())
}

/// Whether `path` holds exactly `contents`.
fn holds(path: &Path, contents: &str) -> bool {
    std::fs::read(path).is_ok_and(|old| old == contents.as_bytes())
}

fn temp_path(path: &Path) -> PathBuf {
    let mut temp = path.as_os_str().to_owned();
    temp.push(TEMP_SUFFIX);
    PathBuf::from(temp)
}

/// Creates `path` anew (never through a link someone left there) and writes `contents`,
/// the `index`th temporary file of a write (in two halves, for [`PAUSE_VAR`]'s `torn`).
fn write_new(path: &Path, contents: &str, index: usize) -> io::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let (head, tail) = contents.as_bytes().split_at(contents.len() / 2);
    file.write_all(head)?;
    pause_point("torn", index);
    file.write_all(tail)?;
    file.flush()
}

fn remove_all(paths: &[PathBuf]) {
    for path in paths {
        let _ = std::fs::remove_file(path);
    }
}

/// Temporary files a killed run left in `dir`.
fn remove_leftover_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().ends_with(TEMP_SUFFIX) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// An I/O error that names the file it happened to.
fn at(path: &Path, error: io::Error, note: &str) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}{note}", path.display()))
}

/// Generated files in `out_dir` that `files` no longer holds: `.rs` files by their first
/// line, and the CRD JSON files beside them.
fn stale_files(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(out_dir) else {
        return Ok(Vec::new());
    };
    let mut stale = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let kept = files.iter().any(|f| out_dir.join(&f.path) == path);
        if !kept && (is_generated_rust(&path) || is_generated_crd(&path)) {
            stale.push(path);
        }
    }
    stale.sort();
    Ok(stale)
}

/// A `.rs` file that starts with the generated header.
fn is_generated_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
        && std::fs::read_to_string(path).is_ok_and(|text| text.starts_with(HEADER_MARK))
}

/// A kind's CRD JSON beside a generated module: `<module>.<kind>_crd.json` (the names
/// `emit::rust::crd_file_name` gives) where `<module>.rs` is generated.
fn is_generated_crd(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some((module, rest)) = name.split_once('.') else {
        return false;
    };
    rest.strip_suffix(".json")
        .is_some_and(|kind| kind.contains("_crd"))
        && is_generated_rust(&path.with_file_name(format!("{module}.rs")))
}

/// A unified diff of every file whose content on disk differs from `files` (missing and
/// stale files included); empty when the output is up to date.
pub fn diff_tree(out_dir: &Path, files: &[OutputFile]) -> io::Result<String> {
    let mut diff = String::new();
    for file in files {
        let path = out_dir.join(&file.path);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != file.contents {
            diff.push_str(&unified(&path, &old, &file.contents));
        }
    }
    for stale in stale_files(out_dir, files)? {
        let old = std::fs::read_to_string(&stale).unwrap_or_default();
        diff.push_str(&unified(&stale, &old, ""));
    }
    Ok(diff)
}

fn unified(path: &Path, old: &str, new: &str) -> String {
    let name = diff_name(path);
    TextDiff::from_lines(old, new)
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// A path as a diff header names it after `a/` and `b/`, as git does: with `/` separators,
/// and an absolute path without its root (`a/tmp/out/lib.rs`, not `a//tmp/out/lib.rs`).
fn diff_name(path: &Path) -> String {
    use std::path::Component;
    let parts: Vec<String> = path
        .components()
        .filter_map(|component| match component {
            Component::Prefix(_) | Component::RootDir => None,
            other => Some(other.as_os_str().to_string_lossy().into_owned()),
        })
        .collect();
    parts.join("/")
}
