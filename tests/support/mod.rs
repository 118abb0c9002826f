//! What the tests share: playing an inline scenario without the connection layer and reading
//! back its requests' rows, and running the `threadlab` binary as a user does.

// Each test binary uses its own subset of these.
#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

use threadlab::scenario::{self, Scenario, Strategy};
use threadlab::sim::{Engine, LogLine, RunLine};
use threadlab::time::Nanos;

pub fn ms(n: u64) -> Nanos {
    Nanos::from_millis(n)
}

/// The pool rules on their own: no round trip, no connector CPU, no keep-alive fast path.
pub fn parse(toml: &str) -> Scenario {
    match scenario::parse("test", toml, &[]).map(|s| s.without_network()) {
        Ok(s) => s,
        Err(e) => panic!("invalid test scenario: {e}\n{toml}"),
    }
}

pub fn engine(toml: &str, strategy: Strategy) -> Engine {
    Engine::new(&parse(toml), strategy)
}

/// Plays a finite load to its end (or 60 s of simulated time).
pub fn played(toml: &str, strategy: Strategy) -> Engine {
    let mut e = engine(toml, strategy);
    e.run_until(Nanos::from_secs(60));
    e
}

/// Every request's row from the log, by request id (works for every load mode, unlike
/// `run_lines`, which keeps `runs` load only).
pub fn rows(e: &Engine) -> Vec<RunLine> {
    let mut rows: Vec<RunLine> = e
        .snapshot()
        .log
        .into_iter()
        .filter_map(|line| match line {
            LogLine::Run(row) => Some(row),
            LogLine::Change { .. } => None,
        })
        .collect();
    rows.sort_by_key(|r| r.run);
    rows
}

/// ironthread's `--set`s for every call latency 0: most strategies' runs end at t = 0, with
/// no elapsed time to measure a rate over.
pub const IRONTHREAD_IN_NO_TIME: [&str; 6] = [
    "--set",
    "services.user.latency=0ms",
    "--set",
    "services.orders.latency=0ms",
    "--set",
    "services.recommendations.latency=0ms",
];

/// Runs the `threadlab` binary with `args` and no standard input.
pub fn threadlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs")
}

/// The standard output of `threadlab args`, which must succeed.
pub fn stdout(args: &[&str]) -> String {
    let out = threadlab(args);
    assert!(
        out.status.success(),
        "threadlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// One 100 ms call made by the handler thread, with these lines in the `[load]` and
/// `[server]` tables.
pub fn one_call(load: &str, server: &str) -> String {
    format!(
        r#"
[scenario]
name = "one-call"
[load]
{load}
[server]
{server}
[[services]]
name = "svc"
latency = "100ms"
[endpoint]
calls = ["svc"]
[strategy]
use = "sequential"
"#
    )
}

/// `count` requests at once, each one 100 ms call made by the handler thread, on a server set
/// by `server` (the lines of its `[server]` table).
pub fn tomcat_scenario(count: u32, server: &str) -> String {
    one_call(&format!("mode = \"batch\"\ncount = {count}"), server)
}

/// One request whose one call, to a service taking `latency` with a 1 s timeout and a
/// fallback, is retried as `retry` says (the lines of `[services.retry]`), under `strategy`
/// (the lines of `[strategy]` and its tables), after the lines of `extra` (faults, say).
pub fn retried_call(latency: &str, retry: &str, strategy: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "retried-call"
[load]
mode = "batch"
count = 1
[server]
threads = 10
[[services]]
name = "svc"
latency = "{latency}"
timeout = "1s"
fallback = "empty"
[services.retry]
{retry}
{extra}
[endpoint]
calls = ["svc"]
[strategy]
{strategy}
"#
    )
}

/// `[strategy]` lines: the call goes to a bulkhead of one thread with a queue.
pub const ONE_THREAD_BULKHEAD: &str = "use = \"bulkhead\"\n[[strategy.bulkhead]]\nname = \"B\"\nservices = [\"svc\"]\ncore = 1\nmax = 1\nqueue = 10";
