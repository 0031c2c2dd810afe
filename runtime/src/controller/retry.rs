//! One retry state per object, for every failure class: the decision whether a reconcile may
//! act on an object now, and what a failed attempt does to the wait. Pure: no I/O, no lock,
//! the time passed in, so that a property test can drive it through any sequence of answers,
//! triggers and clock steps (see the tests below).
//!
//! An *episode* starts with a failed attempt (the body's retryable failure, a rejected status,
//! a write that failed for any other reason) and lasts until an attempt succeeds or the
//! object moves to a new generation (or starts being deleted). Within it:
//!
//! - nothing is done for the object before its retry time, whatever caused the reconcile (a
//!   watch event of the object's own write, of another writer, of an owned object; a requeue;
//!   a restart of the loop): the body is not run, so its side effects are not repeated, and
//!   nothing is sent;
//! - the first reconcile at or after the retry time acts (liveness);
//! - the wait after the n-th failed attempt is the [`RequeuePolicy`]'s backoff for n (its
//!   first step, then doubling up to its bound), and never shorter than the API server's
//!   `Retry-After`;
//! - nothing but success, a new generation or the start of the deletion resets the count: a
//!   changed message, time or wording of the answer does not;
//! - each class of failed write is announced once per episode (a refusal at once, a fault
//!   of the moment once it repeats).
//!
//! A 409 from the controller's own precondition is not a failure (the next reconcile starts
//! from the newer copy) and never reaches this state.

use std::time::Duration;

use tokio::time::Instant;

use super::answer::AnswerClass;
use crate::error::RequeuePolicy;

/// What an episode is about: the object's generation and whether it is being deleted. A new
/// one ends the episode (the user changed the spec, or deleted the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moment {
    pub generation: Option<i64>,
    pub deleting: bool,
}

/// Why an attempt failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailureClass {
    /// The body (or a check) failed with a retryable error, or panicked; the status saying
    /// so may have been written.
    Body,
    /// The API server rejected the full status.
    Rejected,
    /// The status could not be written: the answer's class.
    Write(AnswerClass),
}

/// A failed attempt: its class, made on a copy at `read`, after which the object is at
/// `after` (for a kind without a status subresource, a status written moves the generation:
/// its own watch event is not a new moment), and the API server's wait (`Retry-After`), a
/// floor of the backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attempt {
    pub class: FailureClass,
    pub read: Moment,
    pub after: Moment,
    pub retry_after: Option<Duration>,
}

impl Attempt {
    /// A failed attempt that wrote nothing (the object stays at `read`).
    pub(crate) fn at(class: FailureClass, read: Moment) -> Self {
        Self {
            class,
            read,
            after: read,
            retry_after: None,
        }
    }
}

/// The retry state of an object in an episode of failures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Episode {
    /// Failed attempts so far (1 after the first).
    pub attempts: u32,
    /// Nothing is done for the object before it.
    pub retry_at: Instant,
    /// What the episode is about: a reconcile of another moment starts afresh.
    pub moment: Moment,
    /// The class of the last failed attempt.
    pub last: FailureClass,
    /// The classes of failed writes already announced in this episode.
    announced: Vec<AnswerClass>,
}

/// Whether a reconcile may act on the object now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Run the body and write the status.
    Run,
    /// Do nothing: the object's retry time is this far away.
    Wait(Duration),
}

/// What a failed attempt gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failed {
    /// How long until the next attempt.
    pub wait: Duration,
    /// The failed attempts of the episode, this one included.
    pub attempts: u32,
    /// Whether to announce this failure in a Warning Event (a failed write whose class was
    /// not announced in this episode yet).
    pub announce: bool,
}

impl Episode {
    /// Whether a reconcile of the object at `moment` may act at `now`.
    pub(crate) fn gate(episode: Option<&Self>, moment: Moment, now: Instant) -> Gate {
        match episode {
            Some(episode) if episode.moment == moment && now < episode.retry_at => {
                Gate::Wait(episode.retry_at.saturating_duration_since(now))
            }
            _ => Gate::Run,
        }
    }

    /// A failed attempt (see [`Attempt`]) at `now`.
    pub(crate) fn fail(
        episode: &mut Option<Self>,
        attempt: Attempt,
        now: Instant,
        policy: &RequeuePolicy,
    ) -> Failed {
        let Attempt {
            class,
            read,
            after,
            retry_after,
        } = attempt;
        let previous = episode.take().filter(|e| e.moment == read);
        let (attempts, last, mut announced) = match previous {
            Some(e) => (e.attempts.saturating_add(1), Some(e.last), e.announced),
            None => (1, None, Vec::new()),
        };
        let backoff = policy.backoff(attempts);
        let wait = retry_after.map_or(backoff, |floor| backoff.max(floor));
        let announce = match class {
            FailureClass::Write(answer) if !announced.contains(&answer) => {
                answer.announce_at_once() || last == Some(class)
            }
            _ => false,
        };
        if let (true, FailureClass::Write(answer)) = (announce, class) {
            announced.push(answer);
        }
        *episode = Some(Self {
            attempts,
            retry_at: now + wait,
            moment: after,
            last: class,
            announced,
        });
        Failed {
            wait,
            attempts,
            announce,
        }
    }

