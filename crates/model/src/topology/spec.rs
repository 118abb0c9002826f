//! Each pool's configuration, derived from the scenario, and written back when a person
//! changes it live: the scenario is the one place a run's configuration lives.

use crate::scenario::{Jdk, Scenario, ServerThreads, UnboundedThreads};
use crate::time::Nanos;

use super::PoolRole;

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
    /// Virtual threads (no OS thread, a small heap stack) rather than platform threads.
    pub virtual_threads: bool,
    /// The JDK whose `ForkJoinPool` rules a `ForkJoin` pool follows.
    pub jdk: Jdk,
    /// The run's seed: a `ForkJoin` pool's `ThreadLocalRandom` probes start from it.
    pub seed: u64,
    /// Adaptive LIFO: while more than this many tasks wait, a free thread takes the newest
    /// (the server's executor under `server.adaptive_lifo`); `None`: always the oldest.
    pub lifo_above: Option<u32>,
    /// How long a worker whose task ended takes to wait for work again (Tomcat's
    /// `server.return_to_pool`; zero for every other pool).
    pub return_to_pool: Nanos,
}

/// Up to JDK 21, `CompletableFuture` runs async work on a new thread per task when the common
/// pool's parallelism is below 2 (`CompletableFuture.ASYNC_POOL = new ThreadPerTaskExecutor()`).
pub fn common_pool_per_task(scenario: &Scenario) -> bool {
    scenario.shared_parallelism() < 2 && scenario.jdk.thread_per_task_below_parallelism_2()
}

/// The configuration of the pool playing `role` in `scenario`.
pub fn pool_spec(scenario: &Scenario, role: PoolRole) -> PoolSpec {
    match role {
        PoolRole::Server => server_spec(scenario),
        PoolRole::Shared if common_pool_per_task(scenario) => {
            per_task(scenario, "shared", "Thread-", 0, false)
        }
        PoolRole::Shared => {
            let parallelism = scenario.shared_parallelism();
            PoolSpec {
                name: "shared".into(),
                prefix: "ForkJoinPool.commonPool-worker-".into(),
                first_number: 1,
                kind: PoolKind::ForkJoin,
                core: parallelism,
                max: parallelism,
                queue_capacity: None,
                // ForkJoinPool.DEFAULT_KEEPALIVE
                keep_alive: Nanos::from_secs(60),
                prestart: false,
                virtual_threads: false,
                jdk: scenario.jdk,
                seed: scenario.seed,
                lifo_above: None,
                return_to_pool: Nanos::ZERO,
            }
        }
        PoolRole::Unbounded => match scenario.strategy.unbounded_threads {
            UnboundedThreads::Virtual => per_task(scenario, "unbounded", "virtual-", 1, true),
            UnboundedThreads::Platform => per_task(scenario, "unbounded", "Thread-", 0, false),
        },
        PoolRole::Bulkhead(b) => {
            let b = &scenario.strategy.bulkheads[b];
            PoolSpec {
                name: b.name.clone(),
                prefix: format!("{}-", b.name),
                first_number: 1,
                kind: PoolKind::ThreadPool,
                core: b.core,
                max: b.max,
                queue_capacity: Some(b.queue),
                keep_alive: b.keep_alive,
                prestart: false,
                virtual_threads: false,
                jdk: scenario.jdk,
                seed: scenario.seed,
                lifo_above: None,
                return_to_pool: Nanos::ZERO,
            }
        }
    }
}

fn server_spec(scenario: &Scenario) -> PoolSpec {
    let server = &scenario.server;
    match server.threads {
        // Tomcat: core = minSpareThreads (prestarted), max = maxThreads, TaskQueue(maxQueueSize).
        ServerThreads::Platform(threads) => PoolSpec {
            name: "tomcat".into(),
            prefix: "http-nio-8080-exec-".into(),
            first_number: 1,
            kind: PoolKind::Tomcat,
            core: server.min_spare.min(threads),
            max: threads,
            queue_capacity: server.max_queue,
            keep_alive: server.keep_alive,
            prestart: true,
            virtual_threads: false,
            jdk: scenario.jdk,
            seed: scenario.seed,
            lifo_above: server.adaptive_lifo,
            return_to_pool: server.connector.return_to_pool,
        },
        // Spring Boot's TomcatVirtualThreadsWebServerFactoryCustomizer: a virtual thread per
        // request named from "tomcat-handler-0".
        ServerThreads::Virtual => per_task(scenario, "tomcat", "tomcat-handler-", 0, true),
    }
}

fn per_task(
    scenario: &Scenario,
    name: &str,
    prefix: &str,
    first_number: u32,
    virtual_threads: bool,
) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        prefix: prefix.into(),
        first_number,
        kind: PoolKind::PerTask,
        core: 0,
        max: u32::MAX,
        queue_capacity: Some(0),
        keep_alive: Nanos::ZERO,
        prestart: false,
        virtual_threads,
        jdk: scenario.jdk,
        seed: scenario.seed,
        lifo_above: None,
        return_to_pool: Nanos::ZERO,
    }
}

/// Sizes a pool took live that the scenario cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A bulkhead's queue is a bounded LinkedBlockingQueue; it names the pool.
    #[error("{0}'s queue must stay bounded")]
    UnboundedQueue(String),
    /// The topology has no pool of this id.
    #[error("no pool #{0}")]
    NoPool(super::PoolId),
}

/// Writes a pool's sizes (changed live) into the scenario, the run's one configuration, so
/// that theory, a replay and the pools agree. Fails when the scenario cannot hold them.
pub(super) fn store_sizes(
    scenario: &mut Scenario,
    role: PoolRole,
    spec: &PoolSpec,
) -> Result<(), StoreError> {
    match role {
        PoolRole::Server => {
            if let ServerThreads::Platform(threads) = &mut scenario.server.threads {
                *threads = spec.max;
                scenario.server.min_spare = spec.core;
                scenario.server.max_queue = spec.queue_capacity;
            }
        }
        PoolRole::Shared => {
            if spec.kind == PoolKind::ForkJoin {
                scenario.strategy.shared_threads = Some(spec.core);
            }
        }
        PoolRole::Unbounded => {}
        PoolRole::Bulkhead(b) => {
            // A bulkhead's queue is a bounded LinkedBlockingQueue.
            let Some(queue) = spec.queue_capacity else {
                return Err(StoreError::UnboundedQueue(spec.name.clone()));
            };
            let b = &mut scenario.strategy.bulkheads[b];
            b.core = spec.core;
            b.max = spec.max;
            b.queue = queue;
        }
    }
    Ok(())
}
