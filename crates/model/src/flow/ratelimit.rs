//! A service's rate limiter, decided once for both engines: resilience4j's
//! `AtomicRateLimiter`.
//!
//! Time since the limiter's creation is cut into cycles of `limitRefreshPeriod`; each cycle
//! brings `limitForPeriod` permits, never more than that in store. A caller with no permit in
//! the current cycle reserves one in a later cycle when the wait for it fits `timeoutDuration`
//! (the permits go negative: later cycles are already spent), and sleeps until then; a caller
//! whose wait would not fit is refused (`RequestNotPermitted`) and reserves nothing.

use std::any::Any;

use crate::scenario::{RateLimiterConfig, Scenario, ServiceId};
use crate::time::Nanos;

use super::call_guard::{Admit, CallGuard, GuardAsk, GuardRefusal, GuardRow, RetriedAs};

/// What `acquirePermission` gave a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateAcquire {
    /// A permit, usable after `wait` (zero: at once).
    Granted { wait: Nanos },
    /// No permit within the timeout: `RequestNotPermitted`.
    Refused,
}

/// One service's rate limiter.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    config: RateLimiterConfig,
    created: Nanos,
    /// The cycle `permits` belongs to (`activeCycle`).
    cycle: u64,
    /// Permits left in `cycle`; negative when callers reserved permits of later cycles
    /// (`activePermissions`).
    permits: i64,
    granted: u64,
    refused: u64,
}

impl RateLimiter {
    /// A limiter whose first cycle starts at `now` with a full set of permits. A limit or a
    /// period of 0 (which resilience4j's builder rejects) is taken as 1.
    pub fn new(config: RateLimiterConfig, now: Nanos) -> Self {
        let config = RateLimiterConfig {
            limit_for_period: config.limit_for_period.max(1),
            refresh_period: config.refresh_period.max(Nanos(1)),
            ..config
        };
        RateLimiter {
            permits: i64::from(config.limit_for_period),
            config,
            created: now,
            cycle: 0,
            granted: 0,
            refused: 0,
        }
    }

    /// A caller asks for one permit at `now` (`acquirePermission(1)`, as
    /// `calculateNextState` and `reservePermissions` decide it).
    pub fn acquire(&mut self, now: Nanos) -> RateAcquire {
        let period = self.config.refresh_period.as_nanos();
        let per_cycle = i64::from(self.config.limit_for_period);
        let elapsed = (now - self.created).as_nanos();
        let current = elapsed / period;
        if current != self.cycle {
            let cycles = i64::try_from(current - self.cycle).unwrap_or(i64::MAX);
            self.permits = self
                .permits
                .saturating_add(cycles.saturating_mul(per_cycle))
                .min(per_cycle);
            self.cycle = current;
        }
        let wait = if self.permits >= 1 {
            0
        } else {
            // `nanosToWaitForPermission`: the rest of this cycle plus the whole cycles needed
            // until the reserved permits are paid back.
            let to_next_cycle = (current + 1) * period - elapsed;
            let short = 1 - (self.permits + per_cycle);
            let full_cycles = (short + per_cycle - 1) / per_cycle;
            u64::try_from(full_cycles).unwrap_or(0) * period + to_next_cycle
        };
        if wait <= self.config.timeout.as_nanos() {
            self.permits -= 1;
            self.granted += 1;
            RateAcquire::Granted { wait: Nanos(wait) }
        } else {
            self.refused += 1;
            RateAcquire::Refused
        }
    }

    /// Permits granted, at once or after a wait.
    pub fn granted(&self) -> u64 {
        self.granted
    }

    /// Callers refused.
    pub fn refused(&self) -> u64 {
        self.refused
    }
}

/// `RequestNotPermitted`: no permit within the timeout.
pub static RATE_LIMITED: GuardRefusal = GuardRefusal {
    guard: "rate limiter",
    exception: "RequestNotPermitted",
    label: "rate limited",
    retried_as: RetriedAs::Rejection,
    counts_rejected: false,
};

/// `service`'s rate limiter (`[services.rate_limit]`), if it has one.
pub fn guard(scenario: &Scenario, service: ServiceId) -> Option<Box<dyn CallGuard>> {
    let config = scenario.services.get(service.0)?.rate_limit?;
    Some(Box::new(RateLimiter::new(config, Nanos::ZERO)))
}

