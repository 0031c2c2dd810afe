//! One structure, one type: the structs and enums of kinds read from CRDs that have the same
//! structure in more than one place of a run (versions of a kind, kinds of a bundle, input
//! files) are defined once, in the generated `shared` module, and every place keeps its own
//! name for them with `pub use`.
//!
//! - **Same structure** means the same Rust: the same fields (wire names, optionality,
//!   nullability, docs and the facts written in them, types, nested types by structure), the
//!   same unknown-field handling; for enums the same values. An object's own description is
//!   not part of it: it documents the place (controller-gen writes the holding field's doc
//!   there), and it stays on the field that holds it. Field docs are: two structures that
//!   document their fields differently stay two types, so no field ever shows another
//!   place's docs.
//! - **A place** is a type name in a version module of an input file's module
//!   (`prometheus::v1::PrometheusTlsConfig`). A structure with two places or more is shared;
//!   so is every structure nested in a shared one.
//! - **The shared name** is the shortest of its places' names (then the first in
//!   alphabetical order); two structures that would get the same name keep it in the order of
//!   their names' structure keys, the later one numbered. It can change when places are added
//!   or removed; the places' own names do not, so code names types through its kind's module
//!   (`prometheus::v1::PrometheusTlsConfig`), never through `shared`.
//!
//! Identical types across the versions of a kind are the same Rust type, so converting one
//! version's object to another's needs no code for them at all.
//!
//! Kinds of schema files are not shared: their types are named by their authors.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::model::{
    Bounds, EnumValues, IntegerFormat, IntegerType, Model, Schema, SchemaFile, StringType,
    Type,
};
use crate::rust_names;

/// Where a struct or enum is named: (input file module, version, name).
type Place = (String, String, String);

/// What is defined in `shared`, and the name each place gives it.
#[derive(Debug, Default)]
pub struct Plan {
    /// The shared structs and enums, by name, with nested types named by their shared names.
    pub defs: Vec<SharedDef>,
    aliases: HashMap<Place, String>,
}

/// A struct or enum defined once in `shared`.
#[derive(Debug)]
pub struct SharedDef {
    /// Its name in `shared`.
    pub name: String,
    /// Its schema: the first place's, nested types renamed to their shared names.
    pub schema: Schema,
    /// Whether every place describes it the same way (else it gets a neutral doc).
    pub docs_agree: bool,
}

impl Plan {
    /// The shared type that the type `local` of `version` in file module `module` names.
    pub fn shared_name(&self, module: &str, version: &str, local: &str) -> Option<&str> {
        self.aliases
            .get(&(module.to_owned(), version.to_owned(), local.to_owned()))
            .map(String::as_str)
    }

    /// Whether nothing is shared.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

/// One structure met in the run.
struct Structure<'m> {
    /// Its places, in the order met.
    places: Vec<Place>,
    /// The first place's schema (borrowed from the model: a copy of every struct's subtree
    /// was most of the census's cost, and only shared ones are copied, at the end).
    schema: &'m Schema,
    /// The structures of its fields (directly or inside lists and maps).
    children: BTreeSet<usize>,
    docs_agree: bool,
}

/// A structure's key: what tells two structures apart, as numbers ([`Census::visit`]).
type Key = Vec<u32>;

/// The marks of a key that say what follows.
mod mark {
    /// A struct: its field count, each field, then whether it keeps unknown fields.
    pub const STRUCT: u32 = 0;
    /// A string enum: the text of its values.
    pub const ENUM: u32 = 1;
    /// A struct or enum of the census, by number.
    pub const STRUCTURE: u32 = 2;
    /// A list of what follows.
    pub const LIST: u32 = 3;
    /// A map to what follows.
    pub const MAP: u32 = 4;
    /// A k8s-openapi type, by its path's text.
    pub const REUSED: u32 = 5;
    /// kondition's conditions list.
    pub const CONDITIONS: u32 = 6;
    /// Any other type, by its text ([`super::leaf_key`]).
    pub const LEAF: u32 = 7;
}

