//! A tour step's expectations: `path op number` conditions on what the screen shows, read
//! from the run report of the engine on screen (the same JSON as `run --format json`), with
//! what the live view draws beside it, so a caption cannot drift from the screen:
//!
//! - each pool's live `busy`, `queued` and `size` (`pools.recs.busy == 30`), and the cores'
//!   (or a virtual thread's carriers') `cpu.busy` and `cpu.queued`, HikariCP's
//!   `resources.db.active` and `waiting`, and `connections.open` and `connections.backlog`;
//! - `recent`: the latency panel's last 10 s (`recent.p99`, `recent.count`, in ms);
//! - `log`: the log's request lines, `log.runs` and `log.threads` (distinct thread names);
//! - each circuit breaker's state as 1 or 0 (`resilience.breakers.recommendations.open == 1`,
//!   also `closed` and `half-open`);
//! - `compare.<strategy>`: while the compare view is open, each strategy's report
//!   (`compare.semaphore.latency_ms.mean == 1700`);
//! - `variants.<row>`: while the variants view (`C`) is open, each row's report by its place,
//!   0 for `as now`, then the preset's figures' patterns in order
//!   (`variants.4.goodput_timeline.60-70 > 80`).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::report::RunReport;
use crate::report::figures::{lookup, names_a_figure};
use crate::scenario::{Scenario, Strategy};
use crate::sim::{Engine, LogLine, PoolSnapshot, Snapshot};

/// The report a tour's expectations are checked against: the engine on screen.
pub fn screen_value(scenario: &Scenario, engine: &Engine) -> Value {
    let snapshot = engine.snapshot();
    let report = RunReport::from_snapshot(scenario, &snapshot, &[], engine.prediction());
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Some(pools) = value.get_mut("pools").and_then(Value::as_array_mut) {
        add_live_pools(pools, &snapshot);
    }
    // HikariCP's pools: connections in use and borrowers waiting for one, now.
    if let Some(resources) = value.get_mut("resources").and_then(Value::as_array_mut) {
        for resource in resources {
            if let Some(live) = snapshot.resources.iter().find(|r| named(resource, &r.name)) {
                resource["active"] = live.active.into();
                resource["waiting"] = live.waiting.into();
            }
        }
    }
    // The outcomes panel's open connections and accept queue.
    if let Some(connections) = value.get_mut("connections") {
        connections["open"] = snapshot.connections.into();
        connections["backlog"] = snapshot.backlog.into();
    }
    // Each breaker's state as numbers a condition can test (`...recommendations.open == 1`).
    if let Some(breakers) = value
        .pointer_mut("/resilience/breakers")
        .and_then(Value::as_object_mut)
    {
        for breaker in breakers.values_mut() {
            let state = breaker["state"].as_str().unwrap_or_default().to_owned();
            for name in ["closed", "open", "half-open"] {
                breaker[name] = u8::from(state == name).into();
            }
        }
    }
    // The cores line: carriers or cores busy now, and the threads waiting for one.
    if let (Some(cpu), Some(report)) = (&snapshot.cpu, value.get_mut("cpu")) {
        report["busy"] = cpu.busy.into();
        report["queued"] = cpu.queued.into();
    }
    if let Some(map) = value.as_object_mut() {
        let recent = serde_json::to_value(snapshot.window).unwrap_or(Value::Null);
        map.insert("recent".into(), recent);
        map.insert("log".into(), log_value(&snapshot));
    }
    value
}

/// Each pool's live figures, and the pools the panel shows that the strategy left but that
/// still hold threads or queued tasks (`App::pool_ids`).
fn add_live_pools(pools: &mut Vec<Value>, snapshot: &Snapshot) {
    for pool in pools.iter_mut() {
        if let Some(live) = snapshot.pools.iter().find(|p| named(pool, &p.name)) {
            pool["busy"] = live.active.into();
            pool["queued"] = live.queued.into();
            pool["size"] = live.pool_size.into();
        }
    }
    list_left_pools(pools, &snapshot.pools, |p| p.pool_size > 0 || p.queued > 0);
}

