//! Every numeric range a user can reach, in one place: presets, `--set`, CLI flags and live
//! keys all check against these constants (the README's "Limits" table lists them).

use std::ops::RangeInclusive;

use crate::time::Nanos;

/// Most threads of one pool (`server.threads`, bulkhead `core`/`max`, `strategy.shared.threads`).
pub const MAX_THREADS: u32 = 100_000;
/// Most waiting tasks of one bounded queue (bulkhead `queue`).
pub const MAX_QUEUE: u32 = 10_000_000;
/// Most connections, accept-queue slots or server queue slots.
pub const MAX_CONNECTIONS: u32 = 10_000_000;
/// Most closed-loop clients (`load.clients`), and most requests of `runs` and `batch`.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Highest open-load rate per second (`load.rate`, `load.ramp.to`).
pub const MAX_RATE: f64 = 1_000_000.0;
/// Most downstream calls one request makes (services × fan-out).
pub const MAX_CALLS: usize = 10_000;
/// The most numbers the attempts of one request's calls may take: calls per request times
/// the most attempts of any `[services.retry]` (a call's number is a `u16`).
pub const MAX_CALL_ATTEMPTS: usize = u16::MAX as usize + 1;
/// Most services a preset may declare.
pub const MAX_SERVICES: usize = 1_000;
/// Longest name (scenario, service, pool) in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest latency a trace cell may give: one hour.
pub const MAX_TRACE_LATENCY: Nanos = Nanos(3_600_000_000_000);
/// Most rows of a trace file.
pub const MAX_TRACE_ROWS: usize = 1_000_000;
/// Largest preset or trace file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Most dot-separated segments of a `--set` key.
pub const MAX_KEY_SEGMENTS: usize = 16;
/// `load.rtt`, `load.turnaround`, `server.post_response`: beyond this it is not a network.
pub const MAX_NETWORK_DELAY: Nanos = Nanos::from_secs(10);
/// `server.cpu_per_request`, `server.cpu_per_rejected_connection`, `server.cpu_per_error`,
/// `server.accept_cost`, `server.return_to_pool`.
pub const MAX_CONNECTOR_CPU: Nanos = Nanos::from_secs(1);
/// `load.syn_retries`, `load.syn_linear_timeouts`.
pub const MAX_SYN_RETRIES: u32 = 20;
/// `server.max_keep_alive_requests` (-1 is unlimited).
pub const MAX_KEEP_ALIVE_REQUESTS: u32 = 1_000_000;
/// Allowed `--time-scale` (real seconds per scenario second).
pub const TIME_SCALE: RangeInclusive<f64> = 0.01..=100.0;
/// `--max-threads`: the most OS threads a real run may start.
pub const MAX_REAL_THREADS: u64 = 1_000_000;
/// Allowed `--tolerance` of `verify` (a relative difference).
pub const TOLERANCE: RangeInclusive<f64> = 0.0..=10.0;
/// Largest seed (a preset's TOML integer stops there; `--seed` too).
pub const MAX_SEED: u64 = i64::MAX as u64;

/// Cuts `text` to at most `max` characters, marking the cut, so a huge value or list never
/// floods a message.
pub fn elide(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()),
        None => text.to_owned(),
    }
}

/// Lists `names` separated by commas, at most `max` of them, then how many more.
pub fn elide_list<'a>(names: impl ExactSizeIterator<Item = &'a str>, max: usize) -> String {
    let total = names.len();
    let shown: Vec<&str> = names.take(max).collect();
    if total > max {
        format!("{} and {} more", shown.join(", "), total - max)
    } else {
        shown.join(", ")
    }
}

/// A number for messages: plain when short, in scientific notation when it would print with
/// dozens of digits (`1e300`, not 301 characters).
pub fn short_number(value: f64) -> String {
    let plain = format!("{value:?}");
    if plain.len() > 16 {
        format!("{value:e}")
    } else {
        plain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elide_keeps_short_text_and_cuts_long_text_with_its_length() {
        assert_eq!(elide("abc", 5), "abc");
        assert_eq!(elide(&"x".repeat(300), 4), "xxxx… (300 characters)");
    }

    #[test]
    fn elide_list_says_how_many_names_it_left_out() {
        let names = ["a", "b", "c", "d"];
        assert_eq!(elide_list(names.iter().copied(), 2), "a, b and 2 more");
        assert_eq!(elide_list(names.iter().copied(), 9), "a, b, c, d");
    }

    #[test]
    fn short_number_never_prints_hundreds_of_digits() {
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(1e300), "1e300");
        assert_eq!(short_number(f64::MAX).len(), "1.7976931348623157e308".len());
    }
}
