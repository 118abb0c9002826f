//! Thread pools with the JVM's exact admission rules.
//!
//! One [`Pool`] type plays four executors, told apart by [`PoolKind`]:
//! - `ThreadPool`: `java.util.concurrent.ThreadPoolExecutor` (Spring's `ThreadPoolTaskExecutor`,
//!   resilience4j's `ThreadPoolBulkhead`): a new thread below core even if others are idle; at
//!   core, queue first; grow towards max only when the queue is full; otherwise reject.
//! - `Tomcat`: Tomcat's connector executor, whose `TaskQueue` refuses offers while the pool can
//!   still grow, so it creates threads up to max *before* queueing; `min_spare` threads are
//!   prestarted.
//! - `ForkJoin`: the common pool: a submitting thread pushes into the submission queue its
//!   probe selects (`forkjoin.rs`); a push into an empty queue wakes the most recently parked
//!   worker, else adds one up to parallelism. Workers stay on the queue they took from. It
//!   never rejects and does not compensate for blocked workers.
//! - `PerTask`: a new thread for every task (virtual threads, `ThreadPerTaskExecutor`).
//!
//! Idle workers of the first two wait in FIFO order, so the thread idle longest takes the next
//! task (the condition queues behind `LinkedBlockingQueue.take()` are FIFO); ForkJoin's idle
//! workers wait on a stack (`ctl`), so the last to park is the first woken. The pool knows
//! nothing of requests or time beyond what it is told: the engine owns the clock and the tasks.

use std::collections::VecDeque;

use crate::time::Nanos;

use crate::draw::probe_origin;
use forkjoin::SubmissionQueues;
pub use forkjoin::Submitter;

mod forkjoin;
pub use crate::topology::{PoolKind, PoolSpec};

/// How long a parked common-pool worker takes to run after `signalWork` unparks it (an
/// estimate of `LockSupport.unpark` to running on a free core). It matters under overload:
/// the pushes made meanwhile decide which queue the worker's scan finds first.
pub const FORK_JOIN_WAKE: Nanos = Nanos(50_000);
/// How long a new common-pool worker takes to start (`createWorker`, `Thread.start`; an
/// estimate, replaced by the scenario's `spawn_cost` when it sets one).
pub const FORK_JOIN_START: Nanos = Nanos(100_000);

/// A worker's slot in its pool. Slots are reused after a worker dies; names are not.
pub type Slot = u32;

/// What `submit` did with a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The task runs now on this worker (new or idle).
    Started(Slot),
    /// The task waits in the queue.
    Queued,
    /// The pool refused it; the caller applies the rejection policy.
    Rejected,
}

/// A common-pool worker released by `signalWork`: it scans after `delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signal {
    pub slot: Slot,
    pub delay: Nanos,
    /// A new thread (the engine starts it) rather than a parked one (the engine wakes it).
    pub started: bool,
}

/// What a worker does after its task ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterTask<T> {
    /// It took the head of the queue and runs it now.
    Runs(T),
    /// It waits for work; when `Some`, the engine schedules a keep-alive check then.
    Idle { check_at: Option<Nanos> },
    /// It exited (per-task thread, or the pool shrank below its size).
    Exited,
}

#[derive(Debug, Clone)]
struct Worker<T> {
    /// The N of `prefix-N`.
    number: u32,
    task: Option<T>,
    alive: bool,
    /// When its current wait for work began.
    idle_since: Nanos,
    /// When it is back waiting for work after its last task ([`Pool::busy_until`]): until
    /// then Tomcat's executor does not count it as idle.
    back_at: Nanos,
    /// Whether that wait is `poll(keepAlive)` (true) or `take()` (false).
    timed: bool,
    /// A keep-alive check for this worker is scheduled. At most one is pending per worker,
    /// so the event queue stays small however often threads go idle.
    check_pending: bool,
    /// A common-pool worker woken or started by `signalWork` that has not scanned yet.
    signalled: bool,
}

/// Counters with the JDK's names (`getCompletedTaskCount`, `getLargestPoolSize`), plus the
/// ones the JDK leaves to the user (rejections, high-water marks of active and queued).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub completed: u64,
    pub rejected: u64,
    pub largest_pool_size: u32,
    pub max_active: u32,
    /// For the common pool: tasks queued beyond the workers `signalWork` released for them.
    pub max_queue: u32,
    /// Queued tasks a worker skipped because their future had already completed.
    pub skipped: u64,
    pub threads_created: u64,
}

/// A pool of simulated threads running tasks of type `T`.
#[derive(Debug, Clone)]
pub struct Pool<T> {
    spec: PoolSpec,
    workers: Vec<Worker<T>>,
    free_slots: Vec<Slot>,
    /// Idle workers, longest idle first.
    idle: VecDeque<Slot>,
    queue: VecDeque<T>,
    /// A `ForkJoin` pool's submission queues (its tasks wait there, not in `queue`).
    fork_join: Option<SubmissionQueues<T>>,
    /// Workers `signalWork` released that have not scanned yet.
    signalled: u32,
    /// Those the engine has not been told about yet.
    signals: Vec<Signal>,
    alive: u32,
    active: u32,
    next_number: u32,
    stats: PoolStats,
}

impl<T: Copy> Pool<T> {
    pub fn new(spec: PoolSpec) -> Self {
        let fork_join = (spec.kind == PoolKind::ForkJoin)
            .then(|| SubmissionQueues::new(spec.jdk, spec.core, probe_origin(spec.seed)));
        let mut pool = Pool {
            next_number: spec.first_number,
            fork_join,
            signalled: 0,
            signals: Vec::new(),
            spec,
            workers: Vec::new(),
            free_slots: Vec::new(),
            idle: VecDeque::new(),
            queue: VecDeque::new(),
            alive: 0,
            active: 0,
            stats: PoolStats::default(),
        };
        if pool.spec.prestart {
            for _ in 0..pool.spec.core {
                let slot = pool.spawn(None);
                pool.idle.push_back(slot);
            }
        }
        pool
    }

