//! `[jvm]` as written to the typed `Jvm`: each field checked against its range.

use super::check::{Checker, quoted};
use super::error::ScenarioError;
use super::jvm::{Collector, ConnectorThreads, Errors, Gc, Jvm, Warmup};
use super::raw::{DurationText, RawConnectorThreads, RawGc, RawJvm, RawWarmup};
use crate::time::Nanos;

/// `[jvm]` -> [`Jvm`].
pub(crate) fn jvm(check: &Checker, raw: Option<&RawJvm>) -> Result<Jvm, ScenarioError> {
    let Some(raw) = raw else {
        return Ok(Jvm::default());
    };
    let warmup = raw.warmup.as_ref().map(|w| warmup(check, w)).transpose()?;
    let gc = raw.gc.as_ref().map(|g| gc(check, g)).transpose()?;
    let errors = raw
        .errors
        .as_ref()
        .map(|e| {
            Ok(Errors {
                logged_rejection: cpu(check, "jvm.errors.logged_rejection", &e.logged_rejection)?,
            })
        })
        .transpose()?;
    let connector_threads = raw
        .connector_threads
        .as_ref()
        .map(|e| connector_threads(check, e))
        .transpose()?;
    Ok(Jvm {
        warmup,
        gc,
        errors,
        connector_threads,
    })
}

/// A CPU cost of the JVM's, in `0s..=1s` (as the connector's own).
fn cpu(check: &Checker, path: &str, text: &DurationText) -> Result<Nanos, ScenarioError> {
    super::network::at_most(check, path, text, super::limits::MAX_CONNECTOR_CPU)
}

fn connector_threads(
    check: &Checker,
    raw: &RawConnectorThreads,
) -> Result<ConnectorThreads, ScenarioError> {
    Ok(ConnectorThreads {
        poll: cpu(check, "jvm.connector_threads.poll_cost", &raw.poll_cost)?,
        register: cpu(
            check,
            "jvm.connector_threads.register_cost",
            &raw.register_cost,
        )?,
    })
}

pub(super) fn warmup(check: &Checker, raw: &RawWarmup) -> Result<Warmup, ScenarioError> {
    let factor = |path: &str, value: f64, range: std::ops::RangeInclusive<f64>| {
        if value.is_finite() && range.contains(&value) {
            Ok(value)
        } else {
            Err(check.invalid(
                path,
                super::limits::short_number(value),
                format!(
                    "is out of range: allowed {}..={}",
                    range.start(),
                    range.end()
                ),
            ))
        }
    };
    let first = factor("jvm.warmup.first", raw.first, 1.0..=100.0)?;
    let tail = factor("jvm.warmup.tail", raw.tail, 0.0..=10.0)?;
    if tail > first - 1.0 {
        return Err(check.invalid(
            "jvm.warmup.tail",
            super::limits::short_number(tail),
            "is more than first - 1: the slow part is a share of the first request's extra",
        ));
    }
    let tail_requests = factor("jvm.warmup.tail_requests", raw.tail_requests, 1.0..=1e7)?;
    let thread_start = cpu(check, "jvm.warmup.thread_start", &raw.thread_start)?;
    Ok(Warmup {
        first,
        tail,
        tail_requests,
        thread_start,
    })
}

pub(super) fn gc(check: &Checker, raw: &RawGc) -> Result<Gc, ScenarioError> {
    let collector = check.one_of(
        "jvm.gc.collector",
        &raw.collector,
        &[
            ("parallel", Collector::Parallel),
            ("g1", Collector::G1),
            ("zgc", Collector::Zgc),
        ],
    )?;
    const GIB: u64 = 1 << 30;
    let heap = size(check, "jvm.gc.heap", &raw.heap, 1 << 20, 64 * GIB)?;
    let young_gen = match &raw.young_gen {
        Some(text) => size(check, "jvm.gc.young_gen", text, 1 << 20, heap)?,
        None => heap / 3,
    };
    let alloc_per_request = size(
        check,
        "jvm.gc.alloc_per_request",
        &raw.alloc_per_request,
        0,
        GIB,
    )?;
    let alloc_per_call = size(check, "jvm.gc.alloc_per_call", &raw.alloc_per_call, 0, GIB)?;
    let survival = check.probability("jvm.gc.survival", raw.survival)?;
    Ok(Gc {
        collector,
        heap,
        young_gen,
        alloc_per_request,
        alloc_per_call,
        survival,
    })
}

/// A size with a binary unit (`"64MiB"`, `"256KiB"`, `"1GiB"`, `"512B"`), in `lo..=hi` bytes.
pub(super) fn size(
    check: &Checker,
    path: &str,
    text: &str,
    lo: u64,
    hi: u64,
) -> Result<u64, ScenarioError> {
    let bad = |reason: String| check.invalid(path, quoted(text), reason);
    let form = "a size with a unit: B, KiB, MiB or GiB, like \"64MiB\"";
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(bad(format!("is not {form}"))),
    };
    let value: f64 = number.parse().map_err(|_| bad(format!("is not {form}")))?;
    #[allow(clippy::cast_precision_loss)]
    let bytes = value * scale as f64;
    #[allow(clippy::cast_precision_loss)]
    if !bytes.is_finite() || bytes < lo as f64 || bytes > hi as f64 {
        return Err(bad(format!(
            "is out of range: allowed {}..={}",
            show_size(lo),
            show_size(hi)
        )));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(bytes.round() as u64)
}

/// A size as the error messages write it.
pub(super) fn show_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}
