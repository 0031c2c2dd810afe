//! The one writer of a module's Rust text: items built as tokens are laid out by
//! prettyplease at the writer's depth ([`Writer::tokens`]); the data types (the structs and
//! string enums of a kind's fields), each kind's object and status struct, and the modules
//! around them are written straight to text, in prettyplease's layout.
//!
//! The data types are nearly all of the generated code: thousands of structs for a large
//! CRD. Built as tokens, parsed into a syntax tree and printed, they took two thirds of
//! `generate`'s time (BENCHMARKS.md). Their layout is regular, so it is written here
//! directly: 89 columns, four spaces per level, an attribute whose arguments do not fit
//! broken one per line, a type that does not fit broken at its generic arguments. Tests check
//! that prettyplease leaves every generated file unchanged, and every line length around its
//! limits.

use std::fmt::Write as _;

use proc_macro2::TokenStream;
use quote::quote;

use super::imports::Imports;
use super::types::{self, Declarations, RustType};
pub use crate::analysis::Optional;
use crate::emit::{EmitError, docs};
use crate::model::{EnumType, EnumValues, Field};
use crate::rust_names;

/// prettyplease's line width, and the least it leaves however deep the indentation.
const MARGIN: usize = 89;
const MIN_SPACE: usize = 60;

/// Columns left for a line's text at `indent`.
pub fn space(indent: usize) -> usize {
    MARGIN.saturating_sub(indent).max(MIN_SPACE)
}

