//! Thread timelines: what each thread of each pool did, and since when.
//!
//! A [`Timeline`] records spans in simulated time, one lane per thread slot of each pool: a
//! request's handler, the handler blocked in `join()` waiting for its calls, each call (with
//! its CPU bursts on a core, whether it pinned its carrier, and the part after its caller's
//! `orTimeout` gave up), and the waits of tasks in a pool's queue. The engine records nothing
//! unless a timeline was switched on ([`Engine::record_timeline`](super::Engine)); the hooks
//! that feed it live in `trace_hooks.rs`.
//!
//! Memory is bounded by [`Retention`]: a ring of spans per lane for a live view, or a total
//! span limit for an export, beyond which spans are counted as left out, never dropped
//! silently.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::scenario::ServiceId;
use crate::time::Nanos;

use super::pool::Slot;
use super::request::ReqRef;
use crate::topology::PoolId;

/// How much of the run a timeline keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Spans kept per lane (oldest forgotten first): a live view needs only the recent ones.
    pub per_lane: usize,
    /// Spans kept in all; later spans are counted in [`Timeline::left_out`].
    pub max_spans: usize,
    /// Counter samples kept (oldest forgotten first).
    pub max_samples: usize,
}

impl Retention {
    /// A live view: the last few hundred spans of each thread.
    pub const LIVE: Retention = Retention {
        per_lane: 256,
        max_spans: usize::MAX,
        max_samples: 1200,
    };
    /// An export: everything, up to `max_spans` spans.
    pub const fn export(max_spans: usize) -> Retention {
        Retention {
            per_lane: usize::MAX,
            max_spans,
            max_samples: usize::MAX,
        }
    }
}

/// A thread of a pool, by its slot (a slot outlives the thread: a pool that replaces a worker
/// reuses it, and a new thread per task takes a free one, so lanes stay bounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaneKey {
    pub pool: PoolId,
    pub slot: Slot,
}

/// What a thread (or a queued task) was doing during a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// A request's handler holding its server thread.
    Handler,
    /// The handler blocked in `allOf(...).join()`, waiting for its calls.
    Waiting,
    /// A call holding its thread (mostly blocked in its wait).
    Call,
    /// A call running its CPU time on a core.
    OnCore,
    /// A task waiting in a pool's queue (a call, or a request in Tomcat's queue).
    Queued,
}

/// One span of a lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub start: Nanos,
    pub end: Nanos,
    pub kind: SpanKind,
    /// The JVM thread number (`http-nio-8080-exec-N`); 0 for a queued task.
    pub thread: u32,
    /// The request's id (its run number).
    pub request: u64,
    /// The call's service (calls, CPU bursts and queued calls).
    pub service: Option<ServiceId>,
    /// How a call ended, as its caller saw it.
    pub outcome: Option<&'static str>,
    /// The caller used the service's fallback for this call.
    pub fallback: bool,
    /// A virtual thread blocked inside `synchronized` (JDK 21-23): it kept its carrier.
    pub pinned: bool,
    /// When the caller's `orTimeout` gave up while the call still held its thread.
    pub timed_out_at: Option<Nanos>,
    /// The thread that submitted the call (pool, thread number) and when: a flow arrow.
    pub from: Option<(PoolId, u32, Nanos)>,
}

impl Span {
    pub(super) fn open(start: Nanos, kind: SpanKind, thread: u32, request: u64) -> Span {
        Span {
            start,
            end: start,
            kind,
            thread,
            request,
            service: None,
            outcome: None,
            fallback: false,
            pinned: false,
            timed_out_at: None,
            from: None,
        }
    }

    pub fn duration(&self) -> Nanos {
        self.end.saturating_sub(self.start)
    }
}

/// One thread's history and what it is doing now.
#[derive(Debug, Clone, Default)]
pub struct Lane {
    /// Closed spans, in the order they ended.
    pub spans: VecDeque<Span>,
    /// The request being handled (server threads).
    pub handler: Option<Span>,
    /// The handler waiting for its calls.
    pub waiting: Option<Span>,
    /// The call running on this thread.
    pub call: Option<Span>,
    /// Time spent in calls and handlers, for ordering lanes busiest first.
    pub busy: Nanos,
}

impl Lane {
    /// Open spans, outermost first.
    pub fn open(&self) -> impl Iterator<Item = &Span> {
        [&self.handler, &self.waiting, &self.call]
            .into_iter()
            .filter_map(Option::as_ref)
    }
}

/// Gauges of one pool at a sample time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSample {
    pub active: u32,
    pub queued: u32,
}

/// The counters at one sample time.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub at: Nanos,
    pub in_flight: u64,
    pub pools: Vec<PoolSample>,
}

