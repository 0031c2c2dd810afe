//! Reading input: YAML with a position on every node, and the diagnostics that point at them.

pub mod deserialize;
pub mod diagnostic;
pub mod yaml;
