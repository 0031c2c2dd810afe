//! One condition: the observation a controller reports about one aspect of a resource.

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// Whether a condition is True, False or Unknown, as metav1's `ConditionStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ConditionStatus {
    /// The condition holds.
    True,
    /// The condition does not hold.
    False,
    /// The controller cannot tell (yet) whether the condition holds.
    Unknown,
}

impl ConditionStatus {
    /// The wire form: `"True"`, `"False"` or `"Unknown"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::True => "True",
            Self::False => "False",
            Self::Unknown => "Unknown",
        }
    }

    /// Parses the wire form; anything but the three exact words is `None`.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "True" => Some(Self::True),
            "False" => Some(Self::False),
            "Unknown" => Some(Self::Unknown),
            _ => None,
        }
    }
}

impl From<bool> for ConditionStatus {
    fn from(value: bool) -> Self {
        if value { Self::True } else { Self::False }
    }
}

impl fmt::Display for ConditionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to treat a condition that is not in its healthy state (ASO's and Cluster API's severity).
///
/// The variants are ordered from least to most severe, so `max()` picks the worst.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Severity {
    /// No severity: the condition is in its healthy state, or Unknown. Omitted on the wire
    /// (and the empty string ASO writes reads back as this).
    #[default]
    #[serde(rename = "")]
    None,
    /// Purely informational: things are progressing as expected (the happy path).
    Info,
    /// Something is wrong but the controller keeps retrying by itself; the user may need to act.
    Warning,
    /// Reconciliation cannot progress until the user changes the spec; no retry.
    Error,
}

impl Severity {
    /// True for [`Severity::None`]; used to omit the field on the wire.
    pub const fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }

    /// Parses the wire form: `Error`, `Warning`, `Info`, and `""` as [`Severity::None`];
    /// any other text is `None` (see [`Verbatim`] on how a list keeps it).
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "" => Some(Self::None),
            "Info" => Some(Self::Info),
            "Warning" => Some(Self::Warning),
            "Error" => Some(Self::Error),
            _ => None,
        }
    }

    /// The wire form; `""` for [`Severity::None`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "",
            Self::Info => "Info",
            Self::Warning => "Warning",
            Self::Error => "Error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "None",
            other => other.as_str(),
        })
    }
}

/// Which status of a condition type is the healthy one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// True is healthy (Ready, Available, SubResourcesReady).
    #[default]
    Positive,
    /// False is healthy, "abnormal-true" (Reconciling, Stalled, Degraded).
    Negative,
}

impl Polarity {
    /// The status that means all is well for a condition of this polarity.
    pub const fn healthy_status(self) -> ConditionStatus {
        match self {
            Self::Positive => ConditionStatus::True,
            Self::Negative => ConditionStatus::False,
        }
    }
}

/// The condition types a caller names as of negative polarity (healthy when False:
/// Degraded, ...): what the merge strategy, the merged summary and the offline checker are
/// told by their `negative_polarity` option; every other type is of positive polarity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NegativeTypes(Vec<String>);

impl NegativeTypes {
    /// No type of negative polarity.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// Names more types of negative polarity.
    pub fn extend<I, S>(&mut self, types: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.0.extend(types.into_iter().map(Into::into));
    }

    /// Whether `type_` was named of negative polarity.
    pub fn contains(&self, type_: &str) -> bool {
        self.0.iter().any(|t| t == type_)
    }

    /// The polarity of `type_`: negative if named, positive otherwise.
    pub fn polarity_of(&self, type_: &str) -> Polarity {
        if self.contains(type_) {
            Polarity::Negative
        } else {
            Polarity::Positive
        }
    }
}

