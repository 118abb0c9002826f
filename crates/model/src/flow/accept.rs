//! Connection admission, decided once for both engines: Tomcat's `LimitLatch` of
//! `maxConnections`, its single Acceptor thread, the listen socket's accept queue, and the
//! client's SYN retransmits.
//!
//! The kernel completes every handshake itself and puts the connection in the listen
//! socket's accept queue, which holds `acceptCount + 1` of them (`sk_acceptq_is_full` tests
//! `>`). It looks at the queue twice. A SYN that finds it full of completed handshakes is
//! dropped without an answer (`tcp_conn_request`), and the client retransmits it on its RTO
//! schedule until `connect()` fails with `ETIMEDOUT` or its own connect timeout. A SYN that
//! finds room is answered, and the client's ACK, one round trip later, must find room again
//! (`tcp_check_req` -> `inet_csk_complete_hashdance`): SYNs that arrive together all see the
//! same room, and the ACKs beyond it are dropped (`exit_overflow`, counted in
//! `ListenOverflows` like the dropped SYNs). Those clients' `connect()` has returned: they
//! send their request, which is dropped too, and get in only when a retransmitted request
//! (from 200 ms, doubling) or an ACK to the server's retransmitted SYN-ACK (1, 3, 7, 15,
//! 31 s) finds room ([`ack_retry`]). Nothing is refused: a full backlog only makes connecting
//! slow, until the server forgets the handshake (63 s) and answers the next retransmit with
//! a reset.
//!
//! Tomcat's Acceptor (`Acceptor.run`) is one thread that loops: it counts a connection up the
//! latch (`countUpOrAwaitConnection`, so a kept-alive connection holds its slot while idle),
//! takes the oldest connection off the queue (`serverSocketAccept`) and configures it and
//! registers it with the Poller (`NioEndpoint.setSocketOptions`). Each turn costs
//! `accept_cost`; the connection holds its place in the queue for the whole turn, so a
//! burst of SYNs faster than the Acceptor overflows the queue even with slots free. An
//! `accept_cost` of zero is an Acceptor that takes a connection the instant its handshake
//! completes.

use std::collections::VecDeque;

use crate::scenario::{Link, Server};
use crate::time::Nanos;

/// What became of a SYN that reached the listen socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syn {
    /// The acceptor took the connection at once (only with no accept cost): it holds a slot;
    /// its request follows the handshake one round trip later.
    Accepted,
    /// The handshake completed and the connection waits in the accept queue: its request is
    /// sent and waits there too, until the acceptor takes it ([`Listener::wake`]).
    Queued,
    /// The SYN is answered, but the queue's places are all taken by handshakes still in
    /// flight: the client's ACK, a round trip later, decides ([`Listener::ack`]).
    Answered,
    /// The accept queue was full: no answer; the client retransmits ([`syn_retry`]).
    Dropped,
}

/// What became of a client's ACK (with its request, or alone) at the listen socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ack {
    /// The acceptor took the connection at once (only with no accept cost).
    Accepted,
    /// The connection waits in the accept queue.
    Queued,
    /// The queue was full: dropped; the client tries again ([`ack_retry`]).
    Overflow,
}

/// What the acceptor does when woken ([`Listener::wake`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake<T> {
    /// With no accept cost: it took this connection at once; its request is already there.
    Accepted(T),
    /// It started on the oldest waiting connection, and hands it to the poller at `done`
    /// ([`Listener::accepted`]).
    Accepting { done: Nanos },
    /// Nothing to do now: it is busy, no slot is free, or nobody waits.
    Idle,
}

/// A connection the acceptor has handed to the poller, with the time its request reaches
/// the server (one round trip after its SYN, or a retransmit's arrival).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handed<T> {
    pub connection: T,
    pub request_at: Nanos,
}

/// Tomcat's connection latch, its Acceptor, and the accept queue in front of them, holding
/// the connections (`T`: whatever the engine calls a waiting connection) in the order their
/// handshakes completed.
#[derive(Debug, Clone)]
pub struct Listener<T> {
    max_connections: u32,
    capacity: usize,
    accept_cost: Nanos,
    /// The clients' round trip: a handshake queued at its SYN completes this much later.
    rtt: Nanos,
    open: u32,
    queue: VecDeque<Handed<T>>,
    /// The queue's latest handshake completions, for the SYN's check without a scan: each
    /// entry's place in the queue (counted from the first ever queued) and its ACK time,
    /// keeping only entries no later-queued one completes after, so the front is the latest
    /// ACK time of all the queue holds (a sliding-window maximum).
    latest: VecDeque<(u64, Nanos)>,
    /// Connections ever taken off the queue: the place of the queue's oldest.
    taken_ever: u64,
    queue_max: u32,
    /// The acceptor is in its turn on the queue's oldest connection.
    accepting: bool,
    /// The acceptor stands still until then (a garbage collector's pause): the kernel
    /// queues completed handshakes meanwhile.
    stopped_until: Nanos,
}

