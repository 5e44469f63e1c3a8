//! `run` as one library call: one seed of one store, narrated, classified and its
//! coverage counted as it goes (nothing runs it again: through a slow or hanging adapter,
//! every replay costs); a failure rechecked, shrunk and saved. [`run`] returns it all; the
//! CLI only prints it.

use std::path::PathBuf;

use crate::campaign::findings::{reproduce_command, Failure, Finding};
use crate::campaign::fuzz::run_one_in;
use crate::campaign::recheck::{settle, Settled, Suspect};
use crate::model::store::StoreFactory;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::run::{Outcome, RunReport};
use crate::trace::class::{Class, ClassWatch};
use crate::trace::coverage::{Coverage, CoverageObserver};
use crate::trace::shrink::Limits;
use crate::trace::timeline::TraceLines;

/// Everything one `run` command does, decided.
pub struct RunPlan<'a> {
    /// The store under test.
    pub store: &'a dyn StoreFactory,
    /// The seed: it derives every world option and every scheduling choice.
    pub seed: u64,
    /// The strategy that chooses the steps.
    pub strategy: StrategySpec,
    /// What is pinned and what is judged.
    pub worlds: Worlds,
    /// Where a failure is saved.
    pub out: PathBuf,
    /// How long shrinking may take.
    pub limits: Limits,
}

/// Run `plan`'s seed, then recheck, shrink and save a failure.
pub fn run(plan: &RunPlan<'_>) -> Ran {
    let store = plan.store;
    let mut observer = (
        ClassWatch::new(&[]),
        (CoverageObserver::default(), TraceLines::default()),
    );
    let report = run_one_in(store, plan.strategy, &plan.worlds, plan.seed, &mut observer);
    let (watch, (CoverageObserver { coverage, .. }, TraceLines { lines, .. })) = observer;
    let class = watch.class_of(&report.outcome);
    let reproduce = reproduce_command(&store.name(), plan.seed, plan.strategy, &plan.worlds);
    // Every failure is shrunk and saved, so it ends with a file and a replay command.
    let saved = settle_failure(plan, &report, class);
    Ran {
        store: store.name(),
        seed: plan.seed,
        spec: plan.strategy,
        worlds: plan.worlds.clone(),
        strategy_choices: plan.strategy.build(plan.seed).describe(),
        suspect: saved.as_ref().and_then(|s| s.suspects.first().cloned()),
        saved: saved.and_then(|s| s.findings.into_iter().next()),
        report,
        coverage,
        lines,
        reproduce,
    }
}

/// One run, settled: what `run` prints, as JSON or as text.
pub struct Ran {
    /// The store's name.
    pub store: String,
    /// The seed run.
    pub seed: u64,
    /// The strategy that chose the steps.
    pub spec: StrategySpec,
    /// What `--world` pinned and which invariants were judged.
    pub worlds: Worlds,
    /// What the strategy chose for this seed, in words (empty for `random`).
    pub strategy_choices: String,
    /// The run: its world, steps and outcome.
    pub report: RunReport,
    /// The interesting orderings it reached.
    pub coverage: Coverage,
    /// The narrated trace.
    pub lines: Vec<String>,
    /// The command that runs it again.
    pub reproduce: String,
    /// A failure, shrunk and saved.
    pub saved: Option<Finding>,
    /// A failure that did not happen again.
    pub suspect: Option<Suspect>,
}

/// A failing run's failure (of class `class`), rechecked first (one that does not happen
/// again is a suspect, saved as found), then shrunk and saved; `None` for a pass.
fn settle_failure(plan: &RunPlan<'_>, report: &RunReport, class: Option<Class>) -> Option<Settled> {
    let Outcome::Fail(v) = &report.outcome else {
        return None;
    };
    let failure = Failure {
        store: plan.store.name(),
        invariant: v.invariant,
        seed: Some(plan.seed),
        strategy: Some(plan.strategy.to_string()),
        description: None,
        config: report.config.clone(),
        steps: report.steps.clone(),
        class,
        mask: Vec::new(),
        cause: v.cause.clone(),
        without: Vec::new(),
        pins: plan.worlds.effective(),
    };
    Some(settle(
        &[plan.store],
        &[failure],
        &plan.out,
        plan.limits,
        None,
        1,
        &|_, _| {},
    ))
}
