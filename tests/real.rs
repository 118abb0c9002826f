//! Real execution against the simulation: the same scenario run for real (time-scaled, so
//! each test takes a fraction of a second) must agree with the engine within tolerances. The
//! draws are shared, so outcomes are identical; latencies and throughput agree as ratios.
//! No assertion depends on absolute wall-clock times.

use std::time::{Duration, Instant};

use threadlab::real::{self, RealError, RealOptions};
use threadlab::report::RealReport;
use threadlab::report::{self, RunReport};
use threadlab::scenario::{self, Scenario, Strategy};
use threadlab::time::Nanos;

mod support;

const TOLERANCE: f64 = 0.05;

fn scenario(preset: &str, overrides: &[&str]) -> Scenario {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_string()).collect();
    scenario::load(preset, &overrides).expect("valid preset")
}

fn parse(text: &str) -> Scenario {
    scenario::parse("test", text, &[]).expect("valid scenario")
}

/// Plays `s` for real, one real run at a time across this file's tests: runs side by side
/// would take each other's cores and timer wake-ups, and a timing check measures the machine
/// it shares then, not the run.
fn play_for_real(
    s: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    options: RealOptions,
) -> Result<real::RealRun, RealError> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    real::run(s, strategy, duration, options)
}

/// A real run is at the mercy of the machine's scheduler: on a loaded machine a thread can
/// stall for tens of milliseconds. Timing figures must agree in one of this many real runs;
/// everything else (outcomes, thread names, pool counters) must agree in the one returned.
const ATTEMPTS: usize = 5;

/// A timing check of a real run against the simulated one.
type Timing = fn(&RunReport, &RunReport) -> Result<(), String>;

/// The simulated report and a real one whose timing agrees with it.
fn both(
    s: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    scale: f64,
    timing: Timing,
) -> (RunReport, RealReport) {
    // The real engine plays the whole scenario (or refuses it).
    let sim = RunReport::new(s, &report::play(s, strategy, duration));
    let options = RealOptions {
        time_scale: scale,
        ..RealOptions::default()
    };
    let mut failures = Vec::new();
    for _ in 0..ATTEMPTS {
        let run = play_for_real(s, strategy, duration, options).expect("the real run succeeds");
        let real = RealReport::of(s, &run);
        match timing(&sim, &real.run) {
            Ok(()) => return (sim, real),
            Err(e) => failures.push(e),
        }
    }
    panic!("timing disagreed with the simulation in {ATTEMPTS} real runs: {failures:#?}");
}

fn rel(sim: f64, real: f64) -> f64 {
    (real - sim).abs() / sim.abs().max(1e-9)
}

fn within(name: &str, sim: f64, real: f64) -> Result<(), String> {
    if rel(sim, real) <= TOLERANCE {
        Ok(())
    } else {
        Err(format!("{name}: simulated {sim:.2}, real {real:.2}"))
    }
}

/// Each run's latency within the tolerance of its simulated twin (never faster).
fn run_latencies(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    let (s, r) = (
        sim.runs.as_deref().unwrap_or_default(),
        real.runs.as_deref().unwrap_or_default(),
    );
    for (s, r) in s.iter().zip(r) {
        within(&format!("run {} (ms)", s.run), s.time_ms, r.time_ms)?;
        if r.time_ms < s.time_ms * 0.999 {
            return Err(format!("run {} is faster than simulated", s.run));
        }
    }
    within("throughput", sim.throughput_rps, real.throughput_rps)
}

fn mean_latency(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    within("mean latency", sim.latency_ms.mean, real.latency_ms.mean)
}

fn max_latency(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    within("max latency", sim.latency_ms.max, real.latency_ms.max)
}

fn throughput(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    within("throughput", sim.throughput_rps, real.throughput_rps)
}

fn throughput_and_mean(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    within("throughput", sim.throughput_rps, real.throughput_rps)?;
    mean_latency(sim, real)
}

/// The simulation's latencies are the hand-computed `max` and `mean` (ms), and the real
/// mean is within the tolerance of the simulated one.
fn assert_max_and_mean(sim: &RunReport, real: &RunReport, max: f64, mean: f64) {
    let figures = (sim.latency_ms.max, sim.latency_ms.mean);
    assert!(
        (figures.0 - max).abs() < 1e-6 && (figures.1 - mean).abs() < 1e-6,
        "{figures:?}"
    );
    mean_latency(sim, real).unwrap_or_else(|e| panic!("{e}"));
}

/// A `runs` load: the same rows, statuses and (where `threads`) thread names.
fn assert_runs_agree(sim: &RunReport, real: &RunReport, threads: bool) {
    let (s, r) = (
        sim.runs.as_ref().expect("sim runs"),
        real.runs.as_ref().expect("real runs"),
    );
    assert_eq!(s.len(), r.len(), "run count");
    for (s, r) in s.iter().zip(r) {
        assert_eq!(s.run, r.run);
        assert_eq!(s.status, r.status, "run {} status", s.run);
        if threads {
            assert_eq!(s.thread, r.thread, "run {} thread", s.run);
        }
    }
}

fn assert_outcomes_identical(sim: &RunReport, real: &RunReport) {
    let (s, r) = (&sim.requests, &real.requests);
    assert_eq!(
        (
            s.completed,
            s.success,
            s.partial,
            s.failed,
            s.timeout,
            s.refused
        ),
        (
            r.completed,
            r.success,
            r.partial,
            r.failed,
            r.timeout,
            r.refused
        ),
        "outcome counts"
    );
}

#[test]
fn real_sequential_ironthread_matches_the_simulation_run_for_run() {
    let s = scenario("ironthread", &[]);
    let (sim, real) = both(&s, Strategy::Sequential, s.duration, 0.1, run_latencies);
    assert_runs_agree(&sim, &real.run, true);
    assert_outcomes_identical(&sim, &real.run);
    let tomcat = &real.run.pools[0];
    assert_eq!(
        (
            tomcat.largest_pool_size,
            tomcat.max_active,
            tomcat.completed
        ),
        (10, 1, 5)
    );
}

#[test]
fn a_quantile_table_draws_the_same_latencies_in_both_engines() {
    // An imported latency: the real engine sleeps through each run's keyed draw of the table.
    let s = parse(
        r#"
[scenario]
name = "table"
[load]
mode = "runs"
count = 4
rtt = "0s"
[server]
cpu_per_request = "0s"
post_response = "0s"
[[services]]
name = "measured"
latency = { dist = "quantiles", percentiles = [0, 50, 90, 100], values = ["100ms", "200ms", "400ms", "900ms"] }
[endpoint]
calls = ["measured"]
[strategy]
use = "sequential"
"#,
    );
    let (sim, real) = both(&s, Strategy::Sequential, s.duration, 0.1, run_latencies);
    assert_runs_agree(&sim, &real.run, false);
    assert_outcomes_identical(&sim, &real.run);
}

/// A time that includes CPU spun for real is at least 0.97 and at most 2 times the
/// simulated one, times the machine's stretch (see [`stretch_now`]): a spinning thread's CPU
/// time runs behind the wall clock whenever the machine gives its core to another (1.15 at
/// most on a quiet machine), while a time without its CPU work is 0.94 of it (1,700 of 1,800
/// ms) or less.
fn cpu_bound(what: &str, sim_ms: f64, real_ms: f64, stretch: f64) -> Result<(), String> {
    if (0.97..=2.0 * stretch).contains(&(real_ms / sim_ms)) {
        Ok(())
    } else {
        Err(format!(
            "{what}: simulated {sim_ms:.1} ms, real {real_ms:.1} ms, machine stretch {stretch:.2}"
        ))
    }
}

/// How many times its CPU time CPU work takes by the wall clock on this machine now: two
/// threads (the scenarios' two cores) each spin 20 ms of their own CPU time. It is 1 with two
/// idle cores, and more while other work shares them (another program, or this file's other
/// tests), as that work shared them with the real run just before.
fn stretch_now() -> f64 {
    const PROBE: Duration = Duration::from_millis(20);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| real::spin(PROBE));
        }
    });
    (start.elapsed().as_secs_f64() / PROBE.as_secs_f64()).max(1.0)
}

