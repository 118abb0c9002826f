//! Live reconfiguration, as a person steers a running scenario.

use crate::scenario::{
    LoadMode, MAX_CLIENTS, MAX_QUEUE, MAX_RATE, MAX_THREADS, PhaseChange, ServiceId, Strategy,
};

use super::engine::{Engine, PoolId};
use super::event::Event;
use super::handles::{Task, ThreadRef};
use super::pool::PoolKind;
use super::{Fault, LogEntry, PoolSnapshot};
use crate::topology::{StoreError, Topology};

/// A change applied to a running engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    /// New requests use this strategy; requests in flight finish the old way.
    SetStrategy(Strategy),
    /// The pool's size knob: core (ThreadPool, `setCorePoolSize`, raising max along if
    /// needed), `maxThreads` (Tomcat), parallelism (ForkJoin).
    SetPoolSize {
        pool: PoolId,
        size: u32,
    },
    /// `setMaximumPoolSize` (ThreadPool and Tomcat).
    SetPoolMax {
        pool: PoolId,
        size: u32,
    },
    /// The queue capacity; `None` is unbounded.
    SetQueueCapacity {
        pool: PoolId,
        capacity: Option<u32>,
    },
    /// Open load: requests per second.
    SetRate(f64),
    /// Closed load: concurrent clients.
    SetClients(u32),
    InjectFault {
        service: ServiceId,
        fault: Fault,
    },
    ClearFault {
        service: ServiceId,
    },
}

/// Why a command could not apply. Pools are named as on screen (`IronThread`), a knob as
/// `<pool> core`, `clients` and so on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommandError {
    #[error("{what} is already {old}, the most allowed")]
    AtMost { what: String, old: u32 },
    #[error("{what} is already {old}")]
    Unchanged { what: String, old: u32 },
    #[error("no service #{}", .0.0)]
    NoService(ServiceId),
    #[error("no pool #{0}")]
    NoPool(PoolId),
    #[error("{0} starts a new thread per task: no size")]
    PerTaskHasNoSize(String),
    #[error("server threads must be at least 1")]
    NoServerThreads,
    #[error("parallelism must be at least 1")]
    NoParallelism,
    #[error("{0} has no maximum pool size")]
    NoMaxPoolSize(String),
    /// `ThreadPoolExecutor.setMaximumPoolSize` throws `IllegalArgumentException`.
    #[error("{pool} max must be >= core ({core}) and >= 1, got {size}")]
    MaxBelowCore { pool: String, core: u32, size: u32 },
    #[error("{0} has no bounded queue")]
    NoBoundedQueue(String),
    #[error("the server queue (maxQueueSize) must be at least 1")]
    NoServerQueue,
    #[error("{0} uses discard-oldest, which needs a queue of at least 1")]
    DiscardOldestNeedsQueue(String),
    /// `bulkhead` counts from 1, as the preset's `[[strategy.bulkhead]]` tables read.
    #[error("{pool} is bounded (bulkhead #{bulkhead}): give its queue a capacity")]
    BulkheadNeedsCapacity { pool: String, bulkhead: usize },
    #[error("{0} queue is already unbounded")]
    AlreadyUnbounded(String),
    #[error("the load is not open (Poisson): change clients instead")]
    NotOpenLoad,
    #[error("rate must be above 0 per second, got {0}")]
    RateNotPositive(f64),
    /// The rate is already `old` per second; `most`: that is the most allowed, and `piles_up`:
    /// because a faster one would pile up more requests than a run may hold.
    #[error(
        "rate is already {old}/s{}{}",
        if *most { ", the most allowed" } else { "" },
        if *most && *piles_up { PILES_UP } else { "" }
    )]
    RateUnchanged {
        old: f64,
        most: bool,
        piles_up: bool,
    },
    #[error("the load is not closed (clients): change the rate instead")]
    NotClosedLoad,
    #[error("clients must be at least 1")]
    NoClients,
    /// The scenario cannot hold the pool's new sizes.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a rate stops below [`MAX_RATE`].
const PILES_UP: &str = ": faster, requests would pile up beyond the most a run may hold";

