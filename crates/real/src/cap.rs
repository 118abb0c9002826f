//! The OS threads a real run would start, and what would bring a scenario under the cap
//! (`--max-threads`): advice computed from the scenario's own numbers, so it only ever names
//! a change that lowers the count.

use crate::scenario::{LoadMode, Scenario, ServerThreads, Strategy, UnboundedThreads};

/// Above this, a count is "a thread per request of an endless load": no cap can hold it.
const ENDLESS: u64 = u64::MAX / 4;

/// An estimate of the OS threads a real run starts at most: server threads, plus the
/// strategy's pool maxima or parallelism, or a thread per call in flight (`unbounded` on
/// platform threads, a common pool below parallelism 2). Tokio tasks (virtual threads) do
/// not count.
pub fn os_threads_needed(scenario: &Scenario, strategy: Strategy) -> (u64, String) {
    let server = server_threads(scenario);
    let (pools, pools_detail) = pool_threads(scenario, strategy);
    let detail = format!("{server} server{pools_detail} threads");
    (server.saturating_add(pools), detail)
}

fn server_threads(scenario: &Scenario) -> u64 {
    match scenario.server.threads {
        ServerThreads::Platform(n) => u64::from(n),
        ServerThreads::Virtual => 0,
    }
}

/// The strategy's own OS threads, and how they add up (" + 20 bulkhead maximum").
fn pool_threads(scenario: &Scenario, strategy: Strategy) -> (u64, String) {
    match strategy {
        Strategy::Unbounded
            if scenario.strategy.unbounded_threads == UnboundedThreads::Platform =>
        {
            // A `runs` load has one request in flight at a time.
            let n = match scenario.load.mode {
                LoadMode::Runs { .. } => widest_stage(scenario),
                _ => threads_per_call(scenario),
            };
            (
                n,
                " + a thread per call (unbounded platform threads)".into(),
            )
        }
        Strategy::Sequential | Strategy::Unbounded | Strategy::Semaphore => (0, String::new()),
        Strategy::Bulkhead => {
            let n = scenario
                .strategy
                .bulkheads
                .iter()
                .map(|b| u64::from(b.max))
                .sum();
            (n, format!(" + {n} bulkhead maximum"))
        }
        Strategy::Shared if crate::topology::common_pool_per_task(scenario) => (
            threads_per_call(scenario),
            " + a thread per call (common pool parallelism below 2)".into(),
        ),
        Strategy::Shared => {
            let parallelism = scenario.shared_parallelism();
            (
                u64::from(parallelism),
                format!(" + {parallelism} common pool"),
            )
        }
    }
}

/// A new thread per call: as many as calls can be in flight at once.
fn threads_per_call(scenario: &Scenario) -> u64 {
    let handlers = match scenario.server.threads {
        ServerThreads::Platform(n) => u64::from(n),
        ServerThreads::Virtual => match scenario.load.mode {
            LoadMode::Runs { .. } => 1,
            LoadMode::Batch { count } => u64::from(count),
            LoadMode::Closed { clients, .. } => u64::from(clients),
            LoadMode::Open { .. } | LoadMode::Trace { .. } => u64::MAX / 2,
        },
    };
    handlers.saturating_mul(widest_stage(scenario))
}

/// The most calls one request has in flight at once: its widest stage.
fn widest_stage(scenario: &Scenario) -> u64 {
    let widest = scenario.endpoint.stages.iter().map(Vec::len).max();
    widest.unwrap_or(1) as u64
}

/// What would bring `strategy` on `scenario` under `cap` threads: `--set` changes, each
/// tried on a copy of the scenario and named only when it fits (the largest value that does),
/// then the cap itself.
pub fn advice(scenario: &Scenario, strategy: Strategy, cap: u64) -> String {
    let fits = |s: &Scenario| os_threads_needed(s, strategy).0 <= cap;
    let mut ways: Vec<String> = Vec::new();
    if let Some(n) = server_that_fits(scenario, &fits) {
        ways.push(format!("--set server.threads={n}"));
    }
    let mut virtual_server = scenario.clone();
    virtual_server.server.threads = ServerThreads::Virtual;
    let server_is_platform = scenario.server.threads != ServerThreads::Virtual;
    if server_is_platform && fits(&virtual_server) {
        ways.push("--set server.threads=virtual (handlers as tokio tasks)".into());
    }
    let mut virtual_calls = scenario.clone();
    virtual_calls.strategy.unbounded_threads = UnboundedThreads::Virtual;
    if strategy == Strategy::Unbounded
        && scenario.strategy.unbounded_threads == UnboundedThreads::Platform
        && fits(&virtual_calls)
    {
        ways.push("--set strategy.unbounded.threads=virtual (calls as tokio tasks)".into());
    }
    if let Some(pools) = pools_that_fit(scenario, &fits) {
        ways.push(pools);
    } else if server_is_platform
        && ways.is_empty()
        && let Some(pools) = pools_that_fit(&virtual_server, &fits)
    {
        ways.push(format!("--set server.threads=virtual {pools}"));
    }
    let needed = os_threads_needed(scenario, strategy).0;
    if needed < ENDLESS {
        ways.push(format!("--max-threads {needed}"));
    }
    if ways.is_empty() {
        return "no OS-thread setting can hold it; run it with --engine sim".into();
    }
    format!("try {}", ways.join(", or "))
}

