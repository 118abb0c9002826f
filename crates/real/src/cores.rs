//! The scenario's cores in a real run, by the model's rules ([`crate::flow::cores`]): CPU work
//! runs on one of `scenario.cores` permits, taken in FIFO order (a platform thread a slice at
//! a time, as the engine's time-sliced cores), so a scenario of fewer cores than the machine's
//! gets no more; a virtual thread blocking inside `synchronized` keeps its carrier, a permit,
//! for its whole wait (JDK 21-23); and a new platform thread costs its creator `spawn_cost` of
//! CPU before its task runs. Within the permits, the machine's own scheduler runs the spinning
//! threads.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::flow::cores::{creation_cost, next_burst};
use crate::time::Nanos;
use crate::topology::PoolId;
use threadlab_model::pool::Submitter;

use super::clock::STOP_POLL;
use super::holdings::{CoreWait, Cores};
use super::sync::{CoreEnd, Ctx, Mailbox, OnTask, lock};
use super::task::RealTask;
use super::world::World;

impl World {
    /// Takes one of the scenario's cores, after the threads that asked before this one in the
    /// model's time; returns when (scenario time) it has it, None when the run stopped
    /// meanwhile (then it holds none).
    pub(super) async fn take_core<C: Ctx>(&self, ctx: &C) -> Option<Nanos> {
        // A virtual thread still on the carrier of its last burst goes on there.
        if let Some(at) = ctx.core_end().take_kept() {
            return Some(at);
        }
        let asked = ctx.core_end().take().unwrap_or_else(|| self.clock.now());
        let waiter = Arc::new(CoreWait::default());
        {
            let mut q = lock(&self.cores.queue);
            if q.in_use < q.cores && q.waiters.is_empty() {
                q.in_use += 1;
                return Some(asked);
            }
            let key = (asked, q.next);
            q.next += 1;
            q.waiters.insert(key, Arc::clone(&waiter));
        }
        loop {
            if waiter.granted.granted() {
                return Some(Nanos(waiter.at.load(Ordering::SeqCst)));
            }
            if ctx.stopped() {
                if !waiter.granted.give_up() {
                    // Handed over at the last moment: give it on.
                    self.give_core(self.clock.now());
                }
                return None;
            }
            ctx.wait(&waiter.granted.wake, Instant::now() + STOP_POLL)
                .await;
        }
    }

    /// Gives a core back at `at` (scenario time): the waiter that asked first gets it, from
    /// then or from when it asked, whichever is later.
    pub(super) fn give_core(&self, at: Nanos) {
        self.cores.give(at);
    }
}

impl Cores {
    /// See [`World::give_core`].
    pub(super) fn give(&self, at: Nanos) {
        let next = {
            let mut q = lock(&self.queue);
            q.in_use = q.in_use.saturating_sub(1);
            let mut next = None;
            while let Some(((asked, _), waiter)) = q.waiters.pop_first() {
                waiter.at.store(at.max(asked).0, Ordering::SeqCst);
                if waiter.granted.grant() {
                    q.in_use += 1;
                    next = Some(waiter);
                    break;
                }
            }
            next
        };
        if let Some(waiter) = next {
            waiter.granted.wake.push(());
        }
    }
}

impl World {
    /// Runs `cpu` (scenario time) of CPU work on this thread, on the scenario's cores: a
    /// burst at a time ([`next_burst`]), each on a core taken for it; false when the run
    /// stopped meanwhile. Each burst ends, in the model's time, `burst` after its core came.
    pub(super) async fn run_cpu<C: Ctx>(&self, ctx: &C, cpu: Nanos) -> bool {
        let mut left = cpu;
        while left > Nanos::ZERO {
            let burst = next_burst(self.scenario.cpu_scheduling, ctx.on_virtual(), left);
            let Some(from) = self.take_core(ctx).await else {
                return false;
            };
            self.spin_held(burst);
            left = left.saturating_sub(burst);
            if left == Nanos::ZERO && ctx.on_virtual() {
                // A virtual thread keeps its carrier until it parks (`OnVirtual`).
                ctx.core_end().keep(from + burst);
            } else {
                self.give_core(from + burst);
                ctx.core_end().set(from + burst);
            }
        }
        true
    }

    /// Spins `cpu` (scenario time) on the core this thread holds.
    pub(super) fn spin_held(&self, cpu: Nanos) {
        let real = self.clock.real(cpu);
        if !real.is_zero() {
            super::cpu::spin(real);
        }
    }

    /// `supplyAsync(call, pool)` from this thread (`who`): as [`World::submit_from`], and when
    /// the pool starts a platform thread for the call, this thread first spends the thread's
    /// creation (`spawn_cost`) on a core, its submission pausing meanwhile; the call runs once
    /// the thread exists, as in the engine.
    pub(super) async fn submit_call<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        pool: PoolId,
        job: RealTask,
        who: Submitter,
    ) -> Result<(), RealTask> {
        let cost = creation_cost(&self.scenario, &self.topology.pools()[pool].spec, true);
        if cost == Nanos::ZERO {
            return self.submit_from(pool, job, who);
        }
        let Some(slot) = self.submit_from_deferred(pool, job, who)? else {
            return Ok(());
        };
        self.cores.spawned.fetch_add(1, Ordering::Relaxed);
        // Stopped meanwhile, the new thread still starts, and sees the stop at once.
        let _ran = self.run_cpu(ctx, cost).await;
        self.start_created(pool, slot);
        Ok(())
    }

    /// The cores the thread creations of the run so far needed, over `elapsed` of scenario
    /// time (for the pace's `cores_needed`).
    pub(super) fn spawn_cores(&self, elapsed: Nanos) -> f64 {
        let secs = elapsed.as_secs_f64();
        if secs <= 0.0 {
            return 0.0;
        }
        let spawned = self.cores.spawned.load(Ordering::Relaxed) as f64;
        spawned * self.scenario.spawn_cost.as_secs_f64() / secs
    }
}

/// A virtual thread (a tokio task of a virtual-thread pool): awaits as [`OnTask`], and gives
/// back the carrier it kept after a CPU burst when it parks (a virtual thread unmounts only
/// when it blocks).
pub(super) struct OnVirtual<'a> {
    pub task: OnTask<'a>,
    pub cores: &'a Cores,
}

impl OnVirtual<'_> {
    /// Parks: the carrier kept since the last burst's end goes back at that end.
    pub fn unmount(&self) {
        if let Some(at) = self.task.1.take_kept() {
            self.cores.give(at);
        }
    }
}

impl Ctx for OnVirtual<'_> {
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = bool> + Send {
        self.unmount();
        self.task.sleep_until(deadline)
    }

    fn wait<T: Send>(
        &self,
        mailbox: &Mailbox<T>,
        deadline: Instant,
    ) -> impl Future<Output = ()> + Send {
        self.unmount();
        self.task.wait(mailbox, deadline)
    }

    fn stopped(&self) -> bool {
        self.task.stopped()
    }

    fn on_virtual(&self) -> bool {
        true
    }

    fn core_end(&self) -> &CoreEnd {
        &self.task.1
    }
}
