//! Replaying the committed scenarios: what each must do (its [`Requirement`]), the store
//! it is replayed on, and how it did ([`ScenarioResult`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use crate::campaign::findings::Failure;
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::trace::class::{classify, Class};
use crate::trace::scenario::Scenario;

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
pub enum CaseStore<'a> {
    /// A store under test.
    Borrowed(&'a dyn StoreFactory),
    /// The store a scenario names.
    Owned(std::sync::Arc<dyn StoreFactory>),
}

impl CaseStore<'_> {
    fn get(&self) -> &dyn StoreFactory {
        match self {
            CaseStore::Borrowed(s) => *s,
            CaseStore::Owned(s) => s.as_ref(),
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
    pub store: CaseStore<'a>,
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
