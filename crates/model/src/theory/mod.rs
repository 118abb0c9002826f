//! Queueing-theory predictions shown beside measurements.
//!
//! Pure functions over `f64` in SI units: times in seconds, rates in requests per second,
//! servers (threads, connections, permits) as counts. Notation follows the teacher panel:
//! λ arrival rate, X throughput, S = 1/μ mean service time (how long a request holds a
//! server), c servers, N concurrent clients, Z think time, R response time, W time in system,
//! Wq time waiting in the queue.
//!
//! - [`littles_law_l`], [`utilisation`], [`throughput_ceiling`]: the operational laws that
//!   hold for any stable system, whatever the distributions.
//! - [`closed_loop_throughput`], [`closed_loop_response_time`], [`closed_loop_bounds`]: a fixed
//!   population of clients (wrk/k6-style "N connections"), the model of most load tests.
//! - [`erlang_c`]: the M/M/c queue (Poisson arrivals, exponential service), the model of an
//!   open-loop load below capacity.
//! - [`pool_size_for`], [`fan_out_ceiling`]: sizing rules.
//! - [`attempts_per_request`], [`retry_theory`]: what retries cost, and the offered load of a
//!   retry storm against the ceiling.

mod erlang;
mod predict;
mod retry;

pub use erlang::{ErlangC, erlang_c};
pub use predict::{ErlangPrediction, PoolCeiling, Prediction, predict};
pub use retry::{RetryTheory, attempts_per_request, retry_theory};

/// The fewest requests per second the server takes off the network under any of
/// `strategies`: the lowest of its handler threads', its cores' and its connections'
/// ceilings (`None` when none binds). An open load above it piles up requests waiting to
/// connect, which the cost estimate counts ([`crate::scenario::estimate_cost`]). A pool that
/// rejects answers at once, so pools' ceilings do not count here.
pub fn served_rps(
    scenario: &crate::scenario::Scenario,
    strategies: &[crate::scenario::Strategy],
) -> Option<f64> {
    strategies
        .iter()
        .filter_map(|&s| {
            let p = predict(scenario, s);
            let single = p.single_request_ms / 1e3;
            let connections = (single > 0.0)
                .then(|| throughput_ceiling(f64::from(scenario.server.max_connections), single));
            [p.server_ceiling_rps, p.cpu_ceiling_rps, connections]
                .into_iter()
                .flatten()
                .reduce(f64::min)
        })
        .reduce(f64::min)
}

/// Little's law: `L = λ · W`.
///
/// The mean number of requests in a system equals the arrival rate times the mean time each
/// spends in it (J. D. C. Little, "A Proof for the Queuing Formula L = λW", 1961). It holds for
/// any stable system and any "system" boundary: per pool, busy threads = X · S and queued tasks
/// = X · Wq.
#[must_use]
pub fn littles_law_l(arrival_rate: f64, mean_time_in_system: f64) -> f64 {
    arrival_rate * mean_time_in_system
}

/// Utilisation law: `U = X · S / c`, the fraction of time the average server is busy.
///
/// Little's law applied to the servers alone (busy servers = X · S), divided by their number
/// (Denning & Buzen, "The Operational Analysis of Queueing Network Models", 1978).
#[must_use]
pub fn utilisation(throughput: f64, service_time: f64, servers: f64) -> f64 {
    throughput * service_time / servers
}

/// Maximum throughput of `c` servers each holding a request for `S` seconds: `X_max = c / S`.
///
/// Follows from the utilisation law with `U ≤ 1`. Tomcat's 200 threads at 100 ms per request
/// give 2,000 req/s. Infinite when `S = 0` (a server that is never held is no limit).
#[must_use]
pub fn throughput_ceiling(servers: f64, service_time: f64) -> f64 {
    if service_time == 0.0 {
        f64::INFINITY
    } else {
        servers / service_time
    }
}

