//! What a run reports during an outage: the server's work beside goodput (every response it
//! wrote, late ones included), the storm's timelines second by second (new requests, retries,
//! attempts, late responses), and who gave up.

mod support;

use serde_json::Value;
use support::{ms, one_call, parse};
use threadlab::scenario::Strategy;
use threadlab::sim::Engine;

/// One closed client whose every attempt takes 1.5 s on the server and gives up after 1 s,
/// retried as `retry` says (the lines of `[load.retry]`).
fn slow_client(retry: &str) -> Engine {
    let toml = one_call(
        &format!("mode = \"closed\"\nclients = 1\ntimeout = \"1s\"\n[load.retry]\n{retry}"),
        "",
    )
    .replace("latency = \"100ms\"", "latency = \"1500ms\"");
    Engine::new(&parse(&toml), Strategy::Sequential)
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&support::stdout(args)).expect("JSON output")
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|n| n.as_u64().expect("a count"))
        .collect()
}

#[test]
fn the_server_counts_every_response_it_wrote_those_nobody_waited_for_included() {
    // Attempts go out at 0, 1.2 and 2.6 s (200 ms, then 400 ms of backoff) and each takes
    // 1.5 s: the server writes them at 1.5, 2.7 and 4.1 s, every one after its client left.
    let mut e = slow_client("attempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0");
    e.run_until(ms(4_150));
    let snap = e.snapshot();
    assert_eq!((snap.server_responses, snap.late_responses), (3, 3));
    assert_eq!(snap.response_timeline, [0, 1, 1, 0, 1]);
    assert_eq!(snap.late_timeline, [0, 1, 1, 0, 1]);
    assert_eq!(snap.outcomes.responded(), 0, "no client saw a response");
    // One request sent at 0 s, another once the first gave up at 3.6 s; retries at 1.0 and
    // 2.2 s (counted when the client decided them).
    assert_eq!(snap.new_timeline, [1, 0, 0, 1, 0]);
    assert_eq!(snap.retry_timeline, [0, 1, 1, 0, 0]);
}

#[test]
fn metastable_reports_the_servers_responses_beside_goodput_and_the_storm_second_by_second() {
    let r = json(&["run", "metastable", "--format", "json"]);
    let q = &r["requests"];
    let server = q["server_responses"].as_u64().expect("server_responses");
    let tomcat = r["pools"][0]["completed"].as_u64().expect("completed");
    // Every request Tomcat completed is a response it wrote: the 2,866 answered in time and
    // the 12,831 whose client had left (every attempt that timed out ran anyway).
    assert_eq!(server, tomcat);
    let late = q["late_responses"].as_u64().expect("late");
    assert_eq!(server, q["success"].as_u64().expect("success") + late);
    let secs = r["simulated_s"].as_f64().expect("simulated_s");
    let rate = r["server_responses_rps"].as_f64().expect("a rate");
    assert!(
        (rate * secs - server as f64).abs() < 1e-6,
        "{rate} x {secs}"
    );
    assert!(rate > 5.0 * r["goodput_rps"].as_f64().expect("goodput"));
    // Attempts are new requests plus retries, second by second; their sums are the counts.
    let new = numbers(&r["new_timeline"]);
    let retries = numbers(&r["retries_timeline"]);
    let attempts = numbers(&r["attempts_timeline"]);
    let late_each = numbers(&r["late_timeline"]);
    assert_eq!(new.len(), 160);
    for s in 0..160 {
        assert_eq!(attempts[s], new[s] + retries[s], "second {s}");
    }
    assert_eq!(new.iter().sum::<u64>(), q["sent"].as_u64().expect("sent"));
    let retried = r["resilience"]["retries"].as_u64().expect("retries");
    assert_eq!(retries.iter().sum::<u64>(), retried);
    assert_eq!(late_each.iter().sum::<u64>(), late);
    // The storm: back at 90 new requests a second (60-70 s), the clients send several times
    // as many attempts, above the server's 100 a second.
    let mean = |t: &[u64]| t[60..70].iter().sum::<u64>() as f64 / 10.0;
    assert!((80.0..100.0).contains(&mean(&new)), "{}", mean(&new));
    assert!(mean(&attempts) > 200.0, "{}", mean(&attempts));
    let table = support::stdout(&["run", "metastable"]);
    assert!(
        table.contains("server responses 98.11/s, 12831 of them late"),
        "{table}"
    );
    let compared = support::stdout(&["compare", "metastable"]);
    let row = compared
        .lines()
        .find(|l| l.starts_with("| server responses (req/s)"))
        .expect("the compare table's row");
    assert!(row.contains("98.11"), "{row}");
}

