//! `--format csv`: the runs of a `runs` load, or one summary row per strategy; a sweep's
//! points.

use crate::report::RealReport;
use crate::report::against::{self, Pair};
use crate::report::{RunReport, csv_field as field};
use crate::scenario::Scenario;
use crate::sweep::{self, SweepReport};

use super::{Exporter, reports};

/// Comma-separated rows for spreadsheets (RFC 4180 quoting).
#[derive(Debug, Clone, Copy)]
pub struct Csv;

impl Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn run(&self, _: &Scenario, run: &RunReport, _complete: bool) -> anyhow::Result<String> {
        Ok(run_csv(run))
    }

    fn compare(&self, _: &Scenario, runs: &[(RunReport, bool)]) -> anyhow::Result<String> {
        Ok(compare_csv(&reports(runs)))
    }

    fn compare_against(
        &self,
        _: &Scenario,
        _: &[Vec<String>],
        pairs: &[Pair],
    ) -> anyhow::Result<String> {
        Ok(against::csv(pairs))
    }

    fn real_run(&self, _: &Scenario, run: &RealReport) -> anyhow::Result<String> {
        Ok(run_csv(&run.run))
    }

    fn real_compare(&self, _: &Scenario, runs: &[RealReport]) -> anyhow::Result<String> {
        let runs: Vec<RunReport> = runs.iter().map(|r| r.run.clone()).collect();
        Ok(compare_csv(&runs))
    }

    fn sweep(&self, sweep: &SweepReport) -> anyhow::Result<String> {
        Ok(sweep::csv(sweep))
    }
}

const SUMMARY_HEADER: &str = "preset,strategy,seed,simulated_s,sent,completed,success,partial,\
failed,timeout,refused,throughput_rps,goodput_rps,server_responses_rps,mean_ms,p50_ms,p90_ms,\
p99_ms,p999_ms,max_ms,max_queue,rejected,ceiling_rps,failed_mean_ms,failed_p99_ms";

fn summary_row(r: &RunReport) -> String {
    let q = &r.requests;
    let l = &r.latency_ms;
    let max_queue = r.pools.iter().map(|p| p.max_queue).max().unwrap_or(0);
    let rejected: u64 = r.pools.iter().map(|p| p.rejected).sum();
    let ceiling = r
        .theory
        .prediction
        .ceiling_rps
        .map_or_else(String::new, |c| format!("{c:.3}"));
    // A run that ended at t = 0 has no rates: empty cells.
    let rate = |x: f64| {
        if r.has_rates() {
            format!("{x:.3}")
        } else {
            String::new()
        }
    };
    // No latency measured (nothing answered, nothing failed): empty cells, not 0 ms.
    let ms = |value: f64| l.text(value, 3, "");
    let e = &r.failed_latency_ms;
    let failed_ms = |value: f64| e.text(value, 3, "");
    format!(
        "{},{},{},{:.3},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        field(&r.preset),
        r.strategy,
        r.seed,
        r.simulated_s,
        q.sent,
        q.completed,
        q.success,
        q.partial,
        q.failed,
        q.timeout,
        q.refused,
        rate(r.throughput_rps),
        rate(r.goodput_rps),
        rate(r.server_responses_rps),
        ms(l.mean),
        ms(l.p50),
        ms(l.p90),
        ms(l.p99),
        ms(l.p999),
        ms(l.max),
        max_queue,
        rejected,
        ceiling,
        failed_ms(e.mean),
        failed_ms(e.p99)
    )
}

/// `run --format csv`: the summary row, as `compare` writes one per strategy, whatever the
/// load (a `runs` load's runs are in the table and the JSON).
fn run_csv(report: &RunReport) -> String {
    compare_csv(std::slice::from_ref(report))
}

/// `compare --format csv`: one summary row per strategy.
fn compare_csv(reports: &[RunReport]) -> String {
    let mut out = String::from(SUMMARY_HEADER);
    out.push('\n');
    for r in reports {
        out.push_str(&summary_row(r));
        out.push('\n');
    }
    out
}
