//! The fault menu's form: a fault of the speaker's kind, strength and duration reaches the
//! engine, shows on the badge row with its time left, and is healed exactly at its end
//! whatever the clock does (1x, max speed, stepping, a tour's replay).

use super::*;
use crate::metrics::Outcome;
use crate::scenario;
use crate::sim::LogLine;
use ratatui::crossterm::event::{MouseButton, MouseEventKind};

const CLOSED: &[&str] = &["load.mode=closed", "load.clients=40", "load.think=200ms"];

fn app() -> App {
    let sets: Vec<String> = CLOSED.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    App::new(scenario, Strategy::Bulkhead, super::Theme::Dark)
}

/// Plays to `at` at 1x, 100 ms a frame, with an unlimited event budget.
fn play_to(app: &mut App, at: Nanos) {
    while app.now() < at {
        let left = at.saturating_sub(app.now()).min(Nanos::from_millis(100));
        app.advance(
            Duration::from_nanos(left.as_nanos()),
            BudgetSpec::Events(u64::MAX),
        );
    }
}

fn secs(s: u64) -> Nanos {
    Nanos::from_secs(s)
}

fn info(app: &App) -> String {
    match app.status() {
        Some(Status::Info(t)) => t.clone(),
        other => panic!("expected info, got {other:?}"),
    }
}

/// `f`, the first service (user: no fallback, so a failed call fails its request), then
/// `percent` % of calls failing for `lasts` seconds, with the keys a speaker presses (the
/// form opens on the service's fault, else on 50 % until healed).
fn fail_user(app: &mut App, percent: u8, lasts: u32) {
    let from = match user_fault(app) {
        Some(Fault::Fail { probability }) => (probability * 100.0).round() as i32,
        _ => 50,
    };
    app.press(Key::Char('f'));
    app.press(Key::Char('1'));
    app.press(Key::Down); // effect: `from` % of calls fail
    let steps = (i32::from(percent) - from) / 5;
    for _ in 0..steps.unsigned_abs() {
        app.press(if steps > 0 { Key::Right } else { Key::Left });
    }
    app.press(Key::Down); // lasts: until healed
    for _ in 0..lasts / 5 {
        app.press(Key::Char('+'));
    }
    app.press(Key::Enter);
}

/// The times of the log's `user: healed` lines.
fn heals(app: &App) -> Vec<Nanos> {
    app.snapshot()
        .log
        .iter()
        .filter_map(|l| match l {
            LogLine::Change { at, text } if text == "user: healed" => Some(*at),
            _ => None,
        })
        .collect()
}

fn user_fault(app: &App) -> Option<Fault> {
    app.snapshot().services[0].fault
}

#[test]
fn a_fault_set_to_40_percent_for_10s_fails_that_share_of_calls_and_ends_at_10s() {
    let mut a = app();
    play_to(&mut a, secs(5));
    let before = a.snapshot();
    assert_eq!(
        before.services[0].stats.failures, 0,
        "user never fails by itself"
    );
    assert_eq!(before.outcomes.get(Outcome::Failed), 0);

    fail_user(&mut a, 40, 10);
    assert_eq!(a.overlay(), Overlay::None);
    assert_eq!(
        info(&a),
        "user: failing 40% for 10s, healed at t 15.000s",
        "the status says what was applied and when it ends"
    );
    assert_eq!(user_fault(&a), Some(Fault::Fail { probability: 0.4 }));
    assert!(
        a.badges(&a.snapshot())
            .contains(&"user failing 40% (10s left)".to_string()),
        "{:?}",
        a.badges(&a.snapshot())
    );
    play_to(&mut a, Nanos::from_millis(11_500));
    assert!(
        a.badges(&a.snapshot())
            .contains(&"user failing 40% (4s left)".to_string()),
        "the time left counts down, rounded up: {:?}",
        a.badges(&a.snapshot())
    );

    play_to(&mut a, secs(15));
    let at_end = a.snapshot();
    assert_eq!(user_fault(&a), None, "healed at its end");
    assert_eq!(heals(&a), vec![secs(15)], "one heal, at exactly t 15s");
    assert!(a.badges(&at_end).is_empty(), "{:?}", a.badges(&at_end));
    let calls = at_end.services[0].stats.calls - before.services[0].stats.calls;
    let failures = at_end.services[0].stats.failures;
    let share = failures as f64 / calls as f64;
    assert!(
        calls >= 40 && (0.25..=0.55).contains(&share),
        "{failures} of {calls} user calls failed in the 10 s"
    );
    assert!(
        at_end.outcomes.get(Outcome::Failed) > 0,
        "the failed calls failed their requests"
    );

    // Afterwards user's calls fail no more (its preset has none), and once the requests in
    // flight at the end (their user call failed before it) are answered, no request fails.
    play_to(&mut a, secs(30));
    let later = a.snapshot();
    assert_eq!(later.services[0].stats.failures, failures);
    assert!(later.services[0].stats.calls > at_end.services[0].stats.calls);
    play_to(&mut a, secs(45));
    let after = a.snapshot();
    assert_eq!(after.services[0].stats.failures, failures);
    assert_eq!(
        after.outcomes.get(Outcome::Failed),
        later.outcomes.get(Outcome::Failed)
    );
    assert!(after.outcomes.answered() > later.outcomes.answered());
}

