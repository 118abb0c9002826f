//! What a handler thread does after writing a response, as in the engine's `connection.rs`:
//! its post-response work (`server.post_response`, the engine's keyed draw), the close of a
//! connection that does not stay open once that work is done, and the keep-alive fast path.
//! The race is decided by [`crate::flow::link::wins_fast_path`] in scenario time, from the
//! same draws as the simulation's: a real thread cannot race a few microseconds faithfully,
//! least of all at a small time scale. The thread that wins keeps its pool slot and serves its
//! client's next request as soon as it reaches the server, bypassing the executor's queue.

use std::sync::Arc;
use std::time::Instant;

use crate::draw::{post_response_exp, turnaround_exp};
use crate::flow;
use crate::scenario::LoadMode;
use crate::time::Nanos;

use super::clock::STOP_POLL;
use super::sync::{Ctx, Mailbox, lock};
use super::task::{Deferred, Handoff, Req, Response};
use super::world::World;

/// Where a handler thread goes after its response.
pub(super) enum AfterResponse {
    /// It serves its client's next request at once (the fast path).
    Serves(Arc<Req>),
    /// It goes back to its pool, busy with its post-response work until `post` from now,
    /// then applies `deferred`.
    Back { deferred: Deferred, post: Nanos },
}

impl World {
    /// The handler thread's post-response work on `req`.
    pub(super) fn post_response(&self, req: &Req) -> Nanos {
        let seed = self.scenario.seed;
        flow::link::post_response(&self.scenario.server.connector, || {
            post_response_exp(seed, req.id)
        })
    }

    /// A worker's task ended with `deferred`: a handler's response either keeps the thread
    /// on its connection (the fast path: the response goes out now, and the thread waits
    /// for the client's next request) or sends it back to its pool.
    pub(super) async fn after_response<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        deferred: Deferred,
    ) -> AfterResponse {
        let Deferred::Respond(response) = deferred else {
            return AfterResponse::Back {
                deferred,
                post: Nanos::ZERO,
            };
        };
        let post = self.post_response(&response.req);
        let Some(client) = self.wins_race(&response, post) else {
            return AfterResponse::Back {
                deferred: Deferred::Respond(response),
                post,
            };
        };
        // Registered before the response goes out, so the client's next request finds it.
        let handoff = Arc::new(Mailbox::default());
        lock(&self.net)
            .reserved
            .insert(client, Arc::clone(&handoff));
        let req = Arc::clone(&response.req);
        self.apply(Deferred::Respond(response));
        if req.retry_at.get().is_some() || req.seen.get().is_none() {
            // Its client sends it again on a new connection, or had given up: nobody comes.
            lock(&self.net).reserved.remove(&client);
            return AfterResponse::Back {
                deferred: Deferred::None,
                post,
            };
        }
        match self.await_handoff(ctx, &handoff).await {
            Some(next) => AfterResponse::Serves(next),
            None => AfterResponse::Back {
                deferred: Deferred::None,
                post: Nanos::ZERO,
            },
        }
    }

    /// The closed client whose next request wins the fast-path race after `response`, if
    /// one does: its connection stays open, and that request reaches the server before the
    /// thread has done its post-response work (`post`).
    fn wins_race(&self, response: &Response, post: Nanos) -> Option<u32> {
        let req = &response.req;
        let LoadMode::Closed { think, .. } = self.scenario.load.mode else {
            return None;
        };
        let client = req.client?;
        let (link, connector) = (&self.scenario.load.link, &self.scenario.server.connector);
        if req.client_has_outcome()
            || !flow::link::stays_open(link, connector, req.conn_uses, response.outcome)
        {
            return None;
        }
        let now = self.clock.now();
        let seen = now + flow::link::to_client(link, response.outcome);
        let pause =
            flow::client_pause(response.outcome, seen.saturating_sub(req.first_sent), think);
        let seed = self.scenario.seed;
        let turnaround = flow::link::turnaround(link, || turnaround_exp(seed, req.id));
        let next = flow::link::next_request_at(link, seen, turnaround, pause);
        flow::link::wins_fast_path(next, now, post).then_some(client)
    }

    /// Waits for what reaches a thread kept on its connection; None when it goes back to its
    /// pool (released, or the run stopped).
    async fn await_handoff<C: Ctx>(&self, ctx: &C, handoff: &Mailbox<Handoff>) -> Option<Arc<Req>> {
        loop {
            match handoff.pop() {
                Some(Handoff::Request(req)) => return Some(req),
                Some(Handoff::Released) => return None,
                None if ctx.stopped() => return None,
                None => ctx.wait(handoff, Instant::now() + STOP_POLL).await,
            }
        }
    }

    /// A request on a kept-alive connection reaches the server: the thread that wrote the
    /// previous response reads it at once if it won the race (the keep-alive fast path);
    /// otherwise the poller hands the connection to the executor.
    pub(super) fn reach_kept(self: &Arc<Self>, req: Arc<Req>) {
        let reserved = {
            let mut net = lock(&self.net);
            let reserved = req.client.and_then(|c| net.reserved.remove(&c));
            if reserved.is_some() {
                net.stats.fast_path_requests += 1;
            }
            reserved
        };
        match reserved {
            Some(handoff) => {
                let _unused = req.queued_at.set(self.clock.now());
                handoff.push(Handoff::Request(req));
            }
            None => self.dispatch(req),
        }
    }

    /// Whether a handler thread waits on closed client `client`'s connection for its next
    /// request.
    pub(super) fn is_reserved(&self, client: u32) -> bool {
        lock(&self.net).reserved.contains_key(&client)
    }

    /// Closed client `client` sends nothing more on its connection: a thread kept for it
    /// goes back to its pool.
    pub(super) fn release_reserved(&self, client: u32) {
        let reserved = lock(&self.net).reserved.remove(&client);
        if let Some(handoff) = reserved {
            handoff.push(Handoff::Released);
        }
    }

    /// A connection that does not stay open after its response closes once the handler
    /// thread's post-response work (`post`) is done: only then does its `maxConnections`
    /// slot free.
    pub(super) fn close_after(self: &Arc<Self>, post: Nanos) {
        if post == Nanos::ZERO {
            self.close_connection();
        } else {
            self.after(self.clock.now() + post, World::close_connection);
        }
    }
}
