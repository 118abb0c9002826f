//! Common random numbers: every random value is drawn from a generator keyed by
//! (seed, request id, stream), so two strategies playing the same scenario see the same
//! latencies, hangs, failures and arrival gaps for the same request. That makes
//! side-by-side comparisons exact rather than statistically fair.

use std::convert::Infallible;

use rand::rand_core::utils::fill_bytes_via_next_word;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng, TryRng};
use rand_distr::{Distribution, Exp1, StandardNormal};

use crate::scenario::{Latency, Service, lognormal_params};
use crate::time::Nanos;

/// Stream keys that are not calls (calls use their index in the endpoint, from 0).
const STREAM_ARRIVAL: u64 = 1 << 32;
const STREAM_TURNAROUND: u64 = (1 << 32) + 1;
const STREAM_POST_RESPONSE: u64 = (1 << 32) + 2;
const STREAM_RETRY: u64 = (1 << 32) + 3;
const STREAM_CALL_RETRY: u64 = 3 << 32;
const STREAM_PROBES: u64 = 2 << 32;

/// SplitMix64's finaliser: a strong 64-bit mix, so nearby keys give unrelated generators.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn key(seed: u64, request: u64, stream: u64) -> u64 {
    mix(seed ^ mix(request ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93)))
}

fn keyed(seed: u64, request: u64, stream: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(key(seed, request, stream))
}

/// The generator [`keyed`] returns, for a draw that mostly takes one word (a ziggurat's
/// exponential): the first word comes from the two state words it reads (SplitMix64's first
/// and fourth outputs, as `seed_from_u64` fills the state), and the whole state is made only
/// if a second word is asked for. Every word is the one [`keyed`]'s generator gives.
enum FirstWord {
    /// Nothing drawn yet from the generator of this key.
    Fresh(u64),
    /// The first word was drawn from the generator of this key.
    Started(u64),
    /// The generator itself, past its first word.
    Going(Xoshiro256PlusPlus),
}

impl FirstWord {
    fn new(seed: u64, request: u64, stream: u64) -> Self {
        FirstWord::Fresh(key(seed, request, stream))
    }

    /// A word past the first (about one exponential in a hundred asks for one).
    #[inline(never)]
    fn next_after_first(&mut self) -> u64 {
        let (key, started) = match self {
            FirstWord::Going(rng) => return rng.next_u64(),
            FirstWord::Fresh(key) => (*key, false),
            FirstWord::Started(key) => (*key, true),
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(key);
        if started {
            rng.next_u64();
        }
        let word = rng.next_u64();
        *self = FirstWord::Going(rng);
        word
    }
}

/// SplitMix64's increment, which `seed_from_u64` adds before each state word.
const SPLITMIX_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl TryRng for FirstWord {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        // As Xoshiro256PlusPlus: the upper bits.
        self.try_next_u64().map(|word| (word >> 32) as u32)
    }

    #[inline(always)]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        if let FirstWord::Fresh(key) = *self {
            // Xoshiro256++'s output reads state words 0 and 3 only.
            let s0 = mix(key);
            let s3 = mix(key.wrapping_add(SPLITMIX_GAMMA.wrapping_mul(3)));
            *self = FirstWord::Started(key);
            return Ok(s0.wrapping_add(s3).rotate_left(23).wrapping_add(s0));
        }
        Ok(self.next_after_first())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        fill_bytes_via_next_word(dst, || self.try_next_u64())
    }
}

/// Where the run's `ThreadLocalRandom` probe sequence starts (`probeGenerator`'s value when
/// the first thread submits): the one draw behind which submission queue each thread uses.
pub fn probe_origin(seed: u64) -> u32 {
    (mix(seed ^ STREAM_PROBES) >> 32) as u32
}

/// The raw uniforms one call consumes. Faults transform the outcome, not the draws, so a
/// healed service returns to exactly the values it would have had.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallDraw {
    /// The latency drawn from the service's distribution.
    pub latency: Nanos,
    /// Uniform in [0, 1): the call fails when below the failure probability.
    pub fail_u: f64,
    /// Uniform in [0, 1): the call hangs when below the hang probability.
    pub hang_u: f64,
}

