//! Simulated time: an instant since the start of a run, or a span, in nanoseconds.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Below this many nanoseconds (under 2^63, with room for the half added in rounding) a
/// float converts through `i64`, which x86-64 does in one instruction, to the same integer.
const SIGNED_EXACT: f64 = 9.0e18;

/// Simulated nanoseconds. Used both for instants (since t = 0) and for spans.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub u64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);
    /// "Never": later than any instant a run can reach.
    pub const NEVER: Nanos = Nanos(u64::MAX);

    pub const fn from_micros(us: u64) -> Self {
        Nanos(us.saturating_mul(1_000))
    }
    pub const fn from_millis(ms: u64) -> Self {
        Nanos(ms.saturating_mul(1_000_000))
    }
    pub const fn from_secs(s: u64) -> Self {
        Nanos(s.saturating_mul(1_000_000_000))
    }
    /// Rounds to the nearest nanosecond; negative and NaN become zero.
    pub fn from_secs_f64(s: f64) -> Self {
        let ns = s * 1e9;
        if ns > 0.0 && ns < SIGNED_EXACT {
            // The common case first (a NaN fails both tests). Adding one half and truncating
            // rounds to nearest (and, unlike f64::round, needs no call into libm on the
            // engine's hot path); below 2^63 the signed conversion gives the same integer in
            // fewer instructions.
            Nanos((ns + 0.5) as i64 as u64)
        } else if ns.is_nan() || ns <= 0.0 {
            Nanos::ZERO
        } else if ns >= u64::MAX as f64 {
            Nanos::NEVER
        } else {
            Nanos((ns + 0.5) as u64)
        }
    }
    pub fn from_millis_f64(ms: f64) -> Self {
        Self::from_secs_f64(ms / 1e3)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.as_f64() / 1e9
    }
    pub fn as_millis_f64(self) -> f64 {
        self.as_f64() / 1e6
    }

    /// The nanoseconds as a float: through `i64` below 2^63 (one instruction on x86-64), which
    /// rounds the same integer to the same float as the unsigned conversion.
    #[inline]
    fn as_f64(self) -> f64 {
        match i64::try_from(self.0) {
            Ok(signed) => signed as f64,
            Err(_) => self.0 as f64,
        }
    }

    pub const fn saturating_sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(rhs.0))
    }
    pub const fn saturating_add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }
}

impl Add for Nanos {
    type Output = Nanos;
    fn add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Nanos {
    fn add_assign(&mut self, rhs: Nanos) {
        *self = *self + rhs;
    }
}

impl Sub for Nanos {
    type Output = Nanos;
    fn sub(self, rhs: Nanos) -> Nanos {
        self.saturating_sub(rhs)
    }
}

/// Prints the shortest exact form with a unit, the way presets write durations:
/// `0s`, `750ns`, `20us`, `200ms`, `1500ms`, `60s`, `5m`.
impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(u64, &str); 5] = [
            (60_000_000_000, "m"),
            (1_000_000_000, "s"),
            (1_000_000, "ms"),
            (1_000, "us"),
            (1, "ns"),
        ];
        if self.0 == 0 {
            return write!(f, "0s");
        }
        if *self == Nanos::NEVER {
            return write!(f, "never");
        }
        for (scale, unit) in UNITS {
            if self.0.is_multiple_of(scale) {
                return write!(f, "{}{unit}", self.0 / scale);
            }
        }
        write!(f, "{}ns", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_picks_the_largest_exact_unit() {
        assert_eq!(Nanos::from_millis(200).to_string(), "200ms");
        assert_eq!(Nanos::from_millis(1500).to_string(), "1500ms");
        assert_eq!(Nanos::from_secs(60).to_string(), "1m");
        assert_eq!(Nanos::from_secs(90).to_string(), "90s");
        assert_eq!(Nanos(750).to_string(), "750ns");
        assert_eq!(Nanos::ZERO.to_string(), "0s");
    }

    #[test]
    fn float_conversion_rounds_and_clamps() {
        assert_eq!(Nanos::from_secs_f64(0.1), Nanos::from_millis(100));
        assert_eq!(Nanos::from_secs_f64(-1.0), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(f64::NAN), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(f64::INFINITY), Nanos::NEVER);
        assert_eq!(Nanos::from_secs_f64(2.4e-9), Nanos(2));
        assert_eq!(Nanos::from_secs_f64(2.6e-9), Nanos(3));
    }

    #[test]
    fn float_conversion_gives_the_unsigned_rounding_on_both_sides_of_the_signed_range() {
        // Every magnitude from a nanosecond to beyond u64::MAX, and the seam itself.
        let seam = SIGNED_EXACT / 1e9;
        let mut secs: Vec<f64> = (-9..=11).map(|e| 1.7_f64 * 10f64.powi(e)).collect();
        secs.extend([
            seam,
            seam * (1.0 - 1e-15),
            seam * (1.0 + 1e-15),
            9.3e9,
            1.8e10,
        ]);
        for s in secs {
            let ns = s * 1e9;
            let unsigned = if ns >= u64::MAX as f64 {
                Nanos::NEVER
            } else {
                Nanos((ns + 0.5) as u64)
            };
            assert_eq!(Nanos::from_secs_f64(s), unsigned, "{s} s");
        }
    }

    #[test]
    fn nanoseconds_become_the_float_the_unsigned_conversion_gives() {
        let seam = i64::MAX as u64;
        let mut values: Vec<u64> = (0..64)
            .flat_map(|b| [1u64 << b, (1u64 << b) - 1, (1u64 << b) + 1])
            .collect();
        values.extend([
            0,
            seam - 1,
            seam,
            seam + 1,
            u64::MAX - 1,
            u64::MAX,
            123_456_789_012_345_678,
        ]);
        for n in values {
            let t = Nanos(n);
            assert_eq!(
                t.as_secs_f64().to_bits(),
                (n as f64 / 1e9).to_bits(),
                "{n} ns"
            );
            assert_eq!(
                t.as_millis_f64().to_bits(),
                (n as f64 / 1e6).to_bits(),
                "{n} ns"
            );
        }
    }
}
