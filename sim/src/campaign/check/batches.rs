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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::by_name;

    /// Each shard fuzzes the batches it owns, counted from the first seed (batch `b` of
    /// every store is shard `b mod N + 1`'s), and no other: together the shards run every
    /// batch of the budget once, with the results the batch has whoever runs it.
    #[test]
    fn a_shard_fuzzes_the_batches_it_owns_and_the_shards_together_every_batch_once() {
        let current = by_name("current").unwrap();
        let none = Baseline::default();
        let worlds = Worlds::default();
        let shard = |index, count| {
            let (batches, _) = fuzz_batches_shard(
                &[&current],
                StrategySpec::Random,
                600,
                2500,
                1,
                &none,
                (Shard::new(index, count).unwrap(), &worlds),
            );
            batches
        };
        let bounds = |batches: &[FuzzBatch]| -> Vec<(u64, u64)> {
            batches.iter().map(|b| (b.seed_start, b.seeds)).collect()
        };
        let first = shard(1, 2);
        let second = shard(2, 2);
        assert_eq!(bounds(&first), vec![(600, 1000), (2600, 500)]);
        assert_eq!(bounds(&second), vec![(1600, 1000)]);
        for b in first.iter().chain(&second) {
            assert_eq!(b.store, "current");
            assert!(
                b.first_failing_seed
                    .values()
                    .all(|s| (b.seed_start..b.seed_start + b.seeds).contains(s)),
                "{b:?}"
            );
        }
        // A batch is the same whichever shard runs it.
        let third = shard(2, 3);
        assert_eq!(bounds(&third), vec![(1600, 1000)]);
        assert_eq!(third, second);
        assert_eq!(bounds(&shard(3, 3)), vec![(2600, 500)]);
        assert_eq!(shard(3, 3)[..], first[1..]);
    }

    /// A batch's testcase is its store's summary over the seeds it ran: each class marked
    /// known when the store's baseline holds it, a class with its own first failure's crash
    /// cause (no other class's).
    #[test]
    fn a_batch_marks_its_known_classes_and_gives_each_class_its_own_cause() {
        let naive = by_name("naive").unwrap();
        let mut outcome = run_batch(&naive, StrategySpec::Random, 0, 300, 1, &Worlds::default());
        let classes: Vec<Class> = outcome
            .first_failures
            .iter()
            .map(|f| f.class.clone().expect("class-aware"))
            .collect();
        assert!(classes.len() >= 2, "{classes:?}");
        for (i, f) in outcome.first_failures.iter_mut().enumerate() {
            f.cause = Some(CrashCause::StoreThrew {
                message: format!("cause {i}"),
                stderr_tail: String::new(),
            });
        }
        let known = Baseline {
            classes: vec![(
                "naive".into(),
                classes[1].clone(),
                std::path::PathBuf::from("k.json"),
            )],
        };
        let s = &outcome.report.stores[0];
        let b = batch_of(s, &outcome.first_failures, 7, 300, &known);
        assert_eq!((b.store.as_str(), b.seed_start, b.seeds), ("naive", 7, 300));
        assert_eq!(b.failing, s.failing);
        assert_eq!(b.first_failing_seed, s.first_failing_seed);
        assert_eq!(b.classes.len(), s.classes.len());
        for (c, summary) in b.classes.iter().zip(&s.classes) {
            assert_eq!(c.class, summary.class);
            assert_eq!(
                (c.name.as_str(), c.seeds, c.first_seed),
                (summary.name.as_str(), summary.seeds, summary.first_seed)
            );
            assert_eq!(c.known, c.class == classes[1], "{}", c.name);
            let i = classes.iter().position(|k| *k == c.class);
            let want = i.map(|i| format!("cause {i}"));
            let got = match &c.cause {
                Some(CrashCause::StoreThrew { message, .. }) => Some(message.clone()),
                Some(other) => panic!("{other:?}"),
                None => None,
            };
            assert_eq!(got, want, "{}", c.name);
        }
        assert!(b.classes.iter().any(|c| c.cause.is_some()));
        // On another store the baseline holds nothing.
        let mut other = s.clone();
        other.store = "current".into();
        let b = batch_of(&other, &outcome.first_failures, 0, 300, &known);
        assert!(b.classes.iter().all(|c| !c.known));
    }

    /// Of each batch's first failures, one per class is kept to shrink and save: not a
    /// class the store's baseline holds, not one already kept for that store (a later
    /// batch's), still one kept for another store.
    #[test]
    fn one_failure_is_kept_per_new_class_of_each_store() {
        let naive = by_name("naive").unwrap();
        let outcome = run_batch(&naive, StrategySpec::Random, 0, 300, 1, &Worlds::default());
        let failures = outcome.first_failures;
        let key = |f: &Failure| (f.store.clone(), f.class.clone().unwrap(), f.seed);
        let keys = |fs: &[Failure]| fs.iter().map(key).collect::<Vec<_>>();
        assert!(failures.len() >= 2, "{:?}", keys(&failures));
        let none = Baseline::default();
        let mut first = Vec::new();
        add_new_first_failures(&mut first, failures.clone(), &none);
        assert_eq!(keys(&first), keys(&failures), "every class is new");
        // The same classes again (a later batch): nothing added.
        let mut later = failures.clone();
        for f in &mut later {
            f.seed = f.seed.map(|s| s + 1000);
        }
        add_new_first_failures(&mut first, later.clone(), &none);
        assert_eq!(keys(&first), keys(&failures));
        // On another store: each is new there.
        let mut elsewhere = later.clone();
        for f in &mut elsewhere {
            f.store = "fix-a".into();
        }
        add_new_first_failures(&mut first, elsewhere.clone(), &none);
        let mut want = keys(&failures);
        want.extend(keys(&elsewhere));
        assert_eq!(keys(&first), want);
        // A class the baseline holds for the store is not kept.
        let known = Baseline {
            classes: vec![(
                "naive".into(),
                failures[0].class.clone().unwrap(),
                std::path::PathBuf::from("k.json"),
            )],
        };
        let mut first = Vec::new();
        add_new_first_failures(&mut first, failures.clone(), &known);
        assert_eq!(keys(&first), keys(&failures[1..]));
        add_new_first_failures(&mut first, elsewhere.clone(), &known);
        let mut want = keys(&failures[1..]);
        want.extend(keys(&elsewhere));
        assert_eq!(keys(&first), want, "known for naive only");
    }
}
