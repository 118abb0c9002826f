//! Common-pool workers released by `signalWork` run after a wake-up or start delay: the pool
//! lists them, the engine schedules their scans, and a scan's outcome is handled like the
//! end of a task.

use super::engine::Engine;
use super::event::Event;
use super::handles::Task;
use super::pool::{AfterTask, Slot};
use crate::time::Nanos;
use crate::topology::PoolId;

impl Engine {
    /// Schedules the scans of the workers the last event released.
    #[inline(always)]
    pub(super) fn schedule_signals(&mut self) {
        // Only the common pool signals (`ForkJoinPool.signalWork`): the other pools are not
        // looked at after every event, and nothing more is done while none has signalled.
        if self.pools_called
            && self
                .fork_join_pools
                .iter()
                .any(|&pool| self.pools[pool].has_signals())
        {
            self.schedule_released_workers();
        }
    }

    #[cold]
    #[inline(never)]
    fn schedule_released_workers(&mut self) {
        for i in 0..self.fork_join_pools.len() {
            let pool = self.fork_join_pools[i];
            if !self.pools[pool].has_signals() {
                continue;
            }
            let platform = !self.pools[pool].spec().virtual_threads;
            for signal in self.pools[pool].take_signals() {
                // A new worker scans once its thread exists: a scenario that measured thread
                // creation (`spawn_cost`) says how long that takes.
                let spawn = self.scenario.spawn_cost;
                let delay = if signal.started && platform && spawn > Nanos::ZERO {
                    spawn
                } else {
                    signal.delay
                };
                let slot = signal.slot;
                self.schedule(self.now + delay, Event::Signalled { pool, slot });
            }
        }
    }

    /// A released worker scans: it runs the task it finds, or parks again.
    pub(super) fn on_signalled(&mut self, pool: PoolId, slot: Slot) {
        let (now, slots) = (self.now, self.guards.slots);
        let mut stale = Vec::new();
        let requests = &self.requests;
        let Some(p) = self.pools.get_mut(pool) else {
            return;
        };
        let after = p.scan_signalled(slot, now, |task| {
            let Task::Call(r, call) = *task else {
                return false;
            };
            // AsyncSupply.run returns at once when its future already completed.
            let done = requests
                .get(r)
                .is_none_or(|req| !req.may_complete(slots, call));
            if done && requests.get(r).is_some() {
                stale.push((r, call));
            }
            done
        });
        for (r, call) in stale {
            self.drop_stale_call(r, call);
        }
        match after {
            AfterTask::Runs(task) => self.start_task(pool, slot, task),
            AfterTask::Idle { check_at: Some(at) } => {
                self.schedule(at, Event::KeepAlive { pool, slot });
            }
            AfterTask::Idle { check_at: None } | AfterTask::Exited => {}
        }
    }
}
