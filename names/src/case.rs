//! snake_case and PascalCase from any name: heck's word rules, snake_case written here on
//! bytes (the generator converts every field name of every struct: through heck's
//! `Display` it cost about 4,800 instructions a name, a tenth of that here).

use heck::ToUpperCamelCase;

/// The name with everything but ASCII letters and digits made a word break, so that the
/// words heck finds are ASCII (`x-forwarded-for` and `ü-name` alike).
fn ascii_words(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// `proxyURL` gives `proxy_url`, `HTTPRoute2Ready` `http_route2_ready`, `v1beta1`
/// `v1beta1`. Empty when the name has no ASCII letter or digit; it may start with a digit
/// (`1st`): callers decide what such a name becomes.
pub fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    // A byte that is not an ASCII letter or digit (every byte of a non-ASCII character is
    // one) breaks words, as `ascii_words` does for `pascal_case`.
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        for part in case_words(word.as_bytes()) {
            if !snake.is_empty() {
                snake.push('_');
            }
            snake.extend(part.iter().map(|b| char::from(b.to_ascii_lowercase())));
        }
    }
    snake
}

/// The case of the last letter seen in a word since its start or last break.
#[derive(Clone, Copy, PartialEq)]
enum LastLetter {
    None,
    Lower,
    Upper,
}

/// The words of a run of ASCII letters and digits, split where heck splits them: after a
/// lowercase letter (or digits after one) followed by an uppercase letter (`proxy|URL`),
/// and before the last of two or more uppercase letters followed by a lowercase one
/// (`HTTP|Route`). Digits take the case of the letter before them (`k8s|Version`, `MIG1g`).
fn case_words(word: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    let mut last = LastLetter::None;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < word.len() {
            let c = word[i];
            let Some(&next) = word.get(i + 1) else {
                i += 1;
                return Some(&word[start..]);
            };
            let with_c = if c.is_ascii_lowercase() {
                LastLetter::Lower
            } else if c.is_ascii_uppercase() {
                LastLetter::Upper
            } else {
                last
            };
            i += 1;
            if with_c == LastLetter::Lower && next.is_ascii_uppercase() {
                let part = &word[start..i];
                (start, last) = (i, LastLetter::None);
                return Some(part);
            } else if last == LastLetter::Upper
                && c.is_ascii_uppercase()
                && next.is_ascii_lowercase()
            {
                let part = &word[start..i - 1];
                (start, last) = (i - 1, LastLetter::None);
                return Some(part);
            }
            last = with_c;
        }
        None
    })
}

/// `security-group_rule` gives `SecurityGroupRule`, `IPv6` `IPv6`, `OAuth2` `OAuth2`,
/// `HTTPRoute` `HttpRoute`. Empty when the name has no ASCII letter or digit; it may start
/// with a digit.
pub fn pascal_case(name: &str) -> String {
    ascii_words(name).to_upper_camel_case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use heck::ToSnakeCase;
    use proptest::prelude::*;

    /// heck's snake_case of the same words: what `snake_case` must give.
    fn heck_snake_case(name: &str) -> String {
        ascii_words(name).to_snake_case()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Names of runs of case changes, digits, separators and non-ASCII letters.
        #[test]
        fn snake_case_is_hecks(name in "[a-zA-Z0-9_\\-. $/üÉΣß]{0,24}") {
            prop_assert_eq!(snake_case(&name), heck_snake_case(&name));
        }

        /// Any text at all.
        #[test]
        fn snake_case_is_hecks_on_any_text(name in any::<String>()) {
            prop_assert_eq!(snake_case(&name), heck_snake_case(&name));
        }
    }

    /// Every word of the corpus's CRDs (property names, kinds, groups, versions, enum
    /// values and the words of their descriptions).
    #[test]
    fn snake_case_is_hecks_on_the_corpus() {
        let mut folders = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")];
        let mut names = 0;
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).expect("corpus folder") {
                let path = entry.expect("corpus entry").path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for name in text.split(|c: char| c.is_whitespace() || c == ':' || c == '"') {
                    assert_eq!(snake_case(name), heck_snake_case(name), "{name:?}");
                    names += 1;
                }
            }
        }
        assert!(names > 100_000, "{names} words");
    }

    #[test]
    fn the_hard_cases() {
        for (name, snake, pascal) in [
            ("v1beta1", "v1beta1", "V1beta1"),
            ("IPv6", "i_pv6", "IPv6"),
            ("ipv6Address", "ipv6_address", "Ipv6Address"),
            ("HTTPRoute", "http_route", "HttpRoute"),
            ("HTTPRoute2Ready", "http_route2_ready", "HttpRoute2Ready"),
            ("OAuth2", "o_auth2", "OAuth2"),
            ("oauth2ClientID", "oauth2_client_id", "Oauth2ClientId"),
            ("proxyURL", "proxy_url", "ProxyUrl"),
            ("proxyUrl", "proxy_url", "ProxyUrl"),
            ("podIPs", "pod_i_ps", "PodIPs"),
            ("TLSConfig", "tls_config", "TlsConfig"),
            ("URL", "url", "Url"),
            ("k8sVersion", "k8s_version", "K8sVersion"),
            ("s3Bucket", "s3_bucket", "S3Bucket"),
            ("MIG1g", "mig1g", "Mig1g"),
            ("mirror_percent", "mirror_percent", "MirrorPercent"),
            ("x-forwarded-for", "x_forwarded_for", "XForwardedFor"),
            (
                "security-group_rule",
                "security_group_rule",
                "SecurityGroupRule",
            ),
            ("$ref", "ref", "Ref"),
            ("a__b", "a_b", "AB"),
            ("1st", "1st", "1st"),
            ("ü-name", "name", "Name"),
            ("=~", "", ""),
            ("", "", ""),
        ] {
            assert_eq!(snake_case(name), snake, "snake_case({name:?})");
            assert_eq!(pascal_case(name), pascal, "pascal_case({name:?})");
        }
    }
}
