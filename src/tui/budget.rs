//! One budget for everything the live view plays: the run on screen, the compare views'
//! rows (`c`, `C`, the variants typed with `a`) and the sweep's points (`g`) together hold no
//! more than one run may (the cost estimate's limits of requests and calls in flight, and so
//! of memory). Each shares them equally ([`Engine::share_limits`]); a variant whose own
//! estimate is beyond the limits is not added.

use super::App;
use crate::scenario::{self, Scenario, Strategy};
use crate::time::Nanos;

impl App {
    /// The runs the live view plays at once: the engines the clock drives, and the sweep's
    /// points being computed beside them.
    pub(super) fn runs_alive(&self) -> u64 {
        let sweeping = self
            .sweep()
            .is_some_and(super::super::sweep::Sweep::computing);
        let points = if sweeping {
            super::super::sweep::threads()
        } else {
            0
        };
        (self.driven().count() + points) as u64
    }

    /// Gives every engine the clock drives its share of one run's limits.
    pub(super) fn share_budget(&mut self) {
        let runs = self.runs_alive();
        for engine in self.driven_mut() {
            engine.share_limits(runs);
        }
    }
}

/// Why a variant is too large to play beside the run, if it is: its own estimate for
/// `duration` (the run's), with what its server answers under `strategy`.
pub fn too_large(variant: &Scenario, strategy: Strategy, duration: Nanos) -> Option<String> {
    let served = crate::theory::served_rps(variant, &[strategy]);
    scenario::estimate_cost(variant, duration, served).refusal()
}
