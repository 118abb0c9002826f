//! A sweep as a figure: goodput and p99 against the first varied value, one line per
//! strategy (and per value of a second axis), theory dashed, the knee marked.

use crate::sweep::{PointReport, SweepReport};

use super::{ChartPanel, Figure, Line, Mark, Stroke, strategy_colour};

/// The knee: the first point whose goodput reaches this share of the line's best.
const KNEE_SHARE: f64 = 0.95;

/// One curve: the points of one strategy at one value of the other axes.
struct Curve<'a> {
    label: String,
    colour: usize,
    points: Vec<(f64, &'a PointReport)>,
}

/// The sweep's chart. A first axis whose values are not all numbers (`200,virtual`) is a
/// category axis: a group of bars per value, named by it.
pub fn figure(r: &SweepReport) -> Figure {
    let curves = curves(r);
    let numeric = numeric(r);
    let x_label = r.vary.first().cloned().unwrap_or_default();
    let categories = if numeric { Vec::new() } else { firsts(r) };
    let goodput = ChartPanel {
        title: goodput_title(r),
        x_label: x_label.clone(),
        y_label: "goodput (req/s)".into(),
        lines: goodput_panel_lines(&curves),
        marks: if numeric {
            curves.iter().filter_map(knee).collect()
        } else {
            Vec::new()
        },
        categories: categories.clone(),
        notes: curves.iter().filter_map(ceiling_drop).take(1).collect(),
        bands: Vec::new(),
    };
    let p99 = ChartPanel {
        title: "p99 latency".into(),
        x_label,
        y_label: "p99 latency (ms)".into(),
        lines: curves
            .iter()
            .map(|c| {
                line(c, Some(c.label.clone()), Stroke::Solid, |p| {
                    (p.success + p.partial > 0).then_some(p.p99_ms)
                })
            })
            .collect(),
        marks: Vec::new(),
        categories,
        notes: Vec::new(),
        bands: Vec::new(),
    };
    Figure {
        title: format!(
            "{}: sweep of {}{}",
            r.scenario,
            r.vary.join(" x "),
            if r.interrupted { " (partial)" } else { "" }
        ),
        panels: vec![goodput, p99],
        columns: 1,
        note: None,
    }
}

/// The first axis's values in order of first appearance.
fn firsts(r: &SweepReport) -> Vec<String> {
    let mut firsts: Vec<String> = Vec::new();
    for p in &r.points {
        let first = p.values.first().map_or("", String::as_str);
        if !firsts.iter().any(|f| f == first) {
            firsts.push(first.to_owned());
        }
    }
    firsts
}

/// Theory's ceiling falls as the knob rises when a bulkhead's core threads start to keep up
/// with the load: a ThreadPoolExecutor grows past core only once its queue is full, so below
/// that point the ceiling counts `max` threads and from it only `core`. Said under the chart.
fn ceiling_drop(c: &Curve<'_>) -> Option<String> {
    let ceilings: Vec<(f64, f64, &str)> = c
        .points
        .iter()
        .filter_map(|(x, p)| p.ceiling_rps.map(|v| (*x, v, p.values[0].as_str())))
        .collect();
    let w = ceilings.windows(2).find(|w| w[1].1 < w[0].1 * 0.99)?;
    Some(format!(
        "ceiling falls at {} ({} to {} req/s): the queue no longer fills, so theory counts \
         core threads, not max",
        w[1].2,
        fmt2(w[0].1),
        fmt2(w[1].1)
    ))
}

fn fmt2(v: f64) -> String {
    format!("{v:.2}")
}

fn numeric(r: &SweepReport) -> bool {
    r.points
        .iter()
        .all(|p| p.values.first().is_some_and(|v| v.parse::<f64>().is_ok()))
}

fn curves(r: &SweepReport) -> Vec<Curve<'_>> {
    let numeric = numeric(r);
    let firsts = firsts(r);
    let mut curves: Vec<Curve<'_>> = Vec::new();
    for p in &r.points {
        let first = p.values.first().map_or("", String::as_str);
        let x = match first.parse::<f64>() {
            Ok(v) if numeric => v,
            _ => firsts.iter().position(|f| f == first).unwrap_or(0) as f64,
        };
        let label = label(r, p);
        match curves.iter_mut().find(|c| c.label == label) {
            Some(c) => c.points.push((x, p)),
            None => curves.push(Curve {
                colour: strategy_colour(p.strategy) + curves.len() / r.strategies.len().max(1),
                label,
                points: vec![(x, p)],
            }),
        }
    }
    curves
}

