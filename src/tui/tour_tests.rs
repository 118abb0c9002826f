//! Tours as a speaker plays them: every built-in tour's expectations hold at every step,
//! steps can be replayed (`←`, `Home`, the step list), and no stray key ends the lesson.

use std::time::Duration;

use super::*;
use crate::scenario;
use crate::tui::clock::BudgetSpec;

fn tour_app(preset: &str) -> App {
    let s = scenario::load(preset, &[]).expect("preset loads");
    let strategy = s.strategy.default;
    let mut app = App::new(s, strategy, Theme::Dark);
    assert!(app.start_tour(), "{preset} has a tour");
    app
}

fn tick(app: &mut App) {
    app.advance(Duration::from_millis(100), BudgetSpec::Events(u64::MAX));
}

/// The step shown now (from 1), after letting behind engines catch up.
fn shown(app: &App) -> Option<usize> {
    app.tour().and_then(Tour::caption).map(|(n, _, _)| n)
}

#[test]
fn every_builtin_tour_meets_its_expectations_at_every_step() {
    let mut toured = 0;
    for name in scenario::builtin_names() {
        let s = scenario::load(name, &[]).expect("preset loads");
        if s.tour.is_empty() {
            continue;
        }
        toured += 1;
        let mut app = tour_app(name);
        let mut seen = 0;
        // Ten simulated minutes at most: every tour ends well before.
        for _ in 0..6_000 {
            if app.tour().is_none_or(Tour::is_over) {
                break;
            }
            if let Some(step) = shown(&app) {
                let expect = app
                    .tour()
                    .and_then(Tour::shown_step)
                    .map(|s| s.expect.len());
                assert!(
                    expect > Some(0),
                    "{name} step {step}: a caption with nothing checked"
                );
                tick(&mut app);
                let failures = app.tour_expectation_failures();
                assert!(failures.is_empty(), "{name} step {step}: {failures:?}");
                assert_eq!(step, seen + 1, "{name}: steps fire in order");
                seen = step;
                app.press(Key::Char(' '));
            } else {
                tick(&mut app);
            }
        }
        assert_eq!(seen, s.tour.len(), "{name}: every step fired");
        assert!(
            app.tour().is_some_and(Tour::is_over),
            "{name}: the tour ended"
        );
    }
    assert!(toured >= 7, "the built-in tours were played");
}

/// Plays on (space on every caption) until step `n` shows.
fn play_to_step(app: &mut App, n: usize) {
    for _ in 0..6_000 {
        match shown(app) {
            Some(step) if step == n => return,
            Some(_) => app.press(Key::Char(' ')),
            None => tick(app),
        }
    }
    panic!("step {n} never showed");
}

#[test]
fn left_replays_the_previous_step_and_home_the_first() {
    let mut app = tour_app("ironthread");
    play_to_step(&mut app, 4);
    let at_four = app.snapshot();
    assert_eq!(at_four.outcomes.total(), 5);
    app.press(Key::Left);
    assert_eq!(shown(&app), Some(3));
    assert_eq!(app.sim().strategy(), Strategy::Sequential);
    assert_eq!(app.now(), Nanos::ZERO, "step 3 reset the run");
    // Going on from the replayed step reaches the same screen as the first time.
    app.press(Key::Char(' '));
    while shown(&app).is_none() {
        tick(&mut app);
    }
    assert_eq!(shown(&app), Some(4));
    assert_eq!(app.snapshot().outcomes, at_four.outcomes);
    app.press(Key::Home);
    assert_eq!(shown(&app), Some(1));
    assert_eq!(app.sim().strategy(), Strategy::Bulkhead);
    assert_eq!(app.now(), Nanos::ZERO);
}

#[test]
fn between_two_steps_left_replays_the_step_just_closed() {
    let mut app = tour_app("bulkhead-containment");
    app.press(Key::Char(' '));
    for _ in 0..30 {
        tick(&mut app);
    }
    assert_eq!(shown(&app), None);
    assert_eq!(app.now(), Nanos::from_secs(3));
    app.press(Key::Left);
    assert_eq!(shown(&app), Some(1));
    assert_eq!(app.now(), Nanos::ZERO);
    app.press(Key::Char(' '));
    tick(&mut app);
    app.press(Key::Home);
    assert_eq!(shown(&app), Some(1));
}

