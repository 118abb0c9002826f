//! The common pool as a `Pool`: `signalWork`, its stack of parked workers, and the queue
//! figures across submission queues. Tasks are numbers; a signalled worker scans only when a
//! test runs it, as the engine does after the wake-up delay.

use super::*;
use crate::scenario::Jdk;

const NO_STALE: fn(&u32) -> bool = |_| false;

fn fork_join(jdk: Jdk, parallelism: u32) -> Pool<u32> {
    Pool::new(PoolSpec {
        name: "shared".into(),
        prefix: "worker-".into(),
        first_number: 1,
        kind: PoolKind::ForkJoin,
        core: parallelism,
        max: parallelism,
        queue_capacity: None,
        keep_alive: Nanos::from_secs(60),
        prestart: false,
        virtual_threads: false,
        jdk,
        seed: 7,
        lifo_above: None,
        return_to_pool: Nanos::ZERO,
    })
}

fn from(number: u32) -> Submitter {
    Submitter { pool: 0, number }
}

/// Runs every signalled worker's scan (again while scans signal more); returns the thread
/// number and task of each worker that found one.
fn settle(pool: &mut Pool<u32>) -> Vec<(u32, u32)> {
    let mut started = Vec::new();
    loop {
        let signals = pool.take_signals();
        if signals.is_empty() {
            return started;
        }
        for s in signals {
            if let AfterTask::Runs(task) = pool.scan_signalled(s.slot, Nanos::ZERO, NO_STALE) {
                started.push((pool.thread_number(s.slot), task));
            }
        }
    }
}

fn slot_of(pool: &Pool<u32>, number: u32) -> Slot {
    (0..pool.workers.len() as Slot)
        .find(|&s| pool.workers[s as usize].alive && pool.thread_number(s) == number)
        .expect("a live worker with that number")
}

#[test]
fn a_push_into_an_empty_queue_starts_a_worker_that_takes_the_task_when_it_runs() {
    let mut pool = fork_join(Jdk::V21, 3);
    assert_eq!(pool.submit_from(1, from(1)), Admission::Queued);
    assert_eq!(pool.queued(), 1);
    let signals = pool.take_signals();
    assert_eq!(
        signals,
        [Signal {
            slot: 0,
            delay: FORK_JOIN_START,
            started: true
        }]
    );
    assert_eq!(
        pool.scan_signalled(0, Nanos::ZERO, NO_STALE),
        AfterTask::Runs(1)
    );
    assert_eq!((pool.active(), pool.queued()), (1, 0));
}

#[test]
fn a_push_into_a_non_empty_queue_signals_nobody() {
    let mut pool = fork_join(Jdk::V21, 3);
    pool.submit_from(1, from(1));
    pool.submit_from(2, from(1));
    let signals = pool.take_signals();
    assert_eq!(signals.len(), 1, "lockedPush saw a task: no second signal");
    let first = pool.scan_signalled(signals[0].slot, Nanos::ZERO, NO_STALE);
    assert_eq!(first, AfterTask::Runs(1));
    // The worker that took task 1 saw task 2 behind it and propagated.
    assert_eq!(settle(&mut pool), [(2, 2)]);
}

#[test]
fn the_pool_grows_to_parallelism_then_queues_without_bound_and_never_rejects() {
    let mut pool = fork_join(Jdk::V17, 3);
    for t in 1..=1_000 {
        assert_eq!(pool.submit_from(t, from(t % 10)), Admission::Queued);
    }
    let started = settle(&mut pool);
    assert_eq!(started.len(), 3);
    assert_eq!(pool.pool_size(), 3);
    assert_eq!(pool.queued(), 997);
    assert_eq!(pool.queued_tasks().count(), 997);
    assert_eq!(pool.stats().rejected, 0);
    // The high-water mark leaves out the tasks the 3 released workers were on their way to.
    assert_eq!(pool.stats().max_queue, 997);
}

