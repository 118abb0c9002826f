//! What a real run's threads hold besides themselves, as state shared in the world: the
//! scenario's cores (see `cores.rs`) and the connection pools (see `resources.rs`).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use crate::flow::resource::ConnectionPool;
use crate::scenario::Scenario;
use crate::time::Nanos;
use threadlab_model::snapshot::ResourceSnapshot;

use super::sync::lock;
use super::task::PermitWait;

/// The scenario's cores: who holds one, who waits for one.
pub(super) struct Cores {
    pub(super) queue: Mutex<CoreQueue>,
    /// Platform threads whose creator spent `spawn_cost` on them.
    pub(super) spawned: AtomicU64,
}

/// The cores' permits and their waiters, in the order the model's time says they asked (the
/// engine's FIFO run queue): a thread the machine woke late, or whose spin it ran late, asks
/// when its last burst ended in the model's time, not when it got to ask.
pub(super) struct CoreQueue {
    pub(super) cores: u32,
    pub(super) in_use: u32,
    /// Waiters by when they asked (scenario time), then by arrival.
    pub(super) waiters: BTreeMap<(Nanos, u64), Arc<CoreWait>>,
    pub(super) next: u64,
}

/// A thread waiting for a core: the releasing thread grants it one, from the instant of the
/// model's time it says.
#[derive(Default)]
pub(super) struct CoreWait {
    pub(super) granted: PermitWait,
    pub(super) at: AtomicU64,
}

impl Cores {
    pub fn new(scenario: &Scenario) -> Self {
        Cores {
            queue: Mutex::new(CoreQueue {
                cores: scenario.cores,
                in_use: 0,
                waiters: BTreeMap::new(),
                next: 0,
            }),
            spawned: AtomicU64::new(0),
        }
    }
}

/// A connection waiter: granted by the call that gives a connection back, unless its timeout
/// came first; and when it began to wait (scenario time).
pub(super) type ConnWait = (Arc<PermitWait>, Nanos);

/// The run's connection pools (`[[resources]]`), indexed by [`ResourceId`].
pub(super) struct Connections(pub(super) Vec<Mutex<ConnectionPool<ConnWait>>>);

impl Connections {
    pub fn new(scenario: &Scenario) -> Self {
        let pools = scenario.resources.iter().map(ConnectionPool::new);
        Connections(pools.map(Mutex::new).collect())
    }

    /// Each pool's figures now.
    pub fn snapshots(&self, scenario: &Scenario) -> Vec<ResourceSnapshot> {
        let pools = scenario.resources.iter().zip(&self.0);
        pools.map(|(r, pool)| lock(pool).snapshot(r)).collect()
    }
}
