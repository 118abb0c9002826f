//! What a real call holds besides its thread, by the model's rules: a connection from its
//! pool ([`crate::flow::resource`], HikariCP: FIFO waiters, `connectionTimeout`), then a core
//! for its CPU, kept through its wait when it pins its carrier
//! ([`crate::flow::cores::pins_carrier`]), in that order, as in the engine.

use std::sync::Arc;
use std::time::Instant;

use crate::flow::cores::pins_carrier;
use crate::flow::resource::Borrow;
use crate::scenario::{ResourceId, ServiceId};
use crate::time::Nanos;

use super::sync::{Ctx, lock};
use super::task::PermitWait;
use super::world::World;

/// What a running call holds, to give back when it ends.
#[must_use]
pub(super) struct Holding {
    connection: Option<ResourceId>,
    /// It pinned its carrier: it holds a core through its wait, since then (scenario time).
    carrier: Option<Nanos>,
}

/// What a call got before it could run.
pub(super) enum Held {
    Runs(Holding),
    /// No connection within the pool's timeout (`SQLTransientConnectionException`).
    NoConnection,
    /// The run stopped meanwhile (nothing is held).
    Stopped,
}

impl World {
    /// Takes what a call of `service` needs before its CPU and its wait: a connection from
    /// the pool it `uses`, then, when it pins its carrier, a core for the whole call.
    pub(super) async fn hold_for_call<C: Ctx>(&self, ctx: &C, service: ServiceId) -> Held {
        let svc = self.scenario.service(service);
        let connection = svc.uses;
        if let Some(res) = connection {
            match self.borrow_connection(ctx, res, service).await {
                Held::Runs(_) => {}
                other => return other,
            }
        }
        let mut carrier = None;
        if pins_carrier(&self.scenario, svc, ctx.on_virtual()) {
            carrier = self.take_core(ctx).await;
            if carrier.is_none() {
                if let Some(res) = connection {
                    self.give_back_connection(res);
                }
                return Held::Stopped;
            }
        }
        Held::Runs(Holding {
            connection,
            carrier,
        })
    }

    /// The call's CPU work: on the core it holds when pinned, else on a core taken for it.
    /// False when the run stopped meanwhile.
    pub(super) async fn call_cpu<C: Ctx>(&self, ctx: &C, cpu: Nanos, holding: &Holding) -> bool {
        if holding.carrier.is_some() {
            self.spin_held(cpu);
            return true;
        }
        self.run_cpu(ctx, cpu).await
    }

    /// When a call that took `cpu` and then waits `wait` (scenario time) ends: a pinned one
    /// that long after its carrier came in the model's time (however late the machine woke
    /// it), as the engine's core queue orders it; any other that long from now.
    pub(super) fn call_ends(&self, holding: &Holding, cpu: Nanos, wait: Nanos) -> Instant {
        match holding.carrier {
            Some(from) => self.clock.at(from + cpu + wait),
            None => Instant::now() + self.clock.real(wait),
        }
    }

    /// The call ended: what it held goes back (to the longest waiters). A pinned carrier
    /// goes back when the call ended in the model's time, `took` (its CPU and its wait) after
    /// it came (however late the machine woke the thread), as the engine's core queue hands
    /// it on; now, if the run stopped before then.
    pub(super) fn let_go(&self, holding: Holding, took: Nanos) {
        if let Some(from) = holding.carrier {
            self.give_core((from + took).min(self.clock.now()));
        }
        if let Some(res) = holding.connection {
            self.give_back_connection(res);
        }
    }

    /// `getConnection()` on pool `res` for a call of `service`: a free connection, else a
    /// wait in line up to the pool's timeout.
    async fn borrow_connection<C: Ctx>(
        &self,
        ctx: &C,
        res: ResourceId,
        service: ServiceId,
    ) -> Held {
        let held = || {
            Held::Runs(Holding {
                connection: None,
                carrier: None,
            })
        };
        let now = self.clock.now();
        let waiter = Arc::new(PermitWait::default());
        let (borrow, timeout) = {
            let mut pool = lock(&self.connections.0[res.0]);
            (pool.borrow((Arc::clone(&waiter), now)), pool.timeout())
        };
        if borrow == Borrow::Held {
            return held();
        }
        let deadline = self.clock.at(now + timeout);
        loop {
            if waiter.granted() {
                return held();
            }
            if ctx.stopped() {
                if !waiter.give_up() {
                    self.give_back_connection(res);
                }
                return Held::Stopped;
            }
            if Instant::now() >= deadline {
                if !waiter.give_up() {
                    // Handed over at the last moment: it is kept.
                    return held();
                }
                lock(&self.connections.0[res.0]).give_up();
                lock(&self.books).book.services[service.0].connection_timeouts += 1;
                return Held::NoConnection;
            }
            ctx.wait(&waiter.wake, deadline).await;
        }
    }

    /// A connection goes back to pool `res`, and to its longest waiter still waiting.
    fn give_back_connection(&self, res: ResourceId) {
        let now = self.clock.now();
        let next = lock(&self.connections.0[res.0])
            .give_back(now, |(waiter, since)| waiter.grant().then_some(*since));
        if let Some((waiter, _)) = next {
            waiter.wake.push(());
        }
    }
}
