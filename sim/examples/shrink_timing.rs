//! Shrink time from a fuzz-found failure to a 1-minimal scenario, median of 20.
//!
//! For each store, the first 20 failing seeds (random strategy, seeds from 0) are shrunk
//! with the default limits; the example prints the median, min and max wall time, the
//! median trace length before and after, and the median number of replays.
//!
//! ```sh
//! cargo run --release --example shrink_timing
//! ```

use std::time::{Duration, Instant};

use reconcile_sim::runner::run_seed;
use reconcile_sim::shrink::{check_one_minimal, shrink, Limits};
use reconcile_sim::store::STORES;

const SAMPLES: usize = 20;

fn median<T: Ord + Copy>(v: &mut [T]) -> T {
    v.sort_unstable();
    v[v.len() / 2]
}

fn main() {
    println!(
        "{:<11} {:>9} {:>9} {:>9} {:>13} {:>12} {:>8}",
        "store", "median", "min", "max", "steps before", "steps after", "replays"
    );
    let mut all: Vec<Duration> = Vec::new();
    for kind in STORES {
        let mut times = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut replays = Vec::new();
        let mut seed = 0u64;
        while times.len() < SAMPLES && seed < 100_000 {
            let run = run_seed(kind, seed);
            seed += 1;
            let Some(inv) = run.outcome.invariant() else {
                continue;
            };
            let started = Instant::now();
            let s = shrink(
                kind,
                run.config.clone(),
                &run.steps,
                Some(inv),
                Limits::default(),
            )
            .expect("a recorded failure replays");
            let took = started.elapsed();
            assert!(
                s.gave_up.is_none(),
                "{} seed {}: gave up",
                kind.name,
                seed - 1
            );
            assert_eq!(check_one_minimal(kind, &s.config, &s.steps, inv), Ok(()));
            times.push(took);
            before.push(run.steps.len());
            after.push(s.steps.len());
            replays.push(s.replays);
        }
        if times.is_empty() {
            println!("{:<11} no failure to shrink in the seeds tried", kind.name);
            continue;
        }
        all.extend(&times);
        let (min, max) = (*times.iter().min().unwrap(), *times.iter().max().unwrap());
        println!(
            "{:<11} {:>9.2?} {:>9.2?} {:>9.2?} {:>13} {:>12} {:>8}",
            kind.name,
            median(&mut times),
            min,
            max,
            median(&mut before),
            median(&mut after),
            median(&mut replays)
        );
    }
    println!(
        "all stores: median {:.2?} over {} failures",
        median(&mut all),
        all.len()
    );
}
