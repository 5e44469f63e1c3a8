//! The CI gate (`reconcile-sim check`): replay every committed scenario, then fuzz a
//! bounded budget of seeds, and say in one verdict whether anything broke.
//!
//! What a scenario has to do depends on whether a store is under test:
//!
//! - **No store under test** (`check` alone): each scenario is replayed against the store
//!   it names and must do exactly what its `expect` says: break that invariant (a
//!   regression seed must still catch its bug; that proves the harness still works, like
//!   TigerBeetle's canary) or, with `expect: null`, pass. There is nothing to fuzz.
//! - **A store under test** (`check --store NAME`): every scenario is replayed against that
//!   store and passes when no invariant breaks, whatever it expected on the store it was
//!   recorded on: the regression seeds are interleavings a fixed store must survive. Then
//!   the store is fuzzed.
//!
//! Fuzzing runs `seeds` seeds from a start derived from `--seed` (a number is used as is;
//! any other string, such as a commit hash, is hashed with FNV-1a), in batches of
//! [`BATCH_SEEDS`]; a batch is one JUnit testcase. The first failing seed of each
//! (store, invariant) signature is shrunk and saved, once per signature.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;

use crate::campaign::error::CampaignError;
use crate::campaign::findings::{file_for, shrink_and_save, Failure, FindingError};
use crate::campaign::fuzz::{run_campaign, Budget, Campaign};
use crate::model::store::StoreFactory;
use crate::oracle::Invariant;
use crate::run::replay;
use crate::run::strategy::StrategySpec;
use crate::store::ResolveError;
use crate::trace::scenario::Scenario;
use crate::trace::shrink::Limits;

/// Seeds per fuzz batch (one JUnit testcase each).
pub const BATCH_SEEDS: u64 = 1000;

/// The default fuzz budget per store: well under a second of CPU per store in a release
/// build, so a CI run of `check` stays far under a minute.
pub const DEFAULT_SEEDS: u64 = 10_000;

/// The first seed for `--seed S`: S itself when it is a decimal number, otherwise the
/// FNV-1a hash of its bytes cut to 48 bits (so `start + seeds` never overflows). The same
/// string gives the same seeds on every machine and build.
pub fn seed_start_from(s: &str) -> u64 {
    if let Ok(n) = s.parse::<u64>() {
        return n;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h & 0xffff_ffff_ffff
}

/// What a scenario must do in this check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Replayed on the store it names: must break exactly `expect` (or pass if null).
    ReproduceExpect,
    /// Replayed on the store under test: must break nothing.
    Pass,
}

/// A store a scenario case is replayed on: the caller's, or one resolved for it.
pub enum Store<'a> {
    /// A store under test.
    Borrowed(&'a dyn StoreFactory),
    /// The store a scenario names.
    Owned(std::sync::Arc<dyn StoreFactory>),
}

impl Store<'_> {
    fn get(&self) -> &dyn StoreFactory {
        match self {
            Store::Borrowed(s) => *s,
            Store::Owned(s) => s.as_ref(),
        }
    }
}

/// One scenario to replay.
pub struct ScenarioCase<'a> {
    /// Its file.
    pub path: PathBuf,
    /// The scenario.
    pub scenario: Scenario,
    /// The store to replay it on.
    pub store: Store<'a>,
    /// What it must do.
    pub requirement: Requirement,
}

/// How one scenario did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioResult {
    /// The scenario file: the JUnit testcase's name.
    pub path: PathBuf,
    /// The store it was replayed on: the one it names, or the one under test.
    pub store: String,
    /// Whether it had to reproduce its `expect` or break nothing.
    pub requirement: Requirement,
    /// The file's `expect`, kept for the message whatever the requirement.
    pub expect: Option<Invariant>,
    /// The invariant the replay broke, if any.
    pub got: Option<Invariant>,
    /// Steps skipped because they were not enabled.
    pub skipped: usize,
    /// It met its requirement; one that did not fails the whole check.
    pub ok: bool,
    /// The command that replays it.
    pub replay: String,
}

