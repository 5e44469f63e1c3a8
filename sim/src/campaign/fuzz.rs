//! The in-process fuzz campaign: many seeds × stores, in parallel, with per-seed results
//! that do not depend on the number of threads.
//!
//! Work items are `(seed, store)` pairs in a fixed order (seed-major, so every store
//! advances together), dealt out in chunks of [`CHUNK_SEEDS`] seeds; a thread takes the
//! next chunk from one atomic counter and runs its items in order. Each run is a pure
//! function of its item, and chunk results are merged in chunk order, so `--jobs` changes
//! only the speed. With a time budget (or a cancel), a thread stops between seeds; the
//! report covers the longest prefix of seeds that every store finished, so the covered
//! seed range is always contiguous.
//!
//! A campaign keeps what it needs of each run as it goes, so nothing runs a seed twice to
//! describe it: per store, the count of failing seeds per invariant and, for the first
//! failing seed of each invariant, the run's trace (to shrink and save, see
//! [`crate::campaign::findings`]); with coverage on, the orderings each run reached,
//! counted by an observer during the run. Chunks are folded into the total as soon as
//! every earlier chunk is in, so memory stays flat however long the campaign runs.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::campaign::findings::Failure;
use crate::campaign::seen_runs::SeenRuns;
use crate::campaign::shard::Shard;
use crate::model::store::StoreFactory;
use crate::oracle::judged::JudgedExt;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::run::{chosen_by, execute_observed, Observer, RunReport};
use crate::trace::assume::Assumption;
use crate::trace::class::{every_class_of_schedule, Class};
use crate::trace::coverage::{Coverage, CoverageObserver};

/// Seeds per chunk of work.
pub const CHUNK_SEEDS: u64 = 64;

/// How many seeds to run.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// Exactly this many seeds per store.
    Seeds(u64),
    /// As many seeds as fit in this time.
    Time(Duration),
    /// As many seeds as fit in `total`, shrinking included: once a run has failed, the
    /// campaign ends `reserve` early, leaving that time to shrink what it found (`fuzz
    /// --time`; see [`crate::campaign::findings::shrink_and_save_all`]).
    TimeWithShrinking {
        /// The whole budget.
        total: Duration,
        /// What is kept for shrinking once there is something to shrink.
        reserve: Duration,
    },
}

/// What a campaign runs.
pub struct Campaign<'a> {
    /// The stores, each run on every seed.
    pub stores: Vec<&'a dyn StoreFactory>,
    /// How steps are chosen.
    pub strategy: StrategySpec,
    /// The first seed.
    pub seed_start: u64,
    /// How many seeds.
    pub budget: Budget,
    /// Worker threads.
    pub jobs: usize,
    /// Count the interesting orderings every run reaches ([`crate::trace::coverage`]).
    pub coverage: bool,
    /// Tell root-cause classes apart ([`crate::trace::class`]): every failing seed is run
    /// again with the classes it showed masked, until it passes, so the campaign reports
    /// every class its seeds reach, not only the one each seed hits first.
    pub classes: bool,
    /// What `--world` pins and which invariants are judged.
    pub worlds: Worlds,
}

/// One store's results over the campaign.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSummary {
    /// The store's name.
    pub store: String,
    /// Seeds run.
    pub runs: u64,
    /// Seeds failing each invariant. A run stops at its first violation; with classes,
    /// a seed also counts under the invariant of every class it showed once the classes
    /// before it were masked, so a column is never 0 beside a class its invariant noticed
    /// (issue 48: `inv5-render-shape 0/42547` beside a new inv5 class). A seed may then
    /// count in several columns of its row.
    pub failing: BTreeMap<Invariant, u64>,
    /// The smallest seed whose run broke each invariant first (unmasked).
    pub first_failing_seed: BTreeMap<Invariant, u64>,
    /// With classes on, every root-cause class found, by first seed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassSummary>,
}

/// One root-cause class over a campaign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassSummary {
    /// The class.
    pub class: Class,
    /// What a person reads.
    pub name: String,
    /// Its short key (file names, baselines).
    pub key: String,
    /// Seeds that showed it (masking the classes each seed showed before it).
    pub seeds: u64,
    /// The first seed that showed it.
    pub first_seed: u64,
    /// How many classes that seed had shown before it (masked to reach this one).
    pub masked_before: usize,
}

