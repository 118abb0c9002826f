//! The unit of a number a student predicts: a time, a rate, a percentage, or a word that only
//! labels a count (`threads`). A prediction may be typed in any unit of the answer's kind
//! (`1.7 s` for an answer in ms) and is converted; a bare number is in the answer's unit.

/// What kind of quantity a unit measures; units of one kind convert into each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantity {
    Time,
    Rate,
    Percent,
    /// A count named by a word (`threads`, `requests`), or nothing.
    Label,
}

/// The units threadlab converts between: name, kind, size in the kind's base unit (seconds,
/// per second, percent).
const KNOWN: [(&str, Quantity, f64); 13] = [
    ("ns", Quantity::Time, 1e-9),
    ("us", Quantity::Time, 1e-6),
    ("µs", Quantity::Time, 1e-6),
    ("ms", Quantity::Time, 1e-3),
    ("s", Quantity::Time, 1.0),
    ("min", Quantity::Time, 60.0),
    ("req/s", Quantity::Rate, 1.0),
    ("/s", Quantity::Rate, 1.0),
    ("rps", Quantity::Rate, 1.0),
    ("req/min", Quantity::Rate, 1.0 / 60.0),
    ("/min", Quantity::Rate, 1.0 / 60.0),
    ("%", Quantity::Percent, 1.0),
    ("percent", Quantity::Percent, 1.0),
];

/// An answer's unit, as the lesson writes it (`ms`, `req/s`, `threads`, or none).
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    name: String,
    kind: Quantity,
    size: f64,
}

/// Why a typed prediction is not a number in this answer's unit; shown in the question's
/// box, so the student can type again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("type a number{}", example(.0))]
    NoNumber(String),
    #[error("{typed:?} is not a unit of this answer: type {allowed}, or the number alone")]
    WrongUnit { typed: String, allowed: String },
}

fn example(unit: &str) -> String {
    if unit.is_empty() {
        ", e.g. 117 or 1.5".to_owned()
    } else {
        format!(", e.g. 117 {unit}")
    }
}

impl Unit {
    /// The unit a lesson names: one threadlab converts, or a label (any other word).
    pub fn named(name: &str) -> Unit {
        let name = name.trim();
        match KNOWN.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)) {
            Some(&(_, kind, size)) => Unit {
                name: name.to_owned(),
                kind,
                size,
            },
            None => Unit {
                name: name.to_owned(),
                kind: Quantity::Label,
                size: 1.0,
            },
        }
    }

    /// As the lesson writes it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A typed prediction in this unit: `117`, `117 req/s`, `1.7s`, `1700 ms`.
    pub fn read(&self, typed: &str) -> Result<f64, ReadError> {
        let typed = typed.trim();
        let end = typed
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && matches!(c, '-' | '+'))))
            .map_or(typed.len(), |(i, _)| i);
        let (number, unit) = typed.split_at(end);
        let value: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| ReadError::NoNumber(self.name.clone()))?;
        let unit = unit.trim();
        if unit.is_empty() || self.is_this(unit) {
            return Ok(value);
        }
        match KNOWN.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(unit)) {
            Some(&(_, kind, size)) if kind == self.kind && kind != Quantity::Label => {
                Ok(value * size / self.size)
            }
            _ => Err(ReadError::WrongUnit {
                typed: crate::scenario::elide(unit, 20),
                allowed: self.allowed(),
            }),
        }
    }

    /// `unit` names this unit: as written, or a label in the singular or plural.
    fn is_this(&self, unit: &str) -> bool {
        let (a, b) = (unit.to_lowercase(), self.name.to_lowercase());
        a == b
            || (self.kind == Quantity::Label
                && !b.is_empty()
                && (format!("{a}s") == b || a == format!("{b}s")))
    }

    /// The units a prediction may be typed in, as a list for a message.
    fn allowed(&self) -> String {
        if self.kind == Quantity::Label {
            return if self.name.is_empty() {
                "a number".to_owned()
            } else {
                self.name.clone()
            };
        }
        let names: Vec<&str> = KNOWN
            .iter()
            .filter(|(_, k, _)| *k == self.kind)
            .map(|(n, _, _)| *n)
            .collect();
        names.join(", ")
    }

    /// `v` in this unit as a page writes it: `117.6 req/s`, `1700 ms`, `7 threads`, `25%`.
    pub fn show(&self, v: f64) -> String {
        let n = number(v);
        match self.name.as_str() {
            "" => n,
            "%" => format!("{n}%"),
            unit => format!("{n} {unit}"),
        }
    }
}

/// A figure to the precision a reader compares: whole from 1000, one decimal from 10, two
/// below; trailing zeros dropped (`1700`, `117.6`, `3.4`, `0.25`).
pub fn number(v: f64) -> String {
    let decimals = if v.abs() >= 1000.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    };
    if text == "-0" { "0".to_owned() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_converts_from_any_unit_of_its_kind() {
        let ms = Unit::named("ms");
        assert_eq!(ms.read("1700"), Ok(1700.0));
        assert_eq!(ms.read("1700 ms"), Ok(1700.0));
        assert_eq!(ms.read(" 1.7s "), Ok(1700.0));
        let s = Unit::named("s");
        assert_eq!(s.read("3400ms"), Ok(3.4));
        let rate = Unit::named("req/s");
        assert_eq!(rate.read("117.6 /s"), Ok(117.6));
        assert_eq!(rate.read("6000 req/min"), Ok(100.0));
        assert_eq!(Unit::named("%").read("25 %"), Ok(25.0));
    }

    #[test]
    fn a_label_takes_its_word_singular_or_plural_or_nothing() {
        let threads = Unit::named("threads");
        assert_eq!(threads.read("7"), Ok(7.0));
        assert_eq!(threads.read("7 threads"), Ok(7.0));
        assert_eq!(threads.read("1 thread"), Ok(1.0));
        assert_eq!(
            threads.read("7 ms"),
            Err(ReadError::WrongUnit {
                typed: "ms".into(),
                allowed: "threads".into()
            })
        );
    }

    #[test]
    fn a_prediction_of_another_kind_or_no_number_says_what_to_type() {
        let ms = Unit::named("ms");
        assert_eq!(
            ms.read("5 req/s").map_err(|e| e.to_string()),
            Err("\"req/s\" is not a unit of this answer: type ns, us, µs, ms, s, min, or the number alone".into())
        );
        assert_eq!(
            ms.read("fast").map_err(|e| e.to_string()),
            Err("type a number, e.g. 117 ms".into())
        );
        assert!(ms.read("").is_err());
        assert!(ms.read("1.2.3").is_err());
    }

    #[test]
    fn figures_are_written_to_the_precision_a_reader_compares() {
        assert_eq!(number(1700.0), "1700");
        assert_eq!(number(117.647), "117.6");
        assert_eq!(number(3.4), "3.4");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-0.001), "0");
        assert_eq!(Unit::named("req/s").show(117.647), "117.6 req/s");
        assert_eq!(Unit::named("%").show(25.0), "25%");
        assert_eq!(Unit::named("").show(7.0), "7");
    }
}
