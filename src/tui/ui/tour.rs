//! The tour's caption, drawn while it waits for the speaker: below the header or above the
//! status line, whichever keeps clear of the panel the step talks about (its `panel`), so the
//! caption never covers what it is about. The text is wrapped here, and the box is as tall as
//! its lines, so no word of a caption is cut off.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::scenario::TourPanel;
use crate::tui::app::App;

/// The widest caption box.
const MAX_WIDTH: u16 = 100;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some((step, steps, _)) = app.tour().and_then(|t| t.caption()) else {
        return;
    };
    let Some((caption, lines)) = layout(app, area) else {
        return;
    };
    let p = app.palette();
    let block = Block::bordered()
        .title(Line::styled(format!(" Tour {step}/{steps} "), p.title))
        .title_bottom(
            Line::styled(" space/→ on · ← back · l steps · q quit ", p.dim).right_aligned(),
        )
        .border_style(p.title);
    let lines: Vec<Line> = lines.into_iter().map(|l| Line::styled(l, p.text)).collect();
    frame.render_widget(Clear, caption);
    frame.render_widget(Paragraph::new(lines).block(block), caption);
}

/// Where the shown caption goes on an `area` screen, with its wrapped lines.
pub(crate) fn layout(app: &App, area: Rect) -> Option<(Rect, Vec<String>)> {
    let tour = app.tour()?;
    let (_, _, text) = tour.caption()?;
    let panel = tour.shown_step().map_or(TourPanel::Pools, |s| s.panel);
    let lines = super::fmt::wrap_words(text, usize::from(box_width(area).saturating_sub(2)));
    let rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    Some((place(app, area, panel, rows.saturating_add(2)), lines))
}

/// The width of a caption's box on an `area` screen: on a screen narrower than the widest box
/// it spans the screen, so no panel's border shows beside it on the rows it covers.
pub(crate) fn box_width(area: Rect) -> u16 {
    if area.width < MAX_WIDTH + 4 {
        area.width
    } else {
        MAX_WIDTH
    }
}

/// Where a box `height` rows tall (borders included, at most the body's) goes on an `area`
/// screen: below the header or above the status line, whichever covers less of `panel`.
pub(crate) fn place(app: &App, area: Rect, panel: TourPanel, height: u16) -> Rect {
    let body = body_area(app, area);
    let width = box_width(area);
    let height = height.min(body.height);
    let x = area.x + (area.width - width) / 2;
    let top = Rect::new(x, body.y, width, height);
    let bottom = Rect::new(x, body.bottom().saturating_sub(height), width, height);
    let covered = panel_area(app, body, panel);
    let overlap = |r: Rect| {
        let i = r.intersection(covered);
        u32::from(i.width) * u32::from(i.height)
    };
    // A low panel (log, theory) prefers the top; either way, the place that covers less of it.
    let (first, second) = if panel.is_low() {
        (top, bottom)
    } else {
        (bottom, top)
    };
    if overlap(second) < overlap(first) {
        second
    } else {
        first
    }
}

/// The screen between the header (with its badges) and the status line.
pub(crate) fn body_area(app: &App, area: Rect) -> Rect {
    let badges = !app.badges(&app.snapshot()).is_empty();
    let [_, body, _] = super::screen_areas(area, app, badges);
    body
}

/// Where the panel a caption talks about is drawn: in the compare view its table, in the
/// timeline its lanes (the whole body), else the live view's panel.
pub(crate) fn panel_area(app: &App, body: Rect, panel: TourPanel) -> Rect {
    if let Some(runs) = app.compare_runs() {
        let [table, _] = super::compare::areas(body, runs.rows.len());
        return table;
    }
    if app.timeline_lane().is_some() {
        return body;
    }
    let live = super::live_areas(app, body);
    match panel {
        TourPanel::Pools => live.pools,
        TourPanel::Outcomes => live.outcomes,
        TourPanel::Latency => live.latency,
        TourPanel::Theory => live.theory,
        TourPanel::Resilience => live.resilience,
        TourPanel::Log => live.log,
        TourPanel::Compare => body,
    }
}
