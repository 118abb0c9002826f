//! `--vary PATH=SPEC`: which `--set` path to vary and the values it takes.

use std::fmt::Write as _;

use crate::scenario::short_number as short;

/// The most points one sweep may have (the product of its axes).
pub const MAX_POINTS: usize = 10_000;

/// The forms `--vary` accepts, quoted in every error about it.
pub const VARY_FORM: &str = "PATH=a..b:step (a, a+step, ... up to b), PATH=a..b*factor \
                             (a, a*factor, ... up to b, factor > 1) or PATH=a,b,c";

/// One varied path and its values, as the text `--set PATH=VALUE` receives.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub path: String,
    pub values: Vec<String>,
}

/// Why a `--vary` flag was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--vary {flag:?}: {reason}; the allowed form is {VARY_FORM}")]
pub struct SpecError {
    pub flag: String,
    pub reason: SpecReason,
}

/// What is wrong with a `--vary` flag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecReason {
    #[error("no `=` between the path and the values")]
    NoEquals,
    #[error("the path is empty")]
    EmptyPath,
    #[error("{0} values, more than the {MAX_POINTS} points a sweep may have")]
    TooManyValues(usize),
    #[error("a range needs `:step` or `*factor` after its end")]
    NoStep,
    #[error("the list has an empty value")]
    EmptyValue,
    #[error("{0:?} is not a number")]
    NotANumber(String),
    #[error("the step is {}; it must be greater than 0", short(*.0))]
    Step(f64),
    #[error("the range {}..{} is empty (its end is below its start)", short(*.start), short(*.end))]
    EmptyRange { start: f64, end: f64 },
    #[error(
        "the step {} gives more than the {MAX_POINTS} points a sweep may have from {} to {}",
        short(*.step),
        short(*.start),
        short(*.end)
    )]
    TooManySteps { step: f64, start: f64, end: f64 },
    #[error("the factor is {}; it must be greater than 1", short(*.0))]
    Factor(f64),
    #[error("a geometric range starts above 0, not at {}", short(*.0))]
    GeometricStart(f64),
    #[error("more than the {MAX_POINTS} points a sweep may have")]
    TooManyPoints,
}

/// Parses one `--vary PATH=SPEC` flag.
pub fn parse_vary(flag: &str) -> Result<Axis, SpecError> {
    let fail = |reason: SpecReason| SpecError {
        flag: flag.to_owned(),
        reason,
    };
    let Some((path, spec)) = flag.split_once('=') else {
        return Err(fail(SpecReason::NoEquals));
    };
    let path = path.trim();
    if path.is_empty() {
        return Err(fail(SpecReason::EmptyPath));
    }
    let values = parse_spec(spec.trim()).map_err(fail)?;
    if values.len() > MAX_POINTS {
        return Err(fail(SpecReason::TooManyValues(values.len())));
    }
    Ok(Axis {
        path: path.to_owned(),
        values,
    })
}

fn parse_spec(spec: &str) -> Result<Vec<String>, SpecReason> {
    if let Some((a, rest)) = spec.split_once("..") {
        let a = number(a)?;
        if let Some((b, step)) = rest.split_once(':') {
            return linear(a, number(b)?, number(step)?);
        }
        if let Some((b, factor)) = rest.split_once('*') {
            return geometric(a, number(b)?, number(factor)?);
        }
        return Err(SpecReason::NoStep);
    }
    let values: Vec<String> = spec.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err(SpecReason::EmptyValue);
    }
    Ok(values)
}

fn number(text: &str) -> Result<f64, SpecReason> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(SpecReason::NotANumber(text.trim().to_owned())),
    }
}

/// Values stay whole numbers when the range's bounds and step are (a pool size of 7.0 is
/// written `7`, which integer fields accept).
fn linear(a: f64, b: f64, step: f64) -> Result<Vec<String>, SpecReason> {
    if step <= 0.0 {
        return Err(SpecReason::Step(step));
    }
    if b < a {
        return Err(SpecReason::EmptyRange { start: a, end: b });
    }
    // Bounded before it is counted or printed: a tiny step gives an astronomic count.
    let steps = (b - a) / step + 1e-9;
    if steps >= MAX_POINTS as f64 {
        return Err(SpecReason::TooManySteps {
            step,
            start: a,
            end: b,
        });
    }
    let count = steps.floor() + 1.0;
    let whole = [a, b, step].iter().all(|v| v.fract() == 0.0);
    Ok((0..count as usize)
        .map(|i| show(a + step * i as f64, whole))
        .collect())
}

