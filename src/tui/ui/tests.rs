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
    preset_app("ironthread", sets, strategy, at)
}

/// An app on `preset` with `sets` overrides, played to `at`.
fn preset_app(preset: &str, sets: &[&str], strategy: Strategy, at: Nanos) -> App {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load(preset, &sets).expect("preset loads");
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

/// Closed load keeps every pool busy enough to show cells, queues and a latency trace.
const CLOSED: &[&str] = &["load.mode=closed", "load.clients=40", "load.think=200ms"];

fn live(strategy: Strategy) -> App {
    app(CLOSED, strategy, Nanos::from_secs(5))
}

/// The parts (split at ` · `) of the line under the outcome counters on a screen.
fn outcome_parts(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.contains("answered ") || l.contains("unanswered"))
        .expect("the line under the counters");
    let inside = line.rsplit('│').nth(1).expect("inside the outcomes panel");
    inside.split(" · ").map(|p| p.trim().to_string()).collect()
}

#[test]
fn a_narrow_outcomes_panel_drops_whole_parts_and_never_cuts_a_number() {
    // Shared at 5 s: 14 of 40 clients unanswered, then answered, conn, backlog, the wait.
    let a = live(Strategy::Shared);
    let wide = outcome_parts(&screen(&a, 200, 60));
    let narrow = outcome_parts(&screen(&a, 80, 24));
    assert!(narrow.len() < wide.len(), "{narrow:?} vs {wide:?}");
    assert_eq!(narrow[..], wide[..narrow.len()], "a part was cut");
}

#[test]
fn each_strategy_at_80x24() {
    for s in Strategy::ALL {
        insta::assert_snapshot!(format!("{s}_80x24"), screen(&live(s), 80, 24));
    }
}

#[test]
fn each_strategy_at_120x40() {
    for s in Strategy::ALL {
        insta::assert_snapshot!(format!("{s}_120x40"), screen(&live(s), 120, 40));
    }
}

#[test]
fn the_ironthread_runs_finish() {
    let a = app(&[], Strategy::Bulkhead, Nanos::from_secs(60));
    assert!(a.is_finished());
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn help_overlay() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::ToggleHelp);
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn help_legend_page() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::ToggleHelp);
    a.apply(Action::ToggleHelp);
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn help_lists_every_binding() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::ToggleHelp);
    let text = screen(&a, 80, 24);
    for b in crate::tui::keys::LIVE
        .iter()
        .chain(crate::tui::keys::ALWAYS)
    {
        assert!(text.contains(b.help), "{} missing from the help", b.help);
    }
    a.apply(Action::ToggleHelp);
    let text = screen(&a, 80, 24);
    for b in crate::tui::keys::FAULT_MENU
        .iter()
        .chain(crate::tui::keys::TOUR)
        .chain(crate::tui::keys::TOUR_PLAYING)
        .chain(crate::tui::keys::TOUR_STEPS)
    {
        assert!(
            text.contains(b.help),
            "{} missing from the second page",
            b.help
        );
    }
    for (mark, meaning) in super::help::LEGEND {
        assert!(text.contains(mark), "{mark} missing from the legend");
        assert!(text.contains(meaning), "{meaning} missing from the legend");
    }
}

/// `C` on metastable after the spike: the naive retries next to each pattern the preset's
/// figures measure, the typed prompt on the status line.
#[test]
fn variants_compare_view() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(50),
    );
    a.apply(Action::ToggleVariants);
    // The variants replay from t = 0 and catch up within the next frame's budget.
    play_to(&mut a, Nanos::from_secs(55));
    let small = screen(&a, 80, 24);
    assert!(
        small.contains("Compare: same requests, with and without a pattern"),
        "{small}"
    );
    assert!(!small.contains("catching up"), "{small}");
    insta::assert_snapshot!("variants_80x24", small);
    let large = screen(&a, 200, 60);
    // At 200 columns the longest name, the clients' breaker, is whole.
    assert!(
        large.contains("a client-side breaker (50 calls, 50 %, 5 s open)"),
        "{large}"
    );
    a.apply(Action::AddVariant);
    for c in "server.threads=20".chars() {
        a.apply(Action::PromptType(c));
    }
    let typing = screen(&a, 80, 24);
    let last = typing.lines().nth(23).expect("the status line");
    assert!(last.contains(" compare with: server.threads=20▏"), "{last}");
    assert!(
        last.ends_with("Enter add · Backspace delete · Esc cancel\""),
        "{last}"
    );
}

#[test]
fn compare_view() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::ToggleCompare);
    play_to(&mut a, Nanos::from_secs(6));
    insta::assert_snapshot!("compare_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("compare_120x40", screen(&a, 120, 40));
}

#[test]
fn paused_banner() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::TogglePause);
    a.apply(Action::NextPool);
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn a_change_and_an_error_in_the_status_line() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::NextPool);
    a.apply(Action::GrowPool);
    let text = screen(&a, 80, 24);
    assert!(text.contains("IronThread core 10 -> 11"), "{text}");
    a.apply(Action::SelectStrategy(Strategy::Unbounded));
    a.apply(Action::NextPool);
    a.apply(Action::GrowPool);
    insta::assert_snapshot!(screen(&a, 80, 24));
}

#[test]
fn fault_menu() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::OpenFaultMenu);
    insta::assert_snapshot!("fault_menu_services", screen(&a, 80, 24));
    a.apply(Action::MenuPick(3));
    insta::assert_snapshot!("fault_menu_faults", screen(&a, 80, 24));
}

#[test]
fn too_small_terminal() {
    let a = live(Strategy::Bulkhead);
    insta::assert_snapshot!(screen(&a, 60, 20));
    assert!(screen(&a, 79, 24).contains("threadlab needs 80x24, now 79x24"));
}

