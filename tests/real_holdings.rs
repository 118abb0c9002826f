//! What a real call holds besides its thread, against the simulation: a connection from a
//! pool (`[[resources]]`), a carrier a pinned virtual thread keeps, the scenario's cores, and
//! the CPU a new platform thread costs its creator. Time-scaled runs of a few requests; the
//! draws are shared, so outcomes and counters are identical, and latencies agree as ratios
//! with the simulated ones (never as absolute wall-clock times): a real run may be late by
//! what the machine's load adds, never early, and well below what the run would take without
//! the rule under test.

use threadlab::real::{self, RealOptions};
use threadlab::report::{self, RealReport, RunReport};
use threadlab::scenario::{self, Scenario, Strategy};

/// A real figure is at least this share of the simulated one...
const LOW: f64 = 0.95;
/// ...and at most this many times it (each test's rule makes a difference well beyond).
const HIGH: f64 = 1.3;
/// A real run is at the mercy of the machine's scheduler: its timing must agree in one of
/// this many runs; counts must agree in the one returned.
const ATTEMPTS: usize = 5;

fn parse(text: &str) -> Scenario {
    scenario::parse("test", text, &[]).expect("valid scenario")
}

/// The simulated report and a real one (at `scale`) whose `figure` is within [`LOW`, `HIGH`]
/// times the simulated one. One real run at a time across this file's tests: runs side by
/// side would take each other's cores.
fn both(
    s: &Scenario,
    strategy: Strategy,
    scale: f64,
    figure: fn(&RunReport) -> f64,
) -> (RunReport, RealReport) {
    let sim = RunReport::new(s, &report::play(s, strategy, s.duration));
    let options = RealOptions {
        time_scale: scale,
        ..RealOptions::default()
    };
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut seen = Vec::new();
    for _ in 0..ATTEMPTS {
        let run = real::run(s, strategy, s.duration, options).expect("the real run succeeds");
        let real = RealReport::of(s, &run);
        let (a, b) = (figure(&sim), figure(&real.run));
        if (LOW * a..=HIGH * a).contains(&b) {
            return (sim, real);
        }
        seen.push((a, b));
    }
    panic!("simulated vs real disagreed in {ATTEMPTS} runs: {seen:?}");
}

fn outcomes(r: &RunReport) -> (u64, u64, u64, u64) {
    let q = &r.requests;
    (q.completed, q.success, q.failed, q.timeout)
}

/// `count` requests at once on virtual threads, each making one call of `service`.
fn batch(count: u32, scenario_extra: &str, service: &str, resources: &str) -> Scenario {
    parse(&format!(
        r#"
[scenario]
name = "holdings"
duration = "10s"
{scenario_extra}
[load]
mode = "batch"
count = {count}
rtt = "0s"
[server]
threads = "virtual"
cpu_per_request = "0s"
post_response = "0s"
cpu_per_error = "0s"
{resources}
[[services]]
name = "query"
{service}
[endpoint]
calls = ["query"]
[strategy]
use = "sequential"
"#
    ))
}