/// Each run's latency against its simulated twin's (see [`cpu_bound`]).
fn cpu_bound_runs(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    let (s, r) = (
        sim.runs.as_deref().unwrap_or_default(),
        real.runs.as_deref().unwrap_or_default(),
    );
    let stretch = stretch_now();
    for (s, r) in s.iter().zip(r) {
        cpu_bound(&format!("run {}", s.run), s.time_ms, r.time_ms, stretch)?;
    }
    Ok(())
}

/// The server's own CPU: the handler's work on each request before its calls, and the error
/// page rendered after a failed one, on the handler thread in both engines.
#[test]
fn the_handlers_cpu_and_the_error_page_cost_the_same_in_both_engines() {
    let s = scenario(
        "ironthread",
        &[
            "server.cpu_per_request=100ms",
            "server.cpu_per_error=300ms",
            "services.user.failure=0.5",
        ],
    );
    let (sim, real) = both(&s, Strategy::Sequential, s.duration, 0.2, cpu_bound_runs);
    assert_runs_agree(&sim, &real.run, true);
    assert_outcomes_identical(&sim, &real.run);
    // Sequential code stops at the failed user call (200 ms): 100 + 200 + 300 ms; the
    // others take their 1,700 ms of calls after the handler's 100 ms.
    assert_eq!((sim.requests.failed, sim.requests.success), (2, 2));
    assert!(
        (sim.failed_latency_ms.mean - 600.0).abs() < 1.0,
        "{}",
        sim.failed_latency_ms.mean
    );
    assert!(
        (sim.latency_ms.mean - 1_800.0).abs() < 1.0,
        "{}",
        sim.latency_ms.mean
    );
}

/// The first of the connections closed at a full executor queue: its client's reset comes
/// once the connection's CPU has run (see [`cpu_bound`]); without that CPU it comes at once.
fn first_reset(sim: &RunReport, real: &RunReport) -> Result<(), String> {
    let (s, r) = (sim.failed_latency_ms.p50, real.failed_latency_ms.p50);
    cpu_bound("first reset", s, r, stretch_now())
}

/// Four requests at once on one thread with one queued place: two are closed unread, each
/// after 200 ms of the server's CPU on a core of its own (two cores), in both engines. The
/// thread that found the queue full does not spin it itself: that would keep the second
/// connection waiting until the first request had ended and made room.
#[test]
fn connections_closed_at_a_full_queue_cost_their_cpu_in_both_engines() {
    let server = "threads = 1\nmin_spare = 1\nmax_queue = 1\ncpu_per_request = \"0s\"\n\
                  cpu_per_rejected_connection = \"200ms\"";
    let load = "mode = \"batch\"\ncount = 4\nrtt = \"0s\"";
    let toml = support::one_call(load, server)
        .replace("name = \"one-call\"", "name = \"one-call\"\ncores = 2");
    let s = parse(&toml);
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(2),
        0.2,
        first_reset,
    );
    assert_outcomes_identical(&sim, &real.run);
    let closed = |r: &RunReport| r.connections.as_ref().map(|c| c.closed_by_max_queue);
    assert_eq!((closed(&sim), closed(&real.run)), (Some(2), Some(2)));
    assert_eq!((sim.requests.success, sim.requests.refused), (2, 2));
    assert!(
        (sim.failed_latency_ms.max - 200.0).abs() < 1e-6,
        "{}",
        sim.failed_latency_ms.max
    );
}

#[test]
fn real_bulkhead_ironthread_matches_the_simulation_with_the_same_thread_names() {
    let s = scenario("ironthread", &[]);
    let (sim, real) = both(&s, Strategy::Bulkhead, s.duration, 0.1, run_latencies);
    // IronThread-3, -6, -9, then -2 and -5: new threads below core, then the longest idle.
    assert_runs_agree(&sim, &real.run, true);
    assert_outcomes_identical(&sim, &real.run);
    let pool = |r: &RunReport| {
        let p = r
            .pools
            .iter()
            .find(|p| p.name == "IronThread")
            .expect("the bulkhead pool");
        (p.largest_pool_size, p.max_active, p.completed, p.rejected)
    };
    assert_eq!(pool(&sim), pool(&real.run));
    let services = |r: &RunReport| -> Vec<(u64, u64, u64)> {
        r.services
            .iter()
            .map(|s| (s.stats.calls, s.stats.failures, s.stats.fallbacks))
            .collect()
    };
    assert_eq!(services(&sim), services(&real.run));
}

#[test]
fn real_unbounded_ironthread_runs_calls_as_monitored_tokio_tasks() {
    let s = scenario("ironthread", &[]);
    let (sim, real) = both(&s, Strategy::Unbounded, s.duration, 0.1, run_latencies);
    assert_runs_agree(&sim, &real.run, true);
    assert_outcomes_identical(&sim, &real.run);
    let rt = &real.runtime;
    assert!(rt.workers >= 1);
    assert!(rt.ticks >= 1, "the monitors were sampled");
    let calls = rt
        .tasks
        .iter()
        .find(|t| t.name == "unbounded")
        .expect("the unbounded task group");
    assert_eq!(calls.instrumented, 15, "one task per call");
    assert!(calls.mean_poll_us > 0.0);
    let json = report::to_json(&real).expect("serialises");
    assert!(json.contains("\"runtime\"") && json.contains("\"engine\": \"real\""));
}

#[test]
fn real_tomcat_ceiling_throughput_matches_the_simulation() {
    // 20 threads x 1.7 s: waves of 20 responses at 1.7, 3.4, 5.1, 6.8, 8.5 s; ending at 7.6 s,
    // half-way between two waves, leaves room for a loaded machine's delays on either side:
    // at time scale 0.1, 80 ms of real time for the twelve sleeps before the fourth wave (at
    // 0.05 a busy machine's 3-4 ms a sleep used up the 40 ms in five runs out of five).
    let s = scenario("tomcat-ceiling", &["load.clients=40", "server.threads=20"]);
    let duration = Nanos::from_millis(7600);
    let (_, real) = both(&s, Strategy::Sequential, duration, 0.1, throughput_and_mean);
    let tomcat = &real.run.pools[0];
    assert_eq!((tomcat.largest_pool_size, tomcat.max_active), (20, 20));
    assert!(tomcat.max_queue >= 19, "the other clients queue");
}

const SMALL_POOL: &str = r#"
    [scenario]
    name = "small pool"
    seed = 3
    cores = 4
    [load]
    mode = "batch"
    count = 4
    [[services]]
    name = "slow"
    latency = "200ms"
    timeout = "100ms"
    fallback = "Slow:Fallback"
    [endpoint]
    calls = ["slow"]
    [strategy]
    use = "bulkhead"
    [[strategy.bulkhead]]
    name = "Small"
    services = ["slow"]
    core = 2
    max = 2
    queue = 1
    rejection = "REJECTION"
"#;

/// Plays `SMALL_POOL` with `rejection` in both engines: the same outcomes and the same
/// counts of the service's calls, timeouts, fallbacks and rejections. Returns the real run's
/// (partial, failed) requests and both reports.
fn small_pool_in_both(rejection: &str) -> ((u64, u64), RunReport, RealReport) {
    let s = parse(&SMALL_POOL.replace("REJECTION", rejection));
    let (sim, real) = both(
        &s,
        Strategy::Bulkhead,
        Nanos::from_secs(5),
        0.5,
        mean_latency,
    );
    assert_outcomes_identical(&sim, &real.run);
    let svc = |r: &RunReport| {
        let s = &r.services[0].stats;
        (s.calls, s.timeouts, s.fallbacks, s.rejected)
    };
    assert_eq!(svc(&sim), svc(&real.run));
    let counts = (real.run.requests.partial, real.run.requests.failed);
    (counts, sim, real)
}

#[test]
fn real_abort_rejects_and_timeouts_complete_futures_as_in_the_simulation() {
    // Two calls run, one queues (its future times out while queued, so the worker skips
    // it), one is rejected: 3 partial (fallback after the timeout), 1 failed.
    let (counts, sim, real) = small_pool_in_both("abort");
    assert_eq!(counts, (3, 1));
    let pool = |r: &RunReport| {
        let p = &r.pools[1];
        (p.largest_pool_size, p.max_queue, p.rejected)
    };
    assert_eq!(pool(&sim), pool(&real.run));
}

