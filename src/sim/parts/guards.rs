//! The guards in front of each service's calls, and the one breaker poll the queue holds.

use crate::flow::CallGuards;
use crate::scenario::Scenario;
use crate::time::Nanos;

/// The guards and the one breaker poll the queue holds, if any.
#[derive(Debug, Clone)]
pub(crate) struct Guards {
    pub calls: CallGuards,
    /// Whether any service has a guard (else nothing is asked).
    pub any: bool,
    /// When the pending `BreakerPoll` event is due.
    pub(crate) poll_at: Option<Nanos>,
}

impl Guards {
    pub fn new(scenario: &Scenario) -> Self {
        let calls = CallGuards::new(scenario);
        Guards {
            any: calls.any(),
            calls,
            poll_at: None,
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
