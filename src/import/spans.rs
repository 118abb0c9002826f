//! Spans read from OpenTelemetry's OTLP/JSON (the collector's file exporter: one
//! `ExportTraceServiceRequest` a line, or one object) and from Zipkin v2 JSON (an array of
//! spans): only what rebuilding an endpoint needs.

use serde_json::Value;

use super::ImportError;

/// Which way a span faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceSpanKind {
    Server,
    Client,
    Other,
}

/// One span.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpan {
    pub trace: String,
    pub id: String,
    pub parent: Option<String>,
    pub name: String,
    pub kind: TraceSpanKind,
    /// The service that recorded it.
    pub service: String,
    /// The service a client span calls, when an attribute names it.
    pub peer: Option<String>,
    pub start_ns: u64,
    pub end_ns: u64,
    pub error: bool,
}

impl TraceSpan {
    pub fn duration_ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / 1e6
    }
}

/// The two JSON forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Otlp,
    Zipkin,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Otlp => "OTLP/JSON",
            TraceFormat::Zipkin => "Zipkin v2 JSON",
        }
    }
}

/// The spans of a JSON trace file, and its form.
pub fn read(file: &str, text: &str) -> Result<(TraceFormat, Vec<TraceSpan>), ImportError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let v: Value = serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
        return Ok((TraceFormat::Zipkin, zipkin(file, &v)?));
    }
    // OTLP: one object, or one object a line (the file exporter's JSON lines).
    let mut spans = Vec::new();
    let whole: Result<Value, _> = serde_json::from_str(text);
    let objects: Vec<(usize, Value)> = match whole {
        Ok(v) => vec![(1, v)],
        Err(_) => {
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let v = serde_json::from_str(line).map_err(|e| ImportError {
                    file: file.to_owned(),
                    line: Some(i + 1),
                    key: None,
                    message: format!("not JSON: {e}"),
                })?;
                out.push((i + 1, v));
            }
            out
        }
    };
    for (line, v) in objects {
        let Some(resources) = v.get("resourceSpans").and_then(Value::as_array) else {
            return Err(ImportError {
                file: file.to_owned(),
                line: Some(line),
                key: Some("resourceSpans".into()),
                message: "is missing: not OTLP/JSON (nor a Zipkin v2 array of spans)".into(),
            });
        };
        for rs in resources {
            otlp_resource(file, line, rs, &mut spans)?;
        }
    }
    Ok((TraceFormat::Otlp, spans))
}

fn json_error(file: &str, e: &serde_json::Error) -> ImportError {
    ImportError {
        file: file.to_owned(),
        line: Some(e.line()),
        key: None,
        message: format!("not JSON: {e}"),
    }
}

/// An OTLP attribute list's string value of `key`.
fn attribute<'a>(attrs: Option<&'a Value>, key: &str) -> Option<&'a str> {
    attrs?.as_array()?.iter().find_map(|a| {
        (a.get("key")?.as_str()? == key).then(|| a.get("value")?.get("stringValue")?.as_str())?
    })
}

/// A 64-bit integer written as a JSON string (proto3's mapping) or a number.
fn int(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

fn otlp_resource(
    file: &str,
    line: usize,
    rs: &Value,
    out: &mut Vec<TraceSpan>,
) -> Result<(), ImportError> {
    let service = attribute(rs.pointer("/resource/attributes"), "service.name")
        .unwrap_or("unknown_service")
        .to_owned();
    let scopes = rs
        .get("scopeSpans")
        .or_else(|| rs.get("instrumentationLibrarySpans"));
    for scope in scopes.and_then(Value::as_array).into_iter().flatten() {
        for (i, s) in scope
            .get("spans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let missing = |key: &str| ImportError {
                file: file.to_owned(),
                line: Some(line),
                key: Some(format!("spans[{i}].{key}")),
                message: "is missing or not a number".into(),
            };
            let kind = match s.get("kind") {
                Some(Value::Number(n)) if n.as_u64() == Some(2) => TraceSpanKind::Server,
                Some(Value::Number(n)) if n.as_u64() == Some(3) => TraceSpanKind::Client,
                Some(Value::String(k)) if k == "SPAN_KIND_SERVER" => TraceSpanKind::Server,
                Some(Value::String(k)) if k == "SPAN_KIND_CLIENT" => TraceSpanKind::Client,
                _ => TraceSpanKind::Other,
            };
            let attrs = s.get("attributes");
            let peer = [
                "peer.service",
                "server.address",
                "net.peer.name",
                "db.system",
                "rpc.service",
            ]
            .iter()
            .find_map(|k| attribute(attrs, k))
            .map(str::to_owned);
            let error = match s.pointer("/status/code") {
                Some(Value::Number(n)) => n.as_u64() == Some(2),
                Some(Value::String(c)) => c == "STATUS_CODE_ERROR",
                _ => false,
            };
            out.push(TraceSpan {
                trace: s
                    .get("traceId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                id: s
                    .get("spanId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| missing("spanId"))?
                    .to_owned(),
                parent: s
                    .get("parentSpanId")
                    .and_then(Value::as_str)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned),
                name: s
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                kind,
                service: service.clone(),
                peer,
                start_ns: int(s.get("startTimeUnixNano"))
                    .ok_or_else(|| missing("startTimeUnixNano"))?,
                end_ns: int(s.get("endTimeUnixNano")).ok_or_else(|| missing("endTimeUnixNano"))?,
                error,
            });
        }
    }
    Ok(())
}

fn zipkin(file: &str, v: &Value) -> Result<Vec<TraceSpan>, ImportError> {
    let mut out = Vec::new();
    for (i, s) in v.as_array().into_iter().flatten().enumerate() {
        let missing = |key: &str| ImportError {
            file: file.to_owned(),
            line: None,
            key: Some(format!("[{i}].{key}")),
            message: "is missing or of the wrong type".into(),
        };
        let kind = match s.get("kind").and_then(Value::as_str) {
            Some("SERVER") => TraceSpanKind::Server,
            Some("CLIENT") => TraceSpanKind::Client,
            _ => TraceSpanKind::Other,
        };
        let tags = s.get("tags");
        let tag = |k: &str| tags.and_then(|t| t.get(k)).and_then(Value::as_str);
        let status_5xx = tag("http.status_code")
            .and_then(|c| c.parse::<u16>().ok())
            .is_some_and(|c| c >= 500);
        let start_us = int(s.get("timestamp")).ok_or_else(|| missing("timestamp"))?;
        let duration_us = int(s.get("duration")).ok_or_else(|| missing("duration"))?;
        out.push(TraceSpan {
            trace: s
                .get("traceId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            id: s
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| missing("id"))?
                .to_owned(),
            parent: s.get("parentId").and_then(Value::as_str).map(str::to_owned),
            name: s
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            kind,
            service: s
                .pointer("/localEndpoint/serviceName")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned(),
            peer: tag("peer.service")
                .or_else(|| {
                    s.pointer("/remoteEndpoint/serviceName")
                        .and_then(Value::as_str)
                })
                .map(str::to_owned),
            start_ns: start_us.saturating_mul(1000),
            end_ns: (start_us.saturating_add(duration_us)).saturating_mul(1000),
            error: tag("error").is_some() || status_5xx,
        });
    }
    Ok(out)
}
