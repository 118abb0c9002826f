//! A real run's measurements: the engine's [`Book`], written from the run's threads, and what
//! only a real run keeps (when each request went out against when it was due).

use crate::metrics::RecentLog;
use crate::metrics::{Book, Outcome, PoolGauges};
use crate::scenario::{LoadMode, Scenario};
use crate::time::Nanos;
use threadlab_model::snapshot::RunLine;

use super::pace::Starts;
use super::task::Req;

/// How many run lines the log keeps.
const LOG_LINES: usize = 200;

/// The book and the run lines, behind the world's mutex.
pub(super) struct Books {
    pub book: Book,
    /// Every run's line, for `runs` load.
    pub runs: Vec<RunLine>,
    keep_runs: bool,
    log: RecentLog<RunLine>,
    /// When the latest outcome was counted (the end of a finite load).
    pub last_outcome_at: Nanos,
    /// When each request went out against when it was due.
    pub starts: Starts,
}

impl Books {
    pub fn new(scenario: &Scenario, pools: usize) -> Self {
        Books {
            book: Book::new(scenario.services.len(), pools),
            runs: Vec::new(),
            keep_runs: matches!(
                scenario.load.mode,
                LoadMode::Runs { .. } | LoadMode::Trace { .. }
            ),
            log: RecentLog::new(LOG_LINES),
            last_outcome_at: Nanos::ZERO,
            starts: Starts::default(),
        }
    }

    /// The newest runs, oldest first.
    pub fn log(&self) -> impl Iterator<Item = &RunLine> {
        self.log.newest(LOG_LINES)
    }

    /// A request went out at `now`; it was due at `due`.
    pub fn issued(&mut self, now: Nanos, due: Nanos) {
        self.book.issued(now);
        self.starts.record(now.saturating_sub(due));
    }

    /// The server's outcome for `req` at `now`, which its client sees at `seen`.
    pub fn record(
        &mut self,
        now: Nanos,
        seen: Nanos,
        req: &Req,
        outcome: Outcome,
        thread: String,
        status: String,
    ) {
        let latency = seen.saturating_sub(req.first_sent);
        self.book.record(now, latency, outcome);
        self.last_outcome_at = seen;
        let line = RunLine {
            run: req.id,
            strategy: req.strategy,
            at: seen,
            time: latency,
            thread,
            outcome,
            status,
        };
        if self.keep_runs {
            self.runs.push(line.clone());
        }
        self.log.push(line);
    }

    /// Closes one sampling interval: outcome counts, latency and pool gauges.
    pub fn sample(&mut self, gauges: &[(u32, u32, u32)]) {
        let gauges = gauges.iter().map(|&(active, queued, size)| PoolGauges {
            active,
            queued,
            size,
        });
        self.book.sample(gauges);
    }
}
