//! Retry decisions, taken once for both engines: how long to pause before a retry
//! (resilience4j's `IntervalFunction`, or AWS's "full jitter"), whether the budget still allows
//! one (Finagle's `RetryBudget`), and which results are retried at all (resilience4j's
//! `retryExceptions`, reduced to the model's kinds of result).

use super::CallResult;
use super::call_guard::RetriedAs;
use crate::metrics::{Outcome, ServiceStats};
use crate::scenario::{Backoff, Jitter, Retry, RetryOn, ServiceId};
use crate::time::Nanos;

/// The most retries a client budget stores: a burst of failures after a quiet spell may use
/// up to this many at once (the gRPC default `maxTokens` is 10).
pub const BUDGET_CAP: f64 = 10.0;

/// What a client does after an attempt of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterAttempt {
    /// The outcome is the request's: an answer, or one the policy does not retry.
    Final,
    /// The policy would retry, but the attempts or the budget ran out.
    GivesUp,
    /// The client sends again.
    Again,
}

/// The clients' retry policy (`[load.retry]`) and its budget: the one place both engines
/// ask whether an attempt is sent again and after what pause. resilience4j's `Retry` counts
/// attempts (`maxAttempts` includes the first); Finagle's `RetryBudget` bounds them.
#[derive(Debug, Clone)]
pub struct ClientRetries {
    policy: Option<Retry>,
    budget: Option<RetryBudget>,
}

impl ClientRetries {
    pub fn new(policy: Option<Retry>) -> Self {
        ClientRetries {
            policy,
            budget: policy.and_then(|p| {
                let ratio = p.budget?;
                Some(match p.budget_window {
                    Some(window) => RetryBudget::windowed(ratio, window),
                    None => RetryBudget::new(ratio, BUDGET_CAP),
                })
            }),
        }
    }

    /// Whether the clients retry at all.
    pub fn any(&self) -> bool {
        self.policy.is_some()
    }

    /// A first attempt goes out `now` (it feeds the budget).
    pub fn first_attempt(&mut self, now: Nanos) {
        if let Some(budget) = &mut self.budget {
            budget.on_first_attempt(now);
        }
    }

    /// What follows attempt `attempt` (0: the first) ending in `outcome`, decided `now`.
    /// `Again` takes a retry from the budget.
    pub fn after(&mut self, attempt: u32, outcome: Outcome, now: Nanos) -> AfterAttempt {
        let Some(policy) = self.policy else {
            return AfterAttempt::Final;
        };
        self.decide(attempt, policy.on.retries_outcome(outcome), now)
    }

    /// After attempt `attempt`, whose result the policy does (`retried`) or does not retry.
    fn decide(&mut self, attempt: u32, retried: bool, now: Nanos) -> AfterAttempt {
        let Some(policy) = self.policy else {
            return AfterAttempt::Final;
        };
        // A policy of one attempt never retries: its clients do not give up on retrying
        // (counted as `gave_up`) any more than clients without a policy do.
        if !retried || !policy.retries() {
            return AfterAttempt::Final;
        }
        let budget_allows =
            |b: &mut Option<RetryBudget>| b.as_mut().is_none_or(|b| b.try_retry(now));
        if attempt + 1 < policy.attempts && budget_allows(&mut self.budget) {
            AfterAttempt::Again
        } else {
            AfterAttempt::GivesUp
        }
    }

    /// The pause before attempt `attempt` (from 1), jittered by `u` (`sim::draw::retry_u`).
    pub fn pause(&self, attempt: u32, u: f64) -> Nanos {
        self.policy
            .map_or(Nanos::ZERO, |p| p.backoff.pause(attempt, u))
    }
}

/// resilience4j's `Retry` around each call of a service (`[services.retry]`): the one place
/// both engines ask whether a call's attempt is made again, and after what pause. As in
/// resilience4j's Spring order (`Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call)))))`)
/// every attempt asks the breaker and the limiter again, waits in the pool again and has a
/// timeout of its own; only the last attempt's result completes the call's future.
#[derive(Debug, Clone)]
pub struct CallRetries {
    /// Each service's policy and budget, indexed like the scenario's services.
    services: Vec<ClientRetries>,
    any: bool,
}

