//! The `semaphore` strategy: resilience4j's `SemaphoreBulkhead`, one per service
//! ([`crate::flow::permit`]). The handler makes each call itself once it holds one of the
//! service's permits; with none free it waits up to `max_wait`, then the call fails with
//! `BulkheadFullException` without running (its fallback, if any, applies).

use crate::flow::CallResult;
use crate::flow::permit::Acquire;
use crate::scenario::ServiceId;

use super::engine::Engine;
use super::event::Event;
use super::handles::ThreadRef;
use super::request::{CallPhase, Permit, ReqRef, Submitting};

impl Engine {
    /// `bulkhead.executeSupplier(call)` on the handler thread.
    pub(super) fn call_with_permit(&mut self, r: ReqRef, call: u16, service: ServiceId) {
        let max_wait = self.scenario.strategy.semaphore.max_wait;
        let fate = self.guards.permits[service.0].acquire((r, call), max_wait);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let submitter = req.submitter;
        match fate {
            Acquire::Held => {
                req.calls[call as usize].permit = Permit::Held;
                let read_timeout = self.scenario.service(service).timeout;
                self.start_inline(r, call, submitter, read_timeout);
            }
            Acquire::Waits => {
                // `tryAcquire(maxWait)`: the handler is parked and submits nothing meanwhile.
                req.submitting = Submitting::Inline(call);
                let c = &mut req.calls[call as usize];
                c.permit = Permit::Waiting;
                c.phase = CallPhase::Queued;
                let at = self.now + max_wait;
                self.schedule(at, Event::PermitTimeout { req: r, call });
            }
            Acquire::Full => self.bulkhead_full(r, call, service),
        }
    }

    /// `maxWaitDuration` has passed for a waiting caller.
    pub(super) fn on_permit_timeout(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let c = &mut req.calls[call as usize];
        if c.permit != Permit::Waiting {
            return;
        }
        c.permit = Permit::None;
        let service = self.service_of(call);
        self.bulkhead_full(r, call, service);
    }

    /// `BulkheadFullException` on the handler thread: the call never runs, its result is
    /// known at once, and the handler carries on (or answers).
    fn bulkhead_full(&mut self, r: ReqRef, call: u16, service: ServiceId) {
        self.book.services[service.0].rejected += 1;
        self.complete_at_once(r, call, CallResult::BulkheadFull);
        self.resume_submitter(r);
    }

    /// A call that never runs: its future completes at once with `result` on the submitting
    /// thread, which then carries on with its stage (or answers).
    pub(super) fn complete_at_once(&mut self, r: ReqRef, call: u16, result: CallResult) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        // Marked as the call in progress so completing it does not end the stage under the
        // submitter's feet; the submitter's own loop decides what comes next.
        req.submitting = Submitting::Inline(call);
        req.calls[call as usize].phase = CallPhase::Dropped;
        let thread = req.submitter.unwrap_or(ThreadRef::Delayer);
        self.complete_future(r, call, result, thread);
        // Unless the submitter now sleeps before retrying the call.
        if let Some(req) = self.requests.get_mut(r)
            && req.submitting == Submitting::Inline(call)
        {
            req.submitting = Submitting::Free;
        }
    }

    /// A call gives its permit back; the longest waiter of the service gets it and runs.
    pub(super) fn release_permit(&mut self, service: ServiceId) {
        let requests = &mut self.requests;
        let next = self.guards.permits[service.0].release(|&(r, call)| {
            let Some(req) = requests.get_mut(r) else {
                return false;
            };
            let c = &mut req.calls[call as usize];
            if c.permit != Permit::Waiting {
                return false;
            }
            c.permit = Permit::Held;
            req.submitting = Submitting::Free;
            true
        });
        let Some((r, call)) = next else {
            return;
        };
        let submitter = self.requests.get(r).and_then(|q| q.submitter);
        let read_timeout = self.scenario.service(service).timeout;
        self.start_inline(r, call, submitter, read_timeout);
    }
}