impl<T> Listener<T> {
    /// The listener of a server with `maxConnections`, `acceptCount` and the connector's
    /// accept cost (see [`Server`]), for clients `rtt` away.
    pub fn new(server: &Server, rtt: Nanos) -> Self {
        Self::sized(server.max_connections, server.accept_count)
            .with_accept_cost(server.connector.accept_cost)
            .with_rtt(rtt)
    }

    /// A listener with room for `max_connections` accepted and `accept_count + 1` waiting,
    /// and an acceptor that costs nothing.
    pub fn sized(max_connections: u32, accept_count: u32) -> Self {
        Listener {
            max_connections,
            capacity: accept_count as usize + 1,
            accept_cost: Nanos::ZERO,
            rtt: Nanos::ZERO,
            open: 0,
            queue: VecDeque::new(),
            latest: VecDeque::new(),
            taken_ever: 0,
            queue_max: 0,
            accepting: false,
            stopped_until: Nanos::ZERO,
        }
    }

    /// The same listener whose acceptor spends `cost` on each connection.
    #[must_use]
    pub fn with_accept_cost(mut self, cost: Nanos) -> Self {
        self.accept_cost = cost;
        self
    }

    /// A SYN reaches the listen socket at `now`. With no accept cost the acceptor takes the
    /// connection when a slot is free and nobody waits before it; otherwise the connection
    /// waits in the accept queue while there is room (the caller then wakes the acceptor).
    /// The kernel drops the SYN only when the queue is full of completed handshakes; when
    /// handshakes still in flight fill it, the SYN is answered and its ACK decides.
    pub fn syn(&mut self, connection: T, now: Nanos) -> Syn {
        if self.takes_at_once(now) {
            self.open += 1;
            Syn::Accepted
        } else if self.queue.len() < self.capacity {
            let done = now + self.rtt;
            self.enqueue(connection, done, done);
            Syn::Queued
        } else if self
            .latest
            .front()
            .is_some_and(|&(_, acked_at)| acked_at > now)
        {
            // The queue is full (a connection joins it only below its capacity): it holds
            // fewer completed handshakes than places exactly when one completes later.
            Syn::Answered
        } else {
            Syn::Dropped
        }
    }

    /// A client's ACK reaches the listen socket at `now`, its request arriving at
    /// `request_at` (with the ACK, or on a later retransmit): the connection is accepted at
    /// once, queued, or dropped when the queue is full.
    pub fn ack(&mut self, connection: T, now: Nanos, request_at: Nanos) -> Ack {
        if self.takes_at_once(now) {
            self.open += 1;
            Ack::Accepted
        } else if self.queue.len() < self.capacity {
            self.enqueue(connection, now, request_at);
            Ack::Queued
        } else {
            Ack::Overflow
        }
    }

    /// With no accept cost, a slot free and nobody waiting, the acceptor takes a completed
    /// handshake the instant it completes.
    fn takes_at_once(&self, now: Nanos) -> bool {
        self.accept_cost == Nanos::ZERO
            && !self.full()
            && self.queue.is_empty()
            && now >= self.stopped_until
    }

    /// The acceptor stands still until `until` (every Java thread does in a stop-the-world
    /// pause); the caller wakes it then.
    pub fn stop_until(&mut self, until: Nanos) {
        self.stopped_until = self.stopped_until.max(until);
    }

    fn enqueue(&mut self, connection: T, acked_at: Nanos, request_at: Nanos) {
        while self.latest.back().is_some_and(|&(_, at)| at <= acked_at) {
            self.latest.pop_back();
        }
        let place = self.taken_ever + self.queue.len() as u64;
        self.latest.push_back((place, acked_at));
        self.queue.push_back(Handed {
            connection,
            request_at,
        });
        let len = u32::try_from(self.queue.len()).unwrap_or(u32::MAX);
        self.queue_max = self.queue_max.max(len);
    }

    /// A connection closed: its slot frees (the latch counts down).
    pub fn close(&mut self) {
        self.open = self.open.saturating_sub(1);
    }

