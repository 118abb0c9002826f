//! `--format json`: the reports' serde form (the schema the README documents).

use crate::report::RealReport;
use crate::report::against::{self, Pair};
use crate::report::{RunReport, to_json};
use crate::scenario::Scenario;
use crate::sweep::SweepReport;

use super::Exporter;

/// Pretty JSON; a run Ctrl-C stopped says `"interrupted": true`.
#[derive(Debug, Clone, Copy)]
pub struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn run(&self, _: &Scenario, run: &RunReport, complete: bool) -> anyhow::Result<String> {
        marked(&run.for_output(), complete)
    }

    fn compare(&self, _: &Scenario, runs: &[(RunReport, bool)]) -> anyhow::Result<String> {
        let runs: Vec<_> = runs.iter().map(|(r, c)| (r.for_output(), *c)).collect();
        marked_all(&runs)
    }

    fn compare_against(
        &self,
        _: &Scenario,
        variants: &[Vec<String>],
        pairs: &[Pair],
    ) -> anyhow::Result<String> {
        marked_all(&against::entries(pairs, variants))
    }

    fn real_run(&self, _: &Scenario, run: &RealReport) -> anyhow::Result<String> {
        to_json(run)
    }

    fn real_compare(&self, _: &Scenario, runs: &[RealReport]) -> anyhow::Result<String> {
        to_json(&runs)
    }

    fn sweep(&self, sweep: &SweepReport) -> anyhow::Result<String> {
        to_json(sweep)
    }
}

/// A report as pretty JSON; a run Ctrl-C stopped says `"interrupted": true` as its first field
/// (inserted into the text so the other fields keep their order).
fn marked<T: serde::Serialize>(report: &T, complete: bool) -> anyhow::Result<String> {
    let text = to_json(report)?;
    Ok(match (complete, text.strip_prefix("{\n")) {
        (false, Some(rest)) => format!("{{\n  \"interrupted\": true,\n{rest}"),
        _ => text,
    })
}

/// Reports as a pretty JSON array, each marked as [`marked`] marks one.
fn marked_all<T: serde::Serialize>(reports: &[(T, bool)]) -> anyhow::Result<String> {
    if reports.iter().all(|(_, complete)| *complete) {
        let all: Vec<&T> = reports.iter().map(|(r, _)| r).collect();
        return to_json(&all);
    }
    let mut items = Vec::with_capacity(reports.len());
    for (report, complete) in reports {
        let text = marked(report, *complete)?;
        let indented: Vec<String> = text.lines().map(|l| format!("  {l}")).collect();
        items.push(indented.join("\n"));
    }
    Ok(format!("[\n{}\n]\n", items.join(",\n")))
}
