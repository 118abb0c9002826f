//! The compare view's table columns: which figures the variants' table adds where its rows
//! differ, and how the columns give way on a narrow screen (`compare.rs` draws them).

use crate::report::RunReport;
use crate::tui::compare_runs::{CompareRuns, ComparedBy};

use super::fmt;

/// Width of the strategy column (`* 1 sequential`), the narrowest the label column gets.
pub(super) const NAME_WIDTH: usize = 15;

/// Columns of goodput, p50, p99 and failed/s, with the gap before "limited by".
pub(super) const FIGURES_WIDTH: usize = 38;

/// The columns "limited by" keeps when variants' labels are long: a quarter of what the
/// figures leave, within these bounds.
const LIMIT_MIN: usize = 12;
const LIMIT_MAX: usize = 30;

/// A column the variants' table adds where its rows differ in it, so a pattern that changes
/// how pages are answered but not how many shows what it changes (`circuit-breaker`: the
/// same goodput and percentiles with and without the breaker, but a mean page of 823 ms
/// against 1174, 452 calls failed fast, 488 pages with the fallback against 410).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extra {
    /// The answered mean, in ms.
    Mean,
    /// Calls the breakers failed fast (`CallNotPermittedException`), the clients' breaker's
    /// unsent requests included.
    FastFailed,
    /// Requests answered with a fallback.
    Partial,
}

impl Extra {
    /// In the order they give way when the table is narrow (the last first).
    const ALL: [Extra; 3] = [Extra::Mean, Extra::FastFailed, Extra::Partial];

    pub(super) fn heading(self) -> &'static str {
        match self {
            Extra::Mean => "mean ms",
            Extra::FastFailed => "fast-failed",
            Extra::Partial => "partial",
        }
    }

    pub(super) fn width(self) -> usize {
        self.heading().len() + 2
    }

    /// The cell as the table writes it.
    pub(super) fn cell(self, r: &RunReport) -> String {
        match self {
            Extra::Mean if r.latency_ms.count == 0 => "-".to_string(),
            Extra::Mean => fmt::ms(r.latency_ms.mean),
            Extra::FastFailed => fmt::count(fast_failed(r)),
            Extra::Partial => fmt::count(r.requests.partial),
        }
    }
}

/// Calls a run's breakers failed at once, and requests its clients' breaker did not send.
fn fast_failed(r: &RunReport) -> u64 {
    r.resilience.as_ref().map_or(0, |x| {
        x.breakers.values().map(|b| b.not_permitted).sum::<u64>()
            + x.client_breaker.as_ref().map_or(0, |b| b.not_permitted)
    })
}

pub(super) fn extras_width(extras: &[Extra]) -> usize {
    extras.iter().map(|e| e.width()).sum()
}

/// The table's columns: the label's width, whether p50 and "limited by" are shown (and how
/// wide the latter is), and the extra columns.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TableColumns {
    pub(super) label: usize,
    pub(super) p50: bool,
    pub(super) extras: Vec<Extra>,
    /// "limited by"'s width; 0: not shown.
    pub(super) limit: usize,
}

/// Goodput, p99 and failed/s: always there.
const FIXED_WIDTH: usize = 27;
/// The p50 column.
const P50_WIDTH: usize = 8;
/// The widest and narrowest a variant's label column gets before the other columns give way.
const LABEL_MAX: usize = 36;
const LABEL_MIN: usize = 24;

impl TableColumns {
    /// The figures' columns, without the label and "limited by".
    fn figures(&self) -> usize {
        FIXED_WIDTH + if self.p50 { P50_WIDTH } else { 0 } + extras_width(&self.extras)
    }
}

/// The strategies' table: every column, "limited by" taking what is left. The variants':
/// the labels readable first (up to [`LABEL_MAX`]), with the extra columns in which two rows
/// differ as written; in `inner` columns too narrow for all, "limited by" gives way first,
/// then p50, then the labels down to [`LABEL_MIN`], then the extra columns (the last first).
pub(super) fn columns(
    runs: &CompareRuns,
    reports: &[(usize, RunReport)],
    inner: usize,
) -> TableColumns {
    if runs.compared == ComparedBy::Strategies {
        return TableColumns {
            label: NAME_WIDTH,
            p50: true,
            extras: Vec::new(),
            limit: inner.saturating_sub(NAME_WIDTH + FIGURES_WIDTH),
        };
    }
    let longest = runs
        .rows
        .iter()
        .map(|r| fmt::columns(r.shown()) + 2)
        .max()
        .unwrap_or(0)
        .max(NAME_WIDTH);
    let extras: Vec<Extra> = Extra::ALL
        .into_iter()
        .filter(|e| {
            let mut cells = reports.iter().map(|(_, r)| e.cell(r));
            cells.next().is_some_and(|first| cells.any(|c| c != first))
        })
        .collect();
    let mut c = TableColumns {
        label: longest,
        p50: true,
        extras,
        limit: LIMIT_MIN,
    };
    let need = |c: &TableColumns, label: usize| {
        label + c.figures() + if c.limit > 0 { 2 + c.limit } else { 0 }
    };
    loop {
        // The labels keep LABEL_MAX columns while "limited by" or p50 can give way, then
        // LABEL_MIN while the extra columns can.
        let label = if c.limit > 0 || c.p50 {
            longest.min(LABEL_MAX)
        } else {
            longest.min(LABEL_MIN)
        };
        if need(&c, label) <= inner {
            break;
        }
        if c.limit > 0 {
            c.limit = 0;
        } else if c.p50 {
            c.p50 = false;
        } else if c.extras.pop().is_none() {
            break;
        }
    }
    if c.limit > 0 {
        // "limited by" keeps a quarter of what the figures leave, the labels the rest.
        let left = inner.saturating_sub(c.figures() + 2);
        let limit = (left / 4).clamp(LIMIT_MIN, LIMIT_MAX);
        c.label = longest.min(left.saturating_sub(limit)).max(NAME_WIDTH);
        c.limit = left.saturating_sub(c.label);
    } else {
        c.label = longest
            .min(inner.saturating_sub(c.figures()))
            .max(NAME_WIDTH);
    }
    c
}
