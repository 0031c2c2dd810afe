//! Rust CRD types with kondition's standard status, generated from schema files or CRDs.
//!
//! The pipeline runs one way: `source` reads YAML keeping every node's position, `format`
//! turns schema files and `crd` CustomResourceDefinitions into the typed, validated `model`,
//! `select` keeps the kinds asked for, `analysis` makes the run-wide plans (shared types,
//! derives), and `emit` writes Rust, CRD manifests and schema files from the model and the
//! plans; `output` replaces files atomically and only when they change. `pipeline` runs
//! these steps for the binary and [`Builder`] (`docs/ARCHITECTURE.md` in the repository
//! tells more). The crate's API is [`Builder`] and the errors it reports; use it from the
//! `kondition` binary (`cargo install kondition-gen`, or
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

pub mod builder;
/// Who asked for a generation: the words of an error about the options.
pub mod caller;
mod conditions;
pub mod derives;

// The steps of the pipeline. They serve the `kondition` binary, the tests, the fuzz targets
// and the corpus round trip (`fidelity/`), which need them public; they are no API of the
// crate's, so they stay out of its docs and out of its semver promise.
#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod crd;
#[doc(hidden)]
pub mod emit;
mod facts;
#[doc(hidden)]
pub mod format;
#[doc(hidden)]
pub mod inputs;
pub mod json;
mod load;
#[doc(hidden)]
pub mod manifest;
#[doc(hidden)]
pub mod model;
mod name_rules;
#[doc(hidden)]
pub mod output;
mod parallel;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod profile;
#[doc(hidden)]
pub mod reuse;
#[doc(hidden)]
pub mod rust_names;
mod rust_shape;
#[doc(hidden)]
pub mod select;
#[doc(hidden)]
pub mod source;
#[doc(hidden)]
pub mod status_check;

pub use builder::{Builder, Error};
pub use derives::{Derive, DeriveError};
pub use emit::EmitError;
#[doc(hidden)]
pub use load::{load, load_with, read_crd_text};
pub use select::SelectionError;
pub use source::diagnostic::{Diagnostic, Diagnostics};

/// The JSON Schema of the schema format (what `kondition schema` prints).
#[doc(hidden)]
pub const FORMAT_JSON_SCHEMA: &str = include_str!("format/format.schema.json");
