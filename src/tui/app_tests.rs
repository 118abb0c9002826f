//! `App` without a terminal: every action reaches the engine (or says why not).

use super::*;
use crate::scenario;
use crate::sim::LogLine;
use crate::topology::PoolRole;

fn scenario(sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    scenario::load("ironthread", &sets).expect("preset loads")
}

fn app(sets: &[&str], strategy: Strategy) -> App {
    App::new(scenario(sets), strategy, Theme::Dark)
}

const CLOSED: &[&str] = &["load.mode=closed", "load.clients=40", "load.think=200ms"];
const OPEN: &[&str] = &["load.mode=open", "load.rate=10"];

/// Plays `secs` of simulated time at 1x with an unlimited event budget.
fn play(app: &mut App, secs: u64) {
    for _ in 0..secs * 10 {
        app.advance(Duration::from_millis(100), BudgetSpec::Events(u64::MAX));
    }
}

fn pool(app: &App, id: PoolId) -> PoolSnapshot {
    app.snapshot()
        .pools
        .into_iter()
        .find(|p| p.id == id)
        .expect("pool exists")
}

fn status(app: &App) -> Status {
    app.status().cloned().expect("a status")
}

fn server(app: &App) -> PoolId {
    app.sim().topology().server()
}

fn ironthread(app: &App) -> PoolId {
    app.sim()
        .topology()
        .id_of(crate::topology::PoolRole::Bulkhead(0))
        .expect("a bulkhead")
}

#[test]
fn strategy_switch_reaches_the_engine_and_the_log() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('2'));
    assert_eq!(a.sim().strategy(), Strategy::Shared);
    let last = a.snapshot().log.last().cloned();
    assert!(
        matches!(&last, Some(LogLine::Change { text, .. }) if text == "strategy bulkhead -> shared"),
        "{last:?}"
    );
    assert_eq!(
        a.pool_ids(),
        vec![
            server(&a),
            a.sim().topology().id_of(PoolRole::Shared).expect("shared")
        ]
    );
}

#[test]
fn pool_selection_wraps_both_ways() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    assert_eq!(a.pool_ids().len(), 2);
    assert_eq!(a.selected_pool(), Some(server(&a)));
    a.apply(Action::NextPool);
    assert_eq!(a.selected_pool(), Some(ironthread(&a)));
    a.apply(Action::NextPool);
    assert_eq!(a.selected_pool(), Some(server(&a)));
    a.apply(Action::PreviousPool);
    assert_eq!(a.selected_pool(), Some(ironthread(&a)));
}

#[test]
fn plus_and_minus_resize_the_selected_pool() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::NextPool);
    let id = ironthread(&a);
    a.press(Key::Char('+'));
    assert_eq!(pool(&a, id).core, 11);
    assert_eq!(status(&a), Status::Info("IronThread core 10 -> 11".into()));
    a.press(Key::Char('-'));
    a.press(Key::Char('-'));
    assert_eq!(pool(&a, id).core, 9);
    // The server pool's knob is maxThreads.
    a.apply(Action::PreviousPool);
    a.apply(Action::GrowPool);
    assert_eq!(pool(&a, server(&a)).max, 220);
}

#[test]
fn a_pool_shrinks_no_further_than_one() {
    let mut a = app(&["strategy.bulkhead.IronThread.core=1"], Strategy::Bulkhead);
    a.apply(Action::NextPool);
    a.apply(Action::ShrinkPool);
    assert_eq!(pool(&a, ironthread(&a)).core, 1);
    assert!(matches!(status(&a), Status::Info(t) if t.contains("smallest")));
}

#[test]
fn a_thread_per_task_pool_says_it_has_no_size() {
    let mut a = app(CLOSED, Strategy::Unbounded);
    a.apply(Action::NextPool);
    a.apply(Action::GrowPool);
    assert!(
        matches!(status(&a), Status::Error(t) if t.contains("no size")),
        "{:?}",
        a.status()
    );
}

