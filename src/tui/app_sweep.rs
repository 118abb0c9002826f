//! The sweep overlay's intentions: open a sweep of the selected pool's size (or the load),
//! walk the knobs, move the cursor, apply the point under it, close.

use super::super::knob::Knob;
use super::super::sweep::{KnobSweep, PointFeed, Sweep, value_text};
use super::{App, Overlay};
use crate::sim::pool::PoolKind;

impl App {
    /// `g`: a sweep of the selected pool's size, or of the load when that pool has no size
    /// (a thread per task) or the strategy does not use it.
    pub fn open_sweep(&mut self) {
        // Sweeps replay the simulation: a real run refuses `g` before it gets here.
        let Some(engine) = self.source.engine() else {
            return;
        };
        let pool = self
            .selected_pool_snapshot()
            .filter(|p| p.kind != PoolKind::PerTask && p.in_use);
        let knob = match pool {
            Some(p) => Some(Knob::PoolSize(p.id)),
            None => Knob::load(engine),
        };
        match knob {
            Some(knob) => self.start_sweep(knob, PointFeed::spawn),
            None => self.info(
                "nothing to sweep: Tab to a sized pool the strategy uses, or use an open or \
                 closed load"
                    .to_string(),
            ),
        }
    }

    /// Starts a sweep of `knob` fed by `source` (the background workers; tests pass their
    /// own) and shows it.
    pub fn start_sweep(&mut self, knob: Knob, source: impl FnOnce(&KnobSweep) -> PointFeed) {
        let Some(engine) = self.source.engine() else {
            return;
        };
        let beside = self.runs_alive();
        match KnobSweep::new(engine, knob).map(|plan| plan.share_with(beside)) {
            Ok(plan) => {
                let source = source(&plan);
                self.info(format!(
                    "sweeping {}: {} points of {} s each, seed {}",
                    plan.name,
                    plan.values.len(),
                    plan.duration.as_secs_f64(),
                    plan.seed
                ));
                self.sweep = Some(Sweep::new(plan, source));
                self.overlay = Overlay::Sweep;
            }
            Err(why) => self.info(why.to_string()),
        }
    }

    /// The sweep on screen, if any.
    pub fn sweep(&self) -> Option<&Sweep> {
        self.sweep.as_ref()
    }

    /// Tab: sweeps the next knob (each pool the strategy uses, then the load).
    pub fn sweep_next_knob(&mut self) {
        let (Some(sweep), Some(engine)) = (&self.sweep, self.source.engine()) else {
            return;
        };
        let knobs = Knob::all(engine);
        let at = knobs.iter().position(|&k| k == sweep.plan().knob);
        let next = at.map_or(0, |i| (i + 1) % knobs.len().max(1));
        if let Some(&knob) = knobs.get(next) {
            self.start_sweep(knob, PointFeed::spawn);
        }
    }

    /// Left / Right: the cursor one point along.
    pub fn move_sweep_cursor(&mut self, right: bool) {
        if let Some(sweep) = &mut self.sweep {
            sweep.move_cursor(right);
        }
    }

    /// Enter: sets the knob to the value under the cursor in the live run, with the same
    /// commands `+` / `-` and Up / Down send (so the log records it), and closes the sweep.
    pub fn apply_sweep_point(&mut self) {
        let Some(sweep) = self.sweep.take() else {
            return;
        };
        let Some(engine) = self.source.engine() else {
            return;
        };
        self.overlay = Overlay::None;
        let (knob, value) = (sweep.plan().knob, sweep.cursor_value());
        let commands = knob.commands(engine, value);
        if commands.is_empty() {
            let name = knob.name(engine);
            self.info(format!("{name} is already {}", value_text(knob, value)));
            return;
        }
        self.commands(&commands);
    }

    /// Esc: closes the sweep; points still computing are cancelled.
    pub fn close_sweep(&mut self) {
        self.sweep = None;
        self.overlay = Overlay::None;
    }

    /// Takes the sweep points that have arrived (never waits for one).
    pub(super) fn poll_sweep(&mut self) {
        if let Some(sweep) = &mut self.sweep {
            sweep.poll();
        }
    }

    /// Points of a sweep are still on their way: the frame loop keeps drawing its progress.
    pub(super) fn sweep_computing(&self) -> bool {
        self.sweep.as_ref().is_some_and(Sweep::computing)
    }
}