impl CallRetries {
    pub fn new(scenario: &crate::scenario::Scenario) -> Self {
        let services: Vec<ClientRetries> = scenario
            .services
            .iter()
            .map(|s| ClientRetries::new(s.retry))
            .collect();
        CallRetries {
            any: services.iter().any(ClientRetries::any),
            services,
        }
    }

    /// Whether any service's calls are retried.
    pub fn any(&self) -> bool {
        self.any
    }

    /// Whether `service`'s calls are retried.
    pub fn retries(&self, service: ServiceId) -> bool {
        self.services.get(service.0).is_some_and(ClientRetries::any)
    }

    /// A first attempt of a call of `service` is made `now` (it feeds the budget).
    pub fn first_attempt(&mut self, service: ServiceId, now: Nanos) {
        if let Some(r) = self.services.get_mut(service.0) {
            r.first_attempt(now);
        }
    }

    /// What follows attempt `attempt` (0: the first) of a call of `service` ending in
    /// `result`, decided `now`. `Again` takes a retry from the budget.
    pub fn after(
        &mut self,
        service: ServiceId,
        attempt: u32,
        result: CallResult,
        now: Nanos,
    ) -> AfterAttempt {
        let Some(r) = self.services.get_mut(service.0) else {
            return AfterAttempt::Final;
        };
        let Some(policy) = r.policy else {
            return AfterAttempt::Final;
        };
        r.decide(attempt, policy.on.retries(result), now)
    }

    /// The pause before attempt `attempt` (from 1) of a call of `service`, jittered by `u`
    /// (`sim::draw::call_retry_u`).
    pub fn pause(&self, service: ServiceId, attempt: u32, u: f64) -> Nanos {
        self.services
            .get(service.0)
            .map_or(Nanos::ZERO, |r| r.pause(attempt, u))
    }

    /// The first attempt of a call of `service` is made `now`: it feeds the budget, and
    /// `stats` (the service's) counts it when the service retries.
    pub fn count_first_attempt(
        &mut self,
        service: ServiceId,
        stats: &mut ServiceStats,
        now: Nanos,
    ) {
        if self.retries(service) {
            self.first_attempt(service, now);
            stats.first_attempts += 1;
        }
    }

    /// Attempt `attempt` (0: the first) of a call of `service` ended in `result`: the pause
    /// before the policy makes the call again, jittered by `u()` (drawn only then), or None
    /// when the result completes the call's future. `stats` (the service's) counts the retry,
    /// or the retries given up.
    pub fn retry_after(
        &mut self,
        service: ServiceId,
        attempt: u32,
        result: CallResult,
        (stats, now): (&mut ServiceStats, Nanos),
        u: impl FnOnce() -> f64,
    ) -> Option<Nanos> {
        match self.after(service, attempt, result, now) {
            AfterAttempt::Final => None,
            AfterAttempt::GivesUp => {
                stats.retries_exhausted += 1;
                None
            }
            AfterAttempt::Again => {
                stats.retries += 1;
                Some(self.pause(service, attempt + 1, u()))
            }
        }
    }
}

pub use crate::scenario::MAX_CALL_ATTEMPTS;

/// Numbers for every attempt of every call of a request: attempt `a` of call `c` (its index in
/// the endpoint, of `calls`) is `c + a x calls`, so attempt 0 keeps the call's own number and
/// a number alone says which call, and which attempt, it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSlots {
    calls: u16,
}

impl CallSlots {
    /// For an endpoint of `calls` calls per request (at least 1).
    pub fn new(calls: usize) -> Self {
        CallSlots {
            calls: u16::try_from(calls.max(1)).unwrap_or(u16::MAX),
        }
    }

    /// The number of attempt `attempt` of call `call`. Validation keeps it within `u16`.
    pub fn slot(self, call: u16, attempt: u32) -> u16 {
        let slot = u32::from(call % self.calls) + attempt * u32::from(self.calls);
        u16::try_from(slot).unwrap_or(u16::MAX)
    }

    /// The call an attempt's number belongs to.
    pub fn call(self, slot: u16) -> u16 {
        // First attempts, nearly every call, need no division.
        if slot < self.calls {
            slot
        } else {
            slot % self.calls
        }
    }

    /// Which attempt of its call a number is (0: the first).
    pub fn attempt(self, slot: u16) -> u32 {
        if slot < self.calls {
            0
        } else {
            u32::from(slot / self.calls)
        }
    }

