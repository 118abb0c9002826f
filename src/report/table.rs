//! Article-ready tables (Markdown pipe tables, aligned so they also read well as plain text).

use std::fmt::Write as _;

use super::{RunReport, fmt_ms};
use crate::scenario::Scenario;
use crate::theory::{ErlangPrediction, Prediction};

/// Column alignment.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A Markdown table with padded columns.
pub(crate) struct MarkdownTable {
    headers: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl MarkdownTable {
    pub(crate) fn new(headers: &[(&str, Align)]) -> Self {
        MarkdownTable {
            headers: headers.iter().map(|(h, _)| (*h).to_string()).collect(),
            align: headers.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub(crate) fn render(&self, out: &mut String) {
        // Widths are terminal columns (unicode-width): a wide character (東, an emoji) takes
        // two, so a name in it keeps the columns aligned.
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r.get(i).map_or(0, |c| columns(c)))
                    .chain(std::iter::once(columns(&self.headers[i])))
                    .max()
                    .unwrap_or(0)
                    .max(3)
            })
            .collect();
        let line = |cells: &[String], out: &mut String| {
            out.push('|');
            for (i, w) in widths.iter().enumerate() {
                let cell = cells.get(i).map_or("", String::as_str);
                let _ = write!(out, " {} |", pad(cell, *w, self.align[i] == Align::Left));
            }
            out.push('\n');
        };
        line(&self.headers, out);
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            let dashes = "-".repeat(*w);
            match self.align[i] {
                Align::Left => {
                    let _ = write!(out, " {dashes} |");
                }
                Align::Right => {
                    let _ = write!(out, " {}: |", &dashes[1..]);
                }
            }
        }
        out.push('\n');
        for r in &self.rows {
            line(r, out);
        }
    }
}

use Align::{Left, Right};

fn opt_u32(v: Option<u32>, none: &str) -> String {
    v.map_or_else(|| none.to_string(), |v| v.to_string())
}

/// Requests per second to two decimals; an infinite rate is `unbounded`.
pub(super) fn rps(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        "unbounded".to_string()
    }
}

/// The scenario's name and what it is about, the first line of every table.
pub(super) fn title(scenario: &Scenario, out: &mut String) {
    if scenario.about.trim().is_empty() {
        let _ = writeln!(out, "{}", scenario.name);
    } else {
        let _ = writeln!(out, "{}: {}", scenario.name, scenario.about);
    }
}

/// `run --format table`.
pub fn run_table(scenario: &Scenario, r: &RunReport) -> String {
    run_table_measured(scenario, r, "simulated")
}

/// The run table, its header saying how the run's time was measured (`simulated`, or a real
/// run's time scale and wall time).
pub fn run_table_measured(scenario: &Scenario, r: &RunReport, measured: &str) -> String {
    let mut out = String::new();
    title(scenario, &mut out);
    let _ = writeln!(
        out,
        "preset {} · strategy {} · seed {} · {:.3} s {measured}\n",
        r.preset, r.strategy, r.seed, r.simulated_s
    );
    if let Some(runs) = &r.runs {
        let mut t = MarkdownTable::new(&[
            ("Run #", Right),
            ("Strategy", Left),
            ("Time (ms)", Right),
            ("Thread Name", Left),
            ("Status", Left),
        ]);
        for row in runs {
            t.row(vec![
                row.run.to_string(),
                row.strategy.to_string(),
                fmt_ms(row.time_ms),
                row.thread.clone(),
                row.status.clone(),
            ]);
        }
        t.render(&mut out);
        out.push('\n');
    }
    summary(r, &mut out);
    out
}

/// Everything under the runs: the headline figures, the pools, services and connection
/// pools, the CPU and theory.
fn summary(r: &RunReport, out: &mut String) {
    headline(r, out);
    pool_table(r, out);
    service_table(r, out);
    resource_table(r, out);
    let cpu = match &r.cpu {
        Some(cpu) => format!(
            "{} cores, {:.0}% used, at most {} waiting for a core",
            cpu.cores,
            cpu.utilisation * 100.0,
            cpu.max_queued
        ),
        None => "not simulated (this machine's scheduler ran the real run)".to_string(),
    };
    let _ = writeln!(
        out,
        "CPU: {cpu} · thread stacks {:.1} MiB now, at most {:.1} MiB",
        r.thread_memory_mib, r.peak_thread_memory_mib
    );
    theory(r, out);
}

