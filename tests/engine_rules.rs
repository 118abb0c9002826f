//! The JVM's rules, played end to end by the engine on small inline scenarios.
//!
//! Every expected latency, count and thread name below is worked out by hand from the rules
//! (Tomcat's TaskQueue, ThreadPoolExecutor.execute, the common pool, the
//! rejection policies, orTimeout). Latencies are fixed so the arithmetic is exact.

use threadlab::metrics::Outcome;
use threadlab::scenario::{LoadMode, ServiceId, Strategy};
use threadlab::sim::pool::{FORK_JOIN_START, FORK_JOIN_WAKE, PoolKind};
use threadlab::sim::{Command, CommandError, Engine, Fault, LogLine, PoolSnapshot, RunLine};
use threadlab::time::Nanos;
use threadlab::topology::{PoolId, PoolRole};

mod support;
use support::{engine, ms, one_call, played, rows, tomcat_scenario};

fn row(e: &Engine, run: u64) -> RunLine {
    rows(e)
        .into_iter()
        .find(|r| r.run == run)
        .unwrap_or_else(|| panic!("request {run} has no outcome yet"))
}

fn ids(e: &Engine) -> Vec<u64> {
    rows(e).iter().map(|r| r.run).collect()
}

fn times(e: &Engine) -> Vec<Nanos> {
    rows(e).iter().map(|r| r.time).collect()
}

fn threads(e: &Engine) -> Vec<String> {
    rows(e).into_iter().map(|r| r.thread).collect()
}

/// The pool of bulkhead `n` (preset order).
fn bulkhead(e: &Engine, n: usize) -> PoolId {
    e.topology()
        .id_of(PoolRole::Bulkhead(n))
        .expect("the preset has this bulkhead")
}

/// The web server's pool.
fn server(e: &Engine) -> PoolId {
    e.topology().server()
}

/// The common pool.
fn shared(e: &Engine) -> PoolId {
    e.topology()
        .id_of(PoolRole::Shared)
        .expect("every run has the common pool")
}

fn pool(e: &Engine, id: PoolId) -> PoolSnapshot {
    e.snapshot().pools[id.index()].clone()
}

fn count(e: &Engine, outcome: Outcome) -> u64 {
    e.snapshot().outcomes.get(outcome)
}

fn names(prefix: &str, numbers: impl IntoIterator<Item = u32>) -> Vec<String> {
    numbers
        .into_iter()
        .map(|n| format!("{prefix}{n}"))
        .collect()
}

// ---- rejection policies -----------------------------------------------------------------

/// Three requests at t = 0, one 100 ms call each, into a bulkhead with one thread and one
/// queue slot: request 1 runs, request 2 queues, request 3 is rejected. Tomcat's ten
/// prestarted handler threads take the requests in order (`http-nio-8080-exec-1..3`).
fn rejection_scenario(policy: &str, service_extra: &str, queue: u32, count: u32) -> String {
    format!(
        r#"
[scenario]
name = "rejection"
[load]
mode = "batch"
count = {count}
[[services]]
name = "svc"
latency = "100ms"
{service_extra}
[endpoint]
calls = ["svc"]
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "B"
services = ["svc"]
core = 1
max = 1
queue = {queue}
rejection = "{policy}"
"#
    )
}

#[test]
fn abort_fails_the_rejected_request_at_once_with_task_rejected_exception() {
    let e = played(&rejection_scenario("abort", "", 1, 3), Strategy::Bulkhead);
    let r3 = row(&e, 3);
    assert_eq!(r3.outcome, Outcome::Failed);
    assert!(
        r3.status.contains("TaskRejectedException"),
        "status {}",
        r3.status
    );
    assert_eq!(
        r3.time,
        Nanos::ZERO,
        "thrown synchronously out of supplyAsync"
    );
    assert_eq!(r3.at, Nanos::ZERO);
    assert_eq!(
        r3.thread, "http-nio-8080-exec-3",
        "thrown on the handler thread"
    );
    // The other two run one after another on the single pool thread.
    assert_eq!(times(&e), [ms(100), ms(200), ms(0)]);
    assert_eq!(&threads(&e)[..2], ["B-1", "B-1"]);
    assert_eq!(count(&e, Outcome::Success), 2);
    let s = e.snapshot();
    assert_eq!(s.services[0].stats.rejected, 1);
    assert_eq!(s.services[0].stats.calls, 2);
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.rejected, 1);
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.completed, 2);
}

#[test]
fn a_rejection_caught_around_supply_async_falls_back_at_once() {
    // try { supplyAsync(call, pool) } catch (RejectedExecutionException e) { fallback }:
    // request 3's call never runs; its future completes at once with the fallback on the
    // handler thread, and the request answers Partial at 0 ms instead of failing.
    let toml = rejection_scenario("fallback", "fallback = \"cached\"", 1, 3);
    let e = played(&toml, Strategy::Bulkhead);
    let r3 = row(&e, 3);
    assert_eq!(r3.outcome, Outcome::Partial);
    assert_eq!((r3.time, r3.at), (Nanos::ZERO, Nanos::ZERO));
    assert_eq!(r3.thread, "http-nio-8080-exec-3");
    assert_eq!(times(&e), [ms(100), ms(200), ms(0)]);
    assert_eq!(
        (count(&e, Outcome::Success), count(&e, Outcome::Failed)),
        (2, 0)
    );
    let s = e.snapshot();
    let svc = &s.services[0].stats;
    assert_eq!((svc.calls, svc.rejected, svc.fallbacks), (2, 1, 1));
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.rejected, 1);
}

#[test]
fn caller_runs_runs_the_rejected_call_on_the_tomcat_handler_thread() {
    let mut e = engine(
        &rejection_scenario("caller-runs", "", 1, 3),
        Strategy::Bulkhead,
    );
    e.advance_to(ms(50));
    // Three handlers are busy: two blocked in join(), one running the call itself.
    assert_eq!(pool(&e, server(&e)).active, 3);
    assert_eq!(pool(&e, bulkhead(&e, 0)).active, 1);
    assert_eq!(pool(&e, bulkhead(&e, 0)).queued, 1);
    e.run_until(Nanos::from_secs(60));
    let r3 = row(&e, 3);
    assert_eq!(r3.outcome, Outcome::Success);
    assert_eq!(r3.thread, "http-nio-8080-exec-3");
    assert_eq!(r3.time, ms(100), "the full latency, on the caller");
    assert_eq!(times(&e), [ms(100), ms(200), ms(100)]);
    assert_eq!(count(&e, Outcome::Success), 3);
    let s = e.snapshot();
    assert_eq!(s.services[0].stats.calls, 3);
    assert_eq!(s.services[0].stats.rejected, 1);
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.completed, 2);
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.largest_pool_size, 1);
}

#[test]
fn discard_leaves_the_dropped_request_waiting_forever_without_a_timeout() {
    let e = played(&rejection_scenario("discard", "", 1, 3), Strategy::Bulkhead);
    let s = e.snapshot();
    assert_eq!(
        s.now,
        Nanos::from_secs(60),
        "a batch with a lost request never finishes"
    );
    assert!(!s.finished);
    assert_eq!(ids(&e), [1, 2]);
    assert_eq!(times(&e), [ms(100), ms(200)]);
    assert_eq!(s.sent, 3);
    assert_eq!(s.in_flight, 1);
    assert_eq!(
        s.pools[server(&e).index()].active,
        1,
        "its handler is still blocked in join()"
    );
    assert_eq!(s.pools[bulkhead(&e, 0).index()].active, 0);
    assert_eq!(s.services[0].stats.discarded, 1);
    assert_eq!(s.services[0].stats.calls, 2);
}