    /// The number of the next attempt of the same call.
    pub fn next(self, slot: u16) -> u16 {
        self.slot(self.call(slot), self.attempt(slot) + 1)
    }
}

impl Backoff {
    /// The pause before retry number `retry` (1 for the first), given `u`, a uniform draw in
    /// `[0, 1)` that stands for `Math.random()`.
    ///
    /// Like resilience4j, in whole milliseconds: the interval is `wait` in milliseconds,
    /// multiplied `retry - 1` times with each product truncated (`x -> (long) (x *
    /// multiplier)`). `Randomized(f)` then draws `min + u * (max - min + 1)` with `min`/`max` =
    /// interval ∓ f × interval, at least 1 ms, truncated: so `[min, max]` both included. Its
    /// cap applies after the draw, as `ofExponentialRandomBackoff(initial, multiplier, factor,
    /// maxInterval)` takes `min(randomized, maxInterval)`. `Full` caps first, as AWS does, and
    /// draws `u × interval` to the nanosecond.
    pub fn pause(&self, retry: u32, u: f64) -> Nanos {
        let mut interval = self.wait.as_nanos() / 1_000_000;
        for _ in 1..retry {
            // `(long) (x * multiplier)`; Rust's `as` truncates and saturates like Java's cast.
            let next = (interval as f64 * self.multiplier) as u64;
            if next == interval {
                break;
            }
            interval = next;
        }
        let cap = self.max_wait.map_or(u64::MAX, |m| m.as_nanos() / 1_000_000);
        match self.jitter {
            Jitter::None => Nanos::from_millis(interval.min(cap)),
            Jitter::Randomized(factor) => {
                let current = interval as f64;
                let delta = factor * current;
                let (min, max) = (current - delta, current + delta);
                let drawn = (min + u * (max - min + 1.0)).max(1.0) as u64;
                Nanos::from_millis(drawn.min(cap))
            }
            Jitter::Full => Nanos::from_millis_f64(u * interval.min(cap) as f64),
        }
    }
}

/// Fixed-point tokens: a millionth of a retry, so that ten deposits of 0.1 make exactly one.
const TOKEN: u64 = 1_000_000;

/// A retry budget, after Finagle's `RetryBudget` (whose `TokenRetryBudget` deposits on each
/// request and withdraws `1 / percentCanRetry` of a deposit per retry): each first attempt
/// deposits `ratio` of a retry; a retry needs a whole retry in store and takes it. Kept one of
/// two ways:
///
/// - a token bucket holding at most `cap` retries (gRPC's retry throttling, `maxTokens`),
///   whatever their age;
/// - over a window (`[load.retry] budget_window`, Finagle's `ttl`): deposits and retries older
///   than the window no longer count, summed in ten slices as Finagle's `WindowedAdder` sums
///   them (a slice leaves the window whole), so a burst of failures can spend only what the
///   last window's first attempts earned, however quiet the time before it.
///
/// It starts empty: Finagle's `minRetriesPerSec` reserve, which allows a few retries before
/// any traffic, is not modelled, and an empty start keeps the ratio exact from the first
/// request.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    deposit: u64,
    cap: u64,
    balance: u64,
    /// The sums over the window, when the budget has one (then `cap` and `balance` are not
    /// used).
    window: Option<WindowedSum>,
    first_attempts: u64,
    retries: u64,
    denied: u64,
}

impl RetryBudget {
    /// `ratio` retries earned per first attempt (0.1: one retry per ten requests), at most
    /// `cap` retries in store. Negative or NaN values count as 0.
    pub fn new(ratio: f64, cap: f64) -> Self {
        RetryBudget {
            deposit: tokens(ratio),
            cap: tokens(cap),
            balance: 0,
            window: None,
            first_attempts: 0,
            retries: 0,
            denied: 0,
        }
    }

    /// `ratio` retries earned per first attempt, each deposit and retry counting for `window`.
    pub fn windowed(ratio: f64, window: Nanos) -> Self {
        RetryBudget {
            window: Some(WindowedSum::new(window)),
            ..RetryBudget::new(ratio, 0.0)
        }
    }