/// A module's text being written, at the indentation of its items.
pub struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    /// A writer whose items sit `indent` spaces deep.
    pub fn new(indent: usize) -> Self {
        Self {
            out: String::new(),
            indent,
        }
    }

    /// How deep its items are indented.
    pub fn indent(&self) -> usize {
        self.indent
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.out
    }

    /// Items built as tokens, laid out by prettyplease at this writer's depth.
    pub fn tokens(&mut self, tokens: TokenStream) -> Result<(), EmitError> {
        if !tokens.is_empty() {
            self.out.push_str(&format_at(tokens, self.indent / 4)?);
        }
        Ok(())
    }

    /// An item laid out as `text` (lines indented four spaces per level below the item's,
    /// blank lines left to [`super::spacing`]), when each of its lines fits in prettyplease's
    /// width at this depth, or is one of `whole`, lines prettyplease cannot break. Writes
    /// nothing and returns false otherwise: the caller then writes the item as tokens, since
    /// past the width prettyplease's breaking rules for expressions and signatures apply.
    pub fn item_if_it_fits(&mut self, text: &str, whole: &[&str]) -> bool {
        let fits = text.lines().all(|line| {
            let trimmed = line.trim_start_matches(' ');
            let depth = self.indent + (line.len() - trimmed.len());
            trimmed.len() <= space(depth) || whole.contains(&trimmed)
        });
        if fits {
            for line in text.lines() {
                self.start_line();
                self.out.push_str(line);
                self.out.push('\n');
            }
        }
        fits
    }

    /// `pub mod name {` with its one-line inner doc; its items follow, one level deeper, until
    /// [`Writer::close`].
    pub fn open_module(&mut self, name: &str, doc: &str) {
        self.open(&["pub mod ", name], false);
        self.line(&["//! ", doc]);
    }

    /// The closing brace of what [`Writer::open_module`] opened (or a struct or enum).
    pub fn close(&mut self) {
        self.indent -= 4;
        self.line(&["}"]);
    }

    /// What `other` wrote at this writer's depth. A module's items are written apart first,
    /// because the `use` items that precede them follow from everything they name.
    pub fn append(&mut self, other: Writer) {
        debug_assert_eq!(other.indent, self.indent, "written at another depth");
        self.out.push_str(&other.out);
    }

    /// A struct with `fields_in`, with the derives of `optional` it takes (`Default` only when
    /// every field is optional). With
    /// `preserve_unknown` it also holds the keys the schema does not name, in a flattened map
    /// written back in place. Outside types are named through `imports`.
    pub fn struct_item(
        &mut self,
        name: &str,
        doc: Option<&str>,
        fields_in: &[Field],
        preserve_unknown: bool,
        optional: Optional,
        imports: &mut Imports,
    ) {
        if let Some(doc) = doc {
            self.doc(doc);
        }
        let mut scope = rust_names::Scope::default();
        let fields: Vec<&Field> = fields_in.iter().collect();
        let declarations = Declarations::of(&fields, &mut scope, |_| false, imports);
        let (serialize, deserialize) = serde_derives(imports);
        let mut derives = vec![
            "Clone",
            "Debug",
            "Default",
            "PartialEq",
            &serialize,
            &deserialize,
        ];
        // `Default` when every field may be absent.
        if !optional.default || !declarations.fields.iter().all(|f| f.presence.is_option()) {
            derives.retain(|d| *d != "Default");
        }
        if !optional.partial_eq {
            derives.retain(|d| *d != "PartialEq");
        }
        self.attr("derive", &derives);
        if let Some(rule) = declarations.rename_all {
            self.attr("serde", &[&format!("rename_all = \"{}\"", rule.name())]);
        }
        let empty = fields_in.is_empty() && !preserve_unknown;
        self.open(&["pub struct ", name], empty);
        if empty {
            return;
        }
        self.fields(&declarations);
        if preserve_unknown {
            self.doc(
                "Keys the schema does not name, kept as they were (it preserves unknown fields).",
            );
            self.attr("serde", &["flatten"]);
            let ident = rust_names::ident_text(&scope.unique("extra"));
            let ty = types::unknown_fields(imports);
            self.typed_line(&["pub ", &ident, ": "], &ty, ",", true);
        }
        self.close();
    }

    /// The fields `declarations` declares, each with its docs and serde attribute.
    fn fields(&mut self, declarations: &Declarations) {
        for field in &declarations.fields {
            if let Some(doc) = &field.doc {
                self.doc(doc);
            }
            if !field.serde.is_empty() {
                let args: Vec<&str> = field.serde.iter().map(String::as_str).collect();
                self.attr("serde", &args);
            }
            self.typed_line(&["pub ", &field.ident, ": "], &field.ty, ",", true);
        }
    }

    /// A status struct that derives `KubeStatus` (and `derives`, in that order before it),
    /// with `#[kondition(kondition...)]`, of the fields `declarations` declares; false (and
    /// nothing written) when an argument of `#[kondition]` would not fit on a line of its own,
    /// where prettyplease would break it too (the caller then writes it as tokens).
    pub fn status_struct_item(
        &mut self,
        name: &str,
        doc: Option<&str>,
        derives: &[&str],
        kondition: &[String],
        declarations: &Declarations,
    ) -> bool {
        let room = space(self.indent + 4);
        if kondition.iter().any(|arg| arg.len() + ",".len() > room) {
            return false;
        }
        if let Some(doc) = doc {
            self.doc(doc);
        }
        self.attr("derive", derives);
        if let Some(rule) = declarations.rename_all {
            self.attr("serde", &[&format!("rename_all = \"{}\"", rule.name())]);
        }
        let kondition: Vec<&str> = kondition.iter().map(String::as_str).collect();
        self.attr("kondition", &kondition);
        self.open(&["pub struct ", name], declarations.fields.is_empty());
        if !declarations.fields.is_empty() {
            self.fields(declarations);
            self.close();
        }
        true
    }

    /// A kind's object struct named `name`: its docs, `derives`, the fields' `rename_all`,
    /// `metadata` (of the type `meta` names), the root's fields `declarations` declares, and
    /// the flattened map of unknown keys `extra` (its field name and type) when the root keeps
    /// them.
    pub fn object_struct_item(
        &mut self,
        name: &str,
        doc: &str,
        derives: &[&str],
        meta: &str,
        declarations: &Declarations,
        extra: Option<(&str, &RustType)>,
    ) {
        self.doc(doc);
        self.attr("derive", derives);
        if let Some(rule) = declarations.rename_all {
            self.attr("serde", &[&format!("rename_all = \"{}\"", rule.name())]);
        }
        self.open(&["pub struct ", name], false);
        self.doc("Standard object metadata.");
        self.attr("serde", &["default"]);
        self.line(&["pub metadata: ", meta, ","]);
        self.fields(declarations);
        if let Some((ident, ty)) = extra {
            self.doc(
                "Keys the schema does not name, kept as they were (it preserves unknown fields).",
            );
            self.attr("serde", &["flatten"]);
            self.typed_line(&["pub ", ident, ": "], ty, ",", true);
        }
        self.close();
    }

    /// A string enum named `name`, one variant per value, with the derives of `optional`
    /// (`Eq` only with `PartialEq`); a variant whose name is not its value says its wire
    /// spelling.
    pub fn enum_item(
        &mut self,
        name: &str,
        e: &EnumType,
        doc: Option<&str>,
        optional: Optional,
        imports: &mut Imports,
    ) {
        let EnumValues::Str(values) = &e.values else {
            return;
        };
        if let Some(doc) = doc {
            self.doc(doc);
        }
        let (serialize, deserialize) = serde_derives(imports);
        let mut derives = vec!["Clone", "Copy", "Debug"];
        if optional.partial_eq {
            derives.push("PartialEq");
            if optional.eq {
                derives.push("Eq");
            }
        }
        if optional.hash {
            derives.push("Hash");
        }
        derives.extend([serialize.as_str(), deserialize.as_str()]);
        self.attr("derive", &derives);
        self.open(&["pub enum ", name], values.is_empty());
        if values.is_empty() {
            return;
        }
        let mut scope = rust_names::Scope::default();
        for value in values {
            let variant = scope.unique_pascal(&rust_names::variant_name(value));
            self.doc(&format!("{}.", docs::code(value)));
            if variant != *value {
                self.attr("serde", &[&types::serde_rename(value)]);
            }
            self.line(&[&variant, ","]);
        }
        self.close();
    }

    /// `pub struct Name {` and one level deeper, or `pub struct Name {}` when `empty`.
    fn open(&mut self, head: &[&str], empty: bool) {
        let brace = if empty { " {}" } else { " {" };
        self.start_line();
        for part in head {
            self.out.push_str(part);
        }
        self.out.push_str(brace);
        self.out.push('\n');
        if !empty {
            self.indent += 4;
        }
    }

    /// Doc comment lines, as prettyplease prints `#[doc = " line"]`.
    fn doc(&mut self, text: &str) {
        for line in docs::sanitize(text).lines() {
            let line = line.trim_end_matches(' ');
            if line.is_empty() {
                self.line(&["///"]);
            } else {
                self.line(&["/// ", line]);
            }
        }
    }

    /// `#[name(args)]` on one line when it fits, else one argument per line.
    fn attr(&mut self, name: &str, args: &[&str]) {
        let flat = "#[".len()
            + name.len()
            + "(".len()
            + args.iter().map(|a| a.len()).sum::<usize>()
            + ", ".len() * args.len().saturating_sub(1)
            + ")]".len();
        if flat <= space(self.indent) {
            self.start_line();
            self.out.push_str("#[");
            self.out.push_str(name);
            self.out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(arg);
            }
            self.out.push_str(")]\n");
            return;
        }
        self.line(&["#[", name, "("]);
        self.indent += 4;
        for (i, arg) in args.iter().enumerate() {
            let comma = if i + 1 < args.len() { "," } else { "" };
            self.line(&[arg, comma]);
        }
        self.indent -= 4;
        self.line(&[")]"]);
    }

    /// `lead`, a type and `trail` on one line when they fit; else the type's generic
    /// arguments one per line, each laid out the same way, as prettyplease breaks them.
    /// `trail` counts towards the fit unless it is the comma after a broken list's argument,
    /// which prettyplease writes only because the list broke.
    fn typed_line(&mut self, lead: &[&str], ty: &RustType, trail: &str, trail_counts: bool) {
        let lead_len: usize = lead.iter().map(|part| part.len()).sum();
        let trail_len = if trail_counts { trail.len() } else { 0 };
        let fits = lead_len + ty.flat_len() + trail_len <= space(self.indent);
        if fits || ty.args.is_empty() {
            self.start_line();
            for part in lead {
                self.out.push_str(part);
            }
            // Writing into a String cannot fail.
            let _ = write!(self.out, "{ty}");
            self.out.push_str(trail);
            self.out.push('\n');
            return;
        }
        self.start_line();
        for part in lead {
            self.out.push_str(part);
        }
        self.out.push_str(&ty.path);
        self.out.push_str("<\n");
        self.indent += 4;
        for arg in &ty.args {
            self.typed_line(&[], arg, ",", false);
        }
        self.indent -= 4;
        self.line(&[">", trail]);
    }

    /// The indentation of a new line.
    fn start_line(&mut self) {
        self.out.extend(std::iter::repeat_n(' ', self.indent));
    }

    /// A whole line made of `parts`.
    fn line(&mut self, parts: &[&str]) {
        self.start_line();
        for part in parts {
            self.out.push_str(part);
        }
        self.out.push('\n');
    }
}

