//! The resilience patterns, each against a hand-computed sequence: a client's retries with
//! backoff and a budget, the work done for clients that had left, shedding by queue timeout,
//! and the metastable failure the preset teaches.

mod support;

use support::{ms, one_call, parse, rows};
use threadlab::metrics::Outcome;
use threadlab::scenario::{self, Strategy};
use threadlab::sim::Engine;
use threadlab::time::Nanos;

/// One closed client whose every attempt takes 1.5 s on the server and gives up after 1 s.
fn slow_client(retry: &str, think: &str) -> Engine {
    let toml = one_call(
        &format!(
            "mode = \"closed\"\nclients = 1\nthink = \"{think}\"\ntimeout = \"1s\"\n[load.retry]\n{retry}"
        ),
        "",
    )
    .replace("latency = \"100ms\"", "latency = \"1500ms\"");
    Engine::new(&parse(&toml), Strategy::Sequential)
}

#[test]
fn a_timed_out_request_is_sent_again_after_its_backoff_until_the_last_attempt() {
    // Attempt 0 at 0 s times out at 1 s; retry 1 waits 200 ms: sent at 1.2 s, times out at
    // 2.2 s; retry 2 waits 200 x 2 = 400 ms: sent at 2.6 s, times out at 3.6 s, the last of
    // 3 attempts: the client gives up, 3.6 s after it first sent, and sends its next request.
    let mut e = slow_client("attempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0", "0ms");
    e.run_until(ms(3_599));
    let snap = e.snapshot();
    assert_eq!(snap.resilience.retries, 2);
    // Each retry is counted in the second its client decided it: at 1.0 s and 2.2 s.
    assert_eq!(snap.retry_timeline[..3], [0, 1, 1]);
    assert_eq!(
        snap.resilience.gave_up, 0,
        "not before the last attempt's timeout"
    );
    assert_eq!(snap.outcomes.total(), 0);
    e.run_until(ms(3_650));
    let snap = e.snapshot();
    assert_eq!(snap.resilience.gave_up, 1);
    assert_eq!(snap.outcomes.get(Outcome::Timeout), 1);
    assert_eq!(snap.sent, 2, "the next request went out at 3.6 s");
    let first = &rows(&e)[0];
    assert_eq!((first.run, first.time), (1, ms(3_600)));
    // Tomcat ran every attempt to its end for nobody: attempts 0 and 1 by 3.65 s (1.5 s
    // each), attempt 2 at 4.1 s.
    assert_eq!(snap.resilience.wasted_work, ms(3_000));
    e.run_until(ms(4_150));
    assert_eq!(e.snapshot().resilience.wasted_work, ms(4_500));
}

#[test]
fn the_budget_allows_a_retry_only_once_first_attempts_have_earned_it() {
    // Each first attempt earns half a retry. Request 1 (0 s) earns 0.5: its timeout at 1 s
    // is not retried. Request 2 (1.1 s, after 100 ms of thinking) brings the store to 1: its
    // timeout at 2.1 s is retried at once, and that attempt's at 3.1 s is the last (2
    // attempts). Request 3 (3.2 s) is not retried; request 4 (4.3 s) is, until 6.3 s.
    let mut e = slow_client("attempts = 2\nbackoff = \"0ms\"\nbudget = 0.5", "100ms");
    e.run_until(ms(6_350));
    let snap = e.snapshot();
    assert_eq!(snap.sent, 4);
    assert_eq!(snap.resilience.retries, 2);
    assert_eq!(snap.resilience.gave_up, 4);
    let times: Vec<Nanos> = rows(&e).iter().map(|r| r.time).collect();
    assert_eq!(times, [ms(1_000), ms(2_000), ms(1_000), ms(2_000)]);
}