/// One condition, with metav1.Condition's fields plus `severity`.
///
/// Its JSON is exactly `metav1.Condition`'s (`message` always present, `observedGeneration`
/// only when set), plus `severity`, which is omitted when [`Severity::None`].
///
/// Build one with [`Condition::new`] and the `with_*` methods, then store it with
/// [`Conditions::set`](crate::Conditions::set), which applies the transition rules:
///
/// ```
/// use kondition::{Condition, ConditionStatus, Conditions, Severity};
///
/// let mut conditions = Conditions::new();
/// conditions.set(
///     Condition::new("Ready", ConditionStatus::False, "WaitingForOwner")
///         .with_severity(Severity::Warning)
///         .with_message("owner ResourceGroup rg-1 does not exist yet")
///         .with_observed_generation(3),
/// );
/// assert!(!conditions.is_true("Ready"));
/// ```
///
/// Text another writer left that the typed fields cannot hold (a `severity` other than
/// Error, Warning and Info, such as Knative's or ASO's free text; a `lastTransitionTime`
/// that is no RFC 3339 time, which a plain-string schema admits) is kept in
/// [`verbatim`](Self::verbatim) when a [`Conditions`](crate::Conditions) list is read, and
/// written back unchanged for as long as the typed field still holds what the text read as;
/// see [`Verbatim`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// The condition's type, in CamelCase or `foo.example.com/CamelCase`; unique in a list.
    #[serde(rename = "type")]
    pub type_: String,
    /// True, False or Unknown.
    pub status: ConditionStatus,
    /// How to treat the condition when it is not healthy; omitted on the wire when None.
    #[serde(default, skip_serializing_if = "Severity::is_none")]
    pub severity: Severity,
    /// When the condition last changed, in whole seconds.
    pub last_transition_time: Time,
    /// A CamelCase, programmatic identifier of why the condition is as it is; never empty.
    pub reason: String,
    /// A human-readable explanation; may be empty.
    #[serde(default)]
    pub message: String,
    /// The `metadata.generation` this condition was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The text of `severity` and `lastTransitionTime` as another writer left it, where the
    /// typed fields cannot hold it; empty for a condition built here.
    #[serde(skip)]
    pub verbatim: Verbatim,
}

/// The text of a condition's `severity` and `lastTransitionTime` as read, kept where the
/// typed field cannot hold it, so that a condition another writer left is written back
/// unchanged.
///
/// - `severity`: any text but `Error`, `Warning` and `Info` (ASO's and Knative's schemas
///   admit free text; `""` too, which is not the same as no severity on the wire). It
///   reads as [`Severity::None`].
/// - `lastTransitionTime`: text that is no RFC 3339 time (a plain-string schema, as
///   Knative's `VolatileTime`, admits any). It reads as the Unix epoch. A time that parses
///   is held by the typed field and written as [`Time`] writes it.
///
/// Each text is written in place of its typed field only while that field still holds what
/// the text read as: a condition whose severity or time is changed (by the `with_*`
/// methods, by assigning the field, by [`Conditions::set`](crate::Conditions::set)) writes
/// the new value, so no path can write stale text over a change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verbatim {
    /// `severity`'s text, and the severity it read as.
    severity: Option<(Box<str>, Severity)>,
    /// `lastTransitionTime`'s text, and the time it read as.
    last_transition_time: Option<(Box<str>, Time)>,
}

impl Verbatim {
    /// Nothing kept: a condition whose fields hold all it says.
    pub const fn new() -> Self {
        Self {
            severity: None,
            last_transition_time: None,
        }
    }

    /// Whether nothing is kept.
    pub const fn is_empty(&self) -> bool {
        self.severity.is_none() && self.last_transition_time.is_none()
    }

    /// The `severity` text as read, when the typed field cannot hold it.
    pub fn severity(&self) -> Option<&str> {
        self.severity.as_ref().map(|(text, _)| &**text)
    }

    /// The `lastTransitionTime` text as read, when it is no RFC 3339 time.
    pub fn last_transition_time(&self) -> Option<&str> {
        self.last_transition_time.as_ref().map(|(text, _)| &**text)
    }

    /// Reads a `severity` text: the typed severity, and the text kept when the typed value
    /// does not write it back the same.
    pub(crate) fn read_severity(&mut self, text: Option<String>) -> Severity {
        let Some(text) = text else {
            return Severity::None;
        };
        match Severity::parse(&text) {
            Some(severity) if !severity.is_none() => severity,
            _ => {
                self.severity = Some((text.into_boxed_str(), Severity::None));
                Severity::None
            }
        }
    }