/// The most platform server threads below today's that fit, if any.
fn server_that_fits(scenario: &Scenario, fits: &dyn Fn(&Scenario) -> bool) -> Option<u32> {
    let ServerThreads::Platform(now) = scenario.server.threads else {
        return None;
    };
    let with = |n: u32| {
        let mut s = scenario.clone();
        s.server.threads = ServerThreads::Platform(n);
        s
    };
    largest_fitting(1, now.saturating_sub(1), |n| fits(&with(n)))
}

/// The strategy's own pools made small enough to fit, as `--set`s.
fn pools_that_fit(scenario: &Scenario, fits: &dyn Fn(&Scenario) -> bool) -> Option<String> {
    bulkhead_that_fits(scenario, fits).or_else(|| shared_that_fits(scenario, fits))
}

/// The biggest bulkhead's largest maximum that fits (and its core, when above it).
fn bulkhead_that_fits(scenario: &Scenario, fits: &dyn Fn(&Scenario) -> bool) -> Option<String> {
    let (i, biggest) = scenario
        .strategy
        .bulkheads
        .iter()
        .enumerate()
        .max_by_key(|(_, b)| b.max)?;
    let with_max = |n: u32| {
        let mut s = scenario.clone();
        let b = &mut s.strategy.bulkheads[i];
        (b.max, b.core) = (n, b.core.min(n));
        s
    };
    let n = largest_fitting(1, biggest.max.saturating_sub(1), |n| fits(&with_max(n)))?;
    let core = if biggest.core > n {
        format!(" --set strategy.bulkhead.{}.core={n}", biggest.name)
    } else {
        String::new()
    };
    Some(format!(
        "--set strategy.bulkhead.{}.max={n}{core}",
        biggest.name
    ))
}

/// The common pool's largest parallelism that fits: 2 or more (a pool of workers rather
/// than a thread per call), at most the default of cores - 1, and not today's.
fn shared_that_fits(scenario: &Scenario, fits: &dyn Fn(&Scenario) -> bool) -> Option<String> {
    let with = |n: u32| {
        let mut s = scenario.clone();
        s.strategy.shared_threads = Some(n);
        s
    };
    let top = scenario.cores.saturating_sub(1).max(2);
    largest_fitting(2, top, |n| fits(&with(n)))
        .filter(|&n| n != scenario.shared_parallelism())
        .map(|n| format!("--set strategy.shared.threads={n}"))
}

