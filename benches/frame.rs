//! The cost of one TUI frame: a snapshot of the engine plus the render into a 120x40
//! `TestBackend`, on the heaviest built-in preset (the M/M/200 queue, 200 threads drawn as
//! cells) and on the default one; and the timeline view (`t`) of those 200 threads, one lane
//! each. `cargo bench --bench frame`.

use divan::Bencher;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use threadlab::scenario::{self, Strategy};
use threadlab::tui::Theme;
use threadlab::tui::app::{Action, App};
use threadlab::tui::clock::BudgetSpec;

fn main() {
    divan::main();
}

fn app(preset: &str, strategy: Strategy) -> App {
    app_with(preset, strategy, &[])
}

fn app_with(preset: &str, strategy: Strategy, actions: &[Action]) -> App {
    let scenario = scenario::load(preset, &[]).expect("built-in preset");
    let mut app = App::new(scenario, strategy, Theme::Dark);
    for &action in actions {
        app.apply(action);
    }
    // Ten simulated seconds in, so every series and the log are full.
    for _ in 0..40 {
        app.advance(
            std::time::Duration::from_millis(250),
            BudgetSpec::Events(u64::MAX),
        );
    }
    app
}

#[divan::bench(args = ["erlang-c", "ironthread"])]
fn frame_120x40(bencher: Bencher, preset: &str) {
    let strategy = if preset == "ironthread" {
        Strategy::Bulkhead
    } else {
        Strategy::Sequential
    };
    let app = app(preset, strategy);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    bencher.bench_local(|| {
        let snapshot = app.snapshot();
        terminal
            .draw(|frame| threadlab::tui::ui::render(frame, &app, &snapshot))
            .expect("draws");
    });
}

/// The timeline of the M/M/200 queue's 200 server threads at 120x40: 200 lanes to order,
/// the busiest 30 or so drawn.
#[divan::bench]
fn timeline_120x40_200_lanes(bencher: Bencher) {
    let app = app_with("erlang-c", Strategy::Sequential, &[Action::ToggleTimeline]);
    let lanes = app.engine().map_or(0, |e| {
        let server = e.topology().server();
        e.timeline().map_or(0, |t| t.pool_lanes(server).count())
    });
    assert_eq!(lanes, 200, "every server thread has a lane");
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    bencher.bench_local(|| {
        let snapshot = app.snapshot();
        terminal
            .draw(|frame| threadlab::tui::ui::render(frame, &app, &snapshot))
            .expect("draws");
    });
}

/// One whole frame of the loop (advance on the wall-clock budget, snapshot, render at
/// 120x40) on the M/M/200 queue, without and with a sweep of its 200 server threads
/// computing on the other cores (`g`; reopened whenever it completes, so every frame
/// measured has one in flight). The ratio is what a sweep costs the frame loop.
#[divan::bench(args = [false, true])]
fn frame_while_sweeping_120x40(bencher: Bencher, sweeping: bool) {
    let mut app = app("erlang-c", Strategy::Sequential);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    let frame = std::time::Duration::from_millis(33);
    bencher.bench_local(|| {
        if sweeping && app.sweep().is_none_or(|s| !s.computing()) {
            app.apply(Action::Back);
            app.apply(Action::OpenSweep);
        }
        app.advance(frame, BudgetSpec::Wall(threadlab::tui::clock::FRAME_BUDGET));
        let snapshot = app.snapshot();
        terminal
            .draw(|f| threadlab::tui::ui::render(f, &app, &snapshot))
            .expect("draws");
    });
}
