//! Synthesized values made into ones the API server's schema validation takes, shared by
//! crds_on_server.rs and status_check.rs.

use kondition_testkit::objects::{self, Sample};
use serde_json::{Value, json};

/// A value of each format the API server checks (kube-openapi's format registry) and the
/// synthesizer's "text" is not.
fn text_of_format(format: &str) -> Option<&'static str> {
    Some(match format {
        "uri" => "https://example.com/kondition",
        "email" => "kondition@example.com",
        "hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "cidr" => "192.0.2.0/24",
        "mac" => "00:00:5e:00:53:01",
        "uuid" => "0f8fad5b-d9cb-469f-a165-70867728950e",
        _ => return None,
    })
}

/// Texts tried in order for a string whose pattern the synthesizer's value does not match:
/// a quantity, a size in bytes, a duration, a range, a qualified name, a URL, an ARM id, a
/// commit hash.
const TEXTS: &[&str] = &[
    "1Gi",
    "1GB",
    "30s",
    "[1-5]",
    "example.com/text",
    "https://example.com/kondition",
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/text",
    "0123456789abcdef0123456789abcdef01234567",
    "0",
];

/// `value`, synthesized for `schema` as `sample`, changed where the server's schema
/// validation would refuse it: a format it checks, a pattern, a length, a bound, a multiple,
/// a number of properties. Everything else stays as the synthesizer made it.
pub fn conform(schema: &Value, value: &mut Value, sample: Sample) {
    match value {
        Value::String(text) => {
            let fits = |t: &str| {
                let length = t.chars().count() as u64;
                schema["minLength"].as_u64().is_none_or(|n| length >= n)
                    && schema["maxLength"].as_u64().is_none_or(|n| length <= n)
                    && schema["pattern"].as_str().is_none_or(|p| {
                        regex::Regex::new(p)
                            .unwrap_or_else(|e| panic!("pattern {p}: {e}"))
                            .is_match(t)
                    })
            };
            let candidates: Vec<&str> = match schema["format"].as_str().and_then(text_of_format) {
                Some(text) => vec![text],
                None => std::iter::once(text.as_str())
                    .chain(TEXTS.iter().copied())
                    .collect(),
            };
            let fitting = candidates
                .into_iter()
                .find(|t| fits(t))
                .unwrap_or_else(|| panic!("no text of TEXTS fits {schema}"))
                .to_owned();
            *text = fitting;
        }
        Value::Number(number) => {
            let n = number.as_f64().expect("a number");
            let (low, high) = (schema["minimum"].as_f64(), schema["maximum"].as_f64());
            if schema["type"] == "integer" {
                let mut n = n as i64;
                if let Some(low) = low.filter(|&l| (n as f64) < l) {
                    n = low.ceil() as i64;
                }
                if let Some(high) = high.filter(|&h| (n as f64) > h) {
                    n = high.floor() as i64;
                }
                if let Some(step) = schema["multipleOf"].as_i64().filter(|&m| n % m != 0) {
                    n += step - n.rem_euclid(step);
                }
                *value = json!(n);
            } else if low.is_some_and(|l| n < l) || high.is_some_and(|h| n > h) {
                // Not a whole number: one would come back as an integer (`1`, not `1.0`).
                *value = json!(match (low, high) {
                    (Some(l), Some(h)) => (l + h) / 2.0,
                    (Some(l), None) => l + 0.5,
                    (None, h) => h.expect("a bound") - 0.5,
                });
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                conform(&schema["items"], item, sample);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if let Some(property) = schema["properties"].get(key) {
                    conform(property, item, sample);
                } else if schema["additionalProperties"].is_object() {
                    conform(&schema["additionalProperties"], item, sample);
                }
            }
            if let Some(min) = schema["minProperties"].as_u64() {
                let properties = schema["properties"].as_object().into_iter().flatten();
                for (name, property) in properties {
                    if map.len() as u64 >= min {
                        break;
                    }
                    if !map.contains_key(name) {
                        let mut added = objects::value(property, sample);
                        conform(property, &mut added, sample);
                        map.insert(name.clone(), added);
                    }
                }
                assert!(map.len() as u64 >= min, "{min} properties: {schema}");
            }
            if let Some(max) = schema["maxProperties"].as_u64() {
                let required = schema["required"].as_array().cloned().unwrap_or_default();
                while map.len() as u64 > max {
                    let last = map
                        .keys()
                        .rev()
                        .find(|k| !required.contains(&json!(k)))
                        .expect("an optional property")
                        .clone();
                    map.remove(&last);
                }
            }
        }
        _ => {}
    }
}
