//! The connection layer's state: the listen socket, the connections closing, each closed
//! client's kept connection and tally, and what a snapshot shows of them.

use crate::metrics::{LatencyHistogram, LatencySummary};
use crate::time::Nanos;
pub use threadlab_model::snapshot::{ClientTally, ClientsSnapshot, NetSnapshot, NetStats};

use crate::flow::accept::Listener;
use crate::handles::ThreadRef;
use crate::request::ReqRef;

/// The connections between the clients and the server.
#[derive(Debug, Clone)]
pub(crate) struct Net {
    /// Tomcat's `LimitLatch` and the listen socket's accept queue (handshakes completed,
    /// requests sent, not accepted).
    pub listener: Listener<ReqRef>,
    /// Connections that close at a known (time, event sequence) while nobody waits for their
    /// slot: counted in `open` until they are swept out, with no event of their own (see
    /// [`Engine::retire_closes`]). They become events when a connection waits.
    pub closing: Closing,
    /// Closed-load clients, by index.
    pub clients: Vec<ClosedClient>,
    pub stats: NetStats,
    /// Time from a connection's first SYN to its completed handshake.
    pub connect: Repeats,
}

/// A latency histogram fed in runs: nearly every handshake takes the same time (one round
/// trip), and a run of equal latencies goes into the histogram at once when another latency
/// comes or the engine hands control back ([`Repeats::flush`]). One latency recorded a
/// customer cost `erlang-c`'s sequential run some 70 instructions a customer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Repeats {
    hist: LatencyHistogram,
    /// The latest latency and how many times it came in a row, not yet in `hist`.
    run: (Nanos, u64),
}

impl Repeats {
    #[inline]
    pub fn record(&mut self, latency: Nanos) {
        if self.run.1 > 0 && self.run.0 == latency {
            self.run.1 += 1;
        } else {
            self.flush();
            self.run = (latency, 1);
        }
    }

    /// Puts the run into the histogram.
    pub fn flush(&mut self) {
        let (latency, count) = std::mem::take(&mut self.run);
        self.hist.record_n(latency, count);
    }

    /// The summary of every latency recorded, the run's included.
    pub fn summary(&self) -> LatencySummary {
        if self.run.1 == 0 {
            return self.hist.summary();
        }
        // Between steps the run is empty (they flush it); otherwise a copy takes it in.
        let mut hist = self.hist.clone();
        hist.record_n(self.run.0, self.run.1);
        hist.summary()
    }
}

/// The closes to come that have no event: each one's (time, event sequence), in no order.
///
/// Nothing needs them in order. The listener counts a connection open until its close is
/// swept out, and its count matters only once it reaches `maxConnections`: below that, a
/// connection is accepted whether or not the closes that have come are counted. So they are
/// swept out (one pass over the list) only when the count is full, when a connection waits,
/// when a sample is taken, or when the list has doubled since the last sweep.
#[derive(Debug, Clone, Default)]
pub(crate) struct Closing {
    keys: Vec<(Nanos, u64)>,
    /// The length at which the list is swept whatever the count.
    sweep_at: usize,
}

/// The shortest list that is swept for its length alone.
const SWEEP_AT_LEAST: usize = 64;

impl Closing {
    /// A connection closes at `key`.
    pub fn push(&mut self, key: (Nanos, u64)) {
        self.keys.push(key);
    }

    /// The list has grown enough to be swept.
    pub fn long(&self) -> bool {
        self.keys.len() >= self.sweep_at.max(SWEEP_AT_LEAST)
    }

    /// Removes the closes keyed below `settled` (they have come) and returns how many.
    pub fn sweep(&mut self, settled: (Nanos, u64)) -> usize {
        let before = self.keys.len();
        self.keys.retain(|&key| key >= settled);
        self.sweep_at = 2 * self.keys.len();
        before - self.keys.len()
    }

    /// How many closes are keyed below `settled`.
    pub fn come(&self, settled: (Nanos, u64)) -> usize {
        self.keys.iter().filter(|&&key| key < settled).count()
    }

