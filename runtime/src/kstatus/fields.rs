//! Reading an object's fields the way kstatus reads them: a field that is missing, or of
//! another JSON type than expected, takes the rule's default. Counts are integers only
//! (`4.0` is not a count), as in an unstructured object decoded from JSON.

use serde_json::Value;

/// An object given as JSON.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fields<'a>(&'a Value);

/// One entry of `status.conditions`; fields that are not text read as empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FoundCondition<'a> {
    pub type_: &'a str,
    pub status: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
}

impl<'a> Fields<'a> {
    pub fn new(object: &'a Value) -> Self {
        Self(object)
    }

    /// The value at `path`, if every step is an object holding the next key.
    pub fn get(&self, path: &[&str]) -> Option<&'a Value> {
        path.iter().try_fold(self.0, |value, key| value.get(key))
    }

    /// An integer field, `None` when missing or not an integer.
    pub fn int_opt(&self, path: &[&str]) -> Option<i64> {
        self.get(path).and_then(Value::as_i64)
    }

    /// An integer field, `default` when missing or not an integer.
    pub fn int(&self, path: &[&str], default: i64) -> i64 {
        self.int_opt(path).unwrap_or(default)
    }

    /// A text field, `default` when missing or not text.
    pub fn string(&self, path: &[&str], default: &'a str) -> &'a str {
        self.get(path).and_then(Value::as_str).unwrap_or(default)
    }

    /// Whether `metadata.deletionTimestamp` is set (to non-empty text).
    pub fn is_deleting(&self) -> bool {
        !self
            .string(&["metadata", "deletionTimestamp"], "")
            .is_empty()
    }

    /// The API group of `apiVersion`: `apps` for `apps/v1`, empty for the core `v1`.
    pub fn group(&self) -> &'a str {
        let api_version = self.string(&["apiVersion"], "");
        api_version
            .split_once('/')
            .map_or("", |(group, _version)| group)
    }

    /// `status.conditions`, in list order; entries that are not objects are skipped.
    pub fn conditions(&self) -> impl Iterator<Item = FoundCondition<'a>> + use<'a> {
        self.get(&["status", "conditions"])
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|c| c.is_object())
            .map(|c| {
                let text = |key: &str| c.get(key).and_then(Value::as_str).unwrap_or_default();
                FoundCondition {
                    type_: text("type"),
                    status: text("status"),
                    reason: text("reason"),
                    message: text("message"),
                }
            })
    }
}

/// The first condition of type `type_` with status `status`.
pub(super) fn find<'c, 'a>(
    conditions: &'c [FoundCondition<'a>],
    type_: &str,
    status: &str,
) -> Option<&'c FoundCondition<'a>> {
    conditions
        .iter()
        .find(|c| c.type_ == type_ && c.status == status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_of_another_type_take_the_default() {
        let object = json!({"spec": {"replicas": "3", "paused": "yes", "type": 4},
                            "status": {"replicas": 2.0, "ready": 2}});
        let fields = Fields::new(&object);
        assert_eq!(fields.int(&["spec", "replicas"], 1), 1);
        assert_eq!(fields.int(&["status", "replicas"], 0), 0);
        assert_eq!(fields.int(&["status", "ready"], 0), 2);
        assert_eq!(fields.string(&["spec", "type"], "ClusterIP"), "ClusterIP");
        assert_eq!(fields.int(&["spec", "replicas", "deeper"], 7), 7);
    }

    #[test]
    fn groups_come_from_the_api_version() {
        for (api_version, group) in [
            (json!("apps/v1"), "apps"),
            (json!("v1"), ""),
            (json!("apiextensions.k8s.io/v1"), "apiextensions.k8s.io"),
            (json!(1), ""),
        ] {
            let object = json!({ "apiVersion": api_version });
            assert_eq!(Fields::new(&object).group(), group, "{object}");
        }
    }

    #[test]
    fn conditions_of_odd_shapes_read_as_empty_text() {
        let object = json!({"status": {"conditions": [
            "not an object",
            {"type": "Ready", "status": true, "message": "m"},
        ]}});
        let conditions: Vec<_> = Fields::new(&object).conditions().collect();
        assert_eq!(
            conditions,
            [FoundCondition {
                type_: "Ready",
                status: "",
                reason: "",
                message: "m"
            }]
        );
        let none = json!({"status": {"conditions": {"type": "Ready"}}});
        assert_eq!(Fields::new(&none).conditions().count(), 0);
    }
}
