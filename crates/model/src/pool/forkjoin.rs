//! The common pool's external submission queues and how its workers scan them, as
//! `java.util.concurrent.ForkJoinPool` does in JDK 17, 21 and 25.
//!
//! A thread that is not one of the pool's workers pushes into one of `n / 2` submission queues
//! (the even slots of the pool's queue array), chosen by its `ThreadLocalRandom` probe, so all
//! its submissions land in the same queue. A worker scans the array from a random origin with
//! an odd step, takes from the first non-empty queue (FIFO), and then stays on that queue:
//! JDK 17 and 21 drain it until it is empty (`WorkQueue.topLevelExec` + `tryPoll`); JDK 25
//! leaves it as soon as another worker also took from it (`runWorker`: `q.base != nb`).
//! Queues no worker settles on are only visited when a worker runs out of work, which is how
//! clients whose threads hash elsewhere starve: a lone worker (parallelism 1) leaves a queue
//! only when it finds it empty, so two closed clients whose threads share its queue, each
//! resubmitting while the other's calls run, keep it there for ever. JDK 25 has no fairness
//! rule beyond that: `runWorker` re-polls the slot at `q.base` after every task and ends the
//! run only on a null slot or a moved base, and an external thread waiting on a
//! `CompletableFuture` never polls its own queue (`waitingGet` calls `helpAsyncBlocker` only
//! on a `ForkJoinWorkerThread`).

use std::collections::VecDeque;

use crate::scenario::Jdk;

use super::Slot;

/// `ThreadLocalRandom.PROBE_INCREMENT`: the Weyl step between threads' first probes.
const PROBE_INCREMENT: u32 = 0x9e37_79b9;
/// JDK 25 `ForkJoinPool.EXTERNAL_ID_MASK`: the even ids of submission queues.
const EXTERNAL_ID_MASK: u32 = 0x3ffe;
/// JDK 25 `ForkJoinPool.MIN_QUEUES_SIZE`.
const MIN_QUEUES_SIZE: u32 = 16;

/// A thread that submits to the pool, stable for the thread's life: the pool its worker
/// belongs to and its thread number (thread names are never reused, so a new thread gets a
/// fresh probe, as a new `Thread` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Submitter {
    pub pool: u32,
    pub number: u32,
}

impl Submitter {
    /// A thread outside every pool (the `orTimeout` scheduler, the load generator).
    pub const OUTSIDE: Submitter = Submitter {
        pool: u32::MAX,
        number: 0,
    };
}

/// `ThreadLocalRandom.advanceProbe` (and the scan's xorshift in `ForkJoinPool`).
pub fn xorshift(mut r: u32) -> u32 {
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    r
}

/// The length of the common pool's queue array for `parallelism` (its constructor).
pub fn queue_array_size(jdk: Jdk, parallelism: u32) -> u32 {
    // 1 << (33 - Integer.numberOfLeadingZeros(p - 1)), i.e. twice the power of two >= p.
    let size = parallelism.max(1).next_power_of_two().saturating_mul(2);
    match jdk {
        Jdk::V17 | Jdk::V21 => size,
        Jdk::V25 => size.max(MIN_QUEUES_SIZE),
    }
}

/// What a worker does when its task ends (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StayRule {
    /// JDK 17 and 21: poll the same queue until it is empty.
    Drain,
    /// JDK 25: rescan once another worker took from the queue, unless this worker propagated.
    LeaveOnInterference,
}

#[derive(Debug, Clone, Copy, Default)]
struct Scanner {
    /// The xorshift state of its scans, seeded from its own probe (`registerWorker`).
    xs: u32,
    /// The submission queue it took its current task from.
    current: Option<usize>,
    /// That queue's take count right after its own take.
    my_take: u64,
    /// The queue of its previous take; reset when it parks (JDK 25: `src = -1`).
    prev_src: Option<usize>,
    /// Its last take saw more tasks behind it in a queue it had just moved to (`propagate`).
    propagated: bool,
}

