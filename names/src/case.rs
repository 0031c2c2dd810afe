//! snake_case and PascalCase from any name, through heck.

use heck::{ToSnakeCase, ToUpperCamelCase};

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
    ascii_words(name).to_snake_case()
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
