//! TCP between the clients and Tomcat, as Linux and Tomcat's NIO connector keep it.
//!
//! - A closed client keeps its connection between requests (HTTP/1.1 keep-alive) until
//!   Tomcat closes it after `maxKeepAliveRequests`, or opens one per request.
//! - Connection admission (`maxConnections`, the accept queue, dropped SYNs and their
//!   retransmits) is [`crate::flow::accept`]'s, shared with the real engine.
//! - After writing a response, the handler thread reads the connection again
//!   (`Http11Processor.service`'s loop): if the client's next request has arrived by then,
//!   the same thread serves it at once, bypassing the executor's queue (the keep-alive fast
//!   path); otherwise the connection goes back to the poller and its next request joins the
//!   tail of the executor's queue.
//! - A request the executor refuses (`maxQueueSize`) has its connection closed unread: the
//!   client sees a reset, at the CPU cost of the accept, poll and close.

use crate::metrics::Outcome;
use crate::scenario::LoadMode;
use crate::time::Nanos;

use super::draw::{post_response_exp, turnaround_exp};
use super::engine::Engine;
use super::event::Event;
use super::handles::{Task, ThreadName, ThreadRef};
use super::parts::cpu::CpuJob;
use super::parts::net::{ClientsSnapshot, NetSnapshot};
use super::request::ReqRef;
use super::{Detail, FailReason};
use crate::flow;
use crate::flow::accept::{Ack, Syn, Then, Wake, request_of_try};

impl Engine {
    pub(super) fn half_rtt(&self) -> Nanos {
        Nanos(self.scenario.load.link.rtt.0 / 2)
    }

    /// A request (or its connection's SYN) reaches the server.
    pub(super) fn reach_server(&mut self, r: ReqRef, client: Option<u32>) {
        let kept = client.and_then(|c| {
            let state = self.net.clients.get_mut(c as usize)?;
            Some((state.conn.take()?, state.reserved.take()))
        });
        let Some((uses, reserved)) = kept else {
            self.syn(r);
            return;
        };
        if let Some(req) = self.requests.get_mut(r) {
            req.conn_uses = uses + 1;
        }
        match reserved {
            Some(thread) => {
                // The thread that wrote the previous response reads this request at once.
                self.net.stats.fast_path_requests += 1;
                self.holds_conn(r);
                if let ThreadRef::Worker { slot, .. } = thread {
                    let server = self.topology.server();
                    self.pools[server].replace_task(slot, Task::Handler(r));
                }
                self.start_handler(r, thread);
            }
            // The poller sees the request and hands the connection to the executor.
            None => self.dispatch(r),
        }
    }

    /// The request travels on a connection Tomcat accepted: it carries the connection's
    /// `maxConnections` slot until its response (see `settle_connection`).
    pub(super) fn holds_conn(&mut self, r: ReqRef) {
        if let Some(req) = self.requests.get_mut(r) {
            req.holds_conn = true;
        }
    }

    /// The connections whose close has come (its key is below the event being handled, or
    /// the clock moved past it) leave `open`.
    pub(super) fn retire_closes(&mut self) {
        let settled = self.settled_key();
        for _ in 0..self.net.closing.sweep(settled) {
            self.net.listener.close();
        }
    }

    /// Before the listener decides on a connection: its count of open connections must
    /// leave out the closes that have come only when it is full (see [`Closing`]).
    ///
    /// [`Closing`]: super::parts::net::Closing
    #[inline(always)]
    pub(super) fn settle_closes(&mut self) {
        if self.net.listener.full() || self.net.closing.long() {
            self.retire_closes();
        }
    }

    /// Connections open now: `open` less the closes that have come.
    pub(super) fn open_connections(&self) -> u32 {
        let settled = self.settled_key();
        let closed = self.net.closing.come(settled);
        self.net
            .listener
            .open()
            .saturating_sub(u32::try_from(closed).unwrap_or(u32::MAX))
    }

    /// A connection waits in the accept queue: each close to come must now wake the acceptor,
    /// so the closes kept aside become events, in the order they would have had.
    fn closes_become_events(&mut self) {
        self.retire_closes();
        for (at, seq) in self.net.closing.take() {
            self.events.push_reserved(at, seq, Event::ConnectionClosed);
        }
    }

