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

/// The percentiles of a table of few samples (and of a fitted gamma's).
const TABLE: [f64; 12] = [
    0.0, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0,
];

/// The rows of a measured table: the more samples, the closer together, so the straight
/// lines between rows follow the curve (a sparse table's chords lie above a right tail and
/// raise the mean: 2 % on a measured endpoint with 12 rows, 0.3 % with one a percent).
fn rows_for(n: usize) -> Vec<f64> {
    if n >= 1000 {
        [0.0, 0.1, 0.5]
            .into_iter()
            .chain((1..100).map(f64::from))
            .chain([99.5, 99.9, 100.0])
            .collect()
    } else if n >= 100 {
        [0.0, 1.0, 2.5]
            .into_iter()
            .chain((1..20).map(|k| f64::from(k) * 5.0))
            .chain([97.5, 99.0, 100.0])
            .collect()
    } else {
        TABLE.iter().copied().filter(|p| *p != 99.9).collect()
    }
}

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
            let rows = rows_for(s.len());
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            let values: Vec<f64> = rows.iter().map(|p| percentile(&s, *p)).collect();
            let area: f64 = rows
                .windows(2)
                .zip(values.windows(2))
                .map(|(p, v)| (p[1] - p[0]) / 100.0 * (v[0] + v[1]) / 2.0)
                .sum();
            (
                table(&rows, |p| percentile(&s, p)),
                format!(
                    "{measured}, as its quantile table of {} rows (mean {area:.1} ms against the measured {mean:.1} ms)",
                    rows.len()
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A right-skewed sample (log-normal, p50 86 ms, p99 280 ms) from a fixed seed.
    fn skewed(n: usize) -> Vec<f64> {
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(9);
        let d = rand_distr::LogNormal::new(86f64.ln(), (280f64.ln() - 86f64.ln()) / 2.326)
            .expect("lognormal");
        (0..n).map(|_| d.sample(&mut rng)).collect()
    }

    fn table_mean(text: &str) -> f64 {
        let s = crate::scenario::parse(
            "t",
            &format!("[scenario]\nname = \"t\"\n[load]\nmode = \"runs\"\ncount = 1\n[[services]]\nname = \"a\"\nlatency = {text}\n[endpoint]\ncalls = [\"a\"]\n"),
            &[],
        )
        .expect("a preset");
        s.services[0].latency.mean().as_millis_f64()
    }

    #[test]
    fn a_measured_table_keeps_the_measured_mean() {
        // Straight lines between sparse rows lie above a right tail: 12 rows raised the mean
        // of a measured endpoint by 2 %, and so its capacity fell by 2 %.
        for n in [200, 5000] {
            let xs = skewed(n);
            let mean = xs.iter().sum::<f64>() / n as f64;
            let (text, _) = latency(&xs, Fit::Table);
            let drawn = table_mean(&text);
            let allowed = if n >= 1000 { 0.005 } else { 0.02 };
            assert!(
                (drawn - mean).abs() / mean < allowed,
                "{n} samples: table mean {drawn} against {mean}"
            );
        }
    }

    #[test]
    fn a_fit_says_how_far_it_is_from_the_measurement() {
        let xs = skewed(2000);
        let (text, note) = latency(&xs, Fit::LogNormal);
        assert!(text.starts_with("{ dist = \"lognormal\""), "{text}");
        assert!(note.contains("fit error p50"), "{note}");
        let (text, note) = latency(&xs, Fit::Gamma);
        assert!(text.starts_with("{ dist = \"quantiles\""), "{text}");
        assert!(note.contains("gamma fit (shape"), "{note}");
    }
}
