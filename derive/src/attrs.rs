//! `#[kondition(...)]` on the status struct: every key is parsed here and nowhere else.
//!
//! ```text
//! #[kondition(resource = Widget, conditions(Ready, "example.com/Synced"), field_owner = "...")]
//! #[kondition(resource = Widget, profile = "orc", conditions(SubResourcesReady))]
//! #[kondition(resource = Widget, conditions(Ready, Synced), summary = "Synced", success_reason = "Synced")]
//! #[kondition(profile = "aso", transition_rule = "StatusOnly")]
//! #[kondition(crate = "my_api::kondition", profile = "standard")]
//! ```

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitStr, Path, Token, parenthesized};

use crate::errors::Errors;
use crate::profiles;

/// The longest field owner: the API server accepts 128 characters for a field manager, and
/// the status fallback manager appends `-fallback` (9) to it.
const MAX_FIELD_OWNER_LEN: usize = 119;

/// The variants of `kondition::TransitionRule`.
const TRANSITION_RULES: &[&str] = &["AnyChange", "StatusOnly"];

/// What `#[kondition(...)]` says.
#[derive(Default)]
pub struct KonditionAttrs {
    /// `resource = Kind`: the kind whose status this is.
    pub resource: Option<Path>,
    /// The profile's condition types, then those of `conditions(...)`, as written.
    pub conditions: Vec<DeclaredCondition>,
    /// `field_owner = "..."`.
    pub field_owner: Option<LitStr>,
    /// `profile = "..."`, a known profile's name.
    pub profile: Option<LitStr>,
    /// `summary = "..."`: the summary condition, instead of the profile's.
    pub summary: Option<LitStr>,
    /// `success_reason = "..."`: the summary's reason after a success, instead of the
    /// profile's.
    pub success_reason: Option<LitStr>,
    /// `transition_rule = "..."`: when `lastTransitionTime` moves, instead of the profile's
    /// rule: the name of a `kondition::TransitionRule` variant.
    pub transition_rule: Option<Ident>,
    /// `crate = "..."`: the path the generated code names the runtime by, for a crate that
    /// re-exports it (as serde's and kube's derives take one).
    pub krate: Option<Path>,
}

/// One declared condition type and where it was declared.
pub struct DeclaredCondition {
    /// The wire value, such as `Ready` or `example.com/Synced`.
    pub name: String,
    /// Its declaration (the profile name, for a profile's types).
    pub span: Span,
}

/// One entry of `conditions(...)`: an identifier or a string.
struct ConditionItem(String, Span);

impl Parse for ConditionItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            Ok(Self(lit.value(), lit.span()))
        } else if input.peek(Ident::peek_any) {
            let ident = Ident::parse_any(input)?;
            Ok(Self(ident.unraw().to_string(), ident.span()))
        } else {
            Err(input.error(
                "expected a condition type: an identifier such as `Ready`, or a string such as \"example.com/Synced\"",
            ))
        }
    }
}

