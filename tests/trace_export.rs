//! The exported Perfetto / Chrome trace: well-formed Trace Event JSON whose slices are the
//! engine's own calls, and the pictures each lesson is about (sequential calls end to end,
//! a fan-out waiting for its slowest call, a starved common pool, a hang contained by a
//! bulkhead).

use std::collections::BTreeMap;

use serde_json::Value;
use threadlab::report::perfetto::{play_traced, write_trace};
use threadlab::scenario::{self, Strategy};
use threadlab::sim::Engine;
use threadlab::sim::pool::FORK_JOIN_START;
use threadlab::time::Nanos;

/// Plays a preset with timelines recorded and returns the engine and its parsed trace.
fn traced(preset: &str, strategy: Strategy, duration: Option<Nanos>) -> (Engine, Vec<Value>) {
    let s = scenario::load(preset, &[]).expect("built-in preset");
    let engine = play_traced(&s, strategy, duration.unwrap_or(s.duration));
    let mut bytes = Vec::new();
    write_trace(&mut bytes, &[("", &engine)]).expect("written to memory");
    let doc: Value = serde_json::from_slice(&bytes).expect("the trace parses as JSON");
    let events = doc["traceEvents"].as_array().expect("traceEvents").clone();
    (engine, events)
}

/// A complete event on a named thread.
#[derive(Debug, Clone)]
struct Slice {
    thread: String,
    name: String,
    ts: f64,
    dur: f64,
    args: Value,
}

