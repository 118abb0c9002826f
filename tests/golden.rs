//! Byte-for-byte guard on the headless output of every built-in preset.
//!
//! Each preset's `compare --format json` (every strategy on identical requests) and each
//! strategy's `run --format json` are pinned as insta snapshots. A change that alters a figure
//! must show up here as a reviewed snapshot diff (`INSTA_UPDATE=always cargo test --test
//! golden`, then read the `.snap` diffs), never silently. Long presets are cut to a few
//! simulated seconds so the guard stays fast in a debug build; the cut still crosses their
//! warm-up and the steady state that the figures come from.

use std::process::{Command, Stdio};

/// Every strategy's name, from the one list the command line and the reports use.
fn strategies() -> impl Iterator<Item = &'static str> {
    threadlab::scenario::Strategy::ALL
        .into_iter()
        .map(|s| s.name())
}

/// Every built-in preset, with the simulated time the guard plays (None: the preset's own).
const PRESETS: [(&str, Option<&str>); 15] = [
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
    ("spike", None),
    ("metastable", None),
    ("circuit-breaker", None),
    ("jvm-pauses", Some("5s")),
];

#[test]
fn every_builtin_preset_is_pinned() {
    let pinned: Vec<&str> = PRESETS.iter().map(|(name, _)| *name).collect();
    let builtin: Vec<&str> = threadlab::scenario::builtin_names().collect();
    assert_eq!(pinned, builtin);
}

fn threadlab(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs");
    assert!(
        out.status.success(),
        "threadlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn with_duration<'a>(mut args: Vec<&'a str>, duration: Option<&'a str>) -> Vec<&'a str> {
    if let Some(d) = duration {
        args.extend_from_slice(&["--duration", d]);
    }
    args
}

#[test]
fn every_preset_compares_byte_for_byte_as_pinned() {
    for (preset, duration) in PRESETS {
        let args = with_duration(vec!["compare", preset, "--format", "json"], duration);
        insta::assert_snapshot!(format!("compare_{preset}"), threadlab(&args));
    }
}

#[test]
fn every_strategy_runs_byte_for_byte_as_pinned() {
    for (preset, duration) in PRESETS {
        for strategy in strategies() {
            let args = with_duration(
                vec!["run", preset, "--strategy", strategy, "--format", "json"],
                duration,
            );
            insta::assert_snapshot!(format!("run_{preset}_{strategy}"), threadlab(&args));
        }
    }
}

#[test]
fn tables_and_csv_of_the_default_preset_are_pinned() {
    for strategy in strategies() {
        for format in ["table", "csv"] {
            let args = [
                "run",
                "ironthread",
                "--strategy",
                strategy,
                "--format",
                format,
            ];
            insta::assert_snapshot!(format!("{format}_ironthread_{strategy}"), threadlab(&args));
        }
    }
    insta::assert_snapshot!(
        "compare_table_forkjoin_trap",
        threadlab(&["compare", "forkjoin-trap"])
    );
}
