//! A real run as a [`Snapshot`], the live view's and the report's one picture of a run.

use crate::scenario::LoadMode;
use crate::time::Nanos;
use threadlab_model::snapshot::{ClientsSnapshot, LogLine, NetSnapshot, RunView, Snapshot};

use super::sync::lock;
use super::world::World;

impl World {
    /// The run as a [`Snapshot`] at scenario time `now`. The machine's own scheduler runs
    /// the real CPU work, so it has no simulated cores.
    pub(super) fn snapshot(&self, now: Nanos, finished: bool, interval: Nanos) -> Snapshot {
        let (connections, backlog, net) = {
            let n = lock(&self.net);
            let clients = matches!(self.scenario.load.mode, LoadMode::Closed { .. }).then(|| {
                ClientsSnapshot::of(n.clients.iter().map(|(active, c)| (*active, c)), now)
            });
            let net = NetSnapshot {
                stats: n.stats,
                connect: n.connect.summary(),
                clients,
            };
            (n.listener.open(), n.listener.queued(), net)
        };
        let b = lock(&self.books);
        let guards = lock(&self.guards);
        let faults = lock(&self.faults).clone();
        let run = RunView {
            now,
            strategy: self.strategy,
            finished,
            load: &self.scenario.load.mode,
            scenario: &self.scenario,
            topology: &self.topology,
            faults: &faults,
            guards: Some(&guards),
            sample_interval: interval,
        };
        let base = Snapshot::of_book(run, &b.book, |id, in_use, sampler| {
            self.pools[id].snapshot(id, in_use, sampler)
        });
        Snapshot {
            connections,
            backlog,
            net: Some(net),
            log: b.log().cloned().map(LogLine::Run).collect(),
            resources: self.connections.snapshots(&self.scenario),
            ..base
        }
    }
}