/// The texts a key names, each by a number: a key holds numbers, not the texts (a field's
/// docs are kilobytes; keys that held them escaped were most of the census's work and
/// memory; issue 48). Equal texts, equal numbers, so keys are equal exactly when the
/// structures' texts are.
#[derive(Default)]
struct Texts<'m> {
    ids: HashMap<Cow<'m, str>, u32>,
}

impl<'m> Texts<'m> {
    /// The number of `text`, given it if new.
    fn id(&mut self, text: Cow<'m, str>) -> u32 {
        if let Some(&id) = self.ids.get(text.as_ref()) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(text, id);
        id
    }

    /// Each number's text.
    fn by_id(&self) -> Vec<&str> {
        let mut texts = vec![""; self.ids.len()];
        for (text, &id) in &self.ids {
            texts[id as usize] = text;
        }
        texts
    }
}

#[derive(Default)]
struct Census<'m> {
    /// Each structure's key, and its number.
    by_key: HashMap<Key, usize>,
    structures: Vec<Structure<'m>>,
    texts: Texts<'m>,
}

impl<'m> Census<'m> {
    /// Records `schema` met at `module`/`version`; appends the key of its type (for the
    /// parent's key) to `parent`, and returns the number of its structure, if a struct or
    /// enum.
    ///
    /// A struct's key is its fields, each with everything its Rust declaration shows (name,
    /// required, nullable, docs, the facts written in them) and its type's key, and whether
    /// it keeps unknown fields; a string enum's is its values. Both stand for the text
    /// [`Census::text_key`] writes, which orders structures that want one name.
    fn visit(
        &mut self,
        module: &str,
        version: &str,
        schema: &'m Schema,
        parent: &mut Key,
    ) -> Option<usize> {
        let (key, children) = match &schema.ty {
            Type::Object(object) => {
                let mut key = vec![mark::STRUCT, object.fields.len() as u32];
                let mut children = BTreeSet::new();
                for field in &object.fields {
                    key.push(self.texts.id(Cow::Borrowed(&field.name)));
                    key.push(u32::from(field.required) | u32::from(field.schema.nullable) << 1);
                    key.push(match &field.schema.docs {
                        Some(docs) => self.texts.id(Cow::Borrowed(docs)),
                        None => u32::MAX,
                    });
                    key.push(self.texts.id(Cow::Owned(crate::facts::facts(&field.schema))));
                    children.extend(self.visit(module, version, &field.schema, &mut key));
                }
                key.push(u32::from(object.preserve_unknown));
                (key, children)
            }
            Type::Enum(e) => match &e.values {
                EnumValues::Str(values) => {
                    let values = self.texts.id(Cow::Owned(format!("enum {values:?}")));
                    (vec![mark::ENUM, values], BTreeSet::new())
                }
                EnumValues::Int(_) => {
                    parent.extend([mark::LEAF, self.texts.id(Cow::Borrowed("i64"))]);
                    return None;
                }
            },
            Type::List(list) => {
                parent.push(mark::LIST);
                return self.visit(module, version, &list.items, parent);
            }
            Type::Map(map) => {
                parent.push(mark::MAP);
                return self.visit(module, version, &map.values, parent);
            }
            Type::Reused(reused) => {
                parent.extend([mark::REUSED, self.texts.id(Cow::Borrowed(&reused.path))]);
                return None;
            }
            Type::Conditions(_) => {
                parent.push(mark::CONDITIONS);
                return None;
            }
            other => {
                parent.extend([mark::LEAF, self.texts.id(leaf_key(other))]);
                return None;
            }
        };
        let name = match &schema.ty {
            Type::Object(object) => &object.name,
            Type::Enum(e) => &e.name,
            _ => unreachable!("only structs and enums get here"),
        };
        let next = self.structures.len();
        let id = *self.by_key.entry(key).or_insert(next);
        let place = || (module.to_owned(), version.to_owned(), name.clone());
        if id == next {
            self.structures.push(Structure {
                places: vec![place()],
                schema,
                children,
                docs_agree: true,
            });
        } else {
            let structure = &mut self.structures[id];
            structure.docs_agree &= structure.schema.docs == schema.docs;
            let met = structure
                .places
                .iter()
                .any(|(m, v, n)| m == module && v == version && n == name);
            if !met {
                structure.places.push(place());
            }
        }
        parent.extend([mark::STRUCTURE, id as u32]);
        Some(id)
    }

