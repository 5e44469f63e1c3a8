//! `reconcile-sim bench`: ratios measured in one run, so they hold on a noisy machine.
//!
//! - Harness throughput: steps per second on one thread with the oracle after every step,
//!   and the same inputs fed straight into fresh stores (no world, scheduler or oracle):
//!   the ratio is the harness overhead.
//! - Time to first failure per (store, strategy) for the note's bugs A–D, each named by
//!   its signature (store, invariant): schedules and milliseconds until the first seed that
//!   fails that way, median over `starts` disjoint seed ranges.
//! - Explore: throughput and the reduction ratio on a bound small enough to enumerate.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::campaign::fuzz::run_one_in;
use crate::explore::{explore, ExploreBound};
use crate::model::config::WorldConfig;
use crate::model::pins::WorldPins;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::wire::Input;
use crate::model::world::World;
use crate::oracle::{Invariant, Violation};
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::run::{run, Observer, StepAt};
use crate::store::{by_name, StoreKind};

/// The note's bugs as signatures: (label, store, invariant).
pub const BUGS: &[(&str, &str, Invariant)] = &[
    ("A", "naive", Invariant::NewerTurnPreserved),
    ("B", "fix-a", Invariant::NoLoss),
    ("C", "fix-ab", Invariant::NoLoss),
    ("D", "fix-abc", Invariant::NoDuplicate),
    ("current", "current", Invariant::NoLoss),
    ("current", "current", Invariant::NoDuplicate),
    ("current", "current", Invariant::NewerTurnPreserved),
    ("current", "current", Invariant::Converges),
    ("membership", "membership", Invariant::NoLoss),
    ("membership", "membership", Invariant::NoDuplicate),
    ("membership", "membership", Invariant::NewerTurnPreserved),
    ("membership", "membership", Invariant::Converges),
];

/// How much a smarter strategy helps on one signature: uniform random's median schedules
/// over the best of `pct` and `swarm`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StrategyGain {
    /// The row's label in [`BUGS`]: `A`–`D`, or the store's name for a signature the
    /// fuzzer found.
    pub bug: String,
    /// With `invariant`, the signature measured.
    pub store: String,
    /// The invariant the store must break for a seed to count.
    pub invariant: Invariant,
    /// Uniform random's median schedules to the first failure: the baseline.
    pub random_median: u64,
    /// Whichever of `pct` and `swarm` needed fewer schedules.
    pub best_strategy: StrategySpec,
    /// That strategy's median schedules to the first failure.
    pub best_median: u64,
    /// `random_median / best_median`.
    pub ratio: f64,
}

/// Per signature, random against the best other strategy, hardest (most random
/// schedules) first. A signature some start never found within the cap under random is
/// left out: its median would be a floor, not a measurement.
pub fn strategy_gains(ttf: &[TimeToFailure]) -> Vec<StrategyGain> {
    let mut gains = Vec::new();
    for (bug, store, inv) in BUGS {
        let row = |strategy: StrategySpec| {
            ttf.iter().find(|t| {
                t.bug == *bug && t.store == *store && t.invariant == *inv && t.strategy == strategy
            })
        };
        let Some(random) = row(StrategySpec::Random).filter(|r| r.not_found == 0) else {
            continue;
        };
        let Some(best) = StrategySpec::ALL
            .into_iter()
            .filter(|s| *s != StrategySpec::Random)
            .filter_map(row)
            .filter(|t| t.not_found == 0)
            .min_by_key(|t| t.median_schedules)
        else {
            continue;
        };
        gains.push(StrategyGain {
            bug: bug.to_string(),
            store: store.to_string(),
            invariant: *inv,
            random_median: random.median_schedules,
            best_strategy: best.strategy,
            best_median: best.median_schedules,
            ratio: random.median_schedules as f64 / best.median_schedules.max(1) as f64,
        });
    }
    gains.sort_by_key(|g| std::cmp::Reverse(g.random_median));
    gains
}

