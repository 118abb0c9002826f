//! Headless output: a run's report, and the side-by-side comparison of the strategies, as an
//! article-ready table, JSON or CSV (`--format` picks one of the exporters in `src/export`).

pub mod against;
mod compare_table;
mod csv;
pub mod figures;
mod limits;
pub mod perfetto;
pub mod real;
mod table;

use serde::Serialize;

use crate::metrics::{LatencySummary, Outcome};
use crate::scenario::{Scenario, Strategy};
use crate::sim::pool::PoolKind;
use crate::sim::{Engine, PoolSnapshot, ResourceSnapshot, RunLine, ServiceSnapshot, Snapshot};
use crate::theory::Prediction;
use crate::time::Nanos;

pub use compare_table::compare_table;
pub use csv::field as csv_field;
pub use limits::{Shown, best, best_as, limited_by, shown};
pub use real::RealReport;
pub(crate) use table::{Align, MarkdownTable};
pub(crate) use table::{columns, pad};
pub use table::{run_table, run_table_measured};

/// Plays `scenario` under `strategy` for `duration` (or until a finite load ends).
pub fn play(scenario: &Scenario, strategy: Strategy, duration: Nanos) -> Engine {
    let mut engine = Engine::new(scenario, strategy).unwatched();
    engine.run_until(duration);
    engine
}

/// Everything `run` reports about one strategy (the JSON schema the README documents).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub preset: String,
    pub scenario: String,
    pub strategy: Strategy,
    pub seed: u64,
    pub simulated_s: f64,
    pub requests: RequestCounts,
    /// Server responses (success, partial, failed) per simulated second.
    pub throughput_rps: f64,
    /// Answered requests (success, partial) per simulated second: the headline rate.
    pub goodput_rps: f64,
    /// Responses the server wrote per simulated second, late ones included: its work, which
    /// goodput hides when clients leave before their answer.
    pub server_responses_rps: f64,
    /// Requests that ended without an answer, per simulated second, by outcome.
    pub failure_rps: FailureRates,
    /// Latency of answered requests (success, partial) as their client saw it.
    pub latency_ms: LatencySummary,
    /// Time to failure of the others (failed, timeout, refused): how long a client waited
    /// to learn it got no answer.
    pub failed_latency_ms: LatencySummary,
    /// Closed loads: how fairly the clients were served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients: Option<ClientsReport>,
    /// The connection layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections: Option<ConnectionsReport>,
    /// Retries, shedding and the work done for clients that had left; present when the
    /// clients time out or a resilience pattern is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resilience: Option<ResilienceReport>,
    /// Requests answered (success, partial) in each simulated second; present with
    /// `resilience` and with load phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goodput_timeline: Option<Vec<u32>>,
    /// Attempts that reached the clients' send in each simulated second: new requests plus
    /// retries (present with `goodput_timeline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts_timeline: Option<Vec<u32>>,
    /// Requests sent for the first time in each simulated second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_timeline: Option<Vec<u32>>,
    /// Attempts sent again in each simulated second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries_timeline: Option<Vec<u32>>,
    /// Responses the server wrote after their client had left, in each simulated second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_timeline: Option<Vec<u32>>,
    pub pools: Vec<PoolReport>,
    pub services: Vec<ServiceReport>,
    /// The simulated cores: utilisation since t = 0 and the most work that waited for one.
    /// None for a real run, whose CPU work the machine's own scheduler ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReport>,
    /// The garbage collector (`[jvm.gc]`); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc: Option<GcReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceReport>,
    /// Estimated stack memory of the threads alive at the end (platform 1 MiB, virtual
    /// 1 KiB each) and at most at the peak (every pool at its largest size).
    pub thread_memory_mib: f64,
    pub peak_thread_memory_mib: f64,
    pub theory: Theory,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<Vec<RunReportRow>>,
    /// Simulated runs: how much work the engine did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulation: Option<SimulationReport>,
}