#[test]
fn a_timed_fault_ends_exactly_at_its_end_at_max_speed() {
    let mut a = app();
    play_to(&mut a, secs(2));
    fail_user(&mut a, 100, 5);
    while a.clock().speed() != super::super::clock::Speed::Max {
        a.press(Key::Char('>'));
    }
    let mut frames = 0;
    while a.now() < secs(7) {
        a.advance(Duration::from_millis(16), BudgetSpec::Events(2_000));
        // The frame that reaches the end stops there, so the heal comes at it.
        assert!(a.now() <= secs(7) || user_fault(&a).is_none());
        frames += 1;
        assert!(frames < 10_000, "max speed moves the clock");
    }
    assert_eq!(heals(&a), vec![secs(7)]);
    assert_eq!(user_fault(&a), None);
}

#[test]
fn stepping_past_a_timed_fault_stops_at_its_end_and_heals_it() {
    let mut a = app();
    play_to(&mut a, secs(2));
    fail_user(&mut a, 100, 5);
    a.press(Key::Char(' '));
    let mut steps = 0;
    while user_fault(&a).is_some() {
        a.press(Key::Char('.'));
        steps += 1;
        assert!(steps < 100_000, "the steps reach the end");
        assert!(a.now() <= secs(7), "no step goes past the end");
    }
    assert_eq!(heals(&a), vec![secs(7)]);
    assert!(
        info(&a).contains("user: healed (its time was up)"),
        "{}",
        info(&a)
    );
}

#[test]
fn resetting_or_applying_again_drops_the_countdown() {
    let mut a = app();
    play_to(&mut a, secs(1));
    fail_user(&mut a, 100, 5);
    assert_eq!(a.timed_faults().len(), 1);
    a.press(Key::Char('r'));
    assert!(a.timed_faults().is_empty());
    assert!(a.badges(&a.snapshot()).is_empty());

    // A fault until healed replaces a timed one: nothing heals it at the old end.
    fail_user(&mut a, 100, 5);
    fail_user(&mut a, 30, 0);
    assert!(a.timed_faults().is_empty());
    play_to(&mut a, secs(8));
    assert_eq!(user_fault(&a), Some(Fault::Fail { probability: 0.3 }));
    assert!(heals(&a).is_empty());

    // Healing from the menu.
    a.press(Key::Char('f'));
    a.press(Key::Char('1'));
    a.press(Key::Right); // fail -> heal
    a.press(Key::Char('4'));
    assert_eq!(user_fault(&a), None);
}

#[test]
fn a_tour_replay_heals_a_timed_fault_on_the_way() {
    let mut a = app();
    fail_user(&mut a, 100, 5);
    a.run_until_healing(secs(9));
    assert_eq!(heals(&a), vec![secs(5)]);
    assert!(a.timed_faults().is_empty());
}

#[test]
fn clicking_the_arrows_and_apply_of_the_form_sets_the_fault() {
    let mut a = app();
    play_to(&mut a, secs(1));
    let click = |a: &mut App, column: u16, row: u16| {
        let event = MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
        };
        a.handle_mouse(event, 80, 24);
    };
    a.press(Key::Char('f'));
    // The list: 3 services, "double the load" and the scope line in a 7-row box from row 8.
    click(&mut a, 40, 9);
    let Overlay::Faults(menu) = a.overlay() else {
        panic!("the form: {:?}", a.overlay())
    };
    assert_eq!(menu.service, Some(0));
    // The form: 4 lines, `now` and the scope in an 8-row box from row 8, 46 wide from
    // column 17: ◂ at column 17 + 1 + 10, ▸ at 17 + 1 + 43.
    click(&mut a, 61, 10); // effect ▸: 55 %
    click(&mut a, 61, 10); // 60 %
    click(&mut a, 28, 11); // lasts ◂: stays until healed
    click(&mut a, 61, 11); // lasts ▸: 5 s
    click(&mut a, 30, 10); // on the line, off its arrows: selects it, changes nothing
    let Overlay::Faults(menu) = a.overlay() else {
        panic!("still the form: {:?}", a.overlay())
    };
    assert_eq!(menu.cursor, 1);
    assert_eq!(menu.form.lasts(), Some(secs(5)));
    click(&mut a, 30, 12); // apply
    assert_eq!(a.overlay(), Overlay::None);
    assert_eq!(user_fault(&a), Some(Fault::Fail { probability: 0.6 }));
    assert_eq!(a.timed_faults()[0].end, secs(6));
}

