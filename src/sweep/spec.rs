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
    pub reason: String,
}

/// Parses one `--vary PATH=SPEC` flag.
pub fn parse_vary(flag: &str) -> Result<Axis, SpecError> {
    let fail = |reason: String| SpecError {
        flag: flag.to_owned(),
        reason,
    };
    let Some((path, spec)) = flag.split_once('=') else {
        return Err(fail("no `=` between the path and the values".into()));
    };
    let path = path.trim();
    if path.is_empty() {
        return Err(fail("the path is empty".into()));
    }
    let values = parse_spec(spec.trim()).map_err(fail)?;
    if values.len() > MAX_POINTS {
        return Err(fail(format!(
            "{} values, more than the {MAX_POINTS} points a sweep may have",
            values.len()
        )));
    }
    Ok(Axis {
        path: path.to_owned(),
        values,
    })
}

fn parse_spec(spec: &str) -> Result<Vec<String>, String> {
    if let Some((a, rest)) = spec.split_once("..") {
        let a = number(a)?;
        if let Some((b, step)) = rest.split_once(':') {
            return linear(a, number(b)?, number(step)?);
        }
        if let Some((b, factor)) = rest.split_once('*') {
            return geometric(a, number(b)?, number(factor)?);
        }
        return Err("a range needs `:step` or `*factor` after its end".into());
    }
    let values: Vec<String> = spec.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err("the list has an empty value".into());
    }
    Ok(values)
}

fn number(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{:?} is not a number", text.trim())),
    }
}

/// Values stay whole numbers when the range's bounds and step are (a pool size of 7.0 is
/// written `7`, which integer fields accept).
fn linear(a: f64, b: f64, step: f64) -> Result<Vec<String>, String> {
    if step <= 0.0 {
        return Err(format!(
            "the step is {}; it must be greater than 0",
            short(step)
        ));
    }
    if b < a {
        return Err(format!(
            "the range {}..{} is empty (its end is below its start)",
            short(a),
            short(b)
        ));
    }
    // Bounded before it is counted or printed: a tiny step gives an astronomic count.
    let steps = (b - a) / step + 1e-9;
    if steps >= MAX_POINTS as f64 {
        return Err(format!(
            "the step {} gives more than the {MAX_POINTS} points a sweep may have from {} to {}",
            short(step),
            short(a),
            short(b)
        ));
    }
    let count = steps.floor() + 1.0;
    let whole = [a, b, step].iter().all(|v| v.fract() == 0.0);
    Ok((0..count as usize)
        .map(|i| show(a + step * i as f64, whole))
        .collect())
}

fn geometric(a: f64, b: f64, factor: f64) -> Result<Vec<String>, String> {
    if factor <= 1.0 {
        return Err(format!(
            "the factor is {}; it must be greater than 1",
            short(factor)
        ));
    }
    if a <= 0.0 {
        return Err(format!(
            "a geometric range starts above 0, not at {}",
            short(a)
        ));
    }
    if b < a {
        return Err(format!(
            "the range {}..{} is empty (its end is below its start)",
            short(a),
            short(b)
        ));
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
            return Err(format!(
                "more than the {MAX_POINTS} points a sweep may have"
            ));
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
}
