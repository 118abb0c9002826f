//! The guards in front of each service's calls, consulted the same way by both engines: a
//! circuit breaker (`flow::breaker`) and a rate limiter (`flow::ratelimit`), in resilience4j's
//! Spring Boot order: `CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))`. The breaker
//! is asked first; a call it permits then asks the limiter, and a limiter's refusal
//! (`RequestNotPermitted`) is an exception the breaker records as a failure.

use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::CallResult;
use super::breaker::{BreakerAcquire, BreakerState, CircuitBreaker};
use super::ratelimit::{RateAcquire, RateLimiter};

/// A call the guards let through. A refused call fails at once with the [`CallResult`] its
/// guard's exception gives (`NotPermitted`: the breaker is open, `CallNotPermittedException`;
/// `RateLimited`: no limiter permit within its timeout, `RequestNotPermitted`), which the
/// engines carry out like any other failed call: a new guard adds a refusal here and in
/// `CallResult`, not in either engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// How long its caller waits for a reserved permit first (zero: none).
    pub wait: Nanos,
    /// When the breaker permitted it, if the service has one: its result goes back to the
    /// breaker ([`CallGuards::record`]) when its future completes.
    pub since: Option<Nanos>,
}

/// A breaker as a snapshot shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerSnapshot {
    pub state: BreakerState,
    /// Percent of the window's calls that failed; `None` below its minimum number of calls.
    pub failure_rate: Option<f64>,
    pub slow_call_rate: Option<f64>,
    /// Times it opened.
    pub opened: u64,
    /// Calls it failed at once.
    pub not_permitted: u64,
    /// Every transition: (when, from, to).
    pub transitions: Vec<(Nanos, BreakerState, BreakerState)>,
}

/// Each service's breaker and rate limiter, indexed like the scenario's services, and the
/// endpoint's rate limiter (`[server.rate_limit]`, load shedding at the door).
#[derive(Debug, Clone)]
pub struct CallGuards {
    breakers: Vec<Option<CircuitBreaker>>,
    limiters: Vec<Option<RateLimiter>>,
    /// Calls each service's limiter refused.
    rate_limited: Vec<u64>,
    door: Option<RateLimiter>,
    /// The clients' own breaker (`[load.breaker]`), around the whole request.
    client: Option<CircuitBreaker>,
}

/// What the endpoint's rate limiter says to a request a handler thread has taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// Served after `wait` (the handler holds its thread meanwhile; zero: at once).
    Enter { wait: Nanos },
    /// No permit within the timeout: answered 429 at once, unserved.
    Refused,
}

impl CallGuards {
    pub fn new(scenario: &crate::scenario::Scenario) -> Self {
        let services = &scenario.services;
        let door = scenario.server.rate_limit;
        CallGuards {
            client: scenario
                .load
                .breaker
                .map(|c| CircuitBreaker::new(c, Nanos::ZERO)),
            door: door.map(|c| RateLimiter::new(c, Nanos::ZERO)),
            breakers: services
                .iter()
                .map(|s| s.breaker.map(|c| CircuitBreaker::new(c, Nanos::ZERO)))
                .collect(),
            limiters: services
                .iter()
                .map(|s| s.rate_limit.map(|c| RateLimiter::new(c, Nanos::ZERO)))
                .collect(),
            rate_limited: vec![0; services.len()],
        }
    }

    /// Whether any service has a guard (none: nothing to ask before a call).
    pub fn any(&self) -> bool {
        self.breakers.iter().any(Option::is_some) || self.limiters.iter().any(Option::is_some)
    }

    /// A client is about to send an attempt at `now`: false when its own breaker is open
    /// (the request fails at once, unsent).
    pub fn client_sends(&mut self, now: Nanos) -> bool {
        self.client
            .as_mut()
            .is_none_or(|b| b.try_acquire(now) == BreakerAcquire::Permitted)
    }

    /// A client saw its attempt's outcome at `now`, `duration` after sending it.
    pub fn client_saw(&mut self, now: Nanos, failed: bool, duration: Nanos) {
        if let Some(b) = self.client.as_mut() {
            b.on_result(now, failed, duration);
        }
    }

    /// The clients' breaker, as a snapshot shows it.
    pub fn client_breaker(&self) -> Option<BreakerSnapshot> {
        self.client.as_ref().map(snapshot_of)
    }

    /// A handler thread took a request at `now`: the endpoint's limiter, if there is one.
    #[inline]
    pub fn enter(&mut self, now: Nanos) -> Door {
        match self.door.as_mut().map(|l| l.acquire(now)) {
            Some(RateAcquire::Refused) => Door::Refused,
            Some(RateAcquire::Granted { wait }) => Door::Enter { wait },
            None => Door::Enter { wait: Nanos::ZERO },
        }
    }

    /// A call of `service` is about to be made at `now`: let through, or refused with the
    /// result it fails with.
    pub fn admit(&mut self, service: ServiceId, now: Nanos) -> Result<Pass, CallResult> {
        let breaker = self.breakers.get_mut(service.0).and_then(Option::as_mut);
        let since = match breaker {
            Some(b) => match b.try_acquire(now) {
                BreakerAcquire::NotPermitted => return Err(CallResult::NotPermitted),
                BreakerAcquire::Permitted => Some(now),
            },
            None => None,
        };
        let limiter = self.limiters.get_mut(service.0).and_then(Option::as_mut);
        let wait = match limiter.map(|l| l.acquire(now)) {
            Some(RateAcquire::Refused) => {
                self.rate_limited[service.0] += 1;
                self.record(service, now, true, Nanos::ZERO);
                return Err(CallResult::RateLimited);
            }
            Some(RateAcquire::Granted { wait }) => wait,
            None => Nanos::ZERO,
        };
        Ok(Pass { wait, since })
    }

