//! Driving one real run: the runtime, the executors, the load (the same request ids and
//! arrival draws as the engine), the sampler, the end of the run and the snapshot. [`start`]
//! sets a run going; the batch [`execute`] waits for its end, the live
//! [`LiveRun`](super::LiveRun) looks at it while it goes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::draw::{arrival_exp, turnaround_exp};
use crate::flow;
use crate::flow::arrival::arrival_gap;
use crate::metrics::Outcome;
use crate::scenario::{LoadMode, Ramp, Scenario, Strategy};
use crate::time::Nanos;
use crate::topology::{PoolKind, PoolRole, Topology};

use super::clock::{STOP_POLL, ScaledClock};
use super::monitor::{Group, Monitors};
use super::pace::{Measured, Pace};
use super::pool::{RealPool, RunsOn};
use super::sync::{CoreEnd, Ctx, Mailbox, OnTask, OnThread, block_on, lock};
use super::task::{Attempt, Req, Sender};
use super::world::{Setup, World};
use super::{RealError, RealFailure, RealOptions, RealRun};

/// Time to start the prestarted threads before t = 0.
const WARM_UP: Duration = Duration::from_millis(20);

/// Runs to the end (a finite load's last outcome, or `duration` of scenario time) and shuts
/// down.
pub(super) fn execute(
    scenario: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    options: RealOptions,
) -> Result<RealRun, RealError> {
    let scale = options.time_scale;
    let running = start(scenario, strategy, duration, scale)?;
    let finished = wait_for_end(&running.world, options.interrupted);
    let interrupted = !finished && (options.interrupted)();
    let snapshot = running.snapshot(finished);
    let (run_lines, starts) = {
        let books = lock(&running.world.books);
        (books.runs.clone(), books.starts.clone())
    };
    let runtime = running.world.monitors.view();
    let wall_s = running.world.clock.wall_s();
    let spawn_cores = running.world.spawn_cores(snapshot.now);
    running.join()?;
    let clients = match scenario.load.mode {
        LoadMode::Closed { clients, .. } => u64::from(clients),
        _ => 0,
    };
    let pace = Pace::judge(&Measured {
        starts,
        sent: snapshot.sent,
        clients,
        runtime: &runtime,
        time_scale: scale,
        cores_needed: super::pace::cores_needed(scenario, &snapshot) + spawn_cores,
        cores: super::cpu::machine_cores(),
    });
    Ok(RealRun {
        snapshot,
        run_lines,
        runtime,
        time_scale: scale,
        wall_s,
        pace,
        interrupted,
    })
}

/// A real run under way: its runtime, its shared world and its load thread. Dropping it
/// stops the run without waiting: threads see the stop signal within
/// [`STOP_POLL`](super::clock::STOP_POLL) and exit on their own, tokio tasks are dropped.
pub(super) struct Running {
    /// Taken by [`Running::join`]; dropped in the background otherwise.
    rt: Option<tokio::runtime::Runtime>,
    pub world: Arc<World>,
    load: Option<std::thread::JoinHandle<()>>,
    /// The sampling interval, in scenario time.
    pub interval: Nanos,
}

impl Running {
    /// The run's end, once it is over: `Some(true)` when a finite load has every outcome,
    /// `Some(false)` when its time is up or it was stopped.
    pub fn end(&self) -> Option<bool> {
        end_of(&self.world)
    }

    /// The run now (or at its end): a finished load stops its clock at the last outcome, as
    /// the engine does; otherwise the clock reads real time, up to the run's limit.
    pub fn snapshot(&self, finished: bool) -> threadlab_model::snapshot::Snapshot {
        self.world
            .snapshot(self.now(finished), finished, self.interval)
    }

    /// Scenario time now: the last outcome's once a finite load has finished, else real time
    /// up to the run's limit.
    pub fn now(&self, finished: bool) -> Nanos {
        let world = &self.world;
        if finished {
            lock(&world.books).last_outcome_at
        } else {
            world.clock.now().min(world.limit)
        }
    }