/// `wanted` held to `max` (the bound presets have too, see `scenario::limits`); an error when
/// that changes nothing, so a key held at a bound says so instead of logging `5 -> 5`.
fn bounded(what: &str, old: u32, wanted: u32, max: u32) -> Result<u32, CommandError> {
    let new = wanted.min(max);
    if new == old && wanted > max {
        Err(CommandError::AtMost {
            what: what.to_owned(),
            old,
        })
    } else if new == old {
        Err(CommandError::Unchanged {
            what: what.to_owned(),
            old,
        })
    } else {
        Ok(new)
    }
}

/// What a pool's size knob sets ([`Command::SetPoolSize`]: `+` and `-` on a pool, a sweep of
/// its size), decided here once from the pool's kind for the engine and the TUI alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeKnob {
    /// `ThreadPoolExecutor.setCorePoolSize`; max rises along when core passes it.
    Core,
    /// Tomcat's `maxThreads`; core (`minSpareThreads`) falls along when max drops below it.
    MaxThreads,
    /// `ForkJoinPool` parallelism: core and max together.
    Parallelism,
}

impl SizeKnob {
    /// The size knob of a pool of `kind`; a thread-per-task pool has none.
    pub fn of(kind: PoolKind) -> Option<SizeKnob> {
        match kind {
            PoolKind::ThreadPool => Some(SizeKnob::Core),
            PoolKind::Tomcat => Some(SizeKnob::MaxThreads),
            PoolKind::ForkJoin => Some(SizeKnob::Parallelism),
            PoolKind::PerTask => None,
        }
    }

    /// Its word after the pool's name, in the log and on screen (`tomcat threads`).
    pub fn word(self) -> &'static str {
        match self {
            SizeKnob::Core => "core",
            SizeKnob::MaxThreads => "threads",
            SizeKnob::Parallelism => "parallelism",
        }
    }

    /// Its value in a pool of these sizes.
    pub fn value(self, core: u32, max: u32) -> u32 {
        match self {
            SizeKnob::Core | SizeKnob::Parallelism => core,
            SizeKnob::MaxThreads => max,
        }
    }
}

/// The commands that set `pool`'s size knob to `new`, saying everything they change: a core
/// beyond max raises max first, and a fixed pool (core = max) stays fixed when it shrinks.
pub fn size_commands(pool: &PoolSnapshot, new: u32) -> Vec<Command> {
    let core = Command::SetPoolSize {
        pool: pool.id,
        size: new,
    };
    let max = Command::SetPoolMax {
        pool: pool.id,
        size: new,
    };
    match SizeKnob::of(pool.kind) {
        Some(SizeKnob::Core) if new > pool.max => vec![max, core],
        Some(SizeKnob::Core) if new < pool.core && pool.core == pool.max => vec![core, max],
        _ => vec![core],
    }
}

/// ` (the most allowed)` when a change stopped at the bound.
fn at_bound(wanted: u32, new: u32) -> &'static str {
    if wanted > new {
        " (the most allowed)"
    } else {
        ""
    }
}

impl Engine {
    /// Applies a command now. On success the change is logged and its description returned
    /// (e.g. "IronThread core 10 -> 12").
    pub fn apply(&mut self, command: Command) -> Result<String, CommandError> {
        let text = match command {
            Command::SetStrategy(s) => {
                let old = self.strategy;
                self.strategy = s;
                format!("strategy {old} -> {s}")
            }
            Command::SetPoolSize { pool, size } => self.set_pool_size(pool, size)?,
            Command::SetPoolMax { pool, size } => self.set_pool_max(pool, size)?,
            Command::SetQueueCapacity { pool, capacity } => self.set_queue(pool, capacity)?,
            Command::SetRate(rate) => self.set_rate(rate, true)?,
            Command::SetClients(n) => self.set_clients(n)?,
            Command::InjectFault { service, fault } => {
                let name = self.service_name(service)?;
                self.faults[service.0] = Some(fault);
                format!("{name}: {fault}")
            }
            Command::ClearFault { service } => {
                let name = self.service_name(service)?;
                self.faults[service.0] = None;
                format!("{name}: healed")
            }
        };
        self.log_change(text.clone());
        Ok(text)
    }

