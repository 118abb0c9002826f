//! The `threadlab` binary as a user runs it: exit codes, tables, JSON, determinism, errors.

use std::process::{Command, Output, Stdio};

mod support;
use support::{stdout, threadlab};

/// The article's rows: (run, time, thread, status) from the JSON `runs` of a runs load.
fn runs(args: &[&str]) -> Vec<(u64, f64, String, String)> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&all)).expect("json");
    report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            (
                r["run"].as_u64().expect("run number"),
                r["time_ms"].as_f64().expect("time"),
                r["thread"].as_str().expect("thread").to_string(),
                r["status"].as_str().expect("status").to_string(),
            )
        })
        .collect()
}

#[test]
fn ironthread_sequential_takes_1700ms_on_tomcat_threads() {
    let rows = runs(&["ironthread", "--strategy", "sequential"]);
    assert_eq!(rows.len(), 5);
    for (i, (run, time, thread, _)) in rows.iter().enumerate() {
        assert_eq!(*run, i as u64 + 1);
        assert_eq!(*time, 1700.0);
        assert_eq!(thread, &format!("http-nio-8080-exec-{}", i + 1));
    }
}

#[test]
fn ironthread_bulkhead_takes_1000ms_and_failed_recommendations_fall_back() {
    let rows = runs(&["ironthread", "--strategy", "bulkhead"]);
    assert!(rows.iter().all(|r| r.1 == 1000.0), "{rows:?}");
    assert!(
        rows.iter().any(|r| r.3 == "Partial (Recs:Fallback)"),
        "{rows:?}"
    );
    // Below core every call gets a new thread (1-9), then queue-first reuses the idle ones:
    // IronThread-11 would need a full queue of 500.
    let threads: Vec<&str> = rows.iter().map(|r| r.2.as_str()).collect();
    assert_eq!(
        threads,
        [
            "IronThread-3",
            "IronThread-6",
            "IronThread-9",
            "IronThread-2",
            "IronThread-5"
        ]
    );
    let table = stdout(&["run", "ironthread"]);
    assert!(table.contains("| Run # | Strategy | Time (ms) | Thread Name  | Status"));
}

