//! The engine's hooks into its [`Timeline`]: one call at each point where a thread's work
//! changes. Every hook returns at once when no timeline is recorded, so a run without one
//! costs a branch per hook.

use crate::time::Nanos;

use super::engine::{Engine, PoolId};
use super::handles::ThreadRef;
use super::request::ReqRef;
use super::trace::{HANDLER, LaneKey, Retention, Sample, Span, SpanKind, Timeline};

impl Engine {
    /// Starts recording thread timelines from now on.
    pub fn record_timeline(&mut self, retention: Retention) {
        self.trace = Some(Box::new(Timeline::new(retention)));
    }

    /// The recorded timelines, if recording.
    pub fn timeline(&self) -> Option<&Timeline> {
        self.trace.as_deref()
    }

    fn lane_of(&self, thread: ThreadRef) -> Option<(LaneKey, u32)> {
        let ThreadRef::Worker { pool, slot } = thread else {
            return None;
        };
        let number = self.pools.get(pool)?.thread_number(slot);
        Some((LaneKey { pool, slot }, number))
    }

    fn request_id(&self, r: ReqRef) -> u64 {
        self.requests.get(r).map_or(0, |q| q.id)
    }

    /// A task entered `pool`'s queue (`call` is `HANDLER` for a request in Tomcat's).
    fn queue_task(&mut self, r: ReqRef, call: u16, pool: PoolId) {
        let mut span = Span::open(self.now, SpanKind::Queued, 0, self.request_id(r));
        if call != HANDLER {
            span.service = Some(self.service_of(call));
        }
        if let Some(t) = self.trace.as_mut() {
            t.queued.insert((r, call), (pool, span));
        }
    }

    /// A task left its queue (to run, or dropped): its wait ends now.
    fn dequeue_task(&mut self, r: ReqRef, call: u16) -> Option<Nanos> {
        let now = self.now;
        let t = self.trace.as_mut()?;
        let (pool, mut span) = t.queued.remove(&(r, call))?;
        span.end = now;
        let since = span.start;
        t.close_queued(pool, span);
        Some(since)
    }

    /// Hook: a call was queued in `pool`.
    pub(super) fn trace_queued(&mut self, r: ReqRef, call: u16, pool: PoolId) {
        if self.trace.is_some() {
            self.queue_task(r, call, pool);
        }
    }

    /// Hook: a request waits in the server pool's queue.
    pub(super) fn trace_handler_queued(&mut self, r: ReqRef) {
        if self.trace.is_some() {
            self.queue_task(r, HANDLER, self.topology.server());
        }
    }

    /// Hook: a queued call left its queue without running (stale or discarded).
    pub(super) fn trace_dequeued(&mut self, r: ReqRef, call: u16) {
        if self.trace.is_some() {
            self.dequeue_task(r, call);
        }
    }

    /// Hook: a call starts on `thread` (after its queue wait, if any).
    #[inline]
    pub(super) fn trace_call_start(&mut self, r: ReqRef, call: u16, thread: ThreadRef) {
        if self.trace.is_some() {
            self.trace_call_start_recorded(r, call, thread);
        }
    }

    fn trace_call_start_recorded(&mut self, r: ReqRef, call: u16, thread: ThreadRef) {
        let queued_since = self.dequeue_task(r, call);
        let Some((key, number)) = self.lane_of(thread) else {
            return;
        };
        let mut span = Span::open(self.now, SpanKind::Call, number, self.request_id(r));
        span.service = Some(self.service_of(call));
        let submitter = self.requests.get(r).and_then(|q| q.submitter);
        if let Some((from, from_number)) = submitter.and_then(|s| self.lane_of(s))
            && from != key
        {
            span.from = Some((from.pool, from_number, queued_since.unwrap_or(self.now)));
        }
        if let Some(t) = self.trace.as_mut() {
            t.lane_mut(key).call = Some(span);
        }
    }

    fn call_lane(&self, r: ReqRef, call: u16) -> Option<LaneKey> {
        let thread = self.requests.get(r)?.calls.get(call as usize)?.thread?;
        self.lane_of(thread).map(|(key, _)| key)
    }

    /// Hook: a call runs `burst` of CPU time on a core, from now.
    #[inline]
    pub(super) fn trace_cpu(&mut self, r: ReqRef, call: u16, burst: Nanos) {
        if self.trace.is_some() {
            self.trace_cpu_recorded(r, call, burst);
        }
    }

    fn trace_cpu_recorded(&mut self, r: ReqRef, call: u16, burst: Nanos) {
        let Some(key) = self.call_lane(r, call) else {
            return;
        };
        let now = self.now;
        let service = self.service_of(call);
        if let Some(t) = self.trace.as_mut()
            && let Some(open) = t.lane(key).and_then(|l| l.call)
        {
            let mut span = Span::open(now, SpanKind::OnCore, open.thread, open.request);
            span.end = now + burst;
            span.service = Some(service);
            t.close(key, span);
        }
    }

    /// Hook: a call starts its wait; a pinned virtual thread keeps its carrier meanwhile.
    pub(super) fn trace_wait(&mut self, r: ReqRef, call: u16, pinned: bool) {
        if !pinned || self.trace.is_none() {
            return;
        }
        let key = self.call_lane(r, call);
        if let (Some(t), Some(key)) = (self.trace.as_mut(), key)
            && let Some(open) = t.lane_mut(key).call.as_mut()
        {
            open.pinned = true;
        }
    }