/// Replay each case.
pub fn replay_scenarios(cases: &[ScenarioCase<'_>]) -> Vec<ScenarioResult> {
    cases
        .iter()
        .map(|c| {
            let store = c.store.get();
            let r = replay(store, c.scenario.config.clone(), &c.scenario.steps());
            let got = r.outcome.invariant();
            let ok = match c.requirement {
                Requirement::ReproduceExpect => got == c.scenario.expect,
                Requirement::Pass => got.is_none(),
            };
            let mut replay = format!("reconcile-sim replay {}", c.path.display());
            if store.name() != c.scenario.store {
                replay.push_str(&format!(" --store {}", store.name()));
            }
            ScenarioResult {
                path: c.path.clone(),
                store: store.name(),
                requirement: c.requirement,
                expect: c.scenario.expect,
                got,
                skipped: r.skipped.len(),
                ok,
                replay,
            }
        })
        .collect()
}

/// One fuzz batch of one store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
}

impl FuzzBatch {
    /// No seed of the batch broke anything: the testcase passes.
    pub fn ok(&self) -> bool {
        self.failing.is_empty()
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
) -> (Vec<FuzzBatch>, Vec<Failure>) {
    let mut batches = Vec::new();
    let mut first: BTreeMap<(String, Invariant), Failure> = BTreeMap::new();
    for store in stores {
        let mut start = seed_start;
        while start < seed_start + seeds {
            let n = BATCH_SEEDS.min(seed_start + seeds - start);
            let outcome = run_campaign(
                &Campaign {
                    stores: vec![*store],
                    strategy,
                    seed_start: start,
                    budget: Budget::Seeds(n),
                    jobs,
                    coverage: false,
                },
                &|_| {},
                &AtomicBool::new(false),
            );
            let s = &outcome.report.stores[0];
            batches.push(FuzzBatch {
                store: s.store.clone(),
                seed_start: start,
                seeds: n,
                failing: s.failing.clone(),
                first_failing_seed: s.first_failing_seed.clone(),
            });
            for f in outcome.first_failures {
                first.entry((f.store.clone(), f.invariant)).or_insert(f);
            }
            start += n;
        }
    }
    (batches, first.into_values().collect())
}

/// A failure the fuzzer found, shrunk and saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The store.
    pub store: String,
    /// The invariant it breaks.
    pub invariant: Invariant,
    /// The first failing seed.
    pub seed: u64,
    /// The scenario file.
    pub path: PathBuf,
    /// Steps after shrinking.
    pub steps: usize,
    /// Steps before shrinking.
    pub original_steps: usize,
    /// Shrinking finished: the scenario is 1-minimal.
    pub one_minimal: bool,
    /// Why shrinking stopped early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_up: Option<String>,
}

/// Shrink and save each failure (on the store of `stores` it names) under `out_dir`.
pub fn save_failures(
    stores: &[&dyn StoreFactory],
    failures: &[Failure],
    out_dir: &Path,
    limits: Limits,
) -> Result<Vec<Found>, FindingError> {
    let mut found = Vec::new();
    for f in failures {
        let store = *stores
            .iter()
            .find(|s| s.name() == f.store)
            .expect("a failure names a fuzzed store");
        let finding = shrink_and_save(store, f, &file_for(out_dir, f), limits)?;
        found.push(Found {
            store: finding.store,
            invariant: finding.invariant,
            seed: finding.seed.unwrap_or_default(),
            path: finding.path,
            steps: finding.shrunk.steps.len(),
            original_steps: finding.shrunk.original_steps,
            one_minimal: finding.shrunk.gave_up.is_none(),
            gave_up: finding.shrunk.gave_up.map(|g| g.to_string()),
        });
    }
    Ok(found)
}

/// What a check runs (see the module doc).
pub struct CheckRequest<'a> {
    /// Where the scenarios are (searched recursively for `*.json`).
    pub scenarios_dir: PathBuf,
    /// The stores under test; `None` replays each scenario on the store it names.
    pub under_test: Option<Vec<&'a dyn StoreFactory>>,
    /// Seeds to fuzz per store under test.
    pub seeds: u64,
    /// The first seed.
    pub seed_start: u64,
    /// How steps are chosen while fuzzing.
    pub strategy: StrategySpec,
    /// Worker threads.
    pub jobs: usize,
    /// Where failures found by fuzzing are written, shrunk.
    pub out: PathBuf,
    /// Shrinking limits.
    pub limits: Limits,
}