/// A caller waits for a reserved permit; one refused fails with [`RATE_LIMITED`].
impl CallGuard for RateLimiter {
    fn admit(&mut self, ask: GuardAsk) -> Admit {
        match self.acquire(ask.now) {
            RateAcquire::Granted { wait } if wait > Nanos::ZERO => Admit::After(wait),
            RateAcquire::Granted { .. } => Admit::Go,
            RateAcquire::Refused => Admit::Refuse(&RATE_LIMITED),
        }
    }

    fn gave_up(&mut self) -> &'static GuardRefusal {
        &RATE_LIMITED
    }

    fn row(&self) -> GuardRow {
        GuardRow {
            guard: RATE_LIMITED.guard,
            state: format!(
                "{} per {}",
                self.config.limit_for_period, self.config.refresh_period
            ),
            figures: vec![("granted", self.granted as f64)],
            refused: self.refused,
            reported_apart: true,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Nanos {
        Nanos::from_millis(ms)
    }

    fn two_per_100ms(timeout: Nanos) -> RateLimiterConfig {
        RateLimiterConfig {
            limit_for_period: 2,
            refresh_period: ms(100),
            timeout,
        }
    }

    fn granted(wait: Nanos) -> RateAcquire {
        RateAcquire::Granted { wait }
    }

    #[test]
    fn defaults_are_resilience4j_defaults() {
        let c = RateLimiterConfig::default();
        assert_eq!(c.limit_for_period, 50);
        assert_eq!(c.refresh_period, Nanos(500));
        assert_eq!(c.timeout, Nanos::from_secs(5));
    }

    #[test]
    fn without_a_timeout_the_third_call_of_a_cycle_is_refused() {
        // Created at 1 s: cycles are [1 s, 1.1 s), [1.1 s, 1.2 s), ...
        let mut r = RateLimiter::new(two_per_100ms(Nanos::ZERO), Nanos::from_secs(1));
        assert_eq!(r.acquire(ms(1000)), granted(Nanos::ZERO));
        assert_eq!(r.acquire(ms(1050)), granted(Nanos::ZERO));
        assert_eq!(r.acquire(ms(1099)), RateAcquire::Refused);
        assert_eq!(r.acquire(ms(1100)), granted(Nanos::ZERO));
        assert_eq!(r.acquire(ms(1150)), granted(Nanos::ZERO));
        assert_eq!(r.acquire(ms(1199)), RateAcquire::Refused);
        assert_eq!((r.granted(), r.refused()), (4, 2));
    }

    #[test]
    fn idle_cycles_do_not_store_more_than_one_cycle_of_permits() {
        let mut r = RateLimiter::new(two_per_100ms(Nanos::ZERO), Nanos::ZERO);
        // Ten idle cycles later: still 2.
        let t = ms(1000);
        assert_eq!(r.acquire(t), granted(Nanos::ZERO));
        assert_eq!(r.acquire(t), granted(Nanos::ZERO));
        assert_eq!(r.acquire(t), RateAcquire::Refused);
    }

    #[test]
    fn callers_reserve_permits_of_later_cycles_within_the_timeout() {
        let mut r = RateLimiter::new(two_per_100ms(ms(150)), Nanos::ZERO);
        let t = ms(20);
        assert_eq!(r.acquire(t), granted(Nanos::ZERO));
        assert_eq!(r.acquire(t), granted(Nanos::ZERO));
        // Calls 3 and 4 take the next cycle's permits: they wait until 100 ms.
        assert_eq!(r.acquire(t), granted(ms(80)));
        assert_eq!(r.acquire(t), granted(ms(80)));
        // Call 5 would wait until 200 ms: 180 ms > 150 ms. It reserves nothing, nor does 6.
        assert_eq!(r.acquire(t), RateAcquire::Refused);
        assert_eq!(r.acquire(t), RateAcquire::Refused);
        // At 100 ms the next cycle is already spent: 2 - 2 = 0; the wait is until 200 ms.
        assert_eq!(r.acquire(ms(100)), granted(ms(100)));
        assert_eq!((r.granted(), r.refused()), (5, 2));
    }

    #[test]
    fn a_longer_timeout_reserves_two_cycles_ahead() {
        let mut r = RateLimiter::new(two_per_100ms(ms(250)), Nanos::ZERO);
        let waits: Vec<RateAcquire> = (0..7).map(|_| r.acquire(Nanos::ZERO)).collect();
        assert_eq!(
            waits,
            [
                granted(Nanos::ZERO),
                granted(Nanos::ZERO),
                granted(ms(100)),
                granted(ms(100)),
                granted(ms(200)),
                granted(ms(200)),
                // Until 300 ms: longer than 250 ms.
                RateAcquire::Refused,
            ]
        );
    }
}
