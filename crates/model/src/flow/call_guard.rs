//! What a guard in front of a service's calls is, for both engines: a [`CallGuard`] admits an
//! attempt of a call (go, refuse with a reason, wait a set time, or wait until a permit is
//! released), hears how the attempts it admitted ended, may have timed transitions of its own,
//! and shows itself as a [`GuardRow`]. Each service has a list of them, in decoration order,
//! built from the scenario by `flow::guard_kinds` ([`crate::flow::CallGuards`] holds the
//! lists); the engines drive the list and never name a guard.
//!
//! A refusal is data ([`GuardRefusal`]): the guard's name, the exception its caller catches, how a
//! `Retry` treats it. A new guard brings its own and needs no new variant anywhere.

use std::any::Any;

use crate::scenario::Strategy;
use crate::time::Nanos;

use super::CallResult;

/// One guard of one service.
pub trait CallGuard: std::fmt::Debug + Send + Sync {
    /// Whether it guards calls made under `strategy` (the semaphore bulkhead guards only
    /// the `semaphore` strategy's).
    fn applies(&self, strategy: Strategy) -> bool {
        let _ = strategy;
        true
    }

    /// Whether it hears how the attempts it admitted ended ([`CallGuard::hear`]).
    fn hears(&self) -> bool {
        false
    }

    /// An attempt asks to go on at `ask.now`.
    fn admit(&mut self, ask: GuardAsk) -> Admit;

    /// An attempt it admitted ended: its future completed, or a guard after it refused it.
    fn hear(&mut self, heard: Heard) {
        let _ = heard;
    }

    /// A call that held one of its permits ([`Admit::Hold`]) ended. A permit handed to the
    /// oldest waiter for which `still_waits` is true is returned (its caller goes on now,
    /// holding it); `still_waits` marks it as holding, and drops a waiter that gave up.
    fn release(&mut self, still_waits: &mut dyn FnMut(Waiter) -> bool) -> Option<Waiter> {
        let _ = still_waits;
        None
    }

    /// A caller it queued ([`Admit::Queue`]) waited its longest: the refusal it gets.
    fn gave_up(&mut self) -> &'static GuardRefusal;

    /// Whether it has timed transitions at all ([`CallGuard::next_poll`], `poll`); asked
    /// once.
    fn polls(&self) -> bool {
        false
    }

    /// When it next changes by itself (a breaker's automatic half-open, a limit's refresh).
    fn next_poll(&self) -> Option<Nanos> {
        None
    }

    /// Brings its timed transitions up to `now`.
    fn poll(&mut self, now: Nanos) {
        let _ = now;
    }

    /// How a snapshot shows it.
    fn row(&self) -> GuardRow;

    /// For views that show one kind of guard in full (the breaker's transitions).
    fn as_any(&self) -> &dyn Any;
}

/// What an attempt tells its guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardAsk {
    pub now: Nanos,
    /// The strategy its request is served under.
    pub strategy: Strategy,
    /// Who waits, should the guard queue it ([`Admit::Queue`]): the engine's token.
    pub waiter: Waiter,
}

/// A guard's answer to an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// It goes on.
    Go,
    /// It goes on holding a permit, given back when the call ends ([`CallGuard::release`]).
    /// The real engine holds it only for a call made on its caller's thread (the strategies
    /// that call inline, as the semaphore bulkhead's does); a call submitted to a pool gives
    /// it back at once.
    Hold,
    /// It goes on after this wait (a rate limiter's reserved permit).
    After(Nanos),
    /// It waits until a permit is released to it, at most this long
    /// ([`CallGuard::gave_up`] then).
    Queue { max_wait: Nanos },
    /// It fails at once.
    Refuse(&'static GuardRefusal),
}

/// How an attempt a guard admitted ended, as the guard hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heard {
    pub now: Nanos,
    /// Since the attempt was admitted by the service's first guard.
    pub latency: Nanos,
    /// Its result (a refusal by a later guard too).
    pub result: CallResult,
}

/// Who waits in a guard's queue: a token each engine maps to its own waiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Waiter(pub u128);

/// Why a guard refused a call: data the engines, the log and the report read alike.
#[derive(Debug, PartialEq, Eq)]
pub struct GuardRefusal {
    /// The guard, as the report counts its refusals ("adaptive limit").
    pub guard: &'static str,
    /// What its caller catches, as the log shows it (`BulkheadFullException`).
    pub exception: &'static str,
    /// How a trace labels the call's end.
    pub label: &'static str,
    /// Which of a `Retry`'s switches decides whether it is retried.
    pub retried_as: RetriedAs,
    /// Counted as a rejected call of its service (as a pool's rejection is).
    pub counts_rejected: bool,
}

/// A `Retry`'s view of a refusal (`[services.retry] on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetriedAs {
    /// `CallNotPermittedException`: the `not_permitted` switch.
    NotPermitted,
    /// A rejection (`BulkheadFullException`, `RequestNotPermitted`): the `rejection` switch.
    Rejection,
}

/// A guard as a snapshot, the TUI and the report show it.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardRow {
    /// Its name ("adaptive limit").
    pub guard: &'static str,
    /// Its state in a few words ("limit 14").
    pub state: String,
    /// Its figures, by name.
    pub figures: Vec<(&'static str, f64)>,
    /// Calls it refused.
    pub refused: u64,
    /// The report has a section of its own for this kind (the breaker, the rate limiter, the
    /// semaphore bulkhead's rejections), so the generic list leaves it out.
    pub reported_apart: bool,
}

/// A set of a service's guards, by their place in its list (at most [`GuardSet::MAX`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GuardSet(u8);

impl GuardSet {
    pub const MAX: usize = 8;
    pub const EMPTY: GuardSet = GuardSet(0);

    pub fn with(self, index: usize) -> GuardSet {
        GuardSet(self.0 | 1 << index)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The places in the set, in order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..Self::MAX).filter(move |i| self.0 & (1 << i) != 0)
    }
}

/// An attempt's way through its service's guards, kept with its call's future: the next
/// guard to ask, and the guards that hear its end or hold a permit for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Passage {
    /// When the first guard admitted it (its latency, as the guards hear it, counts from here).
    pub since: Nanos,
    /// The next guard to ask (or, while it waits, the guard it waits for).
    pub next: u8,
    pub hear: GuardSet,
    pub holds: GuardSet,
}

/// How an attempt goes through its guards this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitting {
    /// From the first guard: the attempt is made.
    Make,
    /// From the guard after the one whose wait is over.
    Resume,
    /// The guard it queued at released a permit to it.
    Granted,
    /// It waited its longest at the guard it queued at.
    GaveUp,
}

/// What an attempt's guards said, for its engine to carry out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// Make the call now; the permits it holds go back when it ends
    /// (`CallGuards::release`).
    Go(GuardSet),
    /// Its caller waits this long (a reserved permit), then asks the rest
    /// (`CallGuards::resume`).
    Wait(Nanos),
    /// Its caller waits until a permit is released to it (`CallGuards::granted`), at most
    /// this long (`CallGuards::gave_up`).
    Queued(Nanos),
    /// It fails at once with this result: the attempt's end is this result.
    Failed(CallResult),
}
