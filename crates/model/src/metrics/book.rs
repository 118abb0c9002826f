//! The one measurement book both engines keep: what was sent, how each request ended, the
//! latencies, each service's counters, the sampled series and Little's L. The simulated
//! engine writes it from its events, a real run from its threads (behind a mutex); a
//! `Snapshot` of either reads it the same way.

use crate::time::Nanos;

use super::{
    LatencyHistogram, LatencySummary, Outcome, OutcomeCounts, PoolGauges, RollingHistogram, Sampler,
};

/// Per-service counters (serialised as a report's `services` entries).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ServiceStats {
    /// Calls that started running.
    pub calls: u64,
    /// Calls that ended in failure.
    pub failures: u64,
    /// Futures completed by `orTimeout` (or sequential calls cut by their read timeout).
    pub timeouts: u64,
    /// Fallback values used.
    pub fallbacks: u64,
    /// Calls whose submission the pool rejected.
    pub rejected: u64,
    /// Calls discarded by the rejection policy (their futures never complete).
    pub discarded: u64,
    /// Calls that got no connection within the pool's timeout.
    pub connection_timeouts: u64,
    /// Time calls that ended held their thread, summed (queue waits excluded).
    #[serde(skip)]
    pub thread_time: Nanos,
    /// Calls made for the first time, with `[services.retry]` (its attempts per call count
    /// from them).
    #[serde(skip)]
    pub first_attempts: u64,
    /// Attempts of calls made again (`[services.retry]`).
    #[serde(skip)]
    pub retries: u64,
    /// Calls whose last attempt failed with retries out, or the budget spent.
    #[serde(skip)]
    pub retries_exhausted: u64,
}

impl ServiceStats {
    /// Attempts per call under `[services.retry]`: (first attempts + retries) / first
    /// attempts; None before a first attempt (or without a retry).
    pub fn attempts_per_call(&self) -> Option<f64> {
        (self.first_attempts > 0)
            .then(|| (self.first_attempts + self.retries) as f64 / self.first_attempts as f64)
    }
}

/// What the resilience patterns did (the report's `resilience` block).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResilienceCounts {
    /// Attempts the clients sent again.
    pub retries: u64,
    /// Requests whose client stopped retrying without an answer: out of attempts, or the
    /// retry budget was spent.
    pub gave_up: u64,
    /// Requests answered 503 unserved after waiting past `server.queue_timeout`.
    pub shed: u64,
    /// Requests the endpoint's rate limiter answered 429 unserved.
    pub limited_at_door: u64,
    /// Handler-thread time spent on requests whose client had already left (from the thread
    /// taking the request to the response), summed.
    pub wasted_work: Nanos,
}

/// A run's measurements.
#[derive(Debug, Clone)]
pub struct Book {
    /// Requests sent.
    sent: u64,
    outcomes: OutcomeCounts,
    /// Latencies of answered requests (success, partial)...
    latency: LatencyHistogram,
    /// ...and the time to failure of the others (failed, timeout, refused).
    failed_latency: LatencyHistogram,
    /// The latencies of the last seconds, for a live view (none when nobody watches).
    window: Option<RollingHistogram>,
    /// Each service's counters, indexed like the scenario's services.
    pub services: Vec<ServiceStats>,
    /// Responses that arrived after their client had timed out.
    late_responses: u64,
    /// Responses the server wrote, in time or late (every attempt it served to the end).
    server_responses: u64,
    pub resilience: ResilienceCounts,
    /// Requests answered (success, partial) in each whole second of the run.
    goodput: Vec<u32>,
    /// Attempts sent again in each whole second of the run.
    retried: Vec<u32>,
    /// Requests sent for the first time in each whole second.
    new_requests: Vec<u32>,
    /// Requests that ended without an answer (failed, timeout, refused) in each whole second.
    failures: Vec<u32>,
    /// Responses written after their client had left, in each whole second.
    late: Vec<u32>,
    /// Responses the server wrote (in time or late) in each whole second.
    responses: Vec<u32>,
    sampler: Sampler,
    /// ∫ in-flight dt up to `area_at`, in request-nanoseconds, for the time-average number in
    /// the system. Summed exactly, so it does not depend on how often it is brought up to date.
    in_flight_area: u128,
    area_at: Nanos,
}