    /// A SYN reaches the listen socket.
    fn syn(&mut self, r: ReqRef) {
        self.settle_closes();
        let fate = self.net.listener.syn(r, self.now);
        if fate == Syn::Dropped {
            self.net.stats.syn_drops += 1;
        } else {
            self.connected(r);
        }
        let Some(attempt) = self.requests.connecting(r) else {
            return;
        };
        let (sent, drops) = (attempt.sent, u32::from(attempt.syn_drops));
        let then = Then::after_syn(fate, &self.scenario.load.link, self.now, sent, drops);
        self.carry_out(r, then);
    }

    /// Carries out what the connection layer said follows (`flow::accept::Then`).
    #[inline(always)]
    fn carry_out(&mut self, r: ReqRef, then: Then) {
        let (at, event) = match then {
            Then::Dispatch { at } => (at, Event::Dispatch { req: r }),
            Then::DispatchNow => return self.on_dispatch(r),
            Then::WakeAcceptor => return self.waits_for_acceptor(),
            Then::Ack { at, syn_at, drops } => {
                if let Some(req) = self.requests.get_mut(r) {
                    req.syn_at = syn_at;
                    req.ack_drops = u8::try_from(drops).unwrap_or(u8::MAX);
                }
                (at, Event::Ack { req: r })
            }
            Then::Syn { at, drops } => {
                if let Some(attempt) = self.requests.connecting_mut(r) {
                    attempt.syn_drops = u8::try_from(drops).unwrap_or(u8::MAX);
                }
                (at, Event::Syn { req: r })
            }
            Then::ConnectFails { at } => (at, Event::ConnectFailed { req: r }),
            Then::Reset { at } => (at, Event::HandshakeReset { req: r }),
        };
        self.schedule(at, event);
    }

    /// A connection joined the accept queue: closes must now wake the acceptor, and with an
    /// accept cost (every handshake queues first) an idle acceptor starts on it now.
    fn waits_for_acceptor(&mut self) {
        self.closes_become_events();
        self.net.stats.accept_queue_max = self.net.listener.queue_max();
        if self.net.listener.accept_cost() > Nanos::ZERO {
            self.on_accept();
        }
    }

    /// The client's ACK reaches the listen socket: with its request (the handshake's ACK,
    /// or a retransmitted request), or alone (answering a retransmitted SYN-ACK), its
    /// request following at its next retransmit.
    pub(super) fn on_ack(&mut self, r: ReqRef) {
        if !self.still_wanted(r) {
            return;
        }
        let Some(req) = self.requests.get(r) else {
            return;
        };
        let rtt = self.scenario.load.link.rtt;
        let (syn_at, drops) = (req.syn_at, u32::from(req.ack_drops));
        let request_at = request_of_try(rtt, syn_at, drops, self.now);
        self.settle_closes();
        let fate = self.net.listener.ack(r, self.now, request_at);
        if fate == Ack::Overflow {
            self.net.stats.ack_overflows += 1;
        }
        let then = Then::after_ack(fate, rtt, syn_at, drops, request_at, self.now);
        self.carry_out(r, then);
    }

    /// The handshake completed: `connect()` returns and the client sends its request.
    fn connected(&mut self, r: ReqRef) {
        let now = self.now + self.half_rtt();
        if let Some(req) = self.requests.get_mut(r) {
            req.conn_uses = 1;
            self.net.connect.record(now.saturating_sub(req.arrival));
        }
    }

    /// A retransmitted SYN reaches the server, unless its client has given up meanwhile.
    pub(super) fn on_syn(&mut self, r: ReqRef) {
        if self.still_wanted(r) {
            self.syn(r);
        }
    }

    /// Whether a connection attempt's client still waits for it; one whose client gave up
    /// meanwhile is abandoned (the server never sees it). Reads only the attempt's record.
    fn still_wanted(&mut self, r: ReqRef) -> bool {
        match self.requests.connecting(r) {
            Some(a) if a.waiting => true,
            Some(_) => {
                self.abandon(r);
                false
            }
            None => false,
        }
    }

    /// `connect()` failed: the client counts a timeout and tries again with a new connection.
    pub(super) fn on_connect_failed(&mut self, r: ReqRef) {
        if !self.still_wanted(r) {
            return;
        }
        self.net.stats.connect_failures += 1;
        if let Some(req) = self.requests.get_mut(r) {
            req.finish_serving();
        }
        self.client_outcome(
            r,
            Outcome::Timeout,
            ThreadName::None,
            Detail::Failed(FailReason::Connect),
        );
        self.requests.release_if_done(r);
    }

