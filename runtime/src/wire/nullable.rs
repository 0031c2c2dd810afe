//! Fields that may be absent, `null` or a value, kept apart so that an object read and written
//! back keeps an explicit `null` where it had one.
//!
//! Generated code holds such a field as `Option<Option<T>>`: `None` is absent (and is not
//! written), `Some(None)` is `null`, `Some(Some(value))` is the value. Serde reads a present
//! `null` as `None` for any `Option`, so the field reads through [`deserialize`]:
//!
//! ```
//! #[derive(serde::Deserialize, serde::Serialize)]
//! struct Limits {
//!     #[serde(
//!         default,
//!         skip_serializing_if = "Option::is_none",
//!         deserialize_with = "kondition::wire::nullable::deserialize"
//!     )]
//!     cpu: Option<Option<i64>>,
//! }
//!
//! for text in [r#"{}"#, r#"{"cpu":null}"#, r#"{"cpu":2}"#] {
//!     let limits: Limits = serde_json::from_str(text).unwrap();
//!     assert_eq!(serde_json::to_string(&limits).unwrap(), text);
//! }
//! ```

use serde::{Deserialize, Deserializer};

/// Reads a present field: `null` as `Some(None)`, a value as `Some(Some(value))`. (An absent
/// field never gets here; `#[serde(default)]` makes it `None`.)
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}
