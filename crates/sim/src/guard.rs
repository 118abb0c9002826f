//! The engine's side of the guards in front of each service's calls (`flow::guard`): an
//! attempt asks its service's guards through its call's future before it is made, and the
//! engine carries out their answer (`flow::call_guard::Made`): make the call, fail it at once,
//! wait a set time (an event when it is due), or wait until a permit is released to it (an
//! event at its longest wait). A call that held permits gives them back when it ends, to the
//! oldest caller still waiting; the guards' timed transitions get an event. No guard is named
//! here: the list decides.

use crate::flow::CallResult;
use crate::flow::call::CallFuture;
use crate::flow::call_guard::{Admitting, GuardAsk, GuardSet, Made, Waiter};
use crate::scenario::ServiceId;

use super::engine::Engine;
use super::event::Event;
use super::handles::ThreadRef;
use super::parts::guards::Asked;
use super::request::{CallPhase, Permit, ReqRef, Submitting};

/// The guards' token for call `call` of `r`, should it wait in a guard's queue.
fn waiter_of(r: ReqRef, call: u16) -> Waiter {
    Waiter(u128::from(r.slot) << 48 | u128::from(r.generation) << 16 | u128::from(call))
}

/// The call a token stands for.
fn waiter_call(w: Waiter) -> (ReqRef, u16) {
    let r = ReqRef {
        slot: (w.0 >> 48) as u32,
        generation: (w.0 >> 16) as u32,
    };
    (r, w.0 as u16)
}

impl Engine {
    /// The submitter asks `service`'s guards whether call `call` of `r` may be made now.
    pub(super) fn ask_guards(&mut self, r: ReqRef, call: u16, service: ServiceId) -> Asked {
        let strategy = self.requests.get(r).map(|q| q.strategy);
        if !strategy.is_some_and(|s| self.guards.calls.any_for(s)) {
            return Asked::Go;
        }
        let made = self.admit_call(r, call, service, Admitting::Make);
        self.submitter_carries_out(r, call, service, made)
    }

    /// Attempt `call` of `r` goes through `service`'s guards (`how`), asked by its call's
    /// future (`flow::call`), and the guards' next timed transition is armed.
    pub(super) fn admit_call(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        how: Admitting,
    ) -> Made {
        let (now, slots) = (self.now, self.guards.slots);
        let strategy = self.requests.get(r).map_or(self.strategy, |q| q.strategy);
        let ask = GuardAsk {
            now,
            strategy,
            waiter: waiter_of(r, call),
        };
        // A request outlives its calls being made, so its future is always found.
        let mut unheld = CallFuture::NEW;
        let future = match self.requests.get_mut(r) {
            Some(req) => req.future_mut(slots, call),
            None => &mut unheld,
        };
        let made = self
            .guards
            .calls
            .pass(how, service, future.passage_mut(), ask);
        self.arm_guard_poll();
        made
    }

