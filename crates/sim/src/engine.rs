//! The engine: owns the clock, the event queue, the pools and every request in flight.
//!
//! The request lifecycle lives in `lifecycle.rs`, live reconfiguration in `command.rs` and the
//! read-only view in `snapshot.rs`; this file holds the state and the clock API.

use crate::metrics::{Book, PoolGauges};
use crate::scenario::{
    LoadMode, MAX_CALLS_IN_FLIGHT, MAX_PEAK_BYTES, Scenario, ServiceId, Strategy,
    max_requests_in_flight,
};
use crate::time::Nanos;
pub use crate::topology::PoolId;
use crate::topology::{Pools, Topology};

use super::Fault;
use super::event::{Event, EventQueue};
use super::handles::{Task, ThreadName, ThreadRef};
use super::parts::cpu::Cpu;
use super::parts::guards::Guards;
use super::parts::load::LoadGenerator;
use super::parts::net::{ClosedClient, Net};
use super::parts::retries::Retries;
use super::pool::{KeepAlive, Pool, Submitter};
use super::request::{ReqRef, Requests};
use crate::flow::resource::ConnectionPool;
use crate::metrics::RecentLog;

/// The series are sampled every 100 ms of simulated time.
pub(super) const SAMPLE_INTERVAL: Nanos = Nanos::from_millis(100);
/// How many log entries the engine keeps.
pub const LOG_CAPACITY: usize = 500;

/// Events at one simulated instant after which a run counts as stalled. A legitimate burst
/// (a batch fanning out at t = 0) stays far below it: the up-front cost estimate caps the calls
/// in flight at [`crate::scenario::MAX_CALLS_IN_FLIGHT`].
pub const STALL_EVENTS: u64 = 50_000_000;

/// The event kept aside while another is handled (see [`Engine::schedule`]), if any: its key
/// says whether there is one, so the event itself is always a whole value. (As an `Option`
/// of the triple, the event's tag would carry the `None`, and each move in or out would copy
/// the tag and the rest apart, which the next read of the whole stalls on.)
#[derive(Debug, Clone, Copy)]
pub(super) struct KeptAside {
    key: Option<(Nanos, u64)>,
    event: Event,
}

impl Default for KeptAside {
    fn default() -> Self {
        KeptAside {
            key: None,
            event: Event::Accept,
        }
    }
}

impl KeptAside {
    fn put(&mut self, at: Nanos, seq: u64, event: Event) {
        self.key = Some((at, seq));
        self.event = event;
    }

    #[inline]
    fn take(&mut self) -> Option<(Nanos, u64, Event)> {
        self.key.take().map(|(at, seq)| (at, seq, self.event))
    }
}

/// Events handled at once, without the queue (see [`Engine::schedule`]).
#[derive(Debug)]
struct Folding {
    /// Whether events may skip the queue: always, unless a test turns it off.
    on: bool,
    /// True while [`Engine::step`] handles an event (only then can an event be folded).
    handling: bool,
    /// How far the clock may move while one step folds events: the caller's limit (see
    /// [`Engine::step_within`]); a bare [`Engine::step`] stays at its event's instant.
    horizon: Nanos,
    /// The earliest event scheduled while an event is handled, due by the horizon: it is
    /// handled right after that one, without the queue, when nothing pending comes before it.
    /// Its sequence number is reserved, so it keeps its place.
    next: KeptAside,
    /// Events handled this way (not counted in [`Engine::events_processed`]).
    count: u64,
}

impl Folding {
    /// An event due at `at`, scheduled now, may be kept aside.
    #[inline]
    fn may_keep(&self, at: Nanos) -> bool {
        self.on && self.handling && at <= self.horizon
    }
}

/// The run's two stops: a clock that no longer moves (a livelock), and more requests in
/// flight than a run may hold.
#[derive(Debug)]
struct Watchdog {
    /// Events handled since simulated time last moved; see [`STALL_EVENTS`].
    at_now: u64,
    /// The limit of `at_now`: [`STALL_EVENTS`] unless lowered to test it.
    stall_events: u64,
    /// The most requests in flight before the run stops: [`max_requests_in_flight`] unless
    /// lowered to test it.
    in_flight_cap: u64,
    /// The runs played side by side that share those limits, this one included (1 alone).
    sharing: u64,
    /// This run's share of the caps, requests and calls, worked out when a limit changes:
    /// a run looks at them before every event (worked out there, with a division, they cost
    /// `erlang-c`'s sequential run 4 % of its instructions, 5 % with the connector's costs).
    caps: (u64, u64),
    /// The calls a request makes, at least one: the calls' cap is the requests' times this.
    calls_per_request: u64,
}

