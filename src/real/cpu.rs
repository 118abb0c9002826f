//! A call's CPU work, run for real: the thread spins until it has had that much CPU time of
//! its own (`CLOCK_THREAD_CPUTIME_ID`), not wall time, so a thread the kernel preempts or
//! keeps waiting for a core finishes later, as CPU-bound work on a busy machine does. The
//! machine's scheduler then decides who waits: this is what the engine's time-sliced cores
//! model.

use std::time::{Duration, Instant};

use nix::time::{ClockId, clock_gettime};

/// The CPU time this thread has used so far, if the clock can be read.
fn thread_cpu() -> Option<Duration> {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .ok()
        .map(Duration::from)
}

/// Spins until this thread has run `cpu` of CPU time; by the wall clock where the thread's
/// CPU clock cannot be read.
pub(super) fn spin(cpu: Duration) {
    let Some(start) = thread_cpu() else {
        let wall = Instant::now();
        while wall.elapsed() < cpu {
            std::hint::spin_loop();
        }
        return;
    };
    while thread_cpu().is_some_and(|now| now.saturating_sub(start) < cpu) {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spin_uses_at_least_its_cpu_time_of_the_thread() {
        let before = thread_cpu().expect("the thread's CPU clock");
        spin(Duration::from_millis(20));
        let used = thread_cpu().expect("the thread's CPU clock") - before;
        assert!(used >= Duration::from_millis(20), "{used:?}");
    }
}
