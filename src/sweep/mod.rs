//! Sweeps: one preset played at every point of a grid of `--set` values, each point a full
//! run with the same seed (common random numbers, so differences between points are the
//! knob's and not the dice's). Points run in parallel; results keep the grid's order.

mod output;
mod spec;

use rayon::prelude::*;
use serde::Serialize;

use crate::progress::{self, Progress};
use crate::report::RunReport;
use crate::scenario::{self, Scenario, ScenarioError, Strategy};
use crate::time::Nanos;

pub use output::{csv, table};
pub use spec::{Axis, MAX_POINTS, SpecError, SpecReason, VARY_FORM, parse_vary};

/// What to sweep: the preset with its flags, the axes, the strategies.
#[derive(Debug, Clone)]
pub struct Plan {
    pub preset: String,
    pub set: Vec<String>,
    pub seed: Option<u64>,
    pub duration: Option<Nanos>,
    pub axes: Vec<Axis>,
    pub strategies: Vec<Strategy>,
}

/// One point of the grid ready to play.
#[derive(Debug, Clone)]
pub struct Point {
    pub values: Vec<String>,
    pub scenario: Scenario,
}

/// Why a sweep could not start.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    Scenario(Box<ScenarioError>),
    /// A value of the right form that the scenario refuses: its error says why.
    #[error("--vary {path}={value}: {error}")]
    Point {
        path: String,
        value: String,
        error: Box<ScenarioError>,
    },
    /// A varied field that another `--vary` or a `--set` sets too.
    #[error("--vary {path}: {error}")]
    Twice {
        path: String,
        error: Box<ScenarioError>,
    },
    #[error(
        "--vary: the grid has {0} points, more than the {MAX_POINTS} a sweep may have; vary fewer values"
    )]
    TooMany(usize),
}

/// The result of a sweep; `partial` when Ctrl-C stopped it before every point finished.
#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub preset: String,
    pub scenario: String,
    pub seed: u64,
    /// The simulated time each point plays at most (the preset's or `--duration`); a finite
    /// load's point ends at its last answer, its own `simulated_s`.
    pub duration_s: f64,
    pub vary: Vec<String>,
    pub strategies: Vec<Strategy>,
    /// Ctrl-C stopped the sweep before every point finished.
    pub interrupted: bool,
    pub points: Vec<PointReport>,
}

/// One finished point under one strategy.
#[derive(Debug, Clone, Serialize)]
pub struct PointReport {
    /// The varied values, in `vary`'s order, as given to `--set`; JSON writes a number as a
    /// number (`200`, `0.5`) and anything else as a string (`"virtual"`).
    #[serde(serialize_with = "numbers_as_numbers")]
    pub values: Vec<String>,
    pub strategy: Strategy,
    /// The simulated time this point played: the duration, or less for a finite load.
    pub simulated_s: f64,
    /// Answered requests (success + partial) per simulated second.
    pub goodput_rps: f64,
    /// With load phases: the goodput of the last phase (what theory predicts for); null
    /// without.
    pub last_phase_goodput_rps: Option<f64>,
    /// Responses of any outcome per simulated second.
    pub throughput_rps: f64,
    pub success: u64,
    pub partial: u64,
    pub failed: u64,
    pub timeout: u64,
    pub refused: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub bottleneck: Option<String>,
    /// Theory's ceiling: the lowest pool ceiling (threads / hold time).
    pub ceiling_rps: Option<f64>,
    /// Theory's throughput for this load: Little's law for a closed loop,
    /// X = min(N / (R0 + Z), ceiling); min(λ, ceiling) for an open one.
    pub predicted_rps: Option<f64>,
}

/// Values that read as numbers serialised as numbers, the others as strings.
fn numbers_as_numbers<S: serde::Serializer>(values: &[String], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(values.len()))?;
    for v in values {
        if let Ok(n) = v.parse::<i64>() {
            seq.serialize_element(&n)?;
        } else if let Some(x) = v.parse::<f64>().ok().filter(|x| x.is_finite()) {
            seq.serialize_element(&x)?;
        } else {
            seq.serialize_element(v)?;
        }
    }
    seq.end()
}

/// Answered requests (success + partial) per simulated second.
pub fn goodput_rps(r: &RunReport) -> f64 {
    if r.simulated_s > 0.0 {
        (r.requests.success + r.requests.partial) as f64 / r.simulated_s
    } else {
        0.0
    }
}

impl Plan {
    /// Every point of the grid (first axis outermost), each scenario loaded and checked.
    pub fn points(&self) -> Result<Vec<Point>, SweepError> {
        let total = self.axes.iter().map(|a| a.values.len()).product::<usize>();
        if total > MAX_POINTS {
            return Err(SweepError::TooMany(total));
        }
        let mut points = Vec::with_capacity(total);
        for i in 0..total {
            let values = self.values_at(i);
            points.push(Point {
                scenario: self.load(&values)?,
                values,
            });
        }
        Ok(points)
    }