/// What the clients' retries and the server's shedding did.
#[derive(Debug, Clone, Serialize)]
pub struct ResilienceReport {
    /// Attempts sent again.
    pub retries: u64,
    /// Attempts per request sent: (first attempts + retries) / first attempts.
    pub attempts_per_request: f64,
    /// Requests whose client stopped retrying without an answer: out of attempts, or out of
    /// budget (0 when the clients never retry: without `[load.retry]`, or with 1 attempt).
    pub gave_up: u64,
    /// Whether the clients ever send an attempt again (the table says so rather than count).
    #[serde(skip)]
    pub clients_retry: bool,
    /// Requests answered 503 unserved after waiting past `server.queue_timeout`.
    pub shed: u64,
    /// Requests the endpoint's rate limiter (`[server.rate_limit]`) answered 429 unserved.
    pub limited_at_door: u64,
    /// Handler-thread seconds spent on requests whose client had already left.
    pub wasted_work_s: f64,
    /// Each service's circuit breaker, by service name.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub breakers: std::collections::BTreeMap<String, BreakerReport>,
    /// The clients' own breaker (`[load.breaker]`): while open they send nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_breaker: Option<BreakerReport>,
    /// Calls each rate-limited service's limiter refused, by service name.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub rate_limited: std::collections::BTreeMap<String, u64>,
    /// Each service's `[services.retry]`, by service name.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub call_retries: std::collections::BTreeMap<String, CallRetryReport>,
    /// Each service's other guards (an adaptive concurrency limit, ...), by service name, in
    /// the order a call meets them: those the fields above do not already report.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub guards: std::collections::BTreeMap<String, Vec<GuardReport>>,
}

/// A guard in front of a service's calls, at the end of the run.
#[derive(Debug, Clone, Serialize)]
pub struct GuardReport {
    /// Its name (`adaptive limit`).
    pub guard: &'static str,
    /// Its state in a few words.
    pub state: String,
    /// Calls it refused (failed at once, counted as the guard's refusals).
    pub refused: u64,
    /// Its figures by name (the limit, calls in flight, ...).
    pub figures: std::collections::BTreeMap<&'static str, f64>,
}

impl GuardReport {
    fn of(row: &crate::flow::GuardRow) -> Self {
        GuardReport {
            guard: row.guard,
            state: row.state.clone(),
            refused: row.refused,
            figures: row.figures.iter().copied().collect(),
        }
    }
}

/// What a service's `[services.retry]` did.
#[derive(Debug, Clone, Serialize)]
pub struct CallRetryReport {
    /// Attempts of its calls made again.
    pub retries: u64,
    /// Attempts per call: (first attempts + retries) / first attempts.
    pub attempts_per_call: f64,
    /// Calls whose last attempt failed (attempts out, or the budget spent): the result went
    /// to the fallback, or failed the request.
    pub exhausted: u64,
}

impl BreakerReport {
    fn of(b: &crate::flow::BreakerSnapshot) -> Self {
        BreakerReport {
            state: b.state.name(),
            opened: b.opened,
            not_permitted: b.not_permitted,
            transitions: b
                .transitions
                .iter()
                .map(|&(at, from, to)| (at.as_secs_f64(), from.name(), to.name()))
                .collect(),
        }
    }
}

/// A circuit breaker over the run.
#[derive(Debug, Clone, Serialize)]
pub struct BreakerReport {
    /// Its state at the end: `closed`, `open` or `half-open`.
    pub state: &'static str,
    /// Times it opened.
    pub opened: u64,
    /// Calls it failed at once (`CallNotPermittedException`).
    pub not_permitted: u64,
    /// Every transition in order: `[time_s, from, to]`.
    pub transitions: Vec<(f64, &'static str, &'static str)>,
}

impl ResilienceReport {
    fn of(snap: &Snapshot, clients_retry: bool) -> Self {
        let r = snap.resilience;
        ResilienceReport {
            clients_retry,
            retries: r.retries,
            attempts_per_request: if snap.sent == 0 {
                0.0
            } else {
                (snap.sent + r.retries) as f64 / snap.sent as f64
            },
            gave_up: r.gave_up,
            shed: r.shed,
            limited_at_door: r.limited_at_door,
            wasted_work_s: r.wasted_work.as_secs_f64(),
            breakers: snap
                .services
                .iter()
                .filter_map(|s| Some((s.name.clone(), BreakerReport::of(s.breaker.as_ref()?))))
                .collect(),
            client_breaker: snap.client_breaker.as_ref().map(BreakerReport::of),
            rate_limited: snap
                .services
                .iter()
                .filter(|s| s.rate_limited > 0)
                .map(|s| (s.name.clone(), s.rate_limited))
                .collect(),
            guards: snap
                .services
                .iter()
                .filter_map(|s| {
                    let rows: Vec<GuardReport> = s
                        .guards
                        .iter()
                        .filter(|g| !g.reported_apart)
                        .map(GuardReport::of)
                        .collect();
                    (!rows.is_empty()).then(|| (s.name.clone(), rows))
                })
                .collect(),
            call_retries: snap
                .services
                .iter()
                .filter_map(|s| {
                    let report = CallRetryReport {
                        retries: s.stats.retries,
                        attempts_per_call: s.stats.attempts_per_call()?,
                        exhausted: s.stats.retries_exhausted,
                    };
                    Some((s.name.clone(), report))
                })
                .collect(),
        }
    }
}

