//! A read-only picture of the engine at one instant: everything the TUI and the reports
//! show. The engine computes every figure; readers only format.

use crate::metrics::{Book, LatencySummary, Outcome, OutcomeCounts, Sampler, SeriesSnapshot};
use crate::scenario::{LoadMode, Scenario, ServiceId, Strategy};
use crate::time::Nanos;

use crate::flow::{Detail, FailReason, Fault};
use crate::metrics::ServiceStats;
use crate::pool::{Pool, PoolKind, PoolStats};
use crate::topology::{PoolId, Topology};

pub use net::{ClientTally, ClientsSnapshot, NetSnapshot, NetStats};

mod net;

/// The engine at one instant.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub now: Nanos,
    pub strategy: Strategy,
    pub finished: bool,
    pub load: LoadMode,
    pub sent: u64,
    pub in_flight: u64,
    /// The time-average of `in_flight` since t = 0 (Little's L, measured).
    pub mean_in_flight: f64,
    pub outcomes: OutcomeCounts,
    /// Responses that arrived after their client had timed out.
    pub late_responses: u64,
    /// Retries, requests given up, shed, and the work done for clients that had left.
    pub resilience: crate::metrics::ResilienceCounts,
    /// Requests answered (success, partial) in each whole second so far.
    pub goodput_timeline: Vec<u32>,
    /// Attempts sent again in each whole second so far.
    pub retry_timeline: Vec<u32>,
    /// Requests sent for the first time in each whole second so far.
    pub new_timeline: Vec<u32>,
    /// Requests that ended without an answer (failed, timeout, refused) each whole second.
    pub failure_timeline: Vec<u32>,
    /// Responses written after their client had left, in each whole second so far.
    pub late_timeline: Vec<u32>,
    /// Responses the server wrote (in time or late) in each whole second so far.
    pub response_timeline: Vec<u32>,
    /// Responses the server wrote, in time or late: every attempt it served to the end.
    pub server_responses: u64,
    /// The clients' own circuit breaker (`[load.breaker]`), if they have one.
    pub client_breaker: Option<crate::flow::BreakerSnapshot>,
    /// Server responses (success, partial, failed) per simulated second since t = 0.
    pub throughput_rps: f64,
    /// Answered requests (success, partial) per simulated second since t = 0: the headline.
    pub goodput_rps: f64,
    /// Whole-run latencies of answered requests (success, partial) as the client saw them.
    pub latency: LatencySummary,
    /// Whole-run time to failure of the other requests (failed, timeout, refused).
    pub failed_latency: LatencySummary,
    /// Latencies of answered requests in the rolling window.
    pub window: LatencySummary,
    pub window_len: Nanos,
    /// Open connections (Tomcat's `maxConnections` count) and connections waiting in the
    /// listen socket's accept queue.
    pub connections: u32,
    pub backlog: u32,
    /// The simulated connection layer: SYN drops, connect times, the keep-alive fast path,
    /// how fairly closed clients were served. `None` for a real run, which does not model it.
    pub net: Option<NetSnapshot>,
    pub pools: Vec<PoolSnapshot>,
    pub services: Vec<ServiceSnapshot>,
    pub series: SeriesSnapshot,
    /// The newest log entries, oldest first.
    pub log: Vec<LogLine>,
    /// The simulated cores; `None` for a real run, whose CPU the machine schedules.
    pub cpu: Option<CpuSnapshot>,
    pub resources: Vec<ResourceSnapshot>,
    /// Estimated thread stack memory of every live thread: platform threads reserve a 1 MiB
    /// stack (`-Xss` default on 64-bit Linux), a parked virtual thread keeps about 1 KiB of
    /// stack chunks on the heap (JEP 444; an estimate, it grows with stack depth).
    pub thread_memory_bytes: u64,
    /// The garbage collector (`[jvm.gc]`); `None` without one, and for a real run.
    pub gc: Option<GcSnapshot>,
}

