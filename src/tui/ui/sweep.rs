//! The `g` overlay: a sweep of one knob drawn as two charts over the same values, goodput
//! above p99, with the current setting and the cursor marked, the cursor's figures in text
//! under them. Points are drawn as they arrive; a gauge counts them until all are in.
//!
//! ```text
//! ┌ Sweep · IronThread core · bulkhead · seed 10 · 5 runs per point (≤ 60 s) ────┐
//! │ computing 9/17 points  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━──────────────────────────│ progress
//! │ goodput req/s                                                                 │
//! │ 11.0│             ⣀⣀⣀⣀⣀⣀⣀⣀•⣀⣀⣀⣀⣀█⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀                      │ goodput
//! │    0└──────────────────────────────────────────────────────                   │
//! │ p99 ms                                                                        │
//! │ 1200│⠑⠢⢄⡀           •      █                                                 │ p99
//! │    0└──────────────────────────────────────────────────────                   │
//! │      2               16               30      IronThread core (threads)       │
//! │ ━ goodput  ━ p99  ⠂ theory  • now 10  █ cursor                                │ legend
//! │ ▸ IronThread core 12: goodput 9.80/s · p99 1000 ms                            │ cursor
//! │   in 60 s: success 294 · partial 0 · failed 40 · timed out 36 · refused 0     │
//! └ ← → point · Enter apply · Tab next knob · Esc close ─────────────────────────┘
//! ```
//!
//! Below [`CHART_ROWS`] rows for the charts (or [`CHART_COLUMNS`] columns) a table of the
//! points stands in for them.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Clear, Dataset, GraphType, LineGauge, Paragraph};

use crate::sweep::PointReport;
use crate::tui::app::App;
use crate::tui::sweep::{Sweep, value_text};
use crate::tui::theme::Palette;

use super::fmt;

/// Fewest rows for the two charts together; fewer and the table is drawn instead.
pub const CHART_ROWS: u16 = 12;
/// Fewest columns for the charts.
pub const CHART_COLUMNS: u16 = 50;
/// Widest the overlay gets.
const MAX_WIDTH: u16 = 120;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some(sweep) = app.sweep() else { return };
    let p = app.palette();
    // The header's tabs and the status line (one row or two) stay visible above and below.
    let status = super::status::rows(app, area.width);
    let box_area = super::centred(
        Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1 + status),
            ..area
        },
        area.width.min(MAX_WIDTH),
        area.height,
    );
    let plan = sweep.plan();
    let title = format!(
        " Sweep · {} · {} · seed {} · {} ",
        plan.name,
        plan.strategy,
        plan.seed,
        plan.per_point()
    );
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .title_bottom(
            Line::styled(
                " ← → point · Enter apply · Tab next knob · Esc close ",
                p.dim,
            )
            .right_aligned(),
        )
        .border_style(p.title);
    let inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    let [progress, charts, legend, cursor] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(2),
    ])
    .areas(inner);
    render_progress(frame, progress, p, sweep);
    if charts.height >= CHART_ROWS && charts.width >= CHART_COLUMNS {
        render_charts(frame, charts, p, sweep);
        frame.render_widget(Paragraph::new(legend_line(p, sweep)), legend);
    } else {
        render_table(frame, charts.union(legend), p, sweep);
    }
    frame.render_widget(Paragraph::new(cursor_lines(p, sweep)), cursor);
}

/// A gauge while points are computing, then what each point is.
fn render_progress(frame: &mut Frame, area: Rect, p: &Palette, sweep: &Sweep) {
    let (done, total) = (sweep.done(), sweep.points().len());
    if sweep.computing() {
        let ratio = done as f64 / total.max(1) as f64;
        let gauge = LineGauge::default()
            .ratio(ratio)
            .label(format!("computing {done}/{total} points "))
            .filled_symbol("━")
            .unfilled_symbol("─")
            .filled_style(p.busy)
            .unfilled_style(p.dim);
        frame.render_widget(gauge, area);
        return;
    }
    let text = if sweep.all_alike() {
        format!(
            " {total} points alike: {} does not limit this load · Tab: next knob",
            sweep.plan().name
        )
    } else if done == total {
        format!(" {total} points, each the live scenario (changes, faults) run from t = 0")
    } else {
        format!(" stopped after {done} of {total} points")
    };
    let line = Line::styled(fmt::fit(&text, usize::from(area.width)), p.dim);
    frame.render_widget(Paragraph::new(line), area);
}