#[test]
fn real_a_rejection_that_falls_back_answers_partial_as_in_the_simulation() {
    // As with abort, two calls run and one queues (its future times out: fallback); the
    // rejected one is caught and falls back at once: 4 partial, none failed.
    let (counts, ..) = small_pool_in_both("fallback");
    assert_eq!(counts, (4, 0));
}

#[test]
fn real_caller_runs_runs_the_rejected_call_on_the_handler_thread() {
    let s = parse(&SMALL_POOL.replace("REJECTION", "caller-runs"));
    // The handler runs the whole call (200 ms) itself: its future is complete before
    // orTimeout could apply, so its request succeeds after 200 ms, the slowest.
    let (sim, real) = both(
        &s,
        Strategy::Bulkhead,
        Nanos::from_secs(5),
        0.5,
        max_latency,
    );
    assert_outcomes_identical(&sim, &real.run);
    assert_eq!(real.run.requests.failed, 0);
    assert_eq!(real.run.services[0].stats.rejected, 1);
}

#[test]
fn real_virtual_threads_handle_requests_as_tokio_tasks() {
    let s = scenario("ironthread", &["server.threads=\"virtual\""]);
    let (sim, real) = both(&s, Strategy::Sequential, s.duration, 0.1, run_latencies);
    // tomcat-handler-0, -1, ...: one virtual thread per request.
    assert_runs_agree(&sim, &real.run, true);
    let handlers = real
        .runtime
        .tasks
        .iter()
        .find(|t| t.name == "virtual-handlers")
        .expect("the virtual handler group");
    assert_eq!(handlers.instrumented, 5);
}

#[test]
fn real_mode_refuses_a_scenario_needing_more_os_threads_than_the_cap() {
    let s = scenario("ironthread", &["server.threads=5000"]);
    let err = play_for_real(&s, Strategy::Sequential, s.duration, RealOptions::default())
        .expect_err("5000 server threads exceed the default cap");
    assert!(matches!(
        err,
        RealError::TooManyThreads { needed: 5000, .. }
    ));
    assert!(err.is_bad_input());
    assert!(err.to_string().contains("--max-threads"), "{err}");
    // Tokio tasks do not count: virtual threads with unbounded calls need no OS thread.
    let v = scenario("ironthread", &["server.threads=\"virtual\""]);
    assert_eq!(real::os_threads_needed(&v, Strategy::Unbounded).0, 0);
    let (bulkhead, _) = real::os_threads_needed(&s, Strategy::Bulkhead);
    assert_eq!(bulkhead, 5000 + 20);
}

#[test]
fn real_threads_above_core_exit_after_keep_alive_as_simulated() {
    // Three clients at t = 0 get threads 1-3 (hand-off queue); idle from 0.1 s, two of them
    // time out at 1.1 s; at 1.6 s the survivor and two new threads (4 and 5) serve the next
    // three requests.
    let s = parse(
        r#"
        [scenario]
        name = "keep-alive"
        seed = 5
        cores = 4
        [load]
        mode = "closed"
        clients = 3
        think = "1500ms"
        [[services]]
        name = "a"
        latency = "100ms"
        [endpoint]
        calls = ["a"]
        [[strategy.bulkhead]]
        name = "Elastic"
        services = ["a"]
        core = 1
        max = 3
        queue = 0
        keep_alive = "1s"
        "#,
    );
    let duration = Nanos::from_secs(2);
    let engine = report::play(&s, Strategy::Bulkhead, duration);
    let options = RealOptions {
        time_scale: 0.2,
        ..RealOptions::default()
    };
    let run = play_for_real(&s, Strategy::Bulkhead, duration, options).expect("real run");
    let pool = |snap: &threadlab::sim::Snapshot| {
        let p = snap
            .pools
            .iter()
            .find(|p| p.name == "Elastic")
            .expect("the pool");
        (
            p.stats.largest_pool_size,
            p.stats.threads_created,
            p.pool_size,
            p.stats.completed,
        )
    };
    assert_eq!(pool(&engine.snapshot()), (3, 5, 3, 6));
    assert_eq!(pool(&run.snapshot), pool(&engine.snapshot()));
    assert_eq!(run.snapshot.outcomes.total(), 6);
}

/// `count` requests at once on a semaphore bulkhead of one permit, played in both engines.
fn one_permit_in_both(count: u32, latency: &str, max_wait: &str) -> (RunReport, RealReport) {
    let s = parse(&format!(
        r#"
    [scenario]
    name = "semaphore"
    [load]
    mode = "batch"
    count = {count}
    rtt = "0s"
    [server]
    cpu_per_request = "0s"
    [[services]]
    name = "svc"
    latency = "{latency}"
    [endpoint]
    calls = ["svc"]
    [strategy]
    use = "semaphore"
    [strategy.semaphore]
    permits = 1
    max_wait = "{max_wait}"
"#
    ));
    both(
        &s,
        Strategy::Semaphore,
        Nanos::from_secs(2),
        0.5,
        max_latency,
    )
}

#[test]
fn real_semaphore_runs_calls_on_the_handler_and_fails_callers_beyond_the_permits() {
    // Two requests at once, one permit and 50 ms of patience: one runs, the other gives up
    // with BulkheadFullException, as in the simulation.
    let (sim, real) = one_permit_in_both(2, "200ms", "50ms");
    assert_outcomes_identical(&sim, &real.run);
    assert_eq!(
        (real.run.requests.success, real.run.requests.failed),
        (1, 1)
    );
    let svc = |r: &RunReport| {
        let s = &r.services[0];
        (s.stats.calls, s.stats.rejected)
    };
    assert_eq!(svc(&real.run), (1, 1));
    assert_eq!(svc(&sim), svc(&real.run));
}

#[test]
fn real_semaphore_waiters_take_the_permit_in_turn_as_simulated() {
    // One permit, three requests at once, 100 ms each and 250 ms of patience: each waiter
    // gets the permit when the one before gives it back, at 100 and 200 ms.
    let (sim, real) = one_permit_in_both(3, "100ms", "250ms");
    assert_outcomes_identical(&sim, &real.run);
    assert_eq!(real.run.requests.success, 3);
    assert_max_and_mean(&sim, &real.run, 300.0, 200.0);
}

#[test]
fn real_mode_plays_the_round_trip_as_the_simulation_does() {
    // Two runs on a link with a one-second round trip: each request opens its connection
    // (half a round trip for the SYN, one for the handshake and the request) and its answer
    // travels half a round trip back: 1 s of calls fanned out + 2 s of network, in both
    // engines.
    let s = scenario("ironthread", &["load.rtt=\"1s\"", "load.count=2"]);
    let sim = RunReport::new(
        &s,
        &report::play(&s, Strategy::Bulkhead, Nanos::from_secs(60)),
    );
    assert!(
        (sim.latency_ms.mean - 3000.0).abs() < 1.0,
        "{}",
        sim.latency_ms.mean
    );
    let options = RealOptions {
        time_scale: 0.2,
        ..RealOptions::default()
    };
    let mut failures = Vec::new();
    for _ in 0..ATTEMPTS {
        let run = play_for_real(&s, Strategy::Bulkhead, Nanos::from_secs(60), options)
            .expect("the real run succeeds");
        let real = RealReport::of(&s, &run).run;
        assert_outcomes_identical(&sim, &real);
        match mean_latency(&sim, &real) {
            Ok(()) => return,
            Err(e) => failures.push(e),
        }
    }
    panic!("timing disagreed with the simulation in {ATTEMPTS} real runs: {failures:#?}");
}

/// The clients never answered and the handshakes dropped (SYNs and ACKs), for a run's
/// report.
fn starved(r: &RunReport) -> (u32, u64) {
    let never = r.clients.as_ref().map_or(u32::MAX, |c| c.never_answered);
    let drops = r
        .connections
        .as_ref()
        .map_or(u64::MAX, |c| c.syn_drops + c.ack_overflows);
    (never, drops)
}

