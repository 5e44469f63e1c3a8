//! Table 1 of `reconcile-sim bench` (harness steps/s vs bare store inputs/s) alone,
//! repeated, for profiling and for judging an optimisation on a noisy machine:
//! `cargo run --release --example harness_overhead [RUNS] [REPEATS]`.
//!
//! Prints every repeat's row and the median ratio per store. With `profile [STORE]` as
//! the third and fourth arguments it only runs the harness half (`run_one`, random
//! strategy; `current` by default) and prints its best time per step, for `perf record`
//! and for A/B comparisons.

use reconcile_sim::campaign::bench::throughput;
use reconcile_sim::store::by_name;

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: u64 = args.next().map_or(20_000, |a| a.parse().expect("RUNS"));
    let repeats: usize = args.next().map_or(3, |a| a.parse().expect("REPEATS"));
    if args.next().as_deref() == Some("profile") {
        let store = args.next().unwrap_or_else(|| "current".to_string());
        let kind = by_name(&store).expect("a shipped store");
        let mut best = f64::INFINITY;
        for _ in 0..repeats {
            let started = std::time::Instant::now();
            let mut steps = 0;
            for seed in 0..runs {
                let r = reconcile_sim::campaign::fuzz::run_one(
                    &kind,
                    reconcile_sim::run::strategy::StrategySpec::Random,
                    seed,
                );
                steps += r.steps.len() + r.drain.len();
            }
            best = best.min(started.elapsed().as_secs_f64() * 1e9 / steps as f64);
        }
        println!("harness: best {best:.1} ns/step over {repeats} repeats");
        return;
    }
    for store in ["current", "durable"] {
        let mut ratios = Vec::new();
        for _ in 0..repeats {
            let t = throughput(by_name(store).expect("shipped"), runs, &Default::default());
            println!(
                "{store}: {:.0} harness steps/s, {:.0} bare inputs/s, ratio {:.2}x",
                t.harness_steps_per_s, t.bare_inputs_per_s, t.overhead_ratio
            );
            ratios.push(t.overhead_ratio);
        }
        ratios.sort_by(f64::total_cmp);
        println!("{store}: median ratio {:.2}x", ratios[ratios.len() / 2]);
    }
}
