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
//! [`BATCH_SEEDS`]; a batch is one JUnit testcase. Fuzzing tells root-cause classes apart
//! ([`crate::trace::class`]): the first seed of each class is shrunk (keeping the class)
//! and saved, once per class.
//!
//! **Known failures.** A store with bugs its team has not fixed yet can still be gated:
//! its known classes form a baseline, given as scenario files (`--known DIR`, or files
//! marked `known_failure` in the scenarios directory), each the minimal witness of one
//! class of the store it names. Then a scenario or a fuzzed seed failing with a known
//! class is accepted, one failing with any other class fails the check and names the new
//! class (shrunk and saved, ready to be fixed or added to the baseline), and a known
//! failure that no longer reproduces is reported as fixed (remove it from the baseline)
//! without failing the check.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::{Deserialize, Serialize};

use crate::campaign::error::CampaignError;
use crate::campaign::findings::Failure;
use crate::campaign::fuzz::{run_campaign, Budget, Campaign, CampaignOutcome, StoreSummary};
use crate::campaign::recheck::{check_determinism, settle, Suspect, DETERMINISM_SEEDS};
use crate::campaign::shard::Shard;
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::store::recorded::RecordedError;
use crate::trace::class::{classify, Class};
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Replayed on the store it names: must break exactly `expect` (or pass if null).
    ReproduceExpect,
    /// Replayed on the store under test: must break nothing, or only with a known class.
    Pass,
    /// A known failure replayed on its store under test: expected to show its class.
    KnownFailure,
}

/// What came of one scenario's replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScenarioVerdict {
    /// It did what it had to.
    Met,
    /// It failed with a class of the known baseline: accepted.
    Known,
    /// A known failure that no longer fails its way: the fix landed; remove the file from
    /// the baseline. Accepted.
    Fixed,
    /// It did not do what it had to (with no store under test: its `expect` or `class`).
    Failed,
    /// It failed on the store under test with a class the baseline does not hold.
    NewClass,
}

impl ScenarioVerdict {
    /// Whether the check accepts it.
    pub fn ok(self) -> bool {
        matches!(
            self,
            ScenarioVerdict::Met | ScenarioVerdict::Known | ScenarioVerdict::Fixed
        )
    }
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The root-cause class of what broke, if anything did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// For a crash: why the store crashed, with the adapter's stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
    /// Steps skipped because they were not enabled.
    pub skipped: usize,
    /// What came of it.
    pub verdict: ScenarioVerdict,
    /// It met its requirement (or failed only with a known class); one that did not fails
    /// the whole check.
    pub ok: bool,
    /// The command that replays it.
    pub replay: String,
}

