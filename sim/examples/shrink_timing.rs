//! Shrink time from a fuzz-found failure to a 1-minimal scenario, median of 20 per store
//! (the same measurement `reconcile-sim bench` includes; see `bench::shrink_bench`).
//!
//! ```sh
//! cargo run --release --example shrink_timing
//! ```

use reconcile_sim::bench::shrink_bench;

fn main() {
    println!(
        "{:<11} {:>9} {:>10} {:>10} {:>13} {:>12} {:>8}",
        "store", "failures", "median ms", "max ms", "steps before", "steps after", "replays"
    );
    for b in shrink_bench(20) {
        if b.failures == 0 {
            println!("{:<11} no failure to shrink in the seeds tried", b.store);
            continue;
        }
        println!(
            "{:<11} {:>9} {:>10.3} {:>10.3} {:>13} {:>12} {:>8}",
            b.store,
            b.failures,
            b.median_ms,
            b.max_ms,
            b.median_steps_before,
            b.median_steps_after,
            b.median_replays
        );
    }
}