    /// The key of structure `id` as text, as kondition wrote structure keys before they were
    /// numbers: `struct`, then for each field what `format!(" {:?} {} {} {:?} {:?} ", name,
    /// required, nullable, docs, facts)` writes and its type's key (`#n` for structure n,
    /// `[..]` a list, `{..}` a map, `k8s:path`, `conditions`, or the type's `{:?}`), then
    /// ` +unknown` if it keeps unknown fields; for a string enum, `enum` and `{:?}` of its
    /// values. Two shared structures that want one name are ordered by it, so that their
    /// numbering stays what it was. Only those are written.
    fn text_key(key: &[u32], texts: &[&str]) -> String {
        let text = |id: u32| texts.get(id as usize).copied().unwrap_or_default();
        let mut out = String::new();
        match key {
            [mark::ENUM, values] => out.push_str(text(*values)),
            [mark::STRUCT, count, rest @ ..] => {
                out.push_str("struct");
                let mut rest = rest;
                for _ in 0..*count {
                    let [name, flags, docs, facts, tail @ ..] = rest else {
                        break;
                    };
                    out.push(' ');
                    push_debug(&mut out, text(*name));
                    out.push_str(if flags & 1 != 0 { " true" } else { " false" });
                    out.push_str(if flags & 2 != 0 { " true " } else { " false " });
                    if *docs == u32::MAX {
                        out.push_str("None");
                    } else {
                        out.push_str("Some(");
                        push_debug(&mut out, text(*docs));
                        out.push(')');
                    }
                    out.push(' ');
                    push_debug(&mut out, text(*facts));
                    out.push(' ');
                    rest = push_type_key(&mut out, tail, &text);
                }
                if rest.first() == Some(&1) {
                    out.push_str(" +unknown");
                }
            }
            _ => {}
        }
        out
    }
}

/// Appends the text of the type key at the start of `key` ([`Census::text_key`]); returns
/// what follows it.
fn push_type_key<'k>(out: &mut String, key: &'k [u32], text: &impl Fn(u32) -> &'k str) -> &'k [u32] {
    match key {
        [mark::LIST, rest @ ..] => {
            out.push('[');
            let rest = push_type_key(out, rest, text);
            out.push(']');
            rest
        }
        [mark::MAP, rest @ ..] => {
            out.push('{');
            let rest = push_type_key(out, rest, text);
            out.push('}');
            rest
        }
        [mark::STRUCTURE, id, rest @ ..] => {
            let _ = write!(out, "#{id}");
            rest
        }
        [mark::REUSED, path, rest @ ..] => {
            out.push_str("k8s:");
            out.push_str(text(*path));
            rest
        }
        [mark::CONDITIONS, rest @ ..] => {
            out.push_str("conditions");
            rest
        }
        [mark::LEAF, leaf, rest @ ..] => {
            out.push_str(text(*leaf));
            rest
        }
        _ => &[],
    }
}

/// The structure key of a type without structs or enums in it: its `{:?}`, which the most
/// common ones (a string, an integer, a boolean without constraints: most fields of a CRD)
/// have written once (`{:?}` of each was 4% of the share plan's work; issue 28).
fn leaf_key(ty: &Type) -> Cow<'static, str> {
    static COMMON: OnceLock<Vec<(Type, String)>> = OnceLock::new();
    let common = COMMON.get_or_init(|| {
        let integer = |format| {
            Type::Integer(IntegerType {
                format,
                bounds: Bounds::default(),
            })
        };
        [
            Type::String(StringType::default()),
            integer(IntegerFormat::Int64),
            integer(IntegerFormat::Int32),
            Type::Boolean,
        ]
        .into_iter()
        .map(|ty| {
            let key = format!("{ty:?}");
            (ty, key)
        })
        .collect()
    });
    match common.iter().find(|(common, _)| common == ty) {
        Some((_, key)) => Cow::Borrowed(key),
        None => Cow::Owned(format!("{ty:?}")),
    }
}

