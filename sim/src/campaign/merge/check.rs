//! The result of `reconcile-sim check` (one shard or the whole check), and how shards add
//! up.
//!
//! Shard 1 replays the scenarios; every shard fuzzes its own batches. Merged: the
//! scenario results are shard 1's, the batches are every shard's in the unsharded order
//! (store by store, by first seed), and of the failures of new classes one is kept per
//! (store, class): the one of the lowest seed, or, when no shard's fuzzing found the class,
//! the one a scenario showed. Suspects (failures that did not happen again, seeds whose
//! runs differed: shard 1 runs the determinism check) are every shard's, by store and
//! seed; their files stay where each shard wrote them. The baseline of known classes is part of the config, so
//! shards that loaded different scenarios refuse to merge.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::campaign::check::{Baseline, CheckReport, CheckRequest, Found};
use crate::campaign::error::CampaignError;
use crate::campaign::merge::file::{SavedScenario, ShardResult, ShardSet};
use crate::run::strategy::StrategySpec;
use crate::trace::class::Class;

/// The `kind` of a check result.
pub const KIND: &str = "check";

/// What decides a check's results: shards merge only when these are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckConfig {
    /// `--scenarios`, as given.
    pub scenarios: String,
    /// The stores under test, in order; `None` without `--store`.
    pub stores: Option<Vec<String>>,
    /// `--seeds`: seeds per store under test.
    pub seeds: u64,
    /// `--seed`, as given (the report says where it put the first seed).
    pub seed: String,
    /// How steps are chosen.
    pub strategy: StrategySpec,
    /// `--known`, as given.
    pub known: Option<String>,
    /// `--max-shrink-iters`.
    pub max_shrink_iters: u64,
    /// `--max-shrink-time`, as humantime writes it.
    pub max_shrink_time: String,
    /// The known classes the scenarios gave.
    pub baseline: Baseline,
    /// `--world` pins and `--invariants` / `--skip` (absent: the default).
    #[serde(
        default,
        skip_serializing_if = "crate::run::worlds::Worlds::is_default"
    )]
    pub worlds: crate::run::worlds::Worlds,
}

impl CheckConfig {
    /// The config of `request`, whose `--seed` was `seed`, given the baseline it found.
    pub fn of(request: &CheckRequest<'_>, seed: &str, baseline: &Baseline) -> CheckConfig {
        CheckConfig {
            scenarios: request.scenarios_dir.display().to_string(),
            stores: request
                .under_test
                .as_ref()
                .map(|v| v.iter().map(|s| s.name()).collect()),
            seeds: request.seeds,
            seed: seed.to_string(),
            strategy: request.strategy,
            known: request.known.as_ref().map(|k| k.display().to_string()),
            max_shrink_iters: request.limits.replays_max,
            max_shrink_time: humantime::format_duration(request.limits.time_max).to_string(),
            baseline: baseline.clone(),
            worlds: request.worlds.clone(),
        }
    }
}

/// A check's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// What was run.
    pub config: CheckConfig,
    /// What `check --json` prints (paths of found failures as this run wrote them).
    pub report: CheckReport,
    /// The scenario file of each of `report.found`, in the same order.
    pub saved: Vec<SavedScenario>,
}

impl CheckResult {
    /// The result of a check run as `request` says (`--seed` given as `seed`), with the
    /// contents `texts` of each scenario file it saved (or could not save) in
    /// `report.found`'s order ([`crate::campaign::check::run_check_saving`]).
    pub fn of_run(
        request: &CheckRequest<'_>,
        seed: &str,
        report: &CheckReport,
        texts: &[String],
    ) -> Result<CheckResult, CampaignError> {
        if texts.len() != report.found.len() {
            return Err(CampaignError::BadInput(format!(
                "{} failures found but {} scenario files given",
                report.found.len(),
                texts.len()
            )));
        }
        let mut saved = Vec::new();
        for (f, text) in report.found.iter().zip(texts) {
            saved.push(SavedScenario::of_text(
                &f.path,
                text,
                f.steps,
                f.original_steps,
                f.gave_up.clone(),
                f.write_error.clone(),
            )?);
        }
        Ok(CheckResult {
            config: CheckConfig::of(request, seed, &report.baseline),
            report: report.clone(),
            saved,
        })
    }