    /// The acceptor looks at the queue at `now` (after a SYN queued, a close, or its previous
    /// turn). When idle, with a slot free and a connection waiting, it counts the latch up and
    /// takes the oldest: at once with no accept cost, else it hands it on at `now + cost`.
    pub fn wake(&mut self, now: Nanos) -> Wake<T> {
        if self.accepting || self.full() || self.queue.is_empty() || now < self.stopped_until {
            return Wake::Idle;
        }
        self.open += 1;
        if self.accept_cost == Nanos::ZERO {
            return match self.take_oldest() {
                Some(next) => Wake::Accepted(next.connection),
                None => Wake::Idle,
            };
        }
        self.accepting = true;
        Wake::Accepting {
            done: now + self.accept_cost,
        }
    }

    /// The acceptor's turn ends: the connection leaves the accept queue and goes to the
    /// poller. The caller wakes the acceptor again for the next one.
    pub fn accepted(&mut self) -> Option<Handed<T>> {
        if !std::mem::take(&mut self.accepting) {
            return None;
        }
        self.take_oldest()
    }

    /// The oldest connection leaves the accept queue.
    fn take_oldest(&mut self) -> Option<Handed<T>> {
        let oldest = self.queue.pop_front()?;
        if self
            .latest
            .front()
            .is_some_and(|&(place, _)| place == self.taken_ever)
        {
            self.latest.pop_front();
        }
        self.taken_ever += 1;
        Some(oldest)
    }

    /// The same listener for clients `rtt` away: a handshake answered at its SYN completes
    /// that much later.
    #[must_use]
    pub fn with_rtt(mut self, rtt: Nanos) -> Self {
        self.rtt = rtt;
        self
    }

    /// The acceptor's cost per connection.
    pub fn accept_cost(&self) -> Nanos {
        self.accept_cost
    }

    /// Whether the acceptor is in a turn.
    pub fn accepting(&self) -> bool {
        self.accepting
    }

    /// Connections accepted (or in the acceptor's turn) and not yet closed.
    pub fn open(&self) -> u32 {
        self.open
    }

    /// Connections waiting in the accept queue (the one in the acceptor's turn included).
    pub fn queued(&self) -> u32 {
        u32::try_from(self.queue.len()).unwrap_or(u32::MAX)
    }

    /// The most connections the accept queue held.
    pub fn queue_max(&self) -> u32 {
        self.queue_max
    }

    /// Every `maxConnections` slot is taken: the acceptor takes no connection.
    pub fn full(&self) -> bool {
        self.open >= self.max_connections
    }

    /// Whether a connection waits for the acceptor (a close must then wake it).
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

/// The client's next try after its `tries`-th dropped ACK ([`Ack::Overflow`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckRetry {
    /// Its request, retransmitted on the client's RTO, reaches the listen socket at `at`
    /// (and completes the handshake if there is room).
    Data { at: Nanos },
    /// The server's retransmitted SYN-ACK makes the client ACK again: the ACK reaches the
    /// listen socket at `at`; the request follows on its next retransmit, at `request_at`.
    Ack { at: Nanos, request_at: Nanos },
    /// The server forgot the handshake (`tcp_synack_retries` ran out): the retransmit that
    /// arrives at `at` is answered with a reset.
    Reset { at: Nanos },
}

impl AckRetry {
    /// When the try reaches the server.
    pub fn at(self) -> Nanos {
        match self {
            AckRetry::Data { at } | AckRetry::Ack { at, .. } | AckRetry::Reset { at } => at,
        }
    }
}

/// The server's SYN-ACK retransmits (`tcp_synack_retries`).
const SYNACK_RETRIES: u32 = 5;
/// The client's first RTO once connected (`TCP_RTO_MIN`: a round trip far below it).
const RTO_MIN: Nanos = Nanos::from_millis(200);
/// `TCP_RTO_MAX`.
const RTO_MAX: Nanos = Nanos::from_secs(120);

/// The client's RTO before its request's retransmit `k + 1`: 200 ms doubled `k` times,
/// capped at 120 s.
fn rto(k: u32) -> Nanos {
    RTO_MIN
        .0
        .checked_shl(k)
        .filter(|&ns| ns <= RTO_MAX.0)
        .map_or(RTO_MAX, Nanos)
}

