//! Every answer to a request of the chokepoint, classified once. This is the only place that
//! looks at an HTTP status code or at a variant of `kube::Error`: the rest of the controller
//! asks the [`AnswerClass`] (its test `only_this_file_classifies_answers` greps the others).
//!
//! The answers kube-apiserver gives to a status write, and the test on the real server that
//! pins each row:
//!
//! | answer | class | test |
//! | --- | --- | --- |
//! | 409 Conflict (the `resourceVersion` precondition) | [`Conflict`](AnswerClass::Conflict) | `chokepoint.rs`, `several_writers.rs` |
//! | 404 Not Found, the object gone | [`Gone`](AnswerClass::Gone) | `deployed.rs` |
//! | 409 Conflict, then a read-back that finds no object, or another uid (a write carrying the `resourceVersion` read) | gone: nothing landed, no error | `deployed.rs` |
//! | 409 `uid mismatch` (main resource: the object deleted) | [`Gone`](AnswerClass::Gone) | `deployed.rs` |
//! | 422 `metadata.uid: field is immutable` (main resource: another object of the name) | [`Gone`](AnswerClass::Gone) | `deployed.rs` |
//! | 404 Not Found on `/status`, the object there | [`NoStatusSubresource`](AnswerClass::NoStatusSubresource) | `deployed.rs` |
//! | 422 Invalid (schema, CEL, admission) | [`Rejected`](AnswerClass::Rejected) | `rejections.rs` |
//! | 403 Forbidden (admission policy, RBAC) | [`Rejected`](AnswerClass::Rejected) | `rejections.rs`, `least_privilege.rs` |
//! | 400 Bad Request, 413 Request Entity Too Large | [`Rejected`](AnswerClass::Rejected) | `rejections.rs` |
//! | 500 about the body (typed patch, etcd's size limits) | [`Rejected`](AnswerClass::Rejected) | `rejections.rs`, `rolling_upgrade.rs` |
//! | 401 Unauthorized | [`Refused`](AnswerClass::Refused) | `least_privilege.rs` |
//! | 429 Too Many Requests (API Priority and Fairness) | [`Throttled`](AnswerClass::Throttled) | `least_privilege.rs` |
//! | any other 5xx, a transport error, an unreadable answer | [`Transient`](AnswerClass::Transient) | `faults.rs` |

use std::fmt;
use std::time::Duration;

use kube::core::Status;

/// What an answer to one of the chokepoint's requests means: whether it is a failure, whether
/// the same request can ever succeed, whether it may have landed. A reconcile's [`Error`]
/// says its class ([`Error::class`]), for an operator's metrics and logs.
///
/// [`Error`]: super::Error
/// [`Error::class`]: super::Error::class
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnswerClass {
    /// 409 Conflict: the object changed since the reconcile read it (the write's
    /// `resourceVersion` precondition). Not a failure of the status: the next reconcile
    /// computes it from the newer copy, which the change's own watch event brings.
    Conflict,
    /// The object is gone (404), or another object took its name.
    Gone,
    /// 404 on the status subresource while the object exists: the CRD serves none.
    NoStatusSubresource,
    /// The API server refused the body (its schema, a CEL rule, an admission policy, RBAC's
    /// 403, its size): the same status gets the same answer. The conditions-only fallback is
    /// tried.
    Rejected,
    /// 401 Unauthorized: the controller's credentials are not accepted.
    Refused,
    /// 429 Too Many Requests: the API server throttles the controller, and says how long to
    /// wait (`Retry-After`).
    Throttled,
    /// A fault of the moment: another 5xx, a transport error, an answer that could not be
    /// read. The write may have landed.
    Transient,
}

impl AnswerClass {
    /// The class of kube's error.
    pub fn of(error: &kube::Error) -> Self {
        /// What the API server's message says when a 500 is about the body.
        const BODY_AT_FAULT: [&str; 3] = [
            "failed to create typed patch object",
            "etcdserver: request is too large",
            "trying to send message larger than max",
        ];
        match error {
            kube::Error::Api(status) => match status.code {
                // The uid the write carries (on the main resource): the object is missing,
                // or another object took its name.
                409 if status.message.contains("uid mismatch") => Self::Gone,
                422 if status.message.contains("metadata.uid")
                    && status.message.contains("field is immutable") =>
                {
                    Self::Gone
                }
                409 => Self::Conflict,
                404 => Self::Gone,
                401 => Self::Refused,
                429 => Self::Throttled,
                400 | 403 | 413 | 422 => Self::Rejected,
                500 if BODY_AT_FAULT.iter().any(|m| status.message.contains(m)) => Self::Rejected,
                _ => Self::Transient,
            },
            _ => Self::Transient,
        }
    }

    /// Whether a write answered so may have landed all the same (its answer was lost).
    pub fn may_have_landed(self) -> bool {
        self == Self::Transient
    }

