//! A CRD version's `openAPIV3Schema` into typed fields: each object with properties becomes a
//! struct and each string enum an enum, named after its kind and place, as short as it can be
//! (see [`TypeNames`]).
//!
//! Within one kind, objects and enums that would give identical Rust share one type: CRDs
//! repeat whole subtrees (Argo CD's nested generators, ASO's per-resource references), and
//! every duplicate struct is code the compiler would derive serde for again. What makes two
//! subtrees identical is their fields (names, optionality, types, docs); the object's own
//! description is not part of it, because it documents the place (controller-gen writes the
//! holding field's doc there), and it stays on that field. Sharing across kinds, versions and
//! files is decided later, over the whole run (`crate::analysis`).
//!
//! Only what decides the Rust type is interpreted; the CRD itself is kept whole elsewhere, so
//! nothing here has to be exact about keywords Rust cannot express.

use std::collections::HashMap;

use crate::model::{
    Bounds, EnumType, EnumValues, Field, IntegerFormat, IntegerType, ListKind, ListType, MapType,
    NumberType, ObjectType, QUANTITY_PATTERN, Schema, StringType, Type, Validation,
};
use crate::rust_names::{self, pascal_case};
use crate::rust_shape::struct_shape;
use crate::source::reader::Sink;
use crate::source::yaml::{Node, Value};

/// The root's fields Kubernetes itself types; they are not generated.
const ROOT_OWN_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

/// The struct and enum names of one version module, and which shape each was made for.
///
/// A type is named after its kind and the last field of its path: `spec.affinity` of kind
/// `Prometheus` is `PrometheusAffinity`, `spec.alerting.alertmanagers.tlsConfig` is
/// `PrometheusTlsConfig`. When that name is taken by a different structure (met earlier, in
/// the schema's order), the fields above it are added one by one
/// (`PrometheusAlertmanagersTlsConfig`), up to the whole path; a name still taken gets a
/// number. Names depend only on the kind's own schema and on the kinds before it in its file,
/// which share the module; since every name starts with its kind's, kinds meet only when one
/// kind's name is another's followed by a field name.
///
/// The types of the root's fields (`PrometheusSpec`, `PrometheusStatus`) keep those names
/// whatever is nested in them.
#[derive(Default)]
pub struct TypeNames {
    scope: rust_names::Scope,
    by_shape: HashMap<(String, String), String>,
    /// The names set aside for the root fields' types, by kind and field.
    roots: HashMap<(String, String), String>,
}

impl TypeNames {
    /// Names where `reserved` are taken already (the kinds' own types).
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Self {
            scope: rust_names::Scope::with_reserved(reserved),
            by_shape: HashMap::new(),
            roots: HashMap::new(),
        }
    }

    /// Sets `<kind><Field>` aside for the type of root field `field`, if it is free.
    fn reserve_root(&mut self, kind: &str, field: &str) {
        let name = format!("{kind}{}", pascal_case(field));
        if self.scope.take(&name) {
            self.roots.insert((kind.to_owned(), field.to_owned()), name);
        }
    }

    /// The name of `kind`'s type with this shape at `path`: the one it already has, or the
    /// shortest free name the rule above gives.
    fn name(&mut self, kind: &str, shape: String, path: &[String]) -> String {
        let key = (kind.to_owned(), shape);
        if let Some(name) = self.by_shape.get(&key) {
            return name.clone();
        }
        if let [field] = path
            && let Some(name) = self.roots.remove(&(kind.to_owned(), field.clone()))
        {
            self.by_shape.insert(key, name.clone());
            return name;
        }
        // The path's words from the last, each made when a name needs it: the last one
        // nearly always gives a free name (case conversion of every field above it, for every
        // type, was half of the naming's work; issue 48).
        let mut suffix = String::new();
        for field in path.iter().rev() {
            suffix.insert_str(0, &pascal_case(field));
            let candidate = format!("{kind}{suffix}");
            if self.scope.take(&candidate) {
                self.by_shape.insert(key, candidate.clone());
                return candidate;
            }
        }
        let name = self.scope.unique_pascal(&format!("{kind}{suffix}"));
        self.by_shape.insert(key, name.clone());
        name
    }
}

/// Reads the schemas of one version; type names are taken from `names`.
pub struct SchemaReader<'s, 'n> {
    sink: &'s Sink<'s>,
    names: &'n mut TypeNames,
    /// The kind being read.
    kind: String,
    /// The field names from the root to the schema being read.
    path: Vec<String>,
    /// Whether subtrees with the structure of a k8s-openapi type become that type.
    reuse_k8s_types: bool,
}

