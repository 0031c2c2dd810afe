//! What the chokepoint remembers of each object between reconciles: its consecutive failures
//! (for the backoff), the last status the API server rejected (so that a persistent
//! rejection is a steady state, not a loop), its failed writes (their backoff, and whether
//! their answer was reported), the summary before a write whose outcome is unknown (so its
//! transition Event is not lost), and what the API server made of the last status written
//! when it stored something else (its defaults, a mutating admission policy), so that status
//! is not sent again and again.
//!
//! Bounded: an entry goes as soon as it has nothing to remember, when its object is gone
//! (a write answered 404, or its finalizers finished), and when its object was not
//! reconciled for a while: an object deleted without a finalizer gets no last reconcile to
//! say so, while a live object with an entry is requeued well within that time (every entry
//! is kept by a backoff). The map never holds more than its capacity either: past it, the
//! entry seen longest ago goes. Time is tokio's clock, so tests can pause and advance it.

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use super::apply::Answer;
use crate::ConditionStatus;

/// The default bound on remembered objects.
pub(crate) const DEFAULT_CAPACITY: usize = 100_000;

/// Per-object memory, keyed by the object's uid (or namespace/name without one).
#[derive(Debug)]
pub(crate) struct Memory {
    entries: HashMap<String, Entry>,
    /// How long an entry outlives the last reconcile of its object.
    ttl: Duration,
    /// The most entries kept.
    capacity: usize,
    /// When entries not seen for `ttl` are next swept out.
    next_sweep: Option<Instant>,
}

#[derive(Debug, Default)]
struct Entry {
    /// Consecutive reconciles that ended in a retryable failure.
    failures: u32,
    rejection: Option<Rejection>,
    write_failure: Option<WriteFailure>,
    /// A transition not announced yet: of a full apply whose answer never came (it may have
    /// landed), or whose Event could not be posted.
    unannounced: Option<Unannounced>,
    stored_as: Option<StoredAs>,
    contest: Option<Contest>,
    /// A second controller's first write of the object landed, and no copy since showed it:
    /// a copy without any field of its own is older than that write.
    first_write_unseen: bool,
    /// The last reconcile of the object.
    seen: Option<Instant>,
}

/// The summary condition's status and reason, what a transition Event is about.
pub(crate) type Summary = (ConditionStatus, String);

/// Transitions of the summary that may have been written but were not announced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unannounced {
    /// The summary stored before them (`None` for none): the last one announced.
    pub before: Option<Summary>,
    /// The summaries written, latest last (at most [`MAX_UNANNOUNCED`]): once an object read
    /// holds one of them, its write landed.
    pub afters: Vec<Summary>,
}

/// The most unannounced summaries kept per object.
const MAX_UNANNOUNCED: usize = 4;

/// Consecutive status writes that failed (not rejections: the request's circumstances, a
/// refusal of the identity, a fault of the server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WriteFailure {
    /// How many writes in a row failed.
    pub attempts: u32,
    /// The last answer.
    pub answer: String,
    /// Whether an Event said so (once per answer).
    pub announced: bool,
}

/// A status the API server stored differently from how it was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StoredAs {
    /// The status sent (its apply body's hash).
    pub sent: u64,
    /// The status the server stored from it (its apply body's hash).
    pub stored: u64,
}

/// Conditions of the reconciler that another field manager writes too: reported once, left
/// to the other manager, and taken back on a backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Contest {
    /// How many times in a row the conditions were taken back.
    pub attempts: u32,
    /// When they are taken back next.
    pub retry_at: Instant,
}

/// What to do about a condition another field manager wrote over this reconciler's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Contested {
    /// First seen: say so, and leave it to the other manager until the backoff passed.
    Announce(Instant),
    /// Seen before: leave it to the other manager until then.
    Leave(Instant),
    /// The backoff passed: take it back, and leave it until then next time.
    TakeBack(Instant),
}