#[test]
fn the_keep_alive_fast_path_serves_the_same_clients_again_in_both_engines() {
    // The first 10 of 50 keep-alive clients are answered at 1 s. A handler thread whose
    // post-response work (exponential, 100 us) outlasts its client's turnaround and round
    // trip reads that client's next request at once; the others go back to the executor,
    // whose queue holds the other 10 connections' requests. So at 3 s some clients have
    // two answers and 37 none, in both engines: the race is decided by the same rule on
    // the same draws. Which client sends which request id (and so meets which draw) follows
    // the order in which simultaneous answers arrive, which a real run does not fix, so its
    // fast-path count and clients never answered are one more sample of what the
    // simulation gives over seeds (8 to 17 and 33 to 39 over the first 40), as `verify`
    // holds them. Without the fast path no client would have two answers yet (30 never
    // answered at 3 s). The mean latency turns on which requests are among the 20 answered
    // (1,116-1,265 ms for real, 1,150 ms simulated): only throughput is timed.
    let s = scenario("overload", &[]);
    let duration = Nanos::from_secs(3);
    let (sim, real) = both(&s, Strategy::Sequential, duration, 0.1, throughput);
    let seen = |r: &RunReport| {
        let clients = r
            .clients
            .as_ref()
            .map(|c| (c.never_answered, c.answers_max));
        let fast = r.connections.as_ref().map(|c| c.fast_path_requests);
        (clients, fast, r.requests.success)
    };
    assert_eq!(seen(&sim), (Some((37, 2)), Some(14), 20));
    // Clients never answered and fast-path requests over the first 40 seeds.
    let seeds = threadlab::verify::play_seeds(&s, Strategy::Sequential, duration, 40);
    let span = |figure: fn(&RunReport) -> Option<u64>| {
        let values = seeds.iter().filter_map(figure);
        values.clone().min().unwrap_or(0)..=values.max().unwrap_or(0)
    };
    let never = span(|r| r.clients.as_ref().map(|c| u64::from(c.never_answered)));
    let fast = span(|r| r.connections.as_ref().map(|c| c.fast_path_requests));
    assert!(
        *fast.start() > 0 && *never.start() > 30,
        "{fast:?}, {never:?}"
    );
    let (clients, real_fast, success) = seen(&real.run);
    let (real_never, most) = clients.expect("a closed load's clients");
    assert_eq!((most, success), (2, 20));
    assert!(
        never.contains(&u64::from(real_never)),
        "{real_never} clients never answered, simulated {never:?} over 40 seeds"
    );
    let real_fast = real_fast.expect("a connections block");
    assert!(
        fast.contains(&real_fast),
        "{real_fast} fast-path requests, simulated {fast:?} over 40 seeds"
    );
}

/// Ten requests at once with no round trip.
const BURST_NO_RTT: &str = "mode = \"batch\"\ncount = 10\nrtt = \"0s\"";

#[test]
fn syns_that_come_together_are_answered_and_their_acks_overflow_in_both_engines() {
    // Ten requests at once on 2 connections with acceptCount 2, 10 ms away, 150 ms calls: 2
    // accepted and 3 queued at their SYNs (5 ms); the other 5 SYNs find only handshakes in
    // flight and are answered, and their ACKs (15 ms) find the queue full. Their requests
    // come again at 215 ms, when one queued connection still waits: 2 get in, 3 overflow
    // again and come back at 615 ms with room for all. 8 ACKs dropped, no SYN.
    let load = "mode = \"batch\"\ncount = 10\nrtt = \"10ms\"";
    let server = "threads = 10\nmax_connections = 2\naccept_count = 2";
    let s = parse(&support::one_call(load, server).replace("100ms", "150ms"));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(3),
        0.2,
        max_latency,
    );
    let drops = |r: &RunReport| {
        r.connections
            .as_ref()
            .map(|c| (c.syn_drops, c.ack_overflows))
    };
    assert_eq!(drops(&sim), Some((0, 8)));
    assert_eq!(drops(&real.run), Some((0, 8)));
    assert_eq!((sim.requests.success, real.run.requests.success), (10, 10));
}

#[test]
fn overload_starves_the_same_clients_in_both_engines() {
    // 50 keep-alive clients on 20 connections + acceptCount 5: 20 hold their connections for
    // good, 6 wait in the accept queue and 24 have their handshakes dropped and retransmit
    // for the whole run. Nothing is refused; 30 clients are never answered, in both engines.
    // The clients' handshakes are microseconds apart: simulated, their SYNs all see room
    // and their ACKs overflow (11 tries each in 30 s); for real, timers fire on whole
    // milliseconds and handle them in another order, so most SYNs see the queue full and are
    // dropped (9 tries each).
    let s = scenario("overload", &[]);
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(30),
        0.1,
        throughput_and_mean,
    );
    assert_eq!(starved(&sim), (30, 24 * 11));
    let (never, drops) = starved(&real.run);
    assert_eq!(never, 30);
    assert!(
        (24 * 9..=24 * 11).contains(&drops),
        "{drops} handshakes dropped"
    );
    assert_eq!((real.run.requests.refused, sim.requests.refused), (0, 0));
    let connections = |r: &RunReport| r.connections.as_ref().map(|c| c.accept_queue_max);
    assert_eq!(connections(&real.run), Some(6));
}

#[test]
fn a_burst_beyond_the_accept_queue_waits_for_retransmits_in_both_engines() {
    // Ten requests at once on 2 connections with acceptCount 2, no round trip (each
    // handshake completes as its SYN arrives): 2 accepted, 3 queued (the queue holds
    // acceptCount + 1), 5 SYNs dropped. Each call takes 100 ms on a connection of its own,
    // so the queued ones finish at 200, 200 and 300 ms, and the dropped ones, sent again
    // 1 s later, at 1.1, 1.1, 1.2, 1.2 and 1.3 s.
    // A connection's slot frees as its response is written (no post-response work), and
    // the handler has no CPU work of its own.
    let server = "threads = 10\nmax_connections = 2\naccept_count = 2\npost_response = \"0s\"\n\
                  cpu_per_request = \"0s\"";
    let s = parse(&support::one_call(BURST_NO_RTT, server));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(5),
        0.2,
        max_latency,
    );
    let drops = |r: &RunReport| r.connections.as_ref().map(|c| c.syn_drops);
    assert_eq!(drops(&sim), Some(5));
    assert_eq!(drops(&real.run), Some(5));
    assert_eq!(
        (real.run.requests.success, real.run.requests.refused),
        (10, 0)
    );
    assert_max_and_mean(&sim, &real.run, 1300.0, 680.0);
}

#[test]
fn a_burst_faster_than_the_acceptor_overflows_the_accept_queue_in_both_engines() {
    // Seven connections at once with no round trip, acceptCount 3 (4 places), Tomcat's
    // acceptor 100 ms a connection, slots and threads to spare. All 4 handshakes that fit
    // queue first; the
    // acceptor hands them to the poller at 100, 200, 300 and 400 ms, holding each one's place
    // until then, so the other 3 SYNs are dropped. Each call takes 100 ms: answered at 200,
    // 300, 400, 500 ms. The dropped SYNs come back at 1 s to an empty queue and are handed on
    // at 1.1, 1.2, 1.3 s: answered at 1.2, 1.3, 1.4 s. Mean 5300 / 7 ms.
    let server =
        "threads = 10\naccept_count = 3\naccept_cost = \"100ms\"\ncpu_per_request = \"0s\"";
    let s = parse(&support::one_call(
        &BURST_NO_RTT.replace("count = 10", "count = 7"),
        server,
    ));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(5),
        0.2,
        max_latency,
    );
    let net = |r: &RunReport| {
        r.connections
            .as_ref()
            .map(|c| (c.syn_drops, c.accept_queue_max, c.connect_ms.max))
    };
    assert_eq!(net(&sim), Some((3, 4, 1000.0)));
    assert_eq!(net(&real.run).map(|n| (n.0, n.1)), Some((3, 4)));
    assert_eq!(
        (real.run.requests.success, real.run.requests.refused),
        (7, 0)
    );
    assert_max_and_mean(&sim, &real.run, 1400.0, 5300.0 / 7.0);
}

