//! The few `#[serde(...)]` settings that decide a field's wire form, read so that the apply
//! configuration serializes exactly as the status does. Everything else in `#[serde]` is
//! serde's business: it is skipped here, and serde_derive reports its own errors.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

use kondition_names::RenameRule;

/// `#[serde(rename_all = "...")]` on the struct.
pub fn rename_all(attrs: &[Attribute]) -> Option<RenameRule> {
    let mut rule = None;
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename_all") {
            if let Some(value) = serialize_value(&meta)? {
                rule = RenameRule::parse(&value.value());
            }
        } else {
            skip_value(&meta)?;
        }
        Ok(())
    });
    rule
}

/// `#[serde(default)]` (or `default = "function"`) on the struct: every field absent on the
/// wire is filled in.
pub fn container_default(attrs: &[Attribute]) -> bool {
    let mut default = false;
    for_each_serde_meta(attrs, |meta| {
        default |= meta.path.is_ident("default");
        skip_value(&meta)
    });
    default
}

/// What `#[serde(...)]` says about one field.
#[derive(Default)]
pub struct SerdeField {
    /// `rename = "..."` (or its `serialize` part).
    pub rename: Option<String>,
    /// `skip` or `skip_serializing`: the field never reaches the wire.
    pub skip: bool,
    /// `flatten`.
    pub flatten: bool,
    /// `with = "module"`: serialized by `module::serialize`.
    pub with: Option<Path>,
    /// `serialize_with = "function"`.
    pub serialize_with: Option<Path>,
    /// `default` or `default = "function"`: absent on the wire, the field is filled in, so
    /// its schema does not require it.
    pub default: bool,
}

/// Reads a field's `#[serde(...)]` attributes.
pub fn field(attrs: &[Attribute]) -> SerdeField {
    let mut field = SerdeField::default();
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename") {
            field.rename = serialize_value(&meta)?.map(|v| v.value());
        } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
            field.skip = true;
        } else if meta.path.is_ident("flatten") {
            field.flatten = true;
        } else if meta.path.is_ident("with") {
            field.with = Some(meta.value()?.parse::<LitStr>()?.parse()?);
        } else if meta.path.is_ident("serialize_with") {
            field.serialize_with = Some(meta.value()?.parse::<LitStr>()?.parse()?);
        } else if meta.path.is_ident("default") {
            field.default = true;
            skip_value(&meta)?;
        } else {
            skip_value(&meta)?;
        }
        Ok(())
    });
    field
}

fn for_each_serde_meta(
    attrs: &[Attribute],
    mut each: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // A malformed #[serde] attribute is reported by serde_derive itself.
        let _ = attr.parse_nested_meta(&mut each);
    }
}

/// The value of `key = "v"`, or the `serialize` part of `key(serialize = "v", ...)`.
fn serialize_value(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return meta.value()?.parse().map(Some);
    }
    let mut found = None;
    meta.parse_nested_meta(|inner| {
        let value: LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("serialize") {
            found = Some(value);
        }
        Ok(())
    })?;
    Ok(found)
}

/// Consumes whatever value a key we do not read has: `= expr`, `(...)`, or nothing.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let value = meta.value()?;
        while !value.is_empty() && !value.peek(syn::Token![,]) {
            value.parse::<proc_macro2::TokenTree>()?;
        }
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}