/// The harness's overhead on one store: the same inputs through the whole harness (world,
/// strategy, oracle after every step) and fed straight into fresh stores.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Throughput {
    /// The store measured ([`bench`](fn@bench) measures `current` and `durable`).
    pub store: String,
    /// Seeds run, from 0, under the random strategy.
    pub runs: u64,
    /// Steps the harness applied over those runs, drain included.
    pub steps: u64,
    /// Steps per second through the whole harness, on one thread.
    pub harness_steps_per_s: f64,
    /// Inputs per second into bare stores: the stores' own cost, the harness's ceiling.
    pub bare_inputs_per_s: f64,
    /// Harness time over bare-store time for the same inputs.
    pub overhead_ratio: f64,
    /// The same runs' steps applied in order to fresh worlds, with no strategy, no
    /// enabled-step lists and no oracle, over bare-store time: the world's own share of
    /// the overhead (the stores included), what the ratio would be with a harness that
    /// chose and judged for free.
    #[serde(default)]
    pub world_ratio: f64,
    /// The same, with the oracle judging after every step that touches a tab (as the
    /// harness does): with [`Throughput::world_ratio`], the oracle's share; the rest of
    /// `overhead_ratio` is choosing steps (the enabled-step lists, the strategy) and the run
    /// loop's records.
    #[serde(default)]
    pub judged_world_ratio: f64,
}

/// How long one strategy takes to find one signature: what strategies are compared by.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimeToFailure {
    /// The row's label in [`BUGS`].
    pub bug: String,
    /// The store searched.
    pub store: String,
    /// The invariant a seed must break to count (another failure of the store does not).
    pub invariant: Invariant,
    /// The strategy the seeds ran under.
    pub strategy: StrategySpec,
    /// Seeds run up to and including the first that fails this way, median over the starts
    /// that found one (0 when none did).
    pub median_schedules: u64,
    /// Wall milliseconds for the same, median (NaN when no start found one).
    pub median_ms: f64,
    /// Starts whose range held no such failure within the cap.
    pub not_found: u64,
}

/// `explore`'s sleep-set reduction, counted on a bound small enough to enumerate without
/// it, and its speed on a verifying run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExploreBench {
    /// The bound the schedules were counted on (with `current`), in `explore`'s one-line
    /// form (`clients=2 … depth_max=200`).
    pub bound: String,
    /// Schedules without reduction (`--plain`).
    pub plain_schedules: u64,
    /// Schedules with sleep sets, the default.
    pub reduced_schedules: u64,
    /// `plain_schedules / reduced_schedules`.
    pub reduction_ratio: f64,
    /// Steps per second verifying `durable` on two clients, one of them sending once: a
    /// different bound from `bound`'s.
    pub steps_per_s: f64,
}

/// Everything `reconcile-sim bench` measures, in one run so that its ratios hold on a
/// noisy machine; [`format_markdown`] writes the tables `docs/benchmarks.md` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    /// Harness against bare stores, for `current` and `durable`.
    pub throughput: Vec<Throughput>,
    /// One row per signature of [`BUGS`] and strategy.
    pub time_to_failure: Vec<TimeToFailure>,
    /// [`strategy_gains`] of `time_to_failure`.
    pub strategy_gains: Vec<StrategyGain>,
    /// Shrink time and length per shipped store ([`shrink_bench`]).
    pub shrink: Vec<ShrinkBench>,
    /// Explore's reduction and speed.
    pub explore: ExploreBench,
    /// What `--world` pinned in the seeds' worlds (absent: nothing).
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub world_pins: WorldPins,
}

/// Shrinking fuzz-found failures of one store to 1-minimal scenarios.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShrinkBench {
    /// The shipped store whose failures were shrunk.
    pub store: String,
    /// Failures shrunk (the first ones, random strategy, seeds from 0).
    pub failures: u64,
    /// Median wall milliseconds per shrink (NaN with no failures).
    pub median_ms: f64,
    /// The slowest shrink, in wall milliseconds: how far the worst case is from the
    /// default `--max-shrink-time` (60 s).
    pub max_ms: f64,
    /// Median main-phase steps before and after.
    pub median_steps_before: u64,
    /// The "after" of the two: the length of the scenario files a person reads.
    pub median_steps_after: u64,
    /// Median replays the shrinker ran.
    pub median_replays: u64,
}

