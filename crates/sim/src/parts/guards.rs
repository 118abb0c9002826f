//! What wraps each service's calls, as resilience4j's decorators do: each service's guards
//! (`flow::CallGuards`) with the one poll of their timed transitions the queue holds, and the
//! call retries with their attempts' numbering.

use crate::flow::{CallGuards, CallRetries, CallSlots};
use crate::scenario::Scenario;
use crate::time::Nanos;

#[derive(Debug)]
pub(crate) struct Guards {
    pub calls: CallGuards,
    /// When the pending `GuardPoll` event is due.
    pub(crate) poll_at: Option<Nanos>,
    /// Each service's `[services.retry]`.
    pub retries: CallRetries,
    /// How the attempts of calls are numbered.
    pub slots: CallSlots,
}

impl Guards {
    pub fn new(scenario: &Scenario) -> Self {
        Guards {
            calls: CallGuards::new(scenario),
            poll_at: None,
            retries: CallRetries::new(scenario),
            slots: CallSlots::new(scenario.endpoint.call_count()),
        }
    }
}

/// What the submitter does with a call after asking its guards.
pub(crate) enum Asked {
    /// Make the call now.
    Go,
    /// It failed at once (a guard refused it): go on with the next.
    Failed,
    /// The submitter is parked until the permit is due, or released to it.
    Parked,
}
