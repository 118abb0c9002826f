//! What theory predicts (from `Engine::prediction`) beside what the engine measured,
//! including Little's law: the measured mean number in flight L against X x R.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::sim::Snapshot;
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

    let prediction = app.engine().prediction();
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    let ceiling = match (&prediction.ceiling_rps, &prediction.bottleneck) {
        (Some(c), Some(b)) => format!("ceiling {} ({b})", fmt::rate(*c)),
        (Some(c), None) => format!("ceiling {}", fmt::rate(*c)),
        _ => "no ceiling".to_string(),
    };
    let theory = vec![
        ceiling,
        format!("X {}", or_dash(prediction.throughput_rps.map(fmt::rate))),
        format!("R {} ms", or_dash(prediction.latency_ms.map(fmt::ms))),
        format!("ρ {}", or_dash(prediction.utilisation.map(fmt::percent))),
        format!("one request {} ms", fmt::ms(prediction.single_request_ms)),
    ];
    let x = snapshot.throughput_rps;
    let r_ms = snapshot.latency.mean;
    // Little's law, L = λW: both sides come from the snapshot.
    let measured = vec![
        format!("X {}", fmt::rate(x)),
        format!("R {} ms", fmt::ms(r_ms)),
        format!(
            "L {:.2} vs λW {:.2}",
            snapshot.mean_in_flight,
            snapshot.littles_l_from_x_w()
        ),
    ];
    let mut rows = vec![(" theory   ", theory), (" measured ", measured)];
    if let Some(e) = &prediction.erlang_c {
        rows.push((
            " Erlang C ",
            vec![
                format!(
                    "{} threads, {:.1} erlangs",
                    e.servers, e.offered_load_erlangs
                ),
                format!("P(wait) {}", fmt::percent(e.prob_wait)),
                format!("wait {} ms", fmt::ms(e.mean_wait_ms)),
                format!("p99 {} ms", fmt::ms(e.p99_response_ms)),
            ],
        ));
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
