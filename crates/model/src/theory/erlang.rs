//! Erlang C: the M/M/c queue (Poisson arrivals, exponential service times, `c` servers, an
//! unbounded FIFO queue), the textbook model of a thread pool under open-loop load.

/// Steady-state predictions for an M/M/c queue; built by [`erlang_c`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErlangC {
    /// C(c, A): probability that an arriving request finds every server busy and waits.
    pub prob_wait: f64,
    /// Wq: mean time in the queue (s), over all requests including those that do not wait.
    pub mean_wait: f64,
    /// W = Wq + S: mean response time (s).
    pub mean_response: f64,
    /// Lq: mean number of requests in the queue.
    pub mean_queue_len: f64,
    /// ρ = λ · S / c: per-server utilisation.
    pub utilisation: f64,
    /// μ = 1 / S (1/s).
    service_rate: f64,
    /// c · μ − λ (1/s): the rate at which the queue drains while all servers are busy.
    drain_rate: f64,
}

/// Erlang C for `c` servers, arrival rate λ (req/s) and mean service time S (s).
///
/// With offered load `A = λ · S` (Erlangs) and `ρ = A / c`:
///
/// ```text
/// C(c, A) = B(c, A) / (1 − ρ · (1 − B(c, A)))      B = Erlang B (blocking probability)
/// B(0, A) = 1,   B(k, A) = A · B(k−1, A) / (k + A · B(k−1, A))
/// Wq = C / (c·μ − λ)      W = Wq + S      Lq = λ · Wq = C · ρ / (1 − ρ)
/// ```
///
/// (Kleinrock, *Queueing Systems* vol. 1, 1975, §3.5 for the M/M/c results.) Going through
/// Erlang B's recurrence rather than the textbook sum of `A^k / k!` keeps every intermediate
/// value in `[0, 1]`, so nothing overflows or cancels at large `c`, and the cost is
/// O(c): fine for `c = 100_000`.
///
/// Returns `None` when the queue is unstable (`ρ ≥ 1`: it grows without bound) or an input is
/// invalid (`c = 0`, λ negative or not finite, S not positive or not finite).
#[must_use]
pub fn erlang_c(servers: u32, arrival_rate: f64, service_time: f64) -> Option<ErlangC> {
    let valid = servers > 0
        && arrival_rate.is_finite()
        && arrival_rate >= 0.0
        && service_time.is_finite()
        && service_time > 0.0;
    if !valid {
        return None;
    }
    let c = f64::from(servers);
    let offered_load = arrival_rate * service_time;
    let utilisation = offered_load / c;
    if utilisation >= 1.0 {
        return None;
    }
    let blocking = erlang_b(servers, offered_load);
    let prob_wait = blocking / (1.0 - utilisation * (1.0 - blocking));
    let service_rate = 1.0 / service_time;
    // (c − A) / S rather than c/S − λ: one rounding instead of a difference of large terms.
    let drain_rate = (c - offered_load) / service_time;
    let mean_wait = prob_wait / drain_rate;
    Some(ErlangC {
        prob_wait,
        mean_wait,
        mean_response: mean_wait + service_time,
        mean_queue_len: arrival_rate * mean_wait,
        utilisation,
        service_rate,
        drain_rate,
    })
}

impl ErlangC {
    /// P(Wq > t) = C · e^{−(c·μ − λ)·t}: the probability a request waits longer than `t` seconds.
    ///
    /// A request that arrives to find all servers busy waits for the queue ahead of it to drain,
    /// which, with all `c` servers busy, is an exponential of rate `c·μ − λ` (Kleinrock, §3.5).
    /// For `t < 0` this is 1 (every wait is at least zero).
    #[must_use]
    pub fn prob_wait_longer_than(&self, t: f64) -> f64 {
        if t < 0.0 {
            1.0
        } else {
            self.prob_wait * (-self.drain_rate * t).exp()
        }
    }

    /// The `q`-quantile of the time in the queue, inverting [`Self::prob_wait_longer_than`]:
    /// 0 when `q ≤ 1 − C`, else `ln(C / (1 − q)) / (c·μ − λ)`.
    ///
    /// `q` outside `(0, 1)` gives 0 (for `q ≤ 0`) or infinity (for `q ≥ 1`).
    #[must_use]
    pub fn wait_quantile(&self, q: f64) -> f64 {
        if q >= 1.0 {
            f64::INFINITY
        } else if q <= 1.0 - self.prob_wait {
            0.0
        } else {
            (self.prob_wait / (1.0 - q)).ln() / self.drain_rate
        }
    }