#[test]
fn brackets_change_the_queue_capacity() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::NextPool);
    let id = ironthread(&a);
    a.press(Key::Char(']'));
    assert_eq!(pool(&a, id).queue_capacity, Some(550));
    a.press(Key::Char('['));
    assert_eq!(pool(&a, id).queue_capacity, Some(495));
}

#[test]
fn an_unbounded_server_queue_shrinks_to_a_bound() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    assert_eq!(pool(&a, server(&a)).queue_capacity, None);
    a.apply(Action::GrowQueue);
    assert!(matches!(status(&a), Status::Info(t) if t.contains("unbounded")));
    a.apply(Action::ShrinkQueue);
    assert_eq!(pool(&a, server(&a)).queue_capacity, Some(100));
}

#[test]
fn discard_oldest_keeps_a_queue_of_one_and_says_why() {
    let mut a = app(
        &[
            "strategy.bulkhead.IronThread.queue=1",
            "strategy.bulkhead.IronThread.rejection=discard-oldest",
        ],
        Strategy::Bulkhead,
    );
    a.apply(Action::NextPool);
    a.apply(Action::ShrinkQueue);
    assert_eq!(pool(&a, ironthread(&a)).queue_capacity, Some(1));
    assert!(matches!(status(&a), Status::Error(t) if t.contains("discard-oldest")));
}

#[test]
fn up_and_down_change_closed_and_open_load() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Up);
    assert!(matches!(
        a.sim().scenario().load.mode,
        LoadMode::Closed { clients: 44, .. }
    ));
    a.press(Key::Down);
    assert!(matches!(
        a.sim().scenario().load.mode,
        LoadMode::Closed { clients: 40, .. }
    ));

    let mut a = app(OPEN, Strategy::Bulkhead);
    a.press(Key::Up);
    assert!(matches!(a.sim().scenario().load.mode, LoadMode::Open { rate, .. } if rate == 12.5));
    a.press(Key::Down);
    assert!(matches!(a.sim().scenario().load.mode, LoadMode::Open { rate, .. } if rate == 10.0));
}

#[test]
fn down_takes_the_open_rate_no_lower_than_its_floor_and_says_so() {
    let mut a = app(OPEN, Strategy::Bulkhead);
    let rate = |a: &App| match a.sim().scenario().load.mode {
        LoadMode::Open { rate, .. } => rate,
        _ => f64::NAN,
    };
    for _ in 0..40 {
        a.press(Key::Down);
    }
    assert_eq!(rate(&a), LEAST_KEYED_RATE);
    assert!(
        matches!(status(&a), Status::Info(t) if t.contains("goes no lower than 0.1/s")),
        "{:?}",
        a.status()
    );
    a.press(Key::Up);
    assert_eq!(rate(&a), 0.125);
}

#[test]
fn load_keys_say_they_do_not_apply_to_runs() {
    let mut a = app(&[], Strategy::Bulkhead);
    a.apply(Action::MoreLoad);
    assert!(matches!(status(&a), Status::Info(t) if t.contains("5 runs")));
    assert!(matches!(
        a.sim().scenario().load.mode,
        LoadMode::Runs { count: 5 }
    ));
}

#[test]
fn pause_holds_the_clock_and_step_moves_one_event() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    play(&mut a, 1);
    a.press(Key::Char(' '));
    assert!(a.clock().is_paused());
    let (t, events) = (a.now(), a.sim().events_processed());
    play(&mut a, 1);
    assert_eq!(a.now(), t);
    a.press(Key::Char('.'));
    assert_eq!(a.sim().events_processed(), events + 1);
    assert!(a.clock().is_paused());
    a.press(Key::Char(' '));
    play(&mut a, 1);
    assert!(a.now() > t);
}

#[test]
fn speed_keys_walk_the_ladder_and_stop_at_its_ends() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    for _ in 0..20 {
        a.press(Key::Char('>'));
    }
    assert_eq!(a.clock().speed(), super::super::clock::Speed::Max);
    assert!(matches!(status(&a), Status::Info(t) if t.ends_with("already the fastest")));
    for _ in 0..20 {
        a.press(Key::Char('<'));
    }
    assert_eq!(a.clock().speed(), super::super::clock::Speed::Times(0.1));
    assert_eq!(
        status(&a),
        Status::Info("speed 0.1x: already the slowest".into())
    );
    a.press(Key::Char('>'));
    assert!(matches!(status(&a), Status::Info(t) if !t.contains("already")));
}

