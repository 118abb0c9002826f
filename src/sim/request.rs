//! Requests in flight and their calls, in a slab whose slots are reused (so a long run
//! allocates nothing per request once warm). A [`ReqRef`] carries the slot's generation, so
//! an event or queued task that outlives its request is recognised as stale.

use crate::flow::Verdict;
use crate::scenario::Strategy;
use crate::time::Nanos;

use super::engine::ThreadRef;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReqRef {
    pub slot: u32,
    pub generation: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallPhase {
    NotSubmitted,
    Queued,
    Running,
    Ended,
    /// Rejected with abort, or dropped by discard / discard-oldest.
    Dropped,
}

/// A call's hold on a connection (HikariCP's `getConnection()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conn {
    None,
    /// In the resource's FIFO queue of waiters.
    Waiting,
    Held,
    /// Gave up waiting (`SQLTransientConnectionException`).
    TimedOut,
}

/// A call's hold on a permit of its service's semaphore bulkhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Permit {
    None,
    /// Its caller waits in `tryAcquire(maxWait)`.
    Waiting,
    Held,
}

/// A call's hold on a CPU core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Core {
    None,
    /// Queued for a core.
    Waiting,
    /// Running CPU, or pinned to its carrier.
    Held,
}

impl Conn {
    /// Gives a held connection back; true when there was one.
    pub fn release(&mut self) -> bool {
        let held = *self == Conn::Held;
        if held {
            *self = Conn::None;
        }
        held
    }
}

impl Core {
    /// Gives a held core back; true when there was one.
    pub fn release(&mut self) -> bool {
        let held = *self == Core::Held;
        if held {
            *self = Core::None;
        }
        held
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    pub phase: CallPhase,
    pub thread: Option<ThreadRef>,
    /// The caller's future has completed (normally, exceptionally or by timeout).
    pub future_done: bool,
    /// Runs on the submitting thread (sequential, or caller-runs).
    pub inline: bool,
    /// A sequential call cut short by its read timeout.
    pub cut_by_timeout: bool,
    pub started: Nanos,
    /// The uniform that decides failure when the call ends.
    pub fail_u: f64,
    /// How long the call waits (I/O) once it has its connection and CPU.
    pub latency: Nanos,
    /// CPU time still to run before the wait.
    pub cpu_left: Nanos,
    /// Its hold on a connection of the service's resource.
    pub conn: Conn,
    /// Its hold on a core.
    pub core: Core,
    /// Its hold on a semaphore bulkhead's permit.
    pub permit: Permit,
    /// Runs on a virtual thread.
    pub on_virtual: bool,
}

impl Call {
    const NEW: Call = Call {
        phase: CallPhase::NotSubmitted,
        thread: None,
        future_done: false,
        inline: false,
        cut_by_timeout: false,
        started: Nanos::ZERO,
        fail_u: 1.0,
        latency: Nanos::ZERO,
        cpu_left: Nanos::ZERO,
        conn: Conn::None,
        core: Core::None,
        permit: Permit::None,
        on_virtual: false,
    };
}

#[derive(Debug, Clone)]
pub(super) struct Request {
    pub generation: u32,
    pub live: bool,
    pub id: u64,
    pub arrival: Nanos,
    pub client: Option<u32>,
    pub strategy: Strategy,
    /// The server thread handling it.
    pub handler: Option<ThreadRef>,
    /// The handler thread is still held by this request.
    pub handler_held: bool,
    /// The thread submitting the current stage's calls.
    pub submitter: Option<ThreadRef>,
    pub stage: usize,
    /// Next call of the stage to submit.
    pub next_call: usize,
    /// Futures of the current stage not yet completed.
    pub pending: u32,
    /// The call running inline on the submitter, which pauses submission.
    pub inline_call: Option<u16>,
    /// The submitter is creating a platform thread (`spawn_cost`), which pauses submission.
    pub spawning: bool,
    /// The call that will run on the thread being created, and that thread.
    pub spawn_call: Option<(u16, ThreadRef)>,
    /// Failure, fallbacks and the last completer so far.
    pub verdict: Verdict<ThreadRef>,
    /// The server has finished with it (responded, rejected or refused).
    pub server_done: bool,
    /// The client has seen its outcome (response, timeout or refusal).
    pub client_done: bool,
    /// Calls queued or running that still refer to this request.
    pub outstanding: u32,
    /// SYNs of its connection the listen socket dropped so far (a full accept queue).
    pub syn_drops: u8,
    /// It travels on a connection Tomcat has accepted (it holds a `maxConnections` slot).
    pub holds_conn: bool,
    /// Its place among the requests of its connection (from 1).
    pub conn_uses: u32,
    /// Its client's timeout passed while it counts rather than aborts (wrk).
    pub late: bool,
    pub calls: Vec<Call>,
}

impl Request {
    /// A live request that has just arrived.
    fn fresh(
        generation: u32,
        id: u64,
        arrival: Nanos,
        client: Option<u32>,
        strategy: Strategy,
        calls: Vec<Call>,
    ) -> Request {
        Request {
            generation,
            live: true,
            id,
            arrival,
            client,
            strategy,
            handler: None,
            handler_held: false,
            submitter: None,
            stage: 0,
            next_call: 0,
            pending: 0,
            inline_call: None,
            spawning: false,
            spawn_call: None,
            verdict: Verdict::default(),
            server_done: false,
            client_done: false,
            outstanding: 0,
            syn_drops: 0,
            holds_conn: false,
            conn_uses: 0,
            late: false,
            calls,
        }
    }
}

#[derive(Debug)]
pub(super) struct Requests {
    slots: Vec<Request>,
    free: Vec<u32>,
    calls_per_request: usize,
    live: usize,
}

impl Requests {
    pub fn new(calls_per_request: usize) -> Self {
        Requests {
            slots: Vec::new(),
            free: Vec::new(),
            calls_per_request,
            live: 0,
        }
    }

    pub fn alloc(
        &mut self,
        id: u64,
        arrival: Nanos,
        client: Option<u32>,
        strategy: Strategy,
    ) -> ReqRef {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(Request::fresh(
                    0,
                    id,
                    arrival,
                    client,
                    strategy,
                    Vec::with_capacity(self.calls_per_request),
                ));
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        let r = &mut self.slots[slot as usize];
        // A reused slot keeps only its calls' allocation; the generation moves on so refs to
        // the request it held before are recognised as stale.
        let mut calls = std::mem::take(&mut r.calls);
        calls.clear();
        calls.resize(self.calls_per_request, Call::NEW);
        let generation = r.generation.wrapping_add(1);
        *r = Request::fresh(generation, id, arrival, client, strategy, calls);
        self.live += 1;
        ReqRef { slot, generation }
    }

    pub fn get(&self, r: ReqRef) -> Option<&Request> {
        self.slots
            .get(r.slot as usize)
            .filter(|q| q.live && q.generation == r.generation)
    }

    pub fn get_mut(&mut self, r: ReqRef) -> Option<&mut Request> {
        self.slots
            .get_mut(r.slot as usize)
            .filter(|q| q.live && q.generation == r.generation)
    }

    /// Frees the slot once nobody refers to the request any more.
    pub fn release_if_done(&mut self, r: ReqRef) {
        let Some(q) = self.get_mut(r) else { return };
        if q.server_done && q.client_done && q.outstanding == 0 {
            q.live = false;
            self.free.push(r.slot);
            self.live -= 1;
        }
    }
}
