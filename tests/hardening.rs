//! Adversarial input from the command line: each case once panicked, hung, ran out of memory or
//! printed a confusing message. Each must now end with exit 2 and a clear message, or a bounded
//! result.

use std::io::Write;
use std::process::{Command, Output, Stdio};

mod support;
use support::threadlab;

/// Runs `args`, expects exit 2, and returns stderr, checked for every `part`.
fn refused(args: &[&str], parts: &[&str]) -> String {
    let out = threadlab(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    for part in parts {
        assert!(stderr.contains(part), "`{part}` missing from: {stderr}");
    }
    for leak in [
        "panicked",
        "RUST_BACKTRACE",
        "struct ",
        "Raw",
        "invalid type",
    ] {
        assert!(!stderr.contains(leak), "`{leak}` in: {stderr}");
    }
    assert!(out.stdout.is_empty(), "{args:?} printed a result");
    stderr
}

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let mut file = std::fs::File::create(&path).expect("temp file");
    file.write_all(bytes).expect("write temp file");
    path
}

#[test]
fn a_time_scale_too_small_or_negative_is_refused_before_any_real_run() {
    for scale in ["1e-300", "5e-324", "1e-5", "-1", "0"] {
        for command in ["run", "compare"] {
            let args = [
                command,
                "ironthread",
                "--engine",
                "real",
                "--time-scale",
                scale,
            ];
            refused(&args, &["--time-scale", "allowed 0.01..=100"]);
        }
    }
}

#[test]
fn a_seed_above_the_presets_largest_is_refused_with_the_range() {
    refused(
        &["run", "ironthread", "--seed", "18446744073709551615"],
        &["--seed", "0..=9223372036854775807"],
    );
    // sweep takes the same flag, with the same range.
    refused(
        &[
            "sweep",
            "ironthread",
            "--vary",
            "server.threads=10,20",
            "--seed",
            "18446744073709551615",
        ],
        &["--seed", "0..=9223372036854775807"],
    );
}

#[test]
fn a_huge_tolerance_is_refused_in_short_scientific_form() {
    let stderr = refused(
        &["verify", "ironthread", "--tolerance", "1e308"],
        &["--tolerance", "1e308", "allowed 0..=10"],
    );
    assert!(!stderr.contains("inf %"), "{stderr}");
}

#[test]
fn a_set_key_of_thirty_thousand_segments_is_refused_not_a_stack_overflow() {
    let spec = format!("{}=1", vec!["a"; 30_000].join("."));
    let stderr = refused(&["check", "ironthread", "--set", &spec], &["at most 16"]);
    assert!(stderr.len() < 400, "{stderr}");
}

