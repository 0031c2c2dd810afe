//! The typed, validated model of custom resource kinds that every emitter reads.
//!
//! Front-ends (the schema format, CRD YAML) produce it; emitters (Rust, CRD manifests, schema
//! files) consume it. Everything in it has been checked: names are valid, references resolve,
//! defaults fit their types, exactly one version is stored.

use std::path::PathBuf;

use kondition::{Polarity, Severity, StatusShape};

use crate::source::yaml::{Node, Pos, Value};

/// Where a definition was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The input file.
    pub path: PathBuf,
    /// The place in it.
    pub pos: Pos,
}

/// Every kind of every input file, grouped by file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// One entry per input file, in the order read.
    pub files: Vec<SchemaFile>,
    /// What was read but not used (documents of other kinds in a CRD file), for stderr.
    pub notes: Vec<crate::source::diagnostic::Diagnostic>,
}

/// The kinds of one input file; its Rust output is one module.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaFile {
    /// The input file.
    pub path: PathBuf,
    /// The Rust module name (the file stem, made an identifier).
    pub module: String,
    /// The kinds, in input order.
    pub kinds: Vec<Kind>,
    /// Named types declared under `types`, in input order, shared by the file's kinds.
    pub types: Vec<NamedType>,
}

/// Cluster-wide or namespaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Objects live in a namespace.
    Namespaced,
    /// Objects are cluster-wide.
    Cluster,
}

/// The names of a kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// `securitygroups`
    pub plural: String,
    /// `securitygroup`
    pub singular: String,
    /// `sg`
    pub short_names: Vec<String>,
    /// `openstack`, `all`
    pub categories: Vec<String>,
    /// `SecurityGroupList`, when the input names it.
    pub list_kind: Option<String>,
}

/// One custom resource kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Kind {
    /// Where the kind was declared.
    pub origin: Origin,
    /// The API group.
    pub group: String,
    /// The kind, PascalCase.
    pub kind: String,
    /// Namespaced or cluster-wide.
    pub scope: Scope,
    /// Plural, singular, short names, categories.
    pub names: Names,
    /// Documentation.
    pub docs: Option<String>,
    /// The field manager, if not the default `<group>/<kind>-controller`.
    pub field_owner: Option<String>,
    /// The standard status; a kind read from a CRD has the status its schema describes
    /// instead, among its root fields.
    pub status: Option<StatusDef>,
    /// Every version, in input order; exactly one is stored.
    pub versions: Vec<Version>,
    /// The `spec` of the CRD this kind was read from, kept whole. JSON Schema says more than
    /// Rust types can (CEL rules, bounds, `anyOf`, list types, defaults), so the CRD a
    /// generated crate returns is this text, not a schema derived back from its types.
    pub source_crd: Option<SourceSpec>,
    /// The labels and annotations of the CRD this kind was read from (none for the schema
    /// format), which its CRD keeps.
    pub crd_metadata: CrdMetadata,
}

/// The labels and annotations of an input CRD. Some are what the API server requires: a CRD
/// of a protected group (`*.k8s.io`, `*.kubernetes.io`) is refused without
/// `api-approved.kubernetes.io`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdMetadata {
    /// `metadata.labels`.
    pub labels: std::collections::BTreeMap<String, String>,
    /// `metadata.annotations`.
    pub annotations: std::collections::BTreeMap<String, String>,
}

/// A CRD's `spec` as read, kept as pretty-printed JSON text: it is written out as text, and
/// held as a JSON value it took several times the memory of the whole input. The text is one
/// level in, as it stands under `"spec": ` in the CRD's own text ([`SourceSpec::text`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSpec(String);

impl SourceSpec {
    /// `spec` as pretty-printed JSON.
    pub fn new(spec: &serde_json::Value) -> Self {
        let flat = serde_json::to_string_pretty(spec).unwrap_or_default();
        // JSON text has no line break but between values.
        let mut text = String::with_capacity(flat.len() + flat.len() / 8);
        for (i, line) in flat.split('\n').enumerate() {
            if i > 0 {
                text.push_str("\n  ");
            }
            text.push_str(line);
        }
        Self(text)
    }

    /// `spec` as [`SourceSpec::new`] writes `spec.to_json()`, written from the nodes: going
    /// through a JSON value built and serialized only for this took 5% of a CRD's
    /// generation (issue 28). A mapping with a key that is not a string (which JSON would
    /// make one, and could make equal to another) goes the long way.
    pub fn of_node(spec: &Node) -> Self {
        let mut out = Vec::new();
        // One level in from the start: indenting the whole text again for the CRD's text
        // went through it line by line (issue 48).
        if pretty_json(spec, 1, &mut out) {
            // serde_json writes valid UTF-8, and so does the rest.
            if let Ok(text) = String::from_utf8(out) {
                return Self(text);
            }
        }
        Self::new(&spec.to_json())
    }

