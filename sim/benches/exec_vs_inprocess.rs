//! Throughput of a store driven over the exec protocol (the reference Node adapter)
//! against the same store in process, on the same seeds, in one run.
//!
//! `cargo bench --bench exec_vs_inprocess [-- SEEDS]` prints steps/s for each and their
//! ratio, and, for comparison, the Node rate without CPU pinning. A step is one applied world step (main phase and drain), whether or not it
//! reached a store; the count is identical for both sides because the runs are (the
//! differential test asserts it), and this bench checks it again.
//!
//! Needs `node` on PATH; run from anywhere in the repository.

use std::path::PathBuf;
use std::time::Instant;

use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::exec::ExecFactory;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::store::by_name;

const STORES: [&str; 2] = ["current", "membership"];

fn spec(name: &str) -> String {
    format!("exec:node '{}' {name}", adapter().display())
}

fn adapter() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../adapters/node/store.js")
}

/// Run `seeds` seeds on one thread; return (steps, runs failing, seconds).
fn measure(stores: &dyn StoreFactory, seeds: u64) -> (u64, u64, f64) {
    let started = Instant::now();
    let mut steps = 0u64;
    let mut failing = 0u64;
    for seed in 0..seeds {
        let report = run_one(
            stores,
            reconcile_sim::run::strategy::StrategySpec::Random,
            seed,
        );
        steps += (report.steps.len() + report.drain.len()) as u64;
        failing += u64::from(report.outcome.invariant().is_some());
    }
    (steps, failing, started.elapsed().as_secs_f64())
}

fn main() {
    // `cargo bench` passes `--bench`; the first number on the command line is the seed count.
    let seeds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3000);
    println!("exec vs in-process · seeds 0..{seeds} · strategy random · 1 thread");
    println!(
        "{:<12} {:>10} {:>14} {:>14} {:>8} {:>18}",
        "store", "steps", "in-process/s", "node/s", "ratio", "node unpinned/s"
    );
    // Unpinned first, while no thread of this process has pinned itself (threads and
    // processes inherit their creator's CPU affinity).
    let unpinned: Vec<(u64, u64, f64)> = STORES
        .iter()
        .map(|name| {
            let f = ExecFactory::from_spec(&spec(name))
                .expect("valid spec")
                .with_pinning(false);
            measure(&f, 50);
            measure(&f, seeds)
        })
        .collect();
    for (name, (steps_u, fail_u, secs_u)) in STORES.iter().zip(unpinned) {
        let rust = by_name(name).expect("shipped store");
        let node = ExecFactory::from_spec(&spec(name)).expect("valid spec");
        node.probe().expect("node runs (is it on PATH?)");
        // Warm both (process start, JIT) outside the timed region.
        measure(&rust, 50);
        measure(&node, 50);
        let (steps_r, fail_r, secs_r) = measure(&rust, seeds);
        let (steps_n, fail_n, secs_n) = measure(&node, seeds);
        assert_eq!(
            [(steps_r, fail_r), (steps_r, fail_r)],
            [(steps_n, fail_n), (steps_u, fail_u)],
            "{name}: the Node adapter diverged from the Rust store; run `cargo test --test it exec::`"
        );
        let rate_r = steps_r as f64 / secs_r;
        let rate_n = steps_n as f64 / secs_n;
        let rate_u = steps_u as f64 / secs_u;
        println!(
            "{name:<12} {steps_r:>10} {rate_r:>14.0} {rate_n:>14.0} {:>7.1}x {rate_u:>18.0}",
            rate_r / rate_n
        );
    }
}
