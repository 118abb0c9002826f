//! The compare view: identical requests (same seed, same scenario) on every strategy (`c`),
//! or on the strategy on screen with and without a pattern (`C`: the run as it is now and
//! each variant of it), as one table with aligned columns (goodput, answered p50/p99,
//! failures per second, what limits it; the best marked), above their latency charts drawn
//! on one shared scale. The two views share this code: only a row's label differs (the
//! strategy, or the variant's overrides).
//!
//! ```text
//! ┌ Compare: same requests, every strategy ───────────────────────────────────────┐
//! │   strategy       goodput   p50 ms   p99 ms  failed/s  limited by              │
//! │ * 1 sequential   1.99k/s     1006     1006         0  tomcat pool full         │
//! │   2 shared       69.2/s     28721    28770         0  shared pool full, queue… │
//! │ * best: highest goodput (ties: lower p99, mean) · p50/p99 of answered          │
//! ├ Max latency of answers per 100 ms, shared scale 0 to 28770 ms ────────────────┤
//! │ 1 sequential ▂▂▂▂▂▂▂▂▂▂                                                       │
//! │ 2 shared     ▇███████████                                                     │
//! └────────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The variants (`C`) label their rows by their overrides, in a column as wide as the
//! longest label leaves room for, and add goodput a second above the latency when the body
//! has a row per lane for both charts (alone when one fits):
//!
//! ```text
//! ┌ Compare: same requests, with and without a pattern ──────────────────────────┐
//! │  variant (sequential)        goodput  p50 ms  p99 ms  failed/s  limited by   │
//! │  as now                       52.1/s     123     819    50.4/s  client…      │
//! │  server.queue_timeout=500ms   93.1/s     156    1588    17.8/s  tomcat…      │
//! ├ Goodput a second · one scale for all: bar top = 100/s ───────────────────────┤
//! │  as now                      ▇▇▇▇▇▇▇▇▇▇▇▇▇▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁                 │
//! │  server.queue_timeout=500…   ▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇                 │
//! ├ Slowest answer per 100 ms · one scale for all: bar top = 4609 ms ────────────┤
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline};

use crate::report::{RunReport, best_as, limited_by};
use crate::sim::Engine;
use crate::tui::app::App;
use crate::tui::compare_runs::{CompareRow, CompareRuns, ComparedBy};

use super::compare_columns::{TableColumns, columns, extras_width};
use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some(runs) = app.compare_runs() else {
        return;
    };
    // A pinned baseline takes a row of the table.
    let pinned = usize::from(app.pin().is_some());
    let [table, charts] = areas(area, runs.rows.len() + pinned);
    let inner = usize::from(table.width.saturating_sub(2));
    let reports = reports(app, runs);
    let columns = columns(runs, &reports, inner);
    render_table(frame, table, app, runs, &columns, &reports);
    render_charts(frame, charts, app, runs, columns.label);
}

/// Every row's report (the rows that ran), by row index.
fn reports(app: &App, runs: &CompareRuns) -> Vec<(usize, RunReport)> {
    runs.rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let e = r.engine()?;
            let report =
                RunReport::from_snapshot(app.scenario(), &e.snapshot(), &[], e.prediction());
            Some((i, report))
        })
        .collect()
}

/// The table (a row per run, the header, the note and the borders) and the charts below.
pub(super) fn areas(area: Rect, rows: usize) -> [Rect; 2] {
    let table_rows = u16::try_from(rows + 4).unwrap_or(u16::MAX);
    Layout::vertical([Constraint::Length(table_rows), Constraint::Min(0)]).areas(area)
}

/// Row `i`'s label: `1 sequential` for a strategy; for a variant, the name its figure gives
/// the pattern, else its overrides.
fn label(runs: &CompareRuns, i: usize, row: &CompareRow) -> String {
    match runs.compared {
        ComparedBy::Strategies => format!("{} {}", i + 1, row.label),
        ComparedBy::Variants => row.shown().to_string(),
    }
}

