//! Goals on a run's report: `p99<=800ms`, `goodput>=99%` (of the requests that ended),
//! `failures<=0.1%` (of the requests completed), `recovers<=30s` (after the last load phase),
//! or any figure of `run --format json` by its path (`requests.timeout<=5`).

use serde_json::Value;

use crate::report::figures::lookup;

/// Which way a goal points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    AtMost,
    AtLeast,
}

/// One goal: a figure, a bound and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    /// As written: `p99<=800ms`.
    pub text: String,
    /// What is measured, in words for the table (`p99 ms`, `goodput %`).
    pub label: String,
    figure: GoalFigure,
    pub op: Direction,
    /// The bound in the figure's unit (ms, %, s, or the report's own).
    pub bound: f64,
}

#[derive(Debug, Clone, PartialEq)]
enum GoalFigure {
    /// A path of the report, in its unit.
    Path(String),
    /// Success + partial as a share of the requests that ended (answered, failed, timed out
    /// or refused by the run's end), in %.
    GoodputShare,
    /// Failed + timeout + refused as a share of the requests completed, in %.
    FailureShare,
    /// Failed + timeout + refused per second.
    FailureRate,
    /// Seconds from the last load phase until goodput is back.
    Recovers,
}

/// The forms a goal takes, for messages.
pub const GOAL_FORM: &str = "NAME<=VALUE or NAME>=VALUE, NAME one of p50, p90, p99, p999, mean, max \
     (ms, s), goodput (req/s, or % of the requests that ended), throughput (req/s), failures (per second, \
     or % of the requests completed), recovers (s) or a path of `run --format json`";

impl Goal {
    /// Parses `p99<=800ms`; `Err` says what is wrong and the allowed forms.
    pub fn parse(text: &str) -> Result<Goal, String> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (name, op, value) = if let Some((n, v)) = t.split_once("<=") {
            (n, Direction::AtMost, v)
        } else if let Some((n, v)) = t.split_once(">=") {
            (n, Direction::AtLeast, v)
        } else {
            return Err(format!("--goal {text:?}: write it as {GOAL_FORM}"));
        };
        let bad = |why: &str| format!("--goal {text:?}: {why}; the allowed form is {GOAL_FORM}");
        let (number, unit) = split_unit(value);
        let mut x: f64 = number
            .parse()
            .map_err(|_| bad("the bound is not a number"))?;
        if !x.is_finite() {
            return Err(bad("the bound is not a number"));
        }
        let percent = unit == "%";
        let latency = ["p50", "p90", "p99", "p999", "mean", "max"];
        let (figure, label) = if latency.contains(&name) {
            x *= match unit {
                "" | "ms" => 1.0,
                "s" => 1000.0,
                "us" => 0.001,
                _ => return Err(bad("a latency is in ms, s or us")),
            };
            (
                GoalFigure::Path(format!("latency_ms.{name}")),
                format!("{name} ms"),
            )
        } else {
            match (name, percent, unit) {
                ("goodput", true, _) => (GoalFigure::GoodputShare, "goodput %".into()),
                ("goodput", false, "" | "/s") => {
                    (GoalFigure::Path("goodput_rps".into()), "goodput/s".into())
                }
                ("throughput", false, "" | "/s") => (
                    GoalFigure::Path("throughput_rps".into()),
                    "throughput/s".into(),
                ),
                ("failures", true, _) => (GoalFigure::FailureShare, "failures %".into()),
                ("failures", false, "" | "/s") => (GoalFigure::FailureRate, "failures/s".into()),
                ("recovers", false, "s" | "ms" | "") => {
                    if unit == "ms" {
                        x /= 1000.0;
                    }
                    (GoalFigure::Recovers, "recovers s".into())
                }
                (path, false, "") if path.contains('.') || path.ends_with("_rps") => {
                    (GoalFigure::Path(path.to_owned()), path.to_owned())
                }
                _ => return Err(bad("unknown figure or unit")),
            }
        };
        Ok(Goal {
            text: text.to_owned(),
            label,
            figure,
            op,
            bound: x,
        })
    }

    /// The figure in `report` (the JSON of `run --format json`); `recovers` needs `phases`,
    /// the first and the last load phase's times (s). `None` when the report has no such figure; infinity
    /// for a run that never recovers.
    pub fn measure(
        &self,
        report: &Value,
        phases: Option<(f64, f64)>,
        offered: Option<f64>,
    ) -> Option<f64> {
        let num = |p: &str| lookup(report, p);
        match &self.figure {
            GoalFigure::Path(p) => num(p),
            GoalFigure::GoodputShare => {
                let done = num("requests.completed")?;
                let good = num("requests.success")? + num("requests.partial")?;
                Some(if done > 0.0 { good / done * 100.0 } else { 0.0 })
            }
            GoalFigure::FailureShare => {
                let done = num("requests.completed")?;
                Some(if done > 0.0 {
                    failed(report)? / done * 100.0
                } else {
                    0.0
                })
            }
            GoalFigure::FailureRate => {
                let s = num("simulated_s")?;
                Some(if s > 0.0 { failed(report)? / s } else { 0.0 })
            }
            GoalFigure::Recovers => recovery(report, phases?, offered),
        }
    }

    pub fn holds(&self, x: f64) -> bool {
        match self.op {
            Direction::AtMost => x <= self.bound,
            Direction::AtLeast => x >= self.bound,
        }
    }

    /// How far `x` is on the wrong side of the bound, relative to it (0 when it holds).
    pub fn miss(&self, x: f64) -> f64 {
        let scale = self.bound.abs().max(1e-9);
        match self.op {
            Direction::AtMost => ((x - self.bound) / scale).max(0.0),
            Direction::AtLeast => ((self.bound - x) / scale).max(0.0),
        }
    }

    /// Whether this goal needs a load phase to measure from.
    pub fn needs_phase(&self) -> bool {
        self.figure == GoalFigure::Recovers
    }
}

