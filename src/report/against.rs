//! `compare PRESET --against KEY=VALUE`: every strategy played as the preset says and again
//! with the overrides, on the same requests, side by side (table, JSON, CSV).

use serde::Serialize;

use super::RunReport;

/// Which side of a before-and-after an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The preset as written (with `--set`, `--seed`, `--duration`).
    Preset,
    /// The same with the `--against` overrides.
    Against,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Preset => "preset",
            Side::Against => "against",
        }
    }
}

/// One strategy on both sides.
#[derive(Debug, Clone)]
pub struct Pair {
    pub preset: RunReport,
    pub against: RunReport,
}

/// A JSON entry: a run report with the side it is on and the overrides that side has.
#[derive(Serialize)]
struct SideEntry<'a> {
    side: Side,
    against: &'a [String],
    #[serde(flatten)]
    report: &'a RunReport,
}

/// An array with two entries per strategy, `"side": "preset"` then `"side": "against"`; each
/// is `run --format json`'s object plus `side` and `against` (the overrides; empty on the
/// preset's side).
pub fn json(pairs: &[Pair], against: &[String]) -> serde_json::Result<String> {
    let entries: Vec<SideEntry> = pairs
        .iter()
        .flat_map(|p| {
            [
                SideEntry {
                    side: Side::Preset,
                    against: &[],
                    report: &p.preset,
                },
                SideEntry {
                    side: Side::Against,
                    against,
                    report: &p.against,
                },
            ]
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&entries)?;
    out.push('\n');
    Ok(out)
}

const HEADER: [&str; 9] = [
    "strategy",
    "side",
    "goodput_rps",
    "p50_ms",
    "p99_ms",
    "failed_rps",
    "timeout_rps",
    "refused_rps",
    "goodput_change",
];

/// One row's cells.
fn cells(side: Side, r: &RunReport, base: &RunReport) -> [String; 9] {
    [
        r.strategy.name().to_string(),
        side.name().to_string(),
        format!("{:.2}", r.goodput_rps),
        format!("{:.0}", r.latency_ms.p50),
        format!("{:.0}", r.latency_ms.p99),
        format!("{:.2}", r.failure_rps.failed),
        format!("{:.2}", r.failure_rps.timeout),
        format!("{:.2}", r.failure_rps.refused),
        match side {
            Side::Preset => String::new(),
            Side::Against => change(base.goodput_rps, r.goodput_rps),
        },
    ]
}

/// `+12.5%`, `-3.0%`, `0.0%`; `new` when the preset's side answered nothing.
fn change(before: f64, after: f64) -> String {
    if before == 0.0 {
        if after == 0.0 {
            "0.0%".into()
        } else {
            "new".into()
        }
    } else {
        format!("{:+.1}%", (after - before) / before * 100.0)
    }
}

/// CSV: a header, then a row per strategy and side.
pub fn csv(pairs: &[Pair]) -> String {
    let mut out = HEADER.join(",");
    out.push('\n');
    for p in pairs {
        for (side, r) in [(Side::Preset, &p.preset), (Side::Against, &p.against)] {
            out.push_str(&cells(side, r, &p.preset).join(","));
            out.push('\n');
        }
    }
    out
}

/// A Markdown table like `compare`'s, two rows per strategy, the change in goodput on the
/// `against` row.
pub fn table(scenario: &str, against: &[String], pairs: &[Pair]) -> String {
    let header = [
        "Strategy",
        "Side",
        "Goodput/s",
        "p50 ms",
        "p99 ms",
        "Failed/s",
        "Timeout/s",
        "Refused/s",
        "Goodput change",
    ];
    let mut rows: Vec<[String; 9]> = Vec::new();
    for p in pairs {
        rows.push(cells(Side::Preset, &p.preset, &p.preset));
        rows.push(cells(Side::Against, &p.against, &p.preset));
    }
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    // Names left, numbers right.
    let left = |i: usize| i < 2;
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if left(i) {
                    format!("{c:<w$}", w = widths[i])
                } else {
                    format!("{c:>w$}", w = widths[i])
                }
            })
            .collect();
        format!("| {} |\n", parts.join(" | "))
    };
    let mut out = format!(
        "{scenario}: every strategy as the preset says, then against {}\n\n",
        against.join(" ")
    );
    out.push_str(&line(&header.map(String::from)));
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if left(i) {
                "-".repeat(*w)
            } else {
                format!("{}:", "-".repeat(w - 1))
            }
        })
        .collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for r in &rows {
        out.push_str(&line(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_is_signed_and_says_when_there_was_nothing_before() {
        assert_eq!(change(10.0, 12.5), "+25.0%");
        assert_eq!(change(10.0, 7.0), "-30.0%");
        assert_eq!(change(0.0, 3.0), "new");
        assert_eq!(change(0.0, 0.0), "0.0%");
    }
}
