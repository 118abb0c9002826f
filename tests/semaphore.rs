//! The `semaphore` strategy (resilience4j's `SemaphoreBulkhead`, one per service), played by
//! the engine on small inline scenarios whose figures are worked out by hand.

use threadlab::metrics::Outcome;
use threadlab::scenario::{self, Strategy};
use threadlab::time::Nanos;

mod support;
use support::{ms, played, rows};

/// `count` requests at t = 0, each one call of a 100 ms service, through a semaphore of
/// `permits` permits with `max_wait`. Tomcat's ten prestarted handler threads take the
/// requests in order (`http-nio-8080-exec-1`, ...).
fn scenario(count: u32, permits: u32, max_wait: &str, service_extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "semaphore"
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
use = "semaphore"
[strategy.semaphore]
permits = {permits}
max_wait = "{max_wait}"
"#
    )
}

#[test]
fn calls_beyond_the_permits_fail_at_once_with_bulkhead_full_and_the_rest_run_on_the_handler() {
    let e = played(&scenario(3, 2, "0ms", ""), Strategy::Semaphore);
    let rows = rows(&e);
    let threads: Vec<&str> = rows.iter().map(|r| r.thread.as_str()).collect();
    assert_eq!(
        threads,
        [
            "http-nio-8080-exec-1",
            "http-nio-8080-exec-2",
            "http-nio-8080-exec-3"
        ],
        "every call runs (or fails) on the caller's thread"
    );
    let times: Vec<Nanos> = rows.iter().map(|r| r.time).collect();
    assert_eq!(times, [ms(100), ms(100), Nanos::ZERO]);
    assert_eq!(rows[2].outcome, Outcome::Failed);
    assert_eq!(rows[2].status, "Failed (BulkheadFullException: svc)");
    let svc = e.snapshot().services[0].stats;
    assert_eq!(
        (svc.calls, svc.rejected),
        (2, 1),
        "the third call never ran"
    );
}

#[test]
fn a_caller_waits_up_to_max_wait_then_fails() {
    let e = played(&scenario(2, 1, "50ms", ""), Strategy::Semaphore);
    let rows = rows(&e);
    assert_eq!(rows[0].time, ms(100));
    assert_eq!(rows[1].time, ms(50), "gave up after max_wait");
    assert_eq!(rows[1].status, "Failed (BulkheadFullException: svc)");
}

#[test]
fn a_caller_that_gives_up_takes_the_fallback() {
    let e = played(
        &scenario(2, 1, "50ms", "fallback = \"Svc:Fallback\""),
        Strategy::Semaphore,
    );
    let rows = rows(&e);
    assert_eq!(rows[1].outcome, Outcome::Partial);
    assert_eq!(rows[1].status, "Partial (Svc:Fallback)");
    assert_eq!(e.snapshot().services[0].stats.fallbacks, 1);
}

#[test]
fn waiting_callers_get_released_permits_in_arrival_order() {
    // One permit: request 1 runs 0-100 ms, request 2 100-200 ms, request 3 200-300 ms.
    let e = played(&scenario(3, 1, "250ms", ""), Strategy::Semaphore);
    let rows = rows(&e);
    let times: Vec<Nanos> = rows.iter().map(|r| r.time).collect();
    assert_eq!(times, [ms(100), ms(200), ms(300)]);
    assert!(rows.iter().all(|r| r.outcome == Outcome::Success));
}

#[test]
fn a_caller_whose_wait_ends_before_a_permit_frees_fails_while_the_next_in_line_runs() {
    // One permit, 150 ms of patience: request 2 gets the permit at 100 ms; request 3, still
    // behind it, gives up at 150 ms.
    let e = played(&scenario(3, 1, "150ms", ""), Strategy::Semaphore);
    let rows = rows(&e);
    let times: Vec<Nanos> = rows.iter().map(|r| r.time).collect();
    assert_eq!(times, [ms(100), ms(200), ms(150)]);
    let outcomes: Vec<Outcome> = rows.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Success, Outcome::Success, Outcome::Failed]
    );
    assert_eq!(rows[1].thread, "http-nio-8080-exec-2");
}

#[test]
fn the_semaphore_table_takes_resilience4j_defaults_and_refuses_out_of_range_values() {
    let toml = scenario(1, 1, "0ms", "");
    let plain = toml.replace(
        "[strategy.semaphore]\npermits = 1\nmax_wait = \"0ms\"\n",
        "",
    );
    let s = scenario::parse("test", &plain, &[]).expect("valid without the table");
    assert_eq!(s.strategy.semaphore.permits, 25);
    assert_eq!(s.strategy.semaphore.max_wait, Nanos::ZERO);
    let err = scenario::parse("test", &scenario(1, 0, "0ms", ""), &[])
        .expect_err("zero permits refused")
        .to_string();
    assert!(err.contains("strategy.semaphore.permits"), "{err}");
    let err = scenario::parse("test", &scenario(1, 1, "2h", ""), &[])
        .expect_err("a wait beyond an hour refused")
        .to_string();
    assert!(err.contains("strategy.semaphore.max_wait"), "{err}");
}
