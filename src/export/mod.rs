//! The output formats of `run`, `compare` and `sweep` (`--format`), after hyperfine's
//! exporters: one file per format, each writing every report a command prints in that format.
//!
//! The formats print real runs and sweeps too, so this module reads `report`, `real` and
//! `sweep` reports: it sits below all three in the layers, where the command line uses it.

mod csv;
mod json;
mod table;

use crate::real::RealReport;
use crate::report::RunReport;
use crate::scenario::Scenario;
use crate::sweep::SweepReport;

pub use csv::Csv;
pub use json::Json;
pub use table::Table;

/// One output format: how each report a command prints is written in it.
pub trait Exporter: Sync {
    /// The `--format` value that picks it.
    fn name(&self) -> &'static str;

    /// `run`: one strategy's report; `complete` is false when Ctrl-C cut the run short.
    fn run(&self, scenario: &Scenario, run: &RunReport, complete: bool) -> anyhow::Result<String>;

    /// `compare`: every strategy played so far, each with whether it ran to the end.
    fn compare(&self, scenario: &Scenario, runs: &[(RunReport, bool)]) -> anyhow::Result<String>;

    /// `run --engine real`.
    fn real_run(&self, scenario: &Scenario, run: &RealReport) -> anyhow::Result<String>;

    /// `compare --engine real`.
    fn real_compare(&self, scenario: &Scenario, runs: &[RealReport]) -> anyhow::Result<String>;

    /// `sweep`: every point that finished.
    fn sweep(&self, sweep: &SweepReport) -> anyhow::Result<String>;
}

/// Every format, the default first. A new format is a file beside these and a line here.
pub const EXPORTERS: [&dyn Exporter; 3] = [&Table, &Json, &Csv];

/// The format named `name`, if there is one.
pub fn exporter(name: &str) -> Option<&'static dyn Exporter> {
    EXPORTERS.into_iter().find(|e| e.name() == name)
}

/// The formats' names, the default first (the `--format` values).
pub fn names() -> impl Iterator<Item = &'static str> {
    EXPORTERS.into_iter().map(|e| e.name())
}

/// The reports of runs, without whether each ran to the end.
fn reports(runs: &[(RunReport, bool)]) -> Vec<RunReport> {
    runs.iter().map(|(r, _)| r.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::{EXPORTERS, exporter, names};

    #[test]
    fn formats_have_distinct_names_found_by_name_with_table_the_default() {
        assert_eq!(names().next(), Some("table"));
        let distinct: std::collections::BTreeSet<&str> = names().collect();
        assert_eq!(distinct.len(), EXPORTERS.len());
        assert_eq!(names().collect::<Vec<_>>(), ["table", "json", "csv"]);
        assert_eq!(exporter("csv").map(|e| e.name()), Some("csv"));
        assert!(exporter("xml").is_none());
    }
}
