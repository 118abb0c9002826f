//! The future of one call of a request (what `supplyAsync` returns, or the value an inline
//! call gives its caller) across the attempts its service's `Retry` makes, as a state machine
//! with no I/O that both engines hold, one per call:
//!
//! ```text
//!   make ──► guards ──► Go / Wait(reserved permit) / Queued(until released) / Failed(result)
//!     Open(attempt n) ──claim(n)──► Claimed ──settle──► Complete
//!                                      │
//!                                      └── Again(pause) ──► Open(attempt n + 1)
//! ```
//!
//! Only the current attempt may complete the future, and only once: the first of its end
//! and its `orTimeout` claims it, and whatever comes later (the call that goes on after its
//! timeout, an attempt a retry replaced, a queued attempt dequeued after its future
//! completed) finds it closed. The attempt's way through its service's guards (`Passage`: the
//! next guard to ask, the guards that hear its end) is kept with the future, and the guards
//! that admitted it hear that attempt's end. How an attempt is carried out (a pool's thread, the
//! caller's, an event or an await) is the engine's.

use crate::scenario::ServiceId;
use crate::time::Nanos;

pub use super::call_guard::Made;
use super::call_guard::{GuardAsk, Passage};
use super::settle::{Settle, Settled};
use super::{CallGuards, CallResult, Completion, Verdict};

/// One call's future, across its attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallFuture {
    /// The attempt that may complete it (0: the first).
    attempt: u32,
    state: FutureState,
    /// The current attempt's way through its service's guards.
    passage: Passage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FutureState {
    /// Pending: the current attempt may complete it (it is being made, waits for a permit,
    /// is queued or runs, or is the retry a pause is waiting for).
    Open,
    /// The current attempt's end (or its timeout) has claimed it and is being settled.
    Claimed,
    /// Completed: its value, its fallback, or the request's failure.
    Complete,
}

impl CallFuture {
    /// A call not made yet: its first attempt may complete it.
    pub const NEW: CallFuture = CallFuture {
        attempt: 0,
        state: FutureState::Open,
        passage: Passage {
            since: Nanos::ZERO,
            next: 0,
            hear: super::call_guard::GuardSet::EMPTY,
            holds: super::call_guard::GuardSet::EMPTY,
        },
    };

    /// The attempt that may complete the future now.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Whether news of attempt `attempt` (its end, its timeout) may still complete the
    /// future: it is pending, and no retry has replaced that attempt.
    #[inline]
    pub fn open_to(&self, attempt: u32) -> bool {
        self.state == FutureState::Open && self.attempt == attempt
    }

    /// The caller makes the current attempt of a call of `service` at `ask.now`: its guards
    /// decide in turn (`CallGuards::admit`), and the future remembers which of them hear how
    /// the attempt ends.
    pub fn make(&mut self, guards: &mut CallGuards, service: ServiceId, ask: GuardAsk) -> Made {
        guards.admit(service, &mut self.passage, ask)
    }

    /// The current attempt's way through its guards, for an engine that asks them apart
    /// from the future (under its own lock, `CallGuards::admit`, `resume`, `granted`,
    /// `gave_up`): as [`CallFuture::make`].
    pub fn passage_mut(&mut self) -> &mut Passage {
        &mut self.passage
    }

    /// Attempt `attempt` ended, or its `orTimeout` fired: true when this claims the future
    /// (it was open to that attempt), which [`CallFuture::settle`] then settles; false when
    /// the news comes too late.
    #[inline]
    pub fn claim(&mut self, attempt: u32) -> bool {
        let open = self.open_to(attempt);
        if open {
            self.state = FutureState::Claimed;
        }
        open
    }

    /// Settles the claimed attempt, which `ended` at `now` (`flow::settle`'s rules): the
    /// guards that admitted it hear it; its `Retry` reopens the future to the next attempt
    /// after a pause (`u()` jitters the pause, drawn only for a retry); or the future
    /// completes into `verdict`, with the service's fallback if it has one. Returns what
    /// became of it, and whether a guard heard it (so its timed transitions may have moved).
    #[inline]
    pub fn settle<T: Clone>(
        &mut self,
        rules: Settle<'_>,
        verdict: &mut Verdict<T>,
        has_fallback: bool,
        ended: Attempted<T>,
        now: Nanos,
        u: impl FnOnce() -> f64,
    ) -> (Settled, bool) {
        debug_assert_eq!(
            self.state,
            FutureState::Claimed,
            "settled before it was claimed"
        );
        let Attempted {
            service,
            result,
            completer,
        } = ended;
        let heard = rules.guards.hear(service, &mut self.passage, now, result);
        let again = if rules.retries.any() {
            let attempt = self.attempt;
            rules
                .retries
                .retry_after(service, attempt, result, (rules.stats, now), u)
        } else {
            None
        };
        let settled = match again {
            Some(pause) => Settled::Again(pause),
            None => {
                let completion = verdict.complete(service, has_fallback, result, completer);
                if completion == Completion::FellBack {
                    rules.stats.fallbacks += 1;
                }
                Settled::Completed(completion)
            }
        };
        self.state = match settled {
            Settled::Again(_) => {
                self.attempt += 1;
                FutureState::Open
            }
            Settled::Completed(_) => FutureState::Complete,
        };
        (settled, heard)
    }
}

