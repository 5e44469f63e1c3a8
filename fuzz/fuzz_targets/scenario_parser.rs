//! Any bytes given to the scenario loader yield a scenario or a clear error, never a panic
//! or a hang. An accepted scenario must also survive a save/load round trip unchanged.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use reconcile_sim::trace::scenario::{load_bytes, parse};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz-input.json");
    match load_bytes(path, data.to_vec()) {
        Err(e) => {
            // Every error names the file; a positioned one has a 1-based line and column.
            let text = e.to_string();
            assert!(text.starts_with("fuzz-input.json"), "error without the file name: {text}");
        }
        Ok(scenario) => {
            let again = parse(path, &scenario.to_json()).expect("a saved scenario loads");
            assert_eq!(again, scenario, "round trip changed the scenario");
        }
    }
});