fn failed(report: &Value) -> Option<f64> {
    Some(
        lookup(report, "requests.failed")?
            + lookup(report, "requests.timeout")?
            + lookup(report, "requests.refused")?,
    )
}

/// `800ms` -> (`800`, `ms`); `99.5%` -> (`99.5`, `%`).
fn split_unit(v: &str) -> (&str, &str) {
    let end = v
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+' || *c == 'e'))
        .map_or(v.len(), |(i, _)| i);
    (&v[..end], &v[end..])
}

/// The window recovery is judged over, in seconds: a second alone is too noisy at low rates.
const WINDOW: usize = 10;

/// Seconds after the last load phase (`phases.1`) until a second from which every 10-second
/// window answers at least 90 % of what the seconds before the first phase (`phases.0`)
/// answered a second
/// (at most the last phase's offered rate), or, where fewer requests make that noisy, no
/// less than three standard deviations of a Poisson count below it; infinity when it never
/// does.
fn recovery(report: &Value, phases: (f64, f64), offered: Option<f64>) -> Option<f64> {
    let timeline: Vec<f64> = report
        .get("goodput_timeline")?
        .as_array()?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    // The last second may be cut short by the run's end: left out.
    let timeline = &timeline[..timeline.len().saturating_sub(1)];
    let (first, last) = (phases.0.floor() as usize, phases.1.ceil() as usize);
    // The first second fills up: left out of the baseline.
    let before = timeline.get(1..first.min(timeline.len()))?;
    if before.is_empty() || last + WINDOW > timeline.len() {
        return Some(f64::INFINITY);
    }
    let baseline = before.iter().sum::<f64>() / before.len() as f64;
    let base = offered.map_or(baseline, |o| o.min(baseline));
    let noise = 3.0 * (base / WINDOW as f64).sqrt();
    let target = (0.9 * base).min(base - noise);
    let means: Vec<f64> = timeline[last..]
        .windows(WINDOW)
        .map(|w| w.iter().sum::<f64>() / WINDOW as f64)
        .collect();
    // The first window from which every later one holds.
    let from = means
        .iter()
        .rposition(|m| *m < target)
        .map_or(Some(0), |i| (i + 1 < means.len()).then_some(i + 1));
    Some(from.map_or(f64::INFINITY, |i| i as f64 + (last as f64 - phases.1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_read_their_figures_in_their_units() {
        let r = serde_json::json!({
            "simulated_s": 10.0,
            "requests": { "sent": 100, "completed": 100, "success": 97, "partial": 1,
                          "failed": 1, "timeout": 1, "refused": 0 },
            "latency_ms": { "p99": 750.0 },
            "goodput_rps": 9.8,
            "goodput_timeline": [5, 10, 10, 10, 0, 0, 3, 9, 10, 10, 10, 4],
        });
        let g = Goal::parse("p99<=0.8s").expect("goal");
        assert_eq!(
            (g.measure(&r, None, None), g.holds(750.0)),
            (Some(750.0), true)
        );
        let g = Goal::parse("goodput >= 99%").expect("goal");
        assert_eq!(g.measure(&r, None, None), Some(98.0));
        assert!(!g.holds(98.0));
        let g = Goal::parse("failures<=2%").expect("goal");
        assert_eq!(g.measure(&r, None, None), Some(2.0));
        let g = Goal::parse("requests.timeout<=0").expect("goal");
        assert_eq!(g.measure(&r, None, None), Some(1.0));
        // 100 a second until a spike at 10 s, back at 20 s, nothing answered until 30 s: every
        // 10-second window from 30 s on answers 95 a second (the one from 29 s, 85.5).
        let mut timeline = vec![50.0];
        timeline.extend([100.0; 9]);
        timeline.extend([60.0; 10]);
        timeline.extend([0.0; 10]);
        timeline.extend([95.0; 31]);
        let spiked = serde_json::json!({ "goodput_timeline": timeline });
        let g = Goal::parse("recovers<=5s").expect("goal");
        assert_eq!(g.measure(&spiked, Some((10.0, 20.0)), None), Some(10.0));
        // A last window below the baseline: it never recovered.
        timeline.extend([
            100.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0,
        ]);
        let relapsed = serde_json::json!({ "goodput_timeline": timeline });
        assert_eq!(
            g.measure(&relapsed, Some((10.0, 20.0)), None),
            Some(f64::INFINITY)
        );
        for bad in ["p99<800", "p99<=fast", "goodput>=9x", "colour<=3"] {
            assert!(Goal::parse(bad).is_err(), "{bad}");
        }
    }
}