/// Appends `text` exactly as `{:?}` writes it. Text of printable ASCII, tabs and line breaks
/// (nearly every description) is escaped here; `{:?}` checks every character against
/// Unicode's tables, which is slow on descriptions of kilobytes. Anything else goes to `{:?}`.
fn push_debug(out: &mut String, text: &str) {
    // `is_ascii` looks at a word at a time; the loop below then sees each byte once.
    if text.is_ascii() {
        let mark = out.len();
        out.push('"');
        let mut start = 0;
        for (i, byte) in text.bytes().enumerate() {
            let escaped = match byte {
                b'\t' => "\\t",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'"' => "\\\"",
                b'\\' => "\\\\",
                // Other control characters: `{:?}`'s `\u{..}`, below.
                0..0x20 | 0x7f => {
                    out.truncate(mark);
                    let _ = write!(out, "{text:?}");
                    return;
                }
                _ => continue,
            };
            out.push_str(&text[start..i]);
            out.push_str(escaped);
            start = i + 1;
        }
        out.push_str(&text[start..]);
        out.push('"');
        return;
    }
    let _ = write!(out, "{text:?}");
}

/// The schemas of `file` the census visits, in its order, with their versions: every field
/// of every version of a kind read from a CRD; of a standard status, what it holds (the status
/// is its kind's own: `KubeStatus` names the kind).
fn roots(file: &SchemaFile) -> Vec<(&str, &Schema)> {
    let mut roots = Vec::new();
    for kind in file.kinds.iter().filter(|k| k.source_crd.is_some()) {
        for version in &kind.versions {
            let status = version
                .driven_status()
                .filter(|_| kind.status.is_some())
                .map(|driven| driven.object);
            for field in version.body.fields() {
                match status {
                    Some(status) if field.name == "status" => roots.extend(
                        status
                            .fields
                            .iter()
                            .map(|inner| (version.name.as_str(), &inner.schema)),
                    ),
                    _ => roots.push((version.name.as_str(), &field.schema)),
                }
            }
        }
    }
    roots
}

/// How many fields the structs of `schema` have, nested ones included.
fn field_count(schema: &Schema) -> usize {
    match &schema.ty {
        Type::Object(object) => object
            .fields
            .iter()
            .map(|field| 1 + field_count(&field.schema))
            .sum(),
        Type::List(list) => field_count(&list.items),
        Type::Map(map) => field_count(&map.values),
        _ => 0,
    }
}