#[test]
fn discard_with_a_timeout_fails_the_dropped_request_exactly_at_the_timeout() {
    let e = played(
        &rejection_scenario("discard", r#"timeout = "300ms""#, 1, 3),
        Strategy::Bulkhead,
    );
    let r3 = row(&e, 3);
    assert_eq!(r3.outcome, Outcome::Failed);
    assert_eq!(r3.status, "Failed (svc timed out)");
    assert_eq!(r3.time, ms(300));
    assert_eq!(times(&e), [ms(100), ms(200), ms(300)]);
    let s = e.snapshot();
    assert!(s.finished);
    assert_eq!(s.pools[server(&e).index()].active, 0);
    assert_eq!(s.services[0].stats.timeouts, 1);
}

#[test]
fn discard_with_a_timeout_and_fallback_is_partial_exactly_at_the_timeout() {
    let e = played(
        &rejection_scenario(
            "discard",
            "timeout = \"300ms\"\nfallback = \"Cached\"",
            1,
            3,
        ),
        Strategy::Bulkhead,
    );
    let r3 = row(&e, 3);
    assert_eq!(r3.outcome, Outcome::Partial);
    assert_eq!(r3.status, "Partial (Cached)");
    assert_eq!(r3.time, ms(300));
    assert_eq!(count(&e, Outcome::Success), 2);
    assert_eq!(e.snapshot().services[0].stats.fallbacks, 1);
}

/// Queue of 2 and four requests: 1 runs, 2 and 3 queue, 4 is rejected; discard-oldest polls
/// the head (request 2) and queues 4 behind 3.
#[test]
fn discard_oldest_drops_the_oldest_queued_request_and_queues_the_new_one() {
    let e = played(
        &rejection_scenario("discard-oldest", "", 2, 4),
        Strategy::Bulkhead,
    );
    assert_eq!(
        ids(&e),
        [1, 3, 4],
        "request 2 (head of the queue) is the lost one"
    );
    assert_eq!(times(&e), [ms(100), ms(200), ms(300)]);
    assert_eq!(threads(&e), ["B-1", "B-1", "B-1"]);
    let s = e.snapshot();
    assert_eq!(s.in_flight, 1);
    assert_eq!(s.pools[server(&e).index()].active, 1);
    assert_eq!(s.services[0].stats.discarded, 1);
    assert_eq!(s.services[0].stats.calls, 3);
}

#[test]
fn discard_oldest_with_a_timeout_ends_the_dropped_request_at_its_timeout() {
    let e = played(
        &rejection_scenario(
            "discard-oldest",
            "timeout = \"500ms\"\nfallback = \"Cached\"",
            2,
            4,
        ),
        Strategy::Bulkhead,
    );
    let r2 = row(&e, 2);
    assert_eq!(r2.outcome, Outcome::Partial);
    assert_eq!(r2.time, ms(500));
    assert_eq!(count(&e, Outcome::Success), 3);
    assert!(e.snapshot().finished);
}

/// Three calls into one pool with a single thread and a SynchronousQueue: `a` (100 ms) runs on
/// B-1, `b` (150 ms) is rejected and runs on the handler, which submits `c` (100 ms) only when
/// `b` is done, at 150 ms; B-1 is idle by then and runs it: 250 ms in all.
#[test]
fn caller_runs_blocks_the_submission_of_the_calls_after_it() {
    let toml = r#"
[scenario]
name = "caller-runs"
[load]
mode = "runs"
count = 1
[[services]]
name = "a"
latency = "100ms"
[[services]]
name = "b"
latency = "150ms"
[[services]]
name = "c"
latency = "100ms"
[endpoint]
calls = ["a", "b", "c"]
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "B"
services = ["a", "b", "c"]
core = 1
max = 1
queue = 0
rejection = "caller-runs"
"#;
    let mut e = engine(toml, Strategy::Bulkhead);
    e.advance_to(ms(120));
    assert_eq!(
        pool(&e, bulkhead(&e, 0)).active,
        0,
        "a is done, c not yet sent"
    );
    e.run_until(Nanos::from_secs(60));
    let r = row(&e, 1);
    assert_eq!((r.outcome, r.time), (Outcome::Success, ms(250)));
    assert_eq!(r.thread, "B-1");
    let s = e.snapshot();
    let rejected: Vec<u64> = s.services.iter().map(|x| x.stats.rejected).collect();
    assert_eq!(rejected, [0, 1, 0]);
    assert_eq!(s.pools[bulkhead(&e, 0).index()].stats.completed, 2);
}

// ---- timeouts do not free threads -------------------------------------------------------

const SLOW_WITH_TIMEOUT: &str = r#"
[scenario]
name = "timeouts"
[load]
mode = "runs"
count = 2
[[services]]
name = "slow"
latency = "1000ms"
timeout = "100ms"
fallback = "Cached"
[endpoint]
calls = ["slow"]
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "B"
services = ["slow"]
core = 1
max = 1
queue = 10
"#;

#[test]
fn a_timed_out_call_keeps_its_pool_thread_busy_until_its_latency_ends() {
    let mut e = engine(SLOW_WITH_TIMEOUT, Strategy::Bulkhead);
    e.advance_to(ms(150));
    // Request 1 got its fallback at 100 ms; request 2 arrived then and its call queues
    // behind the still-busy worker.
    let r1 = row(&e, 1);
    assert_eq!(r1.outcome, Outcome::Partial);
    assert_eq!(r1.status, "Partial (Cached)");
    assert_eq!(r1.time, ms(100));
    assert_eq!(r1.thread, "CompletableFutureDelayScheduler");
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.active, b.queued), (1, 1));

    e.advance_to(ms(500));
    // Request 2 timed out in the queue at 200 ms.
    let r2 = row(&e, 2);
    assert_eq!((r2.outcome, r2.time), (Outcome::Partial, ms(100)));
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!(
        (b.active, b.queued),
        (1, 1),
        "the worker is still in the call"
    );
    assert_eq!(pool(&e, server(&e)).active, 0, "the handlers were freed");

    e.advance_to(ms(999));
    assert_eq!(pool(&e, bulkhead(&e, 0)).active, 1);
    e.advance_to(ms(1000));
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.active, b.queued), (0, 0));
    // The stale queued call was skipped (its future was already complete), not run.
    assert_eq!(b.stats.skipped, 1);
    assert_eq!(b.stats.completed, 2);
    let stats = e.snapshot().services[0].stats;
    assert_eq!(stats.calls, 1);
    assert_eq!(stats.timeouts, 2);
    assert_eq!(stats.fallbacks, 2);
}

