//! What theory predicts for a scenario under a strategy: the figures shown beside the
//! measured ones. Service times are the distributions' means; where a rule assumes more
//! (Erlang C assumes Poisson arrivals and exponential service), the field's doc says so.

use serde::Serialize;

use crate::scenario::{LoadMode, Scenario, ServerThreads, ServiceId, Strategy};

use super::{closed_loop_bounds, erlang_c, fan_out_ceiling, throughput_ceiling};

/// Predictions for one scenario and strategy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// One request alone, no queueing: stages add up; inside a stage calls add up
    /// (sequential) or the slowest decides (the pool strategies). Exact for fixed latencies.
    pub single_request_ms: f64,
    /// How long a request holds its handler thread.
    pub handler_hold_ms: f64,
    /// The server pool's ceiling, threads / hold (`None`: no cap, e.g. virtual threads).
    pub server_ceiling_rps: Option<f64>,
    /// The ceiling of each pool the strategy sends calls to.
    pub pools: Vec<PoolCeiling>,
    /// The lowest ceiling: the most the system can complete per second (`None`: no cap).
    pub ceiling_rps: Option<f64>,
    /// The pool whose ceiling is lowest.
    pub bottleneck: Option<String>,
    /// Expected throughput for this load: closed loop X = min(N / (R0 + Z), ceiling); open
    /// loop min(λ, ceiling); runs 1 / R0.
    pub throughput_rps: Option<f64>,
    /// Expected mean latency: closed loop R = max(R0, N / X − Z); runs R0; open load below
    /// the ceiling, the M/M/c response time of the server pool.
    pub latency_ms: Option<f64>,
    /// Utilisation of the bottleneck at the expected throughput.
    pub utilisation: Option<f64>,
    /// Erlang C for the server pool (open load, platform threads): exact when arrivals are
    /// Poisson and the hold time is exponential, an approximation otherwise.
    pub erlang_c: Option<ErlangPrediction>,
    /// cores / CPU time per request (CPU, thread creation, and whole calls that pin a
    /// carrier), when requests use CPU.
    pub cpu_ceiling_rps: Option<f64>,
    /// Connection pools: size / time a request holds their connections.
    pub resources: Vec<PoolCeiling>,
    /// Goetz's sizing rule, cores x (1 + wait / compute), when calls use CPU.
    pub sizing_rule_threads: Option<f64>,
    /// The clients' retries (`[load.retry]`): attempts per request in a storm and the load
    /// they then offer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<super::RetryTheory>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolCeiling {
    pub pool: String,
    /// Threads that can work at once at most (max, parallelism).
    pub threads: u32,
    /// Thread time one request needs from this pool.
    pub work_ms_per_request: f64,
    /// threads / work: requests per second the pool can sustain.
    pub ceiling_rps: f64,
    /// The same with core threads only: a ThreadPoolExecutor grows past core only once its
    /// queue is full.
    pub core_ceiling_rps: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErlangPrediction {
    pub servers: u32,
    pub offered_load_erlangs: f64,
    pub prob_wait: f64,
    pub mean_wait_ms: f64,
    pub mean_response_ms: f64,
    pub p99_response_ms: f64,
    /// M/M/c is exact only when the hold is exponential: one call, exponential latency, no
    /// hang. Otherwise (constant, summed, hanging holds) these figures approximate.
    pub approximation: bool,
}

/// Whether a request's hold time is exponential: a single call with exponential latency,
/// no hang and no CPU work.
fn exponential_hold(scenario: &Scenario) -> bool {
    let calls: Vec<ServiceId> = scenario.endpoint.stages.iter().flatten().copied().collect();
    match calls[..] {
        [only] => {
            let svc = scenario.service(only);
            matches!(svc.latency, crate::scenario::Latency::Exponential { .. })
                && svc.hang.is_none()
                && svc.cpu == crate::time::Nanos::ZERO
        }
        _ => false,
    }
}

