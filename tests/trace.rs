//! Trace replay: arrival times and latencies from a CSV, replayed exactly.

use threadlab::report;
use threadlab::scenario::{self, Strategy};
use threadlab::time::Nanos;

const PRESET: &str = r#"
[scenario]
name = "replay"
cores = 8
[load]
mode = "trace"
file = "trace.csv"
[[services]]
name = "user"
latency = "200ms"
[[services]]
name = "orders"
latency = "500ms"
[endpoint]
calls = ["user", "orders"]
[[strategy.bulkhead]]
name = "P"
services = ["user", "orders"]
core = 20
max = 20
"#;

const TRACE: &str = "\
# recorded on 2026-11-02
at,user,orders
0ms,180ms,420ms
12.5ms,210ms,90ms
40,35,
1s,1500ms,2ms
";

fn write(dir: &std::path::Path, trace: &str) -> String {
    std::fs::create_dir_all(dir).expect("temp dir");
    std::fs::write(dir.join("trace.csv"), trace).expect("trace");
    let preset = dir.join("replay.toml");
    std::fs::write(&preset, PRESET).expect("preset");
    preset.to_string_lossy().into_owned()
}

#[test]
fn a_replayed_trace_gives_every_request_its_recorded_latencies() {
    let dir = std::env::temp_dir().join(format!("threadlab-trace-{}", std::process::id()));
    let preset = write(&dir, TRACE);
    let s = scenario::load(&preset, &[]).expect("valid trace preset");
    let ms = Nanos::from_millis;
    // (arrival, user, orders); the empty cell draws from orders' fixed 500 ms.
    let rows = [
        (ms(0), ms(180), ms(420)),
        (Nanos::from_micros(12_500), ms(210), ms(90)),
        (ms(40), ms(35), ms(500)),
        (ms(1000), ms(1500), ms(2)),
    ];
    for strategy in [Strategy::Sequential, Strategy::Bulkhead] {
        let engine = report::play(&s, strategy, Nanos::from_secs(60));
        assert!(engine.is_finished());
        let mut runs = engine.run_lines();
        runs.sort_by_key(|r| r.run);
        assert_eq!(runs.len(), rows.len());
        for (run, (at, user, orders)) in runs.iter().zip(rows) {
            // A new connection per request: the handshake's and the request's round trips
            // and Tomcat's own CPU come on top of the recorded latencies.
            let network = s.load.link.rtt + s.load.link.rtt + s.server.connector.cpu_per_request;
            let expected = network
                + match strategy {
                    Strategy::Sequential => user + orders,
                    _ => user.max(orders),
                };
            assert_eq!(run.time, expected, "{strategy} run {}", run.run);
            assert_eq!(run.at, at + expected, "{strategy} run {} ends", run.run);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_trace_row_names_its_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("threadlab-badtrace-{}", std::process::id()));
    for (trace, needles) in [
        (
            "at,user,orders\n0ms,1ms,2ms\n5ms,soon,3ms\n",
            &["trace.csv", "line 3", "user", "soon"][..],
        ),
        (
            "at,user,nobody\n0ms,1ms,2ms\n",
            &["line 1", "nobody", "user, orders"][..],
        ),
        (
            "at,user,orders\n9ms,1ms,2ms\n5ms,1ms,2ms\n",
            &["line 3", "back in time"][..],
        ),
        ("at,user,orders\n0ms,1ms\n", &["line 2", "2 cells"][..]),
    ] {
        let preset = write(&dir, trace);
        let err = scenario::load(&preset, &[])
            .expect_err("a bad trace")
            .to_string();
        for n in needles {
            assert!(err.contains(n), "{n:?} not in {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Played for real (time-scaled), the same trace gives every request its recorded latencies:
/// the same runs, and each run's time as the simulation's within what a machine's scheduler
/// adds (never less than 0.95 of it, at most 1.3 times).
#[test]
fn a_trace_replays_for_real_with_the_simulations_runs() {
    let dir = std::env::temp_dir().join(format!("threadlab-trace-real-{}", std::process::id()));
    let preset = write(&dir, TRACE);
    let s = scenario::load(&preset, &[]).expect("valid trace preset");
    let sim = report::play(&s, Strategy::Sequential, Nanos::from_secs(60));
    let mut expected = sim.run_lines();
    expected.sort_by_key(|r| r.run);
    let options = threadlab::real::RealOptions {
        time_scale: 0.2,
        ..threadlab::real::RealOptions::default()
    };
    let mut seen = Vec::new();
    for _ in 0..5 {
        let run = threadlab::real::run(&s, Strategy::Sequential, Nanos::from_secs(60), options)
            .expect("real mode replays a trace");
        let mut got = run.run_lines.clone();
        got.sort_by_key(|r| r.run);
        let runs = |lines: &[threadlab::snapshot::RunLine]| {
            lines.iter().map(|r| (r.run, r.outcome)).collect::<Vec<_>>()
        };
        assert_eq!(runs(&got), runs(&expected), "the same runs and outcomes");
        let agree = got.iter().zip(&expected).all(|(g, e)| {
            let (g, e) = (g.time.as_secs_f64(), e.time.as_secs_f64());
            (0.95 * e..=1.3 * e).contains(&g)
        });
        if agree {
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        seen.push(got.iter().map(|r| r.time).collect::<Vec<_>>());
    }
    panic!("real runs' times against {expected:?}: {seen:?}");
}
