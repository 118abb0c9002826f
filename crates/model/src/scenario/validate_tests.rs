//! Rules of [`super::validate`]: each bad value is rejected with its field path, the value and
//! what is allowed.

use crate::scenario::test_support::{BASE, assert_mentions, rejection, rejection_of, scenario};
use crate::scenario::{Jdk, Latency, LoadMode, Ramp, ServerThreads, ServiceId};
use crate::time::Nanos;

#[test]
fn defaults_fill_everything_the_preset_leaves_out() {
    let s = scenario(&[]);
    assert_eq!((s.seed, s.cores, s.jdk), (1, 8, Jdk::V21));
    assert_eq!(s.duration, Nanos::from_secs(60));
    assert_eq!(s.about, "");
    assert_eq!(s.server.threads, ServerThreads::Platform(200));
    assert_eq!(
        (
            s.server.min_spare,
            s.server.max_connections,
            s.server.accept_count
        ),
        (10, 8192, 100)
    );
    assert_eq!(
        (s.server.max_queue, s.server.keep_alive, s.server.async_),
        (None, Nanos::from_secs(60), false)
    );
    assert_eq!((s.services[0].failure, s.services[0].timeout), (0.0, None));
    assert_eq!(s.load.timeout, None);
}

#[test]
fn empty_scenario_name_is_rejected() {
    assert_mentions(
        &rejection(&["scenario.name=\"\""]),
        &["scenario.name = \"\"", "is empty"],
    );
}

#[test]
fn negative_seed_is_rejected_and_the_largest_toml_integer_is_accepted() {
    assert_mentions(
        &rejection(&["scenario.seed=-1"]),
        &["scenario.seed = -1", "0..=9223372036854775807"],
    );
    assert_eq!(
        scenario(&["scenario.seed=9223372036854775807"]).seed,
        i64::MAX as u64
    );
}

#[test]
fn zero_run_duration_is_rejected() {
    assert_mentions(
        &rejection(&["scenario.duration=0s"]),
        &["scenario.duration = \"0s\"", "must be > 0"],
    );
}

#[test]
fn duration_without_unit_is_rejected_with_the_expected_form() {
    assert_mentions(
        &rejection(&["scenario.duration=\"60\""]),
        &[
            "scenario.duration = \"60\"",
            "has no unit",
            "h, m, s, ms, us or ns",
        ],
    );
}

#[test]
fn duration_of_the_wrong_type_names_the_path() {
    assert_mentions(
        &rejection(&["scenario.duration=60"]),
        &["scenario.duration", "duration string"],
    );
}

#[test]
fn cores_outside_1_to_1024_are_rejected() {
    assert_mentions(
        &rejection(&["scenario.cores=0"]),
        &["scenario.cores = 0", "allowed 1..=1024"],
    );
    assert_mentions(
        &rejection(&["scenario.cores=1025"]),
        &["scenario.cores = 1025", "1..=1024"],
    );
}

#[test]
fn jdk_must_be_17_21_or_25() {
    assert_mentions(
        &rejection(&["scenario.jdk=11"]),
        &["scenario.jdk = 11", "17, 21, 25"],
    );
    assert_eq!(scenario(&["scenario.jdk=25"]).jdk, Jdk::V25);
}

#[test]
fn unknown_load_mode_lists_the_modes() {
    assert_mentions(
        &rejection(&["load.mode=walk"]),
        &["load.mode = \"walk\"", "runs, open, closed, batch"],
    );
}

#[test]
fn runs_and_batch_count_must_be_1_to_a_million() {
    assert_mentions(
        &rejection(&["load.count=0"]),
        &["load.count = 0", "1..=1000000"],
    );
    let batch = ["load.mode=batch", "load.count=1000001"];
    assert_mentions(&rejection(&batch), &["load.count = 1000001", "1..=1000000"]);
    assert_eq!(
        scenario(&["load.mode=batch", "load.count=7"]).load.mode,
        LoadMode::Batch { count: 7 }
    );
}

#[test]
fn runs_without_count_is_missing() {
    let text = BASE.replace("count = 1", "");
    assert_mentions(
        &rejection_of(&text, &[]),
        &["load.count is missing", "load.mode = \"runs\""],
    );
}

