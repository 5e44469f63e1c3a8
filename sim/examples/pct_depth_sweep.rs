//! How PCT's depth changes the schedules it needs to find a failure, against uniform random
//! and swarm, on bug A (naive inv3, the hardest of A–D under this model) and on the two
//! hardest signatures of `current` (inv3: a stale fetch response held back while the next
//! turn streams; inv4: never converging). For each of 101 disjoint seed ranges (seed
//! `i·1 000 000` upward), the number of seeds up to and including the first that fails
//! that way (capped at 20 000); the median is printed.
//! Run: `cargo run --release --example pct_depth_sweep`.

use reconcile_sim::fuzz::run_one;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::store::by_name;

fn main() {
    let signatures = [
        ("naive", Invariant::NewerTurnPreserved),
        ("current", Invariant::NewerTurnPreserved),
        ("current", Invariant::Converges),
    ];
    let specs = [
        "random", "pct:1", "pct:2", "pct:3", "pct:4", "pct:6", "pct:8", "pct:12", "pct:20", "swarm",
    ];
    print!("{:28}", "signature \\ strategy");
    for spec in specs {
        print!("{spec:>8}");
    }
    println!();
    for (store, inv) in signatures {
        let stores = by_name(store).unwrap();
        print!("{:28}", format!("{store} {inv}"));
        for spec in specs {
            let mut counts: Vec<u64> = (0..101u64)
                .map(|i| {
                    let start = i * 1_000_000;
                    (0..20_000u64)
                        .find(|k| {
                            run_one(&stores, spec, start + k).outcome.invariant() == Some(inv)
                        })
                        .map_or(20_000, |k| k + 1)
                })
                .collect();
            counts.sort_unstable();
            print!("{:>8}", counts[50]);
        }
        println!();
    }
}