/// Shrink the first `samples` failing seeds of every shipped store with the default
/// limits, checking each result is 1-minimal (a store with no failure in the first
/// 100 000 seeds, like `durable`, gets a row with `failures: 0`).
pub fn shrink_bench(samples: usize) -> Vec<ShrinkBench> {
    use crate::run::run_seed;
    use crate::trace::shrink::{check_one_minimal, shrink, Limits};
    let mut rows = Vec::new();
    for kind in crate::store::STORES {
        let mut ms = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut replays = Vec::new();
        let mut seed = 0u64;
        while ms.len() < samples && seed < 100_000 {
            let r = run_seed(kind, seed);
            seed += 1;
            let Some(inv) = r.outcome.invariant() else {
                continue;
            };
            let started = Instant::now();
            let Ok(s) = shrink(
                kind,
                r.config.clone(),
                &r.steps,
                Some(inv),
                Limits::default(),
            ) else {
                continue;
            };
            ms.push(started.elapsed().as_secs_f64() * 1e3);
            assert!(
                s.gave_up.is_none(),
                "{} seed {}: shrink gave up",
                kind.name,
                seed - 1
            );
            assert_eq!(
                check_one_minimal(kind, &s.config, &s.steps, inv),
                Ok(()),
                "{} seed {}: not 1-minimal",
                kind.name,
                seed - 1
            );
            before.push(r.steps.len() as u64);
            after.push(s.steps.len() as u64);
            replays.push(s.replays);
        }
        let failures = ms.len() as u64;
        let max_ms = ms.iter().copied().fold(0.0, f64::max);
        rows.push(ShrinkBench {
            store: kind.name.to_string(),
            failures,
            median_ms: median_or(ms, f64::NAN),
            max_ms,
            median_steps_before: median_or(before, 0),
            median_steps_after: median_or(after, 0),
            median_replays: median_or(replays, 0),
        });
    }
    rows
}

/// Collects, per client, every input its store was given (for the bare replay).
struct InputLog(Vec<Vec<Input>>);

impl Observer for InputLog {
    fn on_step(&mut self, world: &World, record: &StepRecord, _: StepAt, _: Option<&Violation>) {
        if self.0.is_empty() {
            self.0 = vec![Vec::new(); world.clients().len()];
        }
        if let (Some(input), Some(c)) = (&record.input, record.step.client()) {
            self.0[c as usize].push(input.clone());
        }
    }
}

/// Harness against bare store on `kind`: `runs` seeds through the whole harness (timed),
/// then the inputs each store was given, recorded in an untimed pass, fed straight into
/// fresh stores (timed).
pub fn throughput(kind: StoreKind, runs: u64, pins: &WorldPins) -> Throughput {
    let worlds = Worlds {
        pins: pins.clone(),
        ..Worlds::default()
    };
    let started = Instant::now();
    let mut steps = 0u64;
    for seed in 0..runs {
        let r = run_one_in(&kind, StrategySpec::Random, &worlds, seed, &mut ());
        steps += (r.steps.len() + r.drain.len()) as u64;
    }
    let harness = started.elapsed().as_secs_f64();
    // Record the inputs each client's store saw, and each run's steps (a separate pass,
    // not timed).
    let mut logs: Vec<Vec<Vec<Input>>> = Vec::new();
    let mut runs_steps = Vec::new();
    for seed in 0..runs {
        let mut log = InputLog(Vec::new());
        let r = run_one_in(&kind, StrategySpec::Random, &worlds, seed, &mut log);
        logs.push(log.0);
        let steps: Vec<Step> = r.steps.iter().chain(&r.drain).copied().collect();
        runs_steps.push((r.config, steps));
    }
    let timed_replays = |judged: bool| {
        let started = Instant::now();
        for (config, steps) in &runs_steps {
            std::hint::black_box(world_after(&kind, config, steps, judged));
        }
        started.elapsed().as_secs_f64()
    };
    let world_alone = timed_replays(false);
    let judged_world = timed_replays(true);
    let mut inputs = 0u64;
    let started = Instant::now();
    for run_logs in &logs {
        for log in run_logs {
            let mut store = (kind.make)();
            for input in log {
                let _ = std::hint::black_box(store.handle(input));
                std::hint::black_box(store.render());
                inputs += 1;
            }
        }
    }
    let bare = started.elapsed().as_secs_f64();
    Throughput {
        store: kind.name.to_string(),
        runs,
        steps,
        harness_steps_per_s: steps as f64 / harness,
        bare_inputs_per_s: inputs as f64 / bare,
        overhead_ratio: harness / bare,
        world_ratio: world_alone / bare,
        judged_world_ratio: judged_world / bare,
    }
}

/// A fresh world of `config` after `steps`, applied in order with nothing chosen or
/// recorded, and, when `judged`, the oracle after each step (its verdicts dropped): the
/// world's and the oracle's shares of a run, measured apart.
fn world_after(kind: &StoreKind, config: &WorldConfig, steps: &[Step], judged: bool) -> World {
    let mut world = World::new(config.clone(), kind);
    for (i, step) in steps.iter().enumerate() {
        let _ = std::hint::black_box(world.apply_into(*step, &mut ()));
        if judged {
            std::hint::black_box(crate::oracle::check_step(&world, step, i));
        }
    }
    world
}

