//! Workspace-level integration tests: they live in `tests/tests/` and check that kondition's
//! crates work together with kube-rs as an operator uses them.

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
