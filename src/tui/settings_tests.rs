//! Badges, the thread switches and the keys that used to do nothing silently.

use std::time::Duration;

use super::*;
use crate::scenario::{self, ServerThreads, UnboundedThreads};
use crate::tui::clock::BudgetSpec;

fn preset(name: &str, strategy: Strategy) -> App {
    App::new(
        scenario::load(name, &[]).expect("preset"),
        strategy,
        Theme::Dark,
    )
}

fn play(app: &mut App, secs: u64) {
    for _ in 0..secs * 10 {
        app.advance(Duration::from_millis(100), BudgetSpec::Events(u64::MAX));
    }
}

fn info(app: &App) -> String {
    match app.status() {
        Some(Status::Info(t)) => t.clone(),
        other => panic!("expected info, got {other:?}"),
    }
}

#[test]
fn v_switches_the_server_to_virtual_threads_and_back_with_a_badge() {
    let mut a = preset("virtual-threads", Strategy::Sequential);
    assert!(a.badges(&a.snapshot()).is_empty());
    a.press(Key::Char('v'));
    assert_eq!(a.scenario().server.threads, ServerThreads::Virtual);
    assert_eq!(a.sim().scenario().server.threads, ServerThreads::Virtual);
    assert!(info(&a).contains("server virtual"));
    assert_eq!(a.badges(&a.snapshot()), vec!["server virtual".to_string()]);
    a.press(Key::Char('v'));
    assert_eq!(a.scenario().server.threads, ServerThreads::Platform(200));
    assert!(a.badges(&a.snapshot()).is_empty());
}

#[test]
fn u_switches_unbounded_between_virtual_and_platform_threads() {
    let mut a = preset("ironthread", Strategy::Unbounded);
    a.press(Key::Char('u'));
    let threads = a.sim().scenario().strategy.unbounded_threads;
    assert_eq!(threads, UnboundedThreads::Platform);
    assert_eq!(
        a.badges(&a.snapshot()),
        vec!["unbounded platform".to_string()]
    );
}

#[test]
fn faults_and_resized_pools_stay_on_the_badge_row() {
    let mut a = preset("ironthread", Strategy::Bulkhead);
    a.press(Key::Char('f'));
    a.press(Key::Char('2')); // orders: its form, on `kind fail`
    a.press(Key::Char('-')); // hang
    a.press(Key::Char('-')); // slow (x5)
    a.press(Key::Char('4')); // apply
    a.press(Key::Tab);
    a.press(Key::Char('+'));
    play(&mut a, 3);
    let badges = a.badges(&a.snapshot());
    assert!(badges.contains(&"orders slow x5".to_string()), "{badges:?}");
    assert!(
        badges.contains(&"IronThread core 11".to_string()),
        "{badges:?}"
    );
}

#[test]
fn a_strategy_key_after_the_load_ended_restarts_the_run_and_says_so() {
    let mut a = preset("ironthread", Strategy::Bulkhead);
    play(&mut a, 10);
    assert!(a.is_finished());
    a.press(Key::Char('1'));
    assert_eq!(a.sim().strategy(), Strategy::Sequential);
    assert_eq!(a.now(), Nanos::ZERO);
    assert!(!a.is_finished());
    assert!(info(&a).contains("restarted"));
}

#[test]
fn a_step_says_what_the_event_did() {
    let mut a = preset("ironthread", Strategy::Bulkhead);
    a.press(Key::Char('.'));
    let text = info(&a);
    assert!(text.starts_with("step to t "), "{text}");
    assert!(text.contains("arrived") || text.contains("busy"), "{text}");
}

#[test]
fn plus_and_minus_are_mirror_images_and_say_what_they_change() {
    let mut a = preset("ironthread", Strategy::Bulkhead);
    // IronThread: core 10, max 20. + and - move core only while core < max.
    a.press(Key::Tab);
    a.press(Key::Char('+'));
    assert_eq!(info(&a), "IronThread core 10 -> 11");
    a.press(Key::Char('-'));
    assert_eq!(info(&a), "IronThread core 11 -> 10");
    // A fixed pool (core = max): + raises both and says so, - lowers both.
    let mut a = App::new(
        scenario::load(
            "ironthread",
            &["strategy.bulkhead.IronThread.max=10".to_string()],
        )
        .expect("preset"),
        Strategy::Bulkhead,
        Theme::Dark,
    );
    a.press(Key::Tab);
    a.press(Key::Char('+'));
    let grew = info(&a);
    assert!(
        grew.contains("core 10 -> 11") && grew.contains("max 10 -> 11"),
        "{grew}"
    );
    a.press(Key::Char('-'));
    let shrank = info(&a);
    assert!(
        shrank.contains("core 11 -> 10") && shrank.contains("max 11 -> 10"),
        "{shrank}"
    );
}