/// `tokens` laid out by prettyplease as items `depth` modules deep (indented `4 * depth`).
fn format_at(tokens: TokenStream, depth: usize) -> Result<String, EmitError> {
    let mut wrapped = tokens;
    for _ in 0..depth {
        wrapped = quote!(mod m { #wrapped });
    }
    let text = crate::emit::format(wrapped)?;
    if depth == 0 {
        return Ok(text);
    }
    // Without the wrappers' opening and closing lines (an empty one prints as `mod m {}`).
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    if lines.len() >= 2 * depth {
        for line in &lines[depth..lines.len() - depth] {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// How a module names serde's derives.
fn serde_derives(imports: &mut Imports) -> (String, String) {
    (
        imports.name("serde::Serialize"),
        imports.name("serde::Deserialize"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Schema, Type};

    fn field(name: &str, required: bool, ty: Type) -> Field {
        Field {
            name: name.to_owned(),
            required,
            schema: Schema::of(ty),
        }
    }

    fn named(name: &str) -> Type {
        Type::Named(name.to_owned())
    }

    /// Fails unless prettyplease prints `text` (written `depth` modules deep) back unchanged.
    fn assert_prettyplease_layout(text: &str, depth: usize) {
        let mut wrapped = text.to_owned();
        for level in (0..depth).rev() {
            let indent = " ".repeat(level * 4);
            wrapped = format!("{indent}mod m {{\n{wrapped}{indent}}}\n");
        }
        let file = syn::parse_file(&wrapped).expect("parses");
        let printed = prettyplease::unparse(&file);
        if let Some((i, (ours, theirs))) = wrapped
            .lines()
            .zip(printed.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            let context: Vec<&str> = printed.lines().skip(i.saturating_sub(3)).take(8).collect();
            panic!(
                "line {}: ours {ours:?}\nprettyplease {theirs:?}\n{}",
                i + 1,
                context.join("\n")
            );
        }
        assert_eq!(printed, wrapped, "not prettyplease's layout");
    }

    #[test]
    fn a_struct_reads_as_prettyplease_prints_it() {
        let mut writer = Writer::new(0);
        let mut wire = field("type", true, named("Kind"));
        wire.schema.docs = Some("The kind.\n\n  Indented, trailing  ".to_owned());
        let list = Type::List(Box::new(crate::model::ListType {
            items: Schema::of(Type::String(Default::default())),
            kind: crate::model::ListKind::Atomic,
            min_items: None,
            max_items: None,
        }));
        let fields = [
            wire,
            field("waitForSubResources", false, Type::Boolean),
            field("self", false, named("SelfRef")),
            field("podIPs", false, list),
            field("mirror_percent", true, Type::Boolean),
        ];
        let mut imports = Imports::default();
        writer.struct_item(
            "Widget",
            Some("A widget."),
            &fields,
            false,
            Optional::ALL,
            &mut imports,
        );
        // A module that defines `Option` and `Vec` itself names the prelude's in full.
        let mut own = Imports::new(["Option".to_owned(), "Vec".to_owned()]);
        writer.struct_item("Holder", None, &fields[2..], false, Optional::ALL, &mut own);
        let text = writer.finish();
        assert_eq!(
            text,
            "/// A widget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = \"camelCase\")]
pub struct Widget {
    /// The kind.
    ///
    /// Indented, trailing
    pub r#type: Kind,
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub wait_for_sub_resources: Option<bool>,
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub self_: Option<SelfRef>,
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub pod_i_ps: Option<Vec<String>>,
    #[serde(rename = \"mirror_percent\")]
    pub mirror_percent: bool,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = \"camelCase\")]
pub struct Holder {
    #[serde(default, skip_serializing_if = \"::core::option::Option::is_none\")]
    pub self_: ::core::option::Option<SelfRef>,
    #[serde(default, skip_serializing_if = \"::core::option::Option::is_none\")]
    pub pod_i_ps: ::core::option::Option<::std::vec::Vec<String>>,
    #[serde(rename = \"mirror_percent\")]
    pub mirror_percent: bool,
}
"
        );
        assert_prettyplease_layout(&text, 0);
        assert_eq!(
            imports.use_items().to_string(),
            quote::quote!(
                use serde::{Deserialize, Serialize};
            )
            .to_string()
        );
    }

    #[test]
    fn long_attributes_and_types_break_where_prettyplease_breaks_them() {
        let long = "AVeryLongTypeNameThatCannotPossiblyFitOnOneLineWithItsFieldName";
        let map_of_lists = Type::Map(Box::new(crate::model::MapType {
            values: Schema::of(Type::List(Box::new(crate::model::ListType {
                items: Schema::of(named(long)),
                kind: crate::model::ListKind::Atomic,
                min_items: None,
                max_items: None,
            }))),
            min_properties: None,
            max_properties: None,
            atomic: false,
        }));
        let fields = [
            field("aFieldWithARatherLongWireName", false, named(long)),
            field("m", true, map_of_lists),
            field("\"quoted\\name\"", true, Type::Boolean),
        ];
        let values = crate::model::EnumValues::Str(vec![
            "a value long enough that its rename attribute cannot fit on the line".to_owned(),
            "b".to_owned(),
        ]);
        let e = EnumType {
            name: "Choice".to_owned(),
            pos: Default::default(),
            values,
        };
        // Four levels: the derive lists break too; eighteen: the least space applies.
        for depth in [0, 1, 4, 18] {
            let mut writer = Writer::new(depth * 4);
            writer.struct_item(
                "Holder",
                None,
                &fields,
                false,
                Optional::ALL,
                &mut Imports::default(),
            );
            writer.struct_item(
                "Empty",
                Some("Nothing."),
                &[],
                false,
                Optional::ALL,
                &mut Imports::default(),
            );
            writer.struct_item(
                "Open",
                None,
                &fields,
                true,
                Optional::ALL,
                &mut Imports::default(),
            );
            writer.enum_item(
                "Choice",
                &e,
                Some("A choice."),
                Optional::ALL,
                &mut Imports::default(),
            );
            assert_prettyplease_layout(&writer.finish(), depth);
        }
    }

    #[test]
    fn types_break_exactly_where_prettyplease_breaks_them() {
        let list = |ty| {
            Type::List(Box::new(crate::model::ListType {
                items: Schema::of(ty),
                kind: crate::model::ListKind::Atomic,
                min_items: None,
                max_items: None,
            }))
        };
        let map = |ty| {
            Type::Map(Box::new(crate::model::MapType {
                values: Schema::of(ty),
                min_properties: None,
                max_properties: None,
                atomic: false,
            }))
        };
        // Every length of a type name up to past the margin, in each shape, required and
        // optional, at indentations up to where the least space applies.
        for len in 1..=100 {
            let name = format!("T{}", "x".repeat(len - 1));
            let shapes = [
                named(&name),
                list(named(&name)),
                map(list(named(&name))),
                list(map(named(&name))),
            ];
            let fields: Vec<Field> = shapes
                .iter()
                .enumerate()
                .flat_map(|(i, ty)| {
                    [
                        field(&format!("f{i}"), true, ty.clone()),
                        field(&format!("optionalField{i}"), false, ty.clone()),
                    ]
                })
                .collect();
            for depth in [0, 1, 3, 8] {
                let mut writer = Writer::new(depth * 4);
                writer.struct_item(
                    "Holder",
                    None,
                    &fields,
                    false,
                    Optional::ALL,
                    &mut Imports::default(),
                );
                assert_prettyplease_layout(&writer.finish(), depth);
            }
        }
    }

    #[test]
    fn attributes_break_exactly_where_prettyplease_breaks_them() {
        for len in 1..=90 {
            let wire = format!("w{}", "x".repeat(len - 1));
            let fields = [
                field(&wire, true, Type::Boolean),
                field(&wire, false, Type::Boolean),
            ];
            let e = EnumType {
                name: "Choice".to_owned(),
                pos: Default::default(),
                values: crate::model::EnumValues::Str(vec![wire.clone()]),
            };
            for depth in [0, 1, 3, 8] {
                let mut writer = Writer::new(depth * 4);
                writer.struct_item(
                    "Holder",
                    None,
                    &fields,
                    false,
                    Optional::ALL,
                    &mut Imports::default(),
                );
                writer.enum_item("Choice", &e, None, Optional::ALL, &mut Imports::default());
                assert_prettyplease_layout(&writer.finish(), depth);
            }
        }
    }

    /// Token items and text items in a module the writer opens read as prettyplease would
    /// print the whole, at any depth.
    #[test]
    fn tokens_and_text_make_one_layout() {
        for depth in [0, 1, 3] {
            let mut writer = Writer::new(depth * 4);
            writer
                .tokens(quote!(
                    #![doc = " A file."]
                    pub const C: &str = include_str!("c.json");
                ))
                .expect("formats");
            writer.open_module("r#mod", "Version `mod`.");
            let mut body = Writer::new(writer.indent());
            body.tokens(quote!(impl Widget { pub fn new() -> Self { Self { x: 1 } } }))
                .expect("formats");
            body.struct_item(
                "Widget",
                Some("A widget."),
                &[field("x", true, Type::Boolean)],
                false,
                Optional::ALL,
                &mut Imports::default(),
            );
            writer
                .tokens(quote!(
                    use serde::{Deserialize, Serialize};
                ))
                .expect("formats");
            writer.append(body);
            writer.close();
            writer
                .tokens(TokenStream::new())
                .expect("nothing to format");
            let text = writer.finish();
            assert!(text.contains("pub mod r#mod {\n"), "{text}");
            assert!(text.contains("//! Version `mod`.\n"), "{text}");
            assert_prettyplease_layout(&text, depth);
        }
    }

    #[test]
    fn an_enum_without_values_is_empty() {
        let mut writer = Writer::new(0);
        let e = EnumType {
            name: "Nothing".to_owned(),
            pos: Default::default(),
            values: crate::model::EnumValues::Str(Vec::new()),
        };
        writer.enum_item(&e.name, &e, None, Optional::ALL, &mut Imports::default());
        let text = writer.finish();
        assert!(text.ends_with("pub enum Nothing {}\n"), "{text}");
        assert_prettyplease_layout(&text, 0);
    }
}
