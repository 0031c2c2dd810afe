//! Fields and their types: the short form (`size: int32`) and the long form
//! (`size: {type: int32, minimum: 1}`).

use crate::model::{
    Bounds, EnumType, EnumValues, Field, IntegerFormat, IntegerType, ListKind, ListType, MapType,
    NumberType, ObjectType, Schema, StringType, Type, Validation, WellKnown,
};
use crate::rust_names::pascal_case;
use crate::source::reader::{MapReader, Sink};
use crate::source::yaml::{Node, Pos, Value};
use kondition_names::{Quote, hint};

/// Every key of a field's long form.
pub const FIELD_KEYS: &[&str] = &[
    "type",
    "docs",
    "required",
    "nullable",
    "default",
    "validations",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "fields",
    "values",
    "items",
    "listType",
    "listMapKeys",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "name",
];

/// The keys every type may have; the others belong to some types only.
const COMMON_KEYS: &[&str] = &[
    "type",
    "docs",
    "required",
    "nullable",
    "default",
    "validations",
];

/// The built-in type names.
const BUILTIN_TYPES: &[&str] = &[
    "string",
    "integer",
    "int32",
    "int64",
    "number",
    "float",
    "double",
    "boolean",
    "object",
    "map",
    "list",
    "enum",
    "int-or-string",
    "quantity",
    "date-time",
    "raw",
];

const VALIDATION_REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// State shared while reading one file's types.
pub struct TypeReader<'s> {
    /// Where problems go.
    pub sink: &'s Sink<'s>,
    /// Names used for a type that is declared under `types`, with where they were used;
    /// checked once every document of the file has been read.
    pub references: Vec<(String, Pos)>,
}

impl<'s> TypeReader<'s> {
    /// A reader reporting to `sink`.
    pub fn new(sink: &'s Sink<'s>) -> Self {
        Self {
            sink,
            references: Vec::new(),
        }
    }

    /// The fields of a `fields`-like mapping; `owner` names the struct they belong to.
    pub fn fields(&mut self, entries: &[(Node, Node)], owner: &str) -> Vec<Field> {
        entries
            .iter()
            .filter_map(|(key, value)| {
                let Some(name) = key.as_str() else {
                    self.sink.error(key.pos, "field names must be strings");
                    return None;
                };
                if name.is_empty() {
                    self.sink.error(key.pos, "a field name must not be empty");
                    return None;
                }
                let context = format!("{owner}{}", pascal_case(name));
                let required = value
                    .as_map()
                    .and_then(|_| value.get("required"))
                    .and_then(|r| match r.value {
                        Value::Bool(b) => Some(b),
                        _ => None,
                    })
                    .unwrap_or(false);
                let schema = self.schema(value, &context, true)?;
                Some(Field {
                    name: name.to_owned(),
                    required,
                    schema,
                })
            })
            .collect()
    }

    /// A type in the short or the long form. `context` names a struct or enum declared
    /// inline; `is_field` allows `required`.
    pub fn schema(&mut self, node: &Node, context: &str, is_field: bool) -> Option<Schema> {
        if let Some(name) = node.as_str() {
            let ty = self.type_named(name, node.pos, None, context)?;
            return Some(Schema::of(ty));
        }
        let map = MapReader::new(node, "a field", FIELD_KEYS, self.sink);
        node.as_map()?;
        if !is_field && let Some(required) = map.get("required") {
            self.sink.error(
                required.pos,
                "`required` applies to fields, not to list items or map values",
            );
        }
        // Read here for its kind only: the field's place reads whether it is required.
        map.boolean("required");
        let (type_name, type_pos) = map.required_string("type")?;
        let own_name = self.own_name(&map);
        let context = own_name.as_deref().unwrap_or(context);
        let ty = self.type_named(&type_name, type_pos, Some(&map), context)?;
        self.check_applicable(&map, &type_name, &ty);
        let schema = Schema {
            docs: map.string("docs"),
            nullable: map.boolean("nullable").unwrap_or(false),
            default: map.get("default").map(Node::to_json),
            validations: self.validations(map.list("validations")),
            ty,
        };
        if let (Some(default), Some(node)) = (&schema.default, map.get("default"))
            && let Err(problem) = check_value(&schema.ty, default)
        {
            self.sink.error(
                node.pos,
                format!("the default does not fit the type: {problem}"),
            );
        }
        Some(schema)
    }