#[test]
fn a_request_that_waited_past_the_queue_timeout_is_answered_503_unserved() {
    // 5 requests at once on 1 thread, 100 ms each, queue timeout 250 ms: requests 1-3 start
    // after 0, 100 and 200 ms of waiting and are served; requests 4 and 5 have waited 300 ms
    // when the thread takes them at 300 ms, and are shed at once.
    let toml = support::tomcat_scenario(5, "threads = 1\nmin_spare = 1\nqueue_timeout = \"250ms\"");
    let e = support::played(&toml, Strategy::Sequential);
    let snap = e.snapshot();
    assert_eq!(snap.outcomes.get(Outcome::Success), 3);
    assert_eq!(snap.outcomes.get(Outcome::Failed), 2);
    assert_eq!(snap.resilience.shed, 2);
    let rows = rows(&e);
    let ends: Vec<(Nanos, bool)> = rows
        .iter()
        .map(|r| (r.time, r.status.contains("shed")))
        .collect();
    assert_eq!(
        ends,
        [
            (ms(100), false),
            (ms(200), false),
            (ms(300), false),
            (ms(300), true),
            (ms(300), true)
        ]
    );
}

/// Mean goodput over simulated seconds `from..to` of the `metastable` preset with `sets`.
fn metastable(sets: &[&str]) -> (Vec<u32>, threadlab::metrics::ResilienceCounts, u64) {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
    let s = scenario::load("metastable", &sets).expect("built-in preset");
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(s.duration);
    let snap = e.snapshot();
    (snap.goodput_timeline, snap.resilience, snap.sent)
}

fn mean(timeline: &[u32], from: usize, to: usize) -> f64 {
    timeline[from..to]
        .iter()
        .map(|&x| f64::from(x))
        .sum::<f64>()
        / (to - from) as f64
}

#[test]
fn naive_retries_keep_goodput_down_after_the_spike_and_shedding_brings_it_back() {
    // The spike ends at E = 40 s; "before" is the mean goodput of the 30 s before it.
    let (naive, r, sent) = metastable(&[]);
    let before = mean(&naive, 0, 30);
    assert!(
        (80.0..100.0).contains(&before),
        "before the spike: {before}"
    );
    assert!(mean(&naive, 40, 70) < before / 2.0, "{naive:?}");
    assert!(mean(&naive, 60, 70) < before / 2.0, "{naive:?}");
    // The retries multiply the load: attempts at several times the new requests.
    assert!((sent + r.retries) as f64 / sent as f64 > 3.0, "{r:?}");
    // Even 30 % of capacity (from 140 s) does not bring it back.
    assert!(mean(&naive, 150, 160) < 30.0 / 2.0, "{naive:?}");

    // Backoff, full jitter and a 10 % budget: the amplification stops (at most 1.1 attempts
    // per request, the budget's bound), the backlog does not drain at 90 %.
    let (budget, r, sent) = metastable(&[
        "load.retry.backoff=200ms",
        "load.retry.multiplier=2",
        "load.retry.jitter=full",
        "load.retry.budget=0.1",
    ]);
    assert!(
        (sent + r.retries) as f64 / sent as f64 <= 1.1 + 1e-9,
        "{r:?}"
    );
    assert!(mean(&budget, 60, 70) < before / 2.0, "{budget:?}");

    // Shedding what waited past 0.5 s: back to at least 90 % of before within 20 s.
    let (shed, r, _) = metastable(&["server.queue_timeout=500ms"]);
    assert!(mean(&shed, 60, 70) >= 0.9 * before, "{shed:?}");
    assert!(r.shed > 0, "{r:?}");
}