fn render_table(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    runs: &CompareRuns,
    columns: &TableColumns,
    reports: &[(usize, RunReport)],
) {
    let width = columns.label;
    let p = app.palette();
    let title = match runs.compared {
        ComparedBy::Strategies => " Compare: same requests, every strategy ",
        ComparedBy::Variants => " Compare: same requests, with and without a pattern ",
    };
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The best by the same rule as `compare` (report::best), among the rows that ran, with
    // the figures compared as this view writes them.
    let plain: Vec<RunReport> = reports.iter().map(|(_, r)| r.clone()).collect();
    let best: Vec<usize> = best_as(&plain, &fmt::SHOWN)
        .into_iter()
        .map(|k| reports[k].0)
        .collect();
    let mut lines = vec![header(app, runs, columns)];
    for (i, row) in runs.rows.iter().enumerate() {
        let name = label(runs, i, row);
        let report = reports.iter().find(|(k, _)| *k == i).map(|(_, r)| r);
        let line = match (&row.run, report) {
            (Ok(engine), Some(r)) => {
                let selected = match runs.compared {
                    ComparedBy::Strategies => engine.strategy() == app.source().strategy(),
                    ComparedBy::Variants => i == 0,
                };
                let look = RowLook {
                    name: &name,
                    best: best.contains(&i),
                    selected,
                    columns,
                };
                let mut line = figures_row(app, r, &look);
                if engine.now() < app.now() && !engine.is_finished() {
                    line.push_span(Span::styled(" catching up", p.error));
                }
                line
            }
            _ => {
                let error = row.error_line().unwrap_or_default();
                let room = usize::from(inner.width).saturating_sub(width);
                Line::from(vec![
                    Span::styled(format!("  {}", fmt::cut(&name, width - 2)), p.text),
                    Span::styled(fmt::fit(&error, room), p.error),
                ])
            }
        };
        lines.push(line);
    }
    if let Some(pin) = app.pin() {
        lines.push(pin_row(app, pin, columns));
    }
    let note = if !columns.p50 {
        "* best: highest goodput (ties: lower p99, mean) · p99 of answered"
    } else if inner.width >= 110 {
        "* best: highest goodput, ties lower p99 then mean · p50/p99 of answered requests · \
         failed/s = failed + timeout + refused"
    } else {
        "* best: highest goodput (ties: lower p99, mean) · p50/p99 of answered"
    };
    lines.push(Line::styled(note, p.dim));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pinned baseline (`b`) under the live rows, in the same columns (blank in the extra
/// ones, which it has no figures for).
fn pin_row(app: &App, pin: &crate::tui::app::Pin, c: &TableColumns) -> Line<'static> {
    let p = app.palette();
    let name = format!("  pin {}", pin.strategy.name());
    let latency = |v: Option<f64>| v.map_or("-".to_string(), fmt::ms);
    let p50 = if c.p50 {
        format!("{:>8}", latency(pin.p50_ms))
    } else {
        String::new()
    };
    Line::styled(
        format!(
            "{}{:>9}{p50}{:>8}{:>10}{:extras$}  at {} (b clears)",
            fmt::fit(&name, c.label),
            fmt::rate(pin.goodput_rps),
            latency(pin.p99_ms),
            fmt::rate(pin.failed_rps),
            "",
            fmt::clock(pin.at),
            extras = extras_width(&c.extras),
        ),
        p.change,
    )
}

/// The column headings; the variants' first one names the strategy they all run.
fn header(app: &App, runs: &CompareRuns, c: &TableColumns) -> Line<'static> {
    let first = match runs.compared {
        ComparedBy::Strategies => "strategy".to_string(),
        ComparedBy::Variants => {
            let strategy = runs
                .engines()
                .next()
                .map_or(app.source().strategy(), Engine::strategy);
            format!("variant ({})", strategy.name())
        }
    };
    let extra: String = c
        .extras
        .iter()
        .map(|e| format!("{:>w$}", e.heading(), w = e.width()))
        .collect();
    let p50 = if c.p50 { "  p50 ms" } else { "" };
    let limit = if c.limit > 0 { "  limited by" } else { "" };
    Line::styled(
        format!(
            "  {}{:>9}{p50}{:>8}{:>10}{extra}{limit}",
            fmt::fit(&first, c.label - 2),
            "goodput",
            "p99 ms",
            "failed/s",
        ),
        app.palette().dim,
    )
}

/// How a row's label column is drawn.
struct RowLook<'a> {
    name: &'a str,
    best: bool,
    selected: bool,
    columns: &'a TableColumns,
}