    /// The name an inline object or enum gives itself (`name: PoolBudgets`), which replaces the
    /// one made from its place; `kondition import` writes it so that a CRD's types keep the
    /// names `generate` gives the CRD itself.
    fn own_name(&self, map: &MapReader) -> Option<String> {
        let node = map.get("name")?;
        // `_` as the CRD front-end's numbered names have it (`WidgetV1_2`); `Self` is a keyword.
        let fits = |name: &str| {
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && name != "Self"
        };
        match node.as_str() {
            Some(name) if fits(name) => Some(name.to_owned()),
            _ => {
                self.sink.error(
                    node.pos,
                    "`name` must be a type name: a capital letter, then letters, digits and `_` (not `Self`)",
                );
                None
            }
        }
    }

    fn type_named(
        &mut self,
        name: &str,
        pos: Pos,
        map: Option<&MapReader>,
        context: &str,
    ) -> Option<Type> {
        let ty = match name {
            "string" => Type::String(string_type(map)),
            "integer" | "int32" => Type::Integer(IntegerType {
                format: IntegerFormat::Int32,
                bounds: bounds(map),
            }),
            "int64" => Type::Integer(IntegerType {
                format: IntegerFormat::Int64,
                bounds: bounds(map),
            }),
            "number" | "float" | "double" => Type::Number(NumberType {
                format: map
                    .and_then(|m| m.string("format"))
                    .or_else(|| (name != "number").then(|| name.to_owned())),
                bounds: bounds(map),
            }),
            "boolean" => Type::Boolean,
            "int-or-string" => Type::IntOrString,
            "quantity" => Type::Quantity,
            "date-time" => Type::DateTime,
            "raw" => Type::Raw,
            "object" => {
                let fields = map
                    .map(|m| self.fields(m.entries("fields"), context))
                    .unwrap_or_default();
                Type::Object(ObjectType {
                    name: context.to_owned(),
                    pos,
                    fields,
                    min_properties: map.and_then(|m| m.count("minProperties")),
                    max_properties: map.and_then(|m| m.count("maxProperties")),
                    preserve_unknown: false,
                })
            }
            "map" => {
                let values = self.element(map, "values", pos, context, "map")?;
                Type::Map(Box::new(MapType {
                    values,
                    min_properties: map.and_then(|m| m.count("minProperties")),
                    max_properties: map.and_then(|m| m.count("maxProperties")),
                    atomic: false,
                }))
            }
            "list" => {
                let items = self.element(map, "items", pos, context, "list")?;
                let kind = self.list_kind(map);
                Type::List(Box::new(ListType {
                    items,
                    kind,
                    min_items: map.and_then(|m| m.count("minItems")),
                    max_items: map.and_then(|m| m.count("maxItems")),
                }))
            }
            "enum" => Type::Enum(self.enum_type(map, pos, context)?),
            _ => {
                if let Some((_, known)) = WellKnown::ALL.iter().find(|(n, _)| *n == name) {
                    Type::WellKnown(*known)
                } else if name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name.chars().all(|c| c.is_ascii_alphanumeric())
                {
                    self.references.push((name.to_owned(), pos));
                    Type::Named(name.to_owned())
                } else {
                    let mut known: Vec<&str> = BUILTIN_TYPES.to_vec();
                    known.extend(WellKnown::ALL.iter().map(|(n, _)| *n));
                    let hint = hint(name, &known, Quote::Code, || {
                        "expected a built-in type (string, int32, int64, number, boolean, object, map, list, enum, int-or-string, quantity, date-time, raw), a k8s type such as ObjectReference, or a type declared under `types`".to_owned()
                    });
                    self.sink.error(pos, format!("unknown type `{name}`{hint}"));
                    return None;
                }
            }
        };
        Some(ty)
    }

