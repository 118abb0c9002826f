//! Access logs: Tomcat's `AccessLogValve` (a pattern with `%D`, `%T`, `%{ms}T`, `%{us}T` or
//! `%{fractional}T`) and nginx (a `log_format` with `$request_time`). They give the rate and
//! the endpoint's own latency, as one piece of work on the request thread.

use super::ImportError;
use super::telemetry::{Calls, Telemetry, rate};

/// Tomcat's `common` pattern with `%D`, what `AccessLogValve` writes with `%D` added.
pub const TOMCAT_DEFAULT: &str = "%h %l %u %t \"%r\" %s %b %D";
/// nginx's `combined` format with `$request_time`.
pub const NGINX_DEFAULT: &str = "$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time";

#[derive(Debug, Clone, PartialEq)]
enum PatternPart {
    Literal(String),
    Field(String),
}

/// A pattern split into literals and fields (`%D`, `%{begin:msec}t`, `$request_time`).
fn tokens(pattern: &str) -> Vec<PatternPart> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '%' && i + 1 < chars.len() {
            let start = i;
            i += 1;
            if chars[i] == '{' {
                while i < chars.len() && chars[i] != '}' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            push_lit(&mut out, &mut lit);
            out.push(PatternPart::Field(
                chars[start..i.min(chars.len())].iter().collect(),
            ));
            continue;
        }
        if c == '$' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            push_lit(&mut out, &mut lit);
            out.push(PatternPart::Field(chars[start..i].iter().collect()));
            continue;
        }
        lit.push(c);
        i += 1;
    }
    push_lit(&mut out, &mut lit);
    out
}

fn push_lit(out: &mut Vec<PatternPart>, lit: &mut String) {
    if !lit.is_empty() {
        out.push(PatternPart::Literal(std::mem::take(lit)));
    }
}

/// The fields of one line, by their pattern names; `None` when the line does not fit.
fn fields<'a>(tokens: &'a [PatternPart], line: &'a str) -> Option<Vec<(&'a str, &'a str)>> {
    let mut rest = line;
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            PatternPart::Literal(l) => rest = rest.strip_prefix(l.as_str())?,
            PatternPart::Field(name) => {
                // Tomcat's %t writes its own brackets.
                let end = if name == "%t" {
                    rest.find(']').map(|k| k + 1)?
                } else {
                    match tokens.get(i + 1) {
                        Some(PatternPart::Literal(l)) => rest.find(l.as_str())?,
                        _ => rest.find(' ').unwrap_or(rest.len()),
                    }
                };
                out.push((name.as_str(), &rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    Some(out)
}

/// The latency a field gives, in ms.
fn latency_ms(name: &str, value: &str) -> Option<f64> {
    let x: f64 = value.trim().parse().ok()?;
    Some(match name {
        "%D" | "%{us}T" => x / 1e3,
        "%{ms}T" => x,
        "%T" | "%{fractional}T" | "%{s}T" | "$request_time" | "$upstream_response_time" => x * 1e3,
        _ => return None,
    })
}

/// Seconds since the epoch of a `[05/Dec/2026:09:48:19 +0000]` time (as the log writes it).
fn clf_seconds(text: &str) -> Option<f64> {
    let t = text.trim_matches(|c| c == '[' || c == ']');
    let (date, zone) = t.split_once(' ').unwrap_or((t, "+0000"));
    let mut parts = date.split(['/', ':']);
    let day: i64 = parts.next()?.parse().ok()?;
    let name = parts.next()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == name)? as i64
        + 1;
    let year: i64 = parts.next()?.parse().ok()?;
    let (h, m, s): (i64, i64, i64) = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let z: i64 = zone.trim_start_matches(['+', '-']).parse().unwrap_or(0);
    let offset = sign * ((z / 100) * 3600 + (z % 100) * 60);
    Some((days * 86_400 + h * 3600 + m * 60 + s - offset) as f64)
}

/// Reads an access log: `pattern` (Tomcat's or nginx's), else the first of Tomcat's `common`
/// with `%D` and nginx's `combined` with `$request_time` that fits the first line.
pub fn read(
    file: &str,
    text: &str,
    pattern: Option<&str>,
    endpoint: Option<&str>,
) -> Result<Telemetry, ImportError> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let pattern = match pattern {
        Some(p) => p.to_owned(),
        None => [TOMCAT_DEFAULT, NGINX_DEFAULT]
            .into_iter()
            .find(|p| fields(&tokens(p), first).is_some_and(|f| f.iter().any(|(n, v)| latency_ms(n, v).is_some())))
            .ok_or_else(|| ImportError {
                file: file.to_owned(),
                line: Some(1),
                key: None,
                message: format!(
                    "neither Tomcat's {TOMCAT_DEFAULT:?} nor nginx's combined format with $request_time: give the \
                     log's pattern with --log-format"
                ),
            })?
            .to_owned(),
    };
    let toks = tokens(&pattern);
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| ImportError {
            file: file.to_owned(),
            line: Some(i + 1),
            key: None,
            message: format!("{why} (pattern {pattern:?})"),
        };
        let f = fields(&toks, line).ok_or_else(|| bad("does not fit the log's pattern"))?;
        let get = |names: &[&str]| f.iter().find(|(n, _)| names.contains(n)).map(|(_, v)| *v);
        let latency = f
            .iter()
            .find_map(|(n, v)| latency_ms(n, v))
            .ok_or_else(|| bad("has no latency (%D, %T or $request_time)"))?;
        let request = get(&["%r", "$request"]).unwrap_or("");
        let mut words = request.split_whitespace();
        let method = words.next().unwrap_or("");
        let path = words.next().unwrap_or("").split('?').next().unwrap_or("");
        let at = get(&["%{begin:msec}t", "%{end:msec}t", "$msec"])
            .and_then(|v| v.parse::<f64>().ok())
            .map(|ms| if ms > 1e11 { ms / 1e3 } else { ms })
            .or_else(|| get(&["%t", "$time_local"]).and_then(clf_seconds));
        let failed = get(&["%s", "$status"])
            .and_then(|s| s.parse::<u16>().ok())
            .is_some_and(|s| s >= 500);
        rows.push((format!("{method} {path}"), latency, at, failed));
    }
    let name = match endpoint {
        Some(e) => e.to_owned(),
        None => {
            let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
            for r in &rows {
                *counts.entry(r.0.as_str()).or_default() += 1;
            }
            let top = counts.values().copied().max().unwrap_or(0);
            counts
                .into_iter()
                .find(|(_, n)| *n == top)
                .map(|(e, _)| e.to_owned())
                .unwrap_or_default()
        }
    };
    rows.retain(|r| r.0 == name);
    if rows.is_empty() {
        return Err(ImportError::file(
            file,
            format!("no request {name:?} in the log"),
        ));
    }
    let times: Vec<f64> = rows.iter().filter_map(|r| r.2).collect();
    let (lo, hi) = times
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), t| (a.min(*t), b.max(*t)));
    let work = service_name(&name);
    Ok(Telemetry {
        source: format!("{file} (access log, {pattern:?})"),
        endpoint: name,
        requests: rows.len(),
        rate: rate(times.len(), hi - lo),
        endpoint_ms: rows.iter().map(|r| r.1).collect(),
        endpoint_failures: rows.iter().filter(|r| r.3).count(),
        services: vec![Calls {
            name: work.clone(),
            latencies_ms: rows.iter().map(|r| r.1).collect(),
            failures: rows.iter().filter(|r| r.3).count(),
        }],
        stages: vec![vec![work]],
        stages_seen: rows.len(),
        whole_endpoint: true,
    })
}

