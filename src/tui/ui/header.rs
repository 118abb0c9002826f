//! Two header rows: preset and strategy tabs with the simulated clock; run state, speed,
//! load and seed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::scenario::{LoadMode, Strategy};
use crate::sim::Snapshot;
use crate::tui::app::App;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
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
}

/// The preset's name and the strategy tabs.
fn tabs(area: Rect, app: &App, snapshot: &Snapshot) -> Vec<Span<'static>> {
    let p = app.palette();
    // Tabs take 62 columns (50 when narrow) and the clock 14: the preset name gets the rest.
    let narrow = area.width < NARROW;
    let tabs_width = if narrow { 50 } else { 62 };
    let name_width = usize::from(area.width.saturating_sub(tabs_width + 17)).max(8);
    let name = fmt::fit(&app.scenario().name, name_width);
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

/// The load in a few words.
fn load(mode: &LoadMode) -> String {
    match mode {
        LoadMode::Runs { count } => format!("load {count} runs"),
        LoadMode::Batch { count } => format!("load batch of {count}"),
        LoadMode::Open { rate, ramp } => match ramp {
            Some(r) => format!("load open {} -> {}", fmt::rate(*rate), fmt::rate(r.to)),
            None => format!("load open {}", fmt::rate(*rate)),
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
