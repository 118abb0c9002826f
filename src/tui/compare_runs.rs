//! The compare view's runs, one row each: every strategy on the scenario as it is (`c`), or
//! the strategy on screen on variants of the scenario (`C`): as it is now, and with each
//! pattern the preset's `[[figures]]` set (a queue timeout, adaptive LIFO, a client breaker,
//! retries with backoff...) or the person typed. Every row replays the same requests (same
//! seed) from t = 0, with the live changes and faults of the run on screen.

use crate::scenario::{self, Scenario, ScenarioError};
use crate::sim::{Command, Engine};

/// What the rows differ in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparedBy {
    /// `c`: one row per strategy, in [`crate::scenario::Strategy::ALL`] order.
    Strategies,
    /// `C`: one row per variant of the scenario, all on the strategy on screen.
    Variants,
}

/// One row of the compare view.
#[derive(Debug)]
pub struct CompareRow {
    /// `as now`, or the variant's overrides joined by `, ` (strategy rows: empty, the table
    /// names the strategy).
    pub label: String,
    /// The variant's overrides, `--set` syntax (empty for a strategy and for `as now`).
    pub sets: Vec<String>,
    /// What the preset's figures call the pattern these overrides set, shown instead of them.
    pub name: Option<String>,
    /// The run, or why the variant's scenario did not load (the overrides error).
    pub run: Result<Engine, ScenarioError>,
}

/// The label of the run as it is on screen among the variants.
pub const AS_NOW: &str = "as now";

impl CompareRow {
    /// A strategy's row, or `as now`.
    pub fn of(label: &str, engine: Engine) -> CompareRow {
        CompareRow {
            label: label.to_string(),
            sets: Vec::new(),
            name: None,
            run: Ok(engine),
        }
    }

    /// A variant's row: its engine, or the error its overrides gave.
    pub fn variant(sets: Vec<String>, run: Result<Engine, ScenarioError>) -> CompareRow {
        CompareRow {
            label: label_of(&sets),
            sets,
            name: None,
            run,
        }
    }

    /// The same row shown under the name the preset's figures give its pattern.
    pub fn named(self, name: Option<String>) -> CompareRow {
        CompareRow { name, ..self }
    }

    /// What the table and charts call the row: its pattern's name, else its label.
    pub fn shown(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.label)
    }

    pub fn engine(&self) -> Option<&Engine> {
        self.run.as_ref().ok()
    }

    /// Why the variant did not load, on one line (for its table row and the status line).
    pub fn error_line(&self) -> Option<String> {
        self.run.as_ref().err().map(one_line)
    }
}

/// An overrides error on one line: it shows in a table row or on the status line.
pub fn one_line(error: &ScenarioError) -> String {
    error
        .to_string()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The compare view's rows, and what they compare.
#[derive(Debug)]
pub struct CompareRuns {
    pub compared: ComparedBy,
    pub rows: Vec<CompareRow>,
}

impl CompareRuns {
    /// The engines of the rows that have one, in row order.
    pub fn engines(&self) -> impl Iterator<Item = &Engine> {
        self.rows.iter().filter_map(CompareRow::engine)
    }

    pub fn engines_mut(&mut self) -> impl Iterator<Item = &mut Engine> {
        self.rows.iter_mut().filter_map(|r| r.run.as_mut().ok())
    }
}

/// A variant's label: its overrides joined by `, ` (`as now` without any).
pub fn label_of(sets: &[String]) -> String {
    if sets.is_empty() {
        AS_NOW.to_string()
    } else {
        sets.join(", ")
    }
}

/// Each distinct, non-empty `set` list of the preset's `[[figures]]`, in the preset's order:
/// the patterns the preset's figures measure (an empty list is the preset as it is, the
/// `as now` row).
/// The pattern a `set` list stands for, as the first figure with exactly that list names it:
/// its `what` up to the first colon, without a trailing time window (`shedding: requests
/// that waited...` is `shedding`; `no retries at all, 60-70 s: goodput` is `no retries at
/// all`).
pub fn figure_name(scenario: &Scenario, sets: &[String]) -> Option<String> {
    let figure = scenario.figures.iter().find(|f| f.sets == sets)?;
    let head = figure.what.split(':').next().unwrap_or(&figure.what).trim();
    let name = match head.rsplit_once(", ") {
        Some((before, window)) if is_time_window(window) => before,
        _ => head,
    };
    (!name.is_empty()).then(|| name.to_string())
}

/// `60-70 s`, `0-30 s`: a span of seconds.
fn is_time_window(text: &str) -> bool {
    let Some(span) = text.strip_suffix(" s") else {
        return false;
    };
    let mut ends = span.split('-');
    let number =
        |t: Option<&str>| t.is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
    number(ends.next()) && number(ends.next()) && ends.next().is_none()
}

pub fn figure_sets(scenario: &Scenario) -> Vec<Vec<String>> {
    let mut lists: Vec<Vec<String>> = Vec::new();
    for figure in &scenario.figures {
        if !figure.sets.is_empty() && !lists.contains(&figure.sets) {
            lists.push(figure.sets.clone());
        }
    }
    lists
}

/// What a variant is built from besides its own overrides: where the run came from and
/// what has changed since it started.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The `--set` overrides the run was started with.
    pub overrides: &'a [String],
    /// The preset as loaded with them.
    pub preset: &'a Scenario,
    /// What `r` rebuilds from: the preset with the seed, `--duration` and the `v` / `u`
    /// switches of the run.
    pub run: &'a Scenario,
    /// The run on screen: its strategy, topology and live faults.
    pub engine: &'a Engine,
    /// The live changes made with keys since the run started, in order.
    pub changes: &'a [Command],
}