/// What the garbage collector did since t = 0.
#[derive(Debug, Clone, PartialEq)]
pub struct GcSnapshot {
    pub collector: crate::scenario::Collector,
    /// Collections (ZGC: cycles).
    pub collections: u64,
    /// Time every Java thread stood still, in all and the longest once.
    pub pause_total: Nanos,
    pub longest_pause: Nanos,
    /// CPU the collector's threads spent: each pause on every GC thread, a concurrent
    /// cycle's work.
    pub cpu: Nanos,
    /// Whether a pause is under way now.
    pub paused: bool,
    /// The newest pauses (start, length), oldest first: at most [`GC_RECENT_PAUSES`].
    pub recent: Vec<(Nanos, Nanos)>,
}

/// Pauses a snapshot keeps for the charts.
pub const GC_RECENT_PAUSES: usize = 256;

/// `count` events per simulated second over `elapsed` (zero before any time has passed).
pub fn per_second(count: u64, elapsed: Nanos) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

/// Stack memory a platform thread reserves (HotSpot's default `-Xss` on 64-bit Linux).
pub const PLATFORM_STACK_BYTES: u64 = 1 << 20;
/// Heap a parked virtual thread with a shallow stack keeps (an estimate).
pub const VIRTUAL_STACK_BYTES: u64 = 1 << 10;

impl Snapshot {
    /// Little's law's other side, λ·W: the rate of completed requests (every outcome) times
    /// their mean time in the system. Beside `mean_in_flight` (L measured) it shows the law
    /// holding; they part only by the requests still in flight.
    pub fn littles_l_from_x_w(&self) -> f64 {
        let secs = self.now.as_secs_f64();
        if secs <= 0.0 {
            return 0.0;
        }
        let total_ms = |l: &LatencySummary| l.count as f64 * l.mean;
        (total_ms(&self.latency) + total_ms(&self.failed_latency)) / secs / 1e3
    }

    /// Requests that ended in `outcome`, per simulated second since t = 0.
    pub fn rate_of(&self, outcome: Outcome) -> f64 {
        per_second(self.outcomes.get(outcome), self.now)
    }
}

impl PoolSnapshot {
    /// Stack memory one of its threads takes (an estimate: see [`PLATFORM_STACK_BYTES`] and
    /// [`VIRTUAL_STACK_BYTES`]).
    pub fn stack_bytes_per_thread(&self) -> u64 {
        if self.virtual_threads {
            VIRTUAL_STACK_BYTES
        } else {
            PLATFORM_STACK_BYTES
        }
    }
}

/// Estimated stack memory of the threads alive now, or (with `peak`) of every pool at its
/// largest size (an upper bound of the peak: pools peak at different times).
pub fn thread_memory_bytes(pools: &[PoolSnapshot], peak: bool) -> u64 {
    pools
        .iter()
        .map(|p| {
            let threads = if peak {
                p.stats.largest_pool_size
            } else {
                p.pool_size
            };
            u64::from(threads) * p.stack_bytes_per_thread()
        })
        .sum()
}

/// The cores: busy, waiting work, utilisation since t = 0.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuSnapshot {
    pub cores: u32,
    pub busy: u32,
    pub queued: u32,
    pub max_queued: u32,
    pub utilisation: f64,
    /// Bursts sent to the back of the run queue at the end of a slice (`time-sliced`).
    pub preemptions: u64,
}

/// A connection pool (HikariCP's `active`, `idle`, `waiting`, `total`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceSnapshot {
    pub name: String,
    pub size: u32,
    pub active: u32,
    pub max_active: u32,
    pub waiting: u32,
    pub max_waiting: u32,
    pub acquired: u64,
    /// Waiters that gave up (`SQLTransientConnectionException`).
    pub timeouts: u64,
    /// Mean time a borrower waited for a connection (those that got one and those that gave
    /// up).
    pub mean_wait_ms: f64,
}