/// A worker's scans and a run's probes: deterministic from the run's seed.
#[derive(Debug, Clone)]
pub(super) struct SubmissionQueues<T> {
    jdk: Jdk,
    /// The queue array's length `n`; queue `i` sits in even slot `2 i`.
    size: u32,
    queues: Vec<VecDeque<T>>,
    /// JDK 25's first submission of a thread prefers a queue not yet created.
    created: Vec<bool>,
    /// Tasks ever taken from each queue (JDK 25 compares `base` before and after a task).
    taken: Vec<u64>,
    len: usize,
    /// `ThreadLocalRandom.probeGenerator`.
    probe_gen: u32,
    /// Probes of submitting threads: `(pool, probe by thread number)`; 0 = not yet drawn.
    probes: Vec<(u32, Vec<u32>)>,
    workers: Vec<Scanner>,
}

impl<T: Copy> SubmissionQueues<T> {
    pub fn new(jdk: Jdk, parallelism: u32, probe_origin: u32) -> Self {
        let size = queue_array_size(jdk, parallelism);
        let count = (size / 2) as usize;
        SubmissionQueues {
            jdk,
            size,
            queues: vec![VecDeque::new(); count],
            created: vec![false; count],
            taken: vec![0; count],
            len: 0,
            probe_gen: probe_origin,
            probes: Vec::new(),
            workers: Vec::new(),
        }
    }

    fn rule(&self) -> StayRule {
        match self.jdk {
            Jdk::V17 | Jdk::V21 => StayRule::Drain,
            Jdk::V25 => StayRule::LeaveOnInterference,
        }
    }