/// `circuit-breaker`'s trace: a call its caller's timeout gave up on is `timed out` (with
/// the fallback), not `ok` when the hung call ends later; and the breaker has a track of its
/// own, a slice per state at the report's transition times.
#[test]
fn the_trace_labels_a_call_by_what_its_caller_saw_and_draws_the_breaker() {
    use threadlab::report::perfetto::{play_traced, write_trace};
    let s = threadlab::scenario::load("circuit-breaker", &[]).expect("built-in preset");
    let engine = play_traced(&s, Strategy::Bulkhead, s.duration);
    let mut bytes = Vec::new();
    write_trace(&mut bytes, &[("", &engine)]).expect("written to memory");
    let doc: Value = serde_json::from_slice(&bytes).expect("JSON");
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let slices = |name: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"] == name)
            .collect()
    };
    let recs = slices("recommendations");
    let past_timeout = slices("past the caller's timeout");
    assert!(!past_timeout.is_empty());
    // Every call with a stretch past its caller's timeout is a timed-out call that fell back.
    for past in &past_timeout {
        let at = past["ts"].as_f64().expect("ts");
        let call = recs
            .iter()
            .find(|c| {
                c["tid"] == past["tid"]
                    && c["pid"] == past["pid"]
                    && c["ts"].as_f64().expect("ts") < at
                    && c["ts"].as_f64().expect("ts") + c["dur"].as_f64().expect("dur") >= at
            })
            .expect("the call it belongs to");
        assert_eq!(call["args"]["outcome"], "timed out", "{call}");
        assert_eq!(call["args"]["fallback"], true, "{call}");
    }
    let timed_out = recs
        .iter()
        .filter(|c| c["args"]["outcome"] == "timed out")
        .count();
    assert_eq!(timed_out, past_timeout.len());
    // The engine counts one more: a call whose caller gave up while it still sat queued.
    let snap = engine.snapshot();
    let service = snap
        .services
        .iter()
        .find(|x| x.name == "recommendations")
        .expect("recommendations");
    assert_eq!(service.stats.timeouts, timed_out as u64 + 1);
    // The breaker's track: closed, then open at 32.1 s ... closed at 79.8 s.
    let track: Vec<(&str, f64)> = events
        .iter()
        .filter(|e| {
            e["ph"] == "X"
                && e["args"]["service"] == "recommendations"
                && e["args"].get("request").is_none()
        })
        .map(|e| {
            (
                e["name"].as_str().expect("a state"),
                e["ts"].as_f64().expect("ts") / 1e6,
            )
        })
        .collect();
    let breaker = service.breaker.as_ref().expect("a breaker");
    let mut expected = vec![("closed", 0.0)];
    expected.extend(
        breaker
            .transitions
            .iter()
            .map(|(at, _, to)| (to.name(), at.as_secs_f64())),
    );
    assert_eq!(track.len(), expected.len());
    for ((name, at), (want, want_at)) in track.iter().zip(&expected) {
        assert_eq!(name, want);
        assert!((at - want_at).abs() < 1e-6, "{at} vs {want_at}");
    }
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "M" && e["args"]["name"] == "recommendations breaker")
    );
}

/// `gave_up` counts the requests whose client stopped retrying: none when the clients never
/// retry, whether they have no `[load.retry]` (`spike`) or one of a single attempt; every
/// final timeout when they do (`metastable`: 5 attempts). The table says the clients do not
/// retry rather than "0 gave up" beside thousands of timeouts.
#[test]
fn gave_up_counts_the_same_requests_with_no_retry_policy_and_with_one_attempt() {
    let gave_up = |args: &[&str]| {
        let r = json(args);
        (
            r["resilience"]["gave_up"].as_u64().expect("gave_up"),
            r["requests"]["timeout"].as_u64().expect("timeout"),
        )
    };
    let (spike, spike_timeouts) = gave_up(&["run", "spike", "--format", "json"]);
    let one = &[
        "run",
        "metastable",
        "--set",
        "load.retry.attempts=1",
        "--format",
        "json",
    ];
    let (single, single_timeouts) = gave_up(one);
    assert!(spike_timeouts > 1000 && single_timeouts > 1000);
    assert_eq!((spike, single), (0, 0));
    let (naive, naive_timeouts) = gave_up(&["run", "metastable", "--format", "json"]);
    assert_eq!(
        naive, naive_timeouts,
        "every final timeout ran out of its 5 attempts"
    );
    for args in [
        &["run", "spike"][..],
        &["run", "metastable", "--set", "load.retry.attempts=1"],
    ] {
        let table = support::stdout(args);
        assert!(
            table.contains("Resilience: the clients do not retry, 0 shed"),
            "{table}"
        );
    }
}

