//! The engine's side of the guards in front of each service's calls (`flow::guard`): a call
//! is admitted before it is made, the breaker hears how a permitted call ended, a limiter's
//! reserved permit parks the caller until it is due, and a breaker's timed transitions get
//! an event.

use crate::flow::call::{CallFuture, Made};
use crate::scenario::ServiceId;

use super::engine::Engine;
use super::event::Event;
use super::parts::guards::Asked;
use super::request::{ReqRef, Submitting};

impl Engine {
    /// Asks `service`'s guards whether call `call` of `r` may be made now.
    pub(super) fn ask_guards(&mut self, r: ReqRef, call: u16, service: ServiceId) -> Asked {
        if !self.guards.any {
            return Asked::Go;
        }
        match self.admit_call(r, call, service) {
            Made::Go => Asked::Go,
            Made::Wait(wait) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.submitting = Submitting::RateWait(call);
                }
                self.schedule(self.now + wait, Event::RatePermit { req: r, call });
                Asked::Parked
            }
            Made::Failed(result) => {
                self.complete_at_once(r, call, result);
                Asked::Failed
            }
        }
    }

    /// Attempt `call` of `r` is made now: its call's future asks `service`'s guards
    /// (`flow::call`), and the breakers' next timed transition is armed.
    pub(super) fn admit_call(&mut self, r: ReqRef, call: u16, service: ServiceId) -> Made {
        let (now, slots) = (self.now, self.guards.slots);
        // A request outlives its calls being made, so its future is always found.
        let mut unheld = CallFuture::NEW;
        let future = match self.requests.get_mut(r) {
            Some(req) => req.future_mut(slots, call),
            None => &mut unheld,
        };
        let made = future.make(&mut self.guards.calls, service, now);
        self.arm_breaker_poll();
        made
    }

    /// The caller's reserved permit is due: its call is made, and submission goes on.
    pub(super) fn on_rate_permit(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        if req.submitting != Submitting::RateWait(call) {
            return;
        }
        req.submitting = Submitting::Free;
        let service = self.service_of(call);
        if self.make_call(r, call, service) {
            self.submit_calls(r);
        }
    }

    /// Schedules the breakers' next timed transition, unless it is already scheduled.
    pub(super) fn arm_breaker_poll(&mut self) {
        let next = self.guards.calls.next_poll();
        if next.is_some() && next != self.guards.poll_at {
            self.guards.poll_at = next;
            if let Some(at) = next {
                self.schedule(at.max(self.now), Event::BreakerPoll);
            }
        }
    }

    pub(super) fn on_breaker_poll(&mut self) {
        if self.guards.poll_at.is_some_and(|at| at <= self.now) {
            self.guards.poll_at = None;
            self.guards.calls.poll(self.now);
            self.arm_breaker_poll();
        }
    }
}
