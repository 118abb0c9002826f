//! A client's retries of a whole request (`[load.retry]`): an attempt that timed out, failed
//! or was refused is sent again after the policy's pause, while attempts and the retry budget
//! last. The retried attempt is a new request on the server (the old one may still be
//! running there: Tomcat is not told); it keeps the request's id and first send time, and
//! draws anew through its attempt number.

use crate::flow::AfterAttempt;
use crate::metrics::Outcome;
use crate::time::Nanos;

use super::draw::retry_u;
use super::engine::Engine;
use super::event::Event;
use super::parts::retries::Waiting;
use super::request::ReqRef;

impl Engine {
    /// The client of `r` saw `outcome` at `seen`: if it sends again, the next attempt is
    /// scheduled and this returns when it reaches the server; the attempt is then over for
    /// its client, and nothing is counted as the request's outcome yet.
    pub(super) fn retry_after(
        &mut self,
        r: ReqRef,
        outcome: Outcome,
        seen: Nanos,
    ) -> Option<Nanos> {
        // Without a policy every outcome is final: nothing to look up.
        if !self.retries.decide.any() {
            return None;
        }
        let req = self.requests.get(r)?;
        let (id, attempt, first_sent, client) = (req.id, req.attempt, req.first_sent, req.client);
        match self.retries.after(attempt, outcome, self.now) {
            AfterAttempt::Final => return None,
            AfterAttempt::GivesUp => {
                self.book.resilience.gave_up += 1;
                return None;
            }
            AfterAttempt::Again => {}
        }
        let next = attempt + 1;
        let pause = self
            .retries
            .pause(next, retry_u(self.scenario.seed, id, next));
        let at = self.next_arrival(r, seen, pause);
        let slot = self.retries.park(Waiting {
            id,
            attempt: next,
            first_sent,
            client,
            last: outcome,
        });
        self.book.retried(self.now);
        self.requests.answer(r);
        self.schedule(at, Event::Retry { slot });
        Some(at)
    }

    /// A retried attempt reaches the server now (or its client has stopped: a closed load
    /// that lost clients to a phase; the request then ends with the last attempt's outcome).
    pub(super) fn on_retry(&mut self, slot: u32) {
        let Some(w) = self.retries.take(slot) else {
            return;
        };
        if let Some(client) = w.client
            && client >= self.load.client_target
        {
            let latency = self.now.saturating_sub(w.first_sent);
            self.book.resilience.gave_up += 1;
            self.count_answer(w.client, w.last, self.now);
            self.book.record(self.now, latency, w.last);
            self.on_client_send(client);
            return;
        }
        let sent = self.now.saturating_sub(self.half_rtt());
        let r = self.requests.alloc(w.id, sent, w.client, self.strategy);
        if let Some(req) = self.requests.get_mut(r) {
            req.attempt = w.attempt;
            req.first_sent = w.first_sent;
        }
        self.send(r, sent, w.client);
    }
}
