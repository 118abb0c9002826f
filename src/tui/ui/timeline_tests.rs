//! The timeline view: screens pinned with insta, and the lanes it draws.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::scenario::{self, Strategy};
use crate::time::Nanos;
use crate::tui::Theme;
use crate::tui::app::{Action, App};
use crate::tui::clock::BudgetSpec;

use super::{Cell, Window, cells, lanes_of};

/// `preset` under `strategy` with the timeline open from t = 0, played to `at`.
fn timeline_app(preset: &str, sets: &[&str], strategy: Strategy, at: Nanos) -> App {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load(preset, &sets).expect("preset loads");
    let mut app = App::new(scenario, strategy, Theme::Dark);
    app.apply(Action::ToggleTimeline);
    while app.now() < at && !app.is_finished() {
        let step = at.saturating_sub(app.now()).min(Nanos::from_millis(250));
        app.advance(
            std::time::Duration::from_nanos(step.as_nanos()),
            BudgetSpec::Events(u64::MAX),
        );
    }
    app
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let snapshot = app.snapshot();
    terminal
        .draw(|frame| super::super::render(frame, app, &snapshot))
        .expect("draws");
    terminal.backend().to_string()
}

/// The calls a lane shows, as (service letter, columns).
fn bars(cells: &[Cell]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for c in cells {
        match *c {
            Cell::Call {
                service,
                first: true,
            } => out.push((service, 1)),
            Cell::Call { .. } => {
                if let Some(last) = out.last_mut() {
                    last.1 += 1;
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn sequential_screens_show_three_calls_end_to_end_on_each_tomcat_thread() {
    let a = timeline_app(
        "ironthread",
        &[],
        Strategy::Sequential,
        Nanos::from_millis(2500),
    );
    insta::assert_snapshot!("timeline_sequential_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("timeline_sequential_120x40", screen(&a, 120, 40));
}

#[test]
fn bulkhead_screens_show_the_fan_out_and_the_handler_waiting() {
    let mut a = timeline_app(
        "ironthread",
        &[],
        Strategy::Bulkhead,
        Nanos::from_millis(2500),
    );
    a.apply(Action::NextPool);
    // IronThread-9: request 3's recommendations call, its handler waiting in join().
    for _ in 0..8 {
        a.apply(Action::MoveLane(true));
    }
    insta::assert_snapshot!("timeline_bulkhead_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("timeline_bulkhead_120x40", screen(&a, 120, 40));
}

#[test]
fn a_sequential_lane_is_200_500_1000_ms_of_user_orders_recommendations() {
    let a = timeline_app(
        "ironthread",
        &[],
        Strategy::Sequential,
        Nanos::from_millis(1800),
    );
    let engine = a.sim();
    let t = engine.timeline().expect("recording");
    let w = Window::ending(engine.now(), 40);
    let lanes = lanes_of(t, engine.topology().server(), w, 10);
    let first = lanes.first().expect("a lane");
    // 50 ms columns: 4, 10 and 20 columns.
    assert_eq!(
        bars(&cells(t, first.key, w)),
        vec![(0, 4), (1, 10), (2, 20)]
    );
}

#[test]
fn more_threads_than_rows_shows_the_busiest_and_how_many_more() {
    let a = timeline_app(
        "tomcat-ceiling",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(2),
    );
    let text = screen(&a, 80, 24);
    // 200 threads all busy; 19 rows: detail, legend, "+N more", the queue and 15 lanes.
    assert!(text.contains("+185 more (j/k to scroll)"), "{text}");
    assert_eq!(text.matches("│▸http-nio-8080-exec-").count(), 1, "{text}");
}

#[test]
fn j_and_k_move_the_selected_lane_within_the_lanes() {
    let mut a = timeline_app(
        "ironthread",
        &[],
        Strategy::Sequential,
        Nanos::from_millis(2500),
    );
    a.apply(Action::MoveLane(false));
    assert_eq!(a.timeline_lane(), Some(0));
    a.apply(Action::MoveLane(true));
    assert_eq!(a.timeline_lane(), Some(1));
    let text = screen(&a, 80, 24);
    assert!(text.contains("▸http-nio-8080-exec-2"), "{text}");
    a.apply(Action::Back);
    assert_eq!(a.timeline_lane(), None, "Esc closes the timeline");
}

#[test]
fn the_gc_lane_marks_the_columns_a_pause_fell_in() {
    // jvm-pauses: a pause of 8.3 ms every 25 requests at 250 a second. The last second in 20
    // columns of 50 ms: a column is marked exactly when a pause overlaps it.
    let app = timeline_app("jvm-pauses", &[], Strategy::Sequential, Nanos::from_secs(2));
    let engine = app.engine().expect("a simulated run");
    assert_eq!(engine.now(), Nanos::from_secs(2));
    let w = Window::ending(engine.now(), 20);
    let paused = super::gc_row(engine, w).expect("a collector");
    let column = |i: u64| {
        (
            Nanos::from_millis(1000 + 50 * i),
            Nanos::from_millis(1050 + 50 * i),
        )
    };
    let expected: Vec<bool> = (0..20)
        .map(|i| {
            let (from, to) = column(i);
            engine
                .gc_pauses()
                .iter()
                .any(|&(start, len)| start < to && start + len > from)
        })
        .collect();
    assert_eq!(paused, expected);
    let pauses = engine
        .gc_pauses()
        .iter()
        .filter(|(start, _)| *start >= Nanos::from_secs(1))
        .count();
    assert!(
        (8..=11).contains(&pauses),
        "{pauses} pauses in the last second"
    );
    assert!(screen(&app, 100, 30).contains("GC pauses"));
    // Without a collector there is no row.
    let app = timeline_app(
        "erlang-c",
        &[],
        Strategy::Sequential,
        Nanos::from_millis(200),
    );
    let engine = app.engine().expect("a simulated run");
    assert_eq!(
        super::gc_row(engine, Window::ending(engine.now(), 20)),
        None
    );
}
