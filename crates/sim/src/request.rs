//! Requests in flight and their calls, in a slab whose slots are reused (so a long run
//! allocates nothing per request once warm). A [`ReqRef`] carries the slot's generation, so
//! an event or queued task that outlives its request is recognised as stale.

use crate::flow::call::CallFuture;
use crate::flow::call_guard::GuardSet;
use crate::flow::handling::Handling;
use crate::flow::{CallSlots, Verdict};
use crate::scenario::Strategy;
use crate::time::Nanos;

pub use super::handles::ReqRef;
use super::handles::ThreadRef;

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

/// A call's hold on its service's guards' permits (`flow::call_guard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Permit {
    None,
    /// Its caller waits in a guard's queue (the submitter, or resilience4j's scheduler for
    /// a retry).
    Waiting {
        scheduler: bool,
    },
    /// It holds these guards' permits until it ends.
    Held(GuardSet),
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

/// Where the server is with a request. A handler thread holds it in `Handling` and
/// `Finishing` only; the server is done with it in `Finishing` and `Done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Serving {
    /// Not on a handler thread yet: connecting, in the accept queue or the executor's queue.
    Arriving,
    /// Its handler thread holds it and works on it.
    Handling,
    /// An async controller returned its `CompletableFuture`: the handler thread went back to
    /// its pool while the calls run, and the stages go on on the threads that complete them.
    Detached,
    /// The server has finished with it while its handler thread still holds it: the error
    /// page's CPU, the response's write.
    Finishing,
    /// The server has finished with it (answered, reset, or given up by its client while
    /// connecting) and no thread holds it.
    Done,
}

impl Serving {
    /// The server has finished with it: queued calls of it are skipped, late events ignored.
    pub fn done(self) -> bool {
        matches!(self, Serving::Finishing | Serving::Done)
    }

    /// A handler thread holds it.
    pub fn handler_held(self) -> bool {
        matches!(self, Serving::Handling | Serving::Finishing)
    }

    /// A handler thread takes it.
    fn held(self) -> Serving {
        if self.done() {
            Serving::Finishing
        } else {
            Serving::Handling
        }
    }

    /// Its handler thread lets it go.
    fn let_go(self) -> Serving {
        match self {
            Serving::Handling => Serving::Detached,
            Serving::Finishing => Serving::Done,
            other => other,
        }
    }

    /// The server finishes with it.
    fn finished(self) -> Serving {
        if self.handler_held() {
            Serving::Finishing
        } else {
            Serving::Done
        }
    }
}

/// Where the client is with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Client {
    /// Waiting for the outcome.
    Waiting,
    /// Its timeout passed while it counts rather than aborts (wrk): the response, when it
    /// comes, counts as a timeout.
    Late,
    /// Has seen its outcome (a response, its own timeout, a reset).
    Answered,
}

/// What the thread submitting a stage's calls is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Submitting {
    /// Free to submit the stage's next call.
    Free,
    /// Busy with this call of the stage itself, which pauses submission: running it inline
    /// (sequential, caller-runs, semaphore) or queued at one of its guards.
    Inline(u16),
    /// Creating the platform thread this call will run on (`spawn_cost`), which pauses
    /// submission; the call starts once the thread exists.
    Spawning { call: u16, thread: ThreadRef },
    /// Parked at one of the call's guards until its reserved permit is due.
    GuardWait(u16),
    /// Sleeping out a retry's pause (resilience4j's synchronous `Retry`) before making
    /// attempt `call` itself; `thread` is the submitting thread that sleeps.
    RetryWait { call: u16, thread: ThreadRef },
}

impl Submitting {
    /// Submission is paused.
    pub fn busy(self) -> bool {
        self != Submitting::Free
    }

    /// The thread being created has come to exist: submission goes on, and its call (and
    /// the thread) are returned to start. None when the submitter was not spawning.
    pub fn spawned(&mut self) -> Option<(u16, ThreadRef)> {
        let Submitting::Spawning { call, thread } = *self else {
            return None;
        };
        *self = Submitting::Free;
        Some((call, thread))
    }