impl Slice {
    fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

fn thread_names(events: &[Value]) -> BTreeMap<(u64, u64), String> {
    events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            let key = (
                e["pid"].as_u64().unwrap_or(0),
                e["tid"].as_u64().unwrap_or(0),
            );
            (key, e["args"]["name"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

fn slices(events: &[Value]) -> Vec<Slice> {
    let names = thread_names(events);
    events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let key = (
                e["pid"].as_u64().unwrap_or(0),
                e["tid"].as_u64().unwrap_or(0),
            );
            Slice {
                thread: names.get(&key).cloned().unwrap_or_default(),
                name: e["name"].as_str().unwrap_or("").to_string(),
                ts: e["ts"].as_f64().unwrap_or(f64::NAN),
                dur: e["dur"].as_f64().unwrap_or(f64::NAN),
                args: e["args"].clone(),
            }
        })
        .collect()
}

/// Call slices (they carry a service) on threads whose name starts with `prefix`.
fn calls_on(slices: &[Slice], prefix: &str) -> BTreeMap<String, Vec<Slice>> {
    let mut by_thread: BTreeMap<String, Vec<Slice>> = BTreeMap::new();
    for s in slices
        .iter()
        .filter(|s| s.thread.starts_with(prefix) && s.args.get("service").is_some())
    {
        by_thread
            .entry(s.thread.clone())
            .or_default()
            .push(s.clone());
    }
    for calls in by_thread.values_mut() {
        calls.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    }
    by_thread
}

const MS: f64 = 1000.0;

#[test]
fn every_event_has_the_fields_its_phase_requires() {
    for (preset, strategy) in [
        ("ironthread", Strategy::Bulkhead),
        ("forkjoin-trap", Strategy::Shared),
        ("pinning", Strategy::Unbounded),
    ] {
        let (_, events) = traced(preset, strategy, Some(Nanos::from_secs(2)));
        assert!(events.len() > 20, "{preset}: {} events", events.len());
        for e in &events {
            let ph = e["ph"].as_str().expect("ph");
            for field in ["name", "pid", "tid", "ts"] {
                assert!(e.get(field).is_some(), "{preset}: {field} missing in {e}");
            }
            match ph {
                "X" => assert!(e["dur"].as_f64().is_some_and(|d| d >= 0.0), "{e}"),
                "s" | "f" | "b" | "e" => assert!(e["id"].is_u64(), "{e}"),
                "C" => assert!(e["args"]["value"].is_u64(), "{e}"),
                "M" => assert!(e["args"].is_object(), "{e}"),
                "i" => {}
                other => panic!("{preset}: unexpected phase {other}"),
            }
            if ph == "f" {
                assert_eq!(e["bp"], "e", "{e}");
            }
        }
    }
}

#[test]
fn pools_are_processes_and_threads_carry_their_jvm_names() {
    let (_, events) = traced("ironthread", Strategy::Bulkhead, None);
    let processes: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(processes.contains(&"tomcat"), "{processes:?}");
    assert!(processes.contains(&"IronThread"), "{processes:?}");
    let names: Vec<String> = thread_names(&events).into_values().collect();
    assert!(
        names.iter().any(|n| n == "http-nio-8080-exec-1"),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n == "IronThread-2"), "{names:?}");
    // Every slice sits on a named thread.
    assert!(slices(&events).iter().all(|s| !s.thread.is_empty()));
}

#[test]
fn call_time_per_service_in_the_trace_equals_the_engines_figure() {
    for (preset, strategy, secs) in [
        ("ironthread", Strategy::Sequential, 60),
        ("forkjoin-trap", Strategy::Shared, 60),
        ("bulkhead-containment", Strategy::Bulkhead, 40),
        ("pinning", Strategy::Unbounded, 2),
    ] {
        let (engine, events) = traced(preset, strategy, Some(Nanos::from_secs(secs)));
        let mut traced_ns: BTreeMap<String, u64> = BTreeMap::new();
        for s in slices(&events) {
            if let Some(service) = s.args["service"].as_str()
                && s.args.get("unfinished").is_none()
            {
                // µs with ns precision: back to whole nanoseconds before summing.
                *traced_ns.entry(service.to_string()).or_default() +=
                    (s.dur * 1000.0).round() as u64;
            }
        }
        let snapshot = engine.snapshot();
        for svc in &snapshot.services {
            let engine_ns = svc.stats.thread_time.as_nanos();
            let traced = traced_ns.get(&svc.name).copied().unwrap_or(0);
            assert!(engine_ns > 0, "{preset}: {} made no calls", svc.name);
            assert_eq!(traced, engine_ns, "{preset} {strategy}: {}", svc.name);
        }
    }
}

#[test]
fn sequential_tomcat_threads_make_their_three_calls_end_to_end() {
    let (_, events) = traced("ironthread", Strategy::Sequential, None);
    let lanes = calls_on(&slices(&events), "http-nio-8080-exec-");
    assert_eq!(
        lanes.len(),
        5,
        "one Tomcat thread per run: {:?}",
        lanes.keys()
    );
    for (thread, calls) in &lanes {
        let durs: Vec<f64> = calls.iter().map(|c| c.dur / MS).collect();
        assert_eq!(durs, vec![200.0, 500.0, 1000.0], "{thread}");
        for pair in calls.windows(2) {
            assert_eq!(pair[0].end(), pair[1].ts, "{thread}: back to back");
        }
    }
}

#[test]
fn bulkhead_fans_out_on_three_threads_and_the_handler_waits_for_the_slowest() {
    let (_, events) = traced("ironthread", Strategy::Bulkhead, None);
    let all = slices(&events);
    let first: Vec<&Slice> = all
        .iter()
        .filter(|s| s.thread.starts_with("IronThread-") && s.args["request"] == 1)
        .collect();
    assert_eq!(first.len(), 3, "{first:?}");
    let threads: std::collections::BTreeSet<&str> =
        first.iter().map(|s| s.thread.as_str()).collect();
    assert_eq!(threads.len(), 3, "three lanes: {threads:?}");
    assert!(
        first.iter().all(|s| s.ts == first[0].ts),
        "they start together"
    );
    let mut durs: Vec<f64> = first.iter().map(|s| s.dur / MS).collect();
    durs.sort_by(f64::total_cmp);
    assert_eq!(durs, vec![200.0, 500.0, 1000.0]);
    let waiting = all
        .iter()
        .find(|s| s.name.starts_with("waiting for calls") && s.args["request"] == 1)
        .expect("the handler waits in join()");
    assert!(waiting.thread.starts_with("http-nio-8080-exec-"));
    assert_eq!(waiting.dur, 1000.0 * MS, "as long as the slowest call");
    // Flow arrows lead from the handler to each call.
    let flows = events.iter().filter(|e| e["ph"] == "s").count();
    assert_eq!(flows, 15, "five requests, three calls each");
}

#[test]
fn starved_common_pool_keeps_seven_workers_busy_end_to_end_while_calls_queue() {
    let (_, events) = traced("forkjoin-trap", Strategy::Shared, None);
    let lanes = calls_on(&slices(&events), "ForkJoinPool.commonPool-worker-");
    assert_eq!(lanes.len(), 7, "{:?}", lanes.keys());
    for (thread, calls) in &lanes {
        let started = FORK_JOIN_START.0 as f64 / 1_000.0;
        assert_eq!(calls[0].ts, started, "{thread} starts with its thread");
        for pair in calls.windows(2) {
            assert_eq!(pair[0].end(), pair[1].ts, "{thread}: no idle gap");
        }
        let end = calls.last().map_or(0.0, Slice::end);
        assert!(end >= 2000.0 * MS, "{thread} busy until {end} µs");
    }
    let queued: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "b" && e["cat"] == "queued")
        .collect();
    // Every external submission goes through a submission queue (the first 7 leave it at
    // once, when their workers scan); the other 23 wait there for a worker.
    assert_eq!(
        queued.len(),
        30,
        "every call passes through a submission queue"
    );
}

