//! The load generator: the ids it hands out, how many closed-loop clients keep sending, the
//! open load's rate epoch, and the rows a finite load keeps. What the clients do is the
//! scenario's `load.mode`, which live changes rewrite.

use crate::RunRow;
use crate::draw::arrival_exp;
pub use crate::flow::arrival::arrival_gap;
use crate::scenario::LoadMode;
use crate::time::Nanos;

#[derive(Debug)]
pub(crate) struct LoadGenerator {
    /// The id the next request gets (from 1).
    next_id: u64,
    /// Closed load: the clients that keep sending; those at or above it are parked.
    pub client_target: u32,
    /// Open load: when the current rate (and ramp) took effect.
    rate_changed_at: Nanos,
    /// Arrivals of an older generation were superseded by a rate change.
    pub generation: u32,
    /// Every run's row, kept for `runs` and `trace` loads (bounded by their length).
    pub runs: Vec<RunRow>,
    /// When the latest answer reached its client: a finite load ends there.
    pub last_answer: Nanos,
    /// How many requests a finite load sends (`LoadMode::finite_count`), kept: the run asks
    /// before every event, and a load stays of its kind (live changes keep an open load open
    /// and a closed one closed).
    finite: Option<u64>,
}

impl LoadGenerator {
    /// The generator of a load that starts as `mode` (what the clients do is the scenario's
    /// `load.mode`, which live changes rewrite; the generator keeps what follows from it).
    pub fn new(mode: &LoadMode) -> Self {
        let client_target = match *mode {
            LoadMode::Closed { clients, .. } => clients,
            _ => 0,
        };
        LoadGenerator {
            next_id: 1,
            client_target,
            rate_changed_at: Nanos::ZERO,
            generation: 0,
            runs: Vec::new(),
            last_answer: Nanos::ZERO,
            finite: mode.finite_count(),
        }
    }

    /// The next request's id, taken.
    #[inline]
    pub fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// When the next request of load `mode` arrives, one having arrived `now`, if the load
    /// is open: the gap comes from the next request's own keyed exponential, so every
    /// strategy sees the same arrival times.
    #[inline]
    pub fn next_open_arrival(&self, mode: &LoadMode, seed: u64, now: Nanos) -> Option<Nanos> {
        let LoadMode::Open { rate, ramp } = *mode else {
            return None;
        };
        // A load phase of rate 0: nothing arrives until the next phase.
        if rate <= 0.0 && ramp.is_none() {
            return None;
        }
        let e = arrival_exp(seed, self.next_id);
        let since = now.saturating_sub(self.rate_changed_at).as_secs_f64();
        let gap = arrival_gap(rate, ramp, since, e);
        Some(now + Nanos::from_secs_f64(gap).max(Nanos(1)))
    }

    /// The open load's rate changed `now`: its ramp restarts from here, and the arrival
    /// pending is of the generation this supersedes.
    pub fn rate_changed(&mut self, now: Nanos) {
        self.rate_changed_at = now;
        self.generation = self.generation.wrapping_add(1);
    }

    /// How many requests a finite load sends; None for a load that goes on.
    #[inline]
    pub fn finite_count(&self) -> Option<u64> {
        self.finite
    }

    /// An answer reaches its client at `at`. True when a finite load's last answer moved
    /// there (the run must not end before it).
    #[inline]
    pub fn answered_at(&mut self, at: Nanos) -> bool {
        let later = self.finite.is_some() && at > self.last_answer;
        if later {
            self.last_answer = at;
        }
        later
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Ramp;

    #[test]
    fn a_rate_change_supersedes_the_pending_arrival_and_restarts_the_ramp_from_now() {
        let ramp = Ramp {
            to: 1000.0,
            over: Nanos::from_secs(10),
        };
        let ramped = LoadMode::Open {
            rate: 10.0,
            ramp: Some(ramp),
        };
        let mut load = LoadGenerator::new(&ramped);
        let now = Nanos::from_secs(5);
        let e = arrival_exp(7, 1);
        // Halfway up the ramp the rate is 505/s, so the gap is far below 1/10 s.
        let on_ramp = load.next_open_arrival(&ramped, 7, now).map(|at| at - now);
        let ramp_gap = Nanos::from_secs_f64(arrival_gap(10.0, Some(ramp), 5.0, e));
        assert_eq!(on_ramp, Some(ramp_gap.max(Nanos(1))));
        assert!(ramp_gap < Nanos::from_secs_f64(e / 10.0));

        load.rate_changed(now);
        assert_eq!(load.generation, 1);
        let flat = LoadMode::Open {
            rate: 2.0,
            ramp: None,
        };
        let later = now + Nanos::from_secs(1);
        let gap = load.next_open_arrival(&flat, 7, later).map(|at| at - later);
        assert_eq!(gap, Some(Nanos::from_secs_f64(e / 2.0).max(Nanos(1))));
        // Under the old ramp, restarted from the change, the same draw gives a shorter gap.
        let restarted = load
            .next_open_arrival(&ramped, 7, later)
            .map(|at| at - later);
        let from_change = Nanos::from_secs_f64(arrival_gap(10.0, Some(ramp), 1.0, e));
        assert_eq!(restarted, Some(from_change.max(Nanos(1))));
        // The next id draws the next gap.
        assert_eq!(load.take_id(), 1);
        let next = load.next_open_arrival(&flat, 7, now).map(|at| at - now);
        let e2 = arrival_exp(7, 2);
        assert_eq!(next, Some(Nanos::from_secs_f64(e2 / 2.0).max(Nanos(1))));
    }

    #[test]
    fn only_an_open_load_has_a_next_open_arrival() {
        let closed = LoadMode::Closed {
            clients: 3,
            think: Nanos::ZERO,
        };
        let load = LoadGenerator::new(&closed);
        assert_eq!(load.next_open_arrival(&closed, 1, Nanos::ZERO), None);
        assert_eq!(load.client_target, 3);
    }

    #[test]
    fn a_finite_load_counts_its_requests_and_ends_at_its_last_answer() {
        let runs = LoadMode::Runs { count: 3 };
        assert_eq!(runs.finite_count(), Some(3));
        let mut load = LoadGenerator::new(&runs);
        assert_eq!(load.finite_count(), Some(3));
        assert!(load.answered_at(Nanos(50)));
        assert!(
            !load.answered_at(Nanos(40)),
            "an earlier answer keeps the end"
        );
        assert_eq!(load.last_answer, Nanos(50));

        let open = LoadMode::Open {
            rate: 1.0,
            ramp: None,
        };
        assert_eq!(open.finite_count(), None);
        let mut load = LoadGenerator::new(&open);
        assert!(
            !load.answered_at(Nanos(50)),
            "an open load never ends on an answer"
        );
    }
}