    /// Tasks waiting in every queue.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The queued tasks, queue by queue, each head first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.queues.iter().flatten()
    }

    /// `ThreadLocalRandom.localInit`: the next value of the global Weyl sequence, never 0.
    fn next_probe(&mut self) -> u32 {
        self.probe_gen = self.probe_gen.wrapping_add(PROBE_INCREMENT);
        if self.probe_gen == 0 {
            1
        } else {
            self.probe_gen
        }
    }

    fn probe_slot(&mut self, who: Submitter) -> &mut u32 {
        let at = match self.probes.iter().position(|(p, _)| *p == who.pool) {
            Some(at) => at,
            None => {
                self.probes.push((who.pool, Vec::new()));
                self.probes.len() - 1
            }
        };
        let by_number = &mut self.probes[at].1;
        let i = who.number as usize;
        if by_number.len() <= i {
            by_number.resize(i + 1, 0);
        }
        &mut by_number[i]
    }

    /// The submission queue `who`'s next task goes to (`submissionQueue`), drawing its probe
    /// on its first submission. Probe moves on lock contention are not modelled.
    pub fn queue_for(&mut self, who: Submitter) -> usize {
        let probe = *self.probe_slot(who);
        let fresh = probe == 0;
        let probe = if fresh { self.next_probe() } else { probe };
        let half = self.size / 2;
        let (queue, probe) = match self.jdk {
            // `id = r << 1`, slot `id & (n - 1)`: queue `r & (n/2 - 1)`.
            Jdk::V17 | Jdk::V21 => ((probe & (half - 1)) as usize, probe),
            Jdk::V25 => self.jdk25_queue(probe, fresh),
        };
        *self.probe_slot(who) = probe;
        self.created[queue] = true;
        queue
    }

    /// JDK 25 `submissionQueue(r, true)`: a thread submitting for the first time moves its
    /// probe past queues that already exist, up to `n / 2` times, then takes what it lands on.
    fn jdk25_queue(&self, mut r: u32, fresh: bool) -> (usize, u32) {
        let mut reuse = if fresh { 0 } else { r };
        let mut probes = 0;
        loop {
            let queue = (((r & EXTERNAL_ID_MASK) & (self.size - 1)) / 2) as usize;
            if !self.created[queue] || reuse != 0 {
                return (queue, r);
            }
            if probes >= self.size / 2 {
                reuse = r;
            }
            r = xorshift(r);
            probes += 1;
        }
    }

    /// Pushes a task; true when the queue looked empty (the pusher then calls `signalWork`).
    pub fn push(&mut self, queue: usize, task: T) -> bool {
        let was_empty = self.queues[queue].is_empty();
        self.queues[queue].push_back(task);
        self.len += 1;
        was_empty
    }

    /// `registerWorker`: a new worker in `slot` draws its probe, which seeds its scans.
    pub fn register(&mut self, slot: Slot) {
        let xs = self.next_probe();
        let i = slot as usize;
        if self.workers.len() <= i {
            self.workers.resize(i + 1, Scanner::default());
        }
        self.workers[i] = Scanner {
            xs,
            ..Scanner::default()
        };
    }

    fn scanner(&mut self, slot: Slot) -> &mut Scanner {
        let i = slot as usize;
        if self.workers.len() <= i {
            self.workers.resize(i + 1, Scanner::default());
        }
        &mut self.workers[i]
    }

    /// Takes the head of `queue` for the worker in `slot` and records where it came from.
    /// The flag asks for `signalWork`: a worker that moved to a queue with more tasks behind
    /// the one it took wakes another (`propagate`).
    fn take(&mut self, slot: Slot, queue: usize) -> Option<(T, bool)> {
        let task = self.queues[queue].pop_front()?;
        self.len -= 1;
        self.taken[queue] += 1;
        let (taken, more) = (self.taken[queue], !self.queues[queue].is_empty());
        let w = self.scanner(slot);
        w.my_take = taken;
        w.propagated = w.prev_src != Some(queue) && more;
        w.current = Some(queue);
        w.prev_src = Some(queue);
        Some((task, w.propagated))
    }

    /// One scan (`scan` / `runWorker`): a fresh xorshift, a random origin and an odd step
    /// visit every slot once; the first non-empty submission queue gives its head.
    pub fn scan(&mut self, slot: Slot) -> Option<(T, bool)> {
        let w = self.scanner(slot);
        w.xs = xorshift(w.xs);
        let xs = w.xs;
        if self.len == 0 {
            return None;
        }
        let step = (xs >> 16) | 1;
        let mask = self.size - 1;
        let found = (0..self.size)
            .map(|l| xs.wrapping_add(l.wrapping_mul(step)) & mask)
            .find(|&j| j % 2 == 0 && !self.queues[(j / 2) as usize].is_empty())?;
        self.take(slot, (found / 2) as usize)
    }

    /// The worker's task ended: its next task by the JDK's rule, or None (it parks).
    pub fn next_after_task(&mut self, slot: Slot) -> Option<(T, bool)> {
        let rule = self.rule();
        let w = *self.scanner(slot);
        let Some(queue) = w.current else {
            return self.scan(slot);
        };
        let interfered = self.taken[queue] != w.my_take && !w.propagated;
        if rule == StayRule::LeaveOnInterference && interfered {
            return self.scan(slot);
        }
        self.take(slot, queue).or_else(|| self.scan(slot))
    }

    /// The worker parks: its next take counts as a change of queue again.
    pub fn park(&mut self, slot: Slot) {
        let w = self.scanner(slot);
        w.current = None;
        w.prev_src = None;
    }

    /// Removes the head of the first non-empty queue.
    pub fn pop_any(&mut self) -> Option<T> {
        let queue = self.queues.iter().position(|q| !q.is_empty())?;
        self.len -= 1;
        self.queues[queue].pop_front()
    }

    /// Tasks waiting in each queue.
    #[cfg(test)]
    pub fn lengths(&self) -> Vec<usize> {
        self.queues.iter().map(VecDeque::len).collect()
    }
}

#[cfg(test)]
mod tests {
    //! The JDK's rules on bare queues: tasks are numbers, workers are slots, and nothing runs
    //! unless a test says so.

    use super::*;

    fn thread(number: u32) -> Submitter {
        Submitter { pool: 0, number }
    }

    /// Submission queue of each of `threads` threads submitting once, in order, from probe
    /// generator value `origin`.
    fn first_queues(jdk: Jdk, parallelism: u32, origin: u32, threads: u32) -> Vec<usize> {
        let mut q = SubmissionQueues::<u32>::new(jdk, parallelism, origin);
        (0..threads).map(|t| q.queue_for(thread(t))).collect()
    }

