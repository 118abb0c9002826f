//! Latency over time: the slowest response of each 100 ms sample as a sparkline (the title
//! says how many seconds of them the panel's width shows, and the largest), a marker row under
//! it so failures and fallbacks stay visible even without colour (✗ failed, ! timeout,
//! ~ partial, · refused; with a garbage collector, G where a pause fell and nothing worse
//! happened), and the rolling window's p50/p90/p99, named with its length.

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
    let room = usize::from(area.width.saturating_sub(2));
    let series = &snapshot.series;
    // The bars: the slowest answer of each sample, as many samples as the panel is wide.
    let width = usize::from(area.width.saturating_sub(2));
    let skip = series.latency_max.len().saturating_sub(width);
    let shown = &series.latency_max[skip..];
    let span = series.interval.as_secs_f64() * shown.len() as f64;
    let top = shown.iter().copied().fold(0.0_f64, f64::max);
    let max = if top > 0.0 {
        format!(" max {} ms ", fmt::ms(top))
    } else {
        String::new()
    };
    // The title leaves room for the max on the same border line.
    let title = fit(
        room.saturating_sub(max.chars().count()),
        &[
            format!(
                " Latency: slowest per {} ms, last {} ",
                fmt::ms(series.interval.as_millis_f64()),
                seconds(span)
            ),
            format!(" Latency, last {} ", seconds(span)),
        ],
    );
    // Percentiles of answered requests in the rolling window, which it names.
    let window = snapshot.window_len;
    let percentiles = if w.count > 0 {
        fit(
            room,
            &[
                format!(
                    " last {window}: p50 {} · p90 {} · p99 {} ms ",
                    fmt::ms(w.p50),
                    fmt::ms(w.p90),
                    fmt::ms(w.p99)
                ),
                format!(
                    " {window}: p50 {} p90 {} p99 {} ms ",
                    fmt::ms(w.p50),
                    fmt::ms(w.p90),
                    fmt::ms(w.p99)
                ),
            ],
        )
    } else if snapshot.latency.count > 0 {
        fit(
            room,
            &[
                format!(
                    " no answer in the last {window} · {} answered in all ",
                    snapshot.latency.count
                ),
                format!(
                    " none in the last {window} · {} in all ",
                    snapshot.latency.count
                ),
            ],
        )
    } else {
        " no answer yet ".to_string()
    };
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .title(Line::styled(max, p.dim).right_aligned())
        .title_bottom(Line::styled(percentiles, p.text))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let [chart, markers] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
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

/// The first of `texts` that fits in `room` columns (the last one if none does).
fn fit(room: usize, texts: &[String]) -> String {
    texts
        .iter()
        .find(|t| t.chars().count() <= room)
        .or(texts.last())
        .cloned()
        .unwrap_or_default()
}

/// A span of simulated time for a title: `5.8s`, `10s`.
fn seconds(s: f64) -> String {
    let text = format!("{s:.1}");
    format!("{}s", text.trim_end_matches(".0"))
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
    let paused = paused_samples(snapshot);
    let spans: Vec<Span> = (skip..snapshot.series.latency_max.len())
        .map(|i| match worst(snapshot, i) {
            Some(o) => Span::styled(marker(o), p.outcome(o)),
            None if paused.get(i).copied().unwrap_or(false) => Span::styled("G", p.queue),
            None => Span::styled(" ", Style::new()),
        })
        .collect();
    Line::from(spans)
}

/// Which samples of the series a pause of the garbage collector fell in (none without one).
/// The series' last sample is the interval open now.
fn paused_samples(snapshot: &Snapshot) -> Vec<bool> {
    let series = &snapshot.series;
    let len = series.latency_max.len();
    let mut paused = vec![false; len];
    let (Some(gc), Some(last)) = (&snapshot.gc, len.checked_sub(1)) else {
        return paused;
    };
    let step = series.interval.as_nanos().max(1);
    let open = snapshot.now.as_nanos() / step;
    for &(start, length) in &gc.recent {
        let end = start.as_nanos() + length.as_nanos().saturating_sub(1);
        for k in start.as_nanos() / step..=end / step {
            // Sample `last` is interval `open`; older ones count back from it.
            if let Some(back) = open.checked_sub(k)
                && let Some(i) = usize::try_from(back).ok().and_then(|b| last.checked_sub(b))
            {
                paused[i] = true;
            }
        }
    }
    paused
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