/// A call's mean time on its thread: CPU, then the wait (a hang replaces the wait).
fn mean_s(scenario: &Scenario, id: ServiceId) -> f64 {
    let svc = scenario.service(id);
    let wait = svc.latency.mean().as_secs_f64();
    let wait = match svc.hang {
        Some(h) => (1.0 - h.probability) * wait + h.probability * h.duration.as_secs_f64(),
        None => wait,
    };
    wait + svc.cpu.as_secs_f64()
}

/// One stage alone, no other request around: its calls one after another (sequential), or
/// the largest of the bounds a fan-out meets: the slowest call, the CPU work over the cores,
/// each pool's work over its threads, and the submitter creating platform threads one after
/// another. Exact for fixed latencies when one bound dominates.
fn stage_time(scenario: &Scenario, strategy: Strategy, stage: &[ServiceId]) -> f64 {
    let time = |id: &ServiceId| mean_s(scenario, *id);
    if strategy.calls_inline() {
        // A semaphore bulkhead alone adds no wait: one request holds one permit at a time.
        return stage.iter().map(time).sum();
    }
    let slowest = stage.iter().map(time).fold(0.0, f64::max);
    let cpu: f64 = stage
        .iter()
        .map(|id| scenario.service(*id).cpu.as_secs_f64())
        .sum();
    let cpu_bound = cpu / f64::from(scenario.cores);
    let n = stage.len() as f64;
    let (pool_bound, spawns) = match strategy {
        Strategy::Shared => {
            let p = scenario.shared_parallelism();
            if crate::topology::common_pool_per_task(scenario) {
                (0.0, n)
            } else {
                let times: Vec<f64> = stage.iter().map(time).collect();
                (fifo_makespan(&times, p), 0.0)
            }
        }
        Strategy::Bulkhead => {
            let bound = scenario
                .strategy
                .bulkheads
                .iter()
                .map(|b| {
                    let times: Vec<f64> = stage
                        .iter()
                        .filter(|id| b.services.contains(id))
                        .map(time)
                        .collect();
                    // Below core every call gets a thread; beyond it they queue for the core
                    // threads, and only a full queue brings threads up to max.
                    let fits_queue = times.len() as u64 <= u64::from(b.core) + u64::from(b.queue);
                    let threads = if fits_queue { b.core.max(1) } else { b.max };
                    fifo_makespan(&times, threads)
                })
                .fold(0.0, f64::max);
            (bound, 0.0)
        }
        Strategy::Unbounded => {
            let platform =
                scenario.strategy.unbounded_threads == crate::scenario::UnboundedThreads::Platform;
            (0.0, if platform { n } else { 0.0 })
        }
        Strategy::Sequential | Strategy::Semaphore => (0.0, 0.0),
    };
    let spawn_bound = spawns * scenario.spawn_cost.as_secs_f64();
    slowest.max(cpu_bound).max(pool_bound).max(spawn_bound)
}

/// When the last of `times` ends if they run in order on `threads` threads, each taking the
/// next task as soon as it is free (a FIFO queue in front of a fixed set of workers).
fn fifo_makespan(times: &[f64], threads: u32) -> f64 {
    use std::cmp::Reverse;
    let threads = threads.max(1) as usize;
    if times.len() <= threads {
        return times.iter().copied().fold(0.0, f64::max);
    }
    // Free times in nanoseconds, so the heap orders integers.
    let mut free: std::collections::BinaryHeap<Reverse<u64>> =
        std::iter::repeat_n(Reverse(0u64), threads).collect();
    let mut end = 0u64;
    for &t in times {
        let Reverse(start) = free.pop().unwrap_or(Reverse(0));
        let finish = start + (t * 1e9).round() as u64;
        end = end.max(finish);
        free.push(Reverse(finish));
    }
    end as f64 / 1e9
}

