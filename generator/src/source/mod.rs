//! Reading input: YAML with a position on every node, the diagnostics that point at them,
//! and the typed reads of mappings both front-ends make (`reader`).

pub mod deserialize;
pub mod diagnostic;
pub mod reader;
pub mod yaml;
