//! What the end of a call's attempt does to its future, decided once for both engines, in
//! resilience4j's decoration order (`Retry(CircuitBreaker(call))`): the breaker that
//! permitted the attempt hears how it went; the service's `Retry` may make the call again
//! after a pause, and the future stays pending meanwhile; otherwise the future completes into
//! the request's verdict (its value, its fallback, or the request's failure).

use crate::metrics::ServiceStats;
use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::{CallGuards, CallResult, CallRetries, Completion, Verdict};

/// An attempt of a call that ended (or whose future `orTimeout` completed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ended<T> {
    pub service: ServiceId,
    /// When its service's breaker permitted it, if one did.
    pub since: Option<Nanos>,
    /// Its attempt (0: the first).
    pub attempt: u32,
    pub result: CallResult,
    /// The thread that completes the future (where a continuation runs).
    pub completer: T,
}

/// What became of the call's future.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The call is made again after this pause; its future stays pending.
    Again(Nanos),
    /// The future completed: the value, the fallback, or the request's failure.
    Completed(Completion),
}

/// The rules an attempt's end goes through, and the service's counters.
#[derive(Debug)]
pub struct Settle<'a> {
    pub guards: &'a mut CallGuards,
    pub retries: &'a mut CallRetries,
    /// The counters of the attempt's service.
    pub stats: &'a mut ServiceStats,
}

impl Settle<'_> {
    /// The attempt `ended` at `now`: its breaker hears it, its `Retry` decides (`u()` jitters
    /// the pause, drawn only for a retry), or its future completes into `verdict`, with the
    /// service's fallback if it has one. Returns what became of the future, and whether a
    /// breaker heard it (so its timed transitions may have moved).
    #[inline]
    pub(super) fn attempt_ended<T: Clone>(
        self,
        verdict: &mut Verdict<T>,
        has_fallback: bool,
        ended: Ended<T>,
        now: Nanos,
        u: impl FnOnce() -> f64,
    ) -> (Settled, bool) {
        let Ended {
            service,
            since,
            attempt,
            result,
            completer,
        } = ended;
        let heard = self.guards.hear(service, since, now, result);
        let again = if self.retries.any() {
            self.retries
                .retry_after(service, attempt, result, self.stats, u)
        } else {
            None
        };
        if let Some(pause) = again {
            return (Settled::Again(pause), heard);
        }
        let completion = verdict.complete(service, has_fallback, result, completer);
        if completion == Completion::FellBack {
            self.stats.fallbacks += 1;
        }
        (Settled::Completed(completion), heard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    #[test]
    fn a_retried_attempt_leaves_the_future_pending_and_the_last_one_completes_it() {
        let set = [
            "services.recommendations.retry.attempts=2".to_string(),
            "services.recommendations.retry.backoff=100ms".to_string(),
        ];
        let scenario = load("circuit-breaker", &set).expect("preset");
        let recs = ServiceId(2);
        let (mut guards, mut retries) = (CallGuards::new(&scenario), CallRetries::new(&scenario));
        let mut stats = ServiceStats::default();
        let mut verdict: Verdict<&str> = Verdict::default();
        let since = guards.admit(recs, ms(0)).expect("a closed breaker").since;
        assert_eq!(since, Some(ms(0)));
        let ended = |attempt, completer| Ended {
            service: recs,
            since,
            attempt,
            result: CallResult::Failed,
            completer,
        };
        fn settle<'a>(
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
        let first = settle(&mut guards, &mut retries, &mut stats).attempt_ended(
            &mut verdict,
            true,
            ended(0, "a"),
            ms(50),
            || 0.5,
        );
        assert_eq!(first, (Settled::Again(ms(100)), true));
        assert_eq!(
            verdict.last_completer(),
            None,
            "the future is still pending"
        );
        let last = settle(&mut guards, &mut retries, &mut stats).attempt_ended(
            &mut verdict,
            true,
            ended(1, "b"),
            ms(200),
            || panic!("no pause is drawn for the last attempt"),
        );
        assert_eq!(last, (Settled::Completed(Completion::FellBack), true));
        assert_eq!(verdict.last_completer(), Some("b"));
        assert_eq!(
            (stats.retries, stats.retries_exhausted, stats.fallbacks),
            (1, 1, 1)
        );
        let unguarded = Ended {
            since: None,
            result: CallResult::Ok,
            ..ended(0, "c")
        };
        let ok = settle(&mut guards, &mut retries, &mut stats).attempt_ended(
            &mut verdict,
            true,
            unguarded,
            ms(300),
            || 0.5,
        );
        assert_eq!(ok, (Settled::Completed(Completion::Ok), false));
    }
}