/// The largest n in lo..=top with `ok(n)`, for an `ok` that holds up to some n and not above.
fn largest_fitting(lo: u32, top: u32, ok: impl Fn(u32) -> bool) -> Option<u32> {
    if top < lo || !ok(lo) {
        return None;
    }
    let (mut lo, mut hi) = (lo, top);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice for ironthread with `sets` over `cap`, after checking that each way it
    /// names really fits: its `--set`s give a valid scenario under the cap (or the cap it
    /// names holds the run).
    fn advice_for(strategy: Strategy, cap: u64, sets: &[&str]) -> String {
        // The advised `--set` replaces the user's own of the same field (a field is set once).
        let load = |extra: &[String]| {
            let key = |spec: &str| spec.split('=').next().unwrap_or_default().to_string();
            let mut all: Vec<String> = sets
                .iter()
                .filter(|s| !extra.iter().any(|e| key(e) == key(s)))
                .map(|s| (*s).to_string())
                .collect();
            all.extend_from_slice(extra);
            crate::scenario::load("ironthread", &all)
        };
        let s = load(&[]).expect("preset loads");
        let (needed, _) = os_threads_needed(&s, strategy);
        assert!(needed > cap, "{needed} fits under {cap}");
        let text = advice(&s, strategy, cap);
        let ways = text.strip_prefix("try ").expect("a way to try");
        for way in ways.split(", or ") {
            let way = way.split(" (").next().unwrap_or(way);
            if let Some(n) = way.strip_prefix("--max-threads ") {
                assert_eq!(n.parse::<u64>().ok(), Some(needed), "{way}");
                continue;
            }
            let extra: Vec<String> = way
                .split("--set ")
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect();
            let fixed = load(&extra).unwrap_or_else(|e| panic!("{way}: {e}"));
            let (after, _) = os_threads_needed(&fixed, strategy);
            assert!(after <= cap, "{way} leaves {after} threads over {cap}");
        }
        text
    }

    #[test]
    fn platform_server_over_the_cap_is_told_the_server_threads_that_fit() {
        // 200 server + 20 bulkhead threads under a cap of 100: 80 server threads fit.
        assert_eq!(
            advice_for(Strategy::Bulkhead, 100, &[]),
            "try --set server.threads=80, or --set server.threads=virtual (handlers as tokio \
             tasks), or --max-threads 220"
        );
    }

    #[test]
    fn a_server_already_small_is_not_told_to_grow_to_200() {
        // 50 server threads, 5,000 bulkhead threads: the bulkhead is what must shrink.
        let text = advice_for(
            Strategy::Bulkhead,
            4096,
            &[
                "server.threads=50",
                "strategy.bulkhead.IronThread.core=4500",
                "strategy.bulkhead.IronThread.max=5000",
            ],
        );
        assert_eq!(
            text,
            "try --set strategy.bulkhead.IronThread.max=4046 --set \
             strategy.bulkhead.IronThread.core=4046, or --max-threads 5050"
        );
        assert!(!text.contains("server.threads=200"), "{text}");
    }

    #[test]
    fn a_virtual_server_is_told_about_its_pools_only() {
        let text = advice_for(
            Strategy::Bulkhead,
            4096,
            &[
                "server.threads=\"virtual\"",
                "strategy.bulkhead.IronThread.max=5000",
            ],
        );
        assert_eq!(
            text,
            "try --set strategy.bulkhead.IronThread.max=4096, or --max-threads 5000"
        );
    }

    #[test]
    fn a_thread_per_call_common_pool_is_told_to_become_a_pool() {
        // Parallelism 1 on JDK 21: a new thread per call, 3 per request of 5,000 clients.
        let text = advice_for(
            Strategy::Shared,
            4096,
            &[
                "server.threads=\"virtual\"",
                "strategy.shared.threads=1",
                "load.mode=closed",
                "load.clients=5000",
            ],
        );
        assert!(
            text.starts_with("try --set strategy.shared.threads="),
            "{text}"
        );
        assert!(!text.contains("server.threads"), "{text}");
        assert!(text.ends_with("or --max-threads 15000"), "{text}");
    }

    #[test]
    fn an_endless_thread_per_call_load_is_not_told_to_raise_the_cap() {
        let text = advice_for(
            Strategy::Shared,
            4096,
            &[
                "server.threads=\"virtual\"",
                "strategy.shared.threads=1",
                "load.mode=open",
                "load.rate=50",
            ],
        );
        assert!(!text.contains("--max-threads"), "{text}");
        assert!(text.contains("strategy.shared.threads="), "{text}");
    }

    #[test]
    fn a_thread_per_call_pool_behind_a_platform_server_is_told_both_ways() {
        // 200 handlers x 3 calls, each on a new thread, + 200 server threads; 25 x 4 = 100.
        let text = advice_for(Strategy::Shared, 100, &["strategy.shared.threads=1"]);
        assert!(
            text.starts_with("try --set server.threads=25, or --set server.threads=virtual"),
            "{text}"
        );
        assert!(text.ends_with("or --max-threads 800"), "{text}");
    }

    #[test]
    fn when_neither_the_server_nor_the_pools_alone_fit_both_change_together() {
        let text = advice_for(
            Strategy::Bulkhead,
            4096,
            &[
                "server.threads=5000",
                "strategy.bulkhead.IronThread.max=5000",
            ],
        );
        assert_eq!(
            text,
            "try --set server.threads=virtual --set strategy.bulkhead.IronThread.max=4096, or \
             --max-threads 10000"
        );
    }
}