/// The README's recovery sweep: goodput after the spike falls as the load rises, so its
/// first point is no knee; the chart marks the cliff instead, the steepest fall (65 to 70
/// req/s). A curve that rises to a plateau keeps its knee (tests/plot.rs).
#[test]
fn the_recovery_sweep_marks_its_cliff_not_its_first_point_as_a_knee() {
    let path = std::env::temp_dir().join(format!("threadlab-cliff-{}.svg", std::process::id()));
    let path_text = path.to_str().expect("a UTF-8 temp path");
    support::stdout(&[
        "sweep",
        "metastable",
        "--set",
        "load.phases=[{at=\"30s\",rate=200.0},{at=\"40s\",rate=90.0}]",
        "--set",
        "load.retry.backoff=200ms",
        "--set",
        "load.retry.multiplier=2",
        "--set",
        "load.retry.jitter=full",
        "--set",
        "load.retry.budget=0.1",
        "--vary",
        "load.phases.1.rate=50..90:5",
        "--duration",
        "100s",
        "--plot",
        path_text,
    ]);
    let svg = std::fs::read_to_string(&path).expect("the chart");
    let _ = std::fs::remove_file(&path);
    assert!(svg.contains("cliff: 65 → 70"), "no cliff mark");
    assert!(!svg.contains("knee:"), "a knee on a falling curve");
}

/// A retry budget with a window (Finagle's `ttl`): a first attempt's deposit pays for a retry
/// only while it is in the window. One client, each attempt 1.5 s on the server, a 1 s
/// timeout, one retry earned per first attempt: the request of 0 s times out at 1 s. With a
/// 2 s window its deposit is there and it is retried; with a 1 s window the deposit has just
/// left, and the client gives up, as both engines decide (`flow::RetryBudget`).
#[test]
fn a_budget_window_lets_a_deposit_pay_for_a_retry_only_while_it_is_in_it() {
    let played = |window: &str| {
        let mut e = slow_client(&format!(
            "attempts = 2\nbackoff = \"0ms\"\nbudget = 1.0\nbudget_window = \"{window}\""
        ));
        e.run_until(ms(1_050));
        let r = e.snapshot().resilience;
        (r.retries, r.gave_up)
    };
    assert_eq!(played("2s"), (1, 0));
    assert_eq!(played("1s"), (0, 1));
    // Refused where it means nothing, and beyond Finagle's range, naming the field.
    for (sets, why) in [
        (
            &["--set", "load.retry.budget_window=5s"][..],
            "needs a budget",
        ),
        (
            &[
                "--set",
                "load.retry.budget=0.1",
                "--set",
                "load.retry.budget_window=90s",
            ][..],
            "allowed 1s..=60s",
        ),
    ] {
        let mut args = vec!["check", "metastable"];
        args.extend_from_slice(sets);
        let out = support::threadlab(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("load.retry.budget_window") && err.contains(why),
            "{err}"
        );
    }
}