/// The log's request lines and the distinct threads that answered them.
fn log_value(snapshot: &Snapshot) -> Value {
    let runs: Vec<&str> = snapshot
        .log
        .iter()
        .filter_map(|line| match line {
            LogLine::Run(run) => Some(run.thread.as_str()),
            LogLine::Change { .. } => None,
        })
        .collect();
    let threads: BTreeSet<&str> = runs.iter().copied().collect();
    serde_json::json!({ "runs": runs.len(), "threads": threads.len() })
}

/// A report entry whose `name` is `name`.
fn named(entry: &Value, name: &str) -> bool {
    entry.get("name").and_then(Value::as_str) == Some(name)
}

/// Adds to a report's `pools` each pool of `live` it does not list and `shown` picks, with its
/// live figures.
fn list_left_pools(
    pools: &mut Vec<Value>,
    live: &[PoolSnapshot],
    shown: impl Fn(&PoolSnapshot) -> bool,
) {
    for pool in live {
        let listed = pools.iter().any(|p| named(p, &pool.name));
        if !listed && shown(pool) {
            pools.push(serde_json::json!({
                "name": pool.name,
                "busy": pool.active,
                "queued": pool.queued,
                "size": pool.pool_size,
            }));
        }
    }
}

/// The screen of [`screen_value`] with the compare view open over `engines`: each one's
/// report under `compare.<strategy>` (the strategies' view, `c`: the variants' view, `C`,
/// has one strategy on every row, so tours do not read it).
pub fn with_compare<'a>(
    mut value: Value,
    scenario: &Scenario,
    engines: impl IntoIterator<Item = &'a Engine>,
) -> Value {
    let reports: serde_json::Map<String, Value> = engines
        .into_iter()
        .map(|e| {
            let report = RunReport::from_snapshot(scenario, &e.snapshot(), &[], e.prediction());
            let report = serde_json::to_value(report).unwrap_or(Value::Null);
            (e.strategy().name().to_string(), report)
        })
        .collect();
    if let Some(map) = value.as_object_mut() {
        map.insert("compare".into(), Value::Object(reports));
    }
    value
}

/// The screen of [`screen_value`] with the variants view (`C`) open over `rows` (a row whose
/// variant did not load: `None`): each row's report under `variants.<row>`.
pub fn with_variants<'a>(
    mut value: Value,
    scenario: &Scenario,
    rows: impl IntoIterator<Item = Option<&'a Engine>>,
) -> Value {
    let reports: Vec<Value> = rows
        .into_iter()
        .map(|e| {
            e.map_or(Value::Null, |e| {
                let report = RunReport::from_snapshot(scenario, &e.snapshot(), &[], e.prediction());
                serde_json::to_value(report).unwrap_or(Value::Null)
            })
        })
        .collect();
    if let Some(map) = value.as_object_mut() {
        map.insert("variants".into(), Value::Array(reports));
    }
    value
}

/// One parsed condition: `path op number`.
struct Condition<'a> {
    path: &'a str,
    op: &'a str,
    expected: f64,
}

const OPS: [&str; 6] = [">", ">=", "<", "<=", "==", "!="];

/// What is wrong with a condition, or why it does not hold; each names the condition.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConditionError {
    #[error("{condition:?}: write it as `path op number`")]
    Form { condition: String },
    #[error("{condition:?}: {expected:?} is not a number")]
    NotANumber { condition: String, expected: String },
    #[error("{condition:?}: {op:?} is not one of > >= < <= == !=")]
    Operator { condition: String, op: String },
    #[error("{condition:?}: no {path} on screen")]
    NotOnScreen { condition: String, path: String },
    #[error("{condition:?} is false: {path} is {actual}")]
    False {
        condition: String,
        path: String,
        actual: f64,
    },
}

/// Why a preset's tour `expect` or `[[figures]]` metric was refused before anything plays.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValidateError {
    /// `field` (`tour[0].expect[1]`) does not parse.
    #[error("{field}: {error}")]
    Condition {
        field: String,
        error: ConditionError,
    },
    #[error("{field}: {condition:?}: no figure {path:?} in the run report ({FIGURE_PATHS})")]
    UnknownFigure {
        field: String,
        condition: String,
        path: String,
    },
    #[error(
        "figures[{index}].metric = {metric:?}: no such figure in the run report (a path of \
         `run --format json`, array elements by name)"
    )]
    UnknownMetric { index: usize, metric: String },
}