/// Replay each case; a failure on a store under test is accepted when its class is in
/// `known` (that store's baseline, by store name).
pub fn replay_scenarios(cases: &[ScenarioCase<'_>], known: &Baseline) -> Vec<ScenarioResult> {
    cases
        .iter()
        // Ctrl-C: the scenarios not replayed yet are left out (the report says so).
        .take_while(|_| !crate::run::interrupt::requested())
        .map(|c| {
            let store = c.store.get();
            let sc = &c.scenario;
            let r = classify(store, sc.config.clone(), &sc.steps(), &sc.masked);
            let got = r.report.outcome.invariant();
            let verdict = match c.requirement {
                Requirement::ReproduceExpect => {
                    let class_ok = sc.class.is_none() || r.class == sc.class;
                    if got == sc.expect && class_ok {
                        ScenarioVerdict::Met
                    } else {
                        ScenarioVerdict::Failed
                    }
                }
                Requirement::Pass => match &r.class {
                    None => ScenarioVerdict::Met,
                    Some(class) if known.holds(&store.name(), class) => ScenarioVerdict::Known,
                    Some(_) if known.covers(&store.name()) => ScenarioVerdict::NewClass,
                    Some(_) => ScenarioVerdict::Failed,
                },
                Requirement::KnownFailure => match (&r.class, &sc.class) {
                    (Some(got), Some(want)) if got == want => ScenarioVerdict::Known,
                    (Some(got), None) if known.holds(&store.name(), got) => ScenarioVerdict::Known,
                    (Some(got), _) if !known.holds(&store.name(), got) => ScenarioVerdict::NewClass,
                    _ => ScenarioVerdict::Fixed,
                },
            };
            let mut replay = crate::campaign::findings::replay_command(&c.path);
            if store.name() != sc.store {
                replay.push_str(&format!(" --store {}", shell_words::quote(&store.name())));
            } else if sc.store.starts_with(crate::exec::SPEC_PREFIX) {
                replay.push_str(" --allow-exec");
            }
            ScenarioResult {
                path: c.path.clone(),
                store: store.name(),
                requirement: c.requirement,
                expect: sc.expect,
                got,
                class: r.class,
                cause: Failure::cause_of(&r.report.outcome),
                skipped: r.report.skipped.len(),
                verdict,
                ok: verdict.ok(),
                replay,
            }
        })
        .collect()
}

/// The known classes of each store under test: the classes of its known failures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// (store name, class, the file that stands for it).
    pub classes: Vec<(String, Class, PathBuf)>,
}

impl Baseline {
    /// Whether `class` is a known class of `store`.
    pub fn holds(&self, store: &str, class: &Class) -> bool {
        self.classes
            .iter()
            .any(|(s, c, _)| s == store && c == class)
    }

