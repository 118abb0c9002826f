//! An adaptive concurrency limit in front of a service's calls (`[services.adaptive_limit]`):
//! Netflix's concurrency-limits (`com.netflix.concurrency.limits`), a `SimpleLimiter` over an
//! `AIMDLimit` or a `Gradient2Limit`. A call is admitted while fewer calls than the limit are
//! in flight (`AbstractLimiter.acquire`); beyond it, it fails at once (the library's rejected
//! listener: its servlet filter answers 429, its gRPC interceptor `UNAVAILABLE`), counted as
//! the guard's refusal. Each admitted call's end is a sample (`Listener.onSuccess`,
//! `onDropped`, `onIgnore`) that moves the limit.
//!
//! Envoy's adaptive concurrency filter (`envoy.filters.http.adaptive_concurrency`) is the same
//! idea on the server's side, with a gradient of its own: it measures a minimum RTT in
//! windows where it pins the concurrency low, and sets `limit = limit * (minRTT + buffer) /
//! sampleRTT + sqrt(limit)`, rejecting the excess with 503. Gradient2 needs no such pinned
//! windows: a long-window average of the RTT stands for the unloaded one.

use std::any::Any;

use crate::flow::CallResult;
use crate::flow::call_guard::{
    Admit, CallGuard, GuardAsk, GuardRefusal, GuardRow, Heard, RetriedAs,
};
use crate::scenario::{AdaptiveLimitConfig, LimitAlgorithm, Scenario, ServiceId};
use crate::time::Nanos;

/// A call beyond the limit: it never runs.
pub static LIMIT_EXCEEDED: GuardRefusal = GuardRefusal {
    guard: "adaptive limit",
    exception: "concurrency limit exceeded",
    label: "refused (adaptive limit)",
    retried_as: RetriedAs::Rejection,
    counts_rejected: false,
};

/// `service`'s adaptive limit, if it has one.
pub fn guard(scenario: &Scenario, service: ServiceId) -> Option<Box<dyn CallGuard>> {
    let config = scenario.services.get(service.0)?.adaptive_limit?;
    Some(Box::new(AdaptiveLimit::new(config)))
}

/// One service's limit and the calls it has in flight.
#[derive(Debug, Clone)]
pub struct AdaptiveLimit {
    config: AdaptiveLimitConfig,
    /// `Gradient2Limit.estimatedLimit` (fractional); `AIMDLimit`'s is whole.
    estimate: f64,
    in_flight: u32,
    /// Gradient2's long-window RTT, in nanoseconds.
    long_rtt: ExpAvg,
    lowest: u32,
    samples: u64,
    refused: u64,
}

/// How a call's end counts as a sample: the library's listener calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LimitSample {
    /// `onSuccess`: a sample.
    Success,
    /// `onDropped`: a sample that says the downstream is overloaded (a timeout, no
    /// connection, a rejected submission).
    Dropped,
    /// `onIgnore`: no sample (the call failed for another reason, or a later guard refused it).
    Ignored,
}

impl AdaptiveLimit {
    pub fn new(config: AdaptiveLimitConfig) -> Self {
        AdaptiveLimit {
            config,
            estimate: f64::from(config.initial),
            in_flight: 0,
            long_rtt: ExpAvg::new(match config.algorithm {
                LimitAlgorithm::Gradient2 { long_window, .. } => long_window,
                LimitAlgorithm::Aimd { .. } => 1,
            }),
            lowest: config.initial,
            samples: 0,
            refused: 0,
        }
    }

    /// The limit now (`AbstractLimit.getLimit()`: the estimate cut to a whole number).
    pub fn limit(&self) -> u32 {
        self.estimate as u32
    }