/// The client's next try after its `tries`-th dropped ACK, for a handshake whose SYN reached
/// the listen socket at `syn_at`, `rtt` away: its request's retransmits (the first request
/// reached the server with the ACK, at `syn_at + rtt`) and its ACKs to the server's SYN-ACK
/// retransmits (sent 1, 3, 7, 15 and 31 s after the SYN), in time order; the ACK that
/// coincides with a retransmitted request adds nothing. The handshake is forgotten at 63 s.
pub fn ack_retry(rtt: Nanos, syn_at: Nanos, tries: u32) -> AckRetry {
    let synacks: [Nanos; SYNACK_RETRIES as usize] =
        std::array::from_fn(|j| syn_at + syn_elapsed(j as u32 + 1, 0) + rtt);
    let forgotten = syn_at + syn_elapsed(SYNACK_RETRIES + 1, 0);
    // The tries in time order, up to the one asked for: between two request retransmits,
    // the ACKs answering SYN-ACKs, then the later request.
    let mut left = tries.saturating_sub(1);
    let (mut from, mut k) = (syn_at + rtt, 0);
    loop {
        let to = from + rto(k);
        let acks = synacks
            .iter()
            .filter(|&&at| from < at && at < to)
            .map(|&at| AckRetry::Ack { at, request_at: to });
        for next in acks.chain(std::iter::once(AckRetry::Data { at: to })) {
            if next.at() >= forgotten {
                // This try and every later one come after the handshake was forgotten:
                // the first request retransmit from then on meets a reset.
                return AckRetry::Reset { at: to };
            }
            if left == 0 {
                return next;
            }
            left -= 1;
        }
        (from, k) = (to, k + 1);
    }
}

/// When the request of a handshake's try reaches the server: with the ACK that arrives at
/// `at` (its first ACK, `drops` = 0, or a retransmitted request), or on the retransmit after
/// an ACK that answers a SYN-ACK ([`AckRetry::Ack`]).
pub fn request_of_try(rtt: Nanos, syn_at: Nanos, drops: u32, at: Nanos) -> Nanos {
    match drops {
        0 => at,
        _ => match ack_retry(rtt, syn_at, drops) {
            AckRetry::Ack { request_at, .. } => request_at,
            AckRetry::Data { .. } | AckRetry::Reset { .. } => at,
        },
    }
}

/// What follows the fate of a SYN or an ACK at the listen socket, for either engine to carry
/// out at the time it names (the simulation as an event, the real engine as a timer): the
/// one reading of [`Syn`], [`Ack`] and the retransmit schedules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// The connection's request reaches the poller, which hands it to the executor, at `at`
    /// (as its own step, even when that is now).
    Dispatch { at: Nanos },
    /// The request is there already: the poller hands it on now.
    DispatchNow,
    /// The connection waits in the accept queue: the acceptor may start on it now.
    WakeAcceptor,
    /// The client's ACK (with its request, or answering a retransmitted SYN-ACK) reaches the
    /// listen socket at `at`, for the handshake whose SYN came at `syn_at`, after `drops`
    /// dropped ACKs.
    Ack {
        at: Nanos,
        syn_at: Nanos,
        drops: u32,
    },
    /// The client's SYN, sent again after `drops` dropped ones, reaches the server at `at`.
    Syn { at: Nanos, drops: u32 },
    /// `connect()` fails at `at`: the client counts a timeout.
    ConnectFails { at: Nanos },
    /// The server answers a retransmit of the handshake it forgot with a reset at `at`.
    Reset { at: Nanos },
}

impl Then {
    /// After a SYN that reached the listen socket at `at` met `fate`: the connection's first
    /// SYN was sent at `sent`, and `drops` SYNs of it were dropped before this one.
    pub fn after_syn(fate: Syn, link: &Link, at: Nanos, sent: Nanos, drops: u32) -> Then {
        match fate {
            // The request follows the handshake one round trip later.
            Syn::Accepted => Then::Dispatch { at: at + link.rtt },
            Syn::Queued => Then::WakeAcceptor,
            // `connect()` returns at the SYN-ACK; the ACK and the request decide.
            Syn::Answered => Then::Ack {
                at: at + link.rtt,
                syn_at: at,
                drops: 0,
            },
            Syn::Dropped => match syn_retry(link, sent, drops + 1) {
                SynRetry::Retransmit { at } => Then::Syn {
                    at: at + Nanos(link.rtt.0 / 2),
                    drops: drops + 1,
                },
                SynRetry::Fails { at } => Then::ConnectFails { at },
            },
        }
    }

    /// After the ACK of the handshake whose SYN came at `syn_at`, after `drops` dropped ones,
    /// reached the listen socket at `now` and met `fate`; its request arrives at
    /// `request_at` ([`request_of_try`]).
    pub fn after_ack(
        fate: Ack,
        rtt: Nanos,
        syn_at: Nanos,
        drops: u32,
        request_at: Nanos,
        now: Nanos,
    ) -> Then {
        match fate {
            Ack::Accepted => Then::after_accepted(request_at, now),
            Ack::Queued => Then::WakeAcceptor,
            Ack::Overflow => match ack_retry(rtt, syn_at, drops + 1) {
                AckRetry::Data { at } | AckRetry::Ack { at, .. } => Then::Ack {
                    at,
                    syn_at,
                    drops: drops + 1,
                },
                AckRetry::Reset { at } => Then::Reset { at },
            },
        }
    }

