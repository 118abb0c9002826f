//! How the same request code waits on an OS thread and in a tokio task.
//!
//! The handler and call code is written once, as `async` functions generic over [`Ctx`]. On a
//! platform thread [`OnThread`] really blocks (`thread::sleep`, `Condvar::wait_timeout`)
//! inside `poll`, so every future is ready at its first poll and [`block_on`] needs no waker;
//! in a tokio task (virtual threads, `unbounded` calls) [`RealTask`] awaits tokio timers.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use tokio::sync::Notify;

use super::clock::{STOP_POLL, Stop};
use crate::time::Nanos;

/// Where request code runs: it can sleep and wait for a mailbox.
pub(super) trait Ctx: Sync {
    /// Sleeps until `deadline`; false when the run stopped meanwhile.
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = bool> + Send;
    /// Waits until `mailbox` holds an item or `deadline` passes (at most [`STOP_POLL`]).
    fn wait<T: Send>(
        &self,
        mailbox: &Mailbox<T>,
        deadline: Instant,
    ) -> impl Future<Output = ()> + Send;
    fn stopped(&self) -> bool;
    /// When this thread's last CPU burst ended in the model's time, if it has not waited
    /// since (see [`CoreEnd`]).
    fn core_end(&self) -> &CoreEnd;
    /// Whether this is a virtual thread (a tokio task of a virtual-thread pool), whose
    /// carrier is one of the scenario's cores.
    fn on_virtual(&self) -> bool;
}

/// A platform thread: blocks.
pub(super) struct OnThread<'a>(pub &'a Stop, pub CoreEnd);

impl Ctx for OnThread<'_> {
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = bool> + Send {
        self.1.forget();
        std::future::ready(self.0.sleep_until(deadline))
    }

    fn wait<T: Send>(
        &self,
        mailbox: &Mailbox<T>,
        deadline: Instant,
    ) -> impl Future<Output = ()> + Send {
        self.1.forget();
        mailbox.wait_blocking(deadline.min(Instant::now() + STOP_POLL));
        std::future::ready(())
    }

    fn stopped(&self) -> bool {
        self.0.is_stopped()
    }

    fn on_virtual(&self) -> bool {
        false
    }

    fn core_end(&self) -> &CoreEnd {
        &self.1
    }
}

/// A tokio task: awaits. Request code runs in one only on a virtual thread (the server's or
/// `unbounded`'s virtual threads); the load's clients, which are tasks too, make no calls.
pub(super) struct OnTask<'a>(pub &'a Stop, pub CoreEnd);

impl Ctx for OnTask<'_> {
    async fn sleep_until(&self, deadline: Instant) -> bool {
        self.1.forget();
        tokio::time::sleep_until(deadline.into()).await;
        !self.0.is_stopped()
    }

    fn wait<T: Send>(
        &self,
        mailbox: &Mailbox<T>,
        deadline: Instant,
    ) -> impl Future<Output = ()> + Send {
        self.1.forget();
        mailbox.wait_async(deadline.min(Instant::now() + STOP_POLL))
    }

    fn stopped(&self) -> bool {
        self.0.is_stopped()
    }

    fn on_virtual(&self) -> bool {
        true
    }

    fn core_end(&self) -> &CoreEnd {
        &self.1
    }
}

/// When a thread's last CPU burst ended in the model's time (scenario nanoseconds): the
/// instant it asks for a core again if it goes straight on, however late the machine woke it
/// or ran its spin. A sleep or a wait forgets it: the thread then asks when it does. A
/// virtual thread still holds its carrier then ([`CoreEnd::keep`]): it gives it back when it
/// parks (`cores::OnVirtual`), or uses it for its next CPU.
#[derive(Debug)]
pub(super) struct CoreEnd(AtomicU64, AtomicBool);

impl Default for CoreEnd {
    fn default() -> Self {
        CoreEnd(AtomicU64::new(u64::MAX), AtomicBool::new(false))
    }
}

impl CoreEnd {
    pub fn set(&self, at: Nanos) {
        self.0.store(at.0, Ordering::Relaxed);
    }

    /// The burst ended at `at`, and the thread keeps its core (a virtual thread's carrier).
    pub fn keep(&self, at: Nanos) {
        self.set(at);
        self.1.store(true, Ordering::Relaxed);
    }

    /// The end kept, if any, now forgotten.
    pub fn take(&self) -> Option<Nanos> {
        let at = self.0.swap(u64::MAX, Ordering::Relaxed);
        (at != u64::MAX).then_some(Nanos(at))
    }

    /// The core the thread kept, if it did (its last burst's end), now no longer kept.
    pub fn take_kept(&self) -> Option<Nanos> {
        if self.1.swap(false, Ordering::Relaxed) {
            self.take()
        } else {
            None
        }
    }

    fn forget(&self) {
        self.0.store(u64::MAX, Ordering::Relaxed);
    }
}

/// Polls a future whose every await is an [`OnThread`] one to completion on this thread.
pub(super) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        // Not reached with OnThread futures; yield rather than spin if it ever is.
        std::thread::yield_now();
    }
}

/// A queue that threads push to and a thread or a task waits on (a future's completions, a
/// client's response).
#[derive(Debug)]
pub(super) struct Mailbox<T> {
    items: Mutex<VecDeque<T>>,
    ready: Condvar,
    notify: Notify,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox {
            items: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            notify: Notify::new(),
        }
    }
}

impl<T> Mailbox<T> {
    pub fn push(&self, item: T) {
        self.lock().push_back(item);
        self.ready.notify_all();
        self.notify.notify_waiters();
    }

    pub fn pop(&self) -> Option<T> {
        self.lock().pop_front()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<T>> {
        self.items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn wait_blocking(&self, deadline: Instant) {
        let items = self.lock();
        let timeout = deadline.saturating_duration_since(Instant::now());
        if items.is_empty() && !timeout.is_zero() {
            let _unused = self.ready.wait_timeout(items, timeout);
        }
    }

    async fn wait_async(&self, deadline: Instant) {
        let notified = self.notify.notified();
        let mut notified = std::pin::pin!(notified);
        // Registered before the check, so a push in between is not missed.
        notified.as_mut().enable();
        if !self.is_empty() {
            return;
        }
        let _unused = tokio::time::timeout_at(deadline.into(), notified).await;
    }
}

/// Locks a mutex, ignoring poisoning: a panicking worker must not take the run down with it.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
