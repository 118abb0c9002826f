//! `--format table` (the default): the article-ready tables, Markdown where they compare.

use crate::report::against::{self, Pair};
use crate::report::{self, RealReport};
use crate::report::{RunReport, compare_table, run_table};
use crate::scenario::Scenario;
use crate::sweep::{self, SweepReport};

use super::{Exporter, reports};

/// The last line of a table that Ctrl-C or a limit cut short.
const PARTIAL_NOTE: &str = "PARTIAL: stopped by Ctrl-C or at a limit (stderr says which); the \
     figures cover the simulated time reached.\n";

/// Tables for people: a run's summary, the strategies side by side, a sweep's points.
#[derive(Debug, Clone, Copy)]
pub struct Table;

impl Exporter for Table {
    fn name(&self) -> &'static str {
        "table"
    }

    fn run(&self, scenario: &Scenario, run: &RunReport, complete: bool) -> anyhow::Result<String> {
        Ok(noted(run_table(scenario, run), complete))
    }

    fn compare(&self, scenario: &Scenario, runs: &[(RunReport, bool)]) -> anyhow::Result<String> {
        let complete = runs.iter().all(|(_, complete)| *complete);
        Ok(noted(compare_table(scenario, &reports(runs)), complete))
    }

    fn compare_against(
        &self,
        scenario: &Scenario,
        variants: &[Vec<String>],
        pairs: &[Pair],
    ) -> anyhow::Result<String> {
        let table = against::table(&scenario.name, variants, pairs);
        Ok(noted(table, against::complete(pairs)))
    }

    fn real_run(&self, scenario: &Scenario, run: &RealReport) -> anyhow::Result<String> {
        Ok(noted(
            report::real::run_table(scenario, run),
            !run.interrupted,
        ))
    }

    fn real_compare(&self, scenario: &Scenario, runs: &[RealReport]) -> anyhow::Result<String> {
        let complete = runs.iter().all(|r| !r.interrupted);
        Ok(noted(report::real::compare_table(scenario, runs), complete))
    }

    fn sweep(&self, sweep: &SweepReport) -> anyhow::Result<String> {
        Ok(sweep::table(sweep))
    }
}

/// A table, with the partial note under it when Ctrl-C or a limit cut the work short.
fn noted(table: String, complete: bool) -> String {
    if complete {
        table
    } else {
        format!("{table}{PARTIAL_NOTE}")
    }
}
