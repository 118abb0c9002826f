//! The TUI's sweep: one knob (a pool's size or the load) played at a range of values around
//! its current one, each point a fresh run of the live scenario (every live change and fault
//! included) under the current strategy with the same seed. Points are computed on a pool of
//! background threads and arrive over a channel; the frame loop only ever looks at what has
//! arrived ([`Sweep::poll`] never waits), and dropping the sweep cancels what is left.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

use rayon::prelude::*;

use crate::flow::Fault;
use crate::report::RunReport;
use crate::scenario::{LoadMode, Scenario, ServiceId, Strategy};
use crate::sim::{Command, Engine};
use crate::sweep::PointReport;
use crate::time::Nanos;

use super::knob::{Knob, three_digits};

/// Points of a sweep besides the current value (fewer when the range holds fewer whole
/// numbers).
pub const POINTS: usize = 16;

/// The most simulated time one point plays: enough for a closed loop to settle (the first
/// answers of `tomcat-ceiling` come 1.7 s in, 3 % of it).
pub const MAX_POINT_TIME: Nanos = Nanos::from_secs(60);

/// Engine events a whole sweep should cost, about a second of one core: heavy scenarios play
/// shorter points (see [`point_duration`]).
pub const SWEEP_EVENTS: f64 = 4e6;

/// The simulated times a point may play, longest first: a few round values, so a sweep
/// opened a little later or earlier in the same run plays the same points.
const POINT_TIMES: [u64; 6] = [60, 45, 30, 20, 15, 10];

/// Events between two looks at the cancel flag.
const CHECK_EVERY: u64 = 4096;

/// What to play: a knob, its values, and the live run's scenario, strategy and faults.
#[derive(Debug, Clone)]
pub struct KnobSweep {
    pub knob: Knob,
    /// The knob's name on screen (`IronThread core`).
    pub name: String,
    /// The knob's value in the live run.
    pub current: f64,
    /// The values played, ascending; `current` is one of them.
    pub values: Vec<f64>,
    pub strategy: Strategy,
    pub seed: u64,
    /// Simulated time each point plays.
    pub duration: Nanos,
    scenario: Scenario,
    faults: Vec<(ServiceId, Fault)>,
    /// The runs sharing one run's limits while the points play (the live view's and the
    /// points played at once); see [`KnobSweep::share_with`].
    sharing: u64,
}

/// Why the live view cannot sweep a knob: it has no value in this run; names the knob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} cannot be swept in this run")]
pub struct NotSweepable(pub String);

impl KnobSweep {
    /// A sweep of `knob` around its value in `engine`, or why there is none.
    pub fn new(engine: &Engine, knob: Knob) -> Result<KnobSweep, NotSweepable> {
        let name = knob.name(engine);
        let Some(current) = knob.current(engine) else {
            return Err(NotSweepable(name));
        };
        let scenario = engine.scenario().clone();
        let values = values_within(knob, current, knob.live_bounds(engine));
        let values_len = values.len();
        Ok(KnobSweep {
            knob,
            values,
            current,
            strategy: engine.strategy(),
            seed: scenario.seed,
            duration: point_duration(engine, values_len),
            faults: live_faults(engine),
            scenario,
            name,
            sharing: 1,
        })
    }

    /// The runs that share one run's limits while the points play.
    pub fn sharing(&self) -> u64 {
        self.sharing
    }

    /// The points share one run's limits with `runs_beside` runs the live view plays, and
    /// with the other points played at once.
    pub fn share_with(mut self, runs_beside: u64) -> Self {
        self.sharing = runs_beside + threads() as u64;
        self
    }

    /// The index of the current value among [`KnobSweep::values`].
    pub fn current_index(&self) -> usize {
        self.values
            .iter()
            .position(|&v| v == self.current)
            .unwrap_or(0)
    }

    /// What each point plays, for the title: a load that ends by itself (runs, a batch) plays
    /// until it has, within [`KnobSweep::duration`]; any other load plays the duration.
    pub fn per_point(&self) -> String {
        let secs = self.duration.as_secs_f64();
        match self.scenario.load.mode {
            LoadMode::Runs { count } => format!("{count} runs per point (≤ {secs} s)"),
            LoadMode::Batch { count } => {
                format!("a batch of {count} per point (≤ {secs} s)")
            }
            _ => format!("{secs} s per point"),
        }
    }

