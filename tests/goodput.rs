//! Goodput is the headline: `compare` on every built-in preset crowns the strategy with the
//! most answered requests per second, and no headline rate or latency counts a failure.

use std::process::{Command, Stdio};

use serde_json::Value;

/// Every built-in preset, with a simulated time short enough for a test (None: its own).
const PRESETS: [(&str, Option<&str>); 11] = [
    ("ironthread", None),
    ("tomcat-ceiling", Some("3s")),
    ("erlang-c", Some("3s")),
    ("executor-vs-threads", None),
    ("bounded-pool", None),
    ("forkjoin-trap", None),
    ("bulkhead-containment", None),
    ("virtual-threads", Some("500ms")),
    ("pinning", Some("2s")),
    ("connection-pool", Some("1s")),
    ("overload", Some("5s")),
];

fn compare(preset: &str, duration: Option<&str>, format: &str) -> String {
    let mut args = vec!["compare", preset, "--format", format];
    if let Some(d) = duration {
        args.extend(["--duration", d]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs");
    assert!(out.status.success(), "threadlab {args:?} failed");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn num(v: &Value, path: &[&str]) -> f64 {
    path.iter()
        .fold(v, |v, p| &v[*p])
        .as_f64()
        .unwrap_or_else(|| panic!("{path:?} is a number"))
}

/// The strategies the table's header marks `(best)`.
fn marked_best(table: &str) -> Vec<String> {
    let header = table
        .lines()
        .find(|l| l.starts_with("|  ") && l.contains("sequential"))
        .expect("the summary table's header");
    header
        .split('|')
        .map(str::trim)
        .filter_map(|cell| cell.strip_suffix(" (best)"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_strategy_marked_best_has_the_highest_goodput_ties_broken_by_lower_p99_then_mean() {
    for (preset, duration) in PRESETS {
        let reports: Value =
            serde_json::from_str(&compare(preset, duration, "json")).expect("json array");
        let reports = reports.as_array().expect("one report per strategy");
        let best = marked_best(&compare(preset, duration, "table"));
        assert!(!best.is_empty(), "{preset}: no strategy is marked best");
        let key = |r: &Value| {
            (
                (num(r, &["goodput_rps"]) * 100.0).round() as i64,
                -((num(r, &["latency_ms", "p99"]) * 10.0).round() as i64),
                -((num(r, &["latency_ms", "mean"]) * 10.0).round() as i64),
            )
        };
        let top = reports.iter().map(key).max().expect("reports");
        for r in reports {
            let name = r["strategy"].as_str().expect("strategy name");
            assert_eq!(
                best.iter().any(|b| b == name),
                key(r) == top,
                "{preset}: {name} goodput {} p99 {} vs marked {best:?}",
                num(r, &["goodput_rps"]),
                num(r, &["latency_ms", "p99"]),
            );
        }
    }
}

#[test]
fn goodput_and_latency_count_only_answered_requests_on_every_preset() {
    for (preset, duration) in PRESETS {
        let reports: Value =
            serde_json::from_str(&compare(preset, duration, "json")).expect("json array");
        for r in reports.as_array().expect("reports") {
            let q = |f: &str| num(r, &["requests", f]);
            let secs = num(r, &["simulated_s"]);
            let answered = q("success") + q("partial");
            let failing = q("failed") + q("timeout") + q("refused");
            let at = format!("{preset}/{}", r["strategy"]);
            assert!(
                (num(r, &["goodput_rps"]) * secs - answered).abs() < 1e-6 * answered.max(1.0),
                "{at}: goodput is not answered / s"
            );
            assert_eq!(
                num(r, &["latency_ms", "count"]),
                answered,
                "{at}: latency_ms"
            );
            assert_eq!(num(r, &["failed_latency_ms", "count"]), failing, "{at}");
            let failed_rate = num(r, &["failure_rps", "failed"]);
            assert!((failed_rate * secs - q("failed")).abs() < 1e-6 * q("failed").max(1.0));
        }
    }
}

#[test]
fn instant_rejections_do_not_crown_the_bulkhead_in_virtual_threads() {
    // Its bulkhead rejects millions of calls in no time: as throughput it "won" by 60x.
    let table = compare("virtual-threads", Some("500ms"), "table");
    assert!(
        !marked_best(&table).contains(&"bulkhead".to_string()),
        "{table}"
    );
    assert!(table.contains("| limited by "), "{table}");
    assert!(
        table.contains("rejects"),
        "the rejecting pool is named: {table}"
    );
}

#[test]
fn equal_goodput_and_p99_crown_the_lower_mean() {
    // circuit-breaker with and without its breaker: every page is answered (the fallback) and
    // the hang's 1.5 s timeouts set both p99s, but with the breaker the pages answer in 0.5 s
    // while it is open: only the mean tells them apart, and the breaker must win.
    use threadlab::report::{RunReport, best, play};
    use threadlab::scenario::{self, Strategy};
    use threadlab::time::Nanos;
    let off = [
        "services.recommendations.breaker.minimum_calls=100000".to_string(),
        "services.recommendations.breaker.window_size=100000".to_string(),
    ];
    let report = |sets: &[String]| {
        let s = scenario::load("circuit-breaker", sets).expect("preset loads");
        RunReport::new(&s, &play(&s, Strategy::Bulkhead, Nanos::from_secs(120)))
    };
    let (with, without) = (report(&[]), report(&off));
    assert_eq!(
        (with.goodput_rps * 100.0).round(),
        (without.goodput_rps * 100.0).round()
    );
    assert_eq!(with.latency_ms.p99, without.latency_ms.p99);
    assert!(with.latency_ms.mean < without.latency_ms.mean - 300.0);
    assert_eq!(best(&[without, with]), [1]);
}
