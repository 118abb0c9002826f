//! A tour step's expectations: `path op number` conditions on what the screen shows, read
//! from the run report of the engine on screen (the same JSON as `run --format json`), with
//! each pool's live `busy` and `queued` added, so a caption cannot drift from the screen.

use serde_json::Value;

use crate::report::RunReport;
use crate::report::figures::{lookup, names_a_figure};
use crate::scenario::{Scenario, Strategy};
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

/// One parsed condition: `path op number`.
struct Condition<'a> {
    path: &'a str,
    op: &'a str,
    expected: f64,
}

const OPS: [&str; 6] = [">", ">=", "<", "<=", "==", "!="];

/// Parses `path op number`; `Err` says what is wrong with it.
fn parse(condition: &str) -> Result<Condition<'_>, String> {
    let parts: Vec<&str> = condition.split_whitespace().collect();
    let [path, op, expected] = parts[..] else {
        return Err(format!("{condition:?}: write it as `path op number`"));
    };
    let expected: f64 = expected
        .parse()
        .map_err(|_| format!("{condition:?}: {expected:?} is not a number"))?;
    if !OPS.contains(&op) {
        return Err(format!(
            "{condition:?}: {op:?} is not one of > >= < <= == !="
        ));
    }
    Ok(Condition { path, op, expected })
}

/// Checks, before anything plays, that every tour `expect` parses and names a figure of the
/// run report, and every `[[figures]]` metric too, under some strategy (a tour's keys may
/// switch it); `Err` names the field, the value and what is wrong.
pub fn validate(scenario: &Scenario) -> Result<(), String> {
    if scenario.tour.is_empty() && scenario.figures.is_empty() {
        return Ok(());
    }
    let values: Vec<Value> = Strategy::ALL
        .iter()
        .map(|&st| screen_value(scenario, &Engine::new(scenario, st)))
        .collect();
    let known = |path: &str| values.iter().any(|v| names_a_figure(v, path));
    let form = "the paths of `run --format json`, plus pools' busy and queued";
    for (i, step) in scenario.tour.iter().enumerate() {
        for (j, condition) in step.expect.iter().enumerate() {
            let field = format!("tour[{i}].expect[{j}]");
            let c = parse(condition).map_err(|e| format!("{field}: {e}"))?;
            if !known(c.path) {
                return Err(format!(
                    "{field}: {condition:?}: no figure {:?} in the run report ({form})",
                    c.path
                ));
            }
        }
    }
    for (i, figure) in scenario.figures.iter().enumerate() {
        if !known(&figure.metric) {
            return Err(format!(
                "figures[{i}].metric = {:?}: no such figure in the run report (a path of \
                 `run --format json`, array elements by name)",
                figure.metric
            ));
        }
    }
    Ok(())
}

/// Checks one condition; `Err` says what was expected and what the screen shows.
pub fn check(value: &Value, condition: &str) -> Result<(), String> {
    let Condition { path, op, expected } = parse(condition)?;
    let actual =
        lookup(value, path).ok_or_else(|| format!("{condition:?}: no {path} on screen"))?;
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
