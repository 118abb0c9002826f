//! A sweep as a table (one row per point and strategy) or CSV; JSON is the report itself.

use std::fmt::Write as _;

use super::{PointReport, SweepReport};
use crate::report::{columns, csv_field, pad};

/// Columns after the varied values: the table's header, the CSV header (the point's JSON
/// key) and the cell (None for a figure that does not exist: `-` in the table, an empty CSV
/// cell).
type Column = (
    &'static str,
    &'static str,
    fn(&PointReport) -> Option<String>,
);

const COLUMNS: [Column; 14] = [
    ("strategy", "strategy", |p| Some(p.strategy.to_string())),
    ("goodput/s", "goodput_rps", |p| Some(fixed(p.goodput_rps))),
    ("last phase goodput/s", "last_phase_goodput_rps", |p| {
        p.last_phase_goodput_rps.map(fixed)
    }),
    ("throughput/s", "throughput_rps", |p| {
        Some(fixed(p.throughput_rps))
    }),
    ("success", "success", |p| Some(p.success.to_string())),
    ("partial", "partial", |p| Some(p.partial.to_string())),
    ("failed", "failed", |p| Some(p.failed.to_string())),
    ("timeout", "timeout", |p| Some(p.timeout.to_string())),
    ("refused", "refused", |p| Some(p.refused.to_string())),
    ("p50 ms", "p50_ms", |p| answered_ms(p, p.p50_ms)),
    ("p99 ms", "p99_ms", |p| answered_ms(p, p.p99_ms)),
    ("bottleneck", "bottleneck", |p| p.bottleneck.clone()),
    ("ceiling/s", "ceiling_rps", |p| {
        Some(p.ceiling_rps.map_or_else(|| "unbounded".into(), fixed))
    }),
    ("predicted/s", "predicted_rps", |p| {
        p.predicted_rps.map(fixed)
    }),
];

fn fixed(x: f64) -> String {
    format!("{x:.2}")
}

/// A latency of the point's answers, or none when it answered none (not a 0 ms latency).
fn answered_ms(p: &PointReport, ms: f64) -> Option<String> {
    (p.success + p.partial > 0).then(|| fixed(ms))
}

/// The headers (the table's, or with `keys` the JSON keys) and the rows, a figure that does
/// not exist written `-` in the table's, left empty in the CSV's.
fn rows(r: &SweepReport, keys: bool) -> (Vec<String>, Vec<Vec<String>>) {
    let none = if keys { "" } else { "-" };
    let mut headers: Vec<String> = r.vary.clone();
    headers.extend(
        COLUMNS
            .iter()
            .map(|(h, key, _)| if keys { *key } else { *h }.to_owned()),
    );
    let rows = r
        .points
        .iter()
        .map(|p| {
            let mut row = p.values.clone();
            row.extend(
                COLUMNS
                    .iter()
                    .map(|(_, _, cell)| cell(p).unwrap_or_else(|| none.to_owned())),
            );
            row
        })
        .collect();
    (headers, rows)
}