#[test]
fn no_color_draws_no_colour() {
    let sets: Vec<String> = CLOSED.iter().map(|s| (*s).to_string()).collect();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    let mut a = App::new(scenario, Strategy::Bulkhead, Theme::NoColor);
    play_to(&mut a, Nanos::from_secs(5));
    a.apply(Action::ToggleHelp);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    let snapshot = a.snapshot();
    terminal
        .draw(|frame| super::render(frame, &a, &snapshot))
        .expect("draws");
    for cell in terminal.backend().buffer().content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, ratatui::style::Color::Reset, "{cell:?}");
    }
}

#[test]
fn the_selected_pool_is_marked() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::NextPool);
    let text = screen(&a, 80, 24);
    assert!(text.contains("▸IronThread"), "{text}");
    assert!(!text.contains("▸tomcat"), "{text}");
}

#[test]
fn a_connection_pool_shows_active_waiting_and_timeouts() {
    // A 2 s connectionTimeout: after 5 s waiters have started to give up.
    let a = preset_app(
        "connection-pool",
        &["resources.db.timeout=2s"],
        Strategy::Sequential,
        Nanos::from_secs(5),
    );
    let text = screen(&a, 80, 24);
    assert!(text.contains("db active 10/10"), "{text}");
    assert!(!text.contains("cores busy"), "no CPU work: {text}");
    insta::assert_snapshot!("connection_pool_80x24", text);
    insta::assert_snapshot!("connection_pool_120x40", screen(&a, 120, 40));
}

#[test]
fn pinned_carriers_show_as_busy_cores() {
    let a = preset_app("pinning", &[], Strategy::Sequential, Nanos::from_secs(5));
    let text = screen(&a, 80, 24);
    assert!(text.contains("cores busy 8/8"), "{text}");
    insta::assert_snapshot!("pinning_80x24", text);
    insta::assert_snapshot!("pinning_120x40", screen(&a, 120, 40));
}

#[test]
fn a_storm_of_500s_shows_the_cores_it_fills() {
    // Under `semaphore`, 400 clients hit 25 permits: nearly every request fails at once and
    // the server's CPU reporting them is the bottleneck, so the cores line appears; the
    // same preset under `sequential` uses next to no CPU and shows none.
    let storm = preset_app(
        "tomcat-ceiling",
        &[],
        Strategy::Semaphore,
        Nanos::from_secs(10),
    );
    let text = screen(&storm, 120, 40);
    assert!(text.contains("cores busy 8/8"), "{text}");
    let calm = preset_app(
        "tomcat-ceiling",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(10),
    );
    assert!(!screen(&calm, 120, 40).contains("cores busy"));
}

#[test]
fn real_mode_shows_the_runtime_panel_and_the_wall_clock() {
    let sets: Vec<String> = Vec::new();
    let scenario = scenario::load("ironthread", &sets).expect("preset loads");
    let options = crate::real::RealOptions {
        time_scale: 0.01,
        ..crate::real::RealOptions::default()
    };
    let a = App::new_real(scenario, Strategy::Bulkhead, options, Theme::Dark)
        .expect("the real run starts");
    for (w, h) in [(80, 24), (100, 30), (120, 40)] {
        let text = screen(&a, w, h);
        assert!(text.contains("Runtime (tokio)"), "{text}");
        assert!(text.contains("REAL time x0.01"), "{text}");
        assert!(!text.contains("speed 1x"), "{text}");
    }
}

