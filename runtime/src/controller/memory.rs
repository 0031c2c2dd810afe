//! What the chokepoint remembers of each object between reconciles: its retry state (one
//! episode of failures of any class, see [`retry`](super::retry)), the last status the API
//! server rejected (so that a persistent rejection is a steady state, not a loop), the
//! summary before a write whose outcome is unknown (so its transition Event is not lost),
//! and what the API server made of the last status written when it stored something else
//! (its defaults, a mutating admission policy), so that status is not sent again and again.
//!
//! One state per object per reconcile: a reconcile checks the object's [`Remembered`] out
//! (one lock), every decision reads and changes that copy, and the reconcile checks it back
//! in at its end (one lock), or forgets it; in between, no lock is held and nothing else
//! sees a half-made change.
//!
//! Bounded: an entry goes as soon as it has nothing to remember, when its object is gone
//! (a write answered 404, or its finalizers finished), and when its object was not
//! reconciled for a while: an object deleted without a finalizer gets no last reconcile to
//! say so, while a live object with an entry is requeued well within that time (every entry
//! is kept by a backoff). The map never holds more than its capacity either: past it, the
//! entry seen longest ago goes. Entries are ordered by when they were last seen (an index
//! beside the map), so making room and sweeping cost O(log n) per entry, never a scan of the
//! map. Time is tokio's clock, so tests can pause and advance it.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use tokio::time::Instant;

use super::answer::{Answer, AnswerClass};
use super::retry::{Attempt, Episode, Failed, Gate, Moment};
use crate::condition::ConditionStatus;
use crate::error::RequeuePolicy;

/// The default bound on remembered objects.
pub(crate) const DEFAULT_CAPACITY: usize = 100_000;

/// Per-object memory, keyed by the object's uid (or namespace/name without one).
#[derive(Debug)]
pub(crate) struct Memory {
    entries: HashMap<String, Entry>,
    /// The entries by when they were last seen, oldest first: (seen, sequence, key).
    recency: BTreeSet<(Instant, u64, String)>,
    /// The next sequence number: two entries seen at the same instant stay distinct.
    sequence: u64,
    /// How long an entry outlives the last reconcile of its object.
    ttl: Duration,
    /// The most entries kept.
    capacity: usize,
}

/// What is remembered of one object between its reconciles. A reconcile checks it out of
/// the memory once ([`Memory::checkout`]), decides on and changes its own copy, and checks it
/// back in once at its end ([`Memory::checkin`]): the lock is taken twice per reconcile, and
/// no decision sees a half-made change. kube's Controller never runs two reconciles of one
/// object at once; two run at once by hand would each check in their own copy, the later
/// one kept.
#[derive(Clone, Debug, Default)]
pub(crate) struct Remembered {
    /// The episode of failures under way, if any.
    episode: Option<Episode>,
    rejection: Option<Rejection>,
    /// A transition not announced yet: of a full apply whose answer never came (it may have
    /// landed), or whose Event could not be posted.
    unannounced: Option<Unannounced>,
    stored_as: Option<StoredAs>,
    contest: Option<Contest>,
    /// A second controller's first write of the object landed, and no copy since showed it:
    /// a copy without any field of its own is older than that write.
    first_write_unseen: bool,
}

impl Remembered {
    /// Whether nothing is left to remember.
    fn is_empty(&self) -> bool {
        self.episode.is_none()
            && self.rejection.is_none()
            && self.unannounced.is_none()
            && self.stored_as.is_none()
            && self.contest.is_none()
            && !self.first_write_unseen
    }

    /// Whether a reconcile at `moment` may act at `now`: not before the retry time of an
    /// episode of failures of the same moment.
    pub(crate) fn gate(&self, moment: Moment, now: Instant) -> Gate {
        Episode::gate(self.episode.as_ref(), moment, now)
    }

    /// A failed attempt (see [`Episode::fail`]).
    pub(crate) fn fail(
        &mut self,
        attempt: Attempt,
        now: Instant,
        policy: &RequeuePolicy,
    ) -> Failed {
        Episode::fail(&mut self.episode, attempt, now, policy)
    }

