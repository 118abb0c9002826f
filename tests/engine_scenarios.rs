//! Whole scenarios played by the engine, checked against the JVM's behaviour and theory.

use std::collections::BTreeMap;

use threadlab::metrics::Outcome;
use threadlab::report;
use threadlab::scenario::{self, Strategy};
use threadlab::sim::draw::call_draw;
use threadlab::sim::pool::FORK_JOIN_START;
use threadlab::time::Nanos;

#[test]
fn compare_gives_every_strategy_the_same_draws_for_the_same_request() {
    // Random latencies and failures: the sequential time of request k must be the sum of its
    // three draws and every fan-out's time their maximum, for the same k in every strategy.
    let text = r#"
        [scenario]
        name = "crn"
        seed = 99
        cores = 64
        [load]
        mode = "runs"
        count = 40
        [[services]]
        name = "a"
        latency = { dist = "uniform", min = "10ms", max = "300ms" }
        [[services]]
        name = "b"
        latency = { dist = "exponential", mean = "100ms" }
        [[services]]
        name = "c"
        latency = { dist = "lognormal", p50 = "80ms", p99 = "400ms" }
        failure = 0.3
        fallback = "C:Fallback"
        [endpoint]
        calls = ["a", "b", "c"]
        [[strategy.bulkhead]]
        name = "P"
        services = ["a", "b", "c"]
        core = 50
        max = 50
    "#;
    let s = scenario::parse("crn", text, &[]).expect("valid scenario");
    let results = report::compare(&s, Nanos::from_secs(3600));
    assert_eq!(results.len(), Strategy::ALL.len());
    let mut statuses: Vec<Vec<Outcome>> = Vec::new();
    // The bulkhead's threads take a call at once: the common pool's take it when their scan
    // runs, 50 µs after a wake-up or 100 µs after a start, at most once per call.
    let bulkhead: BTreeMap<u64, Nanos> = results
        .iter()
        .find(|(report, _)| report.strategy == Strategy::Bulkhead)
        .map(|(_, engine)| engine.run_lines().iter().map(|r| (r.run, r.time)).collect())
        .expect("bulkhead is compared");
    for (_, engine) in &results {
        let runs = engine.run_lines();
        assert_eq!(runs.len(), 40);
        for r in &runs {
            let draws: Vec<Nanos> = (0..3)
                .map(|call| {
                    call_draw(s.seed, r.run, call, Default::default(), &s.services[call]).latency
                })
                .collect();
            let calls = if r.strategy.calls_inline() {
                draws.iter().fold(Nanos::ZERO, |a, &b| a + b)
            } else {
                draws.iter().copied().max().expect("three calls")
            };
            if r.strategy == Strategy::Shared {
                let alike = bulkhead[&r.run];
                let late = r.time.saturating_sub(alike);
                assert!(
                    r.time > alike && late <= FORK_JOIN_START + FORK_JOIN_START + FORK_JOIN_START,
                    "shared run {}: {late:?} after the bulkhead",
                    r.run
                );
                continue;
            }
            // One request at a time on a new connection: the handshake's round trip, the
            // request's round trip and Tomcat's own CPU come on top of the calls.
            let expected =
                calls + s.load.link.rtt + s.load.link.rtt + s.server.connector.cpu_per_request;
            assert_eq!(r.time, expected, "{:?} run {}", r.strategy, r.run);
        }
        statuses.push(runs.iter().map(|r| r.outcome).collect());
    }
    // The same requests fail in every strategy, and some do.
    assert!(statuses.windows(2).all(|w| w[0] == w[1]));
    assert!(statuses[0].contains(&Outcome::Partial));
    assert!(statuses[0].contains(&Outcome::Success));
}

#[test]
fn mmc_queue_matches_erlang_c_mean_and_p99() {
    // Poisson 1800/s, exponential 100 ms, 200 Tomcat threads, 3,600 s simulated.
    let s = scenario::load("erlang-c", &[]).expect("built-in preset");
    let engine = report::play(&s, Strategy::Sequential, Nanos::from_secs(3600));
    let snap = engine.snapshot();
    let mean = snap.latency.mean;
    let p99 = snap.latency.p99;
    assert!((mean - 100.47).abs() / 100.47 < 0.01, "mean {mean}");
    assert!((p99 - 461.0).abs() / 461.0 < 0.02, "p99 {p99}");
    let theory = engine.prediction();
    let erlang = theory.erlang_c.expect("an Erlang C prediction");
    assert!((erlang.mean_response_ms - 100.472).abs() < 0.01);
    assert!((snap.mean_in_flight - 180.0).abs() / 180.0 < 0.01);
    // Little's law: the time-average in flight equals λ·W, both measured.
    let lw = snap.littles_l_from_x_w();
    assert!(
        (lw - snap.mean_in_flight).abs() / snap.mean_in_flight < 0.005,
        "{lw}"
    );
}

#[test]
fn after_the_spike_the_backlog_of_dead_work_keeps_goodput_at_zero_until_the_load_falls() {
    // `spike`: 90 req/s on a 100 req/s server whose clients give up after 1 s; 200 req/s from
    // 30 to 40 s. The spike queues ~1,000 requests, which drain at 100 - 90 = 10 req/s: every
    // request of the 60 s back at 90 % waits longer than its client, so none is answered.
    // At 60 % (from 100 s) the queue drains at 40 req/s and answers come back.
    let s = scenario::load("spike", &[]).expect("built-in preset");
    let mut e = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    let (mut answered, mut queued) = (Vec::new(), Vec::new());
    for t in [30, 40, 45, 100, 130] {
        e.run_until(Nanos::from_secs(t));
        let snap = e.snapshot();
        answered.push(snap.outcomes.get(Outcome::Success));
        queued.push(snap.pools[0].queued);
    }
    answered.remove(1);
    let before = answered[0] as f64 / 30.0;
    assert!(
        (before - 90.0).abs() < 9.0,
        "goodput before the spike: {before}"
    );
    assert_eq!(
        answered[2] - answered[1],
        0,
        "answers from 45 s to 100 s: {answered:?}"
    );
    let after = (answered[3] - answered[2]) as f64 / 30.0;
    assert!(after > 0.5 * 60.0, "goodput at 60 % load: {after}");
    assert!(
        (900..1200).contains(&queued[1]),
        "the backlog at the spike's end: {queued:?}"
    );
}
