//! The life of a request: arrival, connection admission, the server pool, each stage's calls
//! under the request's strategy, futures completing (normally, exceptionally, by timeout or
//! never), the response and the client's view of it.

use crate::metrics::Outcome;
use crate::scenario::{LoadMode, ServiceId};
use crate::time::Nanos;

use super::draw::{Attempts, call_draw, call_retry_u};
use super::engine::{Engine, PoolId};
use super::event::Event;
use super::handles::{Task, ThreadName, ThreadRef};
use super::parts::cpu::CpuJob;
use super::parts::guards::Asked;
use super::pool::{Admission, AfterTask, Pool, Slot};
use super::request::{CallPhase, Client, Conn, ReqRef, Submitting};
use super::{Detail, LogEntry, RunRow};
use crate::flow::call::Attempted;
use crate::flow::handling::{self, Effect, Happened};
use crate::flow::settle::Settled;
use crate::flow::{self, CallResult, Rejection};
use crate::topology::Pools;

impl Engine {
    // ---- load -------------------------------------------------------------------------

    pub(super) fn on_arrival(&mut self, generation: u32) {
        if generation != self.load.generation {
            return;
        }
        match self.scenario.load.mode {
            LoadMode::Runs { count } => {
                if self.book.sent() < u64::from(count) {
                    self.issue(None);
                }
            }
            LoadMode::Batch { count } => {
                for _ in 0..count {
                    self.issue(None);
                }
            }
            LoadMode::Open { .. } => {
                self.issue(None);
                self.schedule_next_arrival();
            }
            LoadMode::Trace { ref rows } => {
                // A row's time is when its client sends; the request reaches the server
                // half a round trip later.
                let half = Nanos(self.scenario.load.link.rtt.0 / 2);
                let next = rows
                    .get(self.book.sent() as usize + 1)
                    .map(|row| row.at + half);
                self.issue(None);
                if let Some(at) = next {
                    self.schedule(at, Event::Arrival { generation });
                }
            }
            LoadMode::Closed { .. } => {}
        }
    }

    /// Schedules the open load's next arrival (see [`LoadGenerator::next_open_arrival`]).
    ///
    /// [`LoadGenerator::next_open_arrival`]: super::parts::load::LoadGenerator::next_open_arrival
    #[inline]
    pub(super) fn schedule_next_arrival(&mut self) {
        let (mode, seed) = (&self.scenario.load.mode, self.scenario.seed);
        if let Some(at) = self.load.next_open_arrival(mode, seed, self.now) {
            let generation = self.load.generation;
            self.schedule(at, Event::Arrival { generation });
        }
    }

    pub(super) fn on_client_send(&mut self, client: u32) {
        if client >= self.load.client_target {
            let reserved = self.net.clients.get_mut(client as usize).and_then(|state| {
                state.active = false;
                state.reserved.take()
            });
            // A parked client sends nothing more: a thread waiting for its request goes back.
            if let Some(thread) = reserved {
                self.release_thread(thread);
            }
            return;
        }
        self.issue(Some(client));
    }

    /// A request (or its connection's SYN) reaches the server now; its client sent it half
    /// a round trip ago, and its latency counts from then.
    fn issue(&mut self, client: Option<u32>) {
        let id = self.load.take_id();
        self.book.issued(self.now);
        self.retries.first_attempt(self.now);
        let sent = self
            .now
            .saturating_sub(Nanos(self.scenario.load.link.rtt.0 / 2));
        let r = self.requests.alloc(id, sent, client, self.strategy);
        self.send(r, sent, client);
    }

    /// An attempt of a request, sent at `sent`, reaches the server now.
    #[inline(always)]
    pub(super) fn send(&mut self, r: ReqRef, sent: Nanos, client: Option<u32>) {
        if !self.guards.calls.client_sends(self.now) {
            self.not_sent(r);
            return;
        }
        if let Some(timeout) = self.scenario.load.timeout {
            self.schedule(sent + timeout, Event::ClientTimeout { req: r });
        }
        self.reach_server(r, client);
    }

    /// The client's own breaker is open: the attempt fails at once, unsent (it is not retried:
    /// the breaker said no).
    fn not_sent(&mut self, r: ReqRef) {
        if let Some(req) = self.requests.get_mut(r) {
            req.finish_serving();
        }
        let detail = Detail::Failed(flow::FailReason::NotSent);
        self.client_outcome(r, Outcome::Failed, ThreadName::None, detail);
        self.requests.release_if_done(r);
    }

    // ---- the server pool ----------------------------------------------------------------