#[test]
fn sequential_timeout_acts_as_a_read_timeout_and_frees_the_handler() {
    let mut e = engine(SLOW_WITH_TIMEOUT, Strategy::Sequential);
    e.advance_to(ms(50));
    assert_eq!(pool(&e, server(&e)).active, 1);
    e.advance_to(ms(100));
    let r1 = row(&e, 1);
    assert_eq!((r1.outcome, r1.time), (Outcome::Partial, ms(100)));
    assert_eq!(r1.thread, "http-nio-8080-exec-1");
    e.run_until(Nanos::from_secs(60));
    // Request 2 started at 100 ms on the handler idle longest (exec-1 went to the back).
    let r2 = row(&e, 2);
    assert_eq!((r2.outcome, r2.time), (Outcome::Partial, ms(100)));
    assert_eq!(r2.thread, "http-nio-8080-exec-2");
    let s = e.snapshot();
    assert_eq!(
        s.now,
        ms(200),
        "nothing keeps running after the read timeouts"
    );
    assert_eq!(s.pools[server(&e).index()].active, 0);
    assert_eq!(s.services[0].stats.timeouts, 2);
}

// ---- Tomcat -----------------------------------------------------------------------------

#[test]
fn tomcat_at_max_threads_queues_the_rest() {
    let mut e = engine(&tomcat_scenario(15, "threads = 10"), Strategy::Sequential);
    e.advance_to(Nanos::ZERO);
    let p = pool(&e, server(&e));
    assert_eq!((p.pool_size, p.active, p.queued), (10, 10, 5));
    e.run_until(Nanos::from_secs(60));
    let mut expected = vec![ms(100); 10];
    expected.extend([ms(200); 5]);
    assert_eq!(times(&e), expected);
    // The first five handlers to finish take the queued requests.
    assert_eq!(
        &threads(&e)[10..],
        names("http-nio-8080-exec-", 1..=5).as_slice()
    );
}

#[test]
fn tomcat_grows_to_max_threads_before_queueing() {
    let mut e = engine(&tomcat_scenario(15, "threads = 20"), Strategy::Sequential);
    assert_eq!(pool(&e, server(&e)).pool_size, 10, "min_spare prestarted");
    e.advance_to(Nanos::ZERO);
    let p = pool(&e, server(&e));
    assert_eq!((p.pool_size, p.active, p.queued), (15, 15, 0));
    e.run_until(Nanos::from_secs(60));
    assert_eq!(times(&e), vec![ms(100); 15]);
    assert_eq!(threads(&e), names("http-nio-8080-exec-", 1..=15));
    let p = pool(&e, server(&e));
    assert_eq!(p.stats.largest_pool_size, 15);
    assert_eq!(p.stats.max_queue, 0);
}

#[test]
fn tomcat_bounded_queue_refuses_what_does_not_fit() {
    let e = played(
        &tomcat_scenario(15, "threads = 10\nmax_queue = 2"),
        Strategy::Sequential,
    );
    let rows = rows(&e);
    let refused: Vec<u64> = rows
        .iter()
        .filter(|r| r.outcome == Outcome::Refused)
        .map(|r| r.run)
        .collect();
    assert_eq!(refused, [13, 14, 15]);
    assert!(rows[12..].iter().all(|r| r.time == Nanos::ZERO));
    let mut expected = vec![ms(100); 10];
    expected.extend([ms(200); 2]);
    assert_eq!(
        rows[..12].iter().map(|r| r.time).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(count(&e, Outcome::Success), 12);
    assert_eq!(pool(&e, server(&e)).stats.rejected, 3);
}

#[test]
fn an_accept_count_of_zero_or_less_leaves_tomcat_s_backlog_of_100() {
    // Tomcat's setAcceptCount takes only a positive value, so acceptCount = 0 (or -1) leaves
    // the default 100: the eight connections beyond max_connections wait in the accept queue
    // and none of their SYNs is dropped. Taken literally, a backlog of 0 would keep one and
    // drop seven, whose requests would run a second late.
    for accept_count in [0, -1] {
        let server = format!("threads = 10\nmax_connections = 12\naccept_count = {accept_count}");
        let mut e = engine(&tomcat_scenario(20, &server), Strategy::Sequential);
        assert_eq!(e.scenario().server.accept_count, 100);
        e.advance_to(Nanos::ZERO);
        let s = e.snapshot();
        assert_eq!((s.connections, s.backlog), (12, 8));
        let net = s.net.expect("a simulated run has a connection layer");
        assert_eq!(net.stats.syn_drops, 0);
        e.run_until(Nanos::from_secs(60));
        // Ten run 0..100 ms; two from the executor queue and the eight from the accept queue
        // (taken as the first ten close their connections at 100 ms) run 100..200 ms.
        let mut expected = vec![ms(100); 10];
        expected.extend([ms(200); 10]);
        assert_eq!(times(&e), expected, "accept_count = {accept_count}");
    }
}

#[test]
fn connections_beyond_max_connections_wait_in_the_accept_queue_then_retransmit_their_syn() {
    let mut e = engine(
        &tomcat_scenario(20, "threads = 10\nmax_connections = 12\naccept_count = 2"),
        Strategy::Sequential,
    );
    e.advance_to(Nanos::ZERO);
    let s = e.snapshot();
    // Linux keeps accept_count + 1 connections in the accept queue and drops the SYNs of
    // the other five: nothing is refused.
    assert_eq!((s.connections, s.backlog), (12, 3));
    assert_eq!(s.outcomes.get(Outcome::Refused), 0);
    let net = s.net.expect("a simulated run has a connection layer");
    assert_eq!(net.stats.syn_drops, 5);
    let p = &s.pools[server(&e).index()];
    assert_eq!((p.active, p.queued), (10, 2));

    e.run_until(Nanos::from_secs(60));
    // Requests 11 and 12 waited in the executor queue, 13 to 15 in the accept queue until
    // connections closed at 100 ms: all five run 100..200 ms. The dropped five retransmit
    // their SYN 1 s after the first and run 1.0..1.1 s.
    let mut expected = vec![ms(100); 10];
    expected.extend([ms(200); 5]);
    expected.extend([ms(1100); 5]);
    assert_eq!(times(&e), expected);
    assert_eq!(count(&e, Outcome::Success), 20);
    assert_eq!(count(&e, Outcome::Refused), 0);
    // The last handler threads close their connections after their responses.
    e.advance_to(Nanos::from_secs(2));
    assert_eq!(e.snapshot().connections, 0);
}

#[test]
fn tomcat_threads_above_min_spare_die_after_60s_idle() {
    let mut e = engine(&tomcat_scenario(15, "threads = 20"), Strategy::Sequential);
    e.run_until(Nanos::from_secs(1));
    assert_eq!(pool(&e, server(&e)).pool_size, 15);
    // All 15 went idle at 100 ms; the 5 above min_spare time out 60 s later.
    e.advance_to(Nanos::from_secs(60) + ms(99));
    assert_eq!(pool(&e, server(&e)).pool_size, 15);
    e.advance_to(Nanos::from_secs(60) + ms(100));
    let p = pool(&e, server(&e));
    assert_eq!((p.pool_size, p.idle), (10, 10));
    e.advance_to(Nanos::from_secs(600));
    assert_eq!(
        pool(&e, server(&e)).pool_size,
        10,
        "min_spare threads never die"
    );
    assert_eq!(pool(&e, server(&e)).stats.largest_pool_size, 15);
}

#[test]
fn a_client_timeout_ends_the_request_but_the_server_finishes_the_work() {
    let toml = tomcat_scenario(1, "")
        .replace(
            "mode = \"batch\"\ncount = 1",
            "mode = \"runs\"\ncount = 2\ntimeout = \"150ms\"",
        )
        .replace("latency = \"100ms\"", "latency = \"300ms\"");
    let mut e = engine(&toml, Strategy::Sequential);
    e.advance_to(ms(200));
    let r1 = row(&e, 1);
    assert_eq!((r1.outcome, r1.time), (Outcome::Timeout, ms(150)));
    // Request 2 was sent at 150 ms, while request 1 still holds its handler.
    assert_eq!(pool(&e, server(&e)).active, 2);
    e.advance_to(ms(300));
    assert_eq!(
        pool(&e, server(&e)).active,
        1,
        "request 1's handler finished at 300 ms"
    );
    assert_eq!(e.snapshot().late_responses, 1);
    // run_until would stop at 300 ms, when the load has its two outcomes.
    e.advance_to(Nanos::from_secs(1));
    let r2 = row(&e, 2);
    assert_eq!((r2.outcome, r2.time), (Outcome::Timeout, ms(150)));
    assert_eq!(r2.thread, "http-nio-8080-exec-2");
    let s = e.snapshot();
    assert_eq!(s.late_responses, 2);
    assert_eq!(s.services[0].stats.calls, 2);
}

// ---- the common pool --------------------------------------------------------------------

fn shared_scenario(scenario: &str, load: &str, strategy_extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "shared"
{scenario}
[load]
{load}
[[services]]
name = "a"
latency = "100ms"
[[services]]
name = "b"
latency = "200ms"
[[services]]
name = "c"
latency = "300ms"
[endpoint]
calls = ["a"]
[strategy]
use = "shared"
{strategy_extra}
"#
    )
}