    /// The report with every found failure's path under `out`, where [`Self::write_saved`]
    /// puts them.
    pub fn report_under(&self, out: &Path) -> CheckReport {
        let mut report = self.report.clone();
        for (f, s) in report.found.iter_mut().zip(&self.saved) {
            f.path = out.join(&s.file);
        }
        report
    }

    /// Write every saved scenario under `out`, each found failure's write error then being
    /// this write's (none if it worked), as an unsharded check reports it; `result` names
    /// the result in errors (a scenario that does not load is one, not a write error).
    pub fn write_saved(&mut self, out: &Path, result: &Path) -> Result<(), CampaignError> {
        for (f, s) in self.report.found.iter_mut().zip(&mut self.saved) {
            s.write_again(out, result)?;
            f.write_error = s.write_error.clone();
        }
        Ok(())
    }
}

impl ShardResult for CheckResult {
    const KIND: &'static str = KIND;
    type Config = CheckConfig;

    fn config(&self) -> &CheckConfig {
        &self.config
    }

    fn validate(&self, path: &Path) -> Result<(), CampaignError> {
        if self.saved.len() != self.report.found.len() {
            return Err(CampaignError::BadInput(format!(
                "{}: {} failures found but {} scenarios saved",
                path.display(),
                self.report.found.len(),
                self.saved.len()
            )));
        }
        for s in &self.saved {
            s.file_text(path)?;
        }
        Ok(())
    }

    fn merge(
        parts: Vec<(ShardSet, CheckResult)>,
        _count: u64,
    ) -> Result<CheckResult, CampaignError> {
        let mut parts = parts.into_iter().map(|(_, r)| r);
        let mut total = parts.next().expect("at least one part");
        let mut found: Vec<(Found, SavedScenario)> = std::mem::take(&mut total.report.found)
            .into_iter()
            .zip(std::mem::take(&mut total.saved))
            .collect();
        for part in parts {
            total.report.scenarios.extend(part.report.scenarios);
            total.report.batches.extend(part.report.batches);
            total.report.interrupted |= part.report.interrupted;
            total.report.determinism_seeds = total
                .report
                .determinism_seeds
                .max(part.report.determinism_seeds);
            total.report.suspects.extend(part.report.suspects);
            found.extend(part.report.found.into_iter().zip(part.saved));
        }
        let stores = total.config.stores.clone().unwrap_or_default();
        let position = |store: &str| stores.iter().position(|s| s == store).unwrap_or(usize::MAX);
        total
            .report
            .batches
            .sort_by_key(|b| (position(&b.store), b.seed_start));
        total
            .report
            .suspects
            .sort_by_key(|s| (position(&s.store), s.seed, s.kind));
        let found = first_per_class(found, &position);
        (total.report.found, total.saved) = found.into_iter().unzip();
        Ok(total)
    }
}

/// One failure per (store, class): the lowest seed's, else the first scenario's; fuzzed
/// ones store by store by (seed, class), then those only scenarios showed, as found.
fn first_per_class(
    all: Vec<(Found, SavedScenario)>,
    position: &dyn Fn(&str) -> usize,
) -> Vec<(Found, SavedScenario)> {
    let mut fuzzed: BTreeMap<(usize, Option<Class>), (Found, SavedScenario)> = BTreeMap::new();
    let mut shown: Vec<(Found, SavedScenario)> = Vec::new();
    for (f, s) in all {
        let Some(seed) = f.seed else {
            shown.push((f, s));
            continue;
        };
        let key = (position(&f.store), f.class.clone());
        match fuzzed.get(&key) {
            Some((b, _)) if b.seed.is_some_and(|b| b <= seed) => {}
            _ => {
                fuzzed.insert(key, (f, s));
            }
        }
    }
    let mut out: Vec<(Found, SavedScenario)> = fuzzed.into_values().collect();
    out.sort_by(|(a, _), (b, _)| {
        (position(&a.store), a.seed, &a.class).cmp(&(position(&b.store), b.seed, &b.class))
    });
    let mut seen: Vec<(String, Option<Class>)> = out
        .iter()
        .map(|(f, _)| (f.store.clone(), f.class.clone()))
        .collect();
    for (f, s) in shown {
        let sig = (f.store.clone(), f.class.clone());
        if !seen.contains(&sig) {
            seen.push(sig);
            out.push((f, s));
        }
    }
    out
}
