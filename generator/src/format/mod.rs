//! The schema format front-end: schema files into the model.

/// The JSON Schema of the schema format (what `kondition schema` prints).
pub const JSON_SCHEMA: &str = include_str!("format.schema.json");

pub mod kind;
pub mod types;
pub mod written_out;

use std::path::Path;

use crate::model::{NamedType, SchemaFile, Type};
use crate::profile::Profiles;
use crate::source::diagnostic::Diagnostics;
use crate::source::reader::Sink;
use crate::source::yaml::{self, Node, Pos};
use kondition_names::{Quote, hint};
use types::TypeReader;

/// Reads the parsed documents of one schema file into the model.
pub fn read_documents(
    path: &Path,
    documents: &[Node],
    profiles: &Profiles,
) -> Result<SchemaFile, Diagnostics> {
    let sink = Sink::new(path);
    let mut reader = TypeReader::new(&sink);
    let documents: Vec<&Node> = documents
        .iter()
        .filter(|d| !matches!(d.value, yaml::Value::Null))
        .collect();

    // Named types first (from every document), so kinds can refer to them in any order.
    let mut named: Vec<NamedType> = Vec::new();
    let mut declared: Vec<Pos> = Vec::new();
    for document in &documents {
        for (key, value) in document
            .get("types")
            .and_then(Node::as_map)
            .unwrap_or_default()
        {
            let Some(name) = key.as_str() else { continue };
            if !crate::name_rules::is_pascal_case(name) {
                sink.error(key.pos, format!("type name `{name}` must be PascalCase: a capital letter, then letters and digits"));
                continue;
            }
            if named.iter().any(|t| t.name == name) {
                sink.error(key.pos, format!("type `{name}` is declared twice"));
                continue;
            }
            if let Some(own) = value.get("name") {
                sink.error(
                    own.pos,
                    format!("a type under `types` is named by its key (`{name}`); `name` applies to inline types"),
                );
                continue;
            }
            let Some(schema) = reader.schema(value, name, false) else {
                continue;
            };
            if !matches!(schema.ty, Type::Object(_) | Type::Enum(_)) {
                sink.error(value.pos, format!("type `{name}` must be an object or an enum; use the type directly where it is needed"));
                continue;
            }
            named.push(NamedType {
                name: name.to_owned(),
                schema,
            });
            declared.push(key.pos);
        }
    }

    let kinds: Vec<_> = documents
        .iter()
        .filter_map(|document| kind::read_kind(document, &mut reader, profiles))
        .collect();
    if documents.is_empty() {
        sink.error(Default::default(), "the file holds no kind");
    }
    for (name, pos) in &reader.references {
        if !named.iter().any(|t| &t.name == name) {
            let declared: Vec<&str> = named.iter().map(|t| t.name.as_str()).collect();
            let hint = hint(name, &declared, Quote::Code, || {
                "declare it under `types`".to_owned()
            });
            sink.error(*pos, format!("type `{name}` is not declared{hint}"));
        }
    }
    check_type_names(&kinds, &named, &sink);
    written_out::check(&kinds, &named, &declared, &sink);
    let module = crate::rust_names::file_module_name(path);
    let diagnostics = sink.finish();
    diagnostics.into_result(SchemaFile {
        path: path.to_owned(),
        module,
        kinds,
        types: named,
    })
}

/// Every struct and enum of one version module gets its own name: an inline object or enum
/// is named after its place (`WidgetSpecPorts`) or by its `name`, and must not take a name
/// another type, or one of the names each kind's code uses, already has. Places whose types
/// would be the same Rust code may share a name (one type is written for them), as they do
/// in a CRD input.
fn check_type_names(kinds: &[crate::model::Kind], named: &[NamedType], sink: &Sink) {
    use crate::model::Schema;
    use crate::rust_shape::rust_shape;
    fn walk<'a>(schema: &'a Schema, found: &mut Vec<(&'a str, Pos, &'a Schema)>) {
        match &schema.ty {
            Type::Object(object) => {
                found.push((&object.name, object.pos, schema));
                for field in &object.fields {
                    walk(&field.schema, found);
                }
            }
            Type::Enum(e) => found.push((&e.name, e.pos, schema)),
            Type::Map(map) => walk(&map.values, found),
            Type::List(list) => walk(&list.items, found),
            _ => {}
        }
    }
    let reserved: Vec<String> = kinds
        .iter()
        .flat_map(|k| kondition_names::kind_items(&k.kind))
        .collect();
    let mut versions: Vec<&str> = kinds
        .iter()
        .flat_map(|k| k.versions.iter().map(|v| v.name.as_str()))
        .collect();
    versions.sort_unstable();
    versions.dedup();
    let mut reported: Vec<String> = Vec::new();
    for version in versions {
        let mut found: Vec<(&str, Pos, &Schema)> = Vec::new();
        for named_type in named {
            walk(&named_type.schema, &mut found);
        }
        for v in kinds
            .iter()
            .flat_map(|k| k.versions.iter().filter(|v| v.name == version))
        {
            for field in v.body.fields() {
                walk(&field.schema, &mut found);
            }
        }
        for (i, (name, pos, schema)) in found.iter().enumerate() {
            let clash = reserved.iter().any(|r| r == name)
                || found[..i].iter().any(|(other, _, other_schema)| {
                    other == name && rust_shape(&other_schema.ty) != rust_shape(&schema.ty)
                });
            if clash && !reported.iter().any(|r| r == name) {
                reported.push((*name).to_owned());
                sink.error(
                    *pos,
                    format!("two types would both be named `{name}` in the generated code; rename a field, a `name` or a type under `types`"),
                );
            }
        }
    }
}