#[test]
fn open_load_needs_a_finite_positive_rate_up_to_a_million() {
    assert_mentions(
        &rejection(&["load.mode=open"]),
        &["load.rate is missing", "\"open\""],
    );
    for bad in ["0", "-5.0", "1000001.0", "inf", "nan"] {
        let spec = format!("load.rate={bad}");
        let message = rejection(&["load.mode=open", &spec]);
        assert_mentions(&message, &["load.rate = ", "allowed > 0 and <= 1000000"]);
    }
    let open = scenario(&["load.mode=open", "load.rate=50"]).load.mode;
    assert_eq!(
        open,
        LoadMode::Open {
            rate: 50.0,
            ramp: None
        }
    );
}

#[test]
fn open_load_ramp_is_parsed_and_checked() {
    let ramp = [
        "load.mode=open",
        "load.rate=50.0",
        "load.ramp={ to = 3000.0, over = \"60s\" }",
    ];
    let expected = Some(Ramp {
        to: 3000.0,
        over: Nanos::from_secs(60),
    });
    assert_eq!(
        scenario(&ramp).load.mode,
        LoadMode::Open {
            rate: 50.0,
            ramp: expected
        }
    );
    let zero = [
        "load.mode=open",
        "load.rate=5",
        "load.ramp={ to = 10.0, over = \"0s\" }",
    ];
    assert_mentions(
        &rejection(&zero),
        &["load.ramp.over = \"0s\"", "must be > 0"],
    );
}

#[test]
fn closed_clients_must_be_1_to_a_million_and_think_defaults_to_zero() {
    assert_mentions(
        &rejection(&["load.mode=closed"]),
        &["load.clients is missing"],
    );
    let bad = ["load.mode=closed", "load.clients=0"];
    assert_mentions(&rejection(&bad), &["load.clients = 0", "1..=1000000"]);
    let closed = scenario(&["load.mode=closed", "load.clients=20"]).load.mode;
    assert_eq!(
        closed,
        LoadMode::Closed {
            clients: 20,
            think: Nanos::ZERO
        }
    );
}

#[test]
fn client_timeout_must_be_above_zero() {
    assert_mentions(
        &rejection(&["load.timeout=0ms"]),
        &["load.timeout = \"0ms\"", "must be > 0"],
    );
    assert_eq!(
        scenario(&["load.timeout=2s"]).load.timeout,
        Some(Nanos::from_secs(2))
    );
}

#[test]
fn server_threads_must_be_1_to_100000_or_virtual() {
    assert_mentions(
        &rejection(&["server.threads=0"]),
        &["server.threads = 0", "1..=100000"],
    );
    assert_mentions(
        &rejection(&["server.threads=100001"]),
        &["server.threads = 100001"],
    );
    assert_mentions(
        &rejection(&["server.threads=lots"]),
        &["server.threads = \"lots\"", "\"virtual\""],
    );
    assert_eq!(
        scenario(&["server.threads=virtual"]).server.threads,
        ServerThreads::Virtual
    );
}

#[test]
fn virtual_threads_need_jdk_21() {
    let message = rejection(&["server.threads=virtual", "scenario.jdk=17"]);
    assert_mentions(
        &message,
        &["server.threads = \"virtual\"", "scenario.jdk >= 21"],
    );
}

#[test]
fn min_spare_above_threads_is_rejected_with_both_values() {
    let message = rejection(&["server.threads=20", "server.min_spare=25"]);
    assert_mentions(&message, &["server.min_spare = 25", "server.threads = 20"]);
}

#[test]
fn max_connections_and_max_queue_must_be_at_least_one() {
    assert_mentions(
        &rejection(&["server.max_connections=0"]),
        &["server.max_connections = 0", "1..="],
    );
    assert_mentions(
        &rejection(&["server.max_queue=0"]),
        &["server.max_queue = 0", "1..="],
    );
    assert_eq!(
        scenario(&["server.max_queue=100"]).server.max_queue,
        Some(100)
    );
}

#[test]
fn failure_must_be_a_probability() {
    let message = rejection(&["services.orders.failure=1.5"]);
    assert_mentions(&message, &["services[1].failure = 1.5", "0.0..=1.0"]);
    assert_mentions(
        &rejection(&["services.0.failure=-0.1"]),
        &["services[0].failure = -0.1"],
    );
}

