//! The compare view: every strategy on identical requests (same seed, same scenario), as
//! one table with aligned columns (goodput, answered p50/p99, failures per second, what
//! limits it; the best marked), above their latency charts drawn on one shared scale.
//!
//! ```text
//! ┌ Compare: same requests, every strategy ───────────────────────────────────────┐
//! │   strategy       goodput   p50 ms   p99 ms  failed/s  limited by              │
//! │ * 1 sequential   1.99k/s     1006     1006         0  tomcat pool full         │
//! │   2 shared       69.2/s     28721    28770         0  shared pool full, queue… │
//! │ * best: highest goodput (ties: lower p99) · failed/s = failed+timeout+refused  │
//! ├ Max latency of answers per 100 ms, shared scale 0 to 28770 ms ────────────────┤
//! │ 1 sequential ▂▂▂▂▂▂▂▂▂▂                                                       │
//! │ 2 shared     ▇███████████                                                     │
//! └────────────────────────────────────────────────────────────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline};

use crate::report::{RunReport, best, limited_by};
use crate::sim::Engine;
use crate::tui::app::App;
use crate::tui::theme::Palette;

use super::fmt;

/// Width of the strategy column (`* 1 sequential`).
const NAME_WIDTH: usize = 15;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some(engines) = app.compare_engines() else {
        return;
    };
    let reports: Vec<RunReport> = engines
        .iter()
        .map(|e| RunReport::from_snapshot(app.scenario(), &e.snapshot(), &[], e.prediction()))
        .collect();
    // A pinned baseline takes a row of the table.
    let pinned = usize::from(app.pin().is_some());
    let [table, charts] = areas(area, reports.len() + pinned);
    render_table(frame, table, app, engines, &reports);
    render_charts(frame, charts, app, engines);
}

/// The table (a row per strategy, the header, the note and the borders) and the charts below.
pub(super) fn areas(area: Rect, rows: usize) -> [Rect; 2] {
    let table_rows = u16::try_from(rows + 4).unwrap_or(u16::MAX);
    Layout::vertical([Constraint::Length(table_rows), Constraint::Min(0)]).areas(area)
}

fn render_table(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    engines: &[Engine],
    reports: &[RunReport],
) {
    let p = app.palette();
    let block = Block::bordered()
        .title(Line::styled(
            " Compare: same requests, every strategy ",
            p.title,
        ))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let best = best(reports);
    let limit_width = usize::from(inner.width).saturating_sub(NAME_WIDTH + 38);
    let mut lines = vec![header(p)];
    for (i, (r, engine)) in reports.iter().zip(engines).enumerate() {
        let selected = engine.strategy() == app.source().strategy();
        let mut line = row(app, r, i, best.contains(&i), selected, limit_width);
        if engine.now() < app.now() && !engine.is_finished() {
            line.push_span(Span::styled(" catching up", p.error));
        }
        lines.push(line);
    }
    if let Some(pin) = app.pin() {
        lines.push(pin_row(app, pin));
    }
    let note = if inner.width >= 110 {
        "* best: highest goodput, ties lower p99 · p50/p99 of answered requests · \
         failed/s = failed + timeout + refused"
    } else {
        "* best: highest goodput (ties: lower p99) · p50/p99 of answered requests"
    };
    lines.push(Line::styled(note, p.dim));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pinned baseline (`b`) under the live rows, in the same columns.
fn pin_row(app: &App, pin: &crate::tui::app::Pin) -> Line<'static> {
    let p = app.palette();
    let name = format!("  pin {}", pin.strategy.name());
    let latency = |v: Option<f64>| v.map_or("-".to_string(), fmt::ms);
    Line::styled(
        format!(
            "{:<NAME_WIDTH$}{:>9}{:>8}{:>8}{:>10}  at {} (b clears)",
            fmt::fit(&name, NAME_WIDTH),
            fmt::rate(pin.goodput_rps),
            latency(pin.p50_ms),
            latency(pin.p99_ms),
            fmt::rate(pin.failed_rps),
            fmt::clock(pin.at)
        ),
        p.change,
    )
}

