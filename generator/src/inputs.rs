//! Which files a run reads: schema files given directly, and every `.yaml`/`.yml` file under
//! folders given, in a stable order.
//!
//! The walk is as safe as the parser: it follows symbolic links, but a link back to a folder
//! it is in (a loop, which would make it go round for ever) is an error naming the link and
//! the folder; a folder or file reached twice (through two links, a diamond) is read once;
//! a file of the extensions that is not a regular file (a FIFO, a device, a socket, which
//! could block or never end) is an error, found before anything is read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::source::diagnostic::{Diagnostic, not_regular};
use crate::source::yaml::Pos;

/// The schema files named by `paths` (files as given; folders searched recursively, sorted),
/// each once.
pub fn schema_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Diagnostic> {
    files_with(paths, &["yaml", "yml"])
}

/// The files named by `paths`, each once: files as given, folders searched recursively for
/// files ending in one of `extensions` (each folder's sorted). The error is `path: message`.
pub fn files_with(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut walk = Walk {
        extensions,
        folders: HashSet::new(),
        within: Vec::new(),
    };
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|e| {
            problem(
                path,
                if e.kind() == std::io::ErrorKind::NotFound {
                    "no such file or folder".to_owned()
                } else {
                    format!("cannot read: {e}")
                },
            )
        })?;
        if metadata.is_dir() {
            let real = real_path(path)?;
            let mut found = Vec::new();
            walk.folder(path, real, &mut found)?;
            found.sort();
            files.extend(found);
        } else if metadata.is_file() {
            files.push(path.clone());
        } else {
            return Err(problem(path, not_regular(&metadata)));
        }
    }
    // A file named twice (alone and in its folder, or reached through two links) is read
    // once, under the first of its names (else its kinds would be declared twice, its
    // objects checked twice).
    let mut seen = HashSet::new();
    let mut kept = Vec::with_capacity(files.len());
    for file in files {
        if seen.insert(real_path(&file)?) {
            kept.push(file);
        }
    }
    Ok(kept)
}

/// A folder walk's state.
struct Walk<'e> {
    extensions: &'e [&'e str],
    /// The real paths of the folders walked so far: each is walked once.
    folders: HashSet<PathBuf>,
    /// The folders the walk is in, outermost first: (real path, path as walked).
    within: Vec<(PathBuf, PathBuf)>,
}

impl Walk<'_> {
    /// Adds the files under `dir` (whose real path is `real`) to `found`.
    fn folder(&mut self, dir: &Path, real: PathBuf, found: &mut Vec<PathBuf>) -> Result<(), Diagnostic> {
        if !self.folders.insert(real.clone()) {
            return Ok(());
        }
        let cannot = |e: std::io::Error| problem(dir, format!("cannot read the folder: {e}"));
        let mut entries = std::fs::read_dir(dir)
            .map_err(cannot)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(cannot)?;
        // In order, so that a folder or file reached twice is always read under the same
        // name (the first).
        entries.sort_by_key(std::fs::DirEntry::file_name);
        self.within.push((real.clone(), dir.to_owned()));
        for entry in entries {
            let path = entry.path();
            let file_type = entry
                .file_type()
                .map_err(|e| problem(&path, format!("cannot read: {e}")))?;
            let wanted = path
                .extension()
                .is_some_and(|e| self.extensions.iter().any(|x| e == *x));
            let (is_dir, is_file, metadata) = if file_type.is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(metadata) => (metadata.is_dir(), metadata.is_file(), Some(metadata)),
                    // A link that leads nowhere is no folder; one with a name the walk reads
                    // is an input that cannot be read.
                    Err(e) if wanted => return Err(problem(&path, format!("cannot read: {e}"))),
                    Err(_) => continue,
                }
            } else {
                (file_type.is_dir(), file_type.is_file(), None)
            };
            if is_dir {
                let inner = if file_type.is_symlink() {
                    let inner = real_path(&path)?;
                    if let Some((_, outer)) = self.within.iter().find(|(r, _)| *r == inner) {
                        return Err(problem(
                            &path,
                            format!(
                                "a symbolic link loop: it leads back to {}, a folder it is in; \
                                 remove the link, or name the folders it leads to instead",
                                outer.display()
                            ),
                        ));
                    }
                    inner
                } else {
                    real.join(entry.file_name())
                };
                self.folder(&path, inner, found)?;
            } else if wanted {
                if !is_file {
                    let metadata = match metadata {
                        Some(metadata) => metadata,
                        None => std::fs::symlink_metadata(&path)
                            .map_err(|e| problem(&path, format!("cannot read: {e}")))?,
                    };
                    return Err(problem(&path, not_regular(&metadata)));
                }
                found.push(path);
            }
        }
        self.within.pop();
        Ok(())
    }
}

/// `path` with every link resolved.
fn real_path(path: &Path) -> Result<PathBuf, Diagnostic> {
    std::fs::canonicalize(path).map_err(|e| problem(path, format!("cannot read: {e}")))
}

fn problem(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(path, Pos::default(), message)
}
