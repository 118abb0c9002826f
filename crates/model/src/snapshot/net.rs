//! What both engines show of the connection layer: each closed client's tally, the
//! connection counters, and their snapshot.

use crate::metrics::{LatencySummary, Outcome};
use crate::time::Nanos;

/// How one closed client has been answered, for the fairness figures (both engines).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientTally {
    /// Responses it has had (success, partial or failed: an HTTP answer).
    pub answers: u64,
    pub last_answer_at: Nanos,
    /// The longest time it went without an answer, up to its last one.
    pub longest_wait: Nanos,
}

impl ClientTally {
    /// The client saw `outcome` at `at`; only an HTTP answer counts.
    pub fn count(&mut self, outcome: Outcome, at: Nanos) {
        if outcome.is_response() {
            self.answers += 1;
            self.longest_wait = self
                .longest_wait
                .max(at.saturating_sub(self.last_answer_at));
            self.last_answer_at = at;
        }
    }
}

/// Counters of the connection layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetStats {
    /// SYNs dropped because the accept queue was full.
    pub syn_drops: u64,
    /// Handshakes' ACKs dropped because the accept queue filled after their SYN (the other
    /// half of Linux's `ListenOverflows`).
    pub ack_overflows: u64,
    /// Connection attempts that failed (kernel `ETIMEDOUT` or the client's connect timeout).
    pub connect_failures: u64,
    /// Requests a handler thread read right after its previous response, bypassing the
    /// executor (the keep-alive fast path).
    pub fast_path_requests: u64,
    /// Requests handed to the executor (by the poller or the acceptor).
    pub executor_requests: u64,
    /// Connections Tomcat closed unread because the executor's queue was full.
    pub closed_by_max_queue: u64,
    /// Kept-alive connections Tomcat closed after `keepAliveTimeout` idle.
    pub closed_idle: u64,
    /// The most connections the accept queue held.
    pub accept_queue_max: u32,
}

/// The connection layer at one instant, for the screen and the reports.
#[derive(Debug, Clone, PartialEq)]
pub struct NetSnapshot {
    pub stats: NetStats,
    pub connect: LatencySummary,
    /// Closed loads only: how fairly the clients were served.
    pub clients: Option<ClientsSnapshot>,
}

/// How fairly closed clients were served.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientsSnapshot {
    pub count: u32,
    /// Clients that have not had a single answer.
    pub never_answered: u32,
    pub answers_min: u64,
    pub answers_max: u64,
    /// The longest any client has gone without an answer (up to now for those still waiting).
    pub longest_wait: Nanos,
}

impl ClientsSnapshot {
    /// The clients at `now`, each with whether it still sends: a parked client that was never
    /// answered does not count, and one that was stops waiting when it was parked.
    pub fn of<'a>(clients: impl Iterator<Item = (bool, &'a ClientTally)>, now: Nanos) -> Self {
        let mut s = ClientsSnapshot {
            count: 0,
            never_answered: 0,
            answers_min: u64::MAX,
            answers_max: 0,
            longest_wait: Nanos::ZERO,
        };
        for (active, c) in clients.filter(|(active, c)| *active || c.answers > 0) {
            s.count += 1;
            s.never_answered += u32::from(c.answers == 0);
            s.answers_min = s.answers_min.min(c.answers);
            s.answers_max = s.answers_max.max(c.answers);
            let waiting = if active {
                now.saturating_sub(c.last_answer_at)
            } else {
                Nanos::ZERO
            };
            s.longest_wait = s.longest_wait.max(c.longest_wait).max(waiting);
        }
        if s.count == 0 {
            s.answers_min = 0;
        }
        s
    }
}