impl Origin<'_> {
    /// The run again from t = 0 as it is now: what `r` rebuilds, with the live changes and
    /// faults.
    pub fn as_now(&self) -> Engine {
        self.replay(self.run)
    }

    /// The run's source loaded again with the original overrides and then `sets`, on the
    /// run's seed, duration and `v` / `u` switches (unless `sets` changed those), replayed
    /// with the live changes and faults. An original override of a key `sets` sets too
    /// gives way (the overrides refuse a key given twice). The error is the overrides error,
    /// naming the key and what it allows.
    pub fn variant(&self, sets: &[String]) -> Result<Engine, ScenarioError> {
        let key = |set: &String| set.split('=').next().unwrap_or("").trim().to_string();
        let keys: Vec<String> = sets.iter().map(key).collect();
        let all: Vec<String> = self
            .overrides
            .iter()
            .filter(|o| !keys.contains(&key(o)))
            .chain(sets)
            .cloned()
            .collect();
        let mut s = scenario::load(&self.run.source, &all)?;
        s.seed = self.run.seed;
        s.duration = self.run.duration;
        if s.server.threads == self.preset.server.threads {
            s.server.threads = self.run.server.threads;
        }
        if s.strategy.unbounded_threads == self.preset.strategy.unbounded_threads {
            s.strategy.unbounded_threads = self.run.strategy.unbounded_threads;
        }
        Ok(self.replay(&s))
    }

    /// A fresh engine of `scenario` on the run's strategy, the live changes applied at t = 0
    /// (to the pool playing the same role), then the live faults. A change or fault this
    /// engine refuses (a pool it lacks, a load it does not have) is left out: the others
    /// still apply.
    fn replay(&self, scenario: &Scenario) -> Engine {
        let mut e = Engine::new(scenario, self.engine.strategy());
        for &command in self.changes {
            if let Some(command) = command.for_topology(self.engine.topology(), e.topology()) {
                let _refused = e.apply(command);
            }
        }
        for (service, fault) in super::sweep::live_faults(self.engine) {
            let _refused = e.apply(Command::InjectFault { service, fault });
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metastable() -> Scenario {
        scenario::load("metastable", &[]).expect("preset loads")
    }

    #[test]
    fn a_figures_row_is_named_as_the_figure_names_its_pattern() {
        let s = metastable();
        let names: Vec<Option<String>> = figure_sets(&s)
            .iter()
            .map(|sets| figure_name(&s, sets))
            .collect();
        let expected = [
            "no retries at all",
            "retry backoff + full jitter + a 10 % budget",
            "shedding",
            "adaptive LIFO",
            "a client-side breaker (50 calls, 50 %, 5 s open)",
        ];
        assert_eq!(names, expected.map(|n| Some(n.to_string())));
        assert_eq!(figure_name(&s, &["server.threads=20".to_string()]), None);
        assert!(!is_time_window("5 s open"));
        assert!(is_time_window("60-70 s"));
    }

    #[test]
    fn figure_sets_are_deduplicated_in_preset_order_without_the_empty_list() {
        let lists = figure_sets(&metastable());
        let labels: Vec<String> = lists.iter().map(|l| label_of(l)).collect();
        assert_eq!(
            labels,
            [
                "load.retry.attempts=1",
                "load.retry.backoff=200ms, load.retry.multiplier=2, load.retry.jitter=full, \
                 load.retry.budget=0.1",
                "server.queue_timeout=500ms",
                "server.adaptive_lifo=50",
                "load.breaker.window_size=50, load.breaker.minimum_calls=20, \
                 load.breaker.wait_in_open=5s, load.breaker.permitted_in_half_open=5",
            ]
        );
    }

    #[test]
    fn a_variant_keeps_the_runs_seed_and_duration_and_adds_its_overrides() {
        let preset = metastable();
        let mut run = preset.clone();
        run.seed = 42;
        run.duration = crate::time::Nanos::from_secs(20);
        let engine = Engine::new(&run, run.strategy.default);
        let origin = Origin {
            overrides: &[],
            preset: &preset,
            run: &run,
            engine: &engine,
            changes: &[],
        };
        let e = origin
            .variant(&["server.threads=20".to_string()])
            .expect("valid override");
        assert_eq!(e.scenario().seed, 42);
        assert_eq!(e.scenario().duration, crate::time::Nanos::from_secs(20));
        assert_eq!(
            e.scenario().server.threads,
            crate::scenario::ServerThreads::Platform(20)
        );
        let error = origin
            .variant(&["server.threads=0".to_string()])
            .expect_err("0 threads is out of range");
        let error = super::one_line(&error);
        assert!(error.contains("server.threads"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        // The variant's key wins over the same key among the run's own overrides.
        let overrides = ["server.threads=5".to_string(), "load.rate=50".to_string()];
        let origin = Origin {
            overrides: &overrides,
            ..origin
        };
        let e = origin
            .variant(&["server.threads=20".to_string()])
            .expect("the variant's threads replace the run's");
        assert_eq!(
            e.scenario().server.threads,
            crate::scenario::ServerThreads::Platform(20)
        );
        assert!(matches!(
            e.scenario().load.mode,
            crate::scenario::LoadMode::Open { rate: 50.0, .. }
        ));
    }
}