    /// After a connection was accepted (or handed on by the acceptor) at `now`, its request
    /// arriving at `request_at`.
    pub fn after_accepted(request_at: Nanos, now: Nanos) -> Then {
        if request_at > now {
            Then::Dispatch { at: request_at }
        } else {
            Then::DispatchNow
        }
    }
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

/// Time from the first SYN to retransmit `k` (`k` = retries + 1: to `connect()`'s failure):
/// the sum of the RTOs before each, the initial 1 s for the first `linear + 1` (Linux 6.5+
/// `tcp_syn_linear_timeouts`), then doubling, 2, 4, ... 64 s, capped at `TCP_RTO_MAX` (120 s)
/// from the one that would be 128 s. With 6 retries and 4 linear timeouts: 1, 2, 3, 4, 5, 7,
/// 11, 19, 35, 67 s, failing at 131 s; before Linux 6.5 (0 linear): 1, 3, 7, 15, 31, 63 s,
/// failing at 127 s. Summed in closed form: every dropped SYN asks for it.
pub fn syn_elapsed(k: u32, linear: u32) -> Nanos {
    let first = linear.saturating_add(1);
    let flat = u64::from(k.min(first));
    let doubled = u64::from(k.saturating_sub(first));
    // 2 + 4 + ... + 2^m = 2^(m+1) - 2 while 2^m <= 64; then 120 s each.
    let secs = if doubled <= 6 {
        flat + (1 << (doubled + 1)) - 2
    } else {
        flat + 126 + (doubled - 6) * 120
    };
    Nanos(secs.saturating_mul(1_000_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(n: u64) -> Nanos {
        Nanos::from_secs(n)
    }

    /// The RTO before SYN retransmit `k` (from 1), one at a time, as the kernel sets it.
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

    #[test]
    fn the_time_to_a_syn_retransmit_is_the_sum_of_the_rtos_before_it() {
        for linear in 0..=12 {
            let mut sum = Nanos::ZERO;
            for k in 0..=300 {
                if k > 0 {
                    sum = sum.saturating_add(syn_rto(k, linear));
                }
                assert_eq!(
                    syn_elapsed(k, linear),
                    sum,
                    "retransmit {k}, {linear} linear"
                );
            }
        }
        assert_eq!(syn_elapsed(u32::MAX, 0), Nanos(u64::MAX), "saturates");
        assert_eq!(syn_elapsed(3, u32::MAX), secs(3));
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

    /// The zero-cost acceptor's next connection, taken at once.
    fn take(l: &mut Listener<u32>) -> Option<u32> {
        match l.wake(Nanos::ZERO) {
            Wake::Accepted(next) => Some(next),
            Wake::Accepting { .. } | Wake::Idle => None,
        }
    }

    #[test]
    fn a_full_backlog_drops_the_syn_and_a_close_accepts_the_oldest_waiting() {
        let mut l = Listener::sized(2, 1);
        // Two slots, then acceptCount + 1 = 2 places in the queue, then drops.
        let fates: Vec<Syn> = (0..5).map(|i| l.syn(i, Nanos::ZERO)).collect();
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
        assert_eq!(take(&mut l), None, "no slot is free");
        l.close();
        assert_eq!(take(&mut l), Some(2), "the oldest handshake first");
        assert_eq!((l.open(), l.queued()), (2, 1));
        // A new SYN queues behind the waiting connection even when a slot is free.
        l.close();
        assert_eq!(l.syn(5, Nanos::ZERO), Syn::Queued);
        assert_eq!(take(&mut l), Some(3));
        assert_eq!(take(&mut l), None);
    }

    /// The acceptor's turns, driven as an engine does: wake it, and at each turn's end hand
    /// the connection on and wake it again. Returns (connection, time handed to the poller).
    fn drain(l: &mut Listener<u32>, mut now: Nanos) -> Vec<(u32, Nanos)> {
        let mut handed = Vec::new();
        while let Wake::Accepting { done } = l.wake(now) {
            assert_eq!(l.wake(done), Wake::Idle, "one connection at a time");
            now = done;
            let next = l.accepted().expect("the turn's connection");
            handed.push((next.connection, now));
        }
        handed
    }

    #[test]
    fn a_burst_beyond_the_accept_queue_is_dropped_while_the_acceptor_takes_one_per_cost() {
        // Seven SYNs at once, acceptCount 3 (4 places), 100 ms an accept, slots to spare.
        let c = Nanos::from_millis(100);
        let mut l = Listener::sized(100, 3).with_accept_cost(c);
        let fates: Vec<Syn> = (0..7).map(|i| l.syn(i, Nanos::ZERO)).collect();
        let queued = [Syn::Queued; 4];
        assert_eq!(fates[..4], queued, "every handshake enters the queue first");
        assert_eq!(fates[4..], [Syn::Dropped; 3]);
        // The first turn holds the connection's place until it ends: a SYN meanwhile finds
        // the queue still full.
        assert_eq!(l.wake(Nanos::ZERO), Wake::Accepting { done: c });
        assert_eq!(l.syn(7, Nanos::from_millis(50)), Syn::Dropped);
        assert_eq!((l.open(), l.queued()), (1, 4), "the latch counts up first");
        let first = l.accepted().expect("the oldest");
        assert_eq!((first.connection, first.request_at), (0, Nanos::ZERO));
        // The k-th connection goes to the poller at k x 100 ms.
        let ms = |n| Nanos::from_millis(n);
        assert_eq!(drain(&mut l, c), [(1, ms(200)), (2, ms(300)), (3, ms(400))]);
        // The three dropped SYNs come back at 1 s: queued, taken at 1.1, 1.2, 1.3 s.
        for i in 4..7 {
            assert_eq!(l.syn(i, Nanos::from_secs(1)), Syn::Queued);
        }
        let late = drain(&mut l, Nanos::from_secs(1));
        assert_eq!(late, [(4, ms(1100)), (5, ms(1200)), (6, ms(1300))]);
        assert_eq!((l.open(), l.queued(), l.queue_max()), (7, 0, 4));
    }

    #[test]
    fn the_acceptor_waits_for_a_free_slot_before_its_turn() {
        let c = Nanos::from_millis(10);
        let mut l = Listener::sized(1, 100).with_accept_cost(c);
        assert_eq!(
            l.syn(0, Nanos::ZERO),
            Syn::Queued,
            "never at once with a cost"
        );
        assert_eq!(l.syn(1, Nanos::ZERO), Syn::Queued);
        assert_eq!(drain(&mut l, Nanos::ZERO), [(0, c)]);
        assert_eq!(l.wake(c), Wake::Idle, "maxConnections reached");
        l.close();
        let at = Nanos::from_millis(500);
        assert_eq!(drain(&mut l, at), [(1, at + c)]);
        assert_eq!(l.accepted(), None, "no turn in progress");
    }

    #[test]
    fn syns_that_arrive_together_see_the_same_room_and_the_acks_beyond_it_overflow() {
        // One slot (taken), acceptCount 1 (2 places), clients 40 us away. Four SYNs at
        // once: two take the places, their handshakes in flight; the other two are answered
        // all the same (no handshake has completed yet), and their ACKs at 40 us find the
        // queue full.
        let us = Nanos::from_micros;
        let mut l = Listener::sized(1, 1).with_rtt(us(40));
        assert_eq!(l.syn(9, Nanos::ZERO), Syn::Accepted);
        let fates: Vec<Syn> = (0..4).map(|i| l.syn(i, Nanos::ZERO)).collect();
        assert_eq!(
            fates,
            [Syn::Queued, Syn::Queued, Syn::Answered, Syn::Answered]
        );
        assert_eq!(l.ack(2, us(40), us(40)), Ack::Overflow);
        assert_eq!(l.ack(3, us(40), us(40)), Ack::Overflow);
        // Once those two handshakes have completed, a SYN finds the queue full: dropped.
        assert_eq!(l.syn(4, us(40)), Syn::Dropped);
        // A close lets the oldest in; a retransmitted request then finds its place.
        l.close();
        assert_eq!(take(&mut l), Some(0));
        let at = Nanos::from_millis(200);
        assert_eq!(l.ack(2, at, at), Ack::Queued);
        assert_eq!(l.ack(3, at, at), Ack::Overflow);
        assert_eq!(l.queued(), 2);
    }

    #[test]
    fn a_full_queue_answers_a_syn_exactly_when_a_handshake_in_it_completes_later() {
        // The SYN's check keeps the latest completion of the queue instead of scanning it:
        // against a scan of a shadow queue, over SYNs, ACKs, closes and the acceptor's
        // turns, at times that also go back (a real run's tasks may report out of order).
        let us = Nanos::from_micros;
        // By hand first: one slot (taken), two places, 50 us away. The handshake queued at
        // its SYN at 0 completes at 50 us, after the ACK queued at 10 us; the acceptor takes
        // the first at 20 us, before it completed, and an ACK at 20 us fills the queue again:
        // at 30 us every handshake in it has completed, so a SYN is dropped.
        let mut l = Listener::sized(1, 1).with_rtt(us(50));
        assert_eq!(l.syn(9, us(0)), Syn::Accepted);
        assert_eq!(l.syn(0, us(0)), Syn::Queued);
        assert_eq!(l.ack(1, us(10), us(10)), Ack::Queued);
        assert_eq!(l.syn(2, us(15)), Syn::Answered);
        l.close();
        assert_eq!(l.wake(us(20)), Wake::Accepted(0));
        assert_eq!(l.ack(2, us(20), us(20)), Ack::Queued);
        assert_eq!(l.syn(3, us(30)), Syn::Dropped);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for accept_cost in [Nanos::ZERO, us(30)] {
            let mut l = Listener::sized(2, 2)
                .with_rtt(us(50))
                .with_accept_cost(accept_cost);
            let mut shadow: VecDeque<Nanos> = VecDeque::new();
            let (mut now, mut answered, mut dropped) = (us(100), 0, 0);
            for i in 0..100_000u32 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let step = x % 20_000;
                now = if x.is_multiple_of(7) {
                    now.saturating_sub(Nanos(step))
                } else {
                    now + Nanos(step)
                };
                match (x >> 8) % 6 {
                    0 | 1 => {
                        let full = shadow.len() >= l.capacity;
                        let completed = shadow.iter().filter(|&&t| t <= now).count();
                        match l.syn(i, now) {
                            Syn::Queued => shadow.push_back(now + us(50)),
                            Syn::Answered => {
                                assert!(full && completed < l.capacity, "{i}");
                                answered += 1;
                            }
                            Syn::Dropped => {
                                assert!(full && completed >= l.capacity, "{i}");
                                dropped += 1;
                            }
                            Syn::Accepted => assert!(!full),
                        }
                    }
                    2 => {
                        if l.ack(i, now, now) == Ack::Queued {
                            shadow.push_back(now);
                        }
                    }
                    3 => l.close(),
                    _ => {
                        match l.wake(now) {
                            Wake::Accepted(_) => assert!(shadow.pop_front().is_some()),
                            Wake::Accepting { .. } => {
                                assert!(l.accepted().is_some());
                                shadow.pop_front();
                            }
                            Wake::Idle => {}
                        }
                        assert_eq!(l.queued() as usize, shadow.len());
                    }
                }
            }
            assert!(
                answered > 1_000 && dropped > 1_000,
                "{answered} answered, {dropped} dropped"
            );
        }
    }

    #[test]
    fn an_overflowed_handshake_retries_with_its_request_and_the_servers_syn_acks() {
        // SYN at 0, 1 ms round trip: the request first reaches the server at 1 ms; its
        // retransmits 200, 400, 800, 1,600 ms ... apart arrive at 201, 601, 1,401, 3,001,
        // 6,201, 12,601, 25,401, 51,001 ms; the ACKs to the SYN-ACKs sent at 1, 3, 7, 15 and
        // 31 s arrive 1 ms after them, the one at 3,001 ms with a request retransmit.
        let ms = Nanos::from_millis;
        let rtt = ms(1);
        let tries: Vec<AckRetry> = (1..=13).map(|k| ack_retry(rtt, Nanos::ZERO, k)).collect();
        let data = |at| AckRetry::Data { at: ms(at) };
        let ack = |at, request_at| AckRetry::Ack {
            at: ms(at),
            request_at: ms(request_at),
        };
        assert_eq!(
            tries,
            [
                data(201),
                data(601),
                ack(1_001, 1_401),
                data(1_401),
                data(3_001),
                data(6_201),
                ack(7_001, 12_601),
                data(12_601),
                ack(15_001, 25_401),
                data(25_401),
                ack(31_001, 51_001),
                data(51_001),
                // The handshake is forgotten at 63 s: the retransmit at 102,201 ms meets a
                // reset.
                AckRetry::Reset { at: ms(102_201) },
            ]
        );
    }

    #[test]
    fn the_tries_after_dropped_acks_follow_their_definition_at_any_round_trip() {
        // The definition, read literally: every request retransmit and every ACK to a
        // SYN-ACK in time order, the `tries`-th of them, or a reset at the first request
        // retransmit once the handshake is forgotten.
        fn by_definition(rtt: Nanos, syn_at: Nanos, tries: u32) -> AckRetry {
            let first = syn_at + rtt;
            let data = |i: u32| (0..i).fold(first, |t, k| t + rto(k));
            let synacks: Vec<Nanos> = (1..=SYNACK_RETRIES)
                .map(|j| syn_at + syn_elapsed(j, 0) + rtt)
                .collect();
            let mut in_order = (1..).flat_map(|i| {
                let (from, to) = (data(i - 1), data(i));
                synacks
                    .clone()
                    .into_iter()
                    .filter(move |&at| from < at && at < to)
                    .map(move |at| AckRetry::Ack { at, request_at: to })
                    .chain(std::iter::once(AckRetry::Data { at: to }))
            });
            let forgotten = syn_at + syn_elapsed(SYNACK_RETRIES + 1, 0);
            match in_order.nth(tries.saturating_sub(1) as usize) {
                Some(next) if next.at() < forgotten => next,
                _ => AckRetry::Reset {
                    at: (1..)
                        .map(data)
                        .find(|&at| at >= forgotten)
                        .unwrap_or(forgotten),
                },
            }
        }
        let ms = Nanos::from_millis;
        let mut resets = 0;
        for rtt in [
            ms(0),
            ms(1),
            ms(50),
            ms(999),
            ms(1_000),
            ms(2_500),
            // A request retransmit (12 + 51 s), and an ACK to the last SYN-ACK (31 + 32 s),
            // exactly when the handshake is forgotten.
            ms(12_000),
            ms(32_000),
            ms(70_000),
        ] {
            for syn_at in [Nanos::ZERO, ms(12_345)] {
                for tries in 0..=16 {
                    let got = ack_retry(rtt, syn_at, tries);
                    assert_eq!(
                        got,
                        by_definition(rtt, syn_at, tries),
                        "{rtt:?} {syn_at:?} {tries}"
                    );
                    resets += usize::from(matches!(got, AckRetry::Reset { .. }));
                }
            }
        }
        assert!(
            resets > 20,
            "only {resets} resets: the grid misses the forgotten handshake"
        );
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

    #[test]
    fn what_follows_a_syn_or_an_ack_is_read_once_for_both_engines() {
        // A 2 ms round trip, a connection first sent at 10 s whose SYN reaches the server at
        // 10.001 s.
        let ms = Nanos::from_millis;
        let link = Link {
            rtt: ms(2),
            ..Link::default()
        };
        let (sent, at) = (secs(10), secs(10) + ms(1));
        let after = |fate, drops| Then::after_syn(fate, &link, at, sent, drops);
        assert_eq!(after(Syn::Accepted, 0), Then::Dispatch { at: at + ms(2) });
        assert_eq!(after(Syn::Queued, 0), Then::WakeAcceptor);
        let ack = Then::Ack {
            at: at + ms(2),
            syn_at: at,
            drops: 0,
        };
        assert_eq!(after(Syn::Answered, 0), ack);
        // The first drop: sent again 1 s after the first SYN, half a round trip away; the
        // eleventh: connect() fails at 141 s after it.
        let syn = Then::Syn {
            at: secs(11) + ms(1),
            drops: 1,
        };
        assert_eq!(after(Syn::Dropped, 0), syn);
        let fails = Then::ConnectFails { at: secs(141) };
        assert_eq!(after(Syn::Dropped, 10), fails);
        // The ACK of a SYN at 0 with a 1 ms round trip, arriving at 1 ms: accepted, its request
        // is there (or follows later); overflowed, the request's retransmit comes at 201 ms,
        // and the 13th try meets the reset of the forgotten handshake.
        let rtt = ms(1);
        let after = |fate, drops, request_at| {
            Then::after_ack(fate, rtt, Nanos::ZERO, drops, request_at, ms(1))
        };
        assert_eq!(after(Ack::Accepted, 0, ms(1)), Then::DispatchNow);
        assert_eq!(
            after(Ack::Accepted, 2, ms(1_401)),
            Then::Dispatch { at: ms(1_401) }
        );
        assert_eq!(after(Ack::Queued, 0, ms(1)), Then::WakeAcceptor);
        let again = Then::Ack {
            at: ms(201),
            syn_at: Nanos::ZERO,
            drops: 1,
        };
        assert_eq!(after(Ack::Overflow, 0, ms(1)), again);
        let reset = Then::Reset { at: ms(102_201) };
        assert_eq!(after(Ack::Overflow, 12, ms(1)), reset);
        assert_eq!(
            Then::after_accepted(ms(5), ms(3)),
            Then::Dispatch { at: ms(5) }
        );
        assert_eq!(Then::after_accepted(ms(3), ms(3)), Then::DispatchNow);
    }
}
