//! A schema file read from its text alone, as the generator reads one from disk: YAML
//! problems and the format's alike as `path:line:col: message`.

use std::path::Path;

use kondition_gen::format::read_documents;
use kondition_gen::model::SchemaFile;
use kondition_gen::profile::Profiles;
use kondition_gen::source::diagnostic::{Diagnostic, Diagnostics};
use kondition_gen::source::yaml;

/// The schema file `text`, named `path` in problems, read with `profiles`.
pub fn read(path: &Path, text: &str, profiles: &Profiles) -> Result<SchemaFile, Diagnostics> {
    let documents = yaml::parse(text)
        .map_err(|e| Diagnostics::from(Diagnostic::new(path, e.pos, e.message)))?;
    read_documents(path, &documents, profiles)
}
