//! Key scripts (`--keys FILE`) and the key notation of tours and `screenshot --keys` on
//! arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = threadlab::tui::script::KeyScript::parse(text);
    let _ = threadlab::tui::script::parse_keys(text);
});