/// Where a request's attempt number goes in its stream key: above every call index and every
/// other stream, so attempt 0 keeps the stream of the call itself.
const ATTEMPT_SHIFT: u32 = 40;
/// Where a call's own attempt number goes (`[services.retry]`): above the request's.
const CALL_ATTEMPT_SHIFT: u32 = 56;

/// Which attempt a call's draw is of: the request's (a client's retry) and the call's own
/// (`[services.retry]`), both 0 for a first attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attempts {
    pub request: u32,
    pub call: u32,
}

impl Attempts {
    fn key(self) -> u64 {
        (u64::from(self.request) << ATTEMPT_SHIFT) | (u64::from(self.call) << CALL_ATTEMPT_SHIFT)
    }
}

/// Draws the attempt `attempts` of call `call` (its index in the endpoint) of request
/// `request`. Each attempt of a retried request or call draws anew; a first attempt draws
/// what the call always drew.
pub fn call_draw(
    seed: u64,
    request: u64,
    call: usize,
    attempts: Attempts,
    service: &Service,
) -> CallDraw {
    let stream = call as u64 | attempts.key();
    let mut rng = keyed(seed, request, stream);
    let fail_u: f64 = rng.random();
    let hang_u: f64 = rng.random();
    let latency = sample_latency(&service.latency, &mut rng);
    CallDraw {
        latency,
        fail_u,
        hang_u,
    }
}

/// A standard exponential (mean 1) for the arrival of request `request`.
#[inline]
pub fn arrival_exp(seed: u64, request: u64) -> f64 {
    Exp1.sample(&mut FirstWord::new(seed, request, STREAM_ARRIVAL))
}

/// A standard exponential for the client's turnaround after the response to `request`.
pub fn turnaround_exp(seed: u64, request: u64) -> f64 {
    Exp1.sample(&mut FirstWord::new(seed, request, STREAM_TURNAROUND))
}

/// Uniform in [0, 1): the jitter of the pause before attempt `attempt` (from 1) of `request`.
pub fn retry_u(seed: u64, request: u64, attempt: u32) -> f64 {
    let stream = STREAM_RETRY | (u64::from(attempt) << ATTEMPT_SHIFT);
    keyed(seed, request, stream).random()
}

/// Uniform in [0, 1): the jitter of the pause before attempt `attempts.call` (from 1) of call
/// `call` of `request`.
pub fn call_retry_u(seed: u64, request: u64, call: usize, attempts: Attempts) -> f64 {
    keyed(
        seed,
        request,
        STREAM_CALL_RETRY | call as u64 | attempts.key(),
    )
    .random()
}

/// A standard exponential for the server thread's work after writing the response to
/// `request`, before it reads the connection again.
#[inline]
pub fn post_response_exp(seed: u64, request: u64) -> f64 {
    Exp1.sample(&mut FirstWord::new(seed, request, STREAM_POST_RESPONSE))
}

fn sample_latency(latency: &Latency, rng: &mut Xoshiro256PlusPlus) -> Nanos {
    match latency {
        Latency::Fixed(d) => *d,
        Latency::Uniform { min, max } => {
            if max <= min {
                *min
            } else {
                Nanos(rng.random_range(min.0..=max.0))
            }
        }
        Latency::Exponential { mean } => {
            let e: f64 = Exp1.sample(rng);
            Nanos::from_secs_f64(e * mean.as_secs_f64())
        }
        Latency::Normal { mean, sd } => {
            // Truncated at zero: redraw negatives (bounded, then clamp).
            for _ in 0..64 {
                let z: f64 = StandardNormal.sample(rng);
                let x = mean.as_secs_f64() + z * sd.as_secs_f64();
                if x >= 0.0 {
                    return Nanos::from_secs_f64(x);
                }
            }
            Nanos::ZERO
        }
        Latency::LogNormal { p50, p99 } => {
            let (mu, sigma) = lognormal_params(*p50, *p99);
            let z: f64 = StandardNormal.sample(rng);
            Nanos::from_secs_f64((mu + sigma * z).exp() / 1e9)
        }
        Latency::Empirical(values) => {
            if values.is_empty() {
                Nanos::ZERO
            } else {
                values[rng.random_range(0..values.len())]
            }
        }
        Latency::Quantiles(rows) => quantile_at(rows, rng.random()),
    }
}

