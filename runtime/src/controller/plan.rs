//! The status write's decisions, apart from the requests that carry them out: what a
//! reconcile sends (the full apply, the conditions-only fallback of a rejected status, or
//! nothing) from what the object's memory holds, what the copy read shows and the status
//! computed from it. No I/O, no lock, the time passed in: the reconciler gathers the inputs
//! (the memory read once), asks, and performs the answer; the unit tests below ask it every
//! case without a server.
//!
//! "The same status" answers four questions, each with its own test, all named here: is the
//! status computed the one stored (`Read::equal`, the apply bodies equal field for field:
//! nothing to send)? is it the one the server stored differently last time (`Read::sent` and
//! `Read::stored`, the bodies' exact hashes, against [`StoredAs`]: nothing to send either)?
//! is it the status rejected before (`Read::fingerprint`, free text left out: messages and
//! times change nothing, so the rejection is not sent again before its retry)? and, after a
//! 409, does the object read back hold what was sent (`apply.rs`'s `holds`, condition times
//! left out: written already by this controller's own earlier write)?

use tokio::time::Instant;

use super::answer::Answer;
use super::memory::{Known, Rejection, StoredAs};
use crate::conditions::Conditions;

/// What the copy read and the status computed from it show. The hashes are not computed (0)
/// when `equal` holds and the fallback manager holds nothing: [`first`] does not ask them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Read {
    /// The status computed equals the stored one, as apply bodies.
    pub equal: bool,
    /// The exact hash of the status computed (its apply body, condition times included).
    pub sent: u64,
    /// The exact hash of the stored status, as an apply body.
    pub stored: u64,
    /// The status computed, its free text left out (messages, condition times).
    pub fingerprint: u64,
    /// The fallback manager holds fields of the object: the release after a full apply
    /// never came, so the full apply goes again, then the release.
    pub fallback_holds: bool,
    /// Neither of the reconciler's managers holds a field of the object.
    pub first_write: bool,
}

/// What a reconcile sends first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Send {
    /// Nothing.
    Nothing(Unsent),
    /// The full status apply (then the release of the fallback manager, if it holds fields).
    Full,
    /// The conditions-only fallback of this rejection, without the full apply: the same
    /// status was rejected, and its retry time has not come (the reconcile acts before it
    /// because the object moved to a new moment, its deletion say).
    Fallback(Rejection),
}

/// Why nothing is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsent {
    /// The copy read is older than the second controller's own first write (it holds none
    /// of its fields): its conditions set over it would be new ones, their times stamped
    /// anew. Once: its fields could also have been taken since.
    FirstWriteUnseen,
    /// The status computed is the one stored.
    Equal,
    /// The status computed is the last one written, which the API server stored as it is
    /// stored now (its defaults, an admission policy's change): sending it again would
    /// change nothing.
    StoredAs,
}

/// What a reconcile sends first, for a reconciler writing as a second controller or not
/// (`second`) at `now`.
pub(crate) fn first(second: bool, read: &Read, known: Known, now: Instant) -> Send {
    if second && known.first_write_unseen && read.first_write {
        return Send::Nothing(Unsent::FirstWriteUnseen);
    }
    if !read.fallback_holds {
        if read.equal {
            return Send::Nothing(Unsent::Equal);
        }
        if known.stored_as
            == Some(StoredAs {
                sent: read.sent,
                stored: read.stored,
            })
        {
            return Send::Nothing(Unsent::StoredAs);
        }
    }
    let waiting = known.retry_at.is_some_and(|at| now < at);
    match known.rejection {
        Some(rejection) if waiting && rejection.fingerprint == read.fingerprint => {
            Send::Fallback(rejection)
        }
        _ => Send::Full,
    }
}

/// What the status write of a reconcile did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    /// The status to apply equals the stored one (or is what the server made of the same
    /// status last time): nothing was sent.
    Unchanged,
    /// The full status was applied.
    Full,
    /// The full status is rejected by the API server (with this message), now or by an
    /// earlier reconcile of the same status.
    Rejected {
        /// The API server's message.
        message: String,
        /// What became of its conditions-only fallback.
        fallback: Fallback,
    },
    /// The object is gone.
    NotFound,
}

impl Written {
    /// Whether a request of this reconcile changed the object: the full apply, or the
    /// fallback of a rejected one.
    pub(crate) fn wrote(&self) -> bool {
        matches!(
            self,
            Self::Full
                | Self::Rejected {
                    fallback: Fallback::Sent(_),
                    ..
                }
        )
    }
}

/// What became of the fallback of a rejected status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// These conditions were applied under the fallback manager.
    Sent(Conditions),
    /// The stored conditions already say the same: nothing was sent.
    Stored,
    /// The fallback of this rejection was sent already, and the stored conditions were
    /// changed since by another writer: nothing is sent until the full apply is retried.
    Held,
    /// The API server rejected it too (now, or an earlier reconcile of the same status):
    /// nothing of the status can be written.
    Refused {
        /// The API server's answer to the fallback.
        answer: Answer,
        /// Whether a Warning Event is still to say so (none was recorded yet).
        announce: bool,
    },
}