impl Watchdog {
    /// Works out this run's share of the caps again after a limit changed.
    fn share(&mut self) {
        let requests = self.in_flight_cap / self.sharing;
        self.caps = (requests, requests.saturating_mul(self.calls_per_request));
    }

    /// An event is handled; `moves` when the clock moved forward to it.
    #[inline]
    fn handles(&mut self, moves: bool) {
        self.at_now = if moves { 0 } else { self.at_now + 1 };
    }
}

/// The deterministic discrete-event engine playing one scenario.
#[derive(Debug)]
pub struct Engine {
    pub(super) scenario: Scenario,
    pub(super) strategy: Strategy,
    pub(super) now: Nanos,
    pub(super) events: EventQueue<Event>,
    /// The pools and how calls reach them, built once from the scenario.
    pub(super) topology: Topology,
    /// The pools' live state, indexed like the topology's pools.
    pub(super) pools: Pools<Pool<Task>>,
    /// The pools that can signal workers (fork-join), looked at after every event once
    /// `pools_called`.
    pub(super) fork_join_pools: Vec<PoolId>,
    /// A call has been submitted to a pool other than the server's. Until then no fork-join
    /// pool holds a task, so none can have signalled a worker, and none is looked at (that
    /// look cost a customer of `erlang-c`'s sequential run some 70 instructions).
    pub(super) pools_called: bool,
    pub(super) requests: Requests,
    pub(super) faults: Vec<Option<Fault>>,

    /// The load generator: ids, the closed load's client target, the open load's rate epoch
    /// (what the clients do is `scenario.load.mode`).
    pub(super) load: LoadGenerator,

    /// Connections: Tomcat's `LimitLatch`, the accept queue, the clients' connections.
    pub(super) net: Net,

    /// Measurements, kept as a real run keeps them.
    pub(super) book: Book,
    /// When the series take their next sample.
    next_sample_at: Nanos,
    /// The newest runs and changes, for a live view.
    pub(super) log: RecentLog<super::LogEntry>,
    events_processed: u64,
    /// Events handled at once, without the queue.
    folding: Folding,
    watchdog: Watchdog,
    pub(super) cpu: Cpu,
    pub(super) resource_states: Vec<ConnectionPool<(ReqRef, u16)>>,
    /// Thread timelines, when recorded (off by default: see `trace.rs`).
    pub(super) trace: Option<Box<super::trace::Timeline>>,
    /// The clients' retries: the budget and the attempts waiting to be sent.
    pub(super) retries: Retries,
    /// Each service's circuit breaker and rate limiter.
    pub(super) guards: Guards,
    /// The JVM's own costs (`[jvm]`: warm-up, garbage collection), when the scenario has them.
    pub(super) jvm: Option<Box<super::parts::jvm::JvmState>>,
}

impl Engine {
    /// A new engine at t = 0 playing `scenario` with `strategy`.
    pub fn new(scenario: &Scenario, strategy: Strategy) -> Self {
        let topology = Topology::new(scenario);
        let pools: Pools<Pool<Task>> = topology.specs().cloned().map(Pool::new).collect();
        let topology_pools = pools.len();
        let fork_join_pools = pools
            .enumerate()
            .filter(|(_, p)| p.spec().kind == crate::topology::PoolKind::ForkJoin)
            .map(|(id, _)| id)
            .collect();
        let mut engine = Engine {
            scenario: scenario.clone(),
            strategy,
            now: Nanos::ZERO,
            events: EventQueue::default(),
            topology,
            pools,
            fork_join_pools,
            pools_called: false,
            requests: Requests::new(scenario.endpoint.call_count()),
            faults: vec![None; scenario.services.len()],
            load: LoadGenerator::new(&scenario.load.mode),
            net: Net::new(&scenario.server, scenario.load.link.rtt),
            book: Book::new(scenario.services.len(), topology_pools),
            next_sample_at: SAMPLE_INTERVAL,
            log: RecentLog::new(LOG_CAPACITY),
            events_processed: 0,
            folding: Folding {
                on: true,
                handling: false,
                horizon: Nanos::ZERO,
                next: KeptAside::default(),
                count: 0,
            },
            watchdog: Watchdog {
                at_now: 0,
                stall_events: STALL_EVENTS,
                in_flight_cap: max_requests_in_flight(scenario.endpoint.call_count()),
                sharing: 1,
                caps: (0, 0),
                calls_per_request: scenario.endpoint.call_count().max(1) as u64,
            },
            cpu: Cpu::new(scenario.cores, scenario.cpu_scheduling),
            resource_states: scenario.resources.iter().map(ConnectionPool::new).collect(),
            trace: None,
            retries: Retries::new(scenario.load.retry),
            guards: Guards::new(scenario),
            jvm: super::parts::jvm::JvmState::of(scenario),
        };
        engine.watchdog.share();
        engine.start_load();
        engine
    }

