//! The client retries' state: the attempts waiting for their pause to end, and the budget.

use crate::flow::{AfterAttempt, ClientRetries};
use crate::metrics::Outcome;
use crate::scenario::Retry;
use crate::time::Nanos;

/// An attempt waiting for its pause to end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Waiting {
    pub(crate) id: u64,
    pub(crate) attempt: u32,
    pub(crate) first_sent: Nanos,
    pub(crate) client: Option<u32>,
    /// The previous attempt's outcome: the request's, should its client stop first.
    pub(crate) last: Outcome,
}

/// The clients' retry decisions (`flow::ClientRetries`, shared with the real engine) and the
/// attempts waiting to be sent.
#[derive(Debug, Clone)]
pub(crate) struct Retries {
    pub(crate) decide: ClientRetries,
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

    /// A first attempt goes out `now` (it feeds the budget).
    pub fn first_attempt(&mut self, now: Nanos) {
        self.decide.first_attempt(now);
    }

    /// What follows attempt `attempt` (0: the first) ending in `outcome`, decided `now`.
    pub fn after(&mut self, attempt: u32, outcome: Outcome, now: Nanos) -> AfterAttempt {
        self.decide.after(attempt, outcome, now)
    }

    /// The pause before attempt `attempt` (from 1), jittered by `u`.
    pub(crate) fn pause(&self, attempt: u32, u: f64) -> Nanos {
        self.decide.pause(attempt, u)
    }

    pub(crate) fn park(&mut self, w: Waiting) -> u32 {
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

    /// Attempts waiting for their pause to end: requests their clients still hold.
    pub(crate) fn parked(&self) -> usize {
        self.waiting.len() - self.free.len()
    }

    pub(crate) fn take(&mut self, slot: u32) -> Option<Waiting> {
        let w = self.waiting.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        Some(w)
    }
}
