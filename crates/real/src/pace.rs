//! Whether a real run kept pace with its scenario. A machine that cannot keep up still
//! produces figures (fewer requests sent, later, slower), but they are this machine's, not
//! the model's: the run says so, with the numbers it measured.
//!
//! Three measurements, each of which the load or the runtime takes as it goes:
//! - every request's start delay: when it went out against when the load meant to send it
//!   (an open arrival's drawn time, a closed client's end of thinking, the next run after the
//!   previous outcome, t = 0 for a batch);
//! - closed-loop clients that never sent a request at all before the end (all are due at
//!   t = 0);
//! - the tokio workers' busy ratio over the whole run (tokio-metrics);
//! - the cores the run's CPU work (spun for real) needs at the rates it reached, against the
//!   machine's.

use serde::Serialize;

use crate::metrics::{LatencyHistogram, LatencySummary, Outcome};
use crate::scenario::Scenario;
use crate::time::Nanos;
use threadlab_model::snapshot::Snapshot;

use super::RuntimeView;

/// A timer firing later than this (real time) means the runtime or the machine is behind.
pub const LATE_TIMER_LIMIT_MS: f64 = 5.0;
/// Share of the workers (or of the cores) busy from which there is no room left.
pub const SATURATED: f64 = 0.9;
/// Retried requests that went out this much later again than their schedule (their drift
/// over the time it gave them) ran at another pace than the model's.
pub const RETRY_DRIFT_SHARE: f64 = 0.1;

/// The cores a real run's spinning needs at the rates it reached: the calls' CPU for each
/// request, the handler's own for each one a handler took (not the refused), the error page
/// of each failed one, and the CPU of each connection closed at a full executor queue. The
/// same in real and scenario units: both scale by the time scale.
pub(super) fn cores_needed(scenario: &Scenario, snapshot: &Snapshot) -> f64 {
    let connector = &scenario.server.connector;
    let outcomes = &snapshot.outcomes;
    let share = |outcome| match outcomes.total() {
        0 => 0.0,
        total => outcomes.get(outcome) as f64 / total as f64,
    };
    let per_request = calls_cpu_s(scenario)
        + (1.0 - share(Outcome::Refused)) * connector.cpu_per_request.as_secs_f64()
        + share(Outcome::Failed) * connector.cpu_per_error.as_secs_f64();
    let elapsed = snapshot.now.as_secs_f64();
    let resets_per_s = match &snapshot.net {
        Some(net) if elapsed > 0.0 => net.stats.closed_by_max_queue as f64 / elapsed,
        _ => 0.0,
    };
    snapshot.throughput_rps * per_request
        + resets_per_s * connector.cpu_per_rejected_connection.as_secs_f64()
}

/// CPU seconds of the calls of one request.
pub(super) fn calls_cpu_s(scenario: &Scenario) -> f64 {
    scenario
        .endpoint
        .stages
        .iter()
        .flatten()
        .map(|&id| scenario.service(id).cpu.as_secs_f64())
        .sum()
}

/// Start delays as the load measured them, in scenario time.
#[derive(Debug, Clone, Default)]
pub(super) struct Starts {
    delays: LatencyHistogram,
    /// How far behind its request's schedule each retried attempt went out.
    retry_drift: LatencyHistogram,
    /// Those drifts added up, and the scheduled times since their requests' first attempts.
    retry_drift_total: Nanos,
    retry_scheduled_total: Nanos,
    /// Closed-loop clients that sent at least one request.
    pub clients_started: u64,
}

impl Starts {
    /// A request went out `delay` after it was due.
    pub fn record(&mut self, delay: Nanos) {
        self.delays.record(delay);
    }

    /// A retried attempt went out `drift` behind its request's schedule (the lateness of
    /// each attempt before it, its own included), `since_first` after the first attempt.
    pub fn record_retry(&mut self, drift: Nanos, since_first: Nanos) {
        self.retry_drift.record(drift);
        self.retry_drift_total = self.retry_drift_total.saturating_add(drift);
        let scheduled = since_first.saturating_sub(drift);
        self.retry_scheduled_total = self.retry_scheduled_total.saturating_add(scheduled);
    }

    /// The retried attempts' drift as a share of the time their schedule gave them.
    fn retry_drift_share(&self) -> f64 {
        match self.retry_scheduled_total.as_secs_f64() {
            0.0 => 0.0,
            scheduled => self.retry_drift_total.as_secs_f64() / scheduled,
        }
    }
}

