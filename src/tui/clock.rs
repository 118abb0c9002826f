//! Wall-clock to simulated-time pacing.
//!
//! Each frame the loop tells the [`Clock`] how much wall time passed; the clock answers with an
//! [`Advance`]: hold (paused), move the simulated clock by elapsed x speed, or, at "max", run
//! as many events as fit in a frame budget. [`catch_up`] and [`run_for`] then move an engine
//! while a [`Budget`] lasts, so a heavy scenario slows the simulation down instead of freezing
//! the keyboard. Nothing here reads the wall clock except [`Budget::wall`]: tests inject
//! durations and event budgets.

use std::time::{Duration, Instant};

use crate::sim::Engine;
use crate::time::Nanos;

/// The speed ladder `<` and `>` walk; one step past the last is "max".
pub const SPEEDS: [f64; 10] = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0];

/// Engine work allowed per frame, shared by every engine driven.
pub const FRAME_BUDGET: Duration = Duration::from_millis(10);

/// The most wall time one frame counts: after a stall (a suspended terminal, a slow frame) the
/// simulated clock does not leap.
pub const MAX_FRAME: Duration = Duration::from_millis(250);

/// How fast simulated time runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// Simulated seconds per wall second.
    Times(f64),
    /// As many events as fit in the frame budget.
    Max,
}

impl std::fmt::Display for Speed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Speed::Times(x) => write!(f, "{x}x"),
            Speed::Max => f.write_str("max"),
        }
    }
}

/// What to do with the engines this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Advance {
    /// Paused: simulated time stands still.
    Hold,
    /// Move simulated time forward by this much.
    By(Nanos),
    /// Run events until the frame budget is spent.
    AsFastAsPossible,
}

/// The speed setting and the pause switch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// Index into [`SPEEDS`]; `SPEEDS.len()` is max.
    rung: usize,
    paused: bool,
}

impl Default for Clock {
    /// 1x, running.
    fn default() -> Self {
        Clock {
            rung: 3,
            paused: false,
        }
    }
}

impl Clock {
    pub fn speed(&self) -> Speed {
        SPEEDS
            .get(self.rung)
            .map_or(Speed::Max, |&x| Speed::Times(x))
    }

    /// One rung faster; false when already at max.
    pub fn speed_up(&mut self) -> bool {
        let faster = self.rung < SPEEDS.len();
        if faster {
            self.rung += 1;
        }
        faster
    }

    /// One rung slower; false when already at the slowest.
    pub fn slow_down(&mut self) -> bool {
        let slower = self.rung > 0;
        if slower {
            self.rung -= 1;
        }
        slower
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
    }

    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// What this frame should do after `elapsed` wall time.
    pub fn plan(&self, elapsed: Duration) -> Advance {
        if self.paused {
            return Advance::Hold;
        }
        match self.speed() {
            Speed::Max => Advance::AsFastAsPossible,
            Speed::Times(x) => Advance::By(Nanos::from_secs_f64(
                elapsed.min(MAX_FRAME).as_secs_f64() * x,
            )),
        }
    }
}

/// How much engine work one frame may do. The wall budget checks the time every few events
/// (an `Instant::now` per event would cost more than many events).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    kind: BudgetKind,
    checks: u32,
}

#[derive(Debug, Clone, Copy)]
enum BudgetKind {
    Until(Instant),
    Events(u64),
}

/// How to make a fresh [`Budget`] for each engine of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetSpec {
    /// This much wall time, split between the engines driven.
    Wall(Duration),
    /// This many events per engine (deterministic, for tests).
    Events(u64),
}

impl BudgetSpec {
    /// A budget for one of `engines` engines driven this frame.
    pub fn start(self, engines: usize) -> Budget {
        match self {
            BudgetSpec::Wall(total) => {
                let share = total / u32::try_from(engines.max(1)).unwrap_or(u32::MAX);
                Budget::wall(share)
            }
            BudgetSpec::Events(n) => Budget::events(n),
        }
    }
}

impl Budget {
    /// Until `d` of wall time has passed from now.
    pub fn wall(d: Duration) -> Budget {
        Budget {
            kind: BudgetKind::Until(Instant::now() + d),
            checks: 0,
        }
    }

    /// `n` events.
    pub fn events(n: u64) -> Budget {
        Budget {
            kind: BudgetKind::Events(n),
            checks: 0,
        }
    }

    /// Takes one event from the budget; true when none was left.
    pub fn spent(&mut self) -> bool {
        match &mut self.kind {
            BudgetKind::Events(n) => {
                if *n == 0 {
                    return true;
                }
                *n -= 1;
                false
            }
            BudgetKind::Until(deadline) => {
                self.checks = self.checks.wrapping_add(1);
                self.checks.is_multiple_of(16) && Instant::now() >= *deadline
            }
        }
    }
}

/// How far an engine got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// It reached the target.
    Kept,
    /// The budget ran out first: it stands at an earlier time.
    Behind,
    /// A finite load ended (its clock stops at the last outcome).
    Finished,
}

/// Processes events up to `target` while the budget lasts, then sets the clock to `target`.
/// A finite load stops at its last outcome.
pub fn catch_up(engine: &mut Engine, target: Nanos, budget: &mut Budget) -> Reach {
    if engine.is_finished() {
        return Reach::Finished;
    }
    while let Some(t) = engine.next_event_time() {
        if t > target {
            break;
        }
        if budget.spent() {
            return Reach::Behind;
        }
        // False only when halted (`Engine::halted`: stalled, or at its cap of requests in
        // flight): the clock cannot reach the target.
        if !engine.step() {
            return Reach::Behind;
        }
        if engine.is_finished() {
            return Reach::Finished;
        }
    }
    if target > engine.now() {
        engine.advance_to(target);
    }
    Reach::Kept
}

