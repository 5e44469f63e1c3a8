//! The result of `reconcile-sim nightly` (one shard or the whole night), and how the
//! shards of a night add up into one night folder.
//!
//! A sharded night runs, per strategy, shard `I`'s blocks of in-process seeds for the
//! in-process share of the budget, then the cargo-fuzz phase (every shard: libFuzzer's
//! runs differ by their own randomness). Time budgets make a night unrepeatable, so the
//! merge is defined, not compared: per strategy, the shards' campaign tables add up (as
//! `fuzz` results do, [`super::fuzz`]) and the throughputs add up (the shards ran side by
//! side); the findings are, per strategy, one per signature (store, class) with its lowest
//! seed, in the campaign's order, then every shard's cargo-fuzz findings in shard order.
//! A finding is new when its signature is not in the known set the shards shared (part of
//! the config) nor earlier in that order, exactly as one night marks them; a new one gets
//! the scenario its shard shrank and saved. For a signature its shard saw as new but the
//! merged night has already seen (another shard found it under an earlier strategy), the
//! invariant given is that of the shard's saved file, which shows the same class.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::campaign::error::CampaignError;
use crate::campaign::fuzz::CHUNK_SEEDS;
use crate::campaign::merge::file::{ResultFile, SavedScenario, ShardResult, ShardSet};
use crate::campaign::merge::fuzz::{add_store, ShardSeeds};
use crate::campaign::nightly::{
    markdown, write_summary, CampaignSummary, NightFinding, NightlyConfig, NightlySummary,
    Signature,
};
use crate::campaign::shard::covered_ranges;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::trace::class::Class;

/// The `kind` of a nightly result.
pub const KIND: &str = "nightly";

/// What decides a night's results: shards merge only when these are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightConfig {
    /// `--time`, in seconds.
    pub budget_seconds: u64,
    /// The first seed of every in-process campaign.
    pub seed_start: u64,
    /// The stores fuzzed in-process, in order.
    pub stores: Vec<String>,
    /// The strategies, one in-process campaign each, in order.
    pub strategies: Vec<StrategySpec>,
    /// The in-process share of the budget, in thousandths (1000 without cargo-fuzz).
    pub in_process_permille: u64,
    /// The stores the `interleavings` target runs against (empty without cargo-fuzz).
    pub fuzz_stores: Vec<String>,
    /// Signatures known before the night: counted, not saved again.
    pub known: Vec<Signature>,
    /// `--world` pins and `--invariants` / `--skip` (absent: the default).
    #[serde(
        default,
        skip_serializing_if = "crate::run::worlds::Worlds::is_default"
    )]
    pub worlds: crate::run::worlds::Worlds,
}

/// The scenario a night saved for a new signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightScenario {
    /// The store.
    pub store: String,
    /// The class.
    pub class: Class,
    /// Where it was found (`in-process/<strategy>`, `cargo-fuzz/<target>`).
    pub source: String,
    /// Its first seed in that campaign (none for cargo-fuzz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The invariant the saved file breaks.
    pub invariant: Invariant,
    /// The file.
    pub saved: SavedScenario,
}

/// The seeds each shard ran in one strategy's campaign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignCover {
    /// The strategy.
    pub strategy: StrategySpec,
    /// Per shard present, the seeds of its own it ran.
    pub shards: Vec<ShardSeeds>,
}

/// A night's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NightlyResult {
    /// What was run.
    pub config: NightConfig,
    /// Per in-process campaign, the seeds each shard ran.
    pub covered: Vec<CampaignCover>,
    /// The night's summary (`summary.json`), paths as the night wrote them.
    pub summary: NightlySummary,
    /// The scenario of each new finding, in the order of the findings.
    pub saved: Vec<NightScenario>,
}

fn source_of(strategy: StrategySpec) -> String {
    format!("in-process/{strategy}")
}

impl NightlyResult {
    /// The result of the night `cfg` ran, which knew `known` before it started and wrote
    /// `summary`; reads back each scenario it saved.
    pub fn of_night(
        cfg: &NightlyConfig,
        known: &BTreeSet<Signature>,
        summary: &NightlySummary,
    ) -> Result<NightlyResult, CampaignError> {
        let mut saved = Vec::new();
        for f in summary.findings.iter().filter(|f| f.new) {
            let Some(path) = &f.scenario else { continue };
            saved.push(NightScenario {
                store: f.store.clone(),
                class: f.class.clone(),
                source: f.source.clone(),
                seed: f.seed,
                invariant: f.invariant,
                saved: SavedScenario::read(Path::new(path), f.steps.unwrap_or(0), 0, None)?,
            });
        }
        let cargo_fuzz = cfg.fuzz_dir.is_some();
        Ok(NightlyResult {
            config: NightConfig {
                budget_seconds: cfg.budget.as_secs(),
                seed_start: cfg.seed_start,
                stores: crate::campaign::nightly::stores_named(&cfg.stores)?
                    .iter()
                    .map(|k| k.name.to_string())
                    .collect(),
                strategies: StrategySpec::ALL.to_vec(),
                in_process_permille: if cargo_fuzz {
                    (cfg.in_process_share.clamp(0.0, 1.0) * 1000.0).round() as u64
                } else {
                    1000
                },
                fuzz_stores: if cargo_fuzz {
                    cfg.fuzz_stores.clone()
                } else {
                    Vec::new()
                },
                known: known.iter().cloned().collect(),
                worlds: cfg.worlds.clone(),
            },
            covered: summary
                .campaigns
                .iter()
                .map(|c| CampaignCover {
                    strategy: c.report.strategy,
                    shards: vec![ShardSeeds {
                        shard: cfg.shard.index,
                        seeds: c.report.seeds,
                    }],
                })
                .collect(),
            summary: summary.clone(),
            saved,
        })
    }