/// Predicts the figures of `scenario` under `strategy`.
pub fn predict(scenario: &Scenario, strategy: Strategy) -> Prediction {
    let stages = &scenario.endpoint.stages;
    let single: f64 = stages
        .iter()
        .map(|stage| stage_time(scenario, strategy, stage))
        .sum();
    // With server.async the handler only submits; the hold is negligible.
    let hold = if scenario.server.async_ && !strategy.calls_inline() {
        0.0
    } else {
        single
    };
    let server_ceiling = match scenario.server.threads {
        ServerThreads::Platform(threads) if hold > 0.0 => {
            Some(throughput_ceiling(f64::from(threads), hold))
        }
        _ => None,
    };
    let pools = pool_ceilings(scenario, strategy);
    let resources = resource_ceilings(scenario);
    let (cpu_ceiling, sizing_rule) = cpu_figures(scenario, strategy);
    let mut ceiling = server_ceiling.map(|c| (c, "tomcat".to_string()));
    let candidates = pools
        .iter()
        .chain(&resources)
        .map(|p| (p.ceiling_rps, p.pool.clone()))
        .chain(cpu_ceiling.map(|c| (c, "cpu".to_string())));
    for (c, name) in candidates {
        if ceiling.as_ref().is_none_or(|(best, _)| c < *best) {
            ceiling = Some((c, name));
        }
    }
    let ceiling_rps = ceiling.as_ref().map(|(c, _)| *c);
    let bottleneck = ceiling.map(|(_, name)| name);
    let (throughput, latency, erlang) = load_figures(scenario, single, hold, ceiling_rps);
    let utilisation = match (throughput, ceiling_rps) {
        (Some(x), Some(c)) if c > 0.0 => Some(x / c),
        _ => None,
    };
    Prediction {
        single_request_ms: single * 1e3,
        handler_hold_ms: hold * 1e3,
        server_ceiling_rps: server_ceiling,
        pools,
        ceiling_rps,
        bottleneck,
        throughput_rps: throughput,
        latency_ms: latency.map(|s| s * 1e3),
        utilisation,
        erlang_c: erlang,
        cpu_ceiling_rps: cpu_ceiling,
        resources,
        sizing_rule_threads: sizing_rule,
        retries: scenario.load.retry.as_ref().map(|policy| {
            let lambda = match scenario.load.mode {
                LoadMode::Open { rate, ramp } => Some(ramp.map_or(rate, |r| r.to)),
                _ => None,
            };
            super::retry_theory(policy, lambda, ceiling_rps)
        }),
    }
}

/// Throughput, mean latency and (open load on platform threads) Erlang C under the load, for
/// a request that takes `single` seconds and holds its handler `hold` seconds.
fn load_figures(
    scenario: &Scenario,
    single: f64,
    hold: f64,
    ceiling_rps: Option<f64>,
) -> (Option<f64>, Option<f64>, Option<ErlangPrediction>) {
    match scenario.load.mode {
        LoadMode::Runs { .. } => (Some(1.0 / single.max(1e-12)), Some(single), None),
        LoadMode::Batch { .. } | LoadMode::Trace { .. } => (None, None, None),
        LoadMode::Closed { clients, think } => {
            let z = think.as_secs_f64();
            let n = f64::from(clients);
            match ceiling_rps {
                Some(c) => {
                    // The bounds with c/S replaced by the bottleneck's ceiling.
                    let servers = c * single.max(1e-12);
                    let b = closed_loop_bounds(n, servers, single, z);
                    (Some(b.throughput), Some(b.response_time), None)
                }
                None => (Some(n / (single + z).max(1e-12)), Some(single), None),
            }
        }
        LoadMode::Open { rate, ramp } => {
            let lambda = ramp.map_or(rate, |r| r.to);
            let x = ceiling_rps.map_or(lambda, |c| lambda.min(c));
            let erlang = match scenario.server.threads {
                ServerThreads::Platform(threads) if hold > 0.0 => erlang_c(threads, lambda, hold)
                    .map(|e| ErlangPrediction {
                        servers: threads,
                        offered_load_erlangs: lambda * hold,
                        prob_wait: e.prob_wait,
                        mean_wait_ms: e.mean_wait * 1e3,
                        mean_response_ms: (e.mean_wait + single) * 1e3,
                        p99_response_ms: e.response_time_quantile(0.99) * 1e3,
                        approximation: !exponential_hold(scenario),
                    }),
                _ => None,
            };
            let stable = ceiling_rps.is_none_or(|c| lambda < c);
            let latency = if stable {
                Some(erlang.as_ref().map_or(single, |e| e.mean_response_ms / 1e3))
            } else {
                None
            };
            (Some(x), latency, erlang)
        }
    }
}

