//! The catalog's data: every k8s-openapi type a CRD subtree may be, by shape, for every
//! Kubernetes version the crate supports; and its text format.
//!
//! The data is extracted from k8s-openapi's own source (its `JsonSchema` and `DeepMerge`
//! impls) by the generator's test `tests/k8s_openapi_catalog.rs`, which also checks that the
//! committed file is what the source gives. The types are public for that test.
//!
//! # The file
//!
//! JSON, one line per property, so a change in k8s-openapi is a readable diff:
//!
//! ```text
//! {
//!   "crate": "k8s-openapi 0.29.0",
//!   "versions": [33, 34, 35, 36, 37],
//!   "types": {
//!     "api::core::v1::EnvVar": [
//!       {"versions": [33], "doc": "40a496cc", "required": ["name"], "properties": {
//!         "name": ["string", "f357167f"],
//!         "value": ["string", "679abcd3"],
//!         "valueFrom": ["api::core::v1::EnvVarSource", "c3c540c9"]
//!       }},
//!       ...
//!     ],
//!     "apimachinery::pkg::apis::meta::v1::Time": [
//!       {"versions": [33, 34, 35, 36, 37], "leaf": "time"}
//!     ]
//!   }
//! }
//! ```
//!
//! A type has one entry per distinct shape, with the versions that have it. A property is its
//! type and the hash of its description (`null` without one). Property types are written:
//! `string`, `bytes` (base64 text), `int32`, `int64`, `number`, `boolean`; a type's path
//! (`api::core::v1::EnvVarSource`); a list `[atomic]T`, `[set]T` or `[map:key1,key2]T` (the
//! keys k8s-openapi merges items by); a string-keyed map `{atomic}T` or `{granular}T`.
//! Leaves are `time`, `micro-time`, `quantity`, `int-or-string` and `json` (any JSON object).

use std::collections::BTreeMap;

use serde_json::Value as Json;

/// A Kubernetes minor version: 37 is Kubernetes 1.37.
pub type Minor = u32;

/// Every type by path (`api::core::v1::Container`), each with its shapes over the versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogData {
    /// The crate the data was extracted from, `k8s-openapi 0.29.0`.
    pub source: String,
    /// The Kubernetes versions the crate supports, ascending.
    pub versions: Vec<Minor>,
    /// The types by path.
    pub types: BTreeMap<String, Vec<Variant>>,
}

/// One shape of a type and the versions that have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Ascending.
    pub versions: Vec<Minor>,
    /// The shape.
    pub shape: Shape,
}

/// What a type holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A value of its own kind.
    Leaf(Leaf),
    /// An object with named properties.
    Object(ObjectShape),
}

/// The types that are not objects with properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// `meta/v1 Time`: a date-time written in UTC, whole seconds.
    Time,
    /// `meta/v1 MicroTime`: a date-time written in UTC with microseconds.
    MicroTime,
    /// `Quantity`: text (a number is read as its text).
    Quantity,
    /// `IntOrString`: a 32-bit integer or a string.
    IntOrString,
    /// Any JSON object, kept as is (`RawExtension`, `FieldsV1`).
    Json,
}

impl Leaf {
    /// Each leaf with its name in the file.
    pub const NAMES: [(Self, &'static str); 5] = [
        (Self::Time, "time"),
        (Self::MicroTime, "micro-time"),
        (Self::Quantity, "quantity"),
        (Self::IntOrString, "int-or-string"),
        (Self::Json, "json"),
    ];

    fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(leaf, _)| *leaf)
    }
}

/// An object type's properties.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectShape {
    /// The hash of the type's description.
    pub doc: Option<DocHash>,
    /// The properties that must be present, by wire name, sorted.
    pub required: Vec<String>,
    /// The properties by wire name.
    pub properties: BTreeMap<String, Property>,
}

/// A property of an object type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its type.
    pub ty: PropertyType,
    /// The hash of its description.
    pub doc: Option<DocHash>,
}

/// The type of a property (or of a list's items, a map's values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropertyType {
    /// A string.
    String,
    /// Base64 text of bytes (`ByteString`).
    Bytes,
    /// An `i32`.
    Int32,
    /// An `i64`.
    Int64,
    /// An `f64`.
    Number,
    /// A `bool`.
    Boolean,
    /// Another type of the catalog, by path.
    Ref(String),
    /// A list and how it is merged.
    List(Box<PropertyType>, ListMerge),
    /// A string-keyed map and how it is merged.
    Map(Box<PropertyType>, MapMerge),
}

/// How k8s-openapi merges a list (`crate::merge_strategies::list`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListMerge {
    /// Replaced whole.
    Atomic,
    /// Unique scalars.
    Set,
    /// Objects merged by these properties (wire names).
    Map(Vec<String>),
}

/// How k8s-openapi merges a map (`crate::merge_strategies::map`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapMerge {
    /// Replaced whole (`x-kubernetes-map-type: atomic`).
    Atomic,
    /// Merged key by key.
    Granular,
}

/// A short hash of a description, whitespace runs made one space and the ends trimmed
/// (32-bit FNV-1a): descriptions are compared, never shown, so the file holds only this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocHash(pub u32);

