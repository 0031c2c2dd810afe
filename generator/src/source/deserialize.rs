//! serde's view of a YAML node: types are read straight from the tree, as they would be from
//! [`Node::to_json`]'s value, without building that value.
//!
//! The CRD check reads every version through k8s-openapi's types; on the corpus, building the
//! JSON value and dropping it again cost more than the reading itself (issue 28). What a type
//! reads here, and every error it gives, is what it reads and gives through `to_json`:
//! numbers are visited as serde_json's numbers are (non-negative integers as `u64`, others as
//! `i64`, a float that JSON cannot hold as null), and a mapping whose keys read alike as text
//! (`1` and `"1"`) keeps the last value at the first key's place, as a JSON object does.

use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};

use super::yaml::{Node, Value};

/// Why a type could not be read from a node: serde's own message, as serde_json words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self(message.to_string())
    }

    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self(format!(
            "invalid type: {}, expected {expected}",
            AsJson(unexpected)
        ))
    }

    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self(format!(
            "invalid value: {}, expected {expected}",
            AsJson(unexpected)
        ))
    }
}

/// What a value is, in serde_json's words: null for the unit value, a float written as JSON
/// writes it.
struct AsJson<'a>(de::Unexpected<'a>);

impl fmt::Display for AsJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            de::Unexpected::Unit => f.write_str("null"),
            de::Unexpected::Float(value) => match serde_json::Number::from_f64(value) {
                Some(number) => write!(f, "floating point `{number}`"),
                None => write!(f, "{}", self.0),
            },
            other => write!(f, "{other}"),
        }
    }
}

/// A node to read a type from, its mapping's values under some keys read as something else
/// (the CRD check reads a spec without its versions, already read one by one, and a schema
/// without the schemas in it, read one by one after it).
#[derive(Clone, Copy)]
pub struct NodeDeserializer<'n> {
    node: &'n Node,
    hidden: Hidden,
}

/// What a mapping's values under some keys read as, instead of what they are.
#[derive(Clone, Copy)]
enum Hidden {
    /// Nothing hidden.
    No,
    /// The value under this key reads as an empty list.
    AsEmptyList(&'static str),
    /// The values under these keys read as null, and a string `description` as an empty
    /// one (the read is a check whose result is dropped: any string reads, and copying
    /// every description was a fifth of the check's allocations).
    AsNull(&'static [&'static str]),
}

/// An empty string, which a hidden `description` reads as.
static EMPTY_TEXT: Node = Node {
    pos: crate::source::yaml::Pos { line: 0, col: 0 },
    value: Value::Str(String::new()),
};

/// A null, which hidden values read as.
static NULL: Node = Node {
    pos: crate::source::yaml::Pos { line: 0, col: 0 },
    value: Value::Null,
};

impl<'n> NodeDeserializer<'n> {
    /// Reads `node` as it is.
    pub fn new(node: &'n Node) -> Self {
        Self {
            node,
            hidden: Hidden::No,
        }
    }

    /// Reads `node`, a mapping, as if the value under `key` were an empty list.
    pub fn with_empty(node: &'n Node, key: &'static str) -> Self {
        Self {
            node,
            hidden: Hidden::AsEmptyList(key),
        }
    }

    /// Reads `node`, a mapping, as if the values under `keys` were null (and a string
    /// `description` empty): for a check only, whose result is dropped.
    pub fn with_nulls(node: &'n Node, keys: &'static [&'static str]) -> Self {
        Self {
            node,
            hidden: Hidden::AsNull(keys),
        }
    }
}

/// A mapping's entries as a JSON object holds them: keys as text, later duplicates replacing
/// the earlier value at its place. Only a mapping with a key that is not a string can have
/// such duplicates; the usual one is read in place, without a list made of it (the CRD check
/// reads every mapping of every schema: a list each was a tenth of its allocations).
pub(crate) fn object_entries(entries: &[(Node, Node)]) -> ObjectEntries<'_> {
    let all_strings = entries
        .iter()
        .all(|(k, _)| matches!(k.value, Value::Str(_)));
    if all_strings {
        return ObjectEntries::InPlace(entries.iter());
    }
    let mut object: Vec<(KeyText<'_>, &Node)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let text = match &key.value {
            Value::Str(s) => KeyText::Borrowed(s),
            _ => KeyText::Owned(key.key_text()),
        };
        match object.iter_mut().find(|(k, _)| k.as_str() == text.as_str()) {
            Some(slot) => slot.1 = value,
            None => object.push((text, value)),
        }
    }
    ObjectEntries::Made(object.into_iter())
}

/// The entries [`object_entries`] gives, in order.
pub(crate) enum ObjectEntries<'n> {
    /// A mapping whose keys are all strings, as it is.
    InPlace(std::slice::Iter<'n, (Node, Node)>),
    /// Any other mapping, its keys made text and its duplicates merged.
    Made(std::vec::IntoIter<(KeyText<'n>, &'n Node)>),
}

