//! The `f` overlay: choose a service (with its current fault), then set the fault for it:
//! its kind, how strong, how long (in simulated time, or until healed), and apply. The
//! list's last line doubles the load for a while instead (`←→` its duration, Enter applies).
//!
//! ```text
//! ┌ Fault for recommendations ─────────────────┐
//! │ 1 kind    ◂ fail                          ▸│
//! │ 2 effect  ◂ 50 % of calls fail            ▸│
//! │ 3 lasts   ◂ until healed                  ▸│
//! │ 4 apply: failing 50% until healed          │
//! │ now: healthy                               │
//! │ applies to the running engine              │
//! └──── ↑↓ line · ←→ value · Enter apply · Esc ┘
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::sim::Snapshot;
use crate::tui::app::{App, FaultMenu};
use crate::tui::fault_form::FormLine;

use super::fmt;

pub const WIDTH: u16 = 46;
const INNER: usize = WIDTH as usize - 2;
/// Inside the box, the columns of a value line's `◂` and `▸`.
pub const LESS_COLUMN: u16 = 10;
pub const MORE_COLUMN: u16 = WIDTH - 3;
/// Columns a value takes between its arrows.
const VALUE: usize = INNER - 14;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot, menu: FaultMenu) {
    let p = app.palette();
    let name = |i: usize| snapshot.services.get(i).map_or("?", |s| s.name.as_str());
    let (title, items): (String, Vec<String>) = match menu.service {
        None => (
            " Fault: which service? ".to_string(),
            (0..snapshot.services.len())
                .map(|i| {
                    let state = app
                        .fault_text(snapshot, i)
                        .unwrap_or_else(|| "healthy".to_string());
                    fmt::fit(&format!(" {} {:<24} {state}", i + 1, name(i)), INNER)
                })
                .chain(std::iter::once(double_line(
                    snapshot.services.len() + 1,
                    &menu,
                )))
                .collect(),
        ),
        Some(i) => (
            // A long name is cut to the box (fit pads, so the border's line goes on after it).
            format!(
                " {} ",
                fmt::fit(&format!("Fault for {}", name(i)), INNER - 2).trim_end()
            ),
            FormLine::LINES
                .iter()
                .enumerate()
                .map(|(n, &line)| form_line(n + 1, line, &menu))
                .collect(),
        ),
    };
    let mut lines: Vec<Line> = items
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let style = if i == menu.cursor { p.selected } else { p.text };
            Line::styled(text, style)
        })
        .collect();
    if let Some(i) = menu.service {
        let now = app
            .fault_text(snapshot, i)
            .unwrap_or_else(|| "healthy".to_string());
        lines.push(Line::styled(
            fmt::fit(&format!(" now: {now}"), INNER),
            p.dim,
        ));
    }
    let scope = if app.compare_engines().is_some() {
        "applies to all five engines"
    } else {
        "applies to the running engine"
    };
    lines.push(Line::styled(format!(" {scope}"), p.dim));
    let box_area = super::centred(area, WIDTH, rows(menu, snapshot.services.len()));
    let keys = if menu.service.is_some() {
        " ↑↓ line · ←→ value · Enter apply · Esc "
    } else {
        " Enter choose · 1-9 · Esc back "
    };
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .title_bottom(Line::styled(keys, p.dim).right_aligned())
        .border_style(p.title);
    frame.render_widget(Clear, box_area);
    frame.render_widget(Paragraph::new(lines).block(block), box_area);
}

/// Line `n` of the form: a value between its arrows, or what Enter applies.
fn form_line(n: usize, line: FormLine, menu: &FaultMenu) -> String {
    let value = menu.form.value_text(line);
    let label = match line {
        FormLine::Kind => "kind",
        FormLine::Strength => "effect",
        FormLine::Lasts => "lasts",
        FormLine::Apply => return fmt::fit(&format!(" {n} apply: {value}"), INNER),
    };
    format!(" {n} {label:<7}◂ {} ▸", fmt::fit(&value, VALUE))
}

/// The list's last line: double the load, for how long, between the value arrows.
fn double_line(n: usize, menu: &FaultMenu) -> String {
    let lasts = format!("for {}", menu.double.lasts());
    fmt::fit(
        &format!(" {n} double the load ◂ {} ▸", fmt::fit(&lasts, 8)),
        INNER,
    )
}

/// The box's height: its lines (the services or the form's, the form's current fault, the
/// scope) and borders.
pub fn rows(menu: FaultMenu, services: usize) -> u16 {
    let lines = match menu.service {
        // The services, "double the load", the scope.
        None => services + 2,
        Some(_) => FormLine::LINES.len() + 2,
    };
    u16::try_from(lines + 2).unwrap_or(u16::MAX)
}
