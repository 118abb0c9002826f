//! The output formats of `run`, `compare` (`--against` too) and `sweep` (`--format`), after
//! hyperfine's exporters: one file per format, each writing every report a command prints in
//! that format.
//!
//! The formats print real runs and sweeps too, so this module reads `report`, `real` and
//! `sweep` reports: it sits below all three in the layers, where the command line uses it.

mod csv;
mod json;
mod table;

use crate::report::RealReport;
use crate::report::RunReport;
use crate::report::against::Pair;
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

    /// `compare --against`: every strategy played so far as the preset says and with the
    /// overrides `against`, each side with whether it ran to the end.
    fn compare_against(
        &self,
        scenario: &Scenario,
        variants: &[Vec<String>],
        pairs: &[Pair],
    ) -> anyhow::Result<String>;

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
    use super::{EXPORTERS, Exporter, Json, Table, exporter, names};
    use crate::report::RunReport;
    use crate::report::against::Pair;
    use crate::scenario::{self, Strategy};
    use crate::time::Nanos;

    /// ironthread's bulkhead for a second, on both sides; the against side cut short when
    /// `done` says so.
    fn pairs(done: bool) -> (scenario::Scenario, Vec<Pair>) {
        let s = scenario::load("ironthread", &[]).expect("built-in preset");
        let engine = crate::report::play(&s, Strategy::Bulkhead, Nanos::from_secs(1));
        let r = RunReport::new(&s, &engine);
        let pair = Pair {
            preset: r.clone(),
            against: vec![r],
            done: vec![true, done],
        };
        (s, vec![pair])
    }

    #[test]
    fn compare_against_cut_short_is_marked_partial_as_compare_is() {
        let overrides = [vec!["server.threads=20".to_string()]];
        let (s, whole) = pairs(true);
        let (_, cut) = pairs(false);
        let table = Table
            .compare_against(&s, &overrides, &whole)
            .expect("a table");
        assert!(!table.contains("PARTIAL"), "{table}");
        let table = Table
            .compare_against(&s, &overrides, &cut)
            .expect("a table");
        let last = table.lines().last().unwrap_or_default();
        assert!(last.starts_with("PARTIAL: "), "{table}");
        let json = |pairs| -> Vec<serde_json::Value> {
            let text = Json.compare_against(&s, &overrides, pairs).expect("JSON");
            serde_json::from_str(&text).expect("a JSON array")
        };
        let whole = json(&whole);
        assert!(whole.iter().all(|e| e.get("interrupted").is_none()));
        let cut = json(&cut);
        assert_eq!(cut[0].get("interrupted"), None);
        assert_eq!(cut[1]["interrupted"], true);
        assert_eq!(cut[1]["side"], "against");
    }

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
