//! A call's CPU work, run for real: the thread spins until it has had that much CPU time of
//! its own (`CLOCK_THREAD_CPUTIME_ID`), not wall time, so a thread the kernel preempts or
//! keeps waiting for a core finishes later, as CPU-bound work on a busy machine does. The
//! machine's scheduler then decides who waits: this is what the engine's time-sliced cores
//! model.

use std::time::{Duration, Instant};

use nix::time::{ClockId, clock_gettime};

/// This machine's cores (`available_parallelism`).
pub(super) fn machine_cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The CPU time this thread has used so far, if the clock can be read.
fn thread_cpu() -> Option<Duration> {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .ok()
        .map(Duration::from)
}

/// Spins until this thread has run `cpu` of CPU time; by the wall clock where the thread's
/// CPU clock cannot be read.
pub fn spin(cpu: Duration) {
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
    fn more_spinning_threads_than_cores_take_longer_than_their_cpu_time() {
        // One more thread than the machine has cores, each spinning 40 ms of its own CPU:
        // the cores cannot give them more than `cores` CPU-seconds a second, so the wall time
        // is at least (cores + 1) x 40 ms / cores. A spin by the wall clock would end at 40 ms.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let cpu = Duration::from_millis(40);
        let start = Instant::now();
        let threads: Vec<_> = (0..=cores)
            .map(|_| std::thread::spawn(move || spin(cpu)))
            .collect();
        for t in threads {
            t.join().expect("a spinning thread");
        }
        let floor =
            cpu * u32::try_from(cores + 1).unwrap_or(u32::MAX) / u32::try_from(cores).unwrap_or(1);
        assert!(
            start.elapsed() >= floor,
            "{:?} < {floor:?}",
            start.elapsed()
        );
    }
}
