//! The JVM's own state in a run (`[jvm]`): warm-up, the collector, the pauses.

use crate::scenario::{Collection, Gc, Scenario, Warmup};
use crate::time::Nanos;

use crate::event::Event;

/// What the collector did so far.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct GcStats {
    pub(crate) collections: u64,
    pub(crate) pause_total: Nanos,
    pub(crate) longest_pause: Nanos,
    pub(crate) cpu: Nanos,
}

/// The engine's JVM state, present only when the scenario has a `[jvm]` table.
#[derive(Debug, Clone)]
pub(crate) struct JvmState {
    pub(crate) warmup: Option<Warmup>,
    pub(crate) gc: Option<Gc>,
    /// One collection's pause and CPU (the model gives every collection the same).
    pub(crate) collection: Collection,
    /// GC threads that share a pause's work (`ParallelGCThreads`, at most the cores).
    pub(crate) gc_threads: u32,
    /// Requests answered, for the warm-up.
    pub(crate) served: u64,
    /// Bytes allocated since the last collection, and how many start one.
    pub(crate) allocated: u64,
    pub(crate) budget: u64,
    /// A collection is due (its event is scheduled).
    pub(crate) due: bool,
    /// The end of the last pause: no Java thread runs before it.
    pub(crate) pause_until: Nanos,
    /// Each pause's start as a sequence number (events scheduled before it have a lower one)
    /// and the pauses' total up to and including it: CPU work under way is pushed back by
    /// every pause that began after it was scheduled.
    pub(crate) pauses: Vec<(u64, Nanos)>,
    /// Each pause's (start, length), for the timeline and the charts.
    pub(crate) spans: Vec<(Nanos, Nanos)>,
    pub(crate) stats: GcStats,
}

/// How an event of a Java thread meets a pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// A thread's CPU burst: it stood still through every pause since it began.
    Work,
    /// Anything else a Java thread does (reads an answer, a timer fires, the Acceptor or a
    /// worker wakes): not before the pause ends.
    Reacts,
}

/// Whether `event` is a Java thread's, and how a pause delays it; `None` for the kernel's,
/// the clients', the downstream services' and the collector's own events.
pub(crate) fn stopped(event: Event) -> Option<Stopped> {
    match event {
        Event::CpuDone { .. }
        | Event::SliceEnd { .. }
        | Event::SpawnDone { .. }
        | Event::HandlerCpuDone { .. }
        | Event::ResetDone { .. }
        | Event::ErrorCpuDone { .. }
        | Event::ThreadStarted { .. }
        | Event::Accepted
        | Event::AcceptCpuDone => Some(Stopped::Work),
        Event::CallEnd { .. }
        | Event::CallTimeout { .. }
        | Event::KeepAlive { .. }
        | Event::ConnTimeout { .. }
        | Event::PermitTimeout { .. }
        | Event::StageDone { .. }
        | Event::StartHandler { .. }
        | Event::Accept
        | Event::Dispatch { .. }
        | Event::ConnectionClosed
        | Event::IdleTimeout { .. }
        | Event::Signalled { .. }
        | Event::GuardPermit { .. }
        | Event::CallRetry { .. }
        | Event::DoorPermit { .. }
        | Event::GuardPoll
        | Event::AcceptorResumes => Some(Stopped::Reacts),
        Event::Arrival { .. }
        | Event::ClientSend { .. }
        | Event::ClientTimeout { .. }
        | Event::Syn { .. }
        | Event::Ack { .. }
        | Event::HandshakeReset { .. }
        | Event::ConnectFailed { .. }
        | Event::AnswerArrives
        | Event::Phase { .. }
        | Event::Retry { .. }
        | Event::TimedFault { .. }
        | Event::Gc
        | Event::JvmCpuDone => None,
    }
}

impl JvmState {
    /// The state for `scenario`, or none when it has no `[jvm]` table.
    pub fn of(scenario: &Scenario) -> Option<Box<JvmState>> {
        let jvm = scenario.jvm;
        if !jvm.any() {
            return None;
        }
        let collection = jvm.gc.map_or(
            Collection {
                pause: Nanos::ZERO,
                concurrent_cpu: Nanos::ZERO,
            },
            |gc| gc.collection(scenario.cores),
        );
        Some(Box::new(JvmState {
            warmup: jvm.warmup,
            gc: jvm.gc,
            collection,
            gc_threads: scenario.cores.clamp(1, 8),
            served: 0,
            allocated: 0,
            budget: jvm.gc.map_or(u64::MAX, |gc| gc.budget()),
            due: false,
            pause_until: Nanos::ZERO,
            pauses: Vec::new(),
            spans: Vec::new(),
            stats: GcStats::default(),
        }))
    }

    /// `cost` of CPU work on this JVM now (warm-up).
    pub fn warm(&self, cost: Nanos) -> Nanos {
        match self.warmup {
            Some(w) => w.scale(cost, self.served),
            None => cost,
        }
    }

    /// The pauses that began after the event of sequence `seq` was scheduled, in all.
    pub(crate) fn paused_since(&self, seq: u64) -> Nanos {
        let total = self.pauses.last().map_or(Nanos::ZERO, |&(_, t)| t);
        let before = self.pauses.partition_point(|&(start, _)| start <= seq);
        let earlier = before
            .checked_sub(1)
            .map_or(Nanos::ZERO, |i| self.pauses[i].1);
        total.saturating_sub(earlier)
    }

    /// Counts `bytes` allocated; true when they fill eden and a collection must be
    /// scheduled.
    pub(crate) fn allocate(&mut self, bytes: u64) -> bool {
        if self.gc.is_none() || bytes == 0 {
            return false;
        }
        self.allocated = self.allocated.saturating_add(bytes);
        if self.allocated >= self.budget && !self.due {
            self.due = true;
            return true;
        }
        false
    }
}
