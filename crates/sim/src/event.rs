//! The event queue, ordered by (time, sequence), so events at the same instant run in the order
//! they were scheduled and every run is reproducible.
//!
//! Most events are scheduled a fixed delay after the current instant (a constant latency, a
//! round trip, a SYN retransmit, a keep-alive timer), and the events of one delay come out in
//! the order they went in. Each such delay gets a FIFO lane, and the heap only holds the
//! rest: popping takes the earliest of the heap's top and the lanes' fronts. Under an
//! overload of a million pending SYN retransmits the heap stays small.
//!
//! The heap has four children a node: a pop sinks through half as many levels as in a binary
//! heap, for the same instructions (`erlang-c`'s sequential run with the connector's default
//! costs takes 0.96 to 0.98 of the wall time it took with the standard library's binary heap).

use std::cmp::{Ordering, Reverse};
use std::collections::VecDeque;

use dary_heap::QuaternaryHeap;

use crate::time::Nanos;

use super::handles::{ReqRef, Slot};
use crate::topology::PoolId;

/// What happens at an instant of the simulation: the engine handles each in `handle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Event {
    /// The load generator issues its next request (open, runs and batch modes). Arrivals of
    /// an older generation were superseded by a rate change.
    Arrival { generation: u32 },
    /// A closed-loop client sends its next request.
    ClientSend { client: u32 },
    /// A call's latency has elapsed (on the thread its request records).
    CallEnd { req: ReqRef, call: u16 },
    /// `orTimeout` fires for a call.
    CallTimeout { req: ReqRef, call: u16 },
    /// The client gives up on a request.
    ClientTimeout { req: ReqRef },
    /// An idle worker's `poll(keepAlive)` may have timed out.
    /// (A `PoolId` is a `u32`, which keeps events, and so the heap, small.)
    KeepAlive { pool: PoolId, slot: Slot },
    /// A call's CPU burst ends.
    CpuDone { req: ReqRef, call: u16 },
    /// A call's time slice ends with CPU work left (`time-sliced` scheduling).
    SliceEnd { req: ReqRef, call: u16 },
    /// The submitter of a request has created a platform thread.
    SpawnDone { req: ReqRef },
    /// A call waiting for a connection gives up.
    ConnTimeout { req: ReqRef, call: u16 },
    /// A caller queued at one of its call's guards (a semaphore bulkhead) has waited its
    /// longest.
    PermitTimeout { req: ReqRef, call: u16 },
    /// A blocked handler wakes from `join()`: its stage's futures are all complete. The
    /// wake-up is its own event, so the worker that completed the last future is back in its
    /// pool first, as in the JVM (the worker returns to `getTask()` while the handler is
    /// only being unparked).
    StageDone { req: ReqRef },
    /// A server thread takes a queued request (after finishing its previous one).
    StartHandler { req: ReqRef, slot: Slot },
    /// The acceptor looks at the accept queue (a connection closed, or one queued).
    Accept,
    /// The acceptor's turn on a connection ends (`server.accept_cost` after it began).
    Accepted,
    /// The acceptor's turn ends on a core (`[jvm.connector_threads]`): the core frees.
    AcceptCpuDone,
    /// A (retransmitted) SYN of this request's connection reaches the server.
    Syn { req: ReqRef },
    /// `connect()` fails for this request's connection.
    ConnectFailed { req: ReqRef },
    /// The client's ACK (with its request, or to a retransmitted SYN-ACK) reaches the listen
    /// socket, whose queue may have filled since the SYN.
    Ack { req: ReqRef },
    /// The server answers a retransmit of a handshake it has forgotten with a reset.
    HandshakeReset { req: ReqRef },
    /// The request of a just-accepted connection reaches the server.
    Dispatch { req: ReqRef },
    /// The server's own CPU work on a request ends: its handler goes on to the calls.
    HandlerCpuDone { req: ReqRef },
    /// The server has closed a refused connection (`maxQueueSize`).
    ResetDone { req: ReqRef },
    /// The container has logged a failed request's exception and rendered its error page.
    ErrorCpuDone { req: ReqRef },
    /// A handler thread closed its connection after the response.
    ConnectionClosed,
    /// The keep-alive check of a client's connection (at most one pending per client).
    IdleTimeout { client: u32 },
    /// A common-pool worker that `signalWork` woke or started runs its scan.
    Signalled { pool: PoolId, slot: Slot },
    /// A finite load's answer reaches its client (half a round trip after the server wrote
    /// it): the load has not finished before. Nothing else happens.
    AnswerArrives,
    /// The load changes as `[[load.phases]]` entry `index` says.
    Phase { index: u32 },
    /// A client sends a request again (`[load.retry]`): its attempt waits in `retrying`.
    Retry { slot: u32 },
    /// A caller's reserved permit at one of its call's guards (a rate limiter) is due: it
    /// asks the guards after it, and its call goes on.
    GuardPermit { req: ReqRef, call: u16 },
    /// Attempt `call` of a retried call (`[services.retry]`) is made now, its pause over;
    /// `admitted` once its guards up to a reserved permit have let it through (the rest
    /// are asked now).
    CallRetry {
        req: ReqRef,
        call: u16,
        admitted: bool,
    },
    /// The endpoint's rate limiter's reserved permit is due: the handler serves the request.
    DoorPermit { req: ReqRef },
    /// `[[faults]]` entry `index` starts, or ends (`heal`).
    TimedFault { index: u32, heal: bool },
    /// A call guard changes state by itself now (a breaker's automatic half-open, its
    /// half-open's maximum wait).
    GuardPoll,
    /// Eden is full: a collection starts (`[jvm.gc]`).
    Gc,
    /// The JVM's own work on a core is done (a concurrent collector's cycle, a rejected
    /// submission's log entry).
    JvmCpuDone,
    /// A pause is over: the Acceptor takes the connections the kernel queued meanwhile.
    AcceptorResumes,
    /// A new thread of Tomcat's pool has started (`[jvm.warmup] thread_start`) and takes
    /// its first request.
    ThreadStarted { req: ReqRef, slot: Slot },
}

