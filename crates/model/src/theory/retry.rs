//! Retries in queueing terms: how many attempts a request costs, and the load the clients
//! then offer against the server's ceiling. When every attempt times out (the storm after a
//! spike), each request costs its policy's most attempts, and the clients offer
//! λ × attempts: above the ceiling the backlog of dead work cannot drain, and the system
//! stays down at a load it carried before (Bronson et al., HotOS 2021).

use serde::Serialize;

/// Attempts per request when each attempt fails with probability `p`, for at most `n`
/// attempts: 1 + p + p² + … + p^(n-1) = (1 − pⁿ) / (1 − p), and `n` at p = 1.
pub fn attempts_per_request(p: f64, n: u32) -> f64 {
    let p = p.clamp(0.0, 1.0);
    if (1.0 - p).abs() < 1e-12 {
        return f64::from(n);
    }
    (1.0 - p.powf(f64::from(n))) / (1.0 - p)
}

/// What theory says of a retry policy under a load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryTheory {
    /// The policy's most attempts per request.
    pub max_attempts: u32,
    /// Attempts per request when every attempt fails (a storm): the most attempts, or
    /// 1 + the budget's share when a retry budget caps it.
    pub storm_attempts: f64,
    /// Open load: what the clients offer in a storm, λ × `storm_attempts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storm_offered_rps: Option<f64>,
    /// The highest arrival rate at which even a storm's load stays below the ceiling, so a
    /// backlog drains: ceiling / `storm_attempts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drains_below_rps: Option<f64>,
}

/// The figures of `policy` for arrivals at `lambda` (open load) on a system whose ceiling
/// is `ceiling_rps`.
pub fn retry_theory(
    policy: &crate::scenario::Retry,
    lambda: Option<f64>,
    ceiling_rps: Option<f64>,
) -> RetryTheory {
    let most = attempts_per_request(1.0, policy.attempts);
    let storm = policy.budget.map_or(most, |b| most.min(1.0 + b));
    RetryTheory {
        max_attempts: policy.attempts,
        storm_attempts: storm,
        storm_offered_rps: lambda.map(|l| l * storm),
        drains_below_rps: ceiling_rps.map(|c| c / storm),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_follow_the_truncated_geometric_series() {
        assert!((attempts_per_request(0.0, 5) - 1.0).abs() < 1e-12);
        // 1 + 0.5 + 0.25 = 1.75.
        assert!((attempts_per_request(0.5, 3) - 1.75).abs() < 1e-12);
        assert!((attempts_per_request(1.0, 5) - 5.0).abs() < 1e-12);
        // Just below 1 it tends to n.
        assert!((attempts_per_request(0.999_999, 5) - 5.0).abs() < 1e-4);
    }

    #[test]
    fn a_storm_offers_lambda_times_the_attempts_and_a_budget_caps_them() {
        let naive = crate::scenario::Retry {
            attempts: 5,
            backoff: crate::scenario::Backoff {
                wait: crate::time::Nanos::ZERO,
                multiplier: 1.0,
                jitter: crate::scenario::Jitter::None,
                max_wait: None,
            },
            budget: None,
            budget_window: None,
            on: crate::scenario::RetryOn::default(),
        };
        let t = retry_theory(&naive, Some(90.0), Some(100.0));
        assert_eq!(t.storm_offered_rps, Some(450.0));
        assert_eq!(t.drains_below_rps, Some(20.0));
        let budget = crate::scenario::Retry {
            budget: Some(0.1),
            budget_window: None,
            ..naive
        };
        let t = retry_theory(&budget, Some(90.0), Some(100.0));
        assert!((t.storm_attempts - 1.1).abs() < 1e-12);
        assert!((t.drains_below_rps.unwrap_or(0.0) - 100.0 / 1.1).abs() < 1e-9);
    }
}