/// What becomes of the fallback of `rejection`, whose conditions the stored ones equal or
/// not (`stored`), when it is not sent; `None`: it is sent.
///
/// Rate-limited like the full apply: once per rejection. Conditions that differ from the
/// fallback already sent were changed since by another writer of this status (a replica of
/// another version, during a rolling upgrade): answering each of its writes would make the
/// two take turns at every watch event, each turn a write and an Event on either side. They
/// are left as they are until the full apply's retry.
pub(crate) fn fallback(rejection: &Rejection, stored: bool) -> Option<Fallback> {
    if let Some(answer) = &rejection.fallback_rejected {
        // Rejected too: the same conditions would be again.
        return Some(Fallback::Refused {
            answer: answer.clone(),
            announce: !rejection.fallback_announced,
        });
    }
    if stored {
        return Some(Fallback::Stored);
    }
    rejection.fallback_sent.then_some(Fallback::Held)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn read() -> Read {
        Read {
            equal: false,
            sent: 1,
            stored: 2,
            fingerprint: 3,
            fallback_holds: false,
            first_write: false,
        }
    }

    fn rejection(fingerprint: u64) -> Rejection {
        Rejection {
            fingerprint,
            message: "denied".into(),
            fallback_rejected: None,
            fallback_announced: false,
            fallback_sent: false,
        }
    }

    #[test]
    fn a_status_stored_already_is_not_sent() {
        let now = Instant::now();
        let equal = Read {
            equal: true,
            ..read()
        };
        assert_eq!(
            first(false, &equal, Known::default(), now),
            Send::Nothing(Unsent::Equal)
        );
        let known = Known {
            stored_as: Some(StoredAs { sent: 1, stored: 2 }),
            ..Known::default()
        };
        assert_eq!(
            first(false, &read(), known.clone(), now),
            Send::Nothing(Unsent::StoredAs)
        );
        // What the server made of another status, or of this one stored otherwise since.
        let other = Read { sent: 9, ..read() };
        assert_eq!(first(false, &other, known.clone(), now), Send::Full);
        let moved = Read {
            stored: 9,
            ..read()
        };
        assert_eq!(first(false, &moved, known, now), Send::Full);
    }

    #[test]
    fn the_fallback_managers_fields_make_the_full_apply_go_again() {
        let now = Instant::now();
        let held = Read {
            equal: true,
            fallback_holds: true,
            ..read()
        };
        assert_eq!(first(false, &held, Known::default(), now), Send::Full);
    }

    #[test]
    fn a_second_controller_waits_once_for_the_copy_holding_its_first_write() {
        let now = Instant::now();
        let known = Known {
            first_write_unseen: true,
            ..Known::default()
        };
        let older = Read {
            first_write: true,
            ..read()
        };
        assert_eq!(
            first(true, &older, known.clone(), now),
            Send::Nothing(Unsent::FirstWriteUnseen)
        );
        // A copy holding its fields, or the kind's own controller: no wait.
        assert_eq!(first(true, &read(), known.clone(), now), Send::Full);
        assert_eq!(first(false, &older, known, now), Send::Full);
    }

    #[test]
    fn a_rejected_status_goes_to_its_fallback_until_its_retry_time() {
        let now = Instant::now();
        let known = |fingerprint, retry_in: u64| Known {
            rejection: Some(rejection(fingerprint)),
            retry_at: Some(now + Duration::from_secs(retry_in)),
            ..Known::default()
        };
        assert_eq!(
            first(false, &read(), known(3, 5), now),
            Send::Fallback(rejection(3))
        );
        // Its retry time came: the full apply goes again.
        assert_eq!(first(false, &read(), known(3, 0), now), Send::Full);
        // Another status (not its free text): the full apply.
        assert_eq!(first(false, &read(), known(4, 5), now), Send::Full);
    }

    #[test]
    fn a_fallback_is_sent_once_per_rejection() {
        let fresh = rejection(3);
        assert_eq!(fallback(&fresh, false), None, "sent");
        assert_eq!(fallback(&fresh, true), Some(Fallback::Stored));
        let sent = Rejection {
            fallback_sent: true,
            ..rejection(3)
        };
        assert_eq!(fallback(&sent, false), Some(Fallback::Held));
        assert_eq!(fallback(&sent, true), Some(Fallback::Stored));
        let answer = Answer {
            code: 422,
            message: "no".into(),
        };
        let refused = Rejection {
            fallback_rejected: Some(answer.clone()),
            ..rejection(3)
        };
        assert_eq!(
            fallback(&refused, true),
            Some(Fallback::Refused {
                answer: answer.clone(),
                announce: true
            })
        );
        let said = Rejection {
            fallback_announced: true,
            ..refused
        };
        assert_eq!(
            fallback(&said, false),
            Some(Fallback::Refused {
                answer,
                announce: false
            })
        );
    }
}
