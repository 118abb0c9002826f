//! The `semaphore` strategy: resilience4j's `SemaphoreBulkhead`, one per service. The handler
//! makes each call itself once it holds one of the service's permits; with none free it waits
//! up to `max_wait` in FIFO order (the bulkhead's `Semaphore` is fair), then the call fails
//! with `BulkheadFullException` without running (its fallback, if any, applies).

use std::collections::VecDeque;

use crate::flow::CallResult;
use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::engine::{Engine, Event, ThreadRef};
use super::request::{CallPhase, Permit, ReqRef, Submitting};

/// One service's semaphore.
#[derive(Debug, Clone, Default)]
pub(super) struct PermitState {
    pub in_use: u32,
    /// Callers waiting, oldest first (stale entries of callers that gave up are skipped).
    pub waiters: VecDeque<(ReqRef, u16)>,
}

impl Engine {
    /// `bulkhead.executeSupplier(call)` on the handler thread.
    pub(super) fn call_with_permit(&mut self, r: ReqRef, call: u16, service: ServiceId) {
        let config = self.scenario.strategy.semaphore;
        let state = &mut self.permits[service.0];
        let free = state.in_use < config.permits;
        if free {
            state.in_use += 1;
        } else if config.max_wait > Nanos::ZERO {
            state.waiters.push_back((r, call));
        }
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let submitter = req.submitter;
        if free {
            req.calls[call as usize].permit = Permit::Held;
            let read_timeout = self.scenario.service(service).timeout;
            self.start_inline(r, call, submitter, read_timeout);
        } else if config.max_wait > Nanos::ZERO {
            // `tryAcquire(maxWait)`: the handler is parked and submits nothing meanwhile.
            req.submitting = Submitting::Inline(call);
            let c = &mut req.calls[call as usize];
            c.permit = Permit::Waiting;
            c.phase = CallPhase::Queued;
            self.schedule(
                self.now + config.max_wait,
                Event::PermitTimeout { req: r, call },
            );
        } else {
            self.bulkhead_full(r, call, service);
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
        if let Some(req) = self.requests.get_mut(r) {
            req.submitting = Submitting::Free;
        }
    }

    /// A call gives its permit back; the longest waiter of the service gets it and runs.
    pub(super) fn release_permit(&mut self, service: ServiceId) {
        let state = &mut self.permits[service.0];
        state.in_use = state.in_use.saturating_sub(1);
        while let Some((r, call)) = self.permits[service.0].waiters.pop_front() {
            let Some(req) = self.requests.get_mut(r) else {
                continue;
            };
            let c = &mut req.calls[call as usize];
            if c.permit != Permit::Waiting {
                continue;
            }
            c.permit = Permit::Held;
            req.submitting = Submitting::Free;
            let submitter = req.submitter;
            self.permits[service.0].in_use += 1;
            let read_timeout = self.scenario.service(service).timeout;
            self.start_inline(r, call, submitter, read_timeout);
            return;
        }
    }
}
