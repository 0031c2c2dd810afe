//! `#[derive(KubeStatus)]` for kondition status structs.
//!
//! The derive itself is the subject of the derive issue and is not in this crate yet; the
//! crate exists so the workspace has its fixed layout.