    pub fn spec(&self) -> &PoolSpec {
        &self.spec
    }
    pub fn stats(&self) -> &PoolStats {
        &self.stats
    }
    /// `getPoolSize()`: threads alive, busy or idle.
    pub fn pool_size(&self) -> u32 {
        self.alive
    }
    /// `getActiveCount()`: threads running a task.
    pub fn active(&self) -> u32 {
        self.active
    }
    pub fn idle_count(&self) -> u32 {
        self.alive - self.active
    }
    /// `getQueue().size()`.
    pub fn queued(&self) -> u32 {
        u32::try_from(self.queue_len()).unwrap_or(u32::MAX)
    }
    fn queue_len(&self) -> usize {
        self.queue.len() + self.fork_join.as_ref().map_or(0, SubmissionQueues::len)
    }
    /// The task a worker runs, if any.
    pub fn task_of(&self, slot: Slot) -> Option<T> {
        self.workers.get(slot as usize).and_then(|w| w.task)
    }
    /// The N of the worker's `prefix-N` name.
    pub fn thread_number(&self, slot: Slot) -> u32 {
        self.workers.get(slot as usize).map_or(0, |w| w.number)
    }
    pub fn thread_name(&self, number: u32) -> String {
        format!("{}{}", self.spec.prefix, number)
    }

    /// Offers a task, following the pool kind's `execute` rules, from a thread outside every
    /// pool (see `submit_from`).
    pub fn submit(&mut self, task: T) -> Admission {
        self.submit_from(task, Submitter::OUTSIDE)
    }

    /// Offers a task from thread `who`. Only the common pool looks at the submitter: its
    /// probe picks the submission queue.
    pub fn submit_from(&mut self, task: T, who: Submitter) -> Admission {
        self.offer(task, who, Nanos::NEVER)
    }

    /// Offers a task at `now`: Tomcat's executor does not count a thread still on its way
    /// back from its last task as idle (see [`Pool::busy_until`]).
    pub fn submit_at(&mut self, task: T, now: Nanos) -> Admission {
        self.offer(task, Submitter::OUTSIDE, now)
    }

    #[inline]
    fn offer(&mut self, task: T, who: Submitter, now: Nanos) -> Admission {
        let admission = match self.spec.kind {
            PoolKind::PerTask => Admission::Started(self.start_new(task)),
            PoolKind::ThreadPool => self.submit_thread_pool(task),
            PoolKind::Tomcat => self.submit_tomcat(task, now),
            PoolKind::ForkJoin => self.submit_fork_join(task, who),
        };
        match admission {
            Admission::Rejected => self.stats.rejected += 1,
            Admission::Queued => {
                // The common pool's tasks all pass through a queue: count those no released
                // worker is on its way to take.
                let waiting = self.queued().saturating_sub(self.signalled);
                self.stats.max_queue = self.stats.max_queue.max(waiting);
            }
            Admission::Started(_) => {}
        }
        admission
    }

    /// `ThreadPoolExecutor.execute`.
    fn submit_thread_pool(&mut self, task: T) -> Admission {
        // 1. Below core: a new thread, even if others are idle; the task is its first task.
        if self.alive < self.spec.core {
            return Admission::Started(self.start_new(task));
        }
        // 2. Offer to the queue; an idle worker blocked in take() gets it at once. A
        //    SynchronousQueue (capacity 0) accepts only when a worker is waiting.
        if let Some(slot) = self.idle.pop_front() {
            self.run_on(slot, task);
            return Admission::Started(slot);
        }
        if self.queue_has_room() {
            self.queue.push_back(task);
            // core = 0: the queue took the task but no thread exists: addWorker(null, false).
            if self.alive == 0 && self.spec.max > 0 {
                let slot = self.spawn(None);
                if let Some(first) = self.queue.pop_front() {
                    self.run_on(slot, first);
                    return Admission::Started(slot);
                }
            }
            return Admission::Queued;
        }
        // 3. The queue is full: grow towards max; the new thread runs this task, not the head
        //    of the queue (addWorker(command, false)).
        if self.alive < self.spec.max {
            return Admission::Started(self.start_new(task));
        }
        Admission::Rejected
    }

    /// Tomcat's executor: `TaskQueue.offer` returns false while `poolSize < maxThreads` and no
    /// thread is idle, which makes the JDK algorithm create a thread before queueing. "Idle"
    /// is `submittedCount <= poolSize`, and `submittedCount` drops only in `afterExecute`:
    /// a thread released before its work was over still counts as busy, so a request
    /// arriving then starts a new thread. With the pool at its maximum the request is
    /// queued, and that thread takes it as it gets back (threadlab hands it over at once).
    fn submit_tomcat(&mut self, task: T, now: Nanos) -> Admission {
        let first_back = self
            .idle
            .front()
            .and_then(|&slot| self.workers.get(slot as usize))
            .is_some_and(|w| w.back_at <= now);
        if first_back || self.alive >= self.spec.max {
            // The idle longest is the first back: FIFO order is also the order of return.
            if let Some(slot) = self.idle.pop_front() {
                self.run_on(slot, task);
                return Admission::Started(slot);
            }
        }
        if self.alive < self.spec.max {
            return Admission::Started(self.start_new(task));
        }
        if self.queue_has_room() {
            self.queue.push_back(task);
            return Admission::Queued;
        }
        Admission::Rejected
    }

    /// `ForkJoinPool.execute` from a non-worker: push into the submitter's queue; a push into
    /// an empty queue calls `signalWork`. The task always waits: a worker takes it when a
    /// scan finds it.
    fn submit_fork_join(&mut self, task: T, who: Submitter) -> Admission {
        let Some(queues) = self.fork_join.as_mut() else {
            return Admission::Rejected;
        };
        let queue = queues.queue_for(who);
        if queues.push(queue, task) {
            self.signal_work();
        }
        Admission::Queued
    }

    /// `ForkJoinPool.signalWork`: nothing when as many workers as the parallelism are
    /// released; else the most recently parked worker (the top of `ctl`'s stack) wakes, or a
    /// new worker starts below parallelism. Either scans once it runs: the engine calls
    /// [`Pool::scan_signalled`] after the delay [`Pool::take_signals`] gives.
    fn signal_work(&mut self) {
        if self.active + self.signalled >= self.spec.core {
            return;
        }
        let (slot, started) = match self.idle.pop_back() {
            Some(slot) => (slot, false),
            None if self.alive < self.spec.core => (self.spawn_fork_join(), true),
            None => return,
        };
        if let Some(w) = self.workers.get_mut(slot as usize) {
            w.signalled = true;
            w.timed = false;
        }
        self.signalled += 1;
        let delay = if started {
            FORK_JOIN_START
        } else {
            FORK_JOIN_WAKE
        };
        self.signals.push(Signal {
            slot,
            delay,
            started,
        });
    }

