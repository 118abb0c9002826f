//! What the resilience panel needs from more than one snapshot: the clients' retries per
//! second over the last few simulated seconds (the snapshot holds only the count since t 0),
//! and whether the server's thread count held still since t 0, so wasted work can be shown
//! as a share of the server threads' time only when that time is threads x elapsed.
//!
//! The rate is the difference of two counts over the simulated time between them, as
//! Hystrix's rolling counters and `tokio-console`'s poll rates are: the newest count and the
//! newest one at least [`WINDOW`] older. The span actually used is returned with the rate, so
//! the panel can say what it counted (a frame at max speed may jump more than the window).

use std::collections::VecDeque;

use crate::sim::Snapshot;
use crate::time::Nanos;
use crate::topology::PoolKind;

/// How far back the rate of retries looks.
pub const WINDOW: Nanos = Nanos::from_secs(5);

/// Counts taken from successive snapshots of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetryRate {
    /// (simulated time, retries since t 0), oldest first; the oldest is the newest sample at
    /// least [`WINDOW`] before the last, once there is one.
    samples: VecDeque<(Nanos, u64)>,
    /// The server's `maxThreads` at the first sample, while every sample since saw the same;
    /// `None` once it changed, or for a server of virtual threads.
    server_threads: Option<u32>,
}

/// Retries per simulated second and the span of simulated time they were counted over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub per_second: f64,
    pub span: Nanos,
}

impl RetryRate {
    /// Notes the run as `snapshot` shows it. A clock or a count that went back means a new
    /// run (a reset, a restart, a tour's jump): the history starts again from it.
    pub fn record(&mut self, snapshot: &Snapshot) {
        self.record_counts(
            snapshot.now,
            snapshot.resilience.retries,
            server_threads(snapshot),
        );
    }

    fn record_counts(&mut self, now: Nanos, retries: u64, threads: Option<u32>) {
        let restarted = self
            .samples
            .back()
            .is_some_and(|&(t, r)| now < t || retries < r);
        if restarted || self.samples.is_empty() {
            self.samples.clear();
            self.samples.push_back((now, retries));
            // Threads x elapsed is the server's time only if it was watched from t 0.
            self.server_threads = threads.filter(|_| now == Nanos::ZERO);
            return;
        }
        if self.server_threads != threads {
            self.server_threads = None;
        }
        match self.samples.back_mut() {
            Some(last) if last.0 == now => last.1 = retries,
            _ => self.samples.push_back((now, retries)),
        }
        // Keep one sample at or before the window's start, and everything after it.
        let start = now.saturating_sub(WINDOW);
        while self.samples.get(1).is_some_and(|&(t, _)| t <= start) {
            self.samples.pop_front();
        }
    }

    /// When the newest sample was taken.
    pub fn last_at(&self) -> Option<Nanos> {
        self.samples.back().map(|&(t, _)| t)
    }

    /// Retries per second between the oldest sample kept and the newest; `None` before any
    /// simulated time passed between two samples.
    pub fn rate(&self) -> Option<Rate> {
        let (&(from, first), &(to, last)) = (self.samples.front()?, self.samples.back()?);
        let span = to.saturating_sub(from);
        (span > Nanos::ZERO).then(|| Rate {
            per_second: last.saturating_sub(first) as f64 / span.as_secs_f64(),
            span,
        })
    }

    /// The server's `maxThreads` if it has been the same at every sample since t 0 (the
    /// first sample was at t 0); `None` otherwise, or for virtual threads.
    pub fn steady_server_threads(&self) -> Option<u32> {
        self.server_threads
    }
}

/// Tomcat's `maxThreads` as the snapshot shows it; `None` for a server of virtual threads.
fn server_threads(snapshot: &Snapshot) -> Option<u32> {
    snapshot
        .pools
        .iter()
        .find(|p| p.kind == PoolKind::Tomcat)
        .map(|p| p.max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: u64) -> Nanos {
        Nanos::from_secs(secs)
    }

    #[test]
    fn the_rate_counts_retries_over_the_last_five_simulated_seconds() {
        let mut r = RetryRate::default();
        assert_eq!(r.rate(), None);
        r.record_counts(s(0), 0, Some(10));
        assert_eq!(r.rate(), None, "no time has passed");
        // 10 retries a second for 4 s, then 100 a second.
        for t in 1..=4 {
            r.record_counts(s(t), 10 * t, Some(10));
        }
        assert_eq!(
            r.rate(),
            Some(Rate {
                per_second: 10.0,
                span: s(4)
            })
        );
        for t in 5..=8 {
            r.record_counts(s(t), 40 + 100 * (t - 4), Some(10));
        }
        // From t 3 (30) to t 8 (440): 410 in 5 s.
        assert_eq!(
            r.rate(),
            Some(Rate {
                per_second: 82.0,
                span: s(5)
            })
        );
    }

    #[test]
    fn a_frame_that_jumps_past_the_window_counts_over_its_whole_span() {
        let mut r = RetryRate::default();
        r.record_counts(s(0), 0, Some(10));
        r.record_counts(s(20), 300, Some(10));
        assert_eq!(
            r.rate(),
            Some(Rate {
                per_second: 15.0,
                span: s(20)
            })
        );
    }

    #[test]
    fn a_clock_going_back_starts_the_history_again() {
        let mut r = RetryRate::default();
        r.record_counts(s(0), 0, Some(10));
        r.record_counts(s(9), 90, Some(12));
        assert_eq!(r.steady_server_threads(), None, "the server was resized");
        r.record_counts(s(0), 0, Some(10));
        assert_eq!(r.rate(), None);
        assert_eq!(r.steady_server_threads(), Some(10));
    }

    #[test]
    fn the_server_threads_are_steady_only_when_watched_from_t_0() {
        let mut r = RetryRate::default();
        r.record_counts(s(3), 0, Some(10));
        r.record_counts(s(4), 0, Some(10));
        assert_eq!(r.steady_server_threads(), None, "t 0 to 3 s unseen");
        let mut r = RetryRate::default();
        r.record_counts(s(0), 0, None);
        r.record_counts(s(1), 0, None);
        assert_eq!(r.steady_server_threads(), None, "virtual threads");
    }
}