    /// An announcement whose Event could not be posted: said at the next failure of that
    /// class instead.
    pub(crate) fn unannounce(&mut self, class: AnswerClass) {
        self.announced.retain(|c| *c != class);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn policy() -> RequeuePolicy {
        RequeuePolicy {
            resync: Duration::from_secs(300),
            backoff_initial: Duration::from_secs(5),
            backoff_max: Duration::from_secs(60),
        }
    }

    fn at(generation: i64) -> Moment {
        Moment {
            generation: Some(generation),
            deleting: false,
        }
    }

    #[test]
    fn nothing_is_done_before_the_retry_time_and_the_first_reconcile_after_it_acts() {
        let start = Instant::now();
        let mut episode = None;
        let forbidden = FailureClass::Write(AnswerClass::Refused);
        let failed = Episode::fail(
            &mut episode,
            Attempt::at(forbidden, at(1)),
            start,
            &policy(),
        );
        assert_eq!(
            failed,
            Failed {
                wait: 5 * SECOND,
                attempts: 1,
                announce: true
            }
        );
        let gate = |now| Episode::gate(episode.as_ref(), at(1), now);
        assert_eq!(gate(start), Gate::Wait(5 * SECOND));
        assert_eq!(gate(start + 4 * SECOND), Gate::Wait(SECOND));
        assert_eq!(gate(start + 5 * SECOND), Gate::Run);
        // A new generation, or the deletion, is a new moment: it acts at once.
        assert_eq!(Episode::gate(episode.as_ref(), at(2), start), Gate::Run);
        let deleting = Moment {
            deleting: true,
            ..at(1)
        };
        assert_eq!(Episode::gate(episode.as_ref(), deleting, start), Gate::Run);
    }

    #[test]
    fn the_backoff_doubles_per_attempt_to_its_bound_with_the_servers_wait_as_a_floor() {
        let start = Instant::now();
        let mut episode = None;
        let mut waits = Vec::new();
        let mut now = start;
        for _ in 0..6 {
            let failed = Episode::fail(
                &mut episode,
                Attempt::at(FailureClass::Body, at(1)),
                now,
                &policy(),
            );
            waits.push(failed.wait.as_secs());
            now += failed.wait;
        }
        assert_eq!(waits, [5, 10, 20, 40, 60, 60]);
        let mut episode = None;
        let throttled = FailureClass::Write(AnswerClass::Throttled);
        let failed = Episode::fail(
            &mut episode,
            Attempt {
                retry_after: Some(30 * SECOND),
                ..Attempt::at(throttled, at(1))
            },
            start,
            &policy(),
        );
        assert_eq!(failed.wait, 30 * SECOND);
        let failed = Episode::fail(
            &mut episode,
            Attempt {
                retry_after: Some(SECOND),
                ..Attempt::at(throttled, at(1))
            },
            start,
            &policy(),
        );
        assert_eq!(failed.wait, 10 * SECOND, "the backoff when longer");
    }

    #[test]
    fn a_fault_of_the_moment_is_announced_when_it_repeats_and_each_class_once() {
        let now = Instant::now();
        let mut episode = None;
        let mut announce = |class| {
            Episode::fail(
                &mut episode,
                Attempt::at(FailureClass::Write(class), at(1)),
                now,
                &policy(),
            )
            .announce
        };
        assert!(!announce(AnswerClass::Transient));
        assert!(announce(AnswerClass::Transient));
        assert!(!announce(AnswerClass::Transient));
        assert!(announce(AnswerClass::Refused));
        assert!(!announce(AnswerClass::Refused));
        assert!(
            !announce(AnswerClass::Transient),
            "announced in this episode"
        );
    }

    #[test]
    fn a_write_moving_the_generation_keeps_the_episode() {
        // A kind without a status subresource: the status written moves the generation from
        // 3 to 4, and the watch event of that write brings a copy at 4.
        let now = Instant::now();
        let mut episode = None;
        Episode::fail(
            &mut episode,
            Attempt {
                after: at(4),
                ..Attempt::at(FailureClass::Body, at(3))
            },
            now,
            &policy(),
        );
        assert_eq!(
            Episode::gate(episode.as_ref(), at(4), now),
            Gate::Wait(5 * SECOND)
        );
        let again = Episode::fail(
            &mut episode,
            Attempt {
                after: at(5),
                ..Attempt::at(FailureClass::Body, at(4))
            },
            now + 5 * SECOND,
            &policy(),
        );
        assert_eq!(again.attempts, 2);
    }

    /// What happens at one trigger of a reconcile in the property test.
    #[derive(Clone, Debug)]
    struct Step {
        /// How far the clock moves before the trigger.
        advance_ms: u64,
        /// The user changed the spec before it.
        new_generation: bool,
        /// The outcome if the reconcile acts: success, or a failure of this class.
        outcome: Option<FailureClass>,
        /// The API server's `Retry-After`, in seconds.
        retry_after: Option<u64>,
    }

    fn class() -> impl Strategy<Value = FailureClass> {
        prop_oneof![
            Just(FailureClass::Body),
            Just(FailureClass::Rejected),
            Just(FailureClass::Write(AnswerClass::NoStatusSubresource)),
            Just(FailureClass::Write(AnswerClass::Refused)),
            Just(FailureClass::Write(AnswerClass::Throttled)),
            Just(FailureClass::Write(AnswerClass::Transient)),
            Just(FailureClass::Write(AnswerClass::Rejected)),
        ]
    }

    fn step() -> impl Strategy<Value = Step> {
        (
            prop_oneof![0..200u64, 0..70_000u64],
            prop::bool::weighted(0.05),
            prop::option::weighted(0.8, class()),
            prop::option::weighted(0.2, 1..90u64),
        )
            .prop_map(|(advance_ms, new_generation, outcome, retry_after)| Step {
                advance_ms,
                new_generation,
                outcome,
                retry_after,
            })
    }

    proptest! {
        /// Against a model kept by hand: the gate admits a trigger exactly when the model's
        /// retry time has passed (nothing sent before it, one send at the first trigger
        /// after it), the wait follows the backoff of the episode's attempt count with the
        /// server's wait as a floor, and each class of failed write is announced at most
        /// once per episode; success and a new generation end the episode.
        #[test]
        fn the_gate_and_the_backoff_follow_the_model(steps in prop::collection::vec(step(), 1..120)) {
            let policy = policy();
            let start = Instant::now();
            let mut now = start;
            let mut generation = 1;
            let mut episode: Option<Episode> = None;
            // The model.
            let mut retry_at: Option<Instant> = None;
            let mut attempts = 0u32;
            let mut episode_generation = generation;
            let mut announced: Vec<AnswerClass> = Vec::new();
            let mut last: Option<FailureClass> = None;
            let mut sends = 0usize;
            for step in steps {
                now += Duration::from_millis(step.advance_ms);
                if step.new_generation {
                    generation += 1;
                }
                let model_acts = episode_generation != generation || retry_at.is_none_or(|at| now >= at);
                let gate = Episode::gate(episode.as_ref(), at(generation), now);
                prop_assert_eq!(gate == Gate::Run, model_acts, "gate {:?} at {:?}", gate, now - start);
                if let Gate::Wait(wait) = gate {
                    prop_assert_eq!(Some(now + wait), retry_at);
                    continue;
                }
                sends += 1;
                if episode_generation != generation {
                    attempts = 0;
                    announced.clear();
                    last = None;
                    episode_generation = generation;
                }
                match step.outcome {
                    None => {
                        episode = None;
                        retry_at = None;
                        attempts = 0;
                        announced.clear();
                        last = None;
                    }
                    Some(class) => {
                        let server_wait = step.retry_after.map(Duration::from_secs);
                        let failed = Episode::fail(&mut episode, Attempt { retry_after: server_wait, ..Attempt::at(class, at(generation)) }, now, &policy);
                        attempts += 1;
                        let doublings = (attempts - 1).min(31);
                        let backoff = policy.backoff_initial.saturating_mul(1 << doublings).min(policy.backoff_max);
                        let expected = server_wait.map_or(backoff, |w| w.max(backoff));
                        prop_assert_eq!(failed.attempts, attempts);
                        prop_assert_eq!(failed.wait, expected);
                        let expected_announce = match class {
                            FailureClass::Write(answer) => !announced.contains(&answer)
                                && (answer.announce_at_once() || last == Some(class)),
                            _ => false,
                        };
                        prop_assert_eq!(failed.announce, expected_announce);
                        if let (true, FailureClass::Write(answer)) = (failed.announce, class) {
                            announced.push(answer);
                        }
                        last = Some(class);
                        retry_at = Some(now + expected);
                    }
                }
            }
            prop_assert!(sends >= 1, "the first trigger always acts");
        }
    }
}
