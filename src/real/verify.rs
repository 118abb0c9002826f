//! `threadlab verify`: the simulation and a real run of the same scenario side by side, with
//! the relative difference of each figure and a verdict against a tolerance.
//!
//! Which figures are meaningful depends on the load. A `runs` load is a handful of single
//! requests: each run's latency is compared with its simulated twin (the draws are shared, so
//! outcomes must be identical), and quantiles of five samples are not compared. Finite loads
//! (`runs`, `batch`) compare outcome counts; time-based loads (`open`, `closed`) compare the
//! share of each outcome, since how many requests end depends on throughput.

use std::fmt::Write as _;

use crate::report::{Align, MarkdownTable, RunReport, fmt_ms};
use crate::scenario::{LoadMode, Scenario, Strategy};
use crate::time::Nanos;

use super::{RealError, RealOptions, RealReport};

/// Fewer samples than this and a p50 is not compared.
pub const MIN_SAMPLES_P50: u64 = 20;
/// Fewer samples than this and a p99 is not compared (one sample decides it).
pub const MIN_SAMPLES_P99: u64 = 200;

/// One compared figure.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparedFigure {
    pub name: String,
    pub sim: String,
    pub real: String,
    /// The difference compared with the tolerance (relative, or absolute for shares).
    pub difference: f64,
    /// False for figures shown for information only.
    pub checked: bool,
}

/// The result of verifying one strategy.
#[derive(Debug, Clone)]
pub struct Verification {
    pub scenario: String,
    pub strategy: Strategy,
    pub tolerance: f64,
    pub time_scale: f64,
    pub figures: Vec<ComparedFigure>,
    pub notes: Vec<String>,
    pub sim: RunReport,
    pub real: RealReport,
}

impl Verification {
    /// Every checked figure is within the tolerance.
    pub fn passed(&self) -> bool {
        self.figures
            .iter()
            .all(|f| !f.checked || f.difference <= self.tolerance)
    }

    /// The side-by-side table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} · {} · time scale {} · tolerance {:.1} % · real run {:.2} s wall\n",
            self.scenario,
            self.strategy,
            self.time_scale,
            self.tolerance * 100.0,
            self.real.wall_s
        );
        let mut table = MarkdownTable::new(&[
            ("Figure", Align::Left),
            ("Simulated", Align::Right),
            ("Real", Align::Right),
            ("Difference", Align::Right),
            ("Check", Align::Right),
        ]);
        for f in &self.figures {
            let check = if !f.checked {
                "info"
            } else if f.difference <= self.tolerance {
                "ok"
            } else {
                "FAIL"
            };
            table.row(vec![
                f.name.clone(),
                f.sim.clone(),
                f.real.clone(),
                format!("{:.2} %", f.difference * 100.0),
                check.to_string(),
            ]);
        }
        table.render(&mut out);
        for n in &self.notes {
            let _ = writeln!(out, "Note: {n}");
        }
        let result = if self.real.interrupted {
            "PARTIAL: Ctrl-C stopped the real run before its end, so its figures cover less \
             scenario time than the simulation's"
        } else if self.passed() {
            "PASS"
        } else {
            "FAIL"
        };
        let _ = writeln!(out, "Result: {result}\n");
        out
    }
}

/// Simulates and really runs `scenario` under `strategy`, and compares them.
pub fn verify(
    scenario: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    options: RealOptions,
    tolerance: f64,
) -> Result<Verification, RealError> {
    super::check(scenario, strategy, options)?;
    // The real engine plays round trips but not the connector's CPU or the keep-alive fast
    // path: the simulation it is held against leaves those out too.
    let engine = crate::report::play(&scenario.as_played_for_real(), strategy, duration);
    let sim = RunReport::new(scenario, &engine);
    let real = super::run(scenario, strategy, duration, options)?.report(scenario);
    let (figures, mut notes) = compare(scenario, &sim, &real.run);
    let on_tasks = strategy == Strategy::Unbounded
        || scenario.server.threads == crate::scenario::ServerThreads::Virtual;
    if let Some(warning) = real.pace.warning() {
        notes.push(format!("the real run fell behind: {warning}"));
    }
    if on_tasks {
        notes.push(format!(
            "tokio timers fire on whole milliseconds: each sleep in a task may end up to 1 ms \
             late, {} ms of scenario time at this time scale",
            fmt_ms(round1(1.0 / options.time_scale))
        ));
    }
    Ok(Verification {
        scenario: scenario.name.clone(),
        strategy,
        tolerance,
        time_scale: options.time_scale,
        figures,
        notes,
        sim,
        real,
    })
}

