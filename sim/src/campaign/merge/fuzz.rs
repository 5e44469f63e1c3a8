//! The result of `reconcile-sim fuzz` (one shard or the whole campaign), and how shards
//! add up.
//!
//! Per store: seeds run and failing seeds per invariant are added; the first failing seed
//! of an invariant, and of a root-cause class, is the lowest over the shards; a class's
//! seed count is added, and how many classes its first seed masked comes from that seed's
//! shard. One shrunk scenario is kept per signature, (store, class) or, with
//! `--no-classes`, (store, invariant): the one of its lowest seed. Every list is put in
//! the order the unsharded campaign makes it, so the merged result of all shards equals
//! the unsharded run's, field for field.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::campaign::error::CampaignError;
use crate::campaign::findings::Finding;
use crate::campaign::fuzz::{
    Budget, Campaign, CampaignOutcome, CampaignReport, ClassSummary, StoreSummary, CHUNK_SEEDS,
};
use crate::campaign::merge::file::{SavedScenario, ShardResult, ShardSet};
use crate::campaign::recheck::Suspect;
use crate::campaign::shard::{covered_ranges, Shard};
use crate::model::store::CrashCause;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::trace::class::Class;
use crate::trace::coverage::Coverage;
use crate::trace::shrink::Limits;

/// The `kind` of a fuzz result.
pub const KIND: &str = "fuzz";

/// A campaign's seed budget, as written in a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetConfig {
    /// `--seeds N`.
    Seeds(u64),
    /// `--time T`, as humantime writes it (`30s`, `5m`).
    Time(String),
}

impl BudgetConfig {
    /// The budget `budget` as written.
    pub fn of(budget: Budget) -> BudgetConfig {
        match budget {
            Budget::Seeds(n) => BudgetConfig::Seeds(n),
            // The reserve for shrinking follows from the total and --max-shrink-time,
            // which the config holds too.
            Budget::Time(t) | Budget::TimeWithShrinking { total: t, .. } => {
                BudgetConfig::Time(humantime::format_duration(t).to_string())
            }
        }
    }

    /// The seed budget, if it is one.
    pub fn seeds(&self) -> Option<u64> {
        match self {
            BudgetConfig::Seeds(n) => Some(*n),
            BudgetConfig::Time(_) => None,
        }
    }
}

/// What decides a fuzz campaign's results: shards merge only when these are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzConfig {
    /// The stores, by name, in the campaign's order.
    pub stores: Vec<String>,
    /// How steps are chosen.
    pub strategy: StrategySpec,
    /// The first seed.
    pub seed_start: u64,
    /// The budget.
    pub budget: BudgetConfig,
    /// Root-cause classes told apart (not `--no-classes`).
    pub classes: bool,
    /// Orderings counted (`--coverage`).
    pub coverage: bool,
    /// `--max-shrink-iters`.
    pub max_shrink_iters: u64,
    /// `--max-shrink-time`, as humantime writes it.
    pub max_shrink_time: String,
    /// `--world` pins and `--invariants` / `--skip` (absent: the default). ShardSet with
    /// different ones ran different campaigns and do not merge.
    #[serde(
        default,
        skip_serializing_if = "crate::run::worlds::Worlds::is_default"
    )]
    pub worlds: crate::run::worlds::Worlds,
}

impl FuzzConfig {
    /// The config of `campaign`, shrunk within `limits`.
    pub fn of(campaign: &Campaign<'_>, limits: Limits) -> FuzzConfig {
        FuzzConfig {
            stores: campaign.stores.iter().map(|s| s.name()).collect(),
            strategy: campaign.strategy,
            seed_start: campaign.seed_start,
            budget: BudgetConfig::of(campaign.budget),
            classes: campaign.classes,
            coverage: campaign.coverage,
            max_shrink_iters: limits.replays_max,
            max_shrink_time: humantime::format_duration(limits.time_max).to_string(),
            worlds: campaign.worlds.clone(),
        }
    }
}