    /// A change took effect now: pools may signal, and the log says what changed.
    fn log_change(&mut self, text: String) {
        self.schedule_signals();
        self.log.push(LogEntry::Change { at: self.now, text });
    }

    /// `[[load.phases]]` entry `index` is due: the load changes as a live key would change it,
    /// and the log says which phase did it.
    pub(super) fn on_phase(&mut self, index: u32) {
        let phases = &self.scenario.load.phases;
        let Some(phase) = phases.get(index as usize).copied() else {
            return;
        };
        if let Some(next) = phases.get(index as usize + 1) {
            let at = next.at;
            self.schedule(at, Event::Phase { index: index + 1 });
        }
        let changed = match phase.change {
            PhaseChange::Rate(rate) if rate <= 0.0 => self.stop_arrivals(),
            // The preset's own rate, weighed with the run before it started: not bounded as
            // a live key is (which would cost a bisection of the estimate per phase).
            PhaseChange::Rate(rate) => self.set_rate(rate, false),
            PhaseChange::Clients(0) => self.stop_clients(),
            PhaseChange::Clients(n) => self.set_clients(n),
        };
        // A phase that asks for the load as it already is changes nothing.
        if let Ok(text) = changed {
            self.log_change(format!("load phase {}: {text}", index + 1));
        }
    }

    /// `[[faults]]` entry `index` starts (or, `heal`, ends) now, as the fault menu would
    /// inject or heal it.
    pub(super) fn on_timed_fault(&mut self, index: u32, heal: bool) {
        let Some(f) = self.scenario.faults.get(index as usize).copied() else {
            return;
        };
        let command = if heal {
            Command::ClearFault { service: f.service }
        } else {
            Command::InjectFault {
                service: f.service,
                fault: f.fault,
            }
        };
        // The service exists: validation checked the name.
        let _unused = self.apply(command);
    }

    fn service_name(&self, service: ServiceId) -> Result<String, CommandError> {
        match self.scenario.services.get(service.0) {
            Some(s) => Ok(s.name.clone()),
            None => Err(CommandError::NoService(service)),
        }
    }

    fn pool_checked(&self, pool: PoolId) -> Result<PoolKind, CommandError> {
        match self.pools.get(pool) {
            Some(p) => Ok(p.spec().kind),
            None => Err(CommandError::NoPool(pool)),
        }
    }

