//! Assertions for an operator's own tests: conditions and statuses compared the way a test
//! means them, as Cluster API's condition matchers do (`util/conditions`' `MatchCondition`
//! and `MatchConditions`, with their `IgnoreLastTransitionTime` option).
//!
//! A test rarely knows when a condition last changed, so [`Match`] ignores
//! `lastTransitionTime` unless asked to compare it, and can ignore messages too (a message
//! quoting an error from outside). Conditions are matched by `type`, in any order (the list
//! is a map keyed by type); every other field must be equal. A failure names each
//! difference, field by field, or shows a status as a diff of its JSON:
//!
//! With the feature `test-double`, `double` runs a whole reconcile against an in-memory
//! stand-in for the API server and records what it sent (see that module for what it models).
//!
//! ```
//! use kondition::testing::Match;
//! use kondition::{Condition, ConditionStatus};
//!
//! let actual = [Condition::new("Ready", ConditionStatus::False, "Reconciling")
//!     .with_message("waiting for the volume")];
//! let expected = [Condition::new("Ready", ConditionStatus::True, "Succeeded")];
//! let mismatch = Match::new().conditions(&actual, &expected).expect_err("a mismatch");
//! assert_eq!(
//!     mismatch.to_string(),
//!     "conditions differ (- expected, + actual; lastTransitionTime ignored):\n\
//!      Ready:\n\
//!      - status: True\n\
//!      + status: False\n\
//!      - reason: Succeeded\n\
//!      + reason: Reconciling\n\
//!      - message: \"\"\n\
//!      + message: \"waiting for the volume\""
//! );
//! // Ignoring messages and the time, only status and reason are left to differ.
//! let later = [Condition::new("Ready", ConditionStatus::False, "Reconciling")];
//! Match::new().ignoring_messages().assert_conditions(&actual, &later);
//! ```

#[cfg(feature = "test-double")]
pub mod double;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::condition::Condition;

/// What a comparison looks at. [`Match::new`] (the default) compares every field of a
/// condition but `lastTransitionTime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    last_transition_time: bool,
    messages: bool,
}

impl Default for Match {
    fn default() -> Self {
        Self::new()
    }
}

impl Match {
    /// Compares everything but `lastTransitionTime`.
    pub const fn new() -> Self {
        Self {
            last_transition_time: false,
            messages: true,
        }
    }

    /// Compares `lastTransitionTime` too (Cluster API's matchers' default).
    #[must_use]
    pub const fn with_last_transition_time(mut self) -> Self {
        self.last_transition_time = true;
        self
    }

    /// Ignores conditions' messages as well.
    #[must_use]
    pub const fn ignoring_messages(mut self) -> Self {
        self.messages = false;
        self
    }

    /// Whether `actual` holds the conditions of `expected`, no more and no fewer, matched by
    /// type in any order.
    pub fn conditions(&self, actual: &[Condition], expected: &[Condition]) -> Result<(), Mismatch> {
        let mut lines = Vec::new();
        for duplicate in duplicates(actual) {
            lines.push(format!("+ {duplicate}: appears more than once"));
        }
        for want in expected {
            match actual.iter().find(|c| c.type_ == want.type_) {
                Some(got) => self.differences(got, want, &mut lines),
                None => lines.push(format!("- {}: missing", want.type_)),
            }
        }
        for got in actual {
            if !expected.iter().any(|c| c.type_ == got.type_) {
                lines.push(format!("+ {}: not expected ({})", got.type_, summary(got)));
            }
        }
        self.result("conditions differ", lines)
    }

    /// Whether `actual` is there and matches `expected`.
    pub fn condition(
        &self,
        actual: Option<&Condition>,
        expected: &Condition,
    ) -> Result<(), Mismatch> {
        let mut lines = Vec::new();
        match actual {
            Some(got) if got.type_ != expected.type_ => {
                lines.push(format!("- type: {}", expected.type_));
                lines.push(format!("+ type: {}", got.type_));
            }
            Some(got) => self.differences(got, expected, &mut lines),
            None => lines.push(format!("- {}: missing", expected.type_)),
        }
        self.result("the condition differs", lines)
    }

