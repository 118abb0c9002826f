//! Ctrl-C during a long headless run: the process stops, prints what it finished marked
//! partial, and exits 130. The test waits until the process catches SIGINT (it reads the
//! caught-signal mask in /proc), so no timing is assumed.
#![cfg(target_os = "linux")]

use std::process::{Child, Command, Stdio};

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("threadlab starts")
}

/// True once the process has a SIGINT handler (bit 1 of SigCgt), or has ended.
fn catches_sigint(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return true;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << 1) != 0)
}

/// Sends SIGINT once the handler is in place (unless the process has already ended, which the
/// caller's assertions then report); returns exit code, stdout, stderr.
fn interrupt(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = spawn(args);
    let pid = child.id();
    loop {
        if child
            .try_wait()
            .expect("threadlab can be waited for")
            .is_some()
        {
            break;
        }
        if catches_sigint(pid) {
            let sent = Command::new("kill")
                .args(["-INT", &pid.to_string()])
                .status()
                .expect("kill runs");
            assert!(sent.success());
            break;
        }
        std::thread::yield_now();
    }
    let out = child.wait_with_output().expect("threadlab ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn ctrl_c_stops_a_long_run_and_prints_its_report_marked_partial_with_exit_130() {
    let (code, stdout, stderr) = interrupt(&[
        "run",
        "tomcat-ceiling",
        "--duration",
        "100000000s",
        "--force",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["interrupted"], true);
    assert!(report["simulated_s"].as_f64().expect("simulated_s") < 100_000_000.0);
    assert!(stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn ctrl_c_stops_a_sweep_and_prints_the_finished_points_marked_partial() {
    let (code, stdout, stderr) = interrupt(&[
        "sweep",
        "tomcat-ceiling",
        "--vary",
        "server.threads=50..400:50",
        "--duration",
        "100000000s",
        "--force",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["interrupted"], true);
    assert!(report["points"].as_array().expect("points").len() < 8);
}

#[test]
fn ctrl_c_stops_a_comparison_and_prints_the_strategy_it_stopped_marked_partial() {
    let (code, stdout, stderr) = interrupt(&[
        "compare",
        "tomcat-ceiling",
        "--duration",
        "100000000s",
        "--force",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(130), "{stderr}");
    let reports: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON array");
    let last = reports.as_array().and_then(|a| a.last()).expect("a report");
    assert_eq!(last["interrupted"], true);
}

/// A long `compare --against` of tomcat-ceiling: Ctrl-C stops it in its first strategy.
const LONG_AGAINST: [&str; 7] = [
    "compare",
    "tomcat-ceiling",
    "--against",
    "server.threads=300",
    "--duration",
    "100000000s",
    "--force",
];

#[test]
fn ctrl_c_stops_a_comparison_against_overrides_and_marks_the_side_it_stopped() {
    let args = [&LONG_AGAINST[..], &["--format", "json"]].concat();
    let (code, stdout, stderr) = interrupt(&args);
    assert_eq!(code, Some(130), "{stderr}");
    let entries: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON array");
    let entries = entries.as_array().expect("an array");
    assert_eq!(entries[0]["side"], "preset");
    assert_eq!(entries[0]["interrupted"], true, "{stdout}");
    assert!(entries[0]["simulated_s"].as_f64().expect("simulated_s") < 100_000_000.0);
    // The strategy it stopped is the last one printed.
    assert!(entries.len() <= 2, "{stdout}");
}

#[test]
fn ctrl_c_marks_a_comparison_against_overrides_partial_on_its_last_line() {
    let (code, stdout, stderr) = interrupt(&LONG_AGAINST);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stdout.contains("| against |"), "{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("PARTIAL: stopped by Ctrl-C or at a limit"),
        "{stdout}"
    );
}

#[test]
fn ctrl_c_marks_a_table_partial_on_its_last_line() {
    let (code, stdout, stderr) = interrupt(&[
        "run",
        "tomcat-ceiling",
        "--duration",
        "100000000s",
        "--force",
    ]);
    assert_eq!(code, Some(130), "{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("PARTIAL: stopped by Ctrl-C or at a limit"),
        "{stdout}"
    );
}

/// An hour of a light open load, run for real (36 s of wall time): Ctrl-C ends it first.
const REAL_HOUR: [&str; 12] = [
    "ironthread",
    "--engine",
    "real",
    "--set",
    "load.mode=open",
    "--set",
    "load.rate=5",
    "--duration",
    "3600s",
    "--time-scale",
    "0.01",
    "--force",
];

#[test]
fn ctrl_c_stops_a_real_run_and_prints_its_report_marked_partial_with_exit_130() {
    let args = [&["run"][..], &REAL_HOUR, &["--format", "json"]].concat();
    let (code, stdout, stderr) = interrupt(&args);
    assert_eq!(code, Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["interrupted"], true);
    assert_eq!(report["engine"], "real");
    assert!(report["simulated_s"].as_f64().expect("simulated_s") < 3600.0);
    assert!(stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn ctrl_c_stops_a_real_comparison_at_the_strategy_it_was_running() {
    let args = [&["compare"][..], &REAL_HOUR].concat();
    let (code, stdout, stderr) = interrupt(&args);
    assert_eq!(code, Some(130), "{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("PARTIAL: "), "{stdout}");
    // The first strategy was running: the others never started.
    assert_eq!(
        stdout.matches("run for real at time scale").count(),
        1,
        "{stdout}"
    );
}
