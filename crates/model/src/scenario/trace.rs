//! Trace replay files: arrival times and per-service latencies recorded in production.
//!
//! ```text
//! at,user,orders,recommendations
//! 0ms,180ms,420ms,950ms
//! 12.5ms,210ms,,1300ms
//! ```
//!
//! The first column, `at`, is the request's arrival time since the start; each other column
//! is named after a service and gives the latency of that service's calls in this request (an
//! empty cell draws from the service's distribution). Values are durations with a unit, or
//! plain numbers meaning milliseconds, at most an hour. Rows must not go back in time. Blank
//! lines and lines starting with `#` are skipped; a UTF-8 byte-order mark and `\r\n` or `\r`
//! line ends are accepted. Errors name the file, the line and the column.

use std::io::Read;

use super::check::quoted;
use super::duration::parse_duration;
use super::error::ScenarioError;
use super::limits::{MAX_FILE_BYTES, MAX_TRACE_LATENCY, MAX_TRACE_ROWS, elide, elide_list};
use super::model::{Service, TraceRow};
use crate::time::Nanos;

/// Reads at most [`MAX_FILE_BYTES`] of `path` (a preset or a trace): `/dev/zero` or a huge file
/// is refused instead of filling memory.
pub(crate) fn read_limited(path: &std::path::Path) -> Result<Vec<u8>, ScenarioError> {
    let label = path.display().to_string();
    let read_error = |error| ScenarioError::Read {
        path: label.clone(),
        error,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ScenarioError::Invalid {
            origin: label,
            path: "(file size)".to_owned(),
            value: format!("more than {} MiB", MAX_FILE_BYTES / (1024 * 1024)),
            reason: format!("is too large: allowed up to {MAX_FILE_BYTES} bytes"),
        });
    }
    Ok(bytes)
}

/// Decodes a file's bytes as UTF-8 (without a byte-order mark); an error gives the line and
/// column of the first bad byte.
pub(crate) fn utf8_text<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, ScenarioError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|error| {
        let good = &bytes[..error.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        ScenarioError::Invalid {
            origin: file.to_owned(),
            path: format!("line {line}, column {column}"),
            value: format!("byte 0x{:02X}", bytes[error.valid_up_to()]),
            reason: "is not UTF-8 text".to_owned(),
        }
    })
}

/// Parses a trace file's bytes (see [`parse_trace`]).
pub fn parse_trace_bytes(
    file: &str,
    bytes: &[u8],
    services: &[Service],
) -> Result<Vec<TraceRow>, ScenarioError> {
    parse_trace(file, utf8_text(file, bytes)?, services)
}

/// The file's lines, numbered from 1: `\n`, `\r\n` and (old Mac) `\r` all end a line.
fn numbered_lines(text: &str) -> Box<dyn Iterator<Item = (usize, &str)> + '_> {
    if text.contains('\n') {
        Box::new(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
    } else {
        Box::new(text.split('\r').enumerate().map(|(i, l)| (i + 1, l)))
    }
}

fn invalid(file: &str, line: usize, column: &str, value: &str, reason: &str) -> ScenarioError {
    ScenarioError::Invalid {
        origin: file.to_owned(),
        path: format!("line {line}, column {column}"),
        value: quoted(value),
        reason: reason.to_owned(),
    }
}

fn value(text: &str) -> Option<Nanos> {
    let text = text.trim();
    let nanos = match text.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms >= 0.0 && ms <= MAX_TRACE_LATENCY.as_secs_f64() * 1e3 => {
            Nanos::from_millis_f64(ms)
        }
        Ok(_) => return None,
        Err(_) => parse_duration(text).ok()?,
    };
    (nanos <= MAX_TRACE_LATENCY).then_some(nanos)
}

/// What a cell must hold; every cell error ends with it.
const CELL_FORM: &str = "is not a duration from 0 to 1 hour like \"200ms\" or a number of ms";

/// Parses a trace file's text; `file` names it in errors.
pub(crate) fn parse_trace(
    file: &str,
    text: &str,
    services: &[Service],
) -> Result<Vec<TraceRow>, ScenarioError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut lines = numbered_lines(text)
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (header_line, columns) = header(file, lines.next())?;
    let targets = header_targets(file, header_line, &columns, services)?;
    let columns = Columns {
        names: &columns,
        targets: &targets,
        services: services.len(),
    };
    let mut rows: Vec<TraceRow> = Vec::new();
    for (line, text) in lines {
        let last = rows.last().map_or(Nanos::ZERO, |r| r.at);
        let row = columns.row(file, line, text, last)?;
        if rows.len() == MAX_TRACE_ROWS {
            return Err(invalid(
                file,
                line,
                "*",
                "",
                &format!("the trace has more than {MAX_TRACE_ROWS} rows"),
            ));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(invalid(
            file,
            header_line,
            "*",
            "",
            "the trace has a header but no rows",
        ));
    }
    Ok(rows)
}

