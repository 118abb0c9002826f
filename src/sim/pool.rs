//! Thread pools with the JVM's exact admission rules.
//!
//! One [`Pool`] type plays four executors, told apart by [`PoolKind`]:
//! - `ThreadPool`: `java.util.concurrent.ThreadPoolExecutor` (Spring's `ThreadPoolTaskExecutor`,
//!   resilience4j's `ThreadPoolBulkhead`): a new thread below core even if others are idle; at
//!   core, queue first; grow towards max only when the queue is full; otherwise reject.
//! - `Tomcat`: Tomcat's connector executor, whose `TaskQueue` refuses offers while the pool can
//!   still grow, so it creates threads up to max *before* queueing; `min_spare` threads are
//!   prestarted.
//! - `ForkJoin`: the common pool: wakes an idle worker, else adds one up to parallelism, else
//!   queues without bound. It never rejects and does not compensate for blocked workers.
//! - `PerTask`: a new thread for every task (virtual threads, `ThreadPerTaskExecutor`).
//!
//! Idle workers wait in FIFO order, so the thread idle longest takes the next task (the
//! condition queues behind `LinkedBlockingQueue.take()` are FIFO). The pool knows nothing of
//! requests or time beyond what it is told: the engine owns the clock and the tasks.

use std::collections::VecDeque;

use crate::time::Nanos;

/// Which executor's rules a pool follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolKind {
    ThreadPool,
    Tomcat,
    ForkJoin,
    PerTask,
}

impl PoolKind {
    pub fn name(self) -> &'static str {
        match self {
            PoolKind::ThreadPool => "thread-pool",
            PoolKind::Tomcat => "tomcat",
            PoolKind::ForkJoin => "fork-join",
            PoolKind::PerTask => "per-task",
        }
    }
}

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
    /// Whether that wait is `poll(keepAlive)` (true) or `take()` (false).
    timed: bool,
    /// A keep-alive check for this worker is scheduled. At most one is pending per worker,
    /// so the event queue stays small however often threads go idle.
    check_pending: bool,
}

/// The static description of a pool.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolSpec {
    pub name: String,
    /// Thread names are `prefix` + number.
    pub prefix: String,
    /// The number of the first thread (`Thread-0` counts from 0, `IronThread-1` from 1).
    pub first_number: u32,
    pub kind: PoolKind,
    /// Core size (ThreadPool), `minSpareThreads` (Tomcat), parallelism (ForkJoin).
    pub core: u32,
    /// Maximum size; equals `core` for ForkJoin; `u32::MAX` for PerTask.
    pub max: u32,
    /// Queue capacity; `None` is unbounded; `Some(0)` is a hand-off (SynchronousQueue).
    pub queue_capacity: Option<u32>,
    /// Idle time after which a thread above core exits (all threads for ForkJoin).
    pub keep_alive: Nanos,
    /// Start `core` threads at once (Tomcat's executor calls `prestartAllCoreThreads`).
    pub prestart: bool,
}

/// Counters with the JDK's names (`getCompletedTaskCount`, `getLargestPoolSize`), plus the
/// ones the JDK leaves to the user (rejections, high-water marks of active and queued).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub completed: u64,
    pub rejected: u64,
    pub largest_pool_size: u32,
    pub max_active: u32,
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
    alive: u32,
    active: u32,
    next_number: u32,
    stats: PoolStats,
}

impl<T: Copy> Pool<T> {
    pub fn new(spec: PoolSpec) -> Self {
        let mut pool = Pool {
            next_number: spec.first_number,
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
        u32::try_from(self.queue.len()).unwrap_or(u32::MAX)
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

    /// Offers a task, following the pool kind's `execute` rules.
    pub fn submit(&mut self, task: T) -> Admission {
        let admission = match self.spec.kind {
            PoolKind::PerTask => Admission::Started(self.start_new(task)),
            PoolKind::ThreadPool => self.submit_thread_pool(task),
            PoolKind::Tomcat => self.submit_tomcat(task),
            PoolKind::ForkJoin => self.submit_fork_join(task),
        };
        match admission {
            Admission::Rejected => self.stats.rejected += 1,
            Admission::Queued => self.stats.max_queue = self.stats.max_queue.max(self.queued()),
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
    /// thread is idle, which makes the JDK algorithm create a thread before queueing.
    fn submit_tomcat(&mut self, task: T) -> Admission {
        if let Some(slot) = self.idle.pop_front() {
            self.run_on(slot, task);
            return Admission::Started(slot);
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

    /// `ForkJoinPool.signalWork`: wake an idle worker, else add one below parallelism; the
    /// queues are unbounded.
    fn submit_fork_join(&mut self, task: T) -> Admission {
        if let Some(slot) = self.idle.pop_front() {
            self.run_on(slot, task);
            return Admission::Started(slot);
        }
        if self.alive < self.spec.core {
            return Admission::Started(self.start_new(task));
        }
        self.queue.push_back(task);
        Admission::Queued
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
        if self.alive > self.spec.max && (self.alive > 1 || self.queue.is_empty()) {
            self.exit(slot);
            return AfterTask::Exited;
        }
        while let Some(task) = self.queue.pop_front() {
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
        let can_exit = self.alive > 1 || self.queue.is_empty();
        let Some(worker) = self.workers.get_mut(slot as usize) else {
            return KeepAlive::Stays;
        };
        worker.check_pending = false;
        if !worker.alive || worker.task.is_some() || !worker.timed {
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
        worker.timed = timed;
        let check_at = (timed && !worker.check_pending).then(|| {
            worker.check_pending = true;
            now + keep_alive
        });
        self.idle.push_back(slot);
        AfterTask::Idle { check_at }
    }

    /// Removes the oldest queued task (`DiscardOldestPolicy`: `getQueue().poll()`).
    pub fn drop_oldest(&mut self) -> Option<T> {
        self.queue.pop_front()
    }

    /// The queued tasks, head first.
    pub fn queued_tasks(&self) -> impl Iterator<Item = &T> {
        self.queue.iter()
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
        if core > old && self.spec.kind != PoolKind::PerTask {
            let mut k = (core - old).min(self.queued());
            while k > 0 && self.alive < self.spec.max.max(core) {
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
            timed: false,
            check_pending: false,
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