/// How a real run kept pace with its scenario (`pace` in a real run's JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pace {
    /// The machine could not keep up: the figures are not the model's.
    pub behind: bool,
    /// Requests the load sent.
    pub sent: u64,
    /// Requests due before the end that never went out (closed-loop clients that never got
    /// to send).
    pub unsent: u64,
    /// How long after it was due each request went out, in scenario ms.
    pub start_delay_ms: LatencySummary,
    /// The median of those delays in real ms (what the machine was late by).
    pub start_delay_p50_real_ms: f64,
    /// How far behind its request's schedule each retried attempt went out, in scenario ms:
    /// a retry waits on the attempt before it, so each one's lateness adds up.
    pub retry_drift_ms: LatencySummary,
    /// The median of those in real ms.
    pub retry_drift_p50_real_ms: f64,
    /// The drift added up, as a share of the time the retried requests' schedule gave
    /// them since their first attempts (0.5: they went out half as late again).
    pub retry_drift_share: f64,
    /// The tokio workers' busy ratio over the whole run (up to `workers`).
    pub busy_ratio_mean: f64,
    pub workers: usize,
    /// The cores the run's CPU work needs at the rates it reached (calls, the handler's own,
    /// error pages, closed connections), and this machine's.
    pub cores_needed: f64,
    pub cores: usize,
    /// What fell behind, in words (empty when the run kept up).
    pub reasons: Vec<String>,
}

/// What a run expected and measured, to judge its pace.
pub(super) struct Measured<'a> {
    pub starts: Starts,
    pub sent: u64,
    /// Closed-loop clients (each due to send at t = 0); zero for other loads.
    pub clients: u64,
    pub runtime: &'a RuntimeView,
    pub time_scale: f64,
    /// The cores the CPU work needs (see [`cores_needed`]), and the machine's.
    pub cores_needed: f64,
    pub cores: usize,
}

impl Pace {
    /// Behind when a closed-loop client never sent, when half the requests went out
    /// [`LATE_TIMER_LIMIT_MS`] real ms late or more (the live view's limit for a late timer;
    /// the median, so a burst at t = 0 alone does not count), when the tokio workers were
    /// [`SATURATED`] over the whole run, or when the CPU work needs [`SATURATED`] of the
    /// machine's cores or more.
    pub(super) fn judge(m: &Measured<'_>) -> Pace {
        let delays = m.starts.delays.summary();
        let drift = m.starts.retry_drift.summary();
        let mut pace = Pace {
            behind: false,
            sent: m.sent,
            unsent: m.clients.saturating_sub(m.starts.clients_started),
            start_delay_ms: delays,
            start_delay_p50_real_ms: delays.p50 * m.time_scale,
            retry_drift_ms: drift,
            retry_drift_p50_real_ms: drift.p50 * m.time_scale,
            retry_drift_share: m.starts.retry_drift_share(),
            busy_ratio_mean: m.runtime.busy_ratio_mean,
            workers: m.runtime.workers,
            cores_needed: m.cores_needed,
            cores: m.cores,
            reasons: Vec::new(),
        };
        if pace.unsent > 0 {
            pace.reasons.push(format!(
                "{} of {} closed-loop clients never sent a request ({} sent in all)",
                pace.unsent, m.clients, pace.sent
            ));
        }
        if pace.start_delay_p50_real_ms >= LATE_TIMER_LIMIT_MS {
            pace.reasons.push(format!(
                "half the requests went out {:.1} ms or more after they were due (at worst \
                 {:.1} ms, scenario time; {:.1} ms real)",
                delays.p50, delays.max, pace.start_delay_p50_real_ms
            ));
        }
        if pace.retry_drift_p50_real_ms >= LATE_TIMER_LIMIT_MS
            && pace.retry_drift_share >= RETRY_DRIFT_SHARE
        {
            pace.reasons.push(format!(
                "half the retried attempts went out {:.1} ms or more behind their request's \
                 schedule (at worst {:.1} ms, scenario time; {:.1} ms real), {:.0} % more time \
                 than the schedule gave them: each retry waits on the attempt before it, so \
                 the lateness of each adds up",
                drift.p50,
                drift.max,
                pace.retry_drift_p50_real_ms,
                pace.retry_drift_share * 100.0
            ));
        }
        if pace.workers > 0 && pace.busy_ratio_mean >= SATURATED * pace.workers as f64 {
            pace.reasons.push(format!(
                "the tokio workers were busy {:.2} of {} on average",
                pace.busy_ratio_mean, pace.workers
            ));
        }
        if pace.cores > 0 && pace.cores_needed >= SATURATED * pace.cores as f64 {
            pace.reasons.push(format!(
                "its CPU work needs {:.1} of this machine's {} cores",
                pace.cores_needed, pace.cores
            ));
        }
        pace.behind = !pace.reasons.is_empty();
        pace
    }

