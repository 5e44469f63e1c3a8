//! Throughput through the npm package `reconcile-sim-adapter` (adapters/js) on the example
//! Svelte 5 store (examples/svelte), against the plain-JS reference adapter
//! (adapters/node/store.js) on the same seeds, in one run:
//!
//! ```sh
//! npm ci                                # once, at the root: the workspace (the package, Svelte, esbuild)
//! cargo run --release --example exec_package [-- SEEDS [ROUNDS]]   # default 1000 3
//! ```
//!
//! For each keep rule (`current`, `membership`), ROUNDS rounds each run SEEDS seeds on one
//! thread through the reference and through the package, in slices of 50 seeds that take
//! turns (and turns at going first, so both sides meet the same load), and print each
//! side's steps per wall second and per CPU second (the harness thread plus the adapter
//! processes) and the package's share of the reference's rate; then the median shares. A
//! step is one applied world step (main phase and drain), as in
//! `cargo bench --bench exec_vs_inprocess`. The example store opens its tab without its
//! history fetch (`-- no-history`), so both sides ask for the same effects on every input
//! (their renders differ: row ids, and the example joins deltas verbatim as it is
//! written) and their runs are identical step for step: the example checks that the step
//! and failure counts are equal, and stops if not. Both sides get the harness's defaults
//! (a process per tab, reused across runs through `reset`, pinned with its thread).
//!
//! Then the unmodified-store path: the production-shaped store of examples/production
//! (its own `fetch` and WebSocket intercepted, its wire format declared) against the
//! reference adapter's `current`, the same way; their runs differ (the store fetches its
//! history at boot, and has fixes the reference lacks), so only steps per second are
//! compared, not the runs.
//! Results: docs/benchmarks.md.

use std::path::PathBuf;
use std::time::Instant;

use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::exec::ExecFactory;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::strategy::StrategySpec;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn reference(keep: &str) -> String {
    let js = repo().join("adapters/node/store.js");
    format!(
        "exec:node {} {keep}",
        shell_words::quote(&js.to_string_lossy())
    )
}

/// The package's CLI, where the repository's npm workspace (`npm ci` at the root) links it.
fn adapter_bin() -> PathBuf {
    repo().join("node_modules/.bin/reconcile-sim-adapter")
}

fn package(keep: &str) -> String {
    let dir = repo().join("examples/svelte");
    let bin = adapter_bin();
    let map = dir.join("adapter.ts");
    let rule = if keep == "membership" {
        " membership"
    } else {
        ""
    };
    format!(
        "exec:{} {} --{rule} no-history",
        shell_words::quote(&bin.to_string_lossy()),
        shell_words::quote(&map.to_string_lossy())
    )
}

/// The production-shaped example's store through the package, as its gate runs it.
fn production() -> String {
    let dir = repo().join("examples/production");
    let bin = adapter_bin();
    let map = dir.join("reconcile/adapter.ts");
    format!(
        "exec:{} {}",
        shell_words::quote(&bin.to_string_lossy()),
        shell_words::quote(&map.to_string_lossy())
    )
}

/// What one side spent: steps, failing runs, wall seconds, CPU seconds (the harness
/// thread plus every adapter process).
#[derive(Default, Clone, Copy)]
struct Spent {
    steps: u64,
    failing: u64,
    wall: f64,
    cpu: f64,
}

/// Run seeds `seeds` on this thread, adding to `spent`.
fn measure(store: &dyn StoreFactory, seeds: std::ops::Range<u64>, spent: &mut Spent) {
    let cpu = cpu_seconds();
    let started = Instant::now();
    for seed in seeds {
        let r = run_one(store, StrategySpec::Random, seed);
        spent.steps += (r.steps.len() + r.drain.len()) as u64;
        spent.failing += u64::from(r.outcome.invariant().is_some());
    }
    spent.wall += started.elapsed().as_secs_f64();
    spent.cpu += cpu_seconds() - cpu;
}

/// CPU seconds used so far by this thread and by every living child process (all their
/// threads). The adapters are pooled, so they live through the whole measurement; the
/// harness thread and its adapter processes are pinned to one CPU and take turns, so on
/// an idle machine the wall time of a slice is about this sum; on a loaded one this sum
/// does not count the time spent waiting for the CPU.
fn cpu_seconds() -> f64 {
    let own = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9);
    let me = std::process::id().to_string();
    let mut children = 0.0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: fields after the command name, which may hold spaces.
        let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1) == Some(&me.as_str()) {
            let ticks = |i: usize| f.get(i).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0);
            children += (ticks(11) + ticks(12)) / 100.0; // utime, stime in USER_HZ (100)
        }
    }
    own + children
}