    /// Reads a `lastTransitionTime` text: the time, and the text kept when it is no time.
    pub(crate) fn read_time(&mut self, text: Option<String>) -> Time {
        let Some(text) = text else {
            return unstored_time();
        };
        match text.parse::<Timestamp>() {
            Ok(time) => Time(time),
            Err(_) => {
                let time = unstored_time();
                self.last_transition_time = Some((text.into_boxed_str(), time.clone()));
                time
            }
        }
    }
}

impl Condition {
    /// A condition of the given type, status and reason, with no severity, an empty message,
    /// no observed generation, and the current time (in whole seconds) as its transition time.
    pub fn new(
        type_: impl Into<String>,
        status: ConditionStatus,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            type_: type_.into(),
            status,
            severity: Severity::None,
            last_transition_time: now(),
            reason: reason.into(),
            message: String::new(),
            observed_generation: None,
            verbatim: Verbatim::new(),
        }
    }

    /// Sets the type.
    #[must_use]
    pub fn with_type(mut self, type_: impl Into<String>) -> Self {
        self.type_ = type_.into();
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// Sets the severity.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Sets the generation this condition was computed from.
    #[must_use]
    pub fn with_observed_generation(mut self, generation: i64) -> Self {
        self.observed_generation = Some(generation);
        self
    }

    /// Sets the time to record if storing this condition is a transition.
    #[must_use]
    pub fn at(mut self, time: Time) -> Self {
        self.last_transition_time = time;
        self
    }

    /// Whether the status is True.
    pub fn is_true(&self) -> bool {
        self.status == ConditionStatus::True
    }

    /// Whether the status is False.
    pub fn is_false(&self) -> bool {
        self.status == ConditionStatus::False
    }

    /// Whether the status is Unknown.
    pub fn is_unknown(&self) -> bool {
        self.status == ConditionStatus::Unknown
    }

    /// The `severity` as written on the wire: the text another writer left (see
    /// [`Verbatim`]), or the typed severity's; `None` when the field is omitted.
    pub fn severity_text(&self) -> Option<&str> {
        match &self.verbatim.severity {
            Some((text, read_as)) if *read_as == self.severity => Some(text),
            _ if self.severity.is_none() => None,
            _ => Some(self.severity.as_str()),
        }
    }

    /// The `lastTransitionTime` text another writer left that is no RFC 3339 time, while
    /// [`last_transition_time`](Self::last_transition_time) still holds what it read as.
    pub fn last_transition_time_text(&self) -> Option<&str> {
        match &self.verbatim.last_transition_time {
            Some((text, read_as)) if *read_as == self.last_transition_time => Some(text),
            _ => None,
        }
    }

    /// Takes `stored`'s `lastTransitionTime`, with the text it was read from: for a change
    /// that is no transition.
    pub(crate) fn keep_time_of(&mut self, stored: &Self) {
        self.last_transition_time
            .clone_from(&stored.last_transition_time);
        self.verbatim
            .last_transition_time
            .clone_from(&stored.verbatim.last_transition_time);
    }

    /// Whether everything but `lastTransitionTime` is equal: storing `other` over `self`
    /// would change nothing a reader cares about. Severities compare as written (a text
    /// another writer left is not the typed severity it reads as).
    pub fn same_observation(&self, other: &Self) -> bool {
        self.type_ == other.type_
            && self.status == other.status
            && self.severity_text() == other.severity_text()
            && self.reason == other.reason
            && self.message == other.message
            && self.observed_generation == other.observed_generation
    }

    /// Brings the condition into the form that is stored: the message truncated to the API
    /// server's limit (with a visible marker), the transition time in whole seconds, and no
    /// severity when the status is Unknown (nothing is known to be wrong).
    pub fn normalize(&mut self) {
        crate::validation::truncate_message(&mut self.message);
        if self.status == ConditionStatus::Unknown {
            self.severity = Severity::None;
        }
        self.last_transition_time = whole_seconds(&self.last_transition_time);
    }
}

