//! The server side of a real request, step for step the engine's `lifecycle.rs`: connection
//! admission, the handler on a Tomcat thread (or a virtual thread), each stage's calls under
//! the strategy with the bulkhead's rejection policy, `orTimeout`, fallbacks, the response.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::draw::{Attempts, call_draw};
use crate::flow::accept::{Ack, Syn, Then, Wake, request_of_try};
use crate::flow::call::{CallFuture, Made};
use crate::flow::handling::{self, Effect, Happened};
use crate::flow::settle::Settled;
use crate::flow::{self, CallResult, Detail, FailReason, Rejection, Verdict};
use crate::metrics::Outcome;
use crate::scenario::ServiceId;
use crate::time::Nanos;
use crate::topology::PoolId;
use threadlab_model::snapshot::status_text;

use super::clock::STOP_POLL;
use super::cores::OnVirtual;
use super::guard::Guarded;
use super::resources::Held;
use super::sync::{CoreEnd, Ctx, OnTask, OnThread, block_on, lock};
use super::task::{CallTask, DELAYER, Deferred, PermitWait, RealTask, Req, Response, StageJoin};
use super::world::World;
use crate::flow::call_guard::Admitting;

/// The handler's view of its request so far.
pub(super) type HandlerVerdict = Verdict<String>;

/// What a rejected submission left behind.
enum Rejected {
    /// The call's future is pending: `orTimeout` applies.
    Armed,
    /// The call's future needs no deadline: it is complete, or its attempt runs on
    /// resilience4j's scheduler thread, whose `supplyAsync` returns it complete.
    Completed,
    /// `CallerRunsPolicy`: the handler runs the call itself.
    RunsHere(CallTask),
    /// The stage ends here.
    Ends(StageEnd),
}

/// A stage's calls as its handler tracks them (their futures are the stage join's): each
/// one's last attempt made (its number; during a retry's pause the future already waits for
/// the next), `orTimeout` deadline, and when the scheduler makes its next attempt (and whether
/// its guards already let it through).
struct StageCalls {
    slots: Vec<u16>,
    deadlines: Vec<Option<Instant>>,
    retries: Vec<Option<(Instant, bool)>>,
    /// The calls whose futures the handler has not yet settled for good.
    pending: usize,
}

impl StageCalls {
    fn new(calls: usize) -> Self {
        StageCalls {
            slots: vec![0; calls],
            deadlines: vec![None; calls],
            retries: vec![None; calls],
            pending: calls,
        }
    }
}