    /// The poller (or the acceptor) hands the connection's request to the executor.
    pub(super) fn dispatch(&mut self, r: ReqRef) {
        self.holds_conn(r);
        if let Some(req) = self.requests.get_mut(r) {
            req.queued_at = self.now;
        }
        if self.jvm.is_some() {
            let new_connection = self.requests.get(r).is_some_and(|req| req.conn_uses <= 1);
            self.poller_work(new_connection);
        }
        let server = self.topology.server();
        let size = self.pools[server].pool_size();
        match self.pools[server].submit_at(Task::Handler(r), self.now) {
            Admission::Started(slot) => {
                self.net.stats.executor_requests += 1;
                let grew = self.pools[server].pool_size() > size;
                if self.jvm.is_some() && self.thread_start_cost(r, slot, grew) {
                    return;
                }
                let thread = ThreadRef::Worker { pool: server, slot };
                self.start_handler(r, thread);
            }
            Admission::Queued => {
                self.net.stats.executor_requests += 1;
                self.trace_handler_queued(r);
            }
            // The executor's queue (maxQueueSize) is full: Tomcat closes the socket unread
            // and the client gets no response.
            Admission::Rejected => self.reset_connection(r),
        }
    }

    /// The server closed the connection without an answer: the client sees a reset.
    pub(super) fn refuse(&mut self, r: ReqRef) {
        if let Some(req) = self.requests.get_mut(r) {
            req.finish_serving();
        }
        if self.requests.get(r).is_some_and(|q| !q.answered()) {
            let detail = Detail::Failed(crate::flow::FailReason::Reset);
            self.client_outcome(r, Outcome::Refused, ThreadName::None, detail);
        }
        self.requests.release_if_done(r);
    }

