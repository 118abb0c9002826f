//! Which strategy did best, and what holds each one back: the answers the compare table and
//! the TUI's compare view give in words, from the same reports.

use super::RunReport;

/// The strategies marked best: the highest goodput, ties broken by the lower p99 of answered
/// requests. Both are compared as displayed (0.01 req/s, 0.1 ms), so strategies the table
/// shows as equal are all marked. Empty when nothing was answered.
pub fn best(reports: &[RunReport]) -> Vec<usize> {
    let key = |r: &RunReport| {
        (
            (r.goodput_rps * 100.0).round() as i64,
            -((r.latency_ms.p99 * 10.0).round() as i64),
        )
    };
    let Some(top) = reports.iter().map(key).max() else {
        return Vec::new();
    };
    if top.0 <= 0 {
        return Vec::new();
    }
    (0..reports.len())
        .filter(|&i| key(&reports[i]) == top)
        .collect()
}

/// One short phrase saying what limits a strategy's goodput: rejections, client timeouts,
/// refused connections, else the pool whose ceiling it runs at, else the load itself.
pub fn limited_by(r: &RunReport) -> String {
    let q = &r.requests;
    let rejecting = r
        .pools
        .iter()
        .filter(|p| p.rejected > 0)
        .max_by_key(|p| p.rejected);
    if let Some(pool) = rejecting {
        return format!("{} rejects", pool.name);
    }
    if q.timeout > 0 {
        return match slowest_service(r) {
            Some(name) => format!("timeouts on {name}"),
            None => "client timeouts".to_string(),
        };
    }
    if q.refused > 0 {
        return "refused: backlog full".to_string();
    }
    let p = &r.theory.prediction;
    match (&p.bottleneck, p.ceiling_rps) {
        (Some(b), Some(c)) if r.throughput_rps >= 0.9 * c => {
            let queued = r
                .pools
                .iter()
                .find(|x| &x.name == b)
                .map_or(0, |x| x.max_queue);
            if queued > 0 {
                format!("{b} full, queue {queued}")
            } else {
                format!("{b} full")
            }
        }
        _ => "load (below ceiling)".to_string(),
    }
}

/// The service whose calls failed or timed out most, if any did.
fn slowest_service(r: &RunReport) -> Option<&str> {
    r.services
        .iter()
        .map(|s| (s.timeouts + s.failures + s.discarded, s.name.as_str()))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n)
        .map(|(_, name)| name)
}