/// The points that have arrived as (value, figure) pairs, in the plan's order.
fn series(sweep: &Sweep, figure: impl Fn(&PointReport) -> Option<f64>) -> Vec<(f64, f64)> {
    sweep
        .plan()
        .values
        .iter()
        .zip(sweep.points())
        .filter_map(|(&x, point)| Some((x, figure(point.as_ref()?)?)))
        .collect()
}

/// p99 of answered requests; none when nothing was answered (a 0 would read as fast).
fn p99(point: &PointReport) -> Option<f64> {
    (point.success + point.partial > 0).then_some(point.p99_ms)
}

fn render_charts(frame: &mut Frame, area: Rect, p: &Palette, sweep: &Sweep) {
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let goodput = series(sweep, |r| Some(r.goodput_rps));
    let theory = series(sweep, |r| r.predicted_rps);
    let latency = series(sweep, p99);
    let top_max = nice_max(max_of(&goodput).max(max_of(&theory)));
    let bottom_max = nice_max(max_of(&latency));
    // Labels of one width on both charts, so a value sits in the same column on both.
    let width = fmt::ms(top_max).len().max(fmt::ms(bottom_max).len());
    let charts = [
        (top, "goodput req/s", goodput, Some(theory), top_max, p.busy),
        (bottom, "p99 ms", latency.clone(), None, bottom_max, p.queue),
    ];
    let x_title = x_title(sweep);
    for (i, (area, y_title, line, dotted, y_max, style)) in charts.into_iter().enumerate() {
        let marks = Marks::new(sweep, &line, y_max);
        let mut datasets = Vec::new();
        if let Some(dotted) = &dotted {
            datasets.push(dataset(dotted, GraphType::Scatter, Marker::Braille, p.dim));
        }
        // The points themselves too: a line needs two, and the first arrives alone.
        datasets.push(dataset(&line, GraphType::Scatter, Marker::Braille, style));
        datasets.push(dataset(&line, GraphType::Line, Marker::Braille, style));
        datasets.push(dataset(&marks.now, GraphType::Line, Marker::Dot, p.text));
        datasets.push(dataset(
            &marks.cursor,
            GraphType::Scatter,
            Marker::Block,
            p.title,
        ));
        let x_axis = x_axis(sweep, p, (i == 1).then_some(x_title.as_str()));
        let chart = Chart::new(datasets)
            .x_axis(x_axis)
            .y_axis(
                Axis::default()
                    .title(Span::styled(y_title, p.title))
                    .bounds([0.0, y_max])
                    .labels([
                        format!("{:>width$}", 0),
                        format!("{:>width$}", fmt::ms(y_max)),
                    ])
                    .style(p.dim),
            )
            .legend_position(None);
        frame.render_widget(chart, area);
    }
}

/// The current value's vertical line and the cursor's point on one chart.
struct Marks {
    now: Vec<(f64, f64)>,
    cursor: Vec<(f64, f64)>,
}

impl Marks {
    fn new(sweep: &Sweep, line: &[(f64, f64)], y_max: f64) -> Marks {
        let current = sweep.plan().current;
        let x = sweep.cursor_value();
        Marks {
            now: vec![(current, 0.0), (current, y_max)],
            cursor: line.iter().copied().filter(|&(v, _)| v == x).collect(),
        }
    }
}

fn dataset(data: &[(f64, f64)], kind: GraphType, marker: Marker, style: Style) -> Dataset<'_> {
    Dataset::default()
        .data(data)
        .graph_type(kind)
        .marker(marker)
        .style(style)
}

/// The varied values' axis: its ends and middle, and on the lower chart its title.
fn x_axis<'a>(sweep: &Sweep, p: &Palette, title: Option<&'a str>) -> Axis<'a> {
    let values = &sweep.plan().values;
    let (lo, hi) = (
        values.first().copied().unwrap_or(0.0),
        values.last().copied().unwrap_or(1.0),
    );
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let knob = sweep.plan().knob;
    let mid = (lo + hi) / 2.0;
    let mid = if knob.whole() { mid.round() } else { mid };
    let axis = Axis::default()
        .bounds([lo, hi])
        .labels([lo, mid, hi].map(|v| axis_number(knob.whole(), v)))
        .style(p.dim);
    match title {
        Some(t) => axis.title(Span::styled(t, p.title)),
        None => axis,
    }
}

/// `IronThread core (threads)`, `rate (req/s)`, `clients`.
fn x_title(sweep: &Sweep) -> String {
    let plan = sweep.plan();
    let unit = plan.knob.unit();
    if plan.name.ends_with(unit) {
        plan.name.clone()
    } else {
        format!("{} ({unit})", plan.name)
    }
}

