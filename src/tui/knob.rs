//! The knobs a person turns live: a pool's size, the closed loop's clients, the open load's
//! rate. `+` / `-`, the sweep overlay's Enter and each point of a sweep all turn them through
//! the same engine [`Command`]s, so a swept value is exactly what applying it does.

use crate::scenario::{LoadMode, MAX_CLIENTS, MAX_RATE, MAX_THREADS};
use crate::sim::pool::PoolKind;
use crate::sim::{Command, Engine, PoolId, PoolSnapshot, SizeKnob, size_commands};

/// One knob of a running scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    /// The pool's size knob, the one `+` and `-` turn: core (ThreadPool), parallelism
    /// (ForkJoin) or `maxThreads` (Tomcat).
    PoolSize(PoolId),
    /// Closed load: concurrent clients.
    Clients,
    /// Open load: requests per second.
    Rate,
}

impl Knob {
    /// The knobs `engine` can sweep, in the order Tab walks them: the size of each pool its
    /// strategy uses, then the load.
    pub fn all(engine: &Engine) -> Vec<Knob> {
        let snapshot = engine.snapshot();
        let mut knobs: Vec<Knob> = engine
            .pools_of(engine.strategy())
            .into_iter()
            .filter(|&id| {
                snapshot
                    .pools
                    .iter()
                    .any(|p| p.id == id && p.kind != PoolKind::PerTask)
            })
            .map(Knob::PoolSize)
            .collect();
        knobs.extend(Knob::load(engine));
        knobs
    }

    /// The load's knob, when the load has one (runs, batches and traces have none, a
    /// ramping rate is not one value: setting it live ends the ramp, and a load a phase
    /// paused, at rate 0 or 0 clients, has no value to sweep around).
    pub fn load(engine: &Engine) -> Option<Knob> {
        match engine.scenario().load.mode {
            LoadMode::Closed { clients, .. } if clients > 0 => Some(Knob::Clients),
            LoadMode::Open { ramp: None, rate } if rate > 0.0 => Some(Knob::Rate),
            _ => None,
        }
    }

    /// Its value now, `None` when the engine has no such knob.
    pub fn current(self, engine: &Engine) -> Option<f64> {
        match (self, &engine.scenario().load.mode) {
            (Knob::PoolSize(id), _) => pool_of(engine, id).map(|p| f64::from(pool_size(&p))),
            (Knob::Clients, LoadMode::Closed { clients, .. }) => Some(f64::from(*clients)),
            (Knob::Rate, LoadMode::Open { rate, ramp: None }) => Some(*rate),
            _ => None,
        }
    }

    /// What the knob is called on screen: `IronThread core`, `tomcat threads`, `clients`.
    pub fn name(self, engine: &Engine) -> String {
        match self {
            Knob::PoolSize(id) => match pool_of(engine, id) {
                Some(p) => format!("{} {}", p.name, size_word(p.kind)),
                None => format!("pool #{id}"),
            },
            Knob::Clients => "clients".to_string(),
            Knob::Rate => "rate".to_string(),
        }
    }

    /// The unit of its values, for axis titles.
    pub fn unit(self) -> &'static str {
        match self {
            Knob::PoolSize(_) => "threads",
            Knob::Clients => "clients",
            Knob::Rate => "req/s",
        }
    }

    /// Whole numbers only (sizes and clients), or any positive number (a rate).
    pub fn whole(self) -> bool {
        !matches!(self, Knob::Rate)
    }

    /// The values the knob may take (`scenario::limits`, the live keys' bounds too).
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Knob::PoolSize(_) => (1.0, f64::from(MAX_THREADS)),
            Knob::Clients => (1.0, f64::from(MAX_CLIENTS)),
            Knob::Rate => (0.01, MAX_RATE),
        }
    }

    /// [`Knob::bounds`] in `engine`'s run: a rate stops where requests would pile up beyond
    /// the most a run may hold ([`Engine::max_rate`]), so a sweep builds no point over it.
    pub fn live_bounds(self, engine: &Engine) -> (f64, f64) {
        let (min, max) = self.bounds();
        match self {
            Knob::Rate => (min, max.min(engine.max_rate()).max(min)),
            Knob::PoolSize(_) | Knob::Clients => (min, max),
        }
    }

    /// The commands that set the knob to `value` on `engine` (empty when it is already
    /// there).
    pub fn commands(self, engine: &Engine, value: f64) -> Vec<Command> {
        if self.current(engine) == Some(value) {
            return Vec::new();
        }
        match self {
            Knob::PoolSize(id) => pool_of(engine, id)
                .map(|p| size_commands(&p, whole(value)))
                .unwrap_or_default(),
            Knob::Clients => vec![Command::SetClients(whole(value))],
            Knob::Rate => vec![Command::SetRate(value)],
        }
    }
}

/// The size knob's value ([`SizeKnob`]): core (ThreadPool, ForkJoin), `maxThreads` (Tomcat);
/// a thread-per-task pool has none (0).
pub fn pool_size(pool: &PoolSnapshot) -> u32 {
    SizeKnob::of(pool.kind).map_or(0, |k| k.value(pool.core, pool.max))
}

/// The word the engine's log uses for a pool's size knob (`core` for a pool without one).
fn size_word(kind: PoolKind) -> &'static str {
    SizeKnob::of(kind).map_or("core", SizeKnob::word)
}

fn pool_of(engine: &Engine, id: PoolId) -> Option<PoolSnapshot> {
    engine.snapshot().pools.into_iter().find(|p| p.id == id)
}

/// A swept value as the whole number the engine takes (values are whole by construction).
fn whole(value: f64) -> u32 {
    value.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// `v` rounded to three significant digits (7.8125 -> 7.81, 1234.5 -> 1230).
pub fn three_digits(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(2 - v.log10().floor() as i32);
    (v * scale).round() / scale
}
