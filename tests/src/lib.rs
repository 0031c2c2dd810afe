//! Workspace-level integration tests: they live in `tests/tests/` and check that kondition's
//! crates work together with kube-rs as an operator uses them, on the real Kubernetes API
//! server. What they share is here: the server of each test binary and a test's corner of it
//! (`cluster`, started from the launcher in `tests/launcher/`), the recording client
//! (`recording`), faults between the client and the server (`faults`), a server of a test's own that
//! restarts on the same data (`restart`) and the test kinds (`kinds`).

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

pub mod cluster;
pub mod faults;
pub mod kinds;
pub mod recording;
pub mod restart;