impl<'s, 'n> SchemaReader<'s, 'n> {
    /// A reader reporting to `sink`, naming types in `names`; with `reuse_k8s_types`, a
    /// subtree with the structure of a k8s-openapi type becomes that type.
    pub fn new(sink: &'s Sink<'s>, names: &'n mut TypeNames, reuse_k8s_types: bool) -> Self {
        Self {
            sink,
            names,
            kind: String::new(),
            path: Vec::new(),
            reuse_k8s_types,
        }
    }

    /// The fields of the object root of kind `kind`, but apiVersion, kind and metadata.
    pub fn root_fields(&mut self, root: &Node, kind: &str) -> Vec<Field> {
        kind.clone_into(&mut self.kind);
        self.path.clear();
        let root_names = root
            .get("properties")
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .filter_map(|(key, _)| key.as_str())
            .filter(|name| !ROOT_OWN_FIELDS.contains(name));
        for name in root_names {
            self.names.reserve_root(kind, name);
        }
        self.fields(root, ROOT_OWN_FIELDS)
    }

    /// The fields of an object schema but `skip`.
    fn fields(&mut self, node: &Node, skip: &[&str]) -> Vec<Field> {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::as_str)
            .collect();
        let Some(properties) = node.get("properties") else {
            return Vec::new();
        };
        let Some(entries) = properties.as_map() else {
            self.sink
                .error(properties.pos, "`properties` must be a mapping");
            return Vec::new();
        };
        // At most one field per entry, made at that size: a `Field` is a few hundred bytes,
        // and a list grown by doubling copied them at each step and kept up to half its room
        // unused for the whole run (issue 48).
        let mut fields = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let Some(name) = key.as_str().filter(|name| !skip.contains(name)) else {
                continue;
            };
            self.path.push(name.to_owned());
            let schema = self.schema(value);
            self.path.pop();
            fields.push(Field {
                name: name.to_owned(),
                required: required.contains(&name),
                schema,
            });
        }
        fields
    }

    /// One schema, at the reader's path.
    fn schema(&mut self, node: &Node) -> Schema {
        if node.as_map().is_none() {
            self.sink.error(
                node.pos,
                format!(
                    "a schema must be a mapping, found {}",
                    node.value.describe()
                ),
            );
            return Schema::of(Type::Raw);
        }
        let ty = self.ty(node);
        Schema {
            ty,
            docs: string(node, "description"),
            nullable: flag(node, "nullable"),
            default: node.get("default").map(Node::to_json),
            validations: validations(node),
        }
    }

    fn ty(&mut self, node: &Node) -> Type {
        if flag(node, "x-kubernetes-int-or-string") {
            // controller-gen's `resource.Quantity`: what k8s-openapi's `Quantity` holds, and
            // the schema format's `quantity` (so `import` carries it whole).
            if string(node, "pattern").as_deref() == Some(QUANTITY_PATTERN) {
                return Type::Quantity;
            }
            return Type::IntOrString;
        }
        match node.get("type").and_then(Node::as_str) {
            Some("string") => self.string(node),
            Some("integer") => integer(node),
            Some("number") => Type::Number(NumberType {
                format: string(node, "format"),
                bounds: bounds(node),
            }),
            Some("boolean") => Type::Boolean,
            Some("array") => {
                let items = match node.get("items") {
                    Some(items) => self.schema(items),
                    None => Schema::of(Type::Raw),
                };
                Type::List(Box::new(ListType {
                    items,
                    kind: list_kind(node),
                    min_items: unsigned(node, "minItems"),
                    max_items: unsigned(node, "maxItems"),
                }))
            }
            Some("object") => self.object(node),
            Some(other) => {
                let pos = node.get("type").map_or(node.pos, |n| n.pos);
                self.sink.error(
                    pos,
                    format!("`type: {other}` is not a JSON Schema type Kubernetes allows (string, integer, number, boolean, array, object)"),
                );
                Type::Raw
            }
            // No type: anything (preserved unknown fields, or branches the type does not decide).
            None => Type::Raw,
        }
    }

    fn string(&mut self, node: &Node) -> Type {
        let values: Option<Vec<String>> = node.get("enum").and_then(Node::as_seq).map(|values| {
            values
                .iter()
                .filter(|v| !matches!(v.value, Value::Null))
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default()
        });
        if let Some(values) = values.filter(|v| !v.is_empty()) {
            let shape = format!("enum {values:?}");
            return Type::Enum(EnumType {
                name: self.names.name(&self.kind, shape, &self.path),
                pos: node.pos,
                values: EnumValues::Str(values),
            });
        }
        let format = string(node, "format");
        if format.as_deref() == Some("date-time") {
            return Type::DateTime;
        }
        Type::String(StringType {
            format,
            pattern: string(node, "pattern"),
            min_length: unsigned(node, "minLength"),
            max_length: unsigned(node, "maxLength"),
        })
    }

    fn object(&mut self, node: &Node) -> Type {
        let has_properties = node
            .get("properties")
            .and_then(Node::as_map)
            .is_some_and(|p| !p.is_empty());
        if has_properties {
            // Fields first: the shape is known only once their types are named.
            let fields = self.fields(node, &[]);
            let preserve_unknown = flag(node, "x-kubernetes-preserve-unknown-fields");
            let mut object = ObjectType {
                name: String::new(),
                pos: node.pos,
                fields,
                min_properties: unsigned(node, "minProperties"),
                max_properties: unsigned(node, "maxProperties"),
                preserve_unknown,
            };
            if self.reuse_k8s_types
                && let Some(reused) = crate::reuse::Catalog::get()
                    .find(&object, string(node, "description").as_deref())
            {
                return Type::Reused(Box::new(reused));
            }
            let mut shape = struct_shape(&object.fields);
            if preserve_unknown {
                shape.push_str(" +unknown");
            }
            object.name = self.names.name(&self.kind, shape, &self.path);
            return Type::Object(object);
        }
        let values = match node.get("additionalProperties") {
            Some(values) if values.as_map().is_some() => self.schema(values),
            _ => Schema::of(Type::Raw),
        };
        Type::Map(Box::new(MapType {
            values,
            min_properties: unsigned(node, "minProperties"),
            max_properties: unsigned(node, "maxProperties"),
            atomic: string(node, "x-kubernetes-map-type").as_deref() == Some("atomic"),
        }))
    }
}