#[test]
fn hang_probability_must_be_a_probability() {
    let hang = "services.user.hang={ probability = 2.0, duration = \"30s\" }";
    assert_mentions(
        &rejection(&[hang]),
        &["services[0].hang.probability = 2.0", "0.0..=1.0"],
    );
    let ok = "services.user.hang={ probability = 0.1, duration = \"30s\" }";
    let hang = scenario(&[ok]).services[0].hang.expect("hang set");
    assert_eq!(
        (hang.probability, hang.duration),
        (0.1, Nanos::from_secs(30))
    );
}

#[test]
fn service_timeout_must_be_above_zero() {
    assert_mentions(
        &rejection(&["services.user.timeout=0s"]),
        &["services[0].timeout = \"0s\"", "> 0"],
    );
}

#[test]
fn service_names_must_be_unique_and_non_empty() {
    let message = rejection(&["services.orders.name=user"]);
    assert_mentions(
        &message,
        &[
            "services[1].name = \"user\"",
            "already the name of services[0]",
        ],
    );
    assert_mentions(
        &rejection(&["services.0.name=\"\""]),
        &["services[0].name = \"\"", "is empty"],
    );
}

#[test]
fn no_services_is_rejected() {
    assert_mentions(
        &rejection(&["services=[]"]),
        &["services = []", "at least one"],
    );
}

#[test]
fn every_latency_form_parses() {
    let cases = [
        ("\"0ms\"", Latency::Fixed(Nanos::ZERO)),
        ("\"1.5s\"", Latency::Fixed(Nanos::from_millis(1500))),
        (
            "{ dist = \"uniform\", min = \"100ms\", max = \"300ms\" }",
            Latency::Uniform {
                min: Nanos::from_millis(100),
                max: Nanos::from_millis(300),
            },
        ),
        (
            "{ dist = \"exponential\", mean = \"100ms\" }",
            Latency::Exponential {
                mean: Nanos::from_millis(100),
            },
        ),
        (
            "{ dist = \"normal\", mean = \"100ms\", sd = \"20ms\" }",
            Latency::Normal {
                mean: Nanos::from_millis(100),
                sd: Nanos::from_millis(20),
            },
        ),
        (
            "{ dist = \"lognormal\", p50 = \"80ms\", p99 = \"400ms\" }",
            Latency::LogNormal {
                p50: Nanos::from_millis(80),
                p99: Nanos::from_millis(400),
            },
        ),
        (
            "{ dist = \"empirical\", values = [\"90ms\", \"120ms\"] }",
            Latency::Empirical(vec![Nanos::from_millis(90), Nanos::from_millis(120)]),
        ),
        (
            "{ dist = \"quantiles\", percentiles = [0, 50, 100], values = [\"10ms\", \"40ms\", \"1s\"] }",
            Latency::Quantiles(vec![
                (0.0, Nanos::from_millis(10)),
                (0.5, Nanos::from_millis(40)),
                (1.0, Nanos::from_secs(1)),
            ]),
        ),
    ];
    for (text, expected) in cases {
        let spec = format!("services.user.latency={text}");
        assert_eq!(scenario(&[&spec]).services[0].latency, expected, "{text}");
    }
}

