//! The JVM's own costs (`[jvm]`): warm-up and garbage collection.
//!
//! Warm-up: CPU work (the handler's, its calls', an error page's) costs
//! [`Warmup::multiplier`] times its warm cost, by the requests answered so far; each new
//! thread of Tomcat's pool beyond `min_spare` costs `thread_start` of CPU before it takes
//! its first request.
//!
//! Garbage collection: requests and calls allocate; when eden is full a collection starts
//! (an [`Event::Gc`] right after the event that filled it). A stop-the-world pause stops
//! every Java thread: an event of the JVM (a thread's CPU burst ending, a call's answer read,
//! a timer, the Acceptor, a pool worker) that falls inside the pause waits for its end, and
//! CPU work under way when it began ends that much later (the thread stood still). The
//! kernel and the clients go on: SYNs and ACKs are queued and dropped as usual, clients send
//! and time out. A concurrent collector (ZGC) pauses for a few tens of microseconds and
//! spends its cycle's CPU on a core beside the application's threads.
//!
//! Connector threads (`[jvm.connector_threads]`): the Acceptor's turn waits for a core and
//! holds it for `accept_cost`; the Poller spends its CPU on a core per request it hands on
//! (and per new connection it registers), beside the request.
//!
//! Errors: a rejected submission whose `RejectedExecutionException` is caught and logged
//! costs CPU (`[jvm.errors]`); one that escapes to Tomcat costs `server.cpu_per_error`.
//!
//! Off (no `[jvm]` table), the engine keeps no state here and pays one check per event.

use super::engine::Engine;
use super::event::Event;
use super::parts::cpu::CpuJob;
use super::parts::jvm::*;
use crate::scenario::Collection;
use crate::time::Nanos;
use threadlab_model::snapshot::{GC_RECENT_PAUSES, GcSnapshot};
impl Engine {
    /// Holds back an event of a Java thread that a pause stops: it goes back to the queue
    /// at the pause's end (or later, by the pauses its CPU burst stood through). True when
    /// it was held.
    #[cold]
    #[inline(never)]
    pub(super) fn held_by_pause(&mut self, event: Event) -> bool {
        let Some(jvm) = self.jvm.as_deref() else {
            return false;
        };
        let Some(how) = stopped(event) else {
            return false;
        };
        let (now, seq) = self.events.last_key();
        let mut at = now;
        if how == Stopped::Work {
            at += jvm.paused_since(seq);
        }
        at = at.max(jvm.pause_until);
        if at <= now {
            return false;
        }
        self.events.push(at, event);
        true
    }

    /// CPU work of `cost` on a JVM that is warming up.
    #[inline]
    pub(super) fn warm(&self, cost: Nanos) -> Nanos {
        match self.jvm.as_deref() {
            Some(jvm) => jvm.warm(cost),
            None => cost,
        }
    }

    /// A request was answered: its handler's allocation, and one more served.
    #[inline]
    pub(super) fn jvm_request_done(&mut self) {
        if let Some(jvm) = self.jvm.as_deref_mut() {
            jvm.served += 1;
            let bytes = jvm.gc.map_or(0, |gc| gc.alloc_per_request);
            if jvm.allocate(bytes) {
                self.schedule(self.now, Event::Gc);
            }
        }
    }

    /// A call ended: its allocation.
    #[inline]
    pub(super) fn jvm_call_done(&mut self) {
        if let Some(jvm) = self.jvm.as_deref_mut() {
            let bytes = jvm.gc.map_or(0, |gc| gc.alloc_per_call);
            if jvm.allocate(bytes) {
                self.schedule(self.now, Event::Gc);
            }
        }
    }

    /// The collection starts: every Java thread stops for its pause (events scheduled
    /// until now are the ones under way); a concurrent cycle's work takes a core.
    pub(super) fn on_gc(&mut self) {
        let now = self.now;
        let seq = self.events.reserve_seq();
        let Some(jvm) = self.jvm.as_deref_mut() else {
            return;
        };
        // What was allocated beyond eden since it filled goes to the next one.
        jvm.allocated = jvm.allocated.saturating_sub(jvm.budget);
        jvm.due = jvm.allocated >= jvm.budget;
        let Collection {
            pause,
            concurrent_cpu,
        } = jvm.collection;
        let total = jvm.pauses.last().map_or(Nanos::ZERO, |&(_, t)| t) + pause;
        jvm.pauses.push((seq, total));
        jvm.pause_until = now + pause;
        jvm.spans.push((now, pause));
        let stats = &mut jvm.stats;
        stats.collections += 1;
        stats.pause_total += pause;
        stats.longest_pause = stats.longest_pause.max(pause);
        stats.cpu += Nanos(pause.0 * u64::from(jvm.gc_threads)) + concurrent_cpu;
        let again = jvm.due.then_some(jvm.pause_until);
        if pause > Nanos::ZERO {
            // The Acceptor stands still; it looks at the accept queue again at the end.
            self.net.listener.stop_until(now + pause);
            self.schedule(now + pause, Event::AcceptorResumes);
        }
        if concurrent_cpu > Nanos::ZERO {
            self.run_on_core(CpuJob::Gc, concurrent_cpu);
        }
        if let Some(at) = again {
            self.schedule(at, Event::Gc);
        }
    }