    /// Stops every thread and task, waits for the threads, and reports the first internal
    /// error. Not from inside an async context (the runtime waits for its blocking pool).
    pub fn join(mut self) -> Result<(), RealError> {
        self.world.shut_down();
        if let Some(load) = self.load.take() {
            let _unused = load.join();
        }
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_millis(200));
        }
        match self.world.errors().into_iter().next() {
            Some(first) => Err(RealError::Internal(first)),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.world.stop_all();
        // Safe from inside another runtime (the TUI's): nothing waits here.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Starts the runtime, the executors, the prestarted threads, the sampler and the load.
pub(super) fn start(
    scenario: &Scenario,
    strategy: Strategy,
    duration: Nanos,
    scale: f64,
) -> Result<Running, RealError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_time()
        .thread_name("tokio-runtime-worker")
        // The blocking threads run the CPU of connections closed at a full `maxQueueSize`:
        // one per core, as the simulation's cores take them.
        .max_blocking_threads(super::cpu::machine_cores())
        .build()
        .map_err(|e| RealFailure::Runtime(Arc::new(e)))?;
    // Sample every 100 ms of scenario time, as the engine, but at most every 10 ms for real.
    let interval = Nanos::from_millis(100).max(Nanos::from_secs_f64(0.010 / scale));
    let clock = ScaledClock::new(Instant::now() + WARM_UP, scale);
    let monitors = Monitors::new(rt.handle(), clock.real(interval));
    let topology = Topology::new(scenario);
    let server = topology.server();
    let pools = topology
        .pools()
        .iter()
        .map(|plan| {
            // Virtual threads (per-task server or unbounded pools) run as tokio tasks.
            let group = match plan.role {
                _ if plan.spec.kind != PoolKind::PerTask || !plan.spec.virtual_threads => None,
                PoolRole::Server => Some(Group::VirtualHandlers),
                PoolRole::Unbounded => Some(Group::Unbounded),
                PoolRole::Shared | PoolRole::Bulkhead(_) => None,
            };
            let runs_on = group.map_or(RunsOn::Threads, |g| RunsOn::Tasks(monitors.task(g)));
            RealPool::new(plan.spec.clone(), runs_on)
        })
        .collect();
    let world = Arc::new(World::new(
        scenario,
        Setup {
            strategy,
            clock,
            limit: duration,
            topology,
            pools,
            rt: rt.handle().clone(),
            monitors,
        },
    ));
    if matches!(world.pools[server].runs_on, RunsOn::Threads) {
        world.prestart(server);
    }
    rt.spawn(sample(Arc::clone(&world), clock.real(interval)));
    start_faults(&world);
    let load = start_load(&world);
    Ok(Running {
        rt: Some(rt),
        world,
        load,
        interval,
    })
}

/// Waits until a finite load has every outcome, the run's time is up or `interrupted` says
/// so (the headless commands' Ctrl-C). True when finished.
fn wait_for_end(world: &World, interrupted: fn() -> bool) -> bool {
    let deadline = world.clock.at(world.limit);
    loop {
        if let Some(finished) = end_of(world) {
            return finished;
        }
        if interrupted() {
            return false;
        }
        let now = Instant::now();
        std::thread::sleep(
            deadline
                .saturating_duration_since(now)
                .min(Duration::from_millis(1)),
        );
    }
}

/// See [`Running::end`].
fn end_of(world: &World) -> Option<bool> {
    if world.stop.is_stopped() {
        return Some(false);
    }
    if let Some(count) = world.scenario.load.mode.finite_count()
        && lock(&world.books).book.outcomes().total() >= count
    {
        return Some(true);
    }
    (Instant::now() >= world.clock.at(world.limit)).then_some(false)
}

/// Every tick: the series and the tokio monitors, with how late the tick's timer fired.
async fn sample(world: Arc<World>, tick: Duration) {
    let mut ticks = tokio::time::interval_at((world.clock.at(Nanos::ZERO) + tick).into(), tick);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    while !world.stop.is_stopped() {
        let due = ticks.tick().await;
        let late = Instant::now().saturating_duration_since(due.into_std());
        let gauges: Vec<(u32, u32, u32)> = world.pools.iter().map(|p| p.gauges()).collect();
        lock(&world.books).sample(&gauges);
        world.monitors.sample(late);
    }
}

