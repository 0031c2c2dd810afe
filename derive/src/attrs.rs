//! `#[kondition(...)]` on the status struct: every key is parsed here and nowhere else.
//!
//! ```text
//! #[kondition(resource = Widget, conditions(Ready, "example.com/Synced"), field_owner = "...")]
//! #[kondition(resource = Widget, profile = "orc", conditions(SubResourcesReady))]
//! #[kondition(resource = Widget, conditions(Ready, Synced), summary = "Synced", success_reason = "Synced")]
//! #[kondition(profile = "aso", transition_rule = "StatusOnly")]
//! #[kondition(crate = "my_api::kondition", profile = "standard")]
//! #[kondition(profile = "standard", observed_generation = "conditions", conditions_without(severity))]
//! #[kondition(profile = "standard", conditions_list = "atomic")]
//! #[kondition(resource = Widget, profile = "standard", status_subresource = false)]
//! ```

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitBool, LitStr, Path, Token, parenthesized};

use crate::errors::Errors;
use kondition_names::Quote;
use kondition_names::profile::{TransitionRule, builtin, builtin_names};

/// The longest field owner: the API server accepts 128 characters for a field manager, and
/// the status fallback manager appends `-fallback` (9) to it.
const MAX_FIELD_OWNER_LEN: usize = 119;

/// Where `observed_generation = "..."` says the status keeps the generation.
const GENERATION_FIELDS: &[&str] = &["status", "conditions", "none"];

/// How `conditions_list = "..."` says the list merges (its `x-kubernetes-list-type`).
const CONDITIONS_LISTS: &[&str] = &["map", "atomic"];

/// The condition fields `conditions_without(...)` can name.
const CONDITION_FIELDS: &[&str] = &[
    "severity",
    "observed_generation",
    "reason",
    "message",
    "last_transition_time",
];

/// The condition fields metav1 requires that `conditions_optional(...)` can name.
const OPTIONAL_CONDITION_FIELDS: &[&str] = &["reason", "message", "last_transition_time"];

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
    /// `observed_generation = "..."`: one of [`GENERATION_FIELDS`].
    pub observed_generation: Option<LitStr>,
    /// `conditions_list = "..."`: one of [`CONDITIONS_LISTS`].
    pub conditions_list: Option<LitStr>,
    /// `conditions_without(...)`: the condition fields the schema does not store, each one
    /// of [`CONDITION_FIELDS`].
    pub conditions_without: Vec<Ident>,
    /// `conditions_optional(...)`: the condition fields metav1 requires that the schema
    /// holds but does not require, each one of [`OPTIONAL_CONDITION_FIELDS`].
    pub conditions_optional: Vec<Ident>,
    /// `status_subresource = false` (or `true`, the default): whether the kind's CRD serves a
    /// status subresource; it needs `resource = Kind` (checked when the attributes are read).
    pub status_subresource: Option<LitBool>,
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

/// The keys `#[kondition(...)]` takes, as written.
const KEYS: &[&str] = &[
    "resource",
    "conditions",
    "profile",
    "summary",
    "success_reason",
    "transition_rule",
    "field_owner",
    "crate",
    "observed_generation",
    "conditions_list",
    "conditions_without",
    "conditions_optional",
    "status_subresource",
];

