//! The whole check's report: every scenario's and batch's result, the baseline, what was
//! found and saved, and the suspects.

use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use super::batches::FuzzBatch;
use super::found::Found;
use super::scenarios::ScenarioResult;
use crate::campaign::recheck::Suspect;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;

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
    /// Why each found failure's and suspect's file could not be written, in order.
    pub fn write_errors(&self) -> Vec<String> {
        self.found
            .iter()
            .filter_map(|f| f.write_error.clone())
            .chain(self.suspects.iter().filter_map(|s| s.write_error.clone()))
            .collect()
    }

    /// The verdict: every scenario met its requirement, every batch passed and no second
    /// look found a store unstable (exit 0).
    pub fn ok(&self) -> bool {
        self.scenarios.iter().all(|s| s.ok)
            && self.batches.iter().all(FuzzBatch::ok)
            && self.suspects.is_empty()
    }
}