    /// The pretty-printed JSON, one level in: every line after the first is indented two
    /// spaces more than `serde_json::to_string_pretty` writes it, as the value of a key of a
    /// pretty-printed object.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// The text, taken ([`SourceSpec::text`]).
    pub fn into_text(self) -> String {
        self.0
    }

    /// The spec as a JSON value again.
    pub fn to_json(&self) -> serde_json::Value {
        // Text serde_json wrote from a value (and indented) reads back into the same value.
        serde_json::from_str(&self.0).unwrap_or_default()
    }
}

/// Writes `node` as `serde_json::to_string_pretty(&node.to_json())` would, at `depth` levels
/// of two-space indentation; false (with `out` unfinished) at a mapping key that is not a
/// string. Scalars are written by serde_json itself, so escapes and numbers are its own.
fn pretty_json(node: &Node, depth: usize, out: &mut Vec<u8>) -> bool {
    let indent = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * depth, b' ');
    };
    match &node.value {
        Value::Str(text) => serde_json::to_writer(&mut *out, text).is_ok(),
        Value::Seq(items) if items.is_empty() => {
            out.extend_from_slice(b"[]");
            true
        }
        Value::Map(entries) if entries.is_empty() => {
            out.extend_from_slice(b"{}");
            true
        }
        Value::Seq(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                indent(out, depth + 1);
                if !pretty_json(item, depth + 1, out) {
                    return false;
                }
            }
            indent(out, depth);
            out.push(b']');
            true
        }
        Value::Map(entries) => {
            out.push(b'{');
            for (i, (key, value)) in entries.iter().enumerate() {
                let Some(key) = key.as_str() else {
                    return false;
                };
                if i > 0 {
                    out.push(b',');
                }
                indent(out, depth + 1);
                if serde_json::to_writer(&mut *out, key).is_err() {
                    return false;
                }
                out.extend_from_slice(b": ");
                if !pretty_json(value, depth + 1, out) {
                    return false;
                }
            }
            indent(out, depth);
            out.push(b'}');
            true
        }
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
            serde_json::to_writer(&mut *out, &node.to_json()).is_ok()
        }
    }
}

/// The status block: the profile's conditions plus the kind's own.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusDef {
    /// The profile's name.
    pub profile: String,
    /// The condition that summarises the others (Ready, or Available for `orc`).
    pub summary: String,
    /// When a condition's `lastTransitionTime` moves: the profile's `transitionRule`.
    pub transition_rule: kondition::TransitionRule,
    /// Every condition type, the profile's first.
    pub conditions: Vec<ConditionDef>,
    /// Sub-resources whose readiness SubResourcesReady reports.
    pub sub_resources: Vec<SubResourceDef>,
}

/// The reason a successful reconcile gives the summary condition `summary` among
/// `conditions`: the summary's first reason of severity None, if it declares one.
pub fn success_reason<'c>(conditions: &'c [ConditionDef], summary: &str) -> Option<&'c str> {
    conditions
        .iter()
        .find(|c| c.type_ == summary)?
        .reasons
        .iter()
        .find(|r| r.severity == kondition::Severity::None)
        .map(|r| r.name.as_str())
}

/// A condition type with its reasons.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionDef {
    /// The type.
    pub type_: String,
    /// Which status is healthy.
    pub polarity: Polarity,
    /// The reasons it may carry.
    pub reasons: Vec<ReasonDef>,
    /// Documentation.
    pub docs: Option<String>,
}

/// A reason with its severity.
#[derive(Clone, Debug, PartialEq)]
pub struct ReasonDef {
    /// The reason.
    pub name: String,
    /// Its severity.
    pub severity: Severity,
    /// Documentation.
    pub docs: Option<String>,
}

/// A kind of sub-resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubResourceDef {
    /// The sub-resource kind ("Rule").
    pub kind: String,
    /// Documentation.
    pub docs: Option<String>,
}