    fn set_pool_size(&mut self, pool: PoolId, size: u32) -> Result<String, CommandError> {
        let kind = self.pool_checked(pool)?;
        let name = self.pools[pool].spec().name.clone();
        let Some(knob) = SizeKnob::of(kind) else {
            return Err(CommandError::PerTaskHasNoSize(name));
        };
        let what = format!("{name} {}", knob.word());
        match knob {
            SizeKnob::Core => {
                let old = self.pools[pool].spec().core;
                let (wanted, size) = (size, bounded(&what, old, size, MAX_THREADS)?);
                if size > self.pools[pool].spec().max {
                    self.pools[pool].set_max(size);
                }
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!("{what} {old} -> {size}{}", at_bound(wanted, size)))
            }
            SizeKnob::MaxThreads => {
                if size == 0 {
                    return Err(CommandError::NoServerThreads);
                }
                let old = self.pools[pool].spec().max;
                let (wanted, size) = (size, bounded(&what, old, size, MAX_THREADS)?);
                if self.pools[pool].spec().core > size {
                    self.resize_core(pool, size);
                }
                self.pools[pool].set_max(size);
                self.store_sizes(pool)?;
                Ok(format!("{what} {old} -> {size}{}", at_bound(wanted, size)))
            }
            SizeKnob::Parallelism => {
                if size == 0 {
                    return Err(CommandError::NoParallelism);
                }
                let old = self.pools[pool].spec().core;
                let (wanted, size) = (size, bounded(&what, old, size, MAX_THREADS)?);
                // Shrinking: idle workers beyond the parallelism go at once.
                self.pools[pool].set_max(size);
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!("{what} {old} -> {size}{}", at_bound(wanted, size)))
            }
        }
    }

    fn set_pool_max(&mut self, pool: PoolId, size: u32) -> Result<String, CommandError> {
        let kind = self.pool_checked(pool)?;
        let spec = self.pools[pool].spec();
        let name = spec.name.clone();
        if !matches!(kind, PoolKind::ThreadPool | PoolKind::Tomcat) {
            return Err(CommandError::NoMaxPoolSize(name));
        }
        if size == 0 || size < spec.core {
            // ThreadPoolExecutor.setMaximumPoolSize throws IllegalArgumentException.
            return Err(CommandError::MaxBelowCore {
                pool: name,
                core: spec.core,
                size,
            });
        }
        let old = spec.max;
        let (wanted, size) = (
            size,
            bounded(&format!("{name} max"), old, size, MAX_THREADS)?,
        );
        self.pools[pool].set_max(size);
        self.store_sizes(pool)?;
        Ok(format!(
            "{name} max {old} -> {size}{}",
            at_bound(wanted, size)
        ))
    }

    fn resize_core(&mut self, pool: PoolId, size: u32) {
        let (now, slots) = (self.now, self.guards.slots);
        let resize = self.pools[pool].set_core(size, now);
        for (slot, at) in resize.expiries {
            self.schedule(at, Event::KeepAlive { pool, slot });
        }
        for (slot, task) in resize.started {
            if let Task::Call(r, call) = task
                && self
                    .requests
                    .get(r)
                    .is_some_and(|q| !q.may_complete(slots, call))
            {
                // Its caller already gave up: AsyncSupply.run returns at once and the new
                // thread moves on to the next task.
                self.drop_stale_call(r, call);
                self.release_thread(ThreadRef::Worker { pool, slot });
                continue;
            }
            self.start_task(pool, slot, task);
        }
    }

    fn set_queue(&mut self, pool: PoolId, capacity: Option<u32>) -> Result<String, CommandError> {
        let kind = self.pool_checked(pool)?;
        let name = self.pools[pool].spec().name.clone();
        if matches!(kind, PoolKind::PerTask | PoolKind::ForkJoin) {
            return Err(CommandError::NoBoundedQueue(name));
        }
        if pool == self.topology.server() && capacity == Some(0) {
            return Err(CommandError::NoServerQueue);
        }
        if let Some(b) = self.topology.bulkhead_index(pool) {
            let policy = self.topology.rejection(pool);
            if capacity == Some(0) && policy.needs_queue() {
                return Err(CommandError::DiscardOldestNeedsQueue(name));
            }
            if capacity.is_none() {
                return Err(CommandError::BulkheadNeedsCapacity {
                    pool: name,
                    bulkhead: b + 1,
                });
            }
        }
        let old = self.pools[pool].spec().queue_capacity;
        let wanted = capacity;
        let capacity = match (old, capacity) {
            (Some(o), Some(c)) => Some(bounded(&format!("{name} queue"), o, c, MAX_QUEUE)?),
            (None, None) => return Err(CommandError::AlreadyUnbounded(name)),
            (_, c) => c.map(|c| c.min(MAX_QUEUE)),
        };
        self.pools[pool].set_queue_capacity(capacity);
        self.store_sizes(pool)?;
        let show = |c: Option<u32>| c.map_or_else(|| "unbounded".to_string(), |c| c.to_string());
        let bound = match (wanted, capacity) {
            (Some(w), Some(c)) => at_bound(w, c),
            _ => "",
        };
        Ok(format!(
            "{name} queue {} -> {}{bound}",
            show(old),
            show(capacity)
        ))
    }

    /// Writes the pool's live sizes into the scenario, the run's one configuration (read by
    /// theory and by a replay).
    fn store_sizes(&mut self, pool: PoolId) -> Result<(), CommandError> {
        let spec = self.pools[pool].spec();
        Ok(self.topology.store_sizes(&mut self.scenario, pool, spec)?)
    }

    /// The open load's rate, `bounded` by [`Engine::max_rate`] for a live key.
    fn set_rate(&mut self, rate: f64, bounded: bool) -> Result<String, CommandError> {
        let LoadMode::Open { rate: old, .. } = self.scenario.load.mode else {
            return Err(CommandError::NotOpenLoad);
        };
        if !(rate.is_finite() && rate > 0.0) {
            return Err(CommandError::RateNotPositive(rate));
        }
        let wanted = rate;
        let most = if bounded { self.max_rate() } else { MAX_RATE };
        let rate = rate.min(most);
        // Beyond what the limits allow for this run, requests would pile up past its cap.
        let piles_up = most < MAX_RATE;
        let why = if piles_up { PILES_UP } else { "" };
        if rate == old || (rate < old && wanted > old) {
            return Err(CommandError::RateUnchanged {
                old,
                most: wanted > rate,
                piles_up,
            });
        }
        self.scenario.load.mode = LoadMode::Open { rate, ramp: None };
        self.load.rate_changed(self.now);
        self.schedule_next_arrival();
        let bound = if wanted > rate {
            format!(" (the most allowed{why})")
        } else {
            String::new()
        };
        Ok(format!("rate {old}/s -> {rate}/s{bound}"))
    }

    /// The highest open-load rate the live keys and sweeps may set: [`MAX_RATE`], or lower
    /// when the scenario's duration at that rate would pile up more requests than a run may
    /// hold (the cost estimate's limits, with what this strategy's server answers), rounded
    /// down to three significant digits like the rate keys' steps.
    pub fn max_rate(&self) -> f64 {
        let served = crate::theory::served_rps(&self.scenario, &[self.strategy]);
        let mut open = self.scenario.clone();
        open.load.mode = LoadMode::Open {
            rate: MAX_RATE,
            ramp: None,
        };
        let most = crate::scenario::max_open_rate(&open, self.scenario.duration, served, MAX_RATE);
        if most <= 0.0 || most >= MAX_RATE {
            return most;
        }
        let scale = 10f64.powi(2 - most.log10().floor() as i32);
        (most * scale).floor() / scale
    }

    /// A phase of rate 0: no request arrives until a later phase sets a rate (the one
    /// pending is superseded); the requests in flight go on.
    fn stop_arrivals(&mut self) -> Result<String, CommandError> {
        let LoadMode::Open { rate: old, .. } = self.scenario.load.mode else {
            return Err(CommandError::NotOpenLoad);
        };
        if old <= 0.0 {
            return Err(CommandError::RateUnchanged {
                old,
                most: false,
                piles_up: false,
            });
        }
        self.scenario.load.mode = LoadMode::Open {
            rate: 0.0,
            ramp: None,
        };
        self.load.rate_changed(self.now);
        Ok(format!("rate {old}/s -> 0/s: no new requests"))
    }

    /// A phase of 0 clients: every client stops after its outstanding request.
    fn stop_clients(&mut self) -> Result<String, CommandError> {
        let LoadMode::Closed {
            clients: old,
            think,
        } = self.scenario.load.mode
        else {
            return Err(CommandError::NotClosedLoad);
        };
        if old == 0 {
            return Err(CommandError::Unchanged {
                what: "clients".to_owned(),
                old,
            });
        }
        self.scenario.load.mode = LoadMode::Closed { clients: 0, think };
        self.load.client_target = 0;
        Ok(format!(
            "clients {old} -> 0: each stops after its outstanding request"
        ))
    }

    fn set_clients(&mut self, n: u32) -> Result<String, CommandError> {
        let LoadMode::Closed {
            clients: old,
            think,
        } = self.scenario.load.mode
        else {
            return Err(CommandError::NotClosedLoad);
        };
        if n == 0 {
            return Err(CommandError::NoClients);
        }
        let (wanted, n) = (n, bounded("clients", old, n, MAX_CLIENTS)?);
        self.scenario.load.mode = LoadMode::Closed { clients: n, think };
        self.load.client_target = n;
        if self.net.clients.len() < n as usize {
            self.net.clients.resize(n as usize, Default::default());
        }
        let (now, link, half) = (self.now, self.scenario.load.link, self.half_rtt());
        let mut started = 0;
        for client in 0..n {
            let state = &mut self.net.clients[client as usize];
            if !state.active {
                // A client that comes (back) to life waits from now, not from its last answer;
                // the new ones connect one after another. It sends at `at`; its request
                // reaches the server half a round trip later (as at the run's start).
                let at = crate::flow::link::staggered(&link, now, started);
                started += 1;
                state.active = true;
                state.tally.last_answer_at = at;
                self.schedule(at + half, Event::ClientSend { client });
            }
        }
        Ok(format!("clients {old} -> {n}{}", at_bound(wanted, n)))
    }

    /// The pools a strategy uses (for the TUI's pool selection).
    pub fn pools_of(&self, strategy: Strategy) -> Vec<PoolId> {
        self.topology.pools_in_use(strategy)
    }
}