/// Where an attempt of a stage's call goes, and who submits it.
struct Launch<'a> {
    join: &'a Arc<StageJoin>,
    index: usize,
    pool: PoolId,
    me: &'a str,
    submitter: threadlab_model::pool::Submitter,
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
            let fate = net.listener.syn(Arc::clone(&req), at);
            if fate == Syn::Dropped {
                net.stats.syn_drops += 1;
            } else {
                // The handshake completes at the client half a round trip later.
                net.stats.accept_queue_max = net.listener.queue_max();
                net.connect.record((at + half).saturating_sub(req.arrival));
            }
            fate
        };
        let then = Then::after_syn(fate, &link, at, req.arrival, drops);
        self.carry_out(req, then, at);
    }

    /// Carries out, from scenario time `now`, what the connection layer said follows
    /// (`flow::accept::Then`), as the engine does.
    fn carry_out(self: &Arc<Self>, req: Arc<Req>, then: Then, now: Nanos) {
        match then {
            Then::Dispatch { at } => self.after(at, move |w| w.dispatch(req)),
            Then::DispatchNow => self.dispatch(req),
            // An idle acceptor starts on it now; a busy one, or one waiting for a slot, comes
            // to it after its turn (`accepted`) or a close (`close_connection`).
            Then::WakeAcceptor => self.wake_acceptor(now),
            Then::Ack { at, syn_at, drops } => {
                self.after(at, move |w| w.ack(req, at, syn_at, drops));
            }
            Then::Syn { at, drops } => self.after(at, move |w| w.syn(req, at, drops)),
            Then::ConnectFails { at } => self.after(at, move |w| w.connect_failed(&req)),
            Then::Reset { at } => self.after(at, move |w| w.refuse(&req)),
        }
    }

    /// The client's ACK of the handshake whose SYN reached the listen socket at `syn_at`
    /// reaches it at `at`, after `drops` dropped ones: [`crate::flow::accept`] decides, and
    /// [`ack_retry`] says when the client tries again, as in the engine.
    fn ack(self: &Arc<Self>, req: Arc<Req>, at: Nanos, syn_at: Nanos, drops: u32) {
        if req.client_has_outcome() {
            return;
        }
        let rtt = self.scenario.load.link.rtt;
        let request_at = request_of_try(rtt, syn_at, drops, at);
        let fate = {
            let mut net = lock(&self.net);
            let fate = net.listener.ack(Arc::clone(&req), at, request_at);
            match fate {
                Ack::Overflow => net.stats.ack_overflows += 1,
                Ack::Queued => net.stats.accept_queue_max = net.listener.queue_max(),
                Ack::Accepted => {}
            }
            fate
        };
        let then = Then::after_ack(fate, rtt, syn_at, drops, request_at, at);
        self.carry_out(req, then, at);
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
                // maxQueueSize reached: Tomcat closes the socket unread, once the CPU the
                // connection cost it (accept, poll, close) has run. That runs on a core of
                // its own (a blocking thread, one per core), as the simulation takes one,
                // not on the thread that goes on dispatching the next connections.
                lock(&self.net).stats.closed_by_max_queue += 1;
                let connector = &self.scenario.server.connector;
                let cpu = self.clock.real(connector.cpu_per_rejected_connection);
                if cpu.is_zero() {
                    self.reset(&req);
                } else {
                    let world = Arc::clone(self);
                    drop(self.rt.spawn_blocking(move || {
                        super::cpu::spin(cpu);
                        world.reset(&req);
                    }));
                }
            }
            Err(RealTask::Call(_)) => {}
        }
    }

    /// A connection closed: its slot frees, and the acceptor looks at the accept queue.
    pub(super) fn close_connection(self: &Arc<Self>) {
        lock(&self.net).listener.close();
        self.wake_acceptor(self.clock.now());
    }

    /// The acceptor looks at the accept queue at `now` (scenario time): with no accept cost
    /// it takes the oldest connection at once, whose request is already there; else it
    /// starts its turn on it, which ends at `done` (`accepted`).
    fn wake_acceptor(self: &Arc<Self>, now: Nanos) {
        let wake = lock(&self.net).listener.wake(now);
        match wake {
            Wake::Accepted(req) => self.dispatch(req),
            Wake::Accepting { done } => self.after(done, move |w| w.accepted(done)),
            Wake::Idle => {}
        }
    }

    /// The acceptor's turn ends at `at`: it registers the connection with the poller, which
    /// hands its request on once that has arrived (one round trip after the SYN), and goes
    /// back to the queue.
    fn accepted(self: &Arc<Self>, at: Nanos) {
        let handed = lock(&self.net).listener.accepted();
        self.wake_acceptor(at);
        let Some(handed) = handed else {
            return;
        };
        let then = Then::after_accepted(handed.request_at, at);
        self.carry_out(handed.connection, then, at);
    }

    /// Tomcat's poller closes a kept-alive connection idle for `keepAliveTimeout`.
    pub(super) fn close_idle(self: &Arc<Self>) {
        lock(&self.net).stats.closed_idle += 1;
        self.close_connection();
    }

    /// The connection of a request the executor's queue had no room for closes: its slot
    /// frees and its client sees a reset.
    fn reset(self: &Arc<Self>, req: &Req) {
        self.close_connection();
        self.refuse(req);
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
                    attempt: c.attempt,
                    result,
                    thread: me.to_string(),
                },
                None => Deferred::None,
            },
        }
    }

    /// The handler: its lifecycle (`flow::handling`) says each step (shed, the door, its
    /// own CPU work, each stage in turn, the error page) and this thread carries it out.
    async fn handle<C: Ctx>(self: &Arc<Self>, ctx: &C, req: Arc<Req>, me: &str) -> Deferred {
        let _unused = req.handler.set(me.to_string());
        let plan = handling::HandlerPlan::of(&self.scenario);
        let mut life = handling::Handling::default();
        let mut progress = HandlerVerdict::default();
        let now = self.clock.now();
        let _unused = req.handler_at.set(now);
        let waited = now.saturating_sub(req.queued_at.get().copied().unwrap_or(now));
        let mut happened = Happened::Taken { waited };
        loop {
            let now = self.clock.now();
            let effect = life.step(&plan, &mut lock(&self.guards), happened, now);
            happened = match effect {
                Effect::WaitForDoor(wait) => {
                    // The handler thread waits for its reserved permit.
                    if !ctx.sleep_until(self.clock.at(now + wait)).await {
                        return Deferred::None;
                    }
                    Happened::DoorOpen
                }
                Effect::Cpu(cost) => {
                    if !self.run_cpu(ctx, cost).await {
                        return Deferred::None;
                    }
                    Happened::CpuDone
                }
                Effect::Stage(stage) => {
                    match self.run_stage(ctx, &req, stage, &mut progress, me).await {
                        StageEnd::Done => Happened::StageDone {
                            failed: progress.failed(),
                        },
                        StageEnd::Respond => Happened::Answer {
                            failed: progress.failed(),
                        },
                        StageEnd::Stopped => return Deferred::None,
                    }
                }
                Effect::Unserved(why) => {
                    // Counted while the run lasts, as every outcome.
                    let mut books = lock(&self.books);
                    let counts = (now <= self.limit).then_some(&mut books.book.resilience);
                    why.apply(&mut progress, counts);
                    Happened::Answer { failed: true }
                }
                Effect::ErrorPage(cost) => {
                    // The exception reaches the container, which logs it and renders the
                    // error page before the 500 is written.
                    if !self.run_cpu(ctx, cost).await {
                        return Deferred::None;
                    }
                    Happened::ErrorPageDone
                }
                // One thread tells the machine each thing in turn: nothing comes too late.
                Effect::Write | Effect::Nothing => return self.respond(&req, &progress, me),
            };
        }
    }

    async fn run_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        stage: usize,
        progress: &mut HandlerVerdict,
        me: &str,
    ) -> StageEnd {
        if req.strategy.calls_inline() {
            return self.run_inline_stage(ctx, req, stage, progress, me).await;
        }
        let services = &self.scenario.endpoint.stages[stage];
        let join = Arc::new(StageJoin::new(services.len()));
        let mut calls = StageCalls::new(services.len());
        for (i, &service) in services.iter().enumerate() {
            let call = self.topology.call_number(stage, i);
            let Some(pool) = self.pool_for(service) else {
                continue;
            };
            self.first_call_attempt(service);
            calls.slots[i] = call;
            let mut passage = join.passage(i);
            let guarded = self.ask_guards(ctx, (req.strategy, service), &mut passage);
            let guarded = guarded.await;
            join.passed(i, passage);
            match guarded {
                // A call on a pool's thread holds no permit: holding guards guard only calls
                // made on the caller's thread (`Admit::Hold`).
                Guarded::Go(holds) => self.release_holds(service, holds),
                Guarded::Failed(result) => {
                    join.complete(i, 0, result, me.to_string());
                    continue;
                }
                Guarded::Stopped => return StageEnd::Stopped,
            }
            let submitter = self.submitter_named(me);
            let launch = Launch {
                join: &join,
                index: i,
                pool,
                me,
                submitter,
            };
            if let Err(end) = self.launch(ctx, req, launch, &mut calls, progress).await {
                return end;
            }
        }
        self.join_stage(ctx, req, &join, &mut calls, progress, None)
            .await
    }

    /// `supplyAsync(call, pool)` for the attempt `calls.slots[index]` of the stage's call
    /// `index`: its deadline is armed unless its future is already complete; Err when the
    /// stage ends here (abort, or the run stopped).
    async fn launch<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        launch: Launch<'_>,
        calls: &mut StageCalls,
        progress: &mut HandlerVerdict,
    ) -> Result<(), StageEnd> {
        let i = launch.index;
        let call = calls.slots[i];
        let timeout = self.scenario.service(self.service_of(call)).timeout;
        let job = RealTask::Call(CallTask {
            req: Arc::clone(req),
            call,
            index: i,
            attempt: launch.join.attempt(i),
            join: Arc::clone(launch.join),
        });
        let submitted = self.submit_call(ctx, launch.pool, job, launch.submitter);
        let submitted = submitted.await;
        // Armed once submitted: after the creation of a new thread for it, as in the engine.
        let timeout_at = timeout.map(|t| Instant::now() + self.clock.real(t));
        let Err(job) = submitted else {
            calls.deadlines[i] = timeout_at;
            return Ok(());
        };
        match self.reject(launch.pool, job, progress, launch.me) {
            Rejected::Armed => calls.deadlines[i] = timeout_at,
            Rejected::Completed => {}
            Rejected::RunsHere(task) => {
                let ran = self.run_here(ctx, req, task, launch.me, calls, progress);
                if let StageEnd::Stopped = ran.await {
                    return Err(StageEnd::Stopped);
                }
            }
            Rejected::Ends(end) => return Err(end),
        }
        Ok(())
    }

    /// Sequential and semaphore code: the handler makes each call itself (under `semaphore`
    /// once it holds a permit); the service's timeout is its read timeout.
    async fn run_inline_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        stage: usize,
        progress: &mut HandlerVerdict,
        me: &str,
    ) -> StageEnd {
        let services = &self.scenario.endpoint.stages[stage];
        for (i, &service) in services.iter().enumerate() {
            // Sequential code throws at the first failure without fallback.
            if progress.failed() {
                return StageEnd::Respond;
            }
            self.first_call_attempt(service);
            let mut call = self.topology.call_number(stage, i);
            let mut future = CallFuture::NEW;
            // resilience4j's synchronous `Retry`: this thread sleeps out each pause and makes
            // the call again.
            loop {
                let made = self.attempt_inline(ctx, req, call, service, &mut future);
                let Some(result) = made.await else {
                    return StageEnd::Stopped;
                };
                // Its caller has the value: nothing else can complete this future first.
                let claimed = future.claim(future.attempt());
                debug_assert!(claimed, "an inline call's future is its caller's alone");
                let completer = me.to_string();
                let settled = self.settle(req, &mut future, call, result, completer, progress);
                let Settled::Again(pause) = settled else {
                    break;
                };
                let wake = self.clock.at(self.clock.now() + pause);
                if !ctx.sleep_until(wake).await {
                    return StageEnd::Stopped;
                }
                call = self.slots.next(call);
            }
        }
        StageEnd::Done
    }

    /// One attempt of an inline call: its guards (through its `future`'s passage; under
    /// `semaphore` the bulkhead's permit among them), then the call with the service's
    /// timeout as its read timeout, then the permits it held go back. Its result; None when
    /// the run stopped.
    async fn attempt_inline<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        call: u16,
        service: ServiceId,
        future: &mut CallFuture,
    ) -> Option<CallResult> {
        let read_timeout = self.scenario.service(service).timeout;
        let guarded = self.ask_guards(ctx, (req.strategy, service), future.passage_mut());
        let holds = match guarded.await {
            Guarded::Go(holds) => holds,
            Guarded::Failed(result) => return Some(result),
            Guarded::Stopped => return None,
        };
        let result = self.perform_call(ctx, req, call, read_timeout).await;
        self.release_holds(service, holds);
        result
    }

    /// The pool rejected a call: its rejection policy decides.
    fn reject(
        self: &Arc<Self>,
        pool: PoolId,
        task: RealTask,
        progress: &mut HandlerVerdict,
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
                    .complete(c.index, c.attempt, CallResult::Rejected, me.to_string());
                return Rejected::Completed;
            }
            // A retry resilience4j's scheduler submitted runs on the scheduler's thread: the
            // handler's join goes on meanwhile (the engine's `start_inline` with no submitter).
            Rejection::RunsOnCaller if me == DELAYER => {
                self.perform_elsewhere(c, false, CoreEnd::default(), DELAYER.into(), None);
                return Rejected::Completed;
            }
            Rejection::RunsOnCaller => return Rejected::RunsHere(c),
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
    /// at each call's deadline; a completion the call's `[services.retry]` retries reopens
    /// its future, and resilience4j's scheduler makes the next attempt after the pause.
    /// With `until`, the same goes on only until it is set: the delay scheduler's and
    /// resilience4j's work while the handler runs a call itself (`run_here`).
    async fn join_stage<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        join: &Arc<StageJoin>,
        calls: &mut StageCalls,
        progress: &mut HandlerVerdict,
        until: Option<&AtomicBool>,
    ) -> StageEnd {
        loop {
            while let Some(c) = join.completions.pop() {
                let call = calls.slots[c.index];
                // The attempt claimed its future on its own thread; the handler settles it.
                let mut future = join.claimed(c.index);
                let settled = self.settle(req, &mut future, call, c.result, c.thread, progress);
                join.settled(c.index, future);
                match settled {
                    Settled::Again(pause) => {
                        calls.deadlines[c.index] = None;
                        let at = self.clock.at(self.clock.now() + pause);
                        calls.retries[c.index] = Some((at, false));
                    }
                    Settled::Completed(_) => calls.pending -= 1,
                }
            }
            let done = match until {
                Some(ran) => ran.load(Ordering::SeqCst) && join.completions.is_empty(),
                None => calls.pending == 0,
            };
            if done {
                return StageEnd::Done;
            }
            if ctx.stopped() {
                return StageEnd::Stopped;
            }
            let now = Instant::now();
            let mut next = now + STOP_POLL;
            for (i, deadline) in calls.deadlines.iter_mut().enumerate() {
                match *deadline {
                    Some(d) if d <= now => {
                        *deadline = None;
                        let service = self.service_of(calls.slots[i]);
                        self.time_out(join, i, join.attempt(i), service);
                    }
                    Some(d) => next = next.min(d),
                    None => {}
                }
            }
            for i in 0..calls.slots.len() {
                match calls.retries[i] {
                    Some((at, _)) if at <= now => {
                        let made = self.retry_call(ctx, req, join, i, calls, progress);
                        if let Err(end) = made.await {
                            return end;
                        }
                    }
                    Some((at, _)) => next = next.min(at),
                    None => {}
                }
            }
            if join.completions.is_empty() {
                ctx.wait(&join.completions, next).await;
            }
        }
    }

    /// `CallerRunsPolicy`: the handler runs call task `task` itself, and goes on with its
    /// stage's submissions only when it is done. Meanwhile the stage's other futures go on as
    /// in the JVM, where other threads move them: `orTimeout` fires on the delay scheduler's
    /// thread, resilience4j's scheduler makes retries. The real handler plays those while a
    /// thread of the runtime's (of the handler's kind) spends the call's time in its place.
    async fn run_here<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        task: CallTask,
        me: &str,
        calls: &mut StageCalls,
        progress: &mut HandlerVerdict,
    ) -> StageEnd {
        let ran = Arc::new(AtomicBool::new(false));
        let join = Arc::clone(&task.join);
        // The CPU the handler spent just before goes on into the call's (on the carrier a
        // virtual handler kept).
        let core_end = CoreEnd::default();
        if let Some(at) = ctx.core_end().take_kept() {
            core_end.keep(at);
        } else if let Some(at) = ctx.core_end().take() {
            core_end.set(at);
        }
        let done = Some(Arc::clone(&ran));
        self.perform_elsewhere(task, ctx.on_virtual(), core_end, me.to_string(), done);
        // Boxed: the join may make a retry, whose launch is this one's caller.
        Box::pin(self.join_stage(ctx, req, &join, calls, progress, Some(&ran))).await
    }

    /// Spends call task `task`'s time on a thread of the runtime's in the place of its
    /// `completer` (a virtual one, or a blocking one for a platform thread), then completes
    /// its future there; `ran` (the handler running it itself) is set first, so its join sees
    /// both together. Nothing completes when the run stopped meanwhile.
    fn perform_elsewhere(
        self: &Arc<Self>,
        task: CallTask,
        on_virtual: bool,
        core_end: CoreEnd,
        completer: String,
        ran: Option<Arc<AtomicBool>>,
    ) {
        let world = Arc::clone(self);
        let done = move |made: Option<CallResult>| {
            if let Some(result) = made {
                if let Some(ran) = ran {
                    ran.store(true, Ordering::SeqCst);
                }
                task.join
                    .complete(task.index, task.attempt, result, completer);
            }
        };
        if on_virtual {
            drop(self.rt.spawn(async move {
                let ctx = OnVirtual {
                    task: OnTask(&world.stop, core_end),
                    cores: &world.cores,
                };
                let made = world.perform_call(&ctx, &task.req, task.call, None).await;
                ctx.unmount();
                done(made);
            }));
        } else {
            drop(self.rt.spawn_blocking(move || {
                let ctx = OnThread(&world.stop, core_end);
                done(block_on(
                    world.perform_call(&ctx, &task.req, task.call, None),
                ));
            }));
        }
    }

    /// The scheduler makes the next attempt of the stage's call `i`, its pause over: its
    /// guards first (a limiter's reserved permit brings the scheduler back when it is due; a
    /// refusal completes the attempt), then its pool.
    async fn retry_call<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        req: &Arc<Req>,
        join: &Arc<StageJoin>,
        i: usize,
        calls: &mut StageCalls,
        progress: &mut HandlerVerdict,
    ) -> Result<(), StageEnd> {
        let admitted = calls.retries[i]
            .take()
            .is_some_and(|(_, admitted)| admitted);
        let call = self.slots.next(calls.slots[i]);
        let service = self.service_of(call);
        if self.guarded(req.strategy) {
            let how = if admitted {
                Admitting::Resume
            } else {
                Admitting::Make
            };
            let (waiter, wait) = (self.waiters.token(), Arc::new(PermitWait::default()));
            let mut passage = join.passage(i);
            let guard = (req.strategy, service);
            let made = self.admit_once(how, guard, &mut passage, (waiter, &wait));
            let guarded = match made {
                Made::Wait(pause) => {
                    join.passed(i, passage);
                    let at = self.clock.at(self.clock.now() + pause);
                    calls.retries[i] = Some((at, true));
                    return Ok(());
                }
                Made::Go(holds) => Guarded::Go(holds),
                Made::Failed(result) => Guarded::Failed(result),
                // Queued at a guard: the scheduler waits for its permit.
                Made::Queued(_) => {
                    self.wait_out(ctx, guard, &mut passage, made, (waiter, wait))
                        .await
                }
            };
            join.passed(i, passage);
            match guarded {
                Guarded::Go(holds) => self.release_holds(service, holds),
                Guarded::Failed(result) => {
                    calls.slots[i] = call;
                    join.complete(i, join.attempt(i), result, DELAYER.into());
                    return Ok(());
                }
                Guarded::Stopped => return Err(StageEnd::Stopped),
            }
        }
        // The future was reopened to this attempt when the last one settled.
        calls.slots[i] = call;
        let Some(pool) = self.pool_for(service) else {
            return Ok(());
        };
        let launch = Launch {
            join,
            index: i,
            pool,
            me: DELAYER,
            submitter: threadlab_model::pool::Submitter::OUTSIDE,
        };
        self.launch(ctx, req, launch, calls, progress).await
    }

    /// `orTimeout` completes attempt `attempt` of the stage's call `index` (of `service`)
    /// exceptionally on the delay scheduler's thread, unless it completed first.
    fn time_out(&self, join: &StageJoin, index: usize, attempt: u32, service: ServiceId) {
        if join.complete(index, attempt, CallResult::TimedOut, DELAYER.into()) {
            lock(&self.books).book.services[service.0].timeouts += 1;
        }
    }

    /// A call dropped by discard or discard-oldest: its future never completes.
    fn discarded(&self, job: &RealTask) {
        if let RealTask::Call(c) = job {
            let service = self.service_of(c.call);
            lock(&self.books).book.services[service.0].discarded += 1;
        }
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
        let attempts = Attempts {
            request: req.attempt,
            call: self.slots.attempt(call),
        };
        let index = usize::from(self.slots.call(call));
        let draw = call_draw(self.scenario.seed, req.id, index, attempts, svc);
        let fault = lock(&self.faults)[service.0];
        // A replayed request takes the latency its trace row recorded.
        let recorded = self.scenario.load.mode.recorded_latency(req.id, service);
        let latency = flow::call_latency(draw.latency, recorded, fault, svc.hang, draw.hang_u);
        let cut = flow::read_timeout_cut(read_timeout, latency);
        let failure = flow::failure_probability(svc, fault);
        // A connection, a core for its CPU (kept through the wait when pinned); its CPU time
        // really runs: the thread spins, then waits its latency.
        let holding = match self.hold_for_call(ctx, service).await {
            Held::Runs(holding) => holding,
            Held::NoConnection => {
                let result = CallResult::of_call(cut.is_some(), true, draw.fail_u, failure);
                result.count(&mut lock(&self.books).book.services[service.0]);
                return Some(result);
            }
            Held::Stopped => return None,
        };
        let ran = self.call_cpu(ctx, svc.cpu, &holding).await;
        let wait = cut.unwrap_or(latency);
        let ends = self.call_ends(&holding, svc.cpu, wait);
        let slept = ran && ctx.sleep_until(ends).await;
        self.let_go(holding, svc.cpu + wait);
        if !slept {
            return None;
        }
        let result = CallResult::of_call(cut.is_some(), false, draw.fail_u, failure);
        let mut books = lock(&self.books);
        result.count(&mut books.book.services[service.0]);
        Some(result)
    }

    fn respond(&self, req: &Arc<Req>, p: &HandlerVerdict, me: &str) -> Deferred {
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
