//! The `?` overlay, written from the key tables themselves so it cannot drift from what the
//! keys do: first the live keys, then (`?` again) the menus' and tours' keys and the legend
//! of every marker and term on screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keys::{self, Binding};

/// Columns of one entry: the keys right-aligned, then what they do.
const LABEL: usize = 9;
const TEXT: usize = 28;

/// What every marker and term on screen means.
pub const LEGEND: [(&str, &str); 17] = [
    ("█ ░", "busy / idle thread"),
    ("▸", "pool that + - [ ] change"),
    ("✗ !", "failed, timed out"),
    ("~ ·", "partial answer, refused"),
    ("goodput", "answered requests / s"),
    ("p50 p99", "latency of answers"),
    ("*", "compare: most goodput"),
    ("ρ", "bottleneck utilisation"),
    ("L λW", "in flight = rate x time"),
    ("ceiling", "most a pool answers / s"),
    ("≈", "Erlang C approximation"),
    ("late", "answer after client left"),
    ("stacks", "thread stack memory"),
    ("spare", "Tomcat minSpareThreads"),
    ("∞", "unbounded queue"),
    ("+N pools", "more pools: Tab scrolls"),
    ("✓", "tour step already played"),
];

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.palette();
    let sections: [(&str, &[Binding]); 2] = [("Live", keys::LIVE), ("Everywhere", keys::ALWAYS)];
    let mut lines = Vec::new();
    for (title, table) in sections {
        lines.push(Line::styled(format!(" {title}"), p.title));
        lines.extend(table.iter().map(|b| entry(app, b)));
    }
    let title = if app.real().is_some() {
        " Keys · real run: dimmed keys need --engine sim "
    } else {
        " Keys "
    };
    draw(frame, area, app, title, lines);
}

/// The second page: menus and tours, then the legend.
pub fn render_legend(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.palette();
    let sections: [(&str, &[Binding]); 4] = [
        ("Fault menu", keys::FAULT_MENU),
        ("Sweep (g)", keys::SWEEP),
        ("Tour", keys::TOUR),
        ("Tour steps", keys::TOUR_STEPS),
    ];
    let mut lines = Vec::new();
    for (title, table) in sections {
        lines.push(Line::styled(format!(" {title}"), p.title));
        lines.extend(table.iter().map(|b| entry(app, b)));
    }
    lines.push(Line::styled(" Legend", p.title));
    lines.extend(LEGEND.iter().map(|(mark, text)| {
        Line::from(vec![
            Span::styled(format!(" {mark:>LABEL$} "), p.title),
            Span::styled(super::fmt::fit(text, TEXT), p.text),
        ])
    }));
    draw(frame, area, app, " Menus, tours and legend ", lines);
}

/// Two columns, the first one taller by at most a line, in a centred box.
fn draw(frame: &mut Frame, area: Rect, app: &App, title: &str, mut lines: Vec<Line<'static>>) {
    let p = app.palette();
    let right = lines.split_off(lines.len().div_ceil(2));
    let rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let column = u16::try_from(LABEL + TEXT + 2).unwrap_or(u16::MAX);
    // Centred above the status line (one row or two, which stay in view); a row or two left
    // below the box would show a sliver of the panels, so the box takes them.
    let above_status = Rect {
        height: area
            .height
            .saturating_sub(super::status::rows(app, area.width)),
        ..area
    };
    let mut box_area = super::centred(above_status, 2 * column + 2, rows + 2);
    let below = above_status.bottom().saturating_sub(box_area.bottom());
    if below <= 2 {
        box_area.height += below;
    }
    let block = Block::bordered()
        .title(Line::styled(title.to_string(), p.title))
        .title_bottom(Line::styled(" ? more · Esc closes ", p.dim).right_aligned())
        .border_style(p.title);
    let inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Length(column), Constraint::Length(column)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), left_area);
    frame.render_widget(Paragraph::new(right), right_area);
}

/// One binding; dimmed when this mode refuses what it does.
fn entry(app: &App, binding: &Binding) -> Line<'static> {
    let p = app.palette();
    let refused = binding
        .keys
        .first()
        .and_then(|&k| binding.action(k))
        .is_some_and(|a| app.refusal(a).is_some());
    let (label, text) = if refused {
        (p.dim, p.dim)
    } else {
        (p.title, p.text)
    };
    Line::from(vec![
        Span::styled(format!(" {:>LABEL$} ", app.key_label(binding)), label),
        Span::styled(super::fmt::fit(binding.help, TEXT), text),
    ])
}