/// Interactive response-time law for a closed loop: `X = N / (R + Z)`.
///
/// Each of `N` clients alternates between waiting `R` for a response and thinking `Z` before
/// the next request, so each completes one cycle per `R + Z` seconds (Little's law over the
/// whole loop; Lazowska et al., *Quantitative System Performance*, 1984, ch. 3).
#[must_use]
pub fn closed_loop_throughput(clients: f64, response_time: f64, think_time: f64) -> f64 {
    clients / (response_time + think_time)
}

/// Interactive response-time law solved for the response time: `R = N / X − Z`.
///
/// With `N` wrk-style connections (Z = 0) at measured throughput X, the mean latency is `N / X`:
/// 2,000 connections at 1,850 req/s wait 1.08 s on average.
#[must_use]
pub fn closed_loop_response_time(clients: f64, throughput: f64, think_time: f64) -> f64 {
    clients / throughput - think_time
}

/// Best-case throughput and response time of a closed loop; see [`closed_loop_bounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosedLoopBounds {
    /// Upper bound on throughput X (req/s).
    pub throughput: f64,
    /// Lower bound on mean response time R (s).
    pub response_time: f64,
}

/// Asymptotic bounds of a closed loop of `N` clients on `c` servers of service time `S`:
///
/// ```text
/// X ≤ min(N / (S + Z), c / S)
/// R ≥ max(S, N · S / c − Z)
/// ```
///
/// Asymptotic bound analysis (Lazowska et al., *Quantitative System Performance*, 1984, §5.2)
/// with one station of demand `S` whose `c` servers divide the bottleneck demand to `S / c`.
/// Below the knee `N* = c · (S + Z) / S` nobody waits and X grows with N; above it the servers
/// are saturated, X stays at `c / S` and every extra client only adds `S / c` to R.
/// `S` must be positive.
#[must_use]
pub fn closed_loop_bounds(
    clients: f64,
    servers: f64,
    service_time: f64,
    think_time: f64,
) -> ClosedLoopBounds {
    let unqueued = clients / (service_time + think_time);
    let saturated = throughput_ceiling(servers, service_time);
    ClosedLoopBounds {
        throughput: unqueued.min(saturated),
        response_time: service_time.max(clients * service_time / servers - think_time),
    }
}

/// Thread-pool size that keeps the CPUs at a target utilisation:
/// `N_threads = N_cpu · U_cpu · (1 + W / C)`.
///
/// Goetz et al., *Java Concurrency in Practice*, 2006, §8.2 "Sizing thread pools": while a
/// thread waits `W` (I/O, locks, downstream calls) for every `C` of computing, `W / C` other
/// threads can use its core. 8 cores, 1 ms compute and 99 ms wait: 8 · 1 · 100 = 800 threads.
#[must_use]
pub fn pool_size_for(
    cores: f64,
    target_cpu_utilisation: f64,
    wait_time: f64,
    compute_time: f64,
) -> f64 {
    cores * target_cpu_utilisation * (1.0 + wait_time / compute_time)
}

/// [`pool_size_for`] with the CPUs fully used (`U_cpu = 1`): `cores · (1 + W / C)`.
#[must_use]
pub fn pool_size_for_full_cpu(cores: f64, wait_time: f64, compute_time: f64) -> f64 {
    pool_size_for(cores, 1.0, wait_time, compute_time)
}

