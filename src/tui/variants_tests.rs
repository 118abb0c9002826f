//! The variants compare (`C`): the run on screen with and without a pattern, side by side.

use super::*;
use crate::scenario;
use crate::scenario::ServerThreads;
use crate::tui::compare_runs::AS_NOW;

fn preset_app(preset: &str, sets: &[&str]) -> App {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let s = scenario::load(preset, &sets).expect("preset loads");
    let strategy = s.strategy.default;
    let mut app = App::new(s, strategy, Theme::Dark);
    app.set_overrides(sets);
    app
}

/// Plays `secs` of simulated time at 1x with an unlimited event budget.
fn play(app: &mut App, secs: u64) {
    for _ in 0..secs * 10 {
        app.advance(Duration::from_millis(100), BudgetSpec::Events(u64::MAX));
    }
}

fn type_line(app: &mut App, text: &str) {
    for c in text.chars() {
        app.press(Key::Char(c));
    }
}

fn labels(app: &App) -> Vec<String> {
    app.compare_runs()
        .expect("compare view open")
        .rows
        .iter()
        .map(|r| r.label.clone())
        .collect()
}

/// The distinct, non-empty `set` lists of a preset file's `[[figures]]`, read from the file
/// itself rather than through the scenario model.
fn distinct_set_lists(text: &str) -> Vec<Vec<String>> {
    let table: toml::Table = text.parse().expect("preset parses");
    let mut lists: Vec<Vec<String>> = Vec::new();
    for figure in table["figures"].as_array().expect("figures") {
        let Some(set) = figure.get("set").and_then(toml::Value::as_array) else {
            continue;
        };
        let list: Vec<String> = set
            .iter()
            .map(|v| v.as_str().expect("a string").to_string())
            .collect();
        if !list.is_empty() && !lists.contains(&list) {
            lists.push(list);
        }
    }
    lists
}

/// Mean goodput of seconds `from..to` of `engine`.
fn goodput_between(engine: &Engine, from: usize, to: usize) -> f64 {
    let timeline = engine.snapshot().goodput_timeline;
    let seconds = &timeline[from..to];
    f64::from(seconds.iter().sum::<u32>()) / seconds.len() as f64
}

#[test]
fn capital_c_on_metastable_compares_naive_retries_with_each_figures_pattern() {
    let lists = distinct_set_lists(include_str!("../../presets/metastable.toml"));
    // Two figures share the backoff list; three have none.
    assert!(lists.len() >= 2, "{lists:?}");
    let mut a = preset_app("metastable", &[]);
    play(&mut a, 5);
    a.press(Key::Char('C'));
    let mut expected = vec![AS_NOW.to_string()];
    expected.extend(lists.iter().map(|l| l.join(", ")));
    assert_eq!(labels(&a), expected);
    assert!(a.compare_is(ComparedBy::Variants));
    play(&mut a, 65);
    assert_eq!(a.now(), Nanos::from_secs(70));
    let runs = a.compare_runs().expect("open");
    for row in &runs.rows {
        let e = row.engine().expect("every figure's overrides load");
        assert_eq!(e.now(), a.sim().now(), "{} in lockstep", row.label);
        assert_eq!(e.strategy(), a.sim().strategy());
    }
    let engine = |label: &str| {
        runs.rows
            .iter()
            .find(|r| r.label == label)
            .and_then(CompareRow::engine)
            .expect("row")
    };
    let naive = goodput_between(engine(AS_NOW), 60, 70);
    let shed = goodput_between(engine("server.queue_timeout=500ms"), 60, 70);
    // README: naive retries 0 req/s at 60-70 s, shedding 89.1.
    assert!(naive < 10.0, "naive retries: {naive}");
    assert!(shed > 80.0, "queue timeout: {shed}");
    for label in [
        "server.adaptive_lifo=50",
        "load.breaker.window_size=50, load.breaker.minimum_calls=20, \
         load.breaker.wait_in_open=5s, load.breaker.permitted_in_half_open=5",
    ] {
        let goodput = goodput_between(engine(label), 60, 70);
        assert!(goodput > 80.0, "{label}: {goodput}");
    }
    // "as now" is the run on screen, replayed: the same requests, the same answers.
    assert_eq!(
        engine(AS_NOW).snapshot().goodput_timeline,
        a.sim().snapshot().goodput_timeline
    );
}