/// One version of a kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// `v1`, `v1beta1`.
    pub name: String,
    /// Served by the API server.
    pub served: bool,
    /// The storage version.
    pub storage: bool,
    /// Deprecated.
    pub deprecated: bool,
    /// The warning returned to clients of a deprecated version.
    pub deprecation_warning: Option<String>,
    /// The object's fields.
    pub body: Body,
    /// Printer columns (for a schema-format kind, after Ready, Reason and Age).
    pub printer_columns: Vec<PrinterColumn>,
    /// The scale subresource.
    pub scale: Option<Scale>,
    /// Whether the version serves a status subresource (`subresources.status`), as every
    /// schema-format kind does. Without one the status is part of the main resource, which
    /// the status chokepoint then writes (`StatusResource::STATUS_SUBRESOURCE`).
    pub status_subresource: bool,
    /// The root object preserves unknown fields (`x-kubernetes-preserve-unknown-fields`): the
    /// object type keeps the keys it does not name and writes them back.
    pub preserve_unknown: bool,
    /// For a kind read from a CRD, the shape of its `status` when kondition drives it
    /// (`crd::status`), decided once as the CRD is read: every later stage asks the model,
    /// not the CRD. `None` for a status kondition does not drive, and for a schema-format
    /// kind (whose status is the standard one by construction).
    pub driven_status: Option<StatusShape>,
}

impl Version {
    /// The status kondition drives, read from a CRD: the root's `status` field and its
    /// properties, with its shape ([`Version::driven_status`]).
    pub fn driven_status(&self) -> Option<DrivenStatus<'_>> {
        let shape = self.driven_status?;
        let Body::Root(fields) = &self.body else {
            return None;
        };
        let status = fields.iter().find(|f| f.name == "status")?;
        let Type::Object(object) = &status.schema.ty else {
            return None;
        };
        Some(DrivenStatus {
            schema: &status.schema,
            object,
            shape,
        })
    }
}

/// A status kondition drives, read from a CRD: its schema, its object and its shape.
#[derive(Clone, Copy, Debug)]
pub struct DrivenStatus<'a> {
    /// The status' schema.
    pub schema: &'a Schema,
    /// Its properties.
    pub object: &'a ObjectType,
    /// How it differs from the standard status.
    pub shape: StatusShape,
}

/// What a version's objects hold besides apiVersion, kind and metadata.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A schema-format kind: a spec and the standard status.
    Standard {
        /// The spec's fields.
        spec: Vec<Field>,
        /// CEL rules on the spec.
        spec_validations: Vec<Validation>,
        /// The status's fields beyond conditions and observedGeneration.
        status_fields: Vec<Field>,
    },
    /// A kind read from a CRD: the root object's fields (usually `spec` and `status`, but
    /// any the schema has).
    Root(Vec<Field>),
}

impl Body {
    /// Every field at the top of the object (spec and status fields for a schema-format kind).
    pub fn fields(&self) -> impl Iterator<Item = &Field> {
        let (first, second): (&[Field], &[Field]) = match self {
            Self::Standard {
                spec,
                status_fields,
                ..
            } => (spec, status_fields),
            Self::Root(fields) => (fields, &[]),
        };
        first.iter().chain(second)
    }
}

/// An additional printer column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// Its header.
    pub name: String,
    /// string, integer, number, boolean or date.
    pub type_: String,
    /// The JSONPath of its value.
    pub json_path: String,
    /// Its description.
    pub description: Option<String>,
    /// 0 shows it by default; higher only in wide output.
    pub priority: Option<i32>,
    /// A format for the type.
    pub format: Option<String>,
}

/// The scale subresource's paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// `.spec.replicas`
    pub spec_replicas_path: String,
    /// `.status.replicas`
    pub status_replicas_path: String,
    /// `.status.selector`
    pub label_selector_path: Option<String>,
}

/// A CEL validation rule (`x-kubernetes-validations`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The CEL expression.
    pub rule: String,
    /// The message when it fails.
    pub message: Option<String>,
    /// A CEL expression for the message.
    pub message_expression: Option<String>,
    /// FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.
    pub reason: Option<String>,
    /// The field the failure is reported on.
    pub field_path: Option<String>,
}

impl Validation {
    /// Every key a CEL validation has, as a CRD and the schema format both write it: the
    /// format's reader accepts these and its writer notes a CRD rule's others.
    pub const KEYS: &[&str] = &[
        "rule",
        "message",
        "messageExpression",
        "reason",
        "fieldPath",
    ];
}

/// A named type declared under `types`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedType {
    /// The Rust type name.
    pub name: String,
    /// Its schema (an object or an enum).
    pub schema: Schema,
}

/// A field of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The wire name.
    pub name: String,
    /// Must be present.
    pub required: bool,
    /// Its schema.
    pub schema: Schema,
}

