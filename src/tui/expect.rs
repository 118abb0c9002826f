//! A tour step's expectations: `path op number` conditions on what the screen shows, read
//! from the run report of the engine on screen (the same JSON as `run --format json`), with
//! each pool's live `busy` and `queued` added, so a caption cannot drift from the screen.

use serde_json::Value;

use crate::report::RunReport;
use crate::report::figures::lookup;
use crate::scenario::Scenario;
use crate::sim::Engine;

/// The report a tour's expectations are checked against.
pub fn screen_value(scenario: &Scenario, engine: &Engine) -> Value {
    let snapshot = engine.snapshot();
    let report = RunReport::from_snapshot(scenario, &snapshot, &[], engine.prediction());
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Some(pools) = value.get_mut("pools").and_then(Value::as_array_mut) {
        for pool in pools {
            let name = pool.get("name").and_then(Value::as_str).unwrap_or_default();
            if let Some(live) = snapshot.pools.iter().find(|p| p.name == name) {
                pool["busy"] = live.active.into();
                pool["queued"] = live.queued.into();
            }
        }
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
}