/// Lanes kept at most: a scan of the lanes' fronts is cheaper than a deep heap. A lane stays
/// with its delay while it holds an event, so a few sparse delays (a handshake's retransmits)
/// can hold lanes for long: there are enough for them and for the streams that fill fast.
const MAX_LANES: usize = 32;
// One bit per lane in `EventQueue::occupied`.
const _: () = assert!(MAX_LANES <= u32::BITS as usize);
// A lane's number fits the knockout's `u8`.
const _: () = assert!(MAX_LANES <= u8::MAX as usize + 1);

/// From this many occupied lanes on, the earliest front is kept by a knockout (a few
/// matches when a front changes) rather than found by a scan of every occupied front (one
/// comparison each, at every look): under an overload a few dozen lanes of SYN retransmits
/// and timeouts are occupied. Below [`FEW_LANES`] again, the scan takes over: a handful of
/// lanes costs less to scan than to keep, and the gap between the two keeps a count that
/// hovers from switching back and forth. With 12 and 6, `erlang-c`'s `shared` run with the
/// connector's default costs (13 to 17 lanes of retransmits) takes 0.83 of the instructions
/// and its `compare` 0.93; runs that keep a few lanes pay up to 1.1 % for the flag (8 and 4:
/// 4 % on `tomcat-ceiling`).
const MANY_LANES: u32 = 12;
const FEW_LANES: u32 = 6;

/// Below this many pending events the heap is shallow and cheaper than any lane. Above it a
/// fixed delay's FIFO lane beats sifting through the heap: with 64 rather than 4,096, runs
/// whose hundreds of pending events are mostly fixed delays (constant latencies, round trips,
/// the connector's CPU) took 0.76-0.86 of the time (`compare` of `virtual-threads`,
/// `tomcat-ceiling`, `connection-pool`, `spike`, `metastable`) and `erlang-c` with the
/// connector's default costs 0.96; 16 was no faster, and 0 (lanes for a queue of any size)
/// slower.
const DEEP_HEAP: usize = 64;

/// How many of the last delays sent to the heap are remembered: a delay seen again among
/// them gets a lane, one seen once (a random latency) does not take a lane from the fixed
/// delays that repeat.
const RECENT_DELAYS: usize = 8;