/// The aligned table: text left, numbers (and the words in a column of numbers) right.
pub fn table(r: &SweepReport) -> String {
    let (headers, rows) = rows(r, false);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): sweep of {} point(s), seed {}, {}{}",
        r.scenario,
        r.preset,
        r.points.len(),
        r.seed,
        played(r),
        if r.interrupted {
            " -- PARTIAL: stopped by Ctrl-C or at a limit, only finished points shown"
        } else {
            ""
        }
    );
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|row| columns(&row[c]))
                .chain([columns(&headers[c])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // A column of values with a word among them (`server.threads` 200 and `virtual`) aligns
    // as a whole, to the right like its numbers.
    let numeric: Vec<bool> = (0..headers.len())
        .map(|c| rows.iter().any(|row| row[c].parse::<f64>().is_ok()))
        .collect();
    let line = |cells: &[String], heading: bool, out: &mut String| {
        let text: Vec<String> = cells
            .iter()
            .zip(&widths)
            .zip(&numeric)
            .map(|((cell, &w), &numeric)| {
                let right = cell.parse::<f64>().is_ok() || (numeric && !heading);
                pad(cell, w, !right)
            })
            .collect();
        let _ = writeln!(out, "{}", text.join("  ").trim_end());
    };
    line(&headers, true, &mut out);
    for row in &rows {
        line(row, false, &mut out);
    }
    out
}

/// How long the points played: the duration, or for a finite load until each one's last
/// answer (the shortest and longest).
fn played(r: &SweepReport) -> String {
    let times = r.points.iter().map(|p| p.simulated_s);
    let shortest = times.clone().fold(f64::INFINITY, f64::min);
    let longest = times.fold(0.0, f64::max);
    if r.points.is_empty() || shortest >= r.duration_s {
        format!("{} s simulated each", r.duration_s)
    } else if shortest == longest {
        format!("{shortest} s simulated each (until the last answer)")
    } else {
        format!("{shortest} to {longest} s simulated (each until its last answer)")
    }
}

/// One header line, one line per point; `partial` is a column so a stopped sweep says so.
pub fn csv(r: &SweepReport) -> String {
    let (mut headers, rows) = rows(r, true);
    headers.push("simulated_s".into());
    headers.push("interrupted".into());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        headers
            .iter()
            .map(|h| csv_field(h))
            .collect::<Vec<_>>()
            .join(",")
    );
    for (row, point) in rows.iter().zip(&r.points) {
        let mut cells: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
        cells.push(point.simulated_s.to_string());
        cells.push(r.interrupted.to_string());
        let _ = writeln!(out, "{}", cells.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Strategy;
    use crate::sweep::PointReport;

    fn point(value: &str) -> PointReport {
        PointReport {
            values: vec![value.to_owned()],
            strategy: Strategy::Sequential,
            simulated_s: 1.0,
            goodput_rps: 1.0,
            last_phase_goodput_rps: None,
            throughput_rps: 1.0,
            success: 1,
            partial: 0,
            failed: 0,
            timeout: 0,
            refused: 0,
            p50_ms: 1.0,
            p99_ms: 1.0,
            bottleneck: None,
            ceiling_rps: None,
            predicted_rps: None,
        }
    }

    /// A sweep of `server.threads` with these points.
    fn sweep(points: Vec<PointReport>) -> SweepReport {
        SweepReport {
            preset: "p".into(),
            scenario: "s".into(),
            seed: 1,
            duration_s: 1.0,
            vary: vec!["server.threads".into()],
            strategies: vec![Strategy::Sequential],
            interrupted: false,
            points,
        }
    }

    #[test]
    fn a_word_among_numbers_aligns_with_its_column() {
        let text = table(&sweep(vec![point("200"), point("virtual")]));
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert!(lines[0].starts_with("           200  sequential"), "{text}");
        assert!(lines[1].starts_with("       virtual  sequential"), "{text}");
    }

    #[test]
    fn a_point_that_answered_nothing_has_no_latency() {
        let silent = PointReport {
            success: 0,
            failed: 3,
            p50_ms: 0.0,
            p99_ms: 0.0,
            ..point("5")
        };
        // The table writes `-`.
        let (headers, rows) = rows(&sweep(vec![point("4"), silent]), false);
        let p99 = headers.iter().position(|h| h == "p99 ms").expect("p99 ms");
        assert_eq!(rows[0][p99], "1.00");
        assert_eq!(rows[1][p99], "-");
        // In a CSV the cell is empty, as is every figure that does not exist.
        let csv = csv(&sweep(vec![
            point("4"),
            PointReport {
                success: 0,
                ..point("5")
            },
        ]));
        let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        let column = |name: &str| lines[0].iter().position(|h| *h == name).expect(name);
        assert_eq!(lines[1][column("p99_ms")], "1.00");
        assert_eq!(lines[2][column("p99_ms")], "");
        assert_eq!(lines[2][column("last_phase_goodput_rps")], "");
        assert_eq!(lines[2][column("bottleneck")], "");
        assert!(!csv.contains("'-"), "{csv}");
    }
}