#[test]
fn drawing_an_ended_real_run_leaves_its_end_to_the_tick() {
    let scenario = scenario::load("ironthread", &[]).expect("preset loads");
    let options = crate::real::RealOptions {
        time_scale: 0.01,
        ..crate::real::RealOptions::default()
    };
    let mut a = App::new_real(scenario, Strategy::Bulkhead, options, Theme::Dark)
        .expect("the real run starts");
    // Wait for the five runs without a tick (bounded: a stalled machine fails the test).
    for _ in 0..500 {
        if a.is_finished() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(a.is_finished(), "the real run did not finish in 5 s");
    let before = a.snapshot();
    for (w, h) in [(80, 24), (120, 40)] {
        screen(&a, w, h);
    }
    let run = a.real().expect("real mode").run();
    assert!(
        !run.is_settled(),
        "drawing kept the run's end and stopped it"
    );
    assert!(a.needs_ticks(), "the loop ticks until the end is kept");
    let drawn = a.snapshot();
    assert_eq!((drawn.now, drawn.outcomes), (before.now, before.outcomes));
    a.advance(
        std::time::Duration::from_millis(10),
        BudgetSpec::Events(u64::MAX),
    );
    assert!(a.real().expect("real mode").run().is_settled());
    assert!(!a.needs_ticks());
    let kept = a.snapshot();
    assert!(kept.finished);
    assert_eq!((kept.now, kept.outcomes), (before.now, before.outcomes));
}

/// Bulkhead containment switched to the shared pool at 6 s with `orders` slowed: the recs pool
/// still holds hung threads, the fault and the server switch are badges.
fn containment_after_switch() -> App {
    let mut a = preset_app(
        "bulkhead-containment",
        &[],
        Strategy::Bulkhead,
        Nanos::from_secs(6),
    );
    a.apply(Action::SelectStrategy(Strategy::Shared));
    a.apply(Action::OpenFaultMenu);
    a.apply(Action::MenuPick(2));
    a.apply(Action::MenuAdjust(false)); // fail to hang
    a.apply(Action::MenuAdjust(false)); // hang to slow (x5)
    a.apply(Action::MenuPick(4));
    play_to(&mut a, Nanos::from_secs(12));
    a
}

#[test]
fn containment_on_shared_keeps_every_pool_in_reach_and_shows_the_fault() {
    let a = containment_after_switch();
    for (w, h) in [(80, 24), (120, 40)] {
        let text = screen(&a, w, h);
        assert!(text.contains("CHANGED"), "{w}x{h}: the badge row\n{text}");
        assert!(
            text.contains("orders slow x5"),
            "{w}x{h}: the fault badge\n{text}"
        );
        assert!(
            text.contains("recs busy") || text.contains("pools (Tab"),
            "{w}x{h}: the recs pool or a marker for it\n{text}"
        );
        insta::assert_snapshot!(format!("containment_shared_{w}x{h}"), text);
    }
}

#[test]
fn no_percentiles_or_rates_are_shown_before_the_first_answer() {
    let a = app(&[], Strategy::Bulkhead, Nanos::ZERO);
    let text = screen(&a, 80, 24);
    assert!(text.contains("no answer yet"), "{text}");
    assert!(text.contains("waiting for the first request"), "{text}");
    assert!(!text.contains("p50 0.00"), "{text}");
}

/// The status line of a live screen of `width` x `height` shows `hints` in this order.
fn assert_hints_in_order(width: u16, height: u16, hints: &[&str]) {
    let text = screen(&live(Strategy::Bulkhead), width, height);
    let last = text.lines().last().expect("a status line");
    let order: Vec<usize> = hints
        .iter()
        .map(|k| {
            last.find(k)
                .unwrap_or_else(|| panic!("{k} missing: {last}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{last}");
}

#[test]
fn the_hint_bar_starts_with_q_help_fault_compare_and_space() {
    let first = ["q quit", "? help", "f fault", "c compare", "space pause"];
    assert_hints_in_order(80, 24, &first);
}

#[test]
fn a_wide_hint_bar_shows_the_sweep_and_the_timeline_after_strategies_and_pools() {
    let next = [
        "space pause",
        "1-5 strategy",
        "Tab pool",
        "g sweep",
        "t timeline",
        "C variants",
    ];
    assert_hints_in_order(120, 40, &next);
}

#[test]
fn the_log_columns_stay_put_from_frame_to_frame() {
    let header = |a: &App| {
        screen(a, 80, 24)
            .lines()
            .find(|l| l.contains("Thread Name"))
            .map(str::to_string)
            .expect("the log header")
    };
    let mut a = app(CLOSED, Strategy::Bulkhead, Nanos::from_millis(300));
    let early = header(&a);
    a.apply(Action::SelectStrategy(Strategy::Shared));
    play_to(&mut a, Nanos::from_secs(6));
    assert_eq!(early, header(&a));
}

/// Strings that show the panel a caption talks about is in sight.
fn anchors(panel: crate::scenario::TourPanel) -> &'static [&'static str] {
    use crate::scenario::TourPanel;
    match panel {
        TourPanel::Pools => &["Pools", "Tab select"],
        TourPanel::Outcomes => &["Outcomes", "answered"],
        TourPanel::Latency => &["Latency"],
        TourPanel::Compare => &["Compare: same requests", "best:"],
        TourPanel::Theory => &["theory ", "measured"],
        TourPanel::Log => &["Thread Name", "└──"],
        TourPanel::Resilience => &["Resilience", "goodput"],
    }
}

#[test]
fn no_tour_caption_covers_the_panel_it_names_or_loses_a_word() {
    use crate::scenario::TourPanel;
    use crate::tui::app::Tour;
    let mut toured = 0;
    for name in scenario::builtin_names() {
        let s = scenario::load(name, &[]).expect("preset loads");
        if s.tour.is_empty() {
            continue;
        }
        toured += 1;
        let strategy = s.strategy.default;
        let mut a = App::new(s, strategy, Theme::Dark);
        assert!(a.start_tour());
        for _ in 0..6_000 {
            let Some(step) = a.tour().and_then(Tour::shown_step).cloned() else {
                if a.tour().is_none_or(Tour::is_over) {
                    break;
                }
                // One frame at a time: a step that fires pauses the clock.
                a.advance(
                    std::time::Duration::from_millis(100),
                    BudgetSpec::Events(u64::MAX),
                );
                continue;
            };
            // Let behind engines (a fresh compare view) catch up to the paused clock.
            a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
            // A claim about goodput or attempts a second is about the Resilience panel's
            // charts when the live view shows them: the caption keeps clear of them too.
            let per_second = step.expect.iter().any(|c| {
                [
                    "goodput_timeline",
                    "attempts_timeline",
                    "new_timeline",
                    "retries_timeline",
                ]
                .iter()
                .any(|t| c.starts_with(t))
            });
            for (width, height) in [(80, 24), (120, 35), (120, 40)] {
                let at = format!("{name} at {width}x{height}, {:?}", step.caption);
                assert_caption_clear_and_whole(&a, width, height, step.panel, &at);
                let area = ratatui::layout::Rect::new(0, 0, width, height);
                let body = super::tour::body_area(&a, area);
                let charts = super::tour::panel_area(&a, body, TourPanel::Resilience);
                if per_second && a.compare_runs().is_none() && charts.height > 0 {
                    let (caption, _) = super::tour::layout(&a, area).expect("a caption");
                    assert!(!caption.intersects(charts), "{at}: covers goodput a second");
                }
                // The same for the variants view's goodput a second.
                let variants = step.expect.iter().any(|c| c.contains("goodput_timeline"));
                if let Some(chart) = a
                    .compare_runs()
                    .and_then(|runs| super::compare::goodput_chart(body, runs))
                    .filter(|_| variants)
                {
                    let (caption, _) = super::tour::layout(&a, area).expect("a caption");
                    assert!(!caption.intersects(chart), "{at}: covers goodput a second");
                }
            }
            a.press(crate::tui::keys::Key::Char(' '));
        }
    }
    assert!(toured >= 7, "every tour was looked at");
}

/// The shown caption keeps clear of `panel`, which stays in sight, and shows every word.
fn assert_caption_clear_and_whole(
    a: &App,
    width: u16,
    height: u16,
    panel: crate::scenario::TourPanel,
    at: &str,
) {
    let area = ratatui::layout::Rect::new(0, 0, width, height);
    let (caption, lines) = super::tour::layout(a, area).expect("a caption");
    let covered = super::tour::panel_area(a, super::tour::body_area(a, area), panel);
    assert!(!caption.intersects(covered), "{at}: covers {panel:?}");
    let text = screen(a, width, height);
    let rows: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let row = usize::from(caption.y) + 1 + i;
        assert!(
            rows.get(row).is_some_and(|r| r.contains(line.as_str())),
            "{at}: {line:?} is not shown\n{text}"
        );
    }
    let caption_rows = usize::from(caption.y)..usize::from(caption.bottom());
    for anchor in anchors(panel) {
        let seen = rows
            .iter()
            .enumerate()
            .any(|(i, l)| !caption_rows.contains(&i) && l.contains(anchor));
        assert!(seen, "{at}: {anchor:?} hidden by the caption\n{text}");
    }
}

#[test]
fn the_latency_panel_names_the_span_its_bars_show_and_the_window_of_its_percentiles() {
    // 120 columns: the latency panel holds 58 samples of 100 ms, 5.8 s once the run is
    // longer (at 5 s, the 51 samples so far); the percentiles are the rolling window's 10 s.
    let text = screen(&live(Strategy::Bulkhead), 120, 40);
    assert!(
        text.contains("Latency: slowest per 100 ms, last 5.1s"),
        "{text}"
    );
    assert!(text.contains(" last 10s: p50 "), "{text}");
    let a = app(CLOSED, Strategy::Bulkhead, Nanos::from_secs(20));
    let text = screen(&a, 120, 40);
    assert!(
        text.contains("Latency: slowest per 100 ms, last 5.8s"),
        "{text}"
    );
}

#[test]
fn after_answers_stop_the_latency_panel_says_none_in_the_window_and_how_many_so_far() {
    // bulkhead-containment under shared: the common pool starves and answers stop at ~33 s.
    let a = preset_app(
        "bulkhead-containment",
        &[],
        Strategy::Shared,
        Nanos::from_secs(50),
    );
    let answered = a.snapshot().latency.count;
    assert!(answered > 0);
    let text = screen(&a, 120, 40);
    assert!(!text.contains("no answer yet"), "{text}");
    let wanted = format!("no answer in the last 10s · {answered} answered in all");
    assert!(text.contains(&wanted), "{wanted} not in {text}");
}

/// `b` pins the run's figures: the headline shows them beside the live goodput, the compare
/// view as a row under the strategies, until `b` clears them.
#[test]
fn a_pinned_baseline_is_shown_beside_the_live_run_until_cleared() {
    for (width, height) in [(80, 24), (120, 40)] {
        let mut a = app(CLOSED, Strategy::Shared, Nanos::from_secs(3));
        a.apply(Action::TogglePin);
        a.apply(Action::SelectStrategy(Strategy::Bulkhead));
        play_to(&mut a, Nanos::from_secs(6));
        let pinned = screen(&a, width, height);
        assert!(pinned.contains("· pin "), "{pinned}");
        insta::assert_snapshot!(format!("pin_live_{width}x{height}"), pinned);
        a.apply(Action::ToggleCompare);
        // The compare view's engines catch up to the clock.
        a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
        let compare = screen(&a, width, height);
        assert!(!compare.contains("behind"), "{compare}");
        assert!(compare.contains("pin shared"), "{compare}");
        insta::assert_snapshot!(format!("pin_compare_{width}x{height}"), compare);
        a.apply(Action::TogglePin);
        let cleared = screen(&a, width, height);
        assert!(
            !cleared.contains("pin shared") && !cleared.contains("· pin "),
            "{cleared}"
        );
        insta::assert_snapshot!(format!("pin_cleared_{width}x{height}"), cleared);
    }
}

/// Presenter mode: `z` gives each live panel the whole body in turn, then all of them again;
/// `h` hides the theory rows and the log takes them.
#[test]
fn zoom_fills_the_body_with_one_panel_at_a_time_and_h_hides_theory() {
    let mut a = live(Strategy::Bulkhead);
    let normal = screen(&a, 80, 24);
    for name in ["pools", "outcomes", "latency", "theory", "log"] {
        a.apply(Action::Zoom);
        insta::assert_snapshot!(format!("zoom_{name}_80x24"), screen(&a, 80, 24));
    }
    a.apply(Action::Zoom);
    assert_eq!(
        screen(&a, 80, 24),
        normal,
        "after the log, every panel again"
    );
    a.apply(Action::ToggleTheory);
    let hidden = screen(&a, 80, 24);
    assert!(normal.contains("Theory vs measured"));
    assert!(!hidden.contains("Theory vs measured"), "{hidden}");
    insta::assert_snapshot!("theory_hidden_80x24", hidden);
    a.apply(Action::ToggleTheory);
    assert_eq!(screen(&a, 80, 24), normal);
}

/// `L`: goodput, the answered p99 and failures per second in large type, each under the label
/// of what it counts, the pinned baseline's beside it; every size from 80x24 to 200x60 shows
/// all three labels, and the figures are the pin's and the compare view's.
#[test]
fn the_headline_in_large_type_keeps_its_labels_and_the_pin_beside_each_figure() {
    let mut a = app(CLOSED, Strategy::Shared, Nanos::from_secs(3));
    a.apply(Action::TogglePin);
    a.apply(Action::SelectStrategy(Strategy::Bulkhead));
    play_to(&mut a, Nanos::from_secs(6));
    let panels = screen(&a, 80, 24);
    a.apply(Action::ToggleHeadline);
    assert!(a.headline());
    for (width, height) in [(80, 24), (120, 40), (200, 60)] {
        let text = screen(&a, width, height);
        for label in [
            "goodput: answered requests",
            "p99",
            "failed + timeout + refused",
        ] {
            assert!(text.contains(label), "{width}x{height}: {label}\n{text}");
        }
        assert_eq!(text.matches("pin ").count(), 4, "{width}x{height}\n{text}");
        assert!(text.contains("pin shared at 3.000s (b clears)"), "{text}");
        assert!(!text.contains("Pools") && !text.contains("Log"), "{text}");
        if (width, height) != (200, 60) {
            insta::assert_snapshot!(format!("headline_{width}x{height}"), text);
        }
    }
    // Esc, like L again, gives the panels back.
    a.apply(Action::Back);
    assert!(!a.headline());
    let body = |text: &str| text.lines().take(23).collect::<Vec<_>>().join("\n");
    assert_eq!(
        body(&screen(&a, 80, 24)),
        body(&panels),
        "all but the status line"
    );
    a.apply(Action::ToggleHeadline);
    a.apply(Action::ToggleCompare);
    assert!(!a.headline(), "the compare view takes the body");
}

#[test]
fn the_headline_figures_are_the_runs_goodput_p99_and_failures_per_second() {
    let a = app(
        &["load.mode=closed", "load.clients=400"],
        Strategy::Bulkhead,
        Nanos::from_secs(6),
    );
    let snapshot = a.snapshot();
    let engine = a.sim();
    let report = crate::report::RunReport::from_snapshot(
        engine.scenario(),
        &snapshot,
        &[],
        engine.prediction(),
    );
    let values = super::headline::values(&a, &snapshot);
    let failed =
        report.failure_rps.failed + report.failure_rps.timeout + report.failure_rps.refused;
    assert!(failed > 0.0, "this load fails requests: {failed}");
    assert_eq!(
        values,
        vec![
            super::fmt::rate(report.goodput_rps).replace("/s", ""),
            super::fmt::ms(report.latency_ms.p99),
            super::fmt::rate(failed).replace("/s", ""),
        ]
    );
}

#[test]
fn a_real_run_shows_the_headline_too() {
    let scenario = scenario::load("ironthread", &[]).expect("preset loads");
    let options = crate::real::RealOptions {
        time_scale: 0.01,
        ..crate::real::RealOptions::default()
    };
    let mut a = App::new_real(scenario, Strategy::Bulkhead, options, Theme::Dark)
        .expect("the real run starts");
    a.apply(Action::ToggleHeadline);
    assert!(a.headline());
    let text = screen(&a, 80, 24);
    assert!(text.contains("Headline · bulkhead"), "{text}");
    assert!(!text.contains("pin"), "no pin in a real run\n{text}");
}

/// The fault form: kind, effect, duration and what Enter applies, at 80x24 and 120x40.
#[test]
fn the_fault_form_shows_kind_effect_duration_and_what_it_applies() {
    let mut a = live(Strategy::Bulkhead);
    a.apply(Action::OpenFaultMenu);
    a.apply(Action::MenuPick(3));
    a.apply(Action::MenuArrow(2, false)); // 45 %
    a.apply(Action::MenuArrow(3, true)); // 5 s
    a.apply(Action::MenuArrow(3, true)); // 10 s
    for (width, height) in [(80, 24), (120, 40)] {
        let text = screen(&a, width, height);
        assert!(text.contains("45 % of calls fail"), "{text}");
        assert!(text.contains("10s (simulated)"), "{text}");
        assert!(text.contains("apply: failing 45% for 10s"), "{text}");
        insta::assert_snapshot!(format!("fault_form_{width}x{height}"), text);
    }
    a.apply(Action::MenuChoose);
    play_to(&mut a, Nanos::from_secs(8));
    for (width, height) in [(80, 24), (120, 40)] {
        let text = screen(&a, width, height);
        assert!(
            text.contains("recommendations failing 45% (7s left)"),
            "{width}x{height}: the badge with its time left\n{text}"
        );
    }
    insta::assert_snapshot!("fault_timed_badge_80x24", screen(&a, 80, 24));
}

/// A pin taken between whole seconds says when as the header's clock does (`2.500s`), in the
/// status line, the compare view's pin row and the headline's title, not in raw units.
#[test]
fn a_pin_says_when_it_was_taken_as_the_clock_does() {
    let mut a = app(CLOSED, Strategy::Shared, Nanos::from_millis(2_500));
    a.apply(Action::TogglePin);
    let status = screen(&a, 120, 40);
    assert!(status.contains("pinned shared at 2.500s"), "{status}");
    a.apply(Action::ToggleCompare);
    a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
    let compare = screen(&a, 120, 40);
    assert!(compare.contains("  at 2.500s (b clears)"), "{compare}");
    a.apply(Action::ToggleHeadline);
    let headline = screen(&a, 120, 40);
    assert!(
        headline.contains("pin shared at 2.500s (b clears)"),
        "{headline}"
    );
}

/// From 80x24 to 200x60, with badges and a pin, the headline draws every figure's label and
/// never runs past the screen.
#[test]
fn the_headline_fits_every_size_from_80x24_to_200x60() {
    let mut a = app(CLOSED, Strategy::Shared, Nanos::from_secs(3));
    a.apply(Action::TogglePin);
    a.apply(Action::GrowPool); // a badge row too
    a.apply(Action::ToggleHeadline);
    for width in (80..=200).step_by(15) {
        for height in (24..=60).step_by(4) {
            let text = screen(&a, width, height);
            for label in ["goodput", "p99", "refused"] {
                assert!(text.contains(label), "{width}x{height}: {label}\n{text}");
            }
            assert_eq!(text.matches("pin ").count(), 4, "{width}x{height}\n{text}");
        }
    }
}

/// The resilience panel alone, `width` x `height`.
fn resilience_panel(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let snapshot = app.snapshot();
    terminal
        .draw(|frame| super::resilience::render(frame, frame.area(), app, &snapshot))
        .expect("draws");
    terminal.backend().to_string()
}

#[test]
fn metastable_after_the_spike_shows_retries_and_goodput_that_stays_down() {
    // At 60 s: the spike was 30-40 s; the bars of 40-60 s stay low at the load that was
    // fine before it.
    let a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(60),
    );
    let small = screen(&a, 80, 24);
    let large = screen(&a, 120, 40);
    assert!(small.contains("Resilience") && large.contains("Resilience"));
    // Goodput and the attempts a second share the strip, each with its 60 seconds.
    assert!(
        large.contains("goodput a second, t 0-60 s, most 100, ▁ red: 0")
            && large.contains("attempts/s: new ▇ + retries ▇, ▁ 100.0/s a row, most 1017"),
        "{large}"
    );
    assert!(large.contains("Log"), "the log keeps rows at 120x40");
    let largest = screen(&a, 200, 60);
    assert!(largest.contains("goodput: answered a second, t 0-60 s, most 100"));
    assert!(
        largest
            .contains("attempts a second: new ▇ + retries ▇, capacity ▁ 100.0/s a row, t 0-60 s")
    );
    insta::assert_snapshot!("resilience_metastable_80x24", small);
    insta::assert_snapshot!("resilience_metastable_120x40", large);
}

#[test]
fn the_resilience_panel_counts_exactly_what_the_snapshot_holds() {
    let a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(60),
    );
    let snap = a.snapshot();
    let panel = resilience_panel(&a, 200, 10);
    let r = snap.resilience;
    let attempts = (snap.sent + r.retries) as f64 / snap.sent as f64;
    assert!(
        panel.contains(&format!("{attempts:.2} attempts/request")),
        "{panel}"
    );
    assert!(panel.contains(&format!("gave up {}", super::fmt::count(r.gave_up))));
    assert!(panel.contains(&format!("shed {}", r.shed)));
    assert!(panel.contains(&format!("{:.1} thread-s", r.wasted_work.as_secs_f64())));
    // The rate: the retries the engine counted in seconds 55 to 59.
    let last5: u32 = snap.retry_timeline[55..60].iter().sum();
    assert!(last5 > 0, "retries after the spike");
    assert!(
        panel.contains(&format!(
            "retries {} (last 5 s)",
            super::fmt::rate(f64::from(last5) / 5.0)
        )),
        "{panel}"
    );
}

