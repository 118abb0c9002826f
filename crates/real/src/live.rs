//! A real run to watch while it goes (the TUI's real mode): start it, take snapshots at the
//! current real time, read the tokio monitors, and say when the machine cannot keep up.
//!
//! Real time cannot be paused, stepped or rewound: a `LiveRun` only starts, is looked at, and
//! stops. Looking (`snapshot`, `runtime`, `now`, `is_finished`: `&self`) never changes the
//! run; only [`LiveRun::settle`] and [`LiveRun::halt`] (`&mut self`, the TUI's tick, never its
//! drawing) stop its threads once it has ended. Dropping it stops the run at once without
//! waiting (safe inside another runtime); [`LiveRun::stop`] waits for the threads and reports
//! internal errors.

use crate::scenario::{Scenario, Strategy};
use crate::theory::Prediction;
use crate::time::Nanos;
use crate::topology::PoolId;
use threadlab_model::snapshot::Snapshot;

use super::pace::{LATE_TIMER_LIMIT_MS, SATURATED, calls_cpu_s, cores_needed};
use super::run::{self, Running};
use super::{RealError, RealOptions, RuntimeView, check};

/// A real run under way.
pub struct LiveRun {
    running: Running,
    /// The last snapshot and runtime view, kept once the run has settled, so the screen holds
    /// still.
    ended: Option<(Snapshot, RuntimeView)>,
    scenario: Scenario,
    strategy: Strategy,
    options: RealOptions,
    limit: Nanos,
    cores: usize,
}

impl std::fmt::Debug for LiveRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveRun")
            .field("strategy", &self.strategy)
            .field("options", &self.options)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl LiveRun {
    /// Starts `scenario` for real under `strategy` for `limit` of scenario time (or until a
    /// finite load ends), after the same checks as [`run`](super::run()).
    pub fn start(
        scenario: &Scenario,
        strategy: Strategy,
        limit: Nanos,
        options: RealOptions,
    ) -> Result<LiveRun, RealError> {
        check(scenario, strategy, options)?;
        let running = run::start(scenario, strategy, limit, options.time_scale)?;
        Ok(LiveRun {
            running,
            ended: None,
            scenario: scenario.clone(),
            strategy,
            options,
            limit,
            cores: super::cpu::machine_cores(),
        })
    }

    /// The scenario the run plays.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    pub fn options(&self) -> RealOptions {
        self.options
    }

    /// The run's length in scenario time.
    pub fn limit(&self) -> Nanos {
        self.limit
    }

    /// This machine's cores (`available_parallelism`).
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// The pools the run's strategy uses.
    pub fn pools_in_use(&self) -> Vec<PoolId> {
        self.running.world.topology.pools_in_use(self.strategy)
    }

    /// What theory predicts for the run's scenario and strategy.
    pub fn prediction(&self) -> Prediction {
        crate::theory::predict(&self.scenario, self.strategy)
    }

    /// Scenario time now (real time since t = 0 over the time scale, up to the run's limit);
    /// once a finite load has finished, the time of its last outcome.
    pub fn now(&self) -> Nanos {
        match &self.ended {
            Some((snapshot, _)) => snapshot.now,
            None => self.running.now(self.finished_load()),
        }
    }

    /// The run now, in scenario units; once it has settled, the snapshot of its end.
    pub fn snapshot(&self) -> Snapshot {
        match &self.ended {
            Some((snapshot, _)) => snapshot.clone(),
            None => self.running.snapshot(self.finished_load()),
        }
    }

    /// The tokio runtime and task groups at the latest tick (the end, once settled).
    pub fn runtime(&self) -> RuntimeView {
        match &self.ended {
            Some((_, view)) => view.clone(),
            None => self.running.world.monitors.view(),
        }
    }

    /// The load has ended or the run's time is up (or it stopped).
    pub fn is_finished(&self) -> bool {
        self.ended.is_some() || self.running.end().is_some()
    }

    /// The run's end is kept and its threads told to stop ([`LiveRun::settle`] saw it end,
    /// or it was halted).
    pub fn is_settled(&self) -> bool {
        self.ended.is_some()
    }

    /// Why the run stopped early: its first internal error.
    pub fn error(&self) -> Option<String> {
        let world = &self.running.world;
        world.errors().into_iter().next().map(|e| e.to_string())
    }

    /// Why this run is not keeping up with real time right now (empty when it is).
    pub fn lag(&self, snapshot: &Snapshot, runtime: &RuntimeView) -> Vec<Lag> {
        lag(
            &self.scenario,
            snapshot,
            runtime,
            &self.prediction(),
            self.cores,
        )
    }

    /// Once the run has ended: keep its last snapshot and stop its threads. Called on a tick,
    /// never while drawing; does nothing before the end or once settled.
    pub fn settle(&mut self) {
        if let Some(end) = self.running.end() {
            self.settle_now(end);
        }
    }

    /// Stops the run now and keeps its last snapshot; returns at once (the threads exit on
    /// their own, or when the run is dropped or stopped).
    pub fn halt(&mut self) {
        self.settle();
        self.settle_now(false);
    }

    /// Stops the run, waits for its threads and reports the first internal error. Not from
    /// inside an async context; drop the run there instead.
    pub fn stop(self) -> Result<(), RealError> {
        self.running.join()
    }

    /// A finite load has every outcome (its clock stops at the last one).
    fn finished_load(&self) -> bool {
        self.running.end() == Some(true)
    }

    fn settle_now(&mut self, finished: bool) {
        if self.ended.is_some() {
            return;
        }
        let r = &self.running;
        self.ended = Some((r.snapshot(finished), r.world.monitors.view()));
        r.world.stop_all();
    }
}

