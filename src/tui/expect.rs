//! A tour step's expectations: `path op number` conditions on what the screen shows, read
//! from the run report of the engine on screen (the same JSON as `run --format json`), with
//! what the live view draws beside it, so a caption cannot drift from the screen:
//!
//! - each pool's live `busy`, `queued` and `size` (`pools.recs.busy == 30`), and the cores'
//!   (or a virtual thread's carriers') `cpu.busy` and `cpu.queued`, HikariCP's
//!   `resources.db.active` and `waiting`, and `connections.open` and `connections.backlog`;
//! - `recent`: the latency panel's last 10 s (`recent.p99`, `recent.count`, in ms);
//! - `log`: the log's request lines, `log.runs` and `log.threads` (distinct thread names);
//! - `compare.<strategy>`: while the compare view is open, each strategy's report
//!   (`compare.semaphore.latency_ms.mean == 1700`).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::report::RunReport;
use crate::report::figures::lookup;
use crate::scenario::Scenario;
use crate::sim::{Engine, LogLine, Snapshot};

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
    for live in &snapshot.pools {
        let listed = pools.iter().any(|p| named(p, &live.name));
        if !listed && (live.pool_size > 0 || live.queued > 0) {
            pools.push(serde_json::json!({
                "name": live.name,
                "busy": live.active,
                "queued": live.queued,
                "size": live.pool_size,
            }));
        }
    }
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

/// The screen of [`screen_value`] with the compare view open over `engines`: each one's
/// report under `compare.<strategy>`.
pub fn with_compare(mut value: Value, scenario: &Scenario, engines: &[Engine]) -> Value {
    let reports: serde_json::Map<String, Value> = engines
        .iter()
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

/// Checks one condition; `Err` says what was expected and what the screen shows.
pub fn check(value: &Value, condition: &str) -> Result<(), String> {
    let parts: Vec<&str> = condition.split_whitespace().collect();
    let [path, op, expected] = parts[..] else {
        return Err(format!("{condition:?}: write it as `path op number`"));
    };
    let expected: f64 = expected
        .parse()
        .map_err(|_| format!("{condition:?}: {expected:?} is not a number"))?;
    let actual =
        lookup(value, path).ok_or_else(|| format!("{condition:?}: no {path} on screen"))?;
    let holds = match op {
        ">" => actual > expected,
        ">=" => actual >= expected,
        "<" => actual < expected,
        "<=" => actual <= expected,
        "==" => (actual - expected).abs() < 1e-9,
        "!=" => (actual - expected).abs() >= 1e-9,
        _ => {
            return Err(format!(
                "{condition:?}: {op:?} is not one of > >= < <= == !="
            ));
        }
    };
    if holds {
        Ok(())
    } else {
        Err(format!("{condition:?} is false: {path} is {actual}"))
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
}
