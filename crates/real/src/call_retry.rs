//! The real engine's side of an attempt's end (`flow::settle`, the engine's rule): its breaker
//! hears it, `[services.retry]` (`flow::CallRetries`) makes the call again after a pause drawn
//! as the engine draws it, or its future completes into the request's verdict.

use std::sync::Arc;

use crate::draw::{Attempts, call_retry_u};
use crate::flow::CallResult;
use crate::flow::call::{Attempted, CallFuture};
use crate::flow::settle::{Settle, Settled};
use crate::scenario::ServiceId;

use super::server::HandlerVerdict;
use super::sync::lock;
use super::task::Req;
use super::world::World;

impl World {
    /// The first attempt of a call of `service` is made (it feeds the retry budget).
    pub(super) fn first_call_attempt(&self, service: ServiceId) {
        let mut retries = lock(&self.call_retries);
        if retries.retries(service) {
            let now = self.clock.now();
            let mut books = lock(&self.books);
            retries.count_first_attempt(service, &mut books.book.services[service.0], now);
        }
    }

    /// Attempt `call` of `req`, which claimed its `future`, ended with `result` (or its future
    /// timed out), completed by `completer`: its breaker hears it, its `Retry` reopens the
    /// future to the next attempt, or the future completes into `verdict` (`flow::call`, the
    /// engine's rule). Takes the retry budget's, the books' and the guards' locks, in that
    /// order, and no stage's: a stage join's future is settled as a copy (`StageJoin::claimed`).
    pub(super) fn settle(
        self: &Arc<Self>,
        req: &Req,
        future: &mut CallFuture,
        call: u16,
        result: CallResult,
        completer: String,
        verdict: &mut HandlerVerdict,
    ) -> Settled {
        let service = self.service_of(call);
        let ended = Attempted {
            service,
            result,
            completer,
        };
        let attempt = self.slots.attempt(call);
        debug_assert_eq!(
            future.attempt(),
            attempt,
            "the attempt its future waits for"
        );
        let has_fallback = self.scenario.service(service).fallback.is_some();
        let now = self.clock.now();
        let (seed, index) = (self.scenario.seed, usize::from(self.slots.call(call)));
        let attempts = Attempts {
            request: req.attempt,
            call: attempt + 1,
        };
        let (settled, heard) = {
            let mut retries = lock(&self.call_retries);
            let mut books = lock(&self.books);
            let mut guards = lock(&self.guards);
            let rules = Settle {
                guards: &mut guards,
                retries: &mut retries,
                stats: &mut books.book.services[service.0],
            };
            future.settle(rules, verdict, has_fallback, ended, now, || {
                call_retry_u(seed, req.id, index, attempts)
            })
        };
        if heard {
            self.arm_guard_poll();
        }
        settled
    }
}
