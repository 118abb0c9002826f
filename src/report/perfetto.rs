//! A run's thread timelines as a Chrome / Perfetto trace (the Trace Event JSON format that
//! ui.perfetto.dev and chrome://tracing open).
//!
//! One process per pool (per strategy, for a comparison), one track per thread named as the
//! JVM names it, a complete event (`X`) per handler, call, CPU burst and wait, async events
//! for waits in a pool's queue, counter tracks (`C`) for queue depth, busy threads and
//! requests in flight, and flow arrows (`s`/`f`) from a request's handler to its calls.
//! Timestamps are microseconds of simulated time.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use crate::scenario::{Scenario, Strategy};
use crate::sim::{Engine, PoolId, Retention, Span, SpanKind, ThreadName, Timeline};
use crate::time::Nanos;
use crate::topology::Pools;

/// The most spans an exported trace file holds, whatever the number of runs in it (a
/// comparison's strategies share it); later ones are counted and named as left out.
pub const SPAN_LIMIT: usize = 1_000_000;

/// Plays `scenario` like [`super::play`], recording thread timelines for an export.
pub fn play_traced(scenario: &Scenario, strategy: Strategy, duration: Nanos) -> Engine {
    let mut engine = traced(scenario, strategy);
    engine.run_until(duration);
    engine
}

/// A new engine that records its thread timelines for an export: one of `runs` runs that
/// share a trace file, so it keeps its share of the file's span limit.
pub fn traced(scenario: &Scenario, strategy: Strategy) -> Engine {
    traced_share(scenario, strategy, 1)
}

/// [`traced`], for one of `runs` runs written to one file.
pub fn traced_share(scenario: &Scenario, strategy: Strategy, runs: usize) -> Engine {
    let mut engine = Engine::new(scenario, strategy);
    engine.record_timeline(Retention::export(SPAN_LIMIT / runs.max(1)));
    engine
}

/// What a written trace holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceSummary {
    pub events: u64,
    /// Spans the timelines did not keep (their span limit was reached, or a live view's
    /// ring forgot them).
    pub left_out: u64,
}

/// Says what a trace left out, if anything.
pub fn left_out_message(runs: &[(&str, &Engine)]) -> Option<String> {
    let parts: Vec<String> = runs
        .iter()
        .filter_map(|(label, e)| {
            let t = e.timeline()?;
            let mut what = Vec::new();
            if t.left_out() > 0 {
                let from = t.first_left_out().unwrap_or(Nanos::ZERO).as_secs_f64();
                what.push(format!(
                    "{} spans from {from:.3} s on left out (limit {} spans)",
                    t.left_out(),
                    t.retention().max_spans
                ));
            }
            if t.forgotten() > 0 {
                what.push(format!(
                    "{} older spans forgotten (the last {} per thread kept)",
                    t.forgotten(),
                    t.retention().per_lane
                ));
            }
            // One run needs no label: "trace truncated: 12 spans ...".
            let what = what.join(", ");
            (!what.is_empty()).then(|| {
                if label.is_empty() {
                    what
                } else {
                    format!("{label}: {what}")
                }
            })
        })
        .collect();
    (!parts.is_empty()).then(|| format!("trace truncated: {}", parts.join("; ")))
}

/// Writes the timelines of `runs` (a label and an engine that recorded them) as one trace.
pub fn write_trace<W: Write>(out: W, runs: &[(&str, &Engine)]) -> io::Result<TraceSummary> {
    let mut w = EventWriter::new(out)?;
    // Each run's pools take the next process ids, so no two runs share one.
    let mut base = 1;
    for (label, engine) in runs {
        let pools = engine.topology().specs().count() as u64;
        if let Some(t) = engine.timeline() {
            write_run(&mut w, label, engine, t, base)?;
        }
        // The run's breakers take the process after its pools, its collector the next.
        if write_breakers(&mut w, label, engine, base + pools)? {
            base += 1;
        }
        if write_gc(&mut w, label, engine, base + pools)? {
            base += 1;
        }
        base += pools;
    }
    if let Some(msg) = left_out_message(runs) {
        w.event(&TraceEvent::instant(msg, 0, 0))?;
    }
    let summary = TraceSummary {
        events: w.count,
        left_out: runs
            .iter()
            .filter_map(|(_, e)| e.timeline().map(|t| t.left_out() + t.forgotten()))
            .sum(),
    };
    w.finish()?;
    Ok(summary)
}