    /// A handler thread takes the request: its lifecycle (`flow::handling`) says what
    /// follows (shed, the door, the handler's own CPU work, the stages).
    pub(super) fn start_handler(&mut self, r: ReqRef, thread: ThreadRef) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        req.hold_handler(thread);
        req.submitter = Some(thread);
        req.handler_at = self.now;
        let waited = self.now.saturating_sub(req.queued_at);
        self.trace_handler_start(r, thread);
        self.advance(r, Happened::Taken { waited });
    }

    /// Tells the request's handler lifecycle what happened and carries out what it says next.
    /// Inlined: each caller tells one kind of news, so the machine's match folds to the one
    /// transition it can take (called, it cost a customer 200 instructions more).
    #[inline(always)]
    fn advance(&mut self, r: ReqRef, happened: Happened) {
        let plan = handling::HandlerPlan::of(&self.scenario);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let mut effect = req
            .handling
            .step(&plan, &mut self.guards.calls, happened, self.now);
        if let Effect::Unserved(why) = effect {
            // Answered at once, unserved: failed, and counted.
            why.apply(&mut req.verdict, Some(&mut self.book.resilience));
            let answer = Happened::Answer { failed: true };
            effect = req
                .handling
                .step(&plan, &mut self.guards.calls, answer, self.now);
        }
        match effect {
            Effect::WaitForDoor(wait) => {
                self.schedule(self.now + wait, Event::DoorPermit { req: r });
            }
            Effect::Cpu(cost) => self.run_on_core(CpuJob::Handler(r), self.warm(cost)),
            Effect::Stage(i) => {
                if i > 0 {
                    // Blocking: the handler wakes from join() and submits the next stage.
                    // Async: the continuation runs on the thread that completed the last
                    // future.
                    req.submitter = if self.scenario.server.async_ {
                        req.verdict.last_completer()
                    } else {
                        req.handler
                    };
                }
                self.begin_stage(r);
            }
            Effect::ErrorPage(cost) => {
                // The exception reaches the container, which logs it and renders the error
                // page before the 500 is written. The request stays alive (`outstanding`)
                // meanwhile.
                req.finish_serving();
                req.outstanding += 1;
                self.run_on_core(CpuJob::Error(r), self.warm(cost));
            }
            Effect::Write => {
                req.finish_serving();
                self.write_response(r);
            }
            Effect::Unserved(_) | Effect::Nothing => {}
        }
    }

    /// The endpoint's reserved permit is due: the handler thread, which waited for it,
    /// serves the request.
    pub(super) fn on_door_permit(&mut self, r: ReqRef) {
        if self.requests.get(r).is_some_and(|q| !q.serving.done()) {
            self.advance(r, Happened::DoorOpen);
        }
    }

    /// The handler's own CPU is done. A platform thread gives its core back (its next CPU
    /// waits its turn in the run queue); a virtual thread keeps its carrier until it parks
    /// ("a virtual thread unmounts only when it blocks", JEP 444), so a call it makes
    /// straight away (its CPU, or a pinned wait) runs on the same carrier.
    #[inline(always)]
    pub(super) fn on_handler_cpu_done(&mut self, r: ReqRef) {
        let live = self.requests.get(r).filter(|q| !q.serving.done());
        let handler = live.map(|q| q.handler);
        if handler
            .flatten()
            .is_some_and(|t| is_virtual(&self.pools, t))
        {
            self.cpu.kept_carrier = Some(r);
        } else {
            self.release_core();
        }
        if handler.is_some() {
            self.advance(r, Happened::CpuDone);
        }
        if self.cpu.kept_carrier.take().is_some() {
            self.release_core();
        }
    }

    // ---- stages and calls -----------------------------------------------------------------

    #[inline(always)]
    fn begin_stage(&mut self, r: ReqRef) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let len = self.scenario.endpoint.stages[req.handling.stage()].len();
        req.next_call = 0;
        req.pending = u32::try_from(len).unwrap_or(u32::MAX);
        self.submit_calls(r);
    }

    /// The submitting thread works through the stage's calls. A call that runs inline
    /// (sequential, or caller-runs) pauses the loop until it ends.
    pub(super) fn submit_calls(&mut self, r: ReqRef) {
        loop {
            let Some(req) = self.requests.get_mut(r) else {
                return;
            };
            if req.serving.done() || req.submitting.busy() {
                return;
            }
            // Sequential code throws at the first failure without fallback.
            if req.strategy.calls_inline() && req.verdict.failed() {
                self.respond(r);
                return;
            }
            let stage = req.handling.stage();
            let i = req.next_call;
            let Some(&service) = self.scenario.endpoint.stages[stage].get(i) else {
                break;
            };
            req.next_call += 1;
            let call = self.topology.call_number(stage, i);
            if self.guards.retries.any() {
                self.first_call_attempt(service);
            }
            match self.ask_guards(r, call, service) {
                Asked::Go => {}
                Asked::Failed => continue,
                Asked::Parked => return,
            }
            if !self.make_call(r, call, service) {
                return;
            }
        }
        self.trace_handler_waits(r);
        let Some(req) = self.requests.get(r) else {
            return;
        };
        if req.pending == 0 {
            self.stage_complete(r);
        } else if self.scenario.server.async_
            && req.serving.handler_held()
            && req.submitter == req.handler
        {
            // The controller returned its CompletableFuture: the handler thread goes back to
            // the pool while the calls run.
            self.release_handler(r);
        }
    }

    /// Makes call `call` of `r` as the strategy says: submitted to its pool, inline on the
    /// submitter, or behind the semaphore. Returns false when submission stops.
    #[inline(always)]
    pub(super) fn make_call(&mut self, r: ReqRef, call: u16, service: ServiceId) -> bool {
        let Some(req) = self.requests.get(r) else {
            return false;
        };
        let (submitter, strategy) = (req.submitter, req.strategy);
        let Some(pool) = self.pool_for(strategy, service) else {
            // Sequential and semaphore: the handler makes the call itself (under `semaphore`
            // holding its guards' permit); its timeout acts as the client's read timeout and
            // gives the thread back.
            let read_timeout = self.scenario.service(service).timeout;
            self.start_inline(r, call, submitter, read_timeout);
            return false;
        };
        self.submit_call(r, call, service, pool, submitter)
    }

    /// `supplyAsync(call, pool)`. Returns false when submission stops (abort, or the call
    /// now runs on the submitting thread).
    pub(super) fn submit_call(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        pool: PoolId,
        submitter: Option<ThreadRef>,
    ) -> bool {
        let created = self.pools[pool].stats().threads_created;
        let who = self.submitter_of(submitter);
        self.pools_called = true;
        match self.pools[pool].submit_from(Task::Call(r, call), who) {
            Admission::Started(slot) => {
                self.count_outstanding(r);
                let thread = ThreadRef::Worker { pool, slot };
                // A new platform thread costs its creator CPU time (`spawn_cost`), and the
                // call runs only once the thread exists (`new Thread(r).start()`).
                let p = &self.pools[pool];
                let new_thread = p.stats().threads_created > created;
                let spawns =
                    flow::cores::creation_cost(&self.scenario, p.spec(), new_thread) > Nanos::ZERO;
                if spawns {
                    self.spawn_thread_cost(r, call, thread);
                    return false;
                }
                self.start_call(r, call, thread);
                self.arm_timeout(r, call, service);
                true
            }
            Admission::Queued => {
                self.call_queued(r, call, pool);
                self.arm_timeout(r, call, service);
                true
            }
            Admission::Rejected => self.reject_call(r, call, service, pool, submitter),
        }
    }

    /// The pool rejected the call: its rejection policy decides. Returns false when
    /// submission stops.
    fn reject_call(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        pool: PoolId,
        submitter: Option<ThreadRef>,
    ) -> bool {
        self.book.services[service.0].rejected += 1;
        let rejection = Rejection::of(self.topology.rejection(pool));
        match rejection {
            Rejection::FailsRequest => {
                self.set_phase(r, call, CallPhase::Dropped);
                if let Some(req) = self.requests.get_mut(r) {
                    req.verdict.reject(service);
                }
                self.respond(r);
            }
            // A retry the scheduler submitted completes on the scheduler's thread.
            Rejection::FallsBack if submitter.is_none() => {
                self.set_phase(r, call, CallPhase::Dropped);
                self.complete_future(r, call, CallResult::Rejected, ThreadRef::Delayer);
            }
            Rejection::FallsBack => {
                self.log_rejection();
                self.complete_at_once(r, call, CallResult::Rejected);
            }
            Rejection::RunsOnCaller => self.start_inline(r, call, submitter, None),
            // With discard-oldest the call dropped is the queue's head, counted as it goes.
            Rejection::Discarded { drop_oldest: true } => {
                self.discard_oldest_and_resubmit(r, call, service, pool);
            }
            Rejection::Discarded { drop_oldest: false } => {
                self.book.services[service.0].discarded += 1;
                self.set_phase(r, call, CallPhase::Dropped);
            }
        }
        if rejection.arms_timeout() {
            self.arm_timeout(r, call, service);
        }
        rejection.submission_goes_on()
    }

    /// `DiscardOldestPolicy`: drops the head of the queue, then `execute(r)` again, which
    /// with the head gone finds room.
    fn discard_oldest_and_resubmit(
        &mut self,
        r: ReqRef,
        call: u16,
        service: ServiceId,
        pool: PoolId,
    ) {
        if let Some(oldest) = self.pools[pool].drop_oldest() {
            self.discard_queued(oldest);
        }
        self.pools_called = true;
        match self.pools[pool].submit(Task::Call(r, call)) {
            Admission::Started(slot) => {
                self.count_outstanding(r);
                self.start_call(r, call, ThreadRef::Worker { pool, slot });
            }
            Admission::Queued => self.call_queued(r, call, pool),
            Admission::Rejected => {
                self.book.services[service.0].discarded += 1;
                self.set_phase(r, call, CallPhase::Dropped);
            }
        }
    }

    /// A queued call dropped by discard-oldest: its future never completes.
    fn discard_queued(&mut self, task: Task) {
        let Task::Call(r, call) = task else { return };
        let service = self.service_of(call);
        self.book.services[service.0].discarded += 1;
        self.set_phase(r, call, CallPhase::Dropped);
        self.trace_dequeued(r, call);
        if let Some(req) = self.requests.get_mut(r) {
            req.outstanding -= 1;
        }
        self.requests.release_if_done(r);
    }

    /// The call waits in the pool's queue; its request waits for it.
    fn call_queued(&mut self, r: ReqRef, call: u16, pool: PoolId) {
        self.count_outstanding(r);
        self.set_phase(r, call, CallPhase::Queued);
        self.trace_queued(r, call, pool);
    }

    fn count_outstanding(&mut self, r: ReqRef) {
        if let Some(req) = self.requests.get_mut(r) {
            req.outstanding += 1;
        }
    }

    fn set_phase(&mut self, r: ReqRef, call: u16, phase: CallPhase) {
        if let Some(req) = self.requests.get_mut(r) {
            req.calls[call as usize].phase = phase;
        }
    }

    fn arm_timeout(&mut self, r: ReqRef, call: u16, service: ServiceId) {
        if let Some(timeout) = self.scenario.service(service).timeout {
            self.schedule(self.now + timeout, Event::CallTimeout { req: r, call });
        }
    }

    pub(super) fn service_of(&self, call: u16) -> ServiceId {
        self.topology.service_of(call)
    }

    /// Starts a call on a pool thread.
    fn start_call(&mut self, r: ReqRef, call: u16, thread: ThreadRef) {
        self.begin_call(r, call, thread, false);
        self.proceed(r, call);
    }

    /// Runs a call on the submitting thread, pausing its submission loop; with no submitter
    /// (a retry that resilience4j's scheduler made) on the scheduler's thread, and the
    /// request's submission goes on.
    #[inline(always)]
    pub(super) fn start_inline(
        &mut self,
        r: ReqRef,
        call: u16,
        thread: Option<ThreadRef>,
        read_timeout: Option<Nanos>,
    ) {
        let pauses = thread.is_some();
        let thread = thread.unwrap_or(ThreadRef::Delayer);
        self.count_outstanding(r);
        let latency = self.begin_call(r, call, thread, true);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        if pauses {
            req.submitting = Submitting::Inline(call);
        }
        if let Some(timeout) = flow::read_timeout_cut(read_timeout, latency) {
            let c = &mut req.calls[call as usize];
            c.cut_by_timeout = true;
            c.latency = timeout;
        }
        self.proceed(r, call);
    }

    /// Marks a call running and returns its latency, with faults and hangs applied.
    fn begin_call(&mut self, r: ReqRef, call: u16, thread: ThreadRef, inline: bool) -> Nanos {
        let service = self.service_of(call);
        self.book.services[service.0].calls += 1;
        let Some(req) = self.requests.get_mut(r) else {
            return Nanos::ZERO;
        };
        let svc = &self.scenario.services[service.0];
        let attempts = Attempts {
            request: req.attempt,
            call: self.guards.slots.attempt(call),
        };
        let index = usize::from(self.guards.slots.call(call));
        let draw = call_draw(self.scenario.seed, req.id, index, attempts, svc);
        // A replayed request takes the latency its trace row recorded.
        let recorded = self.scenario.load.mode.recorded_latency(req.id, service);
        let fault = self.faults[service.0];
        let latency = flow::call_latency(draw.latency, recorded, fault, svc.hang, draw.hang_u);
        let on_virtual = is_virtual(&self.pools, thread);
        let c = &mut req.calls[call as usize];
        c.phase = CallPhase::Running;
        c.thread = Some(thread);
        c.inline = inline;
        c.fail_u = draw.fail_u;
        c.started = self.now;
        c.latency = latency;
        c.cpu_left = match self.jvm.as_deref() {
            Some(jvm) => jvm.warm(svc.cpu),
            None => svc.cpu,
        };
        c.on_virtual = on_virtual;
        self.trace_call_start(r, call, thread);
        latency
    }

    /// The failure probability of a service now (a fault overrides the preset's).
    fn failure_probability(&self, service: ServiceId) -> f64 {
        flow::failure_probability(self.scenario.service(service), self.faults[service.0])
    }

    pub(super) fn on_call_end(&mut self, r: ReqRef, call: u16) {
        self.release_call_holdings(r, call);
        self.jvm_call_done();
        let service = self.service_of(call);
        let failure = self.failure_probability(service);
        // A request outlives its running calls (`outstanding`), so it is always found here.
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let Some(thread) = req.calls[call as usize].thread else {
            return;
        };
        req.outstanding -= 1;
        let c = &mut req.calls[call as usize];
        c.phase = CallPhase::Ended;
        let inline = c.inline;
        let held = self.now.saturating_sub(c.started);
        let result = CallResult::of_call(
            c.cut_by_timeout,
            c.conn == Conn::TimedOut,
            c.fail_u,
            failure,
        );
        let server_done = req.serving.done();
        let handler = req.handler;
        result.count(&mut self.book.services[service.0]);
        self.book.services[service.0].thread_time += held;
        self.trace_call_end(r, call, result.label());
        // Its future, unless its timeout or a retry got there first.
        if !server_done {
            self.complete_future(r, call, result, thread);
        }
        // A call made inline frees its submitter, unless that thread now sleeps before
        // retrying it, or the call ran on the retry scheduler.
        let resumes = inline
            && self.requests.get_mut(r).is_some_and(|req| {
                let resumes = req.submitting == Submitting::Inline(call);
                if resumes {
                    req.submitting = Submitting::Free;
                }
                resumes
            });
        if resumes {
            self.submit_calls(r);
        }
        // The thread moves on unless it is the handler (which carries on with its request)
        // or it has just started another call of this request inline.
        if Some(thread) != handler && !self.holds_inline(r, thread) {
            self.release_thread(thread);
        }
        self.requests.release_if_done(r);
    }

    fn holds_inline(&self, r: ReqRef, thread: ThreadRef) -> bool {
        self.requests.get(r).is_some_and(|q| match q.submitting {
            Submitting::RetryWait { thread: t, .. } => t == thread,
            s => s
                .inline_call()
                .is_some_and(|c| q.calls[c as usize].thread == Some(thread)),
        })
    }

    pub(super) fn on_call_timeout(&mut self, r: ReqRef, call: u16) {
        let Some(req) = self.requests.get(r) else {
            return;
        };
        if req.serving.done() || !req.may_complete(self.guards.slots, call) {
            return;
        }
        let service = self.service_of(call);
        self.book.services[service.0].timeouts += 1;
        self.trace_call_timeout(r, call);
        // orTimeout: completeExceptionally(TimeoutException) on the delay scheduler's thread.
        // The call itself goes on; a queued call will be skipped when dequeued.
        self.complete_future(r, call, CallResult::TimedOut, ThreadRef::Delayer);
        self.requests.release_if_done(r);
    }

    /// Attempt `call` of `r` ended with `result` (or its timeout fired), `completer` on the
    /// thread: it claims its call's future unless something completed it first, and settles
    /// it (`flow::call`); a joined stage goes on.
    pub(super) fn complete_future(
        &mut self,
        r: ReqRef,
        call: u16,
        result: CallResult,
        completer: ThreadRef,
    ) {
        let service = self.service_of(call);
        let has_fallback = self.scenario.service(service).fallback.is_some();
        let (seed, now, slots) = (self.scenario.seed, self.now, self.guards.slots);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let (id, request_attempt) = (req.id, req.attempt);
        let attempt = slots.attempt(call);
        // `Request::future_mut`, spelled out: the verdict is borrowed beside it.
        let future = &mut req.calls[usize::from(slots.call(call))].future;
        if !future.claim(attempt) {
            return;
        }
        let rules = flow::settle::Settle {
            guards: &mut self.guards.calls,
            retries: &mut self.guards.retries,
            stats: &mut self.book.services[service.0],
        };
        let ended = Attempted {
            service,
            result,
            completer,
        };
        let (settled, heard) =
            future.settle(rules, &mut req.verdict, has_fallback, ended, now, || {
                let attempts = Attempts {
                    request: request_attempt,
                    call: attempt + 1,
                };
                call_retry_u(seed, id, usize::from(slots.call(call)), attempts)
            });
        let joined = match settled {
            Settled::Again(_) => false,
            Settled::Completed(_) => {
                req.pending = req.pending.saturating_sub(1);
                let stage_len = self.scenario.endpoint.stages[req.handling.stage()].len();
                !req.submitting.busy() && req.next_call >= stage_len && req.pending == 0
            }
        };
        if heard {
            self.arm_guard_poll();
        }
        if let Settled::Again(pause) = settled {
            self.call_again_after(r, call, pause);
            return;
        }
        if !joined {
            return;
        }
        if self.scenario.server.async_ {
            // thenCompose: the continuation runs on the completing thread, now.
            self.stage_complete(r);
        } else {
            // join() returns on the handler thread, after the completer has moved on.
            self.schedule(self.now, Event::StageDone { req: r });
        }
    }

    pub(super) fn on_stage_done(&mut self, r: ReqRef) {
        if self.requests.get(r).is_some_and(|q| !q.serving.done()) {
            self.stage_complete(r);
        }
    }

    pub(super) fn on_start_handler(&mut self, r: ReqRef, slot: Slot) {
        self.start_handler(
            r,
            ThreadRef::Worker {
                pool: self.topology.server(),
                slot,
            },
        );
    }

    /// `allOf(stage).join()` returns (or its continuation runs).
    fn stage_complete(&mut self, r: ReqRef) {
        self.trace_handler_resumes(r);
        let Some(req) = self.requests.get(r) else {
            return;
        };
        let failed = req.verdict.failed();
        self.advance(r, Happened::StageDone { failed });
    }

    // ---- the response ---------------------------------------------------------------------

    /// The handler stops serving the request and answers it (a failed one after its error
    /// page).
    fn respond(&mut self, r: ReqRef) {
        let Some(req) = self.requests.get(r) else {
            return;
        };
        let failed = req.verdict.failed();
        self.advance(r, Happened::Answer { failed });
    }

    pub(super) fn on_error_cpu_done(&mut self, r: ReqRef) {
        self.release_core();
        if let Some(req) = self.requests.get_mut(r) {
            req.outstanding -= 1;
        }
        self.advance(r, Happened::ErrorPageDone);
    }

    /// The response is written. The connection stays open for the client's next request or
    /// closes; the handler thread serves that next request at once if it wins the race to
    /// the socket (the keep-alive fast path), else goes back to its pool.
    fn write_response(&mut self, r: ReqRef) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let (outcome, detail) = req.verdict.outcome();
        let thread = req.verdict.responding_thread(req.strategy, req.handler);
        let (answered, handler_held, handler, client) = (
            req.answered(),
            req.serving.handler_held(),
            req.handler,
            req.client,
        );
        // One draw for the handler's post-response work: the race, the close, its way back.
        let post = self.post_response(r);
        let kept = self.settle_connection(r, outcome, post);
        self.book.server_responded(self.now, answered);
        self.jvm_request_done();
        let next = if answered {
            // Its client has gone: the thread's time on it was for nobody.
            if let Some(req) = self.requests.get(r) {
                let spent = self.now.saturating_sub(req.handler_at);
                self.book.resilience.wasted_work += spent;
            }
            None
        } else {
            let name = thread.map_or(ThreadName::None, |t| self.name_of(t));
            self.client_outcome(r, outcome, name, detail)
        };
        if handler_held {
            let fast =
                kept && next.is_some_and(|at| flow::link::wins_fast_path(at, self.now, post));
            match (fast, handler, client) {
                (true, Some(thread), Some(c)) => self.keep_handler_for(r, thread, c),
                _ => {
                    self.release_handler(r);
                    self.busy_after_response(handler, post);
                }
            }
        }
        self.requests.release_if_done(r);
    }

    /// The handler thread stays with the connection: the client's next request finds it.
    fn keep_handler_for(&mut self, r: ReqRef, thread: ThreadRef, client: u32) {
        self.trace_handler_end(r);
        if let Some(req) = self.requests.get_mut(r) {
            req.let_handler_go();
        }
        if let Some(state) = self.net.clients.get_mut(client as usize) {
            state.reserved = Some(thread);
        }
    }

    fn release_handler(&mut self, r: ReqRef) {
        self.trace_handler_end(r);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        req.let_handler_go();
        if let Some(thread) = req.handler {
            self.release_thread(thread);
        }
    }

    /// A handler thread released at its response's write does its post-response work
    /// (`post`) before it reads or closes the connection and goes back: a request arriving
    /// meanwhile does not find it idle (`TaskQueue.offer` counts it until `afterExecute`).
    fn busy_after_response(&mut self, handler: Option<ThreadRef>, post: Nanos) {
        let server = self.topology.server();
        if let Some(ThreadRef::Worker { pool, slot }) = handler
            && pool == server
            && post > Nanos::ZERO
        {
            self.pools[server].busy_until(slot, self.now + post);
        }
    }

    /// A pool thread finished its task: it takes the next queued one or goes idle.
    pub(super) fn release_thread(&mut self, thread: ThreadRef) {
        let ThreadRef::Worker { pool, slot } = thread else {
            return;
        };
        let (now, slots) = (self.now, self.guards.slots);
        let mut stale = Vec::new();
        let requests = &self.requests;
        let Some(p) = self.pools.get_mut(pool) else {
            return;
        };
        let after = p.finish(slot, now, |task| {
            let Task::Call(r, call) = *task else {
                return false;
            };
            let Some(req) = requests.get(r) else {
                return true;
            };
            // AsyncSupply.run checks `d.result == null` first: a future that already
            // completed (its caller timed out) is not run.
            if !req.may_complete(slots, call) {
                stale.push((r, call));
                return true;
            }
            false
        });
        for (r, call) in stale {
            self.drop_stale_call(r, call);
        }
        match after {
            // A server thread's next request starts as its own event (a queue of requests
            // that each fail at once must not nest); a pool's next call starts now.
            AfterTask::Runs(Task::Handler(req)) => {
                self.schedule(self.now, Event::StartHandler { req, slot });
            }
            AfterTask::Runs(task) => self.start_task(pool, slot, task),
            AfterTask::Idle { check_at: Some(at) } => {
                self.schedule(at, Event::KeepAlive { pool, slot });
            }
            AfterTask::Idle { check_at: None } | AfterTask::Exited => {}
        }
    }

    /// A queued call whose future already completed leaves the queue without running.
    pub(super) fn drop_stale_call(&mut self, r: ReqRef, call: u16) {
        self.trace_dequeued(r, call);
        if let Some(req) = self.requests.get_mut(r) {
            req.outstanding -= 1;
            req.calls[call as usize].phase = CallPhase::Dropped;
        }
        self.requests.release_if_done(r);
    }

    pub(super) fn start_task(&mut self, pool: PoolId, slot: Slot, task: Task) {
        let thread = ThreadRef::Worker { pool, slot };
        match task {
            Task::Handler(r) => self.start_handler(r, thread),
            Task::Call(r, call) => self.start_call(r, call, thread),
        }
    }

    // ---- the client -----------------------------------------------------------------------

    pub(super) fn on_client_timeout(&mut self, r: ReqRef) {
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        if req.answered() {
            return;
        }
        if self.scenario.load.link.timeout_mode == crate::scenario::TimeoutMode::Count {
            // wrk: nothing happens now; the response, when it comes, counts as a timeout.
            req.client_side = Client::Late;
            return;
        }
        let req = &*req;
        let name = req.handler.map_or(ThreadName::None, |t| self.name_of(t));
        self.client_outcome(r, Outcome::Timeout, name, Detail::None);
        self.requests.release_if_done(r);
    }

    /// The client sees the request's outcome (half a round trip from now, for what the
    /// server sends): count it, log it, and let the load go on. Returns when a closed
    /// client's next request reaches the server.
    pub(super) fn client_outcome(
        &mut self,
        r: ReqRef,
        outcome: Outcome,
        thread: ThreadName,
        detail: Detail,
    ) -> Option<Nanos> {
        let travel = flow::link::to_client(&self.scenario.load.link, outcome);
        let req = self.requests.get_mut(r)?;
        // A response after a counting client's timeout is a timeout (wrk).
        let late = req.client_side == Client::Late;
        let outcome = if late { Outcome::Timeout } else { outcome };
        let unsent = detail == Detail::Failed(flow::FailReason::NotSent);
        // An unsent attempt fails when its client would have sent it.
        let at = if unsent {
            req.arrival
        } else {
            self.now + travel
        };
        if !unsent {
            let took = at.saturating_sub(req.arrival);
            let failed = !outcome.is_answered();
            self.guards.calls.client_saw(self.now, failed, took);
            if let Some(next) = self.retry_after(r, outcome, at) {
                return self.scenario.load.mode.is_closed().then_some(next);
            }
        }
        self.requests.answer(r);
        let req = self.requests.get(r)?;
        let latency = at.saturating_sub(req.first_sent);
        let row = RunRow {
            run: req.id,
            strategy: req.strategy,
            at,
            time: latency,
            thread,
            outcome,
            detail,
        };
        let client = req.client;
        // A finite load ends when its last answer has reached the client, not when the
        // server wrote it: `simulated_s` and the rates count to there.
        if self.load.answered_at(at) && at > self.now {
            self.schedule(at, Event::AnswerArrives);
        }
        self.count_answer(client, outcome, at);
        self.book.record(self.now, latency, outcome);
        self.log.push(LogEntry::Run(row));
        self.load_goes_on(r, row, client)
    }

    /// After the client saw `row`: the next run of a `runs` load, a closed client's next
    /// request (returned: when it reaches the server), the rows kept for `runs` and `trace`.
    fn load_goes_on(&mut self, r: ReqRef, row: RunRow, client: Option<u32>) -> Option<Nanos> {
        match self.scenario.load.mode {
            LoadMode::Runs { count } => {
                self.load.runs.push(row);
                if self.book.sent() < u64::from(count) {
                    let next = self.next_arrival(r, row.at, Nanos::ZERO);
                    let generation = self.load.generation;
                    self.schedule(next, Event::Arrival { generation });
                }
                None
            }
            LoadMode::Closed { think, .. } => {
                let client = client?;
                let pause = flow::client_pause(row.outcome, row.time, think);
                let next = self.next_arrival(r, row.at, pause);
                self.schedule(next, Event::ClientSend { client });
                Some(next)
            }
            LoadMode::Trace { .. } => {
                self.load.runs.push(row);
                None
            }
            LoadMode::Open { .. } | LoadMode::Batch { .. } => None,
        }
    }

    /// A new platform thread exists: its call starts, with its timeout.
    pub(super) fn start_spawned_call(&mut self, r: ReqRef, call: u16, thread: ThreadRef) {
        self.start_call(r, call, thread);
        let service = self.service_of(call);
        self.arm_timeout(r, call, service);
    }

    /// The submitting thread carries on with its stage after a pause.
    pub(super) fn resume_submitter(&mut self, r: ReqRef) {
        self.submit_calls(r);
    }
}

/// Whether `thread` is a virtual thread (of a virtual-thread pool).
fn is_virtual(pools: &Pools<Pool<Task>>, thread: ThreadRef) -> bool {
    match thread {
        ThreadRef::Worker { pool, .. } => pools.get(pool).is_some_and(|p| p.spec().virtual_threads),
        ThreadRef::Delayer => false,
    }
}