#[test]
fn up_sets_a_rate_the_screen_can_show_exactly() {
    let mut a = App::new(
        scenario::load(
            "ironthread",
            &["load.mode=open".to_string(), "load.rate=6.25".to_string()],
        )
        .expect("preset"),
        Strategy::Bulkhead,
        Theme::Dark,
    );
    a.press(Key::Up);
    let LoadMode::Open { rate, .. } = a.sim().scenario().load.mode else {
        panic!("open load")
    };
    assert_eq!(rate, 7.81);
    assert!(info(&a).contains("7.81/s"), "{}", info(&a));
}

fn mouse(kind: ratatui::crossterm::event::MouseEventKind, column: u16, row: u16) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
    }
}

#[test]
fn clicking_a_strategy_tab_or_a_fault_menu_line_does_what_its_key_does() {
    use ratatui::crossterm::event::MouseEventKind::Down;
    let mut a = preset("ironthread", Strategy::Bulkhead);
    play(&mut a, 1);
    // At 80 columns: " IronThread " then "│", then " 1 sequential " from column 13.
    a.handle_mouse(mouse(Down(MouseButton::Left), 15, 0), 80, 24);
    assert_eq!(a.sim().strategy(), Strategy::Sequential);
    a.press(Key::Char('f'));
    // The menu box is centred: 3 services, "double the load" and the scope line, in a 7-row
    // box from row 8.
    a.handle_mouse(mouse(Down(MouseButton::Left), 40, 10), 80, 24);
    assert!(
        matches!(
            a.overlay(),
            Overlay::Faults(FaultMenu {
                service: Some(1),
                ..
            })
        ),
        "{:?}",
        a.overlay()
    );
}

#[test]
fn the_wheel_scrolls_the_log_back_and_forth() {
    use ratatui::crossterm::event::MouseEventKind::{ScrollDown, ScrollUp};
    let mut a = preset("ironthread", Strategy::Bulkhead);
    play(&mut a, 6);
    a.handle_mouse(mouse(ScrollUp, 10, 20), 80, 24);
    assert_eq!(a.log_scroll(), 3);
    a.handle_mouse(mouse(ScrollDown, 10, 20), 80, 24);
    assert_eq!(a.log_scroll(), 0);
}

#[test]
fn clicking_a_pool_selects_it_as_tab_would() {
    use ratatui::crossterm::event::MouseEventKind::Down;
    let mut a = preset("ironthread", Strategy::Bulkhead);
    play(&mut a, 1);
    let [tomcat, iron] = a.pool_ids()[..] else {
        panic!("tomcat and IronThread: {:?}", a.pool_ids())
    };
    assert_eq!(a.selected_pool(), Some(tomcat));
    // At 80x24 the pools panel starts on row 2: tomcat's three lines, then IronThread's.
    a.handle_mouse(mouse(Down(MouseButton::Left), 5, 7), 80, 24);
    assert_eq!(a.selected_pool(), Some(iron));
    a.handle_mouse(mouse(Down(MouseButton::Left), 5, 3), 80, 24);
    assert_eq!(a.selected_pool(), Some(tomcat));
    // A click beside the pools (the outcomes panel) selects nothing.
    a.handle_mouse(mouse(Down(MouseButton::Left), 60, 7), 80, 24);
    assert_eq!(a.selected_pool(), Some(tomcat));
}

/// The preset's own load phases are its plan, not a change: `spike` past its 30 s spike
/// shows no badge; a person's `Up` does, until a phase sets the load back to the plan.
#[test]
fn a_load_phase_of_the_preset_is_no_change_but_a_load_key_is() {
    let mut a = preset("spike", Strategy::Sequential);
    play(&mut a, 35);
    assert!(
        a.snapshot().load != a.preset.load.mode,
        "the spike's phase applied"
    );
    assert!(
        a.badges(&a.snapshot()).is_empty(),
        "{:?}",
        a.badges(&a.snapshot())
    );
    a.apply(Action::MoreLoad);
    assert_eq!(a.badges(&a.snapshot()), vec!["load changed".to_string()]);
    // The phase at 40 s sets the rate the preset plans: no change any more.
    play(&mut a, 6);
    assert!(
        a.badges(&a.snapshot()).is_empty(),
        "{:?}",
        a.badges(&a.snapshot())
    );
}
