//! Writing output: every file replaced atomically (written beside, then renamed over), only
//! when its content changes, and stale files of an earlier run removed. Nothing is written
//! before everything was generated, so bad input leaves the old output whole.

use std::io;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use crate::emit::{HEADER_MARK, OutputFile};

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
        std::fs::remove_file(&stale)?;
        report.removed.push(stale);
    }
    Ok(report)
}

/// Writes `files` under `out_dir` (each only if changed), removing nothing; returns the
/// paths written.
pub fn write_files(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for file in files {
        let path = out_dir.join(&file.path);
        if write_if_changed(&path, &file.contents)? {
            written.push(path);
        }
    }
    Ok(written)
}

/// Writes `contents` to `path` atomically, unless it already holds exactly that. Returns
/// whether it wrote.
pub fn write_if_changed(path: &Path, contents: &str) -> io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == contents.as_bytes()) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut temp = path.as_os_str().to_owned();
    temp.push(".kondition-tmp");
    let temp = PathBuf::from(temp);
    std::fs::write(&temp, contents)?;
    if let Err(error) = std::fs::rename(&temp, path) {
        let _ = std::fs::remove_file(&temp);
        return Err(error);
    }
    Ok(true)
}

/// Generated `.rs` files in `out_dir` (by their first line) that `files` no longer holds.
fn stale_files(out_dir: &Path, files: &[OutputFile]) -> io::Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(out_dir) else {
        return Ok(Vec::new());
    };
    let mut stale = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let is_ours = path.extension().is_some_and(|e| e == "rs")
            && std::fs::read_to_string(&path).is_ok_and(|text| text.starts_with(HEADER_MARK));
        let kept = files.iter().any(|f| out_dir.join(&f.path) == path);
        if is_ours && !kept {
            stale.push(path);
        }
    }
    stale.sort();
    Ok(stale)
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
    let name = path.display().to_string();
    TextDiff::from_lines(old, new)
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}
