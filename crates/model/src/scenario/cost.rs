//! An up-front estimate of what a run will cost (events handled and peak memory) from the
//! load, the durations and the fan-out, so a run beyond what a laptop does in reasonable time
//! or memory is refused with the numbers before it starts (`--force` runs it anyway).

use super::model::{LoadMode, Scenario};
use super::resilience::Retry;
use crate::time::Nanos;

/// Most events a run may be expected to handle (minutes on a laptop; the bound is loose for
/// closed loops, whose retried refusals cost far fewer events than counted).
pub const MAX_EVENTS: f64 = 1e10;
/// Most memory a run may be expected to hold at its peak.
pub const MAX_PEAK_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;
/// Most downstream calls in flight at once (requests in flight × calls per request).
pub const MAX_CALLS_IN_FLIGHT: f64 = 10_000_000.0;

/// The shortest time between two requests of one closed-loop client: the engine's retry
/// floor for an answer that came at once.
const CLIENT_FLOOR: Nanos = Nanos::from_millis(1);
/// Engine memory per request in flight and per call of it, measured (a 100-million-call batch
/// held 7.2 GB).
const REQUEST_BYTES: f64 = 512.0;
const CALL_BYTES: f64 = 72.0;
/// Events per request besides its calls (arrival, response) and per call (start, end, timer).
const EVENTS_PER_REQUEST: f64 = 2.0;
const EVENTS_PER_CALL: f64 = 3.0;

/// What a run of a scenario is expected to cost, at most.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub requests: f64,
    pub events: f64,
    /// Requests in flight at the peak: those the server holds, and (an open load above what
    /// the server answers) those still waiting to connect.
    pub requests_in_flight: f64,
    pub calls_in_flight: f64,
    pub peak_bytes: f64,
}

/// The most requests a run may hold in flight at once with `calls_per_request` calls each:
/// the run-time side of [`MAX_CALLS_IN_FLIGHT`] and [`MAX_PEAK_BYTES`], which the engine
/// stops at (every request in flight keeps room for all its calls).
pub fn max_requests_in_flight(calls_per_request: usize) -> u64 {
    let calls = calls_per_request.max(1) as f64;
    let by_calls = MAX_CALLS_IN_FLIGHT / calls;
    let by_bytes = MAX_PEAK_BYTES / (REQUEST_BYTES + calls * CALL_BYTES);
    by_calls.min(by_bytes).floor() as u64
}

/// Estimates a run of `scenario` for `duration` of simulated time (an upper bound: a closed
/// client is counted at one request per think time or per retry floor). `served_rps` is the
/// most requests per second the server answers (theory's ceiling; `None`: no ceiling): an
/// open load above it piles up `(rate - served_rps) x duration` requests waiting to connect.
pub fn estimate_cost(scenario: &Scenario, duration: Nanos, served_rps: Option<f64>) -> Cost {
    let secs = duration.as_secs_f64();
    let server = &scenario.server;
    let connections = f64::from(server.max_connections) + f64::from(server.accept_count);
    // Every attempt counts: a client's retry is sent like a new request, and a service's
    // retry makes the call again (the attempt it replaced may still run), each at most as
    // often as its attempts, or its budget, allow.
    let sends = attempts(scenario.load.retry.as_ref());
    let calls = scenario
        .endpoint
        .stages
        .iter()
        .flatten()
        .map(|&id| attempts(scenario.service(id).retry.as_ref()))
        .sum::<f64>()
        .max(1.0);
    let (requests, in_flight, trace_bytes) = match &scenario.load.mode {
        LoadMode::Runs { count } => (f64::from(*count), 1.0, 0.0),
        LoadMode::Open { rate, ramp } => {
            let start = ramp.map_or(*rate, |r| r.to.max(*rate));
            // A phase from the run's end on is never played.
            let peak = scenario
                .load
                .rate_phases()
                .filter(|&(at, _)| at < duration)
                .fold(start, |most, (_, r)| most.max(r))
                * sends;
            let requests = peak * secs;
            let excess = served_rps
                .filter(|c| c.is_finite())
                .map_or(0.0, |c| (peak - c).max(0.0));
            // A request waiting to connect keeps room for its calls like any other.
            let waiting = excess * secs;
            (
                requests,
                (requests.min(connections) + waiting).min(requests),
                0.0,
            )
        }
        LoadMode::Closed { clients, think } => {
            // A client sends again at best a round trip and its think time after it sent
            // (never sooner than the retry floor), and every request takes the server's own
            // CPU on one of its cores: whichever bounds the rate lower.
            let rtt = scenario.load.link.rtt;
            // A retry follows its attempt without the think time.
            let think = if sends > 1.0 { Nanos::ZERO } else { *think };
            let gap = think.saturating_add(rtt).max(CLIENT_FLOOR).as_secs_f64();
            let most = scenario
                .load
                .client_phases()
                .filter(|&(at, _)| at < duration)
                .map(|(_, n)| n);
            let clients = f64::from(most.fold(*clients, u32::max));
            let per_client = clients * (secs / gap).ceil();
            let cpu = server.connector.cpu_per_request.as_secs_f64();
            let by_cores = if cpu > 0.0 {
                f64::from(scenario.cores) / cpu * secs + clients
            } else {
                f64::INFINITY
            };
            (per_client.min(by_cores), clients, 0.0)
        }
        LoadMode::Batch { count } => (f64::from(*count), f64::from(*count), 0.0),
        LoadMode::Trace { rows } => {
            let row = 48.0 + 16.0 * scenario.services.len() as f64;
            let n = rows.len() as f64;
            (n, n.min(connections), n * row)
        }
    };
    Cost::of(requests, in_flight, calls, trace_bytes)
}