#[test]
fn closed_clients_whose_calls_fail_at_once_finish_instead_of_livelocking() {
    let out = threadlab(&[
        "run",
        "ironthread",
        "--set",
        "load.mode=closed",
        "--set",
        "load.clients=100",
        "--set",
        "services.user.timeout=1ns",
        "--strategy",
        "sequential",
        "--duration",
        "100ms",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // At most one request per client per millisecond: the retry floor.
    let sent = json["requests"]["sent"].as_u64().expect("sent");
    assert!(sent <= 100 * 101, "{sent}");
}

#[test]
fn a_pool_query_timing_out_at_once_stays_small() {
    let out = threadlab(&[
        "run",
        "connection-pool",
        "--strategy",
        "shared",
        "--set",
        "services.query.timeout=1ns",
        "--duration",
        "1ms",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let sent = json["requests"]["sent"].as_u64().expect("sent");
    assert!(sent <= 2 * 2000, "{sent}");
}

#[test]
fn a_run_beyond_the_cost_estimate_is_refused_with_the_numbers_unless_forced() {
    let sets = [
        "--set",
        "load.mode=batch",
        "--set",
        "load.count=10000",
        "--set",
        "endpoint.fan_out=1000",
    ];
    for command in ["run", "compare", "check"] {
        let args = [&[command, "ironthread"][..], &sets].concat();
        refused(&args, &["too large", "3.0e7 calls in flight", "--force"]);
    }
    // `check --force` validates without the estimate (a forced run would take gigabytes).
    let forced = [&["check", "ironthread"][..], &sets, &["--force"]].concat();
    assert!(threadlab(&forced).status.success());
}

#[test]
fn an_escape_sequence_in_a_name_is_refused_at_check_with_its_position() {
    let preset = "[scenario]\nname = \"x\\u001b]0;owned\\u0007\"\n[load]\nmode = \"runs\"\n\
                  count = 1\n[[services]]\nname = \"user\"\nlatency = \"1ms\"\n[endpoint]\n\
                  calls = [\"user\"]\n";
    let path = temp_file("escape.toml", preset.as_bytes());
    let stderr = refused(
        &["check", path.to_str().expect("utf-8 path")],
        &["scenario.name", "control character", "at character 2"],
    );
    assert!(!stderr.contains('\u{1b}'), "raw escape in: {stderr:?}");
}

#[test]
fn a_preset_path_with_an_escape_sequence_is_refused_escaped() {
    let stderr = refused(
        &["check", "a\u{1b}[2Jb"],
        &["character 2", "control character"],
    );
    assert!(!stderr.contains('\u{1b}'), "raw escape in: {stderr:?}");
}

#[test]
fn reading_dev_zero_as_a_preset_stops_at_the_size_limit() {
    refused(&["check", "/dev/zero"], &["/dev/zero", "too large"]);
}

#[test]
fn invalid_utf8_in_a_preset_gives_the_line_and_column() {
    let path = temp_file("latin1.toml", b"[scenario]\nname = \"caf\xe9\"\n");
    refused(
        &["check", path.to_str().expect("utf-8 path")],
        &["line 2, column 12", "0xE9", "not UTF-8"],
    );
}

#[test]
fn an_unknown_service_lists_ten_names_and_how_many_more() {
    let services: String = (0..5000)
        .map(|i| format!("[[services]]\nname = \"s{i}\"\nlatency = \"1ms\"\n"))
        .collect();
    let preset = format!(
        "[scenario]\nname = \"many\"\n[load]\nmode = \"runs\"\ncount = 1\n{services}\
         [endpoint]\ncalls = [\"nope\"]\n"
    );
    let path = temp_file("many.toml", preset.as_bytes());
    let stderr = refused(
        &["check", path.to_str().expect("utf-8 path")],
        &["services", "5000 services", "at most 1000"],
    );
    assert!(stderr.len() < 400, "{stderr}");
}

/// Runs `args` with stdout a pipe whose reading end is already closed (`| true`).
fn into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("threadlab runs")
}

/// The short form of each command that prints, for the output tests (`articles`, which
/// prints through the same function, plays every preset: minutes in a debug build).
const PRINTING: [&[&str]; 7] = [
    &["presets"],
    &["completions", "bash"],
    &["man"],
    &["check", "ironthread"],
    &["run", "ironthread"],
    &["compare", "ironthread"],
    &["sweep", "ironthread", "--vary", "server.threads=20,30"],
];

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_exit_0() {
    for args in PRINTING {
        let out = into_closed_pipe(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_full_stdout_is_an_io_error_with_exit_1_naming_it() {
    for args in PRINTING {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("threadlab runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("threadlab: error: cannot write the output to stdout: ")
                && stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn an_open_load_far_above_what_the_server_answers_is_refused_before_it_starts() {
    // erlang-c answers 2,000/s: at 1,000,000/s the requests waiting to connect pile up.
    for command in ["check", "run", "compare"] {
        let args = [command, "erlang-c", "--set", "load.rate=1000000"];
        refused(&args, &["too large", "1.2e8 calls in flight", "--force"]);
    }
    // Each point of a sweep is estimated like a run.
    let sweep = ["sweep", "erlang-c", "--vary", "load.rate=1000,1000000"];
    refused(
        &sweep,
        &["the point load.rate=1000000 is too large", "--force"],
    );
}

#[test]
fn a_run_reaching_its_cap_of_requests_in_flight_stops_with_a_partial_report() {
    use threadlab::export::{Exporter, Json};
    use threadlab::report::RunReport;
    use threadlab::scenario::Strategy;
    let sets = vec!["load.rate=1000000".to_owned()];
    let s = threadlab::scenario::load("erlang-c", &sets).expect("valid preset");
    let mut engine = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    engine.set_in_flight_cap(20_000);
    let (engine, complete) = threadlab::progress::play_engine(
        engine,
        s.duration,
        None,
        &mut threadlab::progress::unobserved,
    );
    assert!(!complete);
    assert!(engine.over_cap() && engine.halted());
    // 20,001 in flight at about 998,000 more per second than answered: 20 ms in.
    assert!(
        engine.now() < threadlab::time::Nanos::from_millis(100),
        "{}",
        engine.now()
    );
    let message = engine.cap_message().expect("a message");
    assert!(
        message
            .contains("held 20001 requests and 20001 calls (retried attempts included) in flight"),
        "{message}"
    );
    assert!(message.contains("lower the rate"), "{message}");
    let report = RunReport::new(&s, &engine);
    let json = Json.run(&s, &report, complete).expect("a report");
    assert!(json.starts_with("{\n  \"interrupted\": true,"), "{json}");
}

#[test]
fn runs_played_at_once_each_stop_at_their_share_of_one_runs_limits() {
    use threadlab::scenario::Strategy;
    let sets = vec!["load.rate=1000000".to_owned()];
    let s = threadlab::scenario::load("erlang-c", &sets).expect("valid preset");
    let mut engine = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    engine.set_in_flight_cap(20_000);
    engine.share_limits(4);
    let (engine, complete) = threadlab::progress::play_engine(
        engine,
        s.duration,
        None,
        &mut threadlab::progress::unobserved,
    );
    assert!(!complete && engine.over_cap());
    assert_eq!(engine.requests_in_flight(), 5_001);
    let message = engine.cap_message().expect("a message");
    assert!(
        message.contains("as one of 4 runs played at once, which share one run's"),
        "{message}"
    );
}

#[test]
fn retried_call_attempts_still_running_count_against_the_cap_of_calls_in_flight() {
    use threadlab::scenario::Strategy;
    // Each request's user call times out after 100 ms and is made again at once, up to 100
    // times, while every attempt it replaced goes on for its 60 s: few requests, many calls.
    let sets: Vec<String> = [
        "load.mode=open",
        "load.rate=200",
        "server.threads=virtual",
        "services.user.latency=60s",
        "services.user.timeout=100ms",
        "services.user.retry={ attempts = 100, backoff = \"0ms\" }",
    ]
    .map(String::from)
    .to_vec();
    let s = threadlab::scenario::load("ironthread", &sets).expect("valid overrides");
    let mut engine = threadlab::sim::Engine::new(&s, Strategy::Unbounded);
    engine.set_in_flight_cap(1_000);
    let (engine, complete) = threadlab::progress::play_engine(
        engine,
        threadlab::time::Nanos::from_secs(10),
        None,
        &mut threadlab::progress::unobserved,
    );
    assert!(!complete && engine.over_cap());
    // 3 calls a request: the cap of 1,000 requests is 3,000 calls.
    assert!(
        engine.requests_in_flight() < 1_000,
        "{}",
        engine.requests_in_flight()
    );
    // A retry makes room for one attempt of each of the request's calls.
    let calls = engine.calls_in_flight();
    assert!((3_001..=3_003).contains(&calls), "{calls}");
    let message = engine.cap_message().expect("a message");
    assert!(
        message.contains(&format!("{calls} calls (retried attempts included)")),
        "{message}"
    );
}

#[test]
fn a_retry_storms_events_are_within_the_estimate_that_weighs_every_attempt() {
    use threadlab::scenario::Strategy;
    // Each request times out after 10 ms and is sent again at once, up to 100 times.
    let sets: Vec<String> = [
        "load.rate=20000",
        "load.timeout=10ms",
        "load.retry.attempts=100",
        "load.retry.backoff=0ms",
        "scenario.duration=100ms",
    ]
    .map(String::from)
    .to_vec();
    let s = threadlab::scenario::load("erlang-c", &sets).expect("valid overrides");
    let served = threadlab::theory::served_rps(&s, &Strategy::ALL);
    let estimate = threadlab::scenario::estimate_cost(&s, s.duration, served);
    let mut engine = threadlab::sim::Engine::new(&s, Strategy::Sequential).unwatched();
    engine.run_until(s.duration);
    let events = engine.events_processed() as f64;
    // Weighing the requests alone, as if nobody retried, falls short of what the run
    // handles; weighing every attempt does not.
    let mut unretried = s.clone();
    unretried.load.retry = None;
    let alone = threadlab::scenario::estimate_cost(&unretried, s.duration, served);
    assert!(events > alone.events, "{events} <= {}", alone.events);
    assert!(events <= estimate.events, "{events} > {}", estimate.events);
}

#[test]
fn client_retries_waiting_out_their_pause_count_as_requests_in_flight() {
    use threadlab::scenario::Strategy;
    // Every attempt fails at once; its client waits 100 s before the one retry.
    let sets: Vec<String> = [
        "load.rate=100",
        "services.backend.latency=1ms",
        "services.backend.failure=1.0",
        "load.retry={ attempts = 2, backoff = \"100s\", on = [\"failure\"] }",
    ]
    .map(String::from)
    .to_vec();
    let s = threadlab::scenario::load("erlang-c", &sets).expect("valid overrides");
    let mut engine = threadlab::sim::Engine::new(&s, Strategy::Sequential);
    engine.run_until(threadlab::time::Nanos::from_secs(10));
    // About 1,000 requests sent in 10 s, every one of them waiting to be sent again.
    let held = engine.requests_in_flight();
    assert!((900..1_100).contains(&held), "{held}");
}

#[test]
fn plot_and_trace_to_the_same_file_or_a_missing_folder_are_refused_before_the_run() {
    let dir = std::env::temp_dir();
    let same = dir.join(format!("threadlab-same-{}.svg", std::process::id()));
    let same = same.to_string_lossy();
    for command in ["run", "compare"] {
        let args = [command, "ironthread", "--plot", &same, "--trace", &same];
        refused(&args, &["--plot and --trace name the same file"]);
    }
    // A folder that does not exist is refused before the run, not after it.
    refused(
        &["run", "ironthread", "--plot", "/nonexistent-dir/a.svg"],
        &["--plot /nonexistent-dir/a.svg: there is no folder /nonexistent-dir"],
    );
}
