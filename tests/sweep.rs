//! `threadlab sweep`: the laws the tomcat-ceiling curve must follow, determinism whatever
//! the number of worker threads, and the refusals of bad `--vary` flags.

use std::process::{Command, Output};

fn sweep(args: &[&str], threads: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .arg("sweep")
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("threadlab runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("sweep prints JSON")
}

const TOMCAT: [&str; 6] = [
    "tomcat-ceiling",
    "--vary",
    "server.threads=50..400:50",
    "--duration",
    "170.1s",
    "--format",
];

#[test]
fn tomcat_goodput_follows_threads_over_hold_until_the_clients_limit() {
    let out = sweep(&[&TOMCAT[..], &["json"]].concat(), "2");
    let report = json(&out);
    let points = report["points"].as_array().expect("points");
    assert_eq!(points.len(), 8);
    let hold_s = 1.7;
    let clients = 400.0;
    for p in points {
        let threads: f64 = p["values"][0].as_f64().expect("a number");
        let goodput = p["goodput_rps"].as_f64().expect("goodput");
        let law = (threads / hold_s).min(clients / hold_s);
        assert!(
            (goodput - law).abs() <= 0.01 * law,
            "{threads} threads: goodput {goodput} vs law {law}"
        );
        let ceiling = p["ceiling_rps"].as_f64().expect("ceiling");
        assert!(
            (ceiling - threads / hold_s).abs() < 1e-9,
            "{threads}: ceiling {ceiling}"
        );
    }
    let last = points[7]["goodput_rps"].as_f64().expect("goodput");
    assert!((last - 235.0).abs() < 0.5, "400 threads: {last} req/s");
}

#[test]
fn output_bytes_do_not_depend_on_the_number_of_worker_threads() {
    for format in ["json", "table", "csv"] {
        let args = [
            "tomcat-ceiling",
            "--vary",
            "server.threads=10..40:15",
            "--vary",
            "load.clients=20,60",
            "--strategy",
            "all",
            "--duration",
            "10s",
            "--format",
            format,
        ];
        let one = sweep(&args, "1");
        let two = sweep(&args, "2");
        let three = sweep(&args, "3");
        assert!(
            one.status.success(),
            "{}",
            String::from_utf8_lossy(&one.stderr)
        );
        assert_eq!(one.stdout, two.stdout, "{format}: 1 vs 2 threads");
        assert_eq!(one.stdout, three.stdout, "{format}: 1 vs 3 threads");
    }
}

#[test]
fn a_grid_runs_every_pair_first_axis_outermost_under_every_strategy() {
    let out = sweep(
        &[
            "tomcat-ceiling",
            "--vary",
            "server.threads=100,200",
            "--vary",
            "load.clients=10..30:10",
            "--strategy",
            "all",
            "--duration",
            "5s",
            "--format",
            "json",
        ],
        "2",
    );
    let report = json(&out);
    let points = report["points"].as_array().expect("points");
    let strategies = report["strategies"].as_array().expect("strategies").len();
    assert!(strategies >= 4);
    assert_eq!(points.len(), 2 * 3 * strategies);
    let pairs: Vec<(String, String)> = points
        .iter()
        .step_by(strategies)
        .map(|p| (p["values"][0].to_string(), p["values"][1].to_string()))
        .collect();
    // Numbers are JSON numbers, as in every other field.
    let expected: Vec<(String, String)> = ["100", "200"]
        .iter()
        .flat_map(|t| ["10", "20", "30"].map(|c| ((*t).to_string(), c.to_string())))
        .collect();
    assert_eq!(pairs, expected);
    assert_eq!(report["interrupted"], false);
}

#[test]
fn bad_vary_specs_exit_2_naming_the_flag_and_the_allowed_form() {
    // A spec of the wrong form is told the form; a well-formed one whose field or value the
    // preset refuses is told why, without the form.
    for (spec, form) in [
        ("server.thredas=50..400:50", false),
        ("server.threads=400..50:50", true),
        ("server.threads=50..400:0", true),
        ("server.threads=1..20000:1", true),
        ("server.threads=50..400", true),
    ] {
        let out = sweep(&["tomcat-ceiling", "--vary", spec, "--duration", "1s"], "1");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains("--vary"), "{spec}: {err}");
        assert_eq!(
            err.contains("a..b:step") && err.contains("a,b,c"),
            form,
            "{spec}: {err}"
        );
        assert!(out.stdout.is_empty(), "{spec}: printed {:?}", out.stdout);
    }
    let grid = sweep(
        &[
            "tomcat-ceiling",
            "--vary",
            "server.threads=1..200:1",
            "--vary",
            "load.clients=1..100:1",
        ],
        "1",
    );
    assert_eq!(grid.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&grid.stderr).contains("20000 points"));
}

#[test]
fn an_unknown_strategy_exits_2_listing_the_strategies() {
    let out = sweep(
        &[
            "tomcat-ceiling",
            "--vary",
            "server.threads=10,20",
            "--strategy",
            "fastest",
        ],
        "1",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--strategy") && err.contains("bulkhead") && err.contains("all"),
        "{err}"
    );
}

#[test]
fn a_varied_load_field_is_checked_against_the_load_mode_and_may_come_with_it() {
    let out = sweep(&["ironthread", "--vary", "load.clients=10,40"], "1");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("load.clients") && err.contains("runs load"),
        "{err}"
    );
    let out = sweep(
        &[
            "ironthread",
            "--set",
            "load.mode=closed",
            "--vary",
            "load.clients=10,40",
            "--duration",
            "5s",
            "--format",
            "json",
        ],
        "1",
    );
    assert_eq!(json(&out)["points"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_pool_name_a_spreadsheet_would_run_is_quoted_in_the_csv() {
    let out = sweep(
        &[
            "ironthread",
            "--strategy",
            "bulkhead",
            "--set",
            "strategy.bulkhead.IronThread.name==cmd|calc",
            "--set",
            "load.mode=closed",
            "--vary",
            "load.clients=10,40",
            "--duration",
            "5s",
            "--format",
            "csv",
        ],
        "1",
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(csv.contains(",'=cmd|calc,"), "{csv}");
    assert!(!csv.contains(",=cmd"), "{csv}");
}

#[test]
fn csv_headers_are_the_json_keys_and_the_values_json_numbers() {
    let args = ["ironthread", "--vary", "load.count=1,2", "--format"];
    let csv = sweep(&[&args[..], &["csv"]].concat(), "1");
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    let report = json(&sweep(&[&args[..], &["json"]].concat(), "1"));
    let point = &report["points"][0];
    assert_eq!(point["values"][0], 1, "{point}");
    let header = csv.lines().next().expect("header");
    for column in header.split(',') {
        let known =
            column == "load.count" || point.get(column).is_some() || report.get(column).is_some();
        assert!(known, "CSV column {column} is not a JSON key: {point}");
    }
    assert!(report["interrupted"] == false && report.get("partial").is_none());
}

#[test]
fn a_sweep_too_large_as_a_whole_is_refused_with_its_numbers() {
    let args = [
        "tomcat-ceiling",
        "--vary",
        "server.threads=50..400:50",
        "--duration",
        "600s",
        "--strategy",
        "all",
    ];
    let out = sweep(&args, "1");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("8 point(s) x 5 strategies = 40 runs") && err.contains("--force"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
