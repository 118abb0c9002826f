//! Live reconfiguration, as a person steers a running scenario.

use crate::scenario::{LoadMode, ServiceId, Strategy};

use super::engine::{Engine, Event, PoolId, Task, ThreadRef};
use super::pool::PoolKind;
use super::{Fault, LogEntry};
use crate::topology::SERVER_POOL;

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
                if size > self.pools[pool].spec().max {
                    self.pools[pool].set_max(size);
                }
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!("{name} core {old} -> {size}"))
            }
            PoolKind::Tomcat => {
                if size == 0 {
                    return err("server threads must be at least 1");
                }
                let old = self.pools[pool].spec().max;
                if self.pools[pool].spec().core > size {
                    self.resize_core(pool, size);
                }
                self.pools[pool].set_max(size);
                self.store_sizes(pool)?;
                Ok(format!("{name} threads {old} -> {size}"))
            }
            PoolKind::ForkJoin => {
                if size == 0 {
                    return err("parallelism must be at least 1");
                }
                let old = self.pools[pool].spec().core;
                // Shrinking: idle workers beyond the parallelism go at once.
                self.pools[pool].set_max(size);
                self.resize_core(pool, size);
                self.store_sizes(pool)?;
                Ok(format!("{name} parallelism {old} -> {size}"))
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
        self.pools[pool].set_max(size);
        self.store_sizes(pool)?;
        Ok(format!("{name} max {old} -> {size}"))
    }

    fn resize_core(&mut self, pool: PoolId, size: u32) {
        let now = self.now;
        let resize = self.pools[pool].set_core(size, now);
        for (slot, at) in resize.expiries {
            self.events.push(at, Event::keep_alive(pool, slot));
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
        if pool == SERVER_POOL && capacity == Some(0) {
            return err("the server queue (maxQueueSize) must be at least 1");
        }
        if let Some(b) = self.topology.bulkhead_index(pool) {
            let policy = self.topology.rejection(pool);
            if capacity == Some(0) && policy == crate::scenario::RejectionPolicy::DiscardOldest {
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
        self.pools[pool].set_queue_capacity(capacity);
        self.store_sizes(pool)?;
        let show = |c: Option<u32>| c.map_or_else(|| "unbounded".to_string(), |c| c.to_string());
        Ok(format!("{name} queue {} -> {}", show(old), show(capacity)))
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
        if !(rate.is_finite() && rate > 0.0 && rate <= 1_000_000.0) {
            return err(format!(
                "rate must be in (0, 1000000] per second, got {rate}"
            ));
        }
        self.load = LoadMode::Open { rate, ramp: None };
        self.scenario.load.mode = self.load.clone();
        self.rate_changed_at = self.now;
        self.arrival_generation = self.arrival_generation.wrapping_add(1);
        self.schedule_next_arrival();
        Ok(format!("rate {old}/s -> {rate}/s"))
    }

    fn set_clients(&mut self, n: u32) -> Result<String, CommandError> {
        let LoadMode::Closed {
            clients: old,
            think,
        } = self.load
        else {
            return err("the load is not closed (clients): change the rate instead");
        };
        if n == 0 || n > 1_000_000 {
            return err(format!("clients must be in 1..=1000000, got {n}"));
        }
        self.load = LoadMode::Closed { clients: n, think };
        self.scenario.load.mode = self.load.clone();
        self.client_target = n;
        if self.clients_active.len() < n as usize {
            self.clients_active.resize(n as usize, false);
        }
        for client in 0..n {
            if !self.clients_active[client as usize] {
                self.clients_active[client as usize] = true;
                self.events.push(self.now, Event::ClientSend { client });
            }
        }
        Ok(format!("clients {old} -> {n}"))
    }

    /// The pools a strategy uses (for the TUI's pool selection).
    pub fn pools_of(&self, strategy: Strategy) -> Vec<PoolId> {
        self.topology.pools_in_use(strategy)
    }
}
