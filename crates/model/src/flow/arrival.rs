//! An open load's arrivals: the gap to the next one, for a Poisson process at a rate or along
//! a linear ramp.

use crate::scenario::Ramp;
use crate::time::Nanos;

/// Seconds from an arrival `since` seconds after the rate (and ramp) took effect to the next
/// one, for the next request's standard exponential `e`: a Poisson process at `rate`, or along
/// a linear ramp, followed exactly by inverting the integrated rate.
pub fn arrival_gap(rate: f64, ramp: Option<Ramp>, since: f64, e: f64) -> f64 {
    match ramp {
        Some(ramp) if since < ramp.over.as_secs_f64() && ramp.over > Nanos::ZERO => {
            let over = ramp.over.as_secs_f64();
            let slope = (ramp.to - rate) / over;
            let a = rate + slope * since;
            let remaining = over - since;
            let ramp_area = a * remaining + slope * remaining * remaining / 2.0;
            if e <= ramp_area {
                solve_linear_rate(a, slope, e)
            } else {
                remaining + (e - ramp_area) / ramp.to
            }
        }
        Some(ramp) => e / ramp.to,
        None => e / rate,
    }
}

/// The time x at which a rate a + b·t has accumulated area e: a·x + b·x²/2 = e.
fn solve_linear_rate(a: f64, b: f64, e: f64) -> f64 {
    if b.abs() < 1e-12 {
        return e / a;
    }
    let disc = (a * a + 2.0 * b * e).max(0.0);
    // The root written to avoid cancellation when b is small.
    2.0 * e / (a + disc.sqrt())
}
