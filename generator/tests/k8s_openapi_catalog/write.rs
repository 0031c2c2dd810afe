//! The catalog's file written from its data: what blessing writes, and what the committed
//! file is compared with. The generator only reads the file (`CatalogData::from_text`); the
//! tests below check that what is written here reads back as the data it came from.

use std::fmt::Write as _;

use kondition_gen::reuse::catalog::{
    CatalogData, DocHash, Leaf, ListMerge, MapMerge, Minor, PropertyType, Shape,
};
use serde_json::Value as Json;

/// The data as the file holds it.
pub fn catalog(data: &CatalogData) -> String {
    let quote = |text: &str| Json::from(text).to_string();
    let versions = |versions: &[Minor]| {
        let list: Vec<String> = versions.iter().map(ToString::to_string).collect();
        format!("[{}]", list.join(", "))
    };
    let doc = |doc: Option<DocHash>| doc.map_or_else(|| "null".to_owned(), |d| quote(&hash(d)));
    let mut out = String::new();
    out.push_str("{\n");
    let _ = writeln!(out, "  \"crate\": {},", quote(&data.source));
    let _ = writeln!(out, "  \"versions\": {},", versions(&data.versions));
    out.push_str("  \"types\": {\n");
    for (t, (path, variants)) in data.types.iter().enumerate() {
        let _ = writeln!(out, "    {}: [", quote(path));
        for (v, variant) in variants.iter().enumerate() {
            let _ = write!(out, "      {{\"versions\": {}", versions(&variant.versions));
            match &variant.shape {
                Shape::Leaf(leaf) => {
                    let _ = write!(out, ", \"leaf\": {}}}", quote(leaf_name(*leaf)));
                }
                Shape::Object(object) => {
                    let required: Vec<String> = object.required.iter().map(|r| quote(r)).collect();
                    let _ = write!(
                        out,
                        ", \"doc\": {}, \"required\": [{}], \"properties\": {{",
                        doc(object.doc),
                        required.join(", ")
                    );
                    for (p, (name, property)) in object.properties.iter().enumerate() {
                        let _ = write!(
                            out,
                            "{}\n        {}: [{}, {}]",
                            if p == 0 { "" } else { "," },
                            quote(name),
                            quote(&property_type(&property.ty)),
                            doc(property.doc)
                        );
                    }
                    if !object.properties.is_empty() {
                        out.push_str("\n      ");
                    }
                    out.push_str("}}");
                }
            }
            out.push_str(if v + 1 < variants.len() { ",\n" } else { "\n" });
        }
        out.push_str(if t + 1 < data.types.len() {
            "    ],\n"
        } else {
            "    ]\n"
        });
    }
    out.push_str("  }\n}\n");
    out
}

/// A property's type as the file writes it (`[map:key]api::core::v1::KeyToPath`).
pub fn property_type(ty: &PropertyType) -> String {
    match ty {
        PropertyType::String => "string".to_owned(),
        PropertyType::Bytes => "bytes".to_owned(),
        PropertyType::Int32 => "int32".to_owned(),
        PropertyType::Int64 => "int64".to_owned(),
        PropertyType::Number => "number".to_owned(),
        PropertyType::Boolean => "boolean".to_owned(),
        PropertyType::Ref(path) => path.clone(),
        PropertyType::List(items, merge) => {
            let merge = match merge {
                ListMerge::Atomic => "atomic".to_owned(),
                ListMerge::Set => "set".to_owned(),
                ListMerge::Map(keys) => format!("map:{}", keys.join(",")),
            };
            format!("[{merge}]{}", property_type(items))
        }
        PropertyType::Map(values, merge) => {
            let merge = match merge {
                MapMerge::Atomic => "atomic",
                MapMerge::Granular => "granular",
            };
            format!("{{{merge}}}{}", property_type(values))
        }
    }
}

/// A leaf's name in the file, from the reader's own table.
fn leaf_name(leaf: Leaf) -> &'static str {
    Leaf::NAMES
        .iter()
        .find(|(named, _)| *named == leaf)
        .map_or("", |(_, name)| name)
}

/// A description's hash as the file writes it: eight hex digits.
fn hash(doc: DocHash) -> String {
    format!("{:08x}", doc.0)
}
