//! The articles' figures, reproduced: every built-in preset lists the published figures it
//! reproduces (`[[figures]]`); this plays each and reads threadlab's value from the run
//! report, so the README's table is produced by a command, not typed by hand.

use std::fmt::Write as _;

use serde_json::Value;

use super::{RunReport, play};
use crate::scenario::{self, Strategy};

/// One figure: the article's value and threadlab's.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureResult {
    pub preset: String,
    pub what: String,
    pub article: String,
    pub strategy: Strategy,
    pub metric: String,
    pub expect: f64,
    pub tolerance: f64,
    pub measured: f64,
}

impl FigureResult {
    /// Whether threadlab gives what the preset says it gives.
    pub fn holds(&self) -> bool {
        let scale = self.expect.abs().max(1e-9);
        (self.measured - self.expect).abs() / scale <= self.tolerance
            || (self.expect == 0.0 && self.measured == 0.0)
    }
}

/// Reads `path` (dots; array elements by their `name`, or by index) from a JSON value. A
/// last part `A-B` on an array of numbers is the mean of its elements A to B-1:
/// `goodput_timeline.60-70` is the mean goodput from 60 s to 70 s.
pub fn lookup(value: &Value, path: &str) -> Option<f64> {
    if let Some((array, range)) = span(path) {
        return mean_of(find(value, array)?, range);
    }
    find(value, path)?.as_f64()
}

/// Whether `path` names a figure of `value`: a number, or `null` where a report has none yet,
/// or an element by index of an array that has fewer yet (a breaker's transitions at t 0).
pub fn names_a_figure(value: &Value, path: &str) -> bool {
    if let Some((array, range)) = span(path) {
        return find(value, array).is_some_and(|v| v.is_array()) && range.start < range.end;
    }
    let mut v = value;
    for part in path.split('.') {
        v = match v {
            Value::Array(items) => match part.parse::<usize>() {
                Ok(i) if i >= items.len() => return true,
                Ok(i) => &items[i],
                Err(_) => match items
                    .iter()
                    .find(|x| x.get("name").and_then(Value::as_str) == Some(part))
                {
                    Some(x) => x,
                    None => return false,
                },
            },
            Value::Object(map) => match map.get(part) {
                Some(x) => x,
                None => return false,
            },
            _ => return false,
        };
    }
    v.is_number() || v.is_null()
}

/// `path` split into an array's path and the index range of its last part (`x.60-70`).
fn span(path: &str) -> Option<(&str, std::ops::Range<usize>)> {
    let (array, last) = path.rsplit_once('.')?;
    let (a, b) = last.split_once('-')?;
    Some((array, a.parse().ok()?..b.parse().ok()?))
}

/// The mean of `value`'s elements in `range` (all numbers, all there).
fn mean_of(value: &Value, range: std::ops::Range<usize>) -> Option<f64> {
    let items = value.as_array()?.get(range.clone())?;
    if items.is_empty() {
        return None;
    }
    let sum = items.iter().map(Value::as_f64).sum::<Option<f64>>()?;
    Some(sum / items.len() as f64)
}

fn find<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = value;
    for part in path.split('.') {
        v = match v {
            Value::Array(items) => match part.parse::<usize>() {
                Ok(i) => items.get(i)?,
                Err(_) => items
                    .iter()
                    .find(|x| x.get("name").and_then(Value::as_str) == Some(part))?,
            },
            Value::Object(map) => map.get(part)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Plays every figure of a preset.
/// The figures are independent runs: they play side by side on the machine's cores and come
/// back in the preset's order.
pub fn evaluate(preset: &str) -> anyhow::Result<Vec<FigureResult>> {
    use rayon::prelude::*;
    let base = scenario::load(preset, &[])?;
    base.figures
        .par_iter()
        .map(|figure| {
            let s = scenario::load(preset, &figure.sets)?;
            let duration = figure.duration.unwrap_or(s.duration);
            let engine = play(&s, figure.strategy, duration);
            let report = serde_json::to_value(RunReport::new(&s, &engine))?;
            let measured = lookup(&report, &figure.metric).ok_or_else(|| {
                anyhow::anyhow!(
                    "{preset}: figure {:?}: metric {:?} is not in the run report",
                    figure.what,
                    figure.metric
                )
            })?;
            Ok(FigureResult {
                preset: preset.to_string(),
                what: figure.what.clone(),
                article: figure.article.clone(),
                strategy: figure.strategy,
                metric: figure.metric.clone(),
                expect: figure.expect,
                tolerance: figure.tolerance,
                measured,
            })
        })
        .collect()
}

fn number(x: f64) -> String {
    if x.abs() >= 1000.0 || x == x.round() {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The Markdown table of every built-in preset's figures.
pub fn table(results: &[FigureResult]) -> String {
    let mut out = String::from(
        "| Preset | Figure | Strategy | Article | threadlab | Metric |\n| --- | --- | --- | ---: | ---: | --- |\n",
    );
    for r in results {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {}{} | `{}` |",
            r.preset,
            r.what,
            r.strategy,
            r.article,
            number(r.measured),
            if r.holds() {
                ""
            } else {
                " (differs from the preset's expectation)"
            },
            r.metric
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_follows_objects_and_named_array_elements() {
        let v: Value = serde_json::json!({
            "latency_ms": { "mean": 12.5 },
            "pools": [{ "name": "tomcat", "max_queue": 3 }, { "name": "IronThread", "max_queue": 7 }]
        });
        assert_eq!(lookup(&v, "latency_ms.mean"), Some(12.5));
        assert_eq!(lookup(&v, "pools.IronThread.max_queue"), Some(7.0));
        assert_eq!(lookup(&v, "pools.0.max_queue"), Some(3.0));
        assert_eq!(lookup(&v, "pools.nobody.max_queue"), None);
    }

    #[test]
    fn a_range_of_an_array_reads_as_the_mean_of_its_elements() {
        let v: Value = serde_json::json!({ "goodput_timeline": [10, 20, 30, 40], "pools": [{ "name": "a-b", "x": 1 }] });
        assert_eq!(lookup(&v, "goodput_timeline.1-3"), Some(25.0));
        assert_eq!(lookup(&v, "goodput_timeline.0-4"), Some(25.0));
        // Beyond the run, or empty: no figure.
        assert_eq!(lookup(&v, "goodput_timeline.3-5"), None);
        assert_eq!(lookup(&v, "goodput_timeline.2-2"), None);
        assert!(names_a_figure(&v, "goodput_timeline.1-3"));
        // An element an array does not hold yet may come (a breaker's later transitions).
        assert!(names_a_figure(&v, "goodput_timeline.7"));
        assert!(!names_a_figure(&v, "goodput_timeline.x"));
        assert!(!names_a_figure(&v, "pools.a-b.y"));
        // A name with a dash is a name.
        assert_eq!(lookup(&v, "pools.a-b.x"), Some(1.0));
    }
}