    /// Every close in the list, which is left empty.
    pub fn take(&mut self) -> Vec<(Nanos, u64)> {
        self.sweep_at = 0;
        std::mem::take(&mut self.keys)
    }
}

/// A closed-load client.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClosedClient {
    /// It sends requests (a live change of the client count can park it).
    pub active: bool,
    /// Requests served so far on its idle kept-alive connection; `None`: it has none (or its
    /// connection is busy with a request in flight, which carries the count).
    pub conn: Option<u32>,
    /// The handler thread that will serve its next request at once (the fast path).
    pub reserved: Option<ThreadRef>,
    /// When its kept-alive connection last went idle (its last response was written).
    pub idle_since: Nanos,
    /// A keep-alive check of its connection is pending: at most one is, however many
    /// responses the connection carries meanwhile.
    pub idle_check: bool,
    /// How it has been answered.
    pub tally: ClientTally,
}

impl Net {
    pub fn new(server: &crate::scenario::Server, rtt: Nanos) -> Self {
        Net {
            listener: Listener::new(server, rtt),
            closing: Closing::default(),
            clients: Vec::new(),
            stats: NetStats::default(),
            connect: Repeats::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_recorded_in_runs_summarise_as_recorded_one_by_one() {
        // Runs of equal latencies, a lone one, a run that comes back after another.
        let us = |n: u64| Nanos(n * 1_000);
        let latencies = [
            us(40),
            us(40),
            us(40),
            us(7),
            us(40),
            us(3_000),
            us(3_000),
            us(40),
        ];
        let mut runs = Repeats::default();
        let mut one_by_one = LatencyHistogram::default();
        for (i, &latency) in latencies.iter().enumerate() {
            runs.record(latency);
            one_by_one.record(latency);
            // Read with a run pending, and after a flush: the same figures.
            assert_eq!(runs.summary(), one_by_one.summary(), "after {}", i + 1);
        }
        runs.flush();
        assert_eq!(runs.run, (Nanos::ZERO, 0));
        assert_eq!(runs.summary(), one_by_one.summary());
        assert_eq!(runs.summary().count, latencies.len() as u64);
    }

    fn key(ms: u64, seq: u64) -> (Nanos, u64) {
        (Nanos::from_millis(ms), seq)
    }

    #[test]
    fn closes_are_swept_below_the_settled_key_and_the_list_is_long_at_twice_what_stayed() {
        let mut closing = Closing::default();
        // Pushed out of order, as post-response times make them.
        for i in 0..40_u64 {
            closing.push(key((i * 7) % 40, i));
        }
        assert!(!closing.long(), "64 at least before a sweep for length");
        assert_eq!(closing.come(key(10, 0)), 10);
        // The key compares the sequence within an instant: (10 ms, 3) is below (10 ms, 4).
        let ten = (0..40)
            .find(|i| (i * 7) % 40 == 10)
            .expect("some close at 10 ms");
        assert_eq!(closing.come(key(10, ten + 1)), 11);
        assert_eq!(closing.sweep(key(10, ten + 1)), 11);
        assert_eq!(closing.come(key(10, ten + 1)), 0);
        // 29 stayed (11 to 39 ms): the list is long again at 64, the least.
        (0..34).for_each(|i| closing.push(key(100, 100 + i)));
        assert!(!closing.long());
        closing.push(key(100, 200));
        assert!(closing.long());
        assert_eq!(closing.sweep(key(50, 0)), 29);
        // 35 stayed: long again at 70.
        (0..34).for_each(|i| closing.push(key(200, 300 + i)));
        assert!(!closing.long());
        closing.push(key(200, 400));
        assert!(closing.long());
        let left = closing.take();
        assert_eq!(left.len(), 70);
        assert!(left.iter().all(|&k| k >= key(100, 0)));
        assert_eq!(closing.come(key(1_000, 0)), 0, "taken: empty");
    }
}