impl DocHash {
    /// The hash of `text` normalized.
    pub fn of(text: &str) -> Self {
        let mut hash: u32 = 0x811c_9dc5;
        let mut feed = |byte: u8| {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        };
        if text.is_ascii() {
            // The same words as below, byte by byte: descriptions are hashed again for every
            // type a subtree is compared with, and splitting by Unicode whitespace was a
            // tenth of the matching's cost (issue 28). ASCII whitespace is exactly what
            // `char::is_whitespace` says of ASCII.
            let (mut started, mut gap) = (false, false);
            for &byte in text.as_bytes() {
                if matches!(byte, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ') {
                    gap = true;
                } else {
                    if gap && started {
                        feed(b' ');
                    }
                    (started, gap) = (true, false);
                    feed(byte);
                }
            }
            return Self(hash);
        }
        for (i, word) in text.split_whitespace().enumerate() {
            if i > 0 {
                feed(b' ');
            }
            word.bytes().for_each(&mut feed);
        }
        Self(hash)
    }

    fn parse(text: &str) -> Option<Self> {
        (text.len() == 8)
            .then(|| u32::from_str_radix(text, 16).ok())
            .flatten()
            .map(Self)
    }
}

impl PropertyType {
    /// The type the file wrote as `text`.
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(rest) = text.strip_prefix('[') {
            let (merge, items) = rest.split_once(']')?;
            let merge = match merge {
                "atomic" => ListMerge::Atomic,
                "set" => ListMerge::Set,
                _ => ListMerge::Map(
                    merge
                        .strip_prefix("map:")?
                        .split(',')
                        .map(str::to_owned)
                        .collect(),
                ),
            };
            return Some(Self::List(Box::new(Self::parse(items)?), merge));
        }
        if let Some(rest) = text.strip_prefix('{') {
            let (merge, values) = rest.split_once('}')?;
            let merge = match merge {
                "atomic" => MapMerge::Atomic,
                "granular" => MapMerge::Granular,
                _ => return None,
            };
            return Some(Self::Map(Box::new(Self::parse(values)?), merge));
        }
        Some(match text {
            "string" => Self::String,
            "bytes" => Self::Bytes,
            "int32" => Self::Int32,
            "int64" => Self::Int64,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            path if path.contains("::") => Self::Ref(path.to_owned()),
            _ => return None,
        })
    }
}

impl CatalogData {
    /// The shape of the type at `path` in version `minor`, if the type exists then.
    pub fn shape(&self, path: &str, minor: Minor) -> Option<&Shape> {
        self.types
            .get(path)?
            .iter()
            .find(|variant| variant.versions.contains(&minor))
            .map(|variant| &variant.shape)
    }

    /// The newest version the crate supports.
    pub fn latest(&self) -> Minor {
        self.versions.last().copied().unwrap_or_default()
    }

    /// The data of a file's text; the error says what is wrong where.
    pub fn from_text(text: &str) -> Result<Self, String> {
        let json: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let source = json["crate"].as_str().ok_or("no `crate`")?.to_owned();
        let versions = minors(&json["versions"]).ok_or("no `versions`")?;
        let mut types = BTreeMap::new();
        for (path, variants) in json["types"].as_object().ok_or("no `types`")? {
            let variants = variants
                .as_array()
                .ok_or_else(|| format!("{path}: not a list"))?
                .iter()
                .map(|variant| read_variant(variant).ok_or_else(|| format!("{path}: {variant}")))
                .collect::<Result<Vec<_>, _>>()?;
            types.insert(path.clone(), variants);
        }
        Ok(Self {
            source,
            versions,
            types,
        })
    }
}

fn minors(json: &Json) -> Option<Vec<Minor>> {
    json.as_array()?
        .iter()
        .map(|v| v.as_u64().and_then(|v| Minor::try_from(v).ok()))
        .collect()
}

fn read_doc(json: &Json) -> Option<Option<DocHash>> {
    match json {
        Json::Null => Some(None),
        Json::String(text) => DocHash::parse(text).map(Some),
        _ => None,
    }
}

fn read_variant(json: &Json) -> Option<Variant> {
    let versions = minors(&json["versions"])?;
    if let Some(leaf) = json.get("leaf") {
        let leaf = Leaf::from_name(leaf.as_str()?)?;
        return Some(Variant {
            versions,
            shape: Shape::Leaf(leaf),
        });
    }
    let required = json["required"]
        .as_array()?
        .iter()
        .map(|r| r.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    let mut properties = BTreeMap::new();
    for (name, property) in json["properties"].as_object()? {
        let [ty, doc] = property.as_array()?.as_slice() else {
            return None;
        };
        properties.insert(
            name.clone(),
            Property {
                ty: PropertyType::parse(ty.as_str()?)?,
                doc: read_doc(doc)?,
            },
        );
    }
    Some(Variant {
        versions,
        shape: Shape::Object(ObjectShape {
            doc: read_doc(json.get("doc").unwrap_or(&Json::Null))?,
            required,
            properties,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_hashes_ignore_whitespace_runs_and_ends() {
        assert_eq!(
            DocHash::of("Name of the\n referent.  "),
            DocHash::of("Name of the referent.")
        );
        assert_ne!(DocHash::of("Name of the referent."), DocHash::of("Name"));
        // FNV-1a of the empty text is its offset basis.
        assert_eq!(DocHash::of("  ").0, 0x811c_9dc5);
    }

    #[test]
    fn ascii_doc_hashes_are_those_of_the_unicode_words() {
        // The ASCII path against the words `split_whitespace` gives, made non-ASCII by a
        // trailing no-break space (whitespace to it) so the general path hashes them.
        for text in [
            "",
            " ",
            "a",
            " a b ",
            "\tName\x0bof\x0cthe\r\nreferent.\x1f ",
            "x  y\n\n z",
        ] {
            assert_eq!(
                DocHash::of(text),
                DocHash::of(&format!("{text}\u{a0}")),
                "{text:?}"
            );
        }
    }
}