/// One pool, with the JDK's and Hystrix's names for its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolSnapshot {
    pub id: PoolId,
    pub name: String,
    pub kind: PoolKind,
    /// Thread name prefix.
    pub prefix: String,
    pub core: u32,
    pub max: u32,
    pub queue_capacity: Option<u32>,
    /// `getPoolSize()`.
    pub pool_size: u32,
    /// `getActiveCount()`.
    pub active: u32,
    pub idle: u32,
    /// `getQueue().size()`.
    pub queued: u32,
    pub stats: PoolStats,
    /// Whether the current strategy sends work here.
    pub in_use: bool,
    /// Virtual threads rather than platform threads.
    pub virtual_threads: bool,
    /// Live threads by number: (number, busy).
    pub threads: Vec<(u32, bool)>,
    pub active_series: Vec<f64>,
    pub queued_series: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServiceSnapshot {
    pub name: String,
    pub stats: ServiceStats,
    pub fault: Option<Fault>,
    /// The bulkhead pool its calls use under `bulkhead`.
    pub bulkhead: String,
    pub mean_latency: Nanos,
    /// Its circuit breaker, if it has one.
    pub breaker: Option<crate::flow::BreakerSnapshot>,
    /// Calls its rate limiter refused.
    pub rate_limited: u64,
    /// Its guards, in the order a call meets them (`flow::call_guard`).
    pub guards: Vec<crate::flow::GuardRow>,
}

/// A log line, with names resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum LogLine {
    Run(RunLine),
    Change { at: Nanos, text: String },
}

/// The article's row: `Run # | Strategy | Time (ms) | Thread Name | Status`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    pub run: u64,
    pub strategy: Strategy,
    pub at: Nanos,
    pub time: Nanos,
    pub thread: String,
    pub outcome: Outcome,
    /// `Success`, `Partial (Recs:Fallback)`, `Failed (TaskRejectedException)`, ...
    pub status: String,
}

impl PoolSnapshot {
    /// A pool's figures now, in either engine: its live state, whether the strategy sends
    /// work to it, and its sampled series.
    pub fn of<T: Copy>(id: PoolId, pool: &Pool<T>, in_use: bool, sampler: &Sampler) -> Self {
        let spec = pool.spec();
        PoolSnapshot {
            id,
            name: spec.name.clone(),
            kind: spec.kind,
            prefix: spec.prefix.clone(),
            core: spec.core,
            max: spec.max,
            queue_capacity: spec.queue_capacity,
            pool_size: pool.pool_size(),
            active: pool.active(),
            idle: pool.idle_count(),
            queued: pool.queued(),
            stats: *pool.stats(),
            in_use,
            virtual_threads: spec.virtual_threads,
            threads: pool.threads(),
            active_series: sampler.pool_active(id.index()),
            queued_series: sampler.pool_queued(id.index()),
        }
    }
}

/// Each service's figures now, in either engine; `pools` are the run's pool snapshots.
pub fn service_snapshots(
    scenario: &Scenario,
    topology: &Topology,
    pools: &[PoolSnapshot],
    stats: &[ServiceStats],
    faults: &[Option<Fault>],
    guards: Option<&crate::flow::CallGuards>,
) -> Vec<ServiceSnapshot> {
    scenario
        .services
        .iter()
        .enumerate()
        .map(|(i, s)| ServiceSnapshot {
            name: s.name.clone(),
            stats: stats.get(i).copied().unwrap_or_default(),
            fault: faults.get(i).copied().flatten(),
            bulkhead: topology
                .bulkhead_of(ServiceId(i))
                .and_then(|p| pools.get(p.index()))
                .map_or_else(String::new, |p| p.name.clone()),
            mean_latency: s.latency.mean(),
            breaker: guards.and_then(|g| g.breaker(ServiceId(i))),
            rate_limited: guards.map_or(0, |g| g.rate_limited(ServiceId(i))),
            guards: guards.map_or_else(Vec::new, |g| g.rows(ServiceId(i))),
        })
        .collect()
}

/// How many log lines a snapshot carries.
pub const SNAPSHOT_LOG_LINES: usize = 200;

/// What a run of either engine has beside its book, for [`Snapshot::of_book`].
pub struct RunView<'a> {
    pub now: Nanos,
    pub strategy: Strategy,
    pub finished: bool,
    pub load: &'a LoadMode,
    pub scenario: &'a Scenario,
    pub topology: &'a Topology,
    /// Live faults by service (a real run takes none).
    pub faults: &'a [Option<Fault>],
    /// The services' guards.
    pub guards: Option<&'a crate::flow::CallGuards>,
    /// The series' sampling interval.
    pub sample_interval: Nanos,
}

