//! Workspace-level integration tests: they live in `tests/tests/` and check that kondition's
//! crates work together with kube-rs as an operator uses them.
