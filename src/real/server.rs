//! The server side of a real request, step for step the engine's `lifecycle.rs`: connection
//! admission, the handler on a Tomcat thread (or a virtual thread), each stage's calls under
//! the strategy with the bulkhead's rejection policy, `orTimeout`, fallbacks, the response.

use std::sync::Arc;
use std::time::Instant;

use crate::flow::accept::{Syn, SynRetry, syn_retry};
use crate::flow::permit::Acquire;
use crate::flow::{self, Admit, CallResult, Completion, Detail, FailReason, Rejection, Verdict};
use crate::metrics::Outcome;
use crate::scenario::{ServiceId, Strategy};
use crate::sim::draw::call_draw;
use crate::sim::status_text;
use crate::time::Nanos;
use crate::topology::PoolId;

use super::clock::STOP_POLL;
use super::sync::{Ctx, lock};
use super::world::{
    CallTask, DELAYER, Deferred, PermitWait, RealTask, Req, Response, StageJoin, World,
};

/// The handler's view of its request so far.
type Progress = Verdict<String>;

/// What a rejected submission left behind.
enum Rejected {
    /// The call's future is pending: `orTimeout` applies.
    Armed,
    /// The call's future is complete (it ran on the caller).
    Completed,
    /// The stage ends here.
    Ends(StageEnd),
}

/// A stage's calls: each one's `orTimeout` deadline, and when the breaker permitted it.
struct Timers<'a> {
    deadlines: &'a mut [Option<Instant>],
    since: &'a mut [Option<Nanos>],
}

/// What a call's guards said (`flow::CallGuards::admit`).
enum Guarded {
    /// Make the call; `Some(since)`: the breaker permitted it at `since` and hears its end.
    Go(Option<Nanos>),
    /// It failed at once (breaker open, or no rate-limiter permit).
    Failed(CallResult),
    /// The run stopped while it waited for a reserved permit.
    Stopped,
}

/// How a stage ended.
enum StageEnd {
    Done,
    /// The handler answers now (sequential failure, abort).
    Respond,
    /// The run is over.
    Stopped,
}

impl World {
    // ---- connections ----------------------------------------------------------------------

    /// A connection's SYN reaches the listen socket at `at` (scenario time), after `drops`
    /// dropped ones: [`crate::flow::accept`] decides, as in the engine.
    pub(super) fn syn(self: &Arc<Self>, req: Arc<Req>, at: Nanos, drops: u32) {
        if req.client_has_outcome() {
            // Its client gave up meanwhile: the server never sees the connection.
            return;
        }
        let link = self.scenario.load.link;
        let half = Nanos(link.rtt.0 / 2);
        let fate = {
            let mut net = lock(&self.net);
            let fate = net.listener.syn(Arc::clone(&req));
            if fate == Syn::Dropped {
                net.stats.syn_drops += 1;
            } else {
                // The handshake completes at the client half a round trip later.
                net.stats.accept_queue_max = net.listener.queue_max();
                net.connect.record((at + half).saturating_sub(req.arrival));
            }
            fate
        };
        match fate {
            // The request follows the handshake one round trip later.
            Syn::Accepted => self.after(at + link.rtt, move |w| w.dispatch(req)),
            // The acceptor takes it when a connection closes (`close_connection`).
            Syn::Queued => {}
            Syn::Dropped => match syn_retry(&link, req.arrival, drops + 1) {
                SynRetry::Retransmit { at } => {
                    let at = at + half;
                    self.after(at, move |w| w.syn(req, at, drops + 1));
                }
                SynRetry::Fails { at } => self.after(at, move |w| w.connect_failed(&req)),
            },
        }
    }

    /// Runs `then` at scenario time `at` (at once when that has come), unless the run stops
    /// first.
    pub(super) fn after(
        self: &Arc<Self>,
        at: Nanos,
        then: impl FnOnce(&Arc<Self>) + Send + 'static,
    ) {
        if at <= self.clock.now() {
            then(self);
            return;
        }
        let (world, wake) = (Arc::clone(self), self.clock.at(at));
        let task = async move {
            tokio::time::sleep_until(wake.into()).await;
            if !world.stop.is_stopped() {
                then(&world);
            }
        };
        drop(self.rt.spawn(task));
    }

