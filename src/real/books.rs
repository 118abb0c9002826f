//! A real run's measurements, kept like the engine's so a [`Snapshot`] of a real run reads
//! exactly like a simulated one.

use std::collections::VecDeque;

use crate::metrics::{
    LatencyHistogram, Outcome, OutcomeCounts, PoolGauges, RollingHistogram, Sampler,
};
use crate::scenario::{LoadMode, Scenario};
use crate::sim::{PoolSnapshot, RunLine, ServiceStats, Snapshot, service_snapshots};
use crate::time::Nanos;

use super::pace::Starts;
use super::sync::lock;
use super::world::{Req, World};

/// How many run lines the log keeps.
const LOG_LINES: usize = 200;

/// Counters, histograms and series, behind the world's mutex.
pub(super) struct Books {
    pub sent: u64,
    pub outcomes: OutcomeCounts,
    latency: LatencyHistogram,
    failed_latency: LatencyHistogram,
    window: RollingHistogram,
    pub services: Vec<ServiceStats>,
    pub late_responses: u64,
    /// Every run's line, for `runs` load.
    pub runs: Vec<RunLine>,
    keep_runs: bool,
    log: VecDeque<RunLine>,
    /// ∫ in-flight dt up to `area_at`, for Little's L.
    in_flight_area: f64,
    area_at: Nanos,
    /// When the latest outcome was counted (the end of a finite load).
    pub last_outcome_at: Nanos,
    pub sampled: Sampler,
    /// When each request went out against when it was due.
    pub starts: Starts,
}

impl Books {
    pub fn new(scenario: &Scenario, pools: usize) -> Self {
        Books {
            sent: 0,
            outcomes: OutcomeCounts::default(),
            latency: LatencyHistogram::default(),
            failed_latency: LatencyHistogram::default(),
            window: RollingHistogram::new(10, Nanos::from_secs(1)),
            services: vec![ServiceStats::default(); scenario.services.len()],
            late_responses: 0,
            runs: Vec::new(),
            keep_runs: matches!(scenario.load.mode, LoadMode::Runs { .. }),
            log: VecDeque::new(),
            in_flight_area: 0.0,
            area_at: Nanos::ZERO,
            last_outcome_at: Nanos::ZERO,
            sampled: Sampler::new(pools),
            starts: Starts::default(),
        }
    }

    pub fn in_flight(&self) -> u64 {
        self.sent.saturating_sub(self.outcomes.total())
    }

    fn accumulate(&mut self, now: Nanos) {
        if now > self.area_at {
            let dt = (now - self.area_at).as_secs_f64();
            self.in_flight_area += self.in_flight() as f64 * dt;
            self.area_at = now;
        }
    }

    /// A request went out at `now`; it was due at `due`.
    pub fn issued(&mut self, now: Nanos, due: Nanos) {
        self.accumulate(now);
        self.sent += 1;
        self.starts.record(now.saturating_sub(due));
    }

    pub fn record(
        &mut self,
        now: Nanos,
        req: &Req,
        outcome: Outcome,
        thread: String,
        status: String,
    ) {
        self.accumulate(now);
        let latency = now.saturating_sub(req.arrival);
        self.outcomes.add(outcome);
        self.sampled.record(outcome, latency);
        if outcome.is_answered() {
            self.latency.record(latency);
            self.window.record(now, latency);
        } else {
            self.failed_latency.record(latency);
        }
        self.last_outcome_at = now;
        let line = RunLine {
            run: req.id,
            strategy: req.strategy,
            at: now,
            time: latency,
            thread,
            outcome,
            status,
        };
        if self.log.len() == LOG_LINES {
            self.log.pop_front();
        }
        if self.keep_runs {
            self.runs.push(line.clone());
        }
        self.log.push_back(line);
    }

    /// Closes one sampling interval: outcome counts, latency and pool gauges.
    pub fn sample(&mut self, gauges: &[(u32, u32, u32)]) {
        let in_flight = self.in_flight();
        let gauges = gauges.iter().map(|&(active, queued, size)| PoolGauges {
            active,
            queued,
            size,
        });
        self.sampled.close_interval(in_flight, gauges);
    }
}

impl World {
    /// The run as a [`Snapshot`] at scenario time `now`.
    /// The machine's own scheduler runs the real CPU work; it is not modelled here.
    fn cpu_snapshot(&self) -> crate::sim::CpuSnapshot {
        crate::sim::CpuSnapshot {
            cores: self.scenario.cores,
            busy: 0,
            queued: 0,
            max_queued: 0,
            utilisation: 0.0,
        }
    }

    pub(super) fn snapshot(&self, now: Nanos, finished: bool, interval: Nanos) -> Snapshot {
        let in_use = self.topology.pools_in_use(self.strategy);
        let (connections, backlog) = {
            let c = lock(&self.conns);
            (c.open, u32::try_from(c.backlog.len()).unwrap_or(u32::MAX))
        };
        let b = lock(&self.books);
        let pools: Vec<PoolSnapshot> = self
            .pools
            .iter()
            .enumerate()
            .map(|(id, p)| p.snapshot(id, in_use.contains(&id), &b.sampled))
            .collect();
        // Real runs take no live faults.
        let services = service_snapshots(&self.scenario, &self.topology, &pools, &b.services, &[]);
        let series = b.sampled.series(interval);
        let thread_memory_bytes = crate::sim::thread_memory_bytes(&pools, false);
        let secs = now.as_secs_f64();
        let area =
            b.in_flight_area + b.in_flight() as f64 * now.saturating_sub(b.area_at).as_secs_f64();
        Snapshot {
            now,
            strategy: self.strategy,
            finished,
            load: self.scenario.load.mode.clone(),
            sent: b.sent,
            in_flight: b.in_flight(),
            mean_in_flight: if secs > 0.0 { area / secs } else { 0.0 },
            outcomes: b.outcomes,
            late_responses: b.late_responses,
            throughput_rps: crate::sim::per_second(b.outcomes.responded(), now),
            goodput_rps: crate::sim::per_second(b.outcomes.answered(), now),
            latency: b.latency.summary(),
            failed_latency: b.failed_latency.summary(),
            window: b.window.summary(now),
            window_len: b.window.window(),
            connections,
            backlog,
            net: None,
            pools,
            services,
            series,
            log: b
                .log
                .iter()
                .cloned()
                .map(crate::sim::LogLine::Run)
                .collect(),
            events_processed: 0,
            cpu: self.cpu_snapshot(),
            resources: Vec::new(),
            thread_memory_bytes,
        }
    }
}