    /// Whether the answer is worth a Warning Event the first time (no retry changes it by
    /// itself), rather than once it repeats (a fault of the moment usually passes).
    pub(crate) fn announce_at_once(self) -> bool {
        matches!(
            self,
            Self::NoStatusSubresource | Self::Rejected | Self::Refused
        )
    }

    /// What the operator's user can do about it, for the Warning Event.
    pub(crate) fn fix(self) -> &'static str {
        match self {
            Self::Conflict | Self::Gone => {
                "nothing: the next reconcile starts from the object as it is"
            }
            Self::NoStatusSubresource => {
                "declare `status_subresource = false` for the kind or add the status \
                 subresource to its CRD"
            }
            Self::Rejected => "check the controller's RBAC and the admission policies",
            Self::Refused => "check the controller's credentials (its ServiceAccount and token)",
            Self::Throttled => {
                "retried as the API server asks; if it persists, check the priority level \
                 (API Priority and Fairness) that serves the controller"
            }
            Self::Transient => "retried with backoff; check the API server's health",
        }
    }
}

impl fmt::Display for AnswerClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Conflict => "conflict",
            Self::Gone => "gone",
            Self::NoStatusSubresource => "no status subresource",
            Self::Rejected => "rejected",
            Self::Refused => "refused",
            Self::Throttled => "throttled",
            Self::Transient => "transient",
        })
    }
}

/// A request that failed: kube's error, its class, and how long the API server asked to wait
/// (its `Retry-After` header, or a Status's `details.retryAfterSeconds`).
#[derive(Debug)]
pub(crate) struct WriteError {
    pub error: kube::Error,
    pub class: AnswerClass,
    pub retry_after: Option<Duration>,
}

