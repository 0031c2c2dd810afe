//! [`Builder`]: generation from an operator's build script.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::caller::Caller;
use crate::output;
pub use crate::pipeline::Error;
use crate::pipeline::{Layout, Observer, Pipeline};

/// Generates Rust types from schema files and CRD YAML in a build script, into one file
/// under `OUT_DIR` to `include!`, with each kind's CRD as JSON beside it
/// (`kondition.<module>.<kind>_crd.json`, loaded by the Rust file with `include_str!`).
///
/// It prints `cargo:rerun-if-changed` for every schema file, folder and profile it read, so
/// the build script reruns exactly when an input changes, and it writes the output only when
/// its content changed.
#[derive(Clone, Debug)]
pub struct Builder {
    schemas: Vec<PathBuf>,
    profiles: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    file_name: String,
    selection: crate::select::Selection,
    crd_options: crate::crd::Options,
    without_derives: crate::derives::Derives,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder with no inputs, writing `kondition.rs` into `$OUT_DIR`.
    pub fn new() -> Self {
        Self {
            schemas: Vec::new(),
            profiles: Vec::new(),
            out_dir: None,
            file_name: "kondition.rs".to_owned(),
            selection: crate::select::Selection {
                caller: Caller::BuildScript,
                ..crate::select::Selection::default()
            },
            crd_options: crate::crd::Options {
                caller: Caller::BuildScript,
                ..crate::crd::Options::default()
            },
            without_derives: crate::derives::Derives::default(),
        }
    }

