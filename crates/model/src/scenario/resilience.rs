//! The resilience patterns' settings as a preset gives them: a client's retries of a whole
//! request (`[load.retry]`), a service's circuit breaker and rate limiter (`[services.breaker]`,
//! `[services.rate_limit]`). Plain data; the rules that use them are in `flow`.

use crate::time::Nanos;

/// `[load.retry]`: a client that sends a request again after an attempt failed, as SDKs and
/// browsers do, with resilience4j `Retry`'s settings (`maxAttempts`, `waitDuration`, the
/// exponential `IntervalFunction`) and an optional retry budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    /// Attempts in all, the first included (`maxAttempts`).
    pub attempts: u32,
    /// The pause before each retry.
    pub backoff: Backoff,
    /// Retries allowed as a share of first attempts (a token bucket: each first attempt
    /// adds this many tokens, a retry takes one); `None` is unlimited.
    pub budget: Option<f64>,
    /// How long a deposit in the budget (and a retry taken from it) counts, Finagle's `ttl`;
    /// `None`: a token bucket that holds at most 10 retries, whatever their age (gRPC's
    /// `maxTokens`).
    pub budget_window: Option<Nanos>,
    /// Which outcomes of an attempt are retried.
    pub on: RetryOn,
}

impl Retry {
    /// Whether it ever sends an attempt again: `maxAttempts` 1 is resilience4j's "no retry".
    pub fn retries(&self) -> bool {
        self.attempts > 1
    }
}

/// The pause before retry `n` (from 1): `wait x multiplier^(n-1)`, at most `max_wait`, then
/// jittered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub wait: Nanos,
    pub multiplier: f64,
    pub jitter: Jitter,
    pub max_wait: Option<Nanos>,
}

/// How a pause is spread around its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Jitter {
    /// The interval itself (`IntervalFunction.ofExponentialBackoff`).
    None,
    /// Within `randomizationFactor` of the interval either side
    /// (`IntervalFunction.ofExponentialRandomBackoff`); the factor is in `[0, 1]`.
    Randomized(f64),
    /// Anywhere from zero to the interval (AWS Architecture Blog, "Exponential Backoff And
    /// Jitter": `sleep = random_between(0, min(cap, base * 2 ** attempt))`).
    Full,
}

/// Which results are retried (resilience4j's `retryExceptions`, reduced to the model's kinds):
/// a failure (an exception, an error answer, no connection from a pool), a timeout, or a
/// rejection (a pool, a bulkhead or the server would not take it; for a whole request: a
/// reset or a failed connect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetryOn {
    pub failure: bool,
    pub timeout: bool,
    pub rejection: bool,
    /// A call its breaker did not permit (`CallNotPermittedException`), which resilience4j's
    /// default `Retry` retries like any exception; its guides advise `ignoreExceptions`.
    pub not_permitted: bool,
}

/// The sliding window the rates are computed over (`slidingWindowType`, `slidingWindowSize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerWindow {
    /// The last N results (`COUNT_BASED`).
    Count(u32),
    /// The results of the last N seconds (`TIME_BASED`), aggregated per whole second.
    Time(u32),
}

/// A circuit breaker's settings, under resilience4j's names. Rates are percentages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakerConfig {
    pub window: BreakerWindow,
    /// `failureRateThreshold`.
    pub failure_rate_threshold: f64,
    /// `slowCallRateThreshold`.
    pub slow_call_rate_threshold: f64,
    /// `slowCallDurationThreshold`: a call that took longer (`>`) is slow.
    pub slow_call_duration: Nanos,
    /// `minimumNumberOfCalls`.
    pub minimum_calls: u32,
    /// `waitDurationInOpenState`.
    pub wait_in_open: Nanos,
    /// `permittedNumberOfCallsInHalfOpenState`.
    pub permitted_in_half_open: u32,
    /// `maxWaitDurationInHalfOpenState` (then `transitionToStateAfterWaitDuration` = OPEN);
    /// `None` waits for the permitted calls' results however long they take.
    pub max_wait_in_half_open: Option<Nanos>,
    /// `automaticTransitionFromOpenToHalfOpenEnabled`.
    pub automatic_transition: bool,
}

/// `CircuitBreakerConfig.ofDefaults()`.
impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            window: BreakerWindow::Count(100),
            failure_rate_threshold: 50.0,
            slow_call_rate_threshold: 100.0,
            slow_call_duration: Nanos::from_secs(60),
            minimum_calls: 100,
            wait_in_open: Nanos::from_secs(60),
            permitted_in_half_open: 10,
            max_wait_in_half_open: None,
            automatic_transition: false,
        }
    }
}

/// `RateLimiterConfig`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimiterConfig {
    /// `limitForPeriod`: permits per cycle.
    pub limit_for_period: u32,
    /// `limitRefreshPeriod`: the length of a cycle.
    pub refresh_period: Nanos,
    /// `timeoutDuration`: the longest a caller waits for a permit.
    pub timeout: Nanos,
}

/// `RateLimiterConfig.ofDefaults()`.
impl Default for RateLimiterConfig {
    fn default() -> Self {
        RateLimiterConfig {
            limit_for_period: 50,
            refresh_period: Nanos(500),
            timeout: Nanos::from_secs(5),
        }
    }
}