/// Resolves the store a scenario names (a name, or `exec:`).
pub type Resolver<'a> = &'a dyn Fn(&str) -> Result<Box<dyn StoreFactory>, ResolveError>;

/// Run the check: load every scenario (one bad file stops the check before anything
/// runs, naming every bad file), replay each as `request` says, then fuzz the stores
/// under test and shrink and save the first failure of each signature.
pub fn run_check(
    request: &CheckRequest<'_>,
    resolve: Resolver<'_>,
) -> Result<CheckReport, CampaignError> {
    let loaded = load_all(&request.scenarios_dir)?;
    let cases = match &request.under_test {
        None => own_store_cases(&loaded, resolve)?,
        Some(stores) => stores
            .iter()
            .flat_map(|store| {
                loaded.iter().map(|(path, sc)| ScenarioCase {
                    path: path.clone(),
                    scenario: sc.clone(),
                    store: Store::Borrowed(*store),
                    requirement: Requirement::Pass,
                })
            })
            .collect(),
    };
    let scenarios = replay_scenarios(&cases);
    let fuzzed = request.under_test.clone().unwrap_or_default();
    let (batches, failures) = if request.seeds == 0 {
        (Vec::new(), Vec::new())
    } else {
        fuzz_batches(
            &fuzzed,
            request.strategy,
            request.seed_start,
            request.seeds,
            request.jobs,
        )
    };
    let found = save_failures(&fuzzed, &failures, &request.out, request.limits)?;
    Ok(CheckReport {
        scenarios,
        strategy: request.strategy,
        seed_start: request.seed_start,
        batches,
        found,
    })
}

/// Every scenario under `dir`, or every problem with them.
fn load_all(dir: &Path) -> Result<Vec<(PathBuf, Scenario)>, CampaignError> {
    let files = scenario_files(dir).map_err(|e| {
        CampaignError::BadInput(format!(
            "cannot read the scenarios directory {}: {e}",
            dir.display()
        ))
    })?;
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for path in files {
        match crate::trace::scenario::load(&path) {
            Ok(sc) => loaded.push((path, sc)),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if errors.is_empty() {
        Ok(loaded)
    } else {
        Err(CampaignError::BadInput(errors.join("\nerror: ")))
    }
}

/// Each scenario on the store it names (each store resolved once), to reproduce its
/// `expect`.
fn own_store_cases(
    loaded: &[(PathBuf, Scenario)],
    resolve: Resolver<'_>,
) -> Result<Vec<ScenarioCase<'static>>, CampaignError> {
    let mut own: Vec<(String, std::sync::Arc<dyn StoreFactory>)> = Vec::new();
    let mut errors = Vec::new();
    for (path, sc) in loaded {
        if own.iter().any(|(n, _)| *n == sc.store) {
            continue;
        }
        match resolve(&sc.store) {
            Ok(s) => own.push((sc.store.clone(), std::sync::Arc::from(s))),
            Err(e) => errors.push(format!("{}: field `store`: {e}", path.display())),
        }
    }
    if !errors.is_empty() {
        return Err(CampaignError::BadInput(errors.join("\nerror: ")));
    }
    Ok(loaded
        .iter()
        .map(|(path, sc)| {
            let store = own.iter().find(|(n, _)| *n == sc.store).expect("resolved");
            ScenarioCase {
                path: path.clone(),
                scenario: sc.clone(),
                store: Store::Owned(std::sync::Arc::clone(&store.1)),
                requirement: Requirement::ReproduceExpect,
            }
        })
        .collect())
}

/// The whole check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Every scenario's replay, by file, for each store it was replayed on.
    pub scenarios: Vec<ScenarioResult>,
    /// How steps were chosen while fuzzing.
    pub strategy: StrategySpec,
    /// The first fuzzed seed (`--seed`, hashed when not a number), reported so that the
    /// same seeds can be run again.
    pub seed_start: u64,
    /// Every fuzz batch of every store under test; empty without `--store`.
    pub batches: Vec<FuzzBatch>,
    /// The first failure of each signature, shrunk and saved under `--out`.
    pub found: Vec<Found>,
}