/// How an attempt of a call ended, as its engine saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempted<T> {
    pub service: ServiceId,
    pub result: CallResult,
    /// The thread that completes the future (where a continuation runs).
    pub completer: T,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::call_guard::{GuardSet, Waiter};
    use crate::flow::ratelimit::RATE_LIMITED;
    use crate::flow::{CallRetries, Completion};
    use crate::metrics::ServiceStats;
    use crate::scenario::{Scenario, Strategy, load};

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    const RECS: ServiceId = ServiceId(2);

    /// Made now: no permit is held.
    const GO: Made = Made::Go(GuardSet::EMPTY);

    /// An attempt made at `now` by a request served under a strategy with no bulkhead.
    fn ask(now: Nanos) -> GuardAsk {
        GuardAsk {
            now,
            strategy: Strategy::Bulkhead,
            waiter: Waiter(0),
        }
    }

    fn scenario(set: &[&str]) -> Scenario {
        let set: Vec<String> = set.iter().map(|s| (*s).to_string()).collect();
        load("circuit-breaker", &set).expect("preset")
    }

    /// The rules an attempt's end goes through, over these guards, retries and counters.
    fn rules<'a>(
        guards: &'a mut CallGuards,
        retries: &'a mut CallRetries,
        stats: &'a mut ServiceStats,
    ) -> Settle<'a> {
        Settle {
            guards,
            retries,
            stats,
        }
    }

    /// Settles `future`'s claimed attempt with `result`, completed by `who`.
    fn settle(
        future: &mut CallFuture,
        (guards, retries): (&mut CallGuards, &mut CallRetries),
        verdict: &mut Verdict<&'static str>,
        result: CallResult,
        who: &'static str,
        now: Nanos,
    ) -> (Settled, bool) {
        let mut stats = ServiceStats::default();
        let rules = rules(guards, retries, &mut stats);
        settle_with(future, rules, verdict, (RECS, result, who), now, || 0.5)
    }

    /// Settles `future`'s claimed attempt of `service` with `result`, completed by `who`,
    /// under `rules`, a retry's pause jittered by `u`; the service has a fallback.
    fn settle_with(
        future: &mut CallFuture,
        rules: Settle<'_>,
        verdict: &mut Verdict<&'static str>,
        (service, result, completer): (ServiceId, CallResult, &'static str),
        now: Nanos,
        u: impl FnOnce() -> f64,
    ) -> (Settled, bool) {
        let ended = Attempted {
            service,
            result,
            completer,
        };
        future.settle(rules, verdict, true, ended, now, u)
    }

    #[test]
    fn the_first_news_of_the_current_attempt_completes_it_and_nothing_after() {
        let s = scenario(&[]);
        let (mut guards, mut retries) = (CallGuards::new(&s), CallRetries::new(&s));
        let mut verdict = Verdict::default();
        let mut future = CallFuture::NEW;
        assert_eq!(future.make(&mut guards, RECS, ask(ms(0))), GO);
        // Its orTimeout fires first: it claims the future; the call's own end comes too late.
        assert!(future.claim(0));
        assert!(!future.claim(0), "claimed once");
        let settled = settle(
            &mut future,
            (&mut guards, &mut retries),
            &mut verdict,
            CallResult::TimedOut,
            "delayer",
            ms(10),
        );
        assert_eq!(settled, (Settled::Completed(Completion::FellBack), true));
        assert!(!future.open_to(0) && !future.claim(0), "complete");
        assert_eq!(verdict.last_completer(), Some("delayer"));
    }

    #[test]
    fn a_retry_reopens_the_future_to_the_next_attempt_only() {
        let s = scenario(&[
            "services.recommendations.retry.attempts=2",
            "services.recommendations.retry.backoff=100ms",
        ]);
        let (mut guards, mut retries) = (CallGuards::new(&s), CallRetries::new(&s));
        let mut verdict = Verdict::default();
        let mut future = CallFuture::NEW;
        assert_eq!(future.make(&mut guards, RECS, ask(ms(0))), GO);
        assert!(future.claim(0));
        let first = settle(
            &mut future,
            (&mut guards, &mut retries),
            &mut verdict,
            CallResult::Failed,
            "a",
            ms(50),
        );
        assert_eq!(
            first,
            (Settled::Again(ms(100)), true),
            "the breaker heard it"
        );
        assert_eq!(future.attempt(), 1);
        assert!(
            !future.open_to(0),
            "the replaced attempt can no longer complete it"
        );
        assert!(future.open_to(1));
        assert_eq!(verdict.last_completer(), None, "still pending");
        // The second attempt is not made through the guards here: no breaker hears it.
        assert!(future.claim(1));
        let last = settle(
            &mut future,
            (&mut guards, &mut retries),
            &mut verdict,
            CallResult::Ok,
            "b",
            ms(200),
        );
        assert_eq!(last, (Settled::Completed(Completion::Ok), false));
        assert!(!future.open_to(1));
    }

    #[test]
    fn a_retried_attempt_leaves_the_future_pending_and_the_last_one_completes_it() {
        let s = scenario(&[
            "services.recommendations.retry.attempts=2",
            "services.recommendations.retry.backoff=100ms",
        ]);
        let (mut guards, mut retries) = (CallGuards::new(&s), CallRetries::new(&s));
        let mut stats = ServiceStats::default();
        let mut verdict: Verdict<&'static str> = Verdict::default();
        let mut future = CallFuture::NEW;
        assert_eq!(
            future.make(&mut guards, RECS, ask(ms(0))),
            GO,
            "a closed breaker"
        );
        let failed = |who| (RECS, CallResult::Failed, who);
        assert!(future.claim(0));
        let rules_now = rules(&mut guards, &mut retries, &mut stats);
        let first = settle_with(
            &mut future,
            rules_now,
            &mut verdict,
            failed("a"),
            ms(50),
            || 0.5,
        );
        assert_eq!(first, (Settled::Again(ms(100)), true));
        assert_eq!(
            verdict.last_completer(),
            None,
            "the future is still pending"
        );
        assert_eq!(future.make(&mut guards, RECS, ask(ms(150))), GO);
        assert!(future.claim(1));
        let rules_now = rules(&mut guards, &mut retries, &mut stats);
        let last = settle_with(
            &mut future,
            rules_now,
            &mut verdict,
            failed("b"),
            ms(200),
            || panic!("no pause is drawn for the last attempt"),
        );
        assert_eq!(last, (Settled::Completed(Completion::FellBack), true));
        assert_eq!(verdict.last_completer(), Some("b"));
        assert_eq!(
            (stats.retries, stats.retries_exhausted, stats.fallbacks),
            (1, 1, 1)
        );
        // A call of a service without a breaker: nothing hears it.
        let mut unguarded = CallFuture::NEW;
        assert_eq!(unguarded.make(&mut guards, ServiceId(0), ask(ms(300))), GO);
        assert!(unguarded.claim(0));
        let ok = (ServiceId(0), CallResult::Ok, "c");
        let rules_now = rules(&mut guards, &mut retries, &mut stats);
        let settled = settle_with(&mut unguarded, rules_now, &mut verdict, ok, ms(300), || 0.5);
        assert_eq!(settled, (Settled::Completed(Completion::Ok), false));
    }

    #[test]
    fn the_guards_answer_when_the_attempt_is_made() {
        // A limiter of one permit a second that lets a caller wait up to 1.5 s for one: the
        // second caller reserves the next second's, the third would wait 2 s.
        let s = scenario(&[
            "services.recommendations.rate_limit.limit=1",
            "services.recommendations.rate_limit.period=1s",
            "services.recommendations.rate_limit.timeout=1500ms",
        ]);
        let mut guards = CallGuards::new(&s);
        let (mut a, mut b) = (CallFuture::NEW, CallFuture::NEW);
        assert_eq!(a.make(&mut guards, RECS, ask(ms(0))), GO);
        assert_eq!(b.make(&mut guards, RECS, ask(ms(0))), Made::Wait(ms(1000)));
        let mut c = CallFuture::NEW;
        assert_eq!(
            c.make(&mut guards, RECS, ask(ms(0))),
            Made::Failed(CallResult::Refused(&RATE_LIMITED))
        );
        // A service without guards lets every attempt go.
        assert_eq!(c.make(&mut guards, ServiceId(0), ask(ms(0))), GO);
    }
}