    /// Whether `store` has known classes at all (then a failure of another class is a
    /// new class; without, it is simply a failure).
    pub fn covers(&self, store: &str) -> bool {
        self.classes.iter().any(|(s, _, _)| s == store)
    }
}

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
fn run_batch(
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
fn batch_of(
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
fn add_new_first_failures(first: &mut Vec<Failure>, failures: Vec<Failure>, known: &Baseline) {
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

/// A failure the fuzzer found, shrunk and saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The store.
    pub store: String,
    /// The invariant it breaks.
    pub invariant: Invariant,
    /// Its root-cause class (new: not in the store's baseline).
    pub class: Option<Class>,
    /// The first failing seed (none for a failure a scenario file showed).
    pub seed: Option<u64>,
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
    /// For a crash: the cause in the run that found it, with the adapter's stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
    /// The world features the saved witness needs ([`crate::trace::assume`]).
    #[serde(default)]
    pub needs: Vec<crate::trace::assume::Assumption>,
    /// Why the file could not be written, if it could not (the check then fails with it,
    /// after reporting everything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_error: Option<String>,
}

/// Recheck each failure (on the store of `stores` it names), then shrink and save those
/// that happen again under `out_dir`; those that do not are suspects (flaky, or a state
/// leak), their trace saved as found.
pub fn save_failures(
    stores: &[&dyn StoreFactory],
    failures: &[Failure],
    out_dir: &Path,
    limits: Limits,
) -> (Vec<(Found, String)>, Vec<Suspect>) {
    let settled = settle(stores, failures, out_dir, limits, None, &|_, _| {});
    let found = settled
        .findings
        .into_iter()
        .map(|finding| {
            let found = Found {
                store: finding.store,
                invariant: finding.invariant,
                class: finding.class,
                seed: finding.seed,
                path: finding.path,
                steps: finding.shrunk.steps.len(),
                original_steps: finding.shrunk.original_steps,
                one_minimal: finding.shrunk.gave_up.is_none(),
                gave_up: finding.shrunk.gave_up.map(|g| g.to_string()),
                cause: finding.cause,
                needs: finding.needs,
                write_error: finding.write_error,
            };
            (found, finding.text)
        })
        .collect();
    (found, settled.suspects)
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
    /// A directory of known failures (`--known`): scenario files, each a known class of
    /// the store it names.
    pub known: Option<PathBuf>,
    /// The part of the check to run ([`crate::campaign::shard`]): shard `I/N` fuzzes the
    /// batches `b` with `b mod N = I − 1`, and only shard 1 replays the scenarios and runs
    /// the determinism check (every shard loads the scenarios and computes the baseline).
    /// [`Shard::WHOLE`] runs everything.
    pub shard: Shard,
    /// Run the first seeds of each store under test again and compare (see
    /// [`crate::campaign::recheck::check_determinism`]): `nondeterministic` and
    /// `state-leak` findings fail the check. The CLI turns it on for `exec:` stores.
    pub determinism: bool,
    /// Accept a check with no scenario file at all (`--allow-empty`); otherwise it is an
    /// error, so that a gate pointed at the wrong (or an emptied) folder cannot pass.
    pub allow_empty: bool,
    /// What `--world` pins in the fuzzed seeds' worlds, and the invariants judged (in
    /// the fuzzed runs and, when chosen, in every scenario's replay too).
    pub worlds: Worlds,
}

/// Resolves the store scenario file `path` names (a name, or `exec:`, which runs where the
/// file recorded it, and only with the user's consent: see [`crate::store::recorded`]).
pub type Resolver<'a> =
    &'a dyn Fn(&Path, &Scenario) -> Result<Box<dyn StoreFactory>, RecordedError>;

/// Run the check: load every scenario (one bad file stops the check before anything
/// runs, naming every bad file), replay each as `request` says, then fuzz the stores
/// under test and shrink and save the first failure of each class the baseline does not
/// hold.
pub fn run_check(
    request: &CheckRequest<'_>,
    resolve: Resolver<'_>,
) -> Result<CheckReport, CampaignError> {
    run_check_saving(request, resolve).map(|(report, _)| report)
}

/// [`run_check`], also returning the contents of each of `report.found`'s scenario files,
/// in order (for a `--result` file, which carries them even when a file could not be
/// written).
pub fn run_check_saving(
    request: &CheckRequest<'_>,
    resolve: Resolver<'_>,
) -> Result<(CheckReport, Vec<String>), CampaignError> {
    let loaded = load_scenarios(request)?;
    let (cases, baseline) = cases_of(request, &loaded, resolve)?;
    let scenarios = replay_scenarios(&cases, &baseline);
    let fuzzed = request.under_test.clone().unwrap_or_default();
    let (batches, mut failures) = if request.seeds == 0 {
        (Vec::new(), Vec::new())
    } else {
        fuzz_batches_shard(
            &fuzzed,
            request.strategy,
            request.seed_start,
            request.seeds,
            request.jobs,
            &baseline,
            (request.shard, &request.worlds),
        )
    };
    failures.extend(new_class_failures(&scenarios, &cases, &failures));
    let (saved, mut suspects) = save_failures(&fuzzed, &failures, &request.out, request.limits);
    let (found, texts) = saved.into_iter().unzip();
    let determinism_seeds = determinism_check(request, &fuzzed, &mut suspects);
    let report = CheckReport {
        scenarios,
        strategy: request.strategy,
        seed_start: request.seed_start,
        batches,
        baseline,
        found,
        determinism_seeds,
        suspects,
        interrupted: crate::run::interrupt::requested(),
        worlds: request.worlds.clone(),
    };
    Ok((report, texts))
}

/// The scenarios to replay: those under `--scenarios` (but not the files under `--known`
/// too), then the known failures, each marked so. No scenario at all is an error unless
/// `--allow-empty`: a gate pointed at the wrong folder must not pass.
fn load_scenarios(request: &CheckRequest<'_>) -> Result<Vec<(PathBuf, Scenario)>, CampaignError> {
    let known_dir = match &request.known {
        Some(dir) => Some(load_all(dir)?),
        None => None,
    };
    let skip: Vec<PathBuf> = known_dir
        .iter()
        .flatten()
        .filter_map(|(p, _)| p.canonicalize().ok())
        .collect();
    let mut loaded: Vec<(PathBuf, Scenario)> = load_all(&request.scenarios_dir)?
        .into_iter()
        .filter(|(p, _)| !p.canonicalize().is_ok_and(|c| skip.contains(&c)))
        .collect();
    if loaded.is_empty() && known_dir.as_ref().is_none_or(Vec::is_empty) && !request.allow_empty {
        return Err(CampaignError::BadInput(format!(
            "no scenario files (*.json) under {}: nothing to replay, so the check would prove nothing; point --scenarios at the scenarios, or pass --allow-empty to check without any",
            request.scenarios_dir.display()
        )));
    }
    if let Some(known) = known_dir {
        loaded.extend(known.into_iter().map(|(p, mut sc)| {
            sc.known_failure = true;
            (p, sc)
        }));
    }
    // `--invariants` / `--skip` judge the replays too (a file's own choice otherwise).
    if !request.worlds.judged.is_all() {
        for (_, sc) in &mut loaded {
            sc.config.judged = request.worlds.judged;
        }
    }
    Ok(loaded)
}

/// What to replay (each scenario on its own store, or on every store under test) and the
/// baseline of known classes. Every shard computes the baseline; only shard 1 replays.
fn cases_of<'a>(
    request: &CheckRequest<'a>,
    loaded: &[(PathBuf, Scenario)],
    resolve: Resolver<'_>,
) -> Result<(Vec<ScenarioCase<'a>>, Baseline), CampaignError> {
    let (cases, baseline) = match &request.under_test {
        None => (own_store_cases(loaded, resolve)?, Baseline::default()),
        Some(stores) => {
            let baseline = baseline_of(loaded, stores, request.known.as_deref())?;
            (store_cases(loaded, stores), baseline)
        }
    };
    let cases = if request.shard.index == 1 {
        cases
    } else {
        Vec::new()
    };
    Ok((cases, baseline))
}

/// With `--check-determinism`, on shard 1, unless interrupted: runs the first seeds of
/// each fuzzed store again and adds what differs to `suspects`. Returns how many seeds it
/// ran again (0 when it did not run).
fn determinism_check(
    request: &CheckRequest<'_>,
    fuzzed: &[&dyn StoreFactory],
    suspects: &mut Vec<Suspect>,
) -> u64 {
    if request.determinism
        && request.shard.index == 1
        && !fuzzed.is_empty()
        && request.seeds > 0
        && !crate::run::interrupt::requested()
    {
        let n = DETERMINISM_SEEDS.min(request.seeds);
        suspects.extend(check_determinism(
            fuzzed,
            request.strategy,
            &request.worlds,
            request.seed_start..request.seed_start + n,
            &request.out,
        ));
        n
    } else {
        0
    }
}

/// Every scenario on every store under test: a known failure of that store must show its
/// class, any other scenario must pass (or fail only with a known class).
fn store_cases<'a>(
    loaded: &[(PathBuf, Scenario)],
    stores: &[&'a dyn StoreFactory],
) -> Vec<ScenarioCase<'a>> {
    stores
        .iter()
        .flat_map(|store| {
            loaded.iter().map(|(path, sc)| ScenarioCase {
                path: path.clone(),
                scenario: sc.clone(),
                store: Store::Borrowed(*store),
                requirement: if sc.known_failure && sc.store == store.name() {
                    Requirement::KnownFailure
                } else {
                    Requirement::Pass
                },
            })
        })
        .collect()
}