/// The engine's work on a simulated run: events handled in all and per request sent.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SimulationReport {
    pub events: u64,
    pub events_per_request: f64,
}

/// Request counts. `sent = completed + in_flight`; `completed` counts every outcome.
#[derive(Debug, Clone, Serialize)]
pub struct RequestCounts {
    pub sent: u64,
    pub completed: u64,
    pub success: u64,
    pub partial: u64,
    pub failed: u64,
    pub timeout: u64,
    pub refused: u64,
    pub in_flight: u64,
    /// Responses that came after their client had given up.
    pub late_responses: u64,
    /// Responses the server wrote, late ones included (every attempt it served to the end).
    pub server_responses: u64,
}

/// How fairly closed clients were served: starving clients are the overload story.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ClientsReport {
    pub count: u32,
    /// Clients that did not get a single answer (success, partial or failed).
    pub never_answered: u32,
    pub answers_min: u64,
    pub answers_max: u64,
    /// The longest any client went without an answer, up to the end of the run.
    pub longest_wait_ms: f64,
}

/// Connections between the clients and the server.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ConnectionsReport {
    /// Who the clients are (`wrk`, `blocking` or `custom`) and their mean turnaround from a
    /// response to their next request, which decides the keep-alive fast path's race.
    pub client: &'static str,
    pub turnaround_ms: f64,
    /// SYNs the full accept queue dropped (each costs its client a retransmit timeout).
    pub syn_drops: u64,
    /// Handshakes' ACKs dropped because the queue filled after their SYN was answered: the
    /// client believes it is connected and waits for its request's retransmits.
    pub ack_overflows: u64,
    /// Time from a connection's first SYN to its completed handshake.
    pub connect_ms: LatencySummary,
    /// `connect()` calls that failed (SYN retries exhausted, or the client's connect timeout).
    pub connect_failures: u64,
    /// Requests the handler thread read right after its previous response (keep-alive fast
    /// path), and requests that went through the executor.
    pub fast_path_requests: u64,
    pub executor_requests: u64,
    /// Connections closed unread because the executor's queue (`max_queue`) was full.
    pub closed_by_max_queue: u64,
    /// Kept-alive connections closed after `keep_alive_timeout` idle.
    pub closed_idle: u64,
    pub accept_queue_max: u32,
}

fn connections(
    scenario: &Scenario,
    snap: &Snapshot,
) -> (Option<ClientsReport>, Option<ConnectionsReport>) {
    let Some(net) = &snap.net else {
        return (None, None);
    };
    let clients = net.clients.map(|c| ClientsReport {
        count: c.count,
        never_answered: c.never_answered,
        answers_min: c.answers_min,
        answers_max: c.answers_max,
        longest_wait_ms: c.longest_wait.as_millis_f64(),
    });
    let s = net.stats;
    let link = &scenario.load.link;
    let connections = ConnectionsReport {
        client: link.client.name(),
        turnaround_ms: link.turnaround.as_millis_f64(),
        syn_drops: s.syn_drops,
        ack_overflows: s.ack_overflows,
        connect_ms: net.connect,
        connect_failures: s.connect_failures,
        fast_path_requests: s.fast_path_requests,
        executor_requests: s.executor_requests,
        closed_by_max_queue: s.closed_by_max_queue,
        closed_idle: s.closed_idle,
        accept_queue_max: s.accept_queue_max,
    };
    (clients, Some(connections))
}

/// Failed, timed-out and refused requests per simulated second.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FailureRates {
    pub failed: f64,
    pub timeout: f64,
    pub refused: f64,
}

impl FailureRates {
    /// The rates of a run since t = 0, from its snapshot.
    pub fn of(snap: &Snapshot) -> FailureRates {
        FailureRates {
            failed: snap.rate_of(Outcome::Failed),
            timeout: snap.rate_of(Outcome::Timeout),
            refused: snap.rate_of(Outcome::Refused),
        }
    }

