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
//! - temporary files left behind by a run that was killed are removed by the next run;
//! - nothing is written or removed through a symbolic link: a folder below the output
//!   folder that is a link is refused, and a target that is a link is replaced, when its
//!   content changes, by a file (the link, never what it leads to);
//! - what is read there is bounded: a `.rs` file's first bytes, to tell whether it was
//!   generated; an old file no further than the new content's length, or
//!   [`MAX_OLD_FILE_BYTES`] for `check`'s diff. A FIFO, a device or a socket there (or a link
//!   to one), which could block a read or never end, is an error, found before anything is
//!   written.
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
    // Found before anything is written: a file there that cannot be looked at is an error
    // that leaves every file as it was.
    let stale = stale_files(out_dir, files)?;
    let mut report = WriteReport {
        written: write_files(out_dir, files)?,
        ..WriteReport::default()
    };
    for stale in stale {
        std::fs::remove_file(&stale).map_err(|e| at(&stale, e, ""))?;
        report.removed.push(stale);
    }
    Ok(report)
}

/// Writes `files` under `out_dir` (each only if changed), removing nothing; returns the
/// paths written. On an error no file has changed, unless a rename itself failed.
pub fn write_files(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    let folders = folders_below(out_dir, files)?;
    let mut changed: Vec<(PathBuf, &str)> = Vec::new();
    for file in files {
        let path = out_dir.join(&file.path);
        if !holds(&path, &file.contents)? {
            changed.push((path, file.contents.as_str()));
        }
    }
    let mut made: Vec<&Path> = changed
        .iter()
        .filter_map(|(path, _)| path.parent())
        .collect();
    made.dedup();
    for folder in made {
        std::fs::create_dir_all(folder).map_err(|e| at(folder, e, ""))?;
        // Only in folders known to be real ones below `out_dir` (or `out_dir` itself): never
        // through a link.
        if folders.iter().any(|f| f == folder) {
            remove_leftover_temps(folder);
        }
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

/// The folders `files` are written into (`out_dir` and those below it), once each, after
/// checking that every path stays below `out_dir` (relative, no `..`) and that no folder
/// below `out_dir` on the way is a symbolic link or something other than a folder (one that
/// does not exist yet is made by the write). `out_dir` itself is the caller's choice and may
/// be a link.
fn folders_below(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    use std::path::Component;
    let mut folders = vec![out_dir.to_owned()];
    for file in files {
        if !file
            .path
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(refused(
                &out_dir.join(&file.path),
                "a path that leads out of the output folder",
            ));
        }
        let mut folder = out_dir.to_owned();
        let Some(parent) = file.path.parent() else {
            continue;
        };
        for component in parent.components() {
            folder.push(component);
            if folders.contains(&folder) {
                continue;
            }
            match std::fs::symlink_metadata(&folder) {
                // Made by the write, as are the folders below it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(at(&folder, e, "")),
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(refused(
                        &folder,
                        "a symbolic link inside the output folder; kondition writes only into \
                         real folders below it, never through a link; remove the link",
                    ));
                }
                Ok(m) if !m.is_dir() => return Err(refused(&folder, "not a folder")),
                Ok(_) => {}
            }
            folders.push(folder.clone());
        }
    }
    Ok(folders)
}

/// The most of an old file in an output folder that is read, to show `check`'s diff (a write
/// reads no more than the new content's length, to compare them); `check` refuses a larger
/// one. The largest generated file of the corpus is a few MiB.
pub const MAX_OLD_FILE_BYTES: u64 = crate::source::diagnostic::MAX_INPUT_BYTES;

/// An error about a file or folder in the output folder that kondition will not touch: `path:
/// message` (kind `InvalidInput`, which the command line prints as it is).
fn refused(path: &Path, message: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: {message}", path.display()),
    )
}

/// What is at `path`, a path kondition writes: `None` if nothing (or a link that leads
/// nowhere), else the regular file's length (through a link); an error for anything else (a
/// folder, a FIFO, a device, a socket), which a read could block on, or which would be
/// replaced by a file.
fn regular_len(path: &Path) -> io::Result<Option<u64>> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(at(path, e, "")),
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(m) => {
            let link = std::fs::symlink_metadata(path).is_ok_and(|l| l.file_type().is_symlink());
            Err(not_regular(path, link, &m))
        }
    }
}