const FJ: &str = "ForkJoinPool.commonPool-worker-";

#[test]
fn common_pool_parallelism_is_cores_minus_one() {
    let e = played(
        &shared_scenario("cores = 11", "mode = \"batch\"\ncount = 30", ""),
        Strategy::Shared,
    );
    let p = pool(&e, shared(&e));
    assert_eq!(p.kind, PoolKind::ForkJoin);
    assert_eq!(p.core, 10);
    assert_eq!(p.stats.largest_pool_size, 10);
    // Three waves of 10: which request runs in which wave is the submission queues' and the
    // workers' scans' business (not FIFO), but every worker runs one call per wave.
    let mut waves = times(&e);
    waves.sort_unstable();
    // The workers start FORK_JOIN_START after the first pushes, then each takes the next
    // task as it finishes one.
    let expected_times: Vec<Nanos> = (0..30u64)
        .map(|k| ms(100 * (k / 10 + 1)) + FORK_JOIN_START)
        .collect();
    assert_eq!(waves, expected_times);
    let mut workers = threads(&e);
    workers.sort_unstable();
    let mut expected_threads: Vec<String> =
        (0..30u32).map(|k| format!("{FJ}{}", k % 10 + 1)).collect();
    expected_threads.sort_unstable();
    assert_eq!(workers, expected_threads);
}

#[test]
fn common_pool_below_parallelism_2_is_thread_per_task_up_to_jdk_21() {
    for jdk in [17, 21] {
        let toml = shared_scenario(
            &format!("cores = 2\njdk = {jdk}"),
            "mode = \"batch\"\ncount = 5",
            "",
        );
        let e = played(&toml, Strategy::Shared);
        let p = pool(&e, shared(&e));
        assert_eq!(p.kind, PoolKind::PerTask, "jdk {jdk}");
        assert_eq!(
            p.stats.largest_pool_size, 5,
            "every call at once (jdk {jdk})"
        );
        assert_eq!(p.pool_size, 0, "each thread ends with its task (jdk {jdk})");
        assert_eq!(times(&e), vec![ms(100); 5], "jdk {jdk}");
        assert_eq!(threads(&e), names("Thread-", 0..5), "jdk {jdk}");
    }
}