/// One closed client, 300 ms of thinking, each call 100 ms, failing (its fallback answers)
/// from t 0; a breaker over 4 calls at 50 %, 1 s open, 2 calls half-open; a rate limiter
/// loose enough never to refuse. As in tests/resilience.rs: the 4th failure (1.3 s) opens
/// it, requests at 1.6 and 1.9 s fail fast, the one at 2.5 s half-opens it.
fn breaker_app(at: Nanos) -> App {
    let toml = r#"
[scenario]
name = "breaker"
[load]
mode = "closed"
clients = 1
think = "300ms"
[server]
[[services]]
name = "orders"
latency = "100ms"
fallback = "cached"
[services.breaker]
window_size = 4
minimum_calls = 4
wait_in_open = "1s"
permitted_in_half_open = 2
[services.rate_limit]
limit = 100
period = "1s"
timeout = "1s"
[endpoint]
calls = ["orders"]
[strategy]
use = "sequential"
"#;
    let scenario = scenario::parse("breaker", toml, &[])
        .map(|s| s.without_network())
        .expect("valid");
    let mut a = App::new(scenario, Strategy::Sequential, Theme::Dark);
    a.apply_fault(
        crate::scenario::ServiceId(0),
        crate::tui::fault_form::FaultForm::default().with_fail_percent(100),
    );
    play_to(&mut a, at);
    a
}

