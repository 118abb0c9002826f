//! The guards in front of each service's calls, consulted the same way by both engines: a
//! circuit breaker (`flow::breaker`) and a rate limiter (`flow::ratelimit`), in resilience4j's
//! Spring Boot order: `CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))`. The breaker
//! is asked first; a call it permits then asks the limiter, and a limiter's refusal
//! (`RequestNotPermitted`) is an exception the breaker records as a failure.

use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::breaker::{BreakerAcquire, BreakerState, CircuitBreaker};
use super::ratelimit::{RateAcquire, RateLimiter};

/// What the guards say to a call about to be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// The call goes on after `wait` (the rate limiter's reservation; zero: at once).
    /// `recorded`: its result goes to the breaker ([`CallGuards::record`]).
    Go { wait: Nanos, recorded: bool },
    /// The breaker is open (`CallNotPermittedException`).
    NotPermitted,
    /// No rate-limiter permit within its timeout (`RequestNotPermitted`).
    RateLimited,
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
    pub fn enter(&mut self, now: Nanos) -> Door {
        match self.door.as_mut().map(|l| l.acquire(now)) {
            Some(RateAcquire::Refused) => Door::Refused,
            Some(RateAcquire::Granted { wait }) => Door::Enter { wait },
            None => Door::Enter { wait: Nanos::ZERO },
        }
    }

    /// A call of `service` is about to be made at `now`.
    pub fn admit(&mut self, service: ServiceId, now: Nanos) -> Admit {
        let breaker = self.breakers.get_mut(service.0).and_then(Option::as_mut);
        let recorded = match breaker {
            Some(b) => match b.try_acquire(now) {
                BreakerAcquire::NotPermitted => return Admit::NotPermitted,
                BreakerAcquire::Permitted => true,
            },
            None => false,
        };
        let limiter = self.limiters.get_mut(service.0).and_then(Option::as_mut);
        let wait = match limiter.map(|l| l.acquire(now)) {
            Some(RateAcquire::Refused) => {
                self.rate_limited[service.0] += 1;
                self.record(service, now, true, Nanos::ZERO);
                return Admit::RateLimited;
            }
            Some(RateAcquire::Granted { wait }) => wait,
            None => Nanos::ZERO,
        };
        Admit::Go { wait, recorded }
    }

    /// A call the breaker permitted ended at `now` after `duration`, failed or not.
    pub fn record(&mut self, service: ServiceId, now: Nanos, failed: bool, duration: Nanos) {
        if let Some(b) = self.breakers.get_mut(service.0).and_then(Option::as_mut) {
            b.on_result(now, failed, duration);
        }
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
