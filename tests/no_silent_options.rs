//! An option that cannot apply to the command or load is an error naming it (exit 2), never
//! silently ignored.

use std::process::{Command, Stdio};

fn threadlab(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn compare_refuses_a_strategy_it_would_ignore() {
    let (code, err) = threadlab(&["compare", "ironthread", "--strategy", "bulkhead"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--strategy") && err.contains("every strategy"),
        "{err}"
    );
}

#[test]
fn a_load_field_the_load_mode_does_not_use_is_refused() {
    let (code, err) = threadlab(&["run", "ironthread", "--set", "load.clients=40"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("load.clients") && err.contains("runs load"),
        "{err}"
    );
    let (code, err) = threadlab(&["run", "virtual-threads", "--set", "load.rate=5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("load.rate") && err.contains("closed load"),
        "{err}"
    );
}

#[test]
fn a_load_field_applies_once_the_mode_uses_it() {
    let args = [
        "run",
        "ironthread",
        "--set",
        "load.mode=closed",
        "--set",
        "load.clients=4",
        "--duration",
        "1s",
    ];
    let (code, err) = threadlab(&args);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn compare_help_does_not_offer_strategy() {
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["compare", "--help"])
        .output()
        .expect("threadlab runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(!help.contains("--strategy"), "{help}");
}

#[test]
fn a_sweep_refuses_a_trace_it_would_not_write() {
    let dir = std::env::temp_dir().join(format!("threadlab-sweep-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    let trace = path.to_string_lossy().into_owned();
    let (code, err) = threadlab(&[
        "sweep",
        "ironthread",
        "--vary",
        "load.count=1,2",
        "--trace",
        &trace,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sweep --trace"), "{err}");
    assert!(!path.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn real_run_options_are_refused_on_the_simulated_engine() {
    for args in [
        &["run", "ironthread", "--time-scale", "0.5"][..],
        &["compare", "ironthread", "--max-threads", "10"],
        &["tui", "ironthread", "--time-scale", "2"],
    ] {
        let (code, err) = threadlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("--engine real"), "{args:?}: {err}");
    }
    let (code, err) = threadlab(&[
        "run",
        "ironthread",
        "--engine",
        "real",
        "--max-threads",
        "0",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--max-threads") && err.contains("1..="),
        "{err}"
    );
}

#[test]
fn a_field_set_twice_is_refused_however_it_is_spelled() {
    let (code, err) = threadlab(&[
        "run",
        "ironthread",
        "--set",
        "services.0.failure=0",
        "--set",
        "services.user.failure=1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("services[0].failure") && err.contains("give each field once"),
        "{err}"
    );
    for extra in [["--vary", "load.count=3,4"], ["--set", "load.count=3"]] {
        let mut args = vec!["sweep", "ironthread", "--vary", "load.count=1,2"];
        args.extend(extra);
        let (code, err) = threadlab(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("--vary load.count") && err.contains("give each field once"),
            "{args:?}: {err}"
        );
    }
}