impl From<kube::Error> for WriteError {
    fn from(error: kube::Error) -> Self {
        let retry_after = retry_after_seconds(&error);
        Self::new(error, retry_after)
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

impl WriteError {
    /// `error`, classified, with the server's wait.
    pub(crate) fn new(error: kube::Error, retry_after: Option<Duration>) -> Self {
        let retry_after = retry_after.or_else(|| retry_after_seconds(&error));
        Self {
            class: AnswerClass::of(&error),
            error,
            retry_after,
        }
    }

    /// The answer of an HTTP request that did not succeed: the API server's Status, or its
    /// plain text (as API Priority and Fairness sends with 429) made a Status of that code,
    /// as kube's client does.
    pub(crate) fn from_answer(code: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let status = serde_json::from_slice::<Status>(body).unwrap_or_else(|_| {
            let text = String::from_utf8_lossy(body);
            Status::failure(text.trim(), "Failed to parse error data").with_code(code)
        });
        Self::new(kube::Error::Api(status.boxed()), retry_after)
    }

    /// A 404 on the status subresource of an object that exists, with the message that
    /// names the fix.
    pub(crate) fn no_status_subresource(message: &str) -> Self {
        let status = Status::failure(message, "NotFound").with_code(404);
        Self {
            error: kube::Error::Api(status.boxed()),
            class: AnswerClass::NoStatusSubresource,
            retry_after: None,
        }
    }

    /// The API server's message (or the transport error).
    pub(crate) fn message(&self) -> String {
        match &self.error {
            kube::Error::Api(status) if !status.message.is_empty() => status.message.clone(),
            other => other.to_string(),
        }
    }

    /// The answer for logs and Events: the code and the API server's message, or the
    /// transport error.
    pub(crate) fn describe(&self) -> String {
        match &self.error {
            kube::Error::Api(status) => format!("{} {}", status.code, status.message),
            other => other.to_string(),
        }
    }

    /// The answer of a refusal, to remember it.
    pub(crate) fn answer(&self) -> Answer {
        Answer {
            code: status_code(&self.error).unwrap_or_default(),
            message: self.message(),
        }
    }
}

/// An answer of the API server that refused a write, as kept to report it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The HTTP status code.
    pub code: u16,
    /// The API server's message.
    pub message: String,
}

impl Answer {
    /// The answer as a failed request again, for the reconcile's [`Error`](super::Error).
    pub(crate) fn to_error(&self) -> WriteError {
        let status = Status::failure(&self.message, "StatusRejected").with_code(self.code);
        WriteError::from(kube::Error::Api(status.boxed()))
    }
}

/// The HTTP status code of the API server's answer (none for a transport error).
pub(crate) fn status_code(error: &kube::Error) -> Option<u16> {
    match error {
        kube::Error::Api(status) => Some(status.code),
        _ => None,
    }
}

/// `details.retryAfterSeconds` of an API server's Status, when it sets one.
fn retry_after_seconds(error: &kube::Error) -> Option<Duration> {
    match error {
        kube::Error::Api(status) => status
            .details
            .as_ref()
            .map(|d| d.retry_after_seconds)
            .filter(|seconds| *seconds > 0)
            .map(|seconds| Duration::from_secs(seconds.into())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(Status::failure(message, "").with_code(code).boxed())
    }

    #[test]
    fn each_answer_has_its_class() {
        let cases = [
            (409, "the object has been modified", AnswerClass::Conflict),
            (
                409,
                "Operation cannot be fulfilled on things.example.com \"t1\": uid mismatch: \
                 the provided object specified uid 0000-1111, and no existing object was found",
                AnswerClass::Gone,
            ),
            (
                422,
                "Thing.example.com \"t2\" is invalid: metadata.uid: Invalid value: \
                 \"0000-1111\": field is immutable",
                AnswerClass::Gone,
            ),
            (404, "not found", AnswerClass::Gone),
            (422, "Invalid value", AnswerClass::Rejected),
            (403, "denied by policy", AnswerClass::Rejected),
            (400, "bad request", AnswerClass::Rejected),
            (413, "too large", AnswerClass::Rejected),
            (
                500,
                "failed to create typed patch object",
                AnswerClass::Rejected,
            ),
            (
                500,
                "etcdserver: request is too large",
                AnswerClass::Rejected,
            ),
            (500, "etcdserver: leader changed", AnswerClass::Transient),
            (503, "unavailable", AnswerClass::Transient),
            (504, "timeout", AnswerClass::Transient),
            (401, "Unauthorized", AnswerClass::Refused),
            (429, "Too many requests", AnswerClass::Throttled),
        ];
        for (code, message, class) in cases {
            assert_eq!(
                AnswerClass::of(&api(code, message)),
                class,
                "{code} {message}"
            );
        }
        let unreadable = serde_json::from_str::<u8>("x").expect_err("not a number");
        let transport = kube::Error::SerdeError(unreadable);
        assert_eq!(AnswerClass::of(&transport), AnswerClass::Transient);
        assert!(AnswerClass::Transient.may_have_landed());
        assert!(!AnswerClass::Rejected.may_have_landed());
    }

    #[test]
    fn a_plain_text_answer_keeps_its_code_and_wait() {
        let error = WriteError::from_answer(
            429,
            b"Too many requests, please try again later.\n",
            Some(Duration::from_secs(3)),
        );
        assert_eq!(error.class, AnswerClass::Throttled);
        assert_eq!(error.retry_after, Some(Duration::from_secs(3)));
        assert_eq!(
            error.describe(),
            "429 Too many requests, please try again later."
        );
    }

    #[test]
    fn the_status_says_how_long_to_wait_when_the_header_does_not() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":7},"code":429}"#;
        let error = WriteError::from_answer(429, body, None);
        assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
        assert_eq!(error.class, AnswerClass::Throttled);
        assert_eq!(error.message(), "slow down");
    }

    /// Only this file looks at answers: no other file of the controller matches a variant
    /// of `kube::Error`, reads a Status's code or compares with an HTTP status code.
    #[test]
    fn only_this_file_classifies_answers() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/controller");
        let mut offences = Vec::new();
        let entries = std::fs::read_dir(&folder).expect("the controller's folder");
        for entry in entries {
            let path = entry.expect("an entry").path();
            if path.file_name().is_some_and(|n| n == "answer.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if matches_an_answer(code) {
                    offences.push(format!(
                        "{}:{}: {}",
                        path.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
        assert!(
            offences.is_empty(),
            "answers classified outside answer.rs:\n{}",
            offences.join("\n")
        );
    }

    /// Whether a line of code matches on an answer.
    fn matches_an_answer(code: &str) -> bool {
        const PATTERNS: [&str; 4] = ["kube::Error::Api", "Error::Api(", ".code ==", "status.code"];
        if PATTERNS.iter().any(|p| code.contains(p)) {
            return true;
        }
        // An HTTP status code of an error compared or matched: `Some(404)`, `== 409`, `429 =>`.
        let bytes = code.as_bytes();
        bytes.windows(3).enumerate().any(|(at, digits)| {
            let is_code = matches!(digits[0], b'4' | b'5')
                && digits[1..].iter().all(u8::is_ascii_digit)
                && (at == 0 || !bytes[at - 1].is_ascii_alphanumeric() && bytes[at - 1] != b'_')
                && bytes
                    .get(at + 3)
                    .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_');
            let (Some(before), Some(after)) = (code.get(..at), code.get(at + 3..)) else {
                return false;
            };
            let (before, after) = (before.trim_end(), after.trim_start());
            is_code
                && (before.ends_with("Some(")
                    || before.ends_with("==")
                    || before.ends_with("!=")
                    || before.ends_with('|')
                    || after.starts_with("=>")
                    || after.starts_with('|'))
        })
    }

    #[test]
    fn the_scan_finds_what_it_looks_for() {
        for line in [
            "if status_code(&e) == Some(409) {",
            "Err(kube::Error::Api(s)) if s.code == 404 => {}",
            "    401 | 403 => true,",
            "    429 => Retry,",
            "matches!(code, Some(401 | 403 | 404))",
        ] {
            assert!(matches_an_answer(line), "{line}");
        }
        for line in [
            "let x = 4096;",
            "Duration::from_secs(500)",
            "let v4 = 1;",
            "const MAX: usize = 1024;",
        ] {
            assert!(!matches_an_answer(line), "{line}");
        }
    }
}
