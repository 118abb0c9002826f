//! One real executor: the engine's [`Pool`] state machine behind a mutex, with the jobs its
//! task keys stand for and each worker slot's wake-up call (the workers are in `executor.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use tokio_metrics::TaskMonitor;

use crate::metrics::Sampler;
use crate::time::Nanos;
use crate::topology::PoolId;
use threadlab_model::pool::{AfterTask, Pool, PoolSpec, Slot};
use threadlab_model::snapshot::PoolSnapshot;

use super::sync::lock;
use super::task::RealTask;

/// A task's key in its pool (the pool's tasks must be `Copy`; the jobs live beside it).
pub(super) type TaskId = u64;

/// What runs a pool's tasks.
pub(super) enum RunsOn {
    /// Platform threads, named like the JVM's.
    Threads,
    /// Tokio tasks (virtual threads), measured by this monitor.
    Tasks(TaskMonitor),
}

/// One executor.
pub(super) struct RealPool {
    pub(super) state: Mutex<PoolState>,
    pub runs_on: RunsOn,
}

pub(super) struct PoolState {
    pub(super) pool: Pool<TaskId>,
    pub(super) jobs: HashMap<TaskId, RealTask>,
    pub(super) next_task: TaskId,
    /// Each worker slot's wake-up call.
    pub(super) wakers: Vec<Arc<Condvar>>,
}

impl RealPool {
    pub fn new(spec: PoolSpec, runs_on: RunsOn) -> Self {
        RealPool {
            state: Mutex::new(PoolState {
                pool: Pool::new(spec),
                jobs: HashMap::new(),
                next_task: 0,
                wakers: Vec::new(),
            }),
            runs_on,
        }
    }

    /// The pool's figures now.
    pub fn snapshot(&self, id: PoolId, in_use: bool, sampler: &Sampler) -> PoolSnapshot {
        PoolSnapshot::of(id, &lock(&self.state).pool, in_use, sampler)
    }

    /// (active, queued, pool size) for the time series.
    pub fn gauges(&self) -> (u32, u32, u32) {
        let st = lock(&self.state);
        (st.pool.active(), st.pool.queued(), st.pool.pool_size())
    }

    /// `DiscardOldestPolicy`: removes the head of the queue and returns its job.
    pub fn drop_oldest(&self) -> Option<RealTask> {
        let mut st = lock(&self.state);
        let id = st.pool.drop_oldest()?;
        st.jobs.remove(&id)
    }

    /// Wakes every idle worker (the run is stopping).
    pub fn wake_all(&self) {
        for w in &lock(&self.state).wakers {
            w.notify_all();
        }
    }
}

impl PoolState {
    pub(super) fn waker(&mut self, slot: Slot) -> Arc<Condvar> {
        while self.wakers.len() <= slot as usize {
            self.wakers.push(Arc::new(Condvar::new()));
        }
        Arc::clone(&self.wakers[slot as usize])
    }

    /// The job the worker in `slot` was given.
    pub(super) fn take_job(&mut self, slot: Slot) -> Option<RealTask> {
        let id = self.pool.task_of(slot)?;
        self.jobs.remove(&id)
    }

    /// The worker's task ended (or, `signalled`, it was woken to scan): what it does next.
    pub(super) fn finish(&mut self, slot: Slot, now: Nanos, signalled: bool) -> AfterTask<TaskId> {
        let PoolState { pool, jobs, .. } = self;
        let is_stale = |id: &TaskId| {
            // AsyncSupply.run returns at once when its future already completed.
            let stale = jobs.get(id).is_none_or(RealTask::is_stale);
            if stale {
                jobs.remove(id);
            }
            stale
        };
        if signalled {
            pool.scan_signalled(slot, now, is_stale)
        } else {
            pool.finish(slot, now, is_stale)
        }
    }
}
