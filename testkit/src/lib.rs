//! Test machinery for kondition-gen's output, kept out of the published generator: the
//! tests of `generator/`, `generated/` and `tests/`, and the corpus round trip (`fidelity/`),
//! use it.

pub mod fidelity;
pub mod k8s_writes;
pub mod objects;
pub mod schema_file;