#[test]
fn common_pool_on_2_cores_with_jdk_25_runs_a_fan_out_on_one_worker() {
    let runs = "mode = \"runs\"\ncount = 1";
    let fan_out = |jdk: u32| {
        shared_scenario(&format!("cores = 2\njdk = {jdk}"), runs, "")
            .replace(r#"calls = ["a"]"#, r#"calls = ["a", "b", "c"]"#)
    };
    let e = played(&fan_out(25), Strategy::Shared);
    let r = row(&e, 1);
    assert_eq!(
        r.time,
        ms(600) + FORK_JOIN_START,
        "the worker starts, then 100 + 200 + 300 ms, one after another"
    );
    assert_eq!(r.thread, format!("{FJ}1"));
    let p = pool(&e, shared(&e));
    assert_eq!(p.kind, PoolKind::ForkJoin);
    assert_eq!(p.stats.largest_pool_size, 1);
    assert_eq!(p.stats.max_queue, 2);

    // The same request on JDK 21: a thread per call, the slowest decides.
    let e = played(&fan_out(21), Strategy::Shared);
    let r = row(&e, 1);
    assert_eq!(r.time, ms(300));
    assert_eq!(r.thread, "Thread-2");
}

#[test]
fn shared_threads_setting_overrides_the_common_pool_parallelism() {
    let batch = "mode = \"batch\"\ncount = 8";
    let threads4 = "[strategy.shared]\nthreads = 4";
    for cores in [11, 2] {
        let toml = shared_scenario(&format!("cores = {cores}\njdk = 21"), batch, threads4);
        let e = played(&toml, Strategy::Shared);
        let p = pool(&e, shared(&e));
        assert_eq!(p.kind, PoolKind::ForkJoin, "cores {cores}");
        assert_eq!(p.stats.largest_pool_size, 4, "cores {cores}");
        // Each worker starts FORK_JOIN_START after the push that created it.
        let mut expected = vec![ms(100) + FORK_JOIN_START; 4];
        expected.extend([ms(200) + FORK_JOIN_START; 4]);
        assert_eq!(times(&e), expected, "cores {cores}");
    }
    // parallelism = 1 set explicitly on a big machine: still no common pool before JDK 22.
    let toml = shared_scenario(
        "cores = 11\njdk = 21",
        batch,
        "[strategy.shared]\nthreads = 1",
    );
    let e = played(&toml, Strategy::Shared);
    assert_eq!(pool(&e, shared(&e)).kind, PoolKind::PerTask);
    assert_eq!(times(&e), vec![ms(100); 8]);
}

// ---- outcomes add up --------------------------------------------------------------------

/// Failures with and without fallback, call timeouts, hangs, every rejection policy, a
/// client timeout and a tiny bounded server queue.
fn mixed_scenario(seed: u64, async_: bool) -> String {
    format!(
        r#"
[scenario]
name = "mixed"
seed = {seed}
cores = 4
[load]
mode = "open"
rate = 2.5
timeout = "1s"
[server]
threads = 2
min_spare = 1
max_queue = 1
async = {async_}
[[services]]
name = "a"
latency = {{ dist = "exponential", mean = "150ms" }}
failure = 0.1
fallback = "A:cached"
[[services]]
name = "b"
latency = {{ dist = "uniform", min = "50ms", max = "400ms" }}
failure = 0.05
timeout = "300ms"
hang = {{ probability = 0.05, duration = "3s" }}
[[services]]
name = "c"
latency = {{ dist = "lognormal", p50 = "100ms", p99 = "900ms" }}
timeout = "250ms"
fallback = "C:cached"
hang = {{ probability = 0.05, duration = "2s" }}
[[services]]
name = "d"
latency = {{ dist = "empirical", values = ["20ms", "60ms", "700ms"] }}
[endpoint]
calls = ["a", "b", "c", "d"]
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "A"
services = ["a"]
core = 1
max = 2
queue = 1
rejection = "abort"
[[strategy.bulkhead]]
name = "B"
services = ["b"]
core = 1
max = 1
queue = 1
rejection = "caller-runs"
[[strategy.bulkhead]]
name = "C"
services = ["c"]
core = 1
max = 1
queue = 0
rejection = "discard"
[[strategy.bulkhead]]
name = "D"
services = ["d"]
core = 1
max = 1
queue = 1
rejection = "discard-oldest"
"#
    )
}

#[test]
fn every_request_ends_in_exactly_one_outcome_under_every_strategy() {
    let seen = outcomes_add_up(mixed_scenario);
    // The scenario really exercises every outcome.
    assert!(seen.iter().all(|&n| n > 0), "outcomes seen: {seen:?}");
}

#[test]
fn every_request_ends_in_exactly_one_outcome_when_calls_are_retried() {
    // The same mix with a retry around the calls of a, b and c: attempts that fail, time out,
    // are rejected by every policy, or run on the retry scheduler, while the attempts they
    // replace run on.
    let retried = |seed, async_| {
        let retry = "[services.retry]\nattempts = 3\nbackoff = \"20ms\"\nmultiplier = 2.0\n";
        let mut toml = mixed_scenario(seed, async_);
        for next in ["b", "c", "d"] {
            let at = format!("[[services]]\nname = \"{next}\"");
            toml = toml.replace(&at, &format!("{retry}{at}"));
        }
        toml
    };
    let seen = outcomes_add_up(retried);
    assert!(seen.iter().all(|&n| n > 0), "outcomes seen: {seen:?}");
    // And the calls were retried: every retried service made attempts again.
    let mut e = engine(&retried(1, false), Strategy::Bulkhead);
    e.run_until(Nanos::from_secs(60));
    let retries: Vec<u64> = e.snapshot().services[..3]
        .iter()
        .map(|s| s.stats.retries)
        .collect();
    assert!(
        retries.iter().all(|&n| n > 0),
        "retries by service: {retries:?}"
    );
}

/// Plays `scenario(seed, async)` under every strategy, async or not, seeds 1 to 3, then stops
/// the load and waits out the client timeout: every request sent has exactly one outcome,
/// counted once and logged once. Returns how many of each outcome were seen.
fn outcomes_add_up(scenario: impl Fn(u64, bool) -> String) -> [u64; 5] {
    let mut seen = [0u64; 5];
    for strategy in Strategy::ALL {
        for async_ in [false, true] {
            for seed in [1, 2, 3] {
                let label = format!("{strategy} async={async_} seed={seed}");
                let mut e = engine(&scenario(seed, async_), strategy);
                e.run_until(Nanos::from_secs(60));
                let s = e.snapshot();
                let o = s.outcomes;
                let ended: u64 = Outcome::ALL.iter().map(|&k| o.get(k)).sum();
                assert_eq!(s.sent, ended + s.in_flight, "{label}");
                let sent = s.sent;
                assert!(sent < 190, "{label}: too many requests for the log to hold");
                e.apply(Command::SetRate(1e-9)).expect("open load");
                e.advance_to(Nanos::from_secs(61) + ms(1));
                let s = e.snapshot();
                assert_eq!(s.sent, sent, "{label}: the load stopped");
                assert_eq!(s.in_flight, 0, "{label}");
                let rows = rows(&e);
                let ids: Vec<u64> = rows.iter().map(|r| r.run).collect();
                assert_eq!(ids, (1..=sent).collect::<Vec<_>>(), "{label}");
                for k in Outcome::ALL {
                    let logged = rows.iter().filter(|r| r.outcome == k).count() as u64;
                    assert_eq!(logged, s.outcomes.get(k), "{label}: {k:?}");
                    seen[k.index()] += logged;
                }
                for r in &rows {
                    assert!(r.time <= Nanos::from_secs(1), "{label}: {r:?}");
                    match r.outcome {
                        Outcome::Timeout => assert_eq!(r.time, Nanos::from_secs(1), "{r:?}"),
                        Outcome::Refused => assert_eq!(r.time, Nanos::ZERO, "{r:?}"),
                        _ => {}
                    }
                }
            }
        }
    }
    seen
}

// ---- async servlets ---------------------------------------------------------------------

fn two_calls(server: &str) -> String {
    format!(
        r#"
[scenario]
name = "async"
[load]
mode = "runs"
count = 1
[server]
{server}
[[services]]
name = "a"
latency = "100ms"
[[services]]
name = "b"
latency = "200ms"
[endpoint]
calls = ["a", "b"]
"#
    )
}

#[test]
fn async_server_releases_the_handler_thread_while_calls_run() {
    let mut e = engine(&two_calls("async = true"), Strategy::Bulkhead);
    e.advance_to(ms(50));
    assert_eq!(
        pool(&e, server(&e)).active,
        0,
        "the handler returned its future"
    );
    assert_eq!(pool(&e, bulkhead(&e, 0)).active, 1);
    assert_eq!(pool(&e, bulkhead(&e, 1)).active, 1);
    e.run_until(Nanos::from_secs(60));
    let r = row(&e, 1);
    assert_eq!(r.time, ms(200));
    // The response is written by the continuation, on the thread of the last call.
    assert_eq!(r.thread, "bulkhead-b-1");
}

#[test]
fn blocking_server_holds_the_handler_thread_while_calls_run() {
    let mut e = engine(&two_calls("async = false"), Strategy::Bulkhead);
    e.advance_to(ms(50));
    assert_eq!(pool(&e, server(&e)).active, 1, "blocked in join()");
    e.advance_to(ms(150));
    assert_eq!(pool(&e, server(&e)).active, 1);
    e.advance_to(ms(200));
    assert_eq!(pool(&e, server(&e)).active, 0);
}

#[test]
fn async_server_under_sequential_still_holds_the_handler() {
    let mut e = engine(&two_calls("async = true"), Strategy::Sequential);
    e.advance_to(ms(50));
    assert_eq!(pool(&e, server(&e)).active, 1);
    e.advance_to(ms(250));
    assert_eq!(pool(&e, server(&e)).active, 1, "now in the second call");
    e.run_until(Nanos::from_secs(60));
    assert_eq!(row(&e, 1).time, ms(300));
    assert_eq!(pool(&e, server(&e)).active, 0);
}

// ---- dependent stages -------------------------------------------------------------------

fn staged(async_: bool) -> String {
    format!(
        r#"
[scenario]
name = "stages"
cores = 11
[load]
mode = "runs"
count = 1
[server]
async = {async_}
[[services]]
name = "a"
latency = "100ms"
[[services]]
name = "b"
latency = "200ms"
[[services]]
name = "c"
latency = "300ms"
[endpoint]
stages = [["a"], ["b", "c"]]
"#
    )
}

#[test]
fn dependent_stages_add_up_stage_by_stage() {
    for async_ in [false, true] {
        for strategy in [Strategy::Shared, Strategy::Bulkhead, Strategy::Unbounded] {
            let e = played(&staged(async_), strategy);
            // The common pool's workers scan after they start or wake: a's worker starts
            // (START). Blocking: for the second stage the parked worker wakes for b (WAKE)
            // and, seeing c behind b, propagates to a new worker for c (START). Async: a's
            // worker submits b and c itself, signalling a new worker, then takes b when its
            // task ends; c waits for the new worker (START).
            let fork_join = match (strategy, async_) {
                (Strategy::Shared, false) => FORK_JOIN_START + FORK_JOIN_WAKE + FORK_JOIN_START,
                (Strategy::Shared, true) => FORK_JOIN_START + FORK_JOIN_START,
                _ => Nanos::ZERO,
            };
            assert_eq!(
                row(&e, 1).time,
                ms(400) + fork_join,
                "{strategy} async={async_}: a + max(b, c)"
            );
        }
        let e = played(&staged(async_), Strategy::Sequential);
        assert_eq!(row(&e, 1).time, ms(600), "sequential: a + b + c");
    }
}

// ---- live commands ----------------------------------------------------------------------

#[test]
fn growing_a_bulkhead_with_queued_calls_starts_threads_at_once() {
    let mut e = engine(&rejection_scenario("abort", "", 10, 4), Strategy::Bulkhead);
    e.advance_to(ms(50));
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.pool_size, b.active, b.queued), (1, 1, 3));
    e.apply(Command::SetPoolSize {
        pool: bulkhead(&e, 0),
        size: 3,
    })
    .expect("a bulkhead can be resized");
    // setCorePoolSize(3): min(delta 2, queued 3) = 2 new threads take requests 2 and 3.
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.core, b.max), (3, 3));
    assert_eq!((b.pool_size, b.active, b.queued), (3, 3, 1));
    e.run_until(Nanos::from_secs(60));
    assert_eq!(times(&e), [ms(100), ms(150), ms(150), ms(200)]);
    assert_eq!(threads(&e), ["B-1", "B-2", "B-3", "B-1"]);
}

