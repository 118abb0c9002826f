//! The preset parser and validator on arbitrary text. The input's first line, when it starts
//! with `set `, is split on `;` into `--set` overrides, so overrides get fuzzed too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (sets, body) = match text.strip_prefix("set ") {
        Some(rest) => {
            let (line, body) = rest.split_once('\n').unwrap_or((rest, ""));
            (line.split(';').map(str::to_owned).collect(), body)
        }
        None => (Vec::new(), text),
    };
    if let Ok(scenario) = threadlab::scenario::parse("fuzz.toml", body, &sets) {
        // Every valid scenario gets an estimate without overflow or panic.
        let served = threadlab::theory::served_rps(&scenario, &threadlab::scenario::Strategy::ALL);
        let _ = threadlab::scenario::estimate_cost(&scenario, scenario.duration, served).refusal();
    }
});