/// Reads every `#[kondition(...)]` attribute; problems go to `errors`.
pub fn parse(attrs: &[Attribute], item: &Ident, errors: &mut Errors) -> KonditionAttrs {
    let mut parsed = KonditionAttrs::default();
    let mut explicit: Vec<DeclaredCondition> = Vec::new();
    // Whether `conditions(...)` and `profile` were given, even if they failed to parse.
    let mut seen_conditions = false;
    let mut seen_profile = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kondition")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("resource") {
                let path: Path = meta.value()?.parse()?;
                set_once(&mut parsed.resource, path, &meta)
            } else if meta.path.is_ident("field_owner") {
                let owner: LitStr = meta.value()?.parse()?;
                check_field_owner(&owner)?;
                set_once(&mut parsed.field_owner, owner, &meta)
            } else if meta.path.is_ident("profile") {
                seen_profile = true;
                let name: LitStr = meta.value()?.parse()?;
                if profiles::condition_types(&name.value()).is_none() {
                    return Err(syn::Error::new(
                        name.span(),
                        format!(
                            "unknown profile \"{}\"; expected one of {}",
                            name.value(),
                            profiles::names()
                        ),
                    ));
                }
                set_once(&mut parsed.profile, name, &meta)
            } else if meta.path.is_ident("summary") {
                let summary: LitStr = meta.value()?.parse()?;
                set_once(&mut parsed.summary, summary, &meta)
            } else if meta.path.is_ident("success_reason") {
                let reason: LitStr = meta.value()?.parse()?;
                set_once(&mut parsed.success_reason, reason, &meta)
            } else if meta.path.is_ident("transition_rule") {
                let rule: LitStr = meta.value()?.parse()?;
                if !TRANSITION_RULES.contains(&rule.value().as_str()) {
                    return Err(syn::Error::new(
                        rule.span(),
                        format!(
                            "unknown transition rule {:?}; expected \"AnyChange\" or \"StatusOnly\"",
                            rule.value()
                        ),
                    ));
                }
                set_once(&mut parsed.transition_rule, Ident::new(&rule.value(), rule.span()), &meta)
            } else if meta.path.is_ident("crate") {
                let path: LitStr = meta.value()?.parse()?;
                match path.parse::<Path>() {
                    Ok(parsed_path) => set_once(&mut parsed.krate, parsed_path, &meta),
                    // The keys after it are still read, so that no other error follows from it.
                    Err(_) => {
                        errors.push(syn::Error::new(
                            path.span(),
                            format!("`crate = {:?}` is not a path, such as \"my_api::kondition\"", path.value()),
                        ));
                        Ok(())
                    }
                }
            } else if meta.path.is_ident("conditions") {
                if std::mem::replace(&mut seen_conditions, true) {
                    return Err(meta.error("duplicate `conditions(...)`; list every condition type in one"));
                }
                let content;
                parenthesized!(content in meta.input);
                let items = Punctuated::<ConditionItem, Token![,]>::parse_terminated(&content)?;
                explicit.extend(items.into_iter().map(|ConditionItem(name, span)| DeclaredCondition { name, span }));
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown kondition attribute `{}`; expected `resource = Kind`, `conditions(...)`, `profile = \"...\"`, `summary = \"...\"`, `success_reason = \"...\"`, `transition_rule = \"...\"`, `field_owner = \"...\"` or `crate = \"...\"`",
                    meta.path.get_ident().map_or_else(|| "?".to_owned(), Ident::to_string)
                )))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }

    if let Some(profile) = &parsed.profile {
        let types = profiles::condition_types(&profile.value()).unwrap_or_default();
        parsed
            .conditions
            .extend(types.iter().map(|name| DeclaredCondition {
                name: (*name).to_owned(),
                span: profile.span(),
            }));
    }
    parsed.conditions.extend(explicit);
    if parsed.conditions.is_empty() && !seen_conditions && !seen_profile {
        errors.push(syn::Error::new(
            item.span(),
            "declare the condition types: #[kondition(conditions(Ready, ...))] or #[kondition(profile = \"standard\")]",
        ));
    }
    parsed
}

fn set_once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta) -> syn::Result<()> {
    if slot.replace(value).is_some() {
        let key = meta
            .path
            .get_ident()
            .map_or_else(String::new, Ident::to_string);
        return Err(meta.error(format!("duplicate `{key}`")));
    }
    Ok(())
}

fn check_field_owner(owner: &LitStr) -> syn::Result<()> {
    let value = owner.value();
    if value.is_empty() || value.len() > MAX_FIELD_OWNER_LEN {
        return Err(syn::Error::new(
            owner.span(),
            format!(
                "field_owner must be 1 to {MAX_FIELD_OWNER_LEN} characters: the API server allows 128 for a field manager, and the fallback manager adds `-fallback`"
            ),
        ));
    }
    Ok(())
}