fn geometric(a: f64, b: f64, factor: f64) -> Result<Vec<String>, SpecReason> {
    if factor <= 1.0 {
        return Err(SpecReason::Factor(factor));
    }
    if a <= 0.0 {
        return Err(SpecReason::GeometricStart(a));
    }
    if b < a {
        return Err(SpecReason::EmptyRange { start: a, end: b });
    }
    let whole = a.fract() == 0.0 && b.fract() == 0.0;
    let mut values: Vec<String> = Vec::new();
    let mut v = a;
    while v <= b * (1.0 + 1e-9) {
        let text = show(v, whole);
        if values.last() != Some(&text) {
            values.push(text);
        }
        if values.len() > MAX_POINTS {
            return Err(SpecReason::TooManyPoints);
        }
        v *= factor;
    }
    Ok(values)
}

fn show(v: f64, whole: bool) -> String {
    if whole {
        return format!("{}", v.round() as i64);
    }
    // Six decimals hide the binary noise of repeated additions (0.1 + 0.2).
    let mut s = String::new();
    let _ = write!(s, "{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.').to_owned();
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(flag: &str) -> Vec<String> {
        parse_vary(flag).expect("valid spec").values
    }

    #[test]
    fn linear_range_includes_its_end_when_the_step_lands_on_it() {
        assert_eq!(
            values("server.threads=50..200:50"),
            ["50", "100", "150", "200"]
        );
        assert_eq!(values("x=1..10:4"), ["1", "5", "9"]);
    }

    #[test]
    fn fractional_steps_print_without_binary_noise() {
        assert_eq!(values("x=0..0.3:0.1"), ["0", "0.1", "0.2", "0.3"]);
    }

    #[test]
    fn geometric_range_multiplies_and_drops_repeats_after_rounding() {
        assert_eq!(values("x=5..60*2"), ["5", "10", "20", "40"]);
        assert_eq!(values("x=1..4*1.2"), ["1", "2", "3", "4"]);
    }

    #[test]
    fn a_tiny_step_is_refused_in_a_short_message_before_counting() {
        let e = parse_vary("x=0..1:1e-300")
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains("the step 1e-300 gives more than the 10000 points"),
            "{e}"
        );
        assert!(e.len() < 300, "{e}");
        let e = parse_vary("x=0..1e300:-1e-300")
            .expect_err("refused")
            .to_string();
        assert!(e.len() < 300, "{e}");
    }

    #[test]
    fn lists_keep_their_order_and_text() {
        assert_eq!(values("server.threads=virtual,200"), ["virtual", "200"]);
    }

    #[test]
    fn bad_specs_name_the_flag_and_the_allowed_form() {
        for bad in [
            "x=1..10:0",
            "x=10..1:1",
            "x=1..100000:1",
            "x=1..10*1",
            "x=1..10",
            "x=a..b:1",
            "x=",
            "noequals",
            "=1,2",
            "x=1,,2",
        ] {
            let e = parse_vary(bad).expect_err(bad).to_string();
            assert!(e.contains(&format!("--vary {bad:?}")), "{e}");
            assert!(e.contains("a..b:step"), "{e}");
        }
    }

    #[test]
    fn each_refusal_says_what_is_wrong_in_words() {
        let reason = |flag: &str| parse_vary(flag).expect_err("refused").reason.to_string();
        for (flag, said) in [
            ("x", "no `=` between the path and the values"),
            ("=1", "the path is empty"),
            ("x=1..2", "a range needs `:step` or `*factor` after its end"),
            ("x=1,,2", "the list has an empty value"),
            ("x=a..2:1", "\"a\" is not a number"),
            ("x=1..2:0", "the step is 0.0; it must be greater than 0"),
            (
                "x=2..1:1",
                "the range 2.0..1.0 is empty (its end is below its start)",
            ),
            ("x=1..2*1", "the factor is 1.0; it must be greater than 1"),
            ("x=0..2*2", "a geometric range starts above 0, not at 0.0"),
            (
                "x=1..1e300*1.0000001",
                "more than the 10000 points a sweep may have",
            ),
        ] {
            assert_eq!(reason(flag), said, "{flag}");
        }
    }
}
