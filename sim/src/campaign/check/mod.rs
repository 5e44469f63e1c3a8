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

use crate::campaign::error::CampaignError;
use crate::campaign::recheck::{check_determinism, Suspect, DETERMINISM_SEEDS};
use crate::campaign::settle_budget::Timing;
use crate::model::store::StoreFactory;
use std::time::Instant;

mod baseline;
mod batches;
mod cases;
mod found;
mod junit;
mod report;
mod request;
mod scenarios;

pub use baseline::*;
pub use batches::*;
pub use cases::*;
pub use found::*;
pub use junit::*;
pub use report::*;
pub use request::*;
pub use scenarios::*;

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
    run_check_timed(request, resolve).map(|(report, texts, _)| (report, texts))
}

/// [`run_check_saving`], also returning how long the campaign (the scenarios replayed and
/// the seeds fuzzed) and settling (the new classes rechecked, shrunk and saved, the
/// determinism check) took: settling within `request.settle` of the campaign's time.
pub fn run_check_timed(
    request: &CheckRequest<'_>,
    resolve: Resolver<'_>,
) -> Result<(CheckReport, Vec<String>, Timing), CampaignError> {
    let started = Instant::now();
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
    let campaign = started.elapsed();
    let settle_start = Instant::now();
    // Only new classes are settled (`fuzz_batches_shard` keeps no failure of a class the
    // baseline holds): a known class costs no recheck, shrink or needs search.
    let deadline = request.settle.deadline(campaign, settle_start, None);
    let (saved, mut suspects) = save_failures(
        &fuzzed,
        &failures,
        &request.out,
        request.limits,
        request.jobs,
        deadline,
    );
    let (found, texts) = saved.into_iter().unzip();
    let determinism_seeds = if deadline.is_none_or(|d| Instant::now() < d) {
        determinism_check(request, &fuzzed, &mut suspects)
    } else {
        0
    };
    let timing = Timing {
        campaign,
        settle: settle_start.elapsed(),
        settle_budget: deadline.map(|d| d.saturating_duration_since(settle_start)),
        budget: request.settle,
    };
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
    Ok((report, texts, timing))
}