impl World {
    /// A client sends request `next_id` now, on a connection it opens or on its open one
    /// (`sender`); it was due at `due` (scenario time). A new connection's SYN reaches the
    /// listen socket half a round trip later (`World::syn`); a request on an open connection
    /// reaches the poller then, the connection holding its slot. `retry`: the attempt a
    /// client sends again (it keeps its request's id; the first attempt is counted sent).
    fn issue(self: &Arc<Self>, due: Nanos, sender: Sender, retry: Option<Attempt>) -> Arc<Req> {
        let now = self.clock.now();
        let attempt = match retry {
            Some(attempt) => {
                let late = now.saturating_sub(due);
                let drift = attempt.drift.saturating_add(late);
                let mut books = lock(&self.books);
                books.starts.record(late);
                books
                    .starts
                    .record_retry(drift, now.saturating_sub(attempt.first_sent));
                Attempt { drift, ..attempt }
            }
            None => {
                let id = self
                    .next_id
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                lock(&self.retries).first_attempt(now);
                lock(&self.books).issued(now, due);
                Attempt {
                    id,
                    attempt: 0,
                    first_sent: now,
                    drift: Nanos::ZERO,
                }
            }
        };
        let req = Arc::new(Req::new(attempt, now, self.strategy, sender));
        if !lock(&self.guards).client_sends(now) {
            self.not_sent(&req);
            return req;
        }
        let at = now + flow::link::to_server(&self.scenario.load.link, false);
        let sent = Arc::clone(&req);
        if sender.conn_uses <= 1 {
            self.after(at, move |w| w.syn(sent, at, 0));
        } else {
            self.after(at, move |w| w.reach_kept(sent));
        }
        req
    }

    /// When a client that saw `req`'s outcome sends again: after its turnaround (the
    /// engine's keyed draw) and `pause`.
    pub(super) fn next_send(&self, req: &Req, pause: Nanos) -> Nanos {
        let seen = req
            .seen_at
            .get()
            .copied()
            .unwrap_or_else(|| self.clock.now());
        let seed = self.scenario.seed;
        let turnaround =
            flow::link::turnaround(&self.scenario.load.link, || turnaround_exp(seed, req.id));
        seen + turnaround + pause
    }

    /// Waits for the client's outcome, giving up at the client timeout. False when stopped.
    async fn await_response<C: Ctx>(&self, ctx: &C, req: &Req) -> bool {
        let deadline = self
            .scenario
            .load
            .timeout
            .map(|t| self.clock.at(req.arrival + t));
        loop {
            if req.seen.get().is_some() {
                return true;
            }
            if ctx.stopped() {
                return false;
            }
            let now = Instant::now();
            match deadline {
                Some(d) if now >= d => self.client_timeout(req),
                Some(d) => ctx.wait(&req.response, d).await,
                None => ctx.wait(&req.response, now + STOP_POLL).await,
            }
        }
    }

    /// Waits for the request's final outcome: each attempt's, and a retried attempt's next
    /// one, sent when the retry policy said (`World::record`). Returns the last attempt,
    /// whose outcome is the request's; None when the run stopped or ended first.
    async fn follow<C: Ctx>(self: &Arc<Self>, ctx: &C, first: Arc<Req>) -> Option<Arc<Req>> {
        let mut req = first;
        loop {
            if !self.await_response(ctx, &req).await {
                return None;
            }
            let Some(&due) = req.retry_at.get() else {
                return Some(req);
            };
            if due > self.clock.now() && !ctx.sleep_until(self.clock.at(due)).await {
                return None;
            }
            if !self.before_limit() {
                return None;
            }
            let target = self.client_target.load(std::sync::atomic::Ordering::SeqCst);
            if req.client.is_some_and(|c| c >= target) {
                // Its closed client was stopped by a load phase: the last attempt's outcome
                // is the request's, now (the engine's `on_retry`).
                self.stopped_retrying(&req);
                return Some(req);
            }
            let sender = Sender {
                client: req.client,
                conn_uses: 1,
            };
            let next = Attempt {
                id: req.id,
                attempt: req.attempt + 1,
                first_sent: req.first_sent,
                drift: req.drift,
            };
            // Due as the scenario has it: a timeout noticed late moved `due` with it.
            let noticed_late = self.timeout_noticed_late(&req);
            req = self.issue(due.saturating_sub(noticed_late), sender, Some(next));
        }
    }

    /// How much later than its deadline the client noticed that `req` timed out (zero for
    /// any other outcome): the scenario's client gives up at the deadline itself.
    fn timeout_noticed_late(&self, req: &Req) -> Nanos {
        match (
            req.seen.get(),
            req.seen_at.get(),
            self.scenario.load.timeout,
        ) {
            (Some(Outcome::Timeout), Some(&seen), Some(timeout)) => {
                seen.saturating_sub(req.arrival.saturating_add(timeout))
            }
            _ => Nanos::ZERO,
        }
    }

