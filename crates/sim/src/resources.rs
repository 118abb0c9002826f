//! What a call holds besides its thread: a connection from a pool (HikariCP) and a core for
//! its CPU time (or for its whole wait, when a virtual thread is pinned), and the CPU the
//! submitting thread spends creating platform threads.
//!
//! A started call goes through `proceed`: borrow a connection (FIFO waiters, a timeout that
//! fails the call), then run its CPU time on a core, then wait its latency. The cores are
//! shared as `scenario.cpu_scheduling` says: time-sliced (a burst runs a slice at a time
//! while others wait, round robin, as Linux's fair scheduler shares a core among runnable
//! threads) or each burst to completion in FIFO order. Only the calls' own bursts are sliced:
//! Tomcat's work per request, its error pages, connection resets and thread creation are
//! short (far under a slice by default) and run to their end. Cores are shared by every thread, platform or virtual: the virtual
//! threads' carriers are the cores.

use crate::flow::cores::{next_burst, pins_carrier};
use crate::flow::resource::Borrow;
use crate::scenario::ResourceId;
use crate::time::Nanos;

use super::engine::Engine;
use super::event::Event;
use super::handles::ThreadRef;
use super::parts::cpu::CpuJob;
use super::request::{Conn, Core, Permit, ReqRef, Submitting};

impl Engine {
    /// Moves a started call on: connection, CPU, then its wait.
    pub(super) fn proceed(&mut self, r: ReqRef, call: u16) {
        let service = self.service_of(call);
        let uses = self.scenario.services[service.0].uses;
        let timeout = uses.map(|u| self.resource_states[u.0].timeout());
        let now = self.now;
        // 1. getConnection(): a free connection, else wait in FIFO order up to the timeout.
        if let (Some(res), Some(timeout)) = (uses, timeout)
            && !self.take_connection(r, call, res, timeout)
        {
            return;
        }
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let c = &mut req.calls[call as usize];
        // 2. CPU time on a core; a virtual thread blocking inside `synchronized` stays pinned
        //    to its carrier (JDK 21-23), so it keeps the core for its whole wait.
        let pinned = pins_carrier(
            &self.scenario,
            &self.scenario.services[service.0],
            c.on_virtual,
        );
        if (c.cpu_left > Nanos::ZERO || pinned) && c.core != Core::Held {
            if c.inline && self.cpu.kept_carrier == Some(r) {
                // The virtual thread that just ran the handler's CPU makes the call on the
                // carrier it still has.
                self.cpu.kept_carrier = None;
                c.core = Core::Held;
            } else if self.cpu.busy < self.cpu.cores {
                self.cpu.account(now);
                self.cpu.busy += 1;
                c.core = Core::Held;
            } else {
                c.core = Core::Waiting;
                self.cpu.queue.push_back(CpuJob::Call(r, call));
                self.cpu.max_queue = self
                    .cpu
                    .max_queue
                    .max(u32::try_from(self.cpu.queue.len()).unwrap_or(u32::MAX));
                return;
            }
        }
        if c.core == Core::Held && c.cpu_left > Nanos::ZERO {
            // Time-sliced, a platform thread's burst longer than the slice runs one slice at a
            // time. A virtual thread keeps its carrier until it blocks: "the scheduler does not
            // currently implement time sharing for virtual threads" (JEP 444).
            let burst = next_burst(self.scenario.cpu_scheduling, c.on_virtual, c.cpu_left);
            c.cpu_left = c.cpu_left.saturating_sub(burst);
            let event = if c.cpu_left == Nanos::ZERO {
                Event::CpuDone { req: r, call }
            } else {
                Event::SliceEnd { req: r, call }
            };
            self.schedule(now + burst, event);
            self.trace_cpu(r, call, burst);
            return;
        }
        let latency = c.latency;
        let release_core = !pinned && c.core.release();
        // 3. The wait (I/O): the thread is held, the core is not (unless pinned).
        self.schedule(now + latency, Event::CallEnd { req: r, call });
        self.trace_wait(r, call, pinned);
        if release_core {
            self.release_core();
        }
    }

    /// The call holds a connection of `res` (already, or a free one now); false when it
    /// waits for one, giving up after `timeout`.
    fn take_connection(&mut self, r: ReqRef, call: u16, res: ResourceId, timeout: Nanos) -> bool {
        let now = self.now;
        let Some(req) = self.requests.get_mut(r) else {
            return false;
        };
        let c = &mut req.calls[call as usize];
        if c.conn == Conn::Held {
            return true;
        }
        if self.resource_states[res.0].borrow((r, call)) == Borrow::Held {
            c.conn = Conn::Held;
            return true;
        }
        c.conn = Conn::Waiting;
        c.started = now;
        self.schedule(now + timeout, Event::ConnTimeout { req: r, call });
        false
    }

    /// Gives a core back; the next job waiting for one gets it.
    #[inline(always)]
    pub(super) fn release_core(&mut self) {
        self.hand_over_core(Nanos::ZERO);
    }

    /// Gives a core back; the next job waiting for one gets it, and pays `switch` of CPU
    /// first (a context switch the scheduler forced).
    #[inline(always)]
    fn hand_over_core(&mut self, switch: Nanos) {
        let now = self.now;
        self.cpu.account(now);
        self.cpu.busy = self.cpu.busy.saturating_sub(1);
        if !self.cpu.queue.is_empty() {
            self.next_on_core(switch);
        }
    }

