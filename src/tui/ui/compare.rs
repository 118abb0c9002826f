//! The compare view: every strategy side by side on identical requests (same seed, same
//! scenario), each with its key figures and latency sparkline. One column each when every
//! cell gets 30 columns, else a grid two columns wide.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline};

use crate::metrics::Outcome;
use crate::scenario::Strategy;
use crate::sim::{Engine, Snapshot};
use crate::tui::app::App;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some(engines) = app.compare_engines() else {
        return;
    };
    let n = u32::try_from(engines.len()).unwrap_or(1).max(1);
    // A cell needs about 30 columns for its figures.
    let columns = if u32::from(area.width) >= 30 * n {
        n
    } else {
        2
    };
    let rows = n.div_ceil(columns);
    let cells: Vec<Rect> = Layout::vertical((0..rows).map(|_| Constraint::Ratio(1, rows)))
        .split(area)
        .iter()
        .flat_map(|row| {
            Layout::horizontal((0..columns).map(|_| Constraint::Ratio(1, columns)))
                .split(*row)
                .to_vec()
        })
        .collect();
    for (i, (engine, cell)) in engines.iter().zip(cells).enumerate() {
        render_one(frame, cell, app, engine, i);
    }
}

fn render_one(frame: &mut Frame, area: Rect, app: &App, engine: &Engine, index: usize) {
    let p = app.palette();
    let snapshot = engine.snapshot();
    let strategy = engine.strategy();
    let title_style = if strategy == app.engine().strategy() {
        p.selected
    } else {
        p.title
    };
    let mut block = Block::bordered()
        .title(Line::styled(
            format!(" {} {} ", index + 1, strategy),
            title_style,
        ))
        .title(
            Line::styled(format!(" {} ", fmt::rate(snapshot.throughput_rps)), p.title)
                .right_aligned(),
        )
        .border_style(p.border);
    if engine.now() < app.now() && !engine.is_finished() {
        block = block.title_bottom(Line::styled(
            format!(" catching up: {} ", fmt::clock(engine.now())),
            p.error,
        ));
    } else if engine.is_finished() {
        block = block.title_bottom(Line::styled(
            format!(" finished at {} ", fmt::clock(engine.now())),
            p.dim,
        ));
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let lines = figures(app, engine, &snapshot, strategy);
    let text_rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let [text, chart] =
        Layout::vertical([Constraint::Length(text_rows), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), text);
    let width = usize::from(chart.width);
    let series = &snapshot.series.latency_max;
    let skip = series.len().saturating_sub(width);
    let data: Vec<u64> = series[skip..].iter().map(|v| v.round() as u64).collect();
    frame.render_widget(Sparkline::default().data(&data).style(p.busy), chart);
}

fn figures(
    app: &App,
    engine: &Engine,
    snapshot: &Snapshot,
    strategy: Strategy,
) -> Vec<Line<'static>> {
    let p = app.palette();
    let l = &snapshot.latency;
    let count = |o: Outcome| {
        let style = p.outcome(o);
        vec![
            Span::styled(format!(" {} ", o.name()), style),
            Span::styled(
                fmt::count(snapshot.outcomes.get(o)),
                style.add_modifier(Modifier::BOLD),
            ),
        ]
    };
    // The pools this strategy sends work to (the server's included).
    let pools: Vec<_> = engine
        .pools_of(strategy)
        .into_iter()
        .filter_map(|id| snapshot.pools.iter().find(|pool| pool.id == id))
        .collect();
    let max_queue = pools
        .iter()
        .map(|pool| pool.stats.max_queue)
        .max()
        .unwrap_or(0);
    let rejected: u64 = pools.iter().map(|pool| pool.stats.rejected).sum();
    vec![
        Line::raw(format!(
            " p50 {} · p99 {} ms",
            fmt::ms(l.p50),
            fmt::ms(l.p99)
        )),
        Line::from([count(Outcome::Success), count(Outcome::Partial)].concat()),
        Line::from(
            [
                count(Outcome::Failed),
                count(Outcome::Timeout),
                count(Outcome::Refused),
            ]
            .concat(),
        ),
        Line::styled(
            format!(
                " max queue {} · rejected {}",
                fmt::count(u64::from(max_queue)),
                fmt::count(rejected)
            ),
            if rejected > 0 { p.error } else { p.text },
        ),
    ]
}
