//! resilience4j's `Retry` around each call of a service (`[services.retry]`): an attempt whose
//! result the policy retries does not complete the call's future; after the policy's pause
//! the call is made again, through its guards and its pool, with a timeout of its own and new
//! draws. The attempt it replaces may still be running (a timeout does not stop it).
//!
//! Who makes the next attempt follows the decoration: synchronous code (sequential,
//! semaphore) sleeps on the thread that made the call (`Retry.decorateSupplier`), while a
//! `CompletableFuture` is retried from resilience4j's scheduler
//! (`Retry.decorateCompletionStage`), so the request's submission goes on meanwhile.

use crate::flow::call::Made;
use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::engine::Engine;
use super::event::Event;
use super::handles::ThreadRef;
use super::parts::guards::Asked;
use super::request::{CallPhase, ReqRef, Submitting};

impl Engine {
    /// The first attempt of a call of `service` is made (it feeds the retry budget).
    pub(super) fn first_call_attempt(&mut self, service: ServiceId) {
        let stats = &mut self.book.services[service.0];
        self.guards
            .retries
            .count_first_attempt(service, stats, self.now);
    }

    /// The policy makes call `call` of `r` again after `pause` (`flow::settle`): its future
    /// stays pending, and the next attempt is made by the thread that sleeps or by the
    /// scheduler.
    pub(super) fn call_again_after(&mut self, r: ReqRef, call: u16, pause: Nanos) {
        let next = self.guards.slots.next(call);
        let now = self.now;
        self.requests.grow_calls(r, next);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        // The pause keeps the request alive, as a running call does.
        req.outstanding += 1;
        if req.strategy.calls_inline() && req.submitting == Submitting::Inline(call) {
            let thread = req.submitter.unwrap_or(ThreadRef::Delayer);
            req.submitting = Submitting::RetryWait { call: next, thread };
        }
        self.schedule(
            now + pause,
            Event::CallRetry {
                req: r,
                call: next,
                admitted: false,
            },
        );
    }

    /// A retried call's pause is over: attempt `call` is made, by the thread that slept or
    /// by the scheduler.
    pub(super) fn on_call_retry(&mut self, r: ReqRef, call: u16, admitted: bool) {
        let service = self.service_of(call);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        req.outstanding -= 1;
        if req.serving.done() {
            self.requests.release_if_done(r);
            return;
        }
        if matches!(req.submitting, Submitting::RetryWait { call: c, .. } if c == call) {
            req.submitting = Submitting::Free;
            let go = match self.ask_guards(r, call, service) {
                Asked::Go => self.make_call(r, call, service),
                Asked::Failed => true,
                Asked::Parked => false,
            };
            if go {
                self.submit_calls(r);
            }
            return;
        }
        if !admitted && !self.scheduler_asks_guards(r, call, service) {
            return;
        }
        let Some(req) = self.requests.get(r) else {
            return;
        };
        match self.pool_for(req.strategy, service) {
            Some(pool) => {
                self.submit_call(r, call, service, pool, None);
            }
            None => {
                let read_timeout = self.scenario.service(service).timeout;
                self.start_inline(r, call, None, read_timeout);
            }
        }
    }

    /// The scheduler asks a retry's guards: true to make it now. A limiter's reserved
    /// permit makes the scheduler come back when it is due; a refusal completes the attempt.
    fn scheduler_asks_guards(&mut self, r: ReqRef, call: u16, service: ServiceId) -> bool {
        if !self.guards.any {
            return true;
        }
        match self.admit_call(r, call, service) {
            Made::Go => true,
            Made::Wait(wait) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.outstanding += 1;
                }
                let admitted = Event::CallRetry {
                    req: r,
                    call,
                    admitted: true,
                };
                self.schedule(self.now + wait, admitted);
                false
            }
            Made::Failed(result) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.calls[call as usize].phase = CallPhase::Dropped;
                }
                self.complete_future(r, call, result, ThreadRef::Delayer);
                self.requests.release_if_done(r);
                false
            }
        }
    }
}