/// A run's row: its label (`*` when best), goodput, answered p50 and p99, failures per
/// second and what limits it.
fn figures_row(app: &App, r: &RunReport, c: &RowLook) -> Line<'static> {
    let p = app.palette();
    let failed = r.failure_rps.total();
    let mark = if c.best { "* " } else { "  " };
    let style = if c.selected { p.selected } else { p.text };
    let answered = r.latency_ms.count > 0;
    let latency = |v: f64| {
        if answered {
            fmt::ms(v)
        } else {
            "-".to_string()
        }
    };
    let columns = c.columns;
    let extra: String = columns
        .extras
        .iter()
        .map(|e| format!("{:>w$}", e.cell(r), w = e.width()))
        .collect();
    let p50 = if columns.p50 {
        format!("{:>8}", latency(r.latency_ms.p50))
    } else {
        String::new()
    };
    let mut line = Line::from(vec![
        Span::styled(
            format!("{mark}{}", fmt::cut(c.name, columns.label - 2)),
            style,
        ),
        Span::styled(
            format!("{:>9}", fmt::rate(r.goodput_rps)),
            style.add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!("{p50}{:>8}", latency(r.latency_ms.p99)), p.text),
        Span::styled(
            format!("{:>10}", fmt::rate(failed)),
            if failed > 0.0 { p.error } else { p.text },
        ),
        Span::styled(extra, p.text),
    ]);
    if columns.limit > 0 {
        line.push_span(Span::styled(
            format!(
                "  {}",
                limit_cell(&limited_by(app.scenario(), r), columns.limit)
            ),
            p.dim,
        ));
    }
    line
}

/// What limits a run, in `width` columns: cut between words, unless that keeps less than
/// half the column (`timeouts:…` for `timeouts: recommendations hangs`), then where the
/// column ends, which says more (`timeouts: recommendation…`).
fn limit_cell(text: &str, width: usize) -> String {
    let words = fmt::fit(text, width);
    if fmt::columns(words.trim_end()) * 2 < width {
        fmt::cut(text, width)
    } else {
        words
    }
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

/// Every run's latency series on one scale, so equal heights mean equal latencies (a
/// variant that did not load keeps its lane, empty). The variants add their goodput a second
/// below when both charts have a row per lane: a pattern shows in when goodput comes back.
fn render_charts(frame: &mut Frame, area: Rect, app: &App, runs: &CompareRuns, width: usize) {
    let snapshots: Vec<Option<crate::sim::Snapshot>> = runs
        .rows
        .iter()
        .map(|r| r.engine().map(Engine::snapshot))
        .collect();
    let latency: Vec<Vec<f64>> = snapshots
        .iter()
        .map(|s| {
            s.as_ref()
                .map(|s| s.series.latency_max.clone())
                .unwrap_or_default()
        })
        .collect();
    let top = latency.iter().flatten().fold(0.0_f64, |m, v| m.max(*v));
    let interval = snapshots
        .iter()
        .flatten()
        .next()
        .map_or(0.0, |s| s.series.interval.as_millis_f64());
    // Before any answer there is no scale to give (an answer of 0 ms still gives one).
    let answered = snapshots.iter().flatten().any(|s| s.latency.count > 0);
    let latency_title = if answered {
        format!(
            " Slowest answer per {} ms · one scale for all: bar top = {} ms ",
            fmt::ms(interval),
            fmt::ms(top)
        )
    } else {
        format!(
            " Slowest answer per {} ms · no answer yet ",
            fmt::ms(interval)
        )
    };
    let chart_rows = u16::try_from(runs.rows.len() + 2).unwrap_or(u16::MAX);
    if runs.compared == ComparedBy::Strategies {
        render_lanes(
            frame,
            area,
            app,
            runs,
            width,
            (&latency_title, &latency),
            Zero::Blank,
        );
        return;
    }
    let goodput: Vec<Vec<f64>> = snapshots
        .iter()
        .map(|s| {
            s.as_ref()
                .map(|s| s.goodput_timeline.iter().map(|&n| f64::from(n)).collect())
                .unwrap_or_default()
        })
        .collect();
    let most = goodput.iter().flatten().fold(0.0_f64, |m, v| m.max(*v));
    let goodput_title = if answered {
        format!(
            " Goodput a second · one scale for all: bar top = {} ",
            fmt::rate(most)
        )
    } else {
        " Goodput a second · nothing answered yet ".to_string()
    };
    // Room for one chart only (80x24): goodput a second, where a pattern shows in whether
    // and when goodput comes back.
    if area.height < 2 * chart_rows {
        render_lanes(
            frame,
            area,
            app,
            runs,
            width,
            (&goodput_title, &goodput),
            Zero::Drawn,
        );
        return;
    }
    // Goodput a second first, under the table: a caption at the bottom of the screen covers
    // the latency chart, not the chart a pattern is judged by.
    let [first, second] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    render_lanes(
        frame,
        first,
        app,
        runs,
        width,
        (&goodput_title, &goodput),
        Zero::Drawn,
    );
    render_lanes(
        frame,
        second,
        app,
        runs,
        width,
        (&latency_title, &latency),
        Zero::Blank,
    );
}

/// Where the variants view draws goodput a second in `area` (the view's body): the first of
/// its charts, or the only one when one fits; none in the strategies' view. (The tour tests
/// keep captions clear of it.)
#[cfg(test)]
pub(super) fn goodput_chart(area: Rect, runs: &CompareRuns) -> Option<Rect> {
    if runs.compared == ComparedBy::Strategies {
        return None;
    }
    let [_, charts] = areas(area, runs.rows.len());
    let chart_rows = u16::try_from(runs.rows.len() + 2).unwrap_or(u16::MAX);
    let chart = if charts.height < 2 * chart_rows {
        charts
    } else {
        let [first, _] = Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(charts);
        first
    };
    // The rows drawn: its title and a lane per row (rows left over stay empty).
    let inner = Block::bordered().inner(chart);
    let drawn = lanes(inner, runs.rows.len())
        .last()
        .map_or(chart.y + 1, |lane| lane.bottom());
    Some(Rect {
        height: drawn.saturating_sub(chart.y),
        ..chart
    })
}

/// How a chart's lanes draw a value: a latency of 0 is no answer (blank), a goodput of 0 is
/// a second that answered nothing (a low red bar, so a collapse does not look like a gap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zero {
    Blank,
    Drawn,
}