    /// Whether two statuses (or any two values that serialize, such as whole objects) are
    /// equal, but for what this match ignores in every `conditions` list they hold, at any
    /// depth; such a list is compared in any order (by type). A failure shows the diff of
    /// the two as indented JSON.
    pub fn status<S: Serialize + ?Sized>(&self, actual: &S, expected: &S) -> Result<(), Mismatch> {
        let (actual, expected) =
            match (serde_json::to_value(actual), serde_json::to_value(expected)) {
                (Ok(actual), Ok(expected)) => (self.normalized(actual), self.normalized(expected)),
                (Err(error), _) | (_, Err(error)) => {
                    return self.result(
                        "the statuses differ",
                        vec![format!("  cannot be serialized: {error}")],
                    );
                }
            };
        if actual == expected {
            return Ok(());
        }
        let pretty = |value: &Value| serde_json::to_string_pretty(value).unwrap_or_default();
        let (actual, expected) = (pretty(&actual), pretty(&expected));
        let actual: Vec<&str> = actual.lines().collect();
        let expected: Vec<&str> = expected.lines().collect();
        self.result("the statuses differ", line_diff(&expected, &actual))
    }

    /// Panics with the differences unless [`conditions`](Self::conditions) matches.
    #[track_caller]
    pub fn assert_conditions(&self, actual: &[Condition], expected: &[Condition]) {
        if let Err(mismatch) = self.conditions(actual, expected) {
            panic!("{mismatch}");
        }
    }

    /// Panics with the differences unless [`condition`](Self::condition) matches.
    #[track_caller]
    pub fn assert_condition(&self, actual: Option<&Condition>, expected: &Condition) {
        if let Err(mismatch) = self.condition(actual, expected) {
            panic!("{mismatch}");
        }
    }

    /// Panics with the diff unless [`status`](Self::status) matches.
    #[track_caller]
    pub fn assert_status<S: Serialize + ?Sized>(&self, actual: &S, expected: &S) {
        if let Err(mismatch) = self.status(actual, expected) {
            panic!("{mismatch}");
        }
    }

    /// The lines naming each field of `got` that differs from `want`, under the type.
    fn differences(&self, got: &Condition, want: &Condition, lines: &mut Vec<String>) {
        let mut fields = vec![
            ("status", want.status.to_string(), got.status.to_string()),
            (
                "severity",
                want.severity.to_string(),
                got.severity.to_string(),
            ),
            ("reason", want.reason.clone(), got.reason.clone()),
        ];
        if self.messages {
            fields.push((
                "message",
                format!("{:?}", want.message),
                format!("{:?}", got.message),
            ));
        }
        let generation = |g: Option<i64>| g.map_or_else(|| "absent".to_owned(), |g| g.to_string());
        fields.push((
            "observedGeneration",
            generation(want.observed_generation),
            generation(got.observed_generation),
        ));
        if self.last_transition_time {
            fields.push((
                "lastTransitionTime",
                want.last_transition_time.0.to_string(),
                got.last_transition_time.0.to_string(),
            ));
        }
        let differing: Vec<_> = fields
            .into_iter()
            .filter(|(_, want, got)| want != got)
            .collect();
        if differing.is_empty() {
            return;
        }
        lines.push(format!("{}:", want.type_));
        for (field, want, got) in differing {
            lines.push(format!("- {field}: {want}"));
            lines.push(format!("+ {field}: {got}"));
        }
    }

    fn result(&self, what: &str, lines: Vec<String>) -> Result<(), Mismatch> {
        if lines.is_empty() {
            return Ok(());
        }
        let ignored = match (self.last_transition_time, self.messages) {
            (true, true) => "",
            (false, true) => "; lastTransitionTime ignored",
            (true, false) => "; messages ignored",
            (false, false) => "; lastTransitionTime and messages ignored",
        };
        Err(Mismatch {
            text: format!(
                "{what} (- expected, + actual{ignored}):\n{}",
                lines.join("\n")
            ),
        })
    }

    /// `value` with what this match ignores taken out of every conditions list, and each
    /// such list in type order.
    fn normalized(&self, mut value: Value) -> Value {
        self.normalize(&mut value);
        value
    }