#[derive(Debug)]
pub struct EventQueue<E> {
    heap: QuaternaryHeap<Reverse<Entry<E>>>,
    lanes: Vec<FifoLane<E>>,
    /// Each lane's front order (`u128::MAX` when empty), side by side, and which lanes hold
    /// events (bit `i` for lane `i`).
    fronts: [u128; MAX_LANES],
    occupied: u32,
    /// Which lane's front comes first, as a knockout over the fronts, while `knockout` says
    /// it is kept (see [`MANY_LANES`]): node `n` (1 to `MAX_LANES - 1`) holds the lane that
    /// wins between its children `2n` and `2n + 1`, and leaf `MAX_LANES + i` is lane `i`. A
    /// front that changes plays its way up (five matches for 32 lanes), so finding the head
    /// reads one front, not every lane's.
    winners: [u8; 2 * MAX_LANES],
    knockout: bool,
    /// One event kept beside the heap (see [`EventQueue::push_beside`]).
    beside: Option<Entry<E>>,
    next_seq: u64,
    /// The time of the last popped event: a lane's delay is counted from it.
    now: Nanos,
    /// The (time, sequence) of the last popped event.
    last: (Nanos, u64),
    /// The last delays that found no lane (see [`RECENT_DELAYS`]), and where the next goes.
    recent: [u64; RECENT_DELAYS],
    recent_at: usize,
    /// Where the earliest pending event is and its order, while known (`Some(None)`: the
    /// queue is empty): a push keeps it (the new entry is the head only if it comes first), a
    /// pop forgets it, and the next look that may keep it (`peek_head`, `peek_key`) finds it
    /// again. A step looks once after its handler's pushes, and the events folded in after it
    /// look again with no pop between.
    head_known: Option<Option<(Head, u128)>>,
}

#[derive(Debug)]
struct FifoLane<E> {
    delay: u64,
    entries: VecDeque<Entry<E>>,
}

/// An event with its (time, sequence) packed into one integer, time in the high half, so
/// the heap orders entries with one comparison.
#[derive(Debug)]
struct Entry<E> {
    order: u128,
    event: E,
}

impl<E> Entry<E> {
    fn new(time: Nanos, seq: u64, event: E) -> Self {
        Entry {
            order: (u128::from(time.0) << 64) | u128::from(seq),
            event,
        }
    }

    fn time(&self) -> Nanos {
        self.key().0
    }

    fn key(&self) -> (Nanos, u64) {
        unpack(self.order)
    }
}

/// The (time, sequence) packed in an entry's order.
fn unpack(order: u128) -> (Nanos, u64) {
    (Nanos((order >> 64) as u64), order as u64)
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.order == other.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.order.cmp(&other.order)
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: QuaternaryHeap::new(),
            lanes: Vec::new(),
            fronts: [u128::MAX; MAX_LANES],
            occupied: 0,
            winners: std::array::from_fn(|n| n.saturating_sub(MAX_LANES) as u8),
            knockout: false,
            beside: None,
            next_seq: 0,
            now: Nanos::ZERO,
            last: (Nanos::ZERO, 0),
            recent: [u64::MAX; RECENT_DELAYS],
            recent_at: 0,
            head_known: None,
        }
    }
}

/// Where the earliest pending event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    Heap,
    Lane(usize),
    Beside,
}

impl<E> EventQueue<E> {
    /// Takes the sequence number the next pushed event would get, for an event kept aside
    /// (see [`EventQueue::push_reserved`]): it orders against the queue's events exactly as
    /// if it had been pushed now.
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Pushes an event kept aside under the sequence number reserved for it.
    pub fn push_reserved(&mut self, time: Nanos, seq: u64, event: E) {
        self.push_entry(Entry::new(time, seq, event));
    }

    /// The (time, sequence) of the last popped event: an event kept aside whose key is below
    /// it would have been popped already.
    pub fn last_key(&self) -> (Nanos, u64) {
        self.last
    }

    pub fn push(&mut self, time: Nanos, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push_entry(Entry::new(time, seq, event));
    }

