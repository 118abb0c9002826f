//! A service's measured latencies as a preset latency: the measured quantile table, or a
//! fitted log-normal or gamma, each with how far the fit's p50, p90 and p99 are from the
//! measurement's.

use rand::SeedableRng;
use rand_distr::{Distribution, Gamma};

/// How latencies are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fit {
    /// The measured distribution, as a quantile table.
    #[default]
    Table,
    LogNormal,
    Gamma,
}

impl Fit {
    pub fn from_name(name: &str) -> Option<Fit> {
        match name {
            "table" => Some(Fit::Table),
            "lognormal" => Some(Fit::LogNormal),
            "gamma" => Some(Fit::Gamma),
            _ => None,
        }
    }
}

/// The percentiles of a measured table (99.9 with 1,000 samples or more).
const TABLE: [f64; 12] = [
    0.0, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0,
];

/// The `p`-th percentile of sorted samples, interpolated between neighbours.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let x = p / 100.0 * (sorted.len() - 1) as f64;
    let (i, frac) = (x.floor() as usize, x - x.floor());
    let a = sorted[i];
    let b = sorted[(i + 1).min(sorted.len() - 1)];
    a + frac * (b - a)
}

/// A latency in ms as a preset duration, to the microsecond.
fn ms(x: f64) -> String {
    format!("\"{}us\"", (x * 1e3).round().max(0.0) as u64)
}

/// The preset latency and a note on where it came from and how well it fits.
pub fn latency(samples: &[f64], fit: Fit) -> (String, String) {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let (p50, p90, p99) = (
        percentile(&s, 50.0),
        percentile(&s, 90.0),
        percentile(&s, 99.0),
    );
    let measured = format!(
        "measured p50 {p50:.1} ms, p90 {p90:.1} ms, p99 {p99:.1} ms of {} calls",
        s.len()
    );
    if s.len() < 2 || s[s.len() - 1] <= 0.0 {
        return (
            ms(p50),
            format!("{measured}: too few to draw from, the median"),
        );
    }
    match fit {
        Fit::Table => {
            let rows: Vec<f64> = TABLE
                .into_iter()
                .filter(|p| *p != 99.9 || s.len() >= 1000)
                .collect();
            (
                table(&rows, |p| percentile(&s, p)),
                format!("{measured}, as its quantile table"),
            )
        }
        Fit::LogNormal => {
            let logs: Vec<f64> = s.iter().map(|x| x.max(1e-6).ln()).collect();
            let mu = logs.iter().sum::<f64>() / logs.len() as f64;
            let var = logs.iter().map(|l| (l - mu).powi(2)).sum::<f64>() / (logs.len() - 1) as f64;
            let sigma = var.sqrt();
            let q = |z: f64| (mu + sigma * z).exp();
            let fitted = [q(0.0), q(1.281_551_565_545), q(2.326_347_874_040_841)];
            let text = format!(
                "{{ dist = \"lognormal\", p50 = {}, p99 = {} }}",
                ms(fitted[0]),
                ms(fitted[2])
            );
            (
                text,
                format!(
                    "{measured}; log-normal fit, {}",
                    errors(&fitted, [p50, p90, p99])
                ),
            )
        }
        Fit::Gamma => {
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (s.len() - 1) as f64;
            let shape = (mean * mean / var.max(1e-12)).clamp(1e-3, 1e6);
            let scale = mean / shape;
            // The gamma's quantiles from a fixed-seed sample: the preset draws from its table.
            let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(1);
            let mut draws: Vec<f64> = match Gamma::new(shape, scale) {
                Ok(g) => (0..200_000).map(|_| g.sample(&mut rng)).collect(),
                Err(_) => s.clone(),
            };
            draws.sort_by(f64::total_cmp);
            let rows: Vec<f64> = TABLE.to_vec();
            let fitted = [50.0, 90.0, 99.0].map(|p| percentile(&draws, p));
            (
                table(&rows, |p| percentile(&draws, p)),
                format!(
                    "{measured}; gamma fit (shape {shape:.3}, scale {scale:.3} ms) as its quantile table, {}",
                    errors(&fitted, [p50, p90, p99])
                ),
            )
        }
    }
}

fn table(rows: &[f64], at: impl Fn(f64) -> f64) -> String {
    let ps: Vec<String> = rows.iter().map(|p| p.to_string()).collect();
    let vs: Vec<String> = rows.iter().map(|p| ms(at(*p))).collect();
    format!(
        "{{ dist = \"quantiles\", percentiles = [{}], values = [{}] }}",
        ps.join(", "),
        vs.join(", ")
    )
}

fn errors(fitted: &[f64; 3], measured: [f64; 3]) -> String {
    let e: Vec<String> = ["p50", "p90", "p99"]
        .iter()
        .zip(fitted.iter().zip(measured))
        .map(|(n, (f, m))| format!("{n} {:+.1} %", (f - m) / m.max(1e-9) * 100.0))
        .collect();
    format!("fit error {}", e.join(", "))
}
