//! The generator's pipeline, written once: profiles, inputs, load, select, analyse, emit.
//! The `kondition` binary and [`crate::Builder`] both run it; they differ only in what they
//! do with what it reads and reports ([`Observer`]), the output's layout ([`Layout`]) and
//! how they write or check the files it returns.

use std::path::{Path, PathBuf};

use crate::analysis::Plans;
use crate::builder::Error;
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
    /// as `options` say ([`emit::rust_tree_with`]).
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
    /// selection applies.
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
        let files = crate::inputs::schema_files(&self.inputs).map_err(Error::Io)?;
        for file in &files {
            observer.read(file)?;
        }
        let mut model =
            crate::load_with(&files, &profiles, &self.crd_options).map_err(Error::Input)?;
        for note in &model.notes {
            observer.note(note)?;
        }
        crate::select::apply(&mut model, &self.selection).map_err(Error::Selection)?;
        Ok(model)
    }

    /// [`Pipeline::load`], then the analysis and the Rust output laid out as `layout` says:
    /// the model (its notes included) and the files to write.
    pub fn generate(
        &self,
        layout: &Layout,
        observer: &mut impl Observer,
    ) -> Result<(Model, Vec<OutputFile>), Error> {
        let model = self.load(observer)?;
        let plans = Plans::new(&model, self.without_derives);
        let files = match layout {
            Layout::Tree(options) => emit::rust_tree_with(&model, &plans, options),
            Layout::SingleFile(name) => emit::rust_single_file(&model, &plans, name),
        }
        .map_err(Error::Internal)?;
        Ok((model, files))
    }
}