#[test]
fn fault_menu_injects_and_heals() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('f'));
    assert!(matches!(a.overlay(), Overlay::Faults(_)));
    a.press(Key::Char('3')); // recommendations: its form, on `kind fail`
    a.press(Key::Left); // hang
    a.press(Key::Left); // slow (x5)
    a.press(Key::Enter);
    assert_eq!(a.overlay(), Overlay::None);
    assert_eq!(
        a.snapshot().services[2].fault,
        Some(Fault::Slow { factor: 5.0 })
    );

    a.press(Key::Char('f'));
    a.press(Key::Down);
    a.press(Key::Down);
    a.press(Key::Enter); // recommendations: its form, set to its fault (slow)
    a.press(Key::Left); // the kind before slow, round the end: heal
    a.press(Key::Enter);
    assert_eq!(a.snapshot().services[2].fault, None);
    assert_eq!(status(&a), Status::Info("recommendations: healed".into()));
}

#[test]
fn escape_backs_out_of_the_fault_menu_one_level_at_a_time() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('f'));
    a.press(Key::Char('2'));
    a.press(Key::Esc);
    assert!(matches!(
        a.overlay(),
        Overlay::Faults(FaultMenu {
            service: None,
            cursor: 1,
            ..
        })
    ));
    a.press(Key::Esc);
    assert_eq!(a.overlay(), Overlay::None);
    assert!(!a.should_quit());
}

#[test]
fn reset_replays_the_same_seed() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    play(&mut a, 3);
    let before = a.snapshot();
    let seed = a.scenario().seed;
    a.press(Key::Char('r'));
    assert_eq!(a.now(), Nanos::ZERO);
    assert_eq!(a.scenario().seed, seed);
    play(&mut a, 3);
    let after = a.snapshot();
    assert_eq!(before.outcomes, after.outcomes);
    assert_eq!(before.series, after.series);
}

#[test]
fn new_seed_changes_the_seed_and_restarts() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    play(&mut a, 2);
    let seed = a.scenario().seed;
    a.press(Key::Char('s'));
    assert_eq!(a.scenario().seed, seed + 1);
    assert_eq!(a.sim().scenario().seed, seed + 1);
    assert_eq!(a.now(), Nanos::ZERO);
    assert_eq!(status(&a), Status::Info(format!("new seed {}", seed + 1)));
}

#[test]
fn a_finished_load_stops_the_clock_until_reset() {
    let mut a = app(&[], Strategy::Bulkhead);
    play(&mut a, 10);
    assert!(a.is_finished());
    assert!(!a.needs_ticks());
    let t = a.now();
    play(&mut a, 1);
    assert_eq!(a.now(), t);
    a.apply(Action::Reset);
    assert!(!a.is_finished());
    assert!(a.needs_ticks());
}

#[test]
fn help_opens_and_closes_and_takes_the_keys() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('?'));
    assert_eq!(a.overlay(), Overlay::Help);
    a.press(Key::Char('2'));
    assert_eq!(a.sim().strategy(), Strategy::Bulkhead);
    a.press(Key::Esc);
    assert_eq!(a.overlay(), Overlay::None);
    assert!(!a.should_quit());
    a.press(Key::Char('?'));
    a.press(Key::Char('?'));
    assert_eq!(a.overlay(), Overlay::Legend);
    a.press(Key::Char('?'));
    assert_eq!(a.overlay(), Overlay::None);
}

#[test]
fn q_and_ctrl_c_quit_but_escape_never_does() {
    for key in [Key::Char('q'), Key::Ctrl('c')] {
        let mut a = app(CLOSED, Strategy::Bulkhead);
        a.press(key);
        assert!(a.should_quit(), "{key:?}");
    }
    // f, Esc, Esc: the menu closes and the program goes on.
    let mut a = app(CLOSED, Strategy::Bulkhead);
    for key in [Key::Char('f'), Key::Esc, Key::Esc, Key::Esc] {
        a.press(key);
        assert!(!a.should_quit(), "{key:?}");
    }
    assert!(matches!(status(&a), Status::Info(t) if t.contains("q quits")));
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('?'));
    a.press(Key::Ctrl('c'));
    assert!(a.should_quit());
}

