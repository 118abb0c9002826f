//! The resilience patterns' settings as a preset gives them: a client's retries of a whole
//! request (`[load.retry]`) and the server's shedding of dead work (`server.queue_timeout`).
//! Plain data; the rules that use them are in `flow`.

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
    /// Which outcomes of an attempt are retried.
    pub on: RetryOn,
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
}