#[test]
fn bad_distribution_parameters_are_rejected() {
    let cases = [
        (
            "{ dist = \"quantiles\", percentiles = [0, 100], values = [\"1s\"] }",
            "services[0].latency.percentiles = [0, 100] has 2 entries and values 1",
        ),
        (
            "{ dist = \"quantiles\", percentiles = [0, 60, 50, 100], values = [\"1s\", \"2s\", \"3s\", \"4s\"] }",
            "services[0].latency.percentiles = [0, 60, 50, 100] must rise strictly from 0 to 100",
        ),
        (
            "{ dist = \"quantiles\", percentiles = [0, 50, 99], values = [\"1s\", \"2s\", \"3s\"] }",
            "must rise strictly from 0 to 100",
        ),
        (
            "{ dist = \"quantiles\", percentiles = [0, 50, 100], values = [\"1s\", \"20ms\", \"3s\"] }",
            "services[0].latency.values[1] = \"20ms\" is below values[0] = \"1s\"",
        ),
        (
            "{ dist = \"uniform\", min = \"3s\", max = \"1s\" }",
            "services[0].latency.max = \"1s\" is below min = \"3s\"",
        ),
        (
            "{ dist = \"uniform\", min = \"0s\", max = \"1s\" }",
            "services[0].latency.min = \"0s\" is zero",
        ),
        (
            "{ dist = \"exponential\", mean = \"0ms\" }",
            "services[0].latency.mean = \"0ms\" is zero",
        ),
        (
            "{ dist = \"normal\", mean = \"1s\", sd = \"-1ms\" }",
            "services[0].latency.sd = \"-1ms\" is negative",
        ),
        (
            "{ dist = \"lognormal\", p50 = \"1s\", p99 = \"5ms\" }",
            "services[0].latency.p99 = \"5ms\" is below p50 = \"1s\"",
        ),
        (
            "{ dist = \"empirical\", values = [] }",
            "services[0].latency.values = [] is empty",
        ),
        (
            "{ dist = \"empirical\", values = [\"1s\", \"0s\"] }",
            "services[0].latency.values[1] = \"0s\" is zero",
        ),
    ];
    for (text, expected) in cases {
        let spec = format!("services.user.latency={text}");
        assert_mentions(&rejection(&[&spec]), &[expected]);
    }
}

#[test]
fn unknown_distribution_and_stray_fields_name_the_latency_path() {
    let unknown = "services.user.latency={ dist = \"pareto\", alpha = 1.0 }";
    assert_mentions(
        &rejection(&[unknown]),
        &["services[0].latency", "pareto", "uniform"],
    );
    let stray = "services.user.latency={ dist = \"exponential\", mean = \"1s\", sd = \"1s\" }";
    assert_mentions(
        &rejection(&[stray]),
        &["services[0].latency", "unknown field `sd`"],
    );
}

#[test]
fn endpoint_calls_must_name_known_services_and_the_error_lists_them() {
    let message = rejection(&["endpoint.calls=[\"user\", \"order\"]"]);
    assert_mentions(
        &message,
        &["endpoint.calls[1] = \"order\"", "services are user, orders"],
    );
}

#[test]
fn endpoint_stages_resolve_in_order() {
    let s = scenario(&["endpoint={ stages = [[\"user\"], [\"orders\", \"user\"]] }"]);
    assert_eq!(
        s.endpoint.stages,
        vec![vec![ServiceId(0)], vec![ServiceId(1), ServiceId(0)]]
    );
    let message = rejection(&["endpoint={ stages = [[\"user\"], [\"nope\"]] }"]);
    assert_mentions(&message, &["endpoint.stages[1][0] = \"nope\""]);
}

#[test]
fn endpoint_needs_exactly_one_of_calls_and_stages() {
    let both = rejection(&["endpoint.stages=[[\"user\"]]"]);
    assert_mentions(&both, &["endpoint.stages", "together with endpoint.calls"]);
    assert_mentions(
        &rejection(&["endpoint={}"]),
        &["endpoint.calls is missing", "endpoint.stages"],
    );
}

#[test]
fn empty_endpoint_and_empty_stages_are_rejected() {
    assert_mentions(
        &rejection(&["endpoint.calls=[]"]),
        &["endpoint.calls = []", "is empty"],
    );
    let empty_stage = rejection(&["endpoint={ stages = [[\"user\"], []] }"]);
    assert_mentions(&empty_stage, &["endpoint.stages[1] = []", "is empty"]);
}

#[test]
fn unknown_field_is_rejected_with_its_path_and_the_expected_fields() {
    let text = BASE.replace(
        "latency = \"500ms\"",
        "latency = \"500ms\"\nlatncy = \"1s\"",
    );
    let message = rejection_of(&text, &[]);
    assert_mentions(
        &message,
        &[
            "base.toml: services[1]",
            "unknown field `latncy`",
            "`latency`",
        ],
    );
}

#[test]
fn wrong_type_and_missing_fields_name_the_path() {
    assert_mentions(
        &rejection(&["scenario.cores=eight"]),
        &[
            "scenario.cores",
            "got the string \"eight\", expected an integer",
        ],
    );
    let text = BASE.replace("name = \"base\"", "");
    assert_mentions(
        &rejection_of(&text, &[]),
        &["base.toml: scenario", "missing field `name`"],
    );
}

