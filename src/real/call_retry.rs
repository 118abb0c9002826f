//! The real engine's side of `[services.retry]` (`flow::CallRetries`, the engine's rule):
//! whether an attempt of a call is made again, and after what pause, drawn as the engine
//! draws it.

use crate::flow::CallResult;
use crate::scenario::ServiceId;
use crate::sim::draw::{Attempts, call_retry_u};
use crate::time::Nanos;

use super::sync::lock;
use super::task::Req;
use super::world::World;

impl World {
    /// The first attempt of a call of `service` is made (it feeds the retry budget).
    pub(super) fn first_call_attempt(&self, service: ServiceId) {
        let mut retries = lock(&self.call_retries);
        if retries.retries(service) {
            let mut books = lock(&self.books);
            retries.count_first_attempt(service, &mut books.book.services[service.0]);
        }
    }

    /// Attempt `call` of `req` ended with `result`: the pause before the next attempt when
    /// the policy makes the call again, else None (the result completes the call).
    pub(super) fn retry_pause(&self, req: &Req, call: u16, result: CallResult) -> Option<Nanos> {
        let service = self.service_of(call);
        let attempt = self.slots.attempt(call);
        let index = usize::from(self.slots.call(call));
        let attempts = Attempts {
            request: req.attempt,
            call: attempt + 1,
        };
        let seed = self.scenario.seed;
        // The budget's lock, then the books' (nothing takes them the other way round).
        let mut retries = lock(&self.call_retries);
        let mut books = lock(&self.books);
        let stats = &mut books.book.services[service.0];
        retries.retry_after(service, attempt, result, stats, || {
            call_retry_u(seed, req.id, index, attempts)
        })
    }
}