/// A value's schema: its type and the constraints every type may have.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// The type.
    pub ty: Type,
    /// Documentation.
    pub docs: Option<String>,
    /// `null` is allowed.
    pub nullable: bool,
    /// The default value, valid for the type.
    pub default: Option<serde_json::Value>,
    /// CEL rules.
    pub validations: Vec<Validation>,
}

/// The pattern controller-gen writes for a `resource.Quantity` (beside `anyOf: [integer,
/// string]` and `x-kubernetes-int-or-string`), and the schema format's `quantity` with it: an
/// int-or-string with this pattern is a quantity, in a CRD input as in a schema file.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// A value's type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// A string.
    String(StringType),
    /// An integer.
    Integer(IntegerType),
    /// A number.
    Number(NumberType),
    /// A boolean.
    Boolean,
    /// An object with fields, emitted as a struct of this name.
    Object(ObjectType),
    /// A map from strings to values.
    Map(Box<MapType>),
    /// A list.
    List(Box<ListType>),
    /// An enumeration, emitted as an enum of this name (string values) or checked integers.
    Enum(EnumType),
    /// An integer or a string.
    IntOrString,
    /// A resource quantity.
    Quantity,
    /// An RFC 3339 time, kept as the text it was written as.
    DateTime,
    /// Any JSON, preserved as is.
    Raw,
    /// A type declared under `types`.
    Named(String),
    /// A type of k8s-openapi a schema file names (`type: ObjectReference`).
    WellKnown(WellKnown),
    /// A type of k8s-openapi found to have the structure of a CRD's subtree.
    Reused(Box<Reused>),
    /// kondition's `Conditions`, for a status's metav1-shaped `conditions` list read from a
    /// CRD (`crate::crd::status` decides when that is lossless); the list as the CRD has it
    /// is kept.
    Conditions(Box<Type>),
}

/// A k8s-openapi type used for a CRD subtree with its structure (`crate::reuse` decides when
/// that is lossless).
#[derive(Clone, Debug, PartialEq)]
pub struct Reused {
    /// The type's path below the crate root, `api::core::v1::Container`.
    pub path: String,
    /// The oldest Kubernetes minor version (`1.<since>`) whose k8s-openapi type holds the
    /// subtree losslessly; every later version k8s-openapi supports does too.
    pub since: u32,
    /// The subtree as the CRD has it (an object type): objects synthesized from the schema
    /// and the comparison of nested subtrees read it.
    pub original: Type,
}

/// Constraints on a string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringType {
    /// `format`
    pub format: Option<String>,
    /// `pattern`
    pub pattern: Option<String>,
    /// `minLength`
    pub min_length: Option<u64>,
    /// `maxLength`
    pub max_length: Option<u64>,
}

/// The width of an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerFormat {
    /// `i32`
    Int32,
    /// `i64`
    Int64,
}

/// Constraints on an integer.
#[derive(Clone, Debug, PartialEq)]
pub struct IntegerType {
    /// `i32` or `i64`.
    pub format: IntegerFormat,
    /// Bounds.
    pub bounds: Bounds,
}

/// Constraints on a number.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberType {
    /// `float` or `double`, if given.
    pub format: Option<String>,
    /// Bounds.
    pub bounds: Bounds,
}

/// Numeric bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    /// `minimum`
    pub minimum: Option<f64>,
    /// `maximum`
    pub maximum: Option<f64>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: bool,
    /// `exclusiveMaximum`
    pub exclusive_maximum: bool,
    /// `multipleOf`
    pub multiple_of: Option<f64>,
}

/// An object's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectType {
    /// The Rust struct name.
    pub name: String,
    /// Where the object type was declared.
    pub pos: Pos,
    /// The fields, in input order.
    pub fields: Vec<Field>,
    /// `minProperties`
    pub min_properties: Option<u64>,
    /// `maxProperties`
    pub max_properties: Option<u64>,
    /// `x-kubernetes-preserve-unknown-fields`: keys beyond the fields are kept (the struct
    /// holds them in a map of their own and writes them back).
    pub preserve_unknown: bool,
}

/// A map's values.
#[derive(Clone, Debug, PartialEq)]
pub struct MapType {
    /// The values' schema.
    pub values: Schema,
    /// `minProperties`
    pub min_properties: Option<u64>,
    /// `maxProperties`
    pub max_properties: Option<u64>,
    /// `x-kubernetes-map-type: atomic`: replaced whole by server-side apply, not merged by key.
    pub atomic: bool,
}