/// The current time in whole seconds, as conditions store it.
pub fn now() -> Time {
    whole_seconds(&Time(Timestamp::now()))
}

/// The time a condition field not stored reads as, and is kept at (see
/// [`shape::Presence`](crate::shape::Presence)): the Unix epoch.
pub(crate) fn unstored_time() -> Time {
    Time(Timestamp::UNIX_EPOCH)
}

/// `time` with its sub-second part dropped (rounded toward the past).
pub(crate) fn whole_seconds(time: &Time) -> Time {
    let seconds = time.0.as_second();
    // `as_second` rounds toward zero; before 1970 that is toward the future.
    let seconds = if time.0.subsec_nanosecond() < 0 {
        seconds - 1
    } else {
        seconds
    };
    Time(Timestamp::from_second(seconds).unwrap_or(time.0))
}

impl Serialize for Condition {
    /// metav1.Condition's JSON plus `severity` (omitted when none); a text kept in
    /// [`Condition::verbatim`] is written in place of its typed field's.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let severity = self.severity_text();
        let fields =
            5 + usize::from(severity.is_some()) + usize::from(self.observed_generation.is_some());
        let mut out = serializer.serialize_struct("Condition", fields)?;
        out.serialize_field("type", &self.type_)?;
        out.serialize_field("status", &self.status)?;
        if let Some(severity) = severity {
            out.serialize_field("severity", severity)?;
        }
        match self.last_transition_time_text() {
            Some(text) => out.serialize_field("lastTransitionTime", text)?,
            None => out.serialize_field("lastTransitionTime", &self.last_transition_time)?,
        }
        out.serialize_field("reason", &self.reason)?;
        out.serialize_field("message", &self.message)?;
        if let Some(generation) = self.observed_generation {
            out.serialize_field("observedGeneration", &generation)?;
        }
        out.end()
    }
}

impl From<Condition> for metav1::Condition {
    /// Drops `severity`, which metav1.Condition does not have, and a `lastTransitionTime`
    /// text that is no time (the Unix epoch it read as is kept); everything else is kept.
    fn from(condition: Condition) -> Self {
        Self {
            type_: condition.type_,
            status: condition.status.as_str().to_owned(),
            last_transition_time: condition.last_transition_time,
            reason: condition.reason,
            message: condition.message,
            observed_generation: condition.observed_generation,
        }
    }
}

impl TryFrom<metav1::Condition> for Condition {
    type Error = InvalidStatus;

    /// Keeps every field; the severity is None. Fails only on a status that is not
    /// True, False or Unknown.
    fn try_from(condition: metav1::Condition) -> Result<Self, Self::Error> {
        let status =
            ConditionStatus::parse(&condition.status).ok_or(InvalidStatus(condition.status))?;
        Ok(Self {
            type_: condition.type_,
            status,
            severity: Severity::None,
            last_transition_time: condition.last_transition_time,
            reason: condition.reason,
            message: condition.message,
            observed_generation: condition.observed_generation,
            verbatim: Verbatim::new(),
        })
    }
}

/// A metav1.Condition whose status is not True, False or Unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidStatus(pub String);

impl fmt::Display for InvalidStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "condition status {:?} is not one of \"True\", \"False\", \"Unknown\"",
            self.0
        )
    }
}

impl std::error::Error for InvalidStatus {}

#[cfg(test)]
mod tests {
    use super::{NegativeTypes, Polarity};

    #[test]
    fn only_the_types_named_are_of_negative_polarity() {
        let mut negative = NegativeTypes::new();
        assert!(!negative.contains("Degraded"));
        negative.extend(["Degraded"]);
        negative.extend(vec![String::from("Stalled")]);
        assert!(negative.contains("Degraded") && negative.contains("Stalled"));
        assert!(!negative.contains("Ready"));
        assert_eq!(negative.polarity_of("Degraded"), Polarity::Negative);
        assert_eq!(negative.polarity_of("Ready"), Polarity::Positive);
    }
}