/// One chart: a lane per row, labelled as the table labels it, every lane on one scale
/// (the highest value of all draws full height); the newest values at the right.
fn render_lanes(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    runs: &CompareRuns,
    width: usize,
    (title, series): (&str, &[Vec<f64>]),
    zero: Zero,
) {
    let p = app.palette();
    let top = series.iter().flatten().fold(0.0_f64, |m, v| m.max(*v));
    let block = Block::bordered()
        .title(Line::styled(title.to_string(), p.title))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = lanes(inner, runs.rows.len());
    let max = top.ceil().max(1.0) as u64;
    for (i, ((row, data), lane)) in runs.rows.iter().zip(series).zip(rows.iter()).enumerate() {
        let [name, chart] = Layout::horizontal([
            Constraint::Length(u16::try_from(width).unwrap_or(u16::MAX)),
            Constraint::Min(0),
        ])
        .areas(*lane);
        let text = format!(
            "  {}",
            fmt::cut(&label(runs, i, row), width.saturating_sub(3))
        );
        frame.render_widget(Paragraph::new(Line::styled(text, p.text)), name);
        let columns = usize::from(chart.width);
        let skip = data.len().saturating_sub(columns);
        let points: Vec<u64> = data[skip..].iter().map(|v| v.round() as u64).collect();
        match zero {
            Zero::Blank => frame.render_widget(
                Sparkline::default().data(&points).max(max).style(p.busy),
                chart,
            ),
            Zero::Drawn => frame.render_widget(
                super::bars::Bars {
                    data: &points,
                    max,
                    style: p.busy,
                    zero: p.outcome(crate::metrics::Outcome::Failed),
                },
                chart,
            ),
        }
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

    #[test]
    fn what_limits_a_run_keeps_more_than_its_first_word() {
        let text = "timeouts: recommendations hangs";
        assert_eq!(limit_cell(text, 25).trim_end(), "timeouts: recommendation…");
        assert_eq!(limit_cell(text, 31), text);
        // Whole words while they fill at least half the column.
        assert_eq!(
            limit_cell("pool queue full: orders", 20).trim_end(),
            "pool queue full:…"
        );
    }
}