#[test]
fn clients_connecting_faster_than_the_acceptor_lose_every_other_syn_in_both_engines() {
    // Six closed clients connect 20 ms apart (0, 20, ... 100 ms) to an acceptor taking 45 ms
    // a connection, acceptCount 1 (2 places). Client 0 is handed on at 45 ms; client 1 waits
    // behind it, so client 2's SYN at 40 ms finds the queue full. Client 3 queues at 60 ms
    // behind client 1 (handed on at 90), client 4's SYN at 80 ms is dropped, client 5 queues
    // at 100 ms; 3 and 5 are handed on at 135 and 180 ms. Clients 2 and 4 retransmit at 1.04
    // and 1.08 s and are handed on at 1.085 and 1.13 s: their first answers, 100 ms later,
    // come 1.145 and 1.15 s after they sent. Kept-alive connections make no more SYNs.
    let load = "mode = \"closed\"\nclients = 6\nrtt = \"0s\"\nconnect_spacing = \"20ms\"";
    let server = "threads = 10\naccept_count = 1\naccept_cost = \"45ms\"\ncpu_per_request = \"0s\"";
    let s = parse(&support::one_call(load, server));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_millis(1500),
        // Slowed down: a SYN 5 ms before the acceptor's turn ends must stay before it.
        2.0,
        max_latency,
    );
    let net = |r: &RunReport| {
        r.connections
            .as_ref()
            .map(|c| (c.syn_drops, c.accept_queue_max))
    };
    assert_eq!(net(&sim), Some((2, 2)));
    assert_eq!(net(&real.run), net(&sim));
    let connect_max = sim.connections.as_ref().map(|c| c.connect_ms.max);
    assert_eq!(connect_max, Some(1000.0), "a second's retransmit");
    assert!(
        (sim.latency_ms.max - 1150.0).abs() < 1e-6,
        "{}",
        sim.latency_ms.max
    );
}

/// One closed client with no round trip, turnaround or handler CPU and a 100 ms call, with
/// these `[[load.phases]]` (TOML array items).
fn phased_clients(phases: &str) -> Scenario {
    phased_clients_on(phases, "")
}

/// [`phased_clients`] with more lines of `[server]`.
fn phased_clients_on(phases: &str, server: &str) -> Scenario {
    let load = format!(
        "mode = \"closed\"\nclients = 1\nrtt = \"0s\"\nturnaround = \"0s\"\nphases = [{phases}]"
    );
    parse(&support::one_call(
        &load,
        &format!("threads = 10\ncpu_per_request = \"0s\"\n{server}"),
    ))
}

#[test]
fn load_phases_change_the_clients_in_both_engines() {
    // One client answered every 100 ms, five from 2 s, two from 4 s: 20 + 100 + 40 answers
    // in 6 s, every client answered.
    let s = phased_clients(r#"{ at = "2s", clients = 5 }, { at = "4s", clients = 2 }"#);
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(6),
        0.5,
        throughput_and_mean,
    );
    assert_eq!(sim.requests.success, 160);
    let clients = |r: &RunReport| r.clients.as_ref().map(|c| (c.count, c.never_answered));
    assert_eq!(clients(&sim), Some((5, 0)));
    assert_eq!(clients(&real.run), clients(&sim));
}

#[test]
fn a_client_a_phase_stopped_comes_back_on_its_open_connection_in_both_engines() {
    // Client 0 is answered every 100 ms from 0 s, clients 1 and 2 from 1 s. The phase at
    // 2.05 s stops client 2 after its answer at 2.1 s (11 answers); at 3.05 s it comes back
    // and is answered at 3.15 ... 3.95 s (9 more). 40 + 30 + 20 answers by 4 s.
    let phases = r#"{ at = "1s", clients = 3 }, { at = "2.05s", clients = 2 },
        { at = "3.05s", clients = 3 }"#;
    let net = |r: &RunReport| {
        let c = r
            .connections
            .as_ref()
            .expect("a closed load has connections");
        (c.connect_ms.count, c.closed_idle)
    };
    // Its connection, idle from 2.1 s, is still open at 3.05 s (60 s keepAliveTimeout): the
    // three clients open three connections. With a 500 ms one the poller closes it at 2.6 s
    // and the client opens a fourth.
    for (keep_alive, opened, idle_closed) in [("60s", 3, 0), ("500ms", 4, 1)] {
        let s = phased_clients_on(phases, &format!("keep_alive_timeout = \"{keep_alive}\""));
        let (sim, real) = both(
            &s,
            Strategy::Sequential,
            Nanos::from_secs(4),
            0.5,
            throughput_and_mean,
        );
        assert_eq!(sim.requests.success, 90, "keepAliveTimeout {keep_alive}");
        assert_eq!(
            net(&sim),
            (opened, idle_closed),
            "keepAliveTimeout {keep_alive}"
        );
        assert_eq!(net(&real.run), net(&sim), "keepAliveTimeout {keep_alive}");
        let clients = |r: &RunReport| r.clients.as_ref().map(|c| (c.count, c.never_answered));
        assert_eq!(clients(&sim), Some((3, 0)));
        assert_eq!(clients(&real.run), clients(&sim));
    }
}

#[test]
fn a_load_phase_changes_the_open_rate_in_both_engines_on_the_same_arrivals() {
    let load = "mode = \"open\"\nrate = 50.0\nphases = [{ at = \"1s\", rate = 200.0 }]";
    let s = parse(&support::one_call(load, ""));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(2),
        0.5,
        mean_latency,
    );
    // The keyed draws give both engines the same arrival times, the phase included.
    assert_eq!(real.run.requests.sent, sim.requests.sent);
    assert!(
        (200..300).contains(&sim.requests.sent),
        "{}",
        sim.requests.sent
    );
}

// ---- resilience patterns --------------------------------------------------------------

/// How far apart two scenario times may be after `waits` timer waits at `scale`: tokio
/// rounds each sleep up to a whole millisecond and the task then needs waking, about 2 ms of
/// real time a wait on a busy machine and up to 4 ms on a virtual machine whose neighbours
/// take its cores (a breaker's transitions came 3-4.6 ms a wait late there), this many
/// scenario milliseconds. A wrong rule is hundreds of milliseconds off.
fn slack_ms(scale: f64, waits: u32) -> f64 {
    4.0 * f64::from(waits) / scale
}

/// Runs `s` for real until `check` accepts the run (timing may need another try on a loaded
/// machine); panics with every refusal.
fn real_until<T>(
    s: &Scenario,
    duration: Nanos,
    scale: f64,
    check: impl Fn(&real::RealRun) -> Result<T, String>,
) -> T {
    real_until_with(s, Strategy::Sequential, duration, scale, check)
}

/// [`real_until`] under `strategy`.
fn real_until_with<T>(
    s: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    scale: f64,
    check: impl Fn(&real::RealRun) -> Result<T, String>,
) -> T {
    let options = RealOptions {
        time_scale: scale,
        ..RealOptions::default()
    };
    let mut failures = Vec::new();
    for _ in 0..ATTEMPTS {
        let run = play_for_real(s, strategy, duration, options).expect("real run");
        match check(&run) {
            Ok(t) => return t,
            Err(e) => failures.push(e),
        }
    }
    panic!("the real run disagreed with the simulation in {ATTEMPTS} runs: {failures:#?}");
}

#[test]
fn retries_give_up_after_the_same_attempts_and_latency_in_both_engines() {
    // tests/resilience.rs's slow client: each attempt takes 1.5 s on the server and its
    // client gives up after 1 s; 3 attempts, 200 ms then 400 ms apart. Attempts go out at 0,
    // 1.2 and 2.6 s; the last times out at 3.6 s, 3.6 s after the first went out. By 3.7 s
    // the server has run attempts 0 and 1 to their ends for nobody: 2 x 1.5 s.
    let load = "mode = \"closed\"\nclients = 1\ntimeout = \"1s\"\n[load.retry]\nattempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0";
    let s = parse(&support::one_call(load, "threads = 10").replace("\"100ms\"", "\"1500ms\""))
        .without_network();
    let duration = Nanos::from_millis(3_700);
    let sim = RunReport::new(&s, &report::play(&s, Strategy::Sequential, duration));
    let counts = |r: &RunReport| {
        let x = r.resilience.as_ref().expect("resilience");
        (x.retries, x.gave_up, x.wasted_work_s)
    };
    let final_latency = |r: &RunReport| (r.requests.timeout, r.failed_latency_ms.max);
    assert_eq!(counts(&sim), (2, 1, 3.0));
    assert_eq!(final_latency(&sim), (1, 3600.0));
    let scale = 0.5;
    let real = real_until(&s, duration, scale, |run| {
        let real = RealReport::of(&s, run).run;
        let (timeouts, latency) = final_latency(&real);
        // Three timeouts and two pauses, each a timer.
        if timeouts == 1 && (latency - 3600.0).abs() <= slack_ms(scale, 5) {
            Ok(real)
        } else {
            Err(format!("{timeouts} timeouts, final latency {latency} ms"))
        }
    });
    let (retries, gave_up, wasted) = counts(&real);
    assert_eq!((retries, gave_up), (2, 1));
    assert!((wasted - 3.0).abs() <= 0.05, "wasted work {wasted} s");
    // The server wrote attempts 0 and 1 (at 1.5 and 2.7 s), both after their client left.
    let written = |r: &RunReport| (r.requests.server_responses, r.requests.late_responses);
    assert_eq!(written(&sim), (2, 2));
    assert_eq!(written(&real), (2, 2));
}

