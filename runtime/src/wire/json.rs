//! JSON equality as the API server compares values (an `enum`, a set's items), in one place
//! for kondition: the status checker uses it, and so do the generator (schemas) and the
//! tests (objects). Numbers compare by value (`2` equals `2.0`, as the API server and
//! serde_json read them), integers exactly: two integers compared as `f64` would be equal
//! whenever they round to the same double, and above 2^53 `9007199254740993` would equal
//! `9007199254740992`, which the API server (reading integers as `int64`) tells apart.
//! Objects compare by their keys, whatever their order; arrays item by item.

use serde_json::{Number, Value as Json};

/// Whether `a` and `b` are the same JSON value (see the [module](self)).
pub fn same(a: &Json, b: &Json) -> bool {
    first_difference(a, b).is_none()
}

/// The JSON path of the first place `a` and `b` differ (`.spec.ports[0].port`, or `""` for
/// the values themselves), if any.
pub fn first_difference(a: &Json, b: &Json) -> Option<String> {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => (!same_number(x, y)).then(String::new),
        (Json::Object(x), Json::Object(y)) => {
            // Each value compared once: visiting the keys of both sides would compare every
            // shared value twice, at every level, 2^depth times in all (a CRD's schema is
            // dozens of objects deep).
            for (key, a) in x {
                let Some(b) = y.get(key) else {
                    return Some(format!(".{key}"));
                };
                if let Some(path) = first_difference(a, b) {
                    return Some(format!(".{key}{path}"));
                }
            }
            y.keys()
                .find(|key| !x.contains_key(*key))
                .map(|key| format!(".{key}"))
        }
        (Json::Array(x), Json::Array(y)) => {
            if x.len() != y.len() {
                return Some(String::new());
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (a, b))| first_difference(a, b).map(|p| format!("[{i}]{p}")))
        }
        _ => (a != b).then(String::new),
    }
}

/// Two numbers by value: two integers exactly, a float and another number as `f64`.
pub fn same_number(x: &Number, y: &Number) -> bool {
    let integer = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (integer(x), integer(y)) {
        (Some(x), Some(y)) => x == y,
        _ => x.as_f64() == y.as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_compare_exactly_and_floats_by_value() {
        let big = json!(9_007_199_254_740_993_u64);
        let rounded = json!(9_007_199_254_740_992_u64);
        assert!(!same(&big, &rounded), "2^53 + 1 is not 2^53");
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same(&json!(-1), &json!(u64::MAX)));
        assert!(same(&json!(2), &json!(2.0)));
        assert!(same(&json!(1.5), &json!(1.5)));
        assert!(!same(&json!(1.5), &json!(2)));
    }

    /// Each value is compared once: a value 200 objects deep compares in 200 steps (it
    /// compared in 2^200 before, visiting each shared key from both sides).
    #[test]
    fn deep_values_compare_once_per_level() {
        let (mut a, mut b) = (json!(1), json!(2));
        for _ in 0..200 {
            a = json!({"next": a, "same": 0});
            b = json!({"next": b, "same": 0});
        }
        assert!(same(&a, &a.clone()));
        let path = first_difference(&a, &b).expect("a difference");
        assert_eq!(path, ".next".repeat(200));
    }

    #[test]
    fn differences_have_paths() {
        let a = json!({"spec": {"ports": [{"port": 80}], "name": "a"}});
        let b = json!({"spec": {"name": "a", "ports": [{"port": 81}]}});
        assert_eq!(
            first_difference(&a, &b).as_deref(),
            Some(".spec.ports[0].port")
        );
        assert_eq!(first_difference(&a, &a), None);
        let c = json!({"spec": {"ports": [], "name": "a"}});
        assert_eq!(first_difference(&a, &c).as_deref(), Some(".spec.ports"));
        assert_eq!(
            first_difference(&json!({"x": 1}), &json!({})).as_deref(),
            Some(".x")
        );
    }
}