    /// Adds schema files, CRD files or folders (searched for `.yaml` and `.yml` files).
    #[must_use]
    pub fn schemas<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.schemas
            .extend(paths.into_iter().map(|p| p.as_ref().to_owned()));
        self
    }

    /// Adds a folder of status profiles.
    #[must_use]
    pub fn profiles(mut self, dir: impl AsRef<Path>) -> Self {
        self.profiles.push(dir.as_ref().to_owned());
        self
    }

    /// Generates only these kinds (by default every kind of the inputs): `Kind`, `Kind/version`
    /// for one version, `Kind.group` where two groups share a kind name. Only their types are
    /// written, and `crds()` returns only their CRDs (each whole, every version). A kind that
    /// is not in the inputs makes [`Builder::generate`] fail with a did-you-mean.
    #[must_use]
    pub fn kinds<S: Into<String>>(mut self, kinds: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .kinds
            .extend(kinds.into_iter().map(Into::into));
        self
    }

    /// Generates only these versions of the kinds (by default every version); a version named
    /// with a kind in [`Builder::kinds`] is generated too.
    #[must_use]
    pub fn versions<S: Into<String>>(mut self, versions: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .versions
            .extend(versions.into_iter().map(Into::into));
        self
    }

    /// Whether a CRD subtree with the structure of a k8s-openapi type (Container, Affinity,
    /// ...) becomes that type (default `true`; `false` copies every structure, as
    /// `kondition generate --no-reuse` does).
    #[must_use]
    pub fn reuse_k8s_openapi(mut self, reuse: bool) -> Self {
        self.crd_options.reuse_k8s_types = reuse;
        self
    }

    /// The former name of [`Builder::reuse_k8s_openapi`].
    #[deprecated(
        note = "renamed `reuse_k8s_openapi`: \"well known\" names the schema format's own types"
    )]
    #[must_use]
    pub fn well_known_types(self, reuse: bool) -> Self {
        self.reuse_k8s_openapi(reuse)
    }

    /// The condition types, beyond its profile's, of `kind`, a kind read from a CRD whose
    /// status kondition drives (a `conditions` list it holds, see the user guide's chapter on
    /// generating types, `docs/guide/src/generating.md`): its status
    /// struct gets `KubeStatus` with them (`kondition generate --conditions Kind=A,B`).
    #[must_use]
    pub fn conditions<S: Into<String>>(
        mut self,
        kind: impl Into<String>,
        types: impl IntoIterator<Item = S>,
    ) -> Self {
        let choice = self.crd_options.statuses.entry(kind.into()).or_default();
        choice.conditions.extend(types.into_iter().map(Into::into));
        self
    }

    /// The profile of `kind`, a kind read from a CRD whose status is the standard one
    /// (default `standard`; `kondition generate --profile Kind=kstatus`).
    #[must_use]
    pub fn profile(mut self, kind: impl Into<String>, profile: impl Into<String>) -> Self {
        self.crd_options
            .statuses
            .entry(kind.into())
            .or_default()
            .profile = Some(profile.into());
        self
    }

    /// The summary condition of `kind`, a kind read from a CRD whose status kondition drives,
    /// instead of its profile's (`kondition generate --summary Kind=Admitted`): one of the
    /// profile's condition types or of [`Builder::conditions`]. For a kind whose conditions
    /// never include the profile's summary, so that the status chokepoint keeps one the kind
    /// defines, without a profile folder.
    #[must_use]
    pub fn summary(mut self, kind: impl Into<String>, summary: impl Into<String>) -> Self {
        self.crd_options
            .statuses
            .entry(kind.into())
            .or_default()
            .summary = Some(summary.into());
        self
    }

    /// Leaves these derives out of the generated data types (by default they have every
    /// derive), as `kondition generate --without-derive` does: less code for the compiler to
    /// check in the crate that includes them. `Clone`, `Debug` and serde's derives always
    /// stay (kube's `Api` needs them); where kondition's own code needs a derive, it stays
    /// too: the types a `KubeStatus` status holds keep `PartialEq`, that status keeps
    /// `Default` ([`Derive`](crate::Derive) says more).
    ///
    /// ```
    /// use kondition_gen::{Builder, Derive};
    /// let builder = Builder::new().without_derives([Derive::PartialEq, Derive::Default]);
    /// ```
    #[must_use]
    pub fn without_derives(
        mut self,
        derives: impl IntoIterator<Item = crate::derives::Derive>,
    ) -> Self {
        self.without_derives.extend(derives);
        self
    }

    /// Where to write (default: `$OUT_DIR`).
    #[must_use]
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Says you know what the status chokepoint can and cannot do with these kinds' atomic
    /// `conditions` lists (the user guide's `docs/guide/src/derive.md`, "Another operator's status
    /// as it is"): the note that says
    /// it, a `cargo:warning` that cargo shows on every build (a no-op one included, from the
    /// build script's last run), is not printed for them.
    #[must_use]
    pub fn acknowledge_atomic_list<S: Into<String>>(
        mut self,
        kinds: impl IntoIterator<Item = S>,
    ) -> Self {
        self.crd_options
            .acknowledged_atomic_lists
            .extend(kinds.into_iter().map(Into::into));
        self
    }

    /// Whether kondition drives `kind`'s status, a kind read from a CRD whose status it can
    /// drive (default `true`). `false` leaves the status as plain types, without `KubeStatus`
    /// and so without the status chokepoint (`kondition generate --no-drive Kind`): for a kind
    /// the operator only reads, or whose conditions never include the profile's summary
    /// condition (a chokepoint would add one the kind does not define). A kind left undriven
    /// takes no [`Builder::profile`], [`Builder::conditions`] or [`Builder::summary`].
    #[must_use]
    pub fn drive(mut self, kind: impl Into<String>, drive: bool) -> Self {
        let kind = kind.into();
        self.crd_options.not_driven.retain(|k| *k != kind);
        if !drive {
            self.crd_options.not_driven.push(kind);
        }
        self
    }

    /// The output file's name (default `kondition.rs`).
    #[must_use]
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = name.into();
        self
    }

    /// Generates; returns the path of the Rust file written (or left unchanged).
    pub fn generate(self) -> Result<PathBuf, Error> {
        self.generate_to(&mut std::io::stdout().lock())
    }

    /// [`Builder::generate`], with the instructions to cargo written to `cargo` (a build
    /// script's stdout).
    fn generate_to(self, cargo: &mut impl Write) -> Result<PathBuf, Error> {
        let out_dir = match self.out_dir {
            Some(dir) => dir,
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let pipeline = Pipeline {
            profile_dirs: self.profiles,
            inputs: self.schemas,
            selection: self.selection,
            crd_options: self.crd_options,
            without_derives: self.without_derives,
        };
        let (model, files) = pipeline.generate(
            &Layout::SingleFile(self.file_name.clone()),
            &mut Watch {
                cargo: &mut *cargo,
                watched: Default::default(),
            },
        )?;
        for note in &model.notes {
            writeln!(cargo, "cargo:warning={note}").map_err(Error::Io)?;
        }
        output::write_files(&out_dir, &files).map_err(Error::Io)?;
        Ok(out_dir.join(&self.file_name))
    }
}

/// What a build script tells cargo as the run reads: every file and folder it reads, once,
/// to watch (a folder too, so that new files in it rerun the build script; a file named both
/// alone and in a folder, or twice, is printed once).
struct Watch<'w, W> {
    cargo: &'w mut W,
    watched: std::collections::BTreeSet<PathBuf>,
}