#[test]
fn compare_runs_four_engines_in_lockstep() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    play(&mut a, 2);
    a.press(Key::Char('c'));
    let engines = a.compare_engines().expect("compare view open");
    let strategies: Vec<_> = engines.iter().map(|e| e.strategy()).collect();
    assert_eq!(strategies, Strategy::ALL.to_vec());
    assert!(a.needs_ticks());
    play(&mut a, 1);
    let now = a.sim().now();
    for e in a.compare_engines().expect("open") {
        assert_eq!(e.now(), now);
    }
    // Esc leaves the compare view, not the program.
    a.press(Key::Esc);
    assert!(a.compare_engines().is_none());
    assert!(!a.should_quit());
}

#[test]
fn compare_engines_catch_up_within_the_budget() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    play(&mut a, 5);
    a.apply(Action::ToggleCompare);
    a.apply(Action::TogglePause);
    a.advance(Duration::from_millis(30), BudgetSpec::Events(10));
    assert!(a.is_behind());
    assert!(a.needs_ticks(), "keeps ticking while paused to catch up");
    let engines = a.compare_engines().expect("open");
    assert!(engines.iter().all(|e| e.now() < a.sim().now()));
}

#[test]
fn changes_in_compare_view_apply_to_every_engine() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::ToggleCompare);
    a.apply(Action::NextPool);
    a.apply(Action::GrowPool);
    a.apply(Action::MoreLoad);
    a.apply(Action::OpenFaultMenu);
    a.apply(Action::MenuPick(1));
    for _ in 0..10 {
        a.apply(Action::MenuArrow(2, true)); // 50 % to 100 %
    }
    a.apply(Action::MenuPick(4));
    let id = ironthread(&a);
    for e in std::iter::once(a.sim()).chain(a.compare_engines().expect("open")) {
        let s = e.snapshot();
        let p = s.pools.iter().find(|p| p.id == id).expect("pool");
        assert_eq!(p.core, 11);
        assert!(matches!(s.load, LoadMode::Closed { clients: 44, .. }));
        assert_eq!(s.services[0].fault, Some(Fault::Fail { probability: 1.0 }));
    }
    // The strategy only changes the main engine; the compare engines keep theirs.
    a.apply(Action::SelectStrategy(Strategy::Shared));
    let strategies: Vec<_> = a
        .compare_engines()
        .expect("open")
        .iter()
        .map(|e| e.strategy())
        .collect();
    assert_eq!(strategies, Strategy::ALL.to_vec());
}

#[test]
fn max_speed_runs_events_within_the_budget() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    for _ in 0..10 {
        a.apply(Action::SpeedUp);
    }
    a.advance(Duration::from_millis(33), BudgetSpec::Events(500));
    assert!(a.sim().events_processed() >= 500);
    assert!(a.now() > Nanos::ZERO);
}

