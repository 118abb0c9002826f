//! The real engine's side of an attempt's end (`flow::settle`, the engine's rule): its breaker
//! hears it, `[services.retry]` (`flow::CallRetries`) makes the call again after a pause drawn
//! as the engine draws it, or its future completes into the request's verdict.

use std::sync::Arc;

use crate::flow::CallResult;
use crate::flow::settle::{Ended, Settle, Settled};
use crate::scenario::ServiceId;
use crate::sim::draw::{Attempts, call_retry_u};
use crate::time::Nanos;

use super::server::HandlerVerdict;
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

    /// Attempt `call` of `req`, which its breaker permitted at `since` (if it has one), ended
    /// with `result` (or its future timed out), completed by `completer`: its breaker hears
    /// it, its `Retry` decides, or its future completes into `verdict` (`flow::settle`, the
    /// engine's rule). Takes the retry budget's, the books' and the guards' locks, in that
    /// order.
    pub(super) fn settle(
        self: &Arc<Self>,
        req: &Req,
        call: u16,
        since: Option<Nanos>,
        result: CallResult,
        completer: String,
        verdict: &mut HandlerVerdict,
    ) -> Settled {
        let service = self.service_of(call);
        let ended = Ended {
            service,
            since,
            attempt: self.slots.attempt(call),
            result,
            completer,
        };
        let has_fallback = self.scenario.service(service).fallback.is_some();
        let now = self.clock.now();
        let (seed, index) = (self.scenario.seed, usize::from(self.slots.call(call)));
        let attempts = Attempts {
            request: req.attempt,
            call: ended.attempt + 1,
        };
        let (settled, heard) = {
            let mut retries = lock(&self.call_retries);
            let mut books = lock(&self.books);
            let mut guards = lock(&self.guards);
            let settle = Settle {
                guards: &mut guards,
                retries: &mut retries,
                stats: &mut books.book.services[service.0],
            };
            settle.attempt_ended(verdict, has_fallback, ended, now, || {
                call_retry_u(seed, req.id, index, attempts)
            })
        };
        if heard {
            self.arm_breaker_poll();
        }
        settled
    }
}
