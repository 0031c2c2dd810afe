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

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::model::{
    Bounds, EnumValues, Field, IntegerFormat, IntegerType, Model, Schema, SchemaFile, StringType,
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

#[derive(Default)]
struct Census<'m> {
    /// Each structure's key (see [`Census::visit`]), and its number.
    by_key: HashMap<String, usize>,
    structures: Vec<Structure<'m>>,
}

impl<'m> Census<'m> {
    /// Records `schema` met at `module`/`version`; the structure key of its type (for the
    /// parent's key) and, for a struct or enum, its structure.
    ///
    /// `texts` gives each field's [`push_field_text`], in the order met here.
    fn visit(
        &mut self,
        module: &str,
        version: &str,
        schema: &'m Schema,
        texts: &mut FieldTexts,
    ) -> (String, Option<usize>) {
        let (key, children) = match &schema.ty {
            Type::Object(object) => {
                let mut key = String::from("struct");
                let mut children = BTreeSet::new();
                for field in &object.fields {
                    let (field_key, child) = self.visit(module, version, &field.schema, texts);
                    children.extend(child);
                    match texts.next() {
                        Some(text) => key.push_str(text),
                        // Not reached: `FieldTexts::push` walks the fields as this does.
                        None => push_field_text(&mut key, field),
                    }
                    key.push_str(&field_key);
                }
                if object.preserve_unknown {
                    key.push_str(" +unknown");
                }
                (key, children)
            }
            Type::Enum(e) => match &e.values {
                EnumValues::Str(values) => (format!("enum {values:?}"), BTreeSet::new()),
                EnumValues::Int(_) => return ("i64".to_owned(), None),
            },
            Type::List(list) => {
                let (items, child) = self.visit(module, version, &list.items, texts);
                return (format!("[{items}]"), child);
            }
            Type::Map(map) => {
                let (values, child) = self.visit(module, version, &map.values, texts);
                return (format!("{{{values}}}"), child);
            }
            Type::Reused(reused) => return (format!("k8s:{}", reused.path), None),
            Type::Conditions(_) => return ("conditions".to_owned(), None),
            other => return (leaf_key(other), None),
        };
        let name = match &schema.ty {
            Type::Object(object) => &object.name,
            Type::Enum(e) => &e.name,
            _ => unreachable!("only structs and enums get here"),
        };
        let place = (module.to_owned(), version.to_owned(), name.clone());
        // One lookup, and the key (which holds every field's docs) is never copied.
        let next = self.structures.len();
        let id = *self.by_key.entry(key).or_insert(next);
        if id == next {
            self.structures.push(Structure {
                places: vec![place],
                schema,
                children,
                docs_agree: true,
            });
        } else {
            let structure = &mut self.structures[id];
            structure.docs_agree &= structure.schema.docs == schema.docs;
            if !structure.places.contains(&place) {
                structure.places.push(place);
            }
        }
        (format!("#{id}"), Some(id))
    }
}

/// The structure key of a type without structs or enums in it: its `{:?}`, which the most
/// common ones (a string, an integer, a boolean without constraints: most fields of a CRD)
/// have written once (`{:?}` of each was 4% of the share plan's work; issue 28).
fn leaf_key(ty: &Type) -> String {
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
        Some((_, key)) => key.clone(),
        None => format!("{ty:?}"),
    }
}

/// Appends what a field adds to its struct's key before its type's key: everything its Rust
/// declaration shows, as `format!(" {:?} {} {} {:?} {:?} ", name, required, nullable, docs,
/// facts)` writes it, the strings' `{:?}` written by [`push_debug`]. It is most of the
/// census's work (its docs escaped), and independent of the other fields, so it is written
/// for all fields in parallel ([`FieldTexts`]). The keys are compared, and ordered where two
/// shared structures want one name.
fn push_field_text(key: &mut String, field: &Field) {
    key.push(' ');
    push_debug(key, &field.name);
    key.push_str(if field.required { " true" } else { " false" });
    key.push_str(if field.schema.nullable {
        " true "
    } else {
        " false "
    });
    match &field.schema.docs {
        Some(docs) => {
            key.push_str("Some(");
            push_debug(key, docs);
            key.push(')');
        }
        None => key.push_str("None"),
    }
    key.push(' ');
    push_debug(key, &crate::facts::facts(&field.schema));
    key.push(' ');
}

/// [`push_field_text`] of every field of a root's structs, one after the other in one text,
/// in the order [`Census::visit`] meets them: each field after the fields nested in it.
#[derive(Default)]
struct FieldTexts {
    text: String,
    /// Where each field's text ends.
    ends: Vec<usize>,
    /// How many have been read.
    read: usize,
}

impl FieldTexts {
    /// Appends the texts of the fields of `schema`'s structs.
    fn push(&mut self, schema: &Schema) {
        match &schema.ty {
            Type::Object(object) => {
                for field in &object.fields {
                    self.push(&field.schema);
                    push_field_text(&mut self.text, field);
                    self.ends.push(self.text.len());
                }
            }
            Type::List(list) => self.push(&list.items),
            Type::Map(map) => self.push(&map.values),
            _ => {}
        }
    }

    /// The next field's text.
    fn next(&mut self) -> Option<&str> {
        let start = match self.read {
            0 => 0,
            n => *self.ends.get(n - 1)?,
        };
        let end = *self.ends.get(self.read)?;
        self.read += 1;
        self.text.get(start..end)
    }

    /// Whether every text has been read.
    fn is_done(&self) -> bool {
        self.read == self.ends.len()
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

/// The shared types of every kind read from a CRD in `model`.
pub fn plan(model: &Model) -> Plan {
    // The fields' part of the structure keys is written for each root on the cores in
    // parallel; the census, which numbers structures in the order it meets them, then joins
    // them in input order.
    let roots: Vec<(&str, &str, &Schema)> = model
        .files
        .iter()
        .flat_map(|file| {
            roots(file)
                .into_iter()
                .map(|(version, schema)| (file.module.as_str(), version, schema))
        })
        .collect();
    let texts = crate::parallel::map(
        &roots,
        |_| 0,
        |(_, _, schema)| {
            let mut texts = FieldTexts::default();
            texts.push(schema);
            texts
        },
    );
    // A structure per struct or enum at most, each met as a field's type or a root: the
    // table of keys is made at that size once (growing it hashed every key, each holding its
    // fields' docs, again at each step).
    let most = texts.iter().map(|t| t.ends.len()).sum::<usize>() + roots.len();
    let mut census = Census {
        by_key: HashMap::with_capacity(most),
        structures: Vec::new(),
    };
    for ((module, version, schema), mut texts) in roots.into_iter().zip(texts) {
        census.visit(module, version, schema, &mut texts);
        debug_assert!(texts.is_done(), "every field text is used");
    }
    let structures = census.structures;
    // The keys, by number, for ordering structures that want the same name.
    let mut keys = vec![""; structures.len()];
    for (key, &id) in &census.by_key {
        keys[id] = key.as_str();
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
    let mut wanted: Vec<(String, &str, usize)> = (0..structures.len())
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
            (name, keys[id], id)
        })
        .collect();
    wanted.sort();
    let mut scope = rust_names::Scope::default();
    let mut aliases = HashMap::new();
    let mut named = Vec::with_capacity(wanted.len());
    for (name, _, id) in wanted {
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
