//! Connection admission, decided once for both engines: Tomcat's `LimitLatch` of
//! `maxConnections`, the listen socket's accept queue, and the client's SYN retransmits.
//!
//! Tomcat's acceptor counts connections up the latch before `accept()`; a kept-alive
//! connection holds its slot while idle. Beyond it, connections whose handshake completed wait
//! in the accept queue, which holds `acceptCount + 1` of them (`sk_acceptq_is_full` tests `>`);
//! a SYN that finds it full is dropped without an answer (`tcp_conn_request`), and the client
//! retransmits it on its RTO schedule until `connect()` fails with `ETIMEDOUT` or its own
//! connect timeout. Nothing is refused: a full backlog only makes connecting slow.

use std::collections::VecDeque;

use crate::scenario::{Link, Server};
use crate::time::Nanos;

/// What became of a SYN that reached the listen socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syn {
    /// The acceptor took the connection at once: it holds a slot; its request follows the
    /// handshake one round trip later.
    Accepted,
    /// The handshake completed and the connection waits in the accept queue: its request is
    /// sent and waits there too, until a slot frees ([`Listener::accept_next`]).
    Queued,
    /// The accept queue was full: no answer; the client retransmits ([`syn_retry`]).
    Dropped,
}

/// Tomcat's connection latch and the accept queue in front of it, holding the connections
/// (`T`: whatever the engine calls a waiting connection) in the order their handshakes
/// completed.
#[derive(Debug, Clone)]
pub struct Listener<T> {
    max_connections: u32,
    capacity: usize,
    open: u32,
    queue: VecDeque<T>,
    queue_max: u32,
}

impl<T> Listener<T> {
    /// The listener of a server with `maxConnections` and `acceptCount` (see [`Server`]).
    pub fn new(server: &Server) -> Self {
        Self::sized(server.max_connections, server.accept_count)
    }

    /// A listener with room for `max_connections` accepted and `accept_count + 1` waiting.
    pub fn sized(max_connections: u32, accept_count: u32) -> Self {
        Listener {
            max_connections,
            capacity: accept_count as usize + 1,
            open: 0,
            queue: VecDeque::new(),
            queue_max: 0,
        }
    }

    /// A SYN reaches the listen socket. The acceptor takes the connection when a slot is free
    /// and nobody waits before it; otherwise it waits in the accept queue while there is room.
    pub fn syn(&mut self, connection: T) -> Syn {
        if self.open < self.max_connections && self.queue.is_empty() {
            self.open += 1;
            Syn::Accepted
        } else if self.queue.len() < self.capacity {
            self.queue.push_back(connection);
            let len = u32::try_from(self.queue.len()).unwrap_or(u32::MAX);
            self.queue_max = self.queue_max.max(len);
            Syn::Queued
        } else {
            Syn::Dropped
        }
    }

    /// A connection closed: its slot frees (the latch counts down).
    pub fn close(&mut self) {
        self.open = self.open.saturating_sub(1);
    }

    /// The acceptor takes the next queued connection, if a slot is free: it holds the slot,
    /// and its request, sent when the handshake completed, is already there.
    pub fn accept_next(&mut self) -> Option<T> {
        if self.open >= self.max_connections {
            return None;
        }
        let next = self.queue.pop_front()?;
        self.open += 1;
        Some(next)
    }

    /// Connections accepted and not yet closed.
    pub fn open(&self) -> u32 {
        self.open
    }

    /// Connections waiting in the accept queue.
    pub fn queued(&self) -> u32 {
        u32::try_from(self.queue.len()).unwrap_or(u32::MAX)
    }

    /// The most connections the accept queue held.
    pub fn queue_max(&self) -> u32 {
        self.queue_max
    }

    /// Whether a connection waits for a slot (a close must then wake the acceptor).
    pub fn has_waiting(&self) -> bool {
        !self.queue.is_empty()
    }
}

/// What the client does after its `drops`-th SYN was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SynRetry {
    /// It sends the SYN again at this time.
    Retransmit { at: Nanos },
    /// `connect()` fails at this time (the kernel's retries ran out, or the client's connect
    /// timeout came first): the client counts a timeout.
    Fails { at: Nanos },
}

