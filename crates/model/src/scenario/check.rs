//! Small checks shared by validation: each turns one raw value into a model value or an error
//! that names the source, the field path, the value and what is allowed.

use std::fmt::Display;
use std::ops::RangeInclusive;

use super::duration::parse_duration;
use super::error::ScenarioError;
use super::limits::{MAX_NAME_CHARS, MAX_RATE, elide, elide_list, short_number};
use super::model::{Service, ServiceId};
use super::raw::DurationText;
use crate::time::Nanos;

/// Builds errors for one source (a file path or a built-in preset name).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checker<'a> {
    pub origin: &'a str,
}

impl Checker<'_> {
    pub fn invalid(
        &self,
        path: &str,
        value: impl Display,
        reason: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError::Invalid {
            origin: self.origin.to_owned(),
            path: path.to_owned(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    pub fn missing(&self, path: &str, reason: impl Into<String>) -> ScenarioError {
        ScenarioError::Missing {
            origin: self.origin.to_owned(),
            path: path.to_owned(),
            reason: reason.into(),
        }
    }

    /// An integer in `range` (which must fit a `u32`).
    pub fn count(
        &self,
        path: &str,
        value: i64,
        range: RangeInclusive<u32>,
    ) -> Result<u32, ScenarioError> {
        u32::try_from(value)
            .ok()
            .filter(|v| range.contains(v))
            .ok_or_else(|| {
                let (lo, hi) = (range.start(), range.end());
                self.invalid(path, value, format!("is out of range: allowed {lo}..={hi}"))
            })
    }

    /// A probability: a number in [0, 1].
    pub fn probability(&self, path: &str, value: f64) -> Result<f64, ScenarioError> {
        if (0.0..=1.0).contains(&value) {
            Ok(value)
        } else {
            Err(self.invalid(
                path,
                short_number(value),
                "is out of range: allowed 0.0..=1.0 (a probability)",
            ))
        }
    }

    /// A rate per second: finite, above 0, at most one million.
    pub fn rate(&self, path: &str, value: f64) -> Result<f64, ScenarioError> {
        if value.is_finite() && value > 0.0 && value <= MAX_RATE {
            Ok(value)
        } else {
            Err(self.invalid(
                path,
                short_number(value),
                "is out of range: allowed > 0 and <= 1000000 per second",
            ))
        }
    }

    /// Any duration, zero included.
    pub fn duration(&self, path: &str, text: &DurationText) -> Result<Nanos, ScenarioError> {
        parse_duration(&text.0)
            .map_err(|error| self.invalid(path, quoted(&text.0), error.to_string()))
    }

    /// A duration above zero.
    pub fn positive_duration(
        &self,
        path: &str,
        text: &DurationText,
    ) -> Result<Nanos, ScenarioError> {
        let nanos = self.duration(path, text)?;
        if nanos == Nanos::ZERO {
            Err(self.invalid(
                path,
                quoted(&text.0),
                "is zero: must be > 0, like \"250ms\"",
            ))
        } else {
            Ok(nanos)
        }
    }

    /// One of the named choices.
    pub fn one_of<T: Copy>(
        &self,
        path: &str,
        value: &str,
        choices: &[(&str, T)],
    ) -> Result<T, ScenarioError> {
        choices
            .iter()
            .find(|(name, _)| *name == value)
            .map(|(_, choice)| *choice)
            .ok_or_else(|| {
                let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
                self.invalid(
                    path,
                    quoted(value),
                    format!("is not allowed: expected one of {}", names.join(", ")),
                )
            })
    }

    /// A name that must not be empty (it appears in tables and thread names), at most
    /// [`MAX_NAME_CHARS`] characters, without control characters.
    pub fn name(&self, path: &str, value: &str) -> Result<String, ScenarioError> {
        if value.trim().is_empty() {
            return Err(self.invalid(path, quoted(value), "is empty: give it a name"));
        }
        let chars = value.chars().count();
        if chars > MAX_NAME_CHARS {
            return Err(self.invalid(
                path,
                quoted(value),
                format!("has {chars} characters: allowed at most {MAX_NAME_CHARS}"),
            ));
        }
        if let Some((at, c)) = value.chars().enumerate().find(|&(_, c)| is_format(c)) {
            return Err(self.invalid(
                path,
                quoted(value),
                format!(
                    "has the invisible format character {} at character {}: bidi controls, \
                     zero-width and other format characters (Unicode Cf) would disguise the \
                     name or misalign the tables; only visible characters are allowed",
                    c.escape_unicode(),
                    at + 1
                ),
            ));
        }
        self.text(path, value, false)
    }

    /// Free text shown on screen (`about`, a caption): no control characters, which would
    /// move the cursor, clear the screen or retitle the terminal. `lines` allows line breaks.
    pub fn text(&self, path: &str, value: &str, lines: bool) -> Result<String, ScenarioError> {
        let bad = value
            .chars()
            .enumerate()
            .find(|&(_, c)| c.is_control() && !(lines && c == '\n'));
        match bad {
            Some((at, c)) => Err(self.invalid(
                path,
                quoted(value),
                format!(
                    "has the control character {} at character {}: only printable text is \
                     allowed",
                    c.escape_unicode(),
                    at + 1
                ),
            )),
            None => Ok(value.to_owned()),
        }
    }
}

/// Unicode's format characters (general category Cf): bidi embeddings, overrides and isolates
/// (U+202A..=U+202E, U+2066..=U+2069, the marks U+200E, U+200F, U+061C), zero-width spaces
/// and joiners (U+200B..=U+200D, U+2060..=U+2064, U+FEFF), the soft hyphen, tags.
const FORMAT_CHARS: [(char, char); 21] = [
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `c` is a format character (Unicode Cf): invisible, yet it reorders or joins text.
pub fn is_format(c: char) -> bool {
    FORMAT_CHARS.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// A string value as TOML writes it, for messages: control characters escaped, long values
/// elided.
pub(crate) fn quoted(value: &str) -> String {
    let shown = elide(value, 80);
    format!("{shown:?}")
}

/// The id of the service called `name`, or an error listing the services that exist.
pub(crate) fn service_id(
    check: &Checker,
    path: &str,
    name: &str,
    services: &[Service],
) -> Result<ServiceId, ScenarioError> {
    services
        .iter()
        .position(|s| s.name == name)
        .map(ServiceId)
        .ok_or_else(|| {
            let known = elide_list(services.iter().map(|s| s.name.as_str()), 10);
            check.invalid(
                path,
                quoted(name),
                format!("is not a known service: services are {known}"),
            )
        })
}
