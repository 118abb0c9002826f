//! `compare PRESET --against KEY=VALUE [--against ...]`: every strategy played as the preset
//! says and again with each `--against`'s overrides (a variant each), on the same requests,
//! side by side: the rows and JSON entries each format in `src/export` writes.

use std::borrow::Cow;

use serde::Serialize;

use super::{Align, MarkdownTable, RunReport};

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

/// One strategy on every side: the preset's, and one per variant.
#[derive(Debug, Clone)]
pub struct Pair {
    pub preset: RunReport,
    /// Each variant's report, in the order of the `--against`s.
    pub against: Vec<RunReport>,
    /// Whether each side (the preset's, then each variant's) ran to its end: Ctrl-C or a
    /// limit cuts one short.
    pub done: Vec<bool>,
}

impl Pair {
    /// Every side in order (the variant's place for an `against` side), each with whether
    /// it ran to its end.
    pub fn sides(&self) -> Vec<(Side, usize, &RunReport, bool)> {
        let done = |i: usize| self.done.get(i).copied().unwrap_or(false);
        std::iter::once((Side::Preset, 0, &self.preset, done(0)))
            .chain(
                self.against
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (Side::Against, i, r, done(i + 1))),
            )
            .collect()
    }
}

/// A side's name in a table or CSV: `preset`, `against`, or with several variants
/// `against 1`, `against 2`...
fn side_name(side: Side, variant: usize, variants: usize) -> String {
    match side {
        Side::Against if variants > 1 => format!("against {}", variant + 1),
        _ => side.name().to_string(),
    }
}

/// Whether every side of every pair ran to its end.
pub fn complete(pairs: &[Pair]) -> bool {
    pairs
        .iter()
        .all(|p| p.done.len() == p.against.len() + 1 && p.done.iter().all(|&d| d))
}

/// A JSON entry: a run report as it is written out (`RunReport::for_output`) with the side it
/// is on and the overrides that side has.
#[derive(Debug, Serialize)]
pub struct SideEntry<'a> {
    side: Side,
    against: &'a [String],
    #[serde(flatten)]
    report: Cow<'a, RunReport>,
}

/// The JSON entries, per strategy `"side": "preset"` then a `"side": "against"` per variant,
/// each with whether it ran to its end; each is `run --format json`'s object plus `side` and
/// `against` (the variant's overrides; empty on the preset's side).
pub fn entries<'a>(pairs: &'a [Pair], variants: &'a [Vec<String>]) -> Vec<(SideEntry<'a>, bool)> {
    pairs
        .iter()
        .flat_map(|p| {
            p.sides().into_iter().map(|(side, i, report, done)| {
                let against = match side {
                    Side::Preset => &[][..],
                    Side::Against => variants.get(i).map_or(&[][..], Vec::as_slice),
                };
                (
                    SideEntry {
                        side,
                        against,
                        report: report.for_output(),
                    },
                    done,
                )
            })
        })
        .collect()
}

/// The columns: the CSV's header, the table's heading and how it aligns.
const COLUMNS: [(&str, &str, Align); 9] = [
    ("strategy", "Strategy", Align::Left),
    ("side", "Side", Align::Left),
    ("goodput_rps", "Goodput/s", Align::Right),
    ("p50_ms", "p50 ms", Align::Right),
    ("p99_ms", "p99 ms", Align::Right),
    ("failed_rps", "Failed/s", Align::Right),
    ("timeout_rps", "Timeout/s", Align::Right),
    ("refused_rps", "Refused/s", Align::Right),
    ("goodput_change_pct", "Goodput change", Align::Right),
];

/// Where the cells go: a table's say `-` for a figure that does not exist and `+12.5%` for a
/// change; a CSV's leave the cell empty and write the change as a number of percent.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Table,
    Csv,
}

impl Form {
    fn none(self) -> &'static str {
        match self {
            Form::Table => "-",
            Form::Csv => "",
        }
    }
}

