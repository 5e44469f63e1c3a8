//! How PCT's depth changes the schedules it needs to find a failure, against uniform random
//! and swarm, on bug A (naive inv3, the hardest of A–D under this model) and on the two
//! hardest signatures of `current` (inv3: a stale fetch response held back while the next
//! turn streams; inv4: never converging). Each cell is `bench::time_to_failure`: the
//! median, over 101 disjoint seed ranges (seed `i·1 000 000` upward), of the seeds up to
//! and including the first that fails that way, each range searched up to 20 000 seeds
//! (a range with none is reported as `+N not found`, outside the median).
//! Run: `cargo run --release --example pct_depth_sweep`.

use reconcile_sim::campaign::bench::time_to_failure;
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
        print!("{:28}", format!("{store} {inv}"));
        for spec in specs {
            let spec = spec.parse().expect("a strategy spec");
            let t = time_to_failure("", by_name(store).unwrap(), inv, spec, 101, 20_000);
            print!("{:>8}", t.median_schedules);
            if t.not_found > 0 {
                print!(" +{} not found", t.not_found);
            }
        }
        println!();
    }
}
