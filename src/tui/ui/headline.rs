//! `L`: the headline figures in large type over the whole body, for the back of the room:
//! goodput, the answered p99 and the failures per second of the last 10 s (before 10 s have
//! passed, since t 0), each under a label that says what it counts, with the run's average
//! since t 0 (the figures `b` pins and the compare view shows) and the pinned baseline's
//! figure beside it in normal type. During an outage the big figures fall to zero at once,
//! while the average since t 0 only drifts down.
//!
//! ```text
//! ┌ Headline · bulkhead ────────────────────── pin shared at 3.000s (b clears) ┐
//! │ goodput: answered requests (success + partial) per second, last 10 s      │
//! │ ▄▄▄▄▄   ▄▄▄▄   ▄▄▄▄                                                       │
//! │ █▄▄▄  ...   (4 or 8 rows a figure)      pin 4.00/s · since t 0 40.9/s     │
//! │                                                                           │
//! │ p99 latency of answered requests since t 0, in ms                         │
//! │ ...                                                                       │
//! └───────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The type is the largest in which every figure fits (8x8 cells a digit, then 8x4); when
//! none does, fewer figures (failures, then p99, go first), then every figure in normal type.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use tui_big_text::{BigText, PixelSize};

use crate::metrics::Outcome;
use crate::report::FailureRates;
use crate::sim::Snapshot;
use crate::tui::app::App;
use crate::tui::recent::Recent;

use super::fmt;

/// One figure: what it counts (the longest label that fits is shown), its value, and what
/// stands beside it in normal type: the pinned baseline's, the run's average since t 0.
struct HeadlineFigure {
    labels: [String; 2],
    /// The value without its unit (the label names the unit).
    value: String,
    /// The figures beside it, with their units (`pin 4.00/s · since t 0 40.9/s`).
    beside: Option<String>,
    style: Style,
}

/// How the figures are drawn in an area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// The first `n` figures in large type of this size.
    Large(usize, PixelSize),
    /// Every figure on a line of its own in normal type.
    Normal,
}

/// Rows a figure's large digits take.
fn glyph_rows(size: PixelSize) -> u16 {
    match size {
        PixelSize::Full => 8,
        _ => 4,
    }
}