/// The server's work beside goodput: every response it wrote per second, and how many of
/// them reached no one (`server responses 98.11/s, 12831 of them late`).
fn server_responses(r: &RunReport) -> String {
    let q = &r.requests;
    let rate = r.rate_text(r.server_responses_rps, 2);
    if q.late_responses == 0 {
        format!("server responses {rate}/s")
    } else {
        format!(
            "server responses {rate}/s, {} of them late (their client had left)",
            q.late_responses
        )
    }
}

/// The requests by outcome, goodput and failure rates, and the two latencies.
fn headline(r: &RunReport, out: &mut String) {
    let q = &r.requests;
    let l = &r.latency_ms;
    let _ = writeln!(
        out,
        "Requests: {} sent, {} completed: {} success, {} partial, {} failed, {} timeout, {} refused; {} in flight",
        q.sent, q.completed, q.success, q.partial, q.failed, q.timeout, q.refused, q.in_flight
    );
    let f = &r.failure_rps;
    let rate = |x| r.rate_text(x, 2);
    let _ = writeln!(
        out,
        "Goodput: {} req/s answered (success + partial) · failed {}/s, timeout {}/s, refused {}/s · {}",
        rate(r.goodput_rps),
        rate(f.failed),
        rate(f.timeout),
        rate(f.refused),
        server_responses(r)
    );
    if l.count == 0 {
        let _ = writeln!(out, "Latency of answered requests (ms): none was answered");
    } else {
        let _ = writeln!(
            out,
            "Latency of answered requests (ms): mean {:.1}, p50 {:.1}, p90 {:.1}, p99 {:.1}, p99.9 {:.1}, max {:.1}",
            l.mean, l.p50, l.p90, l.p99, l.p999, l.max
        );
    }
    let e = &r.failed_latency_ms;
    if e.count > 0 {
        let _ = writeln!(
            out,
            "Time to failure (ms, failed + timeout + refused): mean {:.1}, p50 {:.1}, p99 {:.1}, max {:.1}",
            e.mean, e.p50, e.p99, e.max
        );
    }
    if let Some(x) = &r.resilience {
        let retries = if x.clients_retry {
            format!(
                "{} client retries ({:.2} attempts per request), {} gave up",
                x.retries, x.attempts_per_request, x.gave_up
            )
        } else {
            "the clients do not retry".to_string()
        };
        let _ = writeln!(
            out,
            "Resilience: {retries}, {} shed · work for clients that had left: {:.1} thread-s",
            x.shed, x.wasted_work_s
        );
        let client = x
            .client_breaker
            .iter()
            .map(|b| ("the clients'", b, "requests not sent"));
        let services = x
            .breakers
            .iter()
            .map(|(service, b)| (service.as_str(), b, "calls failed fast"));
        for (whose, b, fast) in client.chain(services) {
            let moves: Vec<String> = b
                .transitions
                .iter()
                .map(|(at, _, to)| format!("{to} {at:.1}s"))
                .collect();
            let _ = writeln!(
                out,
                "Breaker {whose}: {} at the end · opened {} times, {} {fast} · {}",
                b.state,
                b.opened,
                b.not_permitted,
                if moves.is_empty() {
                    "never moved".to_owned()
                } else {
                    moves.join(", ")
                }
            );
        }
        for (service, c) in &x.call_retries {
            let _ = writeln!(
                out,
                "Retry {service}: {} attempts made again ({:.2} attempts per call), {} calls out of attempts",
                c.retries, c.attempts_per_call, c.exhausted
            );
        }
        for (service, n) in &x.rate_limited {
            let _ = writeln!(out, "Rate limiter {service}: {n} calls refused");
        }
        for (service, guards) in &x.guards {
            for g in guards {
                let _ = writeln!(
                    out,
                    "Guard {service}, {}: {} · {} calls refused",
                    g.guard, g.state, g.refused
                );
            }
        }
        if x.limited_at_door > 0 {
            let _ = writeln!(
                out,
                "Rate limiter at the door: {} requests answered 429 unserved",
                x.limited_at_door
            );
        }
    }
    out.push('\n');
}