#[test]
fn parked_workers_wake_last_parked_first() {
    let mut pool = fork_join(Jdk::V21, 3);
    for t in 1..=3 {
        pool.submit_from(t, from(1));
    }
    assert_eq!(settle(&mut pool).len(), 3);
    // Workers 2, 3, 1 park in that order (every queue is empty).
    for number in [2, 3, 1] {
        let slot = slot_of(&pool, number);
        assert!(matches!(
            pool.finish(slot, Nanos::from_secs(1), NO_STALE),
            AfterTask::Idle { .. }
        ));
    }
    let wake = |pool: &mut Pool<u32>, task| {
        pool.submit_from(task, from(9));
        let s = pool.take_signals();
        assert_eq!(s.len(), 1);
        assert!(!s[0].started, "an idle worker is woken, none created");
        assert_eq!(s[0].delay, FORK_JOIN_WAKE);
        pool.scan_signalled(s[0].slot, Nanos::from_secs(2), NO_STALE);
        pool.thread_number(s[0].slot)
    };
    assert_eq!(wake(&mut pool, 10), 1, "the top of ctl's stack");
    assert_eq!(wake(&mut pool, 11), 3);
    assert_eq!(wake(&mut pool, 12), 2);
    assert_eq!(pool.pool_size(), 3);
}

#[test]
fn no_worker_is_signalled_while_parallelism_workers_are_released() {
    let mut pool = fork_join(Jdk::V21, 1);
    pool.submit_from(1, from(1));
    // Released but not yet scanning: a push into another empty queue does not add one.
    pool.submit_from(2, from(2));
    assert_eq!(pool.take_signals().len(), 1);
    assert_eq!(pool.pool_size(), 1);
}

#[test]
fn a_queued_task_whose_future_completed_is_skipped_and_the_worker_moves_on() {
    let mut pool = fork_join(Jdk::V17, 1);
    for t in 1..=3 {
        pool.submit_from(t, from(1));
    }
    assert_eq!(settle(&mut pool), [(1, 1)]);
    assert_eq!(pool.finish(0, Nanos::ZERO, |&t| t == 2), AfterTask::Runs(3));
    assert_eq!(pool.stats().skipped, 1);
    assert_eq!(pool.stats().completed, 2);
}

#[test]
fn an_idle_worker_exits_after_keep_alive_and_the_next_push_starts_a_new_one() {
    let mut pool = fork_join(Jdk::V25, 2);
    pool.submit_from(1, from(1));
    settle(&mut pool);
    let check = match pool.finish(0, Nanos::from_secs(1), NO_STALE) {
        AfterTask::Idle { check_at } => check_at.expect("common-pool workers wait timed"),
        other => panic!("expected idle, got {other:?}"),
    };
    assert_eq!(check, Nanos::from_secs(61));
    assert_eq!(pool.check_keep_alive(0, check), KeepAlive::Exited);
    pool.submit_from(2, from(1));
    assert_eq!(
        settle(&mut pool),
        [(2, 2)],
        "worker 2: numbers are not reused"
    );
}

#[test]
fn a_signalled_worker_is_not_culled_before_it_scans() {
    let mut pool = fork_join(Jdk::V21, 1);
    pool.submit_from(1, from(1));
    settle(&mut pool);
    pool.finish(0, Nanos::from_secs(1), NO_STALE);
    pool.submit_from(2, from(1));
    assert_eq!(
        pool.check_keep_alive(0, Nanos::from_secs(100)),
        KeepAlive::Stays
    );
    assert_eq!(settle(&mut pool), [(1, 2)]);
}

#[test]
fn drop_oldest_and_queued_tasks_see_every_submission_queue() {
    let mut pool = fork_join(Jdk::V17, 7);
    for t in 1..=8 {
        pool.submit_from(t, from(t));
    }
    let mut all: Vec<u32> = pool.queued_tasks().copied().collect();
    all.sort_unstable();
    assert_eq!(all, (1..=8).collect::<Vec<_>>());
    assert!(pool.drop_oldest().is_some());
    assert_eq!(pool.queued(), 7);
}

#[test]
fn a_larger_parallelism_starts_workers_that_scan_for_queued_tasks() {
    let mut pool = fork_join(Jdk::V21, 1);
    for t in 1..=4 {
        pool.submit_from(t, from(1));
    }
    settle(&mut pool);
    let resize = pool.set_core(3, Nanos::ZERO);
    let tasks: Vec<u32> = resize.started.iter().map(|&(_, t)| t).collect();
    assert_eq!(
        tasks,
        [2, 3],
        "two new workers take the queue's next two tasks"
    );
    assert_eq!(pool.pool_size(), 3);
    assert_eq!(pool.queued(), 1);
}