#[test]
fn a_breaker_closed_open_and_half_open_has_its_badge() {
    use crate::flow::BreakerState;
    for (at, state, name) in [
        (1_000, BreakerState::Closed, "closed"),
        (2_000, BreakerState::Open, "open"),
        (2_550, BreakerState::HalfOpen, "half_open"),
    ] {
        let a = breaker_app(Nanos::from_millis(at));
        let b = a.snapshot().services[0].breaker.clone().expect("a breaker");
        assert_eq!(b.state, state, "at {at} ms");
        let panel = resilience_panel(&a, 80, 9);
        insta::assert_snapshot!(format!("resilience_breaker_{name}"), panel);
    }
    // Hand-computed: 3 calls at 1 s, below the minimum of 4: no rate yet.
    let closed = resilience_panel(&breaker_app(Nanos::from_millis(1_000)), 80, 9);
    assert!(
        closed.contains("● CLOSED") && closed.contains("failure -"),
        "{closed}"
    );
    // At 2 s: opened once at 1.3 s, 2 requests failed fast, 4 of 4 calls failed.
    let open = resilience_panel(&breaker_app(Nanos::from_secs(2)), 80, 9);
    assert!(
        open.contains("● OPEN") && open.contains("failure 100% · opened 1 · fast-failed 2"),
        "{open}"
    );
    assert!(open.contains("rate-limited 0"), "{open}");
}