#[test]
fn a_hang_holds_recs_threads_for_30_s_while_user_and_orders_keep_cycling() {
    let (_, events) = traced(
        "bulkhead-containment",
        Strategy::Bulkhead,
        Some(Nanos::from_secs(40)),
    );
    let all = slices(&events);
    let hung: Vec<&Slice> = all
        .iter()
        .filter(|s| s.thread.starts_with("recs-") && s.dur == 30_000.0 * MS)
        .collect();
    assert!(!hung.is_empty(), "some recs call hangs 30 s");
    let h = hung[0];
    for prefix in ["user-", "orders-"] {
        let during = all
            .iter()
            .filter(|s| s.thread.starts_with(prefix) && s.ts >= h.ts && s.end() <= h.end())
            .count();
        // Five requests a second for 30 s: well over a hundred calls end meanwhile.
        assert!(during > 100, "{prefix}: {during} calls during the hang");
    }
}

#[test]
fn a_trace_beyond_its_span_limit_says_what_it_left_out() {
    let s = scenario::load("tomcat-ceiling", &[]).expect("built-in preset");
    let mut engine = Engine::new(&s, Strategy::Sequential);
    engine.record_timeline(threadlab::sim::Retention::export(500));
    engine.run_until(Nanos::from_secs(5));
    let mut bytes = Vec::new();
    let summary = write_trace(&mut bytes, &[("", &engine)]).expect("written to memory");
    assert!(summary.left_out > 0, "{summary:?}");
    let doc: Value = serde_json::from_slice(&bytes).expect("the trace parses as JSON");
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let note = events
        .iter()
        .find(|e| e["ph"] == "i")
        .and_then(|e| e["name"].as_str())
        .expect("an instant event says what was left out");
    assert!(
        note.contains(&format!("{} spans from", summary.left_out)) && note.contains("limit 500"),
        "{note}"
    );
    assert!(
        note.starts_with(&format!("trace truncated: {} spans", summary.left_out)),
        "{note}"
    );
    let kept = events.iter().filter(|e| e["ph"] == "X").count();
    // The kept spans, plus what the 200 threads have open: a handler and its call each,
    // except on a thread between two requests of its kept-alive connection.
    assert!(kept > 500 + 200 && kept <= 500 + 2 * 200, "{kept}");
}

#[test]
fn the_same_run_writes_the_same_bytes() {
    let s = scenario::load("bulkhead-containment", &[]).expect("built-in preset");
    let write = || {
        let engine = play_traced(&s, Strategy::Shared, Nanos::from_secs(20));
        let mut bytes = Vec::new();
        write_trace(&mut bytes, &[("", &engine)]).expect("written to memory");
        bytes
    };
    let first = write();
    // The common pool's queue is long at 20 s: tasks still queued are written too.
    assert!(String::from_utf8_lossy(&first).contains("\"unfinished\":true"));
    assert!(
        first == write(),
        "two runs of the same preset and seed differ"
    );
}

fn threadlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .output()
        .expect("threadlab runs")
}

