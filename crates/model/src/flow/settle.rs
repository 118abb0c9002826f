//! What the end of a call's attempt goes through, and what becomes of its future: the rules
//! [`crate::flow::call::CallFuture::settle`] applies, in resilience4j's decoration order
//! (`Retry(CircuitBreaker(call))`): the guards that admitted the attempt hear how it went;
//! the service's `Retry` may make the call again after a pause, and the future stays pending
//! meanwhile; otherwise the future completes into the request's verdict (its value, its
//! fallback, or the request's failure).

use crate::metrics::ServiceStats;
use crate::time::Nanos;

use super::{CallGuards, CallRetries, Completion};

/// What became of the call's future.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The call is made again after this pause; its future stays pending.
    Again(Nanos),
    /// The future completed: the value, the fallback, or the request's failure.
    Completed(Completion),
}

/// The rules an attempt's end goes through, and the service's counters.
#[derive(Debug)]
pub struct Settle<'a> {
    pub guards: &'a mut CallGuards,
    pub retries: &'a mut CallRetries,
    /// The counters of the attempt's service.
    pub stats: &'a mut ServiceStats,
}
