//! Whole-screen snapshots with `TestBackend` + insta at a fixed simulated time.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::scenario::{self, Strategy};
use crate::time::Nanos;
use crate::tui::Theme;
use crate::tui::app::{Action, App};
use crate::tui::clock::BudgetSpec;

/// An app on the ironthread preset with `sets` overrides, played to `at`.
fn app(sets: &[&str], strategy: Strategy, at: Nanos) -> App {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    let mut app = App::new(scenario, strategy, Theme::Dark);
    play_to(&mut app, at);
    app
}

/// Plays simulated time to `at` through the app's own pacing (1x, big event budget).
fn play_to(app: &mut App, at: Nanos) {
    while app.now() < at && !app.is_finished() {
        let left = at.saturating_sub(app.now());
        let step = left.min(Nanos::from_millis(250));
        app.advance(
            std::time::Duration::from_nanos(step.as_nanos()),
            BudgetSpec::Events(u64::MAX),
        );
    }
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let snapshot = app.snapshot();
    terminal
        .draw(|frame| super::render(frame, app, &snapshot))
        .expect("draws");
    terminal.backend().to_string()
}

const CLOSED: &[&str] = &["load.mode=closed", "load.clients=40", "load.think=200ms"];

#[test]
fn print_screens() {
    let a = app(&[], Strategy::Bulkhead, Nanos::from_millis(3500));
    println!("{}", screen(&a, 80, 24));
    let a = app(CLOSED, Strategy::Sequential, Nanos::from_secs(20));
    println!("{}", screen(&a, 80, 24));
    println!("{}", screen(&a, 120, 40));
    let mut a = app(CLOSED, Strategy::Shared, Nanos::from_secs(20));
    a.apply(Action::ToggleHelp);
    println!("{}", screen(&a, 80, 24));
}
