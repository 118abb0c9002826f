//! The config file's parser and validator on arbitrary text: a config that loads is printed
//! (`threadlab config`) as TOML that loads again to the same keys.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = threadlab::config::parse(text, "fuzz.toml") {
        let again = threadlab::config::parse(&config.to_toml(), "again")
            .expect("what threadlab config prints loads again");
        assert_eq!(again.keys, config.keys);
    }
});