#[test]
fn queue_timeout_sheds_the_same_requests_in_both_engines() {
    // 5 requests at once on 1 thread, 100 ms each, queue timeout 250 ms: the 4th and 5th
    // have waited 300 ms when the thread takes them, and are answered 503 at once.
    let s = parse(&support::tomcat_scenario(
        5,
        "threads = 1\nmin_spare = 1\nqueue_timeout = \"250ms\"",
    ));
    let (sim, real) = both(
        &s,
        Strategy::Sequential,
        Nanos::from_secs(2),
        0.5,
        max_latency,
    );
    let shed = |r: &RunReport| r.resilience.as_ref().map(|x| x.shed);
    assert_eq!(shed(&sim), Some(2));
    assert_eq!(shed(&real.run), Some(2));
    let answers = |r: &RunReport| (r.requests.success, r.requests.failed);
    assert_eq!(answers(&sim), (3, 2));
    assert_eq!(answers(&real.run), (3, 2));
}

#[test]
fn a_breaker_opens_and_fails_fast_at_the_same_times_in_both_engines() {
    // tests/resilience.rs's breaker with a service that never heals: one client thinking
    // 300 ms, 100 ms calls that always fail into a fallback. Window 4, 50 %, 1 s open, 2
    // calls half-open: open at 1.3 s; 1.6, 1.9, 2.2 s fail fast; 2.5 s half-opens, two
    // failures (2.6, 3.0 s) open it again; 3.3, 3.6, 3.9 s fail fast; 4.2 s half-opens and
    // 4.3, 4.7 s open it once more.
    use threadlab::flow::BreakerState::{Closed, HalfOpen, Open};
    let breaker = "latency = \"100ms\"\nfailure = 1.0\nfallback = \"cached\"\n[services.breaker]\nwindow_size = 4\nminimum_calls = 4\nwait_in_open = \"1s\"\npermitted_in_half_open = 2";
    let s = parse(
        &support::one_call("mode = \"closed\"\nclients = 1\nthink = \"300ms\"", "")
            .replace("latency = \"100ms\"", breaker),
    )
    .without_network();
    // Past 4.7 s so that a late real run still has its last transition.
    let duration = Nanos::from_millis(5_200);
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    e.run_until(duration);
    let sim = e.snapshot().services[0].breaker.clone().expect("a breaker");
    let states: Vec<_> = sim.transitions.iter().map(|&(_, a, b)| (a, b)).collect();
    assert_eq!(
        states,
        [
            (Closed, Open),
            (Open, HalfOpen),
            (HalfOpen, Open),
            (Open, HalfOpen),
            (HalfOpen, Open)
        ]
    );
    let at: Vec<f64> = sim
        .transitions
        .iter()
        .map(|t| t.0.as_millis_f64())
        .collect();
    assert_eq!(at, [1300.0, 2500.0, 3000.0, 4200.0, 4700.0]);
    // 5.0 s fails fast too.
    assert_eq!((sim.opened, sim.not_permitted), (3, 7));
    let scale = 0.5;
    let real = real_until(&s, duration, scale, |run| {
        let b = run.snapshot.services[0]
            .breaker
            .clone()
            .ok_or("no breaker")?;
        let real_states: Vec<_> = b.transitions.iter().map(|&(_, a, b)| (a, b)).collect();
        // A closed client's cycles add up each one's wake-up delay, so what is compared is
        // the time from one transition to the next.
        let real_at: Vec<f64> = b.transitions.iter().map(|t| t.0.as_millis_f64()).collect();
        let gaps = |t: &[f64]| -> Vec<f64> {
            std::iter::once(0.0)
                .chain(t.iter().copied())
                .collect::<Vec<_>>()
                .windows(2)
                .map(|w| w[1] - w[0])
                .collect()
        };
        // Timer waits in each gap: the first holds 4 calls and 4 thinks, each later one
        // about 4 waits (a call and a think, or a think after failing fast).
        let waits = [8, 4, 4, 4, 4];
        let late = gaps(&real_at)
            .iter()
            .zip(gaps(&at))
            .zip(waits)
            .any(|((r, s), w)| (r - s).abs() > slack_ms(scale, w));
        if real_states == states && !late {
            Ok(b)
        } else {
            Err(format!("{:?}", b.transitions))
        }
    });
    assert_eq!((real.opened, real.not_permitted), (3, 7));
}

/// Mean of a goodput timeline over seconds `from..to`.
fn mean_goodput(r: &RunReport, from: usize, to: usize) -> f64 {
    let timeline = r.goodput_timeline.as_deref().unwrap_or(&[]);
    let window = timeline.get(from..to).unwrap_or(&[]);
    window.iter().map(|&x| f64::from(x)).sum::<f64>() / (to - from) as f64
}

#[test]
fn the_metastable_failure_keeps_goodput_down_after_the_spike_in_both_engines() {
    // The preset's first 70 s: 90 % load, the spike at 30-40 s, 90 % again. Naive retries
    // keep goodput near zero after the spike in both engines; before it, and in the failure
    // at 60-70 s, the real goodput agrees with the simulated one within the verify tolerance
    // of the goodput before the spike. At a fifth of real time: a pause of the machine
    // about as long as the client's timeout (1 s, so 200 ms here) starts the same collapse for
    // real, before the spike, and that run is tried again.
    let s = scenario("metastable", &[]);
    let duration = Nanos::from_secs(70);
    let scale = 0.2;
    let sim = RunReport::new(
        &s,
        &report::play(&s.without_network(), Strategy::Sequential, duration),
    );
    let before = mean_goodput(&sim, 0, 30);
    assert!(
        (80.0..100.0).contains(&before),
        "before the spike: {before}"
    );
    assert!(mean_goodput(&sim, 60, 70) < before / 2.0);
    let (sim_before, sim_after) = (before, mean_goodput(&sim, 60, 70));
    let real = real_until(&s, duration, scale, |run| {
        let real = RealReport::of(&s, run).run;
        let (b, a) = (mean_goodput(&real, 0, 30), mean_goodput(&real, 60, 70));
        let tolerance = TOLERANCE * sim_before;
        if (b - sim_before).abs() <= tolerance && (a - sim_after).abs() <= tolerance {
            Ok(real)
        } else {
            Err(format!(
                "goodput before {b:.1} (sim {sim_before:.1}), after {a:.1} (sim {sim_after:.1})"
            ))
        }
    });
    let retries = |r: &RunReport| r.resilience.as_ref().map_or(0, |x| x.retries);
    assert!(
        rel(retries(&sim) as f64, retries(&real) as f64) <= 2.0 * TOLERANCE,
        "retries: sim {}, real {}",
        retries(&sim),
        retries(&real)
    );
    eprintln!(
        "metastable at x{scale}: goodput 0-30 s sim {sim_before:.1} real {:.1}; 60-70 s sim \
         {sim_after:.1} real {:.1}; retries sim {} real {}",
        mean_goodput(&real, 0, 30),
        mean_goodput(&real, 60, 70),
        retries(&sim),
        retries(&real)
    );
}

