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
    let pinned = usize::from(app.pin().is_some());
    let table_rows = u16::try_from(reports.len() + 4 + pinned).unwrap_or(u16::MAX);
    let [table, charts] =
        Layout::vertical([Constraint::Length(table_rows), Constraint::Min(0)]).areas(area);
    render_table(frame, table, app, engines, &reports);
    render_charts(frame, charts, app, engines);
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
            "{:<NAME_WIDTH$}{:>9}{:>8}{:>8}{:>10}  baseline at {} (b clears)",
            fmt::fit(&name, NAME_WIDTH),
            fmt::rate(pin.goodput_rps),
            latency(pin.p50_ms),
            latency(pin.p99_ms),
            fmt::rate(pin.failed_rps),
            pin.at
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
    let failed = r.failure_rps.failed + r.failure_rps.timeout + r.failure_rps.refused;
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
    let n = u32::try_from(engines.len().max(1)).unwrap_or(1);
    let rows = Layout::vertical(vec![Constraint::Ratio(1, n); engines.len()]).split(inner);
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