#[test]
fn typing_a_variant_adds_a_row_and_a_bad_one_adds_nothing() {
    let mut a = preset_app("metastable", &[]);
    a.press(Key::Char('C'));
    let rows = labels(&a).len();
    a.press(Key::Char('a'));
    assert!(a.is_typing());
    type_line(&mut a, "server.threads=20");
    a.press(Key::Enter);
    assert!(!a.is_typing());
    let runs = a.compare_runs().expect("open");
    assert_eq!(runs.rows.len(), rows + 1);
    let row = runs.rows.last().expect("a row");
    assert_eq!(row.label, "server.threads=20");
    let e = row.engine().expect("20 threads load");
    assert_eq!(e.scenario().server.threads, ServerThreads::Platform(20));
    assert_eq!(e.scenario().seed, a.scenario().seed);

    a.press(Key::Char('a'));
    type_line(&mut a, "server.threads=0");
    a.press(Key::Enter);
    assert_eq!(labels(&a).len(), rows + 1, "nothing added");
    assert!(
        matches!(a.status(), Some(Status::Error(e)) if e.contains("server.threads")),
        "{:?}",
        a.status()
    );
}

#[test]
fn the_prompt_takes_q_as_a_letter_backspace_edits_and_esc_cancels() {
    let mut a = preset_app("metastable", &[]);
    a.press(Key::Char('C'));
    let rows = labels(&a).len();
    a.press(Key::Char('a'));
    type_line(&mut a, "server.queue_timeout=500msx");
    a.press(Key::Backspace);
    assert!(!a.should_quit(), "q is typed, not obeyed");
    assert_eq!(
        a.prompt().map(Prompt::text),
        Some("server.queue_timeout=500ms")
    );
    a.press(Key::Esc);
    assert!(!a.is_typing());
    assert_eq!(labels(&a).len(), rows, "Esc adds nothing");
    assert!(
        a.compare_is(ComparedBy::Variants),
        "Esc closed the prompt only"
    );
    a.press(Key::Esc);
    assert!(a.compare_runs().is_none());
}

#[test]
fn c_and_capital_c_are_never_open_together() {
    let mut a = preset_app("metastable", &[]);
    a.press(Key::Char('c'));
    assert!(a.compare_is(ComparedBy::Strategies));
    a.press(Key::Char('C'));
    assert!(a.compare_is(ComparedBy::Variants));
    a.press(Key::Char('c'));
    assert!(a.compare_is(ComparedBy::Strategies));
    a.press(Key::Char('c'));
    assert!(a.compare_runs().is_none());
    a.press(Key::Char('C'));
    a.press(Key::Char('C'));
    assert!(a.compare_runs().is_none());
    a.press(Key::Char('a'));
    assert!(
        !a.is_typing(),
        "a types a variant in the variants compare only"
    );
}

#[test]
fn a_strategy_key_switches_every_variant_with_the_run_on_screen() {
    let mut a = preset_app("metastable", &[]);
    a.press(Key::Char('C'));
    a.press(Key::Char('2'));
    for e in a.compare_engines().expect("open") {
        assert_eq!(e.strategy(), Strategy::Shared);
    }
    // The strategies' view keeps one strategy per row.
    a.press(Key::Char('c'));
    a.press(Key::Char('1'));
    let strategies: Vec<Strategy> = a
        .compare_engines()
        .expect("open")
        .iter()
        .map(|e| e.strategy())
        .collect();
    assert_eq!(strategies, Strategy::ALL.to_vec());
}

#[test]
fn capital_c_on_circuit_breaker_sets_the_breaker_off_beside_it() {
    let lists = distinct_set_lists(include_str!("../../presets/circuit-breaker.toml"));
    let mut a = preset_app("circuit-breaker", &[]);
    a.press(Key::Char('C'));
    let mut expected = vec![AS_NOW.to_string()];
    expected.extend(lists.iter().map(|l| l.join(", ")));
    assert_eq!(labels(&a), expected);
    let breaker_off = "services.recommendations.breaker.minimum_calls=100000, \
                       services.recommendations.breaker.window_size=100000";
    assert!(
        labels(&a).iter().any(|l| l == breaker_off),
        "{:?}",
        labels(&a)
    );
}

#[test]
fn a_preset_without_figure_sets_opens_as_now_with_a_hint() {
    let mut a = preset_app("erlang-c", &[]);
    a.press(Key::Char('C'));
    assert_eq!(labels(&a), [AS_NOW]);
    assert!(
        matches!(a.status(), Some(Status::Info(t)) if t == "a: add a variant (KEY=VALUE, as --set)")
    );
}

