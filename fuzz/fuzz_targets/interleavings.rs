//! Bytes become a world seed, a store (unless `RECONCILE_SIM_STORE` fixes one for the whole
//! fuzz run) and one choice per step; any invariant violation is a crash whose artifact
//! `reconcile-sim from-fuzz ARTIFACT` turns into a shrunk scenario file. The decoded world
//! takes the pins of `RECONCILE_SIM_WORLD` (whitespace-separated `--world` values) and
//! judges the invariants of `RECONCILE_SIM_INVARIANTS` (a `--invariants` list); `from-fuzz`
//! reads the same variables, so it reproduces the run.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use reconcile_sim::run::Outcome;
use reconcile_sim::store::{by_name, StoreKind};

fn fixed_store() -> Option<StoreKind> {
    static STORE: OnceLock<Option<StoreKind>> = OnceLock::new();
    *STORE.get_or_init(|| {
        std::env::var("RECONCILE_SIM_STORE").ok().map(|name| {
            by_name(&name).unwrap_or_else(|| panic!("RECONCILE_SIM_STORE: unknown store '{name}'"))
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let fixed = fixed_store();
    let run = reconcile_sim::campaign::fuzz_input::run_bytes_in(
        data,
        fixed,
        reconcile_sim::campaign::fuzz_input::env_worlds(),
    );
    if let Outcome::Fail(v) = &run.report.outcome {
        let store_flag = match fixed {
            Some(s) => format!(" --store {}", s.name),
            None => String::new(),
        };
        panic!(
            "store {}: {v}convert: reconcile-sim from-fuzz ARTIFACT{store_flag} -o scenario.json",
            run.store.name
        );
    }
});
