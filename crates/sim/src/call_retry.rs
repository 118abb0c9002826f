//! resilience4j's `Retry` around each call of a service (`[services.retry]`): an attempt whose
//! result the policy retries does not complete the call's future; after the policy's pause
//! the call is made again, through its guards and its pool, with a timeout of its own and new
//! draws. The attempt it replaces may still be running (a timeout does not stop it).
//!
//! Who makes the next attempt follows the decoration: synchronous code (sequential,
//! semaphore) sleeps on the thread that made the call (`Retry.decorateSupplier`), while a
//! `CompletableFuture` is retried from resilience4j's scheduler
//! (`Retry.decorateCompletionStage`), so the request's submission goes on meanwhile.

use crate::flow::call_guard::Admitting;
use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::engine::Engine;
use super::event::Event;
use super::handles::ThreadRef;
use super::parts::guards::Asked;
use super::request::{ReqRef, Submitting};

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
        if !self.scheduler_asks_guards(r, call, service, admitted) {
            return;
        }
        self.scheduler_makes(r, call, service);
    }

    /// resilience4j's scheduler makes attempt `call` of `r`, its guards passed: on its pool,
    /// or on no thread of the request's.
    pub(super) fn scheduler_makes(&mut self, r: ReqRef, call: u16, service: ServiceId) {
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

    /// The scheduler asks a retry's guards (the rest of them once a reserved permit was
    /// waited for, `admitted`): true to make it now (`guard.rs` carries out the rest).
    fn scheduler_asks_guards(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        admitted: bool,
    ) -> bool {
        let strategy = self.requests.get(r).map(|q| q.strategy);
        if !strategy.is_some_and(|s| self.guards.calls.any_for(s)) {
            return true;
        }
        let how = if admitted {
            Admitting::Resume
        } else {
            Admitting::Make
        };
        let made = self.admit_call(r, call, service, how);
        self.scheduler_carries_out(r, call, service, made)
    }
}
