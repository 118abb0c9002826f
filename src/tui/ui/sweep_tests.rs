//! The sweep overlay's screens: finished and while computing, at 80x24 and 120x40, and the
//! table that stands in for the charts where they do not fit.

use std::sync::mpsc::Sender;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::scenario::{self, Strategy};
use crate::tui::Theme;
use crate::tui::app::App;
use crate::tui::clock::BudgetSpec;
use crate::tui::keys::Key;
use crate::tui::knob::Knob;
use crate::tui::sweep::testing::{complete, played};
use crate::tui::sweep::{Arrival, KnobSweep, Sweep};

/// tomcat-ceiling played 5 s, its server threads swept with the points `indices` in (all of
/// them: finished), the cursor two points right of the current 200. While some are missing,
/// the sender returned keeps the sweep computing.
fn swept_with(indices: Option<&[usize]>) -> (App, Option<Sender<Arrival>>) {
    let scenario = scenario::load("tomcat-ceiling", &[]).expect("preset loads");
    let mut app = App::new(scenario, Strategy::Sequential, Theme::Dark);
    for _ in 0..50 {
        app.advance(
            std::time::Duration::from_millis(100),
            BudgetSpec::Events(u64::MAX),
        );
    }
    let mut open = None;
    let server = app.sim().topology().server();
    app.start_sweep(Knob::PoolSize(server), |plan| match indices {
        None => complete(plan),
        Some(some) => {
            let (source, tx, _) = played(plan, some.iter().copied());
            open = Some(tx);
            source
        }
    });
    app.press(Key::Right);
    app.press(Key::Right);
    app.advance(std::time::Duration::ZERO, BudgetSpec::Events(0));
    (app, open)
}

fn swept() -> App {
    swept_with(None).0
}

#[test]
fn a_sweep_whose_points_are_all_alike_says_the_knob_does_not_limit_the_load() {
    // ironthread's 5 runs go one at a time: no size of the server pool changes them.
    let scenario = scenario::load("ironthread", &[]).expect("preset loads");
    let mut app = App::new(scenario, Strategy::Bulkhead, Theme::Dark);
    let server = app.sim().topology().server();
    app.start_sweep(Knob::PoolSize(server), complete);
    app.advance(std::time::Duration::ZERO, BudgetSpec::Events(0));
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("17 points alike: tomcat threads does not limit this load · Tab"),
        "{text}"
    );
    let varied = screen(&swept(), 120, 40);
    assert!(!varied.contains("points alike"), "{varied}");
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let snapshot = app.snapshot();
    terminal
        .draw(|frame| super::super::render(frame, app, &snapshot))
        .expect("draws");
    terminal.backend().to_string()
}

#[test]
fn a_finished_sweep_at_80x24_and_120x40() {
    let app = swept();
    insta::assert_snapshot!("sweep_finished_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("sweep_finished_120x40", screen(&app, 120, 40));
}

#[test]
fn a_sweep_in_progress_at_80x24_and_120x40() {
    let (app, _open) = swept_with(Some(&[0, 1, 2, 3, 4, 6, 8]));
    insta::assert_snapshot!("sweep_computing_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("sweep_computing_120x40", screen(&app, 120, 40));
}

#[test]
fn the_screen_names_both_axes_with_units_the_legend_and_the_cursors_figures() {
    let text = screen(&swept(), 120, 40);
    for expected in [
        "goodput req/s",
        "p99 ms",
        "tomcat threads",
        "━ goodput",
        "• now 200",
        "█ cursor",
        "▸ tomcat threads",
        "(now 200): goodput",
        "refused 0",
        "17 points",
    ] {
        assert!(text.contains(expected), "{expected:?} missing:\n{text}");
    }
}

#[test]
fn the_cursor_point_reads_the_figures_of_its_run() {
    let app = swept();
    let sweep = app.sweep().expect("open");
    let point = sweep.points()[sweep.cursor()].as_ref().expect("in");
    let text = screen(&app, 120, 40);
    let goodput = format!("goodput {}", super::fmt::rate(point.goodput_rps));
    assert!(text.contains(&goodput), "{goodput:?} missing:\n{text}");
    assert!(text.contains(&format!("success {}", point.success)));
}

#[test]
fn a_small_area_gets_a_table_of_the_points_around_the_cursor() {
    let app = swept();
    let sweep: &Sweep = app.sweep().expect("open");
    let plan: &KnobSweep = sweep.plan();
    let area = Rect::new(0, 0, 60, 6);
    let mut buffer = Buffer::empty(area);
    let mut terminal = Terminal::new(TestBackend::new(60, 6)).expect("test terminal");
    terminal
        .draw(|frame| super::render_table(frame, area, app.palette(), sweep))
        .expect("draws");
    buffer.merge(terminal.backend().buffer());
    let rows: Vec<String> = (0..6)
        .map(|y| (0..60).map(|x| buffer[(x, y)].symbol()).collect())
        .collect();
    assert!(rows[0].contains("goodput/s") && rows[0].contains("refused"));
    // Five rows fit: two each side of the cursor's.
    let cursor = format!("{:.0}", sweep.cursor_value());
    assert!(rows[3].trim_start().starts_with(&cursor), "{rows:#?}");
    let now = rows
        .iter()
        .find(|r| r.starts_with('•'))
        .expect("the current row");
    assert!(now.contains(&format!("{:.0}", plan.current)));
}

#[test]
fn the_y_axis_ends_at_a_round_value_just_above_the_highest_point() {
    assert_eq!(super::nice_max(235.29), 250.0);
    assert_eq!(super::nice_max(13_600.0), 15_000.0);
    assert_eq!(super::nice_max(5.0), 6.0);
    assert_eq!(super::nice_max(0.0), 1.0);
}
