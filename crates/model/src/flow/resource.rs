//! `[[resources]]`, decided once for both engines: a connection pool as HikariCP's. A call of a
//! service that `uses` it borrows a connection for its whole call (CPU and wait); with none
//! free it waits in FIFO order up to the pool's `timeout` (`connectionTimeout`), then fails
//! with `SQLTransientConnectionException` ([`super::CallResult::NoConnection`]). A connection
//! given back goes to the longest waiter that still waits. The engine keeps the waiters' own
//! state (`W`), arms the timeout and says whether each still waits.

use std::collections::VecDeque;

use crate::scenario::Resource;
use crate::snapshot::ResourceSnapshot;
use crate::time::Nanos;

/// What `getConnection()` gave a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Borrow {
    /// It holds a connection: its call goes on now.
    Held,
    /// It waits behind the callers that came before it, giving up after the pool's timeout.
    Waits,
}

/// One connection pool and its figures.
#[derive(Debug, Clone)]
pub struct ConnectionPool<W> {
    size: u32,
    timeout: Nanos,
    in_use: u32,
    /// Callers waiting, oldest first; some may have given up since (the engine says which).
    waiters: VecDeque<W>,
    /// Waiters still waiting.
    waiting: u32,
    max_waiting: u32,
    max_in_use: u32,
    acquired: u64,
    timeouts: u64,
    /// Time the borrowers waited: those that got a connection and those that gave up.
    wait_total: Nanos,
}

impl<W> ConnectionPool<W> {
    pub fn new(resource: &Resource) -> Self {
        ConnectionPool {
            size: resource.size,
            timeout: resource.timeout,
            in_use: 0,
            waiters: VecDeque::new(),
            waiting: 0,
            max_waiting: 0,
            max_in_use: 0,
            acquired: 0,
            timeouts: 0,
            wait_total: Nanos::ZERO,
        }
    }

    /// How long a waiter waits before it gives up (`connectionTimeout`).
    pub fn timeout(&self) -> Nanos {
        self.timeout
    }

    /// `getConnection()`: a free connection, else `caller` waits at the back of the line.
    pub fn borrow(&mut self, caller: W) -> Borrow {
        if self.in_use < self.size {
            self.in_use += 1;
            self.max_in_use = self.max_in_use.max(self.in_use);
            self.acquired += 1;
            return Borrow::Held;
        }
        self.waiters.push_back(caller);
        self.waiting += 1;
        self.max_waiting = self.max_waiting.max(self.waiting);
        Borrow::Waits
    }

    /// A waiter's timeout came first: it gives up, having waited the whole timeout.
    pub fn give_up(&mut self) {
        self.waiting = self.waiting.saturating_sub(1);
        self.timeouts += 1;
        self.wait_total += self.timeout;
    }

    /// A call gives its connection back at `now`. It goes to the oldest waiter for which
    /// `takes` says when it began to wait (`takes` marks that waiter as holding; a waiter that
    /// gave up says None and is dropped), which is returned: its call goes on now.
    pub fn give_back(
        &mut self,
        now: Nanos,
        mut takes: impl FnMut(&W) -> Option<Nanos>,
    ) -> Option<W> {
        self.in_use = self.in_use.saturating_sub(1);
        while let Some(waiter) = self.waiters.pop_front() {
            let Some(since) = takes(&waiter) else {
                continue;
            };
            self.waiting = self.waiting.saturating_sub(1);
            self.in_use += 1;
            self.acquired += 1;
            self.wait_total += now.saturating_sub(since);
            return Some(waiter);
        }
        None
    }

    /// The pool's figures now, named after `resource`.
    pub fn snapshot(&self, resource: &Resource) -> ResourceSnapshot {
        let waits = self.acquired + self.timeouts;
        ResourceSnapshot {
            name: resource.name.clone(),
            size: self.size,
            active: self.in_use,
            max_active: self.max_in_use,
            waiting: self.waiting,
            max_waiting: self.max_waiting,
            acquired: self.acquired,
            timeouts: self.timeouts,
            mean_wait_ms: if waits > 0 {
                self.wait_total.as_millis_f64() / waits as f64
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(size: u32, timeout_ms: u64) -> ConnectionPool<u32> {
        ConnectionPool::new(&Resource {
            name: "db".into(),
            size,
            timeout: Nanos::from_millis(timeout_ms),
        })
    }

    #[test]
    fn a_connection_given_back_goes_to_the_oldest_caller_still_waiting() {
        let ms = Nanos::from_millis;
        let mut p = pool(1, 30);
        assert_eq!(p.borrow(1), Borrow::Held);
        assert_eq!(p.borrow(2), Borrow::Waits);
        assert_eq!(p.borrow(3), Borrow::Waits);
        // Caller 2 gave up after its 30 ms; 3 has waited since t = 10 ms.
        p.give_up();
        let since = |w: &u32| (*w != 2).then_some(ms(10));
        assert_eq!(p.give_back(ms(50), since), Some(3));
        let s = p.snapshot(&Resource {
            name: "db".into(),
            size: 1,
            timeout: ms(30),
        });
        assert_eq!(
            (s.active, s.max_active, s.waiting, s.max_waiting),
            (1, 1, 0, 2)
        );
        assert_eq!((s.acquired, s.timeouts), (2, 1));
        // 0 ms (caller 1), 30 ms (2, the timeout), 40 ms (3): 70 ms over 3 borrowers.
        assert!(
            (s.mean_wait_ms - 70.0 / 3.0).abs() < 1e-9,
            "{}",
            s.mean_wait_ms
        );
        assert_eq!(p.give_back(ms(60), |_| Some(ms(0))), None);
        assert_eq!(p.borrow(4), Borrow::Held);
    }

    #[test]
    fn a_free_connection_is_taken_even_behind_waiters_that_gave_up() {
        let mut p = pool(2, 5);
        assert_eq!(p.borrow(1), Borrow::Held);
        assert_eq!(p.borrow(2), Borrow::Held);
        assert_eq!(p.borrow(3), Borrow::Waits);
        p.give_up();
        // Nobody still waits: the connection given back is free, and the next caller has it.
        assert_eq!(p.give_back(Nanos::ZERO, |_| None), None);
        assert_eq!(p.borrow(4), Borrow::Held);
        assert_eq!(p.borrow(5), Borrow::Waits);
    }
}
