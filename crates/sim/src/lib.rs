//! The deterministic discrete-event engine.
//!
//! A virtual clock in nanoseconds and a heap of events ordered by (time, sequence); no wall
//! clock, no async runtime, no UI. [`Engine`] plays a [`Scenario`](crate::scenario::Scenario):
//! `advance_to`, `step`, `next_event_time`, `snapshot`, and live [`Command`]s. The rules it
//! plays are the model's (`threadlab-model`).

// The model's modules, under the names the engine's files use.
pub use threadlab_model::{draw, handles, pool};
use threadlab_model::{flow, metrics, scenario, theory, time, topology};

mod call_retry;
mod command;
mod connection;
mod engine;
mod event;
mod guard;
mod jvm;
mod lifecycle;
mod parts;
mod request;
mod resources;
mod retry;
mod signal;
mod snapshot;
mod trace;
mod trace_hooks;

pub use crate::flow::{Detail, FailReason, Fault};
pub use crate::metrics::SeriesSnapshot;
pub use crate::metrics::ServiceStats;
pub use crate::topology::PoolId;
pub use command::{Command, CommandError, SizeKnob, size_commands};
pub use engine::{Engine, STALL_EVENTS};
pub use handles::ThreadName;
pub use threadlab_model::snapshot::{
    ClientTally, ClientsSnapshot, CpuSnapshot, GcSnapshot, LogLine, NetSnapshot, NetStats,
    PLATFORM_STACK_BYTES, PoolSnapshot, ResourceSnapshot, RunLine, RunView, ServiceSnapshot,
    Snapshot, VIRTUAL_STACK_BYTES, per_second, service_snapshots, status_text, thread_memory_bytes,
};
pub use trace::{Lane, LaneKey, PoolSample, Retention, Sample, Span, SpanKind, Timeline};

use crate::metrics::Outcome;
use crate::scenario::Strategy;
use crate::time::Nanos;

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