#[test]
fn live_changes_reach_every_variant_and_one_a_variant_refuses_spares_the_others() {
    let mut a = preset_app("ironthread", &["load.mode=open", "load.rate=10"]);
    // Before the view opens: the variants replay it from t = 0.
    a.press(Key::Up);
    a.press(Key::Char('C'));
    a.press(Key::Char('a'));
    type_line(&mut a, "load.mode=closed, load.clients=5");
    a.press(Key::Enter);
    a.press(Key::Char('a'));
    type_line(&mut a, "server.threads=20");
    a.press(Key::Enter);
    let rate = |e: &Engine| match e.scenario().load.mode {
        LoadMode::Open { rate, .. } => Some(rate),
        _ => None,
    };
    let rates = |a: &App| -> Vec<(String, Option<f64>)> {
        let runs = a.compare_runs().expect("open");
        runs.rows
            .iter()
            .map(|r| (r.label.clone(), rate(r.engine().expect("loads"))))
            .collect()
    };
    for (label, r) in rates(&a) {
        // The closed variants (this one, and the preset's figures') have no rate to change.
        let expected = if label.contains("load.mode=closed") {
            None
        } else {
            Some(12.5)
        };
        assert_eq!(r, expected, "{label}");
    }
    // Now: the closed variant refuses a rate; every other run takes it.
    a.press(Key::Up);
    assert!(
        matches!(a.status(), Some(Status::Info(t)) if t.contains("not in 3 compared runs")),
        "{:?}",
        a.status()
    );
    for (label, r) in rates(&a) {
        let expected = if label.contains("load.mode=closed") {
            None
        } else {
            Some(15.6)
        };
        assert_eq!(r, expected, "{label}");
    }
    assert_eq!(rate(a.sim()), Some(15.6));
}

#[test]
fn a_reset_replays_every_variant_with_its_own_overrides() {
    let mut a = preset_app("metastable", &[]);
    a.press(Key::Char('C'));
    a.press(Key::Char('a'));
    type_line(&mut a, "server.threads=20");
    a.press(Key::Enter);
    play(&mut a, 2);
    let before = labels(&a);
    a.press(Key::Char('r'));
    assert_eq!(labels(&a), before);
    for e in a.compare_engines().expect("open") {
        assert_eq!(e.now(), Nanos::ZERO);
    }
    let last = a
        .compare_engines()
        .expect("open")
        .last()
        .copied()
        .expect("row");
    assert_eq!(last.scenario().server.threads, ServerThreads::Platform(20));
}

#[test]
fn a_variant_too_large_for_the_budget_is_not_added_and_the_rows_share_one_runs_limits() {
    let mut a = preset_app("metastable", &[]);
    play(&mut a, 1);
    a.press(Key::Char('C'));
    let rows = labels(&a).len();
    for _ in 0..4 {
        a.press(Key::Char('a'));
        type_line(&mut a, "load.rate=1000000");
        a.press(Key::Enter);
        let Some(Status::Error(text)) = a.status() else {
            panic!("not refused: {:?}", a.status());
        };
        assert!(
            text.starts_with(
                "no variant added: load.rate=1000000 is too large to play beside the run: up to"
            ),
            "{text}"
        );
    }
    assert_eq!(labels(&a).len(), rows);
    // The run on screen and every row hold an equal share of one run's limits.
    play(&mut a, 1);
    let runs = a.driven().count() as u64;
    assert_eq!(runs, rows as u64 + 1);
    assert!(a.driven().all(|e| e.sharing() == runs));
    // Closed, the run on screen has them all again.
    a.press(Key::Char('C'));
    play(&mut a, 1);
    assert_eq!(a.sim().sharing(), 1);
}

#[test]
fn rows_beyond_their_share_stop_the_view_and_say_it_is_their_share() {
    // Four typed variants each at 30,000/s, as the estimate admits for 3 s of erlang-c: the
    // five runs together may hold what one run may.
    let mut a = preset_app("erlang-c", &["scenario.duration=3s"]);
    a.press(Key::Char('C'));
    for rate in ["30000", "30001", "30002", "30003"] {
        a.press(Key::Char('a'));
        type_line(&mut a, &format!("load.rate={rate}"));
        a.press(Key::Enter);
    }
    assert_eq!(labels(&a).len(), 5, "{:?}", a.status());
    for e in a.compare.iter_mut().flat_map(CompareRuns::engines_mut) {
        e.set_in_flight_cap(50_000);
    }
    a.source
        .engine_mut()
        .expect("simulated")
        .set_in_flight_cap(50_000);
    play(&mut a, 3);
    let Some(Status::Error(text)) = a.status() else {
        panic!("not stopped: {:?}", a.status());
    };
    assert!(
        text.contains("(its share: the 6 runs played at once share one run's)"),
        "{text}"
    );
    assert!(a.driven().all(|e| e.requests_in_flight() <= 50_000 / 6 + 1));
}