impl StoreSummary {
    /// Failing seeds, all invariants together.
    pub fn failures(&self) -> u64 {
        self.failing.values().sum()
    }
    /// The smallest failing seed and its invariant.
    pub fn first_failure(&self) -> Option<(u64, Invariant)> {
        self.first_failing_seed.iter().map(|(i, s)| (*s, *i)).min()
    }
}

/// The whole campaign's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignReport {
    /// How steps were chosen.
    pub strategy: StrategySpec,
    /// The first seed.
    pub seed_start: u64,
    /// Seeds covered: `seed_start .. seed_start + seeds`.
    pub seeds: u64,
    /// Per store, in the campaign's order.
    pub stores: Vec<StoreSummary>,
    /// What `--world` pinned and which invariants were judged (absent: the default).
    #[serde(default, skip_serializing_if = "Worlds::is_default")]
    pub worlds: Worlds,
}

impl CampaignReport {
    /// Whether any store failed any seed.
    pub fn any_failure(&self) -> bool {
        self.stores.iter().any(|s| s.failures() > 0)
    }
}

/// A campaign's report, and what it kept of its runs.
pub struct CampaignOutcome {
    /// The counts.
    pub report: CampaignReport,
    /// The first failing run of each (store, invariant), store by store in campaign order,
    /// invariants in order: ready to shrink and save.
    pub first_failures: Vec<Failure>,
    /// Per store (campaign order), the orderings its runs reached; empty unless asked.
    pub coverage: Vec<Coverage>,
    /// Every class each seed showed, for the witness searches that meet the same runs
    /// (class-aware campaigns without coverage; else empty).
    pub seen: SeenRuns,
}

/// Run one seed of one store with `strategy`.
pub fn run_one(stores: &dyn StoreFactory, strategy: StrategySpec, seed: u64) -> RunReport {
    run_one_observed(stores, strategy, seed, &mut ())
}

/// [`run_one`], telling `observer` about every step.
pub fn run_one_observed(
    stores: &dyn StoreFactory,
    strategy: StrategySpec,
    seed: u64,
    observer: &mut dyn Observer,
) -> RunReport {
    run_one_in(stores, strategy, &Worlds::default(), seed, observer)
}

/// [`run_one_observed`] in the world `worlds` draws for `seed`.
pub fn run_one_in(
    stores: &dyn StoreFactory,
    strategy: StrategySpec,
    worlds: &Worlds,
    seed: u64,
    observer: &mut dyn Observer,
) -> RunReport {
    let mut strat = strategy.build(seed);
    let config = worlds.draw(seed);
    let next = chosen_by(&config, &mut *strat);
    execute_observed(stores, config, next, observer)
}

/// Every root-cause class seed `seed` reaches on `store`, in one run (see
/// [`crate::trace::class::every_class_of_run`]).
pub fn classes_of_seed(
    store: &dyn StoreFactory,
    strategy: StrategySpec,
    seed: u64,
) -> Vec<(Class, Vec<Class>, RunReport)> {
    classes_of_seed_in(store, strategy, &Worlds::default(), seed)
}

/// [`classes_of_seed`] in the world `worlds` draws for `seed`.
pub fn classes_of_seed_in(
    store: &dyn StoreFactory,
    strategy: StrategySpec,
    worlds: &Worlds,
    seed: u64,
) -> Vec<(Class, Vec<Class>, RunReport)> {
    every_class_of_schedule(store, worlds.draw(seed), strategy, seed).0
}

/// One class's share of some contiguous seeds.
struct ClassTally {
    seeds: u64,
    first_seed: u64,
    /// The first seed's run that showed it, and the classes masked in it.
    mask: Vec<Class>,
    run: RunReport,
    /// For each optional world feature the first run's world has, the first later seed
    /// of the same chunk that showed the class in a world without it (seed, mask, run):
    /// a witness that does not need it, already found, which
    /// [`crate::campaign::findings`] shrinks before it searches for one.
    without: BTreeMap<Assumption, (u64, Vec<Class>, RunReport)>,
}