/// core 1, max 4, queue 1, four requests: request 1 on B-1, request 2 queued, requests 3 and
/// 4 on B-2 and B-3 (the queue was full). Raising core to 2 while 3 threads exist starts
/// nothing in the JDK (`setCorePoolSize` only adds workers while below the new core), so
/// request 2 waits until B-1 is free at 100 ms.
#[test]
fn raising_core_below_the_pool_size_starts_no_thread() {
    let toml = rejection_scenario("abort", "", 1, 4).replace("max = 1", "max = 4");
    let mut e = engine(&toml, Strategy::Bulkhead);
    e.advance_to(ms(50));
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.pool_size, b.active, b.queued), (3, 3, 1));
    e.apply(Command::SetPoolSize {
        pool: bulkhead(&e, 0),
        size: 2,
    })
    .expect("a bulkhead can be resized");
    let b = pool(&e, bulkhead(&e, 0));
    assert_eq!((b.pool_size, b.active, b.queued), (3, 3, 1));
    e.run_until(Nanos::from_secs(60));
    assert_eq!(times(&e), [ms(100), ms(200), ms(100), ms(100)]);
}

#[test]
fn a_strategy_switch_applies_to_new_requests_only() {
    let toml = two_calls("").replace("count = 1", "count = 3");
    let mut e = engine(&toml, Strategy::Sequential);
    e.advance_to(ms(50));
    e.apply(Command::SetStrategy(Strategy::Bulkhead))
        .expect("always applies");
    assert_eq!(e.strategy(), Strategy::Bulkhead);
    e.run_until(Nanos::from_secs(60));
    let runs = e.run_lines();
    let seen: Vec<(Strategy, Nanos)> = runs.iter().map(|r| (r.strategy, r.time)).collect();
    assert_eq!(
        seen,
        [
            (Strategy::Sequential, ms(300)),
            (Strategy::Bulkhead, ms(200)),
            (Strategy::Bulkhead, ms(200)),
        ]
    );
    assert_eq!(runs[0].thread, "http-nio-8080-exec-1");
    assert_eq!(runs[1].thread, "bulkhead-b-1");
}

#[test]
fn an_injected_failure_fails_calls_until_cleared() {
    let toml = rejection_scenario("abort", "", 10, 1)
        .replace("mode = \"batch\"\ncount = 1", "mode = \"runs\"\ncount = 4");
    let mut e = engine(&toml, Strategy::Bulkhead);
    e.apply(Command::InjectFault {
        service: ServiceId(0),
        fault: Fault::Fail { probability: 1.0 },
    })
    .expect("the service exists");
    // Requests 1 (0..100 ms) and 2 (100..200 ms) fail; request 3 (200..300 ms) is running
    // when the fault is cleared and succeeds: failure is decided when the latency ends.
    e.advance_to(ms(250));
    e.apply(Command::ClearFault {
        service: ServiceId(0),
    })
    .expect("the service exists");
    e.run_until(Nanos::from_secs(60));
    let runs = e.run_lines();
    let seen: Vec<(Outcome, &str)> = runs
        .iter()
        .map(|r| (r.outcome, r.status.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (Outcome::Failed, "Failed (svc failed)"),
            (Outcome::Failed, "Failed (svc failed)"),
            (Outcome::Success, "Success"),
            (Outcome::Success, "Success"),
        ]
    );
    assert!(runs.iter().all(|r| r.time == ms(100)));
    let stats = e.snapshot().services[0].stats;
    assert_eq!((stats.calls, stats.failures), (4, 2));
}

// ---- Ordering at one instant, queued siblings of an aborted request, thread creation ----

const ONE_THREAD_HANDOFF: &str = r#"
[scenario]
name = "handoff"
cores = 8
[load]
mode = "batch"
count = 2
[server]
threads = 1
min_spare = 1
[[services]]
name = "a"
latency = "100ms"
[endpoint]
calls = ["a"]
[strategy]
use = "bulkhead"
[[strategy.bulkhead]]
name = "P"
services = ["a"]
core = 1
max = 1
queue = 0
"#;

#[test]
fn the_worker_is_back_in_its_pool_before_the_woken_handler_takes_the_next_request() {
    // One Tomcat thread, a hand-off pool of one thread: request 2 waits for the handler. When
    // request 1's call ends, its worker returns to getTask() while the handler is unparked,
    // so request 2's call finds the worker idle instead of being rejected.
    let e = played(ONE_THREAD_HANDOFF, Strategy::Bulkhead);
    assert_eq!(count(&e, Outcome::Success), 2);
    assert_eq!(times(&e), vec![ms(100), ms(200)]);
    assert_eq!(pool(&e, bulkhead(&e, 0)).stats.rejected, 0);
}

#[test]
fn a_client_rejected_at_once_retries_after_a_round_trip_so_time_moves_on() {
    // Every request is rejected in no time; with no think time the clients must still let
    // the clock advance (a run that ends at its duration proves it).
    let toml = ONE_THREAD_HANDOFF
        .replace(
            "mode = \"batch\"\ncount = 2",
            "mode = \"closed\"\nclients = 5",
        )
        .replace("latency = \"100ms\"", "latency = \"10s\"")
        .replace("threads = 1\nmin_spare = 1", "threads = 10\nmin_spare = 1");
    let mut e = engine(&toml, Strategy::Bulkhead);
    e.run_until(Nanos::from_secs(1));
    assert_eq!(e.now(), Nanos::from_secs(1));
    let failed = count(&e, Outcome::Failed);
    // Four clients are rejected about once a millisecond for a second.
    assert!((3_900..=4_100).contains(&failed), "{failed}");
}