    /// The seed ranges strategy `strategy`'s campaign covered.
    pub fn seed_ranges(&self, strategy: StrategySpec, count: u64) -> Vec<std::ops::Range<u64>> {
        let covered: Vec<(u64, u64)> = self
            .covered
            .iter()
            .filter(|c| c.strategy == strategy)
            .flat_map(|c| c.shards.iter().map(|s| (s.shard, s.seeds)))
            .collect();
        covered_ranges(self.config.seed_start, CHUNK_SEEDS, None, count, &covered)
    }

    /// Write the night into a fresh folder `night_dir`: the new scenarios under
    /// `scenarios/`, `summary.json`, `summary.md` and `result.json` (this result, with the
    /// folder's paths, so that it merges again). `shards` is what the result holds;
    /// `source` names it in errors. Returns the summary as written.
    pub fn write_night(
        &self,
        night_dir: &Path,
        shards: &ShardSet,
        source: &Path,
    ) -> Result<NightlySummary, CampaignError> {
        let scenarios = night_dir.join("scenarios");
        std::fs::create_dir_all(&scenarios).map_err(CampaignError::io("create", &scenarios))?;
        let mut result = self.clone();
        result.summary.night_dir = night_dir.display().to_string();
        let mut saved = result.saved.iter();
        for f in result.summary.findings.iter_mut().filter(|f| f.new) {
            let s = saved.next().ok_or_else(|| {
                CampaignError::BadInput(format!(
                    "{}: a new finding without its scenario",
                    source.display()
                ))
            })?;
            f.scenario = Some(s.saved.write(&scenarios, source)?.display().to_string());
        }
        if !shards.complete() {
            let missing: Vec<String> = shards
                .missing()
                .iter()
                .map(|i| format!("{i}/{}", shards.count))
                .collect();
            let note = format!(
                "merged without shard{} {}: this night is incomplete",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            );
            if !result.summary.problems.contains(&note) {
                result.summary.problems.push(note);
            }
        }
        write_summary(night_dir, &result.summary)?;
        ResultFile::new(shards.clone(), result.clone()).save(&night_dir.join("result.json"))?;
        Ok(result.summary)
    }

    /// The Markdown summary.
    pub fn markdown(&self) -> String {
        markdown(&self.summary)
    }
}

impl ShardResult for NightlyResult {
    const KIND: &'static str = KIND;
    type Config = NightConfig;

    fn config(&self) -> &NightConfig {
        &self.config
    }

    fn validate(&self, path: &Path) -> Result<(), CampaignError> {
        let new = self.summary.findings.iter().filter(|f| f.new).count();
        if new != self.saved.len() {
            return Err(CampaignError::BadInput(format!(
                "{}: {new} new findings but {} scenarios saved",
                path.display(),
                self.saved.len()
            )));
        }
        for s in &self.saved {
            s.saved.file_text(path)?;
        }
        Ok(())
    }

    fn merge(
        parts: Vec<(ShardSet, NightlyResult)>,
        _count: u64,
    ) -> Result<NightlyResult, CampaignError> {
        let config = parts[0].1.config.clone();
        let labels = shard_labels(&parts);
        let parts: Vec<NightlyResult> = parts.into_iter().map(|(_, r)| r).collect();
        let mut summary = merged_summary_head(&parts, &config);
        let mut covered = Vec::new();
        let mut ordered: Vec<Candidate> = Vec::new();
        for &strategy in &config.strategies {
            if let Some((campaign, cover)) = merge_campaign(&parts, strategy) {
                summary.campaigns.push(campaign);
                covered.push(cover);
            }
            ordered.extend(first_per_signature(&parts, &source_of(strategy), &config));
        }
        add_shard_extras(&mut summary, &parts, &labels, &mut ordered);
        let saved = mark_new(&mut summary, ordered, &config.known)?;
        Ok(NightlyResult {
            config,
            covered,
            summary,
            saved,
        })
    }
}

/// A candidate for a merged finding: the finding, and its shard's scenario if it saved one.
type Candidate = (NightFinding, Option<NightScenario>);

