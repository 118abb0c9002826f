//! Number and text formatting shared by the panels. Formatting only: every figure comes
//! from the engine.

use ratatui::text::Span;

use crate::report::{Shown, shown};
use crate::time::Nanos;

/// Milliseconds with sensible precision: `1000`, `12.5`, `0.42`.
pub fn ms(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.*}", ms_decimals(v))
    } else {
        "-".into()
    }
}

/// How many decimals [`ms`] writes.
fn ms_decimals(v: f64) -> usize {
    if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    }
}

/// Requests per second, the one rate format of the screen: `0.59/s`, `117.6/s`, `1988/s`,
/// `12.3k/s` (four significant digits at most, as the README's figures).
pub fn rate(v: f64) -> String {
    if v.is_finite() {
        let (unit, decimals, suffix) = rate_form(v);
        format!("{:.*}{suffix}/s", decimals, v / unit)
    } else {
        "-".into()
    }
}

/// A rate the scenario sets (not one measured): as [`rate`], but a rate too small for two
/// decimals keeps its digits (`1e-300/s`, not `0.00/s`: it is not zero).
pub fn set_rate(v: f64) -> String {
    if v > 0.0 && v < 0.005 {
        format!("{}/s", crate::scenario::short_number(v))
    } else {
        rate(v)
    }
}

/// How [`rate`] writes `v`: in what unit, with how many decimals, under what suffix.
fn rate_form(v: f64) -> (f64, usize, &'static str) {
    if v >= 10_000.0 {
        (1e3, 1, "k")
    } else if v >= 1_000.0 {
        (1.0, 0, "")
    } else if v >= 10.0 {
        (1.0, 1, "")
    } else {
        (1.0, 2, "")
    }
}

/// What the screen's figures are compared by when it marks the best: goodput as [`rate`] and
/// latencies as [`ms`] write them, so rows that look alike rank alike.
pub const SHOWN: Shown = Shown {
    rate: |v| {
        let (unit, decimals, _) = rate_form(v);
        shown(v, unit, decimals)
    },
    ms: |v| shown(v, 1.0, ms_decimals(v)),
};

/// A count that stays short: `999`, `12.3k`, `4.5M`.
pub fn count(n: u64) -> String {
    if n < 10_000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        format!("{:.1}M", n as f64 / 1e6)
    }
}

/// Memory in binary units: `512 KiB`, `10 MiB`, `1.9 GiB`.
pub fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let v = n as f64;
    if v < KIB * KIB {
        format!("{:.0} KiB", v / KIB)
    } else if v < KIB * KIB * KIB {
        format!("{:.0} MiB", v / (KIB * KIB))
    } else {
        format!("{:.1} GiB", v / (KIB * KIB * KIB))
    }
}

/// The simulated clock: `12.345s`, from a minute `12m05.250s`, from an hour `13h32m05s`.
pub fn clock(t: Nanos) -> String {
    let ms = t.as_nanos() / 1_000_000;
    let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}.{frac:03}s")
    } else {
        format!("{:.3}s", t.as_secs_f64())
    }
}

/// A percentage: `8%`.
pub fn percent(ratio: f64) -> String {
    format!("{:.0}%", ratio * 100.0)
}

/// `text` cut or padded to exactly `width` columns. When cut, whole words are dropped from
/// the end and an ellipsis says so; a word is cut only when the first one alone is too long.
pub fn fit(text: &str, width: usize) -> String {
    if columns(text) <= width {
        pad(text, width)
    } else if width == 0 {
        String::new()
    } else {
        let head = take_columns(text.chars(), width - 1);
        let next_is_break = text
            .chars()
            .nth(head.chars().count())
            .is_some_and(char::is_whitespace);
        let mut s = match head.rfind(' ') {
            _ if next_is_break => head.trim_end().to_string(),
            Some(i) if i > 0 => head[..i].trim_end().to_string(),
            _ => head,
        };
        s.push('…');
        pad(&s, width)
    }
}

/// `text` in lines of at most `width` columns, broken between words (a longer word is
/// broken where the line ends).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let used = columns(&line);
        if used > 0 && used + 1 + columns(word) <= width {
            line.push(' ');
            line.push_str(word);
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
        }
        let mut rest = word;
        while columns(rest) > width {
            let head = take_columns(rest.chars(), width);
            // A character wider than the whole line stays on a line of its own.
            let head = if head.is_empty() {
                rest.chars().next().map(String::from).unwrap_or_default()
            } else {
                head
            };
            rest = &rest[head.len()..];
            lines.push(head);
        }
        line.push_str(rest);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// [`wrap_words`] in at most `rows` rows padded to `width` columns; when the text needs more,