/// What a tour's condition may name.
const FIGURE_PATHS: &str = "the paths of `run --format json`, pools' busy, queued and size, \
                            recent.*, log.runs, log.threads, compare.<strategy>.* and \
                            variants.<row>.*";

/// Parses `path op number`; `Err` says what is wrong with it.
fn parse(condition: &str) -> Result<Condition<'_>, ConditionError> {
    let parts: Vec<&str> = condition.split_whitespace().collect();
    let [path, op, expected] = parts[..] else {
        return Err(ConditionError::Form {
            condition: condition.to_owned(),
        });
    };
    let expected: f64 = expected.parse().map_err(|_| ConditionError::NotANumber {
        condition: condition.to_owned(),
        expected: expected.to_owned(),
    })?;
    if !OPS.contains(&op) {
        return Err(ConditionError::Operator {
            condition: condition.to_owned(),
            op: op.to_owned(),
        });
    }
    Ok(Condition { path, op, expected })
}

/// Checks, before anything plays, that every tour `expect` parses and names a figure of the
/// run report, and every `[[figures]]` metric too, under some strategy (a tour's keys may
/// switch it); `Err` names the field, the value and what is wrong.
pub fn validate(scenario: &Scenario) -> Result<(), ValidateError> {
    if scenario.tour.is_empty() && scenario.figures.is_empty() {
        return Ok(());
    }
    let values = possible_screens(scenario);
    let known = |path: &str| values.iter().any(|v| names_a_figure(v, path));
    for (i, step) in scenario.tour.iter().enumerate() {
        for (j, condition) in step.expect.iter().enumerate() {
            let field = format!("tour[{i}].expect[{j}]");
            let c = match parse(condition) {
                Ok(c) => c,
                Err(error) => return Err(ValidateError::Condition { field, error }),
            };
            if !known(c.path) {
                return Err(ValidateError::UnknownFigure {
                    field,
                    condition: condition.clone(),
                    path: c.path.to_owned(),
                });
            }
        }
    }
    for (i, figure) in scenario.figures.iter().enumerate() {
        if !known(&figure.metric) {
            return Err(ValidateError::UnknownMetric {
                index: i,
                metric: figure.metric.clone(),
            });
        }
    }
    Ok(())
}

/// What a screen of `scenario` can show under some strategy, one value per strategy: its
/// report, every pool's live figures (a pool the strategy left shows while it holds threads),
/// and the compare view's reports. A path that names a figure of none of them names nothing
/// a screen shows.
pub fn possible_screens(scenario: &Scenario) -> Vec<Value> {
    let engines: Vec<Engine> = Strategy::ALL
        .iter()
        .map(|&st| Engine::new(scenario, st))
        .collect();
    engines
        .iter()
        .map(|e| {
            let mut value = screen_value(scenario, e);
            if let Some(pools) = value.get_mut("pools").and_then(Value::as_array_mut) {
                list_left_pools(pools, &e.snapshot().pools, |_| true);
            }
            // The variants view's rows: `as now` and each distinct `set` list of the figures,
            // each a report of the same shape.
            let rows = 1 + crate::tui::compare_runs::figure_sets(scenario).len();
            let value = with_variants(value, scenario, std::iter::repeat_n(Some(e), rows));
            with_compare(value, scenario, &engines)
        })
        .collect()
}

/// Whether `condition` is `path op number` (`Ok(path)`), or what is wrong with it.
pub fn condition_path(condition: &str) -> Result<&str, ConditionError> {
    parse(condition).map(|c| c.path)
}