/// Tokio tasks waiting longer than this (real time) between waking and running are late.
pub const SCHEDULING_DELAY_LIMIT_MS: f64 = 5.0;
/// Responses this many times slower than theory predicts are not the scenario's doing.
pub const SLOWER_THAN_PREDICTED: f64 = 2.0;
/// Responses needed before their latency is compared with theory.
const RESPONSES_TO_COMPARE: u64 = 10;

/// One measurable reason a real run is not keeping up with the scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Lag {
    /// A task group's tasks waited this long (real ms, latest tick) to be polled once woken.
    SchedulingDelay { group: String, ms: f64 },
    /// The sampler's timer fired this late (real ms, latest tick).
    LateTimers { ms: f64 },
    /// The tokio workers were busy nearly all the latest tick.
    BusyWorkers { busy: f64, workers: usize },
    /// Spinning CPU work keeps about this many cores busy, about all the machine has.
    CpuWork { needed: f64, cores: usize },
    /// The scenario models more cores than the machine has, and its calls use CPU.
    FewerCores { scenario: u32, machine: usize },
    /// Mean latency far above what theory predicts for the scenario.
    SlowResponses { measured_ms: f64, predicted_ms: f64 },
}

impl std::fmt::Display for Lag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lag::SchedulingDelay { group, ms } => {
                write!(f, "{ms:.1} ms scheduling delay ({group} tasks)")
            }
            Lag::LateTimers { ms } => write!(f, "timers fire {ms:.1} ms late"),
            Lag::BusyWorkers { busy, workers } => {
                write!(f, "tokio workers busy {busy:.1} of {workers}")
            }
            Lag::CpuWork { needed, cores } => {
                write!(f, "CPU work needs {needed:.1} of {cores} cores")
            }
            Lag::FewerCores { scenario, machine } => {
                write!(f, "scenario has {scenario} cores, this machine {machine}")
            }
            Lag::SlowResponses {
                measured_ms,
                predicted_ms,
            } => write!(
                f,
                "latency {measured_ms:.0} ms vs {predicted_ms:.0} ms predicted"
            ),
        }
    }
}

/// Why a real run of `scenario` is not keeping up, from what it measured: scheduling delay
/// and timer lateness of the tokio runtime, its workers' busy time, the cores its spinning CPU
/// work needs against the machine's `cores`, and its latency against theory.
pub fn lag(
    scenario: &Scenario,
    snapshot: &Snapshot,
    runtime: &RuntimeView,
    prediction: &Prediction,
    cores: usize,
) -> Vec<Lag> {
    let mut out = runtime_lag(runtime);
    out.extend(cpu_lag(scenario, snapshot, cores));
    if let Some(predicted_ms) = prediction.latency_ms
        && predicted_ms > 0.0
        && snapshot.latency.count >= RESPONSES_TO_COMPARE
        && snapshot.latency.mean > SLOWER_THAN_PREDICTED * predicted_ms
    {
        out.push(Lag::SlowResponses {
            measured_ms: snapshot.latency.mean,
            predicted_ms,
        });
    }
    out
}

