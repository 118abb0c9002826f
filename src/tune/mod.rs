//! Tuning: the cheapest setting of some `--set` values that meets every goal. Points are
//! full runs with the preset's seed (as a sweep's), played in parallel; one setting is
//! searched on a coarse grid refined wherever a goal changes between neighbours (a goal that
//! is monotone in the setting is bisected that way), two or more on their whole grid. The
//! winner is verified by full runs on more seeds; the Pareto front and why the next cheaper
//! point fails are reported beside it.

pub mod goal;
mod output;

use rayon::prelude::*;
use serde_json::Value;

pub use goal::{Direction, GOAL_FORM, Goal};
pub use output::{figure, table};

use crate::progress::{self, Progress};
use crate::report::RunReport;
use crate::report::figures::lookup;
use crate::scenario::{self, LoadMode, PhaseChange, Scenario, Strategy};
use crate::sweep::Axis;

/// The most candidates verified before the tune gives up on the seeds.
const MAX_CANDIDATES: usize = 16;

/// What is minimised.
#[derive(Debug, Clone, PartialEq)]
pub enum Minimise {
    /// The sum of the varied values.
    Settings,
    /// Every pool's `max` threads (Tomcat's included), as configured.
    Threads,
    /// Thread stacks at the peak, MiB (`peak_thread_memory_mib`).
    Memory,
    /// Any figure of the report.
    Path(String),
}

impl Minimise {
    pub fn parse(text: &str) -> Minimise {
        match text {
            "settings" => Minimise::Settings,
            "threads" => Minimise::Threads,
            "memory" => Minimise::Memory,
            path => Minimise::Path(path.to_owned()),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Minimise::Settings => "settings".into(),
            Minimise::Threads => "threads".into(),
            Minimise::Memory => "memory MiB".into(),
            Minimise::Path(p) => p.clone(),
        }
    }
}

/// A tune: the preset and its flags, the axes, the goals, the cost.
#[derive(Debug, Clone)]
pub struct TunePlan {
    pub preset: String,
    pub set: Vec<String>,
    pub seed: Option<u64>,
    pub duration: Option<crate::time::Nanos>,
    pub strategy: Option<Strategy>,
    pub axes: Vec<Axis>,
    pub goals: Vec<Goal>,
    pub cost: Minimise,
    /// Play every point rather than refine.
    pub exhaustive: bool,
    /// Seeds the winner must meet the goals on (its own first).
    pub verify_seeds: u32,
}

/// One evaluated point.
#[derive(Debug, Clone)]
pub struct TunePoint {
    pub values: Vec<String>,
    pub cost: f64,
    /// Each goal's figure (NaN when the report has none).
    pub figures: Vec<f64>,
    pub meets: bool,
}

impl TunePoint {
    fn miss(&self, goals: &[Goal]) -> f64 {
        goals
            .iter()
            .zip(&self.figures)
            .map(|(g, x)| if x.is_nan() { 1.0 } else { g.miss(*x) })
            .sum()
    }
}

/// What a tune found.
#[derive(Debug, Clone)]
pub struct Tuned {
    pub preset: String,
    pub vary: Vec<String>,
    pub goals: Vec<Goal>,
    pub cost: Minimise,
    /// Every point played, in grid order.
    pub points: Vec<TunePoint>,
    pub grid: usize,
    /// The cheapest point that meets every goal and passed verification.
    pub winner: Option<usize>,
    /// The verification runs of the winner: (seed, figures, meets).
    pub verified: Vec<(u64, Vec<f64>, bool)>,
    /// Candidates cheaper than the winner that met the goals on the preset's seed but not on
    /// every verification seed.
    pub rejected: Vec<(usize, u64)>,
    /// With no winner: the point closest to meeting every goal.
    pub best: Option<usize>,
    pub interrupted: bool,
}

/// Why a tune could not start.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("{0}")]
    Scenario(Box<scenario::ScenarioError>),
    #[error("--vary {path}={value}: {error}")]
    TunePoint {
        path: String,
        value: String,
        error: Box<scenario::ScenarioError>,
    },
    #[error("--goal {goal}: {why}")]
    Goal { goal: String, why: String },
}