#[test]
fn a_tour_fires_its_steps_in_time_presses_their_keys_and_waits_for_the_speaker() {
    let mut a = App::new(
        scenario::load("ironthread", &[]).expect("preset"),
        Strategy::Bulkhead,
        Theme::Dark,
    );
    assert!(a.start_tour());
    // Step 1 at t = 0: caption shown, clock paused.
    let (step, steps, _) = a.tour().and_then(Tour::caption).expect("first caption");
    assert_eq!((step, steps), (1, 5));
    assert!(a.clock().is_paused());
    // Space goes on: the caption closes and the clock runs to the next step at 5 s exactly.
    a.press(Key::Char(' '));
    assert!(a.tour().and_then(Tour::caption).is_none());
    play(&mut a, 4);
    assert_eq!(a.now(), Nanos::from_secs(4));
    assert!(a.tour().and_then(Tour::caption).is_none());
    assert_eq!(a.snapshot().outcomes.total(), 4);
    play(&mut a, 2);
    let (step, _, _) = a.tour().and_then(Tour::caption).expect("second caption");
    assert_eq!(step, 2);
    assert_eq!(a.now(), Nanos::from_secs(5));
    assert_eq!(
        a.snapshot().outcomes.total(),
        5,
        "the five answers it speaks of"
    );
    // The third step is due at once; its keys "1r": sequential, and a reset to t = 0.
    a.press(Key::Char(' '));
    let (step, _, _) = a.tour().and_then(Tour::caption).expect("third caption");
    assert_eq!(step, 3);
    assert_eq!(a.sim().strategy(), Strategy::Sequential);
    assert_eq!(a.now(), Nanos::ZERO);
    assert_eq!(a.snapshot().outcomes.total(), 0);
    // While a caption shows, other keys still work: the speaker can take over.
    a.press(Key::Char('+'));
    assert!(matches!(a.status(), Some(Status::Info(t)) if t.contains("threads 200 -> 220")));
    a.press(Key::Right);
    play(&mut a, 9);
    let (step, _, _) = a.tour().and_then(Tour::caption).expect("fourth caption");
    assert_eq!(step, 4);
    assert_eq!(a.snapshot().outcomes.total(), 5, "run 5 is on screen");
    a.press(Key::Char(' '));
    let (step, _, _) = a.tour().and_then(Tour::caption).expect("fifth caption");
    assert_eq!(step, 5);
    assert!(a.compare_engines().is_some());
    a.press(Key::Char(' '));
    assert!(
        a.tour().is_some_and(Tour::is_over),
        "the tour is over, not gone"
    );
}

#[test]
fn a_preset_without_a_tour_does_not_start_one() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    let mut plain = a.scenario().clone();
    plain.tour.clear();
    a = App::new(plain, Strategy::Bulkhead, Theme::Dark);
    assert!(!a.start_tour());
}

// ----- real mode: ironthread's five runs, a hundred times faster (about 70 ms of wall time) -----

fn real_app(strategy: Strategy) -> App {
    let options = RealOptions {
        time_scale: 0.01,
        ..RealOptions::default()
    };
    App::new_real(scenario(&[]), strategy, options, Theme::Dark).expect("the real run starts")
}