/// The recorded timelines of every pool.
#[derive(Debug, Clone)]
pub struct Timeline {
    retention: Retention,
    lanes: BTreeMap<LaneKey, Lane>,
    /// Waits in each pool's queue that ended.
    queue_spans: BTreeMap<PoolId, VecDeque<Span>>,
    /// Tasks in a queue now, by request and call (`HANDLER` for a request in Tomcat's queue).
    pub(super) queued: HashMap<(ReqRef, u16), (PoolId, Span)>,
    samples: VecDeque<Sample>,
    kept: usize,
    left_out: u64,
    forgotten: u64,
    first_left_out: Option<Nanos>,
}

/// A pool queue's ring of ended waits holds this many lanes' worth of spans.
const QUEUE_RING_LANES: usize = 16;

/// The call number a request's own wait in the server queue is recorded under.
pub(super) const HANDLER: u16 = u16::MAX;

impl Timeline {
    pub fn new(retention: Retention) -> Self {
        Timeline {
            retention,
            lanes: BTreeMap::new(),
            queue_spans: BTreeMap::new(),
            queued: HashMap::new(),
            samples: VecDeque::new(),
            kept: 0,
            left_out: 0,
            forgotten: 0,
            first_left_out: None,
        }
    }

    /// Every lane, by pool then slot.
    pub fn lanes(&self) -> impl Iterator<Item = (&LaneKey, &Lane)> {
        self.lanes.iter()
    }

    /// The lanes of one pool.
    pub fn pool_lanes(&self, pool: PoolId) -> impl Iterator<Item = (&LaneKey, &Lane)> {
        self.lanes.range(
            LaneKey { pool, slot: 0 }..=LaneKey {
                pool,
                slot: Slot::MAX,
            },
        )
    }

    /// Ended waits in each pool's queue.
    pub fn queue_spans(&self) -> impl Iterator<Item = (PoolId, &Span)> {
        self.queue_spans
            .iter()
            .flat_map(|(&p, spans)| spans.iter().map(move |s| (p, s)))
    }

    /// Tasks waiting in a queue now, with their pool.
    pub fn queued_now(&self) -> impl Iterator<Item = (PoolId, &Span)> {
        self.queued.values().map(|(p, s)| (*p, s))
    }

    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }

    /// Spans not kept because the span limit was reached.
    pub fn left_out(&self) -> u64 {
        self.left_out
    }

    /// Older spans forgotten to keep each lane within its ring ([`Retention::per_lane`]).
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Ended waits in one pool's queue, in the order they ended.
    pub fn pool_queue_spans(&self, pool: PoolId) -> impl DoubleEndedIterator<Item = &Span> {
        self.queue_spans.get(&pool).into_iter().flatten()
    }

    /// When the first span left out started.
    pub fn first_left_out(&self) -> Option<Nanos> {
        self.first_left_out
    }

    pub fn retention(&self) -> Retention {
        self.retention
    }

    pub(super) fn lane_mut(&mut self, key: LaneKey) -> &mut Lane {
        self.lanes.entry(key).or_default()
    }

    /// One lane, if its thread has been recorded.
    pub fn lane(&self, key: LaneKey) -> Option<&Lane> {
        self.lanes.get(&key)
    }

    /// Keeps a closed span, within the retention.
    pub(super) fn close(&mut self, key: LaneKey, span: Span) {
        if !self.admit(span.start) {
            return;
        }
        let per_lane = self.retention.per_lane;
        let lane = self.lanes.entry(key).or_default();
        if matches!(span.kind, SpanKind::Call | SpanKind::Handler) {
            lane.busy += span.duration();
        }
        lane.spans.push_back(span);
        if lane.spans.len() > per_lane {
            lane.spans.pop_front();
            self.kept -= 1;
            self.forgotten += 1;
        }
    }

    pub(super) fn close_queued(&mut self, pool: PoolId, span: Span) {
        if !self.admit(span.start) {
            return;
        }
        // A queue holds many tasks at once: its ring is a pool's worth of lanes.
        let per_queue = self.retention.per_lane.saturating_mul(QUEUE_RING_LANES);
        let spans = self.queue_spans.entry(pool).or_default();
        spans.push_back(span);
        if spans.len() > per_queue {
            spans.pop_front();
            self.kept -= 1;
            self.forgotten += 1;
        }
    }

    fn admit(&mut self, start: Nanos) -> bool {
        if self.kept >= self.retention.max_spans {
            self.left_out += 1;
            let first = self.first_left_out.get_or_insert(start);
            *first = (*first).min(start);
            return false;
        }
        self.kept += 1;
        true
    }

    pub(super) fn sample(&mut self, sample: Sample) {
        self.samples.push_back(sample);
        if self.samples.len() > self.retention.max_samples {
            self.samples.pop_front();
        }
    }
}