    /// A call the breaker permitted ended at `now` after `duration`, failed or not.
    pub fn record(&mut self, service: ServiceId, now: Nanos, failed: bool, duration: Nanos) {
        if let Some(b) = self.breakers.get_mut(service.0).and_then(Option::as_mut) {
            b.on_result(now, failed, duration);
        }
    }

    /// The future of a call of `service` completed at `now` with `result`: the breaker that
    /// permitted the call at `since` hears it (a failure unless `Ok`, and how long it took).
    /// False when no breaker permitted it, so there is nothing new to wait for.
    pub fn hear(
        &mut self,
        service: ServiceId,
        since: Option<Nanos>,
        now: Nanos,
        result: CallResult,
    ) -> bool {
        let Some(since) = since else {
            return false;
        };
        let failed = result != CallResult::Ok;
        self.record(service, now, failed, now.saturating_sub(since));
        true
    }

    /// When a breaker next changes state by itself (automatic transition, half-open's
    /// maximum wait), if one will.
    pub fn next_poll(&self) -> Option<Nanos> {
        self.breakers
            .iter()
            .flatten()
            .filter_map(CircuitBreaker::poll_timeout)
            .min()
    }

    /// Brings every breaker's timed transitions up to `now`.
    pub fn poll(&mut self, now: Nanos) {
        for b in self.breakers.iter_mut().flatten() {
            b.poll(now);
        }
    }

    /// `service`'s breaker, as a snapshot shows it.
    pub fn breaker(&self, service: ServiceId) -> Option<BreakerSnapshot> {
        self.breakers.get(service.0)?.as_ref().map(snapshot_of)
    }

    /// Calls `service`'s rate limiter refused.
    pub fn rate_limited(&self, service: ServiceId) -> u64 {
        self.rate_limited.get(service.0).copied().unwrap_or(0)
    }
}

fn snapshot_of(b: &CircuitBreaker) -> BreakerSnapshot {
    BreakerSnapshot {
        state: b.state(),
        failure_rate: b.failure_rate(),
        slow_call_rate: b.slow_call_rate(),
        opened: b.opened(),
        not_permitted: b.not_permitted(),
        transitions: b.transitions().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{BreakerConfig, BreakerWindow, RateLimiterConfig};

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    /// Service 0: a breaker that opens once 2 calls in its window of 2 failed, and a limiter
    /// of 1 permit per 100 ms whose callers wait at most `timeout`. Service 1: no guard.
    fn guards(timeout: Nanos) -> CallGuards {
        let breaker = BreakerConfig {
            window: BreakerWindow::Count(2),
            failure_rate_threshold: 50.0,
            minimum_calls: 2,
            wait_in_open: Nanos::from_secs(1),
            ..BreakerConfig::default()
        };
        let limiter = RateLimiterConfig {
            limit_for_period: 1,
            refresh_period: ms(100),
            timeout,
        };
        CallGuards {
            breakers: vec![Some(CircuitBreaker::new(breaker, Nanos::ZERO)), None],
            limiters: vec![Some(RateLimiter::new(limiter, Nanos::ZERO)), None],
            rate_limited: vec![0, 0],
            door: None,
            client: None,
        }
    }

    #[test]
    fn a_refused_call_gets_the_result_it_fails_with_and_a_passed_one_its_wait_and_breaker() {
        let mut g = guards(ms(50));
        let (guarded, free) = (ServiceId(0), ServiceId(1));
        let pass = |wait, since| Ok(Pass { wait, since });
        assert_eq!(g.admit(free, ms(0)), pass(Nanos::ZERO, None));
        assert_eq!(g.admit(guarded, ms(0)), pass(Nanos::ZERO, Some(ms(0))));
        // The cycle's one permit is taken: the next is 100 ms away, beyond the 50 ms wait.
        assert_eq!(g.admit(guarded, ms(0)), Err(CallResult::RateLimited));
        assert_eq!(g.rate_limited(guarded), 1);
        // The breaker counted that refusal as a failure; a second failure opens it.
        g.record(guarded, ms(1), true, ms(1));
        assert_eq!(g.admit(guarded, ms(2)), Err(CallResult::NotPermitted));
        assert_eq!(
            g.rate_limited(guarded),
            1,
            "an open breaker asks no limiter"
        );
        assert_eq!(g.admit(free, ms(2)), pass(Nanos::ZERO, None));
    }

    #[test]
    fn the_breaker_hears_only_the_calls_it_permitted() {
        let mut g = guards(ms(500));
        let guarded = ServiceId(0);
        assert!(!g.hear(guarded, None, ms(5), CallResult::Failed));
        assert!(!g.hear(guarded, None, ms(6), CallResult::TimedOut));
        assert!(
            g.admit(guarded, ms(10)).is_ok(),
            "two unheard failures leave it closed"
        );
        assert!(g.hear(guarded, Some(ms(0)), ms(20), CallResult::Failed));
        assert!(g.hear(guarded, Some(ms(10)), ms(20), CallResult::TimedOut));
        assert_eq!(g.admit(guarded, ms(21)), Err(CallResult::NotPermitted));
    }

    #[test]
    fn a_reserved_permit_within_the_timeout_is_a_wait_not_a_refusal() {
        let mut g = guards(ms(150));
        let guarded = ServiceId(0);
        assert!(g.admit(guarded, ms(0)).is_ok());
        let second = g.admit(guarded, ms(30));
        assert_eq!(
            second,
            Ok(Pass {
                wait: ms(70),
                since: Some(ms(30))
            })
        );
        assert_eq!(g.rate_limited(guarded), 0);
    }
}
