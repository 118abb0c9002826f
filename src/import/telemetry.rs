//! What telemetry says about one endpoint: the services it calls (one after another or fanned
//! out), each call's latencies and failures, the endpoint's own latencies and the arrival
//! rate. Rebuilt from spans (a server span of the endpoint and its client children) or read
//! from an access log (the endpoint as one piece of work).

use std::collections::HashMap;

use super::spans::{TraceSpan, TraceSpanKind};

/// The latencies (ms) and failures of the calls to one service.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calls {
    pub name: String,
    pub latencies_ms: Vec<f64>,
    pub failures: usize,
}

/// One endpoint as telemetry shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Telemetry {
    /// The file it came from and how it was read (`traces.json (OTLP/JSON)`).
    pub source: String,
    /// `GET /dashboard`
    pub endpoint: String,
    pub requests: usize,
    /// Arrivals per second over the file's span of time.
    pub rate: f64,
    pub endpoint_ms: Vec<f64>,
    pub endpoint_failures: usize,
    pub services: Vec<Calls>,
    pub stages: Vec<Vec<String>>,
    /// How many requests had the stages above (the others are told).
    pub stages_seen: usize,
    /// An access log: the endpoint is one piece of work on the request thread.
    pub whole_endpoint: bool,
}

/// Rebuilds `endpoint` (or the most frequent server root) from spans.
pub fn from_spans(
    source: &str,
    spans: &[TraceSpan],
    endpoint: Option<&str>,
) -> Result<Telemetry, String> {
    let by_id: HashMap<(&str, &str), &TraceSpan> = spans
        .iter()
        .map(|s| ((s.trace.as_str(), s.id.as_str()), s))
        .collect();
    let mut children: HashMap<(&str, &str), Vec<&TraceSpan>> = HashMap::new();
    for s in spans {
        if let Some(p) = &s.parent {
            children
                .entry((s.trace.as_str(), p.as_str()))
                .or_default()
                .push(s);
        }
    }
    // Roots: server spans whose parent is not in the file.
    let roots: Vec<&TraceSpan> = spans
        .iter()
        .filter(|s| {
            s.kind == TraceSpanKind::Server
                && s.parent
                    .as_ref()
                    .is_none_or(|p| !by_id.contains_key(&(s.trace.as_str(), p.as_str())))
        })
        .collect();
    let name = match endpoint {
        Some(e) => e.to_owned(),
        None => most_frequent(roots.iter().map(|r| r.name.as_str()))
            .ok_or("no server span without a parent in the file")?,
    };
    let mut roots: Vec<&TraceSpan> = roots.into_iter().filter(|r| r.name == name).collect();
    if roots.is_empty() {
        return Err(format!(
            "no server span named {name:?} without a parent in the file"
        ));
    }
    roots.sort_by_key(|r| r.start_ns);
    let mut t = Telemetry {
        source: source.to_owned(),
        endpoint: name,
        requests: roots.len(),
        ..Telemetry::default()
    };
    let mut shapes: Vec<Vec<Vec<String>>> = Vec::new();
    for root in &roots {
        t.endpoint_ms.push(root.duration_ms());
        t.endpoint_failures += usize::from(root.error);
        let mut calls = Vec::new();
        collect_calls(root, &children, &mut calls);
        calls.sort_by_key(|c| c.start_ns);
        for c in &calls {
            let peer = peer_of(c, &children);
            let entry = match t.services.iter_mut().position(|s| s.name == peer) {
                Some(i) => &mut t.services[i],
                None => {
                    t.services.push(Calls {
                        name: peer.clone(),
                        ..Calls::default()
                    });
                    t.services.last_mut().ok_or("no service")?
                }
            };
            entry.latencies_ms.push(c.duration_ms());
            entry.failures += usize::from(c.error);
        }
        shapes.push(stages_of(&calls, &children));
    }
    let first = roots.first().map_or(0, |r| r.start_ns);
    let last = roots.last().map_or(0, |r| r.start_ns);
    t.rate = rate(roots.len(), (last - first) as f64 / 1e9);
    let common = most_frequent_vec(&shapes);
    t.stages_seen = shapes.iter().filter(|s| **s == common).count();
    t.stages = common;
    Ok(t)
}

/// `n` arrivals over `span_s` seconds: the gaps between them, `n - 1` of them.
pub fn rate(n: usize, span_s: f64) -> f64 {
    if n > 1 && span_s > 0.0 {
        (n - 1) as f64 / span_s
    } else {
        0.0
    }
}

/// The client spans under `span`, through spans of its own service (not through another
/// service's server span).
fn collect_calls<'a>(
    span: &TraceSpan,
    children: &HashMap<(&str, &str), Vec<&'a TraceSpan>>,
    out: &mut Vec<&'a TraceSpan>,
) {
    for c in children
        .get(&(span.trace.as_str(), span.id.as_str()))
        .into_iter()
        .flatten()
    {
        match c.kind {
            TraceSpanKind::Client => out.push(c),
            TraceSpanKind::Other => collect_calls(c, children, out),
            TraceSpanKind::Server => {}
        }
    }
}

/// The service a client span calls: an attribute naming it, the server span it led to, or
/// its own name.
fn peer_of(call: &TraceSpan, children: &HashMap<(&str, &str), Vec<&TraceSpan>>) -> String {
    if let Some(p) = &call.peer {
        return p.clone();
    }
    children
        .get(&(call.trace.as_str(), call.id.as_str()))
        .and_then(|cs| cs.iter().find(|c| c.kind == TraceSpanKind::Server))
        .map_or_else(|| call.name.clone(), |s| s.service.clone())
}

/// Calls grouped into stages: a call that starts after every call of the stage so far has
/// ended begins the next stage; calls that overlap are fanned out.
fn stages_of(
    calls: &[&TraceSpan],
    children: &HashMap<(&str, &str), Vec<&TraceSpan>>,
) -> Vec<Vec<String>> {
    let mut stages: Vec<Vec<String>> = Vec::new();
    let mut end = 0u64;
    for c in calls {
        let name = peer_of(c, children);
        match stages.last_mut() {
            Some(stage) if c.start_ns < end => {
                if !stage.contains(&name) {
                    stage.push(name);
                }
                end = end.max(c.end_ns);
            }
            _ => {
                stages.push(vec![name]);
                end = c.end_ns;
            }
        }
    }
    for stage in &mut stages {
        stage.sort();
    }
    stages
}

fn most_frequent<'a>(items: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for i in items {
        match counts.iter_mut().find(|(n, _)| *n == i) {
            Some((_, c)) => *c += 1,
            None => counts.push((i, 1)),
        }
    }
    counts
        .iter()
        .max_by_key(|(_, c)| *c)
        .map(|(n, _)| (*n).to_owned())
}

fn most_frequent_vec(shapes: &[Vec<Vec<String>>]) -> Vec<Vec<String>> {
    let mut counts: std::collections::BTreeMap<&Vec<Vec<String>>, usize> = Default::default();
    for s in shapes {
        *counts.entry(s).or_default() += 1;
    }
    // The most frequent; among equals, the first in order (deterministic).
    let top = counts.values().copied().max().unwrap_or(0);
    counts
        .into_iter()
        .find(|(_, n)| *n == top)
        .map(|(s, _)| s.clone())
        .unwrap_or_default()
}
