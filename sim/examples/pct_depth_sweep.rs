//! How PCT's depth changes the schedules it needs to find bug A (naive, inv3), the hardest
//! of A–D under this model, against uniform random and swarm: for each of 101 disjoint seed
//! ranges (seed `i·1 000 000` upward), the number of seeds up to and including the first that
//! fails; the median is printed. Run: `cargo run --release --example pct_depth_sweep`.

use reconcile_sim::fuzz::run_one;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::store::by_name;
fn main() {
    println!("strategy  median schedules to bug A (101 seed ranges)");
    let naive = by_name("naive").unwrap();
    for spec in [
        "random", "pct:1", "pct:2", "pct:3", "pct:4", "pct:6", "pct:8", "pct:12", "pct:20", "swarm",
    ] {
        let mut counts: Vec<u64> = (0..101u64)
            .map(|i| {
                let start = i * 1_000_000;
                (0..10_000u64)
                    .find(|k| {
                        run_one(&naive, spec, start + k).outcome.invariant()
                            == Some(Invariant::NewerTurnPreserved)
                    })
                    .map_or(10_000, |k| k + 1)
            })
            .collect();
        counts.sort();
        println!("{spec:8} median {}", counts[50]);
    }
}
