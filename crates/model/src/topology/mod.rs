//! The shape of a run, built once from a [`Scenario`] and shared by the engine, the real
//! world, theory and the TUI: which pools exist and what each is for, which pool serves a call
//! of a service under a strategy, each pool's rejection policy, and how calls are numbered.
//!
//! Pools are addressed by [`PoolId`]; what a pool *is* is its [`PoolRole`], so no code needs
//! to know where in the list a kind of pool sits.

mod spec;

pub use spec::{PoolKind, PoolSpec, StoreError, common_pool_per_task, pool_spec};

use crate::scenario::{RejectionPolicy, Scenario, ServiceId, Strategy};

/// A pool of a run (the engine's pools, the real executors, a snapshot's pools). Ask the
/// [`Topology`] which pool plays a role ([`Topology::server`], [`Topology::id_of`]); the
/// number inside is where the pool sits in [`Pools`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PoolId(u32);

impl PoolId {
    /// The pool's place in its run's [`Pools`] (and in per-pool tables such as the sampler's).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id as a number, for tables that keep it small.
    pub fn raw(self) -> u32 {
        self.0
    }

    fn at(index: usize) -> PoolId {
        // A run has a handful of pools (validation bounds the bulkheads).
        PoolId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

impl std::fmt::Display for PoolId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The web server's request pool: first in every run.
const SERVER_POOL: PoolId = PoolId(0);
/// The common pool (or its thread-per-task fallback) for `shared`.
const SHARED_POOL: PoolId = PoolId(1);
/// One thread per call, for `unbounded`.
const UNBOUNDED_POOL: PoolId = PoolId(2);

/// One value per pool of a run, in the topology's order, indexed by [`PoolId`] (a plain
/// vector inside: no lookup beyond the index).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pools<T>(Vec<T>);

impl<T> Pools<T> {
    pub fn get(&self, id: PoolId) -> Option<&T> {
        self.0.get(id.index())
    }

    pub fn get_mut(&mut self, id: PoolId) -> Option<&mut T> {
        self.0.get_mut(id.index())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Every pool's id, in order.
    pub fn ids(&self) -> impl Iterator<Item = PoolId> + use<T> {
        (0..self.0.len()).map(PoolId::at)
    }

    /// Each pool with its id, in order.
    pub fn enumerate(&self) -> impl Iterator<Item = (PoolId, &T)> {
        self.0.iter().enumerate().map(|(i, p)| (PoolId::at(i), p))
    }

    /// A value per pool, from each pool's.
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> Pools<U> {
        Pools(self.0.iter().map(f).collect())
    }
}

impl<T> FromIterator<T> for Pools<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Pools(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a Pools<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> std::ops::Index<PoolId> for Pools<T> {
    type Output = T;
    fn index(&self, id: PoolId) -> &T {
        &self.0[id.index()]
    }
}

impl<T> std::ops::IndexMut<PoolId> for Pools<T> {
    fn index_mut(&mut self, id: PoolId) -> &mut T {
        &mut self.0[id.index()]
    }
}

/// What a pool is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolRole {
    /// Tomcat's connector executor (or a virtual thread per request).
    Server,
    /// `ForkJoinPool.commonPool()`, the default executor of `supplyAsync`.
    Shared,
    /// A new thread per call.
    Unbounded,
    /// The bulkhead of `[[strategy.bulkhead]]` number `n` (preset order).
    Bulkhead(usize),
}

impl PoolRole {
    /// The pools every run has, in [`PoolId`] order; bulkheads follow.
    const FIXED: [PoolRole; 3] = [PoolRole::Server, PoolRole::Shared, PoolRole::Unbounded];

    /// True when the strategy's calls (or its handlers) run on a pool of this role.
    pub fn serves(self, strategy: Strategy) -> bool {
        match self {
            PoolRole::Server => true,
            PoolRole::Shared => strategy == Strategy::Shared,
            PoolRole::Unbounded => strategy == Strategy::Unbounded,
            PoolRole::Bulkhead(_) => strategy == Strategy::Bulkhead,
        }
    }
}

/// One pool of a run: its role, its configuration at the start, its rejection policy.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolPlan {
    pub role: PoolRole,
    pub spec: PoolSpec,
    /// What a rejected submission does: a bulkhead's configured policy; the JDK's default
    /// `AbortPolicy` elsewhere.
    pub rejection: RejectionPolicy,
}

/// The pools of a run and how calls reach them.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    pools: Pools<PoolPlan>,
    /// For each service, the bulkhead pool its calls go to.
    bulkhead_of: Vec<Option<PoolId>>,
    /// The flat number of each stage's first call.
    stage_offsets: Vec<usize>,
    /// The service of each call, by call number.
    call_services: Vec<ServiceId>,
}

impl Topology {
    pub fn new(scenario: &Scenario) -> Self {
        let bulkheads = &scenario.strategy.bulkheads;
        let roles = PoolRole::FIXED
            .into_iter()
            .chain((0..bulkheads.len()).map(PoolRole::Bulkhead));
        let pools: Pools<PoolPlan> = roles
            .map(|role| PoolPlan {
                role,
                spec: pool_spec(scenario, role),
                rejection: match role {
                    PoolRole::Bulkhead(b) => bulkheads[b].rejection,
                    _ => RejectionPolicy::Abort,
                },
            })
            .collect();
        let mut bulkhead_of = vec![None; scenario.services.len()];
        for (id, plan) in pools.enumerate() {
            if let PoolRole::Bulkhead(b) = plan.role {
                for s in &bulkheads[b].services {
                    bulkhead_of[s.0] = Some(id);
                }
            }
        }
        let mut stage_offsets = Vec::with_capacity(scenario.endpoint.stages.len());
        let mut call_services = Vec::with_capacity(scenario.endpoint.call_count());
        for stage in &scenario.endpoint.stages {
            stage_offsets.push(call_services.len());
            call_services.extend_from_slice(stage);
        }
        let topology = Topology {
            pools,
            bulkhead_of,
            stage_offsets,
            call_services,
        };
        debug_assert_eq!(topology.id_of(PoolRole::Server), Some(SERVER_POOL));
        debug_assert_eq!(topology.id_of(PoolRole::Shared), Some(SHARED_POOL));
        debug_assert_eq!(topology.id_of(PoolRole::Unbounded), Some(UNBOUNDED_POOL));
        topology
    }