/// The server's own CPU on the cores per request, besides its calls: the handler's
/// `cpu_per_request`, and with `[jvm.connector_threads]` the Poller's poll and, on a new
/// connection each request, its registration and the Acceptor's turn.
fn server_cpu(scenario: &Scenario) -> f64 {
    let connector = &scenario.server.connector;
    let mut cpu = connector.cpu_per_request;
    if let Some(threads) = scenario.jvm.connector_threads {
        cpu += threads.poll;
        if !scenario.load.link.keep_alive {
            cpu += threads.register + connector.accept_cost;
        }
    }
    cpu.as_secs_f64()
}

/// The CPU ceiling (the cores over all the CPU a request takes: its calls', the server's
/// own) and Goetz's sizing rule (the calls' CPU and wait only).
fn cpu_figures(scenario: &Scenario, strategy: Strategy) -> (Option<f64>, Option<f64>) {
    let calls: Vec<ServiceId> = scenario.endpoint.stages.iter().flatten().copied().collect();
    let virtual_calls = match strategy {
        Strategy::Unbounded => {
            scenario.strategy.unbounded_threads == crate::scenario::UnboundedThreads::Virtual
        }
        Strategy::Sequential | Strategy::Semaphore => {
            scenario.server.threads == ServerThreads::Virtual
        }
        _ => false,
    };
    let pins = virtual_calls && scenario.jdk < crate::scenario::Jdk::V25;
    let mut cpu = 0.0;
    let mut compute = 0.0;
    let mut wait = 0.0;
    for &id in &calls {
        let svc = scenario.service(id);
        let c = svc.cpu.as_secs_f64();
        let w = mean_s(scenario, id) - c;
        compute += c;
        wait += w;
        // A pinned virtual thread keeps its carrier (a core) for the whole call.
        cpu += if pins && svc.pinned { c + w } else { c };
    }
    let spawns = match strategy {
        Strategy::Unbounded if !virtual_calls => calls.len() as f64,
        _ => 0.0,
    };
    cpu += spawns * scenario.spawn_cost.as_secs_f64();
    cpu += server_cpu(scenario);
    let cores = f64::from(scenario.cores);
    let ceiling = (cpu > 0.0).then(|| cores / cpu);
    let sizing = (compute > 0.0).then(|| super::pool_size_for_full_cpu(cores, wait, compute));
    (ceiling, sizing)
}

/// Each connection pool's ceiling: size / connection time one request needs.
fn resource_ceilings(scenario: &Scenario) -> Vec<PoolCeiling> {
    let calls: Vec<ServiceId> = scenario.endpoint.stages.iter().flatten().copied().collect();
    scenario
        .resources
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let hold: f64 = calls
                .iter()
                .filter(|&&id| scenario.service(id).uses.is_some_and(|u| u.0 == i))
                .map(|&id| mean_s(scenario, id))
                .sum();
            (hold > 0.0).then(|| {
                let c = throughput_ceiling(f64::from(r.size), hold);
                PoolCeiling {
                    pool: r.name.clone(),
                    threads: r.size,
                    work_ms_per_request: hold * 1e3,
                    ceiling_rps: c,
                    core_ceiling_rps: c,
                }
            })
        })
        .collect()
}