/// The largest type in which the first figures fit `width` x `height` cells, `chars` the
/// most characters a value has: every figure (`count`) if they fit at all, else fewer.
pub fn plan(width: u16, height: u16, count: usize, chars: usize) -> Type {
    let wide_enough = chars.saturating_mul(8) <= usize::from(width);
    for n in (1..=count).rev() {
        for size in [PixelSize::Full, PixelSize::HalfHeight] {
            let n16 = u16::try_from(n).unwrap_or(u16::MAX);
            // A label row over each figure's digits, and a blank row between figures.
            let rows = n16 * (1 + glyph_rows(size)) + n16 - 1;
            if wide_enough && rows <= height {
                return Type::Large(n, size);
            }
        }
    }
    Type::Normal
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let mut block = Block::bordered()
        .title(Line::styled(
            format!(" Headline · {} ", app.source().strategy()),
            p.title,
        ))
        .border_style(p.border);
    if let Some(pin) = app.pin() {
        block = block.title(
            Line::styled(
                format!(
                    " pin {} at {} (b clears) ",
                    pin.strategy,
                    fmt::clock(pin.at)
                ),
                p.change,
            )
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let figures = figures(app, snapshot);
    let chars = figures
        .iter()
        .map(|f| f.value.chars().count())
        .max()
        .unwrap_or(0);
    // One column of margin on the left.
    let inner = Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(1),
        ..inner
    };
    match plan(inner.width, inner.height, figures.len(), chars) {
        Type::Large(n, size) => large(frame, inner, &figures[..n], size, app),
        Type::Normal => normal(frame, inner, &figures, app),
    }
}

/// The figures in large type, one under the other, centred in the area's height.
fn large(frame: &mut Frame, area: Rect, figures: &[HeadlineFigure], size: PixelSize, app: &App) {
    let p = app.palette();
    let glyphs = glyph_rows(size);
    let n = u16::try_from(figures.len()).unwrap_or(u16::MAX);
    let used = n * (1 + glyphs) + n.saturating_sub(1);
    let mut y = area.y + area.height.saturating_sub(used) / 2;
    let width = usize::from(area.width);
    for figure in figures {
        let big_width = u16::try_from(figure.value.chars().count() * 8).unwrap_or(u16::MAX);
        // The pin beside the digits, on their baseline, when it fits there; else on the
        // label's row, after the label.
        let pin = figure.beside.clone();
        let pin_beside = pin
            .as_ref()
            .filter(|t| usize::from(big_width) + 2 + t.chars().count() <= width);
        let pin_room = match (&pin, pin_beside) {
            (Some(t), None) => t.chars().count() + 2,
            _ => 0,
        };
        let label = fit_first(&figure.labels, width.saturating_sub(pin_room));
        let mut label_line = Line::from(vec![ratatui::text::Span::styled(label, p.dim)]);
        if let (Some(t), None) = (&pin, pin_beside) {
            label_line.push_span(ratatui::text::Span::styled(format!("  {t}"), p.change));
        }
        frame.render_widget(Paragraph::new(label_line), row(area, y, 1));
        let digits = row(area, y + 1, glyphs);
        let big = BigText::builder()
            .pixel_size(size)
            .style(figure.style)
            .lines(vec![Line::from(figure.value.clone())])
            .build();
        frame.render_widget(big, digits);
        if let Some(t) = pin_beside {
            // On the digits' baseline: the font's eighth pixel row is blank.
            let baseline = if glyphs == 8 { 6 } else { 3 };
            let beside = Rect {
                x: digits.x + big_width + 2,
                y: digits.y + baseline,
                width: area.width.saturating_sub(big_width + 2),
                height: 1,
            };
            frame.render_widget(Paragraph::new(Line::styled(t.clone(), p.change)), beside);
        }
        y += glyphs + 2;
    }
}

/// Every figure on a line in normal type: label, value, the pin's.
fn normal(frame: &mut Frame, area: Rect, figures: &[HeadlineFigure], app: &App) {
    let p = app.palette();
    let lines: Vec<Line> = figures
        .iter()
        .map(|f| {
            let pin = f
                .beside
                .as_ref()
                .map(|v| format!("  {v}"))
                .unwrap_or_default();
            let room = usize::from(area.width).saturating_sub(f.value.len() + 2 + pin.len());
            Line::from(vec![
                ratatui::text::Span::styled(fit_first(&f.labels, room), p.dim),
                ratatui::text::Span::styled(format!("  {}", f.value), f.style),
                ratatui::text::Span::styled(pin, p.change),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// Row `y` of `area`, `height` rows tall (cut at the area's bottom).
fn row(area: Rect, y: u16, height: u16) -> Rect {
    let bottom = area.y + area.height;
    Rect {
        y: y.min(bottom),
        height: height.min(bottom.saturating_sub(y)),
        ..area
    }
}

/// The first of `labels` that fits in `width` columns, else the last one cut to fit.
fn fit_first(labels: &[String], width: usize) -> String {
    labels
        .iter()
        .find(|l| l.chars().count() <= width)
        .map_or_else(
            || fmt::fit(labels.last().map_or("", String::as_str), width),
            Clone::clone,
        )
}

/// Goodput, answered p99 and failures per second of the run on screen: of the last 10 s
/// once 10 s have passed, with the average since t 0 beside each, else since t 0; the pinned
/// baseline's beside each (of the same window when it had one, else beside the average).
fn figures(app: &App, snapshot: &Snapshot) -> Vec<HeadlineFigure> {
    let p = app.palette();
    let pin = app.pin();
    let per_second = |v: f64| fmt::rate(v).trim_end_matches("/s").to_string();
    let ms = |v: Option<f64>| v.map_or("-".to_string(), fmt::ms);
    let with_ms = |v: Option<f64>| format!("{} ms", ms(v));
    let whole = Whole {
        goodput_rps: snapshot.goodput_rps,
        p99_ms: (snapshot.latency.count > 0).then_some(snapshot.latency.p99),
        failed_rps: FailureRates::of(snapshot).total(),
    };
    let pinned = pin.map(|p| Whole {
        goodput_rps: p.goodput_rps,
        p99_ms: p.p99_ms,
        failed_rps: p.failed_rps,
    });
    let styles = [
        p.outcome(Outcome::Success),
        p.text,
        p.outcome(Outcome::Failed),
    ];
    let Some(recent) = Recent::of(snapshot) else {
        let labels = [
            [
                "goodput: answered requests (success + partial) per second since t 0",
                "goodput: answered requests per second",
            ],
            [
                "p99 latency of answered requests since t 0, in ms",
                "answered p99 since t 0, ms",
            ],
            [
                "failures per second since t 0: failed + timeout + refused",
                "failed + timeout + refused per second",
            ],
        ];
        let values = [
            per_second(whole.goodput_rps),
            ms(whole.p99_ms),
            per_second(whole.failed_rps),
        ];
        let pins = pinned.map(|w| {
            [
                fmt::rate(w.goodput_rps),
                with_ms(w.p99_ms),
                fmt::rate(w.failed_rps),
            ]
        });
        return (0..3)
            .map(|i| HeadlineFigure {
                labels: labels[i].map(str::to_string),
                value: values[i].clone(),
                beside: pins.as_ref().map(|p| format!("pin {}", p[i])),
                style: styles[i],
            })
            .collect();
    };
    let p99_labels = match recent.p99_ms {
        Some(_) => [
            "p99 latency of answered requests in the last 10 s, in ms",
            "answered p99, last 10 s, ms",
        ],
        None => [
            "p99 latency of answered requests in the last 10 s: none answered",
            "answered p99, last 10 s: none",
        ],
    };
    let labels = [
        [
            "goodput: answered requests (success + partial) per second, last 10 s".to_string(),
            "goodput: answered per second, last 10 s".to_string(),
        ],
        p99_labels.map(str::to_string),
        [
            "failures per second, last 10 s: failed + timeout + refused".to_string(),
            "failed + timeout + refused per second, last 10 s".to_string(),
        ],
    ];
    let values = [
        per_second(recent.goodput_rps),
        ms(recent.p99_ms),
        per_second(recent.failed_rps),
    ];
    let averages = [
        fmt::rate(whole.goodput_rps),
        with_ms(whole.p99_ms),
        fmt::rate(whole.failed_rps),
    ];
    // A pin of the same window stands next to the big figure; one taken before 10 s had
    // passed only has its average, set beside the run's.
    let pins: Option<([String; 3], bool)> = pin.map(|p| match p.recent {
        Some(r) => (
            [
                fmt::rate(r.goodput_rps),
                with_ms(r.p99_ms),
                fmt::rate(r.failed_rps),
            ],
            true,
        ),
        None => (
            [
                fmt::rate(p.goodput_rps),
                with_ms(p.p99_ms),
                fmt::rate(p.failed_rps),
            ],
            false,
        ),
    });
    (0..3)
        .map(|i| {
            let since = format!("since t 0 {}", averages[i]);
            let beside = match &pins {
                Some((pin, true)) => format!("pin {} · {since}", pin[i]),
                Some((pin, false)) => format!("{since}, pin {}", pin[i]),
                None => since,
            };
            HeadlineFigure {
                labels: labels[i].clone(),
                value: values[i].clone(),
                beside: Some(beside),
                style: styles[i],
            }
        })
        .collect()
}

/// A run's three headline figures since t 0.
struct Whole {
    goodput_rps: f64,
    p99_ms: Option<f64>,
    failed_rps: f64,
}

/// The figures' values as drawn (for tests: the large digits are not text).
#[cfg(test)]
pub(super) fn values(app: &App, snapshot: &Snapshot) -> Vec<String> {
    figures(app, snapshot)
        .into_iter()
        .map(|f| f.value)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_type_that_fits_every_figure_wins_then_fewer_figures_then_normal_type() {
        // 3 figures of 8x8 digits: 3 x (1 + 8) + 2 = 29 rows.
        assert_eq!(plan(118, 35, 3, 4), Type::Large(3, PixelSize::Full));
        assert_eq!(plan(118, 29, 3, 4), Type::Large(3, PixelSize::Full));
        // 8x4 digits: 3 x 5 + 2 = 17 rows (80x24 leaves 18).
        assert_eq!(plan(77, 28, 3, 4), Type::Large(3, PixelSize::HalfHeight));
        assert_eq!(plan(77, 17, 3, 4), Type::Large(3, PixelSize::HalfHeight));
        assert_eq!(plan(77, 16, 3, 4), Type::Large(2, PixelSize::HalfHeight));
        assert_eq!(plan(77, 10, 3, 4), Type::Large(1, PixelSize::Full));
        assert_eq!(plan(77, 5, 3, 4), Type::Large(1, PixelSize::HalfHeight));
        assert_eq!(plan(77, 4, 3, 4), Type::Normal);
        // Too wide a value for large type: normal type, never cut digits.
        assert_eq!(plan(40, 60, 3, 6), Type::Normal);
    }
}