/// Request rate a pool of `c` threads sustains when each request submits tasks with the given
/// service times to it: `X_max = c / Σ Sᵢ`.
///
/// The utilisation law with the pool's demand per request being the sum of its tasks' times,
/// whether they run in parallel or one after another. (The parallelism only changes how long
/// the request's own thread waits: `max Sᵢ` rather than `Σ Sᵢ`.) Infinite for no tasks.
#[must_use]
pub fn fan_out_ceiling(pool_threads: f64, task_times: &[f64]) -> f64 {
    throughput_ceiling(pool_threads, task_times.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn assert_infinite(actual: f64) {
        assert!(
            actual.is_infinite() && actual > 0.0,
            "expected +inf, got {actual}"
        );
    }

    pub(super) fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected} ± {tolerance}, got {actual}"
        );
    }

    #[test]
    fn littles_law_multiplies_rate_by_time() {
        assert_close(littles_law_l(1800.0, 0.1), 180.0, 1e-9);
        assert_close(littles_law_l(1850.0, 1.08), 1998.0, 1e-9);
        assert_close(littles_law_l(0.0, 5.0), 0.0, 0.0);
    }

    #[test]
    fn utilisation_is_busy_servers_over_servers() {
        assert_close(utilisation(1800.0, 0.1, 200.0), 0.9, 1e-12);
        assert_close(utilisation(5.0, 1.7, 10.0), 0.85, 1e-12);
    }

    #[test]
    fn throughput_ceiling_is_servers_over_service_time() {
        assert_close(throughput_ceiling(200.0, 0.1), 2000.0, 1e-9);
        assert_close(throughput_ceiling(200.0, 1.7), 117.647_058_823_529_4, 1e-9);
        assert_close(throughput_ceiling(10.0, 0.25), 40.0, 1e-12);
    }

    #[test]
    fn throughput_ceiling_is_infinite_for_instant_service() {
        assert_infinite(throughput_ceiling(200.0, 0.0));
    }

    #[test]
    fn closed_loop_laws_are_inverse() {
        // 2,000 wrk connections, no think time, 1,850 req/s measured.
        assert_close(
            closed_loop_response_time(2000.0, 1850.0, 0.0),
            1.081_081_081,
            1e-9,
        );
        assert_close(closed_loop_throughput(2000.0, 0.1, 0.0), 20_000.0, 1e-9);
        assert_close(closed_loop_throughput(100.0, 0.5, 1.5), 50.0, 1e-12);
        assert_close(closed_loop_response_time(100.0, 50.0, 1.5), 0.5, 1e-12);
    }

    #[test]
    fn closed_loop_bounds_saturate_above_the_knee() {
        // 2,000 clients on 200 threads of 100 ms: capped at 2,000 req/s, R = 2000 · 0.1 / 200.
        let b = closed_loop_bounds(2000.0, 200.0, 0.1, 0.0);
        assert_close(b.throughput, 2000.0, 1e-9);
        assert_close(b.response_time, 1.0, 1e-12);
    }

    #[test]
    fn closed_loop_bounds_grow_with_clients_below_the_knee() {
        let b = closed_loop_bounds(10.0, 200.0, 0.1, 0.0);
        assert_close(b.throughput, 100.0, 1e-9);
        assert_close(b.response_time, 0.1, 1e-12);
        // Think time: 300 clients, 1 s think, knee at 200 · 1.1 / 0.1 = 2,200 clients.
        let b = closed_loop_bounds(300.0, 200.0, 0.1, 1.0);
        assert_close(b.throughput, 300.0 / 1.1, 1e-9);
        assert_close(b.response_time, 0.1, 1e-12);
        // Above that knee the think time hides part of the queueing.
        let b = closed_loop_bounds(3000.0, 200.0, 0.1, 1.0);
        assert_close(b.throughput, 2000.0, 1e-9);
        assert_close(b.response_time, 0.5, 1e-12);
    }

    #[test]
    fn goetz_sizing_matches_the_book_example() {
        assert_close(pool_size_for_full_cpu(8.0, 0.099, 0.001), 800.0, 1e-9);
        assert_close(pool_size_for(8.0, 1.0, 0.099, 0.001), 800.0, 1e-9);
        assert_close(pool_size_for(8.0, 0.5, 0.099, 0.001), 400.0, 1e-9);
        // Pure compute: one thread per core.
        assert_close(pool_size_for_full_cpu(4.0, 0.0, 0.01), 4.0, 1e-12);
    }

    #[test]
    fn fan_out_ceiling_divides_threads_by_total_task_time() {
        assert_close(fan_out_ceiling(50.0, &[0.02, 0.03, 0.05]), 500.0, 1e-9);
        assert_close(fan_out_ceiling(200.0, &[1.7]), 117.647_058_823_529_4, 1e-9);
        assert_infinite(fan_out_ceiling(8.0, &[]));
    }
}