/// One row's cells; a rate of a run that lasted no time (`RunReport::has_rates`), and a
/// change in goodput to or from one, does not exist.
fn cells(side: (Side, String), r: &RunReport, base: &RunReport, form: Form) -> Vec<String> {
    let (side, name) = side;
    let none = form.none();
    let rate = |x: f64| {
        if r.has_rates() {
            format!("{x:.2}")
        } else {
            none.to_string()
        }
    };
    vec![
        r.strategy.name().to_string(),
        name,
        rate(r.goodput_rps),
        r.latency_ms.text(r.latency_ms.p50, 0, none),
        r.latency_ms.text(r.latency_ms.p99, 0, none),
        rate(r.failure_rps.failed),
        rate(r.failure_rps.timeout),
        rate(r.failure_rps.refused),
        match side {
            Side::Preset => String::new(),
            Side::Against if r.has_rates() && base.has_rates() => {
                change(base.goodput_rps, r.goodput_rps, form)
            }
            Side::Against => none.to_string(),
        },
    ]
}

/// Every row, per strategy the preset's then each variant's, the change in goodput on each
/// `against` row.
fn rows(pairs: &[Pair], form: Form) -> impl Iterator<Item = Vec<String>> + '_ {
    pairs.iter().flat_map(move |p| {
        let variants = p.against.len();
        p.sides().into_iter().map(move |(side, i, r, _)| {
            cells((side, side_name(side, i, variants)), r, &p.preset, form)
        })
    })
}

/// The change in goodput: `+12.5%`, `-3.0%`, `0.0%` in a table, `12.5`, `-3.0`, `0.0` in a
/// CSV; `new` (an empty CSV cell) when the preset's side answered nothing and this one did.
fn change(before: f64, after: f64, form: Form) -> String {
    if before == 0.0 && after == 0.0 {
        return match form {
            Form::Table => "0.0%".into(),
            Form::Csv => "0.0".into(),
        };
    }
    let percent = (before != 0.0).then(|| (after - before) / before * 100.0);
    match (percent, form) {
        (Some(p), Form::Table) => format!("{p:+.1}%"),
        (Some(p), Form::Csv) => format!("{p:.1}"),
        (None, Form::Table) => "new".into(),
        (None, Form::Csv) => String::new(),
    }
}

/// CSV: a header, then a row per strategy and side (a rate that does not exist is an empty
/// cell, as in `compare`'s CSV).
pub fn csv(pairs: &[Pair]) -> String {
    let mut out = COLUMNS.map(|(name, _, _)| name).join(",");
    out.push('\n');
    for row in rows(pairs, Form::Csv) {
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// A Markdown table like `compare`'s, a row per strategy and side, the change in goodput on
/// each `against` row; the line above it names each variant's overrides.
pub fn table(scenario: &str, variants: &[Vec<String>], pairs: &[Pair]) -> String {
    let mut t = MarkdownTable::new(&COLUMNS.map(|(_, heading, align)| (heading, align)));
    // A rate that does not exist reads `-`, as in `compare`'s table.
    for row in rows(pairs, Form::Table) {
        t.row(row);
    }
    let against = match variants {
        [one] => one.join(" "),
        _ => variants
            .iter()
            .enumerate()
            .map(|(i, v)| format!("({}) {}", i + 1, v.join(" ")))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let each = if variants.len() > 1 { "each of " } else { "" };
    let mut out =
        format!("{scenario}: every strategy as the preset says, then against {each}{against}\n\n");
    t.render(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_is_signed_and_says_when_there_was_nothing_before() {
        assert_eq!(change(10.0, 12.5, Form::Table), "+25.0%");
        assert_eq!(change(10.0, 7.0, Form::Table), "-30.0%");
        assert_eq!(change(0.0, 3.0, Form::Table), "new");
        assert_eq!(change(0.0, 0.0, Form::Table), "0.0%");
    }

    #[test]
    fn a_csv_change_is_a_number_of_percent_or_nothing() {
        assert_eq!(change(10.0, 12.5, Form::Csv), "25.0");
        assert_eq!(change(10.0, 7.0, Form::Csv), "-30.0");
        assert_eq!(change(0.0, 3.0, Form::Csv), "");
        assert_eq!(change(0.0, 0.0, Form::Csv), "0.0");
    }
}