    /// An attempt that succeeded: the episode is over.
    pub(crate) fn succeed(&mut self) {
        self.episode = None;
    }

    /// The Event announcing a failed write of `class` could not be posted: it is said at the
    /// next failure of that class instead.
    pub(crate) fn unannounce(&mut self, class: AnswerClass) {
        if let Some(episode) = self.episode.as_mut() {
            episode.unannounce(class);
        }
    }

    /// Remembers that the status with `fingerprint` was rejected with `message`; the
    /// fallback's state is kept when it is the same status.
    pub(crate) fn reject(&mut self, fingerprint: u64, message: String) -> &Rejection {
        let (fallback_rejected, fallback_announced) = match &self.rejection {
            Some(previous) if previous.fingerprint == fingerprint => (
                previous.fallback_rejected.clone(),
                previous.fallback_announced,
            ),
            _ => (None, false),
        };
        self.rejection.insert(Rejection {
            fingerprint,
            message,
            fallback_rejected,
            fallback_announced,
            fallback_sent: false,
        })
    }

    /// Remembers that the fallback of the rejected status went through.
    pub(crate) fn fallback_sent(&mut self) {
        if let Some(rejection) = self.rejection.as_mut() {
            rejection.fallback_sent = true;
        }
    }

    /// Remembers that the API server rejected the fallback of the rejected status too, with
    /// `answer`.
    pub(crate) fn reject_fallback(&mut self, answer: Answer) {
        if let Some(rejection) = self.rejection.as_mut() {
            rejection.fallback_rejected = Some(answer);
        }
    }

    /// Remembers that the Event saying nothing of the status could be written was recorded.
    pub(crate) fn fallback_announced(&mut self) {
        if let Some(rejection) = self.rejection.as_mut() {
            rejection.fallback_announced = true;
        }
    }