    /// Requests that ended without an answer per second, whatever the way: failed + timeout
    /// + refused (the headline's and the compare view's "failures per second").
    pub fn total(&self) -> f64 {
        self.failed + self.timeout + self.refused
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PoolReport {
    pub name: String,
    /// Written by its name (`thread-pool`, `tomcat`, `fork-join`, `per-task`).
    #[serde(serialize_with = "kind_name")]
    pub kind: PoolKind,
    pub core: u32,
    /// `None` for a new thread per task.
    pub max: Option<u32>,
    /// `None` is unbounded.
    pub queue_capacity: Option<u32>,
    pub largest_pool_size: u32,
    pub max_active: u32,
    pub max_queue: u32,
    pub completed: u64,
    pub rejected: u64,
    pub threads_created: u64,
}

impl From<&PoolSnapshot> for PoolReport {
    fn from(p: &PoolSnapshot) -> Self {
        PoolReport {
            name: p.name.clone(),
            kind: p.kind,
            core: p.core,
            max: (p.max != u32::MAX).then_some(p.max),
            queue_capacity: p.queue_capacity,
            largest_pool_size: p.stats.largest_pool_size,
            max_active: p.stats.max_active,
            max_queue: p.stats.max_queue,
            completed: p.stats.completed,
            rejected: p.stats.rejected,
            threads_created: p.stats.threads_created,
        }
    }
}

fn kind_name<S: serde::Serializer>(kind: &PoolKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

#[derive(Debug, Clone, Serialize)]
pub struct CpuReport {
    pub cores: u32,
    pub utilisation: f64,
    pub max_queued: u32,
    /// Bursts the scheduler sent to the back of the run queue at the end of a slice.
    #[serde(skip_serializing_if = "is_zero")]
    pub preemptions: u64,
}

/// What the garbage collector did over the run.
#[derive(Debug, Clone, Serialize)]
pub struct GcReport {
    pub collector: crate::scenario::Collector,
    /// Collections (ZGC: cycles).
    pub collections: u64,
    /// Time every Java thread stood still, in all and the longest once.
    pub pause_total_ms: f64,
    pub longest_pause_ms: f64,
    /// The collector's CPU as a share of the cores' time since t = 0.
    pub cpu_share: f64,
}

impl GcReport {
    fn of(snap: &Snapshot, cores: u32) -> Option<GcReport> {
        let gc = snap.gc.as_ref()?;
        let core_s = snap.now.as_secs_f64() * f64::from(cores);
        Some(GcReport {
            collector: gc.collector,
            collections: gc.collections,
            pause_total_ms: gc.pause_total.as_secs_f64() * 1e3,
            longest_pause_ms: gc.longest_pause.as_secs_f64() * 1e3,
            cpu_share: if core_s > 0.0 {
                gc.cpu.as_secs_f64() / core_s
            } else {
                0.0
            },
        })
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize)]
pub struct ResourceReport {
    pub name: String,
    pub size: u32,
    pub max_active: u32,
    pub max_waiting: u32,
    pub acquired: u64,
    pub timeouts: u64,
    pub mean_wait_ms: f64,
}

impl From<&ResourceSnapshot> for ResourceReport {
    fn from(r: &ResourceSnapshot) -> Self {
        ResourceReport {
            name: r.name.clone(),
            size: r.size,
            max_active: r.max_active,
            max_waiting: r.max_waiting,
            acquired: r.acquired,
            timeouts: r.timeouts,
            mean_wait_ms: r.mean_wait_ms,
        }
    }
}

/// A service's name and counters (its `thread_time` is left out of the JSON).
#[derive(Debug, Clone, Serialize)]
pub struct ServiceReport {
    pub name: String,
    #[serde(flatten)]
    pub stats: crate::sim::ServiceStats,
}

impl From<&ServiceSnapshot> for ServiceReport {
    fn from(s: &ServiceSnapshot) -> Self {
        ServiceReport {
            name: s.name.clone(),
            stats: s.stats,
        }
    }
}

/// Theory beside the measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Theory {
    #[serde(flatten)]
    pub prediction: Prediction,
    /// Little's law: the time-average number of requests in flight, measured...
    pub littles_l_measured: f64,
    /// ...and as λ·W from the measured throughput of outcomes and mean latency.
    pub littles_l_from_x_w: f64,
    /// Load phases changed the load during the run: the prediction is for the load at its
    /// end (absent without phases).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub for_last_phase: bool,
    /// With phases: when the last one began, and the measured goodput from then on (the
    /// mean of its whole seconds), which is what the prediction is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_phase_from_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_phase_goodput_rps: Option<f64>,
}

/// The mean goodput of the whole seconds from `from` to `end` (`None` if there are none).
fn goodput_between(timeline: &[u32], from: Nanos, end: Nanos) -> Option<f64> {
    let first = usize::try_from(from.0.div_ceil(1_000_000_000)).ok()?;
    let last = usize::try_from(end.0 / 1_000_000_000)
        .ok()?
        .min(timeline.len());
    let seconds = timeline.get(first..last).filter(|s| !s.is_empty())?;
    Some(seconds.iter().map(|&n| f64::from(n)).sum::<f64>() / seconds.len() as f64)
}

#[derive(Debug, Clone, Serialize)]
pub struct RunReportRow {
    pub run: u64,
    pub strategy: Strategy,
    pub time_ms: f64,
    pub thread: String,
    pub status: String,
}

impl From<&RunLine> for RunReportRow {
    fn from(r: &RunLine) -> Self {
        RunReportRow {
            run: r.run,
            strategy: r.strategy,
            time_ms: r.time.as_millis_f64(),
            thread: r.thread.clone(),
            status: r.status.clone(),
        }
    }
}

impl RunReport {
    /// Whether the run lasted any simulated time. A rate needs elapsed time: a run that
    /// ended at t = 0 (every latency and round trip 0) has none, so its rates read `-` in
    /// tables, empty cells in CSV and `null` in JSON, and it is ranked by what it answered.
    pub fn has_rates(&self) -> bool {
        self.simulated_s > 0.0
    }

    /// `x`, a rate of this run, to `decimals` places; `-` when the run has no rates.
    pub fn rate_text(&self, x: f64, decimals: usize) -> String {
        if self.has_rates() {
            format!("{x:.decimals$}")
        } else {
            "-".to_string()
        }
    }

    /// This report as it is written out: without elapsed time its rates are not numbers
    /// (serde writes them `null`).
    pub fn for_output(&self) -> std::borrow::Cow<'_, RunReport> {
        if self.has_rates() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut r = self.clone();
        r.throughput_rps = f64::NAN;
        r.goodput_rps = f64::NAN;
        r.server_responses_rps = f64::NAN;
        r.failure_rps = FailureRates {
            failed: f64::NAN,
            timeout: f64::NAN,
            refused: f64::NAN,
        };
        std::borrow::Cow::Owned(r)
    }

    /// The report of a simulated run.
    pub fn new(scenario: &Scenario, engine: &Engine) -> Self {
        let events = engine.events_processed();
        let sent = engine.sent();
        RunReport {
            simulation: Some(SimulationReport {
                events,
                events_per_request: if sent == 0 {
                    0.0
                } else {
                    events as f64 / sent as f64
                },
            }),
            ..Self::from_snapshot(
                scenario,
                &engine.snapshot(),
                &engine.run_lines(),
                engine.prediction(),
            )
        }
    }

    /// The report of any run (simulated or real) from its snapshot, its runs (for `runs`
    /// load) and the prediction for its scenario and strategy.
    pub fn from_snapshot(
        scenario: &Scenario,
        snap: &Snapshot,
        run_lines: &[RunLine],
        prediction: Prediction,
    ) -> Self {
        let strategy = snap.strategy;
        let pools = snap.pools.iter().filter(|p| p.in_use);
        let mib = |bytes: u64| bytes as f64 / f64::from(1u32 << 20);
        let peak = crate::sim::thread_memory_bytes(&snap.pools, true);
        let runs = matches!(
            scenario.load.mode,
            crate::scenario::LoadMode::Runs { .. } | crate::scenario::LoadMode::Trace { .. }
        )
        .then(|| run_lines.iter().map(RunReportRow::from).collect());
        let (clients, connections) = connections(scenario, snap);
        let resilience = scenario
            .resilience_in_play()
            .then(|| ResilienceReport::of(snap, scenario.load.retry.is_some_and(|r| r.retries())));
        let timelines = resilience.is_some() || !scenario.load.phases.is_empty();
        let timeline = |t: &Vec<u32>| timelines.then(|| t.clone());
        let attempts: Vec<u32> = snap
            .new_timeline
            .iter()
            .zip(&snap.retry_timeline)
            .map(|(new, retries)| new + retries)
            .collect();
        let last_phase = scenario.load.phases.last().map(|p| p.at);
        RunReport {
            preset: scenario.source.clone(),
            scenario: scenario.name.clone(),
            strategy,
            seed: scenario.seed,
            simulated_s: snap.now.as_secs_f64(),
            requests: requests(snap),
            throughput_rps: snap.throughput_rps,
            goodput_rps: snap.goodput_rps,
            server_responses_rps: crate::sim::per_second(snap.server_responses, snap.now),
            failure_rps: FailureRates::of(snap),
            latency_ms: snap.latency,
            failed_latency_ms: snap.failed_latency,
            clients,
            connections,
            resilience,
            goodput_timeline: timeline(&snap.goodput_timeline),
            attempts_timeline: timeline(&attempts),
            new_timeline: timeline(&snap.new_timeline),
            retries_timeline: timeline(&snap.retry_timeline),
            late_timeline: timeline(&snap.late_timeline),
            pools: pools.map(PoolReport::from).collect(),
            services: snap.services.iter().map(ServiceReport::from).collect(),
            cpu: snap.cpu.map(|cpu| CpuReport {
                cores: cpu.cores,
                utilisation: cpu.utilisation,
                max_queued: cpu.max_queued,
                preemptions: cpu.preemptions,
            }),
            gc: GcReport::of(snap, scenario.cores),
            resources: snap.resources.iter().map(ResourceReport::from).collect(),
            thread_memory_mib: mib(snap.thread_memory_bytes),
            peak_thread_memory_mib: mib(peak),
            theory: Theory {
                prediction,
                littles_l_measured: snap.mean_in_flight,
                littles_l_from_x_w: snap.littles_l_from_x_w(),
                for_last_phase: !scenario.load.phases.is_empty(),
                last_phase_from_s: last_phase.map(Nanos::as_secs_f64),
                last_phase_goodput_rps: last_phase
                    .and_then(|at| goodput_between(&snap.goodput_timeline, at, snap.now)),
            },
            runs,
            simulation: None,
        }
    }
}

fn requests(snap: &Snapshot) -> RequestCounts {
    let o = &snap.outcomes;
    RequestCounts {
        sent: snap.sent,
        completed: o.total(),
        success: o.get(Outcome::Success),
        partial: o.get(Outcome::Partial),
        failed: o.get(Outcome::Failed),
        timeout: o.get(Outcome::Timeout),
        refused: o.get(Outcome::Refused),
        in_flight: snap.in_flight,
        late_responses: snap.late_responses,
        server_responses: snap.server_responses,
    }
}

/// Plays every strategy on the same scenario (and so the same per-request draws). The runs
/// are independent: they play side by side on the machine's cores and come back in
/// [`Strategy::ALL`]'s order.
pub fn compare(scenario: &Scenario, duration: Nanos) -> Vec<(RunReport, Engine)> {
    use rayon::prelude::*;
    Strategy::ALL
        .par_iter()
        .map(|&s| {
            let engine = play(scenario, s, duration);
            (RunReport::new(scenario, &engine), engine)
        })
        .collect()
}

/// Serialises a value as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> anyhow::Result<String> {
    let mut s = serde_json::to_string_pretty(value)?;
    s.push('\n');
    Ok(s)
}