/// The client's next step after its `drops`-th dropped SYN, for a first SYN sent at `sent`.
pub fn syn_retry(link: &Link, sent: Nanos, drops: u32) -> SynRetry {
    let linear = link.syn_linear_timeouts;
    let retries = link.syn_retries + linear;
    let next = sent + syn_elapsed(drops, linear);
    let kernel_gives_up = sent + syn_elapsed(retries + 1, linear);
    let deadline = link
        .connect_timeout
        .map_or(kernel_gives_up, |t| (sent + t).min(kernel_gives_up));
    if drops > retries || next >= deadline {
        SynRetry::Fails { at: deadline }
    } else {
        SynRetry::Retransmit { at: next }
    }
}

/// The RTO before SYN retransmit `k` (from 1): the initial 1 s for the first
/// `linear + 1` (Linux 6.5+ `tcp_syn_linear_timeouts`), then doubling, capped at
/// `TCP_RTO_MAX` (120 s).
fn syn_rto(k: u32, linear: u32) -> Nanos {
    let secs = if k <= linear + 1 {
        1
    } else {
        1u64.checked_shl(k - linear - 1)
            .unwrap_or(u64::MAX)
            .min(120)
    };
    Nanos::from_secs(secs)
}

/// Time from the first SYN to retransmit `k` (`k` = retries + 1: to `connect()`'s failure).
/// With 6 retries and 4 linear timeouts: 1, 2, 3, 4, 5, 7, 11, 19, 35, 67 s, failing at
/// 131 s; before Linux 6.5 (0 linear): 1, 3, 7, 15, 31, 63 s, failing at 127 s.
pub fn syn_elapsed(k: u32, linear: u32) -> Nanos {
    (1..=k).fold(Nanos::ZERO, |t, i| t.saturating_add(syn_rto(i, linear)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(n: u64) -> Nanos {
        Nanos::from_secs(n)
    }

    #[test]
    fn syn_retransmits_follow_linux_6_5_linear_then_doubling_schedule() {
        let at: Vec<u64> = (1..=11)
            .map(|k| syn_elapsed(k, 4).0 / 1_000_000_000)
            .collect();
        assert_eq!(at, vec![1, 2, 3, 4, 5, 7, 11, 19, 35, 67, 131]);
    }

    #[test]
    fn syn_retransmits_before_linux_6_5_double_from_the_first() {
        let at: Vec<u64> = (1..=7)
            .map(|k| syn_elapsed(k, 0).0 / 1_000_000_000)
            .collect();
        assert_eq!(at, vec![1, 3, 7, 15, 31, 63, 127]);
    }

    #[test]
    fn a_full_backlog_drops_the_syn_and_a_close_accepts_the_oldest_waiting() {
        let mut l = Listener::sized(2, 1);
        // Two slots, then acceptCount + 1 = 2 places in the queue, then drops.
        let fates: Vec<Syn> = (0..5).map(|i| l.syn(i)).collect();
        assert_eq!(
            fates,
            [
                Syn::Accepted,
                Syn::Accepted,
                Syn::Queued,
                Syn::Queued,
                Syn::Dropped
            ]
        );
        assert_eq!((l.open(), l.queued(), l.queue_max()), (2, 2, 2));
        assert_eq!(l.accept_next(), None, "no slot is free");
        l.close();
        assert_eq!(l.accept_next(), Some(2), "the oldest handshake first");
        assert_eq!((l.open(), l.queued()), (2, 1));
        // A new SYN queues behind the waiting connection even when a slot is free.
        l.close();
        assert_eq!(l.syn(5), Syn::Queued);
        assert_eq!(l.accept_next(), Some(3));
        assert_eq!(l.accept_next(), None);
    }

    #[test]
    fn a_dropped_syn_is_sent_again_on_the_rto_schedule_until_connect_fails() {
        let link = Link::default();
        let sent = secs(10);
        let retry = |k| syn_retry(&link, sent, k);
        assert_eq!(retry(1), SynRetry::Retransmit { at: secs(11) });
        assert_eq!(retry(5), SynRetry::Retransmit { at: secs(15) });
        assert_eq!(retry(10), SynRetry::Retransmit { at: secs(77) });
        assert_eq!(retry(11), SynRetry::Fails { at: secs(141) });
        let impatient = Link {
            connect_timeout: Some(Nanos::from_millis(2_500)),
            ..Link::default()
        };
        assert_eq!(
            syn_retry(&impatient, sent, 2),
            SynRetry::Retransmit { at: secs(12) }
        );
        assert_eq!(
            syn_retry(&impatient, sent, 3),
            SynRetry::Fails {
                at: sent + Nanos::from_millis(2_500)
            }
        );
    }
}