/// A service name for an endpoint's own work: `GET /api/dashboard` gives `dashboard`.
fn service_name(endpoint: &str) -> String {
    let path = endpoint.split_whitespace().last().unwrap_or("endpoint");
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let clean: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    if clean.is_empty() {
        "endpoint".into()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tomcat_and_nginx_lines_give_the_latency_and_the_time() {
        let tomcat = "127.0.0.1 - - [05/Dec/2026:09:48:19 +0000] \"GET /dashboard?id=0 HTTP/1.1\" 200 10 79219 0 1796464099446 exec-6\n\
                      127.0.0.1 - - [05/Dec/2026:09:48:21 +0000] \"GET /dashboard?id=1 HTTP/1.1\" 500 10 120000 0 1796464101446 exec-6\n";
        let t = read("a.log", tomcat, None, None).expect("tomcat");
        assert_eq!(t.endpoint, "GET /dashboard");
        assert_eq!(t.endpoint_ms, vec![79.219, 120.0]);
        assert_eq!(t.endpoint_failures, 1);
        assert!((t.rate - 0.5).abs() < 1e-9, "{}", t.rate);
        let with_begin = read(
            "a.log",
            tomcat,
            Some("%h %l %u %t \"%r\" %s %b %D %T %{begin:msec}t %I"),
            None,
        )
        .expect("begin");
        assert!((with_begin.rate - 0.5).abs() < 1e-9);
        let nginx = "10.0.0.1 - - [05/Dec/2026:09:48:19 +0000] \"GET /api/x HTTP/1.1\" 200 5 \"-\" \"curl\" 0.085\n";
        let n = read("n.log", nginx, None, None).expect("nginx");
        assert_eq!((n.endpoint_ms[0], n.services[0].name.as_str()), (85.0, "x"));
    }

    #[test]
    fn a_line_that_does_not_fit_names_its_line() {
        let text =
            "127.0.0.1 - - [05/Dec/2026:09:48:19 +0000] \"GET / HTTP/1.1\" 200 10 5\ngarbage\n";
        let e = read("a.log", text, None, None).expect_err("bad line");
        assert_eq!((e.file.as_str(), e.line), ("a.log", Some(2)));
    }
}
