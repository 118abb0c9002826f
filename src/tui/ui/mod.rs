//! Drawing: pure functions of the [`App`] and one [`Snapshot`] of its engine.
//!
//! The live screen (80x24 and up; extra rows go to the body first, then the log):
//!
//! ```text
//! ┌──────────────────────────────────────────────────────────────────────────────┐
//! │ IronThread │ 1 sequential  2 shared  3 bulkhead  4 unbounded       t 3.200s  │ header
//! │ RUNNING  speed 1x · load 5 runs · seed 7 · sent 4 · in flight 1     ? help   │
//! ├ Pools ───────────────────────────────┬ Outcomes ────────────────── 0.59/s ───┤
//! │▸tomcat  busy 1/10  max 200           │ Success 3  Partial 1  Failed 0        │ body
//! │ █░░░░░░░░░                           ├ Latency ms ───────────────────────────┤
//! │ IronThread busy 3/3  core 10 max 20  │ ▁▁█ ▁▁█                               │
//! │ ███  queue 0/500 ▁▁▁                 │   ✗   ~                               │
//! ├ Theory vs measured ──────────────────┴───────────────────────────────────────┤
//! │ theory   ceiling 11.8/s (IronThread) · X 1.00/s · R 1000 ms · ρ 8%           │ theory
//! │ measured X 0.59/s · R 1000 ms · L 0.59 vs X·R 0.59                           │
//! ├ Resilience ──────────────────────────────────────────────────────────────────┤
//! │ retries 180.0/s (last 5.0 s) · 2.31 attempts/request · gave up 12 · shed 0   │ resilience
//! │ ● OPEN      orders   failure 62% · opened 3 · fast-failed 412                │ (when in
//! │ ▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▂▁  goodput a second                        │  play)
//! ├ Log ─────────────────────────────────────────────────────────────────────────┤
//! │ Run # │ Strategy   │ Time (ms) │ Thread Name          │ Status               │ log
//! │     1 │ bulkhead   │      1000 │ IronThread-3         │ Success              │
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ IronThread core 10 -> 11   (or an error, the paused banner, or key hints)    │ status
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The resilience panel (retries, shedding, breakers, rate limiters, goodput a second) is
//! there when the run has any of them ([`resilience::shown`]): it takes its rows from the
//! log, and all of them when fewer than [`LOG_KEEPS`] would be left (at 80x24 the log goes).
//! In real mode the runtime panel (tokio-metrics, and whether the run keeps up) sits below
//! it, taking the log's rows first too.
//!
//! The compare view replaces body, theory and log with every strategy side by side
//! (2x2 below 120 columns), or with the run with and without a pattern (`C`); the headline in large type (`L`) replaces them too, and comes
//! first. Overlays (help, fault menu, sweep) are drawn last, centred. Below
//! [`MIN_WIDTH`]x[`MIN_HEIGHT`] only a message saying so is drawn.

mod bars;
mod bottlenecks;
mod compare;
mod compare_columns;
mod fault_menu;
mod fmt;
mod header;
mod headline;
mod help;
mod latency;
pub(crate) mod lesson;
mod log;
pub mod mouse;
mod outcomes;
mod pools;
pub mod resilience;
mod runtime;
mod status;
mod storm;
mod sweep;
mod theory;
pub mod timeline;
mod tour;
mod tour_steps;

pub use fmt::clock as clock_text;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::sim::Snapshot;

use super::app::{App, Overlay, Panel};

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// The log keeps the rows the resilience panel leaves only when they are at least this
/// many (its title, header and a couple of runs).
const LOG_KEEPS: u16 = 4;

/// Rows of the header.
const HEADER_ROWS: u16 = 2;

/// Draws the whole screen.
pub fn render(frame: &mut Frame, app: &App, snapshot: &Snapshot) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        render_too_small(frame, area);
        return;
    }
    let badges = app.badges(snapshot);
    let [header, body, status] = screen_areas(area, app, !badges.is_empty());
    header::render(frame, header, app, snapshot, &badges);
    status::render(frame, status, app);
    if app.headline() {
        headline::render(frame, body, app, snapshot);
    } else if app.compare_engines().is_some() {
        compare::render(frame, body, app);
    } else if let Some(lane) = app.timeline_lane() {
        timeline::render(frame, body, app, lane);
    } else {
        render_live(frame, body, app, snapshot);
    }
    tour::render(frame, area, app);
    lesson::render(frame, area, app);
    render_overlay(frame, app, snapshot);
    paint_background(frame, app);
}

fn render_overlay(frame: &mut Frame, app: &App, snapshot: &Snapshot) {
    let area = frame.area();
    match app.overlay() {
        Overlay::None => {}
        Overlay::Help => help::render(frame, area, app),
        Overlay::Legend => help::render_legend(frame, area, app),
        Overlay::Faults(menu) => fault_menu::render(frame, area, app, snapshot, menu),
        Overlay::TourSteps(cursor) => tour_steps::render(frame, area, app, cursor),
        Overlay::Sweep => sweep::render(frame, area, app),
    }
}

