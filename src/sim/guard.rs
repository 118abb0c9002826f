//! The engine's side of the guards in front of each service's calls (`flow::guard`): a call
//! is admitted before it is made, the breaker hears how a permitted call ended, a limiter's
//! reserved permit parks the caller until it is due, and a breaker's timed transitions get
//! an event.

use crate::flow::CallResult;
use crate::scenario::ServiceId;
use crate::time::Nanos;

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
            Ok(wait) if wait == Nanos::ZERO => Asked::Go,
            Ok(wait) => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.submitting = Submitting::RateWait(call);
                }
                self.schedule(self.now + wait, Event::RatePermit { req: r, call });
                Asked::Parked
            }
            Err(result) => {
                self.complete_at_once(r, call, result);
                Asked::Failed
            }
        }
    }

    /// `service`'s guards on call `call` of `r`, now: Ok with how long its caller waits for a
    /// reserved permit (the breaker, if it permitted the call, hears its end), or the result
    /// the call fails with at once.
    pub(super) fn admit_call(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
    ) -> Result<Nanos, CallResult> {
        let admitted = self.guards.calls.admit(service, self.now);
        self.arm_breaker_poll();
        let pass = admitted?;
        if let Some(req) = self.requests.get_mut(r) {
            req.calls[call as usize].breaker_since = pass.since;
        }
        Ok(pass.wait)
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