/// Processes events until the budget is spent ("max" speed).
pub fn run_for(engine: &mut Engine, budget: &mut Budget) -> Reach {
    while !engine.is_finished() {
        if engine.next_event_time().is_none() {
            return Reach::Kept;
        }
        if budget.spent() || !engine.step() {
            return Reach::Kept;
        }
    }
    Reach::Finished
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{self, Strategy};

    fn engine(sets: &[&str]) -> Engine {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        let scenario = scenario::load("ironthread", &sets).expect("preset loads");
        Engine::new(&scenario, Strategy::Bulkhead)
    }

    #[test]
    fn simulated_time_is_elapsed_times_speed() {
        let mut clock = Clock::default();
        assert_eq!(clock.speed(), Speed::Times(1.0));
        assert_eq!(
            clock.plan(Duration::from_millis(40)),
            Advance::By(Nanos::from_millis(40))
        );
        clock.speed_up();
        assert_eq!(
            clock.plan(Duration::from_millis(40)),
            Advance::By(Nanos::from_millis(80))
        );
        for _ in 0..4 {
            clock.slow_down();
        }
        assert_eq!(clock.speed(), Speed::Times(0.1));
        assert_eq!(
            clock.plan(Duration::from_millis(30)),
            Advance::By(Nanos::from_millis(3))
        );
    }

    #[test]
    fn a_stall_counts_as_one_short_frame() {
        let clock = Clock::default();
        assert_eq!(
            clock.plan(Duration::from_secs(5)),
            Advance::By(Nanos::from_millis(250))
        );
    }

    #[test]
    fn paused_clock_holds() {
        let mut clock = Clock::default();
        clock.toggle_pause();
        assert_eq!(clock.plan(Duration::from_millis(40)), Advance::Hold);
        clock.toggle_pause();
        assert!(matches!(
            clock.plan(Duration::from_millis(40)),
            Advance::By(_)
        ));
    }

    #[test]
    fn speed_stops_at_both_ends_of_the_ladder() {
        let mut clock = Clock::default();
        let mut steps = 0;
        while clock.speed_up() {
            steps += 1;
        }
        assert_eq!(steps, SPEEDS.len() - 3);
        assert_eq!(clock.speed(), Speed::Max);
        assert_eq!(
            clock.plan(Duration::from_millis(1)),
            Advance::AsFastAsPossible
        );
        assert!(!clock.speed_up());
        while clock.slow_down() {}
        assert_eq!(clock.speed(), Speed::Times(SPEEDS[0]));
    }

    #[test]
    fn catch_up_reaches_the_target_when_the_budget_allows() {
        let mut e = engine(&["load.mode=closed", "load.clients=20"]);
        let pace = catch_up(
            &mut e,
            Nanos::from_millis(1500),
            &mut Budget::events(1_000_000),
        );
        assert_eq!(pace, Reach::Kept);
        assert_eq!(e.now(), Nanos::from_millis(1500));
    }

    #[test]
    fn catch_up_stops_when_the_budget_is_spent() {
        let mut e = engine(&["load.mode=closed", "load.clients=20"]);
        let pace = catch_up(&mut e, Nanos::from_secs(10), &mut Budget::events(5));
        assert_eq!(pace, Reach::Behind);
        assert_eq!(e.events_processed(), 5);
        assert!(e.now() < Nanos::from_secs(10));
    }

    #[test]
    fn max_speed_runs_exactly_the_budget() {
        let mut e = engine(&["load.mode=closed", "load.clients=20"]);
        assert_eq!(run_for(&mut e, &mut Budget::events(100)), Reach::Kept);
        assert_eq!(e.events_processed(), 100);
    }

    #[test]
    fn a_finite_load_stops_the_clock_at_its_last_outcome() {
        let mut e = engine(&[]);
        let pace = catch_up(&mut e, Nanos::from_secs(60), &mut Budget::events(1_000_000));
        assert_eq!(pace, Reach::Finished);
        assert!(e.is_finished());
        // Five runs of one second each (the slowest call), one after another.
        assert_eq!(e.now(), Nanos::from_secs(5));
        assert_eq!(run_for(&mut e, &mut Budget::events(10)), Reach::Finished);
    }

    #[test]
    fn a_wall_budget_ends() {
        let mut b = Budget::wall(Duration::ZERO);
        assert!((0..32).any(|_| b.spent()));
    }

    #[test]
    fn a_stalled_engine_ends_the_frame_whatever_the_budget() {
        let sets = ["load.mode=batch".to_string(), "load.count=1000".to_string()];
        let s = scenario::load("ironthread", &sets).expect("preset loads");
        let mut e = Engine::new(&s, Strategy::Unbounded);
        e.set_stall_events(500);
        let pace = catch_up(&mut e, Nanos::from_secs(60), &mut Budget::events(u64::MAX));
        assert_eq!(pace, Reach::Behind);
        assert!(e.stalled());
        assert_eq!(run_for(&mut e, &mut Budget::events(u64::MAX)), Reach::Kept);
    }
}