    fn normalize(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    if key == "conditions"
                        && let Value::Array(conditions) = child
                        && conditions
                            .iter()
                            .all(|c| c.get("type").is_some_and(Value::is_string))
                    {
                        for condition in conditions.iter_mut() {
                            if let Value::Object(fields) = condition {
                                if !self.last_transition_time {
                                    fields.remove("lastTransitionTime");
                                }
                                if !self.messages {
                                    fields.remove("message");
                                }
                            }
                        }
                        conditions.sort_by(|a, b| {
                            let type_ =
                                |c: &Value| c["type"].as_str().unwrap_or_default().to_owned();
                            type_(a).cmp(&type_(b))
                        });
                    } else {
                        self.normalize(child);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.normalize(item)),
            _ => {}
        }
    }
}

/// What a comparison found different, as the text a failing test prints.
#[derive(Clone, PartialEq, Eq)]
pub struct Mismatch {
    text: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The same text as `Display`, so that `.unwrap()` on a comparison prints the differences
/// readably.
impl fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.text)
    }
}

impl std::error::Error for Mismatch {}

/// The types that appear more than once in `conditions`, each once, in list order.
fn duplicates(conditions: &[Condition]) -> Vec<&str> {
    let mut seen = Vec::new();
    let mut twice = Vec::new();
    for condition in conditions {
        let type_ = condition.type_.as_str();
        if seen.contains(&type_) {
            if !twice.contains(&type_) {
                twice.push(type_);
            }
        } else {
            seen.push(type_);
        }
    }
    twice
}

/// A condition in one line, for one that was not expected at all.
fn summary(condition: &Condition) -> String {
    format!("status {}, reason {}", condition.status, condition.reason)
}

/// The longest statuses compared line by line; longer ones are shown whole, one after the
/// other (a table of this size per comparison stays small).
const DIFF_LINES: usize = 2_000;