    /// Clients send from t = 0; what they send reaches the server half a round trip later.
    fn start_load(&mut self) {
        if let Some(first) = self.scenario.load.phases.first() {
            self.schedule(first.at, Event::Phase { index: 0 });
        }
        let faults: Vec<_> = self
            .scenario
            .faults
            .iter()
            .map(|f| (f.at, f.until))
            .collect();
        for (index, (at, until)) in (0u32..).zip(faults) {
            self.schedule(at, Event::TimedFault { index, heal: false });
            if let Some(until) = until {
                self.schedule(until, Event::TimedFault { index, heal: true });
            }
        }
        let half = Nanos(self.scenario.load.link.rtt.0 / 2);
        match self.scenario.load.mode {
            LoadMode::Runs { .. } | LoadMode::Batch { .. } => {
                self.schedule(half, Event::Arrival { generation: 0 });
            }
            LoadMode::Trace { ref rows } => {
                if let Some(first) = rows.first() {
                    self.schedule(first.at + half, Event::Arrival { generation: 0 });
                }
            }
            LoadMode::Open { .. } => self.schedule_next_arrival(),
            LoadMode::Closed { clients, .. } => {
                let client = ClosedClient {
                    active: true,
                    ..Default::default()
                };
                self.net.clients = vec![client; clients as usize];
                // The load generator opens its connections one after another; each client
                // waits from its own start.
                let link = self.scenario.load.link;
                for client in 0..clients {
                    let start = crate::flow::link::staggered(&link, Nanos::ZERO, client);
                    if let Some(state) = self.net.clients.get_mut(client as usize) {
                        state.tally.last_answer_at = start;
                    }
                    self.schedule(start + half, Event::ClientSend { client });
                }
            }
        }
    }

    /// The scenario as it is now (live changes included).
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The strategy new requests use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The simulated clock.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Events processed so far (for benchmarks and the report's `simulation` block).
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }

    /// Events handled at once, without going through the queue (not in
    /// [`Engine::events_processed`]).
    pub fn events_folded(&self) -> u64 {
        self.folding.count
    }

    /// Requests sent so far.
    pub fn sent(&self) -> u64 {
        self.book.sent()
    }

    /// When the next event happens, if any.
    pub fn next_event_time(&self) -> Option<Nanos> {
        self.events.peek_time()
    }

    /// Processes the next event (and samples the series up to its time), and the events it
    /// schedules for the same instant. Returns false when there is nothing left to do.
    /// A halted engine (stalled or over its cap, see [`Engine::halted`]) does nothing and
    /// returns false too.
    pub fn step(&mut self) -> bool {
        self.step_within(Nanos::ZERO)
    }

    /// [`Engine::step`], and each event the step schedules that comes before everything
    /// pending and is due by `limit`: it is the next the queue would pop, so it is handled at
    /// once, without the queue, the clock moving to it (see [`Engine::schedule`]). The order
    /// of events, and so every figure, is the queue's; only fewer go through it.
    pub fn step_within(&mut self, limit: Nanos) -> bool {
        if self.halted() {
            return false;
        }
        let Some((head, t)) = self.events.peek_head() else {
            return false;
        };
        self.step_at(head, t, limit);
        self.net.connect.flush();
        true
    }

    /// Steps (as [`Engine::step_within`] with `limit`) through every event due by `limit`,
    /// at most `most` of them, stopping when a finite load has finished or the engine halts.
    /// Returns how many steps it took: the same steps, one queue look-up each, as a caller
    /// that asks for the next event's time before each.
    pub fn steps_within(&mut self, limit: Nanos, most: u64) -> u64 {
        let mut steps = 0;
        while steps < most && !self.is_finished() && !self.halted() {
            match self.events.peek_head() {
                Some((head, t)) if t <= limit => self.step_at(head, t, limit),
                _ => break,
            }
            steps += 1;
        }
        self.net.connect.flush();
        steps
    }

    /// The step of the event at `head`, due at `t`, just found by a look at the queue.
    fn step_at(&mut self, head: super::event::Head, t: Nanos, limit: Nanos) {
        // Sampling pushes no event: the head found is still the one to pop.
        self.sample_until(t);
        let Some((time, event)) = self.events.pop_head(head) else {
            return;
        };
        self.watchdog.handles(time > self.now);
        self.now = time;
        self.events_processed += 1;
        self.folding.horizon = limit.max(time);
        self.folding.handling = true;
        self.handle(event);
        self.schedule_signals();
        self.handle_next();
        self.folding.handling = false;
    }

