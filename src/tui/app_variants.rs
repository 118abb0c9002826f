//! The variants compare's intentions (`C`): the run on screen with and without a pattern,
//! side by side; `a` types one more variant; `r` and `s` replay every row.

use super::super::compare_runs::{CompareRow, CompareRuns, ComparedBy, Origin, figure_sets};
use super::super::prompt::{Prompt, split_sets};
use super::{App, Status, strategy_rows};

/// What `a` asks.
pub const QUESTION: &str = "compare with: ";

/// The status hint of a variants compare without a figure to start from.
pub const ADD_HINT: &str = "a: add a variant (KEY=VALUE, as --set)";

impl App {
    /// The `--set` overrides the run was started with: each variant loads the preset again
    /// with them, then its own.
    pub fn set_overrides(&mut self, overrides: Vec<String>) {
        self.overrides = overrides;
    }

    /// `C`: the strategy on screen on the run as it is now and on each distinct `set` list of
    /// the preset's `[[figures]]`, every row replaying the same requests from t = 0 with the
    /// live changes and faults; closing drops them, and over the strategies' view (`c`) it
    /// takes its place.
    pub fn toggle_variants(&mut self) {
        if self.close_compare(ComparedBy::Variants) {
            return;
        }
        let lists = figure_sets(&self.preset);
        let Some(rows) = self.variant_rows(&lists) else {
            return;
        };
        self.compare = Some(CompareRuns {
            compared: ComparedBy::Variants,
            rows,
        });
        self.behind = true;
        if lists.is_empty() {
            self.info(ADD_HINT.to_string());
        }
    }

    /// `a`: the prompt for one more variant's overrides (in the variants compare only).
    pub fn open_variant_prompt(&mut self) {
        if self.compare_is(ComparedBy::Variants) {
            self.prompt = Some(Prompt::new(QUESTION));
        } else {
            self.info("a adds a variant to the variants compare: press C first".to_string());
        }
    }

    /// Enter in the prompt: the typed `KEY=VALUE, ...` as a new row. Overrides that do not
    /// load (an unknown key, a value out of range) add nothing: the status line gives their
    /// error, which names the key and what it allows.
    pub fn add_typed_variant(&mut self) {
        let Some(prompt) = self.prompt.take() else {
            return;
        };
        let sets = split_sets(prompt.text());
        if sets.is_empty() {
            self.info("no variant added: type KEY=VALUE, as --set".to_string());
            return;
        }
        let Some(origin) = self.origin() else {
            return;
        };
        let run = origin.variant(&sets);
        // One budget for the run and its variants: a variant whose own run is beyond the
        // limits is not played beside it.
        if let Ok(engine) = &run
            && let Some(why) = super::budget::too_large(
                engine.scenario(),
                engine.strategy(),
                self.scenario.duration,
            )
        {
            self.status = Some(Status::Error(format!(
                "no variant added: {} is too large to play beside the run: {why}",
                super::super::compare_runs::label_of(&sets)
            )));
            return;
        }
        match run {
            Ok(engine) => {
                let row = CompareRow::variant(sets, Ok(engine));
                self.info(format!("added {}", row.label));
                if let Some(runs) = &mut self.compare {
                    runs.rows.push(row);
                }
                self.behind = true;
            }
            Err(error) => {
                let text = super::super::compare_runs::one_line(&error);
                self.status = Some(Status::Error(text));
            }
        }
    }

    /// Whether the compare view is open on `what`.
    pub fn compare_is(&self, what: ComparedBy) -> bool {
        self.compare.as_ref().is_some_and(|c| c.compared == what)
    }

    /// Whether the keys go to a prompt as text.
    pub fn is_typing(&self) -> bool {
        self.prompt.is_some()
            || self
                .lesson
                .as_ref()
                .is_some_and(crate::lesson::Session::is_asking)
    }

    /// After a rebuild (`r`, `s`, `v`, `u`): the open compare view's rows again from t = 0,
    /// the variants with their own overrides.
    pub(super) fn rebuild_compare(&mut self) {
        let Some(compared) = self.compare.as_ref().map(|c| c.compared) else {
            return;
        };
        let rows = match compared {
            ComparedBy::Strategies => self.source.engine().map(strategy_rows),
            ComparedBy::Variants => {
                let lists: Vec<Vec<String>> = self
                    .compare
                    .iter()
                    .flat_map(|c| c.rows.iter().skip(1).map(|r| r.sets.clone()))
                    .collect();
                self.variant_rows(&lists)
            }
        };
        if let (Some(runs), Some(rows)) = (&mut self.compare, rows) {
            runs.rows = rows;
        }
    }

    /// `as now`, then a row per list of overrides (a list that does not load: a row with its
    /// error). `None` for a real run, which has no engine to replay.
    fn variant_rows(&self, lists: &[Vec<String>]) -> Option<Vec<CompareRow>> {
        let origin = self.origin()?;
        let mut rows = vec![CompareRow::of(
            super::super::compare_runs::AS_NOW,
            origin.as_now(),
        )];
        rows.extend(lists.iter().map(|sets| {
            let name = super::super::compare_runs::figure_name(&self.preset, sets);
            CompareRow::variant(sets.clone(), origin.variant(sets)).named(name)
        }));
        Some(rows)
    }

    fn origin(&self) -> Option<Origin<'_>> {
        Some(Origin {
            overrides: &self.overrides,
            preset: &self.preset,
            run: &self.scenario,
            engine: self.source.engine()?,
            changes: &self.live_changes,
        })
    }
}