    /// Every pool, indexed by [`PoolId`].
    pub fn pools(&self) -> &Pools<PoolPlan> {
        &self.pools
    }

    /// The web server's request pool, which every run has.
    pub fn server(&self) -> PoolId {
        SERVER_POOL
    }

    /// The pools' configurations at the start, indexed by [`PoolId`].
    pub fn specs(&self) -> impl Iterator<Item = &PoolSpec> {
        self.pools.iter().map(|p| &p.spec)
    }

    pub fn role(&self, pool: PoolId) -> Option<PoolRole> {
        self.pools.get(pool).map(|p| p.role)
    }

    /// The pool playing `role`.
    pub fn id_of(&self, role: PoolRole) -> Option<PoolId> {
        self.pools
            .enumerate()
            .find(|(_, p)| p.role == role)
            .map(|(id, _)| id)
    }

    /// The bulkhead a pool is, if it is one (its index in `[[strategy.bulkhead]]`).
    pub fn bulkhead_index(&self, pool: PoolId) -> Option<usize> {
        match self.role(pool)? {
            PoolRole::Bulkhead(b) => Some(b),
            _ => None,
        }
    }

    /// What a rejected submission to `pool` does.
    pub fn rejection(&self, pool: PoolId) -> RejectionPolicy {
        self.pools
            .get(pool)
            .map_or(RejectionPolicy::Abort, |p| p.rejection)
    }

    /// The pool a call of `service` goes to under `strategy`; none when the handler makes
    /// the call itself (sequential).
    pub fn pool_for(&self, strategy: Strategy, service: ServiceId) -> Option<PoolId> {
        match strategy {
            Strategy::Sequential | Strategy::Semaphore => None,
            Strategy::Shared => Some(SHARED_POOL),
            Strategy::Unbounded => Some(UNBOUNDED_POOL),
            Strategy::Bulkhead => self.bulkhead_of.get(service.0).copied().flatten(),
        }
    }

    /// The bulkhead pool of a service (for the services panel), under any strategy.
    pub fn bulkhead_of(&self, service: ServiceId) -> Option<PoolId> {
        self.bulkhead_of.get(service.0).copied().flatten()
    }

    /// The pools `strategy` uses: the server's, then those its calls run on.
    pub fn pools_in_use(&self, strategy: Strategy) -> Vec<PoolId> {
        self.pools
            .enumerate()
            .filter(|(_, p)| p.role.serves(strategy))
            .map(|(id, _)| id)
            .collect()
    }

    /// The flat number of call `index` of `stage`: calls are numbered across the endpoint's
    /// stages from 0, and the number keys the call's draws.
    pub fn call_number(&self, stage: usize, index: usize) -> u16 {
        let offset = self.stage_offsets.get(stage).copied().unwrap_or(0);
        // Validation bounds the endpoint's call count well below u16::MAX.
        u16::try_from(offset + index).unwrap_or(u16::MAX)
    }

    /// Writes the live sizes of `pool` into `scenario` (see [`spec::store_sizes`]).
    pub fn store_sizes(
        &self,
        scenario: &mut Scenario,
        pool: PoolId,
        spec: &PoolSpec,
    ) -> Result<(), StoreError> {
        match self.role(pool) {
            Some(role) => spec::store_sizes(scenario, role, spec),
            None => Err(StoreError::NoPool(pool)),
        }
    }

    /// The service call number `call` goes to; a retried call's later attempts
    /// ([`crate::flow::CallSlots`]) go where its first went.
    pub fn service_of(&self, call: u16) -> ServiceId {
        // Calls are numbered from the endpoint, so every number has a service.
        let i = call as usize;
        let first = match self.call_services.get(i) {
            Some(&service) => return service,
            None => i % self.call_services.len().max(1),
        };
        self.call_services
            .get(first)
            .copied()
            .unwrap_or(ServiceId(0))
    }

    /// How the attempts of a request's calls are numbered.
    pub fn call_slots(&self) -> crate::flow::CallSlots {
        crate::flow::CallSlots::new(self.call_services.len())
    }
}

#[cfg(test)]
mod tests;