    /// A retry its stopped client never sends: the client gave up with the last outcome.
    fn stopped_retrying(&self, req: &Req) {
        let now = self.clock.now();
        let outcome = req.seen.get().copied().unwrap_or(Outcome::Timeout);
        let thread = req.handler.get().cloned().unwrap_or_else(|| "-".into());
        let mut books = lock(&self.books);
        books.book.resilience.gave_up += 1;
        books.record(now, now, req, outcome, thread, outcome.name().into());
    }

    /// A client that only watches its request (open and batch loads): its timeout and
    /// its retries.
    fn watch_timeout(self: &Arc<Self>, req: Arc<Req>) {
        if self.scenario.load.timeout.is_none() && self.scenario.load.retry.is_none() {
            return;
        }
        let world = Arc::clone(self);
        let task = async move {
            world
                .follow(&OnTask(&world.stop, CoreEnd::default()), req)
                .await;
        };
        drop(
            self.rt
                .spawn(self.monitors.task(Group::Load).instrument(task)),
        );
    }

    /// Closed client `client` starts (at `at`) or stops sending. A client that starts waits
    /// from then, not from its last answer.
    fn client_sends(&self, client: u32, at: Nanos, sends: bool) {
        if let Some((active, tally)) = lock(&self.net).clients.get_mut(client as usize) {
            *active = sends;
            if sends {
                tally.last_answer_at = at;
            }
        }
    }

    fn before_limit(&self) -> bool {
        !self.stop.is_stopped() && self.clock.now() < self.limit
    }

    /// Closed client `client`, about to send: if a load phase has stopped it, it parks (the
    /// mailbox gets the time a later phase brings it back). Decided under the connections'
    /// lock, where a phase changes the count and wakes the parked clients.
    fn park(&self, client: u32) -> Option<Arc<Mailbox<Nanos>>> {
        let mut net = lock(&self.net);
        let target = self.client_target.load(std::sync::atomic::Ordering::SeqCst);
        (client >= target).then(|| {
            let resume = Arc::new(Mailbox::default());
            net.parked.insert(client, Arc::clone(&resume));
            resume
        })
    }

    /// A parked client waits for the phase that brings it back; returns when it sends again
    /// (None when the run ends first). Its open connection (`conn`), idle since its last
    /// response was written (`written`), closes as the engine's does: Tomcat's poller closes
    /// it `keepAliveTimeout` after that write unless the client's next request reaches the
    /// server first.
    async fn parked<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        resume: &Mailbox<Nanos>,
        conn: &mut Option<u32>,
        written: Nanos,
    ) -> Option<Nanos> {
        let close_at = written + self.scenario.server.connector.keep_alive_timeout;
        loop {
            if !self.before_limit() {
                return None;
            }
            let deadline = match conn {
                Some(_) => self.clock.at(close_at),
                None => Instant::now() + STOP_POLL,
            };
            ctx.wait(resume, deadline).await;
            if let Some(back) = resume.pop() {
                let reaches = back + flow::link::to_server(&self.scenario.load.link, false);
                if conn.is_some() && reaches >= close_at {
                    *conn = None;
                    self.after(close_at, World::close_idle);
                }
                return Some(back);
            }
            if conn.is_some() && self.clock.now() >= close_at {
                *conn = None;
                self.close_idle();
            }
        }
    }
}

/// `[[faults]]`: each fault set, and healed, at its time, as the engine's events do.
fn start_faults(world: &Arc<World>) {
    for f in &world.scenario.faults {
        let (service, fault) = (f.service.0, f.fault);
        world.after(f.at, move |w| lock(&w.faults)[service] = Some(fault));
        if let Some(until) = f.until {
            world.after(until, move |w| lock(&w.faults)[service] = None);
        }
    }
}