#[test]
fn a_connection_pool_makes_calls_wait_in_turn_and_fail_past_its_timeout_in_both_engines() {
    // One connection, 100 ms calls, 250 ms connectionTimeout, four calls at once: three get
    // it in turn (0, 100, 200 ms), the fourth gives up at 250 ms (SQLTransientConnection-
    // Exception, no fallback: the request fails).
    let s = batch(
        4,
        "",
        "latency = \"100ms\"\nuses = \"db\"",
        "[[resources]]\nname = \"db\"\nsize = 1\ntimeout = \"250ms\"",
    );
    let (sim, real) = both(&s, Strategy::Sequential, 0.5, |r| r.latency_ms.mean);
    assert_eq!(outcomes(&sim), (4, 3, 1, 0));
    assert_eq!(outcomes(&real.run), outcomes(&sim));
    assert!(
        (sim.latency_ms.mean - 200.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.mean
    );
    let db = |r: &RunReport| {
        let d = &r.resources[0];
        (d.size, d.max_active, d.max_waiting, d.acquired, d.timeouts)
    };
    assert_eq!(db(&sim), (1, 1, 3, 3, 1));
    assert_eq!(db(&real.run), db(&sim));
    let failures = |r: &RunReport| r.services[0].stats.connection_timeouts;
    assert_eq!((failures(&sim), failures(&real.run)), (1, 1));
}

#[test]
fn a_pinned_call_keeps_one_of_the_cores_for_its_wait_on_jdk_21_only() {
    // Two cores, four virtual threads blocking 100 ms inside synchronized: on JDK 21 two run
    // at a time (100, 100, 200, 200 ms: mean 150); JDK 25 unmounts them (all 100 ms).
    let pinned = "latency = \"100ms\"\npinned = true";
    let s = batch(4, "cores = 2\njdk = 21", pinned, "");
    let (sim, real) = both(&s, Strategy::Sequential, 0.5, |r| r.latency_ms.mean);
    assert!(
        (sim.latency_ms.mean - 150.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.mean
    );
    assert!(
        (sim.latency_ms.max - 200.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.max
    );
    assert_eq!(outcomes(&real.run), outcomes(&sim));
    let s = batch(4, "cores = 2\njdk = 25", pinned, "");
    let (sim, _real) = both(&s, Strategy::Sequential, 0.5, |r| r.latency_ms.mean);
    assert!(
        (sim.latency_ms.max - 100.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.max
    );
}

#[test]
fn a_thread_per_task_costs_its_creator_cpu_before_each_task_in_both_engines() {
    // new Thread(task).start() for four 50 ms tasks, each creation 10 ms of the handler's CPU
    // (cores = 2: the handler has one to itself): the tasks start at 10, 20, 30 and 40 ms,
    // and the last ends at 90 ms. Each runs on a platform thread of its own, Thread-0..3.
    let s = parse(
        r#"
[scenario]
name = "spawn"
duration = "10s"
cores = 2
spawn_cost = "10ms"
[load]
mode = "runs"
count = 1
rtt = "0s"
[server]
cpu_per_request = "0s"
post_response = "0s"
cpu_per_error = "0s"
[[services]]
name = "task"
latency = "50ms"
[endpoint]
calls = ["task"]
fan_out = 4
[strategy]
use = "unbounded"
[strategy.unbounded]
threads = "platform"
"#,
    );
    let (sim, real) = both(&s, Strategy::Unbounded, 0.5, |r| r.latency_ms.mean);
    assert!(
        (sim.latency_ms.mean - 90.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.mean
    );
    assert_eq!(outcomes(&real.run), outcomes(&sim));
    let created = |r: &RunReport| {
        let unbounded = r.pools.iter().find(|p| p.name == "unbounded");
        unbounded.map(|p| p.threads_created)
    };
    assert_eq!((created(&sim), created(&real.run)), (Some(4), Some(4)));
    // A thread per call, four beside the server's 200 threads, is over a cap of 203.
    let cap = RealOptions {
        max_threads: 203,
        ..RealOptions::default()
    };
    let refused = real::check(&s, Strategy::Unbounded, cap).expect_err("over the cap");
    assert!(
        refused.to_string().contains("a thread per call"),
        "{refused}"
    );
}

#[test]
fn cpu_work_runs_on_the_scenarios_cores_only_in_both_engines() {
    // One core, four calls of 40 ms CPU at once on platform threads (a bulkhead of four), each
    // burst run to its end: they run one after another on the one core (ending at 40, 80, 120 and 160 ms, when the
    // request ends), however many cores the machine has.
    let s = parse(
        r#"
[scenario]
name = "one-core"
duration = "10s"
cores = 1
cpu_scheduling = "run-to-completion"
[load]
mode = "batch"
count = 1
rtt = "0s"
[server]
cpu_per_request = "0s"
post_response = "0s"
cpu_per_error = "0s"
[[services]]
name = "work"
latency = "0ms"
cpu = "40ms"
[endpoint]
calls = ["work"]
fan_out = 4
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "pool"
services = ["work"]
core = 4
max = 4
queue = 10
"#,
    );
    let (sim, real) = both(&s, Strategy::Bulkhead, 0.5, |r| r.latency_ms.mean);
    assert!(
        (sim.latency_ms.mean - 160.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.mean
    );
    assert_eq!(outcomes(&real.run), outcomes(&sim));
}