    /// The core just given back goes to the first job still waiting for one.
    fn next_on_core(&mut self, switch: Nanos) {
        let now = self.now;
        while let Some(job) = self.cpu.queue.pop_front() {
            match job {
                CpuJob::Call(r, call) => {
                    let Some(req) = self.requests.get_mut(r) else {
                        continue;
                    };
                    let c = &mut req.calls[call as usize];
                    if c.core != Core::Waiting {
                        continue;
                    }
                    c.core = Core::Held;
                    c.cpu_left += switch;
                    self.cpu.busy += 1;
                    self.proceed(r, call);
                }
                CpuJob::Spawn(_)
                | CpuJob::Handler(_)
                | CpuJob::Reset(_)
                | CpuJob::Error(_)
                | CpuJob::Gc
                | CpuJob::LogRejection
                | CpuJob::ThreadStart(..)
                | CpuJob::Accept
                | CpuJob::Poll
                | CpuJob::Register => {
                    self.cpu.busy += 1;
                    let cost = self.job_cost(job) + switch;
                    self.schedule(now + cost, job.done_event());
                }
            }
            return;
        }
    }

    /// A call's slice is over with CPU work left. With another thread waiting for a core it
    /// goes to the back of the run queue and the core switches to the first in line (who
    /// pays the switch); with none it runs on (Linux gives the running task another slice).
    pub(super) fn on_slice_end(&mut self, r: ReqRef, call: u16) {
        if !self.someone_waits_for_a_core() {
            self.proceed(r, call);
            return;
        }
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        req.calls[call as usize].core = Core::Waiting;
        self.cpu.preemptions += 1;
        self.cpu.queue.push_back(CpuJob::Call(r, call));
        let switch = self.cpu.slicing.map_or(Nanos::ZERO, |(_, switch)| switch);
        self.hand_over_core(switch);
    }

    /// Whether a job waits for a core; drops the entries of calls that no longer wait at the
    /// head of the run queue.
    fn someone_waits_for_a_core(&mut self) -> bool {
        while let Some(&job) = self.cpu.queue.front() {
            let CpuJob::Call(r, call) = job else {
                return true;
            };
            let waits = self
                .requests
                .get(r)
                .is_some_and(|q| q.calls[call as usize].core == Core::Waiting);
            if waits {
                return true;
            }
            self.cpu.queue.pop_front();
        }
        false
    }

    /// The submitting thread spends `spawn_cost` of CPU creating a platform thread; its
    /// submission loop pauses meanwhile.
    pub(super) fn spawn_thread_cost(&mut self, r: ReqRef, call: u16, thread: ThreadRef) {
        if self.scenario.spawn_cost == Nanos::ZERO {
            return;
        }
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        req.submitting = Submitting::Spawning { call, thread };
        self.run_on_core(CpuJob::Spawn(r), self.scenario.spawn_cost);
    }

    pub(super) fn on_spawn_done(&mut self, r: ReqRef) {
        self.release_core();
        let spawned = self
            .requests
            .get_mut(r)
            .and_then(|req| req.submitting.spawned());
        if let Some((call, thread)) = spawned {
            self.start_spawned_call(r, call, thread);
        }
        self.resume_submitter(r);
    }

    /// A waiter gave up on its connection: `SQLTransientConnectionException`, the call fails
    /// now.
    pub(super) fn on_conn_timeout(&mut self, r: ReqRef, call: u16) {
        let service = self.service_of(call);
        let Some(res) = self.scenario.services[service.0].uses else {
            return;
        };
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let c = &mut req.calls[call as usize];
        if c.conn != Conn::Waiting {
            return;
        }
        c.conn = Conn::TimedOut;
        self.resource_states[res.0].give_up();
        self.book.services[service.0].connection_timeouts += 1;
        self.on_call_end(r, call);
    }

    /// Gives back what a call held when it ends.
    pub(super) fn release_call_holdings(&mut self, r: ReqRef, call: u16) {
        let service = self.service_of(call);
        let Some(req) = self.requests.get_mut(r) else {
            return;
        };
        let c = &mut req.calls[call as usize];
        let had_conn = c.conn.release();
        let had_core = c.core.release();
        let holds = match c.permit {
            Permit::Held(holds) => {
                c.permit = Permit::None;
                Some(holds)
            }
            _ => None,
        };
        if had_core {
            self.release_core();
        }
        if had_conn && let Some(res) = self.scenario.services[service.0].uses {
            self.release_connection(res);
        }
        if let Some(holds) = holds {
            self.release_holds(service, holds);
        }
    }

    /// A connection goes back to the pool and to the longest waiter, if any.
    fn release_connection(&mut self, res: ResourceId) {
        let requests = &mut self.requests;
        let next = self.resource_states[res.0].give_back(self.now, |&(r, call)| {
            let c = &mut requests.get_mut(r)?.calls[call as usize];
            if c.conn != Conn::Waiting {
                return None;
            }
            c.conn = Conn::Held;
            Some(c.started)
        });
        if let Some((r, call)) = next {
            self.proceed(r, call);
        }
    }

    /// The fraction of core time used since t = 0.
    pub fn cpu_utilisation(&self) -> f64 {
        let t = self.now.as_secs_f64();
        if t <= 0.0 {
            return 0.0;
        }
        let pending =
            f64::from(self.cpu.busy) * self.now.saturating_sub(self.cpu.last_change).as_secs_f64();
        (self.cpu.busy_area + pending) / (t * f64::from(self.cpu.cores))
    }
}