    /// Remembers a transition from `before` to `after` that may have been written and was not
    /// announced. The `before` of the first such is kept (the last one announced); each
    /// `after` is added, the oldest dropped past a few.
    pub(crate) fn unannounced(&mut self, before: Option<Summary>, after: Summary) {
        let pending = self.unannounced.get_or_insert(Unannounced {
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
    pub(crate) fn keep_unannounced(&mut self, pending: Unannounced) {
        self.unannounced = Some(pending);
    }

    /// The transition not announced yet, forgotten (to announce it now, or put it back).
    pub(crate) fn take_unannounced(&mut self) -> Option<Unannounced> {
        self.unannounced.take()
    }

    /// Remembers (or, with `None`, forgets) what the API server made of the status written.
    pub(crate) fn set_stored_as(&mut self, stored_as: Option<StoredAs>) {
        self.stored_as = stored_as;
    }

    /// Remembers that another field manager wrote conditions that this reconciler sets; says
    /// whether it is new, and whether they are taken back now (once the backoff,
    /// `retry_after(attempts)`, has passed).
    pub(crate) fn contested(
        &mut self,
        now: Instant,
        retry_after: impl FnOnce(u32) -> Duration,
    ) -> Contested {
        match &mut self.contest {
            None => {
                let retry_at = now + retry_after(1);
                self.contest = Some(Contest {
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

    /// No other manager writes the reconciler's conditions now: once the last backoff has
    /// passed so, the contest is over (a new one is reported again).
    pub(crate) fn uncontested(&mut self, now: Instant) {
        if self.contest.is_some_and(|c| now >= c.retry_at) {
            self.contest = None;
        }
    }

    /// What the status write decides on ([`plan::first`](super::plan::first)). A second
    /// controller's first write not shown by a copy yet is forgotten by the reading: one
    /// reconcile waits for it (its fields could also have been taken since).
    pub(crate) fn known(&mut self) -> Known {
        Known {
            stored_as: self.stored_as,
            rejection: self.rejection.clone(),
            retry_at: self.episode.as_ref().map(|e| e.retry_at),
            first_write_unseen: std::mem::take(&mut self.first_write_unseen),
        }
    }

    /// Remembers that a second controller's first write landed.
    pub(crate) fn first_write_landed(&mut self) {
        self.first_write_unseen = true;
    }

    /// Forgets a rejection: the status was accepted, or is stored as it is.
    pub(crate) fn accepted(&mut self) {
        self.rejection = None;
    }
}

/// An object's entry in the memory: what is remembered, and when it was last checked in.
#[derive(Debug)]
struct Entry {
    remembered: Remembered,
    /// When the object was last reconciled, and its place in `recency`.
    seen: (Instant, u64),
}

/// What the object's remembered state holds that the write decides on
/// ([`Remembered::known`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Known {
    /// What the API server stored of the last status written, when it was not that status.
    pub stored_as: Option<StoredAs>,
    /// The last status rejected, and what became of its fallback.
    pub rejection: Option<Rejection>,
    /// The retry time of the episode of failures under way.
    pub retry_at: Option<Instant>,
    /// A second controller's first write landed, and no copy since showed it.
    pub first_write_unseen: bool,
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

/// A full status apply the API server rejected. Its retry time is the episode's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The rejected status, its free text (condition messages and times) left out (see
    /// `fingerprint`).
    pub fingerprint: u64,
    /// The API server's message.
    pub message: String,
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
            recency: BTreeSet::new(),
            sequence: 0,
            ttl,
            capacity: capacity.max(1),
        }
    }

    /// How many objects are remembered.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The bound on remembered objects.
    pub(crate) fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        self.make_room(0);
    }

    /// How long entries outlive their object's last reconcile.
    pub(crate) fn set_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl;
    }

    /// What is remembered of `key` (nothing yet: empty), checked out for a reconcile at
    /// `now`; the entries not seen for the ttl are swept out first.
    pub(crate) fn checkout(&mut self, key: &str, now: Instant) -> Remembered {
        self.sweep(now);
        self.entries
            .get(key)
            .map(|entry| entry.remembered.clone())
            .unwrap_or_default()
    }

    /// Puts back what a reconcile of `key` leaves to remember, seen `now`; with nothing to
    /// remember, the entry goes. A new entry makes room first when the map is full.
    pub(crate) fn checkin(&mut self, key: &str, remembered: Remembered, now: Instant) {
        if remembered.is_empty() {
            self.forget(key);
            return;
        }
        if !self.entries.contains_key(key) {
            self.make_room(1);
        }
        let seen = self.next_seen(now);
        let entry = Entry { remembered, seen };
        if let Some(old) = self.entries.insert(key.to_owned(), entry) {
            self.recency
                .remove(&(old.seen.0, old.seen.1, key.to_owned()));
        }
        self.recency.insert((seen.0, seen.1, key.to_owned()));
    }

    /// Forgets the object: it is gone.
    pub(crate) fn forget(&mut self, key: &str) {
        if let Some(entry) = self.entries.remove(key) {
            self.recency
                .remove(&(entry.seen.0, entry.seen.1, key.to_owned()));
        }
    }

    fn next_seen(&mut self, now: Instant) -> (Instant, u64) {
        self.sequence = self.sequence.wrapping_add(1);
        (now, self.sequence)
    }

    /// Drops the entries seen longest ago until `room` more fit.
    fn make_room(&mut self, room: usize) {
        while self.entries.len() + room > self.capacity {
            let Some((_, _, oldest)) = self.recency.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
        }
    }

    /// Sweeps out entries not seen for `ttl`: the oldest first, so a sweep costs only what
    /// it removes.
    fn sweep(&mut self, now: Instant) {
        while let Some((seen, ..)) = self.recency.first() {
            if now.saturating_duration_since(*seen) < self.ttl {
                break;
            }
            if let Some((_, _, key)) = self.recency.pop_first() {
                self.entries.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::retry::FailureClass;
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);
    const SECOND: Duration = Duration::from_secs(1);

    fn policy() -> RequeuePolicy {
        RequeuePolicy {
            resync: 5 * MINUTE,
            backoff_initial: 5 * SECOND,
            backoff_max: MINUTE,
        }
    }

    const AT: Moment = Moment {
        generation: Some(1),
        deleting: false,
    };

    /// A reconcile of `key` at `now` whose attempt failed: checked out, failed, checked in.
    fn fail(memory: &mut Memory, key: &str, now: Instant) -> Failed {
        let mut remembered = memory.checkout(key, now);
        let failed = remembered.fail(Attempt::at(FailureClass::Body, AT), now, &policy());
        memory.checkin(key, remembered, now);
        failed
    }

    #[test]
    fn an_episode_gates_until_its_retry_time_and_ends_on_success() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        assert_eq!(fail(&mut memory, "a", now).attempts, 1);
        assert_eq!(
            memory.checkout("a", now).gate(AT, now),
            Gate::Wait(5 * SECOND)
        );
        assert_eq!(memory.checkout("b", now).gate(AT, now), Gate::Run);
        assert_eq!(fail(&mut memory, "a", now + 5 * SECOND).attempts, 2);
        let mut remembered = memory.checkout("a", now);
        assert_eq!(remembered.known().retry_at, Some(now + 15 * SECOND));
        assert_eq!(memory.len(), 1);
        remembered.succeed();
        memory.checkin("a", remembered, now);
        assert_eq!(memory.len(), 0, "nothing left to remember");
        assert_eq!(fail(&mut memory, "a", now).attempts, 1);
    }

    #[test]
    fn a_rejection_keeps_its_fallback_state_for_the_same_status() {
        let mut remembered = Remembered::default();
        remembered.reject(7, "no".into());
        let no_either = Answer {
            code: 422,
            message: "no either".into(),
        };
        remembered.reject_fallback(no_either.clone());
        let again = remembered.reject(7, "no".into());
        assert_eq!(again.fallback_rejected, Some(no_either));
        // Another status: its fallback has not been tried.
        let other = remembered.reject(8, "no".into());
        assert_eq!(other.fallback_rejected, None);
        remembered.accepted();
        assert_eq!(remembered.known().rejection, None);
        assert!(remembered.is_empty());
    }

    #[test]
    fn an_announcement_not_posted_is_made_at_the_next_failure_of_its_class() {
        let now = Instant::now();
        let mut remembered = Remembered::default();
        let refused = Attempt::at(FailureClass::Write(AnswerClass::Refused), AT);
        assert!(remembered.fail(refused, now, &policy()).announce);
        assert!(!remembered.fail(refused, now, &policy()).announce);
        remembered.unannounce(AnswerClass::Refused);
        assert!(remembered.fail(refused, now, &policy()).announce);
    }

    #[test]
    fn the_summary_before_a_lost_answer_is_kept_until_taken() {
        let mut remembered = Remembered::default();
        let summary = |status, reason: &str| (status, reason.to_owned());
        let before = Some(summary(ConditionStatus::False, "Reconciling"));
        let first = summary(ConditionStatus::True, "Succeeded");
        let second = summary(ConditionStatus::False, "Failed");
        remembered.unannounced(before.clone(), first.clone());
        // A second lost answer keeps the first summary before (the one last announced) and
        // adds its own after.
        remembered.unannounced(None, second.clone());
        remembered.unannounced(None, second.clone());
        assert_eq!(
            remembered.take_unannounced(),
            Some(Unannounced {
                before,
                afters: vec![first, second]
            })
        );
        assert_eq!(remembered.take_unannounced(), None);
        assert!(remembered.is_empty());
    }

    #[test]
    fn what_the_server_stored_is_kept_until_forgotten() {
        let mut remembered = Remembered::default();
        let stored_as = StoredAs { sent: 1, stored: 2 };
        remembered.set_stored_as(Some(stored_as));
        assert_eq!(remembered.known().stored_as, Some(stored_as));
        remembered.succeed();
        assert_eq!(
            remembered.known().stored_as,
            Some(stored_as),
            "kept past a success"
        );
        remembered.set_stored_as(None);
        assert!(remembered.is_empty());
    }

    #[test]
    fn a_second_controllers_unseen_first_write_is_read_once() {
        let mut remembered = Remembered::default();
        remembered.first_write_landed();
        assert!(remembered.known().first_write_unseen);
        assert!(
            !remembered.known().first_write_unseen,
            "one reconcile waits"
        );
        assert!(remembered.is_empty());
    }

    #[test]
    fn a_contest_is_announced_once_and_taken_back_on_its_backoff() {
        let now = Instant::now();
        let mut remembered = Remembered::default();
        let backoff = |attempts: u32| Duration::from_secs(5 << attempts);
        assert_eq!(
            remembered.contested(now, backoff),
            Contested::Announce(now + 10 * SECOND)
        );
        assert_eq!(
            remembered.contested(now + SECOND, backoff),
            Contested::Leave(now + 10 * SECOND)
        );
        // Uncontested within the backoff: remembered still (a fight that goes on is not
        // announced again).
        remembered.uncontested(now + SECOND);
        let later = now + 10 * SECOND;
        assert_eq!(
            remembered.contested(later, backoff),
            Contested::TakeBack(later + 20 * SECOND)
        );
        remembered.uncontested(later + 20 * SECOND);
        assert!(remembered.is_empty(), "over");
    }

    #[test]
    fn a_checked_out_copy_changes_nothing_until_checked_in() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 10);
        fail(&mut memory, "a", now);
        let mut copy = memory.checkout("a", now);
        copy.succeed();
        assert_eq!(
            memory.checkout("a", now).gate(AT, now),
            Gate::Wait(5 * SECOND)
        );
        memory.checkin("a", copy, now);
        assert_eq!(memory.len(), 0, "checked in empty: gone");
        assert!(memory.recency.is_empty());
    }

    #[test]
    fn entries_not_seen_for_the_ttl_are_swept() {
        let start = Instant::now();
        let mut memory = Memory::new(MINUTE, 100);
        for i in 0..50 {
            fail(&mut memory, &format!("o{i}"), start);
        }
        fail(&mut memory, "live", start + MINUTE / 2);
        assert_eq!(memory.len(), 51);
        // A reconcile of a live object sweeps out the objects not seen since.
        memory.checkout("live", start + MINUTE + SECOND);
        assert_eq!(memory.len(), 1);
        assert_eq!(memory.recency.len(), 1);
        memory.forget("live");
        assert_eq!(memory.len(), 0);
        assert!(memory.recency.is_empty());
    }

    #[test]
    fn the_capacity_holds_and_the_entries_seen_last_stay() {
        let start = Instant::now();
        let mut memory = Memory::new(MINUTE, 3);
        for i in 0..10u64 {
            fail(
                &mut memory,
                &format!("o{i}"),
                start + Duration::from_millis(i),
            );
        }
        assert_eq!(memory.len(), 3);
        assert!(
            ["o7", "o8", "o9"]
                .iter()
                .all(|k| memory.entries.contains_key(*k))
        );
        // Seen again, o7 is the newest: o8 goes next.
        fail(&mut memory, "o7", start + SECOND);
        fail(&mut memory, "n", start + 2 * SECOND);
        assert!(
            ["o7", "o9", "n"]
                .iter()
                .all(|k| memory.entries.contains_key(*k))
        );
        assert_eq!(memory.recency.len(), 3, "the index follows the map");
        memory.set_capacity(1);
        assert_eq!(memory.entries.keys().collect::<Vec<_>>(), ["n"]);
    }

    #[test]
    fn entries_seen_at_the_same_instant_stay_distinct_in_the_index() {
        let now = Instant::now();
        let mut memory = Memory::new(MINUTE, 2);
        fail(&mut memory, "a", now);
        fail(&mut memory, "b", now);
        fail(&mut memory, "c", now);
        assert!(!memory.entries.contains_key("a"), "the first seen goes");
        assert_eq!(memory.recency.len(), 2);
    }
}