    /// A request made its first attempt `now`: it earns `ratio` of a retry.
    pub fn on_first_attempt(&mut self, now: Nanos) {
        self.first_attempts += 1;
        match &mut self.window {
            Some(w) => w.add(now, i128::from(self.deposit)),
            None => self.balance = (self.balance + self.deposit).min(self.cap),
        }
    }

    /// A request asks to retry `now`: allowed, taking one retry from the store, if one is
    /// there.
    pub fn try_retry(&mut self, now: Nanos) -> bool {
        let allowed = match &mut self.window {
            Some(w) => {
                let stored = w.sum(now) >= i128::from(TOKEN);
                if stored {
                    w.add(now, -i128::from(TOKEN));
                }
                stored
            }
            None if self.balance >= TOKEN => {
                self.balance -= TOKEN;
                true
            }
            None => false,
        };
        if allowed {
            self.retries += 1;
        } else {
            self.denied += 1;
        }
        allowed
    }

    /// Retries in store, whole and partial (over a window: as of its last change).
    pub fn balance(&self) -> f64 {
        match &self.window {
            Some(w) => w.slices.iter().sum::<i128>() as f64 / TOKEN as f64,
            None => self.balance as f64 / TOKEN as f64,
        }
    }

    pub fn first_attempts(&self) -> u64 {
        self.first_attempts
    }

    /// Retries allowed.
    pub fn retries(&self) -> u64 {
        self.retries
    }

    /// Retries the budget refused.
    pub fn denied(&self) -> u64 {
        self.denied
    }
}

/// Finagle's `WindowedAdder`: a sum over the last `window`, in [`SLICES`] slices of a tenth of
/// it; the oldest slice leaves whole when time moves past it.
#[derive(Debug, Clone)]
struct WindowedSum {
    /// A slice's length, in nanoseconds.
    slice: u64,
    slices: [i128; SLICES],
    /// The number of the slice `now` falls in, as of the last change.
    current: u64,
}

const SLICES: usize = 10;

impl WindowedSum {
    fn new(window: Nanos) -> Self {
        WindowedSum {
            slice: (window.as_nanos() / SLICES as u64).max(1),
            slices: [0; SLICES],
            current: 0,
        }
    }

    /// Moves to `now`'s slice, emptying the slices it passes.
    fn advance(&mut self, now: Nanos) {
        let at = now.as_nanos() / self.slice;
        if at > self.current {
            let passed = (at - self.current).min(SLICES as u64);
            for k in 1..=passed {
                self.slices[((self.current + k) % SLICES as u64) as usize] = 0;
            }
            self.current = at;
        }
    }

    fn add(&mut self, now: Nanos, value: i128) {
        self.advance(now);
        self.slices[(self.current % SLICES as u64) as usize] += value;
    }

    fn sum(&mut self, now: Nanos) -> i128 {
        self.advance(now);
        self.slices.iter().sum()
    }
}

/// `retries` retries in fixed-point tokens, rounded to the nearest; negative and NaN are 0.
fn tokens(retries: f64) -> u64 {
    let t = retries * TOKEN as f64;
    if t.is_nan() || t <= 0.0 {
        0
    } else {
        // Saturates for huge values.
        (t + 0.5) as u64
    }
}

impl RetryOn {
    /// Whether a call that ended so is retried. A success never is.
    pub fn retries(&self, result: CallResult) -> bool {
        match result {
            CallResult::Ok => false,
            CallResult::Failed | CallResult::NoConnection => self.failure,
            CallResult::TimedOut => self.timeout,
            CallResult::Refused(refusal) => match refusal.retried_as {
                RetriedAs::NotPermitted => self.not_permitted,
                RetriedAs::Rejection => self.rejection,
            },
            CallResult::Rejected => self.rejection,
        }
    }