impl<W: Write> Observer for Watch<'_, W> {
    fn read(&mut self, path: &Path) -> Result<(), Error> {
        if self.watched.insert(path.to_owned()) {
            writeln!(self.cargo, "cargo:rerun-if-changed={}", path.display()).map_err(Error::Io)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_input_is_watched_once() {
        let dir = std::env::temp_dir().join(format!("kondition-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let schemas = dir.join("schemas");
        std::fs::create_dir_all(&schemas).expect("scratch folder");
        let widget = schemas.join("widget.yaml");
        std::fs::write(
            &widget,
            "group: example.com\nkind: Widget\nversion: v1\nspec:\n  size: int32\n",
        )
        .expect("write");
        let mut cargo = Vec::new();
        // The folder, and the file in it named again, twice.
        Builder::new()
            .schemas([&schemas, &widget, &widget])
            .out_dir(dir.join("out"))
            .generate_to(&mut cargo)
            .expect("generates");
        let printed = String::from_utf8(cargo).expect("UTF-8");
        assert_eq!(
            printed.lines().collect::<Vec<_>>(),
            [
                format!("cargo:rerun-if-changed={}", schemas.display()),
                format!("cargo:rerun-if-changed={}", widget.display()),
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The kinds whose status kondition cannot drive are one warning of the build, in the
    /// build script's words, which `Builder::drive(kind, false)` ends (issue 48).
    #[test]
    fn undriven_kinds_are_one_cargo_warning() {
        let dir = std::env::temp_dir().join(format!("kondition-undriven-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/status_choices/nodepool.yaml"
        );
        // `type` optional: conditions kondition cannot tell apart.
        let nodepool = dir.join("nodepool.yaml");
        std::fs::write(
            &nodepool,
            std::fs::read_to_string(fixture).expect("fixture").replace(
                "required: [lastTransitionTime, message, reason, status, type]",
                "required: [lastTransitionTime, message, reason, status]",
            ),
        )
        .expect("write");
        let warnings = |builder: Builder| {
            let mut cargo = Vec::new();
            builder
                .schemas([&nodepool])
                .out_dir(dir.join("out"))
                .generate_to(&mut cargo)
                .expect("generates");
            String::from_utf8(cargo)
                .expect("UTF-8")
                .lines()
                .filter_map(|line| line.strip_prefix("cargo:warning=").map(str::to_owned))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            warnings(Builder::new()),
            [
                "<build script>: note: status left as plain types, which the status chokepoint cannot drive: NodePool; `kondition explain KIND` says why; `Builder::drive(\"KIND\", false)` says it is your choice, and ends this note"
            ]
        );
        assert!(warnings(Builder::new().drive("NodePool", false)).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A note of the generator (here, what an atomic condition list means) reaches the
    /// build's output as a warning.
    #[test]
    fn notes_are_cargo_warnings() {
        let dir = std::env::temp_dir().join(format!("kondition-notes-{}", std::process::id()));
        let kafka = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/status_choices/kafka.yaml"
        );
        let mut cargo = Vec::new();
        Builder::new()
            .schemas([kafka])
            .out_dir(dir.join("out"))
            .generate_to(&mut cargo)
            .expect("generates");
        let printed = String::from_utf8(cargo).expect("UTF-8");
        let warnings: Vec<&str> = printed
            .lines()
            .filter_map(|line| line.strip_prefix("cargo:warning="))
            .collect();
        assert_eq!(warnings.len(), 1, "{printed}");
        assert!(
            warnings[0].starts_with(&format!(
                "{kafka}:4:1: note: Kafka v1beta2: `status.conditions` is an atomic list"
            )),
            "{printed}"
        );
        // It says how to acknowledge it, in the build script's words; acknowledged, it is
        // gone.
        assert!(
            warnings[0].ends_with(
                "; `Builder::acknowledge_atomic_list([\"Kafka\"])` says you know, and ends this note"
            ),
            "{printed}"
        );
        let mut cargo = Vec::new();
        Builder::new()
            .schemas([kafka])
            .acknowledge_atomic_list(["Kafka"])
            .out_dir(dir.join("out"))
            .generate_to(&mut cargo)
            .expect("generates");
        let printed = String::from_utf8(cargo).expect("UTF-8");
        assert!(!printed.contains("cargo:warning"), "{printed}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