/// Milliseconds as the article writes them: whole numbers bare, else one decimal.
pub fn fmt_ms(ms: f64) -> String {
    if (ms - ms.round()).abs() < 1e-9 {
        format!("{}", ms.round() as i64)
    } else {
        format!("{ms:.1}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_run_nobody_watches_reports_every_figure_a_watched_one_does() {
        // Headless runs keep no log and no rolling window: the report must not change, and
        // the live view's state must really be gone (or the saving is not made).
        for (preset, strategy) in [
            ("erlang-c", crate::scenario::Strategy::Sequential),
            ("overload", crate::scenario::Strategy::Bulkhead),
        ] {
            let s = crate::scenario::load(preset, &[]).expect("preset loads");
            let played = |e: crate::sim::Engine| {
                let mut e = e;
                e.run_until(crate::time::Nanos::from_secs(5));
                e
            };
            let watched = played(crate::sim::Engine::new(&s, strategy));
            let unwatched = played(crate::sim::Engine::new(&s, strategy).unwatched());
            let report = |e: &crate::sim::Engine| {
                serde_json::to_string(&super::RunReport::new(&s, e)).expect("serialises")
            };
            assert_eq!(report(&watched), report(&unwatched), "{preset}");
            let (seen, unseen) = (watched.snapshot(), unwatched.snapshot());
            assert!(seen.window.count > 0 && !seen.log.is_empty(), "{preset}");
            assert_eq!((unseen.window.count, unseen.log.len()), (0, 0), "{preset}");
        }
    }
}
