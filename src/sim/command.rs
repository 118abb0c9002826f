//! Live reconfiguration, as a person steers a running scenario.

use crate::scenario::{
    LoadMode, MAX_CLIENTS, MAX_QUEUE, MAX_RATE, MAX_THREADS, ServiceId, Strategy,
};

use super::engine::{Engine, Event, PoolId, Task, ThreadRef};
use super::pool::PoolKind;
use super::{Fault, LogEntry};
use crate::topology::Topology;

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

/// Why a command could not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, CommandError> {
    Err(CommandError(msg.into()))
}

/// `wanted` held to `max` (the bound presets have too, see `scenario::limits`); an error when
/// that changes nothing, so a key held at a bound says so instead of logging `5 -> 5`.
fn bounded(what: &str, old: u32, wanted: u32, max: u32) -> Result<u32, CommandError> {
    let new = wanted.min(max);
    if new == old && wanted > max {
        err(format!("{what} is already {old}, the most allowed"))
    } else if new == old {
        err(format!("{what} is already {old}"))
    } else {
        Ok(new)
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
            Command::SetRate(rate) => self.set_rate(rate)?,
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
        self.schedule_signals();
        self.push_log(LogEntry::Change {
            at: self.now,
            text: text.clone(),
        });
        Ok(text)
    }

    fn service_name(&self, service: ServiceId) -> Result<String, CommandError> {
        match self.scenario.services.get(service.0) {
            Some(s) => Ok(s.name.clone()),
            None => err(format!("no service #{}", service.0)),
        }
    }

    fn pool_checked(&self, pool: PoolId) -> Result<PoolKind, CommandError> {
        match self.pools.get(pool) {
            Some(p) => Ok(p.spec().kind),
            None => err(format!("no pool #{pool}")),
        }
    }

    fn set_pool_size(&mut self, pool: PoolId, size: u32) -> Result<String, CommandError> {
        let kind = self.pool_checked(pool)?;
        let name = self.pools[pool].spec().name.clone();
        match kind {
            PoolKind::PerTask => err(format!("{name} starts a new thread per task: no size")),
            PoolKind::ThreadPool => {
                let old = self.pools[pool].spec().core;
                let (wanted, size) = (
                    size,
                    bounded(&format!("{name} core"), old, size, MAX_THREADS)?,
                );
                if size > self.pools[pool].spec().max {
                    self.pools[pool].set_max(size);
                }
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!(
                    "{name} core {old} -> {size}{}",
                    at_bound(wanted, size)
                ))
            }
            PoolKind::Tomcat => {
                if size == 0 {
                    return err("server threads must be at least 1");
                }
                let old = self.pools[pool].spec().max;
                let (wanted, size) = (
                    size,
                    bounded(&format!("{name} threads"), old, size, MAX_THREADS)?,
                );
                if self.pools[pool].spec().core > size {
                    self.resize_core(pool, size);
                }
                self.pools[pool].set_max(size);
                self.store_sizes(pool)?;
                Ok(format!(
                    "{name} threads {old} -> {size}{}",
                    at_bound(wanted, size)
                ))
            }
            PoolKind::ForkJoin => {
                if size == 0 {
                    return err("parallelism must be at least 1");
                }
                let old = self.pools[pool].spec().core;
                let (wanted, size) = (
                    size,
                    bounded(&format!("{name} parallelism"), old, size, MAX_THREADS)?,
                );
                // Shrinking: idle workers beyond the parallelism go at once.
                self.pools[pool].set_max(size);
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!(
                    "{name} parallelism {old} -> {size}{}",
                    at_bound(wanted, size)
                ))
            }
        }
    }

    fn set_pool_max(&mut self, pool: PoolId, size: u32) -> Result<String, CommandError> {
        let kind = self.pool_checked(pool)?;
        let spec = self.pools[pool].spec();
        let name = spec.name.clone();
        if !matches!(kind, PoolKind::ThreadPool | PoolKind::Tomcat) {
            return err(format!("{name} has no maximum pool size"));
        }
        if size == 0 || size < spec.core {
            // ThreadPoolExecutor.setMaximumPoolSize throws IllegalArgumentException.
            return err(format!(
                "{name} max must be >= core ({}) and >= 1, got {size}",
                spec.core
            ));
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
        let now = self.now;
        let resize = self.pools[pool].set_core(size, now);
        for (slot, at) in resize.expiries {
            self.schedule(at, Event::keep_alive(pool, slot));
        }
        for (slot, task) in resize.started {
            if let Task::Call(r, call) = task
                && self
                    .requests
                    .get(r)
                    .is_some_and(|q| q.calls[call as usize].future_done)
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
            return err(format!("{name} has no bounded queue"));
        }
        if pool == self.topology.server() && capacity == Some(0) {
            return err("the server queue (maxQueueSize) must be at least 1");
        }
        if let Some(b) = self.topology.bulkhead_index(pool) {
            let policy = self.topology.rejection(pool);
            if capacity == Some(0) && crate::flow::Rejection::of(policy).needs_queue() {
                return err(format!(
                    "{name} uses discard-oldest, which needs a queue of at least 1"
                ));
            }
            if capacity.is_none() {
                return err(format!(
                    "{name} is bounded (bulkhead #{}): give its queue a capacity",
                    b + 1
                ));
            }
        }
        let old = self.pools[pool].spec().queue_capacity;
        let wanted = capacity;
        let capacity = match (old, capacity) {
            (Some(o), Some(c)) => Some(bounded(&format!("{name} queue"), o, c, MAX_QUEUE)?),
            (None, None) => return err(format!("{name} queue is already unbounded")),
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
        self.topology
            .store_sizes(&mut self.scenario, pool, spec)
            .map_err(CommandError)
    }

    fn set_rate(&mut self, rate: f64) -> Result<String, CommandError> {
        let LoadMode::Open { rate: old, .. } = self.load else {
            return err("the load is not open (Poisson): change clients instead");
        };
        if !(rate.is_finite() && rate > 0.0) {
            return err(format!("rate must be above 0 per second, got {rate}"));
        }
        let wanted = rate;
        let most = self.max_rate();
        let rate = rate.min(most);
        // Beyond what the limits allow for this run, requests would pile up past its cap.
        let why = if most < MAX_RATE {
            ": faster, requests would pile up beyond the most a run may hold"
        } else {
            ""
        };
        if rate == old || (rate < old && wanted > old) {
            return err(format!(
                "rate is already {old}/s{}",
                if wanted > rate {
                    format!(", the most allowed{why}")
                } else {
                    String::new()
                }
            ));
        }
        self.load = LoadMode::Open { rate, ramp: None };
        self.scenario.load.mode = self.load.clone();
        self.rate_changed_at = self.now;
        self.arrival_generation = self.arrival_generation.wrapping_add(1);
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

    fn set_clients(&mut self, n: u32) -> Result<String, CommandError> {
        let LoadMode::Closed {
            clients: old,
            think,
        } = self.load
        else {
            return err("the load is not closed (clients): change the rate instead");
        };
        if n == 0 {
            return err("clients must be at least 1");
        }
        let (wanted, n) = (n, bounded("clients", old, n, MAX_CLIENTS)?);
        self.load = LoadMode::Closed { clients: n, think };
        self.scenario.load.mode = self.load.clone();
        self.client_target = n;
        if self.net.clients.len() < n as usize {
            self.net.clients.resize(n as usize, Default::default());
        }
        let now = self.now;
        for client in 0..n {
            let state = &mut self.net.clients[client as usize];
            if !state.active {
                // A client that comes (back) to life waits from now, not from its last answer.
                state.active = true;
                state.last_answer_at = now;
                self.schedule(now, Event::ClientSend { client });
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
        let message = again.expect_err("a no-op").0;
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
    fn clients_stop_at_a_million_and_a_repeated_change_logs_nothing() {
        let mut e = engine(
            "tomcat-ceiling",
            &["load.clients=999999"],
            Strategy::Sequential,
        );
        let text = e.apply(Command::SetClients(u32::MAX)).expect("grows");
        assert_eq!(text, "clients 999999 -> 1000000 (the most allowed)");
        let logged = e.log.len();
        assert!(e.apply(Command::SetClients(u32::MAX)).is_err());
        assert!(e.apply(Command::SetClients(1_000_000)).is_err());
        assert_eq!(e.log.len(), logged, "a no-op is not logged");
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
        let again = e.apply(Command::SetRate(f64::MAX)).map_err(|e| e.0);
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
        let again = e.apply(Command::SetRate(1_000_000.0)).map_err(|e| e.0);
        assert!(
            again
                .as_ref()
                .is_err_and(|m| m.starts_with(&format!("rate is already {most}/s"))),
            "{again:?}"
        );
    }
}
