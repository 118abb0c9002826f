//! The `[load]` and `[server]` fields that describe TCP between the clients and Tomcat:
//! keep-alive, round trips, timeouts, SYN retransmits and the connector's CPU costs.

use super::check::{Checker, quoted};
use super::error::ScenarioError;
use super::model::{ClientKind, Connector, Link, TimeoutMode};
use super::raw::{DurationText, RawLoad, RawServer};
use crate::time::Nanos;

use super::limits::{
    MAX_CONNECTOR_CPU as MAX_CPU, MAX_KEEP_ALIVE_REQUESTS, MAX_NETWORK_DELAY as MAX_RTT,
    MAX_SYN_RETRIES,
};

impl super::model::Scenario {
    /// The scenario without its connection layer's costs: no round trip, no client
    /// turnaround, no connector CPU, a handler thread that reads its connection again at once
    /// (so no keep-alive fast path), and failures that cost nothing to report: the calls'
    /// own times, for tests and views that isolate them.
    pub fn without_network(&self) -> Self {
        let mut s = self.clone();
        s.load.link.rtt = Nanos::ZERO;
        s.load.link.turnaround = Nanos::ZERO;
        s.server.connector.cpu_per_request = Nanos::ZERO;
        s.server.connector.post_response = Nanos::ZERO;
        s.server.connector.cpu_per_rejected_connection = Nanos::ZERO;
        s.server.connector.cpu_per_error = Nanos::ZERO;
        s
    }
}

pub(super) fn link(check: &Checker, raw: &RawLoad) -> Result<Link, ScenarioError> {
    let timeout_mode = check.one_of(
        "load.timeout_mode",
        &raw.timeout_mode,
        &[("abort", TimeoutMode::Abort), ("count", TimeoutMode::Count)],
    )?;
    let connect_timeout = match &raw.connect_timeout {
        Some(text) => Some(check.positive_duration("load.connect_timeout", text)?),
        None => None,
    };
    let (client, turnaround) = match (&raw.client, &raw.turnaround) {
        (Some(name), None) => {
            let kinds = ClientKind::NAMED.map(|k| (k.name(), k));
            let kind = check.one_of("load.client", name, &kinds)?;
            (kind, kind.turnaround())
        }
        (None, Some(text)) => (
            ClientKind::Custom,
            at_most(check, "load.turnaround", text, MAX_RTT)?,
        ),
        (None, None) => (ClientKind::Wrk, ClientKind::Wrk.turnaround()),
        (Some(name), Some(text)) => {
            return Err(check.invalid(
                "load.turnaround",
                quoted(&text.0),
                format!("cannot be given with load.client = \"{name}\", which sets the turnaround: give one of them"),
            ));
        }
    };
    let connect_spacing = match &raw.connect_spacing {
        Some(text) => at_most(check, "load.connect_spacing", text, MAX_RTT)?,
        None => client.connect_spacing(),
    };
    Ok(Link {
        keep_alive: raw.keep_alive,
        rtt: at_most(check, "load.rtt", &raw.rtt, MAX_RTT)?,
        turnaround,
        client,
        connect_spacing,
        timeout_mode,
        connect_timeout,
        syn_retries: check.count("load.syn_retries", raw.syn_retries, 1..=MAX_SYN_RETRIES)?,
        syn_linear_timeouts: check.count(
            "load.syn_linear_timeouts",
            raw.syn_linear_timeouts,
            0..=MAX_SYN_RETRIES,
        )?,
    })
}

pub(super) fn connector(check: &Checker, raw: &RawServer) -> Result<Connector, ScenarioError> {
    let max_keep_alive_requests = match raw.max_keep_alive_requests {
        -1 => None,
        n => Some(check.count("server.max_keep_alive_requests", n, 1..=MAX_KEEP_ALIVE_REQUESTS).map_err(
            |_| {
                check.invalid(
                    "server.max_keep_alive_requests",
                    n,
                    "is out of range: allowed -1 (unlimited) or 1..=1000000 (1 turns keep-alive off)",
                )
            },
        )?),
    };
    Ok(Connector {
        max_keep_alive_requests,
        keep_alive_timeout: check
            .positive_duration("server.keep_alive_timeout", &raw.keep_alive_timeout)?,
        cpu_per_request: at_most(
            check,
            "server.cpu_per_request",
            &raw.cpu_per_request,
            MAX_CPU,
        )?,
        post_response: at_most(check, "server.post_response", &raw.post_response, MAX_RTT)?,
        cpu_per_rejected_connection: at_most(
            check,
            "server.cpu_per_rejected_connection",
            &raw.cpu_per_rejected_connection,
            MAX_CPU,
        )?,
        cpu_per_error: at_most(check, "server.cpu_per_error", &raw.cpu_per_error, MAX_CPU)?,
        accept_cost: at_most(check, "server.accept_cost", &raw.accept_cost, MAX_CPU)?,
        return_to_pool: at_most(check, "server.return_to_pool", &raw.return_to_pool, MAX_CPU)?,
    })
}

/// A duration in `0s..=max`, or an error naming `path` and the range.
pub(super) fn at_most(
    check: &Checker,
    path: &str,
    text: &DurationText,
    max: Nanos,
) -> Result<Nanos, ScenarioError> {
    let value = check.duration(path, text)?;
    if value > max {
        return Err(check.invalid(
            path,
            quoted(&text.0),
            format!("is out of range: allowed 0s..={}", max.as_secs_f64()) + "s",
        ));
    }
    Ok(value)
}