    /// P(R > t): the probability that a request's response time (wait plus service) exceeds
    /// `t` seconds.
    ///
    /// The M/M/c response time is `R = S + Wq` with service `S ~ Exp(μ)` independent of the
    /// wait, and `Wq = 0` with probability `1 − C`, `Exp(δ)` with probability `C`, where
    /// `δ = c·μ − λ`. So
    ///
    /// ```text
    /// P(R > t) = (1 − C) · e^{−μt} + C · P(Exp(μ) + Exp(δ) > t)
    /// P(Exp(a) + Exp(b) > t) = (b·e^{−at} − a·e^{−bt}) / (b − a)        (hypoexponential)
    ///                        = e^{−at} · (1 + a · (1 − e^{−(b−a)t}) / (b − a))
    /// ```
    ///
    /// The second form, with `a = min(μ, δ)` and `b = max(μ, δ)` and `1 − e^{−x}` computed by
    /// `exp_m1`, has no cancellation as `δ → μ` and tends to the Erlang-2 tail
    /// `e^{−μt} · (1 + μt)` at `δ = μ`.
    #[must_use]
    pub fn prob_response_longer_than(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 1.0;
        }
        let service_only = (-self.service_rate * t).exp();
        let with_wait = hypoexponential_tail(self.service_rate, self.drain_rate, t);
        (1.0 - self.prob_wait) * service_only + self.prob_wait * with_wait
    }

    /// The `q`-quantile of the response time (e.g. `q = 0.99` for p99), in seconds.
    ///
    /// Found by bisection on [`Self::prob_response_longer_than`], which falls continuously and
    /// strictly from 1 at `t = 0`: the bracket doubles from the mean response time until the
    /// tail is below `1 − q`, then halves until it is as narrow as `f64` allows. `q ≤ 0` gives 0,
    /// `q ≥ 1` infinity and a NaN `q` NaN.
    #[must_use]
    pub fn response_time_quantile(&self, q: f64) -> f64 {
        if q.is_nan() {
            return f64::NAN;
        }
        if q <= 0.0 {
            return 0.0;
        }
        if q >= 1.0 {
            return f64::INFINITY;
        }
        let target = 1.0 - q;
        let mut low = 0.0;
        let mut high = self.mean_response;
        // The tail decays at least like e^{−min(μ, δ)·t}, so this ends within a few dozen
        // doublings; the cap only guards against a non-finite rate.
        for _ in 0..2048 {
            if self.prob_response_longer_than(high) <= target {
                break;
            }
            low = high;
            high *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (low + high);
            if mid <= low || mid >= high {
                break;
            }
            if self.prob_response_longer_than(mid) > target {
                low = mid;
            } else {
                high = mid;
            }
        }
        0.5 * (low + high)
    }
}

/// Erlang B, the probability that all `c` servers are busy in a loss system with offered load
/// `a`, by the recurrence `B(k) = a · B(k−1) / (k + a · B(k−1))` from `B(0) = 1`.
///
/// The recurrence is O(c); the TUI asks every frame with the same inputs, so the last answer
/// is kept and a repeated question costs nothing. Once `B` underflows to 0 it stays 0, so the
/// loop stops there.
fn erlang_b(servers: u32, offered_load: f64) -> f64 {
    type Key = (u32, u64);
    static LAST: std::sync::Mutex<Option<(Key, f64)>> = std::sync::Mutex::new(None);
    let key = (servers, offered_load.to_bits());
    let cached = LAST.lock().ok().and_then(|last| *last);
    if let Some((k, b)) = cached
        && k == key
    {
        return b;
    }
    let mut b = 1.0;
    for k in 1..=servers {
        let carried = offered_load * b;
        b = carried / (f64::from(k) + carried);
        if b == 0.0 {
            break;
        }
    }
    if let Ok(mut last) = LAST.lock() {
        *last = Some((key, b));
    }
    b
}