/// The header's line number and column names, the first of which must be `at`.
fn header<'a>(
    file: &str,
    first: Option<(usize, &'a str)>,
) -> Result<(usize, Vec<&'a str>), ScenarioError> {
    let Some((header_line, header)) = first else {
        return Err(invalid(
            file,
            1,
            "at",
            "",
            "the trace is empty: expected a header like at,user,orders",
        ));
    };
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    if columns.first() != Some(&"at") {
        return Err(invalid(
            file,
            header_line,
            "1",
            &elide(columns.first().copied().unwrap_or(""), 60),
            "the first column must be `at` (the arrival time)",
        ));
    }
    Ok((header_line, columns))
}

/// The header's columns: their names and the service each one after `at` gives latencies of.
struct Columns<'a> {
    names: &'a [&'a str],
    targets: &'a [usize],
    /// How many services the scenario has (a row holds a latency or none for each).
    services: usize,
}

impl Columns<'_> {
    /// One row, arriving no earlier than `last`.
    fn row(
        &self,
        file: &str,
        line: usize,
        text: &str,
        last: Nanos,
    ) -> Result<TraceRow, ScenarioError> {
        let cells: Vec<&str> = text.split(',').collect();
        if cells.len() != self.names.len() {
            return Err(invalid(
                file,
                line,
                "*",
                &elide(text, 60),
                &format!(
                    "has {} cells, the header has {}",
                    cells.len(),
                    self.names.len()
                ),
            ));
        }
        let at = value(cells[0]).ok_or_else(|| invalid(file, line, "at", cells[0], CELL_FORM))?;
        if at < last {
            return Err(invalid(
                file,
                line,
                "at",
                cells[0],
                "goes back in time: rows must be in arrival order",
            ));
        }
        let mut latencies = vec![None; self.services];
        let named = self.targets.iter().zip(&self.names[1..]);
        for (cell, (&id, name)) in cells[1..].iter().zip(named) {
            if cell.trim().is_empty() {
                continue;
            }
            latencies[id] =
                Some(value(cell).ok_or_else(|| invalid(file, line, name, cell, CELL_FORM))?);
        }
        Ok(TraceRow { at, latencies })
    }
}

/// The service of each column after `at`; a column named twice or not a service is an error.
fn header_targets(
    file: &str,
    header_line: usize,
    columns: &[&str],
    services: &[Service],
) -> Result<Vec<usize>, ScenarioError> {
    let mut targets = Vec::with_capacity(columns.len() - 1);
    for (index, name) in columns.iter().enumerate().skip(1) {
        if columns[..index].contains(name) {
            return Err(invalid(
                file,
                header_line,
                &(index + 1).to_string(),
                name,
                "appears twice in the header: each service gets one column",
            ));
        }
        match services.iter().position(|s| s.name == *name) {
            Some(id) => targets.push(id),
            None => {
                let known = elide_list(services.iter().map(|s| s.name.as_str()), 10);
                return Err(invalid(
                    file,
                    header_line,
                    &elide(name, 60),
                    &elide(name, 60),
                    &format!("is not a service of the preset: services are {known}"),
                ));
            }
        }
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    fn read(bytes: &[u8]) -> Result<Vec<TraceRow>, String> {
        let s = load("ironthread", &[]).expect("built-in preset");
        parse_trace_bytes("t.csv", bytes, &s.services).map_err(|e| e.to_string())
    }

    #[test]
    fn a_service_named_twice_in_the_header_is_refused_with_its_column() {
        let error = read(b"at,user,user\n0,1,2\n").expect_err("duplicate column");
        assert!(error.contains("line 1, column 3"), "{error}");
        assert!(error.contains("appears twice"), "{error}");
    }

    #[test]
    fn a_latency_beyond_an_hour_is_refused_so_every_request_completes() {
        for cell in ["1e300", "3600001", "2h", "61m"] {
            let text = format!("at,user\n0,{cell}\n");
            let error = read(text.as_bytes()).expect_err(cell);
            assert!(error.contains("from 0 to 1 hour"), "{error}");
        }
        let rows = read(b"at,user\n0,60m\n").expect("an hour is allowed");
        assert_eq!(rows[0].latencies[0], Some(MAX_TRACE_LATENCY));
    }

    #[test]
    fn a_byte_order_mark_and_cr_only_line_ends_are_read_like_plain_lines() {
        let plain = read(b"at,user\n0,1\n5,2\n").expect("plain");
        assert_eq!(read(b"\xEF\xBB\xBFat,user\n0,1\n5,2\n"), Ok(plain.clone()));
        assert_eq!(read(b"at,user\r0,1\r5,2\r"), Ok(plain.clone()));
        assert_eq!(read(b"at,user\r\n0,1\r\n5,2\r\n"), Ok(plain));
    }

    #[test]
    fn invalid_utf8_names_the_line_and_column_of_the_bad_byte() {
        let error = read(b"at,user\n0,1\n5,\xff\n").expect_err("not UTF-8");
        assert!(error.contains("line 3, column 3"), "{error}");
        assert!(error.contains("0xFF"), "{error}");
    }

    #[test]
    fn an_unknown_column_lists_at_most_ten_services() {
        let error = read(b"at,nope\n0,1\n").expect_err("unknown service");
        assert!(
            error.contains("services are user, orders, recommendations"),
            "{error}"
        );
    }
}
