//! The `l` overlay during a tour: every step with its time, the ones already played marked,
//! to replay the tour to any of them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::tui::app::App;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, cursor: usize) {
    let Some(tour) = app.tour() else { return };
    let p = app.palette();
    let width = area.width.saturating_sub(8).min(90);
    let text_width = usize::from(width.saturating_sub(2));
    let lines: Vec<Line> = tour
        .steps()
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let played = if i < tour.fired() { "✓" } else { " " };
            let text = format!(
                " {} {played} {:>7}  {}",
                i + 1,
                fmt::clock(step.at),
                step.caption
            );
            let style = if i == cursor { p.selected } else { p.text };
            Line::styled(fmt::fit(&text, text_width), style)
        })
        .collect();
    let rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let box_area = super::centred(area, width, rows + 2);
    let block = Block::bordered()
        .title(Line::styled(" Tour steps ", p.title))
        .title_bottom(
            Line::styled(" Enter or 1-9 replays to the step · Esc closes ", p.dim).right_aligned(),
        )
        .border_style(p.title);
    frame.render_widget(Clear, box_area);
    frame.render_widget(Paragraph::new(lines).block(block), box_area);
}