    /// Puts `entry` in the heap, or, once the queue is deep, in the lane of its delay.
    fn push_entry(&mut self, entry: Entry<E>) {
        if self.occupied == 0 && self.heap.len() < DEEP_HEAP {
            self.pushed(Head::Heap, entry.order);
            self.heap.push(Reverse(entry));
            return;
        }
        let delay = entry.time().0.saturating_sub(self.now.0);
        let lane = match self.lanes.iter().position(|l| l.delay == delay) {
            Some(i) => Some(i),
            None if self.recent.contains(&delay) => self.free_lane(delay),
            None => {
                self.recent[self.recent_at] = delay;
                self.recent_at = (self.recent_at + 1) % RECENT_DELAYS;
                None
            }
        };
        match lane.map(|i| (i, &mut self.lanes[i].entries)) {
            // A lane stays sorted: an entry joins it only behind an earlier one (an event
            // kept aside carries a sequence number older than the ones pushed since).
            Some((i, q)) if q.back().is_none_or(|b| b.order <= entry.order) => {
                let (order, first) = (entry.order, q.is_empty());
                q.push_back(entry);
                if first {
                    self.occupied |= 1 << i;
                    self.fronts[i] = order;
                    if self.knockout {
                        self.replay(i);
                    } else if self.occupied.count_ones() >= MANY_LANES {
                        self.start_knockout();
                    }
                }
                // Behind the lane's front, it cannot come before the head.
                self.pushed(Head::Lane(i), order);
            }
            _ => {
                self.pushed(Head::Heap, entry.order);
                self.heap.push(Reverse(entry));
            }
        }
    }

    /// An entry of `order` went to `place`: it is the head if it comes before the one known.
    #[inline]
    fn pushed(&mut self, place: Head, order: u128) {
        if let Some(known) = self.head_known
            && known.is_none_or(|(_, head)| order < head)
        {
            self.head_known = Some(Some((place, order)));
        }
    }