/// The strategy, and the other axes' values when there are any.
fn label(r: &SweepReport, p: &PointReport) -> String {
    let rest: Vec<String> = r
        .vary
        .iter()
        .zip(&p.values)
        .skip(1)
        .map(|(path, v)| format!("{path}={v}"))
        .collect();
    if rest.is_empty() {
        p.strategy.to_string()
    } else {
        format!("{} {}", p.strategy, rest.join(" "))
    }
}

/// A curve's line; a point `y` has no value for (no answer, no ceiling) is a gap.
fn line(
    c: &Curve<'_>,
    label: Option<String>,
    stroke: Stroke,
    y: impl Fn(&PointReport) -> Option<f64>,
) -> Line {
    Line {
        label,
        points: c
            .points
            .iter()
            .map(|(x, p)| (*x, y(p).filter(|v| v.is_finite()).unwrap_or(f64::NAN)))
            .collect(),
        colour: c.colour,
        stroke,
        off_chart: None,
    }
}

/// The goodput panel's title: a load with phases charts its last phase's goodput.
fn goodput_title(r: &SweepReport) -> String {
    if r.points.iter().any(|p| p.last_phase_goodput_rps.is_some()) {
        "Goodput in the last load phase (success + partial per second)".into()
    } else {
        "Goodput (success + partial per second)".into()
    }
}

/// Palette entry for legend samples that stand for every curve (black, or white on dark).
const NEUTRAL: usize = 6;

/// Each curve's measured goodput, theory's ceiling (dashed) and Little's-law throughput
/// (dotted). With several curves the legend names the curves once and the two theory
/// styles once, so it stays short enough for a slide.
fn goodput_panel_lines(curves: &[Curve<'_>]) -> Vec<Line> {
    let one = curves.len() == 1;
    let named = |what: &str| one.then(|| what.to_owned());
    let mut lines = Vec::new();
    for c in curves {
        lines.push(line(c, Some(c.label.clone()), Stroke::Solid, |p| {
            Some(p.charted_goodput())
        }));
        // The ceiling can be far above what the load asks; the axis fits the measurements.
        lines.push(Line {
            off_chart: Some(format!("{} theory ceiling", c.label)),
            ..line(c, named("theory ceiling"), Stroke::Dashed, |p| {
                p.ceiling_rps
            })
        });
        lines.push(line(c, named("Little's law"), Stroke::Dotted, |p| {
            p.predicted_rps
        }));
    }
    if !one {
        for (label, stroke) in [
            ("theory ceiling", Stroke::Dashed),
            ("Little's law", Stroke::Dotted),
        ] {
            lines.push(Line {
                label: Some(label.into()),
                points: Vec::new(),
                colour: NEUTRAL,
                stroke,
                off_chart: None,
            });
        }
    }
    lines
}

/// Where adding more stops paying: the first point within 5 % of the curve's best goodput.
/// A curve that starts at its best and then falls below it (goodput against the load after a
/// spike) has no such knee: its first point would be marked for nothing. Its mark is the
/// cliff instead: the steepest fall between two neighbouring points, at the upper one.
fn knee(c: &Curve<'_>) -> Option<Mark> {
    let goodput: Vec<f64> = c.points.iter().map(|(_, p)| p.charted_goodput()).collect();
    let best = goodput.iter().copied().fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    let first = goodput.iter().position(|&g| g >= KNEE_SHARE * best)?;
    let falls = goodput[first..].iter().any(|&g| g < KNEE_SHARE * best);
    if first == 0 && falls {
        return cliff(c, &goodput);
    }
    let (x, p) = &c.points[first];
    Some(Mark {
        at: (*x, goodput[first]),
        label: format!("knee: {}", p.values.first().map_or("", String::as_str)),
        colour: c.colour,
    })
}

/// The steepest fall between neighbouring points, marked at the upper one
/// (`cliff: 65 → 70`).
fn cliff(c: &Curve<'_>, goodput: &[f64]) -> Option<Mark> {
    let i = (0..goodput.len().saturating_sub(1))
        .filter(|&i| goodput[i + 1] < goodput[i])
        .max_by(|&a, &b| {
            let fall = |i: usize| goodput[i] - goodput[i + 1];
            fall(a).total_cmp(&fall(b)).then(b.cmp(&a))
        })?;
    let value = |i: usize| {
        c.points[i]
            .1
            .values
            .first()
            .map_or(String::new(), Clone::clone)
    };
    Some(Mark {
        at: (c.points[i].0, goodput[i]),
        label: format!("cliff: {} → {}", value(i), value(i + 1)),
        colour: c.colour,
    })
}