fn axis_number(whole: bool, v: f64) -> String {
    if whole { format!("{v:.0}") } else { fmt::ms(v) }
}

fn max_of(points: &[(f64, f64)]) -> f64 {
    points.iter().map(|&(_, y)| y).fold(0.0, f64::max)
}

/// A round y bound just above the highest point: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times
/// a power of ten (1 when there is no point yet).
fn nice_max(max: f64) -> f64 {
    if !(max > 0.0 && max.is_finite()) {
        return 1.0;
    }
    let power = 10f64.powf(max.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&bound| bound >= max * 1.02)
        .unwrap_or(10.0 * power)
}

/// What each mark of the charts is, in its own style.
fn legend_line(p: &Palette, sweep: &Sweep) -> Line<'static> {
    let now = value_text(sweep.plan().knob, sweep.plan().current);
    let cursor = value_text(sweep.plan().knob, sweep.cursor_value());
    let item = |mark: &str, style: Style, text: String| {
        vec![
            Span::styled(format!(" {mark}"), style),
            Span::styled(format!(" {text} "), p.text),
        ]
    };
    Line::from(
        [
            item("━", p.busy, "goodput".into()),
            item("━", p.queue, "p99".into()),
            item("⠂", p.dim, "theory's goodput".into()),
            item("•", p.text, format!("now {now}")),
            item("█", p.title, format!("cursor {cursor}")),
        ]
        .concat(),
    )
}

/// The cursor's value and figures; the current setting's beside them.
fn cursor_lines(p: &Palette, sweep: &Sweep) -> Vec<Line<'static>> {
    let plan = sweep.plan();
    let value = value_text(plan.knob, sweep.cursor_value());
    let head = format!("▸ {} {value}", plan.name);
    let Some(point) = sweep.points().get(sweep.cursor()).and_then(Option::as_ref) else {
        return vec![Line::styled(format!("{head}: computing…"), p.title)];
    };
    let p99 = p99(point).map_or("- (none answered)".to_string(), |v| {
        format!("{} ms", fmt::ms(v))
    });
    let now = if sweep.cursor_value() == plan.current {
        " (now)".to_string()
    } else {
        format!(" (now {})", value_text(plan.knob, plan.current))
    };
    vec![
        Line::from(vec![
            Span::styled(format!("{head}{now}: "), p.title),
            Span::styled(
                format!("goodput {} · p99 {p99}", fmt::rate(point.goodput_rps)),
                p.text,
            ),
        ]),
        Line::styled(
            format!(
                "  in {} s: success {} · partial {} · failed {} · timed out {} · refused {}",
                plan.duration.as_secs_f64(),
                point.success,
                point.partial,
                point.failed,
                point.timeout,
                point.refused
            ),
            p.text,
        ),
    ]
}

/// The points as rows (value, goodput, p99, failures), for an area too small for charts.
fn render_table(frame: &mut Frame, area: Rect, p: &Palette, sweep: &Sweep) {
    let plan = sweep.plan();
    let mut lines = vec![Line::styled(
        format!(
            " {:>9} {:>10} {:>9} {:>7} {:>7} {:>7}",
            plan.knob.unit(),
            "goodput/s",
            "p99 ms",
            "failed",
            "timeout",
            "refused"
        ),
        p.title,
    )];
    let rows = usize::from(area.height.saturating_sub(1));
    // Rows around the cursor when they do not all fit.
    let first = sweep
        .cursor()
        .saturating_sub(rows / 2)
        .min(plan.values.len().saturating_sub(rows));
    for (i, (&value, point)) in plan.values.iter().zip(sweep.points()).enumerate() {
        if i < first || i >= first + rows {
            continue;
        }
        let mark = if value == plan.current { "•" } else { " " };
        let figures = point.as_ref().map_or("computing…".to_string(), |r| {
            format!(
                "{:>10} {:>9} {:>7} {:>7} {:>7}",
                fmt::ms(r.goodput_rps),
                p99(r).map_or("-".to_string(), fmt::ms),
                r.failed,
                r.timeout,
                r.refused
            )
        });
        let text = format!("{mark}{:>9} {figures}", value_text(plan.knob, value));
        let style = if i == sweep.cursor() {
            p.selected
        } else {
            p.text
        };
        lines.push(Line::styled(
            fmt::fit(&text, usize::from(area.width)),
            style,
        ));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