/// The baseline of the stores under test: the class of each known failure of one of them
/// (its `class`, or the class its replay shows when the file has none). With `--known DIR`,
/// a directory none of whose files names a store under test is an error (a typo, or the
/// wrong store).
fn baseline_of(
    loaded: &[(PathBuf, Scenario)],
    stores: &[&dyn StoreFactory],
    known_dir: Option<&Path>,
) -> Result<Baseline, CampaignError> {
    let mut baseline = Baseline::default();
    for (path, sc) in loaded.iter().filter(|(_, sc)| sc.known_failure) {
        let Some(store) = stores.iter().find(|s| s.name() == sc.store) else {
            continue;
        };
        let class = match &sc.class {
            Some(c) => Some(c.clone()),
            None => classify(*store, sc.config.clone(), &sc.steps(), &sc.masked).class,
        };
        if let Some(class) = class {
            baseline
                .classes
                .push((sc.store.clone(), class, path.clone()));
        }
    }
    if let Some(dir) = known_dir {
        let any = loaded
            .iter()
            .any(|(_, sc)| sc.known_failure && stores.iter().any(|s| s.name() == sc.store));
        if !any {
            let names: Vec<String> = stores.iter().map(|s| s.name()).collect();
            return Err(CampaignError::BadInput(format!(
                "--known {}: no known failure there is of a store under test ({}); each file's `store` names the store it is a known failure of",
                dir.display(),
                names.join(", ")
            )));
        }
    }
    Ok(baseline)
}