impl TunePlan {
    fn total(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    fn values_at(&self, mut i: usize) -> Vec<String> {
        let mut values = vec![String::new(); self.axes.len()];
        for (k, axis) in self.axes.iter().enumerate().rev() {
            values[k] = axis.values[i % axis.values.len()].clone();
            i /= axis.values.len();
        }
        values
    }

    /// The scenario of a point, with a seed.
    pub fn scenario(&self, values: &[String], seed: Option<u64>) -> Result<Scenario, TuneError> {
        let mut set = self.set.clone();
        // `a,b=SPEC` sets both paths to each value (a pool's core and max together).
        for (axis, v) in self.axes.iter().zip(values) {
            for path in axis.path.split(',') {
                set.push(format!("{}={v}", path.trim()));
            }
        }
        let mut s = scenario::load(&self.preset, &set).map_err(|e| {
            let text = e.to_string();
            let names = |a: &Axis| a.path.split(',').any(|p| text.contains(p.trim()));
            match self.axes.iter().zip(values).find(|(a, _)| names(a)) {
                Some((a, v)) => TuneError::TunePoint {
                    path: a.path.clone(),
                    value: v.clone(),
                    error: Box::new(e),
                },
                None => TuneError::Scenario(Box::new(e)),
            }
        })?;
        if let Some(seed) = seed.or(self.seed) {
            s.seed = seed;
        }
        if let Some(d) = self.duration {
            s.duration = d;
        }
        Ok(s)
    }

    /// Checks every point loads and that the goals can be measured, before anything plays.
    pub fn check(&self) -> Result<(), TuneError> {
        let first = self.scenario(&self.values_at(0), None)?;
        for i in 1..self.total() {
            self.scenario(&self.values_at(i), None)?;
        }
        if let Some(g) = self.goals.iter().find(|g| g.needs_phase())
            && last_phase(&first).is_none()
        {
            return Err(TuneError::Goal {
                goal: g.text.clone(),
                why: "the preset has no [[load.phases]] to recover from: add --spike".into(),
            });
        }
        Ok(())
    }
}

/// The last load phase's time (s) and, for an open load, its rate.
fn last_phase(s: &Scenario) -> Option<(f64, Option<f64>)> {
    let p = s.load.phases.last()?;
    let rate = match (&s.load.mode, &p.change) {
        (LoadMode::Open { .. }, PhaseChange::Rate(r)) => Some(*r),
        _ => None,
    };
    Some((p.at.as_secs_f64(), rate))
}

/// What `recovers` reads from a scenario: the first and the last load phase's times (s), and
/// the last phase's open rate.
pub fn phases_of(s: &Scenario) -> (Option<(f64, f64)>, Option<f64>) {
    let first = s.load.phases.first().map(|p| p.at.as_secs_f64());
    let last = last_phase(s);
    (first.zip(last.map(|l| l.0)), last.and_then(|l| l.1))
}

/// Plays one point on `seed` (the plan's when `None`): its report as JSON. `None` when
/// Ctrl-C stopped it or it stopped at a cap.
fn play(plan: &TunePlan, values: &[String], seed: Option<u64>) -> Option<(Value, Scenario)> {
    if progress::interrupted() {
        return None;
    }
    let s = plan.scenario(values, seed).ok()?;
    let strategy = plan.strategy.unwrap_or(s.strategy.default);
    let engine = crate::sim::Engine::new(&s, strategy).unwatched();
    let (engine, complete) =
        progress::play_engine(engine, s.duration, None, &mut progress::unobserved);
    if !complete {
        return None;
    }
    let report = serde_json::to_value(RunReport::new(&s, &engine)).ok()?;
    Some((report, s))
}

fn evaluate(plan: &TunePlan, values: Vec<String>, report: &Value, s: &Scenario) -> TunePoint {
    let phases = phases_of(s);
    let figures: Vec<f64> = plan
        .goals
        .iter()
        .map(|g| g.measure(report, phases.0, phases.1).unwrap_or(f64::NAN))
        .collect();
    let meets = plan
        .goals
        .iter()
        .zip(&figures)
        .all(|(g, x)| !x.is_nan() && g.holds(*x));
    let cost = match &plan.cost {
        Minimise::Settings => values.iter().filter_map(|v| v.parse::<f64>().ok()).sum(),
        Minimise::Threads => report
            .get("pools")
            .and_then(Value::as_array)
            .map_or(0.0, |ps| {
                ps.iter()
                    .filter_map(|p| p.get("max").and_then(Value::as_f64))
                    .sum()
            }),
        Minimise::Memory => lookup(report, "peak_thread_memory_mib").unwrap_or(f64::NAN),
        Minimise::Path(p) => lookup(report, p).unwrap_or(f64::NAN),
    };
    TunePoint {
        values,
        cost,
        figures,
        meets,
    }
}

/// Plays the grid indices `todo` in parallel into `done`.
fn play_all(
    plan: &TunePlan,
    todo: &[usize],
    done: &mut [Option<TunePoint>],
    bar: Option<&Progress>,
) -> bool {
    let results: Vec<(usize, Option<TunePoint>)> = todo
        .par_iter()
        .map(|&i| {
            let values = plan.values_at(i);
            let p = play(plan, &values, None).map(|(r, s)| evaluate(plan, values, &r, &s));
            if let Some(b) = bar {
                b.inc();
            }
            (i, p)
        })
        .collect();
    let mut all = true;
    for (i, p) in results {
        all &= p.is_some();
        done[i] = p;
    }
    all
}

/// Whether two points differ in any goal's verdict.
fn differ(a: &TunePoint, b: &TunePoint, goals: &[Goal]) -> bool {
    goals.iter().enumerate().any(|(k, g)| {
        let ha = !a.figures[k].is_nan() && g.holds(a.figures[k]);
        let hb = !b.figures[k].is_nan() && g.holds(b.figures[k]);
        ha != hb
    })
}

/// Runs the tune.
pub fn run(plan: &TunePlan, bar: Option<&Progress>) -> Tuned {
    let n = plan.total();
    let mut done: Vec<Option<TunePoint>> = vec![None; n];
    let mut complete = true;
    if plan.exhaustive || plan.axes.len() != 1 || n <= 17 {
        let all: Vec<usize> = (0..n).collect();
        complete &= play_all(plan, &all, &mut done, bar);
    } else {
        // A coarse grid of about 17 points, then every gap whose ends differ in a goal's
        // verdict, split again until neighbours agree or touch.
        let stride = n.div_ceil(16);
        let mut todo: Vec<usize> = (0..n).step_by(stride).collect();
        if todo.last() != Some(&(n - 1)) {
            todo.push(n - 1);
        }
        loop {
            complete &= play_all(plan, &todo, &mut done, bar);
            if !complete {
                break;
            }
            let played: Vec<usize> = (0..n).filter(|i| done[*i].is_some()).collect();
            todo.clear();
            for w in played.windows(2) {
                let (a, b) = (w[0], w[1]);
                if b > a + 1
                    && let (Some(pa), Some(pb)) = (&done[a], &done[b])
                    && differ(pa, pb, &plan.goals)
                {
                    let step = (b - a).div_ceil(4).max(1);
                    todo.extend((a + step..b).step_by(step));
                }
            }
            if todo.is_empty() {
                break;
            }
        }
    }
    let mut tuned = finish(plan, played(&done), n, !complete);
    // Candidates that failed on another seed leave the points between them and the winner
    // unplayed: play those too (one setting), cheapest first, and verify again.
    while complete && plan.axes.len() == 1 && !plan.exhaustive {
        let indices: Vec<usize> = (0..n).filter(|i| done[*i].is_some()).collect();
        let Some(w) = tuned.winner.map(|w| indices[w]) else {
            break;
        };
        let from = tuned.rejected.iter().map(|(i, _)| indices[*i]).max();
        let gap: Vec<usize> = match from {
            Some(r) if r < w => (r + 1..w).filter(|i| done[*i].is_none()).collect(),
            _ => Vec::new(),
        };
        if gap.is_empty() {
            break;
        }
        complete &= play_all(plan, &gap, &mut done, bar);
        tuned = finish(plan, played(&done), n, !complete);
    }
    tuned
}

fn played(done: &[Option<TunePoint>]) -> Vec<TunePoint> {
    done.iter().flatten().cloned().collect()
}

/// The winner: the cheapest point that meets every goal and keeps meeting them on the
/// verification seeds.
fn finish(plan: &TunePlan, points: Vec<TunePoint>, grid: usize, interrupted: bool) -> Tuned {
    let mut order: Vec<usize> = (0..points.len()).filter(|i| points[*i].meets).collect();
    order.sort_by(|a, b| points[*a].cost.total_cmp(&points[*b].cost).then(a.cmp(b)));
    let mut winner = None;
    let mut verified = Vec::new();
    let mut rejected = Vec::new();
    let base_seed = plan
        .scenario(&plan.values_at(0), None)
        .map_or(1, |s| s.seed);
    // Cheapest first; a candidate that fails on another seed gives way to the next.
    for &i in order.iter().take(MAX_CANDIDATES) {
        let seeds: Vec<u64> = (0..u64::from(plan.verify_seeds.max(1)))
            .map(|k| base_seed.wrapping_add(k))
            .collect();
        let runs: Vec<(u64, Vec<f64>, bool)> = seeds
            .par_iter()
            .filter_map(|&seed| {
                let (r, s) = play(plan, &points[i].values, Some(seed))?;
                let p = evaluate(plan, points[i].values.clone(), &r, &s);
                Some((seed, p.figures, p.meets))
            })
            .collect();
        let failing = runs.iter().find(|r| !r.2).map(|r| r.0);
        match failing {
            None if runs.len() == seeds.len() => {
                winner = Some(i);
                verified = runs;
                break;
            }
            Some(seed) => rejected.push((i, seed)),
            None => break,
        }
    }
    let best = (winner.is_none())
        .then(|| {
            (0..points.len()).min_by(|a, b| {
                points[*a]
                    .miss(&plan.goals)
                    .total_cmp(&points[*b].miss(&plan.goals))
            })
        })
        .flatten();
    Tuned {
        preset: plan.preset.clone(),
        vary: plan.axes.iter().map(|a| a.path.clone()).collect(),
        goals: plan.goals.clone(),
        cost: plan.cost.clone(),
        points,
        grid,
        winner,
        verified,
        rejected,
        best,
        interrupted: interrupted || progress::interrupted(),
    }
}

impl Tuned {
    /// The points no other point beats on the cost and on every goal's figure at once.
    pub fn front(&self) -> Vec<usize> {
        let better = |a: &TunePoint, b: &TunePoint| {
            // a dominates b
            let mut strictly = a.cost < b.cost;
            if a.cost > b.cost {
                return false;
            }
            for (k, g) in self.goals.iter().enumerate() {
                let (x, y) = (a.figures[k], b.figures[k]);
                if x.is_nan() || y.is_nan() {
                    return false;
                }
                let (worse, better) = match g.op {
                    Direction::AtMost => (x > y, x < y),
                    Direction::AtLeast => (x < y, x > y),
                };
                if worse {
                    return false;
                }
                strictly |= better;
            }
            strictly
        };
        let mut front: Vec<usize> = (0..self.points.len())
            .filter(|&i| !self.points.iter().any(|q| better(q, &self.points[i])))
            .collect();
        front.sort_by(|a, b| self.points[*a].cost.total_cmp(&self.points[*b].cost));
        front
    }

    /// The most expensive point cheaper than the winner (the one the winner beats).
    pub fn next_cheaper(&self) -> Option<usize> {
        let w = &self.points[self.winner?];
        (0..self.points.len())
            .filter(|&i| self.points[i].cost < w.cost)
            .max_by(|a, b| self.points[*a].cost.total_cmp(&self.points[*b].cost))
    }

    /// The `--set` that gives the winner.
    pub fn winner_sets(&self) -> Vec<String> {
        self.winner.map_or_else(Vec::new, |w| {
            self.vary
                .iter()
                .zip(&self.points[w].values)
                .flat_map(|(p, v)| p.split(',').map(move |p| format!("{}={v}", p.trim())))
                .collect()
        })
    }
}