    /// Schedules `event` at `at`. The earliest event scheduled while another is handled, due
    /// by the step's horizon, is kept aside under its reserved sequence number and handled as
    /// soon as that one is done, without the queue, unless something pending comes first (see
    /// [`Engine::handle_next`]): the order of events is exactly the queue's.
    ///
    /// Inlined into every caller, which then writes its event straight where it is kept.
    /// Called, two thirds of its time went to copying in the event its caller had just
    /// written field by field (erlang-c's sequential run with the connector's default costs:
    /// 0.97 of the wall time inlined).
    ///
    /// An event that something pending comes before could not skip the queue when its turn
    /// to be handled came (nothing leaves the queue meanwhile): it goes there at once, under
    /// the sequence number it would have had. Kept aside and handed back, a call's end cost
    /// each customer of `erlang-c` some 50 instructions more.
    #[inline(always)]
    pub(super) fn schedule(&mut self, at: Nanos, event: Event) {
        if self.folding.may_keep(at) && self.events.peek_key().is_none_or(|(head, _)| at < head) {
            let next = &mut self.folding.next;
            match next.key {
                None => {
                    let seq = self.events.reserve_seq();
                    next.put(at, seq, event);
                    return;
                }
                // Earlier than the one kept aside: that one goes to the queue, in its place.
                Some((kept_at, kept_seq)) if at < kept_at => {
                    let kept = next.event;
                    let seq = self.events.reserve_seq();
                    next.put(at, seq, event);
                    self.events.push_reserved(kept_at, kept_seq, kept);
                    return;
                }
                Some(_) => {}
            }
        }
        if let Event::Arrival { .. } = event {
            // An open load has one arrival pending at a time: it waits beside the heap.
            self.events.push_beside(at, event);
        } else {
            self.events.push(at, event);
        }
    }

    /// Handles the event kept aside, and the ones it schedules in turn, while each is the
    /// next the queue would pop; otherwise the queue takes it back. The clock moves to it as
    /// a step would; a finite load that has finished stops there, as its callers do.
    fn handle_next(&mut self) {
        while let Some((at, seq, event)) = self.folding.next.take() {
            let key = (at, seq);
            // An event at another instant is one the queue would have handed to the caller,
            // which stops once a finite load has finished.
            let moves = at != self.now;
            if self.events.peek_key().is_some_and(|next| next < key)
                || self.halted()
                || (moves && self.is_finished())
            {
                self.events.push_reserved(at, seq, event);
                return;
            }
            if moves {
                // What a step does with the event it pops.
                self.sample_until(at);
                self.watchdog.handles(at > self.now);
                self.now = at;
            } else {
                self.watchdog.handles(false);
            }
            self.events.pass(at, seq);
            self.folding.count += 1;
            self.handle(event);
            self.schedule_signals();
        }
    }

    /// The (time, sequence) below which every event has been handled: the event being
    /// handled, or, once the clock has moved past it, everything up to now.
    pub(super) fn settled_key(&self) -> (Nanos, u64) {
        let last = self.events.last_key();
        if self.now > last.0 {
            (self.now, u64::MAX)
        } else {
            last
        }
    }

    /// True when the run makes no progress: [`STALL_EVENTS`] events in a row happened at the
    /// same simulated instant (a livelock: something answers at once and is retried at once).
    /// The engine then stops; callers say so instead of spinning.
    pub fn stalled(&self) -> bool {
        self.watchdog.at_now >= self.watchdog.stall_events
    }

    /// Lowers (or raises) the stall watchdog's limit from [`STALL_EVENTS`], so a test can
    /// reach it without 50 million events.
    #[doc(hidden)]
    pub fn set_stall_events(&mut self, events: u64) {
        self.watchdog.stall_events = events;
    }

    /// True when the run holds more requests in flight than a run may (the run-time side of
    /// the cost estimate's limits, [`max_requests_in_flight`]): an open load above what the
    /// server answers piles them up. The engine then stops, as when stalled.
    pub fn over_cap(&self) -> bool {
        self.requests_in_flight() > self.request_cap() || self.calls_in_flight() > self.call_cap()
    }

    /// Shares the limits of one run among `runs` runs played side by side (this one
    /// included): each stops at its share, so together they hold no more than one run may.
    pub fn share_limits(&mut self, runs: u64) {
        self.watchdog.sharing = runs.max(1);
        self.watchdog.share();
    }

    /// How many runs share this one's limits (1: it has them alone).
    pub fn sharing(&self) -> u64 {
        self.watchdog.sharing
    }