impl Snapshot {
    /// The figures both engines have: the book, the pools (`pool` builds pool `id`'s
    /// snapshot, told whether the strategy uses it), the services. What only one engine
    /// models (connections, the log, the cores, resources) is left empty for it to fill.
    pub fn of_book(
        run: RunView<'_>,
        book: &Book,
        pool: impl Fn(PoolId, bool, &Sampler) -> PoolSnapshot,
    ) -> Snapshot {
        let in_use = run.topology.pools_in_use(run.strategy);
        let pools: Vec<PoolSnapshot> = run
            .topology
            .pools()
            .ids()
            .map(|id| pool(id, in_use.contains(&id), book.sampler()))
            .collect();
        let services = service_snapshots(
            run.scenario,
            run.topology,
            &pools,
            &book.services,
            run.faults,
            run.guards,
        );
        let f = book.figures(run.now);
        let outcomes = f.outcomes;
        Snapshot {
            now: run.now,
            strategy: run.strategy,
            finished: run.finished,
            load: run.load.clone(),
            sent: f.sent,
            in_flight: f.in_flight,
            mean_in_flight: f.mean_in_flight,
            outcomes,
            late_responses: f.late_responses,
            resilience: f.resilience,
            goodput_timeline: book.goodput_timeline(run.now),
            retry_timeline: book.retry_timeline(run.now),
            new_timeline: book.new_timeline(run.now),
            failure_timeline: book.failure_timeline(run.now),
            late_timeline: book.late_timeline(run.now),
            response_timeline: book.response_timeline(run.now),
            server_responses: f.server_responses,
            client_breaker: run.guards.and_then(crate::flow::CallGuards::client_breaker),
            throughput_rps: per_second(outcomes.responded(), run.now),
            goodput_rps: per_second(outcomes.answered(), run.now),
            latency: f.latency,
            failed_latency: f.failed_latency,
            window: f.window,
            window_len: f.window_len,
            connections: 0,
            backlog: 0,
            net: None,
            thread_memory_bytes: thread_memory_bytes(&pools, false),
            gc: None,
            series: book.sampler().series(run.sample_interval),
            pools,
            services,
            log: Vec::new(),
            cpu: None,
            resources: Vec::new(),
        }
    }
}

/// The run table's status of an outcome: `Success`, `Partial (Recs:Fallback)`,
/// `Failed (orders timed out)`, `Failed (TaskRejectedException: user)`.
pub fn status_text(scenario: &Scenario, outcome: Outcome, detail: Detail) -> String {
    let svc = |i: ServiceId| scenario.services.get(i.0).map_or("?", |s| s.name.as_str());
    match detail {
        Detail::None => outcome.name().to_string(),
        Detail::Fallback(i) => {
            let fallback = scenario
                .services
                .get(i.0)
                .and_then(|s| s.fallback.as_deref())
                .unwrap_or("fallback");
            format!("{} ({fallback})", outcome.name())
        }
        Detail::Failed(FailReason::CallFailed(i)) => format!("Failed ({} failed)", svc(i)),
        Detail::Failed(FailReason::CallTimedOut(i)) => format!("Failed ({} timed out)", svc(i)),
        Detail::Failed(FailReason::NoConnection(i)) => {
            format!("Failed ({}: connection not available)", svc(i))
        }
        Detail::Failed(FailReason::Rejected(i)) => {
            format!("Failed (TaskRejectedException: {})", svc(i))
        }
        Detail::Failed(FailReason::Refused(i, refusal)) => {
            format!("Failed ({}: {})", refusal.exception, svc(i))
        }
        Detail::Failed(FailReason::Connect) => format!("{} (connect timed out)", outcome.name()),
        Detail::Failed(FailReason::Reset) => format!("{} (connection reset)", outcome.name()),
        Detail::Failed(FailReason::NotSent) => {
            format!(
                "{} (not sent: the client's breaker is open)",
                outcome.name()
            )
        }
        Detail::Failed(FailReason::LimitedAtDoor) => {
            format!("{} (429: the endpoint's rate limiter)", outcome.name())
        }
        Detail::Failed(FailReason::Shed) => {
            format!("{} (shed: 503 after queue_timeout)", outcome.name())
        }
    }
}