    /// What playing `point` under one of the plan's strategies costs, estimated as `run`
    /// estimates a run: the one estimate that refuses a point too large and, summed, the
    /// whole sweep.
    pub fn point_cost(&self, point: &Point) -> scenario::Cost {
        let s = &point.scenario;
        let served = crate::theory::served_rps(s, &self.strategies);
        scenario::estimate_cost(s, s.duration, served)
    }

    fn values_at(&self, mut i: usize) -> Vec<String> {
        let mut values = vec![String::new(); self.axes.len()];
        for (k, axis) in self.axes.iter().enumerate().rev() {
            values[k] = axis.values[i % axis.values.len()].clone();
            i /= axis.values.len();
        }
        values
    }

    fn load(&self, values: &[String]) -> Result<Scenario, SweepError> {
        let mut set = self.set.clone();
        for (axis, v) in self.axes.iter().zip(values) {
            set.push(format!("{}={v}", axis.path));
        }
        let mut s =
            scenario::load(&self.preset, &set).map_err(|error| self.blame(values, error))?;
        if let Some(seed) = self.seed {
            s.seed = seed;
        }
        if let Some(d) = self.duration {
            s.duration = d;
        }
        Ok(s)
    }

    /// A scenario error that an axis's override caused names that `--vary`.
    fn blame(&self, values: &[String], error: ScenarioError) -> SweepError {
        let text = error.to_string();
        if matches!(error, ScenarioError::SetTwice { .. })
            && let Some(axis) = self.axes.iter().find(|a| text.contains(&a.path))
        {
            return SweepError::Twice {
                path: axis.path.clone(),
                error: Box::new(error),
            };
        }
        match self
            .axes
            .iter()
            .zip(values)
            .find(|(a, _)| text.contains(&a.path))
        {
            Some((axis, v)) => SweepError::Point {
                path: axis.path.clone(),
                value: v.clone(),
                error: Box::new(error),
            },
            None => SweepError::Scenario(Box::new(error)),
        }
    }
}

/// Plays every point under every strategy in parallel. Ctrl-C stops the points not yet
/// finished; the report then holds the finished ones and says it is partial.
pub fn run(plan: &Plan, points: &[Point], progress: Option<&Progress>) -> SweepReport {
    let jobs: Vec<(&Point, Strategy)> = points
        .iter()
        .flat_map(|p| plan.strategies.iter().map(move |&s| (p, s)))
        .collect();
    // The runs played at once share one run's limits (of requests and calls in flight, and
    // so of memory).
    let at_once = rayon::current_num_threads().clamp(1, jobs.len().max(1)) as u64;
    let results: Vec<Option<PointReport>> = jobs
        .par_iter()
        .map(|&(point, strategy)| {
            let done = play_point(point, strategy, at_once);
            if let Some(p) = progress {
                p.inc();
            }
            done
        })
        .collect();
    let interrupted = results.iter().any(Option::is_none);
    let first = points.first().map(|p| &p.scenario);
    SweepReport {
        preset: first.map(|s| s.source.clone()).unwrap_or_default(),
        scenario: first.map(|s| s.name.clone()).unwrap_or_default(),
        seed: first.map_or(0, |s| s.seed),
        duration_s: first.map_or(0.0, |s| s.duration.as_secs_f64()),
        vary: plan.axes.iter().map(|a| a.path.clone()).collect(),
        strategies: plan.strategies.clone(),
        interrupted,
        points: results.into_iter().flatten().collect(),
    }
}

fn play_point(point: &Point, strategy: Strategy, at_once: u64) -> Option<PointReport> {
    if progress::interrupted() {
        return None;
    }
    let s = &point.scenario;
    let mut engine = crate::sim::Engine::new(s, strategy).unwatched();
    engine.share_limits(at_once);
    let (engine, complete) =
        progress::play_engine(engine, s.duration, None, &mut progress::unobserved);
    if !complete {
        return None;
    }
    let r = RunReport::new(s, &engine);
    Some(PointReport::new(point.values.clone(), strategy, &r))
}

impl PointReport {
    /// The goodput its chart shows: the last load phase's when the load has phases (theory's
    /// lines are for that load), else the whole run's.
    pub fn charted_goodput(&self) -> f64 {
        self.last_phase_goodput_rps.unwrap_or(self.goodput_rps)
    }

    /// The row of one finished run: `values` are the varied values as given to `--set`.
    pub fn new(values: Vec<String>, strategy: Strategy, r: &RunReport) -> PointReport {
        PointReport {
            values,
            strategy,
            simulated_s: r.simulated_s,
            goodput_rps: goodput_rps(r),
            last_phase_goodput_rps: r.theory.last_phase_goodput_rps,
            throughput_rps: r.throughput_rps,
            success: r.requests.success,
            partial: r.requests.partial,
            failed: r.requests.failed,
            timeout: r.requests.timeout,
            refused: r.requests.refused,
            p50_ms: r.latency_ms.p50,
            p99_ms: r.latency_ms.p99,
            bottleneck: r.theory.prediction.bottleneck.clone(),
            ceiling_rps: r.theory.prediction.ceiling_rps,
            predicted_rps: r.theory.prediction.throughput_rps,
        }
    }
}