/// P(Exp(rate1) + Exp(rate2) > t) for independent exponentials; see
/// [`ErlangC::prob_response_longer_than`] for the form used.
fn hypoexponential_tail(rate1: f64, rate2: f64, t: f64) -> f64 {
    let (slow, fast) = if rate1 <= rate2 {
        (rate1, rate2)
    } else {
        (rate2, rate1)
    };
    let gap = fast - slow;
    // (1 − e^{−gap·t}) / gap, which tends to t as gap → 0.
    let partial = if gap == 0.0 {
        t
    } else {
        -(-gap * t).exp_m1() / gap
    };
    (-slow * t).exp() * (1.0 + slow * partial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::tests::{assert_close, assert_infinite};

    // Reference values computed independently with mpmath at 30-40 significant digits from the
    // textbook sum `Σ A^k / k!` (or, for c = 100_000, from the regularised incomplete gamma
    // function), and response-time quantiles by numerically integrating the convolution of the
    // service and wait densities and bisecting on the result.

    fn model(servers: u32, arrival_rate: f64, service_time: f64) -> ErlangC {
        erlang_c(servers, arrival_rate, service_time).expect("stable queue")
    }

    #[test]
    fn tomcat_pool_at_ninety_percent_barely_queues() {
        let m = model(200, 1800.0, 0.1);
        assert_close(m.prob_wait, 0.095, 0.002);
        assert_close(m.prob_wait, 0.094_471_218_177_6, 1e-10);
        assert_close(m.mean_wait, 0.000_472, 0.000_005);
        assert_close(m.mean_wait, 0.000_472_356_090_888, 1e-12);
        assert_close(m.mean_response, 0.100_472_356_091, 1e-11);
        assert_close(m.mean_queue_len, 0.850_240_963_598, 1e-9);
        assert_close(m.utilisation, 0.9, 1e-12);
    }

    #[test]
    fn tomcat_pool_near_saturation_queues_more() {
        let m = model(200, 1900.0, 0.1);
        assert_close(m.prob_wait, 0.365_263_856_563, 1e-10);
        assert_close(m.mean_wait, 0.003_652_638_565_63, 1e-12);
        let m = model(200, 1950.0, 0.1);
        assert_close(m.prob_wait, 0.626_726_761_443, 1e-10);
        assert_close(m.mean_wait, 0.012_534_535_228_9, 1e-12);
        let m = model(200, 1990.0, 0.1);
        assert_close(m.prob_wait, 0.915_556_710_354, 1e-10);
        assert_close(m.mean_wait, 0.091_555_671_035_4, 1e-11);
        assert_close(m.mean_queue_len, 182.195_785_36, 1e-7);
    }

    #[test]
    fn small_pool_with_slow_tasks_waits_seconds() {
        let m = model(10, 5.0, 1.7);
        assert_close(m.mean_wait, 0.60, 0.005);
        assert_close(m.prob_wait, 0.529_861_305_116, 1e-10);
        assert_close(m.mean_wait, 0.600_509_479_131, 1e-10);
        assert_close(m.mean_response, 2.300_509_479_13, 1e-10);
        let m = model(10, 5.5, 1.7);
        assert_close(m.mean_wait, 2.031_271_605_67, 1e-9);
    }

    #[test]
    fn three_servers_match_the_textbook_fraction() {
        // c = 3, A = 2: C = (8/6 · 3) / (1 + 2 + 2 + 8/6 · 3) = 4 / 9.
        let m = model(3, 2.0, 1.0);
        assert_close(m.prob_wait, 4.0 / 9.0, 1e-14);
        assert_close(m.mean_wait, 4.0 / 9.0, 1e-14);
        assert_close(m.mean_queue_len, 8.0 / 9.0, 1e-14);
    }

    #[test]
    fn single_server_reduces_to_m_m_1() {
        let service_time = 0.2;
        let mu = 1.0 / service_time;
        for rho in [0.01, 0.1, 0.5, 0.8, 0.9, 0.99, 0.999] {
            let lambda = rho * mu;
            let m = model(1, lambda, service_time);
            assert_close(m.prob_wait, rho, 1e-12);
            let wq = rho / (mu - lambda);
            assert_close(m.mean_wait, wq, 1e-9 * wq);
            assert_close(m.mean_response, 1.0 / (mu - lambda), 1e-9 / (mu - lambda));
            assert_close(
                m.mean_queue_len,
                rho * rho / (1.0 - rho),
                1e-9 / (1.0 - rho),
            );
        }
    }

    #[test]
    fn large_pools_stay_finite_and_accurate() {
        let m = model(1000, 9500.0, 0.1);
        assert_close(m.prob_wait, 0.068_253_415_377_141_4, 1e-10);
        assert_close(m.mean_wait, 0.000_136_506_830_754, 1e-12);

        let m = model(100_000, 99_900.0, 1.0);
        assert_close(m.prob_wait, 0.657_993_511_795_303, 1e-8);
        let m = model(100_000, 99_000.0, 1.0);
        assert_close(m.prob_wait, 0.000_821_908_237_410_795, 1e-11);
        let m = model(100_000, 99_999.0, 1.0);
        assert_close(m.prob_wait, 0.996_045_681_564_411, 1e-8);
        // True value 1.3e-8391: underflows to zero, must not become NaN.
        let m = model(100_000, 50_000.0, 1.0);
        assert_close(m.prob_wait, 0.0, 1e-300);
        assert_close(m.mean_wait, 0.0, 1e-300);
    }

    #[test]
    fn probabilities_stay_in_range_at_every_scale() {
        for servers in [1, 2, 10, 200, 1000, 100_000] {
            for rho in [0.0, 1e-9, 0.3, 0.9, 0.999, 0.999_999] {
                let c = f64::from(servers);
                let m = model(servers, rho * c / 0.1, 0.1);
                assert!(
                    (0.0..=1.0).contains(&m.prob_wait),
                    "c={servers} rho={rho}: {m:?}"
                );
                assert!(m.mean_wait.is_finite() && m.mean_wait >= 0.0, "{m:?}");
                assert!(
                    m.mean_queue_len.is_finite() && m.mean_queue_len >= 0.0,
                    "{m:?}"
                );
                assert!(m.mean_response >= 0.1, "{m:?}");
            }
        }
    }

    #[test]
    fn no_arrivals_means_no_waiting() {
        let m = model(200, 0.0, 0.1);
        assert_close(m.prob_wait, 0.0, 0.0);
        assert_close(m.mean_wait, 0.0, 0.0);
        assert_close(m.mean_response, 0.1, 0.0);
    }

    #[test]
    fn unstable_or_invalid_input_gives_none() {
        assert_eq!(erlang_c(200, 2000.0, 0.1), None);
        assert_eq!(erlang_c(200, 2500.0, 0.1), None);
        assert_eq!(erlang_c(1, 5.0, 0.2), None);
        assert_eq!(erlang_c(0, 1.0, 0.1), None);
        assert_eq!(erlang_c(10, -1.0, 0.1), None);
        assert_eq!(erlang_c(10, f64::NAN, 0.1), None);
        assert_eq!(erlang_c(10, f64::INFINITY, 0.1), None);
        assert_eq!(erlang_c(10, 1.0, 0.0), None);
        assert_eq!(erlang_c(10, 1.0, -0.1), None);
        assert_eq!(erlang_c(10, 1.0, f64::NAN), None);
        assert_eq!(erlang_c(10, 1.0, f64::INFINITY), None);
    }

    #[test]
    fn wait_tail_decays_at_the_drain_rate() {
        let m = model(200, 1900.0, 0.1);
        assert_close(m.prob_wait_longer_than(0.0), m.prob_wait, 0.0);
        // C · e^{−(2000 − 1900) · 0.01}
        assert_close(m.prob_wait_longer_than(0.01), 0.134_373_063_432, 1e-10);
        assert_close(m.prob_wait_longer_than(-1.0), 1.0, 0.0);
    }

    #[test]
    fn wait_quantile_is_zero_until_the_waiting_fraction() {
        let m = model(200, 1900.0, 0.1);
        assert_close(m.wait_quantile(0.5), 0.0, 0.0);
        assert_close(m.wait_quantile(0.99), 0.035_980_348_941_2, 1e-10);
        assert_infinite(m.wait_quantile(1.0));
    }

    #[test]
    fn response_time_quantiles_of_the_tomcat_pool() {
        let m = model(200, 1800.0, 0.1);
        assert_close(m.response_time_quantile(0.99), 0.461, 0.003);
        assert_close(m.response_time_quantile(0.5), 0.069_810_702_093_8, 1e-9);
        assert_close(m.response_time_quantile(0.9), 0.230_754_494_196, 1e-9);
        assert_close(m.response_time_quantile(0.99), 0.461_013_003_495, 1e-9);
        assert_close(m.response_time_quantile(0.999), 0.691_271_512_795, 1e-9);
        assert_close(m.response_time_quantile(0.0), 0.0, 0.0);
        assert_infinite(m.response_time_quantile(1.0));
        assert!(m.response_time_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn response_time_quantile_when_drain_rate_equals_service_rate() {
        // c = 2, λ = 1, S = 1: c·μ − λ = 1 = μ, the Erlang-2 limit of the tail.
        let m = model(2, 1.0, 1.0);
        assert_close(m.prob_wait, 1.0 / 3.0, 1e-14);
        assert_close(m.response_time_quantile(0.5), 0.974_411_605_19, 1e-9);
        assert_close(m.response_time_quantile(0.99), 5.665_960_683_79, 1e-9);
        // Just off the limit on either side the tail must stay continuous.
        let below = model(2, 1.0 + 1e-9, 1.0).response_time_quantile(0.99);
        let above = model(2, 1.0 - 1e-9, 1.0).response_time_quantile(0.99);
        assert_close(below, 5.665_960_683_79, 1e-6);
        assert_close(above, 5.665_960_683_79, 1e-6);
    }

    #[test]
    fn response_tail_matches_exponential_service_without_queueing() {
        // Almost no load: R is just Exp(μ), so the p99 is ln(100) / μ.
        let m = model(200, 1e-6, 0.1);
        assert_close(m.response_time_quantile(0.99), 100f64.ln() * 0.1, 1e-9);
        assert_close(m.prob_response_longer_than(0.1), (-1f64).exp(), 1e-9);
    }
}
