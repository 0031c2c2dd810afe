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
    // A field's type's shape, written here first for its length: one text for them all.
    let mut ty = String::new();
    for field in fields {
        push(&mut shape, &field.name);
        shape.push(if field.required { 'r' } else { 'o' });
        shape.push(if field.schema.nullable { 'n' } else { '-' });
        match &field.schema.docs {
            Some(docs) => push(&mut shape, docs),
            None => shape.push_str(" none"),
        }
        push(&mut shape, &crate::facts::facts(&field.schema));
        ty.clear();
        push_type_shape(&mut ty, &field.schema.ty);
        push(&mut shape, &ty);
    }
    shape
}

/// Appends ` <length>:<text>`. The length's digits are written here: `write!` through the
/// formatting machinery, five times a field, was a third of the shape's work (issue 48).
fn push(shape: &mut String, text: &str) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut n = text.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    shape.push(' ');
    for &digit in &digits[start..] {
        shape.push(char::from(digit));
    }
    shape.push(':');
    shape.push_str(text);
}

fn type_shape(ty: &Type) -> String {
    let mut shape = String::new();
    push_type_shape(&mut shape, ty);
    shape
}

/// Appends the shape of a field's type: nested structs and enums by their names.
fn push_type_shape(shape: &mut String, ty: &Type) {
    match ty {
        Type::Object(object) => {
            shape.push_str("struct:");
            shape.push_str(&object.name);
        }
        Type::Enum(EnumType {
            values: EnumValues::Str(_),
            name,
            ..
        }) => {
            shape.push_str("enum:");
            shape.push_str(name);
        }
        Type::Integer(int) => {
            let _ = write!(shape, "{:?}", int.format);
        }
        // Integer enums are plain `i64`s in Rust.
        Type::Enum(_) => shape.push_str("i64"),
        Type::List(list) => {
            shape.push('[');
            push_type_shape(shape, &list.items.ty);
            shape.push(']');
        }
        Type::Map(map) => {
            shape.push('{');
            push_type_shape(shape, &map.values.ty);
            shape.push('}');
        }
        Type::String(_) => shape.push_str("string"),
        Type::Number(_) => shape.push_str("number"),
        // What `{:?}` of the k8s-openapi type tells apart, without writing its whole
        // original subtree (that was 3% of generating the corpus; issue 28): the original's
        // position, which the `{:?}` includes and which is one node's in a file, hence one
        // original's.
        Type::Reused(reused) => match &reused.original {
            Type::Object(original) => {
                let _ = write!(
                    shape,
                    "Reused {} {} {:?}",
                    reused.path, reused.since, original.pos
                );
            }
            _ => {
                let _ = write!(shape, "{reused:?}");
            }
        },
        other => {
            let _ = write!(shape, "{other:?}");
        }
    }
}