    /// Calls admitted whose end it has not heard yet.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// A call that was admitted with `in_flight` calls in flight (itself included) ended
    /// after `rtt` (`AbstractLimit.onSample`).
    fn sample(&mut self, rtt: Nanos, in_flight: u32, dropped: bool) {
        self.samples += 1;
        self.estimate = match self.config.algorithm {
            LimitAlgorithm::Aimd {
                backoff_ratio,
                timeout,
            } => self.aimd(rtt, in_flight, dropped, (backoff_ratio, timeout)),
            LimitAlgorithm::Gradient2 {
                smoothing,
                tolerance,
                queue_size,
                ..
            } => self.gradient2(rtt, in_flight, (smoothing, tolerance, queue_size)),
        };
        self.lowest = self.lowest.min(self.limit());
    }

    /// `AIMDLimit._update`: on a drop, or an RTT beyond its timeout, the limit is cut to
    /// `(int) (limit * backoffRatio)`; else, when at least half the limit is in flight
    /// (`inflight * 2 >= limit`), it grows by one; then it is kept within `[minLimit,
    /// maxLimit]`.
    fn aimd(
        &self,
        rtt: Nanos,
        in_flight: u32,
        dropped: bool,
        (ratio, timeout): (f64, Nanos),
    ) -> f64 {
        let limit = self.limit();
        let next = if dropped || rtt > timeout {
            (f64::from(limit) * ratio) as u32
        } else if u64::from(in_flight) * 2 >= u64::from(limit) {
            limit + 1
        } else {
            limit
        };
        f64::from(next.max(self.config.min).min(self.config.max))
    }

    /// `Gradient2Limit._update` (a drop is a sample like any other; it ignores `didDrop`):
    /// the long RTT is an exponential average over `longWindow` samples (the plain mean of the
    /// first 10, `ExpAvgMeasurement`'s warm-up), cut by 5 % when it is over twice the sample
    /// (latency back to normal after a long overload). While fewer than half the limit are in
    /// flight the limit stays (the caller, not the service, limits the rate). Else
    /// `gradient = max(0.5, min(1.0, tolerance * longRtt / shortRtt))`, `newLimit = limit *
    /// gradient + queueSize`, smoothed as `limit * (1 - smoothing) + newLimit * smoothing`,
    /// within `[minLimit, maxConcurrency]`.
    fn gradient2(
        &mut self,
        rtt: Nanos,
        in_flight: u32,
        (smoothing, tolerance, queue): (f64, f64, u32),
    ) -> f64 {
        let short = rtt.as_nanos() as f64;
        let long = self.long_rtt.add(short);
        if long / short > 2.0 {
            self.long_rtt.scale(0.95);
        }
        if f64::from(in_flight) < self.estimate / 2.0 {
            return self.estimate;
        }
        let gradient = (tolerance * long / short).clamp(0.5, 1.0);
        let next = self.estimate * gradient + f64::from(queue);
        let next = self.estimate * (1.0 - smoothing) + next * smoothing;
        next.min(f64::from(self.config.max))
            .max(f64::from(self.config.min))
    }
}

impl CallGuard for AdaptiveLimit {
    fn hears(&self) -> bool {
        true
    }

    /// `SimpleLimiter.acquire`: refused when as many calls as the limit are in flight.
    fn admit(&mut self, _ask: GuardAsk) -> Admit {
        if self.in_flight >= self.limit() {
            self.refused += 1;
            Admit::Refuse(&LIMIT_EXCEEDED)
        } else {
            self.in_flight += 1;
            Admit::Go
        }
    }

    /// The library passes the in-flight count taken when the call was admitted; a guard
    /// hears no state of the call's own, so this takes the count as the call ends (itself
    /// included). A call whose RTT is zero moves nothing (its gradient is undefined).
    fn hear(&mut self, heard: Heard) {
        let in_flight = self.in_flight;
        self.in_flight = self.in_flight.saturating_sub(1);
        let sample = match heard.result {
            CallResult::Ok => LimitSample::Success,
            CallResult::TimedOut | CallResult::NoConnection | CallResult::Rejected => {
                LimitSample::Dropped
            }
            CallResult::Failed | CallResult::Refused(_) => LimitSample::Ignored,
        };
        if sample != LimitSample::Ignored && heard.latency > Nanos::ZERO {
            self.sample(heard.latency, in_flight, sample == LimitSample::Dropped);
        }
    }

