//! The shape of a struct or enum: the text that decides its Rust code. Two places with the
//! same shape hold one type, under one name (the CRD front-end's naming), and the schema
//! format's check of type names accepts a name given to several places of one shape.

use std::fmt::Write as _;

use crate::model::{EnumType, EnumValues, Field, Type};

/// What decides the Rust code of the struct or enum `ty` is (its fields, or its values): two
/// places with the same shape hold one type, under one name. The schema format's check of
/// type names uses it too, so that a name `import` gives several places is accepted there.
pub(crate) fn rust_shape(ty: &Type) -> String {
    match ty {
        Type::Object(object) => {
            let mut shape = struct_shape(&object.fields);
            if object.preserve_unknown {
                shape.push_str(" +unknown");
            }
            shape
        }
        Type::Enum(EnumType {
            values: EnumValues::Str(values),
            ..
        }) => format!("enum {values:?}"),
        other => type_shape(other),
    }
}

/// What decides a struct's Rust code: each field's name, optionality, nullability, docs and
/// the facts written in them, and type (nested structs and enums by their names, already
/// shared). Only ever compared: each text is written whole after its length, which tells
/// them apart without escaping the docs (escaping them was most of the naming's work).
pub(crate) fn struct_shape(fields: &[Field]) -> String {
    let mut shape = "struct".to_owned();
    for field in fields {
        let push = |shape: &mut String, text: &str| {
            let _ = write!(shape, " {}:", text.len());
            shape.push_str(text);
        };
        push(&mut shape, &field.name);
        shape.push(if field.required { 'r' } else { 'o' });
        shape.push(if field.schema.nullable { 'n' } else { '-' });
        match &field.schema.docs {
            Some(docs) => push(&mut shape, docs),
            None => shape.push_str(" none"),
        }
        push(&mut shape, &crate::facts::facts(&field.schema));
        push(&mut shape, &type_shape(&field.schema.ty));
    }
    shape
}

fn type_shape(ty: &Type) -> String {
    match ty {
        Type::Object(object) => format!("struct:{}", object.name),
        Type::Enum(EnumType {
            values: EnumValues::Str(_),
            name,
            ..
        }) => format!("enum:{name}"),
        Type::Integer(int) => format!("{:?}", int.format),
        // Integer enums are plain `i64`s in Rust.
        Type::Enum(_) => "i64".to_owned(),
        Type::List(list) => format!("[{}]", type_shape(&list.items.ty)),
        Type::Map(map) => format!("{{{}}}", type_shape(&map.values.ty)),
        Type::String(_) => "string".to_owned(),
        Type::Number(_) => "number".to_owned(),
        // What `{:?}` of the k8s-openapi type tells apart, without writing its whole
        // original subtree (that was 3% of generating the corpus; issue 28): the original's
        // position, which the `{:?}` includes and which is one node's in a file, hence one
        // original's.
        Type::Reused(reused) => match &reused.original {
            Type::Object(original) => {
                format!("Reused {} {} {:?}", reused.path, reused.since, original.pos)
            }
            _ => format!("{reused:?}"),
        },
        other => format!("{other:?}"),
    }
}
