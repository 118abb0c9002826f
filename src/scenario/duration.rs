//! Durations as presets write them: a decimal number and a unit, `"250ms"`, `"1.5s"`, `"0ms"`.
//! A unit is required so `timeout = 2` never silently means 2 ns or 2 s.

use std::fmt;

use crate::time::Nanos;

/// What a duration must look like; every duration error ends with it.
pub const DURATION_FORM: &str =
    "expected a number followed by ns, us, ms, s or m, like \"250ms\" or \"1.5s\"";

/// Parses `"250ms"`, `"1.5s"`, `"2m"`, `"0ms"` into nanoseconds, rounding to the nearest one.
pub fn parse_duration(text: &str) -> Result<Nanos, DurationError> {
    if text.starts_with('-') {
        return Err(DurationError::Negative);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: u128 = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "" if !number.is_empty() => return Err(DurationError::MissingUnit),
        _ if number.is_empty() => return Err(DurationError::Malformed),
        _ => return Err(DurationError::UnknownUnit(unit.to_owned())),
    };
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
    let nanos = whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add((fraction * scale + denominator / 2) / denominator))
        .ok_or(DurationError::TooLarge)?;
    // u64::MAX is `Nanos::NEVER`, which no preset value may mean.
    match u64::try_from(nanos) {
        Ok(n) if n < u64::MAX => Ok(Nanos(n)),
        _ => Err(DurationError::TooLarge),
    }
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
        assert!(error.to_string().contains("ns, us, ms, s or m"));
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
            parse_duration("1h"),
            Err(DurationError::UnknownUnit("h".into()))
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