/// The median of `v`, or `empty` when there is nothing to take it of.
fn median_or<T: PartialOrd + Copy>(mut v: Vec<T>, empty: T) -> T {
    if v.is_empty() {
        return empty;
    }
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

/// Schedules (and milliseconds) until the first seed of `kind` that breaks `inv` under
/// `strategy_name`, median over `starts` disjoint seed ranges (seed `i·1 000 000` upward),
/// each searched up to `cap` seeds; ranges with no such failure are counted in
/// `not_found`, not in the median.
pub fn time_to_failure(
    bug: &str,
    kind: StoreKind,
    inv: Invariant,
    strategy: StrategySpec,
    starts: u64,
    cap: u64,
) -> TimeToFailure {
    time_to_failure_pinned(bug, kind, inv, strategy, (starts, cap), &WorldPins::none())
}

/// [`time_to_failure`] in the worlds `pins` leaves to the seeds (`bench --world`), over
/// `(starts, cap)`.
pub fn time_to_failure_pinned(
    bug: &str,
    kind: StoreKind,
    inv: Invariant,
    strategy: StrategySpec,
    (starts, cap): (u64, u64),
    pins: &WorldPins,
) -> TimeToFailure {
    let mut schedules = Vec::new();
    let mut ms = Vec::new();
    let mut not_found = 0;
    for i in 0..starts {
        let first = i * 1_000_000;
        let started = Instant::now();
        let mut n = 0;
        let mut found = false;
        while n < cap {
            let seed = first + n;
            n += 1;
            let mut strat = strategy.build(seed);
            let r = run(&kind, pins.draw(seed), strat.as_mut());
            if r.outcome.invariant() == Some(inv) {
                found = true;
                break;
            }
        }
        if found {
            schedules.push(n);
            ms.push(started.elapsed().as_secs_f64() * 1e3);
        } else {
            not_found += 1;
        }
    }
    TimeToFailure {
        bug: bug.to_string(),
        store: kind.name.to_string(),
        invariant: inv,
        strategy,
        median_schedules: median_or(schedules, 0),
        median_ms: median_or(ms, f64::NAN),
        not_found,
    }
}

/// Run the whole benchmark: `runs` seeds per throughput row, `starts` (≥ 101) per
/// time-to-failure row, each capped at `cap` schedules.
pub fn bench(runs: u64, starts: u64, cap: u64) -> BenchReport {
    bench_pinned(runs, starts, cap, &WorldPins::none())
}

/// [`bench`] with the seeds' worlds pinned by `pins` (`bench --world`: the throughput and
/// time-to-failure rows; the explore rows search their own fixed bounds).
pub fn bench_pinned(runs: u64, starts: u64, cap: u64, pins: &WorldPins) -> BenchReport {
    let throughput = ["current", "durable"]
        .iter()
        .map(|n| throughput(by_name(n).expect("shipped"), runs, pins))
        .collect();
    let mut ttf = Vec::new();
    for (bug, store, inv) in BUGS {
        for s in StrategySpec::ALL {
            ttf.push(time_to_failure_pinned(
                bug,
                by_name(store).expect("shipped"),
                *inv,
                s,
                (starts, cap),
                pins,
            ));
        }
    }
    let current = by_name("current").expect("shipped");
    let mut b = ExploreBound::small(2, 0);
    b.world.scrolls_per_client = 1;
    let r = explore(&current, &b, &mut |_| {});
    b.reductions.sleep_sets = false;
    let p = explore(&current, &b, &mut |_| {});
    let durable = by_name("durable").expect("shipped");
    let mut d = ExploreBound::small(2, 1);
    d.world.passive_observer = true;
    let started = Instant::now();
    let dr = explore(&durable, &d, &mut |_| {});
    let steps_per_s = dr.steps_applied as f64 / started.elapsed().as_secs_f64();
    BenchReport {
        throughput,
        strategy_gains: strategy_gains(&ttf),
        time_to_failure: ttf,
        shrink: shrink_bench(20),
        explore: ExploreBench {
            bound: b.describe(),
            plain_schedules: p.schedules,
            reduced_schedules: r.schedules,
            reduction_ratio: p.schedules as f64 / r.schedules as f64,
            steps_per_s,
        },
        world_pins: pins.clone(),
    }
}

/// The report as Markdown tables (what `docs/benchmarks.md` holds).
pub fn format_markdown(r: &BenchReport) -> String {
    let mut out = String::new();
    out.push_str("| store | runs | steps | harness steps/s (oracle on, 1 thread) | bare store inputs/s | overhead ratio | the world alone | the world and the oracle |\n|---|---|---|---|---|---|---|---|\n");
    for t in &r.throughput {
        out.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.2}× | {:.2}× | {:.2}× |\n",
            t.store,
            t.runs,
            t.steps,
            t.harness_steps_per_s,
            t.bare_inputs_per_s,
            t.overhead_ratio,
            t.world_ratio,
            t.judged_world_ratio
        ));
    }
    out.push_str("\n| bug | signature | strategy | median schedules to first failure | median ms | starts with no failure |\n|---|---|---|---|---|---|\n");
    for t in &r.time_to_failure {
        out.push_str(&format!(
            "| {} | {} {} | {} | {} | {:.3} | {} |\n",
            t.bug, t.store, t.invariant, t.strategy, t.median_schedules, t.median_ms, t.not_found
        ));
    }
    out.push_str("\n| signature (hardest first) | random median | best other strategy | its median | random / best |\n|---|---|---|---|---|\n");
    for g in &r.strategy_gains {
        out.push_str(&format!(
            "| {} {} ({}) | {} | {} | {} | {:.1}× |\n",
            g.store, g.invariant, g.bug, g.random_median, g.best_strategy, g.best_median, g.ratio
        ));
    }
    out.push('\n');
    out.push_str(&format_shrink_table(&r.shrink));
    let e = &r.explore;
    out.push_str(&format!(
        "\nexplore: plain {} schedules vs {} with sleep sets ({:.1}× fewer) on `{}`; {:.0} steps/s (durable, 2 clients, one sends 1)\n",
        e.plain_schedules, e.reduced_schedules, e.reduction_ratio, e.bound, e.steps_per_s
    ));
    out
}

