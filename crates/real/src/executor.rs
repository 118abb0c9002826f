//! Real executors over the engine's rules: each pool is a [`Pool`] state machine behind a
//! mutex, deciding every admission exactly as the simulation does, with real workers acting on
//! its decisions. A worker is an OS thread named `prefix-N` (ThreadPoolExecutor, Tomcat,
//! ForkJoin, thread-per-task) or a tokio task (virtual threads).
//!
//! `submit` asks the pool: `Started(slot)` either wakes that idle worker (each waits on its own
//! condition variable, so the pool's FIFO choice of the longest idle thread is the one that
//! runs) or starts a new one; `Queued` leaves the task for `finish`, which hands a worker the
//! head of the queue (skipping tasks whose future already completed) or sends it idle with a
//! keep-alive deadline. The common pool always queues; the workers its `signalWork` released
//! are started or woken and scan for themselves (`Pool::scan_signalled`).

use std::sync::Arc;

use crate::time::Nanos;
use crate::topology::PoolId;
use threadlab_model::pool::{Admission, AfterTask, KeepAlive, Pool, Slot, Submitter};

use super::RealFailure;
use super::clock::STOP_POLL;
use super::cores::OnVirtual;
use super::keepalive::AfterResponse;
use super::pool::{PoolState, RunsOn, TaskId};
use super::sync::{CoreEnd, Ctx, OnTask, OnThread, block_on, lock};
use super::task::{Deferred, RealTask};
use super::world::World;

impl World {
    /// `execute(task)` on pool `pool` from a thread outside the pools, now.
    pub(super) fn submit(self: &Arc<Self>, pool: PoolId, job: RealTask) -> Result<(), RealTask> {
        let now = self.clock.now();
        self.offer(pool, job, |p, id| p.submit_at(id, now), false)
            .map(|_| ())
    }

    /// `execute(task)` on pool `pool` from thread `who`: the job runs or waits, or comes back
    /// when rejected.
    pub(super) fn submit_from(
        self: &Arc<Self>,
        pool: PoolId,
        job: RealTask,
        who: Submitter,
    ) -> Result<(), RealTask> {
        self.offer(pool, job, |p, id| p.submit_from(id, who), false)
            .map(|_| ())
    }

    /// As [`World::submit_from`], but a new thread the pool starts for the job is left to
    /// the caller to start ([`World::start_created`]): its slot is returned.
    pub(super) fn submit_from_deferred(
        self: &Arc<Self>,
        pool: PoolId,
        job: RealTask,
        who: Submitter,
    ) -> Result<Option<Slot>, RealTask> {
        self.offer(pool, job, |p, id| p.submit_from(id, who), true)
    }

    /// Starts the thread the pool created in `slot` for a job already given to it.
    pub(super) fn start_created(self: &Arc<Self>, pool: PoolId, slot: Slot) {
        let mut st = lock(&self.pools[pool].state);
        self.start_worker(pool, slot, &mut st);
    }

    /// Asks the pool to take `job`; a new thread is started now, or left to the caller
    /// (`defer_start`, its slot returned).
    fn offer(
        self: &Arc<Self>,
        pool: PoolId,
        job: RealTask,
        admit: impl FnOnce(&mut Pool<TaskId>, TaskId) -> Admission,
        defer_start: bool,
    ) -> Result<Option<Slot>, RealTask> {
        let p = &self.pools[pool];
        let mut st = lock(&p.state);
        let id = st.next_task;
        st.next_task += 1;
        let created = st.pool.stats().threads_created;
        match admit(&mut st.pool, id) {
            Admission::Rejected => Err(job),
            Admission::Queued => {
                st.jobs.insert(id, job);
                self.release_signalled(pool, &mut st);
                Ok(None)
            }
            Admission::Started(slot) => {
                st.jobs.insert(id, job);
                if st.pool.stats().threads_created > created {
                    if defer_start {
                        return Ok(Some(slot));
                    }
                    self.start_worker(pool, slot, &mut st);
                } else {
                    st.waker(slot).notify_one();
                }
                Ok(None)
            }
        }
    }

    /// Starts or wakes the common-pool workers `signalWork` released; each scans for itself.
    fn release_signalled(self: &Arc<Self>, pool: PoolId, st: &mut PoolState) {
        for signal in st.pool.take_signals() {
            if signal.started {
                self.start_worker(pool, signal.slot, st);
            } else {
                st.waker(signal.slot).notify_one();
            }
        }
    }

    /// The thread named `me` (a worker's `prefix-N`) as the pools tell submitters apart, as
    /// the engine does: its pool and number.
    pub(super) fn submitter_named(&self, me: &str) -> Submitter {
        self.topology
            .pools()
            .enumerate()
            .find_map(|(pool, plan)| {
                let number = me.strip_prefix(plan.spec.prefix.as_str())?.parse().ok()?;
                Some(Submitter {
                    pool: u32::try_from(pool.index()).ok()?,
                    number,
                })
            })
            .unwrap_or(Submitter::OUTSIDE)
    }

    /// Starts the threads a pool prestarts (Tomcat's `minSpareThreads`).
    pub(super) fn prestart(self: &Arc<Self>, pool: PoolId) {
        let mut st = lock(&self.pools[pool].state);
        let slots: Vec<Slot> = (0..st.pool.pool_size()).collect();
        for slot in slots {
            self.start_worker(pool, slot, &mut st);
        }
    }