/// The process id of a pool in the run numbered `base`.
fn pid(base: u64, pool: PoolId) -> u64 {
    base + pool.index() as u64
}

/// The thread number of a pool's queue track (no thread has it).
const QUEUE_TRACK: u32 = u32::MAX;

fn write_run<W: Write>(
    w: &mut EventWriter<W>,
    label: &str,
    engine: &Engine,
    t: &Timeline,
    base: u64,
) -> io::Result<()> {
    let pools = engine.topology().pools();
    let mut used: Pools<bool> = pools.map(|_| false);
    for (key, _) in t.lanes() {
        used[key.pool] = true;
    }
    for (pool, _) in t.queue_spans().chain(t.queued_now()) {
        used[pool] = true;
    }
    used[engine.topology().server()] = true;
    for (pool, spec) in pools
        .enumerate()
        .filter(|(p, _)| used[*p])
        .map(|(p, plan)| (p, &plan.spec))
    {
        let p = pid(base, pool);
        let name = if label.is_empty() {
            spec.name.clone()
        } else {
            format!("{label} · {}", spec.name)
        };
        w.event(&TraceEvent::meta("process_name", p, 0, Args::Name { name }))?;
        w.event(&TraceEvent::meta(
            "process_sort_index",
            p,
            0,
            Args::SortIndex { sort_index: p },
        ))?;
        let queue = format!("{} queue", spec.name);
        let track = w.tid(p, QUEUE_TRACK);
        w.event(&TraceEvent::meta(
            "thread_name",
            p,
            track,
            Args::Name { name: queue },
        ))?;
    }
    write_threads(w, engine, t, base)?;
    write_spans(w, engine, t, base)?;
    write_counters(w, t, base, &used, engine.topology().server())
}

fn write_threads<W: Write>(
    w: &mut EventWriter<W>,
    engine: &Engine,
    t: &Timeline,
    base: u64,
) -> io::Result<()> {
    let mut named = std::collections::BTreeSet::new();
    for (key, lane) in t.lanes() {
        for span in lane.spans.iter().chain(lane.open()) {
            if named.insert((key.pool, span.thread)) {
                let p = pid(base, key.pool);
                let name = engine.thread_name(ThreadName::Worker {
                    pool: key.pool,
                    number: span.thread,
                });
                let track = w.tid(p, span.thread);
                w.event(&TraceEvent::meta(
                    "thread_name",
                    p,
                    track,
                    Args::Name { name },
                ))?;
                let sort_index = u64::from(span.thread);
                w.event(&TraceEvent::meta(
                    "thread_sort_index",
                    p,
                    track,
                    Args::SortIndex { sort_index },
                ))?;
            }
        }
    }
    Ok(())
}

fn write_spans<W: Write>(
    w: &mut EventWriter<W>,
    engine: &Engine,
    t: &Timeline,
    base: u64,
) -> io::Result<()> {
    let now = engine.now();
    let names: Vec<&str> = engine
        .scenario()
        .services
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let mut spans = Vec::new();
    for (key, lane) in t.lanes() {
        let p = pid(base, key.pool);
        // Importers nest slices by order: outer (earlier, longer) slices first.
        spans.clear();
        spans.extend(lane.spans.iter().map(|s| (*s, false)));
        spans.extend(lane.open().map(|s| (Span { end: now, ..*s }, true)));
        spans.sort_by_key(|(s, _)| (s.start, std::cmp::Reverse(s.end), nesting(s.kind)));
        for (span, unfinished) in &spans {
            write_span(w, &names, span, (p, base), *unfinished)?;
        }
    }
    for (pool, span) in t.queue_spans() {
        write_queued(w, &names, span, pid(base, pool), false)?;
    }
    // The tasks still queued, in a stable order: the same run writes the same bytes.
    let mut queued: Vec<(PoolId, Span)> = t.queued_now().map(|(p, s)| (p, *s)).collect();
    queued.sort_by_key(|(p, s)| (*p, s.start, s.request, s.service.map(|x| x.0)));
    for (pool, open) in queued {
        let span = Span { end: now, ..open };
        write_queued(w, &names, &span, pid(base, pool), true)?;
    }
    Ok(())
}