    #[test]
    fn the_queue_array_has_twice_the_power_of_two_at_least_parallelism_and_16_from_jdk_25() {
        assert_eq!(queue_array_size(Jdk::V17, 1), 2);
        assert_eq!(queue_array_size(Jdk::V21, 1), 2);
        assert_eq!(queue_array_size(Jdk::V17, 4), 8);
        assert_eq!(queue_array_size(Jdk::V17, 5), 16);
        assert_eq!(queue_array_size(Jdk::V21, 7), 16);
        assert_eq!(queue_array_size(Jdk::V25, 1), 16);
        assert_eq!(queue_array_size(Jdk::V25, 7), 16);
        assert_eq!(queue_array_size(Jdk::V25, 9), 32);
    }

    #[test]
    fn advance_probe_is_the_13_17_5_xorshift() {
        assert_eq!(xorshift(1), 0x42021);
        assert_eq!(xorshift(PROBE_INCREMENT), 0x510c_4619);
    }

    #[test]
    fn jdk_17_queues_follow_the_weyl_probe_sequence_from_a_fixed_generator_offset() {
        // From the probe generator at 12345, 40 threads' first probes are consecutive Weyl
        // values, which are consecutive modulo 8: queue `probe & 7` cycles through all 8.
        let expected: Vec<usize> = (0..40).map(|t| (t + 2) % 8).collect();
        assert_eq!(first_queues(Jdk::V17, 7, 12345, 40), expected);
        assert_eq!(first_queues(Jdk::V21, 7, 12345, 40), expected);
    }

    #[test]
    fn jdk_25_fresh_probes_prefer_a_queue_not_yet_created_then_take_what_they_land_on() {
        // Worked out with the submission loop of `submissionQueue(r, true)` (JDK 25): the
        // first 8 threads find the 8 queues free one by one; later ones give up after n/2
        // moves through created queues.
        let expected = [
            1, 5, 2, 6, 3, 7, 4, 0, 6, 7, 4, 5, 0, 3, 3, 5, 2, 0, 7, 5, 0, 4, 3, 0, 2, 4, 5, 2, 6,
            5, 6, 4, 1, 4, 0, 0, 5, 0, 3, 4,
        ];
        assert_eq!(first_queues(Jdk::V25, 1, 12345, 40), expected);
    }

    #[test]
    fn a_thread_submits_to_the_same_queue_every_time() {
        for jdk in [Jdk::V17, Jdk::V21, Jdk::V25] {
            let mut q = SubmissionQueues::<u32>::new(jdk, 7, 99);
            let first: Vec<usize> = (0..20).map(|t| q.queue_for(thread(t))).collect();
            for round in 0..5 {
                for t in 0..20 {
                    let queue = q.queue_for(thread(t));
                    assert_eq!(queue, first[t as usize], "{jdk:?} thread {t} round {round}");
                    q.push(queue, t);
                }
            }
        }
    }

    #[test]
    fn a_new_thread_in_the_same_pool_gets_a_new_probe() {
        let mut q = SubmissionQueues::<u32>::new(Jdk::V17, 7, 0);
        let a = q.queue_for(thread(1));
        let b = q.queue_for(thread(2));
        assert_eq!(b, (a + 1) % 8, "the next Weyl value");
        assert_eq!(q.queue_for(thread(1)), a);
    }

    /// Pushes `tasks` from `who`, returning its queue.
    fn push_from(q: &mut SubmissionQueues<u32>, who: u32, tasks: &[u32]) -> usize {
        let queue = q.queue_for(thread(who));
        for &t in tasks {
            q.push(queue, t);
        }
        queue
    }

    /// Two submitters in different queues, with a worker in slot 0 that took its first
    /// task from one of them. Returns (the worker's queue, the other queue).
    fn one_worker_on_two_queues(jdk: Jdk) -> (SubmissionQueues<u32>, usize, usize) {
        let mut q = SubmissionQueues::new(jdk, 7, 12345);
        let a = push_from(&mut q, 1, &[10, 11, 12, 13]);
        let b = push_from(&mut q, 2, &[20, 21, 22, 23]);
        assert_ne!(a, b);
        q.register(0);
        let (first, _) = q.scan(0).expect("two queues hold tasks");
        let (mine, other) = if first < 20 { (a, b) } else { (b, a) };
        (q, mine, other)
    }

