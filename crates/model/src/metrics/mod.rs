//! Measurements: latency histograms (whole run and a rolling window), outcome counters and
//! ring-buffer time series for sparklines. Memory is bounded however long a run lasts.

mod book;
mod histogram;
mod recent;
mod sampler;
mod series;

pub use book::{Book, BookFigures, ResilienceCounts, ServiceStats};
pub use histogram::{LatencyHistogram, LatencySummary, RollingHistogram};
pub use recent::RecentLog;
pub use sampler::{PoolGauges, SERIES_CAPACITY, Sampler, SeriesSnapshot};
pub use series::Series;

/// How a request ended. Every request ends in exactly one outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Every call succeeded.
    Success,
    /// A call failed or timed out and its fallback was used.
    Partial,
    /// A call failed without fallback, or its submission was rejected with abort.
    Failed,
    /// The client gave up waiting (the server still finishes the work).
    Timeout,
    /// The connection was not accepted, or the server's queue refused the request.
    Refused,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Outcome::Success,
        Outcome::Partial,
        Outcome::Failed,
        Outcome::Timeout,
        Outcome::Refused,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "Success",
            Outcome::Partial => "Partial",
            Outcome::Failed => "Failed",
            Outcome::Timeout => "Timeout",
            Outcome::Refused => "Refused",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the client got an answer it can use (Success or Partial): the requests
    /// goodput counts and the answered latency percentiles describe.
    pub fn is_answered(self) -> bool {
        matches!(self, Outcome::Success | Outcome::Partial)
    }

    /// The server responded (success, partial or failed): the client got an HTTP answer.
    pub fn is_response(self) -> bool {
        matches!(self, Outcome::Success | Outcome::Partial | Outcome::Failed)
    }

    /// The outcomes that are not answers (Failed, Timeout, Refused), in display order.
    pub const FAILURES: [Outcome; 3] = [Outcome::Failed, Outcome::Timeout, Outcome::Refused];
}

/// Requests by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutcomeCounts {
    pub by_outcome: [u64; 5],
}

impl OutcomeCounts {
    pub fn add(&mut self, outcome: Outcome) {
        self.by_outcome[outcome.index()] += 1;
    }
    pub fn get(&self, outcome: Outcome) -> u64 {
        self.by_outcome[outcome.index()]
    }
    /// Requests that ended, in any outcome.
    pub fn total(&self) -> u64 {
        self.by_outcome.iter().sum()
    }
    /// Requests the client got a usable answer for (success or partial): goodput's count.
    pub fn answered(&self) -> u64 {
        self.get(Outcome::Success) + self.get(Outcome::Partial)
    }
    /// Requests that ended without an answer (failed, timed out or refused).
    pub fn failures(&self) -> u64 {
        self.total() - self.answered()
    }
    /// Requests that got a response from the server in time (success, partial or failed).
    pub fn responded(&self) -> u64 {
        self.get(Outcome::Success) + self.get(Outcome::Partial) + self.get(Outcome::Failed)
    }
}
