//! The sweep overlay through the app: open, move, apply, close, and a frame loop that keeps
//! its pace while points compute.

use std::sync::atomic::Ordering;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;
use crate::scenario;
use crate::sim::LogLine;
use crate::tui::knob::Knob;
use crate::tui::sweep::testing::{complete, played};

const CLOSED: &[&str] = &["load.mode=closed", "load.clients=40", "load.think=200ms"];

fn app(sets: &[&str], strategy: Strategy) -> App {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    App::new(scenario, strategy, Theme::Dark)
}

fn ironthread(app: &App) -> PoolId {
    app.sim()
        .topology()
        .id_of(crate::topology::PoolRole::Bulkhead(0))
        .expect("a bulkhead")
}

/// An app on the IronThread pool with its sweep complete and taken in.
fn swept() -> App {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::NextPool);
    let knob = Knob::PoolSize(ironthread(&a));
    a.start_sweep(knob, complete);
    a.advance(Duration::ZERO, BudgetSpec::Events(0));
    a
}

fn core(app: &App, id: PoolId) -> u32 {
    app.snapshot()
        .pools
        .iter()
        .find(|p| p.id == id)
        .map(|p| p.core)
        .expect("pool")
}

#[test]
fn g_opens_a_sweep_of_the_selected_pools_size_around_its_value() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::NextPool);
    a.press(Key::Char('g'));
    assert_eq!(a.overlay(), Overlay::Sweep);
    let plan = a.sweep().expect("a sweep").plan();
    assert_eq!(plan.knob, Knob::PoolSize(ironthread(&a)));
    assert_eq!(plan.name, "IronThread core");
    assert_eq!(plan.current, 10.0);
    assert_eq!(plan.values.first(), Some(&3.0));
    assert_eq!(plan.values.last(), Some(&30.0));
    assert_eq!(plan.strategy, Strategy::Bulkhead);
}

#[test]
fn g_on_a_thread_per_task_pool_sweeps_the_load() {
    let mut a = app(CLOSED, Strategy::Unbounded);
    a.apply(Action::NextPool);
    a.press(Key::Char('g'));
    let plan = a.sweep().expect("a sweep").plan();
    assert_eq!(plan.knob, Knob::Clients);
    assert_eq!(plan.current, 40.0);
}

#[test]
fn a_runs_load_without_a_sized_pool_has_nothing_to_sweep() {
    let mut a = app(&[], Strategy::Unbounded);
    a.apply(Action::NextPool);
    a.press(Key::Char('g'));
    assert!(a.sweep().is_none());
    assert_eq!(a.overlay(), Overlay::None);
    assert!(matches!(a.status(), Some(Status::Info(t)) if t.starts_with("nothing to sweep")));
}

#[test]
fn tab_sweeps_each_pool_then_the_load_then_wraps() {
    let mut a = swept();
    let knobs: Vec<Knob> = (0..3)
        .map(|_| {
            a.press(Key::Tab);
            a.sweep().expect("a sweep").plan().knob
        })
        .collect();
    assert_eq!(
        knobs,
        [
            Knob::Clients,
            Knob::PoolSize(a.sim().topology().server()),
            Knob::PoolSize(ironthread(&a))
        ]
    );
}

#[test]
fn arrows_move_the_cursor_and_enter_applies_its_value_like_plus_does() {
    let mut a = swept();
    let id = ironthread(&a);
    a.press(Key::Right);
    a.press(Key::Right);
    let value = a.sweep().expect("a sweep").cursor_value();
    assert!(value > 10.0);
    a.press(Key::Left);
    let value_left = a.sweep().expect("a sweep").cursor_value();
    assert!(value_left > 10.0 && value_left < value);
    a.press(Key::Enter);
    assert_eq!(core(&a, id), value_left as u32);
    assert_eq!(a.overlay(), Overlay::None);
    assert!(a.sweep().is_none());
    let said = format!("IronThread core 10 -> {value_left}");
    assert_eq!(a.status(), Some(&Status::Info(said.clone())));
    let last = a.snapshot().log.last().cloned();
    assert!(
        matches!(&last, Some(LogLine::Change { text, .. }) if *text == said),
        "{last:?}"
    );
}

#[test]
fn enter_below_a_fixed_pools_size_keeps_it_fixed() {
    let mut a = app(
        &[
            "load.mode=closed",
            "load.clients=40",
            "strategy.bulkhead.IronThread.max=10",
        ],
        Strategy::Bulkhead,
    );
    a.apply(Action::NextPool);
    let id = ironthread(&a);
    a.start_sweep(Knob::PoolSize(id), complete);
    a.press(Key::Left);
    let value = a.sweep().expect("a sweep").cursor_value() as u32;
    a.press(Key::Enter);
    let pool = a.snapshot().pools.into_iter().find(|p| p.id == id);
    let pool = pool.expect("pool");
    assert_eq!((pool.core, pool.max), (value, value));
}

#[test]
fn enter_on_the_current_value_changes_nothing_and_says_so() {
    let mut a = swept();
    let log = a.snapshot().log.len();
    a.press(Key::Enter);
    assert_eq!(core(&a, ironthread(&a)), 10);
    assert_eq!(a.snapshot().log.len(), log);
    assert_eq!(
        a.status(),
        Some(&Status::Info("IronThread core is already 10".into()))
    );
}