    /// Whether the worker in `slot` was released by `signalWork` and has not scanned yet.
    pub fn is_signalled(&self, slot: Slot) -> bool {
        self.workers.get(slot as usize).is_some_and(|w| w.signalled)
    }

    /// Whether workers were signalled since the last [`Pool::take_signals`].
    pub fn has_signals(&self) -> bool {
        !self.signals.is_empty()
    }

    /// Workers signalled since the last call.
    pub fn take_signals(&mut self) -> Vec<Signal> {
        std::mem::take(&mut self.signals)
    }

    /// A signalled worker runs: it scans, and runs what it finds or parks again.
    pub fn scan_signalled(
        &mut self,
        slot: Slot,
        now: Nanos,
        is_stale: impl FnMut(&T) -> bool,
    ) -> AfterTask<T> {
        match self.workers.get_mut(slot as usize) {
            Some(w) if w.alive && w.signalled => w.signalled = false,
            _ => return AfterTask::Exited,
        }
        self.signalled -= 1;
        self.next_fork_join(slot, now, true, is_stale)
    }

    /// The common pool's worker in `slot` looks for its next task: a fresh scan, or the rule
    /// for a worker whose task just ended. Tasks whose future already completed are skipped.
    fn next_fork_join(
        &mut self,
        slot: Slot,
        now: Nanos,
        mut scan: bool,
        mut is_stale: impl FnMut(&T) -> bool,
    ) -> AfterTask<T> {
        loop {
            let Some(queues) = self.fork_join.as_mut() else {
                return AfterTask::Exited;
            };
            let next = if scan {
                queues.scan(slot)
            } else {
                queues.next_after_task(slot)
            };
            scan = false;
            let Some((task, propagate)) = next else {
                queues.park(slot);
                return self.go_idle(slot, now);
            };
            if propagate {
                self.signal_work();
            }
            if is_stale(&task) {
                self.stats.completed += 1;
                self.stats.skipped += 1;
                continue;
            }
            self.run_on(slot, task);
            return AfterTask::Runs(task);
        }
    }

    /// `registerWorker`: a new worker draws its probe, which seeds its scans.
    fn spawn_fork_join(&mut self) -> Slot {
        let slot = self.spawn(None);
        if let Some(queues) = self.fork_join.as_mut() {
            queues.register(slot);
        }
        slot
    }

    fn queue_has_room(&self) -> bool {
        self.spec
            .queue_capacity
            .is_none_or(|cap| self.queue.len() < cap as usize)
    }

    /// The worker's task ended at `now`. `is_stale` tells whether a queued task's future has
    /// already completed (its caller timed out): `AsyncSupply.run` then returns at once
    /// without running the supplier, so the worker moves straight on.
    pub fn finish(
        &mut self,
        slot: Slot,
        now: Nanos,
        mut is_stale: impl FnMut(&T) -> bool,
    ) -> AfterTask<T> {
        let Some(worker) = self.workers.get_mut(slot as usize) else {
            return AfterTask::Exited;
        };
        if worker.task.take().is_some() {
            self.active -= 1;
            self.stats.completed += 1;
        }
        if self.spec.kind == PoolKind::PerTask {
            self.exit(slot);
            return AfterTask::Exited;
        }
        // getTask(): a pool above its maximum (after setMaximumPoolSize) loses the worker.
        if self.alive > self.spec.max && (self.alive > 1 || self.queue_len() == 0) {
            self.exit(slot);
            return AfterTask::Exited;
        }
        if self.fork_join.is_some() {
            return self.next_fork_join(slot, now, false, is_stale);
        }
        // Adaptive LIFO ("Fail at Scale", ACM Queue 2015): under a long queue the newest
        // request, whose client is most likely still waiting, goes first.
        let newest_first = self
            .spec
            .lifo_above
            .is_some_and(|n| self.queue.len() > n as usize);
        while let Some(task) = if newest_first {
            self.queue.pop_back()
        } else {
            self.queue.pop_front()
        } {
            if is_stale(&task) {
                self.stats.completed += 1;
                self.stats.skipped += 1;
                continue;
            }
            self.run_on(slot, task);
            return AfterTask::Runs(task);
        }
        self.go_idle(slot, now)
    }

    /// A keep-alive check fired for a worker at `now`. If the worker's timed wait has run
    /// its full keep-alive, culling is decided now, as `getTask` does after `poll(keepAlive)`
    /// times out: it exits if the pool is above core (and it is not the last thread while
    /// tasks wait); otherwise it waits untimed (`take()`). Returns when to check again.
    pub fn check_keep_alive(&mut self, slot: Slot, now: Nanos) -> KeepAlive {
        let keep_alive = self.spec.keep_alive;
        let above_core = self.is_timed();
        let can_exit = self.alive > 1 || self.queue_len() == 0;
        let Some(worker) = self.workers.get_mut(slot as usize) else {
            return KeepAlive::Stays;
        };
        worker.check_pending = false;
        if !worker.alive || worker.task.is_some() || worker.signalled || !worker.timed {
            return KeepAlive::Stays;
        }
        let due = worker.idle_since + keep_alive;
        if due > now {
            worker.check_pending = true;
            return KeepAlive::CheckAt(due);
        }
        if !(above_core && can_exit) {
            worker.timed = false;
            return KeepAlive::Stays;
        }
        self.idle.retain(|&s| s != slot);
        self.exit(slot);
        KeepAlive::Exited
    }

    /// Whether an idle worker waits with a timeout (`timed` in `getTask`).
    fn is_timed(&self) -> bool {
        match self.spec.kind {
            PoolKind::ThreadPool | PoolKind::Tomcat => self.alive > self.spec.core,
            PoolKind::ForkJoin => true,
            PoolKind::PerTask => false,
        }
    }

    fn go_idle(&mut self, slot: Slot, now: Nanos) -> AfterTask<T> {
        let timed = self.is_timed();
        let keep_alive = self.spec.keep_alive;
        let Some(worker) = self.workers.get_mut(slot as usize) else {
            return AfterTask::Exited;
        };
        worker.idle_since = now;
        worker.back_at = now + self.spec.return_to_pool;
        worker.timed = timed;
        let check_at = (timed && !worker.check_pending).then(|| {
            worker.check_pending = true;
            now + keep_alive
        });
        self.idle.push_back(slot);
        AfterTask::Idle { check_at }
    }

