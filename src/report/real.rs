//! Tables of real runs: the simulation's tables, with the real run's time scale, wall time and
//! tokio-metrics added.

use std::fmt::Write as _;

use serde::Serialize;

use crate::real::{Pace, RealRun, RuntimeView};
use crate::report::{self, RunReport};
use crate::scenario::Scenario;

/// A real run's report: the simulation's report plus what only a real run has.
#[derive(Debug, Clone, Serialize)]
pub struct RealReport {
    /// Ctrl-C stopped the run: `"interrupted": true` first, as a simulated run says it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    #[serde(flatten)]
    pub run: RunReport,
    pub engine: &'static str,
    pub time_scale: f64,
    pub wall_s: f64,
    pub runtime: RuntimeView,
    pub pace: Pace,
}

impl RealReport {
    /// The report of `run`, a real run of `scenario`.
    pub fn of(scenario: &Scenario, run: &RealRun) -> Self {
        RealReport {
            interrupted: run.interrupted,
            run: RunReport::from_snapshot(
                scenario,
                &run.snapshot,
                &run.run_lines,
                crate::theory::predict(scenario, run.snapshot.strategy),
            ),
            engine: "real",
            time_scale: run.time_scale,
            wall_s: run.wall_s,
            runtime: run.runtime.clone(),
            pace: run.pace.clone(),
        }
    }
}

/// `run --engine real --format table`.
pub fn run_table(scenario: &Scenario, r: &RealReport) -> String {
    let measured = format!(
        "of scenario time, run for real (time scale {}, {:.2} s wall)",
        r.time_scale, r.wall_s
    );
    let mut out = report::run_table_measured(scenario, &r.run, &measured);
    runtime_lines(&r.runtime, &mut out);
    pace_line(r, &mut out);
    out
}

/// `compare --engine real --format table`.
pub fn compare_table(scenario: &Scenario, reports: &[RealReport]) -> String {
    let runs: Vec<RunReport> = reports.iter().map(|r| r.run.clone()).collect();
    let mut out = report::compare_table(scenario, &runs);
    for r in reports {
        let _ = writeln!(
            out,
            "\n{}: run for real at time scale {}, {:.2} s wall",
            r.run.strategy, r.time_scale, r.wall_s
        );
        runtime_lines(&r.runtime, &mut out);
        pace_line(r, &mut out);
    }
    out
}

/// The warning of a run that fell behind, last, under the figures it puts in doubt.
fn pace_line(r: &RealReport, out: &mut String) {
    if let Some(warning) = r.pace.warning() {
        let _ = writeln!(out, "WARNING: {warning}");
    }
}

/// The tokio runtime and the instrumented task groups that ran any task.
pub fn runtime_lines(v: &RuntimeView, out: &mut String) {
    let _ = writeln!(
        out,
        "tokio runtime: {} workers, busy ratio mean {:.3} (max {:.3}), global queue max {}, \
         live tasks max {} ({} ticks of {:.1} ms)",
        v.workers,
        v.busy_ratio_mean,
        v.busy_ratio_max,
        v.global_queue_depth_max,
        v.live_tasks_max,
        v.ticks,
        v.tick_ms
    );
    for t in v.tasks.iter().filter(|t| t.instrumented > 0) {
        let _ = writeln!(
            out,
            "tokio tasks {}: {} instrumented, mean poll {:.1} us, mean scheduled delay {:.1} us, \
             slow polls {:.2} %",
            t.name,
            t.instrumented,
            t.mean_poll_us,
            t.mean_scheduled_us,
            t.slow_poll_ratio * 100.0
        );
    }
}
