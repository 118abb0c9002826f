//! `[jvm]` as a user meets it: the JSON's `gc`, the trace's GC track, bad values named, and
//! the real engine's refusal.

mod support;
use support::{stdout, threadlab};

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&stdout(&all)).expect("json")
}

#[test]
fn gc_is_in_the_json_only_with_a_collector() {
    let on = json(&["jvm-pauses", "--duration", "2s"]);
    let gc = &on["gc"];
    assert_eq!(gc["collector"], "parallel");
    // 250 requests a second, 2 MiB each, eden 51.2 MiB: a collection every 25 requests.
    let collections = gc["collections"].as_u64().expect("collections");
    assert!((18..=21).contains(&collections), "{gc}");
    let total = gc["pause_total_ms"].as_f64().expect("pause total");
    let longest = gc["longest_pause_ms"].as_f64().expect("longest");
    assert!((total - longest * collections as f64).abs() < 1e-6, "{gc}");
    assert!(gc["cpu_share"].as_f64().expect("share") > 0.0, "{gc}");
    let off = json(&["erlang-c", "--duration", "1s"]);
    assert!(off.get("gc").is_none(), "{off}");
}

#[test]
fn a_trace_has_a_gc_track_of_the_pauses() {
    let dir = std::env::temp_dir().join(format!("threadlab-jvm-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("jvm.json");
    let path = file.to_str().expect("utf-8 path");
    stdout(&["run", "jvm-pauses", "--duration", "1s", "--trace", path]);
    let text = std::fs::read_to_string(&file).expect("trace written");
    std::fs::remove_dir_all(&dir).ok();
    assert!(text.contains("\"GC (parallel)\""), "no GC track");
    let pauses = text.matches("\"name\":\"pause\"").count();
    assert!(pauses >= 9, "{pauses} pauses in the first second");
}

#[test]
fn bad_jvm_values_name_the_field_and_what_is_allowed() {
    let cases = [
        ("jvm.gc.collector=cms", "parallel, g1, zgc"),
        ("jvm.gc.young_gen=1GiB", "1MiB..=512MiB"),
        ("jvm.gc.alloc_per_request=2MB", "a size with a unit"),
        ("jvm.warmup.first=0.5", "1..=100"),
        ("jvm.errors.logged_rejection=2s", "0s..=1s"),
        ("jvm.connector_threads.poll_cost=2s", "0s..=1s"),
        ("jvm.connector_threads.register_cost=-1us", "is negative"),
    ];
    for (set, allowed) in cases {
        let out = threadlab(&["check", "jvm-pauses", "--set", set]);
        let err = String::from_utf8_lossy(&out.stderr);
        let field = set.split('=').next().unwrap_or(set);
        assert_eq!(out.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(field) && err.contains(allowed), "{set}: {err}");
    }
}

#[test]
fn the_real_engine_refuses_jvm_costs_for_want_of_a_jvm() {
    let out = threadlab(&["run", "jvm-pauses", "--engine", "real"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "cannot play [jvm.warmup], [jvm.gc], [jvm.errors] and [jvm.connector_threads]"
        ) && err.contains("not inside a JVM")
            && err.contains("no Tomcat Acceptor or Poller thread")
            && err.contains("--engine sim"),
        "{err}"
    );
}
