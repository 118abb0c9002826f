//! What wraps each service's calls, as resilience4j's decorators do: the breaker and rate
//! limiter (`flow::CallGuards`) with the one breaker poll the queue holds, the semaphore
//! bulkhead's permits, and the call retries with their attempts' numbering.

use crate::flow::{CallGuards, CallRetries, CallSlots};
use crate::request::ReqRef;
use crate::scenario::Scenario;
use crate::time::Nanos;

/// Each service's semaphore bulkhead; a waiter is a request's call.
pub(crate) type Permits = crate::flow::permit::Semaphore<(ReqRef, u16)>;

#[derive(Debug, Clone)]
pub(crate) struct Guards {
    pub calls: CallGuards,
    /// Whether any service has a breaker or a limiter (else nothing is asked).
    pub any: bool,
    /// When the pending `BreakerPoll` event is due.
    pub(crate) poll_at: Option<Nanos>,
    /// Each service's semaphore bulkhead (`semaphore`).
    pub permits: Vec<Permits>,
    /// Each service's `[services.retry]`.
    pub retries: CallRetries,
    /// How the attempts of calls are numbered.
    pub slots: CallSlots,
}

impl Guards {
    pub fn new(scenario: &Scenario) -> Self {
        let calls = CallGuards::new(scenario);
        Guards {
            any: calls.any(),
            calls,
            poll_at: None,
            permits: vec![
                Permits::new(scenario.strategy.semaphore.permits);
                scenario.services.len()
            ],
            retries: CallRetries::new(scenario),
            slots: CallSlots::new(scenario.endpoint.call_count()),
        }
    }
}

/// What the submitter does with a call after asking its guards.
pub(crate) enum Asked {
    /// Make the call now.
    Go,
    /// It failed at once (breaker open, or no rate-limiter permit): go on with the next.
    Failed,
    /// The submitter is parked until the permit is due.
    Parked,
}