/// Each part's shards as `I/N` (joined by `+` when a part holds several), to name the
/// shard a problem came from.
fn shard_labels(parts: &[(ShardSet, NightlyResult)]) -> Vec<String> {
    parts
        .iter()
        .map(|(s, _)| {
            s.done
                .iter()
                .map(|i| format!("{i}/{}", s.count))
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect()
}

/// The merged summary before its lists are filled: the first shard's night, budget and
/// seeds (the config made them equal), the longest shard's elapsed time (the shards ran
/// side by side), interrupted if any shard was.
fn merged_summary_head(parts: &[NightlyResult], config: &NightConfig) -> NightlySummary {
    let first = &parts[0].summary;
    NightlySummary {
        night_dir: first.night_dir.clone(),
        budget_seconds: first.budget_seconds,
        elapsed_seconds: parts
            .iter()
            .map(|p| p.summary.elapsed_seconds)
            .fold(0.0, f64::max),
        interrupted: parts.iter().any(|p| p.summary.interrupted),
        seed_start: first.seed_start,
        known_signatures: config.known.len(),
        campaigns: Vec::new(),
        cargo_fuzz_build_seconds: parts
            .iter()
            .filter_map(|p| p.summary.cargo_fuzz_build_seconds)
            .reduce(f64::max),
        cargo_fuzz: Vec::new(),
        findings: Vec::new(),
        problems: Vec::new(),
        // The merge writes every file afresh (write_night): a shard's write errors do
        // not carry over.
        write_errors: Vec::new(),
    }
}

/// One strategy's campaign over every shard that ran it: the tables and the throughputs
/// add up (the shards ran side by side), the classes in first-seed order, and the seeds
/// each shard covered in shard order. `None` when no shard ran it.
fn merge_campaign(
    parts: &[NightlyResult],
    strategy: StrategySpec,
) -> Option<(CampaignSummary, CampaignCover)> {
    let mut campaign: Option<CampaignSummary> = None;
    let mut cover = CampaignCover {
        strategy,
        shards: Vec::new(),
    };
    for p in parts {
        if let Some(c) = p
            .summary
            .campaigns
            .iter()
            .find(|c| c.report.strategy == strategy)
        {
            match &mut campaign {
                None => campaign = Some(c.clone()),
                Some(total) => {
                    for (mine, theirs) in
                        total.report.stores.iter_mut().zip(c.report.stores.clone())
                    {
                        add_store(mine, theirs);
                    }
                    total.report.seeds += c.report.seeds;
                    total.runs_per_second += c.runs_per_second;
                }
            }
        }
        for c in p.covered.iter().filter(|c| c.strategy == strategy) {
            cover.shards.extend(c.shards.iter().cloned());
        }
    }
    let mut c = campaign?;
    for s in &mut c.report.stores {
        s.classes
            .sort_by(|a, b| (a.first_seed, &a.class).cmp(&(b.first_seed, &b.class)));
    }
    cover.shards.sort_by_key(|s| s.shard);
    Some((c, cover))
}

/// One strategy's findings (from `source`), one per signature: the lowest seed's, in the
/// campaign's order (store as configured, then seed, then class), as one night orders
/// them.
fn first_per_signature(
    parts: &[NightlyResult],
    source: &str,
    config: &NightConfig,
) -> Vec<Candidate> {
    let mut best: Vec<Candidate> = Vec::new();
    for p in parts {
        for f in p.summary.findings.iter().filter(|f| f.source == source) {
            let candidate = (f.clone(), scenario_of(p, f));
            match best
                .iter_mut()
                .find(|(b, _)| b.store == f.store && b.class == f.class)
            {
                Some(b) if b.0.seed <= f.seed => {}
                Some(b) => *b = candidate,
                None => best.push(candidate),
            }
        }
    }
    let position = |store: &str| {
        config
            .stores
            .iter()
            .position(|s| s == store)
            .unwrap_or(usize::MAX)
    };
    best.sort_by(|(a, _), (b, _)| {
        (position(&a.store), a.seed, &a.class).cmp(&(position(&b.store), b.seed, &b.class))
    });
    best
}

/// What is not per strategy, in shard order: each shard's cargo-fuzz findings (after every
/// strategy's), its cargo-fuzz runs, and its problems, named by shard (`labels`).
fn add_shard_extras(
    summary: &mut NightlySummary,
    parts: &[NightlyResult],
    labels: &[String],
    ordered: &mut Vec<Candidate>,
) {
    for (p, label) in parts.iter().zip(labels) {
        for f in p
            .summary
            .findings
            .iter()
            .filter(|f| !f.source.starts_with("in-process/"))
        {
            ordered.push((f.clone(), scenario_of(p, f)));
        }
        summary
            .cargo_fuzz
            .extend(p.summary.cargo_fuzz.iter().cloned());
        summary.problems.extend(
            p.summary
                .problems
                .iter()
                .map(|problem| format!("shard {label}: {problem}")),
        );
    }
}

/// Adds the `ordered` findings to `summary`, marking each new whose signature is neither
/// `known` nor earlier in the order, exactly as one night marks them. A new one takes the
/// scenario its shard saved (an error if it has none); returns those scenarios, in order.
fn mark_new(
    summary: &mut NightlySummary,
    ordered: Vec<Candidate>,
    known: &[Signature],
) -> Result<Vec<NightScenario>, CampaignError> {
    let mut known: BTreeSet<Signature> = known.iter().cloned().collect();
    let mut saved = Vec::new();
    for (mut f, scenario) in ordered {
        let sig = (f.store.clone(), f.class.clone());
        f.new = !known.contains(&sig);
        if f.new {
            let s = scenario.ok_or_else(|| {
                CampaignError::BadInput(format!(
                    "the merged night's first finding of {} {} has no saved scenario in its shard's result",
                    f.store, f.class_name
                ))
            })?;
            f.invariant = s.invariant;
            f.steps = Some(s.saved.steps);
            f.scenario = Some(
                PathBuf::from(&summary.night_dir)
                    .join("scenarios")
                    .join(&s.saved.file)
                    .display()
                    .to_string(),
            );
            saved.push(s);
            known.insert(sig);
        } else {
            f.steps = None;
            f.scenario = None;
        }
        summary.findings.push(f);
    }
    Ok(saved)
}

/// The scenario `part` saved for finding `f`, if `f` was new in that part.
fn scenario_of(part: &NightlyResult, f: &NightFinding) -> Option<NightScenario> {
    if !f.new {
        return None;
    }
    part.saved
        .iter()
        .find(|s| s.store == f.store && s.class == f.class && s.source == f.source)
        .cloned()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::campaign::findings::file_for;
    use crate::campaign::fuzz::{run_campaign_shard, Budget, Campaign};
    use crate::campaign::libfuzzer::TargetSummary;
    use crate::campaign::merge::{merge_texts, Merged};
    use crate::campaign::shard::Shard;
    use crate::model::store::StoreFactory;
    use crate::store::by_name;
    use crate::testing::repo_file;
    use crate::trace::scenario::Scenario;

    const SEED_START: u64 = 23_000;
    const STORES: [&str; 2] = ["naive", "current"];
    const STRATEGIES: [StrategySpec; 2] = [StrategySpec::Random, StrategySpec::Swarm];

    /// Seeds per store of each strategy's campaign: not the same, so each strategy's
    /// table and seeds are told apart.
    fn seeds_of(strategy: StrategySpec) -> u64 {
        match strategy {
            StrategySpec::Random => 4 * CHUNK_SEEDS,
            _ => 3 * CHUNK_SEEDS,
        }
    }

    fn config(known: &[Signature]) -> NightConfig {
        NightConfig {
            budget_seconds: 60,
            seed_start: SEED_START,
            stores: STORES.iter().map(|s| s.to_string()).collect(),
            strategies: STRATEGIES.to_vec(),
            in_process_permille: 1000,
            fuzz_stores: Vec::new(),
            known: known.to_vec(),
            worlds: Default::default(),
        }
    }

    fn night_dir() -> String {
        "nightly/2026-12-05".to_string()
    }

    /// The scenario of `failure`, as a result carries it (recorded, not shrunk: shrinking
    /// is the same function of the same run in every shard).
    fn saved_of(
        store: &dyn StoreFactory,
        failure: &crate::campaign::findings::Failure,
    ) -> SavedScenario {
        let mut sc = Scenario::record(
            store,
            failure.config.clone(),
            &failure.steps,
            Some(failure.invariant),
        );
        sc.seed = failure.seed;
        sc.class = failure.class.clone();
        SavedScenario {
            file: file_for(Path::new(""), store, failure)
                .display()
                .to_string(),
            steps: failure.steps.len(),
            original_steps: failure.steps.len(),
            gave_up: None,
            write_error: None,
            scenario: serde_json::from_str(&sc.to_json()).unwrap(),
        }
    }

    /// Shard `shard` of a night that knew `known`, as one night does it, with seed budgets
    /// instead of time: per strategy, a campaign over the stores, each first failure a
    /// finding, new (with its scenario) when its signature is neither known nor seen
    /// earlier tonight. Its throughput is `100 × shard`, its elapsed time `10 + shard`.
    fn night(shard: Shard, known: &[Signature]) -> NightlyResult {
        let kinds: Vec<_> = STORES.iter().map(|n| by_name(n).unwrap()).collect();
        let stores: Vec<&dyn StoreFactory> = kinds.iter().map(|k| k as _).collect();
        let mut seen: BTreeSet<Signature> = known.iter().cloned().collect();
        let mut summary = NightlySummary {
            night_dir: night_dir(),
            budget_seconds: 60,
            elapsed_seconds: 10.0 + shard.index as f64,
            interrupted: false,
            seed_start: SEED_START,
            known_signatures: known.len(),
            campaigns: Vec::new(),
            cargo_fuzz_build_seconds: None,
            cargo_fuzz: Vec::new(),
            findings: Vec::new(),
            problems: Vec::new(),
            write_errors: Vec::new(),
        };
        let mut covered = Vec::new();
        let mut saved = Vec::new();
        for strategy in STRATEGIES {
            let campaign = Campaign {
                stores: stores.clone(),
                strategy,
                seed_start: SEED_START,
                budget: Budget::Seeds(seeds_of(strategy)),
                jobs: 2,
                coverage: false,
                classes: true,
                worlds: Default::default(),
            };
            let outcome = run_campaign_shard(&campaign, shard, &|_| {}, &AtomicBool::new(false));
            for f in &outcome.first_failures {
                let class = f.class.clone().unwrap_or_else(|| Class::bare(f.invariant));
                let sig = (f.store.clone(), class.clone());
                let new = seen.insert(sig);
                let store = *stores.iter().find(|s| s.name() == f.store).unwrap();
                let s = saved_of(store, f);
                summary.findings.push(NightFinding {
                    store: f.store.clone(),
                    invariant: f.invariant,
                    seed: f.seed,
                    class: class.clone(),
                    class_name: class.to_string(),
                    source: source_of(strategy),
                    new,
                    scenario: new.then(|| format!("{}/scenarios/{}", night_dir(), s.file)),
                    steps: new.then_some(s.steps),
                    needs: None,
                    cause: f.cause.clone(),
                    did_not_replay: false,
                });
                if new {
                    saved.push(NightScenario {
                        store: f.store.clone(),
                        class,
                        source: source_of(strategy),
                        seed: f.seed,
                        invariant: f.invariant,
                        saved: s,
                    });
                }
            }
            covered.push(CampaignCover {
                strategy,
                shards: vec![ShardSeeds {
                    shard: shard.index,
                    seeds: outcome.report.seeds,
                }],
            });
            summary.campaigns.push(CampaignSummary {
                report: outcome.report,
                runs_per_second: 100.0 * shard.index as f64,
            });
        }
        NightlyResult {
            config: config(known),
            covered,
            summary,
            saved,
        }
    }

    fn texts(parts: &[(Shard, &NightlyResult)]) -> Vec<(PathBuf, String)> {
        parts
            .iter()
            .map(|(shard, r)| {
                let file = ResultFile::new(ShardSet::one(*shard), (*r).clone());
                (
                    PathBuf::from(format!("n{}.result.json", shard.index)),
                    file.to_json(),
                )
            })
            .collect()
    }

    fn merge(
        parts: &[(Shard, &NightlyResult)],
        allow_partial: bool,
    ) -> Result<ResultFile<NightlyResult>, CampaignError> {
        match merge_texts(&texts(parts), allow_partial)? {
            Merged::Nightly(r) => Ok(r),
            other => panic!("not a night: {other:?}"),
        }
    }

    fn json<T: Serialize>(t: &T) -> serde_json::Value {
        serde_json::to_value(t).unwrap()
    }

    /// A night's shards merge into the night one process would have had over the same
    /// seeds: per strategy, the same table (the throughputs added), the seeds each shard
    /// covered making one range, the same findings in the same order, new the same, each
    /// new one with the scenario of its lowest seed; in any order of the shards.
    #[test]
    fn the_shards_of_a_night_merge_into_the_whole_night() {
        let whole = night(Shard::WHOLE, &[]);
        assert!(whole.summary.findings.len() >= 4, "the test needs findings");
        assert!(
            whole.summary.findings.iter().any(|f| !f.new),
            "the test needs a signature found again"
        );
        for count in [2, 3] {
            let shards: Vec<Shard> = (1..=count).map(|i| Shard::new(i, count).unwrap()).collect();
            let parts: Vec<NightlyResult> = shards.iter().map(|s| night(*s, &[])).collect();
            let mut pairs: Vec<(Shard, &NightlyResult)> =
                shards.iter().copied().zip(&parts).collect();
            let forward = merge(&pairs, false).unwrap();
            pairs.reverse();
            let backward = merge(&pairs, false).unwrap();
            for m in [&forward, &backward] {
                let r = &m.result;
                assert_eq!(r.summary.campaigns.len(), STRATEGIES.len());
                for (k, c) in r.summary.campaigns.iter().enumerate() {
                    assert_eq!(
                        c.report, whole.summary.campaigns[k].report,
                        "{count} shards"
                    );
                    let sum: f64 = (1..=count).map(|i| 100.0 * i as f64).sum();
                    assert_eq!(c.runs_per_second, sum);
                    let strategy = STRATEGIES[k];
                    let start = SEED_START;
                    assert_eq!(
                        r.seed_ranges(strategy, count),
                        vec![start..start + seeds_of(strategy)]
                    );
                    let cover = &r.covered[k];
                    assert_eq!(cover.strategy, strategy);
                    let own: Vec<ShardSeeds> = parts
                        .iter()
                        .map(|p| p.covered[k].shards[0].clone())
                        .collect();
                    assert_eq!(cover.shards, own, "each shard's seeds, in shard order");
                }
                assert_eq!(
                    json(&r.summary.findings),
                    json(&whole.summary.findings),
                    "{count} shards"
                );
                assert_eq!(r.saved, whole.saved, "{count} shards");
                assert_eq!(r.summary.elapsed_seconds, 10.0 + count as f64);
                assert!(!r.summary.interrupted);
                assert_eq!(
                    (
                        r.summary.night_dir.as_str(),
                        r.summary.budget_seconds,
                        r.summary.seed_start
                    ),
                    (night_dir().as_str(), 60, SEED_START)
                );
                assert_eq!(r.summary.cargo_fuzz_build_seconds, None);
                assert!(r.summary.problems.is_empty() && r.summary.cargo_fuzz.is_empty());
                assert_eq!(r.markdown(), crate::campaign::nightly::markdown(&r.summary));
            }
            // Some signature's lowest seed is not in the first shard that found it.
            let later = forward.result.saved.iter().any(|s| {
                parts[0].summary.findings.iter().any(|f| {
                    f.store == s.store
                        && f.class == s.class
                        && f.source == s.source
                        && f.seed > s.seed
                })
            });
            assert!(
                later,
                "{count} shards: the test needs a signature whose lowest seed is not shard 1's"
            );
        }
    }

    /// Signatures known before the night are counted, not new, in every shard and merged.
    #[test]
    fn a_signature_known_before_the_night_is_not_new_in_the_merge() {
        let first = night(Shard::WHOLE, &[]);
        let f = &first.summary.findings[0];
        let known = vec![(f.store.clone(), f.class.clone())];
        let whole = night(Shard::WHOLE, &known);
        let shards = [Shard::new(1, 2).unwrap(), Shard::new(2, 2).unwrap()];
        let parts: Vec<NightlyResult> = shards.iter().map(|s| night(*s, &known)).collect();
        let m = merge(&[(shards[0], &parts[0]), (shards[1], &parts[1])], false)
            .unwrap()
            .result;
        assert_eq!(json(&m.summary.findings), json(&whole.summary.findings));
        assert_eq!(m.saved, whole.saved);
        assert_eq!(m.summary.known_signatures, 1);
        assert!(m
            .summary
            .findings
            .iter()
            .filter(|g| g.store == f.store && g.class == f.class)
            .all(|g| !g.new && g.scenario.is_none() && g.steps.is_none()));
    }

    /// What is not per strategy comes after, in shard order: each shard's cargo-fuzz
    /// findings (new only the first time a signature shows), runs and problems (named by
    /// shard); the longest build, interrupted if any shard was.
    #[test]
    fn cargo_fuzz_findings_runs_and_problems_follow_in_shard_order() {
        let shards = [Shard::new(1, 2).unwrap(), Shard::new(2, 2).unwrap()];
        let mut parts: Vec<NightlyResult> = shards.iter().map(|s| night(*s, &[])).collect();
        let (path, scenario) = crate::testing::repo_scenario("scenarios/bug-a.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let fuzzed = |p: &mut NightlyResult, store: &str, inv: Invariant, file: &str| {
            let class = Class::bare(inv);
            p.summary.findings.push(NightFinding {
                store: store.to_string(),
                invariant: inv,
                seed: None,
                class: class.clone(),
                class_name: class.to_string(),
                source: "cargo-fuzz/interleavings".to_string(),
                new: true,
                scenario: Some(file.to_string()),
                steps: Some(scenario.steps.len()),
                needs: None,
                cause: None,
                did_not_replay: false,
            });
            p.saved.push(NightScenario {
                store: store.to_string(),
                class,
                source: "cargo-fuzz/interleavings".to_string(),
                seed: None,
                invariant: inv,
                saved: SavedScenario::of_text(Path::new(file), &text, 2, 5, None, None).unwrap(),
            });
        };
        fuzzed(&mut parts[0], "naive", Invariant::Crash, "crash-1.json");
        fuzzed(&mut parts[1], "naive", Invariant::Crash, "crash-2.json");
        fuzzed(
            &mut parts[1],
            "current",
            Invariant::RenderShape,
            "shape-2.json",
        );
        for (i, p) in parts.iter_mut().enumerate() {
            p.summary.cargo_fuzz.push(TargetSummary {
                target: "interleavings".to_string(),
                store: Some("naive".to_string()),
                seconds: i as u64 + 1,
                executions: Some(1000 * (i as u64 + 1)),
                artifacts: Vec::new(),
                error: None,
            });
            p.summary.problems.push(format!("problem {}", i + 1));
        }
        parts[1].summary.cargo_fuzz_build_seconds = Some(4.5);
        parts[1].summary.interrupted = true;
        let m = merge(&[(shards[1], &parts[1]), (shards[0], &parts[0])], false)
            .unwrap()
            .result;
        let tail: Vec<(&str, bool, Option<String>)> = m
            .summary
            .findings
            .iter()
            .filter(|f| !f.source.starts_with("in-process/"))
            .map(|f| (f.store.as_str(), f.new, f.scenario.clone()))
            .collect();
        let under = |f: &str| Some(format!("{}/scenarios/{f}", night_dir()));
        assert_eq!(
            tail,
            [
                ("naive", true, under("crash-1.json")),
                ("naive", false, None),
                ("current", true, under("shape-2.json")),
            ]
        );
        let n = m.summary.findings.len();
        assert!(m.summary.findings[..n - 3]
            .iter()
            .all(|f| f.source.starts_with("in-process/")));
        let files: Vec<&str> = m
            .saved
            .iter()
            .rev()
            .take(2)
            .map(|s| s.saved.file.as_str())
            .collect();
        assert_eq!(files, ["shape-2.json", "crash-1.json"]);
        assert_eq!(
            m.summary.findings.iter().filter(|f| f.new).count(),
            m.saved.len()
        );
        let runs: Vec<u64> = m.summary.cargo_fuzz.iter().map(|t| t.seconds).collect();
        assert_eq!(runs, [1, 2]);
        assert_eq!(
            m.summary.problems,
            ["shard 1/2: problem 1", "shard 2/2: problem 2"]
        );
        assert_eq!(m.summary.cargo_fuzz_build_seconds, Some(4.5));
        assert!(m.summary.interrupted);
    }

    /// A finding the merge makes new must have its shard's scenario; a part whose new
    /// findings and scenarios do not match is refused.
    #[test]
    fn a_new_finding_without_its_scenario_is_an_error() {
        let shard = Shard::WHOLE;
        let mut p = night(shard, &[]);
        // The first finding claimed known though the config knows nothing: its scenario
        // dropped, the part holds together, but the merge has no scenario to give it.
        p.summary.findings[0].new = false;
        let f0 = p.summary.findings[0].clone();
        p.saved
            .retain(|s| !(s.store == f0.store && s.class == f0.class));
        let e = merge(&[(shard, &p)], false).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "the merged night's first finding of {} {} has no saved scenario in its shard's result",
                f0.store, f0.class_name
            )
        );
        let mut q = night(shard, &[]);
        q.saved.pop();
        let new = q.summary.findings.iter().filter(|f| f.new).count();
        let e = merge(&[(shard, &q)], false).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "n1.result.json: {new} new findings but {} scenarios saved",
                new - 1
            )
        );
        let mut r = night(shard, &[]);
        r.saved[0].saved.file = "a/b.json".to_string();
        let e = merge(&[(shard, &r)], false).unwrap_err().to_string();
        assert!(e.contains("is not a plain file name"), "{e}");
    }

    /// The merged night is written as a night folder: its scenarios, summary and a result
    /// that merges again; an incomplete one says which shards it lacks, once.
    #[test]
    fn a_merged_night_is_written_as_a_night_folder() {
        let shards: Vec<Shard> = (1..=3).map(|i| Shard::new(i, 3).unwrap()).collect();
        let one = night(shards[0], &[]);
        let partial = merge(&[(shards[0], &one)], true).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let night_a = dir.path().join("a");
        let written = partial
            .result
            .write_night(&night_a, &partial.shards, Path::new("src"))
            .unwrap();
        let note = "merged without shards 2/3, 3/3: this night is incomplete";
        assert_eq!(written.problems, [note]);
        assert_eq!(written.night_dir, night_a.display().to_string());
        let new: Vec<&NightFinding> = written.findings.iter().filter(|f| f.new).collect();
        assert_eq!(new.len(), partial.result.saved.len());
        for (f, s) in new.iter().zip(&partial.result.saved) {
            let path = night_a.join("scenarios").join(&s.saved.file);
            assert_eq!(
                f.scenario.as_deref(),
                Some(path.display().to_string().as_str())
            );
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                s.saved.file_text(Path::new("x")).unwrap()
            );
        }
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(night_a.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary, json(&written));
        assert_eq!(
            std::fs::read_to_string(night_a.join("summary.md")).unwrap(),
            crate::campaign::nightly::markdown(&written)
        );
        // The folder's result merges again, with the other shards, and the note is not doubled.
        let again = std::fs::read_to_string(night_a.join("result.json")).unwrap();
        let back = merge_texts(&[(night_a.join("result.json"), again.clone())], true).unwrap();
        let Merged::Nightly(back) = back else {
            panic!()
        };
        let night_b = dir.path().join("b");
        let written = back
            .result
            .write_night(&night_b, &back.shards, Path::new("src"))
            .unwrap();
        // Merged again, the shard's problems are named by shard, and the note is this
        // merge's own.
        assert_eq!(
            written.problems,
            [format!("shard 1/3: {note}"), note.to_string()]
        );
        // Written again as it is, the note is not doubled.
        let file: ResultFile<NightlyResult> = serde_json::from_str(&again).unwrap();
        assert_eq!(file.result.summary.problems, [note]);
        let night_e = dir.path().join("again");
        let written = file
            .result
            .write_night(&night_e, &file.shards, Path::new("src"))
            .unwrap();
        assert_eq!(written.problems, [note]);
        let two = night(shards[1], &[]);
        let mut texts = vec![(night_a.join("result.json"), again)];
        texts.extend(super::tests::texts(&[(shards[1], &two)]));
        let Merged::Nightly(m) = merge_texts(&texts, true).unwrap() else {
            panic!()
        };
        assert_eq!(m.shards.missing(), [3]);
        let night_c = dir.path().join("c");
        let written = m
            .result
            .write_night(&night_c, &m.shards, Path::new("src"))
            .unwrap();
        assert!(written
            .problems
            .contains(&"merged without shard 3/3: this night is incomplete".to_string()));
        assert_eq!(
            written
                .problems
                .iter()
                .filter(|p| p.starts_with("merged without"))
                .count(),
            1
        );
        // A complete night has no such note; the result a night writes says what it holds.
        let whole = night(Shard::WHOLE, &[]);
        let night_d = dir.path().join("d");
        let written = whole
            .write_night(&night_d, &ShardSet::one(Shard::WHOLE), Path::new("src"))
            .unwrap();
        assert!(written.problems.is_empty());
        let file: ResultFile<NightlyResult> =
            serde_json::from_str(&std::fs::read_to_string(night_d.join("result.json")).unwrap())
                .unwrap();
        assert_eq!(file.shards, ShardSet::one(Shard::WHOLE));
        assert_eq!(json(&file.result.summary), json(&written));
        // A new finding without its scenario cannot be written.
        let mut lacking = whole.clone();
        lacking.saved.clear();
        let e = lacking
            .write_night(
                &dir.path().join("e"),
                &ShardSet::one(Shard::WHOLE),
                Path::new("src"),
            )
            .unwrap_err();
        assert_eq!(e.to_string(), "src: a new finding without its scenario");
    }

    /// A night's own result: its config (the in-process share in thousandths with
    /// cargo-fuzz, all of it without), the seeds of each campaign under the shard, and the
    /// scenario of each new finding that saved one.
    #[test]
    fn a_night_s_result_carries_its_config_seeds_and_new_scenarios() {
        let whole = night(Shard::WHOLE, &[]);
        let bug_a = repo_file("scenarios/bug-a.json");
        let mut summary = whole.summary.clone();
        for f in &mut summary.findings {
            if f.new {
                f.scenario = Some(bug_a.display().to_string());
            }
        }
        summary.findings[0].scenario = None; // not saved (cancelled before it could be)
        let new = summary.findings.iter().filter(|f| f.new).count();
        let shard = Shard::new(2, 5).unwrap();
        let mut cfg = crate::campaign::nightly::NightlyConfig {
            budget: std::time::Duration::from_secs(125),
            night_dir: PathBuf::from("n"),
            known_dirs: Vec::new(),
            stores: vec!["current".to_string(), "naive".to_string()],
            seed_start: 77,
            jobs: 1,
            fuzz_dir: Some(PathBuf::from("fuzz")),
            corpus_dir: PathBuf::from("corpus"),
            in_process_share: 0.25,
            fuzz_stores: vec!["naive".to_string()],
            shard,
            result: None,
            worlds: Default::default(),
            html: false,
        };
        let sig = |s: &str| (s.to_string(), Class::bare(Invariant::NoLoss));
        let known: BTreeSet<Signature> = [sig("naive"), sig("current")].into_iter().collect();
        let r = NightlyResult::of_night(&cfg, &known, &summary).unwrap();
        assert_eq!(
            r.config,
            NightConfig {
                budget_seconds: 125,
                seed_start: 77,
                stores: vec!["current".to_string(), "naive".to_string()],
                strategies: StrategySpec::ALL.to_vec(),
                in_process_permille: 250,
                fuzz_stores: vec!["naive".to_string()],
                known: vec![sig("current"), sig("naive")],
                worlds: Default::default(),
            }
        );
        let covered: Vec<(StrategySpec, Vec<ShardSeeds>)> = r
            .covered
            .iter()
            .map(|c| (c.strategy, c.shards.clone()))
            .collect();
        let expected: Vec<(StrategySpec, Vec<ShardSeeds>)> = whole
            .summary
            .campaigns
            .iter()
            .map(|c| {
                (
                    c.report.strategy,
                    vec![ShardSeeds {
                        shard: 2,
                        seeds: c.report.seeds,
                    }],
                )
            })
            .collect();
        assert_eq!(covered, expected);
        assert_eq!(r.saved.len(), new - 1);
        let text = std::fs::read_to_string(&bug_a).unwrap();
        for (s, f) in r
            .saved
            .iter()
            .zip(summary.findings.iter().filter(|f| f.new).skip(1))
        {
            assert_eq!(
                (&s.store, &s.class, &s.source, s.seed, s.invariant),
                (&f.store, &f.class, &f.source, f.seed, f.invariant)
            );
            assert_eq!(
                (s.saved.file.as_str(), s.saved.steps),
                ("bug-a.json", f.steps.unwrap())
            );
            assert_eq!(s.saved.file_text(Path::new("x")).unwrap(), text);
        }
        assert_eq!(json(&r.summary), json(&summary));
        cfg.fuzz_dir = None;
        let r = NightlyResult::of_night(&cfg, &known, &summary).unwrap();
        assert_eq!(
            (r.config.in_process_permille, r.config.fuzz_stores.len()),
            (1000, 0)
        );
        cfg.stores = vec!["nosuch".to_string()];
        assert!(NightlyResult::of_night(&cfg, &known, &summary).is_err());
    }
}
