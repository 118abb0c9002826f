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
//! plain numbers meaning milliseconds. Rows must not go back in time. Blank lines and lines
//! starting with `#` are skipped. Errors name the file, the line and the column.

use super::check::quoted;
use super::duration::parse_duration;
use super::error::ScenarioError;
use super::model::{Service, TraceRow};
use crate::time::Nanos;

/// Most rows a trace may hold.
const MAX_ROWS: usize = 10_000_000;

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
    if let Ok(ms) = text.parse::<f64>() {
        return (ms.is_finite() && ms >= 0.0).then(|| Nanos::from_millis_f64(ms));
    }
    parse_duration(text).ok()
}

/// Parses a trace file's text; `file` names it in errors.
pub(crate) fn parse_trace(
    file: &str,
    text: &str,
    services: &[Service],
) -> Result<Vec<TraceRow>, ScenarioError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = lines.next() else {
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
            columns.first().copied().unwrap_or(""),
            "the first column must be `at` (the arrival time)",
        ));
    }
    let mut targets = Vec::with_capacity(columns.len() - 1);
    for name in &columns[1..] {
        match services.iter().position(|s| s.name == *name) {
            Some(id) => targets.push(id),
            None => {
                let known: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
                return Err(invalid(
                    file,
                    header_line,
                    name,
                    name,
                    &format!(
                        "is not a service of the preset: services are {}",
                        known.join(", ")
                    ),
                ));
            }
        }
    }
    let mut rows = Vec::new();
    let mut last = Nanos::ZERO;
    for (line, text) in lines {
        let cells: Vec<&str> = text.split(',').collect();
        if cells.len() != columns.len() {
            return Err(invalid(
                file,
                line,
                "*",
                text,
                &format!(
                    "has {} cells, the header has {}",
                    cells.len(),
                    columns.len()
                ),
            ));
        }
        let at = value(cells[0]).ok_or_else(|| {
            invalid(
                file,
                line,
                "at",
                cells[0],
                "is not a duration like \"12ms\" or a number of ms",
            )
        })?;
        if at < last {
            return Err(invalid(
                file,
                line,
                "at",
                cells[0],
                "goes back in time: rows must be in arrival order",
            ));
        }
        last = at;
        let mut latencies = vec![None; services.len()];
        for (cell, (&id, name)) in cells[1..].iter().zip(targets.iter().zip(&columns[1..])) {
            if cell.trim().is_empty() {
                continue;
            }
            latencies[id] = Some(value(cell).ok_or_else(|| {
                invalid(
                    file,
                    line,
                    name,
                    cell,
                    "is not a duration like \"200ms\" or a number of ms",
                )
            })?);
        }
        rows.push(TraceRow { at, latencies });
        if rows.len() > MAX_ROWS {
            return Err(invalid(
                file,
                line,
                "*",
                "",
                "the trace has more than 10,000,000 rows",
            ));
        }
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