impl Command {
    /// The same command for a run of topology `to`, given for one of topology `from`: a pool
    /// is the one playing the same role there. None when `to` has no such pool.
    pub fn for_topology(self, from: &Topology, to: &Topology) -> Option<Command> {
        let same = |pool: PoolId| to.id_of(from.role(pool)?);
        Some(match self {
            Command::SetPoolSize { pool, size } => Command::SetPoolSize {
                pool: same(pool)?,
                size,
            },
            Command::SetPoolMax { pool, size } => Command::SetPoolMax {
                pool: same(pool)?,
                size,
            },
            Command::SetQueueCapacity { pool, capacity } => Command::SetQueueCapacity {
                pool: same(pool)?,
                capacity,
            },
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{MAX_CONNECTIONS, load};

    fn engine(preset: &str, sets: &[&str], strategy: Strategy) -> Engine {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
        Engine::new(&load(preset, &sets).expect("valid preset"), strategy)
    }

    #[test]
    fn a_command_for_another_run_names_the_pool_playing_the_same_role_there() {
        use crate::topology::PoolRole;
        let three = engine("bulkhead-containment", &[], Strategy::Bulkhead);
        let one = engine("ironthread", &[], Strategy::Bulkhead);
        let (from, to) = (three.topology(), one.topology());
        let resize = |role| Command::SetPoolMax {
            pool: from.id_of(role).expect("a pool of this role"),
            size: 9,
        };
        let same = |role| {
            Some(Command::SetPoolMax {
                pool: to.id_of(role).expect("a pool of this role"),
                size: 9,
            })
        };
        for role in [PoolRole::Server, PoolRole::Shared, PoolRole::Bulkhead(0)] {
            assert_eq!(resize(role).for_topology(from, to), same(role));
        }
        let third = resize(PoolRole::Bulkhead(2));
        assert_eq!(
            third.for_topology(from, to),
            None,
            "ironthread has one bulkhead"
        );
        let rate = Command::SetRate(5.0);
        assert_eq!(rate.for_topology(from, to), Some(rate));
    }

    #[test]
    fn a_pool_size_knob_set_by_its_commands_reads_back_the_value_set_for_every_kind() {
        let mut kinds = std::collections::BTreeSet::new();
        for strategy in Strategy::ALL {
            let mut e = engine("ironthread", &[], strategy);
            for id in e.pools_of(strategy) {
                let pool = |e: &Engine| {
                    let pools = e.snapshot().pools;
                    pools
                        .into_iter()
                        .find(|p| p.id == id)
                        .expect("a pool in use")
                };
                let Some(knob) = SizeKnob::of(pool(&e).kind) else {
                    let refused = e.apply(Command::SetPoolSize { pool: id, size: 3 });
                    assert!(matches!(refused, Err(CommandError::PerTaskHasNoSize(_))));
                    continue;
                };
                kinds.insert(knob.word());
                for new in [pool(&e).max + 5, 1, 4] {
                    for command in size_commands(&pool(&e), new) {
                        e.apply(command).expect("a change");
                    }
                    let p = pool(&e);
                    assert_eq!(knob.value(p.core, p.max), new, "{} {}", p.name, knob.word());
                    assert!(p.core <= p.max, "{}", p.name);
                }
            }
        }
        assert_eq!(kinds.len(), 3, "{kinds:?}");
    }

    #[test]
    fn each_refusal_reads_as_the_message_the_log_shows() {
        let server = engine("ironthread", &[], Strategy::Sequential)
            .topology
            .server();
        let name = || "IronThread".to_owned();
        let cases = [
            (
                CommandError::AtMost {
                    what: "clients".into(),
                    old: 5,
                },
                "clients is already 5, the most allowed",
            ),
            (
                CommandError::Unchanged {
                    what: "IronThread core".into(),
                    old: 4,
                },
                "IronThread core is already 4",
            ),
            (CommandError::NoService(ServiceId(7)), "no service #7"),
            (CommandError::NoPool(server), "no pool #0"),
            (
                CommandError::PerTaskHasNoSize(name()),
                "IronThread starts a new thread per task: no size",
            ),
            (
                CommandError::NoServerThreads,
                "server threads must be at least 1",
            ),
            (
                CommandError::NoParallelism,
                "parallelism must be at least 1",
            ),
            (
                CommandError::NoMaxPoolSize(name()),
                "IronThread has no maximum pool size",
            ),
            (
                CommandError::MaxBelowCore {
                    pool: name(),
                    core: 4,
                    size: 2,
                },
                "IronThread max must be >= core (4) and >= 1, got 2",
            ),
            (
                CommandError::NoBoundedQueue(name()),
                "IronThread has no bounded queue",
            ),
            (
                CommandError::NoServerQueue,
                "the server queue (maxQueueSize) must be at least 1",
            ),
            (
                CommandError::DiscardOldestNeedsQueue(name()),
                "IronThread uses discard-oldest, which needs a queue of at least 1",
            ),
            (
                CommandError::BulkheadNeedsCapacity {
                    pool: name(),
                    bulkhead: 2,
                },
                "IronThread is bounded (bulkhead #2): give its queue a capacity",
            ),
            (
                CommandError::AlreadyUnbounded(name()),
                "IronThread queue is already unbounded",
            ),
            (
                CommandError::NotOpenLoad,
                "the load is not open (Poisson): change clients instead",
            ),
            (
                CommandError::RateNotPositive(-1.5),
                "rate must be above 0 per second, got -1.5",
            ),
            (
                CommandError::RateUnchanged {
                    old: 250.0,
                    most: false,
                    piles_up: true,
                },
                "rate is already 250/s",
            ),
            (
                CommandError::RateUnchanged {
                    old: 250.0,
                    most: true,
                    piles_up: false,
                },
                "rate is already 250/s, the most allowed",
            ),
            (
                CommandError::RateUnchanged {
                    old: 250.0,
                    most: true,
                    piles_up: true,
                },
                "rate is already 250/s, the most allowed: faster, requests would pile up \
                 beyond the most a run may hold",
            ),
            (
                CommandError::NotClosedLoad,
                "the load is not closed (clients): change the rate instead",
            ),
            (CommandError::NoClients, "clients must be at least 1"),
            (
                CommandError::Store(StoreError::UnboundedQueue(name())),
                "IronThread's queue must stay bounded",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    #[test]
    fn server_threads_stop_at_the_preset_bound_and_say_so_then_refuse_the_no_op() {
        let mut e = engine("tomcat-ceiling", &[], Strategy::Sequential);
        let text = e
            .apply(Command::SetPoolSize {
                pool: e.topology.server(),
                size: u32::MAX,
            })
            .expect("grows to the bound");
        assert!(text.ends_with("-> 100000 (the most allowed)"), "{text}");
        let again = e.apply(Command::SetPoolSize {
            pool: e.topology.server(),
            size: u32::MAX,
        });
        let message = again.expect_err("a no-op").to_string();
        assert!(
            message.ends_with("threads is already 100000, the most allowed"),
            "{message}"
        );
        assert_eq!(e.pools[e.topology.server()].spec().max, MAX_THREADS);
    }

    #[test]
    fn a_bulkhead_queue_and_max_stop_at_their_bounds() {
        let mut e = engine("ironthread", &[], Strategy::Bulkhead);
        let pool = e
            .topology
            .id_of(crate::topology::PoolRole::Bulkhead(0))
            .expect("ironthread has a bulkhead");
        e.apply(Command::SetQueueCapacity {
            pool,
            capacity: Some(u32::MAX),
        })
        .expect("grows to the bound");
        assert_eq!(e.pools[pool].spec().queue_capacity, Some(MAX_QUEUE));
        e.apply(Command::SetPoolMax {
            pool,
            size: u32::MAX,
        })
        .expect("grows to the bound");
        assert_eq!(e.pools[pool].spec().max, MAX_THREADS);
        assert_eq!(MAX_QUEUE, MAX_CONNECTIONS);
    }

    #[test]
    fn a_client_started_later_sends_then_and_reaches_the_server_half_a_round_trip_after() {
        use crate::time::Nanos;
        // As at the run's start (client 0 sends at 0 and reaches the server at 20 ms), a
        // client a key starts at 1 s sends at 1 s and reaches it at 1.02 s.
        let mut e = engine(
            "tomcat-ceiling",
            &["load.clients=1", "load.rtt=\"40ms\"", "load.think=\"10s\""],
            Strategy::Sequential,
        );
        e.run_until(Nanos::from_millis(19));
        assert_eq!(e.sent(), 0);
        e.run_until(Nanos::from_secs(1));
        assert_eq!(e.sent(), 1);
        e.apply(Command::SetClients(2)).expect("grows");
        e.run_until(Nanos::from_millis(1_019));
        assert_eq!(e.sent(), 1, "sent, not yet at the server");
        e.run_until(Nanos::from_millis(1_020));
        assert_eq!(e.sent(), 2);
    }

    #[test]
    fn clients_stop_at_a_million_and_a_repeated_change_logs_nothing() {
        let mut e = engine(
            "tomcat-ceiling",
            &["load.clients=999999"],
            Strategy::Sequential,
        );
        let text = e.apply(Command::SetClients(u32::MAX)).expect("grows");
        assert_eq!(text, "clients 999999 -> 1000000 (the most allowed)");
        let logged = e.log.newest(usize::MAX).count();
        assert!(e.apply(Command::SetClients(u32::MAX)).is_err());
        assert!(e.apply(Command::SetClients(1_000_000)).is_err());
        assert_eq!(
            e.log.newest(usize::MAX).count(),
            logged,
            "a no-op is not logged"
        );
    }

    #[test]
    fn the_rate_stops_at_a_million_per_second() {
        // One second at a million per second piles up less than a run may hold.
        let mut e = engine(
            "erlang-c",
            &["scenario.duration=\"1s\""],
            Strategy::Sequential,
        );
        let text = e.apply(Command::SetRate(f64::MAX)).expect("grows");
        assert!(text.ends_with("-> 1000000/s (the most allowed)"), "{text}");
        let again = e
            .apply(Command::SetRate(f64::MAX))
            .map_err(|e| e.to_string());
        assert_eq!(
            again,
            Err("rate is already 1000000/s, the most allowed".to_owned())
        );
    }

    #[test]
    fn the_rate_stops_where_requests_would_pile_up_beyond_the_cap() {
        // erlang-c answers 2,000/s; over its 120 s a run may pile up about 3.7 million.
        let mut e = engine("erlang-c", &[], Strategy::Sequential);
        let most = e.max_rate();
        assert_eq!(most, 32_500.0);
        let text = e.apply(Command::SetRate(1_000_000.0)).expect("grows");
        assert!(
            text.ends_with(&format!(
                "-> {most}/s (the most allowed: faster, requests would pile up beyond the \
                 most a run may hold)"
            )),
            "{text}"
        );
        let again = e
            .apply(Command::SetRate(1_000_000.0))
            .map_err(|e| e.to_string());
        assert!(
            again
                .as_ref()
                .is_err_and(|m| m.starts_with(&format!("rate is already {most}/s"))),
            "{again:?}"
        );
    }
}