    #[test]
    fn jdk_17_a_worker_drains_the_queue_it_took_from_before_looking_elsewhere() {
        let (mut q, mine, other) = one_worker_on_two_queues(Jdk::V17);
        let base = if mine == q.queue_for(thread(1)) {
            10
        } else {
            20
        };
        let next: Vec<u32> = (0..3)
            .filter_map(|_| q.next_after_task(0))
            .map(|t| t.0)
            .collect();
        assert_eq!(
            next,
            [base + 1, base + 2, base + 3],
            "the same queue, in order"
        );
        assert_eq!(q.lengths()[other], 4, "the other queue waited");
        // Empty now: the worker scans and finds the other queue.
        let (task, propagate) = q.next_after_task(0).expect("the other queue");
        assert_eq!(task, 30 - base);
        assert!(propagate, "it moved to a queue with more tasks: signalWork");
    }

    #[test]
    fn jdk_17_two_workers_on_one_queue_both_stay() {
        let (mut q, mine, _) = one_worker_on_two_queues(Jdk::V17);
        // A second worker takes from the same queue (as a scan of it would).
        q.register(1);
        q.take(1, mine);
        let before = q.workers[0].xs;
        let (task, _) = q.next_after_task(0).expect("tasks left");
        assert_eq!(q.workers[0].current, Some(mine));
        assert_eq!(
            q.workers[0].xs, before,
            "no scan: tryPoll on the same queue"
        );
        assert!(task % 10 == 2, "the third task of its queue, got {task}");
    }

    #[test]
    fn jdk_25_stays_on_its_queue_while_no_other_worker_takes_from_it() {
        let (mut q, mine, _) = one_worker_on_two_queues(Jdk::V25);
        let before = q.workers[0].xs;
        for _ in 0..3 {
            q.next_after_task(0).expect("tasks left");
            assert_eq!(q.workers[0].current, Some(mine));
        }
        assert_eq!(q.workers[0].xs, before, "no rescan without interference");
    }

    #[test]
    fn jdk_25_leaves_a_queue_another_worker_also_took_from() {
        let (mut q, mine, _) = one_worker_on_two_queues(Jdk::V25);
        // The first take propagated (it moved to a queue with more behind): that take is
        // exempt, so let the worker take once more on its own first.
        q.next_after_task(0).expect("tasks left");
        q.register(1);
        q.take(1, mine);
        let before = q.workers[0].xs;
        q.next_after_task(0).expect("tasks left");
        assert_eq!(
            q.workers[0].xs,
            xorshift(before),
            "`q.base != nb`: it rescans from a new random origin"
        );
    }

    /// One worker (parallelism 1, JDK 25) and the first 10 threads from probe origin 12345:
    /// threads 3 and 8 share queue 6, thread 0 has queue 1 to itself (see
    /// `jdk_25_fresh_probes_prefer_a_queue_not_yet_created_then_take_what_they_land_on`).
    /// Thread `t`'s request `k` is three calls numbered `100 t + 10 k + 1..=3`.
    fn one_worker_and_ten_threads() -> (SubmissionQueues<u32>, Vec<usize>) {
        let mut q = SubmissionQueues::new(Jdk::V25, 1, 12345);
        let queues: Vec<usize> = (0..10).map(|t| q.queue_for(thread(t))).collect();
        assert_eq!((queues[3], queues[8], queues[0]), (6, 6, 1));
        q.register(0);
        (q, queues)
    }

    fn request(q: &mut SubmissionQueues<u32>, who: u32, k: u32) {
        push_from(
            q,
            who,
            &[
                100 * who + 10 * k + 1,
                100 * who + 10 * k + 2,
                100 * who + 10 * k + 3,
            ],
        );
    }