/// Each circuit breaker of the run as a track of process `p` (`breakers`): a slice per
/// stretch in one state (`closed`, `open`, `half-open`) from t 0 to the end, so the calls
/// that failed fast line up under its open slices. False when the run has no breaker.
/// The collector's pauses (`[jvm.gc]`) as a process "JVM" with a track "GC": every Java
/// thread stood still during each. False when the run has no collector.
fn write_gc<W: Write>(
    w: &mut EventWriter<W>,
    label: &str,
    engine: &Engine,
    p: u64,
) -> io::Result<bool> {
    let Some(gc) = engine.snapshot().gc else {
        return Ok(false);
    };
    let name = if label.is_empty() {
        "JVM".to_string()
    } else {
        format!("{label} · JVM")
    };
    w.event(&TraceEvent::meta("process_name", p, 0, Args::Name { name }))?;
    w.event(&TraceEvent::meta(
        "process_sort_index",
        p,
        0,
        Args::SortIndex { sort_index: p },
    ))?;
    let track = w.tid(p, 0);
    let name = format!("GC ({})", gc.collector.name());
    w.event(&TraceEvent::meta(
        "thread_name",
        p,
        track,
        Args::Name { name },
    ))?;
    for &(start, len) in engine.gc_pauses() {
        w.event(&TraceEvent::complete(
            "pause".into(),
            p,
            track,
            start,
            len,
            Args::Gc {
                collector: gc.collector.name(),
            },
        ))?;
    }
    Ok(true)
}

fn write_breakers<W: Write>(
    w: &mut EventWriter<W>,
    label: &str,
    engine: &Engine,
    p: u64,
) -> io::Result<bool> {
    let snapshot = engine.snapshot();
    let breakers: Vec<(&str, &crate::flow::BreakerSnapshot)> = snapshot
        .services
        .iter()
        .filter_map(|s| Some((s.name.as_str(), s.breaker.as_ref()?)))
        .collect();
    if breakers.is_empty() {
        return Ok(false);
    }
    let name = if label.is_empty() {
        "breakers".to_string()
    } else {
        format!("{label} · breakers")
    };
    w.event(&TraceEvent::meta("process_name", p, 0, Args::Name { name }))?;
    w.event(&TraceEvent::meta(
        "process_sort_index",
        p,
        0,
        Args::SortIndex { sort_index: p },
    ))?;
    let now = engine.now();
    for (i, (service, breaker)) in breakers.into_iter().enumerate() {
        let track = w.tid(p, u32::try_from(i).unwrap_or(u32::MAX));
        let name = format!("{service} breaker");
        w.event(&TraceEvent::meta(
            "thread_name",
            p,
            track,
            Args::Name { name },
        ))?;
        let mut from = (Nanos::ZERO, crate::flow::BreakerState::Closed);
        let ends = breaker
            .transitions
            .iter()
            .map(|&(at, _, to)| (at, Some(to)))
            .chain(std::iter::once((now, None)));
        for (at, to) in ends {
            let (start, state) = from;
            if at > start || to.is_none() {
                w.event(&TraceEvent::complete(
                    state.name().into(),
                    p,
                    track,
                    start,
                    at.saturating_sub(start),
                    Args::Breaker { service },
                ))?;
            }
            if let Some(to) = to {
                from = (at, to);
            }
        }
    }
    Ok(true)
}

/// How deep a kind of span nests on its thread.
fn nesting(kind: SpanKind) -> u8 {
    match kind {
        SpanKind::Handler => 0,
        SpanKind::Waiting => 1,
        SpanKind::Call | SpanKind::Queued => 2,
        SpanKind::OnCore => 3,
    }
}

fn write_span<W: Write>(
    w: &mut EventWriter<W>,
    names: &[&str],
    span: &Span,
    (p, base): (u64, u64),
    unfinished: bool,
) -> io::Result<()> {
    let track = w.tid(p, span.thread);
    let (name, args) = name_and_args(names, span, unfinished);
    w.event(&TraceEvent::complete(
        name,
        p,
        track,
        span.start,
        span.duration(),
        args,
    ))?;
    if let Some(at) = span.timed_out_at.filter(|at| *at < span.end) {
        let rest = span.end.saturating_sub(at);
        let args = Args::Request {
            request: span.request,
            unfinished,
        };
        let name = "past the caller's timeout".into();
        w.event(&TraceEvent::complete(name, p, track, at, rest, args))?;
    }
    if let Some((from_pool, from_number, at)) = span.from {
        // One arrow per call, from the submitting thread's slice to the call's; the event
        // count makes a unique id.
        let id = w.count;
        let from_pid = pid(base, from_pool);
        let from_track = w.tid(from_pid, from_number);
        w.event(&TraceEvent::flow("s", from_pid, from_track, at, id))?;
        w.event(&TraceEvent::flow("f", p, track, span.start, id))?;
    }
    Ok(())
}