impl CheckReport {
    /// The verdict: every scenario met its requirement and every batch passed (exit 0).
    pub fn ok(&self) -> bool {
        self.scenarios.iter().all(|s| s.ok) && self.batches.iter().all(FuzzBatch::ok)
    }
}

/// The report as JUnit XML: a suite of scenarios and a suite per fuzzed store, one
/// testcase per scenario and per batch. No timestamps, so the bytes are deterministic.
pub fn junit_xml(report: &CheckReport) -> String {
    let mut junit = Report::new("reconcile-sim check");
    let mut suite = TestSuite::new("scenarios");
    for s in &report.scenarios {
        let name = s.path.display().to_string();
        let status = if s.ok {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(scenario_message(s));
            st.set_description(format!("{}\nreplay: {}", scenario_message(s), s.replay));
            st
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("scenarios.{}", s.store));
        suite.add_test_case(tc);
    }
    junit.add_test_suite(suite);
    let mut stores: Vec<&str> = report.batches.iter().map(|b| b.store.as_str()).collect();
    stores.dedup();
    for store in stores {
        let mut suite = TestSuite::new(format!("fuzz {store}"));
        for b in report.batches.iter().filter(|b| b.store == store) {
            let name = format!("{store} seeds {}..{}", b.seed_start, b.seed_start + b.seeds);
            let status = if b.ok() {
                TestCaseStatus::success()
            } else {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                st.set_message(batch_message(b));
                let mut text = batch_message(b);
                for f in report.found.iter().filter(|f| {
                    f.store == b.store && f.seed >= b.seed_start && f.seed < b.seed_start + b.seeds
                }) {
                    text.push_str(&format!(
                        "\n{} (seed {}): reconcile-sim replay {}",
                        f.invariant,
                        f.seed,
                        f.path.display()
                    ));
                }
                st.set_description(text);
                st
            };
            let mut tc = TestCase::new(name, status);
            tc.set_classname(format!("fuzz.{store}"));
            suite.add_test_case(tc);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().expect("JUnit XML serialises")
}

/// One line about a scenario's result.
pub fn scenario_message(s: &ScenarioResult) -> String {
    let got = s.got.map_or("no violation".to_string(), |g| format!("{g}"));
    match s.requirement {
        Requirement::ReproduceExpect => match s.expect {
            Some(e) => format!("on {} expected {e}, got {got}", s.store),
            None => format!("on {} expected a pass, got {got}", s.store),
        },
        Requirement::Pass => format!("{} must break nothing, got {got}", s.store),
    }
}

/// One line about a batch's failures: `inv1-no-loss 12 seeds (first 3), …`.
pub fn batch_message(b: &FuzzBatch) -> String {
    b.failing
        .iter()
        .map(|(inv, n)| {
            format!(
                "{inv} on {n} seeds (first {})",
                b.first_failing_seed.get(inv).copied().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every `*.json` file under `dir`, recursively, in sorted order.
pub fn scenario_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_from_numbers_and_strings_are_stable() {
        assert_eq!(seed_start_from("42"), 42);
        // FNV-1a 64 of "" is the offset basis; cut to 48 bits.
        assert_eq!(
            seed_start_from(""),
            0xcbf2_9ce4_8422_2325 & 0xffff_ffff_ffff
        );
        let h = seed_start_from("2489cff");
        assert_eq!(h, seed_start_from("2489cff"));
        assert_ne!(h, seed_start_from("2489cfe"));
        assert!(h < 1 << 48);
    }

    #[test]
    fn batches_cover_the_budget_exactly() {
        let kind = crate::store::current::KIND;
        let (b, _) = fuzz_batches(&[&kind], StrategySpec::Random, 5, 2500, 1);
        assert_eq!(
            b.iter()
                .map(|b| (b.seed_start, b.seeds))
                .collect::<Vec<_>>(),
            vec![(5, 1000), (1005, 1000), (2005, 500)]
        );
    }
}