/// How many of its own seeds a shard ran (a prefix of its blocks, in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSeeds {
    /// The shard, from 1.
    pub shard: u64,
    /// Seeds it ran on every store.
    pub seeds: u64,
}

/// A shrunk scenario of a fuzz campaign: its signature, first seed and file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzScenario {
    /// The store.
    pub store: String,
    /// The invariant the saved file breaks.
    pub invariant: Invariant,
    /// Its root-cause class (none with `--no-classes`: the signature is then the
    /// invariant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// The world features its saved witness needs ([`crate::trace::assume`]); absent in
    /// results written before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Vec<crate::trace::assume::Assumption>>,
    /// Its needs were not searched to the end (the settle budget ran out, or Ctrl-C):
    /// `needs` is an upper bound.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_unsearched: bool,
    /// The first seed of its signature.
    pub seed: u64,
    /// For a crash: its cause, with the adapter's stderr tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
    /// The file.
    pub saved: SavedScenario,
    /// Where in the store (`--localize`): its best lines, or why there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localized: Option<crate::trace::localize::Localization>,
}

/// A fuzz campaign's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzResult {
    /// What was run.
    pub config: FuzzConfig,
    /// Per shard present, the seeds it ran ([`crate::campaign::shard`]).
    pub covered: Vec<ShardSeeds>,
    /// The table: per store, seeds run, failing seeds per invariant, classes.
    pub report: CampaignReport,
    /// One shrunk scenario per signature, in the campaign's order.
    pub scenarios: Vec<FuzzScenario>,
    /// Per store (config order), the orderings reached; empty without `--coverage`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coverage: Vec<Coverage>,
    /// Failures that did not happen again when rechecked, and seeds whose runs differed
    /// (`--check-determinism`): findings about the store ([`crate::campaign::recheck`]),
    /// by store (config order), then seed. Their files stay where the shard that found
    /// them wrote them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspects: Vec<Suspect>,
}

impl FuzzResult {
    /// The verdict: some store failed some seed, or a second look found one unstable
    /// (exit 1).
    pub fn failed(&self) -> bool {
        self.report.any_failure() || !self.suspects.is_empty()
    }

    /// Write every shrunk scenario again under `out`, as the unsharded run writes them
    /// (see [`SavedScenario::write_again`]; `result` names the result in errors).
    pub fn write_saved(&mut self, out: &Path, result: &Path) -> Result<(), CampaignError> {
        for s in &mut self.scenarios {
            s.saved.write_again(out, result)?;
        }
        Ok(())
    }

    /// The result of shard `shard` of `campaign`, from its outcome, the findings it
    /// saved (shrunk within `limits`), each scenario as it was written (or, when it could
    /// not be, as it would have been, with its write error), and its suspects.
    pub fn of_run(
        campaign: &Campaign<'_>,
        shard: Shard,
        limits: Limits,
        outcome: &CampaignOutcome,
        saved: &[Finding],
        suspects: Vec<Suspect>,
    ) -> Result<FuzzResult, CampaignError> {
        let mut scenarios = Vec::new();
        for f in saved {
            scenarios.push(FuzzScenario {
                store: f.store.clone(),
                invariant: f.invariant,
                class: f.class.clone(),
                needs: Some(f.needs.clone()),
                needs_unsearched: f.needs_unsearched,
                seed: f.seed.unwrap_or_default(),
                cause: f.cause.clone(),
                localized: f.localized.clone(),
                saved: SavedScenario::of_text(
                    &f.path,
                    &f.text,
                    f.shrunk.steps.len(),
                    f.shrunk.original_steps,
                    f.shrunk.gave_up.map(|g| g.to_string()),
                    f.write_error.clone(),
                )?,
            });
        }
        Ok(FuzzResult {
            config: FuzzConfig::of(campaign, limits),
            covered: vec![ShardSeeds {
                shard: shard.index,
                seeds: outcome.report.seeds,
            }],
            report: outcome.report.clone(),
            scenarios,
            coverage: outcome.coverage.clone(),
            suspects,
        })
    }

