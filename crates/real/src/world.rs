//! Everything a real run shares between its threads and tasks: the scenario, the clock, the
//! executors, the connections, the books, and the types that travel between them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::flow::accept::Listener;
use crate::flow::{AfterAttempt, CallGuards, CallRetries, ClientRetries, Fault};
use crate::metrics::LatencyHistogram;
use crate::metrics::Outcome;
use crate::scenario::LoadMode;
use crate::scenario::{Scenario, ServiceId, Strategy};
use crate::time::Nanos;
use crate::topology::{PoolId, Pools, Topology};
use threadlab_model::snapshot::{ClientTally, NetStats};

use super::RealFailure;
use super::books::Books;
use super::clock::{ScaledClock, Stop};
use super::holdings::{Connections, Cores};
use super::monitor::Monitors;
use super::pool::RealPool;
use super::sync::{Mailbox, lock};
use super::task::{Deferred, Handoff, Req, Waiters};

/// The shared state of one real run.
pub(super) struct World {
    pub(super) scenario: Scenario,
    pub(super) strategy: Strategy,
    pub(super) clock: ScaledClock,
    /// The run's length in scenario time: outcomes after it are not counted (the engine
    /// stops its clock there).
    pub(super) limit: Nanos,
    pub(super) stop: Stop,
    pub(super) books: Mutex<Books>,
    /// The pools and how calls reach them, as in the engine.
    pub(super) topology: Topology,
    /// Indexed like the topology's pools.
    pub(super) pools: Pools<RealPool>,
    /// The connections between the clients and Tomcat.
    pub(super) net: Mutex<RealNet>,
    /// The scenario's cores (CPU work, pinned carriers, thread creation).
    pub(super) cores: Cores,
    /// The connection pools (`[[resources]]`).
    pub(super) connections: Connections,
    /// The clients' retry policy and budget (`[load.retry]`), the engine's rule.
    pub(super) retries: Mutex<ClientRetries>,
    /// Each service's `[services.retry]`, the engine's rule, and how the attempts of calls
    /// are numbered.
    pub(super) call_retries: Mutex<CallRetries>,
    pub(super) slots: crate::flow::CallSlots,
    /// Each service's guards (`flow::guard`), the engine's rule.
    pub(super) guards: Mutex<CallGuards>,
    /// The strategies whose calls have a guard to ask (for the others nothing is asked).
    pub(super) guarded: Vec<Strategy>,
    /// The callers queued at a guard.
    pub(super) waiters: Waiters,
    /// When the pending poll of the guards' timed transitions is due, if one is.
    pub(super) guard_poll: Mutex<Option<Nanos>>,
    /// Each service's fault now (`[[faults]]` set and heal them on time), as in the engine.
    pub(super) faults: Mutex<Vec<Option<Fault>>>,
    pub(super) next_id: AtomicU64,
    /// Closed clients sending now: a load phase changes it.
    pub(super) client_target: AtomicU32,
    pub(super) rt: tokio::runtime::Handle,
    pub(super) monitors: Monitors,
    threads: Mutex<Vec<JoinHandle<()>>>,
    errors: Mutex<Vec<RealFailure>>,
}

/// The connection layer of a real run: admission by [`crate::flow::accept`]'s rules (the
/// same as the engine's), its counters, and how each closed client has been answered.
pub(super) struct RealNet {
    pub listener: Listener<Arc<Req>>,
    pub stats: NetStats,
    /// Time from a connection's first SYN to its completed handshake.
    pub connect: LatencyHistogram,
    /// Closed-load clients, by index: whether each sends (a load phase can stop it), and
    /// how it has been answered.
    pub clients: Vec<(bool, ClientTally)>,
    /// Closed clients whose connection's handler thread, having won the keep-alive fast
    /// path's race, waits to read their next request.
    pub reserved: HashMap<u32, Arc<Mailbox<Handoff>>>,
    /// Closed clients a load phase stopped, each waiting for a later phase to bring it back:
    /// its mailbox gets the time it sends again.
    pub parked: HashMap<u32, Arc<Mailbox<Nanos>>>,
    /// How many closed clients have a task (sending, waiting to start, or parked).
    pub spawned: u32,
}