/// Frames until the real run ends (bounded: a stalled machine fails the test, not hangs it).
fn until_finished(app: &mut App) {
    for _ in 0..500 {
        app.advance(Duration::from_millis(10), BudgetSpec::Events(u64::MAX));
        if app.is_finished() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the real run did not finish in 5 s");
}

#[test]
fn real_mode_refuses_what_real_time_cannot_do() {
    let mut a = real_app(Strategy::Bulkhead);
    for key in ['.', ' ', '>', '<', '+', ']', 'f', 'c'] {
        a.press(Key::Char(key));
        assert!(
            matches!(a.status(), Some(Status::Info(t)) if t.starts_with("real run:")),
            "{key}: {:?}",
            a.status()
        );
    }
    a.press(Key::Up);
    assert!(matches!(a.status(), Some(Status::Info(t)) if t.contains("--set")));
    assert!(!a.clock().is_paused());
    assert_eq!(a.overlay(), Overlay::None);
    assert!(a.compare_engines().is_none());
    assert!(a.needs_ticks() || a.is_finished());
}

#[test]
fn real_mode_plays_the_load_then_restarts_on_r_and_on_a_strategy_key() {
    let mut a = real_app(Strategy::Bulkhead);
    until_finished(&mut a);
    let s = a.snapshot();
    assert_eq!(s.outcomes.total(), 5);
    assert!(s.finished);
    assert!(a.now() > Nanos::ZERO);
    a.press(Key::Char('r'));
    assert!(matches!(a.status(), Some(Status::Info(t)) if t == "real run restarted: seed 10"));
    a.press(Key::Char('2'));
    assert!(matches!(a.status(), Some(Status::Info(t)) if t == "real run restarted: shared"));
    assert_eq!(a.snapshot().strategy, Strategy::Shared);
    assert_eq!(a.source().strategy(), Strategy::Shared);
    assert!(a.engine().is_none(), "a real run keeps no engine");
    until_finished(&mut a);
    assert_eq!(a.snapshot().outcomes.total(), 5);
}

#[test]
fn real_mode_keeps_help_and_quit() {
    let mut a = real_app(Strategy::Sequential);
    a.press(Key::Char('?'));
    assert_eq!(a.overlay(), Overlay::Help);
    a.press(Key::Esc);
    assert_eq!(a.overlay(), Overlay::None);
    a.press(Key::Char('q'));
    assert!(a.should_quit());
}

#[test]
fn real_mode_refuses_a_run_over_the_thread_cap() {
    let options = RealOptions {
        time_scale: 0.01,
        max_threads: 5,
        ..RealOptions::default()
    };
    let err = App::new_real(scenario(&[]), Strategy::Bulkhead, options, Theme::Dark)
        .expect_err("over the cap");
    assert!(matches!(err, RealError::TooManyThreads { .. }), "{err}");
}

#[test]
fn the_help_box_leaves_a_two_row_status_in_view() {
    use ratatui::{Terminal, backend::TestBackend};
    let s = scenario::load("erlang-c", &["load.rate=30000".to_owned()]).expect("preset loads");
    let mut a = App::new(s, Strategy::Sequential, Theme::Dark);
    a.source
        .engine_mut()
        .expect("simulated")
        .set_in_flight_cap(20_000);
    a.apply(Action::ToggleHelp);
    // The run stops at its cap with help open: the status says so on two rows.
    play(&mut a, 2);
    assert!(matches!(a.status(), Some(Status::Error(_))));
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    let snapshot = a.snapshot();
    terminal
        .draw(|frame| crate::tui::ui::render(frame, &a, &snapshot))
        .expect("draws");
    let text = terminal.backend().to_string();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[22].contains("STOPPED at"), "{text}");
    assert!(rows[21].contains("Esc closes"), "{text}");
}

#[test]
fn a_run_at_its_cap_of_requests_in_flight_stops_and_says_so_in_the_status_line() {
    let sets = vec!["load.rate=30000".to_owned()];
    let s = scenario::load("erlang-c", &sets).expect("preset loads");
    let mut a = App::new(s, Strategy::Sequential, Theme::Dark);
    a.source
        .engine_mut()
        .expect("simulated")
        .set_in_flight_cap(20_000);
    play(&mut a, 2);
    assert!(a.sim().over_cap());
    let at = a.now();
    let Status::Error(text) = status(&a) else {
        panic!("not an error: {:?}", a.status());
    };
    assert!(
        text.starts_with(&format!(
            "STOPPED at {at} (r resets, q quits): the sequential run holds the most requests \
             in flight a run may (20001)"
        )),
        "{text}"
    );
    play(&mut a, 1);
    assert_eq!(a.now(), at);
    a.press(Key::Char('r'));
    assert!(!a.sim().over_cap());
}

#[test]
fn the_rate_key_stops_where_requests_would_pile_up_beyond_the_cap() {
    let s = scenario::load("erlang-c", &[]).expect("preset loads");
    let mut a = App::new(s, Strategy::Sequential, Theme::Dark);
    let most = a.sim().max_rate();
    for _ in 0..40 {
        a.press(Key::Up);
    }
    let LoadMode::Open { rate, .. } = a.sim().scenario().load.mode else {
        panic!("an open load");
    };
    assert_eq!(rate, most);
    let Some(Status::Error(text) | Status::Info(text)) = a.status().cloned() else {
        panic!("no status");
    };
    assert!(text.contains("the most allowed"), "{text}");
}

#[test]
fn a_stalled_engine_says_so_in_the_status_line_instead_of_freezing() {
    let mut a = app(&["load.mode=batch", "load.count=1000"], Strategy::Unbounded);
    a.source
        .engine_mut()
        .expect("simulated")
        .set_stall_events(500);
    play(&mut a, 5);
    assert!(a.sim().stalled());
    let at = a.now();
    let Status::Error(text) = status(&a) else {
        panic!("not an error: {:?}", a.status());
    };
    assert!(
        text.starts_with(&format!("STALLED at {at} (r resets, q quits)")),
        "{text}"
    );
    // The clock holds, and `r` gives a fresh run.
    play(&mut a, 1);
    assert_eq!(a.now(), at);
    a.press(Key::Char('r'));
    assert!(!a.sim().stalled());
}