    /// A connection attempt whose client already gave up: the server never sees it.
    fn abandon(&mut self, r: ReqRef) {
        if let Some(req) = self.requests.get_mut(r) {
            req.finish_serving();
        }
        self.requests.release_if_done(r);
    }

    /// The request of a connection the acceptor took arrives: the poller hands it on.
    #[inline(always)]
    pub(super) fn on_dispatch(&mut self, r: ReqRef) {
        if self.requests.get(r).is_some() {
            self.dispatch(r);
        }
    }

    /// A connection closed: its `maxConnections` slot frees, and the acceptor takes the next
    /// connection from the accept queue (as its own event, so a queue of requests that fail
    /// at once cannot nest calls without bound).
    pub(super) fn close_connection(&mut self) {
        self.net.listener.close();
        if self.net.listener.has_waiting() {
            self.schedule(self.now, Event::Accept);
        }
    }

    /// The acceptor looks at the accept queue: with no accept cost it takes the oldest
    /// connection at once, else it starts its turn on it (`Event::Accepted` ends it).
    pub(super) fn on_accept(&mut self) {
        self.settle_closes();
        match self.net.listener.wake(self.now) {
            // Its request was sent when the handshake completed: it is already there.
            Wake::Accepted(next) => self.dispatch(next),
            Wake::Accepting { done } => self.acceptor_turn(done),
            Wake::Idle => {}
        }
    }

    /// The acceptor's turn ends: it registers the connection with the poller, which hands
    /// its request on once that has arrived (one round trip after the SYN), and goes back
    /// to the queue.
    pub(super) fn on_accepted(&mut self) {
        let handed = self.net.listener.accepted();
        self.on_accept();
        let Some(handed) = handed else {
            return;
        };
        let then = Then::after_accepted(handed.request_at, self.now);
        self.carry_out(handed.connection, then);
    }

    /// The executor's queue is full (`maxQueueSize`): the poller closes the connection
    /// unread, which costs the server CPU; the client sees a reset.
    pub(super) fn reset_connection(&mut self, r: ReqRef) {
        self.net.stats.closed_by_max_queue += 1;
        let cost = self.scenario.server.connector.cpu_per_rejected_connection;
        if cost == Nanos::ZERO {
            self.finish_reset(r);
        } else {
            self.run_on_core(CpuJob::Reset(r), cost);
        }
    }

    pub(super) fn finish_reset(&mut self, r: ReqRef) {
        if self.requests.get(r).is_some_and(|q| q.holds_conn) {
            self.close_connection();
        }
        self.refuse(r);
    }

    /// Whether the connection of request `r`, just answered with `outcome`, stays open for its
    /// client's next request; records that on the client. A connection not kept is closed
    /// once the thread's post-response work (`post`) is done.
    pub(super) fn settle_connection(&mut self, r: ReqRef, outcome: Outcome, post: Nanos) -> bool {
        let Some(req) = self.requests.get(r) else {
            return false;
        };
        let (link, connector) = (&self.scenario.load.link, &self.scenario.server.connector);
        let keep = !req.answered()
            && crate::flow::link::stays_open(link, connector, req.conn_uses, outcome);
        let (holds, uses, client) = (req.holds_conn, req.conn_uses, req.client);
        let state = client.and_then(|c| Some((c, self.net.clients.get_mut(c as usize)?)));
        match state {
            Some((c, state)) if keep && holds => {
                state.conn = Some(uses);
                state.idle_since = self.now;
                // `keepAliveTimeout`: the poller closes a connection idle for this long. One
                // check per connection is pending at a time; it moves itself on to the end
                // of the latest idle spell (`on_idle_timeout`).
                if !state.idle_check {
                    state.idle_check = true;
                    let at = self.now + self.scenario.server.connector.keep_alive_timeout;
                    self.schedule(at, Event::IdleTimeout { client: c });
                }
            }
            _ => {
                if holds {
                    // The thread closes the socket after its post-response work; only then
                    // does the latch count down and the acceptor take the next connection.
                    if post == Nanos::ZERO {
                        self.close_connection();
                    } else if !self.net.listener.has_waiting() {
                        // Nobody waits for the slot: the close needs no event of its own.
                        let seq = self.events.reserve_seq();
                        self.net.closing.push((self.now + post, seq));
                    } else {
                        self.schedule(self.now + post, Event::ConnectionClosed);
                    }
                }
                return false;
            }
        }
        true
    }