/// The most attempts a retry policy makes of one request or call: its attempts, or one and
/// its budget's share when that is fewer (1 without a policy).
fn attempts(retry: Option<&Retry>) -> f64 {
    retry.map_or(1.0, |r| {
        let most = f64::from(r.attempts);
        r.budget.map_or(most, |b| most.min(1.0 + b))
    })
}

/// The highest open-load rate of `scenario` (at most `max`) whose run for `duration` stays
/// within the limits, given what the server answers (`served_rps`, as in [`estimate_cost`]);
/// the live rate keys stop there.
pub fn max_open_rate(
    scenario: &Scenario,
    duration: Nanos,
    served_rps: Option<f64>,
    max: f64,
) -> f64 {
    let mut at = scenario.clone();
    let mut within = |rate: f64| {
        at.load.mode = LoadMode::Open { rate, ramp: None };
        estimate_cost(&at, duration, served_rps).refusal().is_none()
    };
    if within(max) {
        return max;
    }
    // Bisection: the cost grows with the rate.
    let (mut lo, mut hi) = (0.0, max);
    for _ in 0..64 {
        let mid = f64::midpoint(lo, hi);
        if within(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

impl Cost {
    /// `in_flight` requests held with `calls` calls each, `requests` in all.
    fn of(requests: f64, in_flight: f64, calls: f64, trace_bytes: f64) -> Cost {
        let calls_in_flight = in_flight * calls;
        Cost {
            requests,
            events: requests * (EVENTS_PER_REQUEST + EVENTS_PER_CALL * calls),
            requests_in_flight: in_flight,
            calls_in_flight,
            peak_bytes: in_flight * REQUEST_BYTES + calls_in_flight * CALL_BYTES + trace_bytes,
        }
    }

    /// Why this run is too large for a laptop, if it is.
    pub fn refusal(&self) -> Option<String> {
        let mb = |bytes: f64| format!("{:.0} MB", bytes / 1e6);
        if self.events > MAX_EVENTS {
            Some(format!(
                "about {} events ({} requests) is more than {} this machine handles in several \
                 minutes",
                sci(self.events),
                sci(self.requests),
                sci(MAX_EVENTS)
            ))
        } else if self.calls_in_flight > MAX_CALLS_IN_FLIGHT {
            Some(format!(
                "up to {} calls in flight at once is more than {}",
                sci(self.calls_in_flight),
                sci(MAX_CALLS_IN_FLIGHT)
            ))
        } else if self.peak_bytes > MAX_PEAK_BYTES {
            Some(format!(
                "up to {} of memory is more than {}",
                mb(self.peak_bytes),
                mb(MAX_PEAK_BYTES)
            ))
        } else {
            None
        }
    }
}

/// A large count for messages: `3.2e9`, or plain below a million.
fn sci(value: f64) -> String {
    if value < 1e6 {
        format!("{value:.0}")
    } else {
        format!("{value:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    fn cost(preset: &str, sets: &[&str]) -> Cost {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
        let s = load(preset, &sets).expect("valid preset");
        estimate_cost(&s, s.duration, served(&s))
    }

    fn served(s: &Scenario) -> Option<f64> {
        crate::theory::served_rps(s, &crate::scenario::Strategy::ALL)
    }

    #[test]
    fn a_closed_load_is_bounded_by_its_round_trip_and_the_servers_cores() {
        // 400 clients without think time: at most 8 cores / 30 us of server CPU a second,
        // not a request per millisecond per client (1.2e9 in 3000 s).
        let c = cost("tomcat-ceiling", &[]);
        let s = load("tomcat-ceiling", &[]).expect("valid preset");
        let long = estimate_cost(&s, Nanos::from_secs(3000), served(&s));
        assert_eq!(long.refusal(), None, "{long:?}");
        assert!(long.requests < 1e9, "{long:?}");
        assert!(c.requests <= long.requests);
    }

    #[test]
    fn every_builtin_preset_is_within_the_limits() {
        for name in crate::scenario::builtin_names() {
            let s = load(name, &[]).expect("valid preset");
            let cost = estimate_cost(&s, s.duration, served(&s));
            assert_eq!(cost.refusal(), None, "{name}: {cost:?}");
        }
    }

    #[test]
    fn a_huge_batch_fanning_out_is_refused_for_its_calls_in_flight() {
        let c = cost(
            "ironthread",
            &[
                "load.mode=\"batch\"",
                "load.count=10000",
                "endpoint.fan_out=1000",
            ],
        );
        assert_eq!(c.calls_in_flight, 10_000.0 * 3_000.0);
        assert!(
            c.refusal().is_some_and(|r| r.contains("calls in flight")),
            "{c:?}"
        );
    }

    #[test]
    fn a_closed_client_is_counted_at_one_request_per_millisecond_without_think_time() {
        let c = cost(
            "ironthread",
            &[
                "load.mode=\"closed\"",
                "load.clients=10",
                "load.think=\"0ms\"",
            ],
        );
        let s = load("ironthread", &[]).expect("valid preset");
        assert_eq!(c.requests, 10.0 * (s.duration.as_secs_f64() * 1e3).ceil());
    }

    #[test]
    fn an_open_load_at_a_million_per_second_for_an_hour_is_refused_for_its_events() {
        let c = cost(
            "erlang-c",
            &["load.rate=1000000", "scenario.duration=\"60m\""],
        );
        assert!(c.refusal().is_some_and(|r| r.contains("events")), "{c:?}");
    }

    #[test]
    fn an_open_load_above_what_the_server_answers_is_refused_for_the_requests_piling_up() {
        // erlang-c answers 200 threads / 100 ms = 2,000/s: at 1,000,000/s for 120 s nearly
        // every request waits to connect (the 8,292 connections hold almost none of them).
        let c = cost("erlang-c", &["load.rate=1000000"]);
        let piled = (1_000_000.0 - 2_000.0) * 120.0;
        assert!(
            (c.requests_in_flight - (piled + 8_292.0)).abs() < 1.0,
            "{c:?}"
        );
        assert!(
            c.refusal().is_some_and(|r| r.contains("calls in flight")),
            "{c:?}"
        );
        // Below the ceiling only the connections hold requests, as before.
        let calm = cost("erlang-c", &["load.rate=1900"]);
        assert_eq!(calm.requests_in_flight, 8_292.0);
    }

    #[test]
    fn the_highest_open_rate_within_the_limits_is_just_within_them() {
        let s = load("erlang-c", &[]).expect("valid preset");
        let served = served(&s);
        let max = max_open_rate(&s, s.duration, served, 1e6);
        assert!(max > 2_000.0 && max < 1e6, "{max}");
        let mut at = s.clone();
        at.load.mode = LoadMode::Open {
            rate: max,
            ramp: None,
        };
        assert_eq!(estimate_cost(&at, s.duration, served).refusal(), None);
        at.load.mode = LoadMode::Open {
            rate: max * 1.001,
            ramp: None,
        };
        assert!(estimate_cost(&at, s.duration, served).refusal().is_some());
    }

    #[test]
    fn a_phase_from_the_runs_end_on_is_not_weighed() {
        // metastable's spike to 200/s begins at 30 s: a 20 s run never reaches it.
        let s = load("metastable", &[]).expect("valid preset");
        let short = estimate_cost(&s, Nanos::from_secs(20), served(&s));
        // Each request counted with its 5 attempts (naive retries).
        assert_eq!(short.requests, 90.0 * 5.0 * 20.0);
        let long = estimate_cost(&s, Nanos::from_secs(40), served(&s));
        assert_eq!(long.requests, 200.0 * 5.0 * 40.0);
    }

    #[test]
    fn every_attempt_a_retry_policy_may_make_is_weighed() {
        let storm = [
            "load.rate=20000",
            "load.timeout=\"10ms\"",
            "load.retry.attempts=100",
            "load.retry.backoff=\"0ms\"",
            "scenario.duration=\"10s\"",
        ];
        let c = cost("erlang-c", &storm);
        assert_eq!(c.requests, 20_000.0 * 100.0 * 10.0);
        assert!(
            c.refusal().is_some_and(|r| r.contains("calls in flight")),
            "{c:?}"
        );
        // A budget of 10 % lets a request be sent 1.1 times at most.
        let mut budgeted = storm.to_vec();
        budgeted.push("load.retry.budget=0.1");
        let b = cost("erlang-c", &budgeted);
        assert!((b.requests - 20_000.0 * 1.1 * 10.0).abs() < 1e-6, "{b:?}");
        // A service's retry: each call weighed at its attempts.
        let calls = cost(
            "ironthread",
            &[
                "services.user.retry={ attempts = 50 }",
                "services.orders.retry={ attempts = 7 }",
            ],
        );
        assert_eq!(
            calls.calls_in_flight / calls.requests_in_flight,
            50.0 + 7.0 + 1.0
        );
    }

    #[test]
    fn the_run_time_cap_matches_the_estimates_limits() {
        // One call: memory binds (2 GiB / 584 B); 10,000 calls: the calls in flight do.
        assert_eq!(max_requests_in_flight(1), 3_677_198);
        assert_eq!(max_requests_in_flight(10_000), 1_000);
    }
}