    /// Plays point `i`: a fresh engine of the live scenario, its faults injected, the knob
    /// set to the point's value at t = 0 through the live commands. `None` when `cancel` was
    /// raised first (or the engine refused the value, which the bounds make unlikely).
    pub fn play(&self, i: usize, cancel: &AtomicBool) -> Option<PointReport> {
        let value = *self.values.get(i)?;
        let mut engine = Engine::new(&self.scenario, self.strategy);
        // The live view's one budget: the points hold their share beside its runs.
        engine.share_limits(self.sharing);
        for &(service, fault) in &self.faults {
            engine.apply(Command::InjectFault { service, fault }).ok()?;
        }
        for command in self.knob.commands(&engine, value) {
            engine.apply(command).ok()?;
        }
        let engine = play_until(engine, self.duration, cancel)?;
        let report = RunReport::new(engine.scenario(), &engine);
        Some(PointReport::new(
            vec![value_text(self.knob, value)],
            self.strategy,
            &report,
        ))
    }
}

/// How long each of `points` points plays: the scenario's duration up to
/// [`MAX_POINT_TIME`], shortened to a round [`POINT_TIMES`] value when the events the live
/// run has handled per simulated second say the sweep would cost more than
/// [`SWEEP_EVENTS`]. Points reach three times the knob's value, so the mean point is counted
/// at twice the live run's rate.
pub fn point_duration(engine: &Engine, points: usize) -> Nanos {
    let cap = engine.scenario().duration.min(MAX_POINT_TIME);
    let seen = engine.now().as_secs_f64();
    if seen < 1.0 {
        // Too early to tell what a second costs.
        return cap;
    }
    let per_second = engine.events_processed() as f64 / seen;
    let affordable = SWEEP_EVENTS / (2.0 * per_second * points.max(1) as f64);
    let secs = POINT_TIMES
        .iter()
        .copied()
        .find(|&s| s as f64 <= affordable)
        .unwrap_or(POINT_TIMES[POINT_TIMES.len() - 1]);
    cap.min(Nanos::from_secs(secs))
}

/// Faults the live engine has injected, by service.
pub fn live_faults(engine: &Engine) -> Vec<(ServiceId, Fault)> {
    engine
        .snapshot()
        .services
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.fault.map(|f| (ServiceId(i), f)))
        .collect()
}

/// Steps `engine` up to `limit` as a headless run does (every event due by then, then the
/// clock to `limit`), looking at `cancel` every few thousand events.
fn play_until(mut engine: Engine, limit: Nanos, cancel: &AtomicBool) -> Option<Engine> {
    let mut events = 0u64;
    while !engine.is_finished() {
        match engine.next_event_time() {
            // A halted engine (stalled, or at its cap) ends the point where it stopped.
            Some(t) if t <= limit && engine.step() => {}
            _ => break,
        }
        events += 1;
        if events.is_multiple_of(CHECK_EVERY) && cancel.load(Ordering::Relaxed) {
            return None;
        }
    }
    if !engine.is_finished() {
        engine.advance_to(limit);
    }
    Some(engine)
}

/// About [`POINTS`] values from a quarter of `current` to three times it, evenly spaced,
/// within the knob's bounds, with `current` itself among them; whole numbers for sizes
/// and clients, three significant digits for a rate.
pub fn values_around(knob: Knob, current: f64) -> Vec<f64> {
    values_within(knob, current, knob.bounds())
}

/// [`values_around`] within `(min, max)` (the bounds the knob has in a given run, see
/// [`Knob::live_bounds`]).
fn values_within(knob: Knob, current: f64, (min, max): (f64, f64)) -> Vec<f64> {
    let base = current.max(min);
    let lo = (base / 4.0).clamp(min, max);
    let hi = (base * 3.0).clamp(min, max);
    let round = |v: f64| {
        if knob.whole() {
            v.round()
        } else {
            three_digits(v)
        }
    };
    let steps = POINTS - 1;
    let mut values: Vec<f64> = (0..=steps)
        .map(|k| round(lo + (hi - lo) * k as f64 / steps as f64).clamp(min, max))
        .collect();
    values.push(current);
    values.sort_by(f64::total_cmp);
    values.dedup();
    values
}