    /// A map's `values` or a list's `items`, which the long form must give.
    fn element(
        &mut self,
        map: Option<&MapReader>,
        key: &str,
        pos: Pos,
        context: &str,
        what: &str,
    ) -> Option<Schema> {
        let Some(node) = map.and_then(|m| m.get(key)) else {
            self.sink.error(
                pos,
                format!(
                    "a {what} needs `{key}`: the type of its {}",
                    if what == "map" { "values" } else { "items" }
                ),
            );
            return None;
        };
        self.schema(node, context, false)
    }

    fn list_kind(&self, map: Option<&MapReader>) -> ListKind {
        let Some(map) = map else {
            return ListKind::Atomic;
        };
        let keys = map.strings("listMapKeys");
        match map.get("listType").map(|n| (n.as_str(), n.pos)) {
            None | Some((Some("atomic"), _)) => {
                if let Some(node) = map.get("listMapKeys") {
                    self.sink
                        .error(node.pos, "`listMapKeys` needs `listType: map`");
                }
                ListKind::Atomic
            }
            Some((Some("set"), _)) => ListKind::Set,
            Some((Some("map"), pos)) => {
                if keys.is_empty() {
                    self.sink.error(
                        pos,
                        "`listType: map` needs `listMapKeys`: the fields that identify an item",
                    );
                }
                ListKind::Map(keys.into_iter().map(|(k, _)| k).collect())
            }
            Some((_, pos)) => {
                self.sink
                    .error(pos, "`listType` must be atomic, set or map");
                ListKind::Atomic
            }
        }
    }

    fn enum_type(&self, map: Option<&MapReader>, pos: Pos, context: &str) -> Option<EnumType> {
        let Some(values) = map.and_then(|m| m.get("values")) else {
            self.sink
                .error(pos, "an enum needs `values`: the allowed values");
            return None;
        };
        let Some(items) = values.as_seq() else {
            self.sink
                .error(values.pos, "an enum's `values` must be a list");
            return None;
        };
        if items.is_empty() {
            self.sink
                .error(values.pos, "an enum needs at least one value");
            return None;
        }
        let values = if items.iter().all(|v| matches!(v.value, Value::Int(_))) {
            EnumValues::Int(
                items
                    .iter()
                    .filter_map(|v| match v.value {
                        Value::Int(i) => Some(i),
                        _ => None,
                    })
                    .collect(),
            )
        } else if items.iter().all(|v| matches!(v.value, Value::Str(_))) {
            EnumValues::Str(
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            )
        } else {
            let odd = items
                .iter()
                .find(|v| !matches!(v.value, Value::Str(_)))
                .unwrap_or(values);
            self.sink.error(
                odd.pos,
                format!("enum values must be all strings or all integers; this one is {} (quote it to make it a string)", odd.value.describe()),
            );
            return None;
        };
        for (i, item) in items.iter().enumerate() {
            if items[..i].iter().any(|earlier| earlier.value == item.value) {
                self.sink
                    .error(item.pos, format!("duplicate enum value {}", item.to_json()));
            }
        }
        Some(EnumType {
            name: context.to_owned(),
            pos,
            values,
        })
    }

    /// CEL rules.
    pub fn validations(&self, nodes: &[Node]) -> Vec<Validation> {
        nodes
            .iter()
            .filter_map(|node| {
                let map = MapReader::new(node, "a validation", Validation::KEYS, self.sink);
                let (rule, _) = map.required_string("rule")?;
                let reason = map.string("reason");
                if let (Some(reason), Some(node)) = (&reason, map.get("reason"))
                    && !VALIDATION_REASONS.contains(&reason.as_str())
                {
                    self.sink.error(
                        node.pos,
                        format!("`reason` must be one of {}", VALIDATION_REASONS.join(", ")),
                    );
                }
                Some(Validation {
                    rule,
                    message: map.string("message"),
                    message_expression: map.string("messageExpression"),
                    reason,
                    field_path: map.string("fieldPath"),
                })
            })
            .collect()
    }