/// What a book holds at one instant, as a snapshot shows it.
#[derive(Debug, Clone)]
pub struct BookFigures {
    pub sent: u64,
    pub in_flight: u64,
    /// The time-average of `in_flight` since t = 0 (Little's L, measured).
    pub mean_in_flight: f64,
    pub outcomes: OutcomeCounts,
    pub late_responses: u64,
    pub server_responses: u64,
    pub resilience: ResilienceCounts,
    pub latency: LatencySummary,
    pub failed_latency: LatencySummary,
    pub window: LatencySummary,
    pub window_len: Nanos,
}

impl Book {
    /// An empty book for `services` services and `pools` pools.
    pub fn new(services: usize, pools: usize) -> Self {
        Book {
            sent: 0,
            outcomes: OutcomeCounts::default(),
            latency: LatencyHistogram::default(),
            failed_latency: LatencyHistogram::default(),
            window: Some(RollingHistogram::new(10, Nanos::from_secs(1))),
            services: vec![ServiceStats::default(); services],
            late_responses: 0,
            server_responses: 0,
            resilience: ResilienceCounts::default(),
            goodput: Vec::new(),
            retried: Vec::new(),
            new_requests: Vec::new(),
            failures: Vec::new(),
            late: Vec::new(),
            responses: Vec::new(),
            sampler: Sampler::new(pools),
            in_flight_area: 0,
            area_at: Nanos::ZERO,
        }
    }

    pub fn sent(&self) -> u64 {
        self.sent
    }

    pub fn outcomes(&self) -> &OutcomeCounts {
        &self.outcomes
    }

    pub fn sampler(&self) -> &Sampler {
        &self.sampler
    }

    /// Requests sent whose client has not seen an outcome yet.
    pub fn in_flight(&self) -> u64 {
        self.sent.saturating_sub(self.outcomes.total())
    }

    /// Adds the requests in flight since the last change up to `now` to Little's area. The
    /// count changes only when a request is sent or ends, so the area is brought up to date
    /// there, and [`Book::mean_in_flight`] adds the stretch since.
    fn accumulate(&mut self, now: Nanos) {
        if now > self.area_at {
            let dt = u128::from((now - self.area_at).0);
            self.in_flight_area += u128::from(self.in_flight()) * dt;
            self.area_at = now;
        }
    }

    /// A request went out at `now`.
    #[inline]
    pub fn issued(&mut self, now: Nanos) {
        self.accumulate(now);
        self.sent += 1;
        count_in_second(&mut self.new_requests, now);
    }

    /// The server wrote a response at `now`; `late` when its client had already left.
    pub fn server_responded(&mut self, now: Nanos, late: bool) {
        self.server_responses += 1;
        count_in_second(&mut self.responses, now);
        if late {
            self.late_responses += 1;
            count_in_second(&mut self.late, now);
        }
    }

    /// Keeps no rolling window of recent latencies: a run nobody watches live reports the
    /// whole run's figures only.
    pub fn unwatched(&mut self) {
        self.window = None;
    }

    /// A client saw `outcome` at `now`, `latency` after its request went out.
    pub fn record(&mut self, now: Nanos, latency: Nanos, outcome: Outcome) {
        self.accumulate(now);
        self.outcomes.add(outcome);
        self.sampler.record(outcome, latency);
        // Answered requests and failures are timed apart: an instant rejection must not
        // pull the latency of the requests that were answered towards zero.
        if outcome.is_answered() {
            self.latency.record(latency);
            if let Some(window) = &mut self.window {
                window.record(now, latency);
            }
            count_in_second(&mut self.goodput, now);
        } else {
            self.failed_latency.record(latency);
            count_in_second(&mut self.failures, now);
        }
    }

    /// Closes one sampling interval of the series: outcome counts, latency, pool gauges.
    pub fn sample(&mut self, pools: impl IntoIterator<Item = PoolGauges>) {
        let in_flight = self.in_flight();
        self.sampler.close_interval(in_flight, pools);
    }

    /// The time-average number of requests in flight from t = 0 to `now` (Little's L).
    pub fn mean_in_flight(&self, now: Nanos) -> f64 {
        if now == Nanos::ZERO {
            return 0.0;
        }
        let since = u128::from(now.saturating_sub(self.area_at).0);
        let area = self.in_flight_area + u128::from(self.in_flight()) * since;
        area as f64 / now.0 as f64
    }

    /// A client sent an attempt again at `now`.
    pub fn retried(&mut self, now: Nanos) {
        self.resilience.retries += 1;
        count_in_second(&mut self.retried, now);
    }

