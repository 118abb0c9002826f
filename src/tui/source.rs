//! The run on screen: the one thing the panels read and the one place the TUI asks what a run
//! can do. A simulated run is an [`Engine`] the App's clock drives (and commands change); a real
//! run is a [`LiveRun`] that moves by itself on the wall clock and takes no commands.
//!
//! Reading a source (`snapshot`, `now`, `is_finished`...) takes `&self` and changes nothing, so
//! drawing never stops or alters a run; a real run's end is kept, and its threads stopped, by
//! [`Source::update`] on the App's tick.

use crate::real::{Lag, LiveRun, RealError, RealOptions};
use crate::scenario::{Scenario, Strategy};
use crate::sim::{Engine, PoolId, Snapshot};
use crate::theory::Prediction;
use crate::time::Nanos;

use super::app::Action;

/// A run that can be drawn. (Both kinds are boxed: each is over a kilobyte, of different
/// sizes.)
#[derive(Debug)]
pub enum Source {
    /// The deterministic engine, advanced by the App's clock.
    Sim(Box<Engine>),
    /// A real run on this machine.
    Real(Box<RealMode>),
}

/// A real run on screen.
#[derive(Debug)]
pub struct RealMode {
    run: LiveRun,
    /// Why it is not keeping up, as of the last tick.
    lag: Vec<Lag>,
}

impl RealMode {
    pub fn run(&self) -> &LiveRun {
        &self.run
    }

    /// Why the run is not keeping up, as of the last tick (empty when it is).
    pub fn lag(&self) -> &[Lag] {
        &self.lag
    }
}

impl Source {
    /// A simulation of `scenario` under `strategy` from t = 0.
    pub fn sim(scenario: &Scenario, strategy: Strategy) -> Source {
        Source::Sim(Box::new(Engine::new(scenario, strategy)))
    }

    /// Starts `scenario` for real under `strategy` for its duration.
    pub fn real(
        scenario: &Scenario,
        strategy: Strategy,
        options: RealOptions,
    ) -> Result<Source, RealError> {
        let run = LiveRun::start(scenario, strategy, scenario.duration, options)?;
        Ok(Source::Real(Box::new(RealMode {
            run,
            lag: Vec::new(),
        })))
    }

    pub fn snapshot(&self) -> Snapshot {
        match self {
            Source::Sim(engine) => engine.snapshot(),
            Source::Real(real) => real.run.snapshot(),
        }
    }

    /// Scenario time now.
    pub fn now(&self) -> Nanos {
        match self {
            Source::Sim(engine) => engine.now(),
            Source::Real(real) => real.run.now(),
        }
    }

    /// The run has played its whole finite load, or its time is up (a real run).
    pub fn is_finished(&self) -> bool {
        match self {
            Source::Sim(engine) => engine.is_finished(),
            Source::Real(real) => real.run.is_finished(),
        }
    }

    /// The scenario as the run plays it (with the live changes of a simulated one).
    pub fn scenario(&self) -> &Scenario {
        match self {
            Source::Sim(engine) => engine.scenario(),
            Source::Real(real) => real.run.scenario(),
        }
    }

    /// The strategy new requests use.
    pub fn strategy(&self) -> Strategy {
        match self {
            Source::Sim(engine) => engine.strategy(),
            Source::Real(real) => real.run.strategy(),
        }
    }

    /// What theory predicts for the run as it is now.
    pub fn prediction(&self) -> Prediction {
        match self {
            Source::Sim(engine) => engine.prediction(),
            Source::Real(real) => real.run.prediction(),
        }
    }

    /// The pools the run's strategy uses.
    pub fn pools_in_use(&self) -> Vec<PoolId> {
        match self {
            Source::Sim(engine) => engine.pools_of(engine.strategy()),
            Source::Real(real) => real.run.pools_in_use(),
        }
    }

    /// Why a real run is not keeping up, as of the last tick; a simulation never lags (the
    /// App's clock says when it falls behind).
    pub fn lag(&self) -> &[Lag] {
        match self {
            Source::Sim(_) => &[],
            Source::Real(real) => &real.lag,
        }
    }

    /// The engine, for what only a simulation can do (commands, compare, timelines, sweeps).
    pub fn engine(&self) -> Option<&Engine> {
        match self {
            Source::Sim(engine) => Some(engine),
            Source::Real(_) => None,
        }
    }

    pub fn engine_mut(&mut self) -> Option<&mut Engine> {
        match self {
            Source::Sim(engine) => Some(engine),
            Source::Real(_) => None,
        }
    }

    /// The real run, for what only it shows (its runtime panel, its pace).
    pub fn real_run(&self) -> Option<&RealMode> {
        match self {
            Source::Sim(_) => None,
            Source::Real(real) => Some(real),
        }
    }

    /// The loop must tick for this source whatever the clock says: a real run until a tick
    /// has kept its end.
    pub fn awaits_tick(&self) -> bool {
        match self {
            Source::Sim(_) => false,
            Source::Real(real) => !real.run.is_settled(),
        }
    }

    /// The tick's look at a run that moves by itself: a real run's end is kept (its threads
    /// stopped) and its lag measured. Returns the run's first internal error, to show.
    pub fn update(&mut self) -> Option<String> {
        let Source::Real(real) = self else {
            return None;
        };
        real.run.settle();
        real.lag = real.run.lag(&real.run.snapshot(), &real.run.runtime());
        real.run.error()
    }

    /// The run again from t = 0 under `strategy`, the same kind of run (a real one with the
    /// same options and length). On failure a real run stays on screen, stopped.
    pub fn restart(&mut self, scenario: &Scenario, strategy: Strategy) -> Result<(), RealError> {
        match self {
            Source::Sim(engine) => **engine = Engine::new(scenario, strategy),
            Source::Real(real) => {
                real.run.halt();
                let (limit, options) = (real.run.limit(), real.run.options());
                // The old run is dropped here: it stops in the background.
                real.run = LiveRun::start(scenario, strategy, limit, options)?;
                real.lag.clear();
            }
        }
        Ok(())
    }

    /// Why a key does nothing on this run (real time cannot do what the simulated clock can),
    /// or `None` when it works.
    pub fn refusal(&self, action: Action) -> Option<&'static str> {
        match self {
            Source::Sim(_) => None,
            Source::Real(_) => real_refusal(action),
        }
    }
}

fn real_refusal(action: Action) -> Option<&'static str> {
    match action {
        Action::TogglePause | Action::Step | Action::SpeedUp | Action::SlowDown => {
            Some("real run: the clock is the wall clock; it cannot pause, step or change speed")
        }
        Action::GrowPool
        | Action::ShrinkPool
        | Action::GrowQueue
        | Action::ShrinkQueue
        | Action::MoreLoad
        | Action::LessLoad => Some(
            "real run: pools and load are fixed while it runs; set them with --set (r restarts)",
        ),
        Action::OpenFaultMenu => Some("real run: faults can be injected with --engine sim only"),
        Action::ToggleCompare => {
            Some("real run: compare the strategies with `threadlab compare --engine real`")
        }
        Action::ToggleTimeline | Action::WriteTrace | Action::MoveLane(_) => {
            Some("real run: thread timelines are recorded by the simulated engine only")
        }
        Action::OpenSweep => {
            Some("real run: sweep the simulation with `threadlab sweep PRESET --vary ...`")
        }
        _ => None,
    }
}