    /// The warning for stderr and the table, when the run fell behind.
    pub fn warning(&self) -> Option<String> {
        self.behind.then(|| {
            format!(
                "this machine could not keep up, so these figures are not the model's: {}",
                self.reasons.join("; ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(starts: Starts, clients: u64, busy: f64, scale: f64) -> Pace {
        let runtime = RuntimeView {
            workers: 2,
            busy_ratio_mean: busy,
            ..RuntimeView::default()
        };
        Pace::judge(&Measured {
            sent: starts.delays.count(),
            starts,
            clients,
            runtime: &runtime,
            time_scale: scale,
            cores_needed: 0.0,
            cores: 2,
        })
    }

    fn starts(delays_ms: &[u64], clients_started: u64) -> Starts {
        let mut s = Starts {
            clients_started,
            ..Starts::default()
        };
        for &d in delays_ms {
            s.record(Nanos::from_millis(d));
        }
        s
    }

    #[test]
    fn a_run_on_schedule_with_idle_workers_kept_up() {
        let pace = judged(starts(&[0, 1, 2, 1], 4), 4, 0.3, 1.0);
        assert!(!pace.behind, "{pace:?}");
        assert_eq!(pace.warning(), None);
        assert!((pace.start_delay_ms.mean - 1.0).abs() < 1e-9);
        assert!((pace.start_delay_ms.max - 2.0).abs() < 1e-9);
    }

    #[test]
    fn clients_that_never_sent_put_the_run_behind() {
        let pace = judged(starts(&[0, 1], 2), 100_000, 0.3, 1.0);
        assert!(pace.behind);
        assert_eq!(pace.unsent, 99_998);
        let warning = pace.warning().expect("behind");
        assert!(
            warning.contains("99998 of 100000 closed-loop clients never sent"),
            "{warning}"
        );
    }

    #[test]
    fn late_starts_count_in_real_time_so_the_time_scale_matters() {
        // One late burst (the median is on time) does not count.
        assert!(!judged(starts(&[0, 0, 0, 900], 0), 0, 0.1, 1.0).behind);
        // 100 ms late in scenario time is 1 ms real at a time scale of 0.01: on schedule.
        assert!(!judged(starts(&[100, 100], 0), 0, 0.1, 0.01).behind);
        // The same delays at a time scale of 1 are 100 ms real.
        let pace = judged(starts(&[100, 100], 0), 0, 0.1, 1.0);
        assert!(pace.behind);
        assert!(
            pace.reasons[0].contains("went out 100.0 ms or more after they were due"),
            "{:?}",
            pace.reasons
        );
    }

    #[test]
    fn retries_whose_lateness_adds_up_put_the_run_behind() {
        // Each retry of a chain went out 1 ms (real) late: alone a timer's whole
        // millisecond, but the twentieth attempt is 20 ms behind its request's schedule.
        // Each attempt was scheduled 10 ms after the one before.
        let mut behind = starts(&[0], 0);
        let mut on_time = starts(&[0], 0);
        let mut slow_chain = starts(&[0], 0);
        for k in 1..=20 {
            behind.record(Nanos::from_millis(100));
            behind.record_retry(Nanos::from_millis(100 * k), Nanos::from_millis(110 * k));
            on_time.record_retry(Nanos::from_millis(100), Nanos::from_millis(10 * k + 100));
            // The same drift on a chain whose schedule is a minute long: 1.7 % more time.
            let drift = Nanos::from_millis(100 * k);
            slow_chain.record_retry(drift, Nanos::from_secs(60 * k) + drift);
        }
        assert!(!judged(slow_chain, 0, 0.1, 0.01).behind);
        let pace = judged(behind, 0, 0.1, 0.01);
        assert!(pace.behind, "{pace:?}");
        assert_eq!(pace.reasons.len(), 1, "{:?}", pace.reasons);
        assert!(
            pace.reasons[0].starts_with("half the retried attempts went out 10"),
            "{:?}",
            pace.reasons
        );
        assert!(pace.retry_drift_p50_real_ms > 9.0, "{pace:?}");
        assert!(!judged(on_time, 0, 0.1, 0.01).behind);
    }

    #[test]
    fn saturated_tokio_workers_put_the_run_behind() {
        let pace = judged(starts(&[0], 0), 0, 1.95, 1.0);
        assert!(pace.behind);
        assert_eq!(
            pace.reasons,
            ["the tokio workers were busy 1.95 of 2 on average"]
        );
    }

    #[test]
    fn cpu_work_beyond_the_machines_cores_puts_the_run_behind() {
        let runtime = RuntimeView {
            workers: 2,
            busy_ratio_mean: 0.3,
            ..RuntimeView::default()
        };
        let judge = |cores_needed: f64| {
            Pace::judge(&Measured {
                starts: starts(&[0], 0),
                sent: 1,
                clients: 0,
                runtime: &runtime,
                time_scale: 1.0,
                cores_needed,
                cores: 2,
            })
        };
        assert!(!judge(1.7).behind);
        let pace = judge(5.25);
        assert!(pace.behind);
        assert_eq!(
            pace.reasons,
            ["its CPU work needs 5.2 of this machine's 2 cores"]
        );
    }
}