#[test]
fn type_errors_never_name_rust_structs() {
    for (set, expected) in [
        (
            "scenario=1",
            "scenario: got the integer `1`, expected a table",
        ),
        (
            "services=[[]]",
            "services[0]: got an array of length 0, expected a table",
        ),
        (
            "strategy.bulkhead=[1]",
            "strategy.bulkhead[0]: got the integer `1`, expected a table",
        ),
    ] {
        let message = rejection(&[set]);
        assert_mentions(&message, &[expected]);
        for rust in ["struct", "Raw", "invalid type", "invalid length"] {
            assert!(!message.contains(rust), "{message}");
        }
    }
}

#[test]
fn a_set_through_a_value_says_an_integer_not_a_integer() {
    assert_mentions(
        &rejection(&["load.count.x=1"]),
        &["`load.count` is an integer, not a table"],
    );
}

#[test]
fn a_set_key_of_thirty_thousand_segments_is_refused_with_the_count() {
    let key = vec!["a"; 30_000].join(".");
    let message = rejection(&[&format!("{key}=1")]);
    assert_mentions(
        &message,
        &["30000 segments", "at most 16", "(60001 characters)"],
    );
    assert!(message.len() < 300, "{message}");
}

#[test]
fn invalid_toml_names_the_source() {
    assert_mentions(
        &rejection_of("[scenario\nname = 1", &[]),
        &["base.toml: invalid TOML"],
    );
}

#[test]
fn names_with_bidi_controls_or_zero_width_characters_are_rejected_naming_the_field() {
    for (set, shown) in [
        ("scenario.name=\"evil\u{202E}gnp.exe\"", "\\u{202e}"),
        ("scenario.name=\"a\u{200B}b\"", "\\u{200b}"),
        ("scenario.name=\"👩\u{200D}💻\"", "\\u{200d}"),
        ("scenario.name=\"x\u{2066}y\"", "\\u{2066}"),
    ] {
        let message = rejection(&[set]);
        assert_mentions(&message, &["scenario.name", "format character", shown]);
    }
    scenario(&["scenario.name=\"Zürich 東京 👩\""]);
}

#[test]
fn tours_and_key_scripts_share_one_key_notation() {
    use crate::scenario::{KeysError, TourKey, parse_keys};
    // A tour may press what a key script presses: the arrows and Home too, in any case.
    assert_eq!(
        parse_keys("<left><Home>x<Space>"),
        Ok(vec![
            TourKey::Left,
            TourKey::Home,
            TourKey::Char('x'),
            TourKey::Char(' ')
        ])
    );
    // `<` is a key too, even right before a named one; `<>` is two keys.
    assert_eq!(
        parse_keys("<<Tab><>"),
        Ok(vec![
            TourKey::Char('<'),
            TourKey::Tab,
            TourKey::Char('<'),
            TourKey::Char('>')
        ])
    );
    let err = parse_keys("<F1>").expect_err("unknown");
    assert_eq!(err, KeysError::UnknownKey("F1".to_owned()));
    assert_eq!(
        err.to_string(),
        "unknown key <F1>: allowed characters and <Tab> <BackTab> <Up> <Down> <Left> <Right> \
         <Home> <Enter> <Esc> <Space>"
    );
    assert_eq!(
        parse_keys("a\u{1b}").map_err(|e| e.to_string()),
        Err("a control character ('\\u{1b}') is not a key: write <Enter>, <Tab>, <Esc>".into())
    );
}

#[test]
fn an_accept_count_of_zero_or_less_is_tomcat_s_default() {
    for asked in [0, -1, -100] {
        let s = scenario(&[&format!("server.accept_count={asked}")]);
        assert_eq!(
            (s.server.accept_count, s.server.accept_count_ignored),
            (100, Some(asked))
        );
        assert_eq!(s.server.notes().len(), 1);
    }
    let s = scenario(&["server.accept_count=5"]);
    assert_eq!(
        (s.server.accept_count, s.server.accept_count_ignored),
        (5, None)
    );
    assert!(s.server.notes().is_empty());
}

