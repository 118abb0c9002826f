//! The run as it is now: goodput, the answered p99 and failures per second over the last
//! [`SECONDS`] whole simulated seconds, which the headline and the Outcomes panel show beside
//! the run's average since t 0. During an outage the average hides it: `metastable` at 70 s
//! has answered 40.9 requests a second since t 0 and none since 32 s.

use crate::sim::Snapshot;

/// The seconds the current window spans (the latency panel's percentiles span as many).
pub const SECONDS: usize = 10;

/// The figures of the last [`SECONDS`] whole seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recent {
    /// Answered requests (success + partial) per second.
    pub goodput_rps: f64,
    /// Requests that ended without an answer (failed + timeout + refused) per second.
    pub failed_rps: f64,
    /// The answered p99 of the rolling window, `None` when nothing was answered in it.
    pub p99_ms: Option<f64>,
}

impl Recent {
    /// The window's figures once the run has played [`SECONDS`] whole seconds (before, the
    /// window is the whole run and the average since t 0 says it).
    pub fn of(snapshot: &Snapshot) -> Option<Recent> {
        let whole = usize::try_from(snapshot.now.as_nanos() / 1_000_000_000).ok()?;
        let from = whole.checked_sub(SECONDS)?;
        let mean = |timeline: &[u32]| {
            let seconds = timeline.get(from..whole)?;
            Some(f64::from(seconds.iter().sum::<u32>()) / SECONDS as f64)
        };
        Some(Recent {
            goodput_rps: mean(&snapshot.goodput_timeline)?,
            failed_rps: mean(&snapshot.failure_timeline)?,
            p99_ms: (snapshot.window.count > 0).then_some(snapshot.window.p99),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{self, Strategy};
    use crate::sim::Engine;
    use crate::time::Nanos;

    fn metastable_at(secs: u64) -> Snapshot {
        let s = scenario::load("metastable", &[]).expect("preset loads");
        let mut e = Engine::new(&s, Strategy::Sequential);
        e.run_until(Nanos::from_secs(secs));
        e.snapshot()
    }

    #[test]
    fn the_window_is_the_last_ten_whole_seconds_and_none_before_ten_have_passed() {
        assert_eq!(Recent::of(&metastable_at(9)), None);
        let snap = metastable_at(70);
        let recent = Recent::of(&snap).expect("70 s played");
        let answered: u32 = snap.goodput_timeline[60..70].iter().sum();
        let failed: u32 = snap.failure_timeline[60..70].iter().sum();
        assert_eq!(recent.goodput_rps, f64::from(answered) / 10.0);
        assert_eq!(recent.failed_rps, f64::from(failed) / 10.0);
        // The outage: nothing answered in the window while the average since t 0 is high.
        assert_eq!((recent.goodput_rps, recent.p99_ms), (0.0, None));
        assert!(snap.goodput_rps > 40.0, "{}", snap.goodput_rps);
        assert!(recent.failed_rps > 80.0, "{}", recent.failed_rps);
    }
}