    /// Hook: the caller's `orTimeout` gave up on a call; a running call keeps its thread.
    #[inline]
    pub(super) fn trace_call_timeout(&mut self, r: ReqRef, call: u16) {
        if self.trace.is_some() {
            self.trace_call_timeout_recorded(r, call);
        }
    }

    fn trace_call_timeout_recorded(&mut self, r: ReqRef, call: u16) {
        let now = self.now;
        let key = self.call_lane(r, call);
        let fallback = self
            .scenario
            .service(self.service_of(call))
            .fallback
            .is_some();
        if let (Some(t), Some(key)) = (self.trace.as_mut(), key)
            && let Some(open) = t.lane_mut(key).call.as_mut()
        {
            open.timed_out_at.get_or_insert(now);
            // The caller saw a timeout (and took the fallback, if any), however the call
            // that goes on running ends.
            open.fallback = fallback;
        }
    }

    /// Hook: a call ended with `outcome` (`failed` when its caller saw an error).
    #[inline]
    pub(super) fn trace_call_end(&mut self, r: ReqRef, call: u16, outcome: &'static str) {
        if self.trace.is_some() {
            self.trace_call_end_recorded(r, call, outcome);
        }
    }

    fn trace_call_end_recorded(&mut self, r: ReqRef, call: u16, outcome: &'static str) {
        let Some(key) = self.call_lane(r, call) else {
            return;
        };
        let service = self.service_of(call);
        let fallback = outcome != "ok" && self.scenario.service(service).fallback.is_some();
        let now = self.now;
        if let Some(t) = self.trace.as_mut()
            && let Some(mut span) = t.lane_mut(key).call.take()
        {
            span.end = now;
            // A call its caller's timeout gave up on ended, for the caller, at the timeout.
            if span.timed_out_at.is_none() {
                span.outcome = Some(outcome);
                span.fallback = fallback;
            } else {
                span.outcome = Some(crate::flow::CallResult::TimedOut.label());
            }
            t.close(key, span);
        }
    }

    /// Hook: a request's handler starts on `thread`.
    #[inline]
    pub(super) fn trace_handler_start(&mut self, r: ReqRef, thread: ThreadRef) {
        if self.trace.is_some() {
            self.trace_handler_start_recorded(r, thread);
        }
    }

    fn trace_handler_start_recorded(&mut self, r: ReqRef, thread: ThreadRef) {
        self.dequeue_task(r, HANDLER);
        let Some((key, number)) = self.lane_of(thread) else {
            return;
        };
        let span = Span::open(self.now, SpanKind::Handler, number, self.request_id(r));
        if let Some(t) = self.trace.as_mut() {
            t.lane_mut(key).handler = Some(span);
        }
    }

    fn handler_lane(&self, r: ReqRef) -> Option<LaneKey> {
        let handler = self.requests.get(r)?.handler?;
        self.lane_of(handler).map(|(key, _)| key)
    }

    /// Hook: the handler lets go of its thread (response sent, or returned async).
    #[inline]
    pub(super) fn trace_handler_end(&mut self, r: ReqRef) {
        if self.trace.is_some() {
            self.trace_handler_end_recorded(r);
        }
    }

    fn trace_handler_end_recorded(&mut self, r: ReqRef) {
        self.trace_handler_resumes(r);
        let Some(key) = self.handler_lane(r) else {
            return;
        };
        let now = self.now;
        if let Some(t) = self.trace.as_mut()
            && let Some(mut span) = t.lane_mut(key).handler.take()
        {
            span.end = now;
            t.close(key, span);
        }
    }

    /// Hook: the handler has submitted its stage; it blocks in `join()` if calls are pending.
    pub(super) fn trace_handler_waits(&mut self, r: ReqRef) {
        if self.trace.is_none() || self.scenario.server.async_ {
            return;
        }
        let Some(req) = self.requests.get(r) else {
            return;
        };
        if req.pending == 0 || !req.serving.handler_held() || req.submitter != req.handler {
            return;
        }
        let Some(key) = self.handler_lane(r) else {
            return;
        };
        let span = Span::open(self.now, SpanKind::Waiting, 0, req.id);
        if let Some(t) = self.trace.as_mut() {
            let lane = t.lane_mut(key);
            if lane.waiting.is_none() {
                let thread = lane.handler.map_or(0, |h| h.thread);
                lane.waiting = Some(Span { thread, ..span });
            }
        }
    }

    /// Hook: the handler wakes from `join()` (its stage is complete).
    #[inline]
    pub(super) fn trace_handler_resumes(&mut self, r: ReqRef) {
        if self.trace.is_some() {
            self.trace_handler_resumes_recorded(r);
        }
    }

    fn trace_handler_resumes_recorded(&mut self, r: ReqRef) {
        let Some(key) = self.handler_lane(r) else {
            return;
        };
        let now = self.now;
        if let Some(t) = self.trace.as_mut()
            && let Some(mut span) = t.lane_mut(key).waiting.take()
        {
            span.end = now;
            t.close(key, span);
        }
    }

    /// Hook: the series are sampled; the counters follow them.
    #[inline]
    pub(super) fn trace_sample(&mut self, at: Nanos) {
        if self.trace.is_some() {
            self.trace_sample_recorded(at);
        }
    }

    fn trace_sample_recorded(&mut self, at: Nanos) {
        let sample = Sample {
            at,
            in_flight: self.in_flight(),
            pools: self
                .pools
                .iter()
                .map(|p| super::trace::PoolSample {
                    active: p.active(),
                    queued: p.queued(),
                })
                .collect(),
        };
        if let Some(t) = self.trace.as_mut() {
            t.sample(sample);
        }
    }
}
