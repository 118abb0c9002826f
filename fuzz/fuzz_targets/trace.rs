//! The trace reader on arbitrary bytes, against the default preset's services.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use threadlab::scenario::{Scenario, load, parse_trace_bytes};

fn scenario() -> &'static Scenario {
    static SCENARIO: OnceLock<Scenario> = OnceLock::new();
    SCENARIO.get_or_init(|| load("ironthread", &[]).expect("built-in preset"))
}

fuzz_target!(|data: &[u8]| {
    let _ = parse_trace_bytes("fuzz.csv", data, &scenario().services);
});
