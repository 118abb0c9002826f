//! The tour's caption, drawn while it waits for the speaker: at the bottom of the screen,
//! or at the top when the step talks about a panel down there (the log, the theory row), so
//! the caption never covers what it is about.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::scenario::TourPanel;
use crate::tui::app::App;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some((step, steps, text)) = app.tour().and_then(|t| t.caption()) else {
        return;
    };
    let p = app.palette();
    let width = area.width.saturating_sub(4).min(100);
    // Wrapped caption lines, plus the border.
    let lines = u16::try_from(text.chars().count() / usize::from(width.saturating_sub(4).max(1)))
        .unwrap_or(u16::MAX)
        + 1;
    let height = (lines + 2).min(area.height.saturating_sub(2)).max(3);
    let panel = app
        .tour()
        .and_then(|t| t.shown_step())
        .map_or(TourPanel::Pools, |s| s.panel);
    // Below the two header rows, or above the status line.
    let y = if panel.is_low() {
        area.y + 2
    } else {
        area.y + area.height.saturating_sub(height + 1)
    };
    let caption = Rect {
        x: area.x + (area.width - width) / 2,
        y,
        width,
        height,
    };
    let block = Block::bordered()
        .title(Line::styled(format!(" Tour {step}/{steps} "), p.title))
        .title_bottom(
            Line::styled(" space/→ on · ← back · l steps · q quit ", p.dim).right_aligned(),
        )
        .border_style(p.title);
    frame.render_widget(Clear, caption);
    frame.render_widget(
        Paragraph::new(Line::styled(text.to_string(), p.text))
            .wrap(Wrap { trim: true })
            .block(block),
        caption,
    );
}