/// The column headings.
fn header(p: &Palette) -> Line<'static> {
    Line::styled(
        format!(
            "  {:<w$}{:>9}{:>8}{:>8}{:>10}  {}",
            "strategy",
            "goodput",
            "p50 ms",
            "p99 ms",
            "failed/s",
            "limited by",
            w = NAME_WIDTH - 2
        ),
        p.dim,
    )
}

/// The `i`th strategy's row: its name (`*` when best), goodput, answered p50 and p99, failures
/// per second and what limits it.
fn row(
    app: &App,
    r: &RunReport,
    i: usize,
    best: bool,
    selected: bool,
    limit_width: usize,
) -> Line<'static> {
    let p = app.palette();
    let failed = r.failure_rps.total();
    let mark = if best { "* " } else { "  " };
    let name = format!("{mark}{} {}", i + 1, r.strategy.name());
    let style = if selected { p.selected } else { p.text };
    let answered = r.latency_ms.count > 0;
    let latency = |v: f64| {
        if answered {
            fmt::ms(v)
        } else {
            "-".to_string()
        }
    };
    Line::from(vec![
        Span::styled(format!("{name:<NAME_WIDTH$}"), style),
        Span::styled(
            format!("{:>9}", fmt::rate(r.goodput_rps)),
            style.add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(
                "{:>8}{:>8}",
                latency(r.latency_ms.p50),
                latency(r.latency_ms.p99)
            ),
            p.text,
        ),
        Span::styled(
            format!("{:>10}", fmt::rate(failed)),
            if failed > 0.0 { p.error } else { p.text },
        ),
        Span::styled(
            format!(
                "  {}",
                fmt::fit(&limited_by(app.scenario(), r), limit_width)
            ),
            p.dim,
        ),
    ])
}

/// One lane per strategy, all of the same height (rows left over stay empty at the bottom):
/// a bar's height is its latency only if every lane has as many rows.
fn lanes(area: Rect, n: usize) -> Vec<Rect> {
    let height = u16::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .map_or(0, |n| area.height / n);
    (0..n)
        .map(|i| {
            let top = u16::try_from(i).map_or(u16::MAX, |i| i.saturating_mul(height));
            Rect {
                y: area.y.saturating_add(top),
                height,
                ..area
            }
        })
        .collect()
}

/// Every strategy's latency series on one scale, so equal heights mean equal latencies.
fn render_charts(frame: &mut Frame, area: Rect, app: &App, engines: &[Engine]) {
    let p = app.palette();
    let series: Vec<Vec<f64>> = engines
        .iter()
        .map(|e| e.snapshot().series.latency_max)
        .collect();
    let top = series.iter().flatten().fold(0.0_f64, |m, v| m.max(*v));
    let interval = engines
        .first()
        .map_or(0.0, |e| e.snapshot().series.interval.as_millis_f64());
    let block = Block::bordered()
        .title(Line::styled(
            format!(
                " Slowest answer per {} ms · one scale for all: bar top = {} ms ",
                fmt::ms(interval),
                fmt::ms(top)
            ),
            p.title,
        ))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = lanes(inner, engines.len());
    let max = top.ceil().max(1.0) as u64;
    for (i, ((engine, data), row)) in engines.iter().zip(&series).zip(rows.iter()).enumerate() {
        let [label, chart] = Layout::horizontal([
            Constraint::Length(u16::try_from(NAME_WIDTH).unwrap_or(15)),
            Constraint::Min(0),
        ])
        .areas(*row);
        let name = format!("  {} {}", i + 1, engine.strategy().name());
        frame.render_widget(Paragraph::new(Line::styled(name, p.text)), label);
        let width = usize::from(chart.width);
        let skip = data.len().saturating_sub(width);
        let points: Vec<u64> = data[skip..].iter().map(|v| v.round() as u64).collect();
        frame.render_widget(
            Sparkline::default().data(&points).max(max).style(p.busy),
            chart,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_lane_has_the_same_height() {
        // 26 rows for 5 strategies: 5 each (one spare row), never one lane of 6.
        let lanes = lanes(Rect::new(1, 12, 118, 26), 5);
        assert_eq!(lanes.len(), 5);
        assert!(lanes.iter().all(|r| r.height == 5), "{lanes:?}");
        assert_eq!(lanes[4].y, 12 + 20);
    }
}
