//! Which strategy did best, and what holds each one back: the answers the compare table and
//! the TUI's compare view give in words, from the same reports.

use super::compare_table::{MS_DECIMALS, RATE_DECIMALS};
use super::{PoolReport, RunReport};
use crate::scenario::Scenario;
use crate::sim::SizeKnob;

/// How finely [`best_as`] compares goodput and latencies: as the table or view that marks the
/// best shows them, so figures shown alike rank alike. Each maps a figure to an integer that
/// orders the figures as shown (see [`shown`]).
pub struct Shown {
    /// Goodput, in requests per second.
    pub rate: fn(f64) -> i64,
    /// A latency, in milliseconds.
    pub ms: fn(f64) -> i64,
}

/// The compare table's precision: goodput to 0.01 req/s, latencies to 0.1 ms.
pub const TABLE: Shown = Shown {
    rate: |v| shown(v, 1.0, RATE_DECIMALS),
    ms: |v| shown(v, 1.0, MS_DECIMALS),
};

/// `v` as written in units of `unit` (1, or 1,000 for a `k`) with `decimals` decimals, read
/// back as a whole number of hundredths of `v`'s own unit: `shown(1000.25, 1.0, 1)` is
/// `100_020` ("1000.2", as the table writes it; rounding the float would give 1000.3), and
/// `shown(12_345.0, 1e3, 1)` is `1_230_000` ("12.3k"). A figure that cannot be written as a
/// number is 0.
pub fn shown(v: f64, unit: f64, decimals: usize) -> i64 {
    let written = format!("{:.decimals$}", v / unit);
    let digits: String = written.chars().filter(|&c| c != '.').collect();
    let scale = unit * 100.0 / 10f64.powi(i32::try_from(decimals).unwrap_or(0));
    digits
        .parse::<i64>()
        .map_or(0, |n| (n as f64 * scale).round() as i64)
}

/// The strategies marked best, with the figures compared as the compare table shows them
/// ([`TABLE`]); see [`best_as`].
pub fn best(reports: &[RunReport]) -> Vec<usize> {
    best_as(reports, &TABLE)
}

/// The strategies marked best: the highest goodput, ties broken by the lower p99 of answered
/// requests, then by their lower mean. Each is compared as `shown` writes it, so strategies
/// shown as equal are all marked. When a run ended at t = 0 no rate exists to rank by
/// (`RunReport::has_rates`): the most answered requests, then the lower p99, win. Empty
/// when nothing was answered.
pub fn best_as(reports: &[RunReport], shown: &Shown) -> Vec<usize> {
    let timed = reports.iter().all(RunReport::has_rates);
    let key = |r: &RunReport| {
        let headline = if timed {
            (shown.rate)(r.goodput_rps)
        } else {
            (r.requests.success + r.requests.partial) as i64
        };
        let lower = |ms: f64| -(shown.ms)(ms);
        (headline, lower(r.latency_ms.p99), lower(r.latency_ms.mean))
    };
    let Some(top) = reports.iter().map(key).max() else {
        return Vec::new();
    };
    if top.0 <= 0 {
        return Vec::new();
    }
    (0..reports.len())
        .filter(|&i| key(&reports[i]) == top)
        .collect()
}

/// One short phrase saying what limits a strategy's goodput: rejections, client timeouts
/// (naming a hanging service), refused connections, else the pool whose queue built up or
/// that runs at its ceiling, else the load itself; and the cores when they are saturated
/// too (a storm of failures is as fast as the CPU can report it).
pub fn limited_by(scenario: &Scenario, r: &RunReport) -> String {
    let phrase = holds_back(scenario, r);
    let utilisation = r.cpu.as_ref().map_or(0.0, |cpu| cpu.utilisation);
    if utilisation >= 0.95 && !phrase.contains("cores") && !phrase.starts_with("cpu") {
        format!("{phrase}, cores {:.0}%", utilisation * 100.0)
    } else {
        phrase
    }
}

fn holds_back(scenario: &Scenario, r: &RunReport) -> String {
    let q = &r.requests;
    let rejecting = r
        .pools
        .iter()
        .filter(|p| p.rejected > 0)
        .max_by_key(|p| p.rejected);
    if let Some(pool) = rejecting {
        return format!("{} rejects", pool.name);
    }
    // Rejected calls with no pool rejecting: a semaphore bulkhead had no permit.
    let refusing = r
        .services
        .iter()
        .filter(|s| s.stats.rejected > 0)
        .max_by_key(|s| s.stats.rejected);
    if let Some(service) = refusing {
        return format!("{} rejects", service.name);
    }
    if q.timeout > 0 {
        if let Some(hung) = scenario.services.iter().find(|s| s.hang.is_some()) {
            return format!("timeouts: {} hangs", hung.name);
        }
        return match slowest_service(r) {
            Some(name) => format!("timeouts on {name}"),
            None => "client timeouts".to_string(),
        };
    }
    if q.refused > 0 {
        return "refused: backlog full".to_string();
    }
    // A queue that built up while every thread the pool may run was busy marks the pool that
    // could not keep up, even while a run is young and its rate still below the ceiling:
    // theory's bottleneck if it queued (the pools in front of it queue too, waiting on it),
    // else the longest queue. A queue beside idle threads (the common pool's tasks pushed
    // before a woken worker scans) is a hand-over, not a limit.
    let p = &r.theory.prediction;
    let queued = r
        .pools
        .iter()
        .filter(|x| x.max_queue > 0 && ran_full(x))
        .max_by_key(|x| {
            (
                p.bottleneck.as_deref() == Some(x.name.as_str()),
                x.max_queue,
            )
        });
    if let Some(pool) = queued {
        return format!("{} full, queue {}", pool.name, pool.max_queue);
    }
    match (&p.bottleneck, p.ceiling_rps) {
        (Some(b), Some(c)) if r.throughput_rps >= 0.9 * c => format!("{b} full"),
        _ => "load (below ceiling)".to_string(),
    }
}