/// A span's slice name and its arguments: the request, and for a call its service and how
/// it ended.
fn name_and_args<'a>(names: &[&'a str], span: &Span, unfinished: bool) -> (Cow<'a, str>, Args<'a>) {
    let service = span.service.and_then(|s| names.get(s.0).copied());
    match span.kind {
        SpanKind::Handler => (
            format!("request #{}", span.request).into(),
            Args::Request {
                request: span.request,
                unfinished,
            },
        ),
        SpanKind::Waiting => (
            "waiting for calls (join)".into(),
            Args::Request {
                request: span.request,
                unfinished,
            },
        ),
        SpanKind::OnCore => (
            "on core (CPU)".into(),
            Args::Request {
                request: span.request,
                unfinished,
            },
        ),
        SpanKind::Call | SpanKind::Queued => (
            service.unwrap_or("?").into(),
            Args::Call {
                service: service.unwrap_or("?"),
                request: span.request,
                // A call still running whose caller's timeout gave up on it: timed out.
                outcome: match (span.outcome, span.timed_out_at) {
                    (Some(outcome), _) => outcome,
                    (None, Some(_)) => crate::flow::CallResult::TimedOut.label(),
                    (None, None) => "running",
                },
                fallback: span.fallback,
                pinned: span.pinned,
                unfinished,
            },
        ),
    }
}

fn write_queued<W: Write>(
    w: &mut EventWriter<W>,
    names: &[&str],
    span: &Span,
    p: u64,
    unfinished: bool,
) -> io::Result<()> {
    let name: Cow<'_, str> = match span.service.and_then(|s| names.get(s.0)) {
        Some(service) => format!("queued {service}").into(),
        None => format!("queued request #{}", span.request).into(),
    };
    let id = w.count;
    let args = Args::Request {
        request: span.request,
        unfinished,
    };
    let track = w.tid(p, QUEUE_TRACK);
    let mut begin = TraceEvent::complete(name.clone(), p, track, span.start, Nanos::ZERO, args);
    begin.ph = "b";
    begin.dur = None;
    begin.id = Some(id);
    begin.cat = Some("queued");
    w.event(&begin)?;
    let mut end = TraceEvent::complete(name, p, track, span.end, Nanos::ZERO, Args::None);
    end.ph = "e";
    end.dur = None;
    end.id = Some(id);
    end.cat = Some("queued");
    w.event(&end)
}

fn write_counters<W: Write>(
    w: &mut EventWriter<W>,
    t: &Timeline,
    base: u64,
    used: &Pools<bool>,
    server: PoolId,
) -> io::Result<()> {
    let server = pid(base, server);
    for s in t.samples() {
        let value = s.in_flight;
        w.event(&TraceEvent::counter(
            "requests in flight",
            server,
            s.at,
            value,
        ))?;
        for (pool, g) in used.ids().zip(&s.pools) {
            if !used[pool] {
                continue;
            }
            let p = pid(base, pool);
            let busy = u64::from(g.active);
            w.event(&TraceEvent::counter("busy threads", p, s.at, busy))?;
            let queued = u64::from(g.queued);
            w.event(&TraceEvent::counter("queue depth", p, s.at, queued))?;
        }
    }
    Ok(())
}

/// One trace event.
#[derive(Debug, Serialize)]
struct TraceEvent<'a> {
    name: Cow<'a, str>,
    ph: &'static str,
    /// Microseconds of simulated time.
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u64,
    tid: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Args::is_none")]
    args: Args<'a>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Args<'a> {
    None,
    Name {
        name: String,
    },
    SortIndex {
        sort_index: u64,
    },
    Request {
        request: u64,
        #[serde(skip_serializing_if = "is_false")]
        unfinished: bool,
    },
    Call {
        service: &'a str,
        request: u64,
        outcome: &'static str,
        fallback: bool,
        #[serde(skip_serializing_if = "is_false")]
        pinned: bool,
        #[serde(skip_serializing_if = "is_false")]
        unfinished: bool,
    },
    Value {
        value: u64,
    },
    Breaker {
        service: &'a str,
    },
    Gc {
        collector: &'static str,
    },
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

impl Args<'_> {
    fn is_none(&self) -> bool {
        matches!(self, Args::None)
    }
}