    /// The most requests in flight: this run's share of the cap.
    #[inline]
    fn request_cap(&self) -> u64 {
        self.watchdog.caps.0
    }

    /// Requests the engine holds now (arrived or waiting to connect, not yet released), and
    /// the retried attempts their clients hold during their pause.
    pub fn requests_in_flight(&self) -> u64 {
        (self.requests.live() + self.retries.parked()) as u64
    }

    /// Calls the requests in flight hold, each retried attempt of a call included (a call's
    /// attempt that timed out may still be running when the next is made).
    pub fn calls_in_flight(&self) -> u64 {
        self.requests.call_slots() as u64
    }

    /// The most calls in flight: the cap's requests with their calls each.
    #[inline]
    fn call_cap(&self) -> u64 {
        self.watchdog.caps.1
    }

    /// Stalled or over its cap: the engine does nothing more.
    pub fn halted(&self) -> bool {
        self.stalled() || self.over_cap()
    }

    /// Keeps nothing only a live view shows (the log of recent requests, the rolling window
    /// of latencies): for headless runs, whose reports never read them. Every figure a report
    /// reads is the same.
    pub fn unwatched(mut self) -> Self {
        self.log.unwatched();
        self.book.unwatched();
        self
    }

    /// Sends every event through the queue, so a test can check that skipping it changes
    /// nothing but the count.
    #[doc(hidden)]
    pub fn set_folding(&mut self, on: bool) {
        self.folding.on = on;
    }

    /// Lowers (or raises) the most requests in flight from [`max_requests_in_flight`], so a
    /// test can reach it without gigabytes.
    #[doc(hidden)]
    pub fn set_in_flight_cap(&mut self, requests: u64) {
        self.watchdog.in_flight_cap = requests;
        self.watchdog.share();
    }

    /// What to tell the user when the run stopped at its cap (`None` while it has not).
    pub fn cap_message(&self) -> Option<String> {
        self.over_cap().then(|| {
            format!(
                "the {} run stopped at {:.3} s simulated: it held {} requests and {} calls \
                 (retried attempts included) in flight, the most a run may{} ({:.0e} calls in \
                 flight or {} GiB, at {} call(s) per request); the load arrives faster than \
                 the server answers: lower the rate or give the server more threads",
                self.strategy,
                self.now.as_secs_f64(),
                self.requests_in_flight(),
                self.calls_in_flight(),
                match self.watchdog.sharing {
                    1 => String::new(),
                    n => format!(" as one of {n} runs played at once, which share one run's"),
                },
                MAX_CALLS_IN_FLIGHT,
                MAX_PEAK_BYTES / f64::from(1u32 << 30),
                self.scenario.endpoint.call_count().max(1)
            )
        })
    }

    /// What to tell the user when the run has stalled (`None` while it has not).
    pub fn stall_message(&self) -> Option<String> {
        self.stalled().then(|| {
            format!(
                "the {} run stopped making progress at {} simulated: {} events happened at \
                 that same instant (a request answered at once and retried at once?); give the \
                 failing calls a latency or the clients a think time",
                self.strategy, self.now, self.watchdog.at_now
            )
        })
    }

    /// Processes every event up to and including `t`, then sets the clock to `t`.
    pub fn advance_to(&mut self, t: Nanos) {
        while let Some(next) = self.events.peek_time() {
            if next > t || !self.step_within(t) {
                break;
            }
        }
        if self.halted() {
            // The clock stays where the run stopped.
            return;
        }
        self.sample_until(t);
        if t > self.now {
            self.now = t;
        }
    }

    /// The time-average number of requests in flight since t = 0 (Little's L, measured).
    pub fn mean_in_flight(&self) -> f64 {
        self.book.mean_in_flight(self.now)
    }

    /// What theory predicts for the scenario as it is now, under the current strategy.
    pub fn prediction(&self) -> crate::theory::Prediction {
        crate::theory::predict(&self.scenario, self.strategy)
    }

    /// Runs until the load has finished (`runs`, `batch`) or the clock reaches `limit`.
    pub fn run_until(&mut self, limit: Nanos) {
        while !self.is_finished() {
            match self.events.peek_time() {
                Some(t) if t <= limit && self.step_within(limit) => {}
                _ => break,
            }
        }
        if !self.is_finished() && !self.halted() {
            self.advance_to(limit);
        }
    }

    /// True when a finite load (`runs`, `batch`, `trace`) has issued every request, each has
    /// ended and its answer has reached the client.
    pub fn is_finished(&self) -> bool {
        self.now >= self.load.last_answer && self.all_ended()
    }

