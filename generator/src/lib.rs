//! Rust CRD types with kondition's standard status, generated from schema files or CRDs.
//!
//! The pipeline runs one way: `source` reads YAML keeping every node's position, `format`
//! turns schema files and `crd` CustomResourceDefinitions into the typed, validated `model`,
//! `select` keeps the kinds asked for, `analysis` makes the run-wide plans (shared types,
//! derives), and `emit` writes Rust, CRD manifests and schema files from the model and the
//! plans; `output` replaces files atomically and only when they change. `pipeline` runs
//! these steps for the command line ([`cli`]) and [`Builder`] (`docs/ARCHITECTURE.md` in the
//! repository tells more). The crate's API is [`Builder`], the errors it reports and [`cli`];
//! use it from the `kondition` binary (`cargo install kondition-gen`, or
//! `cargo install --path generator` in the repository), or from a build script through
//! [`Builder`]:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("kondition-gen-doctest-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! // In a build script the schemas are the crate's own files and the output goes to
//! // $OUT_DIR; here both are in a scratch folder.
//! let schema = dir.join("widget.yaml");
//! std::fs::write(&schema, "\
//! group: example.com
//! kind: Widget
//! version: v1
//! status:
//!   profile: standard
//! spec:
//!   size: {type: int32, required: true, minimum: 1}
//! ")?;
//! let written = kondition_gen::Builder::new()
//!     .schemas([&schema])
//!     .out_dir(&dir)
//!     .generate()?; // on bad input: every problem as `path:line:col: message`
//! assert_eq!(written, dir.join("kondition.rs"));
//! let rust = std::fs::read_to_string(&written)?;
//! assert!(rust.contains("pub struct WidgetSpec"));
//! assert!(rust.contains("pub fn crds()"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! In the crate, `include!(concat!(env!("OUT_DIR"), "/kondition.rs"));` brings the types in;
//! such a crate depends on `kondition`, `kube`, `k8s-openapi`, `serde` and `serde_json`.
//!
//! The default feature `cli` brings the binary, [`cli`] and the command line's crates (clap,
//! clap_complete, clap_mangen, roff). A build script needs none of them:
//! `kondition-gen = { version = "0.1", default-features = false }` under
//! `[build-dependencies]` compiles [`Builder`] alone.

pub mod builder;
/// Who asked for a generation: the words of an error about the options.
pub mod caller;
#[cfg(feature = "cli")]
pub mod cli;
mod conditions;
pub mod derives;
mod facts;
mod name_rules;
mod parallel;
mod rust_shape;

/// Declares the pipeline's stages. They are private to the crate, whose API is [`Builder`]
/// and [`cli`]; the feature `internals` makes them public for kondition's own tests, fuzz
/// targets and corpus round trip (`fidelity/`), which drive the stages one by one. They carry
/// no semver promise, and a published build does not show them. Without the feature `cli` (a
/// build script's `default-features = false`), what only the command line calls (a module
/// tree's writing, `check`'s diff, CRD manifests, `rbac`) is compiled but not called: it is
/// not dead code in any other build, which the lints check.
macro_rules! stages {
    ($($(#[$attr:meta])* mod $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "internals")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        #[cfg_attr(not(feature = "cli"), allow(dead_code))]
        mod $name;
    )*};
}

stages! {
    mod analysis;
    mod crd;
    mod emit;
    mod format;
    mod inputs;
    mod load;
    mod manifest;
    mod model;
    mod output;
    mod pipeline;
    mod profile;
    mod reuse;
    mod rust_names;
    mod select;
    mod source;
    /// `kondition check-status`, the command line's alone.
    #[cfg(any(feature = "cli", feature = "internals"))]
    mod status_check;
}

pub use builder::{Builder, Error};
pub use derives::{Derive, DeriveError};
pub use emit::EmitError;
pub use select::SelectionError;
pub use source::diagnostic::{Diagnostic, Diagnostics};
