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
