//! The engine's snapshot: the figures only the simulation models (the connection layer, the
//! log, the cores, the connection pools) added to what both engines have.

use crate::metrics::Outcome;
use threadlab_model::snapshot::{
    CpuSnapshot, LogLine, PoolSnapshot, ResourceSnapshot, RunLine, RunView, SNAPSHOT_LOG_LINES,
    Snapshot, status_text,
};

use super::engine::{Engine, SAMPLE_INTERVAL};
use super::{Detail, LogEntry, RunRow};

impl Engine {
    pub fn snapshot(&self) -> Snapshot {
        let run = RunView {
            now: self.now,
            strategy: self.strategy,
            finished: self.is_finished(),
            load: &self.scenario.load.mode,
            scenario: &self.scenario,
            topology: &self.topology,
            faults: &self.faults,
            guards: Some(&self.guards.calls),
            sample_interval: SAMPLE_INTERVAL,
        };
        let base = Snapshot::of_book(run, &self.book, |id, in_use, sampler| {
            PoolSnapshot::of(id, &self.pools[id], in_use, sampler)
        });
        Snapshot {
            connections: self.open_connections(),
            backlog: self.net.listener.queued(),
            net: Some(self.net_snapshot()),
            log: self.log_lines(),
            cpu: Some(self.cpu_snapshot()),
            resources: self.resource_snapshots(),
            gc: self.gc_snapshot(),
            ..base
        }
    }

    /// The newest log entries, names resolved.
    fn log_lines(&self) -> Vec<LogLine> {
        self.log
            .newest(SNAPSHOT_LOG_LINES)
            .map(|e| match e {
                LogEntry::Run(row) => LogLine::Run(self.run_line(row)),
                LogEntry::Change { at, text } => LogLine::Change {
                    at: *at,
                    text: text.clone(),
                },
            })
            .collect()
    }

    fn cpu_snapshot(&self) -> CpuSnapshot {
        CpuSnapshot {
            cores: self.cpu.cores,
            busy: self.cpu.busy,
            queued: u32::try_from(self.cpu.queue.len()).unwrap_or(u32::MAX),
            max_queued: self.cpu.max_queue,
            utilisation: self.cpu_utilisation(),
            preemptions: self.cpu.preemptions,
        }
    }

    fn resource_snapshots(&self) -> Vec<ResourceSnapshot> {
        let pools = self.scenario.resources.iter().zip(&self.resource_states);
        pools.map(|(r, pool)| pool.snapshot(r)).collect()
    }

    /// Every run's row, for `runs` load.
    pub fn run_lines(&self) -> Vec<RunLine> {
        self.load.runs.iter().map(|r| self.run_line(r)).collect()
    }

    fn run_line(&self, row: &RunRow) -> RunLine {
        RunLine {
            run: row.run,
            strategy: row.strategy,
            at: row.at,
            time: row.time,
            thread: self.thread_name(row.thread),
            outcome: row.outcome,
            status: self.status(row.outcome, row.detail),
        }
    }

    fn status(&self, outcome: Outcome, detail: Detail) -> String {
        status_text(&self.scenario, outcome, detail)
    }
}