    /// Requests answered in each whole second up to `now` (the last one partial).
    pub fn goodput_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.goodput, now)
    }

    /// Attempts sent again in each whole second up to `now` (the last one partial).
    pub fn retry_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.retried, now)
    }

    /// Requests sent for the first time in each whole second up to `now`.
    pub fn new_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.new_requests, now)
    }

    /// Requests that ended without an answer in each whole second up to `now`.
    pub fn failure_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.failures, now)
    }

    /// Responses written after their client had left, in each whole second up to `now`.
    pub fn late_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.late, now)
    }

    /// Responses the server wrote (in time or late) in each whole second up to `now`.
    pub fn response_timeline(&self, now: Nanos) -> Vec<u32> {
        timeline(&self.responses, now)
    }

    /// The book's figures at `now`.
    pub fn figures(&self, now: Nanos) -> BookFigures {
        BookFigures {
            sent: self.sent,
            in_flight: self.in_flight(),
            mean_in_flight: self.mean_in_flight(now),
            outcomes: self.outcomes,
            late_responses: self.late_responses,
            server_responses: self.server_responses,
            resilience: self.resilience,
            latency: self.latency.summary(),
            failed_latency: self.failed_latency.summary(),
            window: self
                .window
                .as_ref()
                .map_or_else(LatencySummary::default, |w| w.summary(now)),
            window_len: self
                .window
                .as_ref()
                .map_or(Nanos::ZERO, RollingHistogram::window),
        }
    }
}

/// Adds one to the count of `now`'s whole second.
fn count_in_second(seconds: &mut Vec<u32>, now: Nanos) {
    let second = usize::try_from(now.0 / 1_000_000_000).unwrap_or(usize::MAX);
    if second >= seconds.len() {
        seconds.resize(second + 1, 0);
    }
    seconds[second] += 1;
}

/// `counts` with a zero for every whole second up to `now` that counted nothing.
fn timeline(counts: &[u32], now: Nanos) -> Vec<u32> {
    let seconds = usize::try_from(now.0.div_ceil(1_000_000_000)).unwrap_or(0);
    let mut timeline = counts.to_vec();
    timeline.resize(seconds.max(timeline.len()), 0);
    timeline
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    #[test]
    fn little_area_counts_each_request_for_the_time_it_was_in_flight() {
        let mut b = Book::new(1, 0);
        b.issued(ms(0));
        b.issued(ms(100));
        b.record(ms(300), ms(300), Outcome::Success);
        b.record(ms(400), ms(300), Outcome::Failed);
        // One request for 100 ms, two for 200 ms, one for 100 ms: 0.6 request-seconds.
        assert!((b.mean_in_flight(ms(400)) - 0.6 / 0.4).abs() < 1e-12);
        // Time after the last change adds nothing while nothing is in flight.
        assert!((b.mean_in_flight(ms(800)) - 0.6 / 0.8).abs() < 1e-12);
        assert_eq!(b.in_flight(), 0);
    }

    #[test]
    fn each_second_counts_new_requests_failures_and_the_servers_responses_late_or_not() {
        let mut b = Book::new(1, 0);
        b.issued(ms(100));
        b.issued(ms(1_500));
        b.retried(ms(1_600));
        b.record(ms(1_900), ms(400), Outcome::Timeout);
        b.server_responded(ms(2_100), true);
        b.server_responded(ms(2_200), false);
        b.record(ms(2_200), ms(700), Outcome::Success);
        let now = ms(2_500);
        assert_eq!(b.new_timeline(now), vec![1, 1, 0]);
        assert_eq!(b.retry_timeline(now), vec![0, 1, 0]);
        assert_eq!(b.failure_timeline(now), vec![0, 1, 0]);
        assert_eq!(b.goodput_timeline(now), vec![0, 0, 1]);
        assert_eq!(b.late_timeline(now), vec![0, 0, 1]);
        assert_eq!(b.response_timeline(now), vec![0, 0, 2]);
        let f = b.figures(now);
        assert_eq!((f.server_responses, f.late_responses), (2, 1));
    }

    #[test]
    fn failures_are_timed_apart_from_answers() {
        let mut b = Book::new(1, 0);
        for _ in 0..3 {
            b.issued(ms(0));
        }
        b.record(ms(1), ms(1), Outcome::Refused);
        b.record(ms(500), ms(500), Outcome::Success);
        b.record(ms(700), ms(700), Outcome::Partial);
        let f = b.figures(ms(700));
        assert_eq!(f.latency.count, 2);
        assert_eq!(f.failed_latency.count, 1);
        assert!(f.latency.p50 >= 499.0, "{}", f.latency.p50);
        assert_eq!(f.outcomes.answered(), 2);
        assert_eq!(f.sent, 3);
    }
}