    /// Pushes an event that is usually alone of its kind (an open load's next arrival) into
    /// the one place beside the heap when it is free, else as [`EventQueue::push`] does: the
    /// heap neither sifts it in nor out.
    pub fn push_beside(&mut self, time: Nanos, event: E) {
        if self.beside.is_some() {
            self.push(time, event);
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry::new(time, seq, event);
        self.pushed(Head::Beside, entry.order);
        self.beside = Some(entry);
    }

    /// An empty lane (or a new one) given to `delay`.
    fn free_lane(&mut self, delay: u64) -> Option<usize> {
        if let Some(i) = self.lanes.iter().position(|l| l.entries.is_empty()) {
            self.lanes[i].delay = delay;
            return Some(i);
        }
        if self.lanes.len() < MAX_LANES {
            self.lanes.push(FifoLane {
                delay,
                entries: VecDeque::new(),
            });
            return Some(self.lanes.len() - 1);
        }
        None
    }

    /// The earliest pending event's place and (time, sequence), known or found.
    #[inline]
    fn head(&self) -> Option<(Head, (Nanos, u64))> {
        let known = self.head_known.unwrap_or_else(|| self.find_head());
        known.map(|(head, order)| (head, unpack(order)))
    }

    /// As [`EventQueue::head`], keeping what it finds for the next look.
    #[inline]
    fn head_kept(&mut self) -> Option<(Head, (Nanos, u64))> {
        let known = match self.head_known {
            Some(known) => known,
            None => {
                let found = self.find_head();
                self.head_known = Some(found);
                found
            }
        };
        known.map(|(head, order)| (head, unpack(order)))
    }

    /// Looks for the earliest pending event: the heap's top, the event beside it, the lanes'
    /// fronts.
    #[inline]
    fn find_head(&self) -> Option<(Head, u128)> {
        let mut best = self.heap.peek().map(|Reverse(e)| (Head::Heap, e.order));
        if let Some(e) = &self.beside
            && best.is_none_or(|(_, order)| e.order < order)
        {
            best = Some((Head::Beside, e.order));
        }
        // With the knockout kept, only its winner's front can come first.
        let mut lanes = if self.knockout {
            1 << self.winners[1]
        } else {
            self.occupied
        };
        while lanes != 0 {
            let i = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let front = self.fronts[i];
            if best.is_none_or(|(_, order)| front < order) {
                best = Some((Head::Lane(i), front));
            }
        }
        best
    }

    /// The knockout starts: every match is played from the lanes up.
    #[inline(never)]
    fn start_knockout(&mut self) {
        for node in (1..MAX_LANES).rev() {
            let (a, b) = (self.entrant(2 * node), self.entrant(2 * node + 1));
            self.winners[node] = if self.fronts[b] < self.fronts[a] {
                b
            } else {
                a
            } as u8;
        }
        self.knockout = true;
    }

    /// Lane `i`'s front changed while the knockout is kept: the matches on its way up are
    /// played again, each between the path's winner so far and the winner on the other
    /// side, which did not change.
    #[inline(never)]
    fn replay(&mut self, i: usize) {
        let (mut best, mut front) = (i, self.fronts[i]);
        let mut node = i + MAX_LANES;
        for _ in 0..MAX_LANES.trailing_zeros() {
            let other = self.entrant(node ^ 1);
            if self.fronts[other] < front {
                (best, front) = (other, self.fronts[other]);
            }
            node /= 2;
            self.winners[node] = best as u8;
        }
    }

    /// The lane that node `node` of the knockout stands for (the indices are masked into
    /// range, as they are by construction).
    #[inline]
    fn entrant(&self, node: usize) -> usize {
        usize::from(self.winners[node % (2 * MAX_LANES)]) % MAX_LANES
    }

    #[inline]
    pub fn peek_time(&self) -> Option<Nanos> {
        self.head().map(|(_, (time, _))| time)
    }

    /// The (time, sequence) of the earliest pending event.
    #[inline]
    pub fn peek_key(&mut self) -> Option<(Nanos, u64)> {
        self.head_kept().map(|(_, key)| key)
    }

    /// Counts an event kept aside under `(time, seq)` as popped: it is handled now, without
    /// going through the queue, because nothing pending comes before it.
    pub fn pass(&mut self, time: Nanos, seq: u64) {
        self.now = time;
        self.last = (time, seq);
    }

    /// Where the earliest pending event is, and its time: [`EventQueue::pop_head`] pops it
    /// without looking for it again, if nothing was pushed meanwhile.
    #[inline]
    pub fn peek_head(&mut self) -> Option<(Head, Nanos)> {
        self.head_kept().map(|(head, (time, _))| (head, time))
    }

    /// Pops the earliest event as a step does: a look that keeps the head, then the pop.
    #[cfg(test)]
    fn pop(&mut self) -> Option<(Nanos, E)> {
        let (head, _) = self.peek_head()?;
        self.pop_head(head)
    }

    /// Pops the event at `head`, from [`EventQueue::peek_head`] with no push since.
    #[inline]
    pub fn pop_head(&mut self, head: Head) -> Option<(Nanos, E)> {
        self.head_known = None;
        let entry = match head {
            Head::Heap => self.heap.pop().map(|Reverse(e)| e),
            Head::Beside => self.beside.take(),
            Head::Lane(i) => {
                let q = &mut self.lanes[i].entries;
                let entry = q.pop_front();
                match q.front() {
                    Some(next) => self.fronts[i] = next.order,
                    None => {
                        self.occupied &= !(1 << i);
                        self.fronts[i] = u128::MAX;
                        if self.knockout && self.occupied.count_ones() <= FEW_LANES {
                            self.knockout = false;
                        }
                    }
                }
                if self.knockout {
                    self.replay(i);
                }
                entry
            }
        }?;
        let (time, seq) = entry.key();
        self.now = time;
        self.last = (time, seq);
        Some((time, entry.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next of a xorshift sequence: arbitrary times and delays, the same every run.
    fn xorshift(x: &mut u64) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
    }

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(Nanos(5), 'c');
        q.push(Nanos(1), 'a');
        q.push(Nanos(5), 'd');
        q.push(Nanos(1), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn the_heap_pops_random_times_in_time_then_scheduling_order() {
        // Below the depth that opens lanes: the heap alone, with many equal times.
        let mut q = EventQueue::default();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut pending = Vec::new();
        for round in 0..3_000u64 {
            xorshift(&mut x);
            let at = q.now + Nanos(x % 64);
            q.push(at, round);
            pending.push((at, round));
            if x.is_multiple_of(3) {
                let (t, e) = q.pop().expect("an event");
                pending.sort();
                assert_eq!((t, e), pending.remove(0));
            }
        }
        pending.sort();
        let rest: Vec<(Nanos, u64)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, pending);
    }

    #[test]
    fn the_head_kept_through_pushes_is_the_one_a_full_look_finds() {
        // Past DEEP_HEAP, with a fixed delay (a lane), random delays (the heap) and the place
        // beside the heap: each look keeps the head, the pushes after it keep it up to date,
        // and a pop forgets it.
        let (mut q, mut expected) = deep_queue(Nanos(1_000));
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5_000 {
            xorshift(&mut x);
            let at = q.now + Nanos(if x.is_multiple_of(3) { 500 } else { x % 2_000 });
            if x.is_multiple_of(7) {
                let seq = q.next_seq;
                q.push_beside(at, seq);
                expected.push((at, seq));
            } else {
                push(&mut q, &mut expected, at);
            }
            if let Some(kept) = q.head_known {
                assert_eq!(kept, q.find_head(), "the kept head went stale");
            }
            q.peek_key();
            if x % 5 < 2 {
                let popped = q.pop().expect("an event");
                expected.sort();
                assert_eq!(popped, expected.remove(0));
            }
        }
        expected.sort();
        let rest: Vec<(Nanos, u64)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, expected);
        assert!(in_lanes(&q) == 0 && !q.lanes.is_empty(), "a lane was used");
    }

    #[test]
    fn an_event_kept_beside_the_heap_pops_in_its_place() {
        let mut q = EventQueue::default();
        q.push(Nanos(5), 'b');
        q.push_beside(Nanos(5), 'c');
        q.push_beside(Nanos(1), 'a');
        q.push(Nanos(7), 'e');
        q.push(Nanos(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd', 'e']);
    }

    /// Pushes an event at `at` whose payload is its own sequence number, and expects it.
    fn push(q: &mut EventQueue<u64>, expected: &mut Vec<(Nanos, u64)>, at: Nanos) {
        let seq = q.next_seq;
        q.push(at, seq);
        expected.push((at, seq));
    }

    /// Events waiting in lanes, all lanes together.
    fn in_lanes(q: &EventQueue<u64>) -> usize {
        q.lanes.iter().map(|l| l.entries.len()).sum()
    }

    /// A queue past [`DEEP_HEAP`] (lanes may open), its events from `first` on, 1 ns apart.
    fn deep_queue(first: Nanos) -> (EventQueue<u64>, Vec<(Nanos, u64)>) {
        let mut q = EventQueue::default();
        let mut expected = Vec::new();
        for i in 0..DEEP_HEAP as u64 {
            push(&mut q, &mut expected, first + Nanos(i));
        }
        (q, expected)
    }

    #[test]
    fn a_stream_finds_a_lane_while_sparse_delays_hold_many_and_the_fronts_pop_in_order() {
        // Past DEEP_HEAP, 20 delays each leave one event far ahead in their lane (a
        // handshake's sparse retransmits); a 21st delay's stream still gets a lane, and as
        // lanes empty and refill every pop comes out in (time, sequence) order.
        let (mut q, mut expected) = deep_queue(Nanos(1_000_000_000));
        for d in 1..=20u64 {
            // Twice: the second sighting of a delay opens its lane.
            push(&mut q, &mut expected, Nanos(d * 10_000_000));
            push(&mut q, &mut expected, Nanos(d * 10_000_000));
        }
        let before = in_lanes(&q);
        for _ in 0..500 {
            push(&mut q, &mut expected, Nanos(7_777));
        }
        assert!(q.lanes.len() > 20, "the stream found no lane");
        assert!(in_lanes(&q) >= before + 499, "the stream went to the heap");
        // Pop some, push more behind: lanes empty, open for other delays and refill.
        let mut popped = Vec::new();
        for k in 0..300u64 {
            popped.extend(q.pop());
            let at = q.now + Nanos(5_000 + k % 3);
            push(&mut q, &mut expected, at);
        }
        popped.extend(std::iter::from_fn(|| q.pop()));
        expected.sort();
        assert_eq!(popped, expected);
    }

    #[test]
    fn the_knockout_over_many_lanes_starts_stops_and_starts_again_keeping_the_order() {
        // Past DEEP_HEAP, waves of 3 to 30 fixed delays (each pushed twice in a row: the
        // second sighting opens its lane) fill up to that many lanes: from
        // MANY_LANES occupied the earliest front is kept by the knockout, at FEW_LANES it is
        // scanned again, and each wave starts it anew. Every pop, in any phase, must come out
        // in (time, sequence) order.
        let (mut q, mut expected) = deep_queue(Nanos(1_000_000_000_000));
        let mut popped = Vec::new();
        let (mut kept, mut scanned) = (0, 0);
        for (wave, lanes) in [24u64, 3, 20, 6, 30, 9].into_iter().enumerate() {
            for k in 0..400u64 {
                let delay = 1_000 * (1 + (k / 2 * 7 + wave as u64) % lanes);
                let at = q.now + Nanos(delay);
                push(&mut q, &mut expected, at);
                if k % 2 == 1 {
                    popped.extend(q.pop());
                }
                if q.knockout {
                    kept += 1;
                } else {
                    scanned += 1;
                }
            }
            // Drain the lanes down to a few, then below FEW_LANES.
            while q.occupied.count_ones() > 2 {
                let event = q.pop().expect("occupied lanes, yet no event popped");
                popped.push(event);
            }
            assert!(!q.knockout, "the knockout outlived its lanes");
        }
        popped.extend(std::iter::from_fn(|| q.pop()));
        assert!(
            kept > 1_000 && scanned > 100,
            "kept {kept}, scanned {scanned}"
        );
        expected.sort();
        assert_eq!(popped, expected);
    }

    #[test]
    fn events_kept_aside_join_the_lanes_in_their_place_and_random_delays_take_none() {
        // Past DEEP_HEAP: a fixed delay pushed again gets a lane, whether pushed at once or
        // kept aside first under a reserved (older) sequence number; delays seen once stay in
        // the heap. Each event is its own sequence number, so the pops must come out sorted.
        let (mut q, mut expected) = deep_queue(Nanos(1_000_000));
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut kept = Vec::new();
        for round in 0..200u64 {
            xorshift(&mut x);
            let seq = q.reserve_seq();
            push(&mut q, &mut expected, Nanos(500 * (round / 50 + 1)));
            push(&mut q, &mut expected, Nanos(500_000 + x % 400_000));
            // Every other kept event waits for the next round, as one kept aside while
            // later events are scheduled does.
            kept.push((Nanos(700 * (round / 50 + 1)), seq));
            if round % 2 == 1 {
                for (at, seq) in kept.drain(..) {
                    q.push_reserved(at, seq, seq);
                    expected.push((at, seq));
                }
            }
        }
        // All but the first of each of the 8 fixed delays (4 pushed, 4 kept aside).
        assert_eq!(in_lanes(&q), 400 - 8);
        assert_eq!(q.lanes.len(), 8, "random delays took lanes");
        let popped: Vec<(Nanos, u64)> = std::iter::from_fn(|| q.pop()).collect();
        expected.sort();
        assert_eq!(popped, expected);
    }

    #[test]
    fn a_deep_queue_with_lanes_pops_in_time_then_scheduling_order() {
        // Past DEEP_HEAP pending events the fixed delays go to lanes; mixed with random
        // delays and events scheduled from the current instant, the order must still be
        // exactly (time, sequence).
        let mut q = EventQueue::default();
        let mut expected = Vec::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut now = Nanos::ZERO;
        let mut popped = Vec::new();
        for round in 0..40_000u64 {
            xorshift(&mut x);
            let delay = match x % 4 {
                0 => 1_000,
                1 => 250_000,
                2 => x % 5_000_000,
                _ => 0,
            };
            let at = Nanos(now.0 + delay);
            q.push(at, round);
            expected.push((at, round));
            if round % 3 == 0
                && let Some((t, e)) = q.pop()
            {
                assert!(t >= now, "time went back");
                now = t;
                popped.push((t, e));
            }
        }
        while let Some(item) = q.pop() {
            popped.push(item);
        }
        expected.sort();
        assert_eq!(popped.len(), expected.len());
        // Each popped event is the earliest pending one when it was popped, so the whole
        // sequence is sorted by (time, sequence) once no push lands before the clock.
        let mut sorted = popped.clone();
        sorted.sort();
        assert_eq!(popped, sorted);
        assert_eq!(sorted, expected);
    }
}
