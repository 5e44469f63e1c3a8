//! Fuzzing the stores under test in batches of [`BATCH_SEEDS`] seeds (one JUnit testcase
//! each), sharded, keeping the first failure of each class the baseline does not hold.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use super::request::BATCH_SEEDS;
use crate::campaign::findings::Failure;
use crate::campaign::fuzz::{run_campaign, Budget, Campaign, CampaignOutcome, StoreSummary};
use crate::campaign::shard::Shard;
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::trace::class::Class;

/// One fuzz batch of one store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzBatch {
    /// The store fuzzed, by the name `--store` took.
    pub store: String,
    /// The batch's first seed; with `seeds`, the testcase's name (`current seeds 0..1000`).
    pub seed_start: u64,
    /// Seeds in the batch: [`BATCH_SEEDS`], or what is left for the last one.
    pub seeds: u64,
    /// Seeds failing each invariant.
    pub failing: BTreeMap<Invariant, u64>,
    /// The first failing seed of each invariant.
    pub first_failing_seed: BTreeMap<Invariant, u64>,
    /// Every root-cause class the batch's seeds showed, by first seed.
    pub classes: Vec<BatchClass>,
}

/// A class in a fuzz batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchClass {
    /// The class.
    pub class: Class,
    /// What a person reads.
    pub name: String,
    /// Seeds of the batch that showed it.
    pub seeds: u64,
    /// The first of them.
    pub first_seed: u64,
    /// In the store's known baseline.
    pub known: bool,
    /// For a crash class: the first seed's cause, with the adapter's stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
}

impl FuzzBatch {
    /// No seed of the batch broke anything but known classes: the testcase passes. (A
    /// failing batch with no class at all, which only a store whose runs do not repeat can
    /// make, fails.)
    pub fn ok(&self) -> bool {
        self.failing.is_empty()
            || (!self.classes.is_empty() && self.classes.iter().all(|c| c.known))
    }

    /// The classes the baseline does not hold.
    pub fn new_classes(&self) -> impl Iterator<Item = &BatchClass> {
        self.classes.iter().filter(|c| !c.known)
    }
}

/// Fuzz each store over `seeds` seeds from `seed_start`, in batches of [`BATCH_SEEDS`].
/// Returns the batches and the first failing run of each (store, invariant) signature
/// across them, sorted by signature.
pub fn fuzz_batches(
    stores: &[&dyn StoreFactory],
    strategy: StrategySpec,
    seed_start: u64,
    seeds: u64,
    jobs: usize,
    known: &Baseline,
) -> (Vec<FuzzBatch>, Vec<Failure>) {
    fuzz_batches_shard(
        stores,
        strategy,
        seed_start,
        seeds,
        jobs,
        known,
        (Shard::WHOLE, &Worlds::default()),
    )
}

/// [`fuzz_batches`] over the batches of one shard ([`crate::campaign::shard`]: batch `b`
/// of every store belongs to shard `b mod N + 1`), in the worlds `worlds` draws.
pub fn fuzz_batches_shard(
    stores: &[&dyn StoreFactory],
    strategy: StrategySpec,
    seed_start: u64,
    seeds: u64,
    jobs: usize,
    known: &Baseline,
    (shard, worlds): (Shard, &Worlds),
) -> (Vec<FuzzBatch>, Vec<Failure>) {
    let mut batches = Vec::new();
    let mut first: Vec<Failure> = Vec::new();
    for store in stores {
        let mut start = seed_start;
        while start < seed_start + seeds && !crate::run::interrupt::requested() {
            let n = BATCH_SEEDS.min(seed_start + seeds - start);
            if !shard.owns((start - seed_start) / BATCH_SEEDS) {
                start += n;
                continue;
            }
            let outcome = run_batch(*store, strategy, start, n, jobs, worlds);
            let s = &outcome.report.stores[0];
            if outcome.report.seeds == 0 {
                // Interrupted before its first seed.
                break;
            }
            batches.push(batch_of(
                s,
                &outcome.first_failures,
                start,
                outcome.report.seeds,
                known,
            ));
            add_new_first_failures(&mut first, outcome.first_failures, known);
            start += n;
        }
    }
    (batches, first)
}

/// Fuzzes `store` on the `n` seeds from `start`, keeping the first run of each class.
pub(super) fn run_batch(
    store: &dyn StoreFactory,
    strategy: StrategySpec,
    start: u64,
    n: u64,
    jobs: usize,
    worlds: &Worlds,
) -> CampaignOutcome {
    run_campaign(
        &Campaign {
            stores: vec![store],
            strategy,
            seed_start: start,
            budget: Budget::Seeds(n),
            jobs,
            coverage: false,
            classes: true,
            worlds: worlds.clone(),
        },
        &|_| {},
        crate::run::interrupt::flag(),
    )
}

/// The testcase of a batch of `seeds` seeds from `start` (all it was given, unless Ctrl-C
/// cut it short) on the store `s` summarises: its classes, each marked known or not, a
/// crash class with its first seed's cause (from `first_failures`).
pub(super) fn batch_of(
    s: &StoreSummary,
    first_failures: &[Failure],
    start: u64,
    seeds: u64,
    known: &Baseline,
) -> FuzzBatch {
    FuzzBatch {
        store: s.store.clone(),
        seed_start: start,
        seeds,
        failing: s.failing.clone(),
        first_failing_seed: s.first_failing_seed.clone(),
        classes: s
            .classes
            .iter()
            .map(|c| BatchClass {
                class: c.class.clone(),
                name: c.name.clone(),
                seeds: c.seeds,
                first_seed: c.first_seed,
                known: known.holds(&s.store, &c.class),
                cause: first_failures
                    .iter()
                    .find(|f| f.class.as_ref() == Some(&c.class))
                    .and_then(|f| f.cause.clone()),
            })
            .collect(),
    }
}

/// Adds to `first` each of a batch's first `failures` whose class is neither known nor
/// already in `first` for its store: one failure to shrink and save per new class.
pub(super) fn add_new_first_failures(
    first: &mut Vec<Failure>,
    failures: Vec<Failure>,
    known: &Baseline,
) {
    for f in failures {
        let class = f.class.as_ref().expect("class-aware");
        let seen = first
            .iter()
            .find(|g| g.store == f.store && g.class.as_ref() == Some(class));
        // A later batch's runs are not taken as witnesses without a feature: a shard
        // holds whole batches, and a finding must not depend on the sharding.
        if seen.is_none() && !known.holds(&f.store, class) {
            first.push(f);
        }
    }
}