#[test]
fn calls_queued_before_an_abort_still_run() {
    // supplyAsync(a) runs, supplyAsync(b) queues, supplyAsync(c) throws: the request fails
    // at once, but b's future is not complete, so a worker runs it later (AsyncSupply.run).
    let toml = ONE_THREAD_HANDOFF
        .replace("count = 2", "count = 1")
        .replace(
            "[endpoint]\ncalls = [\"a\"]",
            "[[services]]\nname = \"b\"\nlatency = \"100ms\"\n[[services]]\nname = \"c\"\nlatency = \"100ms\"\n[endpoint]\ncalls = [\"a\", \"b\", \"c\"]",
        )
        .replace("services = [\"a\"]", "services = [\"a\", \"b\", \"c\"]")
        .replace("queue = 0", "queue = 1");
    let mut e = played(&toml, Strategy::Bulkhead);
    assert_eq!(count(&e, Outcome::Failed), 1);
    assert_eq!(times(&e), vec![Nanos::ZERO]);
    // The load has ended; the orphaned calls go on.
    e.advance_to(ms(1000));
    let calls: Vec<u64> = e
        .snapshot()
        .services
        .iter()
        .map(|s| s.stats.calls)
        .collect();
    assert_eq!(calls, vec![1, 1, 0]);
    assert_eq!(pool(&e, bulkhead(&e, 0)).stats.completed, 2);
}

#[test]
fn a_call_on_a_new_platform_thread_starts_once_the_thread_is_created() {
    // Three calls, each on a new platform thread that costs its creator 10 ms of CPU: the
    // third starts at 30 ms and ends at 130 ms.
    let toml = r#"
[scenario]
name = "spawn"
cores = 8
spawn_cost = "10ms"
[load]
mode = "runs"
count = 1
[[services]]
name = "a"
latency = "100ms"
[endpoint]
calls = ["a"]
fan_out = 3
[strategy]
use = "unbounded"
[strategy.unbounded]
threads = "platform"
"#;
    let e = played(toml, Strategy::Unbounded);
    assert_eq!(times(&e), vec![ms(130)]);
    assert_eq!(threads(&e), vec!["Thread-2".to_string()]);
}

#[test]
fn threads_started_by_a_larger_core_skip_calls_whose_callers_gave_up() {
    // One thread runs request 1's call (1 s); requests 2 and 3 queue and time out at 100 ms
    // with a fallback. Raising core at 500 ms starts threads for the queue, which find the
    // futures complete and run nothing (AsyncSupply.run).
    let toml = r#"
[scenario]
name = "resize-stale"
cores = 8
[load]
mode = "batch"
count = 3
[[services]]
name = "a"
latency = "1s"
timeout = "100ms"
fallback = "A:Fallback"
[endpoint]
calls = ["a"]
[[strategy.bulkhead]]
name = "P"
services = ["a"]
core = 1
max = 4
queue = 10
"#;
    let mut e = engine(toml, Strategy::Bulkhead);
    e.advance_to(ms(500));
    assert_eq!(count(&e, Outcome::Partial), 3);
    assert_eq!(pool(&e, bulkhead(&e, 0)).queued, 2);
    e.apply(Command::SetPoolSize {
        pool: bulkhead(&e, 0),
        size: 3,
    })
    .expect("a valid size");
    e.advance_to(ms(600));
    let p = pool(&e, bulkhead(&e, 0));
    assert_eq!((p.queued, p.active), (0, 1));
    assert_eq!(e.snapshot().services[0].stats.calls, 1);
    assert_eq!(p.stats.completed, 2);
}

#[test]
fn live_pool_changes_live_in_the_scenario_so_a_replay_builds_the_same_pools() {
    let mut e = engine(&rejection_scenario("abort", "", 10, 4), Strategy::Bulkhead);
    let b = bulkhead(&e, 0);
    let changes = [
        Command::SetPoolSize { pool: b, size: 3 },
        Command::SetPoolMax { pool: b, size: 5 },
        Command::SetQueueCapacity {
            pool: b,
            capacity: Some(7),
        },
        Command::SetPoolSize {
            pool: server(&e),
            size: 4,
        },
        Command::SetQueueCapacity {
            pool: server(&e),
            capacity: Some(9),
        },
        Command::SetPoolSize {
            pool: shared(&e),
            size: 6,
        },
    ];
    for c in changes {
        e.apply(c).expect("a valid change");
    }
    let replay = threadlab::topology::Topology::new(e.scenario());
    let snapshot = e.snapshot();
    for (plan, live) in replay.pools().iter().zip(&snapshot.pools) {
        let spec = &plan.spec;
        assert_eq!(
            (spec.core, spec.max, spec.queue_capacity),
            (live.core, live.max, live.queue_capacity),
            "{}",
            live.name
        );
    }
    assert_eq!(pool(&e, b).queue_capacity, Some(7));
    let err = e
        .apply(Command::SetQueueCapacity {
            pool: b,
            capacity: None,
        })
        .expect_err("a bulkhead's queue stays bounded");
    let name = pool(&e, b).name.clone();
    assert_eq!(
        err,
        CommandError::BulkheadNeedsCapacity {
            pool: name.clone(),
            bulkhead: 1
        }
    );
    assert_eq!(
        err.to_string(),
        format!("{name} is bounded (bulkhead #1): give its queue a capacity")
    );
}

/// One keep-alive client, no think time, a 100 ms call that fails with `failure`, 10 ms
/// round trips and no other network cost.
fn keep_alive_client(failure: f64) -> Engine {
    let toml = format!(
        r#"
[scenario]
name = "keep-alive"
[load]
mode = "closed"
clients = 1
[[services]]
name = "svc"
latency = "100ms"
failure = {failure}
[endpoint]
calls = ["svc"]
[strategy]
use = "sequential"
"#
    );
    let mut s = support::parse(&toml);
    s.load.link.rtt = ms(10);
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(ms(1000));
    e
}

#[test]
fn tomcat_closes_the_connection_after_a_500_so_the_next_request_connects_again() {
    // Http11Processor.statusDropsConnection: a 500 goes out with `Connection: close`. Every
    // request of a failing service pays the handshake: 5 ms there, 10 ms more for the new
    // connection, 100 ms of call, 5 ms back = 120 ms, and opens its own connection.
    let failing = keep_alive_client(1.0);
    let times = times(&failing);
    assert_eq!(times.len(), 8, "{times:?}");
    assert!(times.iter().all(|t| *t == ms(120)), "{times:?}");
    let net = failing.snapshot().net.expect("a connection layer");
    assert_eq!(net.connect.count, 9, "one connection per request sent");
    // Answered 200, the connection stays: only the first request pays the handshake.
    let ok = keep_alive_client(0.0);
    let mut expected = vec![ms(120)];
    expected.extend([ms(110); 8]);
    assert_eq!(self::times(&ok), expected);
    assert_eq!(
        ok.snapshot().net.expect("a connection layer").connect.count,
        1
    );
}