/// A line diff of `expected` against `actual`: `- ` lines only expected has, `+ ` lines only
/// actual has, `  ` lines both have, from the longest common subsequence.
fn line_diff(expected: &[&str], actual: &[&str]) -> Vec<String> {
    if expected.len() > DIFF_LINES || actual.len() > DIFF_LINES {
        let mut lines: Vec<String> = expected.iter().map(|l| format!("- {l}")).collect();
        lines.extend(actual.iter().map(|l| format!("+ {l}")));
        return lines;
    }
    // common[i][j]: the longest common subsequence of expected[i..] and actual[j..].
    let mut common = vec![vec![0usize; actual.len() + 1]; expected.len() + 1];
    for i in (0..expected.len()).rev() {
        for j in (0..actual.len()).rev() {
            common[i][j] = if expected[i] == actual[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut lines = Vec::new();
    while i < expected.len() || j < actual.len() {
        if i < expected.len() && j < actual.len() && expected[i] == actual[j] {
            lines.push(format!("  {}", expected[i]));
            i += 1;
            j += 1;
        } else if i < expected.len() && (j == actual.len() || common[i + 1][j] >= common[i][j + 1])
        {
            lines.push(format!("- {}", expected[i]));
            i += 1;
        } else {
            lines.push(format!("+ {}", actual[j]));
            j += 1;
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condition::{ConditionStatus, Severity};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use serde_json::json;

    fn at(text: &str) -> Time {
        Time(text.parse().expect("a time"))
    }

    fn ready(status: ConditionStatus, reason: &str) -> Condition {
        Condition::new("Ready", status, reason).at(at("2024-01-01T00:00:00Z"))
    }

    #[test]
    fn the_transition_time_is_ignored_unless_asked_for() {
        let actual = [ready(ConditionStatus::True, "Succeeded").at(at("2024-05-05T00:00:00Z"))];
        let expected = [ready(ConditionStatus::True, "Succeeded")];
        Match::new().assert_conditions(&actual, &expected);
        let mismatch = Match::new()
            .with_last_transition_time()
            .conditions(&actual, &expected)
            .expect_err("a mismatch");
        assert_eq!(
            mismatch.to_string(),
            "conditions differ (- expected, + actual):\nReady:\n\
             - lastTransitionTime: 2024-01-01T00:00:00Z\n\
             + lastTransitionTime: 2024-05-05T00:00:00Z"
        );
    }

    #[test]
    fn conditions_match_by_type_in_any_order_and_name_what_is_missing_or_extra() {
        let synced = Condition::new("Synced", ConditionStatus::True, "Done");
        let stalled = Condition::new("Stalled", ConditionStatus::False, "Fine");
        let actual = [synced.clone(), ready(ConditionStatus::True, "Succeeded")];
        let expected = [ready(ConditionStatus::True, "Succeeded"), synced.clone()];
        Match::new().assert_conditions(&actual, &expected);
        let mismatch = Match::new()
            .conditions(
                &[synced.clone(), stalled.clone(), stalled],
                &[synced, ready(ConditionStatus::True, "S")],
            )
            .expect_err("a mismatch");
        assert_eq!(
            mismatch.to_string(),
            "conditions differ (- expected, + actual; lastTransitionTime ignored):\n\
             + Stalled: appears more than once\n\
             - Ready: missing\n\
             + Stalled: not expected (status False, reason Fine)\n\
             + Stalled: not expected (status False, reason Fine)"
        );
    }

    #[test]
    fn every_other_field_counts_and_messages_can_be_ignored() {
        let want = ready(ConditionStatus::False, "Failed")
            .with_severity(Severity::Error)
            .with_observed_generation(2)
            .with_message("quota");
        let got = ready(ConditionStatus::False, "Failed")
            .with_severity(Severity::Warning)
            .with_message("quota exceeded");
        let mismatch = Match::new()
            .condition(Some(&got), &want)
            .expect_err("a mismatch");
        assert_eq!(
            mismatch.to_string(),
            "the condition differs (- expected, + actual; lastTransitionTime ignored):\nReady:\n\
             - severity: Error\n+ severity: Warning\n\
             - message: \"quota\"\n+ message: \"quota exceeded\"\n\
             - observedGeneration: 2\n+ observedGeneration: absent"
        );
        let ignoring = Match::new().ignoring_messages();
        let mismatch = ignoring
            .condition(Some(&got), &want)
            .expect_err("a mismatch");
        assert!(!mismatch.to_string().contains("quota"), "{mismatch}");
        ignoring.assert_condition(
            Some(
                &got.clone()
                    .with_severity(Severity::Error)
                    .with_observed_generation(2),
            ),
            &want,
        );
        assert_eq!(
            Match::new()
                .condition(None, &want)
                .expect_err("a mismatch")
                .to_string(),
            "the condition differs (- expected, + actual; lastTransitionTime ignored):\n- Ready: missing"
        );
    }

    #[test]
    fn statuses_compare_as_json_with_conditions_normalized() {
        let expected = json!({"observedGeneration": 2, "conditions": [
            {"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
             "lastTransitionTime": "2024-01-01T00:00:00Z"},
            {"type": "Available", "status": "True", "reason": "Up", "message": "",
             "lastTransitionTime": "2024-01-01T00:00:00Z"},
        ]});
        let mut actual = json!({"observedGeneration": 2, "conditions": [
            {"type": "Available", "status": "True", "reason": "Up", "message": "",
             "lastTransitionTime": "2025-01-01T00:00:00Z"},
            {"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
             "lastTransitionTime": "2025-01-01T00:00:00Z"},
        ]});
        Match::new().assert_status(&actual, &expected);
        actual["observedGeneration"] = json!(1);
        let mismatch = Match::new()
            .status(&actual, &expected)
            .expect_err("a mismatch");
        let text = mismatch.to_string();
        // The keys' order (and so a trailing comma) depends on serde_json's features: read
        // the changed pair of lines without it.
        let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(',')).collect();
        assert!(
            lines.windows(2).any(|pair| pair
                == [
                    "-   \"observedGeneration\": 2",
                    "+   \"observedGeneration\": 1"
                ]),
            "{text}"
        );
        assert!(
            text.starts_with(
                "the statuses differ (- expected, + actual; lastTransitionTime ignored):\n  {"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_line_diff_keeps_common_lines() {
        assert_eq!(
            line_diff(&["a", "b", "c"], &["a", "x", "c", "d"]),
            ["  a", "- b", "+ x", "  c", "+ d"]
        );
    }
}
