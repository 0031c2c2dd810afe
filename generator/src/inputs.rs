//! Which files a run reads: schema files given directly, and every `.yaml`/`.yml` file under
//! folders given, in a stable order.

use std::io;
use std::path::{Path, PathBuf};

/// The schema files named by `paths` (files as given; folders searched recursively, sorted),
/// each once.
pub fn schema_files(paths: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    files_with(paths, &["yaml", "yml"])
}

/// The files named by `paths`, each once: files as given, folders searched recursively for
/// files ending in one of `extensions` (each folder's sorted).
pub fn files_with(paths: &[PathBuf], extensions: &[&str]) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect(path, extensions, &mut found)?;
            found.sort();
            files.extend(found);
        } else if path.exists() {
            files.push(path.clone());
        } else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: no such file or folder", path.display()),
            ));
        }
    }
    // A file named twice, alone and in its folder, is read once (else its kinds would be
    // declared twice, its objects checked twice).
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|file| seen.insert(file.clone()));
    Ok(files)
}

fn collect(dir: &Path, extensions: &[&str], found: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, extensions, found)?;
        } else if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            found.push(path);
        }
    }
    Ok(())
}