/// At max speed the frame's budget is the pace, not a lag: a timed fault far ahead stops
/// the clock at its end without marking the run behind on the way.
#[test]
fn a_timed_fault_far_ahead_does_not_mark_max_speed_behind() {
    let mut a = app();
    fail_user(&mut a, 100, 600);
    while a.clock().speed() != super::super::clock::Speed::Max {
        a.press(Key::Char('>'));
    }
    for _ in 0..5 {
        a.advance(Duration::from_millis(16), BudgetSpec::Events(500));
        assert!(!a.is_behind(), "behind at {}", a.now());
    }
    assert!(a.now() > Nanos::ZERO);
}

/// The times and texts of the log's load changes.
fn load_changes(app: &App) -> Vec<(Nanos, String)> {
    app.snapshot()
        .log
        .iter()
        .filter_map(|l| match l {
            LogLine::Change { at, text }
                if text.starts_with("clients") || text.starts_with("rate") =>
            {
                Some((*at, text.clone()))
            }
            _ => None,
        })
        .collect()
}

/// `f`, the list's last line (Up from the first goes round to it), `lasts` seconds from the
/// default 30 s in 5 s steps, Enter.
fn double_load(app: &mut App, lasts: u32) {
    app.press(Key::Char('f'));
    app.press(Key::Up);
    for _ in 0..(30 - lasts) / 5 {
        app.press(Key::Left);
    }
    app.press(Key::Enter);
}

fn max_speed(app: &mut App) {
    while app.clock().speed() != super::super::clock::Speed::Max {
        app.press(Key::Char('>'));
    }
}

#[test]
fn doubling_a_closed_load_doubles_the_clients_and_restores_them_exactly_at_its_end() {
    let mut a = app();
    play_to(&mut a, secs(2));
    double_load(&mut a, 10);
    assert_eq!(a.overlay(), Overlay::None);
    assert_eq!(info(&a), "clients 40 -> 80 for 10s, back at t 12.000s");
    assert!(matches!(
        a.snapshot().load,
        LoadMode::Closed { clients: 80, .. }
    ));
    assert!(
        a.badges(&a.snapshot())
            .contains(&"load x2 (10s left)".to_string()),
        "{:?}",
        a.badges(&a.snapshot())
    );
    max_speed(&mut a);
    let mut frames = 0;
    while a.now() < secs(12) {
        a.advance(Duration::from_millis(16), BudgetSpec::Events(2_000));
        // The frame that reaches the end stops there, so the load is set back at it.
        assert!(a.now() <= secs(12) || a.load_boost().is_none());
        frames += 1;
        assert!(frames < 10_000, "max speed moves the clock");
    }
    assert!(matches!(
        a.snapshot().load,
        LoadMode::Closed { clients: 40, .. }
    ));
    assert_eq!(
        load_changes(&a),
        vec![
            (secs(2), "clients 40 -> 80".to_string()),
            (secs(12), "clients 80 -> 40".to_string()),
        ]
    );
    assert!(a.load_boost().is_none());
    assert!(
        a.badges(&a.snapshot()).is_empty(),
        "the preset's load again"
    );
}

#[test]
fn doubling_an_open_load_doubles_the_rate_and_restores_it_exactly_at_its_end_at_max_speed() {
    let sets: Vec<String> = ["load.mode=open", "load.rate=12.5"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    let mut a = App::new(scenario, Strategy::Bulkhead, super::Theme::Dark);
    play_to(&mut a, secs(1));
    max_speed(&mut a);
    double_load(&mut a, 5);
    assert_eq!(
        a.snapshot().load,
        LoadMode::Open {
            rate: 25.0,
            ramp: None
        }
    );
    while a.now() < secs(6) {
        a.advance(Duration::from_millis(16), BudgetSpec::Events(500));
    }
    assert_eq!(a.now(), secs(6), "the frame stops at the end");
    assert_eq!(
        a.snapshot().load,
        LoadMode::Open {
            rate: 12.5,
            ramp: None
        }
    );
    assert_eq!(
        load_changes(&a),
        vec![
            (secs(1), "rate 12.5/s -> 25/s".to_string()),
            (secs(6), "rate 25/s -> 12.5/s".to_string()),
        ]
    );
}

#[test]
fn a_load_changed_during_the_doubling_stays_as_it_was_changed() {
    let mut a = app();
    play_to(&mut a, secs(1));
    double_load(&mut a, 5);
    a.press(Key::Up); // 80 -> 88 clients
    play_to(&mut a, secs(7));
    assert!(matches!(
        a.snapshot().load,
        LoadMode::Closed { clients: 88, .. }
    ));
    assert!(a.load_boost().is_none());
    assert!(info(&a).contains("the load had changed since, so it stays"));
}

#[test]
fn a_doubled_load_is_not_doubled_again_and_a_reset_forgets_it() {
    let mut a = app();
    double_load(&mut a, 5);
    double_load(&mut a, 5);
    assert_eq!(info(&a), "the load is already doubled, until t 5.000s");
    assert!(matches!(
        a.snapshot().load,
        LoadMode::Closed { clients: 80, .. }
    ));
    a.press(Key::Char('r'));
    assert!(a.load_boost().is_none());
}
