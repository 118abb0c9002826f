//! Durations as presets write them: a decimal number and a unit, `"250ms"`, `"1.5s"`, `"0ms"`,
//! `"10h"`, or several such parts from the largest unit down, `"1m30s"`, `"1h30m"`. A unit is
//! required so `timeout = 2` never silently means 2 ns or 2 s.

use std::fmt;

use crate::time::Nanos;

/// What a duration must look like; every duration error ends with it.
pub const DURATION_FORM: &str = "expected a number followed by h, m, s, ms, us or ns, or \
                                 several from the largest unit down, like \"250ms\", \"1.5s\" \
                                 or \"1m30s\"";

/// The units, largest first, with their length in nanoseconds.
const UNITS: [(&str, u128); 7] = [
    ("h", 3_600_000_000_000),
    ("m", 60_000_000_000),
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("µs", 1_000),
    ("ns", 1),
];

/// Parses `"250ms"`, `"1.5s"`, `"2m"`, `"10h"`, `"1m30s"`, `"0ms"` into nanoseconds, rounding
/// each part to the nearest one.
pub fn parse_duration(text: &str) -> Result<Nanos, DurationError> {
    if text.starts_with('-') {
        return Err(DurationError::Negative);
    }
    if text.is_empty() {
        return Err(DurationError::Malformed);
    }
    let mut rest = text;
    let mut total: u128 = 0;
    // Units must come largest first, each once: "1m30s", not "30s1m" or "1s1s".
    let mut smaller_than = u128::MAX;
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(split);
        let unit_end = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_end);
        let scale = match UNITS.iter().find(|(name, _)| *name == unit) {
            Some(&(_, scale)) => scale,
            None if unit.is_empty() && !number.is_empty() => {
                return Err(DurationError::MissingUnit);
            }
            None if number.is_empty() => return Err(DurationError::Malformed),
            None => return Err(DurationError::UnknownUnit(unit.to_owned())),
        };
        if scale >= smaller_than {
            return Err(DurationError::Malformed);
        }
        smaller_than = scale;
        total = total
            .checked_add(part(number, scale)?)
            .ok_or(DurationError::TooLarge)?;
        rest = next;
    }
    // u64::MAX is `Nanos::NEVER`, which no preset value may mean.
    match u64::try_from(total) {
        Ok(n) if n < u64::MAX => Ok(Nanos(n)),
        _ => Err(DurationError::TooLarge),
    }
}

/// One `number unit` part in nanoseconds: `number` is decimal digits with at most one point
/// between digits.
fn part(number: &str, scale: u128) -> Result<u128, DurationError> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits_only(whole) || !digits_only(fraction) {
        return Err(DurationError::Malformed);
    }
    if number.ends_with('.') {
        return Err(DurationError::Malformed);
    }
    let whole: u128 = whole.parse().map_err(|_| DurationError::TooLarge)?;
    // Digits past the 18th are far below a nanosecond at any unit: ignore them.
    let fraction = &fraction[..fraction.len().min(18)];
    let denominator = 10u128.pow(fraction.len() as u32);
    let fraction: u128 = if fraction.is_empty() {
        0
    } else {
        fraction.parse().map_err(|_| DurationError::Malformed)?
    };
    whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add((fraction * scale + denominator / 2) / denominator))
        .ok_or(DurationError::TooLarge)
}

/// Why a duration string was rejected. Displays as a sentence fragment after the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationError {
    Negative,
    MissingUnit,
    UnknownUnit(String),
    Malformed,
    TooLarge,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurationError::Negative => write!(f, "is negative: {DURATION_FORM}"),
            DurationError::MissingUnit => write!(f, "has no unit: {DURATION_FORM}"),
            DurationError::UnknownUnit(unit) => {
                write!(f, "has an unknown unit `{unit}`: {DURATION_FORM}")
            }
            DurationError::Malformed => write!(f, "is not a duration: {DURATION_FORM}"),
            DurationError::TooLarge => {
                write!(
                    f,
                    "is too large: the limit is about 584 years (2^64 - 2 ns)"
                )
            }
        }
    }
}

impl std::error::Error for DurationError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_parses() {
        assert_eq!(parse_duration("750ns"), Ok(Nanos(750)));
        assert_eq!(parse_duration("20us"), Ok(Nanos::from_micros(20)));
        assert_eq!(parse_duration("250ms"), Ok(Nanos::from_millis(250)));
        assert_eq!(parse_duration("60s"), Ok(Nanos::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Nanos::from_secs(120)));
    }

    #[test]
    fn hours_and_compounds_parse_largest_unit_first() {
        assert_eq!(parse_duration("10h"), Ok(Nanos::from_secs(36_000)));
        assert_eq!(parse_duration("1h"), Ok(Nanos::from_secs(3_600)));
        assert_eq!(parse_duration("1m30s"), Ok(Nanos::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Nanos::from_secs(5_400)));
        assert_eq!(parse_duration("1.5h"), Ok(Nanos::from_secs(5_400)));
        assert_eq!(parse_duration("2s500ms"), Ok(Nanos::from_millis(2_500)));
        assert_eq!(parse_duration("1s250us3ns"), Ok(Nanos(1_000_250_003)));
        assert_eq!(parse_duration("30s1m"), Err(DurationError::Malformed));
        assert_eq!(parse_duration("1s1s"), Err(DurationError::Malformed));
        assert_eq!(parse_duration("1m30"), Err(DurationError::MissingUnit));
    }

    #[test]
    fn decimals_and_zero_parse() {
        assert_eq!(parse_duration("1.5s"), Ok(Nanos::from_millis(1500)));
        assert_eq!(parse_duration("0.25ms"), Ok(Nanos::from_micros(250)));
        assert_eq!(parse_duration("0ms"), Ok(Nanos::ZERO));
        assert_eq!(parse_duration("1.0000000005s"), Ok(Nanos(1_000_000_001)));
    }

    #[test]
    fn missing_unit_is_rejected_with_the_expected_form() {
        let error = parse_duration("250").expect_err("rejected");
        assert_eq!(error, DurationError::MissingUnit);
        assert!(error.to_string().contains("h, m, s, ms, us or ns"));
    }

    #[test]
    fn negative_junk_and_unknown_units_are_rejected() {
        assert_eq!(parse_duration("-5ms"), Err(DurationError::Negative));
        assert_eq!(parse_duration("ms"), Err(DurationError::Malformed));
        assert_eq!(parse_duration(""), Err(DurationError::Malformed));
        assert_eq!(parse_duration("1..5s"), Err(DurationError::Malformed));
        assert_eq!(parse_duration(".5s"), Err(DurationError::Malformed));
        assert_eq!(parse_duration("5.s"), Err(DurationError::Malformed));
        assert_eq!(
            parse_duration("5 ms"),
            Err(DurationError::UnknownUnit(" ms".into()))
        );
        assert_eq!(
            parse_duration("1d"),
            Err(DurationError::UnknownUnit("d".into()))
        );
        assert_eq!(
            parse_duration("5msx"),
            Err(DurationError::UnknownUnit("msx".into()))
        );
    }

    #[test]
    fn overflow_is_rejected() {
        assert_eq!(
            parse_duration("999999999999m"),
            Err(DurationError::TooLarge)
        );
        let huge = format!("{}s", "9".repeat(60));
        assert_eq!(parse_duration(&huge), Err(DurationError::TooLarge));
        assert!(parse_duration("18446744073709551614ns").is_ok());
        assert_eq!(
            parse_duration("18446744073709551615ns"),
            Err(DurationError::TooLarge)
        );
    }
}