/// A value as `--set` writes it: `12` for a size, `7.81` for a rate.
pub fn value_text(knob: Knob, value: f64) -> String {
    if knob.whole() {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// A point that arrived: its index in the plan and its row.
pub type Arrival = (usize, PointReport);

/// A sweep on screen: the plan, the points that have arrived, the cursor.
#[derive(Debug)]
pub struct Sweep {
    plan: KnobSweep,
    points: Vec<Option<PointReport>>,
    cursor: usize,
    /// Where points come from while some are missing; dropping it cancels the work.
    source: Option<PointFeed>,
}

/// The receiving end of a sweep's points and the switch that stops its workers.
#[derive(Debug)]
pub struct PointFeed {
    points: Receiver<Arrival>,
    cancel: Arc<AtomicBool>,
}

impl Drop for PointFeed {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl PointFeed {
    /// A source fed by `points`; `cancel` is raised when the sweep is dropped.
    pub fn new(points: Receiver<Arrival>, cancel: Arc<AtomicBool>) -> PointFeed {
        PointFeed { points, cancel }
    }

    /// Starts computing `plan` in the background: a thread that plays the points on a
    /// pool of all cores but one (the frame loop keeps a core), sending each as it ends.
    pub fn spawn(plan: &KnobSweep) -> PointFeed {
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let (plan, stop) = (plan.clone(), Arc::clone(&cancel));
        // Should the thread not start, its sender is dropped and the sweep says it stopped.
        let _ = std::thread::Builder::new()
            .name("sweep".into())
            .spawn(move || compute(&plan, &stop, &tx));
        PointFeed::new(rx, cancel)
    }
}

/// The points played at once: every core but the one the frame loop keeps.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .saturating_sub(1)
        .max(1)
}

/// Plays every point of `plan` until `cancel`, sending each as it finishes.
fn compute(plan: &KnobSweep, cancel: &AtomicBool, tx: &Sender<Arrival>) {
    let threads = threads();
    let play = |tx: &mut Sender<Arrival>, i: usize| {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        if let Some(point) = plan.play(i, cancel) {
            // The sweep was closed if nobody receives: the other points see `cancel`.
            let _ = tx.send((i, point));
        }
    };
    let indices = 0..plan.values.len();
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(|| indices.into_par_iter().for_each_with(tx.clone(), play)),
        Err(_) => indices.for_each(|i| play(&mut tx.clone(), i)),
    }
}

impl Sweep {
    /// A sweep of `plan` fed by `source`, the cursor on the current value.
    pub fn new(plan: KnobSweep, source: PointFeed) -> Sweep {
        Sweep {
            points: vec![None; plan.values.len()],
            cursor: plan.current_index(),
            plan,
            source: Some(source),
        }
    }

    /// Takes the points that have arrived, without waiting for any.
    pub fn poll(&mut self) {
        let Some(source) = &self.source else { return };
        loop {
            match source.points.try_recv() {
                Ok((i, point)) => {
                    if let Some(slot) = self.points.get_mut(i) {
                        *slot = Some(point);
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.source = None;
                    break;
                }
            }
        }
        if self.done() == self.points.len() {
            self.source = None;
        }
    }

    /// Points still on their way.
    pub fn computing(&self) -> bool {
        self.source.is_some()
    }

    /// Points that have arrived.
    pub fn done(&self) -> usize {
        self.points.iter().filter(|p| p.is_some()).count()
    }

    pub fn plan(&self) -> &KnobSweep {
        &self.plan
    }

    /// Every point has arrived, and all gave the same goodput, p99 and outcomes: the knob
    /// changes nothing for this load (one that never fills the pool), which a flat chart
    /// alone does not say.
    pub fn all_alike(&self) -> bool {
        let figures = |p: &Option<PointReport>| {
            p.as_ref().map(|p| {
                let outcomes = (p.success, p.partial, p.failed, p.timeout, p.refused);
                (p.goodput_rps, p.p99_ms, outcomes)
            })
        };
        let mut all = self.points.iter().map(figures);
        match all.next() {
            Some(Some(first)) => self.points.len() > 1 && all.all(|f| f == Some(first)),
            _ => false,
        }
    }

    /// Every point in the plan's order, `None` while still computing.
    pub fn points(&self) -> &[Option<PointReport>] {
        &self.points
    }

    /// The point under the cursor (from 0).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The value under the cursor.
    pub fn cursor_value(&self) -> f64 {
        self.plan
            .values
            .get(self.cursor)
            .copied()
            .unwrap_or(self.plan.current)
    }

    /// Moves the cursor one point right (true) or left, stopping at the ends.
    pub fn move_cursor(&mut self, right: bool) {
        let last = self.plan.values.len().saturating_sub(1);
        self.cursor = if right {
            (self.cursor + 1).min(last)
        } else {
            self.cursor.saturating_sub(1)
        };
    }
}

/// Sources that tests feed by hand, so a sweep's state on screen does not depend on when
/// background threads run.
#[cfg(test)]
pub mod testing {
    use super::*;

    /// A source holding `indices` of `plan`, played on this thread, with the sender that
    /// keeps it open (drop it and the sweep has ended) and its cancel flag.
    pub fn played(
        plan: &KnobSweep,
        indices: impl IntoIterator<Item = usize>,
    ) -> (PointFeed, Sender<Arrival>, Arc<AtomicBool>) {
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        for i in indices {
            let point = plan.play(i, &cancel).expect("the point plays");
            tx.send((i, point)).expect("the receiver is here");
        }
        let source = PointFeed::new(rx, Arc::clone(&cancel));
        (source, tx, cancel)
    }

    /// A source with every point of `plan`, already complete.
    pub fn complete(plan: &KnobSweep) -> PointFeed {
        played(plan, 0..plan.values.len()).0
    }
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