    /// Removes the oldest queued task (`DiscardOldestPolicy`: `getQueue().poll()`); the
    /// common pool, which never rejects, gives the head of its first non-empty queue.
    pub fn drop_oldest(&mut self) -> Option<T> {
        match self.fork_join.as_mut() {
            Some(queues) => queues.pop_any(),
            None => self.queue.pop_front(),
        }
    }

    /// The queued tasks, head first (the common pool's queue by queue).
    pub fn queued_tasks(&self) -> impl Iterator<Item = &T> {
        self.queue
            .iter()
            .chain(self.fork_join.iter().flat_map(SubmissionQueues::iter))
    }

    /// `setCorePoolSize`. Growing starts up to `min(delta, queue size)` threads for queued
    /// tasks (returned, with the task each runs). Shrinking makes idle threads above core
    /// time out after keep-alive from `now` (returned as keep-alive checks to schedule).
    pub fn set_core(&mut self, core: u32, now: Nanos) -> Resize<T> {
        let old = self.spec.core;
        self.spec.core = core;
        if self.spec.kind == PoolKind::ForkJoin {
            self.spec.max = core;
        }
        let mut resize = Resize::default();
        if core > old && self.spec.kind == PoolKind::ForkJoin {
            resize.started = self.grow_fork_join(core - old);
        } else if core > old && self.spec.kind != PoolKind::PerTask {
            let mut k = (core - old).min(self.queued());
            while k > 0 && self.alive < core {
                let Some(task) = self.queue.pop_front() else {
                    break;
                };
                let slot = self.start_new(task);
                resize.started.push((slot, task));
                k -= 1;
            }
        } else if core < old {
            resize.expiries = self.rearm_idle(now);
        }
        resize
    }

    /// A larger parallelism: a new worker per queued task, up to `added`, each taking the
    /// task its first scan finds. (The queue array keeps the size it started with.)
    fn grow_fork_join(&mut self, added: u32) -> Vec<(Slot, T)> {
        let mut started = Vec::new();
        for _ in 0..added {
            if self.queue_len() == 0 || self.alive >= self.spec.core {
                break;
            }
            let slot = self.spawn_fork_join();
            let Some((task, _)) = self.fork_join.as_mut().and_then(|q| q.scan(slot)) else {
                self.exit(slot);
                break;
            };
            self.run_on(slot, task);
            started.push((slot, task));
        }
        started
    }

    /// `setMaximumPoolSize`: idle threads beyond the new maximum exit at once; busy ones exit
    /// when their task ends.
    pub fn set_max(&mut self, max: u32) -> u32 {
        self.spec.max = max;
        let mut exited = 0;
        while self.alive > max {
            let Some(slot) = self.idle.pop_front() else {
                break;
            };
            self.exit(slot);
            exited += 1;
        }
        exited
    }

    /// Changes the queue capacity. The JDK's queues have a fixed capacity; this behaves like a
    /// resizable `LinkedBlockingQueue`: tasks already queued stay, new offers see the new bound.
    pub fn set_queue_capacity(&mut self, capacity: Option<u32>) {
        self.spec.queue_capacity = capacity;
    }

    /// `interruptIdleWorkers`: every idle worker restarts its wait, now timed.
    fn rearm_idle(&mut self, now: Nanos) -> Vec<(Slot, Nanos)> {
        if !self.is_timed() {
            return Vec::new();
        }
        let check_at = now + self.spec.keep_alive;
        let mut out = Vec::new();
        for &slot in &self.idle {
            if let Some(w) = self.workers.get_mut(slot as usize) {
                w.idle_since = now;
                w.timed = true;
                if !w.check_pending {
                    w.check_pending = true;
                    out.push((slot, check_at));
                }
            }
        }
        out
    }

    fn start_new(&mut self, task: T) -> Slot {
        let slot = self.spawn(Some(task));
        self.active += 1;
        self.stats.max_active = self.stats.max_active.max(self.active);
        slot
    }

    /// An idle worker released before its thread's work was over (Tomcat's handler thread,
    /// released when it writes its response, does its post-response work until `at`): it
    /// is back waiting for work `return_to_pool` after that.
    pub fn busy_until(&mut self, slot: Slot, at: Nanos) {
        let back = at + self.spec.return_to_pool;
        if let Some(w) = self.workers.get_mut(slot as usize)
            && w.alive
            && w.task.is_none()
        {
            w.back_at = w.back_at.max(back);
        }
    }

    /// A busy worker goes on to another task without returning to the pool (Tomcat's
    /// handler thread serving a kept-alive connection's next request at once).
    pub fn replace_task(&mut self, slot: Slot, task: T) {
        if let Some(w) = self.workers.get_mut(slot as usize)
            && w.task.is_some()
        {
            w.task = Some(task);
        }
    }

    fn run_on(&mut self, slot: Slot, task: T) {
        if let Some(w) = self.workers.get_mut(slot as usize) {
            w.task = Some(task);
            self.active += 1;
            self.stats.max_active = self.stats.max_active.max(self.active);
        }
    }

    fn spawn(&mut self, task: Option<T>) -> Slot {
        let worker = Worker {
            number: self.next_number,
            task,
            alive: true,
            idle_since: Nanos::ZERO,
            back_at: Nanos::ZERO,
            timed: false,
            check_pending: false,
            signalled: false,
        };
        self.next_number = self.next_number.wrapping_add(1);
        self.alive += 1;
        self.stats.threads_created += 1;
        self.stats.largest_pool_size = self.stats.largest_pool_size.max(self.alive);
        if let Some(slot) = self.free_slots.pop() {
            self.workers[slot as usize] = worker;
            slot
        } else {
            self.workers.push(worker);
            Slot::try_from(self.workers.len() - 1).unwrap_or(Slot::MAX)
        }
    }

    fn exit(&mut self, slot: Slot) {
        if let Some(w) = self.workers.get_mut(slot as usize)
            && w.alive
        {
            w.alive = false;
            self.alive -= 1;
            self.free_slots.push(slot);
        }
    }

    /// Busy and idle flags of the live threads, by thread number (for the TUI's cells).
    pub fn threads(&self) -> Vec<(u32, bool)> {
        let mut out: Vec<(u32, bool)> = self
            .workers
            .iter()
            .filter(|w| w.alive)
            .map(|w| (w.number, w.task.is_some()))
            .collect();
        out.sort_unstable_by_key(|&(n, _)| n);
        out
    }
}

