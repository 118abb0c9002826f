//! Real execution: the same scenario run for real on this machine, measured, and checked
//! against the simulation.
//!
//! Platform threads are OS threads named as the JVM names them and really sleep
//! (`std::thread::sleep`); virtual threads and `unbounded` calls are tokio tasks awaiting
//! `tokio::time::sleep`. Every executor decides admissions with the engine's own
//! [`Pool`](threadlab_model::pool::Pool) state machine, and every call uses the engine's keyed
//! draws, so a real run sees the same latencies and failures as the simulated one. `--time-scale
//! F` shrinks every span by F; measurements are scaled back to scenario units. The result is a
//! [`Snapshot`] like the engine's, so reports show a real run exactly like a simulated one.

mod books;
mod call_retry;
mod cap;
mod clock;
mod cores;
mod cpu;
mod executor;
mod guard;
mod holdings;
mod keepalive;
mod live;
mod monitor;
mod pace;
mod pool;
mod resources;
mod run;
mod server;
mod snapshot;
mod sync;
mod task;
mod world;

use std::sync::Arc;

// The model's modules, under the names the engine's files use.
use threadlab_model::{draw, flow, metrics, scenario, theory, time, topology};

use crate::scenario::{Scenario, Strategy};
use crate::time::Nanos;
use threadlab_model::snapshot::{RunLine, Snapshot};

pub use cap::os_threads_needed;
pub use cpu::spin;
pub use live::{Lag, LiveRun, SCHEDULING_DELAY_LIMIT_MS};
pub use monitor::{RuntimeView, TaskGroupView};
pub use pace::{LATE_TIMER_LIMIT_MS, Pace};

/// The default cap on OS threads a real run may start (`--max-threads`).
pub const DEFAULT_MAX_THREADS: u64 = 4096;

/// How to run for real.
#[derive(Debug, Clone, Copy)]
pub struct RealOptions {
    /// Real seconds per scenario second (0.1 turns 100 ms into 10 ms).
    pub time_scale: f64,
    /// Refuse a scenario that would need more OS threads than this.
    pub max_threads: u64,
    /// Asked while a headless run waits for its end: true stops it there (Ctrl-C), and its
    /// report says it was interrupted.
    pub interrupted: fn() -> bool,
}

impl Default for RealOptions {
    fn default() -> Self {
        RealOptions {
            time_scale: 1.0,
            max_threads: DEFAULT_MAX_THREADS,
            interrupted: || false,
        }
    }
}

/// Why a real run did not happen or failed.
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    #[error(
        "{strategy} on this scenario would start about {needed} OS threads ({detail}), more \
         than the cap of {cap}: {advice}"
    )]
    TooManyThreads {
        strategy: Strategy,
        needed: u64,
        cap: u64,
        detail: String,
        /// What would fit under the cap, from the scenario's numbers.
        advice: String,
    },
    #[error(
        "--time-scale = {} is out of range: allowed {}..={}",
        crate::scenario::short_number(*.0),
        crate::scenario::TIME_SCALE.start(),
        crate::scenario::TIME_SCALE.end()
    )]
    BadTimeScale(f64),
    #[error("real execution does not run {0}; run it with --engine sim")]
    Unsupported(String),
    #[error(
        "real execution cannot play {0}: it runs the scenario on this machine's OS threads and \
         tokio tasks, not inside a JVM, so there is no JIT to warm up, no heap to collect and no \
         Tomcat Acceptor or Poller thread; run it with --engine sim"
    )]
    NoJvm(String),
    #[error("real run failed: {0}")]
    Internal(#[from] RealFailure),
}

/// What went wrong inside a real run (the machine's fault, not the input's): the OS would
/// not start a thread or the runtime.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RealFailure {
    #[error("cannot start the tokio runtime: {0}")]
    Runtime(Arc<std::io::Error>),
    #[error("cannot start the load thread: {0}")]
    LoadThread(Arc<std::io::Error>),
    #[error("cannot start thread {name}: {error}")]
    Thread {
        name: String,
        error: Arc<std::io::Error>,
    },
}

impl RealError {
    /// A problem with the input (exit 2) rather than with the run (exit 1).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, RealError::Internal(_))
    }
}