/// Starts the load; returns the load thread, if it has one.
fn start_load(world: &Arc<World>) -> Option<std::thread::JoinHandle<()>> {
    let w = Arc::clone(world);
    let body: Box<dyn FnOnce() + Send> = match world.scenario.load.mode {
        LoadMode::Runs { count } => Box::new(move || runs_client(&w, count)),
        LoadMode::Batch { count } => Box::new(move || batch_client(&w, count)),
        LoadMode::Open { rate, ramp } => Box::new(move || open_client(&w, rate, ramp)),
        LoadMode::Closed { clients, think } => {
            start_clients(world, clients, think);
            return None;
        }
        LoadMode::Trace { .. } => Box::new(move || trace_client(&w)),
    };
    match std::thread::Builder::new()
        .name("threadlab-client".into())
        .spawn(body)
    {
        Ok(h) => Some(h),
        Err(e) => {
            world.fail(RealFailure::LoadThread(Arc::new(e)));
            None
        }
    }
}

/// One request after another: the next goes out when the previous one has its outcome.
fn runs_client(w: &Arc<World>, count: u32) {
    if !w.stop.sleep_until(w.clock.at(Nanos::ZERO)) {
        return;
    }
    let mut due = Nanos::ZERO;
    for _ in 0..count {
        if !w.before_limit() || !w.stop.sleep_until(w.clock.at(due)) {
            return;
        }
        // The next run is due once the previous one's client has its outcome and turned
        // around; each run opens its own connection.
        let req = w.issue(due, ONE_SHOT, None);
        let Some(req) = block_on(w.follow(&OnThread(&w.stop, CoreEnd::default()), req)) else {
            return;
        };
        due = w.next_send(&req, Nanos::ZERO);
    }
}

/// Every request at t = 0.
fn batch_client(w: &Arc<World>, count: u32) {
    if !w.stop.sleep_until(w.clock.at(Nanos::ZERO)) {
        return;
    }
    for _ in 0..count {
        let req = w.issue(Nanos::ZERO, ONE_SHOT, None);
        w.watch_timeout(req);
    }
}

/// A trace replayed: each row's request goes out at its time, on a connection of its own
/// (the `id`-th request replays the `id`-th row, as in the engine).
fn trace_client(w: &Arc<World>) {
    let LoadMode::Trace { rows } = &w.scenario.load.mode else {
        return;
    };
    for row in rows {
        if row.at > w.limit || !w.stop.sleep_until(w.clock.at(row.at)) {
            return;
        }
        let req = w.issue(row.at, ONE_SHOT, None);
        w.watch_timeout(req);
    }
}

/// Poisson arrivals with the engine's keyed draws: the same arrival times. A load phase
/// changes the rate as the engine's does: the next arrival is drawn again from the phase's
/// time with the new rate (a phase at the rate in force changes nothing).
fn open_client(w: &Arc<World>, rate: f64, ramp: Option<Ramp>) {
    let mut phases = w.scenario.load.rate_phases();
    let mut phase = phases.next();
    let (mut rate, mut ramp, mut since) = (rate, ramp, Nanos::ZERO);
    let mut t = Nanos::ZERO;
    loop {
        let next = w.next_id.load(std::sync::atomic::Ordering::SeqCst);
        let e = arrival_exp(w.scenario.seed, next);
        // A phase of rate 0: nothing arrives until the next phase (as the engine's
        // `next_open_arrival`).
        let arrival = (rate > 0.0 || ramp.is_some()).then(|| {
            let gap = arrival_gap(rate, ramp, t.saturating_sub(since).as_secs_f64(), e);
            t + Nanos::from_secs_f64(gap).max(Nanos(1))
        });
        if let Some((at, new)) = phase
            && arrival.is_none_or(|arrival| at <= arrival)
        {
            phase = phases.next();
            if new != rate {
                (rate, ramp, since, t) = (new, None, at, at);
            }
            continue;
        }
        let Some(arrival) = arrival else {
            return;
        };
        t = arrival;
        if t > w.limit || !w.stop.sleep_until(w.clock.at(t)) {
            return;
        }
        let req = w.issue(t, ONE_SHOT, None);
        w.watch_timeout(req);
    }
}

/// A request on a connection of its own, from no closed client.
const ONE_SHOT: Sender = Sender {
    client: None,
    conn_uses: 1,
};

