//! The deterministic discrete-event engine.
//!
//! A virtual clock in nanoseconds and a heap of events ordered by (time, sequence); no wall
//! clock, no async runtime, no UI. [`Engine`] plays a [`Scenario`](crate::scenario::Scenario):
//! `advance_to`, `step`, `next_event_time`, `snapshot`, and live [`Command`]s.

mod command;
pub mod draw;
mod engine;
mod event;
mod flow;
pub mod pool;
mod request;
mod resources;
mod snapshot;
mod trace;
mod trace_hooks;

pub use crate::metrics::SeriesSnapshot;
pub use command::{Command, CommandError};
pub use engine::{
    Engine, FIRST_BULKHEAD_POOL, PoolId, SERVER_POOL, SHARED_POOL, ServiceStats, ThreadName,
    UNBOUNDED_POOL, pool_specs,
};
pub use flow::arrival_gap;
pub use request::FailReason;
pub use snapshot::{
    CpuSnapshot, LogLine, PLATFORM_STACK_BYTES, PoolSnapshot, ResourceSnapshot, RunLine,
    ServiceSnapshot, Snapshot, VIRTUAL_STACK_BYTES, status_text, thread_memory_bytes,
};
pub use trace::{Lane, LaneKey, PoolSample, Retention, Sample, Span, SpanKind, Timeline};

use crate::metrics::Outcome;
use crate::scenario::Strategy;
use crate::time::Nanos;

/// A fault injected into a service while the engine runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Every call takes `factor` times its drawn latency.
    Slow { factor: f64 },
    /// Every call hangs for `duration`.
    Hang { duration: Nanos },
    /// Calls fail with this probability.
    Fail { probability: f64 },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Slow { factor } => write!(f, "slow x{factor}"),
            Fault::Hang { duration } => write!(f, "hanging {duration}"),
            Fault::Fail { probability } => write!(f, "failing {:.0}%", probability * 100.0),
        }
    }
}

/// What the log says beside an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    None,
    /// The fallback of this service was used.
    Fallback(usize),
    Failed(FailReason),
}

/// One request as the client saw it: the article's `Run # | Strategy | Time (ms) | Thread
/// Name | Status` row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunRow {
    pub run: u64,
    pub strategy: Strategy,
    /// When the client saw the outcome.
    pub at: Nanos,
    /// The latency the client saw.
    pub time: Nanos,
    pub thread: ThreadName,
    pub outcome: Outcome,
    pub detail: Detail,
}

/// The engine's event log: runs and every change a person made.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    Run(RunRow),
    Change { at: Nanos, text: String },
}
