//! The `semaphore` strategy's guard, decided once for both engines: resilience4j's
//! `SemaphoreBulkhead`, one per service. A caller takes one of the service's permits; with none
//! free it waits up to `maxWaitDuration` in FIFO order (the bulkhead's `Semaphore` is fair),
//! else it gets `BulkheadFullException`. A permit given back goes to the longest waiter that
//! still waits. The engine keeps the waiters' own state (`W`) and says whether each still waits.

use std::any::Any;
use std::collections::VecDeque;

use crate::scenario::{Scenario, ServiceId, Strategy};
use crate::time::Nanos;

use super::call_guard::{Admit, CallGuard, GuardAsk, GuardRefusal, GuardRow, RetriedAs, Waiter};

/// What `tryAcquirePermission` gave a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquire {
    /// It holds a permit: its call runs now.
    Held,
    /// It waits (up to `maxWaitDuration`) behind the callers that came before it.
    Waits,
    /// No permit and no wait (`maxWaitDuration` 0): `BulkheadFullException` at once.
    Full,
}

/// One service's fair semaphore.
#[derive(Debug, Clone)]
pub struct Semaphore<W> {
    permits: u32,
    in_use: u32,
    /// Callers waiting, oldest first; some may have given up since (the engine says which).
    waiters: VecDeque<W>,
}

impl<W> Semaphore<W> {
    pub fn new(permits: u32) -> Self {
        Semaphore {
            permits,
            in_use: 0,
            waiters: VecDeque::new(),
        }
    }

    /// A caller asks for a permit, ready to wait `max_wait`. A free permit goes to it only
    /// when nobody waits (fairness: it does not overtake a waiter).
    pub fn acquire(&mut self, caller: W, max_wait: Nanos) -> Acquire {
        if self.in_use < self.permits && self.waiters.is_empty() {
            self.in_use += 1;
            Acquire::Held
        } else if max_wait > Nanos::ZERO {
            self.waiters.push_back(caller);
            Acquire::Waits
        } else {
            Acquire::Full
        }
    }

    /// A call gives its permit back. It goes to the oldest waiter for which `takes` is true
    /// (`takes` marks that waiter as holding; a waiter that gave up says false and is
    /// dropped), which is returned: its call runs now.
    pub fn release(&mut self, mut takes: impl FnMut(&W) -> bool) -> Option<W> {
        self.in_use = self.in_use.saturating_sub(1);
        while let Some(waiter) = self.waiters.pop_front() {
            if takes(&waiter) {
                self.in_use += 1;
                return Some(waiter);
            }
        }
        None
    }

    /// Permits held now.
    pub fn in_use(&self) -> u32 {
        self.in_use
    }
}

/// `BulkheadFullException`: no permit within `maxWaitDuration`.
pub static BULKHEAD_FULL: GuardRefusal = GuardRefusal {
    guard: "bulkhead",
    exception: "BulkheadFullException",
    label: "bulkhead full",
    retried_as: RetriedAs::Rejection,
    counts_rejected: true,
};

/// `service`'s semaphore bulkhead (`[strategy.semaphore]`): every service has one, which
/// guards the calls of the `semaphore` strategy only.
pub fn guard(scenario: &Scenario, _service: ServiceId) -> Option<Box<dyn CallGuard>> {
    let config = scenario.strategy.semaphore;
    Some(Box::new(SemaphoreBulkhead {
        semaphore: Semaphore::new(config.permits),
        max_wait: config.max_wait,
        full: 0,
    }))
}

/// resilience4j's `SemaphoreBulkhead` as a guard: the caller holds a permit while its call
/// runs, or waits for one in FIFO order up to `maxWaitDuration`.
#[derive(Debug, Clone)]
pub struct SemaphoreBulkhead {
    semaphore: Semaphore<Waiter>,
    max_wait: Nanos,
    /// Callers that got `BulkheadFullException`.
    full: u64,
}

impl CallGuard for SemaphoreBulkhead {
    fn applies(&self, strategy: Strategy) -> bool {
        strategy == Strategy::Semaphore
    }

    fn admit(&mut self, ask: GuardAsk) -> Admit {
        match self.semaphore.acquire(ask.waiter, self.max_wait) {
            Acquire::Held => Admit::Hold,
            Acquire::Waits => Admit::Queue {
                max_wait: self.max_wait,
            },
            Acquire::Full => {
                self.full += 1;
                Admit::Refuse(&BULKHEAD_FULL)
            }
        }
    }

    fn release(&mut self, still_waits: &mut dyn FnMut(Waiter) -> bool) -> Option<Waiter> {
        self.semaphore.release(|w| still_waits(*w))
    }

    fn gave_up(&mut self) -> &'static GuardRefusal {
        self.full += 1;
        &BULKHEAD_FULL
    }

    fn row(&self) -> GuardRow {
        GuardRow {
            guard: BULKHEAD_FULL.guard,
            state: format!(
                "{} of {} in use",
                self.semaphore.in_use(),
                self.semaphore.permits
            ),
            figures: vec![("in use", f64::from(self.semaphore.in_use()))],
            refused: self.full,
            reported_apart: true,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permit_given_back_goes_to_the_oldest_caller_still_waiting() {
        let wait = Nanos::from_millis(50);
        let mut s = Semaphore::new(1);
        assert_eq!(s.acquire(1, wait), Acquire::Held);
        assert_eq!(s.acquire(2, wait), Acquire::Waits);
        assert_eq!(s.acquire(3, wait), Acquire::Waits);
        assert_eq!(s.acquire(4, wait), Acquire::Waits);
        // Caller 2 gave up (its wait was up): the permit goes to 3, then 4.
        assert_eq!(s.release(|&w| w != 2), Some(3));
        assert_eq!(s.in_use(), 1);
        assert_eq!(s.release(|_| true), Some(4));
        assert_eq!(s.release(|_| true), None);
        assert_eq!(s.in_use(), 0);
    }

    #[test]
    fn without_a_wait_a_caller_finds_the_bulkhead_full_at_once() {
        let mut s = Semaphore::new(2);
        assert_eq!(s.acquire('a', Nanos::ZERO), Acquire::Held);
        assert_eq!(s.acquire('b', Nanos::ZERO), Acquire::Held);
        assert_eq!(s.acquire('c', Nanos::ZERO), Acquire::Full);
        assert_eq!(s.release(|_| true), None);
        assert_eq!(s.acquire('d', Nanos::ZERO), Acquire::Held);
    }

    #[test]
    fn a_free_permit_does_not_overtake_a_waiter() {
        let wait = Nanos::from_millis(10);
        let mut s = Semaphore::new(1);
        assert_eq!(s.acquire(1, wait), Acquire::Held);
        assert_eq!(s.acquire(2, wait), Acquire::Waits);
        // Waiter 2 gave up; the permit comes back with nobody left: it is free again.
        assert_eq!(s.release(|_| false), None);
        assert_eq!(s.acquire(3, wait), Acquire::Held);
    }
}
