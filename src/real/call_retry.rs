//! The real engine's side of `[services.retry]` (`flow::CallRetries`, the engine's rule):
//! whether an attempt of a call is made again, and after what pause, drawn as the engine
//! draws it.

use crate::flow::{AfterAttempt, CallResult};
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
            retries.first_attempt(service);
            drop(retries);
            lock(&self.books).book.services[service.0].first_attempts += 1;
        }
    }

    /// Attempt `call` of `req` ended with `result`: the pause before the next attempt when
    /// the policy makes the call again, else None (the result completes the call).
    pub(super) fn retry_pause(&self, req: &Req, call: u16, result: CallResult) -> Option<Nanos> {
        let service = self.service_of(call);
        let attempt = self.slots.attempt(call);
        let mut retries = lock(&self.call_retries);
        match retries.after(service, attempt, result) {
            AfterAttempt::Final => None,
            AfterAttempt::GivesUp => {
                drop(retries);
                lock(&self.books).book.services[service.0].retries_exhausted += 1;
                None
            }
            AfterAttempt::Again => {
                let attempts = Attempts {
                    request: req.attempt,
                    call: attempt + 1,
                };
                let index = usize::from(self.slots.call(call));
                let u = call_retry_u(self.scenario.seed, req.id, index, attempts);
                let pause = retries.pause(service, attempt + 1, u);
                drop(retries);
                lock(&self.books).book.services[service.0].retries += 1;
                Some(pause)
            }
        }
    }
}