#[test]
fn enter_sets_the_load_through_the_load_commands() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.start_sweep(Knob::Clients, complete);
    a.press(Key::Right);
    let value = a.sweep().expect("a sweep").cursor_value();
    a.press(Key::Enter);
    assert_eq!(
        a.sim().scenario().load.mode,
        LoadMode::Closed {
            clients: value as u32,
            think: Nanos::from_millis(200)
        }
    );
}

#[test]
fn esc_and_g_close_the_sweep_and_cancel_its_work() {
    for key in [Key::Esc, Key::Char('g')] {
        let mut a = app(CLOSED, Strategy::Bulkhead);
        let mut flag = None;
        a.start_sweep(Knob::Clients, |plan| {
            let (source, tx, cancel) = played(plan, []);
            flag = Some((tx, cancel));
            source
        });
        let (_tx, cancel) = flag.expect("the source was made");
        assert!(!cancel.load(Ordering::Relaxed));
        a.press(key);
        assert_eq!(a.overlay(), Overlay::None);
        assert!(a.sweep().is_none());
        assert!(cancel.load(Ordering::Relaxed), "{key:?} cancels");
    }
}

#[test]
fn quitting_cancels_the_sweep() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    let mut flag = None;
    a.start_sweep(Knob::Clients, |plan| {
        let (source, tx, cancel) = played(plan, []);
        flag = Some((tx, cancel));
        source
    });
    let (_tx, cancel) = flag.expect("the source was made");
    a.press(Key::Char('q'));
    assert!(a.should_quit());
    drop(a);
    assert!(cancel.load(Ordering::Relaxed));
}

/// The frame loop's work while a sweep computes: each frame runs at most its event budget,
/// the simulated clock moves, the screen draws, and nothing waits for the sweep (its source
/// never delivers, so a frame that waited would never return).
#[test]
fn frames_keep_their_event_budget_while_a_sweep_never_finishes() {
    const BUDGET: u64 = 200;
    let mut a = app(CLOSED, Strategy::Bulkhead);
    let mut held = None;
    a.start_sweep(Knob::Clients, |plan| {
        let (source, tx, cancel) = played(plan, [0]);
        held = Some((tx, cancel));
        source
    });
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    let mut before = (a.sim().events_processed(), a.now());
    for frame in 0..50 {
        assert!(a.needs_ticks(), "frame {frame}: the loop keeps drawing");
        a.advance(Duration::from_millis(33), BudgetSpec::Events(BUDGET));
        let snapshot = a.snapshot();
        terminal
            .draw(|f| crate::tui::ui::render(f, &a, &snapshot))
            .expect("draws");
        let after = (a.sim().events_processed(), a.now());
        assert!(after.0 - before.0 <= BUDGET, "frame {frame}: within budget");
        assert!(after.1 > before.1, "frame {frame}: the clock moved");
        before = after;
    }
    let sweep = a.sweep().expect("still open");
    assert!(sweep.computing());
    assert_eq!(sweep.done(), 1);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("computing 1/"), "{screen}");
}

#[test]
fn a_paused_run_keeps_drawing_until_the_sweep_is_complete() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.apply(Action::TogglePause);
    assert!(!a.needs_ticks());
    let mut held = None;
    a.start_sweep(Knob::Clients, |plan| {
        let (source, tx, _) = played(plan, 0..plan.values.len());
        held = Some(tx);
        source
    });
    assert!(a.needs_ticks());
    a.advance(Duration::from_millis(33), BudgetSpec::Events(100));
    // Every point is in, though the sender is still open: the sweep is complete.
    assert!(!a.needs_ticks());
    assert!(!a.sweep().expect("open").computing());
}

#[test]
fn g_on_a_pool_the_strategy_left_behind_sweeps_the_load() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    for _ in 0..30 {
        a.advance(Duration::from_millis(100), BudgetSpec::Events(u64::MAX));
    }
    a.press(Key::Char('1'));
    let left = ironthread(&a);
    a.apply(Action::SelectPool(left));
    assert_eq!(
        a.selected_pool(),
        Some(left),
        "its threads keep it selectable"
    );
    a.press(Key::Char('g'));
    assert_eq!(a.sweep().expect("a sweep").plan().knob, Knob::Clients);
}

#[test]
fn a_sweeps_points_share_one_runs_limits_with_the_runs_on_screen() {
    let mut a = app(CLOSED, Strategy::Bulkhead);
    a.press(Key::Char('c'));
    a.advance(Duration::ZERO, BudgetSpec::Events(0));
    // The run on screen and the five strategies of the compare view.
    assert_eq!(a.driven().count(), 6);
    let mut sharing = 0;
    a.start_sweep(Knob::Clients, |plan| {
        sharing = plan.sharing();
        complete(plan)
    });
    let threads = crate::tui::sweep::threads() as u64;
    assert_eq!(sharing, 6 + threads);
    // While the points compute, the runs on screen leave them their shares.
    let mut b = app(CLOSED, Strategy::Bulkhead);
    let mut feed = None;
    b.start_sweep(Knob::Clients, |plan| {
        let (source, tx, cancel) = played(plan, []);
        feed = Some((tx, cancel));
        source
    });
    b.advance(Duration::ZERO, BudgetSpec::Events(0));
    assert_eq!(b.sim().sharing(), 1 + threads);
    drop(feed);
}