#[test]
fn a_breaker_opens_fails_fast_probes_half_open_and_closes_when_the_service_heals() {
    // One client, 300 ms of thinking; each call takes 100 ms and, while the fault lasts,
    // fails (its fallback answers). Window of 4 calls, 50 %, 1 s open, 2 calls half-open.
    // Calls end failed at 0.1, 0.5, 0.9 and 1.3 s: the 4th opens it (1.3 s). Requests at
    // 1.6, 1.9 and 2.2 s fail fast; the one at 2.5 s (strictly after 2.3 s) half-opens it
    // and fails at 2.6 s, the next (2.9 s) fails at 3.0 s: 2 of 2, open again (3.0 s). The
    // service heals at 3.05 s. Requests at 3.3, 3.6 and 3.9 s fail fast; 4.2 s half-opens
    // it, and two successes (4.3 s, 4.7 s) close it.
    use threadlab::flow::BreakerState::{Closed, HalfOpen, Open};
    use threadlab::sim::{Command, Fault};
    let toml = one_call(
        "mode = \"closed\"\nclients = 1\nthink = \"300ms\"",
        "",
    )
    .replace(
        "latency = \"100ms\"",
        "latency = \"100ms\"\nfallback = \"cached\"\n[services.breaker]\nwindow_size = 4\nminimum_calls = 4\nwait_in_open = \"1s\"\npermitted_in_half_open = 2",
    );
    let svc = threadlab::scenario::ServiceId(0);
    let mut e = Engine::new(&parse(&toml), Strategy::Sequential);
    e.apply(Command::InjectFault {
        service: svc,
        fault: Fault::Fail { probability: 1.0 },
    })
    .expect("fault");
    e.run_until(ms(3_050));
    e.apply(Command::ClearFault { service: svc }).expect("heal");
    e.run_until(ms(4_750));
    let snap = e.snapshot();
    let b = snap.services[0].breaker.clone().expect("a breaker");
    assert_eq!(
        b.transitions,
        [
            (ms(1_300), Closed, Open),
            (ms(2_500), Open, HalfOpen),
            (ms(3_000), HalfOpen, Open),
            (ms(4_200), Open, HalfOpen),
            (ms(4_700), HalfOpen, Closed),
        ]
    );
    assert_eq!((b.opened, b.not_permitted, b.state), (2, 6, Closed));
    // Every request was answered: by the service or, failing fast, by the fallback.
    assert_eq!(snap.outcomes.get(Outcome::Failed), 0);
    assert_eq!(snap.services[0].stats.calls, 8, "calls that ran");
}

/// A limit of 2 a second, a 1 s wait, 5 requests at once: two answered at 100 ms, two
/// after waiting for the next second's permits (1.1 s), the 5th refused at once.
fn assert_two_now_two_a_second_later_one_refused(e: &Engine) {
    let ends: Vec<(Nanos, Outcome)> = rows(e).iter().map(|r| (r.time, r.outcome)).collect();
    assert_eq!(
        ends,
        [
            (ms(100), Outcome::Success),
            (ms(100), Outcome::Success),
            (ms(1_100), Outcome::Success),
            (ms(1_100), Outcome::Success),
            (ms(0), Outcome::Failed),
        ]
    );
}

#[test]
fn a_rate_limiter_parks_callers_for_a_later_permit_and_refuses_beyond_its_timeout() {
    // 2 permits a second, callers wait at most 1 s; 5 requests at t = 0. Calls 1-2 take
    // this second's permits; 3-4 reserve the next second's and wait until 1 s; the 5th
    // would wait until 2 s and is refused at once (RequestNotPermitted, no fallback).
    let toml = support::tomcat_scenario(5, "").replace(
        "latency = \"100ms\"",
        "latency = \"100ms\"\n[services.rate_limit]\nlimit = 2\nperiod = \"1s\"\ntimeout = \"1s\"",
    );
    let e = support::played(&toml, Strategy::Sequential);
    let snap = e.snapshot();
    assert_eq!(snap.services[0].rate_limited, 1);
    assert_two_now_two_a_second_later_one_refused(&e);
}

#[test]
fn the_endpoint_rate_limiter_holds_handlers_for_a_later_permit_and_answers_429_beyond_it() {
    // 2 requests a second at the door, a handler waits at most 1 s for a permit; 5 requests
    // at t = 0. Requests 1-2 are served at once (100 ms); 3-4 hold their handler threads
    // until 1 s, then are served (1.1 s); the 5th would wait until 2 s: 429 at once.
    let toml = support::tomcat_scenario(
        5,
        "[server.rate_limit]\nlimit = 2\nperiod = \"1s\"\ntimeout = \"1s\"",
    );
    let e = support::played(&toml, Strategy::Sequential);
    let snap = e.snapshot();
    assert_eq!(snap.resilience.limited_at_door, 1);
    assert_eq!(
        snap.services[0].stats.calls, 4,
        "the refused request made no call"
    );
    assert_two_now_two_a_second_later_one_refused(&e);
}