#[test]
fn the_seed_after_the_largest_wraps_to_0_and_says_so() {
    let max = crate::scenario::MAX_SEED.to_string();
    let mut a = app(&[&format!("scenario.seed={max}")], Strategy::Bulkhead);
    a.press(Key::Char('s'));
    assert_eq!(a.scenario().seed, 0);
    assert_eq!(
        status(&a),
        Status::Info(format!("new seed 0 (after {max}, the largest, back to 0)"))
    );
}

#[test]
fn reset_and_new_seed_say_which_live_changes_they_drop() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Tab);
    a.press(Key::Char('+'));
    a.press(Key::Char('r'));
    assert_eq!(
        status(&a),
        Status::Info("reset: seed 10 · live changes dropped: IronThread core 11".into())
    );
    assert_eq!(a.sim().scenario().strategy.bulkheads[0].core, 10);
    // Nothing changed since: nothing to say.
    a.press(Key::Char('s'));
    assert_eq!(status(&a), Status::Info("new seed 11".into()));
}

#[test]
fn the_thread_kind_keys_say_which_live_changes_their_restart_drops() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Tab);
    a.press(Key::Char('+'));
    a.press(Key::Char('v'));
    assert_eq!(
        status(&a),
        Status::Info(
            "server virtual: run restarted · live changes dropped: IronThread core 11".into()
        )
    );
    a.press(Key::Char('+'));
    a.press(Key::Char('u'));
    assert!(
        matches!(status(&a), Status::Info(t) if t.ends_with("dropped: IronThread core 11")),
        "{:?}",
        a.status()
    );
}

#[test]
fn the_badge_names_a_server_change_as_the_log_does() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('-'));
    let Status::Info(text) = status(&a) else {
        panic!("no change")
    };
    assert_eq!(text, "tomcat threads 200 -> 180");
    assert_eq!(
        a.badges(&a.snapshot()),
        vec!["tomcat threads 180".to_string()]
    );
}

#[test]
fn a_step_names_only_the_gauges_that_moved() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char(' '));
    for _ in 0..40 {
        a.press(Key::Char('.'));
        let Status::Info(text) = status(&a) else {
            panic!("no step text")
        };
        assert!(!text.contains("0->0"), "{text}");
        for part in text.split(" · ") {
            for pair in part.split(' ').filter(|w| w.contains("->")) {
                let (from, to) = pair.split_once("->").expect("a change");
                assert_ne!(from, to, "{text}");
            }
        }
    }
}

/// An open load stops at the scenario's duration, as `run` cuts it, and says FINISHED: the
/// screen's totals are then `run`'s, however far past the end the clock was asked to go, at
/// 1x or as fast as possible.
#[test]
fn an_open_load_finishes_at_its_duration_with_the_totals_run_prints() {
    let s = scenario::load("spike", &[]).expect("preset loads");
    let headless = crate::report::play(&s, Strategy::Sequential, s.duration).snapshot();
    for fast in [false, true] {
        let mut a = App::new(s.clone(), Strategy::Sequential, Theme::Dark);
        if fast {
            while !a.is_finished() {
                a.apply(Action::SpeedUp);
                a.advance(Duration::from_secs(1), BudgetSpec::Events(1_000_000));
            }
        } else {
            play(&mut a, 170);
        }
        assert!(a.is_finished());
        assert_eq!(a.now(), s.duration);
        let snap = a.snapshot();
        assert_eq!(
            (snap.sent, snap.outcomes, snap.server_responses),
            (headless.sent, headless.outcomes, headless.server_responses)
        );
        assert_eq!(snap.goodput_timeline, headless.goodput_timeline);
        assert!(!a.needs_ticks(), "nothing more to play");
        a.apply(Action::Step);
        assert_eq!(a.now(), s.duration, "a step goes no further");
    }
}
