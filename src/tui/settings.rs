//! What differs from the preset, as badges the screen always shows (`orders slow x5`,
//! `IronThread core 12`, `server virtual`), and the keys that switch the threads the server
//! and the unbounded strategy use (`v`, `u`), so every lesson of the presets is a key away.

use super::App;
use crate::scenario::{
    Load, LoadMode, PhaseChange, Scenario, ServerThreads, Strategy, UnboundedThreads,
};
use crate::sim::{Engine, Snapshot};
use crate::time::Nanos;
use crate::topology::PoolKind;

/// Tomcat's `maxThreads` default, for a server switched back from virtual threads when the
/// preset itself used virtual threads.
const TOMCAT_MAX_THREADS: u32 = 200;

/// A pool's settings as the preset starts them: (name, core, max, queue capacity).
pub(super) type PoolSettings = (String, u32, u32, Option<u32>);

/// Every pool's settings as a fresh run of `scenario` under `strategy` starts them.
pub(super) fn baseline_of(scenario: &Scenario, strategy: Strategy) -> Vec<PoolSettings> {
    Engine::new(scenario, strategy)
        .snapshot()
        .pools
        .into_iter()
        .map(|p| (p.name, p.core, p.max, p.queue_capacity))
        .collect()
}

impl App {
    /// The badges: active faults, then every setting that differs from the preset.
    pub fn badges(&self, snapshot: &Snapshot) -> Vec<String> {
        let mut badges: Vec<String> = snapshot
            .services
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some(format!("{} {}", s.name, self.fault_text(snapshot, i)?)))
            .collect();
        for p in &snapshot.pools {
            let Some((_, core, max, queue)) = self.baseline.iter().find(|b| b.0 == p.name) else {
                continue;
            };
            // In the words the log uses for the change (`tomcat threads 200 -> 160`).
            match p.kind {
                PoolKind::Tomcat if p.max != *max || p.core != *core => {
                    badges.push(format!("{} threads {}", p.name, p.max));
                }
                PoolKind::ForkJoin if p.core != *core => {
                    badges.push(format!("{} parallelism {}", p.name, p.core));
                }
                PoolKind::Tomcat | PoolKind::ForkJoin => {}
                _ => {
                    if p.core != *core {
                        badges.push(format!("{} core {}", p.name, p.core));
                    }
                    if p.max != *max && p.max != u32::MAX {
                        badges.push(format!("{} max {}", p.name, p.max));
                    }
                }
            }
            if p.queue_capacity != *queue {
                let q = p.queue_capacity.map_or("∞".to_string(), |q| q.to_string());
                badges.push(format!("{} queue {q}", p.name));
            }
        }
        if self.scenario.server.threads != self.preset.server.threads {
            badges.push(server_text(self.scenario.server.threads));
        }
        let unbounded = self.scenario.strategy.unbounded_threads;
        if unbounded != self.preset.strategy.unbounded_threads {
            badges.push(unbounded_text(unbounded).to_string());
        }
        // The doubled load counts down like a timed fault; otherwise any change of the load.
        if let Some(boost) = self.load_boost() {
            let secs = boost.end.saturating_sub(snapshot.now).as_secs_f64().ceil();
            badges.push(format!("load x2 ({secs:.0}s left)"));
        } else if snapshot.load != scheduled_load(&self.preset.load, snapshot.now) {
            badges.push("load changed".to_string());
        }
        badges
    }

    /// Service `i`'s fault as the badges and the fault menu say it (`failing 40%`), with
    /// the simulated time a timed one has left in whole seconds rounded up
    /// (`failing 40% (12s left)`); `None` when it has no fault.
    pub fn fault_text(&self, snapshot: &Snapshot, i: usize) -> Option<String> {
        let fault = snapshot.services.get(i)?.fault?;
        let left = self
            .timed_faults()
            .iter()
            .find(|t| t.service.0 == i && t.fault == fault)
            .map(|t| {
                let secs = t.end.saturating_sub(snapshot.now).as_secs_f64().ceil();
                format!(" ({secs:.0}s left)")
            })
            .unwrap_or_default();
        Some(format!("{fault}{left}"))
    }

    /// `v`: the server between platform threads (`maxThreads`) and a virtual thread per
    /// request; the run restarts, since Tomcat's executor is chosen at start-up.
    pub fn toggle_server_threads(&mut self) {
        let platform = match self.preset.server.threads {
            ServerThreads::Platform(n) => n,
            ServerThreads::Virtual => TOMCAT_MAX_THREADS,
        };
        self.scenario.server.threads = match self.scenario.server.threads {
            ServerThreads::Platform(_) => ServerThreads::Virtual,
            ServerThreads::Virtual => ServerThreads::Platform(platform),
        };
        self.restart_switched(&server_text(self.scenario.server.threads));
    }

    /// `u`: what `unbounded` starts per call, a virtual thread or a new platform thread.
    pub fn toggle_unbounded_threads(&mut self) {
        let threads = &mut self.scenario.strategy.unbounded_threads;
        *threads = match threads {
            UnboundedThreads::Virtual => UnboundedThreads::Platform,
            UnboundedThreads::Platform => UnboundedThreads::Virtual,
        };
        let switched = unbounded_text(*threads);
        self.restart_switched(switched);
    }

    /// Restarts the run after `v` or `u` switched a kind of thread (`switched` says to what),
    /// naming the live changes the restart drops.
    fn restart_switched(&mut self, switched: &str) {
        let restarted = self.rebuild_dropping();
        self.baseline_from_preset();
        if let Ok(dropped) = restarted {
            self.info(format!("{switched}: run restarted{dropped}"));
        }
    }

    /// The pool settings a fresh run of the preset (with the current server and unbounded
    /// threads) starts with: the badges report changes against these.
    pub(super) fn baseline_from_preset(&mut self) {
        self.baseline = baseline_of(&self.scenario, self.source.strategy());
    }
}

/// The preset's load at `now`: its mode as its own `[[load.phases]]` have set it by then (a
/// phase is the preset's plan, not a change the person made).
fn scheduled_load(load: &Load, now: Nanos) -> LoadMode {
    let mut mode = load.mode.clone();
    for phase in load.phases.iter().take_while(|p| p.at <= now) {
        match (&mut mode, phase.change) {
            (LoadMode::Open { rate, ramp }, PhaseChange::Rate(r)) => {
                *rate = r;
                *ramp = None;
            }
            (LoadMode::Closed { clients, .. }, PhaseChange::Clients(n)) => *clients = n,
            _ => {}
        }
    }
    mode
}

fn server_text(threads: ServerThreads) -> String {
    match threads {
        ServerThreads::Platform(n) => format!("server platform {n}"),
        ServerThreads::Virtual => "server virtual".to_string(),
    }
}

fn unbounded_text(threads: UnboundedThreads) -> &'static str {
    match threads {
        UnboundedThreads::Virtual => "unbounded virtual",
        UnboundedThreads::Platform => "unbounded platform",
    }
}