#[test]
fn the_clients_breaker_stops_them_sending_until_a_probe_after_its_wait() {
    // One client, 300 ms of thinking, every attempt times out at 1 s. Window of 2 results:
    // attempts at 0 and 1.3 s time out at 1 s and 2.3 s: open at 2.3 s. Requests at 2.6,
    // 2.9 and 3.2 s fail at once, unsent; the one at 3.5 s (after 3.3 s) half-opens it and
    // is sent; its timeout at 4.5 s opens it again.
    use threadlab::flow::BreakerState::{Closed, HalfOpen, Open};
    let toml = one_call(
        "mode = \"closed\"\nclients = 1\nthink = \"300ms\"\ntimeout = \"1s\"\n[load.breaker]\nwindow_size = 2\nminimum_calls = 2\nwait_in_open = \"1s\"\npermitted_in_half_open = 1",
        "",
    )
    .replace("latency = \"100ms\"", "latency = \"1500ms\"");
    let mut e = Engine::new(&parse(&toml), Strategy::Sequential);
    e.run_until(ms(4_600));
    let snap = e.snapshot();
    let b = snap.client_breaker.clone().expect("the clients' breaker");
    assert_eq!(
        b.transitions,
        [
            (ms(2_300), Closed, Open),
            (ms(3_500), Open, HalfOpen),
            (ms(4_500), HalfOpen, Open)
        ]
    );
    assert_eq!((b.not_permitted, snap.sent), (3, 6));
    assert_eq!(snap.outcomes.get(Outcome::Failed), 3, "the unsent ones");
    assert_eq!(snap.outcomes.get(Outcome::Timeout), 3);
    assert_eq!(
        snap.services[0].stats.calls, 3,
        "only sent attempts reach the service"
    );
    let unsent: Vec<Nanos> = rows(&e)
        .iter()
        .filter(|r| r.outcome == Outcome::Failed)
        .map(|r| r.time)
        .collect();
    assert_eq!(unsent, [ms(0), ms(0), ms(0)], "they fail at once");
}

/// The run's `[services.retry]` figures for `svc`: (retries, attempts per call, exhausted).
fn call_retries(e: &Engine, s: &scenario::Scenario) -> (u64, f64, u64) {
    let report = threadlab::report::RunReport::new(s, e);
    let x = report.resilience.expect("a retry is a resilience pattern");
    let c = &x.call_retries["svc"];
    (c.retries, c.attempts_per_call, c.exhausted)
}

#[test]
fn a_retried_inline_call_sleeps_out_each_backoff_on_its_thread_and_times_out_per_attempt() {
    // Sequential: the handler makes the call; each attempt is cut by its 1 s read timeout.
    // Attempt 0 at 0 s times out at 1 s; the handler sleeps 200 ms, attempt 1 runs 1.2-2.2 s;
    // then 400 ms, attempt 2 runs 2.6-3.6 s, the last of 3: the fallback answers at 3.6 s.
    let toml = support::retried_call(
        "1500ms",
        "attempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0",
        "use = \"sequential\"",
        "",
    );
    let s = parse(&toml);
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(ms(3_599));
    assert_eq!(
        e.snapshot().outcomes.total(),
        0,
        "not before the last attempt's end"
    );
    e.run_until(ms(10_000));
    let snap = e.snapshot();
    assert_eq!(snap.outcomes.get(Outcome::Partial), 1);
    assert_eq!(rows(&e)[0].time, ms(3_600));
    let svc = &snap.services[0].stats;
    assert_eq!((svc.calls, svc.timeouts, svc.fallbacks), (3, 3, 1));
    assert_eq!(call_retries(&e, &s), (2, 3.0, 1));
}