/// Whether the pool had every thread it may run busy at once: the threads its size knob
/// sets, `maxThreads` for Tomcat (its TaskQueue grows to the maximum before it queues), the
/// parallelism for the common pool, the core size for a ThreadPoolExecutor (it queues at
/// core; at least one thread, which a core of 0 still starts); a thread per task never fills.
fn ran_full(pool: &PoolReport) -> bool {
    let Some(knob) = SizeKnob::of(pool.kind) else {
        return false;
    };
    let threads = knob.value(pool.core.max(1), pool.max.unwrap_or(u32::MAX));
    pool.max_active >= threads
}

/// The service whose calls failed or timed out most, if any did.
fn slowest_service(r: &RunReport) -> Option<&str> {
    r.services
        .iter()
        .map(|s| {
            (
                s.stats.timeouts + s.stats.failures + s.stats.discarded,
                s.name.as_str(),
            )
        })
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n)
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{self, Strategy};
    use crate::sim::pool::PoolKind;
    use crate::time::Nanos;

    fn limit(preset: &str, strategy: Strategy) -> String {
        let s = scenario::load(preset, &[]).expect("built-in preset");
        let engine = crate::report::play(&s, strategy, Nanos::from_secs(60));
        limited_by(&s, &RunReport::new(&s, &engine))
    }

    fn pool(kind: PoolKind, core: u32, max: Option<u32>, max_active: u32) -> PoolReport {
        PoolReport {
            name: "p".into(),
            kind,
            core,
            max,
            queue_capacity: Some(10),
            largest_pool_size: max_active,
            max_active,
            max_queue: 1,
            completed: 0,
            rejected: 0,
            threads_created: u64::from(max_active),
        }
    }

    #[test]
    fn a_figure_is_compared_as_it_is_written() {
        // Exact halves are written as the formatter rounds them, which rounding the float by
        // hand does not always match: the key reads back what is written.
        for (v, decimals) in [(1000.25, 1), (0.125, 2), (2.5, 0), (1000.2, 1), (0.12, 2)] {
            let written = format!("{v:.decimals$}").replace('.', "");
            let hundredths = 10_i64.pow(2 - u32::try_from(decimals).unwrap_or(2));
            assert_eq!(
                shown(v, 1.0, decimals),
                written.parse::<i64>().unwrap_or(i64::MIN) * hundredths,
                "{v}"
            );
        }
        assert_eq!(shown(1000.25, 1.0, 1), shown(1000.2, 1.0, 1));
        assert_eq!(shown(12_345.0, 1e3, 1), 1_230_000);
        assert_eq!(shown(12_345.0, 1e3, 1), shown(12_299.0, 1e3, 1));
        assert!(shown(12_345.0, 1e3, 1) < shown(12_351.0, 1e3, 1));
        assert_eq!(shown(f64::NAN, 1.0, 1), 0);
    }

    #[test]
    fn strategies_shown_alike_are_all_marked() {
        // ironthread's five runs: the shared pool answers its p99 in 1000.3 ms, the bulkheads
        // in 1000.0, both at 1.00 req/s.
        let s = scenario::load("ironthread", &[]).expect("built-in preset");
        let report =
            |strategy| RunReport::new(&s, &crate::report::play(&s, strategy, Nanos::from_secs(60)));
        let (shared, bulkhead) = (report(Strategy::Shared), report(Strategy::Bulkhead));
        assert_eq!(
            shown(shared.goodput_rps, 1.0, 2),
            shown(bulkhead.goodput_rps, 1.0, 2)
        );
        assert!(shared.latency_ms.p99 > bulkhead.latency_ms.p99 + 0.2);
        let both = [shared, bulkhead];
        // The table writes 1000.3 against 1000.0: the bulkhead alone is best there.
        assert_eq!(best(&both), [1]);
        // A view that writes whole milliseconds shows 1000 for both: it marks both.
        let whole_ms = Shown {
            rate: TABLE.rate,
            ms: |v| shown(v, 1.0, 0),
        };
        assert_eq!(best_as(&both, &whole_ms), [0, 1]);
    }

    #[test]
    fn a_pool_runs_full_at_the_threads_its_size_knob_sets() {
        // A ThreadPoolExecutor queues at core, Tomcat grows to maxThreads first.
        assert!(ran_full(&pool(PoolKind::ThreadPool, 10, Some(20), 10)));
        assert!(!ran_full(&pool(PoolKind::ThreadPool, 10, Some(20), 9)));
        assert!(ran_full(&pool(PoolKind::ThreadPool, 0, Some(4), 1)));
        assert!(!ran_full(&pool(PoolKind::Tomcat, 10, Some(200), 10)));
        assert!(ran_full(&pool(PoolKind::Tomcat, 10, Some(200), 200)));
        assert!(ran_full(&pool(PoolKind::ForkJoin, 8, Some(8), 8)));
        assert!(!ran_full(&pool(PoolKind::PerTask, 0, None, 5000)));
    }

    #[test]
    fn a_queue_beside_idle_workers_is_not_a_full_pool() {
        // ironthread's five runs use 3 of the common pool's 10 workers; two tasks wait the
        // moment a woken worker takes to scan, and goodput equals bulkhead's.
        assert_eq!(
            limit("ironthread", Strategy::Shared),
            "load (below ceiling)"
        );
    }
}