fn pool_ceilings(scenario: &Scenario, strategy: Strategy) -> Vec<PoolCeiling> {
    let called: Vec<ServiceId> = scenario.endpoint.stages.iter().flatten().copied().collect();
    // The mean time of each call of `services` in one request.
    let work = |services: &[ServiceId]| -> Vec<f64> {
        called
            .iter()
            .filter(|s| services.contains(s))
            .map(|&s| mean_s(scenario, s))
            .collect()
    };
    match strategy {
        Strategy::Sequential | Strategy::Unbounded => Vec::new(),
        // ThreadPerTaskExecutor: no pool, no ceiling.
        Strategy::Shared if crate::topology::common_pool_per_task(scenario) => Vec::new(),
        Strategy::Shared => {
            let p = scenario.shared_parallelism();
            vec![ceiling("shared", p, &work(&called))]
        }
        // Each service's permits bound its calls in flight, like a pool of that many threads.
        Strategy::Semaphore => {
            let mut services = called.clone();
            services.sort_unstable();
            services.dedup();
            let permits = scenario.strategy.semaphore.permits;
            services
                .iter()
                .map(|&s| ceiling(&scenario.service(s).name, permits, &work(&[s])))
                .collect()
        }
        Strategy::Bulkhead => scenario
            .strategy
            .bulkheads
            .iter()
            .filter_map(|b| bulkhead_ceiling(scenario, b, &work(&b.services)))
            .collect(),
    }
}

/// A pool of `threads` threads doing `tasks` (seconds each) per request.
fn ceiling(pool: &str, threads: u32, tasks: &[f64]) -> PoolCeiling {
    let c = fan_out_ceiling(f64::from(threads), tasks);
    PoolCeiling {
        pool: pool.to_owned(),
        threads,
        work_ms_per_request: tasks.iter().sum::<f64>() * 1e3,
        ceiling_rps: c,
        core_ceiling_rps: c,
    }
}