/// With `--check-determinism`, on shard 1, unless interrupted: runs the first seeds of
/// each fuzzed store again and adds what differs to `suspects`. Returns how many seeds it
/// ran again (0 when it did not run).
pub(super) fn determinism_check(
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

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::oracle::Invariant;
    use crate::run::strategy::StrategySpec;
    use crate::run::worlds::Worlds;
    use crate::trace::class::Class;

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
    /// A found failure of `store`'s seed `seed` in class `c`, shrunk from 9 steps to 2,
    /// written (for the report's and the JUnit file's tests).
    pub(super) fn found(store: &str, seed: u64, c: Class) -> Found {
        Found {
            store: store.into(),
            invariant: Invariant::Converges,
            class: Some(c),
            seed: Some(seed),
            path: PathBuf::from(format!("out/{store}-seed{seed}.json")),
            steps: 2,
            original_steps: 9,
            one_minimal: true,
            gave_up: None,
            cause: None,
            needs: Vec::new(),
            needs_unsearched: false,
            write_error: None,
            localized: None,
        }
    }

    fn a_class() -> Class {
        Class {
            effect: crate::trace::class::Effect::Lingers,
            subject: crate::trace::class::Subject::Any,
            trigger: None,
        }
    }

    /// A random-strategy report of no scenario and no baseline, not interrupted: the
    /// fixture the JUnit file's and `merge`'s tests vary.
    pub(crate) fn a_report(
        batches: Vec<FuzzBatch>,
        found: Vec<Found>,
        determinism_seeds: u64,
        suspects: Vec<Suspect>,
    ) -> CheckReport {
        CheckReport {
            scenarios: Vec::new(),
            strategy: StrategySpec::Random,
            seed_start: 0,
            batches,
            baseline: Baseline::default(),
            found,
            determinism_seeds,
            suspects,
            interrupted: false,
            worlds: Worlds::default(),
        }
    }

    /// A suspect of `kind` on `store`'s seed `seed`, of no class.
    pub(crate) fn a_suspect(
        store: &str,
        seed: u64,
        kind: crate::campaign::recheck::SuspectKind,
    ) -> Suspect {
        Suspect {
            kind,
            store: store.into(),
            seed: Some(seed),
            invariant: Some(Invariant::Converges),
            class: None,
            cause: None,
            why: "two runs of the seed differ".into(),
            scenario: None,
            write_error: None,
        }
    }

    /// Each suspect as (store, seed, kind), in the report's order.
    pub(crate) fn suspect_order(
        suspects: &[Suspect],
    ) -> Vec<(&str, Option<u64>, crate::campaign::recheck::SuspectKind)> {
        suspects
            .iter()
            .map(|s| (s.store.as_str(), s.seed, s.kind))
            .collect()
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

    /// Why files could not be written, in the report's order: each found failure's, then
    /// each suspect's; files written give nothing.
    #[test]
    fn the_write_errors_are_each_found_failure_s_then_each_suspect_s() {
        use crate::campaign::recheck::SuspectKind;
        let found = |write_error: Option<&str>| Found {
            write_error: write_error.map(str::to_string),
            ..found("current", 3, a_class())
        };
        let mut report = report_with(false, Vec::new());
        assert_eq!(report.write_errors(), Vec::<String>::new());
        report.found = vec![
            found(Some("f1: disk full")),
            found(None),
            found(Some("f3: denied")),
        ];
        let mut unwritten = suspect(SuspectKind::Flaky);
        unwritten.write_error = Some("s1: denied".into());
        report.suspects = vec![suspect(SuspectKind::StateLeak), unwritten];
        assert_eq!(
            report.write_errors(),
            vec!["f1: disk full", "f3: denied", "s1: denied"]
        );
    }

    /// Stands for an adapter whose reused processes keep state: they run `naive`, while a
    /// fresh process runs `current`.
    struct Leaky;
    impl StoreFactory for Leaky {
        fn name(&self) -> String {
            "exec:leaky".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            crate::store::by_name("naive").unwrap().make(c)
        }
        fn fresh(&self) -> Option<Box<dyn StoreFactory>> {
            Some(Box::new(crate::store::by_name("current").unwrap()))
        }
    }

    /// A request to check `out`'s scenarios on `stores`, `seeds` seeds from `seed_start`,
    /// with the determinism check on.
    fn request<'a>(
        out: &std::path::Path,
        stores: Vec<&'a dyn StoreFactory>,
        seed_start: u64,
        seeds: u64,
    ) -> CheckRequest<'a> {
        CheckRequest {
            scenarios_dir: out.to_path_buf(),
            scenarios_named: true,
            under_test: Some(stores),
            seeds,
            seed_start,
            strategy: StrategySpec::Random,
            jobs: 1,
            out: out.to_path_buf(),
            limits: Default::default(),
            known: None,
            shard: crate::campaign::shard::Shard::WHOLE,
            determinism: true,
            allow_empty: true,
            worlds: Worlds::default(),
            html: false,
            settle: crate::campaign::settle_budget::SettleBudget::Unbounded,
        }
    }

    /// `--check-determinism` runs the first seeds (at most [`DETERMINISM_SEEDS`]) of each
    /// fuzzed store again, on shard 1 only, and only when there is something fuzzed; a
    /// store that answers otherwise in a fresh process is a suspect, at one of those seeds.
    #[test]
    fn the_determinism_check_runs_the_first_seeds_again_on_shard_one_only() {
        let dir = tempfile::tempdir().unwrap();
        let current = crate::store::by_name("current").unwrap();
        let run = |r: &CheckRequest<'_>| {
            let fuzzed = r.under_test.clone().unwrap();
            let mut suspects = Vec::new();
            let n = determinism_check(r, &fuzzed, &mut suspects);
            (n, suspects)
        };
        assert_eq!(DETERMINISM_SEEDS, 4);
        let r = request(dir.path(), vec![&current], 0, 10);
        assert_eq!(run(&r), (4, Vec::new()), "current answers by its inputs");
        assert_eq!(
            run(&request(dir.path(), vec![&current], 7, 2)),
            (2, Vec::new())
        );
        let (n, suspects) = run(&request(dir.path(), vec![&current, &Leaky], 0, 10));
        assert_eq!(n, 4);
        assert_eq!(suspects.len(), 1, "{suspects:?}");
        let s = &suspects[0];
        assert_eq!(s.store, "exec:leaky");
        assert!(s.seed.is_some_and(|seed| seed < 4), "{s:?}");
        let mut suspects = vec![suspect(crate::campaign::recheck::SuspectKind::Flaky)];
        let r = request(dir.path(), vec![&Leaky], 0, 10);
        assert_eq!(determinism_check(&r, &[&Leaky], &mut suspects), 4);
        assert_eq!(suspects.len(), 2, "added to those there were");
        assert_eq!(suspects[1].store, "exec:leaky");

        let not_run = |r: CheckRequest<'_>, why: &str| {
            assert_eq!(run(&r), (0, Vec::new()), "{why}");
        };
        let mut r = request(dir.path(), vec![&Leaky], 0, 10);
        r.determinism = false;
        not_run(r, "not asked");
        let mut r = request(dir.path(), vec![&Leaky], 0, 10);
        r.shard = crate::campaign::shard::Shard::new(2, 2).unwrap();
        not_run(r, "shard 2");
        not_run(request(dir.path(), Vec::new(), 0, 10), "no store fuzzed");
        not_run(request(dir.path(), vec![&Leaky], 0, 0), "no seed fuzzed");
    }

    /// A whole check on a store under test with its known failures as the baseline: every
    /// known file replayed and known, the budget fuzzed in batches from the first seed,
    /// the determinism check run; the saved files' texts come back, one per found failure.
    #[test]
    fn a_check_replays_fuzzes_and_runs_the_determinism_check() {
        let out = tempfile::tempdir().unwrap();
        let known = crate::testing::repo_file("scenarios/known/current");
        let current = crate::store::by_name("current").unwrap();
        let mut r = request(out.path(), vec![&current], 5, 1500);
        r.scenarios_dir = known.clone();
        r.known = Some(known.clone());
        r.allow_empty = false;
        let resolve =
            |_: &std::path::Path,
             _: &crate::trace::scenario::Scenario|
             -> Result<Box<dyn StoreFactory>, crate::store::recorded::RecordedError> {
                panic!("the store under test is not resolved")
            };
        let (report, texts) = run_check_saving(&r, &resolve).unwrap();
        let baseline = super::scenario_files(&known).unwrap().len();
        assert!(baseline >= 14, "{baseline}");
        assert_eq!(report.scenarios.len(), baseline);
        assert!(report
            .scenarios
            .iter()
            .all(|s| s.store == "current" && s.verdict == ScenarioVerdict::Known));
        assert_eq!(report.baseline.classes.len(), baseline);
        assert_eq!(
            report
                .batches
                .iter()
                .map(|b| (b.store.as_str(), b.seed_start, b.seeds))
                .collect::<Vec<_>>(),
            vec![("current", 5, 1000), ("current", 1005, 500)]
        );
        assert_eq!(report.seed_start, 5);
        assert_eq!(report.determinism_seeds, 4);
        assert!(report.suspects.is_empty(), "{:?}", report.suspects);
        assert!(!report.interrupted);
        assert_eq!(texts.len(), report.found.len());
        for (f, text) in report.found.iter().zip(&texts) {
            assert_eq!(std::fs::read_to_string(&f.path).unwrap(), *text);
        }
        assert_eq!(report.ok(), report.found.is_empty(), "{:?}", report.found);
        let again = run_check(&r, &resolve).unwrap();
        assert_eq!(again.batches, report.batches);

        // No seeds: nothing fuzzed, no determinism check.
        r.seeds = 0;
        let (report, texts) = run_check_saving(&r, &resolve).unwrap();
        assert_eq!(report.scenarios.len(), baseline);
        assert!(report.batches.is_empty() && report.found.is_empty() && texts.is_empty());
        assert_eq!(report.determinism_seeds, 0);
    }
}
