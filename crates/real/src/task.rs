//! What travels between a real run's threads and tasks: a request, the tasks its handler
//! and calls run as, a stage's futures and what a finished task leaves to do.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::flow::CallResult;
use crate::flow::call::CallFuture;
use crate::flow::call_guard::{Passage, Waiter};
use crate::metrics::Outcome;
use crate::scenario::Strategy;
use crate::time::Nanos;

use super::sync::{Mailbox, lock};

/// The thread `orTimeout` completes futures on.
pub(super) const DELAYER: &str = "CompletableFutureDelayScheduler";

/// One request, shared by its client, its handler and its calls.
pub(super) struct Req {
    pub id: u64,
    /// When its client sent this attempt (its timeout counts from here).
    pub arrival: Nanos,
    /// Its attempt (0: the first; a client's retry sends the request again).
    pub attempt: u32,
    /// When its client sent the first attempt (its latency counts from here).
    pub first_sent: Nanos,
    pub strategy: Strategy,
    /// The closed client that sent it.
    pub client: Option<u32>,
    /// Requests its connection has carried, this one included.
    pub conn_uses: u32,
    server_done: AtomicBool,
    client_done: AtomicBool,
    /// The handler thread's name, once it has one.
    pub handler: OnceLock<String>,
    /// What the client saw.
    pub seen: OnceLock<Outcome>,
    /// When the client saw it (scenario time).
    pub seen_at: OnceLock<Nanos>,
    /// Signalled when the client has its outcome.
    pub response: Mailbox<()>,
    /// When the poller handed it to the executor (scenario time).
    pub queued_at: OnceLock<Nanos>,
    /// When a handler thread took it.
    pub handler_at: OnceLock<Nanos>,
    /// Set when its client sends it again: when the next attempt goes out.
    pub retry_at: OnceLock<Nanos>,
    /// How far behind its request's schedule this attempt went out: the lateness of every
    /// attempt before it added up (each retry waits on the one before).
    pub drift: Nanos,
}

/// A request's attempt: which one, and when the first went out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Attempt {
    pub id: u64,
    pub attempt: u32,
    pub first_sent: Nanos,
    /// How far behind its request's schedule it goes out (see [`Req::drift`]).
    pub drift: Nanos,
}

impl Req {
    /// Attempt `attempt` sent at `arrival`.
    pub fn new(attempt: Attempt, arrival: Nanos, strategy: Strategy, sender: Sender) -> Self {
        Req {
            id: attempt.id,
            arrival,
            attempt: attempt.attempt,
            first_sent: attempt.first_sent,
            strategy,
            client: sender.client,
            conn_uses: sender.conn_uses,
            server_done: AtomicBool::new(false),
            client_done: AtomicBool::new(false),
            handler: OnceLock::new(),
            seen: OnceLock::new(),
            seen_at: OnceLock::new(),
            response: Mailbox::default(),
            queued_at: OnceLock::new(),
            handler_at: OnceLock::new(),
            retry_at: OnceLock::new(),
            drift: attempt.drift,
        }
    }

    /// The server has finished with it: queued calls of it are skipped.
    pub fn server_done(&self) -> bool {
        self.server_done.load(Ordering::SeqCst)
    }

    pub fn set_server_done(&self) {
        self.server_done.store(true, Ordering::SeqCst);
    }

    /// Whether the client has its outcome (or gave up).
    pub fn client_has_outcome(&self) -> bool {
        self.client_done.load(Ordering::SeqCst)
    }

    /// Claims the client's outcome; false when the client already has one.
    pub fn claim_client(&self) -> bool {
        !self.client_done.swap(true, Ordering::SeqCst)
    }
}

/// A kept-alive connection's handler thread, reading it again: what reaches it.
pub(super) enum Handoff {
    /// The client's next request, read at once.
    Request(Arc<Req>),
    /// The client stopped sending (a load phase): the thread goes back to its pool.
    Released,
}

/// A caller queued at a guard (`flow::call_guard::Admit::Queue`): the releasing thread grants
/// it a permit, unless its wait was up first.
#[derive(Default)]
pub(super) struct PermitWait {
    state: std::sync::atomic::AtomicU8,
    pub wake: Mailbox<()>,
}

impl PermitWait {
    const WAITING: u8 = 0;
    const GRANTED: u8 = 1;
    const GAVE_UP: u8 = 2;