    fn gave_up(&mut self) -> &'static GuardRefusal {
        &LIMIT_EXCEEDED
    }

    fn row(&self) -> GuardRow {
        let algorithm = match self.config.algorithm {
            LimitAlgorithm::Aimd { .. } => "aimd",
            LimitAlgorithm::Gradient2 { .. } => "gradient2",
        };
        GuardRow {
            guard: LIMIT_EXCEEDED.guard,
            state: format!(
                "limit {} ({algorithm}), lowest {}",
                self.limit(),
                self.lowest
            ),
            figures: vec![
                ("limit", f64::from(self.limit())),
                ("lowest_limit", f64::from(self.lowest)),
                ("in_flight", f64::from(self.in_flight)),
                ("samples", self.samples as f64),
            ],
            refused: self.refused,
            reported_apart: false,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `ExpAvgMeasurement(window, 10)`: the mean of the first 10 samples, then an exponential
/// average with factor `2 / (window + 1)`. `scale` changes the value only: during the warm-up
/// the next sample recomputes it from the sum.
#[derive(Debug, Clone)]
struct ExpAvg {
    window: u32,
    count: u32,
    sum: f64,
    value: f64,
}

impl ExpAvg {
    const WARMUP: u32 = 10;

    fn new(window: u32) -> Self {
        ExpAvg {
            window,
            count: 0,
            sum: 0.0,
            value: 0.0,
        }
    }

    fn add(&mut self, sample: f64) -> f64 {
        if self.count < Self::WARMUP {
            self.count += 1;
            self.sum += sample;
            self.value = self.sum / f64::from(self.count);
        } else {
            let factor = 2.0 / (f64::from(self.window) + 1.0);
            self.value = self.value * (1.0 - factor) + sample * factor;
        }
        self.value
    }

    fn scale(&mut self, by: f64) {
        self.value *= by;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::call_guard::Waiter;
    use crate::scenario::Strategy;

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    fn ask() -> GuardAsk {
        GuardAsk {
            now: Nanos::ZERO,
            strategy: Strategy::Sequential,
            waiter: Waiter(0),
        }
    }

    /// Admits `n` calls; all must go.
    fn admit(g: &mut AdaptiveLimit, n: u32) {
        for _ in 0..n {
            assert_eq!(g.admit(ask()), Admit::Go);
        }
    }

    fn hear(g: &mut AdaptiveLimit, result: CallResult, latency: Nanos) {
        g.hear(Heard {
            now: latency,
            latency,
            result,
        });
    }

    /// Admits calls until one is refused: how many went.
    fn admitted_until_refused(g: &mut AdaptiveLimit) -> u32 {
        let mut n = 0;
        while g.admit(ask()) == Admit::Go {
            n += 1;
        }
        n
    }

    #[test]
    fn aimd_adds_one_while_half_the_limit_is_in_flight_and_cuts_by_the_ratio_on_a_drop() {
        let mut g = AdaptiveLimit::new(AdaptiveLimitConfig {
            algorithm: LimitAlgorithm::Aimd {
                backoff_ratio: 0.9,
                timeout: Nanos::from_secs(1),
            },
            initial: 4,
            min: 1,
            max: 10,
        });
        admit(&mut g, 2);
        // 2 in flight: 2 * 2 >= 4, so 4 + 1.
        hear(&mut g, CallResult::Ok, ms(100));
        assert_eq!(g.limit(), 5);
        // 1 in flight: 1 * 2 < 5, it stays.
        hear(&mut g, CallResult::Ok, ms(100));
        assert_eq!(g.limit(), 5);
        admit(&mut g, 3);
        // 3 in flight: 6 >= 5, so 6.
        hear(&mut g, CallResult::Ok, ms(100));
        assert_eq!(g.limit(), 6);
        // A timeout is a drop: (int) (6 * 0.9) = 5.
        hear(&mut g, CallResult::TimedOut, ms(100));
        assert_eq!(g.limit(), 5);
        // A success slower than the timeout counts as a drop: (int) (5 * 0.9) = 4.
        hear(&mut g, CallResult::Ok, ms(2000));
        assert_eq!(g.limit(), 4);
        assert_eq!(g.in_flight(), 0);
        // A failure is ignored: no sample.
        admit(&mut g, 1);
        hear(&mut g, CallResult::Failed, ms(100));
        assert_eq!(g.limit(), 4);
        // Four calls go, the fifth is refused.
        assert_eq!(admitted_until_refused(&mut g), 4);
        assert_eq!(g.row().refused, 1);
        // Drops all the way down stop at the minimum: 4 -> 3 -> 2 -> 1 -> (int) 0.9 = 0 -> 1.
        for limit in [3, 2, 1, 1] {
            hear(&mut g, CallResult::NoConnection, ms(10));
            assert_eq!(g.limit(), limit);
        }
    }

    #[test]
    fn gradient2_moves_the_limit_by_the_long_rtt_over_the_short_smoothed() {
        let mut g = AdaptiveLimit::new(AdaptiveLimitConfig {
            algorithm: LimitAlgorithm::Gradient2 {
                smoothing: 0.2,
                tolerance: 1.5,
                long_window: 600,
                queue_size: 4,
            },
            initial: 10,
            min: 1,
            max: 20,
        });
        let close = |g: &AdaptiveLimit, estimate: f64| {
            assert!(
                (g.estimate - estimate).abs() < 1e-9,
                "estimate {} != {estimate}",
                g.estimate
            );
        };
        admit(&mut g, 10);
        // long = short = 100 ms: gradient min(1, 1.5) = 1; 10 * 1 + 4 = 14, smoothed
        // 10 * 0.8 + 14 * 0.2 = 10.8.
        hear(&mut g, CallResult::Ok, ms(100));
        close(&g, 10.8);
        assert_eq!(g.limit(), 10);
        // 9 in flight: 10.8 + 4 = 14.8, smoothed 8.64 + 2.96 = 11.6.
        hear(&mut g, CallResult::Ok, ms(100));
        close(&g, 11.6);
        // 1000 ms: long = mean(100, 100, 1000) = 400, gradient 1.5 * 400 / 1000 = 0.6:
        // 11.6 * 0.6 + 4 = 10.96, smoothed 9.28 + 2.192 = 11.472. A drop is a sample alike.
        hear(&mut g, CallResult::TimedOut, ms(1000));
        close(&g, 11.472);
        assert_eq!(g.limit(), 11);
        // Five failures: ignored, only the count in flight falls (to 2).
        for _ in 0..5 {
            hear(&mut g, CallResult::Failed, ms(100));
        }
        close(&g, 11.472);
        // 2 in flight < 11.472 / 2: app-limited, the limit stays. long = 1300 / 4 = 325,
        // over twice the short: cut by 5 % (undone by the warm-up's next mean).
        hear(&mut g, CallResult::Ok, ms(100));
        close(&g, 11.472);
        admit(&mut g, 7);
        // 8 in flight: long = 1400 / 5 = 280, gradient min(1, 4.2) = 1: 11.472 + 4 = 15.472,
        // smoothed 9.1776 + 3.0944 = 12.272.
        hear(&mut g, CallResult::Ok, ms(100));
        close(&g, 12.272);
        // 7 in flight, a limit of 12: five more go, the sixth is refused.
        assert_eq!(admitted_until_refused(&mut g), 5);
        let row = g.row();
        assert_eq!((row.refused, row.guard), (1, "adaptive limit"));
        assert_eq!(row.state, "limit 12 (gradient2), lowest 10");
    }
}