    /// Keys of the long form that do not apply to the type are mistakes.
    fn check_applicable(&self, map: &MapReader, type_name: &str, ty: &Type) {
        let allowed: &[&str] = match ty {
            Type::String(_) => &["format", "pattern", "minLength", "maxLength"],
            Type::Integer(_) | Type::Number(_) => &[
                "format",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ],
            Type::Object(_) => &["fields", "minProperties", "maxProperties", "name"],
            Type::Map(_) => &["values", "minProperties", "maxProperties"],
            Type::List(_) => &["items", "listType", "listMapKeys", "minItems", "maxItems"],
            Type::Enum(_) => &["values", "name"],
            _ => &[],
        };
        let specific = FIELD_KEYS.iter().filter(|k| !COMMON_KEYS.contains(k));
        for key in specific.filter(|k| !allowed.contains(k)) {
            if let Some(pos) = map.key_pos(key) {
                self.sink
                    .error(pos, format!("`{key}` does not apply to type `{type_name}`"));
            }
        }
    }
}

fn string_type(map: Option<&MapReader>) -> StringType {
    let Some(map) = map else {
        return StringType::default();
    };
    StringType {
        format: map.string("format"),
        pattern: map.string("pattern"),
        min_length: map.count("minLength"),
        max_length: map.count("maxLength"),
    }
}

fn bounds(map: Option<&MapReader>) -> Bounds {
    let Some(map) = map else {
        return Bounds::default();
    };
    Bounds {
        minimum: map.number("minimum"),
        maximum: map.number("maximum"),
        exclusive_minimum: map.boolean("exclusiveMinimum").unwrap_or(false),
        exclusive_maximum: map.boolean("exclusiveMaximum").unwrap_or(false),
        multiple_of: map.number("multipleOf"),
    }
}

/// Whether `value` fits `ty` (as far as the type alone can tell); the reason if not.
pub fn check_value(ty: &Type, value: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value as Json;
    let fits = match (ty, value) {
        (Type::String(_) | Type::DateTime, Json::String(_)) => true,
        (Type::Integer(int), Json::Number(n)) => match (int.format, n.as_i64()) {
            (IntegerFormat::Int32, Some(i)) => i32::try_from(i).is_ok(),
            (IntegerFormat::Int64, Some(_)) => true,
            _ => false,
        },
        (Type::Number(_), Json::Number(_)) | (Type::Boolean, Json::Bool(_)) => true,
        (Type::IntOrString | Type::Quantity, Json::String(_)) => true,
        (Type::IntOrString | Type::Quantity, Json::Number(n)) => {
            n.is_i64() || matches!(ty, Type::Quantity)
        }
        (Type::Raw | Type::Named(_) | Type::WellKnown(_), _) => true,
        (Type::Enum(e), _) => {
            return match (&e.values, value) {
                (EnumValues::Str(values), Json::String(s)) if values.contains(s) => Ok(()),
                (EnumValues::Int(values), Json::Number(n))
                    if n.as_i64().is_some_and(|i| values.contains(&i)) =>
                {
                    Ok(())
                }
                _ => Err(format!("{value} is not one of the enum's values")),
            };
        }
        (Type::List(list), Json::Array(items)) => {
            return items
                .iter()
                .try_for_each(|item| check_value(&list.items.ty, item));
        }
        (Type::Map(map), Json::Object(entries)) => {
            return entries
                .values()
                .try_for_each(|v| check_value(&map.values.ty, v));
        }
        (Type::Object(object), Json::Object(entries)) => {
            for (key, v) in entries {
                let Some(field) = object.fields.iter().find(|f| &f.name == key) else {
                    return Err(format!("the object has no field `{key}`"));
                };
                check_value(&field.schema.ty, v)?;
            }
            true
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!("{value} is not {}", describe(ty)))
    }
}

fn describe(ty: &Type) -> &'static str {
    match ty {
        Type::String(_) => "a string",
        Type::Integer(i) if i.format == IntegerFormat::Int32 => "a 32-bit integer",
        Type::Integer(_) => "an integer",
        Type::Number(_) => "a number",
        Type::Boolean => "a boolean",
        Type::Object(_) | Type::Map(_) => "a mapping",
        Type::List(_) => "a list",
        Type::IntOrString => "an integer or a string",
        Type::Quantity => "a quantity",
        Type::DateTime => "a date-time string",
        _ => "a valid value",
    }
}