    /// The seed ranges the result covers: one range `start .. start + seeds` for a whole
    /// campaign (or any union of shards without a gap).
    pub fn seed_ranges(&self, shards: &ShardSet) -> Vec<Range<u64>> {
        let covered: Vec<(u64, u64)> = self.covered.iter().map(|c| (c.shard, c.seeds)).collect();
        covered_ranges(
            self.config.seed_start,
            CHUNK_SEEDS,
            self.config.budget.seeds(),
            shards.count,
            &covered,
        )
    }

    /// Whether the seeds covered are `seed_start .. seed_start + seeds`, as for an
    /// unsharded campaign.
    pub fn contiguous(&self, shards: &ShardSet) -> bool {
        let start = self.report.seed_start;
        let ranges = self.seed_ranges(shards);
        match ranges.as_slice() {
            [] => self.report.seeds == 0,
            [r] => r.start == start && r.end == start + self.report.seeds,
            _ => false,
        }
    }
}

impl ShardResult for FuzzResult {
    const KIND: &'static str = KIND;
    type Config = FuzzConfig;

    fn config(&self) -> &FuzzConfig {
        &self.config
    }

    fn validate(&self, path: &Path) -> Result<(), CampaignError> {
        let bad = |why: String| CampaignError::BadInput(format!("{}: {why}", path.display()));
        if self.report.stores.len() != self.config.stores.len()
            || self
                .report
                .stores
                .iter()
                .zip(&self.config.stores)
                .any(|(s, n)| s.store != *n)
        {
            return Err(bad("the report's stores are not the config's".to_string()));
        }
        if self.config.coverage && self.coverage.len() != self.config.stores.len() {
            return Err(bad("coverage is not given for every store".to_string()));
        }
        for s in &self.scenarios {
            s.saved.file_text(path)?;
        }
        Ok(())
    }

    fn merge(parts: Vec<(ShardSet, FuzzResult)>, _count: u64) -> Result<FuzzResult, CampaignError> {
        let mut parts = parts.into_iter().map(|(_, r)| r);
        let mut total = parts.next().expect("at least one part");
        for part in parts {
            total.covered.extend(part.covered);
            for (mine, theirs) in total.report.stores.iter_mut().zip(part.report.stores) {
                add_store(mine, theirs);
            }
            total.report.seeds += part.report.seeds;
            total.scenarios.extend(part.scenarios);
            total.suspects.extend(part.suspects);
            for (mine, theirs) in total.coverage.iter_mut().zip(&part.coverage) {
                mine.merge(theirs);
            }
        }
        total.covered.sort_by_key(|c| c.shard);
        for s in &mut total.report.stores {
            s.classes
                .sort_by(|a, b| (a.first_seed, &a.class).cmp(&(b.first_seed, &b.class)));
        }
        let position = |store: &str| {
            total
                .config
                .stores
                .iter()
                .position(|n| n == store)
                .unwrap_or(usize::MAX)
        };
        let mut suspects = std::mem::take(&mut total.suspects);
        suspects.sort_by_key(|s| (position(&s.store), s.seed, s.kind));
        total.suspects = suspects;
        total.scenarios = first_per_signature(
            std::mem::take(&mut total.scenarios),
            &total.config.stores,
            total.config.classes,
        );
        Ok(total)
    }
}

/// Add `theirs` (other seeds of the same store) to `mine`.
pub fn add_store(mine: &mut StoreSummary, theirs: StoreSummary) {
    mine.runs += theirs.runs;
    for (inv, n) in theirs.failing {
        *mine.failing.entry(inv).or_default() += n;
    }
    for (inv, seed) in theirs.first_failing_seed {
        let e = mine.first_failing_seed.entry(inv).or_insert(seed);
        *e = (*e).min(seed);
    }
    for c in theirs.classes {
        match mine.classes.iter_mut().find(|m| m.class == c.class) {
            Some(m) => add_class(m, c),
            None => mine.classes.push(c),
        }
    }
}