/// The shared types of every kind read from a CRD in `model`.
pub fn plan(model: &Model) -> Plan {
    let roots: Vec<(&str, &str, &Schema)> = model
        .files
        .iter()
        .flat_map(|file| {
            roots(file)
                .into_iter()
                .map(|(version, schema)| (file.module.as_str(), version, schema))
        })
        .collect();
    // The tables made at their size once: growing them hashed every text (docs of kilobytes)
    // and key again at each step. A field gives a structure at most, and about one text of
    // its own (its docs: names and facts repeat); more room only touched more memory.
    let fields: usize = roots.iter().map(|(_, _, schema)| field_count(schema)).sum();
    let mut census = Census {
        by_key: HashMap::with_capacity(fields + roots.len()),
        structures: Vec::new(),
        texts: Texts {
            ids: HashMap::with_capacity(fields),
        },
    };
    let mut root_key = Key::new();
    for (module, version, schema) in roots {
        root_key.clear();
        census.visit(module, version, schema, &mut root_key);
    }
    let structures = census.structures;
    // The keys, by number, for ordering structures that want the same name.
    let mut keys: Vec<&[u32]> = vec![&[]; structures.len()];
    for (key, &id) in &census.by_key {
        keys[id] = key;
    }
    // Shared: two places or more, and everything nested in something shared.
    let mut shared = vec![false; structures.len()];
    let mut stack: Vec<usize> = (0..structures.len())
        .filter(|&id| structures[id].places.len() > 1)
        .collect();
    while let Some(id) = stack.pop() {
        if !std::mem::replace(&mut shared[id], true) {
            stack.extend(structures[id].children.iter().copied());
        }
    }
    let mut wanted: Vec<(String, usize)> = (0..structures.len())
        .filter(|&id| shared[id])
        .map(|id| {
            let structure = &structures[id];
            let name = structure
                .places
                .iter()
                .map(|(_, _, name)| name)
                .min_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)))
                .cloned()
                .unwrap_or_default();
            (name, id)
        })
        .collect();
    wanted.sort();
    // Structures that want the same name, in the order of their keys' texts.
    let texts = census.texts.by_id();
    for run in wanted.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            run.sort_by_cached_key(|(_, id)| (Census::text_key(keys[*id], &texts), *id));
        }
    }
    let mut scope = rust_names::Scope::default();
    let mut aliases = HashMap::new();
    let mut named = Vec::with_capacity(wanted.len());
    for (name, id) in wanted {
        let name = scope.unique_pascal(&name);
        for place in &structures[id].places {
            aliases.insert(place.clone(), name.clone());
        }
        named.push((name, id));
    }
    let mut defs: Vec<SharedDef> = named
        .into_iter()
        .map(|(name, id)| {
            let structure = &structures[id];
            let (module, version, _) = &structure.places[0];
            let mut schema = structure.schema.clone();
            rename_nested(&mut schema.ty, module, version, &aliases);
            SharedDef {
                name,
                schema,
                docs_agree: structure.docs_agree,
            }
        })
        .collect();
    defs.sort_by(|a, b| a.name.cmp(&b.name));
    Plan { defs, aliases }
}

/// Gives the structs and enums in `ty` (`ty` itself too) their shared names.
fn rename_nested(ty: &mut Type, module: &str, version: &str, aliases: &HashMap<Place, String>) {
    let rename = |name: &mut String| {
        let place = (module.to_owned(), version.to_owned(), name.clone());
        if let Some(shared) = aliases.get(&place) {
            shared.clone_into(name);
        }
    };
    match ty {
        Type::Object(object) => {
            rename(&mut object.name);
            for field in &mut object.fields {
                rename_nested(&mut field.schema.ty, module, version, aliases);
            }
        }
        Type::Enum(e) => rename(&mut e.name),
        Type::List(list) => rename_nested(&mut list.items.ty, module, version, aliases),
        Type::Map(map) => rename_nested(&mut map.values.ty, module, version, aliases),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::push_debug;

    #[test]
    fn leaf_keys_are_what_debug_writes() {
        use crate::model::{Bounds, IntegerFormat, IntegerType, NumberType, StringType, Type};
        let bounded = Bounds {
            minimum: Some(1.0),
            ..Bounds::default()
        };
        for ty in [
            Type::String(StringType::default()),
            Type::String(StringType {
                format: Some("date-time".to_owned()),
                ..StringType::default()
            }),
            Type::Integer(IntegerType {
                format: IntegerFormat::Int32,
                bounds: Bounds::default(),
            }),
            Type::Integer(IntegerType {
                format: IntegerFormat::Int64,
                bounds: bounded.clone(),
            }),
            Type::Number(NumberType {
                format: None,
                bounds: bounded,
            }),
            Type::Boolean,
            Type::IntOrString,
            Type::Raw,
        ] {
            assert_eq!(super::leaf_key(&ty), format!("{ty:?}"));
        }
    }

    #[test]
    fn strings_are_written_as_debug_writes_them() {
        for text in [
            "",
            "plain words",
            "tab\there, lines\r\n, \"quotes\", 'single', back\\slash",
            "control \u{1} and \u{7f}",
            "non-ASCII: é, a combining accent e\u{301}, \u{200b}",
        ] {
            let mut out = String::new();
            push_debug(&mut out, text);
            assert_eq!(out, format!("{text:?}"));
        }
    }
}
