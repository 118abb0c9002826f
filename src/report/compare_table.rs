//! `compare`'s table: the strategies side by side on identical requests, the best named.

use std::fmt::Write as _;

use super::table::{Align::Left, Align::Right, MarkdownTable, rps, title};
use super::{RunReport, fmt_ms};
use crate::scenario::Scenario;
use crate::sim::pool::PoolKind;

/// `compare --format table`: the strategies side by side on identical requests.
/// Decimals the table writes its rates with (req/s), and its latencies (ms): the best is
/// decided on the figures as written (see [`super::limits::TABLE`]).
pub(super) const RATE_DECIMALS: usize = 2;
pub(super) const MS_DECIMALS: usize = 1;

pub fn compare_table(scenario: &Scenario, reports: &[RunReport]) -> String {
    let mut out = String::new();
    title(scenario, &mut out);
    let first = reports.first();
    let _ = writeln!(
        out,
        "preset {} · seed {} · every strategy sees the same requests, latencies and failures\n",
        first.map_or("", |r| r.preset.as_str()),
        scenario.seed
    );
    if reports.iter().all(|r| r.runs.is_some()) {
        runs_side_by_side(reports, &mut out);
    }
    let best = super::best(reports);
    let mut figures = Figures::new(reports, &best);
    figures.rates_and_latencies();
    figures.outcomes();
    figures.pools_and_theory(scenario);
    figures.table.render(&mut out);
    out.push('\n');
    let _ = writeln!(out, "{}", verdict(reports, &best));
    out
}

/// A `runs` load's runs, one row per run, one column per strategy: time and status.
fn runs_side_by_side(reports: &[RunReport], out: &mut String) {
    let mut headers = vec![("Run #", Right)];
    headers.extend(reports.iter().map(|r| (r.strategy.name(), Right)));
    let mut t = MarkdownTable::new(&headers);
    let n = reports
        .iter()
        .filter_map(|r| r.runs.as_ref().map(Vec::len))
        .max()
        .unwrap_or(0);
    for i in 0..n {
        let mut row = vec![(i + 1).to_string()];
        for r in reports {
            let cell = r
                .runs
                .as_ref()
                .and_then(|runs| runs.get(i))
                .map_or_else(String::new, |x| {
                    let status = x.status.split(' ').next().unwrap_or("");
                    format!("{} ms {status}", fmt_ms(x.time_ms))
                });
            row.push(cell);
        }
        t.row(row);
    }
    t.render(out);
    out.push('\n');
}

/// The figures of `compare`: one row per figure, one column per strategy (the best ones
/// marked in the header).
struct Figures<'a> {
    reports: &'a [RunReport],
    table: MarkdownTable,
}

impl<'a> Figures<'a> {
    fn new(reports: &'a [RunReport], best: &[usize]) -> Self {
        let names: Vec<String> = reports
            .iter()
            .enumerate()
            .map(|(i, r)| {
                if best.contains(&i) {
                    format!("{} (best)", r.strategy.name())
                } else {
                    r.strategy.name().to_string()
                }
            })
            .collect();
        let mut headers = vec![("", Left)];
        headers.extend(names.iter().map(|n| (n.as_str(), Right)));
        Figures {
            reports,
            table: MarkdownTable::new(&headers),
        }
    }

    /// A row named `name` holding `f` of each strategy's report.
    fn add(&mut self, name: &str, f: impl Fn(&RunReport) -> String) {
        let mut row = vec![name.to_string()];
        row.extend(self.reports.iter().map(f));
        self.table.row(row);
    }