#[test]
fn a_rate_limiter_parks_and_refuses_the_same_callers_in_both_engines() {
    // tests/resilience.rs's limiter: 2 permits a second, callers wait at most 1 s, 5
    // requests at t = 0. Two calls end at 100 ms, two wait for the next second's permits and
    // end at 1.1 s, the 5th is refused at once (no fallback: the request fails).
    let s = parse(&support::tomcat_scenario(5, "").replace(
        "latency = \"100ms\"",
        "latency = \"100ms\"\n[services.rate_limit]\nlimit = 2\nperiod = \"1s\"\ntimeout = \"1s\"",
    ))
    .without_network();
    let duration = Nanos::from_secs(3);
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    e.run_until(duration);
    let sim = e.snapshot();
    let answers = |x: &threadlab::sim::Snapshot| {
        use threadlab::metrics::Outcome::{Failed, Success};
        (
            x.outcomes.get(Success),
            x.outcomes.get(Failed),
            x.services[0].rate_limited,
        )
    };
    assert_eq!(answers(&sim), (4, 1, 1));
    let scale = 0.5;
    // The refused call fails its request at once, without waiting for a permit.
    real_until(&s, duration, scale, |run| {
        let report = RealReport::of(&s, run).run;
        let max = report.latency_ms.max;
        let refused = report.failed_latency_ms.max;
        if answers(&run.snapshot) == (4, 1, 1)
            && (max - 1100.0).abs() <= slack_ms(scale, 2)
            && refused <= slack_ms(scale, 1)
        {
            Ok(())
        } else {
            Err(format!(
                "{:?}, slowest answer {max} ms, refused after {refused} ms",
                answers(&run.snapshot)
            ))
        }
    });
}

#[test]
fn an_adaptive_limit_refuses_the_same_calls_and_ends_at_the_same_limit_in_both_engines() {
    // tests/resilience.rs's AIMD limit from 3: 5 requests at t = 0, three calls go and end at
    // 100 ms, two are refused at once; the successes take the limit to 5.
    let s = parse(&support::tomcat_scenario(5, "").replace(
        "latency = \"100ms\"",
        "latency = \"100ms\"\n[services.adaptive_limit]\nalgorithm = \"aimd\"\ninitial = 3\nmin = 1",
    ))
    .without_network();
    let duration = Nanos::from_secs(1);
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    e.run_until(duration);
    let answers = |x: &threadlab::sim::Snapshot| {
        use threadlab::metrics::Outcome::{Failed, Success};
        let guard = &x.services[0].guards[0];
        (
            x.outcomes.get(Success),
            x.outcomes.get(Failed),
            guard.refused,
            guard.state.clone(),
        )
    };
    let want = (3, 2, 2, "limit 5 (aimd), lowest 3".to_string());
    assert_eq!(answers(&e.snapshot()), want);
    real_until(&s, duration, 0.5, |run| {
        let got = answers(&run.snapshot);
        if got == want {
            Ok(())
        } else {
            Err(format!("{got:?}"))
        }
    });
}

#[test]
fn the_endpoint_rate_limiter_refuses_and_delays_the_same_requests_in_both_engines() {
    // tests/resilience.rs's door: 2 requests a second, a handler waits at most 1 s; 5 at once.
    let s = parse(&support::tomcat_scenario(
        5,
        "[server.rate_limit]\nlimit = 2\nperiod = \"1s\"\ntimeout = \"1s\"",
    ))
    .without_network();
    let duration = Nanos::from_secs(3);
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    e.run_until(duration);
    let counts = |x: &threadlab::sim::Snapshot| {
        use threadlab::metrics::Outcome::{Failed, Success};
        (
            x.outcomes.get(Success),
            x.outcomes.get(Failed),
            x.resilience.limited_at_door,
        )
    };
    assert_eq!(counts(&e.snapshot()), (4, 1, 1));
    let scale = 0.5;
    real_until(&s, duration, scale, |run| {
        let report = RealReport::of(&s, run).run;
        let max = report.latency_ms.max;
        if counts(&run.snapshot) == (4, 1, 1) && (max - 1100.0).abs() <= slack_ms(scale, 2) {
            Ok(())
        } else {
            Err(format!(
                "{:?}, slowest answer {max} ms",
                counts(&run.snapshot)
            ))
        }
    });
}

#[test]
fn the_clients_breaker_stops_them_sending_at_the_same_times_in_both_engines() {
    // tests/resilience.rs's client breaker: attempts time out, the breaker opens at 2.3 s,
    // three requests are not sent, a probe at 3.5 s half-opens it, 4.5 s opens it again.
    let s = parse(
        &support::one_call(
            "mode = \"closed\"\nclients = 1\nthink = \"300ms\"\ntimeout = \"1s\"\n[load.breaker]\nwindow_size = 2\nminimum_calls = 2\nwait_in_open = \"1s\"\npermitted_in_half_open = 1",
            "",
        )
        .replace("latency = \"100ms\"", "latency = \"1500ms\""),
    )
    .without_network();
    let duration = Nanos::from_millis(4_600);
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    e.run_until(duration);
    let sim = e.snapshot().client_breaker.expect("a breaker");
    assert_eq!((sim.opened, sim.not_permitted), (2, 3));
    let scale = 0.5;
    real_until(&s, duration, scale, |run| {
        let Some(b) = run.snapshot.client_breaker.clone() else {
            return Err("no client breaker".into());
        };
        let states: Vec<_> = b.transitions.iter().map(|&(_, f, t)| (f, t)).collect();
        let expected: Vec<_> = sim.transitions.iter().map(|&(_, f, t)| (f, t)).collect();
        let late = b
            .transitions
            .iter()
            .zip(&sim.transitions)
            .map(|(r, s)| r.0.as_millis_f64() - s.0.as_millis_f64())
            .fold(0.0, f64::max);
        if states == expected && (b.opened, b.not_permitted) == (2, 3) && late <= slack_ms(scale, 8)
        {
            Ok(())
        } else {
            Err(format!("{b:?}, {late} ms late"))
        }
    });
}

/// tests/resilience.rs's retried calls in both engines: (the answer's latency in ms, retries,
/// exhausted), simulated then real.
fn retried_call_in_both(
    strategy: Strategy,
    retry: &str,
    lines: &str,
    waits: u32,
) -> [(f64, u64, u64); 2] {
    let s = parse(&support::retried_call("1500ms", retry, lines, ""));
    let duration = Nanos::from_secs(4);
    let figures = |r: &RunReport| {
        let x = r.resilience.as_ref().expect("resilience");
        let c = &x.call_retries["svc"];
        (r.latency_ms.max, c.retries, c.exhausted)
    };
    let sim = figures(&RunReport::new(&s, &report::play(&s, strategy, duration)));
    let scale = 0.5;
    let real = real_until_with(&s, strategy, duration, scale, |run| {
        let real = figures(&RealReport::of(&s, run).run);
        if (real.0 - sim.0).abs() <= slack_ms(scale, waits) && (real.1, real.2) == (sim.1, sim.2) {
            Ok(real)
        } else {
            Err(format!("real {real:?}, simulated {sim:?}"))
        }
    });
    [sim, real]
}

#[test]
fn a_retried_inline_call_answers_at_the_same_time_in_both_engines() {
    // Attempts at 0, 1.2 and 2.6 s, each cut by its 1 s read timeout: the fallback at 3.6 s.
    let [sim, real] = retried_call_in_both(
        Strategy::Sequential,
        "attempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0",
        "use = \"sequential\"",
        5,
    );
    // The histogram keeps 3 significant digits: 3,600 ms reads 3,600.11.
    assert!((sim.0 - 3600.0).abs() < 1.0, "{sim:?}");
    assert_eq!([(sim.1, sim.2), (real.1, real.2)], [(2, 1); 2]);
}

#[test]
fn a_retried_pooled_call_waits_behind_its_first_attempt_in_both_engines() {
    // One bulkhead thread: attempt 1, submitted at 1.2 s, waits for the thread attempt 0
    // keeps until 1.5 s, and times out at 2.2 s.
    let [sim, real] = retried_call_in_both(
        Strategy::Bulkhead,
        "attempts = 2\nbackoff = \"200ms\"",
        support::ONE_THREAD_BULKHEAD,
        3,
    );
    assert!((sim.0 - 2200.0).abs() < 1.0, "{sim:?}");
    assert_eq!([(sim.1, sim.2), (real.1, real.2)], [(1, 1); 2]);
}