impl<'n> Iterator for ObjectEntries<'n> {
    type Item = (KeyText<'n>, &'n Node);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Self::InPlace(entries) => entries
                .next()
                .map(|(k, v)| (KeyText::Borrowed(k.as_str().unwrap_or_default()), v)),
            Self::Made(entries) => entries.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Self::InPlace(entries) => entries.size_hint(),
            Self::Made(entries) => entries.size_hint(),
        }
    }
}

impl ExactSizeIterator for ObjectEntries<'_> {}

/// A mapping key as JSON text.
pub(crate) enum KeyText<'n> {
    /// A string key.
    Borrowed(&'n str),
    /// Another scalar's text.
    Owned(String),
}

impl KeyText<'_> {
    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Borrowed(s) => s,
            Self::Owned(s) => s,
        }
    }
}

impl<'de, 'n> Deserializer<'de> for NodeDeserializer<'n> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(i) => match u64::try_from(*i) {
                Ok(u) => visitor.visit_u64(u),
                Err(_) => visitor.visit_i64(*i),
            },
            Value::Float(f) if f.is_finite() => visitor.visit_f64(*f),
            Value::Float(_) => visitor.visit_unit(),
            Value::Str(s) => visitor.visit_str(s),
            Value::Seq(items) => {
                let mut seq = Items {
                    items: items.iter(),
                };
                let value = visitor.visit_seq(&mut seq)?;
                if seq.items.len() == 0 {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(
                        items.len(),
                        &"fewer elements in array",
                    ))
                }
            }
            Value::Map(entries) => {
                let object = object_entries(entries);
                let len = object.len();
                let mut map = Entries {
                    entries: object,
                    value: None,
                    hidden: self.hidden,
                };
                let value = visitor.visit_map(&mut map)?;
                if map.entries.len() == 0 {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(len, &"fewer elements in map"))
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.node.value {
            // JSON has no such float: `to_json` makes it null.
            Value::Null => visitor.visit_none(),
            Value::Float(f) if !f.is_finite() => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Str(s) => visitor.visit_enum(StrDeserializer::<Error>::new(s)),
            Value::Map(entries) => {
                let mut object = object_entries(entries);
                match (object.next(), object.next()) {
                    (Some((variant, value)), None) => visitor.visit_enum(Variant {
                        name: variant.as_str(),
                        value,
                    }),
                    _ => Err(de::Error::invalid_value(
                        de::Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            _ => Err(de::Error::invalid_type(
                unexpected(self.node),
                &"string or map",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// What a node is, in serde's words for an error, as its JSON value would say it.
fn unexpected(node: &Node) -> de::Unexpected<'_> {
    match &node.value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Int(i) => match u64::try_from(*i) {
            Ok(u) => de::Unexpected::Unsigned(u),
            Err(_) => de::Unexpected::Signed(*i),
        },
        Value::Float(f) if f.is_finite() => de::Unexpected::Float(*f),
        Value::Float(_) => de::Unexpected::Unit,
        Value::Str(s) => de::Unexpected::Str(s),
        Value::Seq(_) => de::Unexpected::Seq,
        Value::Map(_) => de::Unexpected::Map,
    }
}

/// A sequence's items, one after the other.
struct Items<'n> {
    items: std::slice::Iter<'n, Node>,
}

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.items
            .next()
            .map(|item| seed.deserialize(NodeDeserializer::new(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// A mapping's entries, keys as text; the values `hidden` says read as it says.
struct Entries<'n> {
    entries: ObjectEntries<'n>,
    /// The value of the key just read, with whether it reads as an empty list.
    value: Option<(&'n Node, bool)>,
    hidden: Hidden,
}

impl<'de, 'n> MapAccess<'de> for Entries<'n> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let key_text = key.as_str();
        self.value = Some(match self.hidden {
            Hidden::AsEmptyList(hidden) if hidden == key_text => (value, true),
            Hidden::AsNull(hidden) if hidden.contains(&key_text) => (&NULL, false),
            Hidden::AsNull(_) if key_text == "description" && value.as_str().is_some() => {
                (&EMPTY_TEXT, false)
            }
            _ => (value, false),
        });
        let key: StrDeserializer<'_, Error> = key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some((_, true)) => seed.deserialize(EmptySeq),
            Some((node, false)) => seed.deserialize(NodeDeserializer::new(node)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An enum written as a mapping of one key: the variant, then its content.
struct Variant<'a, 'n> {
    name: &'a str,
    value: &'n Node,
}

impl<'de, 'a, 'n> de::EnumAccess<'de> for Variant<'a, 'n> {
    type Error = Error;
    type Variant = NodeDeserializer<'n>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Error> {
        let name: StrDeserializer<'_, Error> = self.name.into_deserializer();
        let variant = seed.deserialize(name)?;
        Ok((variant, NodeDeserializer::new(self.value)))
    }
}

impl<'de> de::VariantAccess<'de> for NodeDeserializer<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Seq(_) => self.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                unexpected(self.node),
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Map(_) => self.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                unexpected(self.node),
                &"struct variant",
            )),
        }
    }
}

/// An empty list.
struct EmptySeq;

impl<'de> Deserializer<'de> for EmptySeq {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
            std::iter::empty::<()>(),
        ))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests;