/// The result of a keep-alive check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepAlive {
    /// The worker's wait timed out and it exited.
    Exited,
    /// It worked in between: check again then.
    CheckAt(Nanos),
    /// It stays (busy, untimed, or the pool is at or below core).
    Stays,
}

/// The effects of `set_core` the engine must act on.
#[derive(Debug, Clone)]
pub struct Resize<T> {
    /// New threads and the queued task each took.
    pub started: Vec<(Slot, T)>,
    /// Keep-alive checks to schedule: (slot, when).
    pub expiries: Vec<(Slot, Nanos)>,
}

impl<T> Default for Resize<T> {
    fn default() -> Self {
        Resize {
            started: Vec::new(),
            expiries: Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "pool_fork_join_tests.rs"]
mod fork_join_tests;

#[cfg(test)]
mod tests {
    //! One executor rule per test, on tasks that are plain numbers. Slots are internal; what
    //! a person sees is thread numbers, so the tests speak in those.

    use super::*;

    const NO_STALE: fn(&u32) -> bool = |_| false;

    fn spec(kind: PoolKind, core: u32, max: u32, queue: Option<u32>) -> PoolSpec {
        PoolSpec {
            name: "p".into(),
            prefix: "p-".into(),
            first_number: 1,
            kind,
            core,
            max,
            queue_capacity: queue,
            keep_alive: Nanos::from_secs(10),
            prestart: kind == PoolKind::Tomcat,
            virtual_threads: false,
            jdk: crate::scenario::Jdk::V21,
            seed: 1,
            lifo_above: None,
            return_to_pool: Nanos::ZERO,
        }
    }

    /// `new ThreadPoolExecutor(core, max, 10s, queue)`.
    fn thread_pool(core: u32, max: u32, queue: Option<u32>) -> Pool<u32> {
        Pool::new(spec(PoolKind::ThreadPool, core, max, queue))
    }

    fn secs(s: u64) -> Nanos {
        Nanos::from_secs(s)
    }

    /// Submits a task that must start at once; returns its slot.
    fn start(pool: &mut Pool<u32>, task: u32) -> Slot {
        match pool.submit(task) {
            Admission::Started(slot) => slot,
            other => panic!("task {task}: expected Started, got {other:?}"),
        }
    }

    /// Submits a task that must start; returns the number of the thread running it.
    fn start_number(pool: &mut Pool<u32>, task: u32) -> u32 {
        let slot = start(pool, task);
        assert_eq!(pool.task_of(slot), Some(task), "the thread runs the task");
        pool.thread_number(slot)
    }

    fn queued(pool: &Pool<u32>) -> Vec<u32> {
        pool.queued_tasks().copied().collect()
    }

    fn goes_idle(pool: &mut Pool<u32>, slot: Slot, now: Nanos) -> Option<Nanos> {
        match pool.finish(slot, now, NO_STALE) {
            AfterTask::Idle { check_at } => check_at,
            other => panic!("expected the worker to go idle, got {other:?}"),
        }
    }

    // ---- ThreadPoolExecutor.execute -------------------------------------------------------

    #[test]
    fn thread_pool_below_core_creates_a_new_thread_although_one_is_idle() {
        let mut pool = thread_pool(2, 2, Some(10));
        let first = start(&mut pool, 1);
        assert_eq!(goes_idle(&mut pool, first, secs(1)), None);
        assert_eq!(pool.idle_count(), 1);

        assert_eq!(
            start_number(&mut pool, 2),
            2,
            "a second thread, not the idle one"
        );
        assert_eq!(pool.pool_size(), 2);
        assert_eq!(pool.idle_count(), 1, "thread 1 is still idle");
    }

    #[test]
    fn thread_pool_at_core_queues_the_task_although_max_is_larger() {
        let mut pool = thread_pool(1, 3, Some(5));
        start(&mut pool, 1);
        assert_eq!(pool.submit(2), Admission::Queued);
        assert_eq!(pool.submit(3), Admission::Queued);
        assert_eq!(
            pool.pool_size(),
            1,
            "max is not used while the queue has room"
        );
        assert_eq!(queued(&pool), [2, 3]);
    }

    #[test]
    fn thread_pool_at_core_hands_a_task_to_an_idle_thread_through_the_queue() {
        let mut pool = thread_pool(1, 3, Some(5));
        let slot = start(&mut pool, 1);
        goes_idle(&mut pool, slot, secs(1));
        assert_eq!(pool.submit(2), Admission::Started(slot));
        assert_eq!(pool.pool_size(), 1);
        assert_eq!(pool.queued(), 0);
    }

    #[test]
    fn thread_pool_grows_beyond_core_only_when_the_queue_is_full_and_runs_the_new_task() {
        let mut pool = thread_pool(1, 3, Some(2));
        assert_eq!(start_number(&mut pool, 1), 1);
        assert_eq!(pool.submit(2), Admission::Queued);
        assert_eq!(pool.submit(3), Admission::Queued);
        assert_eq!(pool.pool_size(), 1, "no growth while the queue had room");

        // The queue is full: a thread beyond core is created for task 4 itself.
        let slot = start(&mut pool, 4);
        assert_eq!(
            pool.task_of(slot),
            Some(4),
            "the new thread runs the NEW task"
        );
        assert_eq!(pool.thread_number(slot), 2);
        assert_eq!(queued(&pool), [2, 3], "queued tasks keep waiting");

        // When the new thread is done it takes the head of the queue.
        assert_eq!(pool.finish(slot, secs(1), NO_STALE), AfterTask::Runs(2));
        assert_eq!(queued(&pool), [3]);
    }

    #[test]
    fn thread_pool_rejects_when_queue_full_and_at_max_and_counts_rejections() {
        let mut pool = thread_pool(1, 2, Some(1));
        start(&mut pool, 1);
        assert_eq!(pool.submit(2), Admission::Queued);
        start(&mut pool, 3);
        assert_eq!(pool.submit(4), Admission::Rejected);
        assert_eq!(pool.submit(5), Admission::Rejected);
        assert_eq!(pool.stats().rejected, 2);
        assert_eq!(pool.pool_size(), 2);
        assert_eq!(queued(&pool), [2], "a rejected task is not queued");
    }

    #[test]
    fn synchronous_queue_hands_off_to_an_idle_worker_else_grows_to_max_then_rejects() {
        let mut pool = thread_pool(1, 2, Some(0));
        let first = start(&mut pool, 1);
        goes_idle(&mut pool, first, secs(1));
        // At core with a worker waiting in take(): the offer succeeds, the worker runs it.
        assert_eq!(pool.submit(2), Admission::Started(first));
        assert_eq!(pool.pool_size(), 1);
        // No worker waiting: the offer fails, so a thread is added up to max.
        assert_eq!(start_number(&mut pool, 3), 2);
        assert_eq!(pool.submit(4), Admission::Rejected);
        assert_eq!(pool.queued(), 0);
        assert_eq!(
            pool.stats().max_queue,
            0,
            "a SynchronousQueue never holds a task"
        );
    }

    #[test]
    fn core_zero_starts_one_worker_when_the_first_task_is_queued() {
        let mut pool = thread_pool(0, 4, Some(10));
        // workerCount == 0 after the offer: addWorker(null, false) starts a thread that
        // takes the task from the queue.
        assert_eq!(start_number(&mut pool, 1), 1);
        assert_eq!(pool.pool_size(), 1);
        // A worker exists now: further tasks queue (max is not used while there is room).
        assert_eq!(pool.submit(2), Admission::Queued);
        assert_eq!(pool.submit(3), Admission::Queued);
        assert_eq!(pool.pool_size(), 1);
    }

    #[test]
    fn the_worker_idle_longest_takes_the_next_task() {
        let mut pool = thread_pool(3, 3, Some(10));
        let slots: Vec<Slot> = (1..=3).map(|t| start(&mut pool, t)).collect();
        let numbers: Vec<u32> = slots.iter().map(|&s| pool.thread_number(s)).collect();
        assert_eq!(numbers, [1, 2, 3]);
        // Threads go idle in the order 2, 3, 1.
        goes_idle(&mut pool, slots[1], secs(1));
        goes_idle(&mut pool, slots[2], secs(2));
        goes_idle(&mut pool, slots[0], secs(3));
        assert_eq!(start_number(&mut pool, 4), 2);
        assert_eq!(start_number(&mut pool, 5), 3);
        assert_eq!(start_number(&mut pool, 6), 1);
    }

    #[test]
    fn thread_numbers_start_at_1_and_are_not_reused_after_a_thread_dies() {
        let mut pool = thread_pool(1, 2, Some(0));
        let core = start(&mut pool, 1);
        let extra = start(&mut pool, 2);
        assert_eq!(pool.thread_number(core), 1);
        assert_eq!(pool.thread_number(extra), 2);
        let check = goes_idle(&mut pool, extra, secs(1)).expect("a thread above core is timed");
        assert_eq!(pool.check_keep_alive(extra, check), KeepAlive::Exited);
        assert_eq!(pool.pool_size(), 1);
        // Thread 2 is gone; the next thread is 3 (ThreadFactory counters only go up).
        assert_eq!(start_number(&mut pool, 3), 3);
        assert_eq!(pool.thread_name(3), "p-3");
        let live: Vec<u32> = pool.threads().iter().map(|&(n, _)| n).collect();
        assert_eq!(live, [1, 3]);
    }

    // ---- keep-alive and resizing ------------------------------------------------------------

    #[test]
    fn an_idle_thread_above_core_exits_after_keep_alive() {
        let mut pool = thread_pool(1, 2, Some(0));
        start(&mut pool, 1);
        let extra = start(&mut pool, 2);
        let check = goes_idle(&mut pool, extra, secs(1));
        assert_eq!(
            check,
            Some(secs(11)),
            "poll(keepAlive) from when it went idle"
        );
        assert_eq!(pool.check_keep_alive(extra, secs(11)), KeepAlive::Exited);
        assert_eq!(pool.pool_size(), 1);
        assert_eq!(pool.idle_count(), 0);
    }

    #[test]
    fn a_core_thread_never_times_out() {
        let mut pool = thread_pool(2, 4, Some(10));
        let a = start(&mut pool, 1);
        let b = start(&mut pool, 2);
        assert_eq!(goes_idle(&mut pool, a, secs(1)), None, "take(), not poll()");
        assert_eq!(goes_idle(&mut pool, b, secs(1)), None);
        assert_eq!(pool.check_keep_alive(a, secs(1_000)), KeepAlive::Stays);
        assert_eq!(pool.check_keep_alive(b, secs(1_000)), KeepAlive::Stays);
        assert_eq!(pool.pool_size(), 2);
    }

    #[test]
    fn culling_is_by_count_not_identity_the_survivor_stays_as_core() {
        let mut pool = thread_pool(1, 2, Some(0));
        let first = start(&mut pool, 1);
        let second = start(&mut pool, 2);
        // Both go idle while the pool is above core: both wait with a timeout.
        assert_eq!(goes_idle(&mut pool, first, secs(1)), Some(secs(11)));
        assert_eq!(goes_idle(&mut pool, second, secs(2)), Some(secs(12)));
        // Thread 1 (the first core thread) times out first and dies.
        assert_eq!(pool.check_keep_alive(first, secs(11)), KeepAlive::Exited);
        // Thread 2 times out at core size: it stays and waits untimed from now on.
        assert_eq!(pool.check_keep_alive(second, secs(12)), KeepAlive::Stays);
        assert_eq!(pool.threads(), [(2, false)]);
    }

    #[test]
    fn a_thread_that_worked_in_between_is_checked_again_later() {
        let mut pool = thread_pool(1, 2, Some(0));
        start(&mut pool, 1);
        let extra = start(&mut pool, 2);
        assert_eq!(goes_idle(&mut pool, extra, secs(1)), Some(secs(11)));
        assert_eq!(pool.submit(3), Admission::Started(extra));
        // Idle again at 8 s: a check is already pending, no second one.
        assert_eq!(goes_idle(&mut pool, extra, secs(8)), None);
        assert_eq!(
            pool.check_keep_alive(extra, secs(11)),
            KeepAlive::CheckAt(secs(18))
        );
        assert_eq!(pool.pool_size(), 2);
        assert_eq!(pool.check_keep_alive(extra, secs(18)), KeepAlive::Exited);
        assert_eq!(pool.pool_size(), 1);
    }

    #[test]
    fn set_max_below_pool_size_makes_idle_threads_exit_at_once() {
        let mut pool = thread_pool(1, 3, Some(0));
        let slots: Vec<Slot> = (1..=3).map(|t| start(&mut pool, t)).collect();
        goes_idle(&mut pool, slots[1], secs(1));
        goes_idle(&mut pool, slots[2], secs(1));
        assert_eq!(pool.set_max(1), 2);
        assert_eq!(pool.pool_size(), 1);
        assert_eq!(pool.threads(), [(1, true)]);
    }

    #[test]
    fn set_max_below_pool_size_makes_busy_threads_exit_when_their_task_ends() {
        let mut pool = thread_pool(1, 3, Some(0));
        let slots: Vec<Slot> = (1..=3).map(|t| start(&mut pool, t)).collect();
        assert_eq!(pool.set_max(2), 0, "every thread is busy");
        assert_eq!(pool.pool_size(), 3);
        assert_eq!(pool.finish(slots[0], secs(1), NO_STALE), AfterTask::Exited);
        assert_eq!(pool.pool_size(), 2);
        // At the new max, the next one goes idle as usual.
        assert!(matches!(
            pool.finish(slots[1], secs(1), NO_STALE),
            AfterTask::Idle { .. }
        ));
        assert_eq!(pool.pool_size(), 2);
    }

    #[test]
    fn set_core_up_starts_threads_for_queued_tasks_min_of_delta_and_queue() {
        let mut pool = thread_pool(1, 10, Some(10));
        start(&mut pool, 1);
        for t in 2..=5 {
            assert_eq!(pool.submit(t), Admission::Queued);
        }
        // delta 2, 4 queued: 2 new threads take the head of the queue.
        let resize = pool.set_core(3, secs(1));
        let started: Vec<(u32, u32)> = resize
            .started
            .iter()
            .map(|&(slot, task)| (pool.thread_number(slot), task))
            .collect();
        assert_eq!(started, [(2, 2), (3, 3)]);
        assert_eq!(pool.pool_size(), 3);
        assert_eq!(queued(&pool), [4, 5]);
        // delta 5, 2 queued: only 2 threads.
        let resize = pool.set_core(8, secs(2));
        assert_eq!(resize.started.len(), 2);
        assert_eq!(pool.pool_size(), 5);
        assert_eq!(pool.queued(), 0);
    }

    #[test]
    fn set_core_up_starts_no_thread_when_the_pool_is_already_above_the_new_core() {
        // core 1, max 4, queue 1: task 1 on thread 1, task 2 queued, tasks 3 and 4 on threads
        // 2 and 3 (queue full). Pool size 3, one task queued.
        let mut pool = thread_pool(1, 4, Some(1));
        start(&mut pool, 1);
        assert_eq!(pool.submit(2), Admission::Queued);
        start(&mut pool, 3);
        start(&mut pool, 4);
        assert_eq!(pool.pool_size(), 3);
        // setCorePoolSize(2): workerCount 3 > 2, so the JDK only interrupts idle workers;
        // addWorker(null, true) would refuse anyway (bound is corePoolSize).
        let resize = pool.set_core(2, secs(1));
        assert!(resize.started.is_empty(), "started {:?}", resize.started);
        assert_eq!(pool.pool_size(), 3);
        assert_eq!(queued(&pool), [2]);
    }

    #[test]
    fn set_core_down_makes_idle_threads_above_the_new_core_time_out_from_now() {
        let mut pool = thread_pool(3, 3, Some(10));
        let slots: Vec<Slot> = (1..=3).map(|t| start(&mut pool, t)).collect();
        for &s in &slots {
            assert_eq!(goes_idle(&mut pool, s, secs(1)), None);
        }
        let resize = pool.set_core(1, secs(5));
        assert_eq!(
            resize.expiries.len(),
            3,
            "interruptIdleWorkers: all re-wait, timed"
        );
        assert!(resize.expiries.iter().all(|&(_, at)| at == secs(15)));
        let outcomes: Vec<KeepAlive> = resize
            .expiries
            .iter()
            .map(|&(slot, at)| pool.check_keep_alive(slot, at))
            .collect();
        assert_eq!(
            outcomes,
            [KeepAlive::Exited, KeepAlive::Exited, KeepAlive::Stays]
        );
        assert_eq!(pool.pool_size(), 1);
    }

    // ---- Tomcat -------------------------------------------------------------------------

    fn tomcat(min_spare: u32, max: u32, queue: Option<u32>) -> Pool<u32> {
        Pool::new(spec(PoolKind::Tomcat, min_spare, max, queue))
    }

    #[test]
    fn adaptive_lifo_takes_the_newest_while_the_queue_is_long_then_the_oldest() {
        // One thread; tasks 2-6 wait. While more than 2 wait, a free thread takes the newest:
        // 6, 5, 4; with 2 waiting (2, 3) it takes the oldest: 2, then 3.
        let mut pool = Pool::new(PoolSpec {
            lifo_above: Some(2),
            ..spec(PoolKind::Tomcat, 1, 1, None)
        });
        let slot = start(&mut pool, 1);
        for t in 2..=6 {
            assert_eq!(pool.submit(t), Admission::Queued);
        }
        let mut order = Vec::new();
        while let AfterTask::Runs(t) = pool.finish(slot, secs(1), NO_STALE) {
            order.push(t);
        }
        assert_eq!(order, [6, 5, 4, 2, 3]);
    }

    #[test]
    fn tomcat_prestarts_min_spare_threads() {
        let pool = tomcat(3, 5, None);
        assert_eq!(pool.pool_size(), 3);
        assert_eq!(pool.active(), 0);
        assert_eq!(pool.threads(), [(1, false), (2, false), (3, false)]);
        assert_eq!(pool.stats().largest_pool_size, 3);
    }

    #[test]
    fn tomcat_uses_idle_threads_first_then_grows_to_max_before_queueing() {
        let mut pool = tomcat(2, 4, None);
        assert_eq!(start_number(&mut pool, 1), 1);
        assert_eq!(start_number(&mut pool, 2), 2);
        // No idle thread and below max: TaskQueue.offer refuses, a thread is created.
        assert_eq!(start_number(&mut pool, 3), 3);
        assert_eq!(start_number(&mut pool, 4), 4);
        // At max: queue (unbounded).
        for t in 5..=50 {
            assert_eq!(pool.submit(t), Admission::Queued);
        }
        assert_eq!(pool.pool_size(), 4);
        assert_eq!(pool.stats().rejected, 0);
    }

    /// Submits at `now` a task that must start; returns the number of its thread.
    fn start_at(pool: &mut Pool<u32>, task: u32, now: Nanos) -> u32 {
        match pool.submit_at(task, now) {
            Admission::Started(slot) => pool.thread_number(slot),
            other => panic!("task {task}: expected Started, got {other:?}"),
        }
    }

    #[test]
    fn tomcat_does_not_count_a_thread_on_its_way_back_as_idle() {
        // minSpare 1, maxThreads 3, 15 us from a thread's last read to waiting for work.
        let us = Nanos::from_micros;
        let mut pool = Pool::new(PoolSpec {
            return_to_pool: us(15),
            ..spec(PoolKind::Tomcat, 1, 3, None)
        });
        let one = start(&mut pool, 1);
        goes_idle(&mut pool, one, secs(1));
        // 10 us after thread 1's task ended it still counts as submitted: a new thread.
        assert_eq!(start_at(&mut pool, 2, secs(1) + us(10)), 2);
        // At 15 us it is back, and the idle longest is the one that runs the next task.
        assert_eq!(pool.idle_count(), 1);
        assert_eq!(start_at(&mut pool, 3, secs(1) + us(15)), 1);
        // A thread released at its write but busy until 2 s + 100 us (its post-response
        // work) is back at 2 s + 115 us.
        let first = (0..3)
            .find(|&s| pool.task_of(s) == Some(3))
            .expect("task 3 runs");
        goes_idle(&mut pool, first, secs(2));
        pool.busy_until(first, secs(2) + us(100));
        assert_eq!(start_at(&mut pool, 4, secs(2) + us(114)), 3, "not back yet");
        // At maxThreads the task is not queued behind a thread on its way back: that
        // thread takes it.
        let slot = match pool.submit_at(5, secs(2) + us(114)) {
            Admission::Started(slot) => slot,
            other => panic!("expected the returning thread to take it, got {other:?}"),
        };
        assert_eq!(pool.thread_number(slot), 1);
        assert_eq!(pool.stats().largest_pool_size, 3);
        // Without a time (`submit`) every idle thread counts as back, as before.
        let mut plain = Pool::new(PoolSpec {
            return_to_pool: us(15),
            ..spec(PoolKind::Tomcat, 1, 3, None)
        });
        let only = start(&mut plain, 1);
        goes_idle(&mut plain, only, secs(1));
        assert_eq!(start_number(&mut plain, 2), 1);
    }

    #[test]
    fn tomcat_bounded_queue_rejects_when_full() {
        let mut pool = tomcat(1, 2, Some(1));
        start(&mut pool, 1);
        start(&mut pool, 2);
        assert_eq!(pool.submit(3), Admission::Queued);
        assert_eq!(pool.submit(4), Admission::Rejected);
        assert_eq!(pool.stats().rejected, 1);
        assert_eq!(queued(&pool), [3]);
    }

    // ---- per-task (the common pool: pool_fork_join_tests.rs) ------------------------------

    #[test]
    fn per_task_starts_a_new_thread_for_every_task_which_exits_after_it() {
        let mut pool = Pool::new(PoolSpec {
            first_number: 0,
            prefix: "Thread-".into(),
            ..spec(PoolKind::PerTask, 0, u32::MAX, Some(0))
        });
        let a = start(&mut pool, 1);
        let b = start(&mut pool, 2);
        assert_eq!((pool.thread_number(a), pool.thread_number(b)), (0, 1));
        assert_eq!(pool.thread_name(1), "Thread-1");
        assert_eq!(pool.pool_size(), 2);
        assert_eq!(pool.finish(a, secs(1), NO_STALE), AfterTask::Exited);
        assert_eq!(pool.pool_size(), 1);
        assert_eq!(
            start_number(&mut pool, 3),
            2,
            "no idle reuse, no number reuse"
        );
        assert_eq!(pool.pool_size(), 2);
    }

    // ---- statistics ---------------------------------------------------------------------------

    #[test]
    fn largest_pool_size_is_the_high_water_mark_of_live_threads() {
        let mut pool = thread_pool(1, 3, Some(0));
        let slots: Vec<Slot> = (1..=3).map(|t| start(&mut pool, t)).collect();
        assert_eq!(pool.set_max(1), 0);
        pool.finish(slots[1], secs(1), NO_STALE);
        pool.finish(slots[2], secs(1), NO_STALE);
        assert_eq!(pool.pool_size(), 1);
        assert_eq!(pool.stats().largest_pool_size, 3, "it never goes down");
        assert_eq!(pool.stats().threads_created, 3);
    }

    #[test]
    fn max_active_and_max_queue_are_high_water_marks() {
        let mut pool = thread_pool(2, 2, Some(5));
        let a = start(&mut pool, 1);
        let b = start(&mut pool, 2);
        for t in 3..=5 {
            assert_eq!(pool.submit(t), Admission::Queued);
        }
        assert_eq!(pool.finish(a, secs(1), NO_STALE), AfterTask::Runs(3));
        assert_eq!(pool.finish(b, secs(1), NO_STALE), AfterTask::Runs(4));
        assert_eq!(pool.queued(), 1);
        assert_eq!(pool.stats().max_queue, 3);
        assert_eq!(pool.stats().max_active, 2);
        assert_eq!(pool.finish(a, secs(2), NO_STALE), AfterTask::Runs(5));
        goes_idle(&mut pool, a, secs(3));
        goes_idle(&mut pool, b, secs(3));
        assert_eq!(pool.active(), 0);
        assert_eq!(pool.queued(), 0);
        assert_eq!(pool.stats().max_active, 2, "it never goes down");
        assert_eq!(pool.stats().max_queue, 3);
    }

    #[test]
    fn completed_counts_finished_and_skipped_tasks_but_not_rejected_or_running_ones() {
        let mut pool = thread_pool(1, 1, Some(2));
        let slot = start(&mut pool, 1);
        assert_eq!(pool.submit(2), Admission::Queued);
        assert_eq!(pool.submit(3), Admission::Queued);
        assert_eq!(pool.submit(4), Admission::Rejected);
        assert_eq!(pool.stats().completed, 0, "a running task is not completed");
        // Task 2's future already completed: AsyncSupply.run returns at once, but the worker
        // did run it, so getCompletedTaskCount counts it.
        let after = pool.finish(slot, secs(1), |&t| t == 2);
        assert_eq!(after, AfterTask::Runs(3));
        assert_eq!(pool.stats().completed, 2);
        assert_eq!(pool.stats().skipped, 1);
        pool.finish(slot, secs(2), NO_STALE);
        assert_eq!(pool.stats().completed, 3);
        assert_eq!(pool.stats().rejected, 1);
    }
}