/// The error for `path`, which is (or, with `link`, leads to) `target`, not a regular file.
fn not_regular(path: &Path, link: bool, target: &std::fs::Metadata) -> io::Error {
    use crate::source::diagnostic::{file_kind, not_regular};
    if link {
        refused(
            path,
            &format!(
                "a symbolic link to {}, not a regular file; kondition reads and writes only \
                 regular files",
                file_kind(target)
            ),
        )
    } else {
        refused(path, &not_regular(target))
    }
}

/// The text of the old file at `path` (empty if there is none), read only if it is a regular
/// file of at most `limit` bytes; `None` if it is larger (it then differs from any content of
/// at most `limit` bytes).
fn old_text(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let Some(len) = regular_len(path)? else {
        return Ok(Some(Vec::new()));
    };
    if len > limit {
        return Ok(None);
    }
    let (file, _) = crate::source::diagnostic::open_regular(path)
        .map_err(|message| refused(path, &message))?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, limit + 1), &mut bytes)
        .map_err(|e| at(path, e, ""))?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Whether `path` holds exactly `contents` (read no further than its length).
fn holds(path: &Path, contents: &str) -> io::Result<bool> {
    Ok(old_text(path, contents.len() as u64)?.is_some_and(|old| old == contents.as_bytes()))
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
        if !kept && (is_generated_rust(&path)? || is_generated_crd(&path)?) {
            stale.push(path);
        }
    }
    stale.sort();
    Ok(stale)
}

/// A `.rs` file that starts with the generated header: only a regular file (never a link,
/// which kondition does not write), of which only the header's length is read. A `.rs`
/// entry that is, or leads to, a FIFO, a device or a socket is an error: it has no place in
/// an output folder, and reading it could block or never end.
fn is_generated_rust(path: &Path) -> io::Result<bool> {
    if path.extension().is_none_or(|e| e != "rs") {
        return Ok(false);
    }
    let metadata = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(at(path, e, "")),
        Ok(metadata) => metadata,
    };
    if metadata.file_type().is_symlink() {
        // Left alone, unless it leads to something no output folder holds.
        return match std::fs::metadata(path) {
            Ok(target) if !target.is_file() && !target.is_dir() => {
                Err(not_regular(path, true, &target))
            }
            _ => Ok(false),
        };
    }
    if metadata.is_dir() {
        return Ok(false);
    }
    if !metadata.is_file() {
        return Err(not_regular(path, false, &metadata));
    }
    let (file, _) = crate::source::diagnostic::open_regular(path)
        .map_err(|message| refused(path, &message))?;
    let mut head = Vec::with_capacity(HEADER_MARK.len());
    io::Read::read_to_end(&mut io::Read::take(file, HEADER_MARK.len() as u64), &mut head)
        .map_err(|e| at(path, e, ""))?;
    Ok(head == HEADER_MARK.as_bytes())
}

/// A kind's CRD JSON beside a generated module: `<module>.<kind>_crd.json` (the names
/// `emit::rust::crd_file_name` gives) where `<module>.rs` is generated.
fn is_generated_crd(path: &Path) -> io::Result<bool> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(false);
    };
    let Some((module, rest)) = name.split_once('.') else {
        return Ok(false);
    };
    if !rest
        .strip_suffix(".json")
        .is_some_and(|kind| kind.contains("_crd"))
    {
        return Ok(false);
    }
    is_generated_rust(&path.with_file_name(format!("{module}.rs")))
}

/// A unified diff of every file whose content on disk differs from `files` (missing and
/// stale files included); empty when the output is up to date.
pub fn diff_tree(out_dir: &Path, files: &[OutputFile]) -> io::Result<String> {
    let too_large = |path: &Path| {
        refused(
            path,
            &format!(
                "larger than {} MiB, the most kondition reads of a file in its output folder",
                MAX_OLD_FILE_BYTES >> 20
            ),
        )
    };
    let mut diff = String::new();
    for file in files {
        let path = out_dir.join(&file.path);
        let old = old_text(&path, MAX_OLD_FILE_BYTES)?.ok_or_else(|| too_large(&path))?;
        if old != file.contents.as_bytes() {
            diff.push_str(&unified(&path, &String::from_utf8_lossy(&old), &file.contents));
        }
    }
    for stale in stale_files(out_dir, files)? {
        let old = old_text(&stale, MAX_OLD_FILE_BYTES)?.ok_or_else(|| too_large(&stale))?;
        diff.push_str(&unified(&stale, &String::from_utf8_lossy(&old), ""));
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