fn micros(t: Nanos) -> f64 {
    t.as_nanos() as f64 / 1000.0
}

impl<'a> TraceEvent<'a> {
    fn base(name: Cow<'a, str>, ph: &'static str, pid: u64, tid: u64, ts: Nanos) -> Self {
        TraceEvent {
            name,
            ph,
            ts: micros(ts),
            dur: None,
            pid,
            tid,
            cat: None,
            id: None,
            bp: None,
            s: None,
            args: Args::None,
        }
    }

    fn meta(name: &'static str, pid: u64, tid: u64, args: Args<'a>) -> Self {
        TraceEvent {
            args,
            ..TraceEvent::base(name.into(), "M", pid, tid, Nanos::ZERO)
        }
    }

    fn complete(
        name: Cow<'a, str>,
        pid: u64,
        tid: u64,
        start: Nanos,
        dur: Nanos,
        args: Args<'a>,
    ) -> Self {
        TraceEvent {
            dur: Some(micros(dur)),
            args,
            ..TraceEvent::base(name, "X", pid, tid, start)
        }
    }

    fn flow(ph: &'static str, pid: u64, tid: u64, at: Nanos, id: u64) -> Self {
        TraceEvent {
            cat: Some("call"),
            id: Some(id),
            bp: (ph == "f").then_some("e"),
            ..TraceEvent::base("submit".into(), ph, pid, tid, at)
        }
    }

    fn counter(name: &'static str, pid: u64, at: Nanos, value: u64) -> Self {
        TraceEvent {
            args: Args::Value { value },
            ..TraceEvent::base(name.into(), "C", pid, 0, at)
        }
    }

    fn instant(name: String, pid: u64, tid: u64) -> Self {
        TraceEvent {
            s: Some("g"),
            ..TraceEvent::base(name.into(), "i", pid, tid, Nanos::ZERO)
        }
    }
}

/// Streams events into a `{"traceEvents": [...]}` document.
struct EventWriter<W: Write> {
    out: io::BufWriter<W>,
    count: u64,
    /// Track ids handed out, by (process, thread number): 1, 2, 3... in order of first use.
    tids: std::collections::HashMap<(u64, u32), u64>,
}

impl<W: Write> EventWriter<W> {
    fn new(out: W) -> io::Result<Self> {
        let mut out = io::BufWriter::new(out);
        out.write_all(b"{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")?;
        Ok(EventWriter {
            out,
            count: 0,
            tids: std::collections::HashMap::new(),
        })
    }

    /// A thread's track id: unique across the trace's processes (Chrome's importer wants
    /// that) and small: Perfetto's JSON importer reads `tid` as a 32-bit number, so ids are
    /// numbered from 1 in order of first use rather than built from the process id.
    fn tid(&mut self, pid: u64, number: u32) -> u64 {
        let next = self.tids.len() as u64 + 1;
        *self.tids.entry((pid, number)).or_insert(next)
    }

    fn event(&mut self, e: &TraceEvent<'_>) -> io::Result<()> {
        if self.count > 0 {
            self.out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut self.out, e).map_err(io::Error::other)?;
        self.count += 1;
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.out.write_all(b"\n]}\n")?;
        self.out.flush()
    }
}

/// Writes the trace of `runs` to `out`, whole or not at all; returns what to say of it (what
/// it left out, then what it wrote).
///
/// # Errors
/// The file cannot be written; the message names it, and the path is as it was.
pub fn write_trace_file(
    out: crate::files::OutputFile,
    runs: &[(&str, &Engine)],
) -> Result<Vec<String>, crate::files::OutputError> {
    let path = out.path().display().to_string();
    let summary = out.write(|w| write_trace(w, runs))?;
    let mut said: Vec<String> = left_out_message(runs).into_iter().collect();
    said.push(format!(
        "wrote {path} ({} events); open it in ui.perfetto.dev or chrome://tracing",
        summary.events
    ));
    Ok(said)
}
