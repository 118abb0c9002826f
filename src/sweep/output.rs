//! A sweep as a table (one row per point and strategy) or CSV; JSON is the report itself.

use std::fmt::Write as _;

use super::{PointReport, SweepReport};
use crate::report::export::csv_field;

/// Columns after the varied values: header and cell.
type Column = (&'static str, fn(&PointReport) -> String);

const COLUMNS: [Column; 13] = [
    ("strategy", |p| p.strategy.to_string()),
    ("goodput/s", |p| fixed(p.goodput_rps)),
    ("throughput/s", |p| fixed(p.throughput_rps)),
    ("success", |p| p.success.to_string()),
    ("partial", |p| p.partial.to_string()),
    ("failed", |p| p.failed.to_string()),
    ("timeout", |p| p.timeout.to_string()),
    ("refused", |p| p.refused.to_string()),
    ("p50 ms", |p| fixed(p.p50_ms)),
    ("p99 ms", |p| fixed(p.p99_ms)),
    ("bottleneck", |p| {
        p.bottleneck.clone().unwrap_or_else(|| "-".into())
    }),
    ("ceiling/s", |p| {
        p.ceiling_rps.map_or_else(|| "unbounded".into(), fixed)
    }),
    ("predicted/s", |p| {
        p.predicted_rps.map_or_else(|| "-".into(), fixed)
    }),
];

fn fixed(x: f64) -> String {
    format!("{x:.2}")
}

fn rows(r: &SweepReport) -> (Vec<String>, Vec<Vec<String>>) {
    let mut headers: Vec<String> = r.vary.clone();
    headers.extend(COLUMNS.iter().map(|(h, _)| (*h).to_owned()));
    let rows = r
        .points
        .iter()
        .map(|p| {
            let mut row = p.values.clone();
            row.extend(COLUMNS.iter().map(|(_, cell)| cell(p)));
            row
        })
        .collect();
    (headers, rows)
}

/// The aligned table: text left, numbers (and the words in a column of numbers) right.
pub fn table(r: &SweepReport) -> String {
    let (headers, rows) = rows(r);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): sweep of {} point(s), seed {}, {} s simulated each{}",
        r.scenario,
        r.preset,
        r.points.len(),
        r.seed,
        r.simulated_s,
        if r.partial {
            " -- PARTIAL: stopped by Ctrl-C or at a limit, only finished points shown"
        } else {
            ""
        }
    );
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|row| row[c].chars().count())
                .chain([headers[c].chars().count()])
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
                if cell.parse::<f64>().is_ok() || (numeric && !heading) {
                    format!("{cell:>w$}")
                } else {
                    format!("{cell:<w$}")
                }
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

/// One header line, one line per point; `partial` is a column so a stopped sweep says so.
pub fn csv(r: &SweepReport) -> String {
    let (mut headers, rows) = rows(r);
    headers.push("partial_sweep".into());
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
    for row in rows {
        let mut cells: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
        cells.push(r.partial.to_string());
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
            goodput_rps: 1.0,
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

    #[test]
    fn a_word_among_numbers_aligns_with_its_column() {
        let r = SweepReport {
            preset: "p".into(),
            scenario: "s".into(),
            seed: 1,
            simulated_s: 1.0,
            vary: vec!["server.threads".into()],
            strategies: vec![Strategy::Sequential],
            partial: false,
            points: vec![point("200"), point("virtual")],
        };
        let text = table(&r);
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert!(lines[0].starts_with("           200  sequential"), "{text}");
        assert!(lines[1].starts_with("       virtual  sequential"), "{text}");
    }
}