/// A bulkhead's ceiling: a ThreadPoolExecutor grows past core only once its queue is full, so
/// only a load that can fill the queue gets the max threads' ceiling.
fn bulkhead_ceiling(
    scenario: &Scenario,
    b: &crate::scenario::BulkheadPool,
    tasks: &[f64],
) -> Option<PoolCeiling> {
    if tasks.is_empty() {
        return None;
    }
    let core = fan_out_ceiling(f64::from(b.core.max(1)), tasks);
    let room = u64::from(b.core) + u64::from(b.queue);
    let per_request = tasks.len() as u64;
    let grows = match scenario.load.mode {
        LoadMode::Closed { clients, .. } => u64::from(clients) * per_request > room,
        LoadMode::Batch { count } => u64::from(count) * per_request > room,
        LoadMode::Runs { .. } => per_request > room,
        LoadMode::Open { rate, ramp } => ramp.map_or(rate, |r| r.to.max(rate)) >= core,
        LoadMode::Trace { .. } => true,
    };
    let threads = if grows { b.max } else { b.core.max(1) };
    Some(PoolCeiling {
        core_ceiling_rps: core,
        ..ceiling(&b.name, threads, tasks)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn ironthread(sets: &[&str]) -> Scenario {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        scenario::load("ironthread", &sets).expect("preset")
    }

    #[test]
    fn single_request_adds_up_sequentially_and_waits_for_the_slowest_in_pools() {
        let s = ironthread(&[]);
        assert!((predict(&s, Strategy::Sequential).single_request_ms - 1700.0).abs() < 1e-6);
        assert!((predict(&s, Strategy::Bulkhead).single_request_ms - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn a_semaphore_bulkhead_calls_in_turn_and_caps_each_service_at_permits_over_its_latency() {
        let s = ironthread(&["load.mode=closed", "load.clients=400"]);
        let p = predict(&s, Strategy::Semaphore);
        assert!((p.single_request_ms - 1700.0).abs() < 1e-6);
        // 25 permits (resilience4j's default) of recommendations at 1 s each: 25/s, below
        // Tomcat's 200 threads / 1.7 s.
        let recs = p
            .pools
            .iter()
            .find(|c| c.pool == "recommendations")
            .expect("a ceiling per service");
        assert_eq!(recs.threads, 25);
        assert!(
            (recs.ceiling_rps - 25.0).abs() < 1e-6,
            "{}",
            recs.ceiling_rps
        );
        assert_eq!(p.bottleneck.as_deref(), Some("recommendations"));
    }

    #[test]
    fn tomcat_caps_sequential_closed_load_at_threads_over_hold() {
        let s = ironthread(&["load.mode=closed", "load.clients=400"]);
        let p = predict(&s, Strategy::Sequential);
        let x = p.throughput_rps.expect("closed load has a throughput");
        assert!((x - 200.0 / 1.7).abs() < 1e-6, "{x}");
        assert_eq!(p.bottleneck.as_deref(), Some("tomcat"));
        // R = N / X: 400 clients at 117.6/s wait 3.4 s.
        assert!((p.latency_ms.expect("latency") - 3400.0).abs() < 1e-6);
    }

    #[test]
    fn the_bulkhead_is_the_bottleneck_of_the_ironthread_pool() {
        let s = ironthread(&["load.mode=closed", "load.clients=400"]);
        let p = predict(&s, Strategy::Bulkhead);
        // 20 threads, 1.7 thread-seconds per dashboard: 11.8/s; 10 core threads: 5.9/s.
        assert_eq!(p.bottleneck.as_deref(), Some("IronThread"));
        let pool = &p.pools[0];
        assert!((pool.ceiling_rps - 20.0 / 1.7).abs() < 1e-9);
        assert!((pool.core_ceiling_rps - 10.0 / 1.7).abs() < 1e-9);
    }

    #[test]
    fn a_small_pool_runs_a_fan_out_in_fifo_waves() {
        // Three 100 ms calls on 2 threads: two run, the third waits for the first to end.
        assert!((fifo_makespan(&[0.1, 0.1, 0.1], 2) - 0.2).abs() < 1e-9);
        assert!((fifo_makespan(&[0.3, 0.1, 0.1, 0.1], 2) - 0.3).abs() < 1e-9);
        assert!((fifo_makespan(&[0.1; 100], 3) - 3.4).abs() < 1e-9);
        let s = ironthread(&["strategy.bulkhead.IronThread.core=2"]);
        // user 200 and orders 500 start; recommendations 1000 starts at 200: ends at 1200.
        assert!((predict(&s, Strategy::Bulkhead).single_request_ms - 1200.0).abs() < 1e-6);
    }

    #[test]
    fn cpu_time_is_counted_once_in_pool_ceilings_and_the_sizing_rule() {
        let s = scenario::load("connection-pool", &["services.query.cpu=50ms".to_string()])
            .expect("preset");
        let p = predict(&s, Strategy::Sequential);
        // A connection is held for 50 ms of CPU and 50 ms of waiting: 10 / 0.1 s.
        assert!(
            (p.resources[0].ceiling_rps - 100.0).abs() < 1e-6,
            "{:?}",
            p.resources
        );
        // 8 cores x (1 + 50 / 50).
        assert!((p.sizing_rule_threads.expect("cpu is used") - 16.0).abs() < 1e-9);
    }

    #[test]
    fn a_bulkhead_that_cannot_fill_its_queue_is_capped_by_its_core_threads() {
        let s = ironthread(&["load.mode=closed", "load.clients=100"]);
        let p = predict(&s, Strategy::Bulkhead);
        assert!((p.ceiling_rps.expect("a ceiling") - 10.0 / 1.7).abs() < 1e-9);
        assert_eq!(p.pools[0].threads, 10);
    }
}