    /// `connect()` failed: the client counts a timeout and tries again on a new connection.
    fn connect_failed(&self, req: &Req) {
        if !req.claim_client() {
            return;
        }
        lock(&self.net).stats.connect_failures += 1;
        req.set_server_done();
        let detail = Detail::Failed(FailReason::Connect);
        let status = status_text(&self.scenario, Outcome::Timeout, detail);
        self.record(req, Outcome::Timeout, "-".into(), status);
    }

    /// The poller (or the acceptor) hands the connection's request to the executor.
    pub(super) fn dispatch(self: &Arc<Self>, req: Arc<Req>) {
        let _unused = req.queued_at.set(self.clock.now());
        match self.submit(self.topology.server(), RealTask::Handler(req)) {
            Ok(()) => lock(&self.net).stats.executor_requests += 1,
            Err(RealTask::Handler(req)) => {
                // maxQueueSize reached: Tomcat closes the socket unread.
                lock(&self.net).stats.closed_by_max_queue += 1;
                self.close_connection();
                self.refuse(&req);
            }
            Err(RealTask::Call(_)) => {}
        }
    }

    /// A connection closed: its slot frees, and the acceptor takes the next connection
    /// waiting in the accept queue, whose request is already there.
    pub(super) fn close_connection(self: &Arc<Self>) {
        let next = {
            let mut net = lock(&self.net);
            net.listener.close();
            net.listener.accept_next()
        };
        if let Some(req) = next {
            self.dispatch(req);
        }
    }

    /// Tomcat's poller closes a kept-alive connection idle for `keepAliveTimeout`.
    pub(super) fn close_idle(self: &Arc<Self>) {
        lock(&self.net).stats.closed_idle += 1;
        self.close_connection();
    }

    fn refuse(&self, req: &Req) {
        req.set_server_done();
        if req.claim_client() {
            self.record(
                req,
                Outcome::Refused,
                "-".into(),
                Outcome::Refused.name().into(),
            );
        }
    }

    // ---- jobs ---------------------------------------------------------------------------

