//! The API server's rules for conditions, checked before anything is sent.
//!
//! These mirror the validation metav1.Condition carries in every CRD schema (and so what
//! the API server enforces on a custom resource's status): the `type` and `reason` patterns
//! and lengths, the message length, `observedGeneration >= 0`, and types unique in a list.
//! The type and reason rules are `kondition_names::api_rules`, re-exported here: the derive
//! and the generator check declared types and reasons by the same code.

use std::fmt;

pub use kondition_names::api_rules::{
    MAX_REASON_LEN, MAX_TYPE_LEN, REASON_PATTERN, TYPE_PATTERN, is_valid_reason, is_valid_type,
};
use kondition_names::api_rules::{matches_reason_pattern, matches_type_pattern};

/// The longest `message` the API server accepts; kondition keeps messages within this many
/// bytes (and so within as many characters).
pub const MAX_MESSAGE_BYTES: usize = 32768;
/// Appended to a message that was cut to fit [`MAX_MESSAGE_BYTES`].
pub const TRUNCATION_MARKER: &str = " ... [truncated]";

/// Cuts `message` to at most [`MAX_MESSAGE_BYTES`] bytes at a UTF-8 boundary, ending it with
/// [`TRUNCATION_MARKER`]. Returns whether it was cut. Messages are never rejected for length.
pub fn truncate_message(message: &mut String) -> bool {
    truncate_to(message, MAX_MESSAGE_BYTES)
}

/// Cuts `text` to at most `max` bytes (`max` longer than the marker) at a UTF-8 boundary,
/// ending it with [`TRUNCATION_MARKER`]. Returns whether it was cut.
pub(crate) fn truncate_to(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut cut = max.saturating_sub(TRUNCATION_MARKER.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(TRUNCATION_MARKER);
    true
}

/// Turns any text (a cloud provider's error code, say) into a valid reason.
///
/// Characters a reason may not hold end a word, and the next word starts upper-case
/// (`invalid-parameter.value` becomes `InvalidParameterValue`); a reason that would not start
/// with a letter gets the prefix `Code` (`404` becomes `Code404`); trailing `,` and `:` are
/// dropped; what is left is cut to [`MAX_REASON_LEN`]. Text without a single usable character
/// becomes `Unknown`. A valid reason comes back unchanged.
pub fn sanitize_reason(raw: &str) -> String {
    if is_valid_reason(raw) {
        return raw.to_owned();
    }
    let mut reason = String::with_capacity(raw.len());
    let mut word_start = true;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | ',' | ':') {
            if word_start && !reason.is_empty() {
                reason.push(c.to_ascii_uppercase());
            } else {
                reason.push(c);
            }
            word_start = false;
        } else {
            word_start = true;
        }
    }
    if reason.is_empty() {
        return "Unknown".to_owned();
    }
    if !reason.as_bytes()[0].is_ascii_alphabetic() {
        reason.insert_str(0, "Code");
    }
    reason.truncate(MAX_REASON_LEN);
    while reason.ends_with([',', ':']) {
        reason.pop();
    }
    reason
}

/// A field of a condition, as validation errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `type`
    Type,
    /// `reason`
    Reason,
    /// `message`
    Message,
    /// `observedGeneration`
    ObservedGeneration,
}

impl Field {
    /// The field's JSON name.
    pub const fn json_name(self) -> &'static str {
        match self {
            Self::Type => "type",
            Self::Reason => "reason",
            Self::Message => "message",
            Self::ObservedGeneration => "observedGeneration",
        }
    }
}

/// What is wrong with a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The field is empty but must not be.
    Required,
    /// The field is longer than the API server allows.
    TooLong {
        /// The limit.
        max: usize,
        /// The field's length.
        actual: usize,
    },
    /// The field does not match the API server's pattern.
    Pattern {
        /// The offending value.
        value: String,
        /// The pattern it must match.
        pattern: &'static str,
    },
    /// `observedGeneration` is negative.
    Negative(i64),
    /// Another condition earlier in the list has the same type.
    Duplicate {
        /// The index of the first condition of this type.
        first: usize,
    },
}

/// One broken rule: which condition, which field, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The condition's index in its list; `None` when a lone condition was validated.
    pub index: Option<usize>,
    /// The field at fault.
    pub field: Field,
    /// What is wrong with it.
    pub problem: Problem,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(index) => write!(f, "conditions[{index}].{}: ", self.field.json_name())?,
            None => write!(f, "{}: ", self.field.json_name())?,
        }
        match &self.problem {
            Problem::Required => f.write_str("required value, must not be empty"),
            Problem::TooLong { max, actual } => {
                write!(f, "too long: {actual} characters, at most {max} allowed")
            }
            Problem::Pattern { value, pattern } => {
                write!(f, "invalid value {value:?}: must match {pattern}")
            }
            Problem::Negative(value) => write!(f, "invalid value {value}: must be >= 0"),
            Problem::Duplicate { first } => {
                write!(f, "duplicate type, already used by conditions[{first}]")
            }
        }
    }
}

