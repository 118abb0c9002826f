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

use crate::real::{RealError, RealOptions};
use crate::report::RealReport;

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
    /// The real run kept up and every checked figure is within the tolerance: a run this
    /// machine could not keep up with measured the machine, not the model, and fails.
    pub fn passed(&self) -> bool {
        self.kept_up()
            && self
                .figures
                .iter()
                .all(|f| !f.checked || f.difference <= self.tolerance)
    }

    /// The real run kept pace with its scenario.
    pub fn kept_up(&self) -> bool {
        !self.real.pace.behind
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
        } else if !self.kept_up() {
            "FAIL: this machine could not keep up with the scenario (see the note), so the real \
             figures are not the model's"
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
    crate::real::check(scenario, strategy, options)?;
    // The real engine plays round trips and the post-response work but not the connector's
    // CPU: the simulation it is held against leaves that out too.
    let sims = simulate_seeds(scenario, strategy, duration);
    let real = RealReport::of(
        scenario,
        &crate::real::run(scenario, strategy, duration, options)?,
    );
    let (figures, mut notes) = compare(scenario, &sims, &real.run);
    let sim = sims.own;
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

/// The simulation a real run is held against: the same scenario (the real engine plays all
/// of it, or refuses it) with its own seed, and with the next seeds.
struct Simulated {
    own: RunReport,
    others: Vec<RunReport>,
}

impl Simulated {
    fn all(&self) -> impl Iterator<Item = &RunReport> {
        std::iter::once(&self.own).chain(&self.others)
    }
}

fn simulate_seeds(scenario: &Scenario, strategy: Strategy, duration: Nanos) -> Simulated {
    // Request ids, which key the draws, follow the order in which requests are sent: fixed
    // by the scenario for `runs`, `batch` and `open` loads, so a real run meets the seed's own
    // draws; a closed load's clients send again as their answers come, and simultaneous
    // answers come in an order a real run does not fix.
    let seeds = if scenario.load.mode.is_closed() {
        SEEDS
    } else {
        1
    };
    let mut runs = play_seeds(scenario, strategy, duration, seeds);
    let own = runs.remove(0);
    Simulated { own, others: runs }
}

/// The simulated reports of `scenario` with its own seed and the next `seeds - 1` (at least
/// the own one), in that order, played on the cores: the distribution a real run of a closed
/// load is one sample of.
pub fn play_seeds(
    scenario: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    seeds: u64,
) -> Vec<RunReport> {
    use rayon::prelude::*;
    (0..seeds.max(1))
        .into_par_iter()
        .map(|k| {
            let mut s = scenario.clone();
            s.seed = (scenario.seed + k) % (crate::scenario::MAX_SEED + 1);
            RunReport::new(scenario, &crate::report::play(&s, strategy, duration))
        })
        .collect()
}

/// How many seeds the simulation of a closed load is played with: which of its requests meets
/// which draw turns on the order of simultaneous answers, so a figure that turns on the draws
/// is a distribution, and the real run is one more sample of it.
pub const SEEDS: u64 = 8;

/// A figure across the simulated seeds: the scenario's own seed's value and the range.
#[derive(Debug, Clone, Copy)]
struct Spread {
    own: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(sims: &Simulated, figure: impl Fn(&RunReport) -> f64) -> Self {
        let own = figure(&sims.own);
        let (min, max) = sims
            .all()
            .map(&figure)
            .fold((own, own), |(lo, hi), v| (lo.min(v), hi.max(v)));
        Spread { own, min, max }
    }

    /// The end of the range nearest `real` (`real` itself when within it).
    fn nearest(self, real: f64) -> f64 {
        real.clamp(self.min, self.max)
    }

    fn varies(self) -> bool {
        self.min < self.max
    }

    /// The seed's value, and the range when the seeds differ.
    fn show(self, fmt: impl Fn(f64) -> String) -> String {
        if self.varies() {
            format!("{} [{}, {}]", fmt(self.own), fmt(self.min), fmt(self.max))
        } else {
            fmt(self.own)
        }
    }
}

/// The figures worth comparing for this load, and notes on what was left out. `sims` are the
/// simulation's runs over [`SEEDS`] seeds (the scenario's own first): a real figure is as far
/// from the simulation as it is from the nearest end of their range.
fn compare(
    scenario: &Scenario,
    sims: &Simulated,
    real: &RunReport,
) -> (Vec<ComparedFigure>, Vec<String>) {
    let mut figures = Vec::new();
    let mut notes = Vec::new();
    let sim = &sims.own;
    let relative = |name: &str, figure: fn(&RunReport) -> f64, fmt: fn(f64) -> String| {
        let spread = Spread::of(sims, figure);
        let r = figure(real);
        ComparedFigure {
            name: name.into(),
            sim: spread.show(fmt),
            real: fmt(r),
            difference: rel(spread.nearest(r), r),
            checked: true,
        }
    };
    let rps = |v: f64| format!("{v:.2}");
    let ms = |v: f64| fmt_ms(round1(v));
    figures.push(relative("throughput (req/s)", |r| r.throughput_rps, rps));
    figures.push(relative("mean latency (ms)", |r| r.latency_ms.mean, ms));
    let samples = sim.requests.completed - sim.requests.refused;
    let runs = matches!(scenario.load.mode, LoadMode::Runs { .. });
    if samples >= MIN_SAMPLES_P50 && !runs {
        figures.push(relative("p50 latency (ms)", |r| r.latency_ms.p50, ms));
    }
    if samples >= MIN_SAMPLES_P99 && !runs {
        figures.push(relative("p99 latency (ms)", |r| r.latency_ms.p99, ms));
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
    outcome_figures(scenario, sims, real, &mut figures, &mut notes);
    resilience_figures(sim, real, &mut figures);
    if let (Some(cs), Some(cr)) = (&sim.clients, &real.clients) {
        // Who starves is decided by the accept queue and SYN retransmits, the same rules in
        // both engines: compared as a share of the clients.
        let never = |r: &RunReport| {
            r.clients
                .as_ref()
                .map_or(0.0, |c| f64::from(c.never_answered))
        };
        let spread = Spread::of(sims, never);
        let count = f64::from(cs.count.max(1));
        let r = f64::from(cr.never_answered);
        figures.push(ComparedFigure {
            name: "clients never answered".into(),
            sim: spread.show(|v| format!("{v:.0}")) + &format!(" of {}", cs.count),
            real: format!("{} of {}", cr.never_answered, cr.count),
            difference: (spread.nearest(r) - r).abs() / count,
            checked: true,
        });
    }
    if figures.iter().any(|f| f.sim.contains('[')) {
        let last = (sim.seed + SEEDS - 1) % (crate::scenario::MAX_SEED + 1);
        notes.push(format!(
            "[low, high]: the simulation's range over seeds {} to {last}, where it varies: a \
             closed client sends again when its answer comes, so which request meets which draw \
             turns on the order of simultaneous answers, which a real run does not fix; the real \
             run is one more sample, and the difference is from the nearest end of the range",
            sim.seed
        ));
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
    sims: &Simulated,
    real: &RunReport,
    figures: &mut Vec<ComparedFigure>,
    notes: &mut Vec<String>,
) {
    type Count = fn(&crate::report::RequestCounts) -> u64;
    let outcomes: [(&str, Count); 5] = [
        ("success", |q| q.success),
        ("partial", |q| q.partial),
        ("failed", |q| q.failed),
        ("timeout", |q| q.timeout),
        ("refused", |q| q.refused),
    ];
    let finite = matches!(
        scenario.load.mode,
        LoadMode::Runs { .. } | LoadMode::Batch { .. }
    );
    for (i, (name, count)) in outcomes.into_iter().enumerate() {
        let counts = Spread::of(sims, |q| count(&q.requests) as f64);
        let r = count(&real.requests) as f64;
        // Timeouts and refusals only when either engine had some.
        if i >= 3 && counts.max == 0.0 && r == 0.0 {
            continue;
        }
        if finite {
            figures.push(ComparedFigure {
                name: format!("{name} (count)"),
                sim: counts.show(|v| format!("{v:.0}")),
                real: format!("{r:.0}"),
                difference: rel(counts.nearest(r), r),
                checked: true,
            });
        } else {
            let share =
                |q: &RunReport| count(&q.requests) as f64 / q.requests.completed.max(1) as f64;
            let shares = Spread::of(sims, share);
            let rs = share(real);
            figures.push(ComparedFigure {
                name: format!("{name} (share)"),
                sim: shares.show(|v| format!("{:.1} %", v * 100.0)),
                real: format!("{:.1} %", rs * 100.0),
                difference: (shares.nearest(rs) - rs).abs(),
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

#[cfg(test)]
mod tests {
    use super::{Spread, rel};

    #[test]
    fn a_real_figure_is_as_far_from_the_simulation_as_from_the_nearest_end_of_the_seeds_range() {
        let seeds = Spread {
            own: 1500.0,
            min: 1300.0,
            max: 1600.0,
        };
        let show = |v: f64| format!("{v:.0}");
        assert_eq!(seeds.show(show), "1500 [1300, 1600]");
        assert_eq!(rel(seeds.nearest(1550.0), 1550.0), 0.0, "within the range");
        assert_eq!(rel(seeds.nearest(1280.0), 1280.0), 20.0 / 1300.0);
        assert_eq!(rel(seeds.nearest(1680.0), 1680.0), 80.0 / 1600.0);
        let one = Spread {
            own: 1000.0,
            min: 1000.0,
            max: 1000.0,
        };
        assert_eq!(one.show(show), "1000", "no range when the seeds agree");
        assert_eq!(rel(one.nearest(1050.0), 1050.0), 0.05);
    }
}
