//! Two header rows: preset and strategy tabs with the simulated clock; run state, speed,
//! load and seed. A third row, when anything differs from the preset, lists it as badges:
//! active faults and changed settings, so the class always sees what was changed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::scenario::{LoadMode, Strategy};
use crate::sim::Snapshot;
use crate::tui::app::App;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot, badges: &[String]) {
    let p = app.palette();
    let tabs = tabs(area, app, snapshot);
    let clock = format!("t {} ", fmt::clock(app.now()));
    let (state, style) = if app.is_finished() {
        (" FINISHED ", p.finished)
    } else if app.clock().is_paused() {
        (" PAUSED ", p.paused)
    } else {
        (" RUNNING ", p.running)
    };
    let badge = vec![Span::raw(" "), Span::styled(state, style), Span::raw(" ")];
    let room = usize::from(area.width).saturating_sub(state.len() + 2);
    let info: Vec<Span> = badge
        .into_iter()
        .chain(fmt::items(
            info_items(app, snapshot),
            Span::styled(" · ", p.dim),
            room,
        ))
        .collect();

    let [top, bottom] = rows(area);
    frame.render_widget(Paragraph::new(Line::from(tabs)), top);
    frame.render_widget(
        Paragraph::new(Line::styled(clock, p.title).right_aligned()),
        right(top, 14),
    );
    frame.render_widget(Paragraph::new(Line::from(info)), bottom);
    if !badges.is_empty() && area.height > 2 {
        let row = Rect {
            y: area.y + 2,
            height: 1,
            ..area
        };
        frame.render_widget(Paragraph::new(badge_line(app, badges, row.width)), row);
    }
}

/// The preset's name and the strategy tabs.
fn tabs(area: Rect, app: &App, snapshot: &Snapshot) -> Vec<Span<'static>> {
    let p = app.palette();
    let narrow = area.width < NARROW;
    let name = preset_name(app, area.width, narrow);
    let mut tabs = vec![
        Span::styled(format!(" {} ", name.trim_end()), p.title),
        Span::styled("│", p.dim),
    ];
    for (i, s) in Strategy::ALL.iter().enumerate() {
        let style = if *s == snapshot.strategy {
            p.selected
        } else {
            p.text
        };
        tabs.push(Span::styled(
            format!(" {} {} ", i + 1, tab_label(*s, narrow)),
            style,
        ));
    }
    tabs
}

/// The second row after the run state: real or simulated pace, compare, load, seed, counts.
fn info_items(app: &App, snapshot: &Snapshot) -> Vec<Vec<Span<'static>>> {
    let p = app.palette();
    let mut items = match app.real() {
        Some(real) => {
            let mut items = vec![vec![Span::styled(
                format!("REAL time x{}", real.run().options().time_scale),
                p.title,
            )]];
            if let Some(first) = real.lag().first() {
                let more = real.lag().len() - 1;
                let text = if more > 0 {
                    format!("BEHIND: {first} (+{more})")
                } else {
                    format!("BEHIND: {first}")
                };
                items.push(vec![Span::styled(text, p.error)]);
            }
            items
        }
        None => {
            let mut speed = vec![Span::raw(format!("speed {}", app.clock().speed()))];
            if app.is_behind() {
                speed.push(Span::styled(" (behind)", p.error));
            }
            vec![speed]
        }
    };
    if app.compare_engines().is_some() {
        items.push(vec![Span::styled("COMPARE", p.title)]);
    }
    items.extend([
        vec![Span::raw(load(&snapshot.load))],
        vec![Span::raw(format!("seed {}", app.scenario().seed))],
        vec![Span::raw(format!("sent {}", fmt::count(snapshot.sent)))],
        vec![Span::raw(format!(
            "in flight {}",
            fmt::count(snapshot.in_flight)
        ))],
    ]);
    items
}

/// Below this width the two longest strategy names are shortened on their tabs.
const NARROW: u16 = 100;

/// A strategy's tab: its name, or a short form on a narrow screen.
fn tab_label(strategy: Strategy, narrow: bool) -> &'static str {
    match strategy {
        Strategy::Sequential if narrow => "seq",
        Strategy::Semaphore if narrow => "sema",
        s => s.name(),
    }
}

/// ` CHANGED  orders slow x5 · IronThread core 12 · +2`: as many whole badges as fit, then
/// how many more there are.
fn badge_line(app: &App, badges: &[String], width: u16) -> Line<'static> {
    let p = app.palette();
    let mut room = usize::from(width).saturating_sub(11);
    let mut spans = vec![
        Span::raw(" "),
        Span::styled(" CHANGED ", p.paused),
        Span::raw(" "),
    ];
    for (i, badge) in badges.iter().enumerate() {
        let left = badges.len() - i - 1;
        // Keep room for the `+N` of the badges that would not fit after this one.
        let need = badge.chars().count() + 3 + if left > 0 { 5 } else { 0 };
        if need > room {
            spans.push(Span::styled(format!("+{}", badges.len() - i), p.title));
            break;
        }
        room -= badge.chars().count() + 3;
        spans.push(Span::styled(badge.clone(), p.change));
        if left > 0 {
            spans.push(Span::styled(" · ", p.dim));
        }
    }
    Line::from(spans)
}

/// The strategy whose tab is at `column` of the first row (from the same labels and widths
/// as the tabs drawn above).
pub fn tab_at(app: &App, width: u16, column: u16) -> Option<Strategy> {
    let narrow = width < NARROW;
    let mut x = format!(" {} ", preset_name(app, width, narrow).trim_end())
        .chars()
        .count()
        + 1;
    for (i, s) in Strategy::ALL.iter().enumerate() {
        let tab = format!(" {} {} ", i + 1, tab_label(*s, narrow))
            .chars()
            .count();
        if (x..x + tab).contains(&usize::from(column)) {
            return Some(*s);
        }
        x += tab;
    }
    None
}

/// The preset's name, fitted to what the tabs (62 columns, 50 when narrow) and the clock (14)
/// leave.
fn preset_name(app: &App, width: u16, narrow: bool) -> String {
    let tabs_width = if narrow { 50 } else { 62 };
    let name_width = usize::from(width.saturating_sub(tabs_width + 17)).max(8);
    fmt::fit(&app.scenario().name, name_width)
}

/// The load in a few words.
fn load(mode: &LoadMode) -> String {
    match mode {
        LoadMode::Runs { count } => format!("load {count} runs"),
        LoadMode::Batch { count } => format!("load batch of {count}"),
        LoadMode::Open { rate, ramp } => match ramp {
            Some(r) => format!(
                "load open {} -> {}",
                fmt::set_rate(*rate),
                fmt::set_rate(r.to)
            ),
            None => format!("load open {}", fmt::set_rate(*rate)),
        },
        LoadMode::Closed { clients, think } => {
            format!("load {clients} clients, think {think}")
        }
        LoadMode::Trace { rows } => format!("load trace of {}", rows.len()),
    }
}

fn rows(area: Rect) -> [Rect; 2] {
    let row = |i: u16| Rect {
        y: area.y + i.min(area.height.saturating_sub(1)),
        height: 1,
        ..area
    };
    [row(0), row(1)]
}

/// The rightmost `width` columns of a row.
fn right(row: Rect, width: u16) -> Rect {
    let width = width.min(row.width);
    Rect {
        x: row.x + row.width - width,
        width,
        ..row
    }
}