#[test]
fn the_open_badge_is_red_closed_green_half_open_yellow() {
    use crate::flow::BreakerState;
    use ratatui::style::Color;
    let p = crate::tui::theme::Palette::of(Theme::Dark);
    assert_eq!(p.breaker(BreakerState::Closed).fg, Some(Color::Green));
    assert_eq!(p.breaker(BreakerState::HalfOpen).fg, Some(Color::Yellow));
    assert_eq!(p.breaker(BreakerState::Open).fg, Some(Color::Red));
}

#[test]
fn the_fault_menu_ends_with_double_the_load() {
    let mut a = app(&[], Strategy::Bulkhead, Nanos::from_secs(1));
    a.apply(Action::OpenFaultMenu);
    let text = screen(&a, 80, 24);
    assert!(text.contains("4 double the load ◂ for 30s"), "{text}");
}

#[test]
fn a_refusal_too_long_for_the_status_line_takes_a_second_row_and_keeps_its_end() {
    use crate::tui::keys::Key;
    let mut a = preset_app(
        "bulkhead-containment",
        &[],
        Strategy::Bulkhead,
        Nanos::from_secs(1),
    );
    a.press(Key::Char('C'));
    a.press(Key::Char('a'));
    "server.threads=5, load.rate=8"
        .chars()
        .for_each(|c| a.press(Key::Char(c)));
    a.press(Key::Enter);
    let text = screen(&a, 80, 24);
    let rows: Vec<&str> = text.lines().collect();
    let last_two = format!("{}{}", rows[22], rows[23]);
    assert!(
        last_two.contains("server.min_spare = 10 is above server.threads = 5")
            && last_two.contains("min_spare must be <= threads"),
        "{text}"
    );
    // The body gave up its last row for it: the panel's frame closes above the status.
    assert!(rows[21].contains('└'), "{text}");
}

