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

#[test]
fn a_chart_theme_without_a_chart_is_refused() {
    for command in ["run", "compare"] {
        let (code, err) = threadlab(&[command, "ironthread", "--theme", "dark"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--theme colours the --plot chart"), "{err}");
    }
    let (code, err) = threadlab(&[
        "sweep",
        "ironthread",
        "--vary",
        "server.threads=20,30",
        "--theme",
        "light",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--theme"), "{err}");
}

#[test]
fn a_duration_the_live_view_or_a_screenshot_would_ignore_is_refused() {
    for command in ["tui", "tour"] {
        let (code, err) = threadlab(&[command, "ironthread", "--duration", "5s"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("{command} --duration")), "{err}");
    }
    let (code, err) = threadlab(&[
        "screenshot",
        "ironthread",
        "--duration",
        "5s",
        "--out",
        "/tmp/never-written.svg",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--at"), "{err}");
}

#[test]
fn a_phase_after_the_runs_end_is_refused_or_said_and_not_weighed() {
    let (code, err) = threadlab(&["check", "metastable", "--set", "load.phases.4.at=170s"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("load.phases.4.at = \"170s\" is at or after the run's end"),
        "{err}"
    );
    // A shorter --duration leaves the preset's later phases out, and says so.
    let (code, err) = threadlab(&["check", "metastable", "--duration", "35s"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("phases from load.phases.1 (at 40s) on begin at or after the run's end"),
        "{err}"
    );
}

#[test]
fn an_empty_retry_list_is_refused_rather_than_retrying_nothing() {
    for key in ["load.retry.on=[]", "services.sleep.retry={ on = [] }"] {
        let (code, err) = threadlab(&["check", "metastable", "--set", key]);
        assert_eq!(code, 2, "{key}: {err}");
        assert!(err.contains("retry.on = [] is empty"), "{err}");
    }
}

#[test]
fn check_refuses_a_figure_whose_set_list_does_not_load() {
    let dir = std::env::temp_dir().join(format!("threadlab-figset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let preset = dir.join("figures.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/presets/metastable.toml"
    ))
    .expect("preset");
    for (bad, says) in [
        (
            "load.retry.attempts=0",
            "load.retry.attempts = 0 is out of range",
        ),
        ("load.clients=4", "an open load has no clients"),
        ("no.such.key=1", "no.such"),
    ] {
        let changed = text.replacen(
            "set = [\"load.retry.attempts=1\"]",
            &format!("set = [\"{bad}\"]"),
            1,
        );
        assert_ne!(changed, text);
        std::fs::write(&preset, changed).expect("write");
        let (code, err) = threadlab(&["check", preset.to_str().expect("utf-8")]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("figures.3.set (\"no retries at all"), "{err}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