fn add_class(mine: &mut ClassSummary, theirs: ClassSummary) {
    mine.seeds += theirs.seeds;
    if theirs.first_seed < mine.first_seed {
        mine.first_seed = theirs.first_seed;
        mine.masked_before = theirs.masked_before;
    }
}

/// Of each signature's scenarios, the one of the lowest seed; in the campaign's order:
/// store by store, then by (first seed, class) with classes, by invariant without.
fn first_per_signature(
    all: Vec<FuzzScenario>,
    stores: &[String],
    classes: bool,
) -> Vec<FuzzScenario> {
    type Key = (usize, Option<Class>, Option<Invariant>);
    let mut best: BTreeMap<Key, FuzzScenario> = BTreeMap::new();
    for s in all {
        let store = stores
            .iter()
            .position(|n| *n == s.store)
            .unwrap_or(usize::MAX);
        let key = if classes {
            (store, s.class.clone(), None)
        } else {
            (store, None, Some(s.invariant))
        };
        match best.get(&key) {
            Some(b) if b.seed <= s.seed => {}
            _ => {
                best.insert(key, s);
            }
        }
    }
    let mut out: Vec<(Key, FuzzScenario)> = best.into_iter().collect();
    out.sort_by(|(a, x), (b, y)| {
        let ka = (a.0, if classes { x.seed } else { 0 }, &a.1, a.2);
        let kb = (b.0, if classes { y.seed } else { 0 }, &b.1, b.2);
        ka.cmp(&kb)
    });
    out.into_iter().map(|(_, s)| s).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::campaign::findings::file_for;
    use crate::campaign::fuzz::run_campaign_shard;
    use crate::campaign::merge::{merge_texts, Merged, ResultFile};
    use crate::model::store::StoreFactory;
    use crate::store::by_name;
    use crate::trace::scenario::Scenario;

    /// Shard `shard` of a campaign over `stores`, as a result file whose scenarios are the
    /// first failing runs unshrunk (shrinking is the same function of the same run in
    /// every shard; what is tested here is which run each signature keeps).
    fn result_of(
        stores: &[&dyn StoreFactory],
        seeds: u64,
        classes: bool,
        shard: Shard,
    ) -> ResultFile<FuzzResult> {
        result_from(stores, 11, seeds, classes, shard)
    }

    /// [`result_of`] from seed `seed_start`.
    pub(crate) fn result_from(
        stores: &[&dyn StoreFactory],
        seed_start: u64,
        seeds: u64,
        classes: bool,
        shard: Shard,
    ) -> ResultFile<FuzzResult> {
        let campaign = Campaign {
            stores: stores.to_vec(),
            strategy: StrategySpec::Random,
            seed_start,
            budget: Budget::Seeds(seeds),
            jobs: 2,
            coverage: true,
            classes,
            worlds: Default::default(),
        };
        let outcome = run_campaign_shard(&campaign, shard, &|_| {}, &AtomicBool::new(false));
        let scenarios = outcome
            .first_failures
            .iter()
            .map(|f| {
                let store = stores.iter().find(|s| s.name() == f.store).unwrap();
                let mut sc =
                    Scenario::record(*store, f.config.clone(), &f.steps, Some(f.invariant));
                sc.seed = f.seed;
                sc.class = f.class.clone();
                FuzzScenario {
                    store: f.store.clone(),
                    invariant: f.invariant,
                    class: f.class.clone(),
                    seed: f.seed.unwrap(),
                    cause: f.cause.clone(),
                    needs: None,
                    needs_unsearched: false,
                    localized: None,
                    saved: SavedScenario {
                        file: file_for(&PathBuf::new(), *store, f).display().to_string(),
                        steps: f.steps.len(),
                        original_steps: f.steps.len(),
                        gave_up: None,
                        write_error: None,
                        scenario: serde_json::from_str(&sc.to_json()).unwrap(),
                    },
                }
            })
            .collect();
        ResultFile::new(
            ShardSet::one(shard),
            FuzzResult {
                config: FuzzConfig::of(&campaign, Limits::default()),
                covered: vec![ShardSeeds {
                    shard: shard.index,
                    seeds: outcome.report.seeds,
                }],
                report: outcome.report,
                scenarios,
                coverage: outcome.coverage,
                suspects: Vec::new(),
            },
        )
    }

    fn merge_all(parts: &[ResultFile<FuzzResult>]) -> ResultFile<FuzzResult> {
        let texts: Vec<(PathBuf, String)> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| (PathBuf::from(format!("part-{i}.result.json")), p.to_json()))
            .collect();
        match merge_texts(&texts, false).unwrap() {
            Merged::Fuzz(r) => r,
            _ => panic!("a fuzz result"),
        }
    }

    /// The merged shards equal the whole campaign field for field, counts, classes, first
    /// seeds, kept runs and coverage, in any order of the parts, with and without classes.
    #[test]
    fn shards_merge_to_the_whole_campaign() {
        let current = by_name("current").unwrap();
        let canary = by_name("canary").unwrap();
        let naive = by_name("naive").unwrap();
        let stores: Vec<&dyn StoreFactory> = vec![&current, &canary, &naive];
        let seeds = 5 * CHUNK_SEEDS + 10;
        for classes in [true, false] {
            let whole = result_of(&stores, seeds, classes, Shard::WHOLE);
            assert!(whole.result.report.any_failure());
            assert!(whole.result.scenarios.len() >= 3);
            for count in [1, 2, 3, 7] {
                let mut parts: Vec<ResultFile<FuzzResult>> = (1..=count)
                    .map(|i| result_of(&stores, seeds, classes, Shard::new(i, count).unwrap()))
                    .collect();
                let sum: u64 = parts.iter().map(|p| p.result.report.seeds).sum();
                assert_eq!(sum, seeds, "the shards run every seed once");
                let mut merged = merge_all(&parts);
                // The merged result holds every shard; only `covered` tells them apart.
                assert_eq!(merged.shards.done, (1..=count).collect::<Vec<_>>());
                assert!(merged.result.contiguous(&merged.shards));
                merged.result.covered = whole.result.covered.clone();
                merged.shards = whole.shards.clone();
                assert_eq!(merged, whole, "{count} shards, classes {classes}");
                parts.reverse();
                let mut again = merge_all(&parts);
                again.result.covered = whole.result.covered.clone();
                again.shards = whole.shards.clone();
                assert_eq!(again, whole, "{count} shards reversed");
            }
        }
    }

    /// Merging merges: (1+2)+3 equals 1+2+3.
    #[test]
    fn merged_parts_merge_again() {
        let canary = by_name("canary").unwrap();
        let current = by_name("current").unwrap();
        let stores: Vec<&dyn StoreFactory> = vec![&canary, &current];
        let parts: Vec<_> = (1..=3)
            .map(|i| result_of(&stores, 400, true, Shard::new(i, 3).unwrap()))
            .collect();
        let texts: Vec<(PathBuf, String)> = parts[..2]
            .iter()
            .enumerate()
            .map(|(i, p)| (PathBuf::from(format!("p{i}")), p.to_json()))
            .collect();
        let Merged::Fuzz(first_two) = merge_texts(&texts, true).unwrap() else {
            panic!()
        };
        assert_eq!(first_two.shards.missing(), vec![3]);
        assert!(!first_two.result.contiguous(&first_two.shards));
        let two_step = merge_all(&[first_two, parts[2].clone()]);
        assert_eq!(two_step, merge_all(&parts));
    }

    /// Issue 36, behaviour 5: the merge keeps, for each store and invariant (and each
    /// class), the smallest first failing seed of any shard, and the scenario of that
    /// seed, also when it is not shard 1's (two shards of four chunks: shard 1 runs
    /// chunks 0 and 2, shard 2 chunks 1 and 3, so a failure first seen in chunk 1 and
    /// again in chunk 2 has its smallest seed in shard 2 and a larger one in shard 1).
    #[test]
    fn merge_keeps_the_smallest_first_failing_seed_when_shard_one_has_a_larger_one() {
        // From seed 23000, fix-ab and current first break inv3 and inv4 in chunk 1 (shard
        // 2) and again in chunk 2 (shard 1).
        const SEED_START: u64 = 23_000;
        let names = ["naive", "fix-ab", "current", "canary"];
        let kinds: Vec<_> = names.iter().map(|n| by_name(n).unwrap()).collect();
        let stores: Vec<&dyn StoreFactory> = kinds.iter().map(|k| k as _).collect();
        let seeds = 4 * CHUNK_SEEDS;
        for classes in [false, true] {
            let parts: Vec<_> = (1..=2)
                .map(|i| {
                    result_from(
                        &stores,
                        SEED_START,
                        seeds,
                        classes,
                        Shard::new(i, 2).unwrap(),
                    )
                })
                .collect();
            let merged = merge_all(&parts).result;
            let (one, two) = (&parts[0].result, &parts[1].result);
            let mut in_shard_two = 0;
            for (k, s) in merged.report.stores.iter().enumerate() {
                let (a, b) = (&one.report.stores[k], &two.report.stores[k]);
                let invariants = a
                    .first_failing_seed
                    .keys()
                    .chain(b.first_failing_seed.keys());
                for inv in invariants {
                    let smallest = [a, b]
                        .iter()
                        .filter_map(|p| p.first_failing_seed.get(inv).copied())
                        .min();
                    assert_eq!(
                        s.first_failing_seed.get(inv).copied(),
                        smallest,
                        "{} {inv}",
                        s.store
                    );
                    if let (Some(x), Some(y)) =
                        (a.first_failing_seed.get(inv), b.first_failing_seed.get(inv))
                    {
                        in_shard_two += usize::from(y < x);
                    }
                }
                for c in &s.classes {
                    let first = |p: &StoreSummary| {
                        p.classes
                            .iter()
                            .find(|d| d.class == c.class)
                            .map(|d| d.first_seed)
                    };
                    let smallest = [first(a), first(b)].into_iter().flatten().min();
                    assert_eq!(Some(c.first_seed), smallest, "{} {}", s.store, c.key);
                }
            }
            for sc in &merged.scenarios {
                let smallest = one
                    .scenarios
                    .iter()
                    .chain(&two.scenarios)
                    .filter(|o| {
                        o.store == sc.store
                            && if classes {
                                o.class == sc.class
                            } else {
                                o.invariant == sc.invariant
                            }
                    })
                    .map(|o| o.seed)
                    .min();
                assert_eq!(
                    Some(sc.seed),
                    smallest,
                    "{} {}: the scenario kept",
                    sc.store,
                    sc.invariant
                );
            }
            assert!(
                in_shard_two > 0,
                "classes {classes}: no invariant's first failure is smaller in shard 2 than in shard 1; the test needs other seeds"
            );
        }
    }

    /// A campaign failed when a store failed a seed or a second look found a suspect.
    #[test]
    fn a_campaign_failed_when_a_seed_failed_or_a_suspect_was_found() {
        let naive = by_name("naive").unwrap();
        let mut r = result_of(&[&naive], CHUNK_SEEDS, true, Shard::WHOLE).result;
        assert!(r.report.any_failure() && r.failed());
        for s in &mut r.report.stores {
            s.failing.clear();
        }
        assert!(!r.failed());
        r.suspects.push(Suspect {
            kind: crate::campaign::recheck::SuspectKind::Flaky,
            store: "naive".to_string(),
            seed: Some(3),
            invariant: None,
            class: None,
            cause: None,
            why: "did not fail again".to_string(),
            scenario: None,
            write_error: None,
        });
        assert!(r.failed());
    }

    /// The budget as a result writes it, and the seeds it gives.
    #[test]
    fn a_budget_is_written_as_seeds_or_time() {
        use std::time::Duration;
        assert_eq!(BudgetConfig::of(Budget::Seeds(7)), BudgetConfig::Seeds(7));
        assert_eq!(BudgetConfig::Seeds(7).seeds(), Some(7));
        let t = BudgetConfig::of(Budget::Time(Duration::from_secs(90)));
        assert_eq!(t, BudgetConfig::Time("1m 30s".to_string()));
        assert_eq!(t.seeds(), None);
    }

    /// Every kept scenario is written again under the merge's `out`; a write that fails is
    /// recorded on its scenario.
    #[test]
    fn the_kept_scenarios_are_written_again_under_out() {
        let naive = by_name("naive").unwrap();
        let mut r = result_of(&[&naive], CHUNK_SEEDS, true, Shard::WHOLE).result;
        assert!(r.scenarios.len() >= 2);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        r.write_saved(&out, Path::new("r")).unwrap();
        for s in &r.scenarios {
            assert_eq!(s.saved.write_error, None);
            let text = std::fs::read_to_string(out.join(&s.saved.file)).unwrap();
            assert_eq!(text, s.saved.file_text(Path::new("r")).unwrap());
        }
        let blocked = out.join(&r.scenarios[0].saved.file);
        r.write_saved(&blocked, Path::new("r")).unwrap();
        assert!(r.scenarios.iter().all(|s| s.saved.write_error.is_some()));
    }

    /// A campaign of no seeds covers no range, and is contiguous all the same (as the
    /// unsharded run of no seeds is); one of some seeds that covers none is not.
    #[test]
    fn a_campaign_of_no_seeds_is_contiguous() {
        let naive = by_name("naive").unwrap();
        let mut r = result_of(&[&naive], 0, true, Shard::WHOLE);
        assert_eq!(r.result.seed_ranges(&r.shards), Vec::<Range<u64>>::new());
        assert!(r.result.contiguous(&r.shards));
        r.result.report.seeds = 1;
        assert!(!r.result.contiguous(&r.shards));
    }

    /// The merged suspects are every shard's, by store in the campaign's order (not by
    /// name), then seed, then kind.
    #[test]
    fn the_suspects_of_every_shard_are_ordered_by_store_seed_and_kind() {
        use crate::campaign::recheck::SuspectKind;
        let naive = by_name("naive").unwrap();
        let current = by_name("current").unwrap();
        let stores: Vec<&dyn StoreFactory> = vec![&naive, &current];
        use crate::campaign::check::tests::a_suspect as suspect;
        let mut parts: Vec<_> = (1..=2)
            .map(|i| result_of(&stores, 2 * CHUNK_SEEDS, true, Shard::new(i, 2).unwrap()))
            .collect();
        parts[0].result.suspects = vec![
            suspect("naive", 70, SuspectKind::StateLeak),
            suspect("current", 3, SuspectKind::Flaky),
        ];
        parts[1].result.suspects = vec![
            suspect("current", 3, SuspectKind::Nondeterministic),
            suspect("naive", 70, SuspectKind::Flaky),
            suspect("naive", 64, SuspectKind::Flaky),
        ];
        let merged = merge_all(&parts).result;
        assert_eq!(
            crate::campaign::check::tests::suspect_order(&merged.suspects),
            [
                ("naive", Some(64), SuspectKind::Flaky),
                ("naive", Some(70), SuspectKind::Flaky),
                ("naive", Some(70), SuspectKind::StateLeak),
                ("current", Some(3), SuspectKind::Flaky),
                ("current", Some(3), SuspectKind::Nondeterministic),
            ]
        );
        assert!(merged.failed());
    }
}