/// What a new world needs besides the scenario.
pub(super) struct Setup {
    pub strategy: Strategy,
    pub clock: ScaledClock,
    pub limit: Nanos,
    pub topology: Topology,
    pub pools: Pools<RealPool>,
    pub rt: tokio::runtime::Handle,
    pub monitors: Monitors,
}

impl World {
    pub fn new(scenario: &Scenario, setup: Setup) -> Self {
        let n_pools = setup.pools.len();
        let guards = CallGuards::new(scenario);
        World {
            books: Mutex::new(Books::new(scenario, n_pools)),
            scenario: scenario.clone(),
            strategy: setup.strategy,
            clock: setup.clock,
            limit: setup.limit,
            stop: Stop::default(),
            topology: setup.topology,
            pools: setup.pools,
            net: Mutex::new(RealNet {
                listener: Listener::new(&scenario.server, scenario.load.link.rtt),
                stats: NetStats::default(),
                connect: LatencyHistogram::default(),
                clients: match scenario.load.mode {
                    LoadMode::Closed { clients, .. } => {
                        let phases = scenario.load.client_phases().map(|(_, n)| n);
                        let most = phases.fold(clients, u32::max);
                        vec![(false, ClientTally::default()); most as usize]
                    }
                    _ => Vec::new(),
                },
                reserved: HashMap::new(),
                parked: HashMap::new(),
                spawned: 0,
            }),
            cores: Cores::new(scenario),
            connections: Connections::new(scenario),
            retries: Mutex::new(ClientRetries::new(scenario.load.retry)),
            call_retries: Mutex::new(CallRetries::new(scenario)),
            slots: crate::flow::CallSlots::new(scenario.endpoint.call_count()),
            guarded: Strategy::ALL
                .into_iter()
                .filter(|s| guards.any_for(*s))
                .collect(),
            guards: Mutex::new(guards),
            waiters: Waiters::default(),
            guard_poll: Mutex::new(None),
            faults: Mutex::new(vec![None; scenario.services.len()]),
            next_id: AtomicU64::new(1),
            client_target: AtomicU32::new(0),
            rt: setup.rt,
            monitors: setup.monitors,
            threads: Mutex::new(Vec::new()),
            errors: Mutex::new(Vec::new()),
        }
    }

    /// The pool a call of `service` goes to under the run's strategy (none for sequential).
    pub fn pool_for(&self, service: ServiceId) -> Option<PoolId> {
        self.topology.pool_for(self.strategy, service)
    }

    pub fn service_of(&self, call: u16) -> ServiceId {
        self.topology.service_of(call)
    }

    pub fn keep_handle(&self, handle: JoinHandle<()>) {
        let mut threads = lock(&self.threads);
        if threads.len() >= 1024 {
            threads.retain(|h| !h.is_finished());
        }
        threads.push(handle);
    }

    /// Records an internal failure and stops the run.
    pub fn fail(&self, failure: RealFailure) {
        lock(&self.errors).push(failure);
        self.stop.stop();
    }

    pub fn errors(&self) -> Vec<RealFailure> {
        lock(&self.errors).clone()
    }

    /// Tells every thread and task to stop, without waiting.
    pub fn stop_all(&self) {
        self.stop.stop();
        for p in &self.pools {
            p.wake_all();
        }
    }

    /// Stops every thread and task and waits for the threads to end.
    pub fn shut_down(&self) {
        self.stop_all();
        let threads = std::mem::take(&mut *lock(&self.threads));
        for t in threads {
            let _unused = t.join();
        }
    }

