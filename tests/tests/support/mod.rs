//! What more than one test binary of this crate needs; each includes it with `mod support;`.

pub mod conform;