/// A failure for each new class a scenario showed on a store under test (the first
/// scenario of each class, unless fuzzing found the class too), to shrink and save.
fn new_class_failures(
    results: &[ScenarioResult],
    cases: &[ScenarioCase<'_>],
    fuzzed: &[Failure],
) -> Vec<Failure> {
    let mut out: Vec<Failure> = Vec::new();
    for (r, c) in results.iter().zip(cases) {
        let (ScenarioVerdict::NewClass, Some(class)) = (r.verdict, &r.class) else {
            continue;
        };
        let seen = fuzzed
            .iter()
            .chain(&out)
            .any(|f| f.store == r.store && f.class.as_ref() == Some(class));
        if seen {
            continue;
        }
        out.push(Failure {
            store: r.store.clone(),
            invariant: r.got.expect("a class is of a failure"),
            seed: None,
            strategy: Some("scenario".to_string()),
            description: Some(format!("shown by {}", r.path.display())),
            config: c.scenario.config.clone(),
            steps: c.scenario.steps(),
            class: Some(class.clone()),
            mask: c.scenario.masked.clone(),
            cause: r.cause.clone(),
            without: Vec::new(),
            pins: c.scenario.world_pins.clone(),
        });
    }
    out
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
    // A store is resolved once per name and recorded directory (an `exec:` command
    // recorded in two places may mean two programs).
    type Key = (String, Option<String>, Option<PathBuf>);
    let key = |path: &Path, sc: &Scenario| -> Key {
        let dir = sc
            .store
            .starts_with(crate::exec::SPEC_PREFIX)
            .then(|| path.parent().map(Path::to_path_buf))
            .flatten();
        (sc.store.clone(), sc.store_dir.clone(), dir)
    };
    let mut own: Vec<(Key, std::sync::Arc<dyn StoreFactory>)> = Vec::new();
    let mut errors = Vec::new();
    for (path, sc) in loaded {
        let k = key(path, sc);
        if own.iter().any(|(n, _)| *n == k) {
            continue;
        }
        match resolve(path, sc) {
            Ok(s) => own.push((k, std::sync::Arc::from(s))),
            Err(e) => errors.push(format!("{}: field `store`: {e}", path.display())),
        }
    }
    if !errors.is_empty() {
        return Err(CampaignError::BadInput(errors.join("\nerror: ")));
    }
    Ok(loaded
        .iter()
        .map(|(path, sc)| {
            let k = key(path, sc);
            let store = own.iter().find(|(n, _)| *n == k).expect("resolved");
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The known classes of the stores under test.
    pub baseline: Baseline,
    /// The first failure of each new class, shrunk and saved under `--out`.
    pub found: Vec<Found>,
    /// Seeds of each store under test run again by the determinism check (0: not run).
    pub determinism_seeds: u64,
    /// Failures that did not happen again (`flaky`), and stores whose runs depend on the
    /// process that served them (`state-leak`) or on nothing in their input
    /// (`nondeterministic`): each fails the check.
    pub suspects: Vec<Suspect>,
    /// Ctrl-C stopped the check early: what ran is reported, the rest did not run.
    pub interrupted: bool,
    /// What `--world` pinned and which invariants were judged (absent: the default).
    #[serde(default, skip_serializing_if = "Worlds::is_default")]
    pub worlds: Worlds,
}

impl CheckReport {
    /// The verdict: every scenario met its requirement, every batch passed and no second
    /// look found a store unstable (exit 0).
    pub fn ok(&self) -> bool {
        self.scenarios.iter().all(|s| s.ok)
            && self.batches.iter().all(FuzzBatch::ok)
            && self.suspects.is_empty()
    }
}

/// The report as JUnit XML: a suite of scenarios and a suite per fuzzed store, one
/// testcase per scenario and per batch. No timestamps, so the bytes are deterministic.
pub fn junit_xml(report: &CheckReport) -> String {
    let mut junit = Report::new("reconcile-sim check");
    junit.add_test_suite(scenarios_suite(report));
    let mut stores: Vec<&str> = report.batches.iter().map(|b| b.store.as_str()).collect();
    stores.dedup();
    for store in stores {
        junit.add_test_suite(fuzz_suite(report, store));
    }
    if let Some(suite) = stability_suite(report) {
        junit.add_test_suite(suite);
    }
    junit.to_string().expect("JUnit XML serialises")
}

/// One testcase per scenario replayed; a failure says what was expected and got, the
/// crash cause if any, and the replay command.
fn scenarios_suite(report: &CheckReport) -> TestSuite {
    let mut suite = TestSuite::new("scenarios");
    for s in &report.scenarios {
        let name = s.path.display().to_string();
        let status = if s.ok {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(scenario_message(s));
            let mut text = scenario_message(s);
            push_cause(&mut text, s.cause.as_ref());
            text.push_str(&format!("\nreplay: {}", s.replay));
            st.set_description(text);
            st
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("scenarios.{}", s.store));
        suite.add_test_case(tc);
    }
    suite
}

/// One testcase per batch fuzzed on `store`.
fn fuzz_suite(report: &CheckReport, store: &str) -> TestSuite {
    let mut suite = TestSuite::new(format!("fuzz {store}"));
    for b in report.batches.iter().filter(|b| b.store == store) {
        let name = format!("{store} seeds {}..{}", b.seed_start, b.seed_start + b.seeds);
        let status = if b.ok() {
            TestCaseStatus::success()
        } else {
            batch_failure(report, b)
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("fuzz.{store}"));
        suite.add_test_case(tc);
    }
    suite
}

/// A failing batch's testcase status: its new classes, the cause of each new crash
/// class, and the replay command of each new class saved from the batch's seeds.
fn batch_failure(report: &CheckReport, b: &FuzzBatch) -> TestCaseStatus {
    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
    st.set_message(batch_message(b));
    let mut text = batch_message(b);
    for c in b.new_classes().filter(|c| c.cause.is_some()) {
        text.push_str(&format!("\n{} (seed {}):", c.name, c.first_seed));
        push_cause(&mut text, c.cause.as_ref());
    }
    for f in report.found.iter().filter(|f| {
        f.store == b.store
            && f.seed
                .is_some_and(|s| s >= b.seed_start && s < b.seed_start + b.seeds)
    }) {
        text.push_str(&format!(
            "\nnew class: {} (seed {}; {}): {}",
            f.class
                .as_ref()
                .map_or(f.invariant.to_string(), |c| c.to_string()),
            f.seed.unwrap_or_default(),
            crate::trace::assume::describe(&f.needs),
            crate::campaign::findings::replay_command_for(&f.store, &f.path)
        ));
    }
    st.set_description(text);
    st
}

/// One testcase per store a second look judged (a store with a suspect, or every fuzzed
/// store when the determinism check ran): it fails with the suspects found. `None` when no
/// store was looked at again.
fn stability_suite(report: &CheckReport) -> Option<TestSuite> {
    let mut suspects_by_store: Vec<&str> =
        report.suspects.iter().map(|s| s.store.as_str()).collect();
    if report.determinism_seeds > 0 {
        suspects_by_store.extend(report.batches.iter().map(|b| b.store.as_str()));
    }
    suspects_by_store.sort();
    suspects_by_store.dedup();
    if suspects_by_store.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new("stability");
    for store in suspects_by_store {
        let mine: Vec<&Suspect> = report
            .suspects
            .iter()
            .filter(|s| s.store == store)
            .collect();
        let status = if mine.is_empty() {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let mut kinds: Vec<String> = mine.iter().map(|s| s.kind.to_string()).collect();
            kinds.dedup();
            st.set_message(format!("{store}: {}", kinds.join(", ")));
            st.set_description(crate::campaign::recheck::format_suspects(
                &mine.into_iter().cloned().collect::<Vec<_>>(),
            ));
            st
        };
        let mut tc = TestCase::new(
            format!("{store} answers by its inputs alone (replayed failures, repeated seeds, fresh processes)"),
            status,
        );
        tc.set_classname(format!("stability.{store}"));
        suite.add_test_case(tc);
    }
    Some(suite)
}

/// A crash's cause and stderr tail, one line each, after `text`.
fn push_cause(text: &mut String, cause: Option<&CrashCause>) {
    for line in cause.map(CrashCause::lines).unwrap_or_default() {
        text.push_str("\n  ");
        text.push_str(&line);
    }
}

/// One line about a scenario's result.
pub fn scenario_message(s: &ScenarioResult) -> String {
    let got = match (s.got, &s.class) {
        (None, _) => "no violation".to_string(),
        (Some(g), Some(c)) => format!("{g} ({c})"),
        (Some(g), None) => g.to_string(),
    };
    match (s.requirement, s.verdict) {
        (_, ScenarioVerdict::Known) => format!("on {}: known class, {got}", s.store),
        (_, ScenarioVerdict::Fixed) => format!(
            "on {}: a known failure that no longer fails its way (got {got}): the fix landed, remove it from the baseline",
            s.store
        ),
        (_, ScenarioVerdict::NewClass) => format!("on {}: NEW class, {got}", s.store),
        (Requirement::ReproduceExpect, _) => match s.expect {
            Some(e) => format!("on {} expected {e}, got {got}", s.store),
            None => format!("on {} expected a pass, got {got}", s.store),
        },
        (_, _) => format!("{} must break nothing, got {got}", s.store),
    }
}

/// One line about a batch's failures: its new classes (`NEW class …, 12 seeds (first 3)`)
/// and how many known ones it showed.
pub fn batch_message(b: &FuzzBatch) -> String {
    let label = if b.classes.iter().any(|c| c.known) {
        "NEW class"
    } else {
        "class"
    };
    let mut parts: Vec<String> = b
        .new_classes()
        .map(|c| {
            format!(
                "{label} {} on {} seeds (first {})",
                c.name, c.seeds, c.first_seed
            )
        })
        .collect();
    let known = b.classes.iter().filter(|c| c.known).count();
    if known > 0 {
        parts.push(format!("{known} known classes"));
    }
    if b.classes.is_empty() && !b.failing.is_empty() {
        parts.push(format!(
            "{} failing seeds with no class (the store's runs do not repeat)",
            b.failing.values().sum::<u64>()
        ));
    }
    parts.join(", ")
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
        let kind = crate::store::note::current::KIND;
        let (b, _) = fuzz_batches(
            &[&kind],
            StrategySpec::Random,
            5,
            2500,
            1,
            &Baseline::default(),
        );
        assert_eq!(
            b.iter()
                .map(|b| (b.seed_start, b.seeds))
                .collect::<Vec<_>>(),
            vec![(5, 1000), (1005, 1000), (2005, 500)]
        );
    }

    /// A class `current` shows: the first of its known failures' kind.
    fn a_class() -> Class {
        Class {
            effect: crate::trace::class::Effect::Lingers,
            subject: crate::trace::class::Subject::Any,
            trigger: None,
        }
    }

    /// A report of one `current` batch whose only failing class is `class`, known or not.
    fn report_with(known: bool, suspects: Vec<Suspect>) -> CheckReport {
        let class = a_class();
        let baseline = Baseline {
            classes: if known {
                vec![("current".into(), class.clone(), PathBuf::from("k.json"))]
            } else {
                Vec::new()
            },
        };
        CheckReport {
            scenarios: Vec::new(),
            strategy: StrategySpec::Random,
            seed_start: 0,
            batches: vec![FuzzBatch {
                store: "current".into(),
                seed_start: 0,
                seeds: 10,
                failing: BTreeMap::from([(Invariant::Converges, 1)]),
                first_failing_seed: BTreeMap::from([(Invariant::Converges, 3)]),
                classes: vec![BatchClass {
                    name: class.to_string(),
                    class: class.clone(),
                    seeds: 1,
                    first_seed: 3,
                    known: baseline.holds("current", &class),
                    cause: None,
                }],
            }],
            baseline,
            found: Vec::new(),
            determinism_seeds: 0,
            suspects,
            interrupted: false,
            worlds: Worlds::default(),
        }
    }

    fn suspect(kind: crate::campaign::recheck::SuspectKind) -> Suspect {
        Suspect {
            kind,
            store: "current".into(),
            seed: Some(3),
            invariant: Some(Invariant::Converges),
            class: Some(a_class()),
            cause: None,
            why: "it did not happen again".into(),
            scenario: None,
            write_error: None,
        }
    }

    /// Issue 36, behaviour 3: a suspect fails the check, whatever else passed, even when
    /// its class is in the `--known` baseline (a known class excuses a failure that
    /// happens again, not one that does not).
    #[test]
    fn a_suspect_fails_the_check_even_when_its_class_is_known() {
        use crate::campaign::recheck::SuspectKind;
        assert!(
            !report_with(false, Vec::new()).ok(),
            "an unknown class fails"
        );
        assert!(
            report_with(true, Vec::new()).ok(),
            "a known class alone passes"
        );
        for kind in [
            SuspectKind::Flaky,
            SuspectKind::StateLeak,
            SuspectKind::Nondeterministic,
        ] {
            assert!(
                !report_with(true, vec![suspect(kind)]).ok(),
                "{kind:?}, known"
            );
            assert!(!report_with(false, vec![suspect(kind)]).ok(), "{kind:?}");
            let mut only_suspect = report_with(true, vec![suspect(kind)]);
            only_suspect.batches[0].failing.clear();
            only_suspect.batches[0].classes.clear();
            assert!(!only_suspect.ok(), "{kind:?}, nothing else found");
        }
    }

    /// Issue 36, behaviour 4: a known class is known for the store whose file recorded it,
    /// not for every store.
    #[test]
    fn a_baseline_holds_a_class_for_its_own_store_only() {
        let class = a_class();
        let b = Baseline {
            classes: vec![("current".into(), class.clone(), PathBuf::from("k.json"))],
        };
        assert!(b.holds("current", &class));
        assert!(!b.holds("naive", &class));
        assert!(b.covers("current"));
        assert!(!b.covers("naive"));
        let other = Class {
            effect: crate::trace::class::Effect::EndsWrong,
            ..class
        };
        assert!(!b.holds("current", &other));
    }
}