/// The figures worth comparing for this load, and notes on what was left out.
pub fn compare(
    scenario: &Scenario,
    sim: &RunReport,
    real: &RunReport,
) -> (Vec<ComparedFigure>, Vec<String>) {
    let mut figures = Vec::new();
    let mut notes = Vec::new();
    figures.push(ComparedFigure {
        name: "throughput (req/s)".into(),
        sim: format!("{:.2}", sim.throughput_rps),
        real: format!("{:.2}", real.throughput_rps),
        difference: rel(sim.throughput_rps, real.throughput_rps),
        checked: true,
    });
    let (ls, lr) = (&sim.latency_ms, &real.latency_ms);
    let ms = |name: &str, s: f64, r: f64, checked: bool| ComparedFigure {
        name: name.into(),
        sim: fmt_ms(round1(s)),
        real: fmt_ms(round1(r)),
        difference: rel(s, r),
        checked,
    };
    figures.push(ms("mean latency (ms)", ls.mean, lr.mean, true));
    let samples = sim.requests.completed - sim.requests.refused;
    let runs = matches!(scenario.load.mode, LoadMode::Runs { .. });
    if samples >= MIN_SAMPLES_P50 && !runs {
        figures.push(ms("p50 latency (ms)", ls.p50, lr.p50, true));
    }
    if samples >= MIN_SAMPLES_P99 && !runs {
        figures.push(ms("p99 latency (ms)", ls.p99, lr.p99, true));
    } else {
        notes.push(format!(
            "{} not compared: {samples} latency samples (a p99 needs {MIN_SAMPLES_P99}){}",
            if samples >= MIN_SAMPLES_P50 && !runs {
                "p99"
            } else {
                "p50 and p99"
            },
            if runs {
                "; each run's latency is compared instead"
            } else {
                ""
            }
        ));
    }
    if let (true, Some(sr), Some(rr)) = (runs, &sim.runs, &real.runs) {
        per_run(sr, rr, &mut figures, &mut notes);
    }
    outcome_figures(scenario, sim, real, &mut figures, &mut notes);
    resilience_figures(sim, real, &mut figures);
    if let (Some(cs), Some(cr)) = (&sim.clients, &real.clients) {
        // Who starves is decided by the accept queue and SYN retransmits, the same rules in
        // both engines: compared as a share of the clients.
        let count = f64::from(cs.count.max(1));
        figures.push(ComparedFigure {
            name: "clients never answered".into(),
            sim: format!("{} of {}", cs.never_answered, cs.count),
            real: format!("{} of {}", cr.never_answered, cr.count),
            difference: (f64::from(cs.never_answered) - f64::from(cr.never_answered)).abs() / count,
            checked: true,
        });
    }
    (figures, notes)
}

/// What the resilience patterns did, for information: a retry or a shed turns on which side
/// of a timeout an attempt falls, which a few milliseconds of real scheduling can move, and
/// the outcomes and throughput already hold their effect.
fn resilience_figures(sim: &RunReport, real: &RunReport, figures: &mut Vec<ComparedFigure>) {
    let (Some(s), Some(r)) = (&sim.resilience, &real.resilience) else {
        return;
    };
    let counts = [
        ("retries", s.retries, r.retries),
        ("gave up", s.gave_up, r.gave_up),
        ("shed", s.shed, r.shed),
    ];
    for (name, s, r) in counts {
        if s == 0 && r == 0 {
            continue;
        }
        figures.push(ComparedFigure {
            name: name.into(),
            sim: s.to_string(),
            real: r.to_string(),
            difference: rel(s as f64, r as f64),
            checked: false,
        });
    }
    if s.wasted_work_s > 0.0 || r.wasted_work_s > 0.0 {
        figures.push(ComparedFigure {
            name: "wasted work (s)".into(),
            sim: format!("{:.1}", s.wasted_work_s),
            real: format!("{:.1}", r.wasted_work_s),
            difference: rel(s.wasted_work_s, r.wasted_work_s),
            checked: false,
        });
    }
}