/// Every rule a condition or a list of conditions breaks; never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// A condition's fields, as the rules read them.
pub(crate) struct ConditionFields<'a> {
    pub(crate) type_: &'a str,
    pub(crate) reason: &'a str,
    pub(crate) message: &'a str,
    pub(crate) observed_generation: Option<i64>,
}

/// Appends every rule a condition breaks on its own (everything but uniqueness): the
/// condition at `index` of its list, if in one.
pub(crate) fn check_condition(
    condition: ConditionFields<'_>,
    index: Option<usize>,
    errors: &mut Vec<ValidationError>,
) {
    let mut push = |field, problem| {
        errors.push(ValidationError {
            index,
            field,
            problem,
        })
    };
    check_text(
        condition.type_,
        Field::Type,
        MAX_TYPE_LEN,
        TYPE_PATTERN,
        matches_type_pattern,
        &mut push,
    );
    check_text(
        condition.reason,
        Field::Reason,
        MAX_REASON_LEN,
        REASON_PATTERN,
        matches_reason_pattern,
        &mut push,
    );
    let message_len = condition.message.chars().count();
    if message_len > MAX_MESSAGE_BYTES {
        push(
            Field::Message,
            Problem::TooLong {
                max: MAX_MESSAGE_BYTES,
                actual: message_len,
            },
        );
    }
    if let Some(generation) = condition.observed_generation.filter(|g| *g < 0) {
        push(Field::ObservedGeneration, Problem::Negative(generation));
    }
}

fn check_text(
    value: &str,
    field: Field,
    max: usize,
    pattern: &'static str,
    matches: fn(&str) -> bool,
    push: &mut impl FnMut(Field, Problem),
) {
    if value.is_empty() {
        return push(field, Problem::Required);
    }
    let len = value.chars().count();
    if len > max {
        push(field, Problem::TooLong { max, actual: len });
    }
    if !matches(value) {
        push(
            field,
            Problem::Pattern {
                value: value.to_owned(),
                pattern,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_are_left_alone() {
        let mut message = "x".repeat(MAX_MESSAGE_BYTES);
        assert!(!truncate_message(&mut message));
        assert_eq!(message.len(), MAX_MESSAGE_BYTES);
    }

    #[test]
    fn long_messages_are_cut_at_a_char_boundary_with_a_marker() {
        // '€' is three bytes; the first cut lands inside one and must step back a byte.
        assert_eq!((MAX_MESSAGE_BYTES - TRUNCATION_MARKER.len()) % 3, 1);
        let mut message = "€".repeat(MAX_MESSAGE_BYTES);
        assert!(truncate_message(&mut message));
        assert!(message.len() <= MAX_MESSAGE_BYTES);
        assert!(message.ends_with(TRUNCATION_MARKER));
        let kept = &message[..message.len() - TRUNCATION_MARKER.len()];
        assert!(kept.chars().all(|c| c == '€'));
        assert_eq!(kept.len(), MAX_MESSAGE_BYTES - TRUNCATION_MARKER.len() - 1);
    }

    #[test]
    fn sanitized_reasons_are_valid() {
        let cases = [
            ("Succeeded", "Succeeded"),
            ("invalid-parameter.value", "invalidParameterValue"),
            ("Invalid.Parameter", "InvalidParameter"),
            ("404", "Code404"),
            ("not found", "notFound"),
            ("Quota,Exceeded:", "Quota,Exceeded"),
            ("---", "Unknown"),
            ("", "Unknown"),
            ("_private", "Code_private"),
        ];
        for (raw, expected) in cases {
            assert_eq!(sanitize_reason(raw), expected, "sanitizing {raw:?}");
            assert!(is_valid_reason(&sanitize_reason(raw)));
        }
        assert_eq!(sanitize_reason(&"b".repeat(5000)).len(), MAX_REASON_LEN);
    }

    #[test]
    fn errors_name_the_condition_and_field() {
        let condition = ConditionFields {
            type_: "bad type",
            reason: "",
            message: "",
            observed_generation: Some(-1),
        };
        let mut errors = Vec::new();
        check_condition(condition, Some(2), &mut errors);
        let text = ValidationErrors(errors).to_string();
        assert_eq!(
            text,
            format!(
                "conditions[2].type: invalid value \"bad type\": must match {TYPE_PATTERN}; \
                 conditions[2].reason: required value, must not be empty; \
                 conditions[2].observedGeneration: invalid value -1: must be >= 0"
            )
        );
    }
}
