//! Shared by the scenario tests: a small valid preset and helpers to bend it with `--set`.

use super::{Scenario, parse};

/// Two services, one stage, no strategy section: every default applies.
pub const BASE: &str = r#"
[scenario]
name = "base"

[load]
mode = "runs"
count = 1

[[services]]
name = "user"
latency = "200ms"

[[services]]
name = "orders"
latency = "500ms"

[endpoint]
calls = ["user", "orders"]
"#;

/// A bulkhead `A` for `user` with core 10 and max 20, to bend further.
pub const POOL_A: &str =
    r#"strategy.bulkhead=[{ name = "A", services = ["user"], core = 10, max = 20 }]"#;

fn owned(sets: &[&str]) -> Vec<String> {
    sets.iter().map(|s| (*s).to_owned()).collect()
}

/// [`BASE`] with the overrides applied; panics if it does not validate.
pub fn scenario(sets: &[&str]) -> Scenario {
    match parse("base.toml", BASE, &owned(sets)) {
        Ok(scenario) => scenario,
        Err(error) => panic!("expected a valid scenario, got: {error}"),
    }
}

/// The error message for [`BASE`] with the overrides applied; panics if it validates.
pub fn rejection(sets: &[&str]) -> String {
    rejection_of(BASE, sets)
}

/// The error message for `text` with the overrides applied; panics if it validates.
pub fn rejection_of(text: &str, sets: &[&str]) -> String {
    match parse("base.toml", text, &owned(sets)) {
        Ok(scenario) => panic!("expected an error, got {scenario:?}"),
        Err(error) => error.to_string(),
    }
}

/// Asserts the message contains every part.
pub fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}