/// How server-side apply merges a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Replaced whole.
    Atomic,
    /// Unique scalar items, merged.
    Set,
    /// Objects merged by these keys.
    Map(Vec<String>),
}

/// A list's items and merge rule.
#[derive(Clone, Debug, PartialEq)]
pub struct ListType {
    /// The items' schema.
    pub items: Schema,
    /// Atomic, set or map.
    pub kind: ListKind,
    /// `minItems`
    pub min_items: Option<u64>,
    /// `maxItems`
    pub max_items: Option<u64>,
}

/// An enumeration.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumType {
    /// The Rust enum name (string enums).
    pub name: String,
    /// Where the enum type was declared.
    pub pos: Pos,
    /// The allowed values.
    pub values: EnumValues,
}

/// An enumeration's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnumValues {
    /// Strings.
    Str(Vec<String>),
    /// Integers.
    Int(Vec<i64>),
}

/// The k8s-openapi types a field may name directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WellKnown {
    /// `core/v1 ObjectReference`
    ObjectReference,
    /// `core/v1 LocalObjectReference`
    LocalObjectReference,
    /// `meta/v1 LabelSelector`
    LabelSelector,
    /// `meta/v1 Time`
    Time,
    /// `meta/v1 Duration`: a Go duration string such as `1h30m` (k8s-openapi has no type for
    /// it, so it is a `String`).
    Duration,
    /// `core/v1 SecretKeySelector`
    SecretKeySelector,
    /// `core/v1 ConfigMapKeySelector`
    ConfigMapKeySelector,
    /// `meta/v1 Condition`
    Condition,
}

impl WellKnown {
    /// Every well-known type with its name in the schema format.
    pub const ALL: &'static [(&'static str, Self)] = &[
        ("ObjectReference", Self::ObjectReference),
        ("LocalObjectReference", Self::LocalObjectReference),
        ("LabelSelector", Self::LabelSelector),
        ("Time", Self::Time),
        ("Duration", Self::Duration),
        ("SecretKeySelector", Self::SecretKeySelector),
        ("ConfigMapKeySelector", Self::ConfigMapKeySelector),
        ("Condition", Self::Condition),
    ];

    /// The type's path in k8s-openapi.
    pub fn rust_path(self) -> &'static str {
        match self {
            Self::ObjectReference => "k8s_openapi::api::core::v1::ObjectReference",
            Self::LocalObjectReference => "k8s_openapi::api::core::v1::LocalObjectReference",
            Self::LabelSelector => "k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector",
            Self::Time => "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
            Self::Duration => "std::string::String",
            Self::SecretKeySelector => "k8s_openapi::api::core::v1::SecretKeySelector",
            Self::ConfigMapKeySelector => "k8s_openapi::api::core::v1::ConfigMapKeySelector",
            Self::Condition => "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
        }
    }
}

impl Schema {
    /// A schema of the given type with nothing else set.
    pub fn of(ty: Type) -> Self {
        Self {
            ty,
            docs: None,
            nullable: false,
            default: None,
            validations: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceSpec;
    use crate::source::yaml;

    #[test]
    fn a_spec_written_from_its_nodes_is_the_text_of_its_json() {
        let text = "\
a: {b: [], c: {}, d: [1, -2, 3.5, 1e300, .nan, .inf, null, true, ~]}
e: \"quote \\\" back\\\\slash \\t tab \\u00e9 \\U0001F600 \\u0001\"
f:
  - {g: 9223372036854775807, h: -0.0, i: 0.1}
  - [[[]], [{}]]
  - 'it''s'
\"1\": one
empty:
";
        let documents = yaml::parse(text).expect("valid YAML");
        let spec = &documents[0];
        assert_eq!(
            SourceSpec::of_node(spec).text(),
            SourceSpec::new(&spec.to_json()).text()
        );
        // One level in, and the same value again.
        let flat = serde_json::to_string_pretty(&spec.to_json()).expect("JSON");
        assert_eq!(
            SourceSpec::of_node(spec).text(),
            flat.replace('\n', "\n  ")
        );
        assert_eq!(SourceSpec::of_node(spec).to_json(), spec.to_json());
        // A key that is not a string: the long way, the same text.
        let documents = yaml::parse("1: a\ntrue: b\nnull: c\n").expect("valid YAML");
        assert_eq!(
            SourceSpec::of_node(&documents[0]).text(),
            SourceSpec::new(&documents[0].to_json()).text()
        );
    }
}