    /// Whether a finite load has issued every request and each has ended (at the server).
    fn all_ended(&self) -> bool {
        self.load
            .finite_count()
            .is_some_and(|n| self.book.sent() >= n && self.book.outcomes().total() >= n)
    }

    /// Inlined into its two callers, so a step's events (from the queue) and the events
    /// handled without it each get their own jump on the event's kind, with fewer targets
    /// than one shared jump (erlang-c's sequential run with the connector's default costs: 0.98
    /// of the wall time).
    #[inline(always)]
    fn handle(&mut self, event: Event) {
        if self.jvm.is_some() && self.held_by_pause(event) {
            return;
        }
        match event {
            Event::Arrival { generation } => self.on_arrival(generation),
            Event::ClientSend { client } => self.on_client_send(client),
            Event::CallEnd { req, call } => self.on_call_end(req, call),
            Event::CallTimeout { req, call } => self.on_call_timeout(req, call),
            Event::ClientTimeout { req } => self.on_client_timeout(req),
            Event::CpuDone { req, call } => self.proceed(req, call),
            Event::SliceEnd { req, call } => self.on_slice_end(req, call),
            Event::SpawnDone { req } => self.on_spawn_done(req),
            Event::ConnTimeout { req, call } => self.on_conn_timeout(req, call),
            Event::PermitTimeout { req, call } => self.on_permit_timeout(req, call),
            Event::StageDone { req } => self.on_stage_done(req),
            Event::StartHandler { req, slot } => self.on_start_handler(req, slot),
            Event::Accept => self.on_accept(),
            Event::Accepted => self.on_accepted(),
            Event::AcceptCpuDone => {
                self.release_core();
                self.on_accepted();
            }
            Event::Syn { req } => self.on_syn(req),
            Event::Ack { req } => self.on_ack(req),
            Event::HandshakeReset { req } => self.refuse(req),
            Event::ConnectFailed { req } => self.on_connect_failed(req),
            Event::Dispatch { req } => self.on_dispatch(req),
            Event::HandlerCpuDone { req } => self.on_handler_cpu_done(req),
            Event::ConnectionClosed => self.close_connection(),
            Event::IdleTimeout { client } => self.on_idle_timeout(client),
            Event::ResetDone { req } => {
                self.release_core();
                self.finish_reset(req);
            }
            Event::ErrorCpuDone { req } => self.on_error_cpu_done(req),
            Event::Signalled { pool, slot } => self.on_signalled(pool, slot),
            Event::AnswerArrives => {}
            Event::Phase { index } => self.on_phase(index),
            Event::Retry { slot } => self.on_retry(slot),
            Event::GuardPermit { req, call } => self.on_guard_permit(req, call),
            Event::CallRetry {
                req,
                call,
                admitted,
            } => self.on_call_retry(req, call, admitted),
            Event::GuardPoll => self.on_guard_poll(),
            Event::TimedFault { index, heal } => self.on_timed_fault(index, heal),
            Event::DoorPermit { req } => self.on_door_permit(req),
            Event::Gc => self.on_gc(),
            Event::JvmCpuDone => self.release_core(),
            Event::AcceptorResumes => self.on_acceptor_resumes(),
            Event::ThreadStarted { req, slot } => {
                self.release_core();
                self.on_start_handler(req, slot);
            }
            Event::KeepAlive { pool, slot } => {
                let now = self.now;
                if let Some(p) = self.pools.get_mut(pool)
                    && let KeepAlive::CheckAt(at) = p.check_keep_alive(slot, now)
                {
                    self.schedule(at, Event::KeepAlive { pool, slot });
                }
            }
        }
    }

    /// Samples the series at every interval boundary up to `t`. The state is constant between
    /// events, so a sample taken here is exact.
    #[inline]
    fn sample_until(&mut self, t: Nanos) {
        // Checked before every event; a boundary is crossed about once in a thousand.
        if self.next_sample_at <= t {
            self.sample_through(t);
        }
    }

    #[inline(never)]
    fn sample_through(&mut self, t: Nanos) {
        self.retire_closes();
        while self.next_sample_at <= t {
            let gauges = self.pools.iter().map(|p| PoolGauges {
                active: p.active(),
                queued: p.queued(),
                size: p.pool_size(),
            });
            self.book.sample(gauges);
            self.trace_sample(self.next_sample_at);
            self.next_sample_at += SAMPLE_INTERVAL;
        }
    }

    /// Requests sent whose client has not seen an outcome yet.
    pub fn in_flight(&self) -> u64 {
        self.book.in_flight()
    }