/// Closed-loop clients as tokio tasks: send, wait for the outcome, think, send again. A load
/// phase changes how many clients send, as the engine's does: one above the new count stops
/// before its next request and waits; a phase that raises the count starts, one after
/// another from its time, the clients below it that are not sending (new ones, and stopped
/// ones, which keep their open connection if it has not idled out).
fn start_clients(world: &Arc<World>, clients: u32, think: Nanos) {
    world
        .client_target
        .store(clients, std::sync::atomic::Ordering::SeqCst);
    // The load generator opens its connections one after another (`flow::link::staggered`).
    let link = world.scenario.load.link;
    lock(&world.net).spawned = clients;
    for client in 0..clients {
        spawn_client(
            world,
            client,
            flow::link::staggered(&link, Nanos::ZERO, client),
            think,
        );
    }
    for (at, n) in world.scenario.load.client_phases() {
        world.after(at, move |w| {
            let mut new = Vec::new();
            {
                // Under the lock a client decides to stop (`park`), so none is missed.
                let mut net = lock(&w.net);
                w.client_target
                    .store(n, std::sync::atomic::Ordering::SeqCst);
                let mut started = 0;
                for client in 0..n {
                    let start = flow::link::staggered(&link, at, started);
                    if client >= net.spawned {
                        new.push((client, start));
                    } else if let Some(resume) = net.parked.remove(&client) {
                        resume.push(start);
                    } else {
                        continue;
                    }
                    started += 1;
                }
                net.spawned = net.spawned.max(n);
            }
            for (client, start) in new {
                spawn_client(w, client, start, think);
            }
        });
    }
}

/// Closed client `client`, sending its first request at `start`.
fn spawn_client(world: &Arc<World>, client: u32, start: Nanos, think: Nanos) {
    {
        let w = Arc::clone(world);
        let client = async move {
            tokio::time::sleep_until(w.clock.at(start).into()).await;
            let ctx = OnTask(&w.stop, CoreEnd::default());
            let (mut due, mut first) = (start, true);
            // Requests served on the client's open connection; `None`: it opens one.
            let mut conn: Option<u32> = None;
            let link = w.scenario.load.link;
            w.client_sends(client, start, true);
            // When its last response was written, while its connection stays open.
            let mut written = Nanos::ZERO;
            while w.before_limit() {
                if let Some(resume) = w.park(client) {
                    // Stopped by a load phase: it waits for one that brings it back.
                    w.client_sends(client, start, false);
                    w.release_reserved(client);
                    let Some(back) = w.parked(&ctx, &resume, &mut conn, written).await else {
                        return;
                    };
                    w.client_sends(client, back, true);
                    due = back;
                    if due > w.clock.now() && !ctx.sleep_until(w.clock.at(due)).await {
                        return;
                    }
                    continue;
                }
                let uses = conn.map_or(1, |u| u + 1);
                let sender = Sender {
                    client: Some(client),
                    conn_uses: uses,
                };
                let req = w.issue(due, sender, None);
                if std::mem::take(&mut first) {
                    lock(&w.books).starts.clients_started += 1;
                }
                let Some(req) = w.follow(&ctx, req).await else {
                    return;
                };
                // A retried request ends on a connection of its own.
                let uses = req.conn_uses;
                let seen = req.seen_at.get().copied().unwrap_or_else(|| w.clock.now());
                // A wall clock never reads zero: an answer within the retry pause counts as
                // answered at once.
                let latency = seen.saturating_sub(req.first_sent);
                let outcome = req.seen.get().copied().unwrap_or(Outcome::Success);
                let pause = flow::client_pause(outcome, latency, think);
                due = w.next_send(&req, pause);
                // Idle from the response's write to the next request reaching the server.
                let idle = due.saturating_sub(seen) + link.rtt;
                let connector = &w.scenario.server.connector;
                // A connection whose handler thread reads it again (the fast path) is not idle
                // in the poller: no keep-alive timeout closes it.
                let kept = w.is_reserved(client)
                    || flow::link::keeps_connection(&link, connector, uses, outcome, idle);
                if !kept && flow::link::stays_open(&link, connector, uses, outcome) {
                    // Open after the response, but idle too long: Tomcat's poller closes it
                    // `keepAliveTimeout` after the response was written.
                    let written = seen.saturating_sub(flow::link::to_client(&link, outcome));
                    w.after(written + connector.keep_alive_timeout, World::close_idle);
                }
                written = seen.saturating_sub(flow::link::to_client(&link, outcome));
                conn = kept.then_some(uses);
                if due > w.clock.now() && !ctx.sleep_until(w.clock.at(due)).await {
                    return;
                }
            }
        };
        drop(
            world
                .rt
                .spawn(world.monitors.task(Group::Load).instrument(client)),
        );
    }
}