    pub(super) async fn run_job<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        job: RealTask,
        me: &str,
    ) -> Deferred {
        match job {
            RealTask::Handler(req) => self.handle(ctx, req, me).await,
            RealTask::Call(c) => match self.perform_call(ctx, &c.req, c.call, None).await {
                Some(result) => Deferred::Complete {
                    req: c.req,
                    join: c.join,
                    index: c.index,
                    result,
                    thread: me.to_string(),
                },
                None => Deferred::None,
            },
        }
    }

    /// The handler: each stage in turn, then the response.
    async fn handle<C: Ctx>(self: &Arc<Self>, ctx: &C, req: Arc<Req>, me: &str) -> Deferred {
        let _unused = req.handler.set(me.to_string());
        let mut progress = Progress::default();
        let now = self.clock.now();
        let _unused = req.handler_at.set(now);
        let waited = now.saturating_sub(req.queued_at.get().copied().unwrap_or(now));
        if flow::shed::sheds(self.scenario.server.queue_timeout, waited) {
            // Waited past `server.queue_timeout`: answered 503 at once, unserved.
            if now <= self.limit {
                lock(&self.books).book.resilience.shed += 1;
            }
            progress.shed();
            return self.respond(&req, &progress, me);
        }
        let door = lock(&self.guards).enter(now);
        match door {
            flow::Door::Refused => {
                // The endpoint's rate limiter: answered 429 at once, unserved.
                if now <= self.limit {
                    lock(&self.books).book.resilience.limited_at_door += 1;
                }
                progress.limit_at_door();
                return self.respond(&req, &progress, me);
            }
            flow::Door::Enter { wait } if wait > Nanos::ZERO => {
                // The handler thread waits for its reserved permit.
                if !ctx.sleep_until(self.clock.at(now + wait)).await {
                    return Deferred::None;
                }
            }
            flow::Door::Enter { .. } => {}
        }
        for stage in 0..self.scenario.endpoint.stages.len() {
            match self.run_stage(ctx, &req, stage, &mut progress, me).await {
                StageEnd::Done => {}
                StageEnd::Respond => break,
                StageEnd::Stopped => return Deferred::None,
            }
            if progress.failed() {
                break;
            }
        }
        self.respond(&req, &progress, me)
    }

    async fn run_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        stage: usize,
        progress: &mut Progress,
        me: &str,
    ) -> StageEnd {
        if req.strategy.calls_inline() {
            return self.run_inline_stage(ctx, req, stage, progress, me).await;
        }
        let services = &self.scenario.endpoint.stages[stage];
        let join = Arc::new(StageJoin::new(services.len()));
        let mut deadlines: Vec<Option<Instant>> = vec![None; services.len()];
        let mut since: Vec<Option<Nanos>> = vec![None; services.len()];
        for (i, &service) in services.iter().enumerate() {
            let call = self.topology.call_number(stage, i);
            let Some(pool) = self.pool_for(service) else {
                continue;
            };
            match self.ask_guards(ctx, service).await {
                Guarded::Go(recorded) => since[i] = recorded,
                Guarded::Failed(result) => {
                    join.complete(i, result, me.to_string());
                    continue;
                }
                Guarded::Stopped => return StageEnd::Stopped,
            }
            let timeout_at = self
                .scenario
                .service(service)
                .timeout
                .map(|t| Instant::now() + self.clock.real(t));
            let job = RealTask::Call(CallTask {
                req: Arc::clone(req),
                call,
                index: i,
                join: Arc::clone(&join),
            });
            let Err(job) = self.submit_from(pool, job, self.submitter_named(me)) else {
                deadlines[i] = timeout_at;
                continue;
            };
            match self.reject(ctx, pool, job, progress, me).await {
                Rejected::Armed => deadlines[i] = timeout_at,
                Rejected::Completed => {}
                Rejected::Ends(end) => return end,
            }
        }
        let mut timers = Timers {
            deadlines: &mut deadlines,
            since: &mut since,
        };
        self.join_stage(ctx, &join, services, &mut timers, progress)
            .await
    }

    /// Sequential and semaphore code: the handler makes each call itself (under `semaphore`
    /// once it holds a permit); the service's timeout is its read timeout.
    async fn run_inline_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        stage: usize,
        progress: &mut Progress,
        me: &str,
    ) -> StageEnd {
        let services = &self.scenario.endpoint.stages[stage];
        for (i, &service) in services.iter().enumerate() {
            // Sequential code throws at the first failure without fallback.
            if progress.failed() {
                return StageEnd::Respond;
            }
            let read_timeout = self.scenario.service(service).timeout;
            let call = self.topology.call_number(stage, i);
            let since = match self.ask_guards(ctx, service).await {
                Guarded::Go(since) => since,
                Guarded::Failed(result) => {
                    self.complete(progress, service, result, me.to_string());
                    continue;
                }
                Guarded::Stopped => return StageEnd::Stopped,
            };
            let permit = req.strategy == Strategy::Semaphore;
            if permit {
                match self.acquire_permit(ctx, service).await {
                    Some(true) => {}
                    Some(false) => {
                        lock(&self.books).book.services[service.0].rejected += 1;
                        let full = CallResult::BulkheadFull;
                        self.tell_breaker(service, since, full);
                        self.complete(progress, service, full, me.to_string());
                        continue;
                    }
                    None => return StageEnd::Stopped,
                }
            }
            let result = self.perform_call(ctx, req, call, read_timeout).await;
            if permit {
                self.release_permit(service);
            }
            let Some(result) = result else {
                return StageEnd::Stopped;
            };
            self.tell_breaker(service, since, result);
            self.complete(progress, service, result, me.to_string());
        }
        StageEnd::Done
    }

    /// `bulkhead.tryAcquirePermission()` with `maxWaitDuration`: true with a permit, false on
    /// `BulkheadFullException`, None when the run stopped. The semaphore is
    /// [`crate::flow::permit`]'s, as in the engine: fair, a permit given back goes to the
    /// longest waiter.
    async fn acquire_permit<C: Ctx>(&self, ctx: &C, service: ServiceId) -> Option<bool> {
        let max_wait = self.scenario.strategy.semaphore.max_wait;
        let waiter = Arc::new(PermitWait::default());
        match lock(&self.permits[service.0]).acquire(Arc::clone(&waiter), max_wait) {
            Acquire::Held => return Some(true),
            Acquire::Full => return Some(false),
            Acquire::Waits => {}
        }
        let deadline = Instant::now() + self.clock.real(max_wait);
        loop {
            if waiter.granted() {
                return Some(true);
            }
            if ctx.stopped() {
                return None;
            }
            if Instant::now() >= deadline {
                // A permit handed over at the last moment is kept.
                return Some(!waiter.give_up());
            }
            ctx.wait(&waiter.wake, deadline).await;
        }
    }

    /// A call gives its permit back: the longest waiter still waiting gets it.
    fn release_permit(&self, service: ServiceId) {
        let next = lock(&self.permits[service.0]).release(|w| w.grant());
        if let Some(waiter) = next {
            waiter.wake.push(());
        }
    }

    /// The pool rejected a call: its rejection policy decides.
    async fn reject<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        pool: PoolId,
        task: RealTask,
        progress: &mut Progress,
        me: &str,
    ) -> Rejected {
        let RealTask::Call(c) = task else {
            return Rejected::Completed;
        };
        let service = self.service_of(c.call);
        lock(&self.books).book.services[service.0].rejected += 1;
        let rejection = Rejection::of(self.topology.rejection(pool));
        match rejection {
            Rejection::FailsRequest => {
                progress.reject(service);
                return Rejected::Ends(StageEnd::Respond);
            }
            Rejection::FallsBack => {
                c.join
                    .complete(c.index, CallResult::Rejected, me.to_string());
                return Rejected::Completed;
            }
            Rejection::RunsOnCaller => {
                let Some(result) = self.perform_call(ctx, &c.req, c.call, None).await else {
                    return Rejected::Ends(StageEnd::Stopped);
                };
                c.join.complete(c.index, result, me.to_string());
                return Rejected::Completed;
            }
            // With discard-oldest the call dropped is the queue's head, counted as it goes.
            Rejection::Discarded { drop_oldest: true } => {
                if let Some(oldest) = self.pools[pool].drop_oldest() {
                    self.discarded(&oldest);
                }
                if let Err(task) =
                    self.submit_from(pool, RealTask::Call(c), self.submitter_named(me))
                {
                    self.discarded(&task);
                }
            }
            Rejection::Discarded { drop_oldest: false } => {
                lock(&self.books).book.services[service.0].discarded += 1;
            }
        }
        Rejected::Armed
    }

    /// `allOf(...).join()`: applies completions in the order they happen; `orTimeout` fires
    /// at each call's deadline.
    async fn join_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        join: &StageJoin,
        services: &[ServiceId],
        timers: &mut Timers<'_>,
        progress: &mut Progress,
    ) -> StageEnd {
        let mut pending = services.len();
        let deadlines = &mut *timers.deadlines;
        loop {
            while let Some(c) = join.completions.pop() {
                let service = services[c.index];
                let since = timers.since.get_mut(c.index).and_then(Option::take);
                self.tell_breaker(service, since, c.result);
                self.complete(progress, service, c.result, c.thread);
                pending -= 1;
            }
            if pending == 0 {
                return StageEnd::Done;
            }
            if ctx.stopped() {
                return StageEnd::Stopped;
            }
            let now = Instant::now();
            let mut next = now + STOP_POLL;
            for (i, deadline) in deadlines.iter_mut().enumerate() {
                match *deadline {
                    Some(d) if d <= now => {
                        *deadline = None;
                        if join.complete(i, CallResult::TimedOut, DELAYER.into()) {
                            lock(&self.books).book.services[services[i].0].timeouts += 1;
                        }
                    }
                    Some(d) => next = next.min(d),
                    None => {}
                }
            }
            if join.completions.is_empty() {
                ctx.wait(&join.completions, next).await;
            }
        }
    }

    /// A call dropped by discard or discard-oldest: its future never completes.
    fn discarded(&self, job: &RealTask) {
        if let RealTask::Call(c) = job {
            let service = self.service_of(c.call);
            lock(&self.books).book.services[service.0].discarded += 1;
        }
    }

    /// A call's future completed: fallback or failure, and who completed it.
    fn complete(&self, p: &mut Progress, service: ServiceId, result: CallResult, thread: String) {
        let has_fallback = self.scenario.service(service).fallback.is_some();
        if p.complete(service, has_fallback, result, thread) == Completion::FellBack {
            lock(&self.books).book.services[service.0].fallbacks += 1;
        }
    }

    /// Asks `service`'s breaker and rate limiter whether a call may be made now, as the
    /// engine's `ask_guards` does (`flow::CallGuards`, resilience4j's order); a reserved
    /// rate-limiter permit is waited for on this thread.
    async fn ask_guards<C: Ctx>(self: &Arc<Self>, ctx: &C, service: ServiceId) -> Guarded {
        if !self.guarded {
            return Guarded::Go(None);
        }
        let now = self.clock.now();
        let admit = lock(&self.guards).admit(service, now);
        self.arm_breaker_poll();
        match admit {
            Admit::Go { wait, recorded } => {
                if wait > Nanos::ZERO && !ctx.sleep_until(self.clock.at(now + wait)).await {
                    return Guarded::Stopped;
                }
                Guarded::Go(recorded.then_some(now))
            }
            Admit::NotPermitted => Guarded::Failed(CallResult::NotPermitted),
            Admit::RateLimited => Guarded::Failed(CallResult::RateLimited),
        }
    }

    /// A call the breaker permitted at `since` completed with `result`: the breaker hears
    /// how it went.
    fn tell_breaker(
        self: &Arc<Self>,
        service: ServiceId,
        since: Option<Nanos>,
        result: CallResult,
    ) {
        let Some(since) = since else {
            return;
        };
        let now = self.clock.now();
        let failed = result != CallResult::Ok;
        lock(&self.guards).record(service, now, failed, now.saturating_sub(since));
        self.arm_breaker_poll();
    }

    /// A timer for the breakers' next timed transition (resilience4j's scheduler), unless
    /// one is set for then.
    fn arm_breaker_poll(self: &Arc<Self>) {
        let next = lock(&self.guards).next_poll();
        let Some(at) = next else {
            return;
        };
        {
            let mut armed = lock(&self.breaker_poll);
            if *armed == Some(at) {
                return;
            }
            *armed = Some(at);
        }
        self.after(at, move |w| {
            {
                let mut armed = lock(&w.breaker_poll);
                if *armed == Some(at) {
                    *armed = None;
                }
            }
            lock(&w.guards).poll(at);
            w.arm_breaker_poll();
        });
    }

    /// The call's latency elapses on this thread. None when the run stopped meanwhile.
    async fn perform_call<C: Ctx>(
        &self,
        ctx: &C,
        req: &Req,
        call: u16,
        read_timeout: Option<Nanos>,
    ) -> Option<CallResult> {
        let service = self.service_of(call);
        let svc = self.scenario.service(service);
        lock(&self.books).book.services[service.0].calls += 1;
        let draw = call_draw(self.scenario.seed, req.id, call as usize, req.attempt, svc);
        let fault = lock(&self.faults)[service.0];
        let latency = flow::call_latency(draw.latency, None, fault, svc.hang, draw.hang_u);
        // CPU time really runs: the thread spins, then waits its latency.
        let cpu = self.clock.real(svc.cpu);
        if !cpu.is_zero() {
            let spin_start = Instant::now();
            while spin_start.elapsed() < cpu {
                std::hint::spin_loop();
            }
        }
        let cut = flow::read_timeout_cut(read_timeout, latency);
        let wait = self.clock.real(cut.unwrap_or(latency));
        if !ctx.sleep_until(Instant::now() + wait).await {
            return None;
        }
        let failure = flow::failure_probability(svc, fault);
        let result = CallResult::of_call(cut.is_some(), false, draw.fail_u, failure);
        let mut books = lock(&self.books);
        result.count(&mut books.book.services[service.0]);
        Some(result)
    }

    fn respond(&self, req: &Arc<Req>, p: &Progress, me: &str) -> Deferred {
        req.set_server_done();
        let (outcome, detail) = p.outcome();
        let thread = p
            .responding_thread(req.strategy, Some(me.to_string()))
            .unwrap_or_else(|| me.to_string());
        Deferred::Respond(Response {
            req: Arc::clone(req),
            outcome,
            status: status_text(&self.scenario, outcome, detail),
            thread,
        })
    }
}