/// A finished real run.
#[derive(Debug, Clone)]
pub struct RealRun {
    /// The run at its end, in scenario units.
    pub snapshot: Snapshot,
    /// Every run's line, for `runs` load.
    pub run_lines: Vec<RunLine>,
    /// tokio-metrics of the runtime and the instrumented tasks.
    pub runtime: RuntimeView,
    pub time_scale: f64,
    /// Real seconds the run took.
    pub wall_s: f64,
    /// Whether this machine kept up with the scenario.
    pub pace: Pace,
    /// Ctrl-C stopped it before its end: the figures cover the scenario time reached.
    pub interrupted: bool,
}

/// Runs `scenario` for real under `strategy` for `duration` of scenario time (or until a
/// finite load ends, or `options.interrupted` says so).
pub fn run(
    scenario: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    options: RealOptions,
) -> Result<RealRun, RealError> {
    check(scenario, strategy, options)?;
    run::execute(scenario, strategy, duration, options)
}

/// Runs every strategy for real on the same scenario, one after another, after checking that
/// each can run. An interruption (`options.interrupted`) stops the one running, which is the
/// last returned (`interrupted`).
pub fn compare(
    scenario: &Scenario,
    duration: Nanos,
    options: RealOptions,
) -> Result<Vec<RealRun>, RealError> {
    for strategy in Strategy::ALL {
        check(scenario, strategy, options)?;
    }
    let mut runs = Vec::new();
    for strategy in Strategy::ALL {
        let run = run(scenario, strategy, duration, options)?;
        let partial = run.interrupted;
        runs.push(run);
        if partial {
            break;
        }
    }
    Ok(runs)
}

/// Refuses what real mode cannot run safely: a bad time scale, an unsupported feature, or
/// more OS threads than the cap.
pub fn check(
    scenario: &Scenario,
    strategy: Strategy,
    options: RealOptions,
) -> Result<(), RealError> {
    let scale = options.time_scale;
    if !crate::scenario::TIME_SCALE.contains(&scale) {
        return Err(RealError::BadTimeScale(scale));
    }
    let unsupported = |what: &str| Err(RealError::Unsupported(what.to_string()));
    if scenario.server.async_ {
        return unsupported(
            "server.async = true (the real handler keeps its thread until it writes the \
             response: the servlet's early return of its thread is played by the simulation \
             only)",
        );
    }
    if scenario.jvm.any() {
        return Err(RealError::NoJvm(jvm_tables(scenario)));
    }
    let cpu_work = scenario.services.iter().any(|s| s.cpu > Nanos::ZERO);
    let machine = cpu::machine_cores();
    let run_to_completion =
        scenario.cpu_scheduling == crate::scenario::CpuScheduling::RunToCompletion;
    if cpu_work && run_to_completion && scenario.cores as usize > machine {
        return Err(RealError::Unsupported(format!(
            "scenario.cpu_scheduling = \"run-to-completion\" with CPU work on {} cores: this \
             machine has {machine}, and its kernel time-slices the threads beyond them; try \
             --set scenario.cores={machine}",
            scenario.cores
        )));
    }
    let (needed, detail) = os_threads_needed(scenario, strategy);
    if needed > options.max_threads {
        return Err(RealError::TooManyThreads {
            strategy,
            needed,
            cap: options.max_threads,
            detail,
            advice: cap::advice(scenario, strategy, options.max_threads),
        });
    }
    Ok(())
}

/// The `[jvm]` tables a scenario has, for the refusal.
fn jvm_tables(scenario: &Scenario) -> String {
    let jvm = &scenario.jvm;
    let tables: Vec<&str> = [
        (jvm.warmup.is_some(), "[jvm.warmup]"),
        (jvm.gc.is_some(), "[jvm.gc]"),
        (jvm.errors.is_some(), "[jvm.errors]"),
        (jvm.connector_threads.is_some(), "[jvm.connector_threads]"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    match tables.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => tables.concat(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{RealError, RealFailure};

    #[test]
    fn an_internal_failure_says_what_would_not_start_and_is_not_bad_input() {
        let error = || Arc::new(std::io::Error::other("out of memory"));
        let cases = [
            (
                RealFailure::Runtime(error()),
                "cannot start the tokio runtime: out of memory",
            ),
            (
                RealFailure::LoadThread(error()),
                "cannot start the load thread: out of memory",
            ),
            (
                RealFailure::Thread {
                    name: "IronThread-3".into(),
                    error: error(),
                },
                "cannot start thread IronThread-3: out of memory",
            ),
        ];
        for (failure, text) in cases {
            assert_eq!(failure.to_string(), text);
            let run = RealError::from(failure);
            assert_eq!(run.to_string(), format!("real run failed: {text}"));
            assert!(!run.is_bad_input());
        }
    }
}