/// A full status apply the API server rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The rejected status, its condition times left out (see `fingerprint`).
    pub fingerprint: u64,
    /// The API server's message.
    pub message: String,
    /// How many times in a row this status was rejected.
    pub attempts: u32,
    /// When the full apply of this status may be tried again.
    pub retry_at: Instant,
    /// The API server's answer when it rejected the conditions-only fallback of this
    /// status too: that fallback is not sent again either until the status changes.
    pub fallback_rejected: Option<Answer>,
    /// Whether the Event saying that nothing could be written was recorded.
    pub fallback_announced: bool,
    /// Whether the conditions-only fallback of this rejection went through: it is sent once
    /// per rejection of the full apply, not again before the next one, whatever the stored
    /// conditions say meanwhile (another writer of the same status, such as a replica of a
    /// newer version during a rolling upgrade, would otherwise be answered at every watch
    /// event of its own writes, and it would answer each fallback in turn).
    pub fallback_sent: bool,
}

impl Memory {
    /// An empty memory whose entries outlive their object's last reconcile by `ttl`.
    pub(crate) fn new(ttl: Duration, capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            ttl,
            capacity: capacity.max(1),
            next_sweep: None,
        }
    }

    /// How many objects are remembered.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The bound on remembered objects.
    pub(crate) fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
    }

    /// How long entries outlive their object's last reconcile.
    pub(crate) fn set_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl;
    }

    /// Counts this reconcile's outcome: a retryable failure adds one to the object's
    /// consecutive failures and returns the count (1 for the first); anything else ends the
    /// run and returns 0.
    pub(crate) fn count(&mut self, key: &str, failed: bool, now: Instant) -> u32 {
        self.sweep(now);
        if failed {
            let entry = self.entry(key, now);
            entry.failures = entry.failures.saturating_add(1);
            entry.failures
        } else {
            self.update(key, now, |entry| entry.failures = 0);
            0
        }
    }

    /// The remembered rejection of `key`.
    pub(crate) fn rejection(&self, key: &str) -> Option<&Rejection> {
        self.entries.get(key).and_then(|e| e.rejection.as_ref())
    }

    /// Remembers that the status with `fingerprint` was rejected with `message`; returns how
    /// many times in a row that status has been rejected now.
    pub(crate) fn reject(
        &mut self,
        key: &str,
        fingerprint: u64,
        message: String,
        now: Instant,
        retry_after: impl FnOnce(u32) -> Duration,
    ) -> &Rejection {
        let entry = self.entry(key, now);
        let (attempts, fallback_rejected, fallback_announced) = match &entry.rejection {
            Some(previous) if previous.fingerprint == fingerprint => (
                previous.attempts.saturating_add(1),
                previous.fallback_rejected.clone(),
                previous.fallback_announced,
            ),
            _ => (1, None, false),
        };
        entry.rejection.insert(Rejection {
            fingerprint,
            message,
            attempts,
            retry_at: now + retry_after(attempts),
            fallback_rejected,
            fallback_announced,
            fallback_sent: false,
        })
    }

    /// Remembers that the fallback of `key`'s rejected status went through.
    pub(crate) fn fallback_sent(&mut self, key: &str) {
        if let Some(rejection) = self.entries.get_mut(key).and_then(|e| e.rejection.as_mut()) {
            rejection.fallback_sent = true;
        }
    }

    /// Remembers that the API server rejected the fallback of the rejected status of `key`
    /// too, with `answer`.
    pub(crate) fn reject_fallback(&mut self, key: &str, answer: Answer) {
        if let Some(rejection) = self.entries.get_mut(key).and_then(|e| e.rejection.as_mut()) {
            rejection.fallback_rejected = Some(answer);
            rejection.fallback_announced = false;
        }
    }

    /// Remembers that the Event saying nothing of `key`'s status could be written was recorded.
    pub(crate) fn fallback_announced(&mut self, key: &str) {
        if let Some(rejection) = self.entries.get_mut(key).and_then(|e| e.rejection.as_mut()) {
            rejection.fallback_announced = true;
        }
    }

    /// Forgets that the last failed write was announced: its Event could not be recorded.
    pub(crate) fn write_failure_unannounced(&mut self, key: &str) {
        if let Some(failure) = self
            .entries
            .get_mut(key)
            .and_then(|e| e.write_failure.as_mut())
        {
            failure.announced = false;
        }
    }

    /// Counts a failed write answered `answer`; returns the failures in a row (1 for the
    /// first) and whether to announce it: a refusal (`refused`, such as 401 or 403) at once,
    /// any other answer once it repeats; each answer once.
    pub(crate) fn write_failed(
        &mut self,
        key: &str,
        answer: String,
        refused: bool,
        now: Instant,
    ) -> (u32, bool) {
        let entry = self.entry(key, now);
        let failure = entry.write_failure.get_or_insert(WriteFailure {
            attempts: 0,
            answer: String::new(),
            announced: false,
        });
        let repeated = failure.attempts > 0 && failure.answer == answer;
        if !repeated {
            failure.announced = false;
            failure.answer = answer;
        }
        failure.attempts = failure.attempts.saturating_add(1);
        let announce = !failure.announced && (refused || repeated);
        failure.announced |= announce;
        (failure.attempts, announce)
    }

    /// Ends a run of failed writes: a write went through (or had nothing to send).
    pub(crate) fn write_succeeded(&mut self, key: &str, now: Instant) {
        self.update(key, now, |entry| entry.write_failure = None);
    }

    /// Remembers a transition from `before` to `after` that may have been written and was not
    /// announced. The `before` of the first such is kept (the last one announced); each
    /// `after` is added, the oldest dropped past a few.
    pub(crate) fn unannounced(
        &mut self,
        key: &str,
        before: Option<Summary>,
        after: Summary,
        now: Instant,
    ) {
        let entry = self.entry(key, now);
        let pending = entry.unannounced.get_or_insert(Unannounced {
            before,
            afters: Vec::new(),
        });
        pending.afters.retain(|a| *a != after);
        pending.afters.push(after);
        if pending.afters.len() > MAX_UNANNOUNCED {
            pending.afters.remove(0);
        }
    }

    /// Puts back transitions taken with [`take_unannounced`](Self::take_unannounced) and not
    /// announced.
    pub(crate) fn keep_unannounced(&mut self, key: &str, pending: Unannounced, now: Instant) {
        self.entry(key, now).unannounced = Some(pending);
    }

    /// The transition not announced yet, forgotten (to announce it now, or put it back).
    pub(crate) fn take_unannounced(&mut self, key: &str, now: Instant) -> Option<Unannounced> {
        let mut taken = None;
        self.update(key, now, |entry| taken = entry.unannounced.take());
        taken
    }

    /// What the API server stored the last time it changed a status on write.
    pub(crate) fn stored_as(&self, key: &str) -> Option<StoredAs> {
        self.entries.get(key).and_then(|e| e.stored_as)
    }

    /// Remembers (or, with `None`, forgets) what the API server made of the status written.
    pub(crate) fn set_stored_as(&mut self, key: &str, stored_as: Option<StoredAs>, now: Instant) {
        match stored_as {
            Some(_) => self.entry(key, now).stored_as = stored_as,
            None => self.update(key, now, |entry| entry.stored_as = None),
        }
    }

    /// Remembers that another field manager wrote conditions of `key` that this reconciler
    /// sets; says whether it is new, and whether they are taken back now (once the backoff,
    /// `retry_after(attempts)`, has passed).
    pub(crate) fn contested(
        &mut self,
        key: &str,
        now: Instant,
        retry_after: impl FnOnce(u32) -> Duration,
    ) -> Contested {
        let entry = self.entry(key, now);
        match &mut entry.contest {
            None => {
                let retry_at = now + retry_after(1);
                entry.contest = Some(Contest {
                    attempts: 1,
                    retry_at,
                });
                Contested::Announce(retry_at)
            }
            Some(contest) if now < contest.retry_at => Contested::Leave(contest.retry_at),
            Some(contest) => {
                contest.attempts = contest.attempts.saturating_add(1);
                contest.retry_at = now + retry_after(contest.attempts);
                Contested::TakeBack(contest.retry_at)
            }
        }
    }

    /// No other manager writes the reconciler's conditions of `key` now: once the last
    /// backoff has passed so, the contest is over (a new one is reported again).
    pub(crate) fn uncontested(&mut self, key: &str, now: Instant) {
        self.update(key, now, |entry| {
            if entry.contest.is_some_and(|c| now >= c.retry_at) {
                entry.contest = None;
            }
        });
    }

    /// Remembers that a second controller's first write of `key` landed.
    pub(crate) fn first_write_landed(&mut self, key: &str, now: Instant) {
        self.entry(key, now).first_write_unseen = true;
    }

    /// Whether a first write of `key` landed that no copy showed yet; forgets it either way
    /// (a copy holding it was seen, or one reconcile waited for it).
    pub(crate) fn take_first_write_unseen(&mut self, key: &str, now: Instant) -> bool {
        let mut unseen = false;
        self.update(key, now, |entry| {
            unseen = std::mem::take(&mut entry.first_write_unseen);
        });
        unseen
    }

    /// Forgets a rejection: the status was accepted, or is stored as it is.
    pub(crate) fn accepted(&mut self, key: &str, now: Instant) {
        self.update(key, now, |entry| entry.rejection = None);
    }

    /// Forgets the object: it is gone.
    pub(crate) fn forget(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// The entry of `key`, made if needed; makes room first when the map is full.
    fn entry(&mut self, key: &str, now: Instant) -> &mut Entry {
        if !self.entries.contains_key(key) && self.entries.len() >= self.capacity {
            self.sweep_now(now);
            if self.entries.len() >= self.capacity {
                let oldest = self
                    .entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.seen)
                    .map(|(key, _)| key.clone());
                if let Some(oldest) = oldest {
                    self.entries.remove(&oldest);
                }
            }
        }
        let entry = self.entries.entry(key.to_owned()).or_default();
        entry.seen = Some(now);
        entry
    }

    /// Changes an existing entry, and drops it when it has nothing left to remember.
    fn update(&mut self, key: &str, now: Instant, change: impl FnOnce(&mut Entry)) {
        let Some(entry) = self.entries.get_mut(key) else {
            return;
        };
        change(entry);
        entry.seen = Some(now);
        let empty = entry.failures == 0
            && entry.rejection.is_none()
            && entry.write_failure.is_none()
            && entry.unannounced.is_none()
            && entry.stored_as.is_none()
            && entry.contest.is_none()
            && !entry.first_write_unseen;
        if empty {
            self.entries.remove(key);
        }
    }

    /// Sweeps out entries not seen for `ttl`, at most every half `ttl`: amortized over the
    /// reconciles, a sweep costs nothing per reconcile however many objects there are.
    fn sweep(&mut self, now: Instant) {
        if self.next_sweep.is_none_or(|at| now >= at) {
            self.sweep_now(now);
        }
    }

    fn sweep_now(&mut self, now: Instant) {
        let ttl = self.ttl;
        self.entries.retain(|_, entry| {
            entry
                .seen
                .is_some_and(|seen| now.saturating_duration_since(seen) < ttl)
        });
        self.next_sweep = Some(now + ttl / 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn failures_count_up_and_reset() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        assert_eq!(memory.count("a", true, now), 1);
        assert_eq!(memory.count("a", true, now), 2);
        assert_eq!(memory.len(), 1);
        assert_eq!(memory.count("a", false, now), 0);
        assert_eq!(memory.len(), 0, "nothing left to remember");
        assert_eq!(memory.count("a", true, now), 1);
    }

    #[test]
    fn rejections_count_attempts_of_the_same_status() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        let backoff = |attempts: u32| Duration::from_secs(5 * u64::from(attempts));
        assert_eq!(memory.reject("a", 7, "no".into(), now, backoff).attempts, 1);
        let again = memory.reject("a", 7, "no".into(), now, backoff);
        assert_eq!((again.attempts, again.retry_at), (2, now + 10 * SECOND));
        let no_either = Answer {
            code: 422,
            message: "no either".into(),
        };
        memory.reject_fallback("a", no_either.clone());
        let again = memory.reject("a", 7, "no".into(), now, backoff);
        assert_eq!(again.fallback_rejected, Some(no_either));
        // Another status: its fallback has not been tried.
        let other = memory.reject("a", 8, "no".into(), now, backoff);
        assert_eq!((other.attempts, other.fallback_rejected.clone()), (1, None));
        memory.accepted("a", now);
        assert_eq!(memory.rejection("a"), None);
        assert_eq!(memory.len(), 0);
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_refusal_is_announced_at_once_and_other_answers_when_they_repeat() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        let forbidden = || "403 Forbidden".to_owned();
        assert_eq!(memory.write_failed("a", forbidden(), true, now), (1, true));
        assert_eq!(memory.write_failed("a", forbidden(), true, now), (2, false));
        // Another answer is announced once it repeats; the count goes on (the backoff grows).
        let fault = || "500 etcd is down".to_owned();
        assert_eq!(memory.write_failed("a", fault(), false, now), (3, false));
        assert_eq!(memory.write_failed("a", fault(), false, now), (4, true));
        assert_eq!(memory.write_failed("a", fault(), false, now), (5, false));
        memory.write_succeeded("a", now);
        assert_eq!(memory.len(), 0, "nothing left to remember");
        assert_eq!(memory.write_failed("a", fault(), false, now), (1, false));
    }

    #[test]
    fn the_summary_before_a_lost_answer_is_kept_until_taken() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        let summary = |status, reason: &str| (status, reason.to_owned());
        let before = Some(summary(ConditionStatus::False, "Reconciling"));
        let first = summary(ConditionStatus::True, "Succeeded");
        let second = summary(ConditionStatus::False, "Failed");
        memory.unannounced("a", before.clone(), first.clone(), now);
        // A second lost answer keeps the first summary before (the one last announced) and
        // adds its own after.
        memory.unannounced("a", None, second.clone(), now);
        memory.unannounced("a", None, second.clone(), now);
        assert_eq!(
            memory.take_unannounced("a", now),
            Some(Unannounced {
                before,
                afters: vec![first, second]
            })
        );
        assert_eq!(memory.take_unannounced("a", now), None);
        assert_eq!(memory.len(), 0);
    }

    #[test]
    fn what_the_server_stored_is_kept_until_forgotten() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        let stored_as = StoredAs { sent: 1, stored: 2 };
        memory.set_stored_as("a", Some(stored_as), now);
        assert_eq!(memory.stored_as("a"), Some(stored_as));
        memory.count("a", false, now);
        assert_eq!(
            memory.stored_as("a"),
            Some(stored_as),
            "kept past a success"
        );
        memory.set_stored_as("a", None, now);
        assert_eq!(memory.len(), 0);
    }

    #[test]
    fn a_contest_is_announced_once_and_taken_back_on_its_backoff() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        let backoff = |attempts: u32| Duration::from_secs(5 << attempts);
        assert_eq!(
            memory.contested("a", now, backoff),
            Contested::Announce(now + 10 * SECOND)
        );
        assert_eq!(
            memory.contested("a", now + SECOND, backoff),
            Contested::Leave(now + 10 * SECOND)
        );
        // Uncontested within the backoff: remembered still (a fight that goes on is not
        // announced again).
        memory.uncontested("a", now + SECOND);
        let later = now + 10 * SECOND;
        assert_eq!(
            memory.contested("a", later, backoff),
            Contested::TakeBack(later + 20 * SECOND)
        );
        memory.uncontested("a", later + 20 * SECOND);
        assert_eq!(memory.len(), 0, "over");
    }

    #[test]
    fn entries_not_seen_for_the_ttl_are_swept() {
        let start = Instant::now();
        let mut memory = Memory::new(MINUTE, 100);
        for i in 0..50 {
            memory.count(&format!("o{i}"), true, start);
        }
        memory.count("live", true, start + MINUTE / 2);
        assert_eq!(memory.len(), 51);
        // A reconcile of a live object sweeps out the objects not seen since.
        memory.count("live", true, start + MINUTE + SECOND);
        assert_eq!(memory.len(), 1);
        memory.forget("live");
        assert_eq!(memory.len(), 0);
    }

    #[test]
    fn the_capacity_holds() {
        let start = Instant::now();
        let mut memory = Memory::new(MINUTE, 3);
        for i in 0..10u64 {
            memory.count(&format!("o{i}"), true, start + Duration::from_millis(i));
        }
        assert_eq!(memory.len(), 3);
        // The three seen last stay.
        assert!(
            ["o7", "o8", "o9"]
                .iter()
                .all(|k| memory.entries.contains_key(*k))
        );
    }
}
