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
    jobs: usize,
) -> (Vec<(Found, String)>, Vec<Suspect>) {
    let settled = settle(stores, failures, out_dir, limits, None, jobs, &|_, _| {});
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
