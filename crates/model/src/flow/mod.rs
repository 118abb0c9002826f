//! The request flow's decisions, expressed once and driven by both engines: the simulated
//! one (`threadlab-sim`) supplies virtual time and events, the real one (`threadlab-real`)
//! threads, sleeps and wake-ups. What a call waits, how it ends, what its future's completion
//! does to the request, the response's outcome and thread, and when a client retries are
//! decided here and nowhere else.

pub mod accept;
pub mod arrival;
pub mod breaker;
pub mod call;
pub mod call_guard;
pub mod cores;
pub mod guard;
pub mod guard_kinds;
pub mod handling;
pub mod link;
pub mod permit;
pub mod ratelimit;
mod rejection;
pub mod resource;
pub mod retry;
pub mod settle;
pub mod shed;
mod verdict;

pub use breaker::{BreakerAcquire, BreakerState, CircuitBreaker};
pub use call_guard::{CallGuard, GuardRefusal, GuardRow, RetriedAs};
pub use guard::{BreakerSnapshot, CallGuards, Door};
pub use ratelimit::{RateAcquire, RateLimiter};
pub use rejection::Rejection;
pub use retry::{
    AfterAttempt, CallRetries, CallSlots, ClientRetries, MAX_CALL_ATTEMPTS, RetryBudget,
};
pub use verdict::{Completion, Verdict};

use crate::metrics::Outcome;
use crate::scenario::{Hang, ServiceId};
use crate::time::Nanos;

/// A closed-loop client whose request was refused or answered at once retries after at least
/// this long, so a full backlog or a rejecting pool with no think time cannot spin at one
/// instant.
pub const RETRY_AFTER_REFUSAL: Nanos = Nanos::from_millis(1);

/// Why a request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailReason {
    /// A call of this service failed and had no fallback.
    CallFailed(ServiceId),
    /// A call timed out and had no fallback.
    CallTimedOut(ServiceId),
    /// A call got no connection within the pool's timeout and had no fallback.
    NoConnection(ServiceId),
    /// `supplyAsync` threw `RejectedExecutionException` (abort policy).
    Rejected(ServiceId),
    /// A guard of the service refused the call (a breaker open, no rate-limiter permit, the
    /// semaphore bulkhead full, ...) and no fallback.
    Refused(ServiceId, &'static GuardRefusal),
    /// `connect()` failed: the kernel's SYN retries ran out, or the client's connect timeout.
    Connect,
    /// The server closed the connection unread (Tomcat's `maxQueueSize` was full).
    Reset,
    /// It waited in the executor's queue past `server.queue_timeout`: answered 503 unserved.
    Shed,
    /// The endpoint's rate limiter gave no permit in time: answered 429 unserved.
    LimitedAtDoor,
    /// The client's own breaker was open (`CallNotPermittedException`): never sent.
    NotSent,
}

/// What the log says beside an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    None,
    /// The fallback of this service was used.
    Fallback(ServiceId),
    Failed(FailReason),
}

pub use crate::scenario::Fault;

/// The probability that a call of `service` fails now: an injected `Fail` fault's instead
/// of the preset's.
pub fn failure_probability(service: &crate::scenario::Service, fault: Option<Fault>) -> f64 {
    match fault {
        Some(Fault::Fail { probability }) => probability,
        _ => service.failure,
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Slow { factor } => write!(f, "slow x{factor}"),
            Fault::Hang { duration } => write!(f, "hanging {duration}"),
            Fault::Fail { probability } => write!(f, "failing {:.0}%", probability * 100.0),
        }
    }
}

/// The result of a call as its caller sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallResult {
    Ok,
    Failed,
    TimedOut,
    /// No connection within the pool's timeout (`SQLTransientConnectionException`).
    NoConnection,
    /// The pool rejected the submission and the caller caught it: the call never ran.
    Rejected,
    /// A guard refused it (`flow::call_guard`): the call never ran.
    Refused(&'static GuardRefusal),
}

impl CallResult {
    /// Counts a call that ended so on its service's counters.
    pub fn count(self, stats: &mut crate::metrics::ServiceStats) {
        match self {
            CallResult::Failed | CallResult::NoConnection => stats.failures += 1,
            CallResult::TimedOut => stats.timeouts += 1,
            CallResult::Ok | CallResult::Rejected | CallResult::Refused(_) => {}
        }
    }

    /// Counts a call a guard refused on its service's counters (a semaphore bulkhead's
    /// refusal is a rejection, as a pool's).
    pub fn count_refusal(self, stats: &mut crate::metrics::ServiceStats) {
        if let CallResult::Refused(refusal) = self
            && refusal.counts_rejected
        {
            stats.rejected += 1;
        }
    }

    /// How the caller saw the call end, as a trace names it.
    pub fn label(self) -> &'static str {
        match self {
            CallResult::Ok => "ok",
            CallResult::Failed => "failed",
            CallResult::TimedOut => "timed out",
            CallResult::NoConnection => "no connection",
            CallResult::Rejected => "rejected",
            CallResult::Refused(refusal) => refusal.label,
        }
    }

    /// How a call that ran to its end finishes. Failure is decided when the latency ends, so
    /// a failing call holds its thread for its whole latency.
    pub fn of_call(
        cut_by_read_timeout: bool,
        no_connection: bool,
        fail_u: f64,
        failure: f64,
    ) -> Self {
        if cut_by_read_timeout {
            CallResult::TimedOut
        } else if no_connection {
            CallResult::NoConnection
        } else if fail_u < failure {
            CallResult::Failed
        } else {
            CallResult::Ok
        }
    }
}

/// What one call waits for: the trace's recorded latency or the drawn one, stretched by a
/// slow fault; a hang (injected, or drawn with the service's hang probability) replaces it.
pub fn call_latency(
    drawn: Nanos,
    recorded: Option<Nanos>,
    fault: Option<Fault>,
    hang: Option<Hang>,
    hang_u: f64,
) -> Nanos {
    let mut latency = recorded.unwrap_or(drawn);
    if let Some(Fault::Slow { factor }) = fault {
        latency = Nanos::from_secs_f64(latency.as_secs_f64() * factor);
    }
    match (fault, hang) {
        (Some(Fault::Hang { duration }), _) => duration,
        (_, Some(hang)) if hang_u < hang.probability => hang.duration,
        _ => latency,
    }
}

/// A sequential call's read timeout, when it cuts the call short (the thread gets its
/// `SocketTimeoutException` and moves on).
pub fn read_timeout_cut(read_timeout: Option<Nanos>, latency: Nanos) -> Option<Nanos> {
    read_timeout.filter(|t| *t < latency)
}

/// How long a closed-loop client waits before its next request. A request refused costs a
/// round trip; one answered in less than a round trip (rejected with abort, failed at once)
/// costs at least the rest of one: without it a client with no think time would resend at the
/// same instant forever.
pub fn client_pause(outcome: Outcome, latency: Nanos, think: Nanos) -> Nanos {
    let floor = if outcome == Outcome::Refused {
        RETRY_AFTER_REFUSAL
    } else {
        RETRY_AFTER_REFUSAL.saturating_sub(latency)
    };
    think.max(floor)
}

#[cfg(test)]
mod tests;