    /// A rejected submission whose exception was caught is logged with its stack trace
    /// (`[jvm.errors] logged_rejection`): CPU on a core, beside the submitting thread (which
    /// the model does not hold back for it).
    #[inline]
    pub(super) fn log_rejection(&mut self) {
        if self.scenario.jvm.errors.is_some() {
            let cost = CpuJob::LogRejection.cost(&self.scenario);
            self.run_on_core(CpuJob::LogRejection, cost);
        }
    }

    /// The pause is over: the Acceptor takes what the kernel queued, one connection after
    /// another (each turn costs `accept_cost`, when it has one).
    pub(super) fn on_acceptor_resumes(&mut self) {
        self.settle_closes();
        loop {
            match self.net.listener.wake(self.now) {
                crate::flow::accept::Wake::Accepted(next) => self.dispatch(next),
                crate::flow::accept::Wake::Accepting { done } => {
                    self.acceptor_turn(done);
                    return;
                }
                crate::flow::accept::Wake::Idle => return,
            }
        }
    }

    /// The Acceptor starts its turn on a connection, which ends at `done`; with
    /// `[jvm.connector_threads]` the turn is CPU that waits for a core first.
    pub(super) fn acceptor_turn(&mut self, done: Nanos) {
        if self.scenario.jvm.connector_threads.is_some() {
            self.run_on_core(CpuJob::Accept, CpuJob::Accept.cost(&self.scenario));
        } else {
            self.schedule(done, Event::Accepted);
        }
    }

    /// The Poller hands a request to the executor (and first registers its connection, when
    /// new), with `[jvm.connector_threads]`: CPU on a core beside the request, which the
    /// model does not hold back for it.
    #[cold]
    #[inline(never)]
    pub(super) fn poller_work(&mut self, new_connection: bool) {
        let jobs = [(new_connection, CpuJob::Register), (true, CpuJob::Poll)];
        for (due, job) in jobs {
            let cost = job.cost(&self.scenario);
            if due && cost > Nanos::ZERO {
                self.run_on_core(job, cost);
            }
        }
    }

    /// A new thread of Tomcat's pool (beyond what it had) costs `thread_start` of CPU
    /// before it takes its first request; true when it does (the request starts at
    /// [`Event::ThreadStarted`]).
    pub(super) fn thread_start_cost(
        &mut self,
        r: super::request::ReqRef,
        slot: super::handles::Slot,
        grew: bool,
    ) -> bool {
        let cost = self
            .jvm
            .as_deref()
            .and_then(|jvm| jvm.warmup)
            .map_or(Nanos::ZERO, |w| w.thread_start);
        if !grew || cost == Nanos::ZERO {
            return false;
        }
        self.run_on_core(CpuJob::ThreadStart(r, slot), cost);
        true
    }

    /// The collector so far, when the scenario collects garbage.
    pub(super) fn gc_snapshot(&self) -> Option<GcSnapshot> {
        let jvm = self.jvm.as_deref()?;
        let gc = jvm.gc?;
        Some(GcSnapshot {
            collector: gc.collector,
            collections: jvm.stats.collections,
            pause_total: jvm.stats.pause_total,
            longest_pause: jvm.stats.longest_pause,
            cpu: jvm.stats.cpu,
            paused: self.now < jvm.pause_until,
            recent: jvm.spans[jvm.spans.len().saturating_sub(GC_RECENT_PAUSES)..].to_vec(),
        })
    }

    /// The pauses so far: (start, length).
    pub fn gc_pauses(&self) -> &[(Nanos, Nanos)] {
        self.jvm.as_deref().map_or(&[], |jvm| &jvm.spans)
    }
}

impl Engine {
    /// The CPU a job waiting for a core takes once it has one (warm-up included).
    #[inline]
    pub(super) fn job_cost(&self, job: CpuJob) -> Nanos {
        let cost = job.cost(&self.scenario);
        match job {
            CpuJob::Handler(_) | CpuJob::Error(_) => self.warm(cost),
            _ => cost,
        }
    }
}

#[cfg(test)]
#[path = "jvm_tests.rs"]
mod tests;