    /// The keep-alive check of a client's connection. Like the poller's timeout scan
    /// (`NioEndpoint.Poller.timeout`: a key idle longer than `keepAliveTimeout` since its last
    /// read or write is closed), it closes the connection once it has been idle for the whole
    /// timeout, and its `maxConnections` slot frees; the client's next request opens a new
    /// connection. A connection idle for less has served a request since the check was set:
    /// the check moves on to the end of its latest idle spell. A connection in use, or held by
    /// a thread reading it again (the fast path, not the poller's wait), needs no check until
    /// its next response.
    pub(super) fn on_idle_timeout(&mut self, client: u32) {
        let timeout = self.scenario.server.connector.keep_alive_timeout;
        let Some(state) = self.net.clients.get_mut(client as usize) else {
            return;
        };
        state.idle_check = false;
        if state.conn.is_none() || state.reserved.is_some() {
            return;
        }
        let deadline = state.idle_since + timeout;
        if self.now < deadline {
            state.idle_check = true;
            self.schedule(deadline, Event::IdleTimeout { client });
            return;
        }
        state.conn = None;
        self.net.stats.closed_idle += 1;
        self.close_connection();
    }

    /// The handler thread's work after writing the response to `r` (exponential, keyed by
    /// the request), before it reads or closes the connection.
    pub(super) fn post_response(&self, r: ReqRef) -> Nanos {
        let id = self.requests.get(r).map_or(0, |q| q.id);
        let seed = self.scenario.seed;
        flow::link::post_response(&self.scenario.server.connector, || {
            post_response_exp(seed, id)
        })
    }

    /// When a client's next request reaches the server: the client saw the outcome of `r`
    /// at `seen`, turns around, pauses, and its request travels half a round trip.
    pub(super) fn next_arrival(&self, r: ReqRef, seen: Nanos, pause: Nanos) -> Nanos {
        let id = self.requests.get(r).map_or(0, |q| q.id);
        let seed = self.scenario.seed;
        let link = &self.scenario.load.link;
        let turnaround = flow::link::turnaround(link, || turnaround_exp(seed, id));
        flow::link::next_request_at(link, seen, turnaround, pause)
    }

    /// Counts an answer (or its absence) on the client's fairness books.
    pub(super) fn count_answer(&mut self, client: Option<u32>, outcome: Outcome, at: Nanos) {
        if let Some(state) = client.and_then(|c| self.net.clients.get_mut(c as usize)) {
            state.tally.count(outcome, at);
        }
    }

    pub(super) fn net_snapshot(&self) -> NetSnapshot {
        let clients = match self.scenario.load.mode {
            LoadMode::Closed { .. } if !self.net.clients.is_empty() => {
                let clients = self.net.clients.iter().map(|c| (c.active, &c.tally));
                Some(ClientsSnapshot::of(clients, self.now))
            }
            _ => None,
        };
        NetSnapshot {
            stats: self.net.stats,
            connect: self.net.connect.summary(),
            clients,
        }
    }

    /// Runs `job` on a core for `cost`: now if one is free, else after the jobs queued first.
    #[inline(always)]
    pub(super) fn run_on_core(&mut self, job: CpuJob, cost: Nanos) {
        if self.cpu.busy < self.cpu.cores {
            self.cpu.account(self.now);
            self.cpu.busy += 1;
            self.schedule(self.now + cost, job.done_event());
        } else {
            if job.wakes_first() && self.cpu.slicing.is_some() {
                // A thread that sleeps most of the time wakes with the earliest deadline
                // (EEVDF's lag): it is next, after the others like it, not after a round.
                let ahead = self
                    .cpu
                    .queue
                    .iter()
                    .take_while(|j| j.wakes_first())
                    .count();
                self.cpu.queue.insert(ahead, job);
            } else {
                self.cpu.queue.push_back(job);
            }
            self.cpu.max_queue = self
                .cpu
                .max_queue
                .max(u32::try_from(self.cpu.queue.len()).unwrap_or(u32::MAX));
        }
    }
}
