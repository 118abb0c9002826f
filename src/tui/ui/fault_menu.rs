//! The `f` overlay: choose a service (with its current fault), then a fault for it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::sim::Snapshot;
use crate::tui::app::{App, FAULTS, FaultMenu};

use super::fmt;

pub const WIDTH: u16 = 46;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot, menu: FaultMenu) {
    let p = app.palette();
    let (title, items): (String, Vec<String>) = match menu.service {
        None => (
            " Fault: which service? ".to_string(),
            snapshot
                .services
                .iter()
                .map(|s| {
                    let state = s
                        .fault
                        .map_or_else(|| "healthy".to_string(), |f| f.to_string());
                    format!("{:<24} {state}", s.name)
                })
                .collect(),
        ),
        Some(i) => (
            format!(
                " Fault for {} ",
                snapshot.services.get(i).map_or("?", |s| s.name.as_str())
            ),
            FAULTS.iter().map(|(name, _)| (*name).to_string()).collect(),
        ),
    };
    let inner_width = usize::from(WIDTH - 2);
    let mut lines: Vec<Line> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let text = fmt::fit(&format!(" {} {item}", i + 1), inner_width);
            let style = if i == menu.cursor { p.selected } else { p.text };
            Line::styled(text, style)
        })
        .collect();
    let scope = if app.compare_engines().is_some() {
        "applies to all five engines"
    } else {
        "applies to the running engine"
    };
    lines.push(Line::styled(format!(" {scope}"), p.dim));
    let rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let box_area = super::centred(area, WIDTH, rows + 2);
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .title_bottom(Line::styled(" Enter choose · 1-9 · Esc back ", p.dim).right_aligned())
        .border_style(p.title);
    frame.render_widget(Clear, box_area);
    frame.render_widget(Paragraph::new(lines).block(block), box_area);
}