/// The pools in use, with the JDK's names for their figures.
fn pool_table(r: &RunReport, out: &mut String) {
    let mut pools = MarkdownTable::new(&[
        ("Pool", Left),
        ("Kind", Left),
        ("Core", Right),
        ("Max", Right),
        ("Queue", Right),
        ("Largest", Right),
        ("Max active", Right),
        ("Max queued", Right),
        ("Completed", Right),
        ("Rejected", Right),
    ]);
    for p in &r.pools {
        pools.row(vec![
            p.name.clone(),
            p.kind.name().to_string(),
            p.core.to_string(),
            opt_u32(p.max, "-"),
            opt_u32(p.queue_capacity, "unbounded"),
            p.largest_pool_size.to_string(),
            p.max_active.to_string(),
            p.max_queue.to_string(),
            p.completed.to_string(),
            p.rejected.to_string(),
        ]);
    }
    pools.render(out);
    out.push('\n');
}

/// Calls to each downstream service and how they ended.
fn service_table(r: &RunReport, out: &mut String) {
    let mut services = MarkdownTable::new(&[
        ("Service", Left),
        ("Calls", Right),
        ("Failures", Right),
        ("Timeouts", Right),
        ("Fallbacks", Right),
        ("Rejected", Right),
        ("Discarded", Right),
    ]);
    for s in &r.services {
        services.row(vec![
            s.name.clone(),
            s.stats.calls.to_string(),
            s.stats.failures.to_string(),
            s.stats.timeouts.to_string(),
            s.stats.fallbacks.to_string(),
            s.stats.rejected.to_string(),
            s.stats.discarded.to_string(),
        ]);
    }
    services.render(out);
    out.push('\n');
}

/// The connection pools, when the scenario has any.
fn resource_table(r: &RunReport, out: &mut String) {
    if !r.resources.is_empty() {
        let mut t = MarkdownTable::new(&[
            ("Connection pool", Left),
            ("Size", Right),
            ("Max active", Right),
            ("Max waiting", Right),
            ("Acquired", Right),
            ("Timeouts", Right),
            ("Mean wait (ms)", Right),
        ]);
        for x in &r.resources {
            t.row(vec![
                x.name.clone(),
                x.size.to_string(),
                x.max_active.to_string(),
                x.max_waiting.to_string(),
                x.acquired.to_string(),
                x.timeouts.to_string(),
                format!("{:.1}", x.mean_wait_ms),
            ]);
        }
        t.render(out);
        out.push('\n');
    }
}

/// Theory beside the measurement: the ceiling, the expected throughput, the CPU's ceiling,
/// Erlang C where it applies, and Little's law.
fn theory(r: &RunReport, out: &mut String) {
    let p = &r.theory.prediction;
    if r.theory.for_last_phase {
        out.push_str("Theory below is for the load of the last phase (load.phases changed it)\n");
    }
    ceiling_line(p, out);
    if let Some(x) = p.throughput_rps {
        match (r.theory.last_phase_from_s, r.theory.last_phase_goodput_rps) {
            (Some(from), Some(measured)) => {
                let _ = write!(
                    out,
                    "Expected: {} req/s (measured goodput from {from:.0} s: {measured:.2})",
                    rps(x),
                );
            }
            _ => {
                let _ = write!(
                    out,
                    "Expected: {} req/s (measured goodput {})",
                    rps(x),
                    r.rate_text(r.goodput_rps, 2)
                );
            }
        }
        if let Some(ms) = p.latency_ms {
            let _ = write!(out, ", mean latency {ms:.1} ms");
        }
        if let Some(u) = p.utilisation {
            let _ = write!(out, ", bottleneck utilisation {:.0}%", u * 100.0);
        }
        out.push('\n');
    }
    if let Some(c) = p.cpu_ceiling_rps {
        let _ = write!(out, "CPU ceiling: {} req/s", rps(c));
        if let Some(n) = p.sizing_rule_threads {
            let _ = write!(
                out,
                "; sizing rule cores x (1 + wait/compute) = {n:.0} threads"
            );
        }
        out.push('\n');
    }
    if let Some(e) = &p.erlang_c {
        erlang_c_line(e, out);
    }
    if let Some(t) = &p.retries {
        retry_line(t, p.ceiling_rps, out);
    }
    let _ = writeln!(
        out,
        "Little's law: L measured {:.2}, λ·W {:.2}",
        r.theory.littles_l_measured, r.theory.littles_l_from_x_w
    );
}