#[test]
fn a_retry_a_caller_runs_pool_rejects_runs_on_the_scheduler_in_both_engines() {
    // One bulkhead thread, no queue, caller-runs. Attempt 0 holds the thread until 1.5 s and
    // times out at 1 s; attempt 1, submitted by resilience4j's scheduler at 1.2 s, is
    // rejected and runs on the scheduler's thread (its future complete when `supplyAsync`
    // returns, so no `orTimeout`), answering at 2.7 s.
    let lines = support::ONE_THREAD_BULKHEAD
        .replace("queue = 10", "queue = 0\nrejection = \"caller-runs\"");
    let [sim, real] = retried_call_in_both(
        Strategy::Bulkhead,
        "attempts = 2\nbackoff = \"200ms\"",
        &lines,
        3,
    );
    assert!((sim.0 - 2700.0).abs() < 2.0, "{sim:?}");
    assert_eq!([(sim.1, sim.2), (real.1, real.2)], [(1, 0); 2]);
}

#[test]
fn while_the_handler_runs_a_rejected_call_the_stages_timeouts_and_retries_go_on_in_both_engines() {
    // Calls svc and two share one bulkhead thread, no queue, caller-runs. svc takes the
    // thread (until 1.5 s); two is rejected and the handler runs it itself until 1.5 s.
    // Meanwhile svc's orTimeout fires at 1 s on the delay scheduler's thread and
    // resilience4j's scheduler retries it at 1.2 s, rejected too: it runs on the scheduler's
    // thread until 2.7 s, the answer's time. A handler that only joined its stage after its
    // own call would see svc complete at 1.5 s, with no timeout and no retry.
    let lines = support::ONE_THREAD_BULKHEAD
        .replace("queue = 10", "queue = 0\nrejection = \"caller-runs\"")
        .replace("services = [\"svc\"]", "services = [\"svc\", \"two\"]");
    let two = "[[services]]\nname = \"two\"\nlatency = \"1500ms\"\ntimeout = \"1s\"\nfallback = \"empty\"";
    let toml = support::retried_call("1500ms", "attempts = 2\nbackoff = \"200ms\"", &lines, two)
        .replace("calls = [\"svc\"]", "calls = [\"svc\", \"two\"]");
    let s = parse(&toml);
    let duration = Nanos::from_secs(4);
    let figures = |r: &RunReport| {
        let counts = |name: &str| {
            let x = r
                .services
                .iter()
                .find(|x| x.name == name)
                .expect("a service");
            (x.stats.calls, x.stats.timeouts, x.stats.rejected)
        };
        (
            r.latency_ms.max,
            r.requests.success,
            counts("svc"),
            counts("two"),
        )
    };
    let sim = figures(&RunReport::new(
        &s,
        &report::play(&s, Strategy::Bulkhead, duration),
    ));
    assert!((sim.0 - 2700.0).abs() < 2.0, "{sim:?}");
    assert_eq!((sim.1, sim.2, sim.3), (1, (2, 1, 1), (1, 0, 1)));
    let scale = 0.5;
    real_until_with(&s, Strategy::Bulkhead, duration, scale, |run| {
        let real = figures(&RealReport::of(&s, run).run);
        if (real.0 - sim.0).abs() <= slack_ms(scale, 4)
            && (real.1, real.2, real.3) == (sim.1, sim.2, sim.3)
        {
            Ok(())
        } else {
            Err(format!("real {real:?}, simulated {sim:?}"))
        }
    });
}

#[test]
fn a_virtual_thread_keeps_its_carrier_from_its_cpu_into_a_pinned_call_in_both_engines() {
    // One core, two requests at once on virtual threads, each 5 ms of handler CPU then a
    // 100 ms call inside `synchronized` (JDK 21). A virtual thread unmounts only when it
    // parks: A runs its CPU (0-5 ms) and goes straight on into its pinned call on the same
    // carrier (5-105 ms); B waits for the carrier, then runs 105-110 and 110-210 ms. Had A
    // given its carrier up between the two, B's CPU would come first and A would answer at
    // 110 ms.
    let toml = support::one_call(
        "mode = \"batch\"\ncount = 2",
        "threads = \"virtual\"\ncpu_per_request = \"5ms\"",
    )
    .replace(
        "name = \"one-call\"",
        "name = \"one-call\"\ncores = 1\njdk = 21",
    )
    .replace("latency = \"100ms\"", "latency = \"100ms\"\npinned = true");
    let s = parse(&toml);
    let duration = Nanos::from_secs(1);
    let span = |r: &RunReport| (r.latency_ms.p50, r.latency_ms.max);
    let sim = RunReport::new(&s, &report::play(&s, Strategy::Sequential, duration));
    let (first, last) = span(&sim);
    assert!(
        (first - 105.0).abs() < 0.2 && (last - 210.0).abs() < 0.2,
        "{first} {last}"
    );
    let scale = 2.0;
    real_until(&s, duration, scale, |run| {
        let real = span(&RealReport::of(&s, run).run);
        let close = |a: f64, b: f64| (a - b).abs() <= slack_ms(scale, 3);
        if close(real.0, first) && close(real.1, last) {
            Ok(())
        } else {
            Err(format!("real {real:?}, simulated {first} {last}"))
        }
    });
}

#[test]
fn real_mode_refuses_run_to_completion_cpu_work_on_more_cores_than_the_machine_has() {
    // 1,024 cores, more than this machine has: its kernel would time-slice the threads
    // beyond its own cores, so no burst would surely run to its end.
    let toml = support::one_call("mode = \"batch\"\ncount = 1", "")
        .replace(
            "name = \"one-call\"",
            "name = \"one-call\"\ncores = 1024\ncpu_scheduling = \"run-to-completion\"",
        )
        .replace("latency = \"100ms\"", "latency = \"100ms\"\ncpu = \"1ms\"");
    let s = parse(&toml);
    let refused = real::check(&s, Strategy::Sequential, RealOptions::default());
    let text = refused.expect_err("refused").to_string();
    assert!(
        text.contains("run-to-completion") && text.contains("this machine has"),
        "{text}"
    );
    // Time-sliced, the default, runs; so does run-to-completion on one core (each burst
    // holds the scenario's one core to its end).
    let sliced = parse(&toml.replace("cpu_scheduling = \"run-to-completion\"\n", ""));
    assert!(real::check(&sliced, Strategy::Sequential, RealOptions::default()).is_ok());
    let one_core = parse(&toml.replace("cores = 1024", "cores = 1"));
    assert!(real::check(&one_core, Strategy::Sequential, RealOptions::default()).is_ok());
}

#[test]
fn a_request_arriving_before_its_thread_is_back_starts_a_new_one_in_both_engines() {
    // One client, 100 ms a request, one prestarted Tomcat thread that takes 550 ms to get
    // back to the executor after each response: request m finds the thread of request n
    // back only when m >= n + 7 (m x 100 ms >= (n + 1) x 100 ms + 550 ms), so seven threads
    // serve the first 1.5 s. Back at once, the one thread serves them all. No post-response
    // work, so no keep-alive fast path: each request goes through the executor.
    let text = |back: &str| {
        format!(
            r#"
            [scenario]
            name = "return to pool"
            seed = 3
            [load]
            mode = "closed"
            clients = 1
            [server]
            min_spare = 1
            return_to_pool = "{back}"
            post_response = "0s"
            [[services]]
            name = "a"
            latency = "100ms"
            [endpoint]
            calls = ["a"]
            "#
        )
    };
    let duration = Nanos::from_millis(1500);
    let options = RealOptions {
        time_scale: 0.5,
        ..RealOptions::default()
    };
    let tomcat = |snap: &threadlab::sim::Snapshot| {
        let p = snap.pools.first().expect("the server pool");
        (
            u64::from(p.stats.largest_pool_size),
            p.stats.threads_created,
        )
    };
    for (back, threads) in [("550ms", 7), ("0s", 1)] {
        let s = parse(&text(back));
        let engine = report::play(&s.without_network(), Strategy::Sequential, duration);
        assert_eq!(tomcat(&engine.snapshot()), (threads, threads), "{back}");
        // A stalled real thread shifts arrivals: the count must hold in one of the attempts.
        let real: Vec<_> = (0..ATTEMPTS)
            .map(|_| play_for_real(&s, Strategy::Sequential, duration, options).expect("real run"))
            .map(|run| tomcat(&run.snapshot))
            .take_while(|&got| got != (threads, threads))
            .collect();
        assert!(real.len() < ATTEMPTS, "{back}, real: {real:?}");
    }
}