#[test]
fn a_retried_pooled_call_waits_behind_the_attempt_it_replaced() {
    // One bulkhead thread. Attempt 0 runs 0-1.5 s; orTimeout completes it at 1 s, but the
    // thread goes on. The scheduler submits attempt 1 at 1.2 s: it waits in the queue until
    // the thread is free at 1.5 s, and its own timeout, armed at 1.2 s, completes it at
    // 2.2 s, the last of 2 attempts: the fallback answers at 2.2 s while attempt 1 runs on.
    let toml = support::retried_call(
        "1500ms",
        "attempts = 2\nbackoff = \"200ms\"",
        support::ONE_THREAD_BULKHEAD,
        "",
    );
    let s = parse(&toml);
    let mut e = Engine::new(&s, Strategy::Bulkhead);
    e.run_until(ms(1_300));
    let bulkhead = |e: &Engine| {
        let snap = e.snapshot();
        let b = snap
            .pools
            .iter()
            .find(|p| p.name == "B")
            .expect("the bulkhead");
        (b.active, b.queued)
    };
    assert_eq!(bulkhead(&e), (1, 1), "attempt 1 waits behind attempt 0");
    e.run_until(ms(2_199));
    assert_eq!(e.snapshot().outcomes.total(), 0);
    e.run_until(ms(2_200));
    assert_eq!(e.snapshot().outcomes.get(Outcome::Partial), 1);
    assert_eq!(rows(&e)[0].time, ms(2_200));
    e.run_until(ms(2_999));
    assert_eq!(e.snapshot().services[0].stats.calls, 2);
    assert_eq!(bulkhead(&e), (1, 0), "attempt 1 runs on for nobody");
    assert_eq!(call_retries(&e, &s), (1, 2.0, 1));
}

#[test]
fn a_failed_call_is_made_again_and_succeeds_once_its_service_heals() {
    // The service fails every call until 250 ms. Attempt 0 runs 0-100 ms and fails; after
    // 200 ms attempt 1 runs 300-400 ms, the service healed: a success at 400 ms, one retry.
    let toml = support::retried_call(
        "100ms",
        "attempts = 3\nbackoff = \"200ms\"",
        "use = \"sequential\"",
        "[[faults]]\nservice = \"svc\"\nat = \"0s\"\nuntil = \"250ms\"\nfail = 1.0",
    );
    let s = parse(&toml);
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(ms(10_000));
    let snap = e.snapshot();
    assert_eq!(snap.outcomes.get(Outcome::Success), 1);
    assert_eq!(rows(&e)[0].time, ms(400));
    assert_eq!(snap.services[0].stats.failures, 1);
    assert_eq!(call_retries(&e, &s), (1, 2.0, 0));
}

#[test]
fn an_adaptive_limit_refuses_calls_beyond_it_at_once_and_grows_while_half_is_in_flight() {
    // AIMD from 3 (at least 1): 5 requests at t = 0. Three calls go, the 4th and 5th fail at
    // once (no fallback). The three successes are heard with 3, 2 and 1 in flight: 3 x 2 >= 3
    // gives 4, 2 x 2 >= 4 gives 5, 1 x 2 < 5 leaves 5.
    let toml = support::tomcat_scenario(5, "").replace(
        "latency = \"100ms\"",
        "latency = \"100ms\"\n[services.adaptive_limit]\nalgorithm = \"aimd\"\ninitial = 3\nmin = 1",
    );
    let e = support::played(&toml, Strategy::Sequential);
    let ends: Vec<(Nanos, Outcome)> = rows(&e).iter().map(|r| (r.time, r.outcome)).collect();
    assert_eq!(
        ends,
        [
            (ms(100), Outcome::Success),
            (ms(100), Outcome::Success),
            (ms(100), Outcome::Success),
            (ms(0), Outcome::Failed),
            (ms(0), Outcome::Failed),
        ]
    );
    let refused = rows(&e)
        .iter()
        .filter(|r| r.status == "Failed (concurrency limit exceeded: svc)")
        .count();
    assert_eq!(refused, 2);
    let snap = e.snapshot();
    let guard = &snap.services[0].guards[0];
    assert_eq!(guard.guard, "adaptive limit");
    assert_eq!(guard.state, "limit 5 (aimd), lowest 3");
    assert_eq!(guard.refused, 2);
    assert_eq!(
        snap.services[0].stats.rejected, 0,
        "a guard's refusal, not a rejection"
    );
}