    /// The call running (or waiting) inline on the submitter, if any.
    pub fn inline_call(self) -> Option<u16> {
        match self {
            Submitting::Inline(call) => Some(call),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    pub phase: CallPhase,
    pub thread: Option<ThreadRef>,
    /// The future of the call this record is the first attempt of (`flow::call`): the
    /// records of its later attempts leave theirs unused (see [`Request::future_mut`]).
    pub future: CallFuture,
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
    /// Its hold on its guards' permits.
    pub permit: Permit,
    /// Runs on a virtual thread.
    pub on_virtual: bool,
}

impl Call {
    pub(super) const NEW: Call = Call {
        phase: CallPhase::NotSubmitted,
        thread: None,
        future: CallFuture::NEW,
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
    /// Odd while the slot holds a live request, even once it is freed (it moves on at both),
    /// so one comparison with a [`ReqRef`]'s tells a live request from a stale reference.
    pub generation: u32,
    pub id: u64,
    /// When its client sent this attempt (its timeout counts from here).
    pub arrival: Nanos,
    /// Its attempt (0: the first; a client's retry sends the request again).
    pub attempt: u32,
    /// When its client sent the first attempt (its latency counts from here).
    pub first_sent: Nanos,
    /// When it was handed to the executor (its wait in the queue counts from here).
    pub queued_at: Nanos,
    /// When a handler thread took it.
    pub handler_at: Nanos,
    pub client: Option<u32>,
    pub strategy: Strategy,
    /// The server thread handling it (kept once the thread lets it go, for names).
    pub handler: Option<ThreadRef>,
    pub serving: Serving,
    pub client_side: Client,
    /// The thread submitting the current stage's calls.
    pub submitter: Option<ThreadRef>,
    /// What that thread is doing.
    pub submitting: Submitting,
    /// Where its handler is: taken, its own CPU, a stage, the error page, written.
    pub handling: Handling,
    /// Next call of the stage to submit.
    pub next_call: usize,
    /// Futures of the current stage not yet completed.
    pub pending: u32,
    /// Failure, fallbacks and the last completer so far.
    pub verdict: Verdict<ThreadRef>,
    /// Calls queued or running that still refer to this request.
    pub outstanding: u32,
    /// ACKs of its handshake the listen socket dropped so far (the queue filled between its
    /// SYN and its ACK), and when that SYN reached it.
    pub ack_drops: u8,
    pub syn_at: Nanos,
    /// It travels on a connection Tomcat has accepted (it holds a `maxConnections` slot).
    pub holds_conn: bool,
    /// Its place among the requests of its connection (from 1).
    pub conn_uses: u32,
    pub calls: Vec<Call>,
}

impl Request {
    /// The future of the call whose attempt is numbered `call`, kept with its first attempt.
    #[inline]
    pub fn future_mut(&mut self, slots: CallSlots, call: u16) -> &mut CallFuture {
        &mut self.calls[usize::from(slots.call(call))].future
    }

    /// Whether attempt `call` may still complete its call's future (it is pending, and no
    /// retry replaced that attempt).
    #[inline]
    pub fn may_complete(&self, slots: CallSlots, call: u16) -> bool {
        self.calls[usize::from(slots.call(call))]
            .future
            .open_to(slots.attempt(call))
    }

    /// The client has its outcome.
    pub fn answered(&self) -> bool {
        self.client_side == Client::Answered
    }

    /// A handler thread takes the request.
    pub fn hold_handler(&mut self, thread: ThreadRef) {
        self.handler = Some(thread);
        self.serving = self.serving.held();
    }

    /// Its handler thread lets the request go (back to its pool, or on to the
    /// connection's next request).
    pub fn let_handler_go(&mut self) {
        self.serving = self.serving.let_go();
    }

    /// The server has finished with the request.
    pub fn finish_serving(&mut self) {
        self.serving = self.serving.finished();
    }

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
            id,
            arrival,
            attempt: 0,
            first_sent: arrival,
            queued_at: arrival,
            handler_at: arrival,
            client,
            strategy,
            handler: None,
            serving: Serving::Arriving,
            client_side: Client::Waiting,
            submitter: None,
            submitting: Submitting::Free,
            handling: Handling::default(),
            next_call: 0,
            pending: 0,
            verdict: Verdict::default(),
            outstanding: 0,
            ack_drops: 0,
            syn_at: Nanos::ZERO,
            holds_conn: false,
            conn_uses: 0,
            calls,
        }
    }
}

/// A request's connection attempt, kept beside the slots in a small array of its own: while
/// the accept queue is full, each retransmitted SYN reads and writes only this, never the
/// request's 200-odd bytes (a storm of hundreds of thousands of waiting connections would
/// otherwise bring one of them in from memory per SYN).
#[derive(Debug, Clone, Copy)]
pub(super) struct Connecting {
    /// The generation of the request in the slot.
    generation: u32,
    /// Its client still waits for it: the request is live and its client has no outcome.
    pub waiting: bool,
    /// SYNs of its connection the listen socket dropped so far (a full accept queue).
    pub syn_drops: u8,
    /// When its client sent it: the request's `arrival`, which never changes.
    pub sent: Nanos,
}

#[derive(Debug)]
pub(super) struct Requests {
    slots: Vec<Request>,
    /// Each slot's connection attempt, indexed like `slots`.
    connecting: Vec<Connecting>,
    free: Vec<u32>,
    calls_per_request: usize,
    live: usize,
    /// Calls held by the live requests: `calls_per_request` each, and each attempt a
    /// service's retry added (the attempts it replaced may still be running).
    call_slots: usize,
}

impl Requests {
    pub fn new(calls_per_request: usize) -> Self {
        Requests {
            slots: Vec::new(),
            connecting: Vec::new(),
            free: Vec::new(),
            calls_per_request,
            live: 0,
            call_slots: 0,
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
                self.connecting.push(Connecting {
                    generation: 0,
                    waiting: false,
                    syn_drops: 0,
                    sent: arrival,
                });
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        let r = &mut self.slots[slot as usize];
        // A reused slot keeps only its calls' allocation; the generation moves on (to an odd
        // number) so refs to the request it held before are recognised as stale.
        let mut calls = std::mem::take(&mut r.calls);
        calls.clear();
        calls.resize(self.calls_per_request, Call::NEW);
        let generation = r.generation.wrapping_add(1);
        *r = Request::fresh(generation, id, arrival, client, strategy, calls);
        self.connecting[slot as usize] = Connecting {
            generation,
            waiting: true,
            syn_drops: 0,
            sent: arrival,
        };
        self.live += 1;
        self.call_slots += self.calls_per_request;
        ReqRef { slot, generation }
    }

    /// Requests in flight (allocated and not yet released).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Calls the requests in flight hold, retried attempts included.
    pub fn call_slots(&self) -> usize {
        self.call_slots
    }

    /// Makes room in `r` for call number `call` (a retried attempt's), counted as held.
    pub fn grow_calls(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.get_mut(r) else { return };
        let needed = usize::from(call) + 1;
        if req.calls.len() < needed {
            let grown = needed - req.calls.len();
            req.calls.resize(needed, Call::NEW);
            self.call_slots += grown;
        }
    }

    /// Marked for inlining, as the look-ups of a request are the engine's most frequent call:
    /// without the mark a customer of `erlang-c`'s sequential run cost some 100 instructions
    /// more.
    #[inline]
    pub fn get(&self, r: ReqRef) -> Option<&Request> {
        self.slots
            .get(r.slot as usize)
            .filter(|q| q.generation == r.generation)
    }

    #[inline]
    pub fn get_mut(&mut self, r: ReqRef) -> Option<&mut Request> {
        self.slots
            .get_mut(r.slot as usize)
            .filter(|q| q.generation == r.generation)
    }

    /// The connection attempt of `r`, if the slot still holds it (live or freed since, but
    /// not reused).
    #[inline]
    pub fn connecting(&self, r: ReqRef) -> Option<&Connecting> {
        self.connecting
            .get(r.slot as usize)
            .filter(|a| a.generation == r.generation)
    }

    #[inline]
    pub fn connecting_mut(&mut self, r: ReqRef) -> Option<&mut Connecting> {
        self.connecting
            .get_mut(r.slot as usize)
            .filter(|a| a.generation == r.generation)
    }

    /// The client of `r` has its outcome.
    #[inline]
    pub fn answer(&mut self, r: ReqRef) {
        if let Some(req) = self.get_mut(r) {
            req.client_side = Client::Answered;
            if let Some(a) = self.connecting.get_mut(r.slot as usize) {
                a.waiting = false;
            }
        }
    }

    /// Frees the slot once nobody refers to the request any more.
    pub fn release_if_done(&mut self, r: ReqRef) {
        let Some(q) = self.get_mut(r) else { return };
        if q.serving.done() && q.answered() && q.outstanding == 0 {
            q.generation = q.generation.wrapping_add(1);
            self.call_slots -= q.calls.len();
            self.free.push(r.slot);
            self.live -= 1;
        }
    }
}