    /// The submitting thread carries out its guards' answer for call `call` of `r`.
    fn submitter_carries_out(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        made: Made,
    ) -> Asked {
        match made {
            Made::Go(holds) => {
                self.hold(r, call, holds);
                Asked::Go
            }
            Made::Wait(wait) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.submitting = Submitting::GuardWait(call);
                }
                self.schedule(self.now + wait, Event::GuardPermit { req: r, call });
                Asked::Parked
            }
            Made::Queued(max_wait) => {
                // The handler is parked and submits nothing meanwhile.
                if let Some(req) = self.requests.get_mut(r) {
                    req.submitting = Submitting::Inline(call);
                    let c = &mut req.calls[call as usize];
                    c.permit = Permit::Waiting { scheduler: false };
                    c.phase = CallPhase::Queued;
                }
                let at = self.now + max_wait;
                self.schedule(at, Event::PermitTimeout { req: r, call });
                Asked::Parked
            }
            Made::Failed(result) => {
                result.count_refusal(&mut self.book.services[service.0]);
                self.complete_at_once(r, call, result);
                Asked::Failed
            }
        }
    }

    /// resilience4j's scheduler carries out the guards' answer for attempt `call` of `r` (a
    /// retry, `call_retry.rs`): true to make it now. A reserved permit or a queue makes the
    /// scheduler come back (the wait keeps the request alive); a refusal completes the
    /// attempt.
    pub(super) fn scheduler_carries_out(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        made: Made,
    ) -> bool {
        match made {
            Made::Go(holds) => {
                self.hold(r, call, holds);
                true
            }
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
            Made::Queued(max_wait) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.outstanding += 1;
                    let c = &mut req.calls[call as usize];
                    c.permit = Permit::Waiting { scheduler: true };
                    c.phase = CallPhase::Queued;
                }
                let at = self.now + max_wait;
                self.schedule(at, Event::PermitTimeout { req: r, call });
                false
            }
            Made::Failed(result) => {
                result.count_refusal(&mut self.book.services[service.0]);
                if let Some(req) = self.requests.get_mut(r) {
                    req.calls[call as usize].phase = CallPhase::Dropped;
                }
                self.complete_future(r, call, result, ThreadRef::Delayer);
                self.requests.release_if_done(r);
                false
            }
        }
    }

    /// The call holds the permits `holds` until it ends.
    fn hold(&mut self, r: ReqRef, call: u16, holds: GuardSet) {
        if holds.is_empty() {
            return;
        }
        if let Some(req) = self.requests.get_mut(r) {
            req.calls[call as usize].permit = Permit::Held(holds);
        }
    }

    /// The submitter's wait for a reserved permit is over: the rest of the call's guards are
    /// asked, and submission goes on.
    pub(super) fn on_guard_permit(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        if req.submitting != Submitting::GuardWait(call) {
            return;
        }
        req.submitting = Submitting::Free;
        self.submitter_goes_on(r, call, Admitting::Resume);
    }

    /// The submitter goes on with call `call` of `r` after a wait at its guards.
    fn submitter_goes_on(&mut self, r: ReqRef, call: u16, how: Admitting) {
        let service = self.service_of(call);
        let made = self.admit_call(r, call, service, how);
        let go_on = match self.submitter_carries_out(r, call, service, made) {
            Asked::Go => self.make_call(r, call, service),
            Asked::Failed => true,
            Asked::Parked => false,
        };
        if go_on {
            self.submit_calls(r);
        }
    }

    /// The scheduler goes on with attempt `call` of `r` after a wait at its guards.
    fn scheduler_goes_on(&mut self, r: ReqRef, call: u16, how: Admitting) {
        if let Some(req) = self.requests.get_mut(r) {
            req.outstanding -= 1;
        }
        let service = self.service_of(call);
        let made = self.admit_call(r, call, service, how);
        if self.scheduler_carries_out(r, call, service, made) {
            self.scheduler_makes(r, call, service);
        }
    }

    /// A caller queued at a guard waited its longest: the guard refuses it.
    pub(super) fn on_permit_timeout(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let c = &mut req.calls[call as usize];
        let Permit::Waiting { scheduler } = c.permit else {
            return;
        };
        c.permit = Permit::None;
        if scheduler {
            self.scheduler_goes_on(r, call, Admitting::GaveUp);
        } else {
            self.submitter_goes_on(r, call, Admitting::GaveUp);
        }
    }

    /// A call of `service` that held the permits `holds` ended: each goes to the oldest
    /// caller of its guard still waiting, which goes on.
    pub(super) fn release_holds(&mut self, service: ServiceId, holds: GuardSet) {
        let requests = &mut self.requests;
        let mut scheduler_of = [false; GuardSet::MAX];
        let mut n = 0;
        let handed = self.guards.calls.release(service, holds, |w| {
            let (r, call) = waiter_call(w);
            let Some(req) = requests.get_mut(r) else {
                return false;
            };
            let c = &mut req.calls[call as usize];
            let Permit::Waiting { scheduler } = c.permit else {
                return false;
            };
            c.permit = Permit::None;
            if !scheduler {
                req.submitting = Submitting::Free;
            }
            if let Some(s) = scheduler_of.get_mut(n) {
                *s = scheduler;
            }
            n += 1;
            true
        });
        for (w, scheduler) in handed.into_iter().flatten().zip(scheduler_of) {
            let (r, call) = waiter_call(w);
            if scheduler {
                self.scheduler_goes_on(r, call, Admitting::Granted);
            } else {
                self.submitter_goes_on(r, call, Admitting::Granted);
            }
        }
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

    /// Schedules the guards' next timed transition, unless it is already scheduled.
    pub(super) fn arm_guard_poll(&mut self) {
        if !self.guards.calls.polls() {
            return;
        }
        let next = self.guards.calls.next_poll();
        if next.is_some() && next != self.guards.poll_at {
            self.guards.poll_at = next;
            if let Some(at) = next {
                self.schedule(at.max(self.now), Event::GuardPoll);
            }
        }
    }

    pub(super) fn on_guard_poll(&mut self) {
        if self.guards.poll_at.is_some_and(|at| at <= self.now) {
            self.guards.poll_at = None;
            self.guards.calls.poll(self.now);
            self.arm_guard_poll();
        }
    }
}