fn integer(node: &Node) -> Type {
    let values: Option<Vec<i64>> = node.get("enum").and_then(Node::as_seq).map(|values| {
        values
            .iter()
            .map(|v| match v.value {
                Value::Int(i) => Some(i),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    });
    if let Some(values) = values.filter(|v| !v.is_empty()) {
        return Type::Enum(EnumType {
            name: String::new(),
            pos: node.pos,
            values: EnumValues::Int(values),
        });
    }
    Type::Integer(IntegerType {
        format: if string(node, "format").as_deref() == Some("int32") {
            IntegerFormat::Int32
        } else {
            IntegerFormat::Int64
        },
        bounds: bounds(node),
    })
}

fn list_kind(node: &Node) -> ListKind {
    match node.get("x-kubernetes-list-type").and_then(Node::as_str) {
        Some("set") => ListKind::Set,
        Some("map") => ListKind::Map(
            node.get("x-kubernetes-list-map-keys")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect(),
        ),
        _ => ListKind::Atomic,
    }
}

fn bounds(node: &Node) -> Bounds {
    Bounds {
        minimum: number(node, "minimum"),
        maximum: number(node, "maximum"),
        exclusive_minimum: flag(node, "exclusiveMinimum"),
        exclusive_maximum: flag(node, "exclusiveMaximum"),
        multiple_of: number(node, "multipleOf"),
    }
}

fn validations(node: &Node) -> Vec<Validation> {
    node.get("x-kubernetes-validations")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|rule| {
            Some(Validation {
                rule: string(rule, "rule")?,
                message: string(rule, "message"),
                message_expression: string(rule, "messageExpression"),
                reason: string(rule, "reason"),
                field_path: string(rule, "fieldPath"),
            })
        })
        .collect()
}

fn string(node: &Node, key: &str) -> Option<String> {
    node.get(key).and_then(Node::as_str).map(str::to_owned)
}

fn flag(node: &Node, key: &str) -> bool {
    node.get(key).is_some_and(|v| v.value == Value::Bool(true))
}

fn unsigned(node: &Node, key: &str) -> Option<u64> {
    match node.get(key)?.value {
        Value::Int(i) => u64::try_from(i).ok(),
        _ => None,
    }
}

fn number(node: &Node, key: &str) -> Option<f64> {
    match node.get(key)?.value {
        #[allow(clippy::cast_precision_loss)]
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        _ => None,
    }
}