#[test]
fn trace_flag_writes_the_file_and_leaves_stdout_as_it_was() {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("threadlab-cli-{}.json", std::process::id()));
    let path_str = path.to_string_lossy().to_string();
    for command in ["run", "compare"] {
        let plain = threadlab(&[command, "ironthread", "--format", "json"]);
        let traced = threadlab(&[
            command,
            "ironthread",
            "--format",
            "json",
            "--trace",
            &path_str,
        ]);
        assert!(traced.status.success(), "{command}: {traced:?}");
        assert_eq!(
            plain.stdout, traced.stdout,
            "{command}: the report is unchanged"
        );
        let bytes = std::fs::read(&path).expect("the trace file exists");
        let doc: Value = serde_json::from_slice(&bytes).expect("the trace parses as JSON");
        let processes = doc["traceEvents"].as_array().map_or(0, |e| {
            e.iter().filter(|e| e["name"] == "process_name").count()
        });
        // tomcat and the pool the strategy uses; sequential and semaphore (calls on the
        // handler's thread) use tomcat alone.
        let expected = if command == "run" { 2 } else { 2 + 3 * 2 };
        assert_eq!(processes, expected, "{command}");
        assert!(String::from_utf8_lossy(&traced.stderr).contains("wrote"));
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn trace_of_a_real_run_is_refused_as_bad_input() {
    let out = threadlab(&["run", "ironthread", "--engine", "real", "--trace", "x.json"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trace"));
}

#[test]
fn an_unwritable_trace_path_is_bad_input_naming_it() {
    let out = threadlab(&["run", "ironthread", "--trace", "/nonexistent-dir/t.json"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-dir/t.json"));
}

/// Perfetto's JSON importer reads `tid` as a 32-bit number: every track id fits, and no two
/// processes share one, in a comparison's trace too (every strategy, each with its pools).
#[test]
fn track_ids_fit_in_32_bits_and_belong_to_one_process() {
    let s = scenario::load("ironthread", &[]).expect("built-in preset");
    let engines: Vec<Engine> = Strategy::ALL
        .iter()
        .map(|&st| play_traced(&s, st, Nanos::from_secs(3)))
        .collect();
    let runs: Vec<(&str, &Engine)> = engines.iter().map(|e| (e.strategy().name(), e)).collect();
    let mut bytes = Vec::new();
    write_trace(&mut bytes, &runs).expect("written to memory");
    let doc: Value = serde_json::from_slice(&bytes).expect("the trace parses as JSON");
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let mut process_of: BTreeMap<u64, u64> = BTreeMap::new();
    let mut process_names: BTreeMap<u64, String> = BTreeMap::new();
    for e in events {
        let pid = e["pid"].as_u64().expect("pid");
        let tid = e["tid"].as_u64().expect("tid");
        assert!(
            tid <= u64::from(u32::MAX) && pid <= u64::from(u32::MAX),
            "{e}"
        );
        if e["name"] == "process_name" {
            let name = e["args"]["name"].as_str().unwrap_or("").to_string();
            assert!(
                process_names.insert(pid, name).is_none(),
                "pid {pid} named twice"
            );
        }
        if tid != 0 && e["ph"] != "C" {
            let first = *process_of.entry(tid).or_insert(pid);
            assert_eq!(first, pid, "tid {tid} in two processes: {e}");
        }
    }
    assert!(process_of.len() > 20, "{} tracks", process_of.len());
    let distinct: std::collections::BTreeSet<&String> = process_names.values().collect();
    assert_eq!(distinct.len(), process_names.len(), "{process_names:?}");
    assert!(process_names.len() > runs.len(), "{process_names:?}");
}

/// One span limit per file: the strategies of a comparison share it.
#[test]
fn the_strategies_of_a_comparison_share_one_span_limit() {
    use threadlab::report::perfetto::{SPAN_LIMIT, traced_share};
    let s = scenario::load("ironthread", &[]).expect("built-in preset");
    let runs = Strategy::ALL.len();
    let total: usize = Strategy::ALL
        .iter()
        .map(|&st| {
            let e = traced_share(&s, st, runs);
            e.timeline().expect("recording").retention().max_spans
        })
        .sum();
    assert!(total <= SPAN_LIMIT && total > SPAN_LIMIT - runs, "{total}");
}
