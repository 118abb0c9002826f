//! The cores' state: the work waiting for a core and the cores in use.

use std::collections::VecDeque;

use crate::scenario::CpuScheduling;
use crate::time::Nanos;

use crate::event::Event;
use crate::request::ReqRef;

/// Work waiting for a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CpuJob {
    Call(ReqRef, u16),
    /// The submitter of this request creating a platform thread.
    Spawn(ReqRef),
    /// The server's own work on this request (parse, write, recycle).
    Handler(ReqRef),
    /// The server closing this request's connection unread (`maxQueueSize`).
    Reset(ReqRef),
    /// The container reporting this request's failure (stack trace, error page).
    Error(ReqRef),
    /// A concurrent collector's cycle (`[jvm.gc]`, ZGC).
    Gc,
    /// Logging a rejected submission whose exception was caught (`[jvm.errors]`).
    LogRejection,
    /// Tomcat starting a new pool thread for this request (`[jvm.warmup] thread_start`).
    ThreadStart(ReqRef, crate::handles::Slot),
    /// The Acceptor's turn on a connection (`server.accept_cost`, with
    /// `[jvm.connector_threads]`).
    Accept,
    /// The Poller handing a request to the executor (`[jvm.connector_threads] poll_cost`).
    Poll,
    /// The Poller registering a new connection (`[jvm.connector_threads] register_cost`).
    Register,
}

impl CpuJob {
    /// The event that ends this job's time on a core (calls run their own bursts).
    pub fn done_event(self) -> Event {
        match self {
            CpuJob::Call(req, call) => Event::CpuDone { req, call },
            CpuJob::Spawn(req) => Event::SpawnDone { req },
            CpuJob::Handler(req) => Event::HandlerCpuDone { req },
            CpuJob::Reset(req) => Event::ResetDone { req },
            CpuJob::Error(req) => Event::ErrorCpuDone { req },
            CpuJob::Gc | CpuJob::LogRejection | CpuJob::Poll | CpuJob::Register => {
                Event::JvmCpuDone
            }
            CpuJob::Accept => Event::AcceptCpuDone,
            CpuJob::ThreadStart(req, slot) => Event::ThreadStarted { req, slot },
        }
    }

    /// Tomcat's Acceptor and Poller (`[jvm.connector_threads]`): threads that sleep most of
    /// the time, which a time-slicing kernel runs before the busy ones when they wake.
    pub(crate) fn wakes_first(self) -> bool {
        matches!(self, CpuJob::Accept | CpuJob::Poll | CpuJob::Register)
    }

    /// How long the job holds its core, for the jobs whose cost is the scenario's.
    pub(crate) fn cost(self, scenario: &crate::scenario::Scenario) -> Nanos {
        let connector = &scenario.server.connector;
        match self {
            CpuJob::Call(..) => Nanos::ZERO,
            CpuJob::Spawn(_) => scenario.spawn_cost,
            CpuJob::Handler(_) => connector.cpu_per_request,
            CpuJob::Reset(_) => connector.cpu_per_rejected_connection,
            CpuJob::Error(_) => connector.cpu_per_error,
            CpuJob::Gc => scenario.jvm.gc.map_or(Nanos::ZERO, |gc| {
                gc.collection(scenario.cores).concurrent_cpu
            }),
            CpuJob::LogRejection => scenario
                .jvm
                .errors
                .map_or(Nanos::ZERO, |e| e.logged_rejection),
            CpuJob::ThreadStart(..) => scenario.jvm.warmup.map_or(Nanos::ZERO, |w| w.thread_start),
            CpuJob::Accept => connector.accept_cost,
            CpuJob::Poll => scenario
                .jvm
                .connector_threads
                .map_or(Nanos::ZERO, |t| t.poll),
            CpuJob::Register => scenario
                .jvm
                .connector_threads
                .map_or(Nanos::ZERO, |t| t.register),
        }
    }
}

/// The machine's cores.
#[derive(Debug, Clone)]
pub(crate) struct Cpu {
    pub cores: u32,
    pub busy: u32,
    pub queue: VecDeque<CpuJob>,
    pub max_queue: u32,
    /// ∫ busy dt, for utilisation.
    pub busy_area: f64,
    pub last_change: Nanos,
    /// `time-sliced`: the slice and the CPU a switch costs; None runs each burst to its end.
    pub slicing: Option<(Nanos, Nanos)>,
    /// Bursts sent to the back of the run queue at the end of a slice.
    pub preemptions: u64,
    /// The request whose virtual handler thread has just ended a CPU burst and keeps its
    /// carrier until it blocks (a virtual thread unmounts only when it parks): its next call
    /// on that thread runs on this core. Given back at the end of the step if not used.
    pub kept_carrier: Option<crate::request::ReqRef>,
}

impl Cpu {
    pub fn new(cores: u32, scheduling: CpuScheduling) -> Self {
        Cpu {
            cores,
            busy: 0,
            queue: VecDeque::new(),
            max_queue: 0,
            busy_area: 0.0,
            last_change: Nanos::ZERO,
            slicing: match scheduling {
                CpuScheduling::RunToCompletion => None,
                CpuScheduling::TimeSliced { slice, switch } => Some((slice, switch)),
            },
            preemptions: 0,
            kept_carrier: None,
        }
    }

    pub(crate) fn account(&mut self, now: Nanos) {
        self.busy_area += f64::from(self.busy) * now.saturating_sub(self.last_change).as_secs_f64();
        self.last_change = now;
    }
}