/// Themes with their own background (light) paint every cell the panels left at the
/// terminal's default, so the screen looks the same whatever the terminal's colours.
fn paint_background(frame: &mut Frame, app: &App) {
    let Some((bg, fg)) = app.palette().background else {
        return;
    };
    for cell in &mut frame.buffer_mut().content {
        if cell.bg == ratatui::style::Color::Reset {
            cell.set_bg(bg);
        }
        if cell.fg == ratatui::style::Color::Reset {
            cell.set_fg(fg);
        }
    }
}

/// Header, body and status line of the screen; a third header row, the badges, whenever
/// something differs from the preset.
/// The header (with its badges), the body and the status line (two rows while what the last
/// key did needs them, see [`status::rows`]).
pub(super) fn screen_areas(area: Rect, app: &App, badges: bool) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(HEADER_ROWS + u16::from(badges)),
        Constraint::Min(0),
        Constraint::Length(status::rows(app, area.width)),
    ])
    .areas(area)
}

/// Where the live view's panels go in its body.
pub(super) struct LiveAreas {
    pub pools: Rect,
    pub outcomes: Rect,
    pub latency: Rect,
    pub theory: Rect,
    /// Empty when the run has no resilience pattern in play.
    pub resilience: Rect,
    pub log: Rect,
}

/// Body, theory and log. At 24 rows: 10 + 3 + 8.
pub(super) fn live_areas(app: &App, area: Rect) -> LiveAreas {
    let extra = area.height.saturating_sub(21);
    // The Erlang C line, when theory has one and there is room.
    let erlang = app.source().prediction().erlang_c.is_some();
    let theory_rows = if extra >= 6 && erlang { 4 } else { 3 };
    let log_rows = 8 + (extra.saturating_sub(theory_rows - 3) / 3).min(12);
    // Presenter mode: one panel has the whole body, the others no room.
    if let Some(zoomed) = app.zoom() {
        let mut areas = LiveAreas {
            pools: Rect::default(),
            outcomes: Rect::default(),
            latency: Rect::default(),
            theory: Rect::default(),
            resilience: Rect::default(),
            log: Rect::default(),
        };
        *match zoomed {
            Panel::Pools => &mut areas.pools,
            Panel::Outcomes => &mut areas.outcomes,
            Panel::Latency => &mut areas.latency,
            Panel::Theory => &mut areas.theory,
            Panel::Resilience => &mut areas.resilience,
            Panel::Log => &mut areas.log,
        } = area;
        return areas;
    }
    // Theory hidden: the log takes its rows.
    let (theory_rows, log_rows) = if app.theory_hidden() {
        (0, log_rows + theory_rows)
    } else {
        (theory_rows, log_rows)
    };
    let [body, theory, log] = Layout::vertical([
        Constraint::Min(10),
        Constraint::Length(theory_rows),
        Constraint::Length(log_rows),
    ])
    .areas(area);
    let [pools, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
    let [outcomes, latency] =
        Layout::vertical([Constraint::Length(5), Constraint::Min(5)]).areas(right);
    let scenario = app.source().scenario();
    let resilience_rows = if resilience::shown(scenario) {
        let wanted = resilience::height(scenario);
        if log.height >= wanted + LOG_KEEPS {
            wanted
        } else {
            log.height
        }
    } else {
        0
    };
    let [resilience, log] =
        Layout::vertical([Constraint::Length(resilience_rows), Constraint::Min(0)]).areas(log);
    LiveAreas {
        pools,
        outcomes,
        latency,
        theory,
        resilience,
        log,
    }
}

fn render_live(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let LiveAreas {
        pools: left,
        outcomes,
        latency,
        theory,
        resilience,
        log,
    } = live_areas(app, area);
    // Panels without room (zoomed away, theory hidden) are not drawn.
    let shown = |r: Rect| r.height > 0 && r.width > 0;
    if shown(left) {
        pools::render(frame, left, app, snapshot);
    }
    if shown(outcomes) {
        outcomes::render(frame, outcomes, app, snapshot);
    }
    if shown(latency) {
        latency::render(frame, latency, app, snapshot);
    }
    if shown(theory) {
        theory::render(frame, theory, app, snapshot);
    }
    if shown(resilience) {
        resilience::render(frame, resilience, app, snapshot);
    }
    let log = match app.real() {
        Some(real) => {
            let run = real.run();
            let view = run.runtime();
            // The log keeps what is left only when that shows a few rows.
            let wanted = runtime::height(&view, real.lag());
            let runtime_rows = if log.height >= wanted + 4 {
                wanted
            } else {
                log.height
            };
            let [runtime_area, log] =
                Layout::vertical([Constraint::Length(runtime_rows), Constraint::Min(0)]).areas(log);
            if runtime_area.height == 0 {
                return;
            }
            runtime::render(
                frame,
                runtime_area,
                app.palette(),
                &view,
                real.lag(),
                run.cores(),
            );
            log
        }
        None => log,
    };
    if log.height > 0 {
        log::render(frame, log, app, snapshot);
    }
}

fn render_too_small(frame: &mut Frame, area: Rect) {
    let text = format!(
        "threadlab needs {MIN_WIDTH}x{MIN_HEIGHT}, now {}x{}",
        area.width, area.height
    );
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(Line::from(text).centered()), middle);
}

/// A rectangle of at most `width` x `height` centred in `area`.
fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

#[cfg(test)]
mod tests;
