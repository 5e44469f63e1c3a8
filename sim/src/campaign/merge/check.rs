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
    /// `--scenarios`, as given (or the default).
    pub scenarios: String,
    /// No `--scenarios` and no default folder: no scenarios (the report says so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scenarios_absent: bool,
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
            scenarios_absent: request.scenarios_absent(),
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::campaign::check::tests::{a_report, a_suspect as suspect, suspect_order};
    use crate::campaign::check::FuzzBatch;
    use crate::campaign::merge::{merge_texts, Merged, ResultFile};
    use crate::campaign::recheck::{Suspect, SuspectKind};
    use crate::campaign::shard::Shard;
    use crate::oracle::Invariant;
    use crate::testing::repo_file;
    use crate::trace::shrink::Limits;

    const STORES: [&str; 2] = ["naive", "current"];

    fn config() -> CheckConfig {
        CheckConfig {
            scenarios: "scenarios".to_string(),
            scenarios_absent: false,
            // Not in name order: the merge orders by the config's order.
            stores: Some(STORES.iter().map(|s| s.to_string()).collect()),
            seeds: 3000,
            seed: "0".to_string(),
            strategy: StrategySpec::Random,
            known: None,
            max_shrink_iters: 100,
            max_shrink_time: "1m".to_string(),
            baseline: Baseline::default(),
            worlds: Default::default(),
        }
    }

    fn batch(store: &str, seed_start: u64) -> FuzzBatch {
        FuzzBatch {
            store: store.to_string(),
            seed_start,
            seeds: 1000,
            failing: BTreeMap::new(),
            first_failing_seed: BTreeMap::new(),
            classes: Vec::new(),
        }
    }

    /// A failure found on `store` of class `bare(inv)`, by fuzzing seed `seed` or (none) by
    /// a scenario, saved as `file` (the scenario is `bug-a.json`'s).
    fn found(store: &str, inv: Invariant, seed: Option<u64>, file: &str) -> (Found, SavedScenario) {
        let text = std::fs::read_to_string(repo_file("scenarios/bug-a.json")).unwrap();
        let path = PathBuf::from("shard-out").join(file);
        let f = Found {
            store: store.to_string(),
            invariant: inv,
            class: Some(Class::bare(inv)),
            seed,
            path: path.clone(),
            steps: 3,
            original_steps: 8,
            one_minimal: true,
            gave_up: None,
            cause: None,
            needs: Vec::new(),
            needs_unsearched: false,
            write_error: None,
            localized: None,
        };
        let s = SavedScenario::of_text(&path, &text, 3, 8, None, None).unwrap();
        (f, s)
    }

    fn result(
        batches: Vec<FuzzBatch>,
        found: Vec<(Found, SavedScenario)>,
        suspects: Vec<Suspect>,
        determinism_seeds: u64,
        interrupted: bool,
    ) -> CheckResult {
        let (found, saved) = found.into_iter().unzip();
        CheckResult {
            config: config(),
            report: CheckReport {
                interrupted,
                ..a_report(batches, found, determinism_seeds, suspects)
            },
            saved,
        }
    }

    fn texts(parts: &[(u64, &CheckResult)]) -> Vec<(PathBuf, String)> {
        parts
            .iter()
            .map(|(i, r)| {
                let file = ResultFile::new(
                    ShardSet {
                        count: 2,
                        done: vec![*i],
                    },
                    (*r).clone(),
                );
                (PathBuf::from(format!("s{i}.result.json")), file.to_json())
            })
            .collect()
    }

    fn merged(parts: &[(u64, &CheckResult)]) -> CheckResult {
        match merge_texts(&texts(parts), false).unwrap() {
            Merged::Check(r) => r.result,
            other => panic!("not a check: {other:?}"),
        }
    }

    /// Two shards of a check: the batches in the unsharded order (store as configured, then
    /// first seed), the suspects by store, seed and kind, interrupted if either was, the
    /// determinism seeds shard 1 ran, and one failure per (store, class): the lowest seed's,
    /// else a scenario's; each with its own scenario.
    #[test]
    fn the_shards_of_a_check_add_up_to_the_unsharded_check() {
        let one = result(
            vec![batch("naive", 0), batch("current", 2000)],
            vec![
                found("naive", Invariant::NoLoss, Some(30), "a-30.json"),
                found("current", Invariant::NoDuplicate, Some(2005), "b-2005.json"),
                found("naive", Invariant::Crash, None, "c-shown.json"),
                found("current", Invariant::NoLoss, None, "d-shown.json"),
            ],
            vec![
                suspect("current", 2001, SuspectKind::Flaky),
                suspect("naive", 5, SuspectKind::Flaky),
            ],
            5,
            false,
        );
        let two = result(
            vec![batch("naive", 1000), batch("current", 1000)],
            vec![
                found("naive", Invariant::NoLoss, Some(1010), "a-1010.json"),
                found("current", Invariant::NoDuplicate, Some(1003), "b-1003.json"),
                found("current", Invariant::NoLoss, Some(1500), "d-1500.json"),
            ],
            vec![
                suspect("current", 1001, SuspectKind::StateLeak),
                suspect("naive", 1001, SuspectKind::Flaky),
                suspect("current", 1001, SuspectKind::Flaky),
            ],
            0,
            true,
        );
        for parts in [[(1, &one), (2, &two)], [(2, &two), (1, &one)]] {
            let m = merged(&parts);
            let batches: Vec<(&str, u64)> = m
                .report
                .batches
                .iter()
                .map(|b| (b.store.as_str(), b.seed_start))
                .collect();
            assert_eq!(
                batches,
                [
                    ("naive", 0),
                    ("naive", 1000),
                    ("current", 1000),
                    ("current", 2000)
                ]
            );
            assert_eq!(
                suspect_order(&m.report.suspects),
                [
                    ("naive", Some(5), SuspectKind::Flaky),
                    ("naive", Some(1001), SuspectKind::Flaky),
                    ("current", Some(1001), SuspectKind::Flaky),
                    ("current", Some(1001), SuspectKind::StateLeak),
                    ("current", Some(2001), SuspectKind::Flaky),
                ]
            );
            assert!(m.report.interrupted);
            assert_eq!(m.report.determinism_seeds, 5);
            let kept: Vec<(&str, Option<u64>, &str)> = m
                .report
                .found
                .iter()
                .zip(&m.saved)
                .map(|(f, s)| {
                    assert_eq!(f.path.file_name().unwrap().to_string_lossy(), s.file);
                    (f.store.as_str(), f.seed, s.file.as_str())
                })
                .collect();
            assert_eq!(
                kept,
                [
                    ("naive", Some(30), "a-30.json"),
                    ("current", Some(1003), "b-1003.json"),
                    ("current", Some(1500), "d-1500.json"),
                    ("naive", None, "c-shown.json"),
                ]
            );
            assert_eq!(m.config, config());
        }
        // Neither interrupted: the merge is not.
        let calm = result(Vec::new(), Vec::new(), Vec::new(), 0, false);
        assert!(!merged(&[(1, &calm), (2, &calm)]).report.interrupted);
    }

    /// Of two failures of one class that only scenarios showed, the first is kept; a
    /// scenario's failure of a class fuzzing found on another store is kept too.
    #[test]
    fn a_class_only_scenarios_showed_is_kept_once_per_store() {
        let one = result(
            Vec::new(),
            vec![
                found("current", Invariant::NoLoss, None, "first.json"),
                found("current", Invariant::NoLoss, None, "again.json"),
                found("naive", Invariant::NoLoss, None, "naive.json"),
            ],
            Vec::new(),
            0,
            false,
        );
        let two = result(
            Vec::new(),
            vec![found(
                "current",
                Invariant::NoLoss,
                Some(1200),
                "fuzzed.json",
            )],
            Vec::new(),
            0,
            false,
        );
        let m = merged(&[(1, &one), (2, &two)]);
        let files: Vec<&str> = m.saved.iter().map(|s| s.file.as_str()).collect();
        assert_eq!(files, ["fuzzed.json", "naive.json"]);
        let solo = merged(&[
            (1, &one),
            (2, &result(Vec::new(), Vec::new(), Vec::new(), 0, false)),
        ]);
        let files: Vec<&str> = solo.saved.iter().map(|s| s.file.as_str()).collect();
        assert_eq!(files, ["first.json", "naive.json"]);
    }

    /// A part whose failures and scenarios do not match, or whose configuration differs,
    /// is refused, naming it.
    #[test]
    fn a_part_that_does_not_hold_together_is_refused() {
        let good = result(
            Vec::new(),
            vec![found("naive", Invariant::NoLoss, Some(3), "a.json")],
            Vec::new(),
            0,
            false,
        );
        let mut bad = good.clone();
        bad.saved.clear();
        let e = merge_texts(&texts(&[(1, &good), (2, &bad)]), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "s2.result.json: 1 failures found but 0 scenarios saved"
        );
        let mut other = good.clone();
        other.config.seeds = 4000;
        let e = merge_texts(&texts(&[(1, &good), (2, &other)]), false).unwrap_err();
        assert!(e
            .to_string()
            .contains("(`config.seeds` is 3000 in one and 4000 in the other)"));
        let mut unnamed = good.clone();
        unnamed.saved[0].file = "../a.json".to_string();
        let e = merge_texts(&texts(&[(1, &unnamed), (2, &good)]), false).unwrap_err();
        assert!(e.to_string().contains("is not a plain file name"), "{e}");
    }

    /// The merged report puts each found failure under the merge's `out`, and writing the
    /// scenarios there makes each write error the merge's own.
    #[test]
    fn the_merged_failures_are_written_under_the_merge_s_out() {
        let mut r = result(
            Vec::new(),
            vec![
                found("naive", Invariant::NoLoss, Some(3), "a.json"),
                found("current", Invariant::NoDuplicate, Some(4), "b.json"),
            ],
            Vec::new(),
            0,
            false,
        );
        r.report.found[0].write_error = Some("disk full".to_string());
        r.saved[0].write_error = Some("disk full".to_string());
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let report = r.report_under(&out);
        let paths: Vec<PathBuf> = report.found.iter().map(|f| f.path.clone()).collect();
        assert_eq!(paths, [out.join("a.json"), out.join("b.json")]);
        assert_eq!(report.batches, r.report.batches);
        let result = Path::new("r.result.json");
        r.write_saved(&out, result).unwrap();
        assert!(r.report.found.iter().all(|f| f.write_error.is_none()));
        assert!(r.saved.iter().all(|s| s.write_error.is_none()));
        let text = std::fs::read_to_string(repo_file("scenarios/bug-a.json")).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("b.json")).unwrap(), text);
        let blocked = out.join("a.json");
        r.write_saved(&blocked, result).unwrap();
        for (f, s) in r.report.found.iter().zip(&r.saved) {
            let e = f.write_error.clone().unwrap();
            assert!(
                e.starts_with(&format!("cannot write {}", blocked.display())),
                "{e}"
            );
            assert_eq!(s.write_error, f.write_error);
        }
        r.saved[1].file = String::new();
        assert!(r.write_saved(&out, result).is_err());
    }

    /// A run's result: its config from the request, each found failure's scenario from the
    /// texts given, in order; texts that do not match the failures are an error.
    #[test]
    fn a_check_run_s_result_carries_its_config_and_scenarios() {
        let naive = crate::store::by_name("naive").unwrap();
        let request = crate::campaign::check::CheckRequest {
            scenarios_dir: PathBuf::from("scen"),
            scenarios_named: true,
            under_test: Some(vec![&naive]),
            seeds: 1234,
            seed_start: 99,
            strategy: StrategySpec::Swarm,
            jobs: 1,
            out: PathBuf::from("out"),
            limits: Limits {
                replays_max: 77,
                time_max: std::time::Duration::from_secs(90),
                deadline: None,
            },
            known: Some(PathBuf::from("known")),
            shard: Shard::WHOLE,
            determinism: false,
            allow_empty: false,
            worlds: Default::default(),
            html: false,
            settle: crate::campaign::settle_budget::SettleBudget::Unbounded,
        };
        let r = result(
            Vec::new(),
            vec![found("naive", Invariant::NoLoss, Some(3), "a.json")],
            Vec::new(),
            0,
            false,
        );
        let mut report = r.report.clone();
        report.found[0].write_error = Some("no room".to_string());
        report.found[0].gave_up = Some("time".to_string());
        let text = std::fs::read_to_string(repo_file("scenarios/bug-a.json")).unwrap();
        let got = CheckResult::of_run(&request, "some-seed", &report, std::slice::from_ref(&text))
            .unwrap();
        assert_eq!(
            got.config,
            CheckConfig {
                scenarios: "scen".to_string(),
                scenarios_absent: false,
                stores: Some(vec!["naive".to_string()]),
                seeds: 1234,
                seed: "some-seed".to_string(),
                strategy: StrategySpec::Swarm,
                known: Some("known".to_string()),
                max_shrink_iters: 77,
                max_shrink_time: "1m 30s".to_string(),
                baseline: Baseline::default(),
                worlds: Default::default(),
            }
        );
        assert_eq!(got.report, report);
        let s = &got.saved[0];
        assert_eq!(
            (
                s.file.as_str(),
                s.steps,
                s.original_steps,
                s.gave_up.as_deref(),
                s.write_error.as_deref()
            ),
            ("a.json", 3, 8, Some("time"), Some("no room"))
        );
        assert_eq!(s.file_text(Path::new("r")).unwrap(), text);
        let e = CheckResult::of_run(&request, "0", &report, &[]).unwrap_err();
        assert_eq!(e.to_string(), "1 failures found but 0 scenario files given");
    }
}
