//! Modelling your own service: `import spring|traces`, `tune`, `export spring` and `assert`,
//! on the example service in `examples/own-service` and on hand-made files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use threadlab::import::{self, Fit, KeyOutcome, Options};
use threadlab::scenario::{Latency, Scenario};

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/own-service")
        .join(file)
}

fn threadlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .env("CI", "true")
        .output()
        .expect("threadlab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn options(spring: Vec<PathBuf>, telemetry: Vec<PathBuf>) -> Options {
    Options {
        spring,
        telemetry,
        cores: 4,
        duration: "60s".into(),
        ..Options::default()
    }
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-own-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// Every key the example's application.yml names, and what it maps to.
const EXAMPLE_MAPPED: [(&str, &str); 32] = [
    ("server.tomcat.threads.max", "server.threads = 50"),
    ("server.tomcat.threads.min-spare", "server.min_spare = 10"),
    ("server.tomcat.accept-count", "server.accept_count = 100"),
    (
        "server.tomcat.max-connections",
        "server.max_connections = 2000",
    ),
    (
        "server.tomcat.keep-alive-timeout",
        "server.keep_alive_timeout = \"20s\"",
    ),
    (
        "server.tomcat.max-keep-alive-requests",
        "server.max_keep_alive_requests = 100",
    ),
    (
        "spring.datasource.hikari.maximum-pool-size",
        "resources.db.size = 10",
    ),
    (
        "spring.datasource.hikari.connection-timeout",
        "resources.db.timeout = \"2s\"",
    ),
    (
        "resilience4j.thread-pool-bulkhead.configs.default.queue-capacity",
        "strategy.bulkhead.recommendations.queue = 20",
    ),
    (
        "resilience4j.thread-pool-bulkhead.configs.default.keep-alive-duration",
        "strategy.bulkhead.user.keep_alive = \"20ms\"",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.user.core-thread-pool-size",
        "strategy.bulkhead.user.core = 10",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.user.max-thread-pool-size",
        "strategy.bulkhead.user.max = 10",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.orders.core-thread-pool-size",
        "strategy.bulkhead.orders.core = 10",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.orders.max-thread-pool-size",
        "strategy.bulkhead.orders.max = 10",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.recommendations.coreThreadPoolSize",
        "strategy.bulkhead.recommendations.core = 16",
    ),
    (
        "resilience4j.thread-pool-bulkhead.instances.recommendations.maxThreadPoolSize",
        "strategy.bulkhead.recommendations.max = 16",
    ),
    (
        "resilience4j.timelimiter.instances.recommendations.timeout-duration",
        "services.recommendations.timeout = \"800ms\"",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.sliding-window-type",
        "services.recommendations.breaker.window_type = \"count\"",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.sliding-window-size",
        "services.recommendations.breaker.window_size = 50",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.minimum-number-of-calls",
        "services.recommendations.breaker.minimum_calls = 20",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.failure-rate-threshold",
        "services.recommendations.breaker.failure_rate = 50.0",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.wait-duration-in-open-state",
        "services.recommendations.breaker.wait_in_open = \"10s\"",
    ),
    (
        "resilience4j.circuitbreaker.configs.default.permitted-number-of-calls-in-half-open-state",
        "services.recommendations.breaker.permitted_in_half_open = 5",
    ),
    (
        "resilience4j.circuitbreaker.instances.recommendations.base-config",
        "recommendations inherits configs.default",
    ),
    (
        "resilience4j.retry.instances.orders.max-attempts",
        "services.orders.retry.attempts = 3",
    ),
    (
        "resilience4j.retry.instances.orders.wait-duration",
        "services.orders.retry.backoff = \"100ms\"",
    ),
    (
        "resilience4j.retry.instances.orders.enable-exponential-backoff",
        "services.orders.retry.multiplier",
    ),
    (
        "resilience4j.retry.instances.orders.exponential-backoff-multiplier",
        "services.orders.retry.multiplier = 2.0",
    ),
    (
        "resilience4j.retry.instances.orders.ignore-exceptions[0]",
        "services.orders.retry.on = [\"timeout\", \"failure\", \"refused\"]",
    ),
    (
        "resilience4j.ratelimiter.instances.user.limit-for-period",
        "services.user.rate_limit.limit = 200",
    ),
    (
        "resilience4j.ratelimiter.instances.user.limit-refresh-period",
        "services.user.rate_limit.period = \"1s\"",
    ),
    (
        "resilience4j.ratelimiter.instances.user.timeout-duration",
        "services.user.rate_limit.timeout = \"0ms\"",
    ),
];

#[test]
fn the_example_configuration_maps_every_key_it_names_and_the_preset_loads() {
    let got = import::import(&options(
        vec![example("application.yml")],
        vec![example("traces.json")],
    ))
    .expect("the example imports");
    for (key, target) in EXAMPLE_MAPPED {
        let line = got
            .keys
            .iter()
            .find(|k| k.key == key)
            .unwrap_or_else(|| panic!("{key} not reported"));
        match &line.outcome {
            KeyOutcome::Mapped(to) => {
                assert!(to.contains(target), "{key}: {to}, expected {target}")
            }
            other => panic!("{key}: {other:?}"),
        }
    }
    // The rest is said to be left out, with the prod profile's document not read.
    let not_modelled: Vec<&str> = got
        .keys
        .iter()
        .filter(|k| matches!(k.outcome, KeyOutcome::NotModelled(_)))
        .map(|k| k.key.as_str())
        .collect();
    assert_eq!(
        not_modelled,
        [
            "server.port",
            "server.tomcat.connection-timeout",
            "spring.application.name",
            "spring.datasource.url",
            "management.endpoints.web.exposure.include",
            "resilience4j.timelimiter.instances.recommendations.cancel-running-future",
            "resilience4j.circuitbreaker.configs.default.register-health-indicator",
        ]
    );
    assert_eq!(
        got.keys
            .iter()
            .filter(|k| matches!(k.outcome, KeyOutcome::Inactive(_)))
            .count(),
        2
    );
    // The preset `check` accepts: it loads, and `check` says ok.
    let path = temp("example.toml", &got.preset);
    let (code, out, err) = threadlab(&["check", path.to_str().expect("path")]);
    assert_eq!(code, 0, "{out}{err}");
    let s = &got.scenario;
    assert_eq!(
        s.services
            .iter()
            .map(|x| x.name.as_str())
            .collect::<Vec<_>>(),
        ["postgresql", "user", "orders", "recommendations"]
    );
    assert_eq!(s.strategy.default, threadlab::scenario::Strategy::Bulkhead);
    // The prod profile, asked for, raises Tomcat's threads.
    let mut prod = options(
        vec![example("application.yml")],
        vec![example("traces.json")],
    );
    prod.profiles = vec!["prod".into()];
    let prod = import::import(&prod).expect("prod imports");
    assert_eq!(
        prod.scenario.server.threads,
        threadlab::scenario::ServerThreads::Platform(100)
    );
}

#[test]
fn relaxed_binding_variants_of_one_key_give_the_same_preset() {
    let variants = [
        "server:\n  tomcat:\n    accept-count: 37\n",
        "server.tomcat.acceptCount: 37\n",
        "server:\n  tomcat:\n    accept_count: 37\n",
    ];
    let mut presets: Vec<String> = variants
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let got = import::import(&options(vec![temp(&format!("v{i}.yml"), text)], vec![]))
                .expect("imports");
            assert_eq!(got.scenario.server.accept_count, 37);
            got.preset
                .lines()
                .map(|l| l.split(" #").next().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    let props = import::import(&options(
        vec![temp("v.properties", "server.tomcat.ACCEPT_COUNT=37\n")],
        vec![],
    ))
    .expect("properties");
    presets.push(
        props
            .preset
            .lines()
            .map(|l| l.split(" #").next().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    );
    // The header names the file; the rest is the same preset.
    let bodies: Vec<&str> = presets
        .iter()
        .map(|p| p.split_once("[scenario]").map_or("", |x| x.1))
        .collect();
    assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:#?}");
}

#[test]
fn a_malformed_file_exits_2_naming_the_file_the_line_and_the_key() {
    let bad_yaml = temp(
        "bad.yml",
        "server:\n  tomcat:\n    threads:\n      max: [1, 2\n",
    );
    let (code, _, err) = threadlab(&["import", "spring", bad_yaml.to_str().expect("path")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.yml:") && err.contains("not YAML"),
        "{err}"
    );
    let bad_value = temp(
        "bad-value.yml",
        "server:\n  tomcat:\n    threads:\n      max: lots\n",
    );
    let (code, _, err) = threadlab(&["import", "spring", bad_value.to_str().expect("path")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad-value.yml:4: server.tomcat.threads.max: \"lots\" is not a whole number"),
        "{err}"
    );
    // A value the preset refuses is blamed on its key.
    let zero = temp("zero.properties", "a=1\nserver.tomcat.threads.max=0\n");
    let (code, _, err) = threadlab(&["import", "spring", zero.to_str().expect("path")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "zero.properties:2: server.tomcat.threads.max: gives a preset threadlab refuses"
        ),
        "{err}"
    );
}

/// A hand-made Zipkin v2 file: `a` then `b` and `c` at once, 200 requests.
fn zipkin_file() -> String {
    let mut spans = Vec::new();
    for i in 0..200u64 {
        let t = 1_000_000 + i * 50_000; // µs, 20 a second
        let a = 10_000 + (i * 37 % 100) * 300; // 10-40 ms
        let b = 20_000 + (i * 53 % 100) * 500;
        let c = 5_000 + (i * 71 % 100) * 100;
        let root = format!("r{i}");
        spans.push(format!(r#"{{"traceId":"t{i}","id":"{root}","name":"get /page","kind":"SERVER","timestamp":{t},"duration":{},"localEndpoint":{{"serviceName":"page"}}}}"#, a + b + 1000));
        spans.push(format!(r#"{{"traceId":"t{i}","id":"a{i}","parentId":"{root}","name":"get","kind":"CLIENT","timestamp":{},"duration":{a},"localEndpoint":{{"serviceName":"page"}},"remoteEndpoint":{{"serviceName":"a"}}}}"#, t + 100));
        spans.push(format!(r#"{{"traceId":"t{i}","id":"b{i}","parentId":"{root}","name":"get","kind":"CLIENT","timestamp":{},"duration":{b},"localEndpoint":{{"serviceName":"page"}},"remoteEndpoint":{{"serviceName":"b"}}{}}}"#, t + a + 200, if i % 10 == 0 { r#","tags":{"error":"boom"}"# } else { "" }));
        spans.push(format!(r#"{{"traceId":"t{i}","id":"c{i}","parentId":"{root}","name":"get","kind":"CLIENT","timestamp":{},"duration":{c},"localEndpoint":{{"serviceName":"page"}},"remoteEndpoint":{{"serviceName":"c"}}}}"#, t + a + 250));
    }
    format!("[{}]", spans.join(",\n"))
}

fn percentiles_ms(s: &Scenario, name: &str) -> Vec<(f64, f64)> {
    let svc = s.services.iter().find(|x| x.name == name).expect("service");
    match &svc.latency {
        Latency::Quantiles(rows) => rows.iter().map(|(p, v)| (*p, v.as_millis_f64())).collect(),
        other => panic!("{other:?}"),
    }
}

fn file_percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    import::fit::percentile(&xs, p)
}

#[test]
fn zipkin_and_otlp_rebuild_sequential_and_fanned_out_calls_and_each_service_s_percentiles() {
    let zipkin = temp("spans.json", &zipkin_file());
    let got = import::import(&options(vec![], vec![zipkin])).expect("zipkin");
    let s = &got.scenario;
    let names = |stage: &[threadlab::scenario::ServiceId]| {
        stage
            .iter()
            .map(|id| s.services[id.0].name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        s.endpoint
            .stages
            .iter()
            .map(|st| names(st))
            .collect::<Vec<_>>(),
        [vec!["a"], vec!["b", "c"]]
    );
    let b = s.services.iter().find(|x| x.name == "b").expect("b");
    assert!((b.failure - 0.1).abs() < 1e-9, "{}", b.failure);
    assert!((got.scenario_rate() - 20.0).abs() < 0.01);
    // p50, p90 and p99 of the preset's table are the file's own, within 2 %.
    for (name, latencies) in [
        (
            "a",
            (0..200u64)
                .map(|i| (10_000 + (i * 37 % 100) * 300) as f64 / 1e3)
                .collect::<Vec<_>>(),
        ),
        (
            "b",
            (0..200u64)
                .map(|i| (20_000 + (i * 53 % 100) * 500) as f64 / 1e3)
                .collect(),
        ),
    ] {
        let table = percentiles_ms(s, name);
        for p in [50.0, 90.0, 99.0] {
            let want = file_percentile(latencies.clone(), p);
            let row = table
                .iter()
                .find(|(q, _)| (q * 100.0 - p).abs() < 1e-9)
                .expect("row");
            assert!(
                (row.1 - want).abs() / want < 0.02,
                "{name} p{p}: {} vs {want}",
                row.1
            );
        }
    }
    // The example's OTLP file: one stage after another, then a fan-out.
    let otlp = import::import(&options(vec![], vec![example("traces.json")])).expect("otlp");
    assert_eq!(
        threadlab::import::stages_text(&stage_names(&otlp.scenario)),
        "[postgresql] then [user] then [orders + recommendations]"
    );
    assert_eq!(
        otlp.scenario.strategy.default,
        threadlab::scenario::Strategy::Shared
    );
    // A fit says how far it is from the measurement.
    let mut fitted = options(vec![], vec![example("traces.json")]);
    fitted.fit = Fit::LogNormal;
    let got = import::import(&fitted).expect("lognormal");
    assert!(
        got.notes
            .iter()
            .any(|n| n.starts_with("user:") && n.contains("log-normal fit, fit error p50")),
        "{:?}",
        got.notes
    );
}

fn stage_names(s: &Scenario) -> Vec<Vec<String>> {
    s.endpoint
        .stages
        .iter()
        .map(|st| st.iter().map(|id| s.services[id.0].name.clone()).collect())
        .collect()
}

trait Rate {
    fn scenario_rate(&self) -> f64;
}

impl Rate for import::Imported {
    fn scenario_rate(&self) -> f64 {
        match self.scenario.load.mode {
            threadlab::scenario::LoadMode::Open { rate, .. } => rate,
            _ => 0.0,
        }
    }
}

#[test]
fn export_spring_round_trips_the_example() {
    let first = import::import(&options(
        vec![example("application.yml")],
        vec![example("traces.json")],
    ))
    .expect("imports");
    let preset = temp("round.toml", &first.preset);
    let (code, yaml, err) = threadlab(&["export", "spring", preset.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
    let exported = temp("exported.yml", &yaml);
    let again = import::import(&options(
        vec![exported.clone()],
        vec![example("traces.json")],
    ))
    .expect("re-imports");
    let mut a = first.scenario.clone();
    let b = again.scenario.clone();
    a.source = b.source.clone();
    assert_eq!(a, b, "import, export, import gives the same preset");
    // Every property the file sets is in the export with the same value: an instance's own,
    // or its base config's written under the instance.
    let docs = |p: &Path| import::source::read_spring_file(p).expect("reads");
    let original = import::binding::bind(&docs(&example("application.yml")), &[]);
    let written = import::binding::bind(&docs(&exported), &[]);
    let mapped: Vec<&str> = first
        .keys
        .iter()
        .filter(|k| matches!(k.outcome, KeyOutcome::Mapped(_)))
        .map(|k| k.key.as_str())
        .collect();
    for p in &original.properties {
        if !mapped.contains(&p.entry.key.as_str()) || p.elements.iter().any(|e| e == "baseconfig") {
            continue;
        }
        let mut wanted = vec![p.elements.clone()];
        if let Some(i) = p.elements.iter().position(|e| e == "configs") {
            wanted = ["user", "orders", "recommendations"]
                .iter()
                .map(|inst| {
                    let mut e = p.elements.clone();
                    e[i] = "instances".into();
                    e[i + 1] = (*inst).into();
                    e
                })
                .filter(|e| {
                    written.properties.iter().any(|q| {
                        q.elements.len() == e.len() && q.elements[..e.len() - 1] == e[..e.len() - 1]
                    })
                })
                .collect();
        }
        for e in wanted {
            let q = written
                .properties
                .iter()
                .find(|q| q.elements == e)
                .unwrap_or_else(|| panic!("{} not exported", p.entry.key));
            let same = q.entry.value == p.entry.value
                || import::spring_duration(&q.entry.value)
                    .ok()
                    .zip(import::spring_duration(&p.entry.value).ok())
                    .is_some_and(|(x, y)| {
                        threadlab::scenario::parse_duration(&x).ok()
                            == threadlab::scenario::parse_duration(&y).ok()
                    })
                || q.entry.value.parse::<f64>().ok() == p.entry.value.parse::<f64>().ok()
                    && q.entry.value.parse::<f64>().is_ok();
            assert!(
                same,
                "{}: {} exported as {}",
                p.entry.key, p.entry.value, q.entry.value
            );
        }
    }
}

#[test]
fn assert_exits_0_when_the_goals_hold_and_1_with_the_figure_when_one_fails() {
    let (code, out, err) = threadlab(&[
        "assert",
        "ironthread",
        "--strategy",
        "bulkhead",
        "--goal",
        "p99<=1000ms",
        "--goal",
        "goodput>=50%",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS p99<=1000ms: p99 ms is 1000.00"), "{out}");
    let (code, out, err) = threadlab(&[
        "assert",
        "ironthread",
        "--strategy",
        "sequential",
        "--goal",
        "p99<=1s",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL p99<=1s: p99 ms is 1700.00"), "{out}");
    assert!(
        err.contains("goal failed: p99<=1s (p99 ms is 1700.00)"),
        "{err}"
    );
    let (code, _, err) = threadlab(&["assert", "ironthread", "--goal", "p99=1s"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn tune_finds_the_smallest_recommendations_pool_that_meets_a_p99_goal() {
    let args = [
        "tune",
        "bulkhead-containment",
        "--set",
        "services.recommendations.timeout=1500ms",
        "--vary",
        "strategy.bulkhead.recs.core,strategy.bulkhead.recs.max=1..64:1",
        "--goal",
        "p99<=1600ms",
        "--goal",
        "goodput>=99%",
    ];
    let (code, out, err) = threadlab(&args);
    assert_eq!(code, 0, "{out}{err}");
    let cheapest = out
        .lines()
        .find(|l| l.starts_with("cheapest: "))
        .expect("a winner");
    let size: u32 = cheapest
        .split("strategy.bulkhead.recs.max=")
        .nth(1)
        .and_then(|x| x.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .expect("a size");
    // The full runs on three seeds confirm it, and one thread fewer fails on the same seed.
    assert_eq!(out.matches("(every goal met)").count(), 3, "{out}");
    let at = |n: u32, seed: u64| {
        let (code, out, err) = threadlab(&[
            "assert",
            "bulkhead-containment",
            "--seed",
            &seed.to_string(),
            "--set",
            "services.recommendations.timeout=1500ms",
            "--set",
            &format!("strategy.bulkhead.recs.core={n}"),
            "--set",
            &format!("strategy.bulkhead.recs.max={n}"),
            "--goal",
            "p99<=1600ms",
            "--goal",
            "goodput>=99%",
        ]);
        assert!(code == 0 || code == 1, "{out}{err}");
        code == 0
    };
    assert!(
        (3..6).all(|seed| at(size, seed)),
        "the winner {size} holds on seeds 3-5"
    );
    assert!(
        (3..6).any(|seed| !at(size - 1, seed)),
        "{} fails on one of seeds 3-5",
        size - 1
    );
    // An infeasible goal exits 1 with the closest point.
    let mut impossible = args[..args.len() - 4].to_vec();
    impossible.extend(["--goal", "p99<=100ms"]);
    let (code, out, err) = threadlab(&impossible);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("no point meets every goal.") && out.contains("closest: "),
        "{out}"
    );
    assert!(
        err.contains("no setting in the range meets every goal"),
        "{err}"
    );
}

#[test]
fn recovers_counts_from_the_last_load_phase_and_a_spike_adds_one() {
    // Naive retries keep metastable's goodput at zero after its spike; shedding brings it back.
    let (code, out, _) = threadlab(&["assert", "metastable", "--goal", "recovers<=30s"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL recovers<=30s: recovers s is never"),
        "{out}"
    );
    let (code, out, _) = threadlab(&[
        "assert",
        "metastable",
        "--set",
        "server.queue_timeout=500ms",
        "--goal",
        "recovers<=30s",
    ]);
    assert_eq!(code, 0, "{out}");
    // Without load phases there is nothing to recover from, unless tune adds a spike.
    let (code, _, err) = threadlab(&["assert", "bulkhead-containment", "--goal", "recovers<=30s"]);
    assert_eq!(code, 2, "{err}");
    let (code, out, err) = threadlab(&[
        "tune",
        "bulkhead-containment",
        "--set",
        "services.recommendations.timeout=1500ms",
        "--spike",
        "3x10s@30s",
        "--vary",
        "strategy.bulkhead.recs.core,strategy.bulkhead.recs.max=10,20,40,80",
        "--goal",
        "recovers<=10s",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("cheapest: strategy.bulkhead.recs.core="),
        "{out}"
    );
    let (code, _, err) = threadlab(&[
        "tune",
        "ironthread",
        "--spike",
        "3x10s@30s",
        "--vary",
        "server.threads=1,2",
        "--goal",
        "p99<=2s",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--spike \"3x10s@30s\": only an open or closed load can spike"),
        "{err}"
    );
}

#[test]
fn an_access_log_gives_the_rate_and_the_endpoint_s_own_latency() {
    let (code, preset, err) = threadlab(&[
        "import",
        "traces",
        example("access.log").to_str().expect("path"),
        "--config",
        example("application.yml").to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{err}");
    let s = threadlab::scenario::parse("log", &preset, &[]).expect("the preset loads");
    assert_eq!(s.services.len(), 1);
    assert_eq!(s.services[0].name, "dashboard");
    assert_eq!(
        s.strategy.default,
        threadlab::scenario::Strategy::Sequential
    );
    assert_eq!(
        s.server.threads,
        threadlab::scenario::ServerThreads::Platform(50)
    );
    // 300 requests over the log's whole seconds: about the 20 a second they were sent at.
    let threadlab::scenario::LoadMode::Open { rate, .. } = s.load.mode else {
        panic!("open")
    };
    assert!((18.0..22.0).contains(&rate), "{rate}");
    // The endpoint's median is the log's own.
    let mut logged: Vec<f64> = std::fs::read_to_string(example("access.log"))
        .expect("log")
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|us| us / 1e3)
        .collect();
    logged.sort_by(f64::total_cmp);
    let table = percentiles_ms(&s, "dashboard");
    let median = table
        .iter()
        .find(|(p, _)| (*p - 0.5).abs() < 1e-9)
        .expect("p50")
        .1;
    let want = import::fit::percentile(&logged, 50.0);
    assert!((median - want).abs() / want < 0.02, "{median} vs {want}");
    assert!(
        err.contains("not modelled") && err.contains("server.tomcat.threads.max = 50"),
        "{err}"
    );
}

#[test]
fn virtual_threads_replace_the_async_pool_and_semaphore_bulkheads_share_the_smallest_permits() {
    let file = temp(
        "virtual.properties",
        "spring.threads.virtual.enabled=true\nspring.task.execution.pool.core-size=16\n\
         resilience4j.bulkhead.instances.backendA.maxConcurrentCalls=20\n\
         resilience4j.bulkhead.instances.backendB.max-concurrent-calls=10\n",
    );
    let got = import::import(&options(vec![file], vec![])).expect("imports");
    let s = &got.scenario;
    assert_eq!(
        s.server.threads,
        threadlab::scenario::ServerThreads::Virtual
    );
    assert_eq!(s.strategy.default, threadlab::scenario::Strategy::Semaphore);
    assert_eq!(s.strategy.semaphore.permits, 10);
    assert!(s.strategy.bulkheads.iter().all(|b| b.name != "task"));
    let task = got
        .keys
        .iter()
        .find(|k| k.key.ends_with("core-size"))
        .expect("core-size");
    assert!(
        matches!(&task.outcome, KeyOutcome::NotModelled(why) if why.contains("virtual thread per task"))
    );
}

/// The example's walkthrough shows what its commands print today.
#[test]
fn the_example_walkthrough_shows_the_commands_own_output() {
    let dir = std::env::temp_dir().join(format!("threadlab-walk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for f in ["application.yml", "traces.json"] {
        std::fs::copy(example(f), dir.join(f)).expect("copy");
    }
    let readme = std::fs::read_to_string(example("README.md")).expect("README");
    let blocks: Vec<&str> = readme.split("```").skip(1).step_by(2).collect();
    let run = |block: &str| -> String {
        // The `$` lines (a command, continued by `\`) are run, the rest is their output.
        let mut out = String::new();
        let mut command = String::new();
        for line in block.lines() {
            if let Some(c) = line.strip_prefix("$ ") {
                command = c.to_owned();
            } else if command.ends_with('\\') {
                command = format!("{} {}", command.trim_end_matches('\\'), line.trim());
            } else {
                continue;
            }
            if command.ends_with('\\') || command.starts_with("echo") {
                continue;
            }
            let args = shell_words(
                command
                    .strip_prefix("threadlab ")
                    .expect("a threadlab command"),
            );
            let o = Command::new(env!("CARGO_BIN_EXE_threadlab"))
                .args(&args)
                .current_dir(&dir)
                .env("CI", "true")
                .output()
                .expect("runs");
            out.push_str(&String::from_utf8_lossy(&o.stdout));
            out.push_str(&String::from_utf8_lossy(&o.stderr));
        }
        out
    };
    // Every block in order (import writes the preset the others read): each output line.
    for (i, block) in blocks.iter().enumerate().filter(|(i, _)| *i <= 5) {
        let printed = run(block);
        for line in block
            .lines()
            .filter(|l| !l.starts_with('$') && !l.starts_with("    --") && !l.trim().is_empty())
        {
            if line.chars().all(|c| c.is_ascii_digit()) {
                continue; // `echo $?`
            }
            assert!(
                printed.contains(line),
                "block {i}: {line:?} is not what the command prints:\n{printed}"
            );
        }
    }
}

/// A command line split as the shell would: spaces, and '...' quoting.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            _ => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn export_spring_says_an_adaptive_limit_has_no_resilience4j_property() {
    let (code, yaml, err) = threadlab(&[
        "export",
        "spring",
        "spike",
        "--set",
        "services.sleep.adaptive_limit.min=1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        yaml.contains("# sleep has an adaptive concurrency limit (Netflix concurrency-limits): resilience4j has no such property, so it is not written"),
        "{yaml}"
    );
    let (_, plain, _) = threadlab(&["export", "spring", "spike"]);
    assert!(!plain.contains("adaptive"), "{plain}");
}
