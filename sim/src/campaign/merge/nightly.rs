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