/// The shrink rows as a Markdown table (part of [`format_markdown`]; the `shrink_timing`
/// example prints it alone).
pub fn format_shrink_table(rows: &[ShrinkBench]) -> String {
    let mut out = String::from("| store | failures shrunk | median shrink ms | max ms | median steps before → after | median replays |\n|---|---|---|---|---|---|\n");
    for b in rows {
        if b.failures == 0 {
            out.push_str(&format!(
                "| {} | 0 (no failure in 100 000 seeds) | – | – | – | – |\n",
                b.store
            ));
            continue;
        }
        out.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {} → {} | {} |\n",
            b.store,
            b.failures,
            b.median_ms,
            b.max_ms,
            b.median_steps_before,
            b.median_steps_after,
            b.median_replays
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::wire::RenderRow;

    /// Every tab's render when a run ends.
    struct FinalRenders(Vec<Vec<RenderRow>>);

    impl Observer for FinalRenders {
        fn wants_steps(&self) -> bool {
            false
        }
        fn on_end(&mut self, world: &World, _: &crate::run::Outcome) {
            self.0 = world
                .clients()
                .iter()
                .map(|c| c.render().to_vec())
                .collect();
        }
    }

    /// The world-alone and judged-world passes of [`throughput`] replay the harness's runs
    /// exactly (each tab ends showing what it showed when the harness's run ended,
    /// failing runs included), so their times are shares of the same work.
    #[test]
    fn the_world_alone_replays_the_harness_run() {
        let mut failing = 0;
        for name in ["current", "durable"] {
            let kind = by_name(name).expect("shipped");
            for seed in 0..60 {
                let mut end = FinalRenders(Vec::new());
                let r = run_one_in(
                    &kind,
                    StrategySpec::Random,
                    &Worlds::default(),
                    seed,
                    &mut end,
                );
                failing += usize::from(r.outcome.invariant().is_some());
                let steps: Vec<Step> = r.steps.iter().chain(&r.drain).copied().collect();
                for judged in [false, true] {
                    let world = world_after(&kind, &r.config, &steps, judged);
                    let renders: Vec<Vec<RenderRow>> = world
                        .clients()
                        .iter()
                        .map(|c| c.render().to_vec())
                        .collect();
                    assert_eq!(renders, end.0, "{name} seed {seed}");
                }
            }
        }
        assert!(failing > 0, "some runs end at a violation");
    }
}