#[test]
fn an_empty_compare_chart_gives_no_scale() {
    use crate::tui::keys::Key;
    let mut a = app(&[], Strategy::Bulkhead, Nanos::ZERO);
    a.press(Key::Char('c'));
    let text = screen(&a, 120, 40);
    assert!(text.contains("no answer yet"), "{text}");
    assert!(!text.contains("bar top = 0"), "{text}");
    // Once answers come, the chart has its scale.
    play_to(&mut a, Nanos::from_secs(3));
    let text = screen(&a, 120, 40);
    assert!(text.contains("bar top = "), "{text}");
}

/// During an outage the headline (`L`) and the Outcomes panel show the last 10 s, with the
/// run's average since t 0 beside it: `metastable` at 70 s has answered nothing since 32 s
/// while its average since t 0 is still 40.9/s.
#[test]
fn during_an_outage_the_headline_shows_the_last_ten_seconds_beside_the_average() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(70),
    );
    let snapshot = a.snapshot();
    let recent = crate::tui::recent::Recent::of(&snapshot).expect("70 s played");
    assert_eq!(recent.goodput_rps, 0.0);
    let failed = super::fmt::rate(recent.failed_rps).replace("/s", "");
    assert_eq!(
        super::headline::values(&a, &snapshot),
        vec!["0.00".to_string(), "-".to_string(), failed]
    );
    // The average goes in the title where it fits (120 columns), else first on the line.
    let small = screen(&a, 80, 24);
    assert!(small.contains("goodput 0.00/s last 10 s ┐"), "{small}");
    assert!(small.contains("since t 0: goodput 40.9/s"), "{small}");
    let large = screen(&a, 120, 40);
    assert!(
        large.contains("goodput 0.00/s last 10 s · since t 0 40.9/s"),
        "{large}"
    );
    // No failure rate since t 0 stands unlabelled beside the last 10 s: the counts instead.
    assert!(
        large.contains("answered 2866 · conn 8192 · backlog 101"),
        "{large}"
    );
    assert!(!large.contains("timeout 59.3/s"), "{large}");
    a.apply(Action::ToggleHeadline);
    for (width, height) in [(80, 24), (120, 40)] {
        let text = screen(&a, width, height);
        for words in [
            "last 10 s",
            "since t 0 40.9/s",
            "since t 0 819 ms",
            "none answered",
        ] {
            assert!(text.contains(words), "{width}x{height}: {words}\n{text}");
        }
    }
}

/// A pin taken after 10 s holds its last 10 s too: the headline sets it beside the live
/// window's figure, and the average since t 0 after both.
#[test]
fn a_pin_of_the_last_ten_seconds_stands_beside_the_same_window() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(25),
    );
    a.apply(Action::TogglePin);
    let pinned = a
        .pin()
        .and_then(|p| p.recent)
        .expect("the pin has a window");
    assert!(pinned.goodput_rps > 80.0, "{}", pinned.goodput_rps);
    play_to(&mut a, Nanos::from_secs(70));
    a.apply(Action::ToggleHeadline);
    let text = screen(&a, 120, 40);
    let beside = format!(
        "pin {} · since t 0 40.9/s",
        super::fmt::rate(pinned.goodput_rps)
    );
    assert!(text.contains(&beside), "{beside}\n{text}");
    a.apply(Action::ToggleHeadline);
    let panels = screen(&a, 120, 40);
    let title = format!(
        "goodput 0.00/s last 10 s · pin {}",
        super::fmt::rate(pinned.goodput_rps)
    );
    assert!(panels.contains(&title), "{title}\n{panels}");
}

/// A second that answered nothing is a low red bar, not a gap: `metastable` after the
/// spike draws 0 for every second from 33 s, in the Resilience panel and in `C`'s goodput
/// a second.
#[test]
fn zero_goodput_is_drawn_as_a_red_floor_not_left_blank() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(70),
    );
    let snapshot = a.snapshot();
    // 200 columns: the goodput half holds the 70 seconds.
    let mut terminal = Terminal::new(TestBackend::new(200, 10)).expect("test terminal");
    terminal
        .draw(|frame| super::resilience::render(frame, frame.area(), &a, &snapshot))
        .expect("draws");
    let buffer = terminal.backend().buffer().clone();
    let bottom = buffer.area.height - 1;
    let red = a.palette().outcome(crate::metrics::Outcome::Failed).fg;
    for (second, &answered) in snapshot.goodput_timeline[..70].iter().enumerate() {
        let cell = &buffer[(u16::try_from(second).expect("a column"), bottom)];
        assert_ne!(cell.symbol(), " ", "second {second}: {answered} answered");
        if answered == 0 {
            assert_eq!((cell.symbol(), cell.fg), ("▁", red.unwrap_or_default()));
        }
    }
    assert!(snapshot.goodput_timeline[40..70].iter().all(|&n| n == 0));
    a.apply(Action::ToggleVariants);
    a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
    let text = screen(&a, 120, 40);
    // The lane of `as now` ends on the row above the next lane's label.
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("Goodput a second"))
        .collect();
    let next = rows
        .iter()
        .position(|l| l.contains("no retries at all"))
        .expect("the next lane");
    let as_now = rows[next - 1];
    assert!(
        as_now
            .trim_end_matches(['│', ' ', '"'])
            .ends_with("▁▁▁▁▁▁▁▁▁▁"),
        "{as_now}"
    );
}