    /// Applies what a worker deferred until it was back in its pool.
    pub fn apply(self: &Arc<Self>, deferred: Deferred) {
        match deferred {
            Deferred::None => {}
            Deferred::Complete {
                req,
                join,
                index,
                attempt,
                result,
                thread,
            } => {
                if !req.server_done() {
                    join.complete(index, attempt, result, thread);
                }
            }
            Deferred::Respond(r) => {
                let claimed = r.req.claim_client();
                // The connection stays open for the client's next request unless Tomcat
                // closes it after this response (the engine's rule, `flow::link::stays_open`).
                let (link, connector) = (&self.scenario.load.link, &self.scenario.server.connector);
                let kept = claimed
                    && r.req.client.is_some()
                    && crate::flow::link::stays_open(link, connector, r.req.conn_uses, r.outcome);
                if !kept {
                    self.close_after(self.post_response(&r.req));
                }
                let now = self.clock.now();
                if now <= self.limit {
                    lock(&self.books).book.server_responded(now, !claimed);
                }
                if claimed {
                    self.record(&r.req, r.outcome, r.thread, r.status);
                } else if now <= self.limit {
                    // Its client has gone: the handler's time on it was for nobody.
                    let start = r.req.handler_at.get().copied().unwrap_or(now);
                    let mut books = lock(&self.books);
                    books.book.resilience.wasted_work += now.saturating_sub(start);
                }
            }
        }
    }

    /// The client sees `outcome` once it has travelled to it (`flow::link::to_client`): count
    /// it (unless the run is over) and wake the client, which goes on from `seen_at`.
    /// An attempt the retry policy sends again is not the request's outcome: its client
    /// sends the next attempt at `req.retry_at`.
    pub fn record(&self, req: &Req, outcome: Outcome, thread: String, status: String) {
        let now = self.clock.now();
        let at = now + crate::flow::link::to_client(&self.scenario.load.link, outcome);
        let took = at.saturating_sub(req.arrival);
        lock(&self.guards).client_saw(now, !outcome.is_answered(), took);
        let retried = self.retried(req, outcome, now);
        self.seen(req, (outcome, thread, status), now, at, retried);
    }

    /// The clients' own breaker is open: `req` fails at once, unsent, and is not retried.
    pub fn not_sent(&self, req: &Req) {
        req.set_server_done();
        if req.claim_client() {
            let now = self.clock.now();
            let status = format!(
                "{} (not sent: the client's breaker is open)",
                Outcome::Failed.name()
            );
            self.seen(req, (Outcome::Failed, "-".into(), status), now, now, false);
        }
    }

    /// The client saw `outcome` at `at` (noticed now): counted unless `retried` or the run
    /// is over, and the client woken.
    fn seen(
        &self,
        req: &Req,
        (outcome, thread, status): (Outcome, String, String),
        now: Nanos,
        at: Nanos,
        retried: bool,
    ) {
        let _unused = req.seen_at.set(at);
        if !retried && now <= self.limit {
            lock(&self.books).record(now, at, req, outcome, thread, status);
            if let Some(c) = req.client
                && let Some((_, tally)) = lock(&self.net).clients.get_mut(c as usize)
            {
                tally.count(outcome, at);
            }
        }
        let _unused = req.seen.set(outcome);
        req.response.push(());
    }

    /// Asks the retry policy what follows `req`'s attempt ending in `outcome` (seen now):
    /// true when it is sent again. As in the engine's `retry_after`: the pause is the
    /// policy's, jittered by the request's keyed draw, after the client's turnaround.
    fn retried(&self, req: &Req, outcome: Outcome, now: Nanos) -> bool {
        let (decision, pause) = {
            let mut retries = lock(&self.retries);
            let decision = retries.after(req.attempt, outcome, now);
            let next = req.attempt + 1;
            let u = crate::draw::retry_u(self.scenario.seed, req.id, next);
            (decision, retries.pause(next, u))
        };
        let counted = now <= self.limit;
        match decision {
            AfterAttempt::Final => false,
            AfterAttempt::GivesUp => {
                if counted {
                    lock(&self.books).book.resilience.gave_up += 1;
                }
                false
            }
            AfterAttempt::Again => {
                if counted {
                    lock(&self.books).book.retried(now);
                }
                let _unused = req.retry_at.set(self.next_send(req, pause));
                true
            }
        }
    }

    /// The client gives up on `req`.
    pub fn client_timeout(&self, req: &Req) {
        if req.claim_client() {
            let thread = req.handler.get().cloned().unwrap_or_else(|| "-".into());
            self.record(
                req,
                Outcome::Timeout,
                thread,
                Outcome::Timeout.name().into(),
            );
        }
    }
}
