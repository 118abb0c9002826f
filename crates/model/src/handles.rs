//! The handles the engine's parts pass around: a request in flight, who runs work (a pool's
//! worker by its slot, or the delay scheduler), a worker's lasting name, and the tasks a
//! pool runs.

use crate::topology::PoolId;

/// A request in flight: its slot, and the slot's generation (a reused slot is another
/// request, and a stale handle finds nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReqRef {
    pub slot: u32,
    pub generation: u32,
}

pub use crate::pool::Slot;

/// A thread that can run work or complete a future.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadRef {
    Worker {
        pool: PoolId,
        slot: Slot,
    },
    /// `CompletableFutureDelayScheduler`: the thread that fires `orTimeout`.
    Delayer,
}

/// A thread's identity for logs: its pool and number survive the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadName {
    Worker { pool: PoolId, number: u32 },
    Delayer,
    None,
}

/// What a pool's tasks are: a request's handler or one call of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Handler(ReqRef),
    Call(ReqRef, u16),
}
