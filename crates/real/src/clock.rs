//! Wall-clock time seen in scenario units, and the stop signal that ends a run.
//!
//! A run's clock starts at `Instant::now()`; `--time-scale F` makes one scenario second last F
//! real seconds, so every latency, timeout and the duration shrink alike and every timestamp is
//! divided by F on the way back: reports read in the scenario's units.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::time::Nanos;

/// The longest a blocked thread waits before it looks at the stop signal again.
pub(super) const STOP_POLL: Duration = Duration::from_millis(20);

/// Real time since the run started, in scenario nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct ScaledClock {
    start: Instant,
    scale: f64,
}

impl ScaledClock {
    /// A clock whose t = 0 is `start` (it reads 0 until then).
    pub fn new(start: Instant, scale: f64) -> Self {
        ScaledClock { start, scale }
    }

    /// Now, in scenario time.
    pub fn now(&self) -> Nanos {
        self.scenario_time(Instant::now().saturating_duration_since(self.start))
    }

    /// A real span as scenario time.
    pub fn scenario_time(&self, real: Duration) -> Nanos {
        Nanos::from_secs_f64(real.as_secs_f64() / self.scale)
    }

    /// A scenario span as real time.
    pub fn real(&self, span: Nanos) -> Duration {
        Duration::from_secs_f64(span.as_secs_f64() * self.scale)
    }

    /// The real instant of scenario time `t`.
    pub fn at(&self, t: Nanos) -> Instant {
        self.start + self.real(t)
    }

    /// Real seconds since the start.
    pub fn wall_s(&self) -> f64 {
        Instant::now()
            .saturating_duration_since(self.start)
            .as_secs_f64()
    }
}

/// Set once when a run ends: sleeping and waiting threads give up and exit.
#[derive(Debug, Default)]
pub struct Stop(AtomicBool);

impl Stop {
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// `Thread.sleep` until `deadline`, in slices so the end of a run is noticed. The slices
    /// are computed from the deadline, so they add no drift. False when the run stopped.
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        loop {
            if self.is_stopped() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            std::thread::sleep((deadline - now).min(STOP_POLL));
        }
    }
}