#[test]
fn load_phases_are_in_time_order_and_set_what_their_load_uses() {
    let open = ["load.mode=\"open\"", "load.rate=10.0"];
    let with = |phases: &str| {
        let mut sets = open.to_vec();
        sets.push(phases);
        rejection(&sets)
    };
    assert_mentions(
        &with(r#"load.phases=[{at="2s", rate=5.0}, {at="1s", rate=9.0}]"#),
        &[
            "load.phases.1.at = \"1s\"",
            "must come after load.phases.0.at (2s)",
        ],
    );
    assert_mentions(
        &with(r#"load.phases=[{at="1s", clients=3}]"#),
        &[
            "load.phases.0.clients = 3",
            "not allowed in a phase of an open load",
        ],
    );
    // Both given: the one the load does not take is named, not the one it does.
    assert_mentions(
        &with(r#"load.phases=[{at="1s", rate=5.0, clients=3}]"#),
        &["load.phases.0.clients = 3", "give its rate"],
    );
    assert_mentions(
        &rejection(&[
            "load.mode=\"closed\"",
            "load.clients=2",
            r#"load.phases=[{at="1s", rate=5.0, clients=3}]"#,
        ]),
        &["load.phases.0.rate = 5", "give its clients only"],
    );
    assert_mentions(
        &with(r#"load.phases=[{at="1s"}]"#),
        &["load.phases.0.rate", "required"],
    );
    // The base scenario lasts 60 s: a phase from then on would never be played.
    assert_mentions(
        &with(r#"load.phases=[{at="30s", rate=5.0}, {at="60s", rate=9.0}]"#),
        &[
            "load.phases.1.at = \"60s\"",
            "at or after the run's end (scenario.duration = 1m)",
        ],
    );
    assert_mentions(
        &with(r#"load.phases=[{at="1s", rate=-1.0}]"#),
        &["load.phases.0.rate = -1", "allowed 0 (no new requests"],
    );
    // A rate of 0 pauses or ends the load; 0 clients stop a closed one.
    let paused = scenario(&[open[0], open[1], r#"load.phases=[{at="1s", rate=0.0}]"#]);
    assert_eq!(
        paused.load.phases[0].change,
        crate::scenario::PhaseChange::Rate(0.0)
    );
    assert_mentions(
        &with(r#"load.phases=[{at="0s", rate=1.0}]"#),
        &["load.phases.0.at"],
    );
    assert_mentions(
        &rejection(&[r#"load.phases=[{at="1s", rate=1.0}]"#]),
        &["load.mode = \"runs\"", "only open and closed loads"],
    );
    let s = scenario(&[
        "load.mode=\"closed\"",
        "load.clients=2",
        r#"load.phases=[{at="1s", clients=8}]"#,
    ]);
    let expected = crate::scenario::Phase {
        at: Nanos::from_secs(1),
        change: crate::scenario::PhaseChange::Clients(8),
    };
    assert_eq!(s.load.phases, vec![expected]);
    let stopped = scenario(&[
        "load.mode=\"closed\"",
        "load.clients=2",
        r#"load.phases=[{at="1s", clients=0}]"#,
    ]);
    assert_eq!(
        stopped.load.phases[0].change,
        crate::scenario::PhaseChange::Clients(0)
    );
}

#[test]
fn client_retries_name_each_bad_field_and_its_range() {
    let open = ["load.mode=\"open\"", "load.rate=10.0"];
    let with = |set: &str| {
        let mut sets = open.to_vec();
        sets.push(set);
        rejection(&sets)
    };
    assert_mentions(
        &with("load.retry.attempts=0"),
        &["load.retry.attempts = 0", "1..=100"],
    );
    assert_mentions(
        &with("load.retry.multiplier=0.5"),
        &["load.retry.multiplier = 0.5", "1.0..=10.0"],
    );
    assert_mentions(
        &with("load.retry.jitter=\"some\""),
        &["load.retry.jitter = \"some\"", "\"none\" or \"full\""],
    );
    assert_mentions(
        &with("load.retry.budget=-1"),
        &["load.retry.budget = -1", "> 0 and <= 10"],
    );
    assert_mentions(
        &with("load.retry.on=[\"timeout\", \"5xx\"]"),
        &["load.retry.on.1 = \"5xx\"", "\"failure\""],
    );
    assert_mentions(
        &rejection(&["load.retry.attempts=2"]),
        &["load.retry", "\"open\" or \"closed\""],
    );
    let s = scenario(&[
        "load.mode=\"open\"",
        "load.rate=10.0",
        "load.retry.randomization=0.5",
    ]);
    let retry = s.load.retry.expect("a retry policy");
    assert_eq!(retry.attempts, 3, "resilience4j's maxAttempts");
    assert_eq!(retry.backoff.wait, Nanos::from_millis(500));
    assert_eq!(
        retry.backoff.jitter,
        crate::scenario::Jitter::Randomized(0.5)
    );
    assert!(retry.on.timeout && retry.on.failure && retry.on.rejection);
}

#[test]
fn the_cpu_scheduler_names_each_bad_field_and_defaults_to_the_kernels_slice() {
    assert_mentions(
        &rejection(&["scenario.cpu_scheduling=\"fifo\""]),
        &[
            "scenario.cpu_scheduling = \"fifo\"",
            "\"time-sliced\" or \"run-to-completion\"",
        ],
    );
    assert_mentions(
        &rejection(&["scenario.slice=\"0ms\""]),
        &["scenario.slice = \"0ms\"", "> 0"],
    );
    assert_mentions(
        &rejection(&["scenario.context_switch=\"2ms\""]),
        &["scenario.context_switch = \"2ms\"", "0s..=1ms"],
    );
    let s = scenario(&["scenario.cores=2"]);
    let expected = crate::scenario::CpuScheduling::TimeSliced {
        slice: Nanos::from_micros(1_500),
        switch: Nanos::from_micros(2),
    };
    assert_eq!(s.cpu_scheduling, expected);
    let s = scenario(&["scenario.cpu_scheduling=\"run-to-completion\""]);
    assert_eq!(
        s.cpu_scheduling,
        crate::scenario::CpuScheduling::RunToCompletion
    );
}

#[test]
fn call_retries_name_each_bad_field_and_the_attempts_a_request_can_number() {
    assert_mentions(
        &rejection(&["services.user.retry.attempts=0"]),
        &["services[0].retry.attempts = 0", "1..=100"],
    );
    assert_mentions(
        &rejection(&["services.orders.retry.on=[\"open\"]"]),
        &["services[1].retry.on.0 = \"open\"", "\"not_permitted\""],
    );
    // 2 services x 5,000 = 10,000 calls per request: at most 6 attempts each fit in 65,536.
    assert_mentions(
        &rejection(&["endpoint.fan_out=5000", "services.user.retry.attempts=7"]),
        &[
            "services[0].retry.attempts = 7",
            "10000 calls per request",
            "1..=6",
        ],
    );
    let s = scenario(&["endpoint.fan_out=5000", "services.user.retry.attempts=6"]);
    let retry = s.services[0].retry.expect("a retry policy");
    assert_eq!(retry.attempts, 6);
    assert!(retry.on.timeout && retry.on.failure && retry.on.rejection && retry.on.not_permitted);
    // A call's retry needs no open or closed load, unlike a client's.
    assert!(s.load.retry.is_none());
}

#[test]
fn breakers_rate_limits_and_timed_faults_name_each_bad_field() {
    assert_mentions(
        &rejection(&["services.user.breaker.failure_rate=0"]),
        &["services[0].breaker.failure_rate = 0", "<= 100"],
    );
    assert_mentions(
        &rejection(&["services.user.breaker.window_type=\"calls\""]),
        &[
            "services[0].breaker.window_type = \"calls\"",
            "count",
            "time",
        ],
    );
    assert_mentions(
        &rejection(&["services.user.rate_limit.limit=0"]),
        &["services[0].rate_limit.limit = 0", "1..=1000000"],
    );
    assert_mentions(
        &rejection(&[r#"faults=[{service="nobody", at="1s", fail=1.0}]"#]),
        &["faults[0].service = \"nobody\"", "user, orders"],
    );
    assert_mentions(
        &rejection(&[r#"faults=[{service="user", at="2s", until="1s", fail=1.0}]"#]),
        &["faults[0].until = \"1s\"", "after faults[0].at (2s)"],
    );
    assert_mentions(
        &rejection(&[r#"faults=[{service="user", at="1s", fail=0.5, slow=2.0}]"#]),
        &["faults[0].fail", "exactly one of"],
    );
    let s = scenario(&["services.user.breaker.window_size=20"]);
    let b = s.services[0].breaker.expect("a breaker");
    assert_eq!(b.window, crate::scenario::BreakerWindow::Count(20));
    assert_eq!(b.minimum_calls, 100, "resilience4j's default");
    let s = scenario(&["services.orders.rate_limit.limit=5"]);
    let l = s.services[1].rate_limit.expect("a rate limiter");
    assert_eq!(
        (l.limit_for_period, l.refresh_period),
        (5, Nanos::from_secs(1))
    );
}

#[test]
fn an_adaptive_limit_takes_the_library_defaults_and_names_each_bad_field() {
    use crate::scenario::LimitAlgorithm;
    let s = scenario(&["services.user.adaptive_limit.min=1"]);
    let l = s.services[0].adaptive_limit.expect("an adaptive limit");
    assert_eq!((l.initial, l.min, l.max), (20, 1, 200));
    assert_eq!(
        l.algorithm,
        LimitAlgorithm::Gradient2 {
            smoothing: 0.2,
            tolerance: 1.5,
            long_window: 600,
            queue_size: 4
        }
    );
    assert!(s.resilience_in_play());
    let s = scenario(&["services.user.adaptive_limit.algorithm=\"aimd\""]);
    let aimd = s.services[0].adaptive_limit.map(|l| l.algorithm);
    assert_eq!(
        aimd,
        Some(LimitAlgorithm::Aimd {
            backoff_ratio: 0.9,
            timeout: Nanos::from_secs(5)
        })
    );
    assert_mentions(
        &rejection(&["services.user.adaptive_limit.algorithm=\"vegas\""]),
        &[
            "services[0].adaptive_limit.algorithm = \"vegas\"",
            "aimd, gradient2",
        ],
    );
    assert_mentions(
        &rejection(&[
            "services.user.adaptive_limit.algorithm=\"aimd\"",
            "services.user.adaptive_limit.backoff_ratio=1.0",
        ]),
        &[
            "services[0].adaptive_limit.backoff_ratio = 1",
            ">= 0.5 and < 1",
        ],
    );
    assert_mentions(
        &rejection(&["services.user.adaptive_limit.initial=300"]),
        &["services[0].adaptive_limit.initial = 300", "20..=200"],
    );
    assert_mentions(
        &rejection(&["services.user.adaptive_limit.max=10"]),
        &["services[0].adaptive_limit.min = 20", "1..=10"],
    );
    assert_mentions(
        &rejection(&["services.user.adaptive_limit.smoothing=0"]),
        &["services[0].adaptive_limit.smoothing = 0", "> 0 and <= 1"],
    );
}

#[test]
fn clients_start_together_unless_the_acceptor_has_a_cost_or_the_preset_spaces_them() {
    let spacing = |sets: &[&str]| {
        let s = scenario(sets);
        (s.server.connector.accept_cost, s.load.link.connect_spacing)
    };
    assert_eq!(spacing(&[]), (Nanos::ZERO, Nanos::ZERO));
    let cost = Nanos::from_micros(60);
    let wrk = ["server.accept_cost=\"60us\"", "load.client=\"wrk\""];
    assert_eq!(spacing(&wrk), (cost, Nanos::from_micros(30)));
    let blocking = ["server.accept_cost=\"60us\"", "load.client=\"blocking\""];
    assert_eq!(spacing(&blocking), (cost, Nanos::from_micros(500)));
    let custom = ["server.accept_cost=\"60us\"", "load.turnaround=\"1ms\""];
    assert_eq!(spacing(&custom), (cost, Nanos::ZERO));
    let given = ["load.connect_spacing=\"2ms\""];
    assert_eq!(spacing(&given), (Nanos::ZERO, Nanos::from_millis(2)));
    assert_mentions(
        &rejection(&["server.accept_cost=\"2s\""]),
        &["server.accept_cost", "0s..=1s"],
    );
}

#[test]
fn a_handler_thread_takes_15_us_back_to_the_pool_unless_told_otherwise() {
    let back = |sets: &[&str]| scenario(sets).server.connector.return_to_pool;
    assert_eq!(back(&[]), Nanos::from_micros(15));
    assert_eq!(back(&["server.return_to_pool=\"0s\""]), Nanos::ZERO);
    assert_mentions(
        &rejection(&["server.return_to_pool=\"2s\""]),
        &["server.return_to_pool", "0s..=1s"],
    );
}
