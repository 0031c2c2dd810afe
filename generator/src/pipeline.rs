//! The generator's pipeline, written once: profiles, inputs, load, select, analyse, emit.
//! The `kondition` binary and `Builder` both run it; they differ only in what they
//! do with what it reads and reports ([`Observer`]), the output's layout ([`Layout`]) and
//! how they write or check the files it returns.

use std::path::{Path, PathBuf};

use crate::analysis::Plans;
use crate::derives::Derives;
use crate::emit::{self, OutputFile};
use crate::model::Model;
use crate::profile::Profiles;
use crate::select::Selection;
use crate::source::diagnostic::Diagnostic;

/// One run's inputs and choices.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    /// Folders of the user's own profiles, added to kondition's.
    pub profile_dirs: Vec<PathBuf>,
    /// Schema files, CRD files or folders of them.
    pub inputs: Vec<PathBuf>,
    /// The kinds and versions generated.
    pub selection: Selection,
    /// How CRDs are read.
    pub crd_options: crate::crd::Options,
    /// The derives the data types go without.
    pub without_derives: Derives,
}

/// How the Rust output is laid out.
#[derive(Clone, Debug)]
pub enum Layout {
    /// A module tree (`lib.rs`, one module per input file), the headers naming the inputs
    /// as `options` say ([`emit::rust_tree`]).
    Tree(emit::Options),
    /// One file of this name, for `include!`, with the CRD JSON files beside it
    /// ([`emit::rust_single_file`]).
    SingleFile(String),
}

/// What the caller hears of a run while it goes.
pub trait Observer {
    /// A file or folder the run reads, in the order it is read (a build script watches them).
    fn read(&mut self, _path: &Path) -> Result<(), Error> {
        Ok(())
    }

    /// A note on the inputs (a document skipped, say), once they are loaded, before the
    /// selection applies; then, for the Rust output, the run's one note on the kinds chosen
    /// whose status is left as plain types.
    fn note(&mut self, _note: &Diagnostic) -> Result<(), Error> {
        Ok(())
    }
}

/// An observer that hears nothing.
impl Observer for () {}

impl Pipeline {
    /// Profiles, inputs, load and selection: the model of the kinds chosen.
    pub fn load(&self, observer: &mut impl Observer) -> Result<Model, Error> {
        let mut profiles = Profiles::embedded();
        for dir in &self.profile_dirs {
            observer.read(dir)?;
            for file in profiles.add_dir(dir).map_err(Error::Input)? {
                observer.read(&file)?;
            }
        }
        for path in &self.inputs {
            observer.read(path)?;
        }
        let files =
            crate::inputs::schema_files(&self.inputs).map_err(|d| Error::Input(d.into()))?;
        for file in &files {
            observer.read(file)?;
        }
        let mut model =
            crate::load::load(&files, &profiles, &self.crd_options).map_err(Error::Input)?;
        for note in &model.notes {
            observer.note(note)?;
        }
        crate::select::apply(&mut model, &self.selection).map_err(Error::Selection)?;
        Ok(model)
    }

    /// [`Pipeline::load`], then the analysis and the Rust output laid out as `layout` says:
    /// the model (its notes included) and the files to write. The kinds' CRD texts move from
    /// the model into the CRD files: the model returned has none (`Kind::source_crd`).
    pub fn generate(
        &self,
        layout: &Layout,
        observer: &mut impl Observer,
    ) -> Result<(Model, Vec<OutputFile>), Error> {
        let mut model = self.load(observer)?;
        // Of the kinds chosen, once for the run: those whose status the Rust types leave
        // plain, though it has conditions (where the output concerns the chokepoint, as the
        // notes on atomic lists).
        if self.crd_options.atomic_list_notes
            && let Some(note) = crate::crd::status::undriven_note(&model, &self.crd_options)
        {
            observer.note(&note)?;
            model.notes.push(note);
        }
        let plans = Plans::new(&model, self.without_derives);
        let files = match layout {
            Layout::Tree(options) => emit::rust_tree_taking_crds(&mut model, &plans, options),
            Layout::SingleFile(name) => {
                emit::rust_single_file_taking_crds(&mut model, &plans, name)
            }
        }
        .map_err(Error::Internal)?;
        Ok((model, files))
    }
}

/// Why a generation failed (a build script's, or the binary's).
#[derive(Debug)]
pub enum Error {
    /// The schemas or profiles have problems; each is `path:line:col: message`.
    Input(crate::source::diagnostic::Diagnostics),
    /// Reading or writing failed.
    Io(std::io::Error),
    /// A kind or version chosen (`Builder::kinds`, `Builder::versions`, `--kind`) is not in
    /// the inputs; one line per problem, with a did-you-mean where one is near.
    Selection(crate::select::SelectionError),
    /// Neither `out_dir` nor `$OUT_DIR` is set (not in a build script?).
    NoOutDir,
    /// A bug in kondition.
    Internal(crate::emit::EmitError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Input(diagnostics) => write!(f, "{diagnostics}"),
            Self::Io(error) => write!(f, "kondition: {error}"),
            Self::Selection(error) => write!(f, "{error}"),
            Self::NoOutDir => {
                f.write_str("kondition: OUT_DIR is not set; call out_dir() outside a build script")
            }
            Self::Internal(message) => write!(f, "kondition: {message}"),
        }
    }
}

impl std::error::Error for Error {}