    #[test]
    fn jdk_25_one_worker_never_leaves_a_queue_two_threads_refill_before_it_empties() {
        // `ForkJoinPool.runWorker` (JDK 25): after a task the worker polls the same queue
        // again, and rescans from a new origin only when the slot at its base is empty; with
        // one worker nothing else moves that base. Threads 3 and 8 each resubmit as soon as
        // their request's last call ends (closed clients, each on its own thread), which is
        // while the worker runs the other thread's calls: queue 6 is never empty when a task
        // ends, and thread 0's request in queue 1 waits for ever.
        let (mut q, _) = one_worker_and_ten_threads();
        request(&mut q, 3, 0);
        assert_eq!(
            q.scan(0).map(|t| t.0),
            Some(301),
            "the only non-empty queue"
        );
        request(&mut q, 8, 0);
        request(&mut q, 0, 0);
        let mut taken = vec![301];
        for _ in 0..17 {
            let (task, _) = q.next_after_task(0).expect("queue 6 is never empty");
            // The call that ended before this take was its request's last: it resubmits.
            let ended = taken[taken.len() - 1];
            if ended % 10 == 3 {
                request(&mut q, ended / 100, ended / 10 % 10 + 1);
            }
            taken.push(task);
        }
        assert_eq!(
            taken,
            [
                301, 302, 303, 801, 802, 803, 311, 312, 313, 811, 812, 813, 321, 322, 323, 821,
                822, 823
            ]
        );
        assert_eq!(q.lengths()[1], 3, "thread 0's calls never taken");
    }

    #[test]
    fn jdk_25_a_lone_worker_takes_turns_between_two_queues_each_time_one_empties() {
        // `ForkJoinPool.runWorker` (JDK 25) for one worker: after each task it reads the slot
        // at its queue's base again (`t = a[m & b]`) and takes it; only a null slot there ends
        // the run (`if (rescan) break scan`) and starts a scan from a new xorshift origin.
        // Nothing else moves `q.base`, so `(b = q.base) != nb` never holds: the worker leaves
        // a queue when it is empty, never earlier. Thread 3 (queue 6) and thread 0 (queue 1),
        // each resubmitting when its request's last call ends, get whole requests in turn.
        let (mut q, _) = one_worker_and_ten_threads();
        request(&mut q, 3, 0);
        assert_eq!(q.scan(0), Some((301, true)), "more behind it: signalWork");
        request(&mut q, 0, 0);
        let mut taken = vec![301];
        let mut scans = 1;
        for _ in 0..11 {
            let before = q.workers[0].xs;
            let (task, _) = q.next_after_task(0).expect("a request is always queued");
            if q.workers[0].xs != before {
                scans += 1;
            }
            let ended = taken[taken.len() - 1];
            if ended % 10 == 3 {
                request(&mut q, ended / 100, ended / 10 % 10 + 1);
            }
            taken.push(task);
        }
        assert_eq!(
            taken,
            [301, 302, 303, 1, 2, 3, 311, 312, 313, 11, 12, 13],
            "whole requests, queue 6 and queue 1 in turn"
        );
        assert_eq!(scans, 4, "one scan per change of queue, none in between");
    }

    #[test]
    fn jdk_25_the_worker_leaves_a_queue_the_moment_it_finds_it_empty() {
        // The same, except that thread 3's next request comes from thread 9 (queue 7), as when
        // a spare handler thread takes a client's next request: queue 6 holds only thread 8's
        // calls, is empty when the last of them ends, and the worker scans again.
        let (mut q, queues) = one_worker_and_ten_threads();
        assert_eq!(queues[9], 7);
        request(&mut q, 3, 0);
        q.scan(0);
        request(&mut q, 8, 0);
        request(&mut q, 0, 0);
        let mut taken = vec![301];
        for _ in 0..5 {
            taken.push(q.next_after_task(0).expect("tasks left").0);
        }
        assert_eq!(taken, [301, 302, 303, 801, 802, 803]);
        request(&mut q, 9, 1);
        let before = q.workers[0].xs;
        let (next, propagate) = q.next_after_task(0).expect("queues 1 and 7 hold tasks");
        assert!(
            next == 1 || next == 911,
            "the head of queue 1 or 7, got {next}"
        );
        assert!(propagate, "a new queue with more behind: signalWork");
        assert_eq!(q.workers[0].xs, xorshift(before), "a fresh scan");
        assert_eq!(q.lengths()[6], 0);
    }

    #[test]
    fn a_scan_visits_every_slot_once_from_a_random_origin_with_an_odd_step() {
        let mut q = SubmissionQueues::<u32>::new(Jdk::V25, 7, 5);
        // One task in the last queue: whatever the origin, the scan finds it.
        q.push(7, 1);
        for slot in 0..50 {
            q.register(slot);
            assert_eq!(q.scan(slot).map(|t| t.0), Some(1), "worker {slot}");
            q.push(7, 1);
        }
    }
}