#[test]
fn a_latency_of_nothing_is_never_written_as_0_ms() {
    // User always fails and has no fallback: sequential code throws, nothing is answered.
    let failing = ["ironthread", "--set", "services.user.failure=1"];
    let run = |extra: &[&str]| {
        let mut args = vec!["run"];
        args.extend_from_slice(&failing);
        args.extend_from_slice(&["--strategy", "sequential"]);
        args.extend_from_slice(extra);
        stdout(&args)
    };
    let text = run(&[]);
    assert!(
        text.contains("Latency of answered requests (ms): none was answered"),
        "{text}"
    );
    assert!(text.contains("Time to failure (ms, failed + timeout + refused): mean 200.0"));
    let csv = run(&["--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    assert_eq!(cell("completed"), "5");
    for name in ["mean_ms", "p50_ms", "p99_ms", "max_ms"] {
        assert_eq!(cell(name), "", "{name} of no answer");
    }
    assert_eq!(cell("failed_mean_ms"), "200.000");
    // The compare table: a dash for each strategy, and nobody is crowned.
    let mut args = vec!["compare"];
    args.extend_from_slice(&failing);
    let table = stdout(&args);
    let p99 = table
        .lines()
        .find(|l| l.starts_with("| answered p99 (ms)"))
        .expect("answered p99 row");
    assert!(!p99.contains("0.0"), "{p99}");
    assert_eq!(p99.matches(" - ").count(), 5, "{p99}");
    assert!(table.contains("best: none (no request was answered)"));
    // And a run whose requests all succeed has no time to failure in its CSV.
    let ok = stdout(&[
        "run",
        "ironthread",
        "--strategy",
        "bulkhead",
        "--format",
        "csv",
    ]);
    assert!(ok.lines().nth(1).expect("row").ends_with(",,"), "{ok}");
}

#[test]
fn same_seed_gives_byte_identical_output_and_another_seed_other_draws() {
    for args in [
        &["run", "ironthread", "--format", "json"][..],
        &["compare", "erlang-c", "--duration", "20s"][..],
    ] {
        assert_eq!(stdout(args), stdout(args), "{args:?}");
    }
    let a = stdout(&["run", "erlang-c", "--duration", "20s", "--format", "csv"]);
    let b = stdout(&[
        "run",
        "erlang-c",
        "--duration",
        "20s",
        "--format",
        "csv",
        "--seed",
        "2",
    ]);
    assert_ne!(a, b);
    let a = runs(&["ironthread", "--seed", "10"]);
    let b = runs(&["ironthread", "--seed", "1"]);
    assert_ne!(a, b);
}

#[test]
fn closed_load_of_400_clients_on_200_tomcat_threads_caps_at_117_6_per_second() {
    let json = stdout(&["run", "tomcat-ceiling", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let x = v["throughput_rps"].as_f64().expect("throughput");
    let expected = 200.0 / 1.7;
    assert!((x - expected).abs() / expected < 0.01, "{x} vs {expected}");
    assert_eq!(v["requests"]["failed"], 0);
}

#[test]
fn run_json_has_the_documented_fields() {
    let json = stdout(&["run", "ironthread", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    for key in [
        "preset",
        "strategy",
        "seed",
        "simulated_s",
        "requests",
        "throughput_rps",
        "latency_ms",
        "pools",
        "services",
        "theory",
        "runs",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in [
        "sent",
        "completed",
        "success",
        "partial",
        "failed",
        "timeout",
        "refused",
    ] {
        assert!(v["requests"].get(key).is_some(), "missing requests.{key}");
    }
    for key in ["mean", "p50", "p90", "p99", "p999", "max"] {
        assert!(
            v["latency_ms"].get(key).is_some(),
            "missing latency_ms.{key}"
        );
    }
    let pool = &v["pools"][1];
    for key in [
        "name",
        "kind",
        "core",
        "max",
        "queue_capacity",
        "largest_pool_size",
        "max_active",
        "max_queue",
        "completed",
        "rejected",
    ] {
        assert!(pool.get(key).is_some(), "missing pools[].{key}");
    }
    assert_eq!(pool["name"], "IronThread");
    assert_eq!(pool["largest_pool_size"], 10);
    let run = &v["runs"][0];
    for key in ["run", "strategy", "time_ms", "thread", "status"] {
        assert!(run.get(key).is_some(), "missing runs[].{key}");
    }
    let compare: serde_json::Value =
        serde_json::from_str(&stdout(&["compare", "ironthread", "--format", "json"]))
            .expect("json");
    let strategies: Vec<&str> = compare
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| r["strategy"].as_str().expect("strategy"))
        .collect();
    assert_eq!(
        strategies,
        ["sequential", "shared", "bulkhead", "unbounded", "semaphore"]
    );
}

#[test]
fn presets_are_listed_and_each_checks() {
    let list = stdout(&["presets"]);
    let names: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"ironthread"), "{list}");
    for name in names {
        let out = stdout(&["check", name]);
        assert!(out.contains(": ok"), "{out}");
    }
}

#[test]
fn without_a_terminal_the_default_command_prints_the_comparison() {
    let out = threadlab(&[]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no terminal"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("sequential") && stdout.contains("bulkhead"),
        "{stdout}"
    );
}

/// Runs threadlab on a preset file with `body`, expecting exit code 2 and a message that
/// contains every `needle`.
fn rejects(body: &str, extra: &[&str], needles: &[&str]) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("threadlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("bad-{n}.toml"));
    std::fs::write(&path, body).expect("write preset");
    let path_s = path.to_string_lossy().to_string();
    let mut args = vec!["run", path_s.as_str()];
    args.extend_from_slice(extra);
    let out = threadlab(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in: {stderr}");
    }
    let _ = std::fs::remove_file(&path);
}

const GOOD: &str = r#"
[scenario]
name = "t"
[load]
mode = "runs"
count = 1
[[services]]
name = "a"
latency = "10ms"
[endpoint]
calls = ["a"]
[[strategy.bulkhead]]
name = "P"
services = ["a"]
core = 2
max = 4
"#;

#[test]
fn bad_input_exits_2_naming_file_field_value_and_range() {
    rejects(
        &GOOD.replace("count = 1", "count = 1\nspeed = 3"),
        &[],
        &["bad-", "speed"],
    );
    rejects(
        &GOOD.replace("core = 2", "core = 8"),
        &[],
        &["strategy.bulkhead[0].max", "8"],
    );
    rejects(
        &GOOD.replace("max = 4", "max = 0"),
        &[],
        &["strategy.bulkhead[0].max", "0"],
    );
    rejects(
        &GOOD.replace("latency = \"10ms\"", "latency = \"10ms\"\nfailure = 1.5"),
        &[],
        &["services[0].failure", "1.5", "0.0..=1.0"],
    );
    rejects(
        &GOOD.replace("calls = [\"a\"]", "calls = [\"b\"]"),
        &[],
        &["endpoint", "\"b\""],
    );
    rejects(
        &GOOD.replace("services = [\"a\"]", "services = [\"zz\"]"),
        &[],
        &["zz"],
    );
    rejects(
        &GOOD.replace("\"10ms\"", "\"10 parsecs\""),
        &[],
        &["services[0].latency", "ms"],
    );
    rejects(
        GOOD,
        &["--set", "server.threads=-1"],
        &["--set", "server.threads"],
    );
    rejects(GOOD, &["--set", "nonsense"], &["--set", "nonsense"]);
    rejects(GOOD, &["--duration", "soon"], &["--duration", "soon"]);
    let out = threadlab(&["run", "/nonexistent/preset.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/preset.toml"));
    let out = threadlab(&["run", "no-such-preset"]);
    assert_eq!(out.status.code(), Some(2));
    let out = threadlab(&["run", "ironthread", "--strategy", "fastest"]);
    assert_eq!(out.status.code(), Some(2));
}

// ---- real execution ---------------------------------------------------------------------

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A real run is at the mercy of the machine's scheduler: one that a loaded machine could not
/// keep up with (exit 3) or whose timing fell outside its tolerance (exit 1) is run again, up
/// to three times in all; the last run is returned, so every other check still applies to it.
fn real_run(args: &[&str]) -> Output {
    let mut out = threadlab(args);
    for _ in 1..3 {
        if !matches!(out.status.code(), Some(1 | 3)) {
            break;
        }
        out = threadlab(args);
    }
    out
}

/// Without a terminal, `tui --engine real` runs every strategy for real and prints the
/// comparison (exit 0); what real mode refuses is bad input (exit 2), as for `run`.
#[test]
fn tui_with_the_real_engine_and_no_terminal_prints_the_real_comparison() {
    let out = real_run(&[
        "tui",
        "ironthread",
        "--engine",
        "real",
        "--time-scale",
        "0.05",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("no terminal"),
        "{}",
        stderr_of(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("sequential") && stdout.contains("unbounded"),
        "{stdout}"
    );
    let out = threadlab(&[
        "tui",
        "ironthread",
        "--engine",
        "real",
        "--set",
        "server.async=true",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("does not run server.async = true"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn real_run_over_the_thread_cap_or_with_a_bad_time_scale_is_bad_input() {
    let out = threadlab(&[
        "run",
        "ironthread",
        "--engine",
        "real",
        "--max-threads",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("OS threads"),
        "{}",
        stderr_of(&out)
    );
    let out = threadlab(&["run", "ironthread", "--engine", "real", "--time-scale", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("--time-scale"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn verify_passes_within_the_tolerance_and_fails_beyond_it() {
    let out = real_run(&[
        "verify",
        "ironthread",
        "--strategy",
        "sequential",
        "--time-scale",
        "0.05",
        // Generous: a loaded machine can stall a thread for milliseconds (5 ms is 100 ms here).
        "--tolerance",
        "0.25",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("| run latency, worst run (ms) |"), "{out}");
    assert!(out.contains("Result: PASS"), "{out}");
    // No real run takes exactly the simulated time.
    let out = threadlab(&[
        "verify",
        "ironthread",
        "--strategy",
        "sequential",
        "--time-scale",
        "0.05",
        "--tolerance",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Result: FAIL"));
}

#[test]
fn verify_holds_a_closed_load_against_the_simulations_range_over_seeds() {
    // Which of overload's requests meets which draw turns on the order of its clients'
    // simultaneous answers: the simulated mean at 5 s is 1,525 ms for seed 1 and ranges over
    // the next seeds; the real run is held against that range.
    let out = real_run(&[
        "verify",
        "overload",
        "--strategy",
        "sequential",
        "--duration",
        "5s",
        "--time-scale",
        "0.05",
        // Generous, as above: a stalled thread must not fail it.
        "--tolerance",
        "0.25",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("| mean latency (ms)      | 1525.2 [1300.1, 1650.2] |"),
        "{text}"
    );
    assert!(
        text.contains("the simulation's range over seeds 1 to 8"),
        "{text}"
    );
    assert!(text.contains("| clients never answered |"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
}

/// A real run has no simulated cores: its report says so instead of "0 cores, 0% used", and
/// its JSON has no `cpu` block; a simulated run reports the scenario's cores.
#[test]
fn a_real_run_reports_no_simulated_cores() {
    let args = [
        "run",
        "ironthread",
        "--engine",
        "real",
        "--time-scale",
        "0.05",
    ];
    let out = real_run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    let cpu = table
        .lines()
        .find(|l| l.starts_with("CPU: "))
        .unwrap_or_default();
    assert!(cpu.starts_with("CPU: not simulated"), "{table}");
    assert!(!table.contains("0 cores"), "{table}");
    let json = real_run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(0), "{}", stderr_of(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON report");
    assert!(v.get("cpu").is_none(), "{v}");
    let sim = threadlab(&["run", "ironthread", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&sim.stdout).expect("JSON report");
    assert_eq!(v["cpu"]["cores"], 11, "{v}");
}

/// 100,000 closed-loop clients all due at t = 0 in 10 ms of real time: no machine sends them
/// all, so the run says it fell behind, with the numbers, on stderr, in the table and in the
/// JSON, and exits 3 after printing its report.
#[test]
fn a_real_run_that_cannot_keep_up_says_so_and_exits_3() {
    let args = [
        "run",
        "ironthread",
        "--engine",
        "real",
        "--set",
        "load.mode=closed",
        "--set",
        "load.clients=100000",
        "--set",
        "server.max_connections=100000",
        "--duration",
        "1s",
        "--time-scale",
        "0.01",
    ];
    let out = threadlab(&args);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("threadlab: warning: bulkhead: this machine could not keep up")
            && stderr.contains("of 100000 closed-loop clients never sent a request"),
        "{stderr}"
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(
            "WARNING: this machine could not keep up, so these figures are not the model's"
        ),
        "{table}"
    );
    let json = threadlab(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(3), "{}", stderr_of(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON report");
    let pace = &v["pace"];
    assert_eq!(pace["behind"], true, "{pace}");
    let (sent, unsent) = (pace["sent"].as_u64(), pace["unsent"].as_u64());
    assert_eq!(v["requests"]["sent"].as_u64(), sent, "{v}");
    assert_eq!(
        sent.zip(unsent).map(|(s, u)| s + u),
        Some(100_000),
        "{pace}"
    );
    assert!(
        !pace["reasons"].as_array().is_some_and(Vec::is_empty),
        "{pace}"
    );
}

/// A real run with time to spare keeps up: no warning, no `behind`, exit 0.
#[test]
fn a_real_run_that_keeps_up_has_no_warning() {
    let out = real_run(&[
        "run",
        "ironthread",
        "--engine",
        "real",
        "--strategy",
        "sequential",
        "--time-scale",
        "0.05",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("warning"), "{}", stderr_of(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["pace"]["behind"], false, "{}", v["pace"]);
    assert_eq!(v["pace"]["unsent"], 0, "{}", v["pace"]);
}

/// The README counts and names the strategies as `Strategy::ALL` does.
#[test]
fn the_readme_counts_and_names_every_strategy() {
    let readme = include_str!("../README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let all = threadlab::scenario::Strategy::ALL;
    let words = [
        "none", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ];
    let count = words.get(all.len()).copied().unwrap_or("many");
    for wrong in words.iter().filter(|w| **w != count) {
        assert!(
            !readme.contains(&format!(" {wrong} strategies")),
            "the README says {wrong} strategies; there are {count}"
        );
    }
    assert!(readme.contains(&format!("{count} strategies")));
    let listed: Vec<String> = all.iter().map(|s| format!("`{}`", s.name())).collect();
    assert!(
        readme.contains(&listed.join(", ")),
        "the README's list of strategies is not {}",
        listed.join(", ")
    );
}

/// A name a spreadsheet would take for a formula is written with a leading quote (OWASP).
#[test]
fn run_csv_quotes_a_preset_name_a_spreadsheet_would_run() {
    let dir = std::env::temp_dir().join(format!("threadlab-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("@SUM(A1).toml"), GOOD).expect("write preset");
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["run", "@SUM(A1).toml", "--format", "csv"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs");
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        csv.lines()
            .nth(1)
            .is_some_and(|row| row.starts_with("'@SUM(A1).toml,")),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Durations take hours and compounds; a bound is written in a form the parser accepts.
#[test]
fn durations_take_hours_and_compounds_and_bounds_are_written_as_accepted() {
    let out = threadlab(&["check", "ironthread", "--duration", "10h"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = threadlab(&["check", "ironthread", "--duration", "1m30s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = threadlab(&[
        "check",
        "ironthread",
        "--set",
        "strategy.semaphore.max_wait=1h",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = threadlab(&[
        "check",
        "ironthread",
        "--set",
        "strategy.semaphore.max_wait=61m",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("at most \"1h\""),
        "{}",
        stderr_of(&out)
    );
}

/// A finite load plays until its last answer reaches the client: with a 1 s round trip the
/// one request is answered 3 s in (handshake, request, response), and the run lasts 3 s.
#[test]
fn a_runs_load_lasts_until_its_last_answer_arrives() {
    let out = stdout(&[
        "run",
        "ironthread",
        "--set",
        "load.rtt=\"1s\"",
        "--set",
        "load.count=1",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["latency_ms"]["max"], 3000.0, "{out}");
    assert_eq!(r["simulated_s"], 3.0, "{out}");
    assert_eq!(r["requests"]["in_flight"], 0, "{out}");
}

/// With every latency 0 four strategies end at t = 0 and have no rate: none is crowned by a
/// rate the others cannot have; the most answered (then the lower p99) are.
#[test]
fn runs_that_take_no_time_have_no_rates_and_are_ranked_by_what_they_answered() {
    let zero = support::IRONTHREAD_IN_NO_TIME;
    let table = stdout(&[&["compare", "ironthread"][..], &zero].concat());
    let best = table
        .lines()
        .find(|l| l.starts_with("best:"))
        .expect("best line");
    assert!(!best.contains("shared"), "{best}");
    assert!(
        best.contains("sequential = bulkhead = unbounded = semaphore"),
        "{best}"
    );
    assert!(table.contains(" shared |"), "{table}");
    let goodput = table
        .lines()
        .find(|l| l.starts_with("| goodput"))
        .expect("goodput row");
    assert!(goodput.contains(" - "), "{goodput}");
    let json = stdout(&[&["compare", "ironthread", "--format", "json"][..], &zero].concat());
    let runs: serde_json::Value = serde_json::from_str(&json).expect("json");
    for r in runs.as_array().expect("array") {
        let timed = r["simulated_s"].as_f64().expect("simulated_s") > 0.0;
        assert_eq!(r["goodput_rps"].is_null(), !timed, "{r}");
        assert_eq!(r["failure_rps"]["failed"].is_null(), !timed, "{r}");
    }
}

/// `run` and `compare` write one CSV schema, whatever the load.
#[test]
fn run_and_compare_csv_share_one_header_for_every_load() {
    let header = |args: &[&str]| stdout(args).lines().next().unwrap_or("").to_string();
    let compare = header(&["compare", "ironthread", "--format", "csv"]);
    assert_eq!(header(&["run", "ironthread", "--format", "csv"]), compare);
    let closed = [
        "run",
        "tomcat-ceiling",
        "--duration",
        "2s",
        "--format",
        "csv",
    ];
    assert_eq!(header(&closed), compare);
    assert!(
        compare.contains("goodput_rps") && compare.contains("p99_ms"),
        "{compare}"
    );
}

/// A tour expectation or a figure metric that cannot be evaluated is bad input for `check` (and
/// `tour`), not a condition the tour silently ignores.
#[test]
fn unevaluable_expectations_and_metrics_are_refused_at_check() {
    for (set, needle) in [
        ("tour.0.expect=[\"x === 1\"]", "tour[0].expect[0]"),
        (
            "tour.0.expect=[\"nope.nope > 1\"]",
            "no figure \"nope.nope\"",
        ),
        ("figures.0.metric=nope.x", "figures[0].metric = \"nope.x\""),
    ] {
        let out = threadlab(&["check", "ironthread", "--set", set]);
        assert_eq!(out.status.code(), Some(2), "{set}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains(needle),
            "{set}: {}",
            stderr_of(&out)
        );
    }
    let out = threadlab(&[
        "check",
        "ironthread",
        "--set",
        "tour.0.expect=[\"pools.IronThread.busy >= 0\"]",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn an_accept_count_tomcat_ignores_is_ignored_and_said_so() {
    let out = threadlab(&["check", "overload", "--set", "server.accept_count=0"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("server.accept_count = 0 is ignored") && err.contains("stays 100"),
        "{err}"
    );
    let out = threadlab(&["check", "overload", "--set", "server.accept_count=5"]);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_closed_load_takes_connect_spacing_and_a_runs_load_says_it_has_no_clients() {
    let spaced = [
        "run",
        "overload",
        "--duration",
        "1s",
        "--set",
        "load.connect_spacing=\"1ms\"",
    ];
    let out = threadlab(&spaced);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = threadlab(&["run", "ironthread", "--set", "load.clients=5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("a runs load has no clients"),
        "{}",
        stderr_of(&out)
    );
}
