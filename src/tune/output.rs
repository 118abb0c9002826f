//! A tune's report: the points played, the winner and its verification, the Pareto front,
//! why the next cheaper point fails; and its chart (the front, cost against the first goal).

use std::fmt::Write as _;

use super::{TunePoint, Tuned};
use crate::plot::{ChartPanel, Figure, Line, Mark, Stroke};

fn num(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else if x.is_infinite() {
        "never".into()
    } else if x.fract() == 0.0 && x.abs() < 1e12 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn cells(t: &Tuned, p: &TunePoint, mark: &str) -> Vec<String> {
    let mut cells: Vec<String> = p.values.clone();
    cells.push(num(p.cost));
    for (g, x) in t.goals.iter().zip(&p.figures) {
        let ok = !x.is_nan() && g.holds(*x);
        cells.push(format!("{}{}", num(*x), if ok { "  " } else { " x" }));
    }
    cells.push(mark.to_owned());
    cells
}

fn row(t: &Tuned, p: &TunePoint, mark: &str) -> String {
    cells(t, p, mark).join("  ").trim_end().to_owned()
}

/// Rows of cells, each column right-aligned to its widest cell but the last (left).
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|x| x.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, x)| {
                if c + 1 == r.len() {
                    x.clone()
                } else {
                    format!("{x:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The report as text.
pub fn table(t: &Tuned) -> String {
    let mut out = String::new();
    let goals: Vec<&str> = t.goals.iter().map(|g| g.text.as_str()).collect();
    let _ = writeln!(
        out,
        "tune {}: {} of {} points played; goals {}; cost: {}",
        t.preset,
        t.points.len(),
        t.grid,
        goals.join(", "),
        t.cost.label()
    );
    let mut header: Vec<String> = t.vary.clone();
    header.push(t.cost.label());
    header.extend(t.goals.iter().map(|g| format!("{}  ", g.label)));
    header.push(String::new());
    let mut rows = vec![header];
    let front = t.front();
    for (i, p) in t.points.iter().enumerate() {
        let mut mark = String::new();
        if Some(i) == t.winner {
            mark.push_str("<- cheapest that meets every goal");
        } else if front.contains(&i) {
            mark.push_str("(front)");
        }
        rows.push(cells(t, p, &mark));
    }
    let _ = write!(out, "\n{}", aligned(&rows));
    let _ = writeln!(out, "(x: the goal fails there)");
    let front_values: Vec<String> = front
        .iter()
        .map(|&i| {
            format!(
                "{} (cost {})",
                t.points[i].values.join(", "),
                num(t.points[i].cost)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "\nPareto front (cost and every goal's figure): {}",
        front_values.join("; ")
    );
    for (i, seed) in &t.rejected {
        let _ = writeln!(
            out,
            "{} met every goal on the preset's seed but not on seed {seed}: not taken",
            t.points[*i].values.join(", ")
        );
    }
    match t.winner {
        Some(w) => {
            let p = &t.points[w];
            let _ = writeln!(
                out,
                "\ncheapest: {} (cost {})",
                t.winner_sets().join(" "),
                num(p.cost)
            );
            for (seed, figures, _) in &t.verified {
                let parts: Vec<String> = t
                    .goals
                    .iter()
                    .zip(figures)
                    .map(|(g, x)| format!("{} {}", g.label, num(*x)))
                    .collect();
                let _ = writeln!(
                    out,
                    "verified on seed {seed}: {} (every goal met)",
                    parts.join(", ")
                );
            }
            match t.next_cheaper() {
                Some(n) => {
                    let q = &t.points[n];
                    let fails: Vec<String> = t
                        .goals
                        .iter()
                        .zip(&q.figures)
                        .filter(|(g, x)| x.is_nan() || !g.holds(**x))
                        .map(|(g, x)| format!("{} is {} ({})", g.label, num(*x), g.text))
                        .collect();
                    let why = if fails.is_empty() {
                        "it met them on the preset's seed but not on every verification seed"
                            .to_owned()
                    } else {
                        format!("fails {}", fails.join(", "))
                    };
                    let _ = writeln!(out, "next cheaper, {}: {why}", q.values.join(", "));
                }
                None => {
                    let _ = writeln!(
                        out,
                        "no cheaper point was tried: the cheapest value of the range meets the goals"
                    );
                }
            }
        }
        None => {
            let _ = writeln!(out, "\nno point meets every goal.");
            if let Some(b) = t.best {
                let _ = writeln!(out, "closest: {}", row(t, &t.points[b], ""));
            }
        }
    }
    if t.interrupted {
        let _ = writeln!(out, "interrupted: only the points that finished are shown");
    }
    out
}

/// Minimise against each goal's figure, a panel a goal: every point played, the Pareto front,
/// the goal's bound and the winner.
pub fn figure(t: &Tuned) -> Figure {
    let front = t.front();
    let panels = t
        .goals
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let y = |p: &TunePoint| p.figures.get(k).copied().unwrap_or(f64::NAN);
            let mut all: Vec<(f64, f64)> = t
                .points
                .iter()
                .map(|p| (p.cost, y(p)))
                .filter(|(_, v)| v.is_finite())
                .collect();
            all.sort_by(|a, b| a.0.total_cmp(&b.0));
            let on_front: Vec<(f64, f64)> = front
                .iter()
                .map(|&i| (t.points[i].cost, y(&t.points[i])))
                .filter(|(_, v)| v.is_finite())
                .collect();
            let mut lines = vec![
                Line {
                    label: Some("every point played".into()),
                    points: all.clone(),
                    colour: 1,
                    stroke: Stroke::Dotted,
                    off_chart: None,
                },
                Line {
                    label: Some("Pareto front".into()),
                    points: on_front,
                    colour: 0,
                    stroke: Stroke::Solid,
                    off_chart: None,
                },
            ];
            if let (Some(first), Some(last)) = (all.first(), all.last()) {
                lines.push(Line {
                    label: Some(format!("goal {}", g.text)),
                    points: vec![(first.0, g.bound), (last.0, g.bound)],
                    colour: 2,
                    stroke: Stroke::Dashed,
                    off_chart: None,
                });
            }
            let marks = t
                .winner
                .map(|w| Mark {
                    at: (t.points[w].cost, y(&t.points[w])),
                    label: format!("cheapest: {}", t.points[w].values.join(", ")),
                    colour: 0,
                })
                .into_iter()
                .collect();
            ChartPanel {
                title: format!("{} against the cost", g.label),
                x_label: format!("cost ({})", t.cost.label()),
                y_label: g.label.clone(),
                lines,
                marks,
                ..ChartPanel::default()
            }
        })
        .collect();
    Figure {
        title: format!(
            "tune {}: the cheapest setting that meets every goal",
            t.preset
        ),
        panels,
        columns: t.goals.len().clamp(1, 2),
        note: None,
    }
}
