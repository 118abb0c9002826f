//! A client's retries of a whole request (`[load.retry]`): an attempt that timed out, failed
//! or was refused is sent again after the policy's pause, while attempts and the retry budget
//! last. The retried attempt is a new request on the server (the old one may still be
//! running there: Tomcat is not told); it keeps the request's id and first send time, and
//! draws anew through its attempt number.

use crate::flow::{AfterAttempt, ClientRetries};
use crate::metrics::Outcome;
use crate::scenario::Retry;
use crate::time::Nanos;

use super::draw::retry_u;
use super::engine::{Engine, Event};
use super::request::{Client, ReqRef};

/// An attempt waiting for its pause to end.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    id: u64,
    attempt: u32,
    first_sent: Nanos,
    client: Option<u32>,
    /// The previous attempt's outcome: the request's, should its client stop first.
    last: Outcome,
}

/// The clients' retry decisions (`flow::ClientRetries`, shared with the real engine) and the
/// attempts waiting to be sent.
#[derive(Debug, Clone)]
pub(super) struct Retries {
    decide: ClientRetries,
    waiting: Vec<Option<Waiting>>,
    free: Vec<u32>,
}

impl Retries {
    pub fn new(policy: Option<Retry>) -> Self {
        Retries {
            decide: ClientRetries::new(policy),
            waiting: Vec::new(),
            free: Vec::new(),
        }
    }

    /// A first attempt goes out (it feeds the budget).
    pub fn first_attempt(&mut self) {
        self.decide.first_attempt();
    }

    /// What follows attempt `attempt` (0: the first) ending in `outcome`.
    pub fn after(&mut self, attempt: u32, outcome: Outcome) -> AfterAttempt {
        self.decide.after(attempt, outcome)
    }

    /// The pause before attempt `attempt` (from 1), jittered by `u`.
    fn pause(&self, attempt: u32, u: f64) -> Nanos {
        self.decide.pause(attempt, u)
    }

    fn park(&mut self, w: Waiting) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.waiting[slot as usize] = Some(w);
                slot
            }
            None => {
                self.waiting.push(Some(w));
                u32::try_from(self.waiting.len() - 1).unwrap_or(u32::MAX)
            }
        }
    }

    fn take(&mut self, slot: u32) -> Option<Waiting> {
        let w = self.waiting.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        Some(w)
    }
}

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
        match self.retries.after(attempt, outcome) {
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
        if let Some(req) = self.requests.get_mut(r) {
            req.client_side = Client::Answered;
        }
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
            && client >= self.client_target
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
