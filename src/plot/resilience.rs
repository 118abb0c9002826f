//! The resilience parts of a run's chart: the retry storm's picture (the clients' attempts
//! against new requests and capacity) and each circuit breaker's open and half-open
//! stretches, shaded behind goodput and fallbacks.

use crate::flow::BreakerState;
use crate::time::Nanos;

use super::timeline::StrategySeries;
use super::{Band, ChartPanel, Line, Stroke};

/// A breaker's stretches away from closed, from its transitions in order, the last one
/// running to `end`.
pub(super) fn spans(
    transitions: &[(Nanos, BreakerState, BreakerState)],
    end: f64,
) -> Vec<(f64, f64, BreakerState)> {
    let mut spans = Vec::new();
    let mut open: Option<(f64, BreakerState)> = None;
    for &(at, _, to) in transitions {
        let at = at.as_secs_f64();
        if let Some((from, state)) = open.take() {
            spans.push((from, at, state));
        }
        if to != BreakerState::Closed {
            open = Some((at, to));
        }
    }
    if let Some((from, state)) = open {
        spans.push((from, end.max(from), state));
    }
    spans
}

/// The storm's picture: every attempt the clients sent a second (solid) against the new
/// requests among them (dashed) and theory's ceiling (dotted, the server's capacity), per
/// strategy.
pub(super) fn attempts_panel(timelines: &[StrategySeries]) -> ChartPanel {
    let many = timelines.len() > 1;
    let name = |t: &StrategySeries, what: &str| {
        if many {
            format!("{}: {what}", t.label)
        } else {
            what.to_string()
        }
    };
    let mut lines = Vec::new();
    // One capacity line when every run has the same (the sides of `compare --against`).
    let retrying: Vec<&StrategySeries> = timelines.iter().filter(|t| t.retries).collect();
    let one_capacity = retrying.windows(2).all(|w| w[0].capacity == w[1].capacity);
    for (k, t) in retrying.into_iter().enumerate() {
        // One run: a colour per line (attempts vermillion, new requests blue, capacity
        // black); several: each strategy's colour, told apart by the stroke.
        let colours = if many { [t.colour; 3] } else { [1, 0, 6] };
        let points = |ys: &[f64]| t.t_s.iter().copied().zip(ys.iter().copied()).collect();
        lines.push(Line {
            label: Some(name(t, "attempts (new + retries)")),
            points: points(&t.attempts),
            colour: colours[0],
            stroke: Stroke::Solid,
            off_chart: None,
        });
        lines.push(Line {
            label: Some(name(t, "new requests")),
            points: points(&t.new_requests),
            colour: colours[1],
            stroke: Stroke::Dashed,
            off_chart: None,
        });
        if let Some(c) = t
            .capacity
            .filter(|c| c.is_finite() && (k == 0 || !one_capacity))
        {
            let (first, last) = (t.t_s.first().copied(), t.t_s.last().copied());
            if let (Some(first), Some(last)) = (first, last) {
                let what = "capacity (theory's ceiling)";
                lines.push(Line {
                    label: Some(if one_capacity {
                        what.to_string()
                    } else {
                        name(t, what)
                    }),
                    points: vec![(first, c), (last, c)],
                    colour: colours[2],
                    stroke: Stroke::Dotted,
                    off_chart: None,
                });
            }
        }
    }
    ChartPanel {
        title: "Attempts the clients sent against capacity".into(),
        x_label: "simulated time (s)".into(),
        y_label: "attempts a second".into(),
        lines,
        ..ChartPanel::default()
    }
}

/// Each breaker's open (vermillion) and half-open (orange) stretches, when one strategy is
/// drawn: several strategies' breakers would cover each other.
pub(super) fn breaker_bands(timelines: &[StrategySeries]) -> Vec<Band> {
    let [t] = timelines else {
        return Vec::new();
    };
    let mut bands = Vec::new();
    for b in &t.breakers {
        let mut labelled = [false, false];
        for &(from, to, state) in &b.spans {
            let (colour, word, i) = match state {
                BreakerState::Open => (1, "open", 0),
                _ => (4, "half-open", 1),
            };
            let label = (!labelled[i]).then(|| format!("breaker {}: {word}", b.service));
            labelled[i] = true;
            bands.push(Band {
                from,
                to,
                colour,
                label,
            });
        }
    }
    bands
}