/// One request alone, and the thread ceiling with the pool (or Tomcat) that sets it.
fn ceiling_line(p: &Prediction, out: &mut String) {
    let _ = write!(
        out,
        "Theory: one request alone {} ms",
        fmt_ms(p.single_request_ms)
    );
    match (&p.ceiling_rps, &p.bottleneck) {
        (Some(c), Some(b)) => {
            let _ = write!(out, "; ceiling {} req/s at {b}", rps(*c));
            if let Some(pool) = p.pools.iter().find(|x| &x.pool == b) {
                let _ = write!(
                    out,
                    " ({} threads / {} ms of work per request; {} req/s on core threads)",
                    pool.threads,
                    fmt_ms(pool.work_ms_per_request),
                    rps(pool.core_ceiling_rps)
                );
            } else if b == "tomcat" {
                let _ = write!(
                    out,
                    " (threads / {} ms held per request)",
                    fmt_ms(p.handler_hold_ms)
                );
            }
        }
        _ => {
            let _ = write!(out, "; no thread ceiling");
        }
    }
    out.push('\n');
}

/// The M/M/c (Erlang C) prediction, and whether it only approximates this hold time.
/// What retries cost: attempts per request, and in a storm the offered load against the
/// ceiling, with the rate below which a backlog still drains.
fn retry_line(t: &crate::theory::RetryTheory, ceiling: Option<f64>, out: &mut String) {
    let _ = write!(
        out,
        "Retries: up to {} attempts, (1 - p^{}) / (1 - p) per request when an attempt fails with probability p; {:.2} when every attempt fails",
        t.max_attempts, t.max_attempts, t.storm_attempts
    );
    if let (Some(offered), Some(c), Some(below)) =
        (t.storm_offered_rps, ceiling, t.drains_below_rps)
    {
        let verdict = if offered >= c {
            "above it: a backlog cannot drain"
        } else {
            "below it: a backlog drains"
        };
        let _ = write!(
            out,
            ": the clients then offer {} req/s against a ceiling of {} ({verdict}; it drains below {} req/s of new requests)",
            rps(offered),
            rps(c),
            rps(below)
        );
    }
    out.push('\n');
}

fn erlang_c_line(e: &ErlangPrediction, out: &mut String) {
    let _ = writeln!(
        out,
        "Erlang C (M/M/{}{}): offered {:.1} erlangs, P(wait) {:.1}%, Wq {:.3} ms, W {:.2} ms, p99 {:.1} ms",
        e.servers,
        if e.approximation {
            ", an approximation: the hold time is not exponential"
        } else {
            ""
        },
        e.offered_load_erlangs,
        e.prob_wait * 100.0,
        e.mean_wait_ms,
        e.mean_response_ms,
        e.p99_response_ms
    );
}

/// How many terminal columns `text` takes (a wide character two).
pub(crate) fn columns(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` padded with spaces to `width` columns, on the right when `left` aligned.
pub(crate) fn pad(text: &str, width: usize, left: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(columns(text)));
    if left {
        format!("{text}{fill}")
    } else {
        format!("{fill}{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_keep_the_columns_aligned() {
        let mut t = MarkdownTable::new(&[("pool", Align::Left), ("threads", Align::Right)]);
        t.row(vec!["東京-pool".into(), "10".into()]);
        t.row(vec!["ascii".into(), "200".into()]);
        let mut out = String::new();
        t.render(&mut out);
        let widths: Vec<usize> = out.lines().map(columns).collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{out}");
        assert_eq!(pad("東", 4, true), "東  ");
        assert_eq!(pad("東", 4, false), "  東");
    }
}