/// the last row holds the rest cut as [`fit`] cuts.
pub fn wrap(text: &str, width: usize, rows: usize) -> Vec<String> {
    let mut lines = wrap_words(text, width);
    if lines.len() > rows.max(1) {
        let rest = lines.split_off(rows.max(1) - 1).join(" ");
        lines.push(rest);
    }
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if i == last {
                fit(line, width)
            } else {
                pad(line, width)
            }
        })
        .collect()
}

/// `text` cut or padded to exactly `width` columns, cut where the column ends (not between
/// words) with an ellipsis: for labels with no words to keep whole, as `--set` overrides.
pub fn cut(text: &str, width: usize) -> String {
    if columns(text) <= width {
        pad(text, width)
    } else if width == 0 {
        String::new()
    } else {
        pad(
            &format!("{}…", take_columns(text.chars(), width - 1)),
            width,
        )
    }
}

/// `text` padded to `width` columns, or cut on the left with an ellipsis.
pub fn fit_left(text: &str, width: usize) -> String {
    if columns(text) <= width {
        pad(text, width)
    } else if width == 0 {
        String::new()
    } else {
        let tail: String = take_columns(text.chars().rev(), width - 1)
            .chars()
            .rev()
            .collect();
        pad(&format!("…{tail}"), width)
    }
}

/// `text` right-aligned in `width` columns (cut on the left when too long).
pub fn fit_right(text: &str, width: usize) -> String {
    let used = columns(text);
    if used <= width {
        format!("{}{text}", " ".repeat(width - used))
    } else {
        let tail: String = take_columns(text.chars().rev(), width)
            .chars()
            .rev()
            .collect();
        format!("{}{tail}", " ".repeat(width - columns(&tail)))
    }
}

