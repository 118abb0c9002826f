//! `compare PRESET --against KEY=VALUE`: before and after, every strategy, side by side.

mod support;
use support::{stdout, threadlab};

/// A short run of the acceptance case: virtual-threads against virtual server threads.
const VIRTUAL: [&str; 6] = [
    "compare",
    "virtual-threads",
    "--against",
    "server.threads=virtual",
    "--duration",
    "1s",
];

#[test]
fn json_has_both_sides_for_every_strategy_and_the_preset_side_is_plain_compare() {
    let mut args = VIRTUAL.to_vec();
    args.extend_from_slice(&["--format", "json"]);
    let entries: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&args)).expect("a JSON array");
    let plain: Vec<serde_json::Value> = serde_json::from_str(&stdout(&[
        "compare",
        "virtual-threads",
        "--duration",
        "1s",
        "--format",
        "json",
    ]))
    .expect("a JSON array");
    assert_eq!(entries.len(), 2 * plain.len());
    for (i, before) in plain.iter().enumerate() {
        let (mut preset, against) = (entries[2 * i].clone(), &entries[2 * i + 1]);
        assert_eq!(preset["side"], "preset");
        assert_eq!(against["side"], "against");
        assert_eq!(
            against["against"],
            serde_json::json!(["server.threads=virtual"])
        );
        assert_eq!(preset["strategy"], before["strategy"]);
        assert_eq!(against["strategy"], before["strategy"]);
        // The preset's side is exactly what compare alone reports.
        let object = preset.as_object_mut().expect("an object");
        object.remove("side");
        object.remove("against");
        assert_eq!(&preset, before);
    }
    // The override took: the preset's platform Tomcat pool caps sequential, virtual does not.
    let goodput = |i: usize| entries[i]["goodput_rps"].as_f64().expect("goodput");
    assert!(
        goodput(1) > 2.0 * goodput(0),
        "{} vs {}",
        goodput(1),
        goodput(0)
    );
}

#[test]
fn csv_and_table_have_two_rows_per_strategy() {
    let mut args = VIRTUAL.to_vec();
    args.extend_from_slice(&["--format", "csv"]);
    let csv = stdout(&args);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "strategy,side,goodput_rps,p50_ms,p99_ms,failed_rps,timeout_rps,refused_rps,goodput_change_pct"
    );
    assert_eq!(lines.len(), 11);
    assert!(lines[1].starts_with("sequential,preset,"));
    assert!(lines[2].starts_with("sequential,against,"));
    // The change is a number of percent, and it is the change of the two rows' goodput.
    let cells = |line: &str| line.split(',').map(str::to_owned).collect::<Vec<_>>();
    let (before, after) = (cells(lines[1]), cells(lines[2]));
    let goodput = |row: &[String]| row[2].parse::<f64>().expect("goodput_rps is a number");
    let change: f64 = after[8].parse().expect("goodput_change_pct is a number");
    let expected = (goodput(&after) - goodput(&before)) / goodput(&before) * 100.0;
    assert!(
        (change - expected).abs() < 0.1,
        "{change} against {expected}"
    );
    assert_eq!(before[8], "", "the preset's row has no change");
    let table = stdout(&VIRTUAL);
    assert!(table.contains("then against server.threads=virtual"));
    assert_eq!(
        table.lines().filter(|l| l.contains("| against |")).count(),
        5
    );
}

#[test]
fn bad_overrides_and_options_are_refused_naming_against() {
    let out = threadlab(&["compare", "ironthread", "--against", "server.threads=abc"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--against server.threads=abc"), "{err}");
    for extra in [
        &["--engine", "real"][..],
        &["--trace", "x.json"],
        &["--strategy", "bulkhead"],
    ] {
        let mut args = vec!["compare", "ironthread", "--against", "server.threads=20"];
        args.extend_from_slice(extra);
        let out = threadlab(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
}

/// With every latency 0 most runs end at t = 0: no rate exists, and both sides say so as
/// `compare` does (null in JSON, `-` in the table, an empty CSV cell), never a rate of 0.
#[test]
fn runs_that_take_no_time_have_no_rates_on_either_side() {
    let zero = [
        &["compare", "ironthread"][..],
        &support::IRONTHREAD_IN_NO_TIME,
    ]
    .concat();
    let against = ["--against", "server.threads=20"];
    let json = stdout(&[&zero[..], &against, &["--format", "json"]].concat());
    let entries: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
    let plain: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&[&zero[..], &["--format", "json"]].concat()))
            .expect("a JSON array");
    let untimed = entries
        .iter()
        .filter(|e| e["simulated_s"].as_f64() == Some(0.0))
        .count();
    assert!(untimed >= 2, "{json}");
    for (i, e) in entries.iter().enumerate() {
        let timed = e["simulated_s"].as_f64().expect("simulated_s") > 0.0;
        assert_eq!(e["goodput_rps"].is_null(), !timed, "{e}");
        assert_eq!(e["failure_rps"]["failed"].is_null(), !timed, "{e}");
        if i % 2 == 0 {
            assert_eq!(e["goodput_rps"], plain[i / 2]["goodput_rps"], "{e}");
        }
    }
    let table = stdout(&[&zero[..], &against].concat());
    let sequential: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("| sequential"))
        .collect();
    assert_eq!(sequential.len(), 2, "{table}");
    for row in &sequential {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[3], "-", "{row}");
        assert!(!row.contains("0.00"), "{row}");
    }
    // No change in goodput between two rates that do not exist.
    let change: Vec<&str> = sequential[1].split('|').map(str::trim).collect();
    assert_eq!(change[9], "-", "{}", sequential[1]);
    let csv = stdout(&[&zero[..], &against, &["--format", "csv"]].concat());
    let row = csv
        .lines()
        .find(|l| l.starts_with("sequential,against,"))
        .expect("a row");
    assert!(row.starts_with("sequential,against,,"), "{row}");
}