/// Seeds per slice: the sides take turns every SLICE seeds.
const SLICE: u64 = 50;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = args.next().map_or(1000, |a| a.parse().expect("SEEDS"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("ROUNDS"));
    let bin = adapter_bin();
    if !bin.exists() {
        eprintln!(
            "{} is missing: run `npm ci` at the repository root first (the npm workspace)",
            bin.display()
        );
        std::process::exit(2);
    }
    println!("reconcile-sim-adapter vs adapters/node/store.js · seeds 0..{seeds} · strategy random · 1 thread · {rounds} rounds");
    println!(
        "{:<11} {:>5} {:>9} {:>7} {:>12} {:>12} {:>7} {:>12} {:>12} {:>7}",
        "store",
        "round",
        "steps",
        "failing",
        "ref wall/s",
        "pkg wall/s",
        "share",
        "ref cpu/s",
        "pkg cpu/s",
        "share"
    );
    for keep in ["current", "membership"] {
        let side = Sides {
            label: keep,
            reference: reference(keep),
            package: package(keep),
            same_runs: true,
        };
        side.compare(seeds, rounds);
    }
    let side = Sides {
        label: "production",
        reference: reference("current"),
        package: production(),
        same_runs: false,
    };
    side.compare(seeds, rounds);
}

/// One comparison: the reference adapter and a store through the package.
struct Sides {
    label: &'static str,
    reference: String,
    package: String,
    /// Whether both sides make the same runs (checked: steps and failing runs equal).
    same_runs: bool,
}

impl Sides {
    /// ROUNDS rounds of SEEDS seeds on each side, in slices that take turns; each round's
    /// rates and the package's share, then the median shares.
    fn compare(&self, seeds: u64, rounds: usize) {
        let keep = self.label;
        let r = ExecFactory::from_spec(&self.reference).expect("valid spec");
        let p = ExecFactory::from_spec(&self.package).expect("valid spec");
        for f in [&r, &p] {
            if let Err(e) = f.probe() {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
        // Warm both (process starts, the bundle, JIT) outside the timed region.
        measure(&r, 0..50, &mut Spent::default());
        measure(&p, 0..50, &mut Spent::default());
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let (a, b) = self.round(&r, &p, seeds, round);
            let rate = |s: &Spent| (s.steps as f64 / s.wall, s.steps as f64 / s.cpu);
            let ((wr, cr), (wp, cp)) = (rate(&a), rate(&b));
            wall.push(wp / wr);
            cpu.push(cp / cr);
            println!(
                "{keep:<11} {:>5} {:>9} {:>7} {wr:>12.0} {wp:>12.0} {:>6.0}% {cr:>12.0} {cp:>12.0} {:>6.0}%",
                round + 1,
                b.steps,
                b.failing,
                100.0 * wp / wr,
                100.0 * cp / cr
            );
        }
        let pct =
            |v: &[f64], f: fn(f64, f64) -> f64, init: f64| 100.0 * v.iter().copied().fold(init, f);
        println!(
            "{keep:<11} package's share of the reference's steps/s: wall median {:.0}% (min {:.0}%, max {:.0}%); CPU median {:.0}% (min {:.0}%, max {:.0}%)",
            100.0 * median(wall.clone()),
            pct(&wall, f64::min, f64::INFINITY),
            pct(&wall, f64::max, 0.0),
            100.0 * median(cpu.clone()),
            pct(&cpu, f64::min, f64::INFINITY),
            pct(&cpu, f64::max, 0.0),
        );
    }

    /// One round: slices of SLICE seeds, the two sides taking turns (and turns at going
    /// first), so that both meet the same load.
    fn round(&self, r: &ExecFactory, p: &ExecFactory, seeds: u64, round: usize) -> (Spent, Spent) {
        let (mut a, mut b) = (Spent::default(), Spent::default());
        let mut start = 0;
        while start < seeds {
            let slice = start..(start + SLICE).min(seeds);
            if (round + (start / SLICE) as usize).is_multiple_of(2) {
                measure(r, slice.clone(), &mut a);
                measure(p, slice, &mut b);
            } else {
                measure(p, slice.clone(), &mut b);
                measure(r, slice, &mut a);
            }
            start += SLICE;
        }
        if self.same_runs {
            assert_eq!(
                (a.steps, a.failing),
                (b.steps, b.failing),
                "{}: the package's runs differ from the reference's (steps, failing); compare them with `npm run agreement` in examples/svelte",
                self.label
            );
        }
        (a, b)
    }
}