    fn start_worker(self: &Arc<Self>, pool: PoolId, slot: Slot, st: &mut PoolState) {
        let name = st.pool.thread_name(st.pool.thread_number(slot));
        st.waker(slot);
        let world = Arc::clone(self);
        match &self.pools[pool].runs_on {
            RunsOn::Threads => {
                let spawned = std::thread::Builder::new()
                    .name(name.clone())
                    .stack_size(WORKER_STACK)
                    .spawn(move || world.worker_loop(pool, slot));
                match spawned {
                    Ok(handle) => self.keep_handle(handle),
                    Err(e) => self.fail(RealFailure::Thread {
                        name,
                        error: Arc::new(e),
                    }),
                }
            }
            RunsOn::Tasks(monitor) => {
                let task = monitor.instrument(world.task_loop(pool, slot, name));
                drop(self.rt.spawn(task));
            }
        }
    }

    /// A platform worker: runs its task, asks the pool what next, waits idle (with the pool's
    /// keep-alive) until given another task, and exits when the pool says so.
    fn worker_loop(self: Arc<Self>, pool: PoolId, slot: Slot) {
        let me = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        let ctx = OnThread(&self.stop, CoreEnd::default());
        let p = &self.pools[pool];
        // A keep-alive check that is due, carried across tasks like the engine's event.
        let mut check_at: Option<Nanos> = None;
        let mut st = lock(&p.state);
        loop {
            if self.stop.is_stopped() {
                return;
            }
            if st.pool.task_of(slot).is_some() {
                drop(st);
                let after = self.run_held_task(&ctx, pool, slot, &me);
                st = lock(&p.state);
                if !carries_on(after, &mut check_at) {
                    return;
                }
                continue;
            }
            let now = self.clock.now();
            if st.pool.is_signalled(slot) {
                let after = st.finish(slot, now, true);
                self.release_signalled(pool, &mut st);
                if !carries_on(after, &mut check_at) {
                    return;
                }
                continue;
            }
            if let Some(at) = check_at
                && now >= at
            {
                match st.pool.check_keep_alive(slot, now) {
                    KeepAlive::Exited => return,
                    KeepAlive::CheckAt(next) => check_at = Some(next),
                    KeepAlive::Stays => check_at = None,
                }
                continue;
            }
            let wait = check_at.map_or(STOP_POLL, |at| {
                self.clock.real(at.saturating_sub(now)).min(STOP_POLL)
            });
            let waker = st.waker(slot);
            st = waker
                .wait_timeout(st, wait)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }

    /// A platform worker runs the task it holds, then goes back to its pool, which tells
    /// what it does next.
    fn run_held_task(
        self: &Arc<Self>,
        ctx: &OnThread<'_>,
        pool: PoolId,
        slot: Slot,
        me: &str,
    ) -> AfterTask<TaskId> {
        let p = &self.pools[pool];
        let job = lock(&p.state).take_job(slot);
        let (after_job, post) = block_on(self.serve(ctx, job, me));
        let mut st = lock(&p.state);
        let now = self.clock.now();
        let after = st.finish(slot, now, false);
        if pool == self.topology.server() && post > Nanos::ZERO {
            // Its post-response work: a request arriving meanwhile does not find it idle.
            st.pool.busy_until(slot, now + post);
        }
        self.release_signalled(pool, &mut st);
        drop(st);
        // The worker is back in its pool before its future completes or its response goes
        // out, as in the engine.
        self.apply(after_job);
        after
    }

    /// A worker runs the task its pool gave it, and after a response the requests it reads
    /// at once on the same connection (the keep-alive fast path); returns what it defers
    /// until it is back in its pool, and its post-response work.
    async fn serve<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        mut job: Option<RealTask>,
        me: &str,
    ) -> (Deferred, Nanos) {
        loop {
            let done = match job {
                Some(job) => self.run_job(ctx, job, me).await,
                None => Deferred::None,
            };
            match self.after_response(ctx, done).await {
                AfterResponse::Serves(req) => job = Some(RealTask::Handler(req)),
                AfterResponse::Back { deferred, post } => return (deferred, post),
            }
        }
    }

    /// A virtual thread: runs its task (and any it is handed) and exits.
    async fn task_loop(self: Arc<Self>, pool: PoolId, slot: Slot, me: String) {
        let ctx = OnVirtual {
            task: OnTask(&self.stop, CoreEnd::default()),
            cores: &self.cores,
        };
        let p = &self.pools[pool];
        loop {
            let job = lock(&p.state).take_job(slot);
            let (after_job, _post) = self.serve(&ctx, job, &me).await;
            // Its task is done: it parks.
            ctx.unmount();
            let after = lock(&p.state).finish(slot, self.clock.now(), false);
            self.apply(after_job);
            if !matches!(after, AfterTask::Runs(_)) || self.stop.is_stopped() {
                return;
            }
        }
    }
}

/// Stack of a platform worker: request code keeps little on the stack, and a small stack
/// lets thousands of threads start without reserving gigabytes.
const WORKER_STACK: usize = 256 * 1024;

/// Whether a worker lives on after its task (or its scan) ended; an idle one remembers when
/// its keep-alive check is due.
fn carries_on<T>(after: AfterTask<T>, check_at: &mut Option<Nanos>) -> bool {
    match after {
        AfterTask::Exited => false,
        AfterTask::Runs(_) => true,
        AfterTask::Idle { check_at: at } => {
            *check_at = at.or(*check_at);
            true
        }
    }
}