#[test]
fn the_step_list_jumps_to_step_n() {
    let mut app = tour_app("ironthread");
    app.press(Key::Char('l'));
    assert!(matches!(app.overlay(), Overlay::TourSteps(_)));
    app.press(Key::Char('4'));
    assert_eq!(app.overlay(), Overlay::None);
    assert_eq!(shown(&app), Some(4));
    assert_eq!(app.snapshot().outcomes.total(), 5);
    app.press(Key::Char('l'));
    app.press(Key::Up);
    app.press(Key::Enter);
    assert_eq!(shown(&app), Some(3));
    assert_eq!(app.snapshot().outcomes.total(), 0);
}

#[test]
fn a_finished_tour_can_be_rewound_restarted_and_listed_and_q_still_asks() {
    let mut app = tour_app("ironthread");
    let last = app.tour().map_or(0, |t| t.steps().len());
    play_to_step(&mut app, last);
    app.press(Key::Char(' '));
    assert!(app.tour().is_some_and(Tour::is_over));
    // The keys are the speaker's again: space pauses and resumes as live.
    assert!(!app.clock().is_paused());
    app.press(Key::Char(' '));
    assert!(app.clock().is_paused());
    // ← replays the last step, with its caption.
    app.press(Key::Left);
    assert_eq!(shown(&app), Some(last));
    assert!(
        app.compare_engines().is_some(),
        "the last step's c was pressed again"
    );
    app.press(Key::Char(' '));
    // Home restarts from the first step.
    app.press(Key::Home);
    assert_eq!(shown(&app), Some(1));
    assert_eq!(app.now(), Nanos::ZERO);
    play_to_step(&mut app, last);
    app.press(Key::Char(' '));
    // l lists the steps and jumps to one.
    app.press(Key::Char('l'));
    assert!(matches!(app.overlay(), Overlay::TourSteps(_)));
    app.press(Key::Char('2'));
    assert_eq!(shown(&app), Some(2));
    play_to_step(&mut app, last);
    app.press(Key::Char(' '));
    // q asks first, as during the tour.
    app.press(Key::Char('q'));
    assert!(!app.should_quit(), "the first q asks");
    app.press(Key::Char('q'));
    assert!(app.should_quit());
}

#[test]
fn escape_never_quits_and_q_asks_first_in_a_tour() {
    let mut app = tour_app("ironthread");
    for key in [Key::Esc, Key::Char('f'), Key::Esc, Key::Esc, Key::Esc] {
        app.press(key);
        assert!(!app.should_quit(), "{key:?}");
    }
    app.press(Key::Char('q'));
    assert!(!app.should_quit(), "the first q asks");
    app.press(Key::Char('?'));
    app.press(Key::Char('?'));
    app.press(Key::Char('q'));
    assert!(
        !app.should_quit(),
        "another key in between cancels the question"
    );
    app.press(Key::Char('q'));
    assert!(app.should_quit());
}

#[test]
fn a_caption_that_counts_the_strategies_counts_all_of_them() {
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    let all = words[Strategy::ALL.len() - 1];
    for name in scenario::builtin_names() {
        let s = scenario::load(name, &[]).expect("preset loads");
        for step in &s.tour {
            let text = step.caption.to_lowercase();
            let said: Vec<&str> = text.split_whitespace().collect();
            for pair in said.windows(2) {
                if pair[1].starts_with("strateg") && words.contains(&pair[0]) {
                    assert_eq!(pair[0], all, "{name}: {:?}", step.caption);
                }
            }
        }
    }
}

#[test]
fn a_step_due_after_a_finite_load_has_ended_fires_at_once() {
    // forkjoin-trap's ten pages end at 2.9 s and the engine's clock stops there; the step
    // written for 3 s is the next one the speaker asks for.
    let mut app = tour_app("forkjoin-trap");
    play_to_step(&mut app, 2);
    app.press(Key::Char(' '));
    for _ in 0..100 {
        tick(&mut app);
    }
    assert!(app.is_finished());
    assert!(app.now() < Nanos::from_secs(3));
    assert_eq!(shown(&app), Some(3));
}

#[test]
fn at_max_speed_a_tour_still_stops_exactly_at_its_step() {
    let mut app = tour_app("bulkhead-containment");
    app.press(Key::Char(' '));
    for _ in 0..20 {
        app.press(Key::Char('>'));
    }
    assert!(matches!(app.status(), Some(Status::Info(t)) if t.contains("max")));
    for _ in 0..10_000 {
        if shown(&app).is_some() {
            break;
        }
        app.advance(Duration::from_millis(100), BudgetSpec::Events(5_000));
    }
    assert_eq!(shown(&app), Some(2));
    assert_eq!(
        app.now(),
        Nanos::from_secs(15),
        "the step's screen, not a later one"
    );
}