/// Checks one condition; `Err` says what was expected and what the screen shows.
pub fn check(value: &Value, condition: &str) -> Result<(), ConditionError> {
    let Condition { path, op, expected } = parse(condition)?;
    let actual = lookup(value, path).ok_or_else(|| ConditionError::NotOnScreen {
        condition: condition.to_owned(),
        path: path.to_owned(),
    })?;
    let holds = match op {
        ">" => actual > expected,
        ">=" => actual >= expected,
        "<" => actual < expected,
        "<=" => actual <= expected,
        "==" => (actual - expected).abs() < 1e-9,
        _ => (actual - expected).abs() >= 1e-9,
    };
    if holds {
        Ok(())
    } else {
        Err(ConditionError::False {
            condition: condition.to_owned(),
            path: path.to_owned(),
            actual,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_compare_a_report_path_with_a_number() {
        let v = serde_json::json!({
            "requests": { "timeout": 3 },
            "pools": [{ "name": "recs", "busy": 30 }],
        });
        assert_eq!(check(&v, "requests.timeout > 0"), Ok(()));
        assert_eq!(check(&v, "pools.recs.busy == 30"), Ok(()));
        assert!(check(&v, "requests.timeout == 0").is_err());
        assert!(check(&v, "pools.other.busy == 1").is_err());
        assert!(check(&v, "requests.timeout ~ 1").is_err());
        assert!(check(&v, "requests.timeout").is_err());
    }

    fn engine(preset: &str, strategy: crate::scenario::Strategy, secs: u64) -> (Scenario, Engine) {
        let s = crate::scenario::load(preset, &[]).expect("preset loads");
        let mut e = Engine::new(&s, strategy);
        e.run_until(crate::time::Nanos::from_secs(secs));
        (s, e)
    }

    #[test]
    fn the_screen_counts_the_log_s_runs_and_their_threads() {
        use crate::scenario::Strategy;
        // Five sequential runs, each on the Tomcat thread the executor hands it.
        let (s, e) = engine("ironthread", Strategy::Sequential, 9);
        let v = screen_value(&s, &e);
        assert_eq!(check(&v, "log.runs == 5"), Ok(()));
        assert_eq!(check(&v, "log.threads == 5"), Ok(()));
        assert!(check(&v, "log.threads == 1").is_err());
        assert_eq!(check(&v, "recent.count == 5"), Ok(()));
        assert_eq!(check(&v, "recent.p99 == 1700"), Ok(()));
    }

    #[test]
    fn the_screen_holds_a_pool_the_strategy_left_and_the_compare_view() {
        use crate::scenario::Strategy;
        let s = crate::scenario::load("bulkhead-containment", &[]).expect("preset loads");
        let mut e = Engine::new(&s, Strategy::Shared);
        e.run_until(crate::time::Nanos::from_secs(40));
        e.apply(crate::sim::Command::SetStrategy(Strategy::Bulkhead))
            .expect("strategy");
        // The pools panel still shows the common pool's hung workers and queue.
        let v = screen_value(&s, &e);
        assert_eq!(check(&v, "pools.shared.busy == 7"), Ok(()));
        assert_eq!(check(&v, "pools.shared.queued > 100"), Ok(()));
        let engines: Vec<Engine> = Strategy::ALL
            .iter()
            .map(|&strategy| engine("ironthread", strategy, 9).1)
            .collect();
        let (s, e) = engine("ironthread", Strategy::Bulkhead, 9);
        let v = with_compare(screen_value(&s, &e), &s, &engines);
        assert_eq!(
            check(&v, "compare.semaphore.latency_ms.mean == 1700"),
            Ok(())
        );
        assert_eq!(
            check(&v, "compare.unbounded.latency_ms.max == 1000"),
            Ok(())
        );
        assert!(check(&screen_value(&s, &e), "compare.semaphore.goodput_rps > 0").is_err());
    }

    #[test]
    fn a_condition_that_fails_says_which_and_why() {
        let v = serde_json::json!({ "requests": { "timeout": 3 } });
        for (condition, said) in [
            (
                "requests.timeout",
                "\"requests.timeout\": write it as `path op number`",
            ),
            ("a == x", "\"a == x\": \"x\" is not a number"),
            ("a ~ 1", "\"a ~ 1\": \"~\" is not one of > >= < <= == !="),
            ("a == 1", "\"a == 1\": no a on screen"),
            (
                "requests.timeout < 1",
                "\"requests.timeout < 1\" is false: requests.timeout is 3",
            ),
        ] {
            assert_eq!(
                check(&v, condition).map_err(|e| e.to_string()),
                Err(said.to_owned())
            );
        }
    }
}