    /// The pool a call of `service` goes to under `strategy` (none for sequential).
    pub(super) fn pool_for(&self, strategy: Strategy, service: ServiceId) -> Option<PoolId> {
        self.topology.pool_for(strategy, service)
    }

    /// The run's pools and how calls reach them.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The name of a thread, as Java would print it.
    pub fn thread_name(&self, name: ThreadName) -> String {
        match name {
            ThreadName::Worker { pool, number } => self
                .pools
                .get(pool)
                .map_or_else(|| "?".to_string(), |p| p.thread_name(number)),
            ThreadName::Delayer => "CompletableFutureDelayScheduler".to_string(),
            ThreadName::None => "-".to_string(),
        }
    }

    pub(super) fn name_of(&self, thread: ThreadRef) -> ThreadName {
        match thread {
            ThreadRef::Worker { pool, slot } => ThreadName::Worker {
                pool,
                number: self.pools.get(pool).map_or(0, |p| p.thread_number(slot)),
            },
            ThreadRef::Delayer => ThreadName::Delayer,
        }
    }

    /// The thread submitting to a pool, as the pool tells threads apart (pool and number: a
    /// worker that replaces a dead one in its slot is a new thread).
    pub(super) fn submitter_of(&self, thread: Option<ThreadRef>) -> Submitter {
        match thread.map(|t| self.name_of(t)) {
            Some(ThreadName::Worker { pool, number }) => Submitter {
                pool: pool.raw(),
                number,
            },
            _ => Submitter::OUTSIDE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Engine, Event};
    use crate::scenario::Strategy;
    use crate::time::Nanos;

    /// 1,000 requests at t = 0: hundreds of events at a few instants (t = 0, then every
    /// call of the burst ending together).
    fn burst_at_zero() -> Engine {
        let sets = ["load.mode=batch".to_string(), "load.count=1000".to_string()];
        let s = crate::scenario::load("ironthread", &sets).expect("preset loads");
        Engine::new(&s, Strategy::Unbounded)
    }

    #[test]
    fn the_watchdog_stops_a_run_whose_clock_does_not_move() {
        let mut e = burst_at_zero();
        e.set_stall_events(500);
        e.run_until(Nanos::from_secs(60));
        assert!(e.stalled());
        let at = e.now();
        assert!(
            at < Nanos::from_secs(60),
            "stopped at {at}, not at the limit"
        );
        assert!(
            !e.is_finished() && e.next_event_time().is_some(),
            "work was left"
        );
        let events = e.events_processed();
        assert!(!e.step(), "a stalled engine does nothing more");
        e.run_until(Nanos::from_secs(120));
        assert_eq!((e.now(), e.events_processed()), (at, events));
        let message = e.stall_message().expect("a message");
        assert!(
            message.starts_with(&format!(
                "the unbounded run stopped making progress at {at}"
            )),
            "{message}"
        );
        assert!(
            message.contains("500 events happened at that same instant"),
            "{message}"
        );
    }

    #[test]
    fn a_burst_below_the_watchdog_limit_runs_on() {
        let mut e = burst_at_zero();
        e.run_until(Nanos::from_secs(60));
        assert!(!e.stalled());
        assert_eq!(e.stall_message(), None);
        assert!(e.is_finished());
        assert!(e.events_processed() > 500);
    }

    #[test]
    fn a_connection_closed_while_nobody_waits_costs_no_event() {
        // Open load, a connection per request: the arrival, the request following the
        // handshake, the handler's CPU and the call's end are events; the close is not (it
        // was a fifth event per request), and a server thread taking the next queued request
        // at the instant it is free is handled at once, without the queue.
        let mut e = erlang_c_with(5, &CONNECTOR);
        e.run_until(Nanos::from_secs(5));
        let sent = e.sent() as f64;
        let queued = e.events_processed() as f64 / sent;
        let handled = (e.events_processed() + e.events_folded()) as f64 / sent;
        assert!(
            (4.0..4.2).contains(&handled),
            "{handled} events per request"
        );
        assert!(
            queued < handled - 0.05,
            "{queued} of {handled} through the queue"
        );
    }

    /// Tomcat's connector at its defaults, which the `erlang-c` preset sets to zero: a round
    /// trip, the handler's CPU and its post-response work.
    const CONNECTOR: [&str; 3] = [
        "load.rtt=\"40us\"",
        "server.cpu_per_request=\"30us\"",
        "server.post_response=\"100us\"",
    ];

    /// A small `erlang-c` run (M/M/200, a connection per request), sequential.
    fn erlang_c(duration_s: u64) -> Engine {
        erlang_c_with(duration_s, &[])
    }

    fn erlang_c_with(duration_s: u64, sets: &[&str]) -> Engine {
        let mut sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        sets.push(format!("scenario.duration=\"{duration_s}s\""));
        let s = crate::scenario::load("erlang-c", &sets).expect("preset loads");
        Engine::new(&s, Strategy::Sequential)
    }

    #[test]
    fn an_m_m_c_customer_costs_at_most_two_and_a_half_queued_events() {
        // The preset (no connector costs): the arrival, the request after the handshake (at
        // the same instant, so it skips the queue) and the call's end. With the connector the
        // request comes a round trip later and the handler's CPU burst is a fourth; both come
        // before anything else pending most of the time, and then skip the queue too. A
        // request that waited for a thread (9.4 %) is one more, taken at once.
        for (sets, most_queued, handled_from) in
            [(&[][..], 2.01, 3.05), (&CONNECTOR[..], 2.5, 4.05)]
        {
            let mut e = erlang_c_with(5, sets);
            e.run_until(Nanos::from_secs(5));
            let queued = e.events_processed() as f64 / e.sent() as f64;
            assert!(
                queued <= most_queued,
                "{sets:?}: {queued} events a customer"
            );
            let handled = (e.events_processed() + e.events_folded()) as f64 / e.sent() as f64;
            assert!(
                (handled_from..handled_from + 0.1).contains(&handled),
                "{sets:?}: {handled} events handled a customer"
            );
        }
    }

    #[test]
    fn events_folded_ahead_of_the_clock_keep_every_time_and_figure() {
        // The same run stepped through the queue, event by event, and folded up to its
        // limit: the same answers at the same times, the same state at the end. The second
        // has clients that give up before their request reaches the server (a timeout due
        // before the instant it is scheduled at) and calls that time out.
        let variants: [&[&str]; 2] = [
            &CONNECTOR,
            &[
                "load.rtt=\"20ms\"",
                "server.cpu_per_request=\"30us\"",
                "server.post_response=\"100us\"",
                "load.timeout=\"5ms\"",
                "services.backend.timeout=\"80ms\"",
            ],
        ];
        for sets in variants {
            let played = |folding| {
                let mut e = erlang_c_with(3, sets);
                e.set_folding(folding);
                e.run_until(Nanos::from_secs(3));
                e
            };
            let (folded, queued) = (played(true), played(false));
            assert!(
                folded.events_folded() > folded.events_processed() / 2,
                "{sets:?}"
            );
            assert_eq!(queued.events_folded(), 0);
            assert_eq!(
                folded.events_processed() + folded.events_folded(),
                queued.events_processed(),
                "{sets:?}"
            );
            assert_eq!(folded.now(), queued.now());
            assert_eq!(
                format!("{:?}", folded.snapshot()),
                format!("{:?}", queued.snapshot()),
                "{sets:?}"
            );
        }
    }

    #[test]
    fn a_bare_step_moves_the_clock_to_its_event_only() {
        // `step` plays one instant (the live view's single step); `step_within` may fold
        // later events up to its limit, and never past it.
        let mut e = erlang_c(1);
        for _ in 0..500 {
            let before = e.now();
            let next = e.next_event_time().expect("an event");
            assert!(e.step());
            assert_eq!(e.now(), next.max(before));
        }
        let limit = e.now() + Nanos::from_millis(5);
        while e.next_event_time().is_some_and(|t| t <= limit) {
            assert!(e.step_within(limit));
            assert!(e.now() <= limit, "{} past {limit}", e.now());
        }
    }

    #[test]
    fn an_event_due_now_skips_the_queue_and_keeps_its_place() {
        // ironthread and overload: constant latencies, clients in step, so many events fall
        // on the same instant; skipping the queue must not reorder them.
        for preset in ["ironthread", "overload"] {
            let s = crate::scenario::load(preset, &[]).expect("preset loads");
            for strategy in Strategy::ALL {
                let played = |folding| {
                    let mut e = Engine::new(&s, strategy);
                    e.set_folding(folding);
                    e.run_until(Nanos::from_secs(10));
                    e
                };
                let (folded, queued) = (played(true), played(false));
                assert!(
                    folded.events_folded() > 0,
                    "{preset} {strategy:?}: nothing folded"
                );
                assert_eq!(queued.events_folded(), 0);
                assert_eq!(
                    format!("{:?}", folded.snapshot()),
                    format!("{:?}", queued.snapshot()),
                    "{preset} {strategy:?}"
                );
            }
        }
    }

    #[test]
    fn events_stay_small_so_the_heap_stays_in_cache() {
        assert!(
            std::mem::size_of::<Event>() <= 16,
            "{}",
            std::mem::size_of::<Event>()
        );
    }
}