    /// Hands it the permit; false when it has given up.
    pub fn grant(&self) -> bool {
        self.state
            .compare_exchange(
                Self::WAITING,
                Self::GRANTED,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    pub fn granted(&self) -> bool {
        self.state.load(Ordering::SeqCst) == Self::GRANTED
    }

    /// Its wait is up: true when it gives up, false when the permit came first.
    pub fn give_up(&self) -> bool {
        self.state
            .compare_exchange(
                Self::WAITING,
                Self::GAVE_UP,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }
}

/// The callers queued at guards, by the token the guards know them by. A caller is entered
/// under the guards' lock when a guard queues it, so a release (under the same lock) finds it.
#[derive(Default)]
pub(super) struct Waiters {
    next: std::sync::atomic::AtomicU64,
    waiting: Mutex<std::collections::HashMap<u128, Arc<PermitWait>>>,
}

impl Waiters {
    /// A token for a caller that may be queued.
    pub fn token(&self) -> Waiter {
        Waiter(u128::from(self.next.fetch_add(1, Ordering::Relaxed)))
    }

    /// `waiter` is queued at a guard, and waits on `wait`.
    pub fn enter(&self, waiter: Waiter, wait: Arc<PermitWait>) {
        lock(&self.waiting).insert(waiter.0, wait);
    }

    /// `waiter` no longer waits.
    pub fn leave(&self, waiter: Waiter) {
        lock(&self.waiting).remove(&waiter.0);
    }

    /// Hands `waiter` a permit; false when it has given up (or left).
    pub fn grant(&self, waiter: Waiter) -> bool {
        lock(&self.waiting)
            .get(&waiter.0)
            .is_some_and(|w| w.grant())
    }

    /// Wakes `waiter`, granted a permit.
    pub fn wake(&self, waiter: Waiter) {
        if let Some(w) = lock(&self.waiting).get(&waiter.0) {
            w.wake.push(());
        }
    }
}

/// Who sends a request, and on which connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sender {
    pub client: Option<u32>,
    /// Requests the connection has carried, this one included (1: a new connection).
    pub conn_uses: u32,
}

/// A task for a pool.
pub(super) enum RealTask {
    Handler(Arc<Req>),
    Call(CallTask),
}

pub(super) struct CallTask {
    pub req: Arc<Req>,
    /// The call's number: its index in the endpoint, and which attempt of it this is
    /// ([`crate::flow::CallSlots`]); keys its draws.
    pub call: u16,
    /// Its index in the stage.
    pub index: usize,
    /// Which of the stage join's attempts of the call this is (a retry reopens it).
    pub attempt: u32,
    pub join: Arc<StageJoin>,
}

impl RealTask {
    /// A queued call whose future already completed: `AsyncSupply.run` skips it. A call of
    /// a request that failed by abort still runs (its future is not complete), as in the JVM.
    pub fn is_stale(&self) -> bool {
        match self {
            RealTask::Handler(_) => false,
            RealTask::Call(c) => c.join.is_done(c.index, c.attempt),
        }
    }
}

/// The futures of one stage (`flow::call`, one per call): each completes once (normally,
/// exceptionally, or by `orTimeout`), and the handler waits on their completions
/// (`allOf(...).join()`). A retried call (`[services.retry]`) reopens its future for the next
/// attempt; the attempt it replaces can no longer complete it. An attempt that ends claims the
/// future here, on its own thread; the handler settles it.
pub(super) struct StageJoin {
    futures: Mutex<Vec<CallFuture>>,
    pub completions: Mailbox<CallCompletion>,
}

pub(super) struct CallCompletion {
    pub index: usize,
    pub result: CallResult,
    /// The thread that completed the future (where a continuation would run).
    pub thread: String,
}

impl StageJoin {
    pub fn new(calls: usize) -> Self {
        StageJoin {
            futures: Mutex::new(vec![CallFuture::NEW; calls]),
            completions: Mailbox::default(),
        }
    }

    /// Attempt `attempt` of call `index` can no longer complete its future.
    pub fn is_done(&self, index: usize, attempt: u32) -> bool {
        lock(&self.futures)
            .get(index)
            .is_none_or(|f| !f.open_to(attempt))
    }

    /// The attempt of call `index` that may complete its future now.
    pub fn attempt(&self, index: usize) -> u32 {
        lock(&self.futures)
            .get(index)
            .map_or(0, CallFuture::attempt)
    }

    /// The current attempt of call `index` (of this stage)'s way through its guards, for the
    /// handler to take through them outside the stage's lock. The stage's lock is a leaf:
    /// nothing else is locked under it (a pool's lock is held while its queue asks
    /// `is_done`).
    pub fn passage(&self, index: usize) -> Passage {
        *lock(&self.futures)[index].passage_mut()
    }

    /// The attempt's way through its guards, as the handler took it.
    pub fn passed(&self, index: usize, passage: Passage) {
        *lock(&self.futures)[index].passage_mut() = passage;
    }

    /// A copy of the future of call `index` (of this stage), which an attempt has claimed, for
    /// the handler to settle outside the stage's lock (settling takes the guards' and the
    /// books' locks). A claimed future is the handler's: nothing else moves it until
    /// [`StageJoin::settled`].
    pub fn claimed(&self, index: usize) -> CallFuture {
        lock(&self.futures)[index]
    }

    /// The future of call `index` as the handler settled it.
    pub fn settled(&self, index: usize, future: CallFuture) {
        lock(&self.futures)[index] = future;
    }

    /// Attempt `attempt` claims future `index` unless it already is claimed or complete, or a
    /// later attempt replaced this one; true when this call claimed it, and its completion
    /// goes to the handler.
    pub fn complete(&self, index: usize, attempt: u32, result: CallResult, thread: String) -> bool {
        {
            let mut futures = lock(&self.futures);
            if !futures.get_mut(index).is_some_and(|f| f.claim(attempt)) {
                return false;
            }
        }
        self.completions.push(CallCompletion {
            index,
            result,
            thread,
        });
        true
    }
}

/// What a worker does once it is back in its pool: the engine releases a thread before the
/// future it completed wakes anyone, and a handler before its response goes out.
pub(super) enum Deferred {
    None,
    Complete {
        req: Arc<Req>,
        join: Arc<StageJoin>,
        index: usize,
        attempt: u32,
        result: CallResult,
        thread: String,
    },
    Respond(Response),
}

pub(super) struct Response {
    pub req: Arc<Req>,
    pub outcome: Outcome,
    pub status: String,
    pub thread: String,
}
