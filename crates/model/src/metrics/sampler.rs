//! The time series behind the sparklines: outcomes and latency per interval, requests in
//! flight and every pool's gauges, sampled at a fixed interval (of simulated time for the
//! engine, of scenario time for a real run).

use super::{Outcome, OutcomeCounts, Series};
use crate::time::Nanos;

/// How many samples each series keeps.
pub const SERIES_CAPACITY: usize = 600;

/// Series sampled every `interval`, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeriesSnapshot {
    pub interval: Nanos,
    /// Answered requests (success, partial) per interval.
    pub answered: Vec<f64>,
    pub failed: Vec<f64>,
    pub partial: Vec<f64>,
    pub timeout: Vec<f64>,
    pub refused: Vec<f64>,
    /// Mean and max latency (ms) of the requests answered in each interval.
    pub latency_mean: Vec<f64>,
    pub latency_max: Vec<f64>,
    pub in_flight: Vec<f64>,
}

/// One pool's gauges at a sample: active, queued, pool size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolGauges {
    pub active: u32,
    pub queued: u32,
    pub size: u32,
}

/// Accumulates outcomes during an interval and closes it into the series.
#[derive(Debug, Clone)]
pub struct Sampler {
    answered: Series,
    failed: Series,
    partial: Series,
    timeout: Series,
    refused: Series,
    latency_mean: Series,
    latency_max: Series,
    in_flight: Series,
    pool_active: Vec<Series>,
    pool_queued: Vec<Series>,
    pool_size: Vec<Series>,
    outcomes: OutcomeCounts,
    latency_sum_ms: f64,
    latency_n: u64,
    latency_max_ms: f64,
}

impl Sampler {
    pub fn new(pools: usize) -> Self {
        let series = || Series::new(SERIES_CAPACITY);
        Sampler {
            answered: series(),
            failed: series(),
            partial: series(),
            timeout: series(),
            refused: series(),
            latency_mean: series(),
            latency_max: series(),
            in_flight: series(),
            pool_active: (0..pools).map(|_| series()).collect(),
            pool_queued: (0..pools).map(|_| series()).collect(),
            pool_size: (0..pools).map(|_| series()).collect(),
            outcomes: OutcomeCounts::default(),
            latency_sum_ms: 0.0,
            latency_n: 0,
            latency_max_ms: 0.0,
        }
    }

    /// An outcome seen in the current interval (only answers count towards its latency).
    pub fn record(&mut self, outcome: Outcome, latency: Nanos) {
        self.outcomes.add(outcome);
        if outcome.is_answered() {
            let ms = latency.as_millis_f64();
            self.latency_sum_ms += ms;
            self.latency_n += 1;
            self.latency_max_ms = self.latency_max_ms.max(ms);
        }
    }

    /// Closes the interval: pushes one sample to every series and starts the next.
    pub fn close_interval(&mut self, in_flight: u64, pools: impl IntoIterator<Item = PoolGauges>) {
        let acc = std::mem::take(&mut self.outcomes);
        self.answered.push(acc.answered() as f64);
        self.failed.push(acc.get(Outcome::Failed) as f64);
        self.partial.push(acc.get(Outcome::Partial) as f64);
        self.timeout.push(acc.get(Outcome::Timeout) as f64);
        self.refused.push(acc.get(Outcome::Refused) as f64);
        let mean = if self.latency_n > 0 {
            self.latency_sum_ms / self.latency_n as f64
        } else {
            0.0
        };
        self.latency_mean.push(mean);
        self.latency_max.push(self.latency_max_ms);
        self.in_flight.push(in_flight as f64);
        for (i, g) in pools.into_iter().enumerate() {
            if let Some(s) = self.pool_active.get_mut(i) {
                s.push(f64::from(g.active));
            }
            if let Some(s) = self.pool_queued.get_mut(i) {
                s.push(f64::from(g.queued));
            }
            if let Some(s) = self.pool_size.get_mut(i) {
                s.push(f64::from(g.size));
            }
        }
        self.latency_sum_ms = 0.0;
        self.latency_n = 0;
        self.latency_max_ms = 0.0;
    }

    /// The outcome and latency series, with the interval still open as the newest sample
    /// (so a run that ends mid-interval, or a frame drawn mid-interval, shows its latest
    /// outcomes).
    pub fn series(&self, interval: Nanos) -> SeriesSnapshot {
        let with_open = |series: &Series, open: f64| -> Vec<f64> {
            series.iter().chain(std::iter::once(open)).collect()
        };
        let acc = &self.outcomes;
        let open_mean = if self.latency_n > 0 {
            self.latency_sum_ms / self.latency_n as f64
        } else {
            0.0
        };
        SeriesSnapshot {
            interval,
            answered: with_open(&self.answered, acc.answered() as f64),
            failed: with_open(&self.failed, acc.get(Outcome::Failed) as f64),
            partial: with_open(&self.partial, acc.get(Outcome::Partial) as f64),
            timeout: with_open(&self.timeout, acc.get(Outcome::Timeout) as f64),
            refused: with_open(&self.refused, acc.get(Outcome::Refused) as f64),
            latency_mean: with_open(&self.latency_mean, open_mean),
            latency_max: with_open(&self.latency_max, self.latency_max_ms),
            in_flight: self.in_flight.iter().collect(),
        }
    }

    /// A pool's active threads per sample.
    pub fn pool_active(&self, pool: usize) -> Vec<f64> {
        self.pool_active
            .get(pool)
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    }

    /// A pool's queued tasks per sample.
    pub fn pool_queued(&self, pool: usize) -> Vec<f64> {
        self.pool_queued
            .get(pool)
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_counts_its_outcomes_and_the_latencies_of_its_answers_then_starts_afresh() {
        let mut s = Sampler::new(1);
        s.record(Outcome::Success, Nanos::from_millis(100));
        s.record(Outcome::Failed, Nanos::from_millis(300));
        s.record(Outcome::Refused, Nanos::ZERO);
        s.close_interval(
            4,
            [PoolGauges {
                active: 2,
                queued: 5,
                size: 3,
            }],
        );
        s.close_interval(0, [PoolGauges::default()]);
        s.record(Outcome::Partial, Nanos::from_millis(50));
        let series = s.series(Nanos::from_millis(100));
        // Two closed intervals, then the open one with the partial seen so far.
        assert_eq!(series.answered, vec![1.0, 0.0, 1.0]);
        assert_eq!(series.partial, vec![0.0, 0.0, 1.0]);
        assert_eq!(series.failed, vec![1.0, 0.0, 0.0]);
        assert_eq!(series.refused, vec![1.0, 0.0, 0.0]);
        // The failed request's 300 ms is a time to failure, not an answer's latency.
        assert_eq!(series.latency_mean, vec![100.0, 0.0, 50.0]);
        assert_eq!(series.latency_max, vec![100.0, 0.0, 50.0]);
        assert_eq!(series.in_flight, vec![4.0, 0.0]);
        assert_eq!(s.pool_queued(0), vec![5.0, 0.0]);
        assert_eq!(s.pool_active(0), vec![2.0, 0.0]);
    }
}