    /// Goodput, the failure rates, and the latencies of answers and of failures.
    fn rates_and_latencies(&mut self) {
        self.add("goodput (req/s)", |r| {
            r.rate_text(r.goodput_rps, RATE_DECIMALS)
        });
        self.add("failed (req/s)", |r| {
            r.rate_text(r.failure_rps.failed, RATE_DECIMALS)
        });
        self.add("timeout (req/s)", |r| {
            r.rate_text(r.failure_rps.timeout, RATE_DECIMALS)
        });
        self.add("refused (req/s)", |r| {
            r.rate_text(r.failure_rps.refused, RATE_DECIMALS)
        });
        let answered = |r: &RunReport, ms: f64| r.latency_ms.text(ms, MS_DECIMALS, "-");
        self.add("answered mean (ms)", |r| answered(r, r.latency_ms.mean));
        self.add("answered p50 (ms)", |r| answered(r, r.latency_ms.p50));
        self.add("answered p99 (ms)", |r| answered(r, r.latency_ms.p99));
        if self.reports.iter().any(|r| r.clients.is_some()) {
            self.add("clients never answered", |r| {
                r.clients.map_or("-".to_string(), |c| {
                    format!("{}/{}", c.never_answered, c.count)
                })
            });
        }
        let failing = |r: &RunReport, ms: f64| r.failed_latency_ms.text(ms, MS_DECIMALS, "-");
        self.add("to failure p50 (ms)", |r| {
            failing(r, r.failed_latency_ms.p50)
        });
        self.add("to failure p99 (ms)", |r| {
            failing(r, r.failed_latency_ms.p99)
        });
    }

    /// How many requests ended each way, and how many were still in flight.
    fn outcomes(&mut self) {
        self.add("success", |r| r.requests.success.to_string());
        self.add("partial", |r| r.requests.partial.to_string());
        self.add("failed", |r| r.requests.failed.to_string());
        self.add("timeout", |r| r.requests.timeout.to_string());
        self.add("refused", |r| r.requests.refused.to_string());
        self.add("in flight at end", |r| r.requests.in_flight.to_string());
    }

    /// The pools' extremes, theory's ceiling and bottleneck, and what limited each run.
    fn pools_and_theory(&mut self, scenario: &Scenario) {
        self.add("max queued", |r| {
            let max = r.pools.iter().map(|p| p.max_queue).max();
            max.unwrap_or(0).to_string()
        });
        self.add("rejected", |r| {
            r.pools.iter().map(|p| p.rejected).sum::<u64>().to_string()
        });
        self.add("largest pool", |r| {
            r.pools
                .iter()
                .filter(|p| p.kind != PoolKind::Tomcat)
                .map(|p| p.largest_pool_size)
                .max()
                .map_or_else(|| "-".to_string(), |n| n.to_string())
        });
        self.add("ceiling (req/s)", |r| {
            let ceiling = r.theory.prediction.ceiling_rps;
            ceiling.map_or_else(|| "unbounded".into(), rps)
        });
        self.add("bottleneck", |r| {
            let bottleneck = r.theory.prediction.bottleneck.clone();
            bottleneck.unwrap_or_else(|| "-".into())
        });
        // The server's work, late responses included (goodput hides it in a retry storm).
        self.add("server responses (req/s)", |r| {
            r.rate_text(r.server_responses_rps, RATE_DECIMALS)
        });
        self.add("limited by", |r| super::limited_by(scenario, r));
    }
}

/// The sentence under the compare table naming the best strategy and why.
fn verdict(reports: &[RunReport], best: &[usize]) -> String {
    let names: Vec<&str> = best.iter().map(|&i| reports[i].strategy.name()).collect();
    let Some(first) = best.first().map(|&i| &reports[i]) else {
        return "best: none (no request was answered)".to_string();
    };
    // Starving clients are not in the answered latencies: say so beside the winner.
    let starving = first
        .clients
        .filter(|c| c.never_answered > 0)
        .map_or(String::new(), |c| {
            format!(
                ", {} of {} clients never answered",
                c.never_answered, c.count
            )
        });
    if !reports.iter().all(RunReport::has_rates) {
        let q = &first.requests;
        return format!(
            "best: {} — most answered, {} (answered p99 {:.MS_DECIMALS$} ms{starving}); a run \
             ended at t = 0, so no rate can be measured and none ranks them",
            names.join(" = "),
            q.success + q.partial,
            first.latency_ms.p99
        );
    }
    format!(
        "best: {} — highest goodput {:.RATE_DECIMALS$} req/s (answered p99 {:.MS_DECIMALS$} \
         ms{starving}); goodput counts success and partial answers only, never failed, \
         timed-out or refused requests",
        names.join(" = "),
        first.goodput_rps,
        first.latency_ms.p99
    )
}