/// Reads every `#[kondition(...)]` attribute; problems go to `errors`.
///
/// One mistake gives one error: a key that fails to read is reported and its value skipped,
/// and the keys after it are still read. A misspelt key or value with a likely meaning
/// (`profle`, `"kstaus"`) is read as that meaning after the error, so that nothing the
/// user declared goes missing and no error follows from the first one.
pub fn parse(attrs: &[Attribute], item: &Ident, errors: &mut Errors) -> KonditionAttrs {
    let mut reader = Reader::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("kondition")) {
        let result = attr.parse_nested_meta(|meta| {
            let Some(key) = Reader::key(&meta, errors) else {
                skip_value(meta.input);
                return Ok(());
            };
            if let Err(error) = reader.read(key, &meta, errors) {
                errors.push(error);
                skip_value(meta.input);
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    reader.finish(item, errors)
}

/// The state of reading the attributes: what was read so far.
#[derive(Default)]
struct Reader {
    parsed: KonditionAttrs,
    /// The types of `conditions(...)`, added after the profile's.
    explicit: Vec<DeclaredCondition>,
    /// Whether `conditions(...)` and `profile` were given, even if they failed to read: a
    /// failed one is its own error, not a missing declaration.
    seen_conditions: bool,
    seen_profile: bool,
    /// Whether `resource` was given, even if it failed to read (so `status_subresource`
    /// gives no second error for it).
    seen_resource: bool,
}

impl Reader {
    /// The key of `meta` as one of [`KEYS`]: a misspelt one is reported with its likely
    /// meaning and read as that; `None` for one with no likely meaning (reported).
    fn key(meta: &ParseNestedMeta, errors: &mut Errors) -> Option<&'static str> {
        let written = meta.path.get_ident().map_or_else(
            || quote::ToTokens::to_token_stream(&meta.path).to_string(),
            |ident| ident.unraw().to_string(),
        );
        if let Some(key) = KEYS.iter().find(|key| **key == written) {
            return Some(key);
        }
        let near = kondition_names::suggest(&written, KEYS);
        let hint = kondition_names::hint(&written, KEYS, Quote::Code, || {
            "expected `resource = Kind`, `conditions(...)`, `profile = \"...\"`, `summary = \"...\"`, `success_reason = \"...\"`, `transition_rule = \"...\"`, `field_owner = \"...\"`, `crate = \"...\"`, `observed_generation = \"...\"`, `conditions_list = \"...\"`, `conditions_without(...)`, `conditions_optional(...)` or `status_subresource = false`".to_owned()
        });
        errors.push(meta.error(format!("unknown kondition attribute `{written}`{hint}")));
        near
    }

    /// Reads the value of `key`; an error leaves the rest of the value to the caller to
    /// skip.
    fn read(&mut self, key: &str, meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<()> {
        let parsed = &mut self.parsed;
        match key {
            "resource" => {
                self.seen_resource = true;
                let path: Path = meta.value()?.parse()?;
                // The kind is named as a type in the code written for it: a path that is no
                // type (a reserved word some syn versions take for a path, such as `try`,
                // which fuzzing found) is this error, not code that does not parse.
                if syn::parse2::<syn::Type>(quote::ToTokens::to_token_stream(&path)).is_err() {
                    return Err(syn::Error::new_spanned(
                        &path,
                        "`resource` names the kind's type, such as `resource = Widget`",
                    ));
                }
                set_once(&mut parsed.resource, path, meta)
            }
            "field_owner" => {
                let owner = string_value(meta, "field_owner")?;
                check_field_owner(&owner)?;
                set_once(&mut parsed.field_owner, owner, meta)
            }
            "profile" => {
                self.seen_profile = true;
                let name = string_value(meta, "profile")?;
                let known = builtin_names();
                let Some(name) = known_value(&name, &known, "profile", errors) else {
                    return Ok(());
                };
                set_once(&mut parsed.profile, name, meta)
            }
            "summary" => {
                let summary = string_value(meta, "summary")?;
                set_once(&mut parsed.summary, summary, meta)
            }
            "success_reason" => {
                let reason = string_value(meta, "success_reason")?;
                set_once(&mut parsed.success_reason, reason, meta)
            }
            "transition_rule" => {
                let rule = string_value(meta, "transition_rule")?;
                let known = TransitionRule::ALL.map(TransitionRule::name);
                let Some(rule) = known_value(&rule, &known, "transition rule", errors) else {
                    return Ok(());
                };
                set_once(
                    &mut parsed.transition_rule,
                    Ident::new(&rule.value(), rule.span()),
                    meta,
                )
            }
            "crate" => {
                let path = string_value(meta, "crate")?;
                let parsed_path = path.parse::<Path>().map_err(|_| {
                    syn::Error::new(
                        path.span(),
                        format!(
                            "`crate = {:?}` is not a path, such as \"my_api::kondition\"",
                            path.value()
                        ),
                    )
                })?;
                set_once(&mut parsed.krate, parsed_path, meta)
            }
            "observed_generation" => {
                let place = string_value(meta, "observed_generation")?;
                let Some(place) = known_value(
                    &place,
                    GENERATION_FIELDS,
                    "place for the observed generation",
                    errors,
                ) else {
                    return Ok(());
                };
                set_once(&mut parsed.observed_generation, place, meta)
            }
            "conditions_list" => {
                let list = string_value(meta, "conditions_list")?;
                let Some(list) = known_value(&list, CONDITIONS_LISTS, "list type", errors) else {
                    return Ok(());
                };
                set_once(&mut parsed.conditions_list, list, meta)
            }
            "status_subresource" => {
                let value = meta.value()?;
                let flag: LitBool = value.parse().map_err(|error| {
                    syn::Error::new(
                        error.span(),
                        "`status_subresource` takes `true` or `false`: `status_subresource = false` for a kind whose CRD serves no status subresource",
                    )
                })?;
                set_once(&mut parsed.status_subresource, flag, meta)
            }
            "conditions_without" => field_list(
                meta,
                CONDITION_FIELDS,
                &mut parsed.conditions_without,
                errors,
            ),
            "conditions_optional" => field_list(
                meta,
                OPTIONAL_CONDITION_FIELDS,
                &mut parsed.conditions_optional,
                errors,
            ),
            _ => {
                // "conditions", the only key left in KEYS.
                if std::mem::replace(&mut self.seen_conditions, true) {
                    return Err(
                        meta.error("duplicate `conditions(...)`; list every condition type in one")
                    );
                }
                let content;
                parenthesized!(content in meta.input);
                let items = Punctuated::<ConditionItem, Token![,]>::parse_terminated(&content)?;
                self.explicit.extend(
                    items
                        .into_iter()
                        .map(|ConditionItem(name, span)| DeclaredCondition { name, span }),
                );
                Ok(())
            }
        }
    }

    /// The attributes read, the profile's condition types first.
    fn finish(mut self, item: &Ident, errors: &mut Errors) -> KonditionAttrs {
        let mut parsed = self.parsed;
        if let Some(profile) = &parsed.profile {
            let types = builtin(&profile.value()).map_or(&[][..], |p| p.condition_types);
            parsed
                .conditions
                .extend(types.iter().map(|name| DeclaredCondition {
                    name: (*name).to_owned(),
                    span: profile.span(),
                }));
        }
        parsed.conditions.append(&mut self.explicit);
        if let (Some(flag), false) = (&parsed.status_subresource, self.seen_resource) {
            errors.push(syn::Error::new(
                flag.span(),
                "`status_subresource` says how the status chokepoint writes the status of the kind named by `resource = Kind`; add `resource = Kind`, or remove it",
            ));
        }
        if parsed.conditions.is_empty() && !self.seen_conditions && !self.seen_profile {
            errors.push(syn::Error::new(
                item.span(),
                "declare the condition types: #[kondition(conditions(Ready, ...))] or #[kondition(profile = \"standard\")]",
            ));
        }
        parsed
    }
}

/// `value` if it is one of `known`; else an error, and the likely meaning of a misspelt
/// value to read in its place (`None` when there is none).
fn known_value(value: &LitStr, known: &[&str], what: &str, errors: &mut Errors) -> Option<LitStr> {
    let written = value.value();
    if known.contains(&written.as_str()) {
        return Some(value.clone());
    }
    let near = kondition_names::suggest(&written, known);
    let hint = kondition_names::hint(&written, known, Quote::Literal, || {
        let quoted: Vec<String> = known
            .iter()
            .map(|name| Quote::Literal.quote(name))
            .collect();
        format!("expected one of {}", quoted.join(", "))
    });
    errors.push(syn::Error::new(
        value.span(),
        format!("unknown {what} {written:?}{hint}"),
    ));
    near.map(|near| LitStr::new(near, value.span()))
}

/// The string value of `key`, or an error that shows its form.
fn string_value(meta: &ParseNestedMeta, key: &str) -> syn::Result<LitStr> {
    let value = meta.value()?;
    value.parse().map_err(|error| {
        syn::Error::new(
            error.span(),
            format!("`{key}` takes a string: `{key} = \"...\"`"),
        )
    })
}

/// Reads a key's list of condition fields (`conditions_without(severity, reason)`) into
/// `slot`, each one of `known`; a field not known goes to `errors`.
fn field_list(
    meta: &ParseNestedMeta,
    known: &[&str],
    slot: &mut Vec<Ident>,
    errors: &mut Errors,
) -> syn::Result<()> {
    if !slot.is_empty() {
        let key = meta
            .path
            .get_ident()
            .map_or_else(String::new, Ident::to_string);
        return Err(meta.error(format!("duplicate `{key}(...)`; list every field in one")));
    }
    let content;
    parenthesized!(content in meta.input);
    let fields = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
    for field in fields {
        let written = LitStr::new(&field.unraw().to_string(), field.span());
        if let Some(known) = known_value(&written, known, "condition field", errors) {
            slot.push(Ident::new(&known.value(), field.span()));
        }
    }
    Ok(())
}

/// Skips what is left of a key's value, up to the comma before the next key.
fn skip_value(input: ParseStream) {
    while !input.is_empty() && !input.peek(Token![,]) {
        if input.parse::<proc_macro2::TokenTree>().is_err() {
            return;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the `#[kondition(...)]` of `input`: what was read, and every error's message.
    fn read(input: syn::DeriveInput) -> (KonditionAttrs, Vec<String>) {
        let mut errors = Errors::default();
        let attrs = parse(&input.attrs, &input.ident, &mut errors);
        let messages = errors
            .finish()
            .err()
            .map(|error| error.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default();
        (attrs, messages)
    }

    fn flag(attrs: &KonditionAttrs) -> Option<bool> {
        attrs.status_subresource.as_ref().map(LitBool::value)
    }

    #[test]
    fn status_subresource_is_read_as_written() {
        let (attrs, errors) = read(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard", status_subresource = false)]
            struct WidgetStatus;
        });
        assert_eq!((flag(&attrs), errors), (Some(false), Vec::<String>::new()));
        let (attrs, errors) = read(syn::parse_quote! {
            #[kondition(status_subresource = true, resource = Widget, profile = "standard")]
            struct WidgetStatus;
        });
        assert_eq!((flag(&attrs), errors), (Some(true), Vec::<String>::new()));
        let (attrs, errors) = read(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard")]
            struct WidgetStatus;
        });
        assert_eq!((flag(&attrs), errors), (None, Vec::<String>::new()));
    }

    #[test]
    fn status_subresource_takes_a_bool() {
        for value in [quote::quote!("false"), quote::quote!(no), quote::quote!(0)] {
            let (attrs, errors) = read(syn::parse_quote! {
                #[kondition(resource = Widget, status_subresource = #value, profile = "standard")]
                struct WidgetStatus;
            });
            assert_eq!(
                errors,
                [
                    "`status_subresource` takes `true` or `false`: `status_subresource = false` for a kind whose CRD serves no status subresource"
                ],
                "{value}"
            );
            // The keys after it are still read.
            assert_eq!(
                attrs.profile.map(|p| p.value()).as_deref(),
                Some("standard")
            );
        }
    }

    #[test]
    fn status_subresource_once() {
        let (attrs, errors) = read(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard", status_subresource = false)]
            #[kondition(status_subresource = false)]
            struct WidgetStatus;
        });
        assert_eq!(errors, ["duplicate `status_subresource`"]);
        assert_eq!(flag(&attrs), Some(false));
    }

    #[test]
    fn status_subresource_needs_a_resource() {
        let (_, errors) = read(syn::parse_quote! {
            #[kondition(profile = "standard", status_subresource = false)]
            struct WidgetStatus;
        });
        assert_eq!(
            errors,
            [
                "`status_subresource` says how the status chokepoint writes the status of the kind named by `resource = Kind`; add `resource = Kind`, or remove it"
            ]
        );
        // A `resource` that failed to read is its own error, and the only one.
        let (_, errors) = read(syn::parse_quote! {
            #[kondition(resource = "Widget", profile = "standard", status_subresource = false)]
            struct WidgetStatus;
        });
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(!errors[0].contains("status_subresource"), "{errors:?}");
    }

    #[test]
    fn status_subresource_is_a_key_the_errors_know() {
        let (attrs, errors) = read(syn::parse_quote! {
            #[kondition(resource = Widget, profile = "standard", status_subresources = false)]
            struct WidgetStatus;
        });
        assert_eq!(
            errors,
            [
                "unknown kondition attribute `status_subresources`; did you mean `status_subresource`?"
            ]
        );
        assert_eq!(flag(&attrs), Some(false), "read as its likely meaning");
        let (_, errors) = read(syn::parse_quote! {
            #[kondition(profile = "standard", owner = "me")]
            struct WidgetStatus;
        });
        assert_eq!(
            errors,
            [
                "unknown kondition attribute `owner`; expected `resource = Kind`, `conditions(...)`, `profile = \"...\"`, `summary = \"...\"`, `success_reason = \"...\"`, `transition_rule = \"...\"`, `field_owner = \"...\"`, `crate = \"...\"`, `observed_generation = \"...\"`, `conditions_list = \"...\"`, `conditions_without(...)`, `conditions_optional(...)` or `status_subresource = false`"
            ]
        );
    }
}
