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
    // Tabs take 49 columns and the clock 14: the preset name gets the rest.
    let name_width = usize::from(area.width.saturating_sub(66)).max(8);
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
        tabs.push(Span::styled(format!(" {} {} ", i + 1, s.name()), style));
    }
    let clock = format!("t {} ", fmt::clock(app.now()));

    let (state, style) = if app.is_finished() {
        (" FINISHED ", p.finished)
    } else if app.clock().is_paused() {
        (" PAUSED ", p.paused)
    } else {
        (" RUNNING ", p.running)
    };
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
    let badge = vec![Span::raw(" "), Span::styled(state, style), Span::raw(" ")];
    let room = usize::from(area.width).saturating_sub(state.len() + 2);
    let info: Vec<Span> = badge
        .into_iter()
        .chain(fmt::items(items, Span::styled(" · ", p.dim), room))
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

/// The strategy whose tab is at `column` of the first row (the same arithmetic as the
/// tabs drawn above: the preset's name, a bar, then ` N name ` per strategy).
pub fn tab_at(app: &App, width: u16, column: u16) -> Option<Strategy> {
    let name_width = usize::from(width.saturating_sub(66)).max(8);
    let name = fmt::fit(&app.scenario().name, name_width);
    let mut x = format!(" {} ", name.trim_end()).chars().count() + 1;
    for (i, s) in Strategy::ALL.iter().enumerate() {
        let tab = format!(" {} {} ", i + 1, s.name()).chars().count();
        if (x..x + tab).contains(&usize::from(column)) {
            return Some(*s);
        }
        x += tab;
    }
    None
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
