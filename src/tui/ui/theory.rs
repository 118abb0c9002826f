//! What theory predicts (from `Source::prediction`) beside what the run measured,
//! including Little's law: the measured mean number in flight L against X x R.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::sim::Snapshot;
use crate::theory::{ErlangPrediction, Prediction};
use crate::tui::app::App;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(" Theory vs measured ", p.title))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let prediction = app.source().prediction();
    let mut rows = vec![
        (" theory   ", predicted(app, &prediction, snapshot)),
        (
            " measured ",
            measured(snapshot, !app.scenario().load.phases.is_empty()),
        ),
    ];
    if let Some(e) = &prediction.erlang_c {
        rows.push((" Erlang C ", erlang_c(e)));
    }
    let width = usize::from(inner.width).saturating_sub(10);
    let lines: Vec<Line> = rows
        .into_iter()
        .map(|(label, parts)| {
            let parts = parts.into_iter().map(|t| vec![Span::raw(t)]).collect();
            let mut spans = vec![Span::styled(label, p.title)];
            spans.extend(fmt::items(parts, Span::styled(" · ", p.dim), width));
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Theory's row: the ceiling, throughput, latency and utilisation it can give for this load,
/// and one request alone.
fn predicted(app: &App, prediction: &Prediction, snapshot: &Snapshot) -> Vec<String> {
    let ceiling = match (&prediction.ceiling_rps, &prediction.bottleneck) {
        (Some(c), Some(b)) => format!("ceiling {} ({b})", fmt::rate(*c)),
        (Some(c), None) => format!("ceiling {}", fmt::rate(*c)),
        _ => "no ceiling".to_string(),
    };
    // Figures theory cannot give for this load are left out rather than shown as `-`.
    let mut theory = vec![ceiling];
    theory.extend(
        prediction
            .throughput_rps
            .map(|x| format!("X {}", fmt::rate(x))),
    );
    theory.extend(
        prediction
            .latency_ms
            .map(|r| format!("R {} ms", fmt::ms(r))),
    );
    theory.extend(
        prediction
            .utilisation
            .map(|u| format!("ρ {}", fmt::percent(u))),
    );
    theory.push(alone(app));
    // Theory is of the preset's latencies: say so while a fault changes them.
    if snapshot.services.iter().any(|s| s.fault.is_some()) {
        theory.insert(0, "faults not modelled".to_string());
    }
    theory
}

/// Whole seconds of goodput the measured row sets beside theory when the load changes.
const RECENT_SECONDS: usize = 10;

/// The measured row: goodput, the answered latency and Little's law. When load phases change
/// the load, theory is for the load now, so the goodput of the last 10 whole seconds comes
/// first.
fn measured(snapshot: &Snapshot, phases: bool) -> Vec<String> {
    // The ceiling is compared with goodput: a rejection answered in no time is not work done.
    if snapshot.outcomes.total() == 0 {
        return vec!["waiting for the first request to end".to_string()];
    }
    let whole = usize::try_from(snapshot.now.0 / 1_000_000_000).unwrap_or(0);
    let recent = snapshot
        .goodput_timeline
        .get(whole.saturating_sub(RECENT_SECONDS)..whole)
        .filter(|s| phases && s.len() == RECENT_SECONDS)
        .map(|s| s.iter().map(|&n| f64::from(n)).sum::<f64>() / RECENT_SECONDS as f64);
    let mut row: Vec<String> = recent
        .map(|x| format!("goodput last 10 s {}", fmt::rate(x)))
        .into_iter()
        .collect();
    let whole_run = if row.is_empty() {
        "goodput"
    } else {
        "since t 0"
    };
    row.extend([
        format!("{whole_run} {}", fmt::rate(snapshot.goodput_rps)),
        if snapshot.latency.count > 0 {
            format!("R {} ms answered", fmt::ms(snapshot.latency.mean))
        } else {
            "no answer yet".to_string()
        },
        // Little's law, L = λW: both sides come from the snapshot.
        format!(
            "L {:.2} vs λW {:.2}",
            snapshot.mean_in_flight,
            snapshot.littles_l_from_x_w()
        ),
    ]);
    row
}

/// The Erlang C row: exact for exponential holds, else an approximation.
fn erlang_c(e: &ErlangPrediction) -> Vec<String> {
    vec![
        if e.approximation {
            "≈ holds not exponential".to_string()
        } else {
            "exact (M/M/c)".to_string()
        },
        format!(
            "{} threads, {:.1} erlangs",
            e.servers, e.offered_load_erlangs
        ),
        format!("P(wait) {}", fmt::percent(e.prob_wait)),
        format!("wait {} ms", fmt::ms(e.mean_wait_ms)),
        format!("p99 {} ms", fmt::ms(e.p99_response_ms)),
    ]
}

/// One request alone. With hanging services the mean (a 1 s call and a 30 s hang averaged)
/// is a time no request takes, so the typical request and the hung one are shown apart.
fn alone(app: &App) -> String {
    let scenario = app.source().scenario();
    let strategy = app.source().strategy();
    let hangs: Vec<_> = scenario
        .services
        .iter()
        .filter_map(|s| s.hang.map(|h| (s.name.as_str(), h)))
        .collect();
    let Some((_, hang)) = hangs.first() else {
        let single = app.source().prediction().single_request_ms;
        return format!("alone {} ms", fmt::ms(single));
    };
    let mut healthy = scenario.clone();
    for s in &mut healthy.services {
        s.hang = None;
    }
    let typical = crate::theory::predict(&healthy, strategy).single_request_ms;
    format!(
        "alone {} ms, {} hang {}",
        fmt::ms(typical),
        fmt::percent(hang.probability),
        hang.duration
    )
}
