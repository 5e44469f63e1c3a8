//! The `interleavings` target with its store fixed to `durable`, the store meant to be
//! unbreakable, in the binary itself: for fuzzing services that run the binaries their own
//! way and cannot be relied on to pass `RECONCILE_SIM_STORE` (ClusterFuzzLite). Any crash
//! is a new finding; `reconcile-sim from-fuzz ARTIFACT --store durable -o scenario.json`
//! turns it into a shrunk scenario file. The input bytes mean what they mean for
//! `interleavings` (the store byte is ignored), so both share `corpus/interleavings/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconcile_sim::run::Outcome;
use reconcile_sim::store::durable;

fuzz_target!(|data: &[u8]| {
    let run = reconcile_sim::campaign::fuzz_input::run_bytes_in(
        data,
        Some(durable::KIND),
        reconcile_sim::campaign::fuzz_input::env_worlds(),
    );
    if let Outcome::Fail(v) = &run.report.outcome {
        panic!(
            "store durable: {v}convert: reconcile-sim from-fuzz ARTIFACT --store durable -o scenario.json"
        );
    }
});
