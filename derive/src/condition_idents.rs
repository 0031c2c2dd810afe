//! Rust identifiers made from condition types (`SubResourcesReady` gives
//! `sub_resources_ready` and `SubResourcesReady`), by the naming rules the generator uses too
//! (`kondition-names`).

/// The snake_case method stem for a condition type (`sub_resources_ready`); `None` if the
/// type has no ASCII letter or digit at all.
pub fn snake(condition_type: &str) -> Option<String> {
    let mut name = kondition_names::snake_case(condition_type);
    if name.is_empty() {
        return None;
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "type_");
    }
    Some(name)
}

/// The PascalCase enum variant for a condition type (`SubResourcesReady`).
pub fn pascal(condition_type: &str) -> Option<String> {
    let mut name = kondition_names::pascal_case(condition_type);
    if name.is_empty() {
        return None;
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "Type");
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn condition_types_become_method_stems_and_variants() {
        for (condition_type, snake_name, pascal_name) in [
            ("Ready", "ready", "Ready"),
            (
                "SubResourcesReady",
                "sub_resources_ready",
                "SubResourcesReady",
            ),
            (
                "example.com/HTTPRouteReady",
                "example_com_http_route_ready",
                "ExampleComHttpRouteReady",
            ),
            ("OAuth2Ready", "o_auth2_ready", "OAuth2Ready"),
            ("v1beta1Served", "v1beta1_served", "V1beta1Served"),
            ("2FAEnabled", "type_2fa_enabled", "Type2faEnabled"),
        ] {
            assert_eq!(snake(condition_type).as_deref(), Some(snake_name));
            assert_eq!(pascal(condition_type).as_deref(), Some(pascal_name));
        }
        assert_eq!(snake("--"), None);
        assert_eq!(
            kondition_names::ident("type", Span::call_site()).to_string(),
            "r#type"
        );
        assert_eq!(
            kondition_names::ident("self", Span::call_site()).to_string(),
            "self_"
        );
    }
}