/// The tokio runtime's own signs of lag: scheduling delay, late timers, busy workers.
fn runtime_lag(runtime: &RuntimeView) -> Vec<Lag> {
    let mut out = Vec::new();
    if let Some(worst) = runtime
        .tasks
        .iter()
        .filter(|t| t.tick_mean_scheduled_us >= SCHEDULING_DELAY_LIMIT_MS * 1e3)
        .max_by(|a, b| {
            a.tick_mean_scheduled_us
                .total_cmp(&b.tick_mean_scheduled_us)
        })
    {
        out.push(Lag::SchedulingDelay {
            group: worst.name.clone(),
            ms: worst.tick_mean_scheduled_us / 1e3,
        });
    }
    if runtime.ticks > 0 && runtime.timer_late_ms >= LATE_TIMER_LIMIT_MS {
        out.push(Lag::LateTimers {
            ms: runtime.timer_late_ms,
        });
    }
    if runtime.workers > 0 && runtime.busy_ratio >= SATURATED * runtime.workers as f64 {
        out.push(Lag::BusyWorkers {
            busy: runtime.busy_ratio,
            workers: runtime.workers,
        });
    }
    out
}

/// Spinning takes real cores (see [`cores_needed`]); the calls' CPU is the scenario's own
/// work, so a machine with fewer cores than the scenario measures something else.
fn cpu_lag(scenario: &Scenario, snapshot: &Snapshot, cores: usize) -> Vec<Lag> {
    let mut out = Vec::new();
    let calls_s = calls_cpu_s(scenario);
    let needed = cores_needed(scenario, snapshot);
    if needed > 0.0 && needed >= SATURATED * cores as f64 {
        out.push(Lag::CpuWork { needed, cores });
    }
    if calls_s > 0.0 && scenario.cores as usize > cores {
        out.push(Lag::FewerCores {
            scenario: scenario.cores,
            machine: cores,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TaskGroupView;
    use crate::metrics::Outcome;

    fn scenario(sets: &[&str]) -> Scenario {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        crate::scenario::load("ironthread", &sets).expect("preset loads")
    }

    /// The run at t = 0, before anything happened.
    fn quiet_snapshot(s: &Scenario) -> Snapshot {
        let topology = crate::topology::Topology::new(s);
        let pools: Vec<threadlab_model::pool::Pool<()>> = topology
            .specs()
            .cloned()
            .map(threadlab_model::pool::Pool::new)
            .collect();
        let book = crate::metrics::Book::new(s.services.len(), pools.len());
        let run = threadlab_model::snapshot::RunView {
            now: Nanos::ZERO,
            strategy: Strategy::Bulkhead,
            finished: false,
            load: &s.load.mode,
            scenario: s,
            topology: &topology,
            faults: &[],
            guards: None,
            sample_interval: Nanos::from_millis(100),
        };
        Snapshot::of_book(run, &book, |id, in_use, sampler| {
            threadlab_model::snapshot::PoolSnapshot::of(id, &pools[id.index()], in_use, sampler)
        })
    }

    /// ironthread's five runs, a hundred times faster, until they have all ended (bounded: a
    /// stalled machine fails the test, not hangs it).
    fn ended_run() -> LiveRun {
        let options = RealOptions {
            time_scale: 0.01,
            ..RealOptions::default()
        };
        let s = scenario(&[]);
        let run = LiveRun::start(&s, Strategy::Bulkhead, s.duration, options).expect("starts");
        for _ in 0..500 {
            if run.is_finished() {
                return run;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the real run did not finish in 5 s");
    }

    #[test]
    fn looking_at_an_ended_run_changes_nothing_until_it_settles() {
        let mut run = ended_run();
        let (first, _) = (run.snapshot(), run.runtime());
        let second = run.snapshot();
        assert!(first.finished && second.finished);
        assert_eq!(first.outcomes.total(), 5);
        assert_eq!((first.now, first.outcomes), (second.now, second.outcomes));
        assert_eq!(run.now(), first.now);
        assert!(!run.is_settled());
        assert!(
            !run.running.world.stop.is_stopped(),
            "a snapshot stopped the run's threads"
        );
        run.settle();
        assert!(run.is_settled());
        assert!(run.running.world.stop.is_stopped());
        let settled = run.snapshot();
        assert_eq!((settled.now, settled.outcomes), (first.now, first.outcomes));
    }

    #[test]
    fn an_idle_runtime_keeps_up() {
        let s = scenario(&[]);
        let view = RuntimeView {
            workers: 2,
            ticks: 3,
            busy_ratio: 0.1,
            timer_late_ms: 0.3,
            ..RuntimeView::default()
        };
        let p = crate::theory::predict(&s, Strategy::Bulkhead);
        assert_eq!(lag(&s, &quiet_snapshot(&s), &view, &p, 2), []);
    }

    #[test]
    fn scheduling_delay_late_timers_and_busy_workers_are_named() {
        let s = scenario(&[]);
        let view = RuntimeView {
            workers: 2,
            ticks: 3,
            busy_ratio: 1.95,
            timer_late_ms: 7.0,
            tasks: vec![TaskGroupView {
                name: "unbounded".into(),
                tick_mean_scheduled_us: 12_000.0,
                ..TaskGroupView::default()
            }],
            ..RuntimeView::default()
        };
        let p = crate::theory::predict(&s, Strategy::Bulkhead);
        let lags = lag(&s, &quiet_snapshot(&s), &view, &p, 2);
        let text: Vec<String> = lags.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "12.0 ms scheduling delay (unbounded tasks)",
                "timers fire 7.0 ms late",
                "tokio workers busy 1.9 of 2",
            ]
        );
    }

    /// The lags of a quiet runtime on a 2-core machine, for a run of `s` answering
    /// `throughput` requests/s with these outcomes.
    fn cpu_lags(s: &Scenario, throughput: f64, outcomes: &[Outcome]) -> Vec<Lag> {
        let mut snap = quiet_snapshot(s);
        snap.throughput_rps = throughput;
        for &o in outcomes {
            snap.outcomes.add(o);
        }
        let p = crate::theory::predict(s, Strategy::Bulkhead);
        lag(s, &snap, &RuntimeView::default(), &p, 2)
    }

    #[test]
    fn cpu_work_beyond_the_machine_is_named() {
        let s = scenario(&["services.user.cpu=10ms", "server.cpu_per_request=0s"]);
        let lags = cpu_lags(&s, 250.0, &[]);
        assert!(
            lags.contains(&Lag::CpuWork {
                needed: 2.5,
                cores: 2
            }),
            "{lags:?}"
        );
    }

    #[test]
    fn the_handlers_own_cpu_counts_towards_the_cores_a_run_needs() {
        // No call has CPU work: the handler's 10 ms a request at 250 requests/s needs 2.5
        // cores, more than 2; the scenario's 11 cores are not named (that is about calls).
        let s = scenario(&["server.cpu_per_request=10ms"]);
        let needs = |needed| [Lag::CpuWork { needed, cores: 2 }];
        assert_eq!(cpu_lags(&s, 250.0, &[]), needs(2.5));
        assert_eq!(cpu_lags(&s, 100.0, &[]), []);
        // A refused request never reached a handler: half refused at 500/s is 2.5 again.
        let refused = [Outcome::Refused, Outcome::Success];
        assert_eq!(cpu_lags(&s, 500.0, &refused), needs(2.5));
    }

    #[test]
    fn the_error_pages_of_failed_requests_count_towards_the_cores_a_run_needs() {
        // A storm of failures: 8,000 requests/s, three in four failed, each failure's error
        // page 1 ms of CPU: 6 cores, more than 2 (the handler's own CPU is 0 here).
        let s = scenario(&["server.cpu_per_request=0s", "server.cpu_per_error=1ms"]);
        let storm = [
            Outcome::Failed,
            Outcome::Failed,
            Outcome::Failed,
            Outcome::Success,
        ];
        assert_eq!(
            cpu_lags(&s, 8_000.0, &storm),
            [Lag::CpuWork {
                needed: 6.0,
                cores: 2
            }]
        );
        // Without failures the same rate needs no core.
        assert_eq!(cpu_lags(&s, 8_000.0, &[Outcome::Success]), []);
    }
}
