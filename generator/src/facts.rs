//! What a schema says of a value besides its description (default, allowed values, bounds,
//! pattern), in the words the generated docs show. Those words are part of a type's
//! identity: two structures whose fields document different facts are two types, so the
//! front-end's naming and the share analysis compare them, and emission writes them.

use crate::model::{Bounds, EnumValues, Schema, Type};

/// The most allowed values listed before "and N more".
const MAX_VALUES: usize = 20;
/// The longest default or value shown whole.
const MAX_VALUE_LEN: usize = 120;

/// What the schema says of a value besides its description, as one paragraph (empty when it
/// says nothing): `Default: `1`. Minimum: 0.`
pub fn facts(schema: &Schema) -> String {
    let mut facts: Vec<String> = Vec::new();
    if let Some(default) = &schema.default {
        facts.push(format!("Default: {}", code(&shorten(&default.to_string()))));
    }
    let bounds = |facts: &mut Vec<String>, bounds: &Bounds| {
        let number = |n: f64| {
            if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{n:.0}")
            } else {
                n.to_string()
            }
        };
        if let Some(min) = bounds.minimum {
            let exclusive = if bounds.exclusive_minimum {
                " (exclusive)"
            } else {
                ""
            };
            facts.push(format!("Minimum: {}{exclusive}", number(min)));
        }
        if let Some(max) = bounds.maximum {
            let exclusive = if bounds.exclusive_maximum {
                " (exclusive)"
            } else {
                ""
            };
            facts.push(format!("Maximum: {}{exclusive}", number(max)));
        }
        if let Some(step) = bounds.multiple_of {
            facts.push(format!("Multiple of: {}", number(step)));
        }
    };
    let range = |facts: &mut Vec<String>, what: &str, min: Option<u64>, max: Option<u64>| match (
        min, max,
    ) {
        (Some(min), Some(max)) if min == max => facts.push(format!("{what}: exactly {min}")),
        (Some(min), Some(max)) => facts.push(format!("{what}: {min} to {max}")),
        (Some(min), None) => facts.push(format!("{what}: at least {min}")),
        (None, Some(max)) => facts.push(format!("{what}: at most {max}")),
        (None, None) => {}
    };
    match &schema.ty {
        Type::String(string) => {
            if let Some(format) = &string.format {
                facts.push(format!("Format: {}", code(format)));
            }
            range(&mut facts, "Length", string.min_length, string.max_length);
            if let Some(pattern) = &string.pattern {
                facts.push(format!("Pattern: {}", code(&shorten(pattern))));
            }
        }
        Type::DateTime => facts.push(format!("Format: {}", code("date-time"))),
        Type::Integer(integer) => bounds(&mut facts, &integer.bounds),
        Type::Number(number) => bounds(&mut facts, &number.bounds),
        Type::Enum(e) => {
            let values: Vec<String> = match &e.values {
                EnumValues::Str(values) => values.iter().map(|v| code(&shorten(v))).collect(),
                EnumValues::Int(values) => values.iter().map(|v| code(&v.to_string())).collect(),
            };
            let mut listed = values[..values.len().min(MAX_VALUES)].join(", ");
            if values.len() > MAX_VALUES {
                listed.push_str(&format!(" and {} more", values.len() - MAX_VALUES));
            }
            facts.push(format!("One of: {listed}"));
        }
        Type::List(list) => range(&mut facts, "Items", list.min_items, list.max_items),
        Type::Map(map) => range(
            &mut facts,
            "Entries",
            map.min_properties,
            map.max_properties,
        ),
        Type::Object(object) => range(
            &mut facts,
            "Fields set",
            object.min_properties,
            object.max_properties,
        ),
        _ => {}
    }
    if schema.nullable {
        facts.push("May be `null`".to_owned());
    }
    if facts.is_empty() {
        String::new()
    } else {
        facts.join(". ") + "."
    }
}

/// `text` cut to [`MAX_VALUE_LEN`] characters, with `...` when cut.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_VALUE_LEN {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX_VALUE_LEN).collect();
    cut + "..."
}

/// `text` as a Markdown code span, whatever backticks it holds; line breaks become spaces.
pub fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}
