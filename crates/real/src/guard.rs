//! The real engine's side of the guards in front of each service's calls (`flow::guard`), as
//! the simulation's `guard.rs`: an attempt goes through its service's guards, and the thread
//! making it carries out their answer (`flow::call_guard::Made`): go, fail at once, sleep out
//! a reserved permit, or wait until a permit is released to it (woken by the releasing
//! thread) at most its longest wait. A call that held permits gives them back when it ends.
//! No guard is named here: the list decides.

use std::sync::Arc;
use std::time::Instant;

use crate::flow::CallResult;
use crate::flow::call_guard::{Admitting, GuardAsk, GuardSet, Made, Passage, Waiter};
use crate::scenario::{ServiceId, Strategy};
use crate::time::Nanos;

use super::sync::{Ctx, lock};
use super::task::PermitWait;
use super::world::World;

/// What a call's guards said once its caller waited out what they asked (`Made`).
pub(super) enum Guarded {
    /// Make the call, holding these guards' permits until it ends.
    Go(GuardSet),
    /// It failed at once (a guard refused it).
    Failed(CallResult),
    /// The run stopped while it waited.
    Stopped,
}

impl World {
    /// Whether a call made under `strategy` has guards to ask.
    pub(super) fn guarded(&self, strategy: Strategy) -> bool {
        self.guarded.contains(&strategy)
    }

    /// The attempt whose way through `service`'s guards is `passage` goes through them
    /// (`how`) once, under the guards' lock, as `waiter` should it be queued; the guards' next
    /// timed transition is armed.
    pub(super) fn admit_once(
        self: &Arc<Self>,
        how: Admitting,
        (strategy, service): (Strategy, ServiceId),
        passage: &mut Passage,
        (waiter, wait): (Waiter, &Arc<PermitWait>),
    ) -> Made {
        let now = self.clock.now();
        let ask = GuardAsk {
            now,
            strategy,
            waiter,
        };
        let made = {
            let made = lock(&self.guards).pass(how, service, passage, ask);
            if let Made::Queued(_) = made {
                // Entered under the guards' lock: a release finds it.
                self.waiters.enter(waiter, Arc::clone(wait));
            }
            made
        };
        if let Made::Failed(result) = made {
            result.count_refusal(&mut lock(&self.books).book.services[service.0]);
        }
        self.arm_guard_poll();
        made
    }

    /// Whether a call of `service` made under `strategy` may be made now: it goes through its
    /// guards from the first, and this thread waits out what they ask.
    pub(super) async fn ask_guards<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        (strategy, service): (Strategy, ServiceId),
        passage: &mut Passage,
    ) -> Guarded {
        if !self.guarded(strategy) {
            return Guarded::Go(GuardSet::EMPTY);
        }
        let (waiter, wait) = (self.waiters.token(), Arc::new(PermitWait::default()));
        let made = self.admit_once(
            Admitting::Make,
            (strategy, service),
            passage,
            (waiter, &wait),
        );
        self.wait_out(ctx, (strategy, service), passage, made, (waiter, wait))
            .await
    }

    /// Carries out the guards' answer `made` on this thread until it is go or a failure: a
    /// reserved permit is slept out, a queue waited in.
    pub(super) async fn wait_out<C: Ctx>(
        self: &Arc<Self>,
        ctx: &C,
        call: (Strategy, ServiceId),
        passage: &mut Passage,
        mut made: Made,
        (waiter, wait): (Waiter, Arc<PermitWait>),
    ) -> Guarded {
        loop {
            let how = match made {
                Made::Go(holds) => return Guarded::Go(holds),
                Made::Failed(result) => return Guarded::Failed(result),
                Made::Wait(pause) => {
                    let now = self.clock.now();
                    if !ctx.sleep_until(self.clock.at(now + pause)).await {
                        return Guarded::Stopped;
                    }
                    Admitting::Resume
                }
                Made::Queued(max_wait) => {
                    let granted = self.queued(ctx, &wait, max_wait).await;
                    self.waiters.leave(waiter);
                    match granted {
                        Some(true) => Admitting::Granted,
                        Some(false) => Admitting::GaveUp,
                        None => return Guarded::Stopped,
                    }
                }
            };
            made = self.admit_once(how, call, passage, (waiter, &wait));
        }
    }

    /// Waits in a guard's queue: true once a permit was released to it, false when
    /// `max_wait` is up first, None when the run stopped.
    async fn queued<C: Ctx>(&self, ctx: &C, wait: &PermitWait, max_wait: Nanos) -> Option<bool> {
        let deadline = Instant::now() + self.clock.real(max_wait);
        loop {
            if wait.granted() {
                return Some(true);
            }
            if ctx.stopped() {
                return None;
            }
            if Instant::now() >= deadline {
                // A permit handed over at the last moment is kept.
                return Some(!wait.give_up());
            }
            ctx.wait(&wait.wake, deadline).await;
        }
    }

    /// A call of `service` that held the permits `holds` ended: each goes to the oldest
    /// caller of its guard still waiting, which is woken.
    pub(super) fn release_holds(&self, service: ServiceId, holds: GuardSet) {
        if holds.is_empty() {
            return;
        }
        let handed = lock(&self.guards).release(service, holds, |w| self.waiters.grant(w));
        for waiter in handed.into_iter().flatten() {
            self.waiters.wake(waiter);
        }
    }

    /// A timer for the guards' next timed transition (resilience4j's scheduler), unless one
    /// is set for then.
    pub(super) fn arm_guard_poll(self: &Arc<Self>) {
        let next = lock(&self.guards).next_poll();
        let Some(at) = next else {
            return;
        };
        {
            let mut armed = lock(&self.guard_poll);
            if *armed == Some(at) {
                return;
            }
            *armed = Some(at);
        }
        self.after(at, move |w| {
            {
                let mut armed = lock(&w.guard_poll);
                if *armed == Some(at) {
                    *armed = None;
                }
            }
            lock(&w.guards).poll(at);
            w.arm_guard_poll();
        });
    }
}
