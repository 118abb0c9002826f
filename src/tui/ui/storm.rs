//! The retry storm's defining picture, in the Resilience panel beside goodput a second: the
//! attempts the clients send each second, new requests at the bottom and retries on top,
//! against the server's capacity (theory's ceiling) as a line. Before a spike the bars sit
//! under the line, all new requests; after it the new requests are back under the line but
//! the retries pile on top, several times the capacity, and the server never catches up.
//!
//! ```text
//! attempts a second: new ▇ + retries ▇, capacity ─ 100/s, most 1017
//!               ▆██▇▇▆▅▅▅▅▅▅▅▅▅▅▅▅▅
//! ──────────▃▅█████████████████████
//! ▂▂▂▂▂▂▂▂▂▂███████████████████████
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::metrics::Outcome;
use crate::sim::Snapshot;
use crate::tui::theme::Palette;

use super::bars::StackedBars;
use super::fmt;

/// New requests and retries in each whole second (the second under way is left out: it is
/// not over), as many as `width` columns hold, the latest at the right; and the first
/// second shown.
pub fn attempts(snapshot: &Snapshot, width: usize) -> (Vec<(u64, u64)>, usize) {
    let whole = usize::try_from(snapshot.now.as_nanos() / 1_000_000_000).unwrap_or(usize::MAX);
    let seconds = whole
        .min(snapshot.new_timeline.len())
        .min(snapshot.retry_timeline.len());
    let first = seconds.saturating_sub(width);
    let data = (first..seconds)
        .map(|s| {
            (
                u64::from(snapshot.new_timeline[s]),
                u64::from(snapshot.retry_timeline[s]),
            )
        })
        .collect();
    (data, first)
}

/// The chart: its caption on the first row, the bars below. With a capacity, each row of
/// bars is that many attempts a second (the first row's top is the line), so whatever stands
/// above the first row is more than the server can serve; taller bars are cut at the top and
/// the caption gives the most.
pub fn render(
    frame: &mut Frame,
    area: Rect,
    snapshot: &Snapshot,
    capacity: Option<f64>,
    p: &Palette,
) {
    if area.height == 0 {
        return;
    }
    let (data, first) = attempts(snapshot, usize::from(area.width));
    let most = data.iter().map(|(n, r)| n + r).max().unwrap_or(0);
    let capacity = capacity.filter(|c| c.is_finite() && *c >= 1.0);
    let rows = u64::from(area.height.saturating_sub(1).max(1));
    let top = capacity.map_or(most.max(1), |c| (c * rows as f64).round() as u64);
    let retries = p.outcome(Outcome::Timeout);
    let legend = |long: bool| {
        let mut spans = vec![
            Span::styled(
                if long {
                    " attempts a second: new "
                } else {
                    " attempts/s: new "
                },
                p.dim,
            ),
            Span::styled("▇", p.queue),
            Span::styled(" + retries ", p.dim),
            Span::styled("▇", retries),
        ];
        if let Some(c) = capacity {
            spans.push(Span::styled(if long { ", capacity " } else { ", " }, p.dim));
            spans.push(Span::styled("▁", p.text));
            spans.push(Span::styled(format!(" {} a row", fmt::rate(c)), p.dim));
        }
        if !data.is_empty() {
            let span = if long {
                format!(", t {first}-{} s", first + data.len())
            } else {
                String::new()
            };
            spans.push(Span::styled(format!("{span}, most {most}"), p.dim));
        }
        Line::from(spans)
    };
    let width = usize::from(area.width);
    let caption = [legend(true), legend(false), short(capacity, p)]
        .into_iter()
        .find(|l| l.width() <= width)
        .unwrap_or_else(|| short(capacity, p));
    let [caption_area, bars] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(caption), caption_area);
    frame.render_widget(
        StackedBars {
            data: &data,
            max: top,
            bottom: p.queue,
            top: retries,
            line: capacity.map(|c| (c.round() as u64, p.text)),
        },
        bars,
    );
}

/// The narrowest caption: the colours and the line, without words around them.
fn short(capacity: Option<f64>, p: &Palette) -> Line<'static> {
    let mut spans = vec![
        Span::styled(" new ", p.dim),
        Span::styled("▇", p.queue),
        Span::styled(" + retries ", p.dim),
        Span::styled("▇", p.outcome(Outcome::Timeout)),
        Span::styled(" a second", p.dim),
    ];
    if let Some(c) = capacity {
        spans.push(Span::styled(", ", p.dim));
        spans.push(Span::styled("▁", p.text));
        spans.push(Span::styled(format!(" {} a row", fmt::rate(c)), p.dim));
    }
    Line::from(spans)
}
