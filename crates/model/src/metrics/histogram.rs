//! Latency histograms on `hdrhistogram`, recording microseconds with 3 significant digits.

use hdrhistogram::Histogram;

use crate::time::Nanos;

/// The longest latency recorded exactly: one day. Longer values saturate.
const HIGHEST_US: u64 = 86_400_000_000;
const SIGFIG: u8 = 3;
/// The rolling window's buckets are rotated every second: two significant digits (1 %) keep
/// them small enough to clear cheaply and merge at 30 frames per second.
const WINDOW_SIGFIG: u8 = 2;

fn new_histogram(sigfig: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_US, sigfig)
        .expect("constant bounds within hdrhistogram's limits")
}

/// A summary in milliseconds (`count` is how many latencies it summarises).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl LatencySummary {
    /// `value` (one of this summary's figures) written with `decimals`, or `none` when the
    /// summary holds no latency: a figure of nothing is not a 0 ms latency.
    pub fn text(&self, value: f64, decimals: usize, none: &str) -> String {
        if self.count == 0 {
            none.to_string()
        } else {
            format!("{value:.decimals$}")
        }
    }
}

/// A latency histogram. Quantiles come from the HDR histogram (3 significant digits, the
/// highest equivalent value, as Java's HdrHistogram reports them) clamped to the exact minimum
/// and maximum; the count, mean, minimum and maximum are exact.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::with_precision(SIGFIG)
    }
}

impl LatencyHistogram {
    fn with_precision(sigfig: u8) -> Self {
        LatencyHistogram {
            hist: new_histogram(sigfig),
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    fn clear(&mut self) {
        self.hist.reset();
        self.sum_ns = 0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
    }

    pub fn record(&mut self, latency: Nanos) {
        self.hist.saturating_record((latency.0 / 1_000).max(1));
        self.sum_ns += u128::from(latency.0);
        self.min_ns = self.min_ns.min(latency.0);
        self.max_ns = self.max_ns.max(latency.0);
    }

    /// Records `latency` `count` times: the same histogram as that many [`Self::record`]s.
    pub fn record_n(&mut self, latency: Nanos, count: u64) {
        if count == 0 {
            return;
        }
        self.hist
            .saturating_record_n((latency.0 / 1_000).max(1), count);
        self.sum_ns += u128::from(latency.0) * u128::from(count);
        self.min_ns = self.min_ns.min(latency.0);
        self.max_ns = self.max_ns.max(latency.0);
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn summary(&self) -> LatencySummary {
        if self.hist.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.hist.len(),
            mean: self.sum_ns as f64 / self.hist.len() as f64 / 1e6,
            p50: self.quantile_ms(0.50),
            p90: self.quantile_ms(0.90),
            p99: self.quantile_ms(0.99),
            p999: self.quantile_ms(0.999),
            max: self.max_ns as f64 / 1e6,
        }
    }

    /// The latency at quantile `q` in milliseconds.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        let ns = self
            .hist
            .value_at_quantile(q)
            .saturating_mul(1_000)
            .clamp(self.min_ns, self.max_ns);
        ns as f64 / 1e6
    }

    fn add(&mut self, other: &LatencyHistogram) {
        // Same bounds on both sides, so adding cannot fail.
        let _ = self.hist.add(&other.hist);
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }
}

/// Latencies of the last `buckets` x `bucket_width` of simulated time, in rotating buckets.
#[derive(Debug, Clone)]
pub struct RollingHistogram {
    buckets: Vec<LatencyHistogram>,
    /// Which period (time / width) each bucket holds.
    periods: Vec<u64>,
    width: Nanos,
}

impl RollingHistogram {
    pub fn new(buckets: usize, width: Nanos) -> Self {
        let n = buckets.max(1);
        RollingHistogram {
            buckets: vec![LatencyHistogram::with_precision(WINDOW_SIGFIG); n],
            periods: vec![u64::MAX; n],
            width: Nanos(width.0.max(1)),
        }
    }

    /// The window's length.
    pub fn window(&self) -> Nanos {
        Nanos(self.width.0 * self.buckets.len() as u64)
    }

    pub fn record(&mut self, now: Nanos, latency: Nanos) {
        let period = now.0 / self.width.0;
        let i = (period % self.buckets.len() as u64) as usize;
        if self.periods[i] != period {
            self.periods[i] = period;
            self.buckets[i].clear();
        }
        self.buckets[i].record(latency);
    }

    /// The latencies recorded in the window that ends at `now`.
    pub fn summary(&self, now: Nanos) -> LatencySummary {
        let current = now.0 / self.width.0;
        let oldest = current.saturating_sub(self.buckets.len() as u64 - 1);
        let mut merged = LatencyHistogram::with_precision(WINDOW_SIGFIG);
        for (bucket, &period) in self.buckets.iter().zip(&self.periods) {
            if period != u64::MAX && period >= oldest && period <= current {
                merged.add(bucket);
            }
        }
        merged.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reports_milliseconds_within_three_digits() {
        let mut h = LatencyHistogram::default();
        for ms in 1..=1000u64 {
            h.record(Nanos::from_millis(ms));
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert!((s.mean - 500.5).abs() < 0.5, "{s:?}");
        assert!((s.p50 - 500.0).abs() < 0.5, "{s:?}");
        assert!((s.p99 - 990.0).abs() < 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() < 1.0, "{s:?}");
    }

    #[test]
    fn rolling_window_forgets_old_buckets() {
        let mut r = RollingHistogram::new(10, Nanos::from_secs(1));
        r.record(Nanos::from_millis(500), Nanos::from_millis(900));
        r.record(Nanos::from_millis(12_500), Nanos::from_millis(100));
        let s = r.summary(Nanos::from_millis(12_900));
        assert_eq!(s.count, 1);
        assert!((s.max - 100.0).abs() < 0.2);
        assert_eq!(r.summary(Nanos::from_secs(30)).count, 0);
    }
}