/// The terminal columns `text` takes (a wide character, an emoji or a CJK one, takes two).
pub fn columns(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` followed by spaces up to `width` columns.
fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(columns(text))))
}

/// The characters of `chars`, in their order, for as long as they fit in `width` columns.
fn take_columns(chars: impl Iterator<Item = char>, width: usize) -> String {
    let mut used = 0;
    chars
        .take_while(|&c| {
            used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            used <= width
        })
        .collect()
}

/// Spans of whole items, separated by `sep`, as many as fit in `width` columns (an item that
/// does not fit is left out rather than cut).
pub fn items(
    items: Vec<Vec<Span<'static>>>,
    sep: Span<'static>,
    width: usize,
) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for item in items {
        let w: usize = item.iter().map(Span::width).sum();
        let extra = if out.is_empty() { 0 } else { sep.width() };
        if used + extra + w > width {
            break;
        }
        if !out.is_empty() {
            out.push(sep.clone());
        }
        used += extra + w;
        out.extend(item);
    }
    out
}

/// Eight-level bar glyphs for inline sparklines.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// An inline sparkline of the newest `width` values, scaled to `max` (at least 1). Zero is
/// a blank so an empty queue reads as empty.
pub fn sparkline(values: &[f64], width: usize, max: f64) -> String {
    let skip = values.len().saturating_sub(width);
    let max = max.max(1.0);
    values[skip..]
        .iter()
        .map(|&v| {
            if v <= 0.0 {
                ' '
            } else {
                let level = ((v / max) * 7.0).round().clamp(0.0, 7.0) as usize;
                BARS[level]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_rate_too_small_for_two_decimals_keeps_its_digits() {
        assert_eq!(set_rate(1e-300), "1e-300/s");
        assert_eq!(set_rate(0.001), "0.001/s");
        assert_eq!(set_rate(0.59), "0.59/s");
        assert_eq!(set_rate(12_340.0), "12.3k/s");
    }

    #[test]
    fn figures_that_look_alike_on_screen_compare_equal() {
        let (rate, ms) = (SHOWN.rate, SHOWN.ms);
        for (a, b) in [
            (1988.4, 1988.2),
            (12_340.0, 12_310.0),
            (117.64, 117.6),
            (0.594, 0.59),
        ] {
            assert_eq!(super::rate(a), super::rate(b));
            assert_eq!(rate(a), rate(b), "{a} and {b}");
        }
        for (a, b) in [(1000.3, 1000.0), (12.34, 12.31), (0.424, 0.42)] {
            assert_eq!(super::ms(a), super::ms(b));
            assert_eq!(ms(a), ms(b), "{a} and {b}");
        }
        // And figures that look different keep their order, across the changes of precision.
        let rates = [
            0.58, 0.59, 9.99, 10.0, 10.1, 999.9, 1000.0, 1001.0, 9999.0, 10_000.0, 12_400.0,
        ];
        assert!(rates.windows(2).all(|w| rate(w[0]) < rate(w[1])));
        let latencies = [0.41, 0.42, 9.99, 10.0, 10.1, 99.9, 100.0, 101.0, 1000.0];
        assert!(latencies.windows(2).all(|w| ms(w[0]) < ms(w[1])));
    }

    #[test]
    fn a_caption_wraps_between_words_and_keeps_every_one() {
        assert_eq!(
            wrap_words("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(wrap_words("abcdefghij k", 4), ["abcd", "efgh", "ij k"]);
        assert_eq!(wrap_words("", 10), [""]);
        let text = "200 + 500 + 1000 = 1.7 s each, on the Tomcat thread (http-nio-8080-exec-1).";
        assert_eq!(wrap_words(text, 30).join(" "), text);
        // Wide characters take two columns: a row never runs past its width.
        let wide = wrap_words("pool 🚀🚀🚀 busy", 6);
        assert!(wide.iter().all(|l| columns(l) <= 6), "{wide:?}");
        assert_eq!(wide.join(" "), "pool 🚀🚀🚀 busy");
    }

    #[test]
    fn wrap_breaks_between_words_and_cuts_only_the_last_row() {
        assert_eq!(wrap("one two three", 7, 2), vec!["one two", "three  "]);
        assert_eq!(wrap("one two three four", 7, 2), vec!["one two", "three… "]);
        assert_eq!(wrap("short", 7, 2), vec!["short  "]);
        // A word longer than a row is cut where the row ends.
        assert_eq!(wrap("abcdefghij kl", 4, 3), vec!["abcd", "efgh", "ij… "]);
    }

    #[test]
    fn wide_characters_take_two_columns_when_padding_and_cutting() {
        // A pool named with emoji keeps the log's columns where they belong.
        assert_eq!(fit("🚀🚀pool-3", 12), "🚀🚀pool-3  ");
        assert_eq!(columns(&fit("🚀🚀pool-3", 12)), 12);
        assert_eq!(fit_left("🚀🚀pool-3", 6), "…ool-3");
        assert_eq!(columns(&fit_left("🚀🚀pool-3", 8)), 8);
        assert_eq!(fit_right("🚀1", 5), "  🚀1");
        assert_eq!(columns(&fit("🚀🚀🚀", 4)), 4);
        // ASCII is cut as before.
        assert_eq!(fit("Partial (Recs:Fallback)", 10), "Partial…  ");
    }

    #[test]
    fn fit_pads_and_cuts_with_an_ellipsis() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        // Whole words go, never half a word.
        assert_eq!(fit("threads 200 spare 10", 16), "threads 200…    ");
        assert_eq!(fit("threads 200 spare", 12), "threads 200…");
        assert_eq!(fit_right("42", 4), "  42");
        assert_eq!(fit_left("worker-12", 6), "…er-12");
    }

    #[test]
    fn numbers_stay_short() {
        assert_eq!(ms(1000.4), "1000");
        assert_eq!(ms(12.25), "12.2");
        assert_eq!(rate(0.588), "0.59/s");
        assert_eq!(rate(117.647), "117.6/s");
        assert_eq!(rate(1988.8), "1989/s");
        assert_eq!(rate(14_195.0), "14.2k/s");
        assert_eq!(count(123_456), "123.5k");
        assert_eq!(bytes(200 << 10), "200 KiB");
        assert_eq!(bytes(10 << 20), "10 MiB");
        assert_eq!(bytes(2000 << 20), "2.0 GiB");
    }

    #[test]
    fn the_clock_reads_in_hours_and_minutes_once_it_gets_there() {
        assert_eq!(clock(Nanos::from_millis(12_345)), "12.345s");
        assert_eq!(clock(Nanos::from_millis(725_250)), "12m05.250s");
        assert_eq!(clock(Nanos::from_millis(48_725_415)), "13h32m05s");
    }

    #[test]
    fn sparkline_scales_to_max_and_keeps_the_newest() {
        assert_eq!(sparkline(&[0.0, 1.0, 8.0, 4.0], 3, 8.0), "▂█▅");
    }
}