impl ClassTally {
    /// Keep `run` (of `seed`, which comes after every seed kept so far) as the witness
    /// without each feature the first run has and `run`'s world lacks, where none is kept.
    fn offer(&mut self, seed: u64, mask: &[Class], run: &RunReport) {
        for a in Assumption::ALL {
            if a.holds(&self.run.config) && !a.holds(&run.config) && !self.without.contains_key(&a)
            {
                self.without.insert(a, (seed, mask.to_vec(), run.clone()));
            }
        }
    }
}

/// One store's share of some contiguous seeds.
#[derive(Default)]
struct StoreTally {
    runs: u64,
    failing: BTreeMap<Invariant, u64>,
    /// The first failing seed of each invariant, with its run.
    first: BTreeMap<Invariant, (u64, RunReport)>,
    classes: BTreeMap<Class, ClassTally>,
    coverage: Coverage,
}

impl StoreTally {
    fn add_run(&mut self, seed: u64, report: RunReport, coverage: Option<Coverage>) {
        self.runs += 1;
        if let Some(inv) = report.outcome.invariant() {
            *self.failing.entry(inv).or_default() += 1;
            self.first.entry(inv).or_insert((seed, report));
        }
        if let Some(c) = coverage {
            self.coverage.merge(&c);
        }
    }

    /// Add the classes `seed` showed; `counted` is the invariant [`StoreTally::add_run`]
    /// counted it under (its unmasked run's), and the seed is counted once more under
    /// each other invariant a class of it was noticed by (see [`StoreSummary::failing`]).
    fn add_classes(
        &mut self,
        seed: u64,
        counted: Option<Invariant>,
        found: Vec<(Class, Vec<Class>, RunReport)>,
    ) {
        let noticed: std::collections::BTreeSet<Invariant> = found
            .iter()
            .filter_map(|(_, _, run)| run.outcome.invariant())
            .filter(|inv| Some(*inv) != counted)
            .collect();
        for inv in noticed {
            *self.failing.entry(inv).or_default() += 1;
        }
        for (class, mask, run) in found {
            match self.classes.get_mut(&class) {
                Some(t) => {
                    t.seeds += 1;
                    t.offer(seed, &mask, &run);
                }
                None => {
                    self.classes.insert(
                        class,
                        ClassTally {
                            seeds: 1,
                            first_seed: seed,
                            mask,
                            run,
                            without: BTreeMap::new(),
                        },
                    );
                }
            }
        }
    }

    /// Add `later`, which covers seeds after this one's.
    fn append(&mut self, later: StoreTally) {
        self.runs += later.runs;
        for (inv, n) in later.failing {
            *self.failing.entry(inv).or_default() += n;
        }
        for (inv, first) in later.first {
            self.first.entry(inv).or_insert(first);
        }
        for (class, t) in later.classes {
            match self.classes.get_mut(&class) {
                // Witnesses without a feature come from the first seed's own chunk only:
                // a shard holds whole chunks, so what a class's finding is made of does
                // not depend on how the seeds were sharded.
                Some(mine) => mine.seeds += t.seeds,
                None => {
                    self.classes.insert(class, t);
                }
            }
        }
        self.coverage.merge(&later.coverage);
    }
}

/// What one chunk's runs found: a tally per store, and whether every seed of the chunk
/// ran (a thread stopped by the budget leaves a prefix of it).
struct ChunkResult {
    seeds_done: u64,
    complete: bool,
    tallies: Vec<StoreTally>,
}

/// Folds chunk results into the total in chunk order, holding back those that finish
/// early (at most one per thread).
struct Merger {
    next: u64,
    pending: BTreeMap<u64, ChunkResult>,
    total: Vec<StoreTally>,
    seeds: u64,
    /// A chunk was cut short: nothing after it counts.
    closed: bool,
}

impl Merger {
    /// Nothing merged yet, for `stores` stores.
    fn new(stores: usize) -> Merger {
        Merger {
            next: 0,
            pending: BTreeMap::new(),
            total: (0..stores).map(|_| StoreTally::default()).collect(),
            seeds: 0,
            closed: false,
        }
    }