    /// Whether a client retries a request whose attempt ended in `outcome`: its own timeout,
    /// an error answer (500, 503), or no answer at all (a reset, a failed connect).
    pub fn retries_outcome(&self, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Success | Outcome::Partial => false,
            Outcome::Failed => self.failure,
            Outcome::Timeout => self.timeout,
            Outcome::Refused => self.rejection,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::breaker::NOT_PERMITTED;
    use crate::flow::permit::BULKHEAD_FULL;
    use crate::flow::ratelimit::RATE_LIMITED;

    fn ms(ms: u64) -> Nanos {
        Nanos::from_millis(ms)
    }

    fn backoff(wait: u64, multiplier: f64, jitter: Jitter, max_wait: Option<u64>) -> Backoff {
        Backoff {
            wait: ms(wait),
            multiplier,
            jitter,
            max_wait: max_wait.map(ms),
        }
    }

    /// Just below 1, as `Math.random()` can return.
    const ALMOST_1: f64 = 1.0 - f64::EPSILON;

    #[test]
    fn exponential_intervals_truncate_each_product_to_whole_milliseconds() {
        let b = backoff(100, 1.5, Jitter::None, None);
        let pauses: Vec<Nanos> = (1..=5).map(|r| b.pause(r, 0.5)).collect();
        // 337.5 -> 337, then 337 x 1.5 = 505.5 -> 505 (not 100 x 1.5^4 = 506.25).
        assert_eq!(pauses, [ms(100), ms(150), ms(225), ms(337), ms(505)]);
        let capped = backoff(100, 1.5, Jitter::None, Some(300));
        assert_eq!(capped.pause(4, 0.5), ms(300));
    }

    #[test]
    fn randomized_spreads_over_both_bounds_included() {
        // Retry 3: 100 x 2 x 2 = 400 ms, +-50 %: min 200, max 600.
        let b = backoff(100, 2.0, Jitter::Randomized(0.5), None);
        assert_eq!(b.pause(3, 0.0), ms(200));
        // 200 + 0.5 x 401 = 400.5.
        assert_eq!(b.pause(3, 0.5), ms(400));
        // 200 + 401 u reaches 600.99...: the upper bound is drawn too.
        assert_eq!(b.pause(3, ALMOST_1), ms(600));
        assert_eq!(b.pause(1, 0.0), ms(50));
    }

    #[test]
    fn randomized_caps_after_the_draw_and_never_pauses_under_1ms() {
        let b = backoff(100, 2.0, Jitter::Randomized(0.5), Some(500));
        assert_eq!(b.pause(3, 0.0), ms(200));
        assert_eq!(b.pause(3, 0.5), ms(400));
        assert_eq!(b.pause(3, ALMOST_1), ms(500));
        // The cap does not bound the interval the draw spreads around: retry 10 would be
        // 51.2 s, so even u = 0 gives 25.6 s, capped at 500 ms.
        assert_eq!(b.pause(10, 0.0), ms(500));
        let tiny = backoff(1, 1.0, Jitter::Randomized(1.0), None);
        // min 0, max 2: u = 0 draws 0, raised to 1 ms.
        assert_eq!(tiny.pause(1, 0.0), ms(1));
        assert_eq!(tiny.pause(1, ALMOST_1), ms(2));
    }

    #[test]
    fn full_jitter_draws_from_zero_to_the_capped_interval() {
        let b = backoff(100, 2.0, Jitter::Full, None);
        assert_eq!(b.pause(3, 0.0), Nanos::ZERO);
        assert_eq!(b.pause(3, 0.5), ms(200));
        assert_eq!(b.pause(3, 0.999), Nanos::from_micros(399_600));
        let capped = backoff(100, 2.0, Jitter::Full, Some(300));
        assert_eq!(capped.pause(3, 0.5), ms(150));
        assert_eq!(capped.pause(3, ALMOST_1), ms(300));
    }

    #[test]
    fn a_tenth_of_a_retry_per_request_allows_exactly_ten_after_a_hundred() {
        let mut budget = RetryBudget::new(0.1, 100.0);
        assert!(!budget.try_retry(Nanos::ZERO));
        for _ in 0..100 {
            budget.on_first_attempt(Nanos::ZERO);
        }
        let allowed = (0..1000).filter(|_| budget.try_retry(Nanos::ZERO)).count();
        assert_eq!(allowed, 10);
        assert_eq!(budget.retries(), 10);
        assert_eq!(budget.denied(), 991);
        assert_eq!(budget.first_attempts(), 100);
        assert_eq!(budget.balance(), 0.0);
    }

    #[test]
    fn over_a_window_a_deposit_counts_only_while_it_is_in_the_window() {
        // A tenth of a retry per first attempt, a window of 10 s (slices of 1 s). Twenty
        // first attempts at 0 s earn two retries; one is taken at 5 s. At 10 s the slice of
        // 0 s has left the window, the deposits with it, while the retry of 5 s still counts:
        // the budget is in debt, and ten new first attempts only pay it back.
        let s = Nanos::from_secs;
        let mut budget = RetryBudget::windowed(0.1, s(10));
        for _ in 0..20 {
            budget.on_first_attempt(s(0));
        }
        assert!(budget.try_retry(s(5)));
        assert!(
            budget.try_retry(s(9)),
            "9 s: the deposits of 0 s are still in"
        );
        assert!(!budget.try_retry(s(9)));
        for _ in 0..10 {
            budget.on_first_attempt(s(10));
        }
        assert!(
            !budget.try_retry(s(10)),
            "one retry earned, two still counted"
        );
        // At 19 s the retries of 5 s and 9 s have left the window too: the ten first attempts
        // of 10 s have earned one retry, and only one.
        assert!(budget.try_retry(s(19)));
        assert!(!budget.try_retry(s(19)));
        let mut later = RetryBudget::windowed(0.1, s(10));
        for _ in 0..10 {
            later.on_first_attempt(s(0));
        }
        // The bucket without a window would still hold this retry at 30 s.
        assert!(!later.try_retry(s(30)));
        let mut bucket = RetryBudget::new(0.1, BUDGET_CAP);
        for _ in 0..10 {
            bucket.on_first_attempt(s(0));
        }
        assert!(bucket.try_retry(s(30)));
    }

    #[test]
    fn the_budget_stores_no_more_than_its_cap() {
        let mut budget = RetryBudget::new(0.5, 3.0);
        for _ in 0..20 {
            budget.on_first_attempt(Nanos::ZERO);
        }
        assert_eq!(budget.balance(), 3.0);
        assert_eq!((0..10).filter(|_| budget.try_retry(Nanos::ZERO)).count(), 3);
        budget.on_first_attempt(Nanos::ZERO);
        assert!(!budget.try_retry(Nanos::ZERO));
        budget.on_first_attempt(Nanos::ZERO);
        assert!(budget.try_retry(Nanos::ZERO));
    }

    #[test]
    fn a_client_retries_until_its_last_attempt_or_its_budget_runs_out() {
        let retry = |budget| Retry {
            attempts: 3,
            backoff: backoff(200, 2.0, Jitter::None, None),
            budget,
            budget_window: None,
            on: RetryOn {
                timeout: true,
                ..RetryOn::default()
            },
        };
        let mut plain = ClientRetries::new(Some(retry(None)));
        assert_eq!(
            plain.after(0, Outcome::Success, Nanos::ZERO),
            AfterAttempt::Final
        );
        assert_eq!(
            plain.after(0, Outcome::Failed, Nanos::ZERO),
            AfterAttempt::Final
        );
        assert_eq!(
            plain.after(0, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::Again
        );
        assert_eq!(
            plain.after(1, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::Again
        );
        // Attempt 2 is the third of 3.
        assert_eq!(
            plain.after(2, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::GivesUp
        );
        assert_eq!(
            (plain.pause(1, 0.5), plain.pause(2, 0.5)),
            (ms(200), ms(400))
        );
        // Half a retry per request: the second request's timeout is the first retried.
        let mut budgeted = ClientRetries::new(Some(retry(Some(0.5))));
        budgeted.first_attempt(Nanos::ZERO);
        assert_eq!(
            budgeted.after(0, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::GivesUp
        );
        budgeted.first_attempt(Nanos::ZERO);
        assert_eq!(
            budgeted.after(0, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::Again
        );
        assert_eq!(
            budgeted.after(1, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::GivesUp
        );
        let mut none = ClientRetries::new(None);
        assert!(!none.any());
        assert_eq!(
            none.after(0, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::Final
        );
        // One attempt in all is no retry: its timeouts are final, as without a policy.
        let mut single = ClientRetries::new(Some(Retry {
            attempts: 1,
            ..retry(None)
        }));
        assert_eq!(
            single.after(0, Outcome::Timeout, Nanos::ZERO),
            AfterAttempt::Final
        );
    }

    #[test]
    fn every_attempt_of_every_call_has_a_number_that_names_both() {
        // 3 calls: attempt a of call c is c + 3a.
        let slots = CallSlots::new(3);
        assert_eq!(
            [slots.slot(0, 0), slots.slot(2, 0), slots.slot(1, 2)],
            [0, 2, 7]
        );
        assert_eq!((slots.call(7), slots.attempt(7)), (1, 2));
        assert_eq!((slots.call(2), slots.attempt(2)), (2, 0));
        assert_eq!(slots.next(2), 5);
        assert_eq!(slots.next(5), 8);
        // A call's number is its own first attempt's.
        for call in 0..3 {
            assert_eq!(slots.slot(call, 0), call);
        }
    }

    #[test]
    fn a_calls_retry_follows_its_services_policy_and_budget() {
        let policy = Retry {
            attempts: 2,
            backoff: backoff(100, 1.0, Jitter::None, None),
            budget: None,
            budget_window: None,
            on: RetryOn {
                timeout: true,
                ..RetryOn::default()
            },
        };
        let mut retries = CallRetries {
            services: vec![ClientRetries::new(None), ClientRetries::new(Some(policy))],
            any: true,
        };
        let (plain, retried) = (ServiceId(0), ServiceId(1));
        assert!(!retries.retries(plain) && retries.retries(retried));
        assert_eq!(
            retries.after(plain, 0, CallResult::TimedOut, Nanos::ZERO),
            AfterAttempt::Final
        );
        assert_eq!(
            retries.after(retried, 0, CallResult::Failed, Nanos::ZERO),
            AfterAttempt::Final
        );
        assert_eq!(
            retries.after(retried, 0, CallResult::TimedOut, Nanos::ZERO),
            AfterAttempt::Again
        );
        assert_eq!(
            retries.after(retried, 1, CallResult::TimedOut, Nanos::ZERO),
            AfterAttempt::GivesUp
        );
        assert_eq!(retries.pause(retried, 1, 0.5), ms(100));
        assert_eq!(retries.pause(plain, 1, 0.5), Nanos::ZERO);
    }

    #[test]
    fn a_retried_attempt_is_counted_with_its_pause_and_a_last_one_as_given_up() {
        let policy = Retry {
            attempts: 2,
            backoff: backoff(100, 1.0, Jitter::Full, None),
            budget: None,
            budget_window: None,
            on: RetryOn {
                failure: true,
                ..RetryOn::default()
            },
        };
        let mut retries = CallRetries {
            services: vec![ClientRetries::new(Some(policy))],
            any: true,
        };
        let (service, mut stats) = (ServiceId(0), ServiceStats::default());
        retries.count_first_attempt(service, &mut stats, Nanos::ZERO);
        let never = || -> f64 { panic!("no pause is drawn for a final attempt") };
        let ok = retries.retry_after(service, 0, CallResult::Ok, (&mut stats, Nanos::ZERO), never);
        assert_eq!(ok, None);
        let again = retries.retry_after(
            service,
            0,
            CallResult::Failed,
            (&mut stats, Nanos::ZERO),
            || 0.25,
        );
        assert_eq!(again, Some(ms(25)));
        let last = retries.retry_after(
            service,
            1,
            CallResult::Failed,
            (&mut stats, Nanos::ZERO),
            never,
        );
        assert_eq!(last, None);
        assert_eq!(
            (stats.first_attempts, stats.retries, stats.retries_exhausted),
            (1, 1, 1)
        );
    }

    #[test]
    fn only_the_chosen_results_are_retried() {
        let on = RetryOn {
            failure: true,
            rejection: true,
            ..RetryOn::default()
        };
        assert!(!on.retries(CallResult::Ok));
        assert!(on.retries(CallResult::Failed));
        assert!(on.retries(CallResult::NoConnection));
        assert!(!on.retries(CallResult::TimedOut));
        assert!(on.retries(CallResult::Rejected));
        assert!(on.retries(CallResult::Refused(&BULKHEAD_FULL)));
        assert!(!on.retries(CallResult::Refused(&NOT_PERMITTED)));
        let open = RetryOn {
            not_permitted: true,
            ..RetryOn::default()
        };
        assert!(open.retries(CallResult::Refused(&NOT_PERMITTED)));
        assert!(!open.retries(CallResult::Refused(&RATE_LIMITED)));
        assert!(!RetryOn::default().retries(CallResult::Failed));
    }
}
