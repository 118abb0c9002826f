//! Latency over time: the slowest response of each 100 ms sample as a sparkline, a marker row
//! under it so failures and fallbacks stay visible even without colour (✗ failed, ! timeout,
//! ~ partial, · refused), and the window's p50/p90/p99.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline, SparklineBar};

use crate::metrics::Outcome;
use crate::sim::Snapshot;
use crate::tui::app::App;
use crate::tui::theme::Palette;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let w = &snapshot.window;
    // Percentiles of answered requests; before the first answer there is nothing to show.
    let (percentiles, max) = if w.count == 0 {
        (
            " no answer yet ".to_string(),
            " waiting for data ".to_string(),
        )
    } else {
        (
            format!(
                " p50 {} · p90 {} · p99 {} ms ",
                fmt::ms(w.p50),
                fmt::ms(w.p90),
                fmt::ms(w.p99)
            ),
            format!(" max {} ms ", fmt::ms(w.max)),
        )
    };
    let block = Block::bordered()
        .title(Line::styled(
            format!(" Latency, last {} ", snapshot.window_len),
            p.title,
        ))
        .title(Line::styled(max, p.dim).right_aligned())
        .title_bottom(Line::styled(percentiles, p.text))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let [chart, markers] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let width = usize::from(inner.width);
    let series = &snapshot.series;
    let skip = series.latency_max.len().saturating_sub(width);
    let bars: Vec<SparklineBar> = series
        .latency_max
        .iter()
        .enumerate()
        .skip(skip)
        .map(|(i, &v)| {
            let bar = SparklineBar::from(v.round() as u64);
            match worst(snapshot, i) {
                Some(o) => bar.style(p.outcome(o)),
                None => bar,
            }
        })
        .collect();
    frame.render_widget(Sparkline::default().data(bars).style(p.busy), chart);
    frame.render_widget(Paragraph::new(marker_line(p, snapshot, skip)), markers);
}

/// The worst outcome other than success in sample `i`, if any.
fn worst(snapshot: &Snapshot, i: usize) -> Option<Outcome> {
    let series = &snapshot.series;
    let has = |s: &Vec<f64>| s.get(i).is_some_and(|&v| v > 0.0);
    if has(&series.failed) {
        Some(Outcome::Failed)
    } else if has(&series.timeout) {
        Some(Outcome::Timeout)
    } else if has(&series.partial) {
        Some(Outcome::Partial)
    } else if has(&series.refused) {
        Some(Outcome::Refused)
    } else {
        None
    }
}

fn marker_line(p: &Palette, snapshot: &Snapshot, skip: usize) -> Line<'static> {
    let spans: Vec<Span> = (skip..snapshot.series.latency_max.len())
        .map(|i| match worst(snapshot, i) {
            Some(o) => Span::styled(marker(o), p.outcome(o)),
            None => Span::styled(" ", Style::new()),
        })
        .collect();
    Line::from(spans)
}

fn marker(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Failed => "✗",
        Outcome::Timeout => "!",
        Outcome::Partial => "~",
        Outcome::Refused => "·",
        Outcome::Success => " ",
    }
}
