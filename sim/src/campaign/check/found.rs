//! What a check saves: the first failure of each new class, rechecked, shrunk and
//! written ([`Found`]), including scenarios that failed with a class of their own.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::scenarios::ScenarioCase;
use super::scenarios::ScenarioResult;
use super::scenarios::ScenarioVerdict;
use crate::campaign::findings::Failure;
use crate::campaign::recheck::{settle, Suspect};
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::trace::class::Class;
use crate::trace::shrink::Limits;

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
    /// Its needs were not searched to the end (the settle budget ran out, or Ctrl-C):
    /// `needs` is an upper bound.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_unsearched: bool,
    /// Why the file could not be written, if it could not (the check then fails with it,
    /// after reporting everything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_error: Option<String>,
    /// Where in the store (`--localize`): its best lines, or why there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localized: Option<crate::trace::localize::Localization>,
}

/// Recheck each failure (on the store of `stores` it names), then shrink and save those
/// that happen again under `out_dir`; those that do not are suspects (flaky, or a state
/// leak), their trace saved as found.
pub fn save_failures(
    stores: &[&dyn StoreFactory],
    failures: &[Failure],
    out_dir: &Path,
    limits: Limits,
    jobs: usize,
    deadline: Option<std::time::Instant>,
) -> (Vec<(Found, String)>, Vec<Suspect>) {
    let settled = settle(
        stores,
        failures,
        out_dir,
        limits,
        deadline,
        jobs,
        &|_, _| {},
    );
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
                needs_unsearched: finding.needs_unsearched,
                write_error: finding.write_error,
                localized: finding.localized,
            };
            (found, finding.text)
        })
        .collect();
    (found, settled.suspects)
}

/// A failure for each new class a scenario showed on a store under test (the first
/// scenario of each class, unless fuzzing found the class too), to shrink and save.
pub(super) fn new_class_failures(
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

#[cfg(test)]
mod tests {
    use super::super::baseline::Baseline;
    use super::super::scenarios::{replay_scenarios, CaseStore, Requirement};
    use super::*;
    use crate::store::by_name;

    /// A scenario that shows a new class on a store under test is a failure to shrink and
    /// save, once per store and class: not when fuzzing (or an earlier scenario) found
    /// that class on that store already, still when it was found on another store. It
    /// carries the scenario's world, steps, mask, class and invariant, and says which file
    /// showed it. Scenarios that met their requirement, or are known, give none.
    #[test]
    fn each_new_class_a_scenario_shows_is_saved_once_per_store() {
        let current = by_name("current").unwrap();
        let dir = crate::testing::repo_file("scenarios/known/current");
        let files = [
            "queued-consumed-lingers.json",
            "optimistic-consumed-lingers.json",
            "content-gone-at-stale-fetch.json",
        ];
        let scenarios: Vec<_> = files
            .iter()
            .map(|f| {
                (
                    dir.join(f),
                    crate::trace::scenario::load(&dir.join(f)).unwrap(),
                )
            })
            .collect();
        let classes: Vec<Class> = scenarios
            .iter()
            .map(|(_, s)| s.class.clone().unwrap())
            .collect();
        // The third file's class is known: its scenario is accepted.
        let known = Baseline {
            classes: vec![(
                "current".into(),
                classes[2].clone(),
                PathBuf::from("k.json"),
            )],
        };
        // Each file twice on `current`: the second time of each class adds nothing.
        let mut cases: Vec<ScenarioCase<'_>> = Vec::new();
        for store in [&current as &dyn StoreFactory, &current] {
            for (path, sc) in &scenarios {
                cases.push(ScenarioCase {
                    path: path.clone(),
                    scenario: sc.clone(),
                    store: CaseStore::Borrowed(store),
                    requirement: Requirement::Pass,
                });
            }
        }
        let results = replay_scenarios(&cases, &known);
        let verdicts: Vec<ScenarioVerdict> = results.iter().map(|r| r.verdict).collect();
        use ScenarioVerdict::*;
        assert_eq!(
            verdicts,
            vec![NewClass, NewClass, Known, NewClass, NewClass, Known]
        );
        let out = new_class_failures(&results, &cases, &[]);
        assert_eq!(out.len(), 2, "{out:?}");
        for (f, (path, sc)) in out.iter().zip(&scenarios) {
            assert_eq!(f.store, "current");
            assert_eq!(f.class.as_ref(), sc.class.as_ref());
            assert_eq!(Some(f.invariant), sc.expect);
            assert_eq!(f.steps, sc.steps());
            assert_eq!(f.config, sc.config);
            assert_eq!(f.mask, sc.masked);
            assert_eq!(f.seed, None);
            assert_eq!(f.description, Some(format!("shown by {}", path.display())));
        }
        // Fuzzing found the first class on `current`: only the second is left; found on
        // `naive`, both are.
        let fuzzed_on = |store: &str| {
            let mut f = out[0].clone();
            f.store = store.to_string();
            f.description = None;
            f
        };
        let left = new_class_failures(&results, &cases, &[fuzzed_on("current")]);
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].class.as_ref(), Some(&classes[1]));
        let left = new_class_failures(&results, &cases, &[fuzzed_on("naive")]);
        assert_eq!(left.len(), 2);
        // A plain failure (no baseline for the store) is not a new class.
        let plain = replay_scenarios(&cases, &Baseline::default());
        assert!(plain.iter().all(|r| r.verdict == Failed));
        assert!(new_class_failures(&plain, &cases, &[]).is_empty());
    }

    /// A failure that happens again is shrunk and saved, and reported as found: its store,
    /// invariant and seed, the file (whose bytes come back with it), the steps before and
    /// after shrinking, 1-minimal; no suspect.
    #[test]
    fn a_failure_that_happens_again_is_saved_shrunk_and_reported_found() {
        let naive = by_name("naive").unwrap();
        let (seed, run) = (0..100)
            .map(|seed| (seed, crate::run::run_seed(&naive, seed)))
            .find(|(_, r)| r.outcome.invariant().is_some() && r.steps.len() > 4)
            .expect("naive fails some seed under 100");
        let invariant = run.outcome.invariant().unwrap();
        let original = run.steps.len();
        let failure = Failure::of_run(
            "naive".into(),
            invariant,
            Some(seed),
            Some("random".into()),
            run,
            Default::default(),
        );
        let dir = tempfile::tempdir().unwrap();
        let (found, suspects) = save_failures(
            &[&naive],
            &[failure],
            dir.path(),
            Limits::default(),
            1,
            None,
        );
        assert!(suspects.is_empty(), "{suspects:?}");
        assert_eq!(found.len(), 1);
        let (f, text) = &found[0];
        assert_eq!(
            (f.store.as_str(), f.invariant, f.seed),
            ("naive", invariant, Some(seed))
        );
        assert!(f.path.starts_with(dir.path()), "{}", f.path.display());
        assert_eq!(&std::fs::read_to_string(&f.path).unwrap(), text);
        let saved = crate::trace::scenario::load(&f.path).unwrap();
        assert_eq!(saved.expect, Some(invariant));
        assert_eq!(f.steps, saved.steps.len());
        assert!(f.steps < original, "{} of {original} steps", f.steps);
        assert!(f.steps <= f.original_steps, "{f:?}");
        assert!(f.one_minimal && f.gave_up.is_none() && f.write_error.is_none());
    }
}