/// How relatively far `r` is from `s` (0 when equal).
fn rel(s: f64, r: f64) -> f64 {
    let d = (r - s).abs();
    if d == 0.0 { 0.0 } else { d / s.abs().max(1e-9) }
}

/// Each outcome: counts for a finite load, shares of completed requests otherwise.
fn outcome_figures(
    scenario: &Scenario,
    sim: &RunReport,
    real: &RunReport,
    figures: &mut Vec<ComparedFigure>,
    notes: &mut Vec<String>,
) {
    let (qs, qr) = (&sim.requests, &real.requests);
    let outcomes = [
        ("success", qs.success, qr.success),
        ("partial", qs.partial, qr.partial),
        ("failed", qs.failed, qr.failed),
        ("timeout", qs.timeout, qr.timeout),
        ("refused", qs.refused, qr.refused),
    ];
    let finite = matches!(
        scenario.load.mode,
        LoadMode::Runs { .. } | LoadMode::Batch { .. }
    );
    for (i, (name, s, r)) in outcomes.into_iter().enumerate() {
        // Timeouts and refusals only when either run had some.
        if i >= 3 && s == 0 && r == 0 {
            continue;
        }
        if finite {
            figures.push(ComparedFigure {
                name: format!("{name} (count)"),
                sim: s.to_string(),
                real: r.to_string(),
                difference: rel(s as f64, r as f64),
                checked: true,
            });
        } else {
            let share = |n: u64, total: u64| n as f64 / total.max(1) as f64;
            let (ss, rs) = (share(s, qs.completed), share(r, qr.completed));
            figures.push(ComparedFigure {
                name: format!("{name} (share)"),
                sim: format!("{:.1} %", ss * 100.0),
                real: format!("{:.1} %", rs * 100.0),
                difference: (rs - ss).abs(),
                checked: true,
            });
        }
    }
    if !finite {
        notes.push(
            "outcomes compared as shares of completed requests (points of percentage), since \
             how many complete follows throughput"
                .into(),
        );
    }
}

/// A `runs` load: each run's latency, its outcome, and (for information) its thread.
fn per_run(
    sim: &[crate::report::RunReportRow],
    real: &[crate::report::RunReportRow],
    figures: &mut Vec<ComparedFigure>,
    notes: &mut Vec<String>,
) {
    let pairs: Vec<_> = sim.iter().zip(real).collect();
    let worst = pairs
        .iter()
        .map(|(s, r)| (r.time_ms - s.time_ms).abs() / s.time_ms.max(1e-9))
        .fold(0.0, f64::max);
    let worst_pair = pairs.iter().max_by(|a, b| {
        let d = |(s, r): &&(&crate::report::RunReportRow, &crate::report::RunReportRow)| {
            (r.time_ms - s.time_ms).abs() / s.time_ms.max(1e-9)
        };
        d(a).total_cmp(&d(b))
    });
    figures.push(ComparedFigure {
        name: "run latency, worst run (ms)".into(),
        sim: worst_pair.map_or_else(|| "-".into(), |(s, _)| fmt_ms(round1(s.time_ms))),
        real: worst_pair.map_or_else(|| "-".into(), |(_, r)| fmt_ms(round1(r.time_ms))),
        difference: worst,
        checked: true,
    });
    let n = sim.len().max(real.len());
    let same_status = pairs.iter().filter(|(s, r)| s.status == r.status).count();
    figures.push(ComparedFigure {
        name: "runs with the same status".into(),
        sim: n.to_string(),
        real: same_status.to_string(),
        difference: (n - same_status) as f64 / n.max(1) as f64,
        checked: true,
    });
    let same_thread = pairs.iter().filter(|(s, r)| s.thread == r.thread).count();
    figures.push(ComparedFigure {
        name: "runs with the same thread".into(),
        sim: n.to_string(),
        real: same_thread.to_string(),
        difference: (n - same_thread) as f64 / n.max(1) as f64,
        checked: false,
    });
    if same_thread < n {
        notes.push(
            "thread names can differ when two threads race to go idle (as on a JVM); they are \
             shown, not checked"
                .into(),
        );
    }
}

fn round1(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}