/// The value at share `u` of a quantile table: linear between the rows around it.
fn quantile_at(rows: &[(f64, Nanos)], u: f64) -> Nanos {
    let i = rows.partition_point(|(p, _)| *p <= u);
    match (i.checked_sub(1).and_then(|k| rows.get(k)), rows.get(i)) {
        (Some(&(p0, v0)), Some(&(p1, v1))) if p1 > p0 => {
            let t = (u - p0) / (p1 - p0);
            let (a, b) = (v0.0 as f64, v1.0 as f64);
            Nanos((a + t * (b - a)).round() as u64)
        }
        (Some(&(_, v)), _) | (None, Some(&(_, v))) => v,
        (None, None) => Nanos::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's attempt `n` of the request, the call's first.
    fn at(request: u32) -> Attempts {
        Attempts { request, call: 0 }
    }

    fn service(latency: Latency) -> Service {
        Service::plain("s", latency)
    }

    #[test]
    fn same_key_same_draw_other_key_other_draw() {
        let s = service(Latency::Exponential {
            mean: Nanos::from_millis(100),
        });
        assert_eq!(call_draw(7, 3, 1, at(0), &s), call_draw(7, 3, 1, at(0), &s));
        assert_ne!(call_draw(7, 3, 1, at(0), &s), call_draw(8, 3, 1, at(0), &s));
        assert_ne!(call_draw(7, 3, 1, at(0), &s), call_draw(7, 4, 1, at(0), &s));
        assert_ne!(call_draw(7, 3, 1, at(0), &s), call_draw(7, 3, 2, at(0), &s));
        // A retried call draws anew, and no attempt of one call meets another call's draws.
        assert_ne!(call_draw(7, 3, 1, at(0), &s), call_draw(7, 3, 1, at(1), &s));
        assert_ne!(call_draw(7, 3, 1, at(1), &s), call_draw(7, 3, 1, at(2), &s));
        assert_ne!(call_draw(7, 3, 1, at(1), &s), call_draw(7, 3, 2, at(1), &s));
        // A call's own retry draws anew too, and apart from the client's retries.
        let call_retry = Attempts {
            request: 0,
            call: 1,
        };
        assert_ne!(
            call_draw(7, 3, 1, at(0), &s),
            call_draw(7, 3, 1, call_retry, &s)
        );
        assert_ne!(
            call_draw(7, 3, 1, at(1), &s),
            call_draw(7, 3, 1, call_retry, &s)
        );
        assert_ne!(
            call_retry_u(7, 3, 1, call_retry),
            call_retry_u(
                7,
                3,
                1,
                Attempts {
                    request: 0,
                    call: 2
                }
            )
        );
    }

    #[test]
    fn the_first_word_generator_gives_every_word_the_keyed_one_gives() {
        for request in 0..2_000u64 {
            let stream = request % 5 + STREAM_ARRIVAL;
            let mut whole = keyed(11, request, stream);
            let mut lazy = FirstWord::new(11, request, stream);
            for _ in 0..4 {
                assert_eq!(lazy.next_u64(), whole.next_u64(), "request {request}");
            }
            let (mut whole, mut lazy) = (
                keyed(12, request, stream),
                FirstWord::new(12, request, stream),
            );
            let (w, l): (f64, f64) = (Exp1.sample(&mut whole), Exp1.sample(&mut lazy));
            assert_eq!(w.to_bits(), l.to_bits());
            let (mut a, mut b) = ([0u8; 13], [0u8; 13]);
            let mut lazy = FirstWord::new(13, request, stream);
            lazy.fill_bytes(&mut a);
            keyed(13, request, stream).fill_bytes(&mut b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn the_first_attempt_draws_what_the_call_always_drew() {
        // The stream key of attempt 0 is the call's index alone: goldens stay byte-identical.
        let s = service(Latency::Exponential {
            mean: Nanos::from_millis(10),
        });
        let mut rng = keyed(7, 3, 1);
        let fail_u: f64 = rng.random();
        let hang_u: f64 = rng.random();
        let d = call_draw(7, 3, 1, at(0), &s);
        assert_eq!((d.fail_u, d.hang_u), (fail_u, hang_u));
    }

    #[test]
    fn exponential_mean_and_lognormal_quantiles_match_their_parameters() {
        let exp = service(Latency::Exponential {
            mean: Nanos::from_millis(100),
        });
        let n = 200_000u64;
        let mean: f64 = (0..n)
            .map(|r| call_draw(1, r, 0, at(0), &exp).latency.as_millis_f64())
            .sum::<f64>()
            / n as f64;
        assert!((mean - 100.0).abs() < 1.0, "mean {mean}");

        let ln = service(Latency::LogNormal {
            p50: Nanos::from_millis(80),
            p99: Nanos::from_millis(400),
        });
        let mut xs: Vec<f64> = (0..n)
            .map(|r| call_draw(2, r, 0, at(0), &ln).latency.as_millis_f64())
            .collect();
        xs.sort_by(f64::total_cmp);
        let p50 = xs[(n / 2) as usize];
        let p99 = xs[(n * 99 / 100) as usize];
        assert!((p50 - 80.0).abs() < 1.5, "p50 {p50}");
        assert!((p99 - 400.0).abs() < 15.0, "p99 {p99}");
    }

    #[test]
    fn truncated_normal_never_negative_and_uniform_stays_in_range() {
        let normal = service(Latency::Normal {
            mean: Nanos::from_millis(10),
            sd: Nanos::from_millis(20),
        });
        let uniform = service(Latency::Uniform {
            min: Nanos::from_millis(100),
            max: Nanos::from_millis(300),
        });
        for r in 0..10_000 {
            let u = call_draw(3, r, 0, at(0), &uniform).latency;
            assert!(u >= Nanos::from_millis(100) && u <= Nanos::from_millis(300));
            assert!(call_draw(3, r, 0, at(0), &normal).latency >= Nanos::ZERO);
        }
    }

    #[test]
    fn a_quantile_table_draws_its_own_quantiles() {
        let ms = Nanos::from_millis;
        let rows = vec![
            (0.0, ms(10)),
            (0.5, ms(40)),
            (0.9, ms(100)),
            (0.99, ms(300)),
            (1.0, ms(900)),
        ];
        let s = service(Latency::Quantiles(rows));
        let n = 200_000u64;
        let mut xs: Vec<f64> = (0..n)
            .map(|r| call_draw(5, r, 0, at(0), &s).latency.as_millis_f64())
            .collect();
        xs.sort_by(f64::total_cmp);
        // The share of draws at or below each row's value is the row's share.
        let share_below = |v: f64| xs.partition_point(|x| *x <= v) as f64 / n as f64;
        for (p, v) in [(0.5, 40.0), (0.9, 100.0), (0.99, 300.0), (0.25, 25.0)] {
            let got = share_below(v);
            assert!(
                (got - p).abs() < 0.004,
                "{v} ms: {got} of the draws, table {p}"
            );
        }
        // Where the table is flat a quantile of the draws is close too (where it is steep, a
        // share's sampling error moves it further: above p90 here 1 % of the draws span 200 ms).
        let p50 = xs[(n / 2) as usize];
        assert!((p50 - 40.0).abs() / 40.0 < 0.01, "p50 {p50}");
        assert!(xs[0] >= 10.0 && xs[xs.len() - 1] <= 900.0);
        // The mean theory uses is the table's: the area under its steps.
        let mean = xs.iter().sum::<f64>() / n as f64;
        let table = s.latency.mean().as_millis_f64();
        assert!((mean - table).abs() / table < 0.01, "{mean} vs {table}");
    }

    #[test]
    fn empirical_draws_only_listed_values_and_all_of_them() {
        let values = vec![
            Nanos::from_millis(90),
            Nanos::from_millis(120),
            Nanos::from_millis(400),
        ];
        let s = service(Latency::Empirical(values.clone()));
        let mut seen = [false; 3];
        for r in 0..1000 {
            let l = call_draw(4, r, 0, at(0), &s).latency;
            let i = values.iter().position(|v| *v == l).expect("a listed value");
            seen[i] = true;
        }
        assert_eq!(seen, [true; 3]);
    }
}