    fn add(&mut self, index: u64, chunk: ChunkResult) {
        self.pending.insert(index, chunk);
        while let Some(chunk) = self.pending.remove(&self.next).filter(|_| !self.closed) {
            self.seeds += chunk.seeds_done;
            self.closed = !chunk.complete;
            for (total, t) in self.total.iter_mut().zip(chunk.tallies) {
                total.append(t);
            }
            self.next += 1;
        }
    }
}

/// Run a campaign. `progress` is called with the number of runs finished so far (from any
/// thread); `cancel` stops it early, keeping every finished result.
pub fn run_campaign(
    campaign: &Campaign<'_>,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> CampaignOutcome {
    run_campaign_shard(campaign, Shard::WHOLE, progress, cancel)
}

/// [`run_campaign`] over the seeds of one shard ([`crate::campaign::shard`]): its chunks
/// are the shard's blocks, taken in order, so the report covers the longest prefix of the
/// shard's own seeds that every store finished, and `seeds` counts them. Shard 1/1 is the
/// whole campaign.
pub fn run_campaign_shard(
    campaign: &Campaign<'_>,
    shard: Shard,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> CampaignOutcome {
    let started = Instant::now();
    let seeds_total = match campaign.budget {
        Budget::Seeds(n) => n,
        Budget::Time(_) | Budget::TimeWithShrinking { .. } => u64::MAX - campaign.seed_start,
    };
    let (deadline, reserve) = match campaign.budget {
        Budget::Time(d) => (Some(started + d), Duration::ZERO),
        Budget::TimeWithShrinking { total, reserve } => (Some(started + total), reserve),
        Budget::Seeds(_) => (None, Duration::ZERO),
    };
    let failed = AtomicBool::new(false);
    let stop = || {
        cancel.load(Ordering::Relaxed)
            || deadline.is_some_and(|d| {
                let now = Instant::now();
                now >= d || (failed.load(Ordering::Relaxed) && now + reserve >= d)
            })
    };
    let next_chunk = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let merger = Mutex::new(Merger::new(campaign.stores.len()));
    let seen = SeenRuns::default();
    let worker = || loop {
        let index = next_chunk.fetch_add(1, Ordering::Relaxed);
        let first = shard.block(index).saturating_mul(CHUNK_SEEDS);
        if first >= seeds_total || stop() {
            break;
        }
        let seeds = CHUNK_SEEDS.min(seeds_total - first);
        let seed = campaign.seed_start + first;
        let chunk = run_chunk(campaign, (seed, seeds), &seen, &stop, &|run_failed| {
            if run_failed {
                failed.store(true, Ordering::Relaxed);
            }
            progress(done.fetch_add(1, Ordering::Relaxed) + 1)
        });
        let complete = chunk.complete;
        lock(&merger).add(index, chunk);
        if !complete {
            break;
        }
    };
    crate::util::parallel::on_threads(campaign.jobs, worker);
    let merger = merger.into_inner().unwrap_or_else(|e| e.into_inner());
    outcome(campaign, merger.seeds, merger.total, seen)
}

/// Run `seeds` seeds from `seed` on every store, stopping between seeds when `stop` says,
/// remembering each seed's classes in `seen`.
fn run_chunk(
    campaign: &Campaign<'_>,
    (seed, seeds): (u64, u64),
    seen: &SeenRuns,
    stop: &dyn Fn() -> bool,
    ran: &dyn Fn(bool),
) -> ChunkResult {
    let mut tallies: Vec<StoreTally> = campaign
        .stores
        .iter()
        .map(|_| StoreTally::default())
        .collect();
    for n in 0..seeds {
        if n > 0 && stop() {
            return ChunkResult {
                seeds_done: n,
                complete: false,
                tallies,
            };
        }
        for (store, tally) in campaign.stores.iter().zip(&mut tallies) {
            ran(run_seed(campaign, *store, seed + n, tally, seen));
        }
    }
    ChunkResult {
        seeds_done: seeds,
        complete: true,
        tallies,
    }
}

/// Run `seed` on `store` as `campaign` asks and add what it showed to `tally` (and, with
/// classes, to `seen`): whether it failed.
fn run_seed(
    campaign: &Campaign<'_>,
    store: &dyn StoreFactory,
    seed: u64,
    tally: &mut StoreTally,
    seen: &SeenRuns,
) -> bool {
    if campaign.classes && !campaign.coverage {
        // One run gives the seed's classes and its run unmasked.
        let config = campaign.worlds.draw(seed);
        let (found, report) =
            every_class_of_schedule(store, config.clone(), campaign.strategy, seed);
        seen.remember(store.name(), config, campaign.strategy, seed, &found);
        let counted = report.outcome.invariant();
        tally.add_run(seed, report, None);
        tally.add_classes(seed, counted, found);
        return counted.is_some();
    }
    let (report, coverage) = if campaign.coverage {
        let mut observer = CoverageObserver::default();
        let r = run_one_in(
            store,
            campaign.strategy,
            &campaign.worlds,
            seed,
            &mut observer,
        );
        (r, Some(observer.coverage))
    } else {
        let r = run_one_in(store, campaign.strategy, &campaign.worlds, seed, &mut ());
        (r, None)
    };
    // With coverage, a failing seed is run again for its classes (the coverage is the
    // unmasked run's). When that run does not fail (a store whose runs do not repeat),
    // the failure is kept under its own violation's class, so that it is reported (and
    // rechecked: flaky) rather than counted and lost.
    let fallback = match (&report.outcome, campaign.classes) {
        (crate::run::Outcome::Fail(v), true) => Some((Class::of_violation(v), report.clone())),
        _ => None,
    };
    let counted = report.outcome.invariant();
    tally.add_run(seed, report, coverage);
    if let Some((class, run)) = fallback {
        let mut found = classes_of_seed_in(store, campaign.strategy, &campaign.worlds, seed);
        if found.is_empty() {
            found.push((class, Vec::new(), run));
        }
        tally.add_classes(seed, counted, found);
    }
    counted.is_some()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The report and the kept runs of `seeds` seeds' tallies, with what the runs showed.
fn outcome(
    campaign: &Campaign<'_>,
    seeds: u64,
    tallies: Vec<StoreTally>,
    seen: SeenRuns,
) -> CampaignOutcome {
    let mut stores = Vec::new();
    let mut first_failures = Vec::new();
    let mut coverage = Vec::new();
    for (store, tally) in campaign.stores.iter().zip(tallies) {
        let StoreTally {
            runs,
            failing,
            first,
            classes,
            coverage: covered,
        } = tally;
        let mut classes: Vec<(Class, ClassTally)> = classes.into_iter().collect();
        classes.sort_by(|a, b| (a.1.first_seed, &a.0).cmp(&(b.1.first_seed, &b.0)));
        stores.push(store_summary(store.name(), runs, failing, &first, &classes));
        if campaign.classes {
            first_failures.extend(class_failures(campaign, *store, classes));
        } else {
            first_failures.extend(invariant_failures(campaign, *store, first));
        }
        if campaign.coverage {
            coverage.push(covered);
        }
    }
    CampaignOutcome {
        report: CampaignReport {
            strategy: campaign.strategy,
            seed_start: campaign.seed_start,
            seeds,
            stores,
            worlds: campaign.worlds.clone(),
        },
        first_failures,
        coverage,
        seen,
    }
}

/// One store's row of the report: its counts, first failing seeds and `classes` (in
/// first-seed order).
fn store_summary(
    store: String,
    runs: u64,
    failing: BTreeMap<Invariant, u64>,
    first: &BTreeMap<Invariant, (u64, RunReport)>,
    classes: &[(Class, ClassTally)],
) -> StoreSummary {
    StoreSummary {
        store,
        runs,
        failing,
        first_failing_seed: first.iter().map(|(i, (s, _))| (*i, *s)).collect(),
        classes: classes
            .iter()
            .map(|(class, t)| ClassSummary {
                class: class.clone(),
                name: class.to_string(),
                key: class.key(),
                seeds: t.seeds,
                first_seed: t.first_seed,
                masked_before: t.mask.len(),
            })
            .collect(),
    }
}

/// A class-aware campaign's failures to shrink: the first run of each class, with the
/// classes masked in it.
fn class_failures(
    campaign: &Campaign<'_>,
    store: &dyn StoreFactory,
    classes: Vec<(Class, ClassTally)>,
) -> Vec<Failure> {
    // The run of `seed` that showed `class` under `mask`, as a failure to shrink.
    let failure = |class: &Class, seed: u64, mask: Vec<Class>, run: RunReport| Failure {
        class: Some(class.clone()),
        mask,
        ..invariant_failure(
            campaign,
            store,
            run.outcome.invariant().expect("a class is of a failure"),
            seed,
            run,
        )
    };
    classes
        .into_iter()
        .map(|(class, t)| Failure {
            without: t
                .without
                .into_iter()
                .map(|(a, (seed, mask, run))| (a, failure(&class, seed, mask, run)))
                .collect(),
            ..failure(&class, t.first_seed, t.mask, t.run)
        })
        .collect()
}

/// A campaign's failures to shrink without classes: the first run of each invariant.
fn invariant_failures(
    campaign: &Campaign<'_>,
    store: &dyn StoreFactory,
    first: BTreeMap<Invariant, (u64, RunReport)>,
) -> Vec<Failure> {
    first
        .into_iter()
        .map(|(invariant, (seed, run))| invariant_failure(campaign, store, invariant, seed, run))
        .collect()
}

/// The run of `seed`, which broke `invariant`, as a failure known by that invariant.
fn invariant_failure(
    campaign: &Campaign<'_>,
    store: &dyn StoreFactory,
    invariant: Invariant,
    seed: u64,
    run: RunReport,
) -> Failure {
    let strategy = Some(campaign.strategy.to_string());
    let pins = campaign.worlds.effective();
    Failure::of_run(store.name(), invariant, Some(seed), strategy, run, pins)
}

/// The store × invariant table: `failing/run` per cell, then the first failing seed.
pub fn format_table(report: &CampaignReport) -> String {
    let mut out = String::new();
    let name_w = report
        .stores
        .iter()
        .map(|s| s.store.len())
        .max()
        .unwrap_or(5)
        .max(5);
    out.push_str(&format!("{:<name_w$}", "store"));
    for inv in Invariant::ALL {
        out.push_str(&format!("  {:>18}", inv.name()));
    }
    out.push_str("  first failing seed\n");
    for s in &report.stores {
        out.push_str(&format!("{:<name_w$}", s.store));
        for inv in Invariant::ALL {
            let cell = if report.worlds.judged.judges(inv) {
                format!("{}/{}", s.failing.get(&inv).copied().unwrap_or(0), s.runs)
            } else {
                "skipped".to_string()
            };
            out.push_str(&format!("  {cell:>18}"));
        }
        match s.first_failure() {
            Some((seed, inv)) => out.push_str(&format!("  {seed} ({inv})\n")),
            None => out.push_str("  -\n"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::WorldConfig;
    use crate::store::by_name;

    fn campaign<'a>(stores: Vec<&'a dyn StoreFactory>, seeds: u64, jobs: usize) -> Campaign<'a> {
        Campaign {
            stores,
            strategy: StrategySpec::Random,
            seed_start: 3,
            budget: Budget::Seeds(seeds),
            jobs,
            coverage: false,
            classes: false,
            worlds: Worlds::default(),
        }
    }

    /// A class-aware campaign remembers every seed's run with the classes it showed (what a
    /// witness search meeting the seed would find), on any number of threads; one without
    /// classes remembers nothing.
    #[test]
    fn a_class_aware_campaign_remembers_each_seeds_classes() {
        let current = by_name("current").unwrap();
        let seeds = CHUNK_SEEDS + 7;
        for jobs in [1, 2] {
            let mut c = campaign(vec![&current], seeds, jobs);
            c.classes = true;
            let outcome = run_campaign(&c, &|_| {}, &AtomicBool::new(false));
            assert_eq!(outcome.seen.len(), seeds as usize);
            let mut failing = 0;
            for seed in c.seed_start..c.seed_start + seeds {
                let world = c.worlds.draw(seed);
                let (found, _) = every_class_of_schedule(&current, world.clone(), c.strategy, seed);
                let classes: Vec<Class> = found.into_iter().map(|(c, _, _)| c).collect();
                failing += usize::from(!classes.is_empty());
                let shown = outcome.seen.shown("current", &world, c.strategy, seed);
                assert_eq!(shown, Some(classes), "seed {seed}");
            }
            assert!(failing > 0, "some seed shows a class");
            c.classes = false;
            let outcome = run_campaign(&c, &|_| {}, &AtomicBool::new(false));
            assert_eq!(outcome.seen.len(), 0);
        }
    }

    /// Chunks, threads and the order chunks finish in change nothing: the report equals
    /// one computed seed by seed, and the kept runs are those of the first failing seeds.
    #[test]
    fn a_campaign_equals_its_runs_seed_by_seed_for_any_number_of_threads() {
        let current = by_name("current").unwrap();
        let canary = by_name("canary").unwrap();
        let stores: Vec<&dyn StoreFactory> = vec![&current, &canary];
        let seeds = 2 * CHUNK_SEEDS + 5;
        let one = run_campaign(
            &campaign(stores.clone(), seeds, 1),
            &|_| {},
            &AtomicBool::new(false),
        );
        let three = run_campaign(
            &campaign(stores.clone(), seeds, 3),
            &|_| {},
            &AtomicBool::new(false),
        );
        assert_eq!(one.report, three.report);
        assert_eq!(one.report.seeds, seeds);
        for (summary, store) in one.report.stores.iter().zip(&stores) {
            let mut expected = StoreSummary {
                store: store.name(),
                ..StoreSummary::default()
            };
            for seed in 3..3 + seeds {
                expected.runs += 1;
                if let Some(inv) = run_one(*store, StrategySpec::Random, seed)
                    .outcome
                    .invariant()
                {
                    *expected.failing.entry(inv).or_default() += 1;
                    expected.first_failing_seed.entry(inv).or_insert(seed);
                }
            }
            assert_eq!(*summary, expected);
        }
        for f in &three.first_failures {
            let store = stores.iter().find(|s| s.name() == f.store).unwrap();
            let run = run_one(*store, StrategySpec::Random, f.seed.unwrap());
            assert_eq!((run.config, run.steps), (f.config.clone(), f.steps.clone()));
            assert_eq!(run.outcome.invariant(), Some(f.invariant));
        }
        assert!(!three.first_failures.is_empty());
    }

    /// Regression (issue 48): the table counted a seed only under its first violation,
    /// so a column could say 0 beside a class its invariant noticed once earlier classes
    /// were masked. Now each column counts every seed with a class of its invariant, seed
    /// by seed as the classes say, on any number of threads; and in these seeds some class
    /// is noticed only after masking (so the columns differ from the unmasked counts).
    #[test]
    fn a_column_counts_every_seed_with_a_class_its_invariant_noticed() {
        let current = by_name("current").unwrap();
        let seeds = 2 * CHUNK_SEEDS + 5;
        let mut expected: BTreeMap<Invariant, u64> = BTreeMap::new();
        let mut unmasked: BTreeMap<Invariant, u64> = BTreeMap::new();
        for seed in 3..3 + seeds {
            let world = WorldConfig::from_seed(seed);
            let (found, run) = every_class_of_schedule(&current, world, StrategySpec::Random, seed);
            let noticed: std::collections::BTreeSet<Invariant> = found
                .iter()
                .filter_map(|(_, _, r)| r.outcome.invariant())
                .collect();
            for inv in noticed {
                *expected.entry(inv).or_default() += 1;
            }
            if let Some(inv) = run.outcome.invariant() {
                *unmasked.entry(inv).or_default() += 1;
            }
        }
        assert_ne!(
            expected, unmasked,
            "no class was noticed only after masking"
        );
        for jobs in [1, 2] {
            let mut c = campaign(vec![&current], seeds, jobs);
            c.classes = true;
            let got = run_campaign(&c, &|_| {}, &AtomicBool::new(false));
            assert_eq!(got.report.stores[0].failing, expected, "jobs {jobs}");
            // The first failing seeds stay those of the unmasked runs.
            let firsts = &got.report.stores[0].first_failing_seed;
            assert!(
                firsts.keys().all(|inv| unmasked.contains_key(inv)),
                "{firsts:?}"
            );
        }
    }

    /// Each class's witness without a feature is the first seed of the first seed's chunk
    /// (whatever the threads) that showed the class in a world without it, for exactly
    /// the features the first seed's world has: nothing from another chunk, so sharding
    /// changes nothing.
    #[test]
    fn the_witness_without_each_feature_is_the_first_seed_showing_the_class_without_it() {
        let current = by_name("current").unwrap();
        let seeds = 2 * CHUNK_SEEDS + 5;
        let run = |jobs| {
            let mut c = campaign(vec![&current], seeds, jobs);
            c.classes = true;
            run_campaign(&c, &|_| {}, &AtomicBool::new(false)).first_failures
        };
        let (one, two) = (run(1), run(2));
        type Key = Vec<(Option<Class>, Vec<(Assumption, Option<u64>)>)>;
        let key = |fs: &[Failure]| -> Key {
            fs.iter()
                .map(|f| {
                    let w = f.without.iter().map(|(a, w)| (*a, w.seed)).collect();
                    (f.class.clone(), w)
                })
                .collect()
        };
        assert_eq!(key(&one), key(&two));
        // Seed by seed: the classes each seed shows, and its world.
        let shown: Vec<(u64, WorldConfig, Vec<Class>)> = (3..3 + seeds)
            .map(|seed| {
                let classes = classes_of_seed(&current, StrategySpec::Random, seed);
                let classes = classes.into_iter().map(|(c, _, _)| c).collect();
                (
                    seed,
                    crate::model::config::WorldConfig::from_seed(seed),
                    classes,
                )
            })
            .collect();
        let mut checked = 0;
        for f in &one {
            let class = f.class.as_ref().unwrap();
            for a in Assumption::ALL {
                let expected = a
                    .holds(&f.config)
                    .then(|| {
                        let chunk = |s: u64| (s - 3) / CHUNK_SEEDS;
                        shown
                            .iter()
                            .filter(|(s, _, _)| chunk(*s) == chunk(f.seed.unwrap()))
                            .find(|(_, w, cs)| !a.holds(w) && cs.contains(class))
                            .map(|(s, _, _)| *s)
                    })
                    .flatten();
                let got = f
                    .without
                    .iter()
                    .find(|(x, _)| *x == a)
                    .map(|(_, w)| w.seed.unwrap());
                assert_eq!(got, expected, "{class} without {a}");
                if let Some((_, w)) = f.without.iter().find(|(x, _)| *x == a) {
                    assert!(!a.holds(&w.config));
                    assert_eq!(w.class.as_ref(), Some(class));
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "no class had a witness without a feature");
    }

    /// Coverage counted during the campaign equals coverage counted by replaying each run.
    #[test]
    fn coverage_counted_during_the_runs_equals_coverage_of_their_replays() {
        let current = by_name("current").unwrap();
        let mut c = campaign(vec![&current], 150, 2);
        c.coverage = true;
        let got = run_campaign(&c, &|_| {}, &AtomicBool::new(false));
        let mut expected = Coverage::default();
        for seed in 3..153 {
            let r = run_one(&current, StrategySpec::Random, seed);
            expected.merge(&crate::trace::coverage::coverage_of(
                &current, r.config, &r.steps,
            ));
        }
        assert_eq!(got.coverage, vec![expected]);
    }

    /// A cancelled campaign reports a contiguous prefix of whole seeds.
    #[test]
    fn a_cancelled_campaign_keeps_a_contiguous_prefix() {
        let current = by_name("current").unwrap();
        let cancel = AtomicBool::new(false);
        let c = campaign(vec![&current], 10 * CHUNK_SEEDS, 2);
        let got = run_campaign(
            &c,
            &|done| {
                if done == 100 {
                    cancel.store(true, Ordering::Relaxed)
                }
            },
            &cancel,
        );
        assert!(got.report.seeds >= 1 && got.report.seeds < 10 * CHUNK_SEEDS);
        assert_eq!(got.report.stores[0].runs, got.report.seeds);
    }
}