/// The keep-alive fast path's share when `client` answers: 20 keep-alive clients with no think
/// time, a 1 ms call, the default 40 us round trip and 100 us of post-response work.
fn fast_path_share(client: &str) -> f64 {
    let toml = format!(
        r#"
[scenario]
name = "fast path"
[load]
mode = "closed"
clients = 20
client = "{client}"
[[services]]
name = "svc"
latency = "1ms"
[endpoint]
calls = ["svc"]
[strategy]
use = "sequential"
"#
    );
    let s = threadlab::scenario::parse("test", &toml, &[]).expect("valid scenario");
    assert_eq!(s.server.connector.post_response, Nanos::from_micros(100));
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(Nanos::from_secs(2));
    let stats = e.snapshot().net.expect("a connection layer").stats;
    // Each client's first request opens its connection: it cannot race.
    let raced = stats.fast_path_requests + stats.executor_requests - 20;
    stats.fast_path_requests as f64 / raced as f64
}

#[test]
fn the_fast_path_share_follows_who_the_client_is() {
    // The thread reads the connection again after its post-response work P (exponential,
    // mean p = 100 us); the next request gets there after a round trip (40 us) and the
    // client's turnaround T (exponential, mean t). It wins when 40 us + T < P:
    // P(win) = exp(-40/p) * p / (p + t): wrk (t = 10 us) 0.609, blocking (t = 100 us) 0.335
    // (Tomcat served 32-35 % on its fast path for a blocking Java client).
    let expected = |t: f64| (-40.0f64 / 100.0).exp() * 100.0 / (100.0 + t);
    let wrk = fast_path_share("wrk");
    let blocking = fast_path_share("blocking");
    assert!((wrk - expected(10.0)).abs() < 0.02, "wrk {wrk}");
    assert!(
        (blocking - expected(100.0)).abs() < 0.02,
        "blocking {blocking}"
    );
}

// ---- load phases ----------------------------------------------------------------------------

fn phased(load: &str) -> String {
    one_call(load, "threads = 50")
}

#[test]
fn a_phase_adds_clients_at_its_time() {
    // One client answered every 100 ms until 2 s, then five: 20 answers by 2 s, and each of
    // the five adds 20 more by 4 s.
    let load = "mode = \"closed\"\nclients = 1\n[[load.phases]]\nat = \"2s\"\nclients = 5";
    let mut e = engine(&phased(load), Strategy::Sequential);
    e.run_until(Nanos::from_secs(2));
    assert_eq!(e.snapshot().outcomes.total(), 20);
    e.run_until(Nanos::from_secs(4));
    assert_eq!(e.snapshot().outcomes.total(), 120);
    let logged = e.snapshot().log.iter().any(|line| {
        matches!(line, LogLine::Change { text, .. } if text == "load phase 1: clients 1 -> 5")
    });
    assert!(logged, "the log says which phase changed the load");
}

#[test]
fn a_phase_changes_an_open_load_s_rate_at_its_time() {
    // 50/s for 10 s, 200/s for 10 s, then 50/s again: about 500, 2,000 and 500 arrivals.
    let load = "mode = \"open\"\nrate = 50.0\n[[load.phases]]\nat = \"10s\"\nrate = 200.0\n\
                [[load.phases]]\nat = \"20s\"\nrate = 50.0";
    let mut e = engine(&phased(load), Strategy::Sequential);
    let mut sent = Vec::new();
    for t in [10, 20, 30] {
        e.run_until(Nanos::from_secs(t));
        sent.push(e.snapshot().sent);
    }
    let windows = [sent[0], sent[1] - sent[0], sent[2] - sent[1]];
    // Poisson counts: within four standard deviations of their means.
    for (n, mean) in windows.into_iter().zip([500.0, 2000.0, 500.0]) {
        let (n, sd) = (n as f64, f64::sqrt(mean));
        assert!((n - mean).abs() < 4.0 * sd, "{windows:?}");
    }
}

#[test]
fn a_phase_sets_the_presets_rate_not_the_live_keys_bounded_one() {
    // A 1 s burst at 900,000/s in a 120 s run: the live keys stop far lower (that rate for
    // the whole run would pile up more than a run may hold), but the preset's phase is the
    // preset's, weighed with the run before it started.
    let load = "mode = \"open\"\nrate = 50.0\n[[load.phases]]\nat = \"1s\"\nrate = 900000.0";
    let mut toml = phased(load);
    toml = toml.replace(
        "name = \"one-call\"",
        "name = \"one-call\"\nduration = \"120s\"",
    );
    let mut e = engine(&toml, Strategy::Sequential);
    assert!(e.max_rate() < 900_000.0, "{}", e.max_rate());
    e.run_until(Nanos::from_millis(1001));
    assert!(
        matches!(e.scenario().load.mode, LoadMode::Open { rate, .. } if rate == 900_000.0),
        "{:?}",
        e.scenario().load.mode
    );
}

#[test]
fn a_new_connection_s_request_is_read_once_the_handshake_and_the_acceptor_are_both_done() {
    // Each request fails (a 500 closes the connection), so each opens a new one: the SYN
    // reaches the server 5 ms after the send, the request follows the handshake 10 ms later.
    // An acceptor quicker than the round trip hides behind it (120 ms, as with none); one
    // taking 25 ms holds the request until 5 + 25 ms: 30 + 100 + 5 = 135 ms.
    let times_with = |cost: u64| {
        let mut s = support::parse(&format!(
            "[scenario]\nname = \"acceptor\"\n[load]\nmode = \"closed\"\nclients = 1\n[server]\naccept_cost = \"{cost}ms\"\n\
             [[services]]\nname = \"svc\"\nlatency = \"100ms\"\nfailure = 1.0\n\
             [endpoint]\ncalls = [\"svc\"]\n[strategy]\nuse = \"sequential\"\n"
        ));
        s.load.link.rtt = ms(10);
        let mut e = Engine::new(&s, Strategy::Sequential);
        e.run_until(ms(1000));
        times(&e)
    };
    assert_eq!(times_with(0), vec![ms(120); 8]);
    assert_eq!(times_with(4), vec![ms(120); 8]);
    assert_eq!(times_with(25), vec![ms(135); 7]);
}

#[test]
fn a_connection_s_slot_is_free_for_the_next_syn_once_its_lazy_close_has_come() {
    // One slot (max_connections = 1) and one client that opens a connection per request and
    // thinks 50 ms between them: each close (about 100 us after its response, with no event
    // of its own) has come long before the next SYN, which the full latch must then accept
    // at once. A slot counted as taken by a close that has come would queue that SYN, and
    // nothing would wake the acceptor again.
    let toml = one_call(
        "mode = \"closed\"\nclients = 1\nthink = \"50ms\"\nkeep_alive = false",
        "threads = 2\nmin_spare = 1\nmax_connections = 1",
    );
    // With the connection layer (post-response work, round trip), unlike `engine`.
    let scenario = threadlab::scenario::parse("test", &toml, &[]).expect("a valid scenario");
    let mut e = Engine::new(&scenario, Strategy::Sequential);
    e.run_until(Nanos::from_secs(10));
    let s = e.snapshot();
    let net = s.net.expect("a simulated run has a connection layer");
    assert_eq!(net.stats.accept_queue_max, 0, "no connection waited");
    // Each cycle: 40 us to connect, 100 ms served, the answer's way back, 50 ms of thought.
    let answered = s.outcomes.get(Outcome::Success);
    assert!((65..=67).contains(&answered), "{answered} answered in 10 s");
}