/// The storm's picture in the Resilience panel: attempts a second, new requests under the
/// retries, a row per 100 attempts (the server's capacity). After the spike the new
/// requests are back under the line, the retries stand on top of them up to the panel's top.
#[test]
fn the_resilience_panel_draws_attempts_a_second_new_under_retries_against_capacity() {
    let a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(70),
    );
    let snapshot = a.snapshot();
    let most = (0..70)
        .map(|s| snapshot.new_timeline[s] + snapshot.retry_timeline[s])
        .max()
        .expect("70 seconds");
    let mut terminal = Terminal::new(TestBackend::new(200, 10)).expect("test terminal");
    terminal
        .draw(|frame| super::resilience::render(frame, frame.area(), &a, &snapshot))
        .expect("draws");
    let buffer = terminal.backend().buffer().clone();
    let text = terminal.backend().to_string();
    let caption = format!(
        "attempts a second: new ▇ + retries ▇, capacity ▁ 100.0/s a row, t 0-70 s, most {most}"
    );
    assert!(text.contains(&caption), "{caption}\n{text}");
    // The chart is the right half: its columns start after the goodput half and a gap.
    let left = buffer
        .content
        .chunks(200)
        .find_map(|row| {
            let line: String = row.iter().map(ratatui::buffer::Cell::symbol).collect();
            line.find("attempts a second")
                .map(|i| line[..i].chars().count() - 1)
        })
        .expect("the caption's row");
    let x = |second: u16| u16::try_from(left).expect("a column") + second;
    let (bottom, top) = (buffer.area.height - 1, buffer.area.height - 3);
    let (blue, magenta) = (
        a.palette().queue.fg,
        a.palette().outcome(crate::metrics::Outcome::Timeout).fg,
    );
    // 20 s: 90-odd new requests, under the line; no retries.
    assert_eq!(buffer[(x(20), bottom)].fg, blue.unwrap_or_default());
    assert_eq!(
        buffer[(x(20), bottom - 1)].symbol(),
        "▁",
        "the capacity line"
    );
    // 65 s: new requests at the bottom, retries up to the top (cut).
    assert_eq!(buffer[(x(65), bottom)].fg, blue.unwrap_or_default());
    assert_eq!(
        (buffer[(x(65), top)].symbol(), buffer[(x(65), top)].fg),
        ("█", magenta.unwrap_or_default())
    );
}

/// `z` zooms the Resilience panel too, after theory, when the run has one: goodput a second
/// and attempts a second then fill the body one under the other, full width.
#[test]
fn zoom_reaches_the_resilience_panel_and_draws_its_charts_one_under_the_other() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(70),
    );
    for _ in 0..5 {
        a.apply(Action::Zoom);
    }
    assert_eq!(a.zoom(), Some(crate::tui::app::Panel::Resilience));
    for (width, height) in [(80, 24), (120, 35)] {
        let text = screen(&a, width, height);
        let row = |words: &str| text.lines().position(|l| l.contains(words));
        let (goodput, attempts) = (
            row("goodput: answered a second, t 0-70 s").expect("goodput's caption"),
            row("+ retries ▇").expect("the attempts' caption"),
        );
        assert!(attempts > goodput + 4, "{width}x{height}\n{text}");
        assert!(!text.contains("Pools") && !text.contains("Log"), "{text}");
    }
    a.apply(Action::Zoom);
    assert_eq!(a.zoom(), Some(crate::tui::app::Panel::Log));
}

/// `C` on `circuit-breaker`: the breaker changes no goodput and no percentile, so the table
/// adds the columns in which its rows differ: the mean page (823 ms against 1174 without a
/// breaker), the calls failed fast (452 against 0) and the pages with the fallback (488
/// against 410).
#[test]
fn the_variants_table_shows_the_figures_a_breaker_changes() {
    let mut a = preset_app(
        "circuit-breaker",
        &[],
        Strategy::Bulkhead,
        Nanos::from_secs(120),
    );
    a.apply(Action::ToggleVariants);
    a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
    let row = |text: &str, label: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("{label}\n{text}"))
            .to_string();
        let inside = line.split('│').nth(1).expect("inside the table");
        inside.split_whitespace().map(str::to_string).collect()
    };
    let wide = screen(&a, 120, 35);
    assert!(
        wide.contains("failed/s  mean ms  fast-failed  partial  limited by"),
        "{wide}"
    );
    let with = row(&wide, "as now");
    let without = row(&wide, "without a breaker that ever opens");
    let cells = |r: &[String]| -> Vec<String> {
        let at = r.iter().position(|c| c.ends_with("/s")).expect("goodput");
        r[at..at + 7].to_vec()
    };
    assert_eq!(
        cells(&with)[..4],
        cells(&without)[..4],
        "goodput, p50, p99, failed/s alike"
    );
    assert_eq!(cells(&with)[4..], ["823", "452", "488"], "{wide}");
    assert_eq!(cells(&without)[4..], ["1174", "0", "410"], "{wide}");
    // At 80x24 the labels stay readable and the mean and the fast-failed calls still show.
    let small = screen(&a, 80, 24);
    assert!(
        small.contains("mean ms") && small.contains("fast-failed"),
        "{small}"
    );
    assert!(small.contains("without a breaker that"), "{small}");
}

/// At 80x24 `C` has room for one chart: goodput a second (where a pattern shows in whether
/// goodput comes back), not the slowest answer of the last minute.
#[test]
fn a_small_variants_view_keeps_the_goodput_chart() {
    let mut a = preset_app(
        "metastable",
        &[],
        Strategy::Sequential,
        Nanos::from_secs(70),
    );
    a.apply(Action::ToggleVariants);
    a.advance(std::time::Duration::ZERO, BudgetSpec::Events(u64::MAX));
    let small = screen(&a, 80, 24);
    assert!(small.contains("Goodput a second"), "{small}");
    assert!(!small.contains("Slowest answer"), "{small}");
    let large = screen(&a, 120, 40);
    assert!(large.contains("Goodput a second") && large.contains("Slowest answer"));
}