/// A load phase of rate 0 pauses an open load (or ends it): nothing arrives from its time
/// until a later phase sets a rate, in both engines, on the same arrival draws. 200 requests
/// a second, none from 1 s to 2 s, 200 again from 2 s.
#[test]
fn a_phase_of_rate_zero_pauses_the_load_in_both_engines() {
    let toml = one_call(
        "mode = \"open\"\nrate = 200.0\nphases = [{ at = \"1s\", rate = 0.0 }, { at = \"2s\", rate = 200.0 }]",
        "threads = 10",
    )
    .replace("latency = \"100ms\"", "latency = \"10ms\"");
    let s = parse(&toml);
    let duration = ms(3_000);
    let sim = threadlab::report::play(&s, Strategy::Sequential, duration).snapshot();
    let new = &sim.new_timeline;
    assert_eq!(new[1], 0, "{new:?}");
    assert!(new[0] > 150 && new[2] > 150, "{new:?}");
    assert_eq!(sim.sent, u64::from(new[0] + new[2]));
    let options = threadlab::real::RealOptions {
        time_scale: 0.2,
        ..threadlab::real::RealOptions::default()
    };
    let run = threadlab::real::run(&s, Strategy::Sequential, duration, options)
        .expect("the real run plays");
    let real = threadlab::report::RealReport::of(&s, &run).run;
    let timeline = real
        .new_timeline
        .expect("phases: the timelines are reported");
    // Nothing is due from 1 s to 2 s: a request there is one due before 1 s that this
    // machine sent late (the real books count when a request really went out), so the first
    // two seconds hold the first second's arrivals and the third the third's.
    assert_eq!(timeline[0] + timeline[1], new[0], "{timeline:?} {new:?}");
    assert_eq!(timeline[2], new[2], "{timeline:?} {new:?}");
    // The same arrival draws: the same requests sent, whatever the real run's pace.
    assert_eq!(real.requests.sent, sim.sent);
}

/// Each `--against` is a variant of its own, a row per strategy (`KEY=VALUE, KEY=VALUE` in
/// one `--against` is one variant of several overrides), and `--plot` draws the preset's
/// strategy on every side.
#[test]
fn several_against_are_rows_of_their_own_and_can_be_charted() {
    let base = [
        "compare",
        "ironthread",
        "--against",
        "server.threads=20",
        "--against",
        "server.threads=10, strategy.bulkhead.IronThread.core=5",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        support::stdout(&args)
    };
    let json: Value = serde_json::from_str(&with(&["--format", "json"])).expect("JSON");
    let entries = json.as_array().expect("an array");
    assert_eq!(
        entries.len(),
        3 * 5,
        "the preset and two variants, every strategy"
    );
    let sides: Vec<(&str, Vec<&str>)> = entries[..3]
        .iter()
        .map(|e| {
            let against = e["against"].as_array().expect("against");
            (
                e["side"].as_str().expect("side"),
                against.iter().map(|a| a.as_str().expect("text")).collect(),
            )
        })
        .collect();
    assert_eq!(
        sides,
        [
            ("preset", vec![]),
            ("against", vec!["server.threads=20"]),
            (
                "against",
                vec!["server.threads=10", "strategy.bulkhead.IronThread.core=5"]
            ),
        ]
    );
    let table = with(&[]);
    assert!(
        table.contains("then against each of (1) server.threads=20, (2) server.threads=10 strategy.bulkhead.IronThread.core=5"),
        "{table}"
    );
    assert_eq!(table.matches("| against 2 |").count(), 5, "{table}");
    let csv = with(&["--format", "csv"]);
    assert!(
        csv.lines().any(|l| l.starts_with("bulkhead,against 2,")),
        "{csv}"
    );
    let path = std::env::temp_dir().join(format!("threadlab-against-{}.svg", std::process::id()));
    with(&["--plot", path.to_str().expect("UTF-8")]);
    let svg = std::fs::read_to_string(&path).expect("the chart");
    let _ = std::fs::remove_file(&path);
    assert!(
        svg.contains("against 1: server.threads=20"),
        "the legend names each side"
    );
    assert!(svg.contains("as the preset says and against"));
}

/// A load a phase paused has no value to sweep around: the live view's `g` offers no load
/// knob then (before the pause it does).
#[test]
fn a_paused_load_has_no_knob_to_sweep() {
    let s = threadlab::scenario::load(
        "metastable",
        &[r#"load.phases=[{at="1s",rate=0.0}]"#.to_string()],
    )
    .expect("preset loads");
    let mut e = Engine::new(&s, Strategy::Sequential);
    e.run_until(ms(500));
    assert_eq!(
        threadlab::tui::knob::Knob::load(&e),
        Some(threadlab::tui::knob::Knob::Rate)
    );
    e.run_until(ms(1_500));
    assert_eq!(threadlab::tui::knob::Knob::load(&e), None);
}
