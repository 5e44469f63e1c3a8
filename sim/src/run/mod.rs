//! One run: a world, a source of steps, the oracle after every step, then the drain phase
//! and the convergence check. Findings are values ([`Outcome`]), never panics.

pub mod explore;
pub mod strategy;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::record::{Record, StepRecord, StoreCrash};
use crate::model::step::Step;
use crate::model::store::{CrashCause, StoreFactory};
use crate::model::world::World;
use crate::oracle::{check_converged, check_step, Invariant, Violation};
use crate::run::strategy::Strategy;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Outcome {
    /// Nothing broke: not in the main phase, the drain or the convergence check.
    Pass,
    /// The first violation; the run stops at it (one in the main phase skips the drain).
    Fail(Violation),
}

impl Outcome {
    /// The invariant that broke, `None` on a pass: what campaigns count per store and
    /// invariant, and what the shrinker must keep breaking.
    pub fn invariant(&self) -> Option<Invariant> {
        match self {
            Outcome::Pass => None,
            Outcome::Fail(v) => Some(v.invariant),
        }
    }
}

/// Everything a run did: the options, every applied step, and the verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunReport {
    /// The world's options: with `steps`, everything a replay needs.
    pub config: WorldConfig,
    /// Steps applied in the main phase, in order (the trace: replaying these reproduces
    /// the run, the drain being a deterministic function of the state they leave).
    pub steps: Vec<Step>,
    /// Steps the deterministic drain phase applied after them.
    pub drain: Vec<Step>,
    /// Indices (into the replayed input) of steps skipped because they were not enabled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<usize>,
    /// The verdict.
    pub outcome: Outcome,
}

/// Run `config` with steps chosen by `strategy`.
pub fn run(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    strategy: &mut dyn Strategy,
) -> RunReport {
    let steps_max = config.steps_max as usize;
    execute(stores, config, |_, enabled, i| {
        if i >= steps_max || enabled.is_empty() {
            Next::Stop
        } else {
            Next::Apply(enabled[strategy.choose(enabled)])
        }
    })
}

/// Replay a recorded main-phase trace: each step is applied if it is enabled at that
/// point and skipped (and reported in [`RunReport::skipped`]) otherwise; then the drain.
pub fn replay(stores: &dyn StoreFactory, config: WorldConfig, steps: &[Step]) -> RunReport {
    replay_observed(stores, config, steps, &mut ())
}

/// [`replay`], telling `observer` about every step.
pub fn replay_observed<O: Observer + ?Sized>(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    observer: &mut O,
) -> RunReport {
    let mut it = steps.iter().copied().enumerate();
    execute_observed(
        stores,
        config,
        |_, enabled, _| match it.next() {
            None => Next::Stop,
            Some((_, s)) if enabled.binary_search(&s).is_ok() => Next::Apply(s),
            Some((i, _)) => Next::Skip(i),
        },
        observer,
    )
}

/// What the step source says next.
pub enum Next {
    /// Apply this step (it is enabled).
    Apply(Step),
    /// The replayed input's step at this index is not enabled: skip it.
    Skip(usize),
    /// The main phase is over.
    Stop,
}

/// Where a step sits in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepAt {
    /// The `n`-th step of the main phase (0-based).
    Main(usize),
    /// The `n`-th step of the drain phase (0-based).
    Drain(usize),
}

/// Watches a run step by step (as stateright's `CheckerVisitor` watches a check): what
/// each step did and what the oracle said, without walking the world again.
pub trait Observer {
    /// Whether [`Observer::on_step`] is wanted. When false the run loop records nothing
    /// and never calls it (the fuzzing hot path).
    fn wants_steps(&self) -> bool {
        true
    }
    /// After each applied step: the world after it, what it did, where it sits in the run
    /// and the violation it caused, if any.
    fn on_step(
        &mut self,
        _world: &World,
        _record: &StepRecord,
        _at: StepAt,
        _violation: Option<&Violation>,
    ) {
    }
    /// A replayed step (the `input_index`-th of the input) was not enabled and was skipped.
    fn on_skip(&mut self, _input_index: usize) {}
    /// The run is over: the world as it ended, and the outcome.
    fn on_end(&mut self, _world: &World, _outcome: &Outcome) {}
}

/// Two observers watching one run.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn wants_steps(&self) -> bool {
        self.0.wants_steps() || self.1.wants_steps()
    }
    fn on_step(&mut self, world: &World, record: &StepRecord, at: StepAt, v: Option<&Violation>) {
        if self.0.wants_steps() {
            self.0.on_step(world, record, at, v);
        }
        if self.1.wants_steps() {
            self.1.on_step(world, record, at, v);
        }
    }
    fn on_skip(&mut self, input_index: usize) {
        self.0.on_skip(input_index);
        self.1.on_skip(input_index);
    }
    fn on_end(&mut self, world: &World, outcome: &Outcome) {
        self.0.on_end(world, outcome);
        self.1.on_end(world, outcome);
    }
}

/// Observes nothing.
impl Observer for () {
    fn wants_steps(&self) -> bool {
        false
    }
}

/// The run loop shared by every way of choosing steps.
pub fn execute(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    next: impl FnMut(&World, &[Step], usize) -> Next,
) -> RunReport {
    execute_observed(stores, config, next, &mut ())
}

/// [`execute`], telling `observer` about every step.
pub fn execute_observed<O: Observer + ?Sized>(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    mut next: impl FnMut(&World, &[Step], usize) -> Next,
    observer: &mut O,
) -> RunReport {
    let mut world = World::new(config.clone(), stores);
    // Sized for a typical run up front, so the loop does not reallocate them; the trace
    // stays under 1 KiB (120 steps), which glibc's allocator keeps in its fast per-thread
    // cache, where a larger block is freed the slow way (and consolidates the heap).
    let mut steps = Vec::with_capacity(120);
    let mut skipped = Vec::new();
    let mut enabled = Vec::with_capacity(32);
    let mut record = observer
        .wants_steps()
        .then(|| StepRecord::new(Step::AgentSeal));
    loop {
        world.enabled_steps(&mut enabled);
        let step = match next(&world, &enabled, steps.len()) {
            Next::Stop => break,
            Next::Skip(i) => {
                observer.on_skip(i);
                skipped.push(i);
                continue;
            }
            Next::Apply(s) => s,
        };
        steps.push(step);
        let at = (StepAt::Main(steps.len() - 1), steps.len() - 1);
        if let Some(v) = observed_step(&mut world, step, at, &mut record, observer) {
            let outcome = Outcome::Fail(v);
            observer.on_end(&world, &outcome);
            return RunReport {
                config,
                steps,
                drain: Vec::new(),
                skipped,
                outcome,
            };
        }
    }
    let main_steps = steps.len();
    let mut drain = Vec::new();
    let violation = drain_and_check(
        &mut world,
        main_steps,
        &mut enabled,
        &mut drain,
        |w, s, at| observed_step(w, s, at, &mut record, observer),
    );
    let outcome = violation.map_or(Outcome::Pass, Outcome::Fail);
    observer.on_end(&world, &outcome);
    RunReport {
        config,
        steps,
        drain,
        skipped,
        outcome,
    }
}

/// Apply `step` (the run's `index`-th) and judge it, recording it for `observer` when it
/// wants steps.
fn observed_step<O: Observer + ?Sized>(
    world: &mut World,
    step: Step,
    (at, index): (StepAt, usize),
    record: &mut Option<StepRecord>,
    observer: &mut O,
) -> Option<Violation> {
    match record {
        None => judge_step(world, step, index, &mut ()),
        Some(rec) => {
            rec.reset(step);
            let v = judge_step(world, step, index, rec);
            observer.on_step(world, rec, at, v.as_ref());
            v
        }
    }
}

/// Apply one enabled step, reporting it to `rec`, and judge it: a store crash, or what
/// the oracle says about the client the step touched. `index` is the step's index in the
/// run (main phase then drain).
pub fn judge_step(
    world: &mut World,
    step: Step,
    index: usize,
    rec: &mut impl Record,
) -> Option<Violation> {
    if let Err(crash) = world.apply_into(step, rec) {
        return Some(crash_violation(crash, index));
    }
    check_step(world, &step, index)
}

/// The violation a store crash makes.
fn crash_violation(crash: StoreCrash, index: usize) -> Violation {
    Violation {
        invariant: Invariant::Crash,
        client: Some(crash.client),
        step_index: index,
        messages: Vec::new(),
        expected: "the store handles the input".to_string(),
        seen: crash.cause.lines(),
        // An in-process panic's JSON stays as it always was: `seen` says it all.
        cause: match crash.cause {
            CrashCause::Panicked { .. } => None,
            cause => Some(cause),
        },
    }
}

/// The deterministic drain phase (invariant 4): scroll every client down, then repeatedly
/// take the first enabled step that finishes work already started ([`drain_pick`]), until
/// none is left; then every render must equal the DB. `step` applies and judges one drain
/// step (`(step, drain index)`, run index `first_index + drain index`).
fn drain_and_check(
    world: &mut World,
    first_index: usize,
    enabled: &mut Vec<Step>,
    drain: &mut Vec<Step>,
    mut step: impl FnMut(&mut World, Step, (StepAt, usize)) -> Option<Violation>,
) -> Option<Violation> {
    let limit = world.config().drain_steps_max as usize;
    loop {
        world.enabled_steps(enabled);
        let Some(next) = drain_pick(enabled) else {
            break;
        };
        if drain.len() >= limit {
            return Some(Violation {
                invariant: Invariant::Converges,
                client: None,
                step_index: first_index + limit,
                messages: Vec::new(),
                expected: format!(
                    "the world quiesces within drain_steps_max = {limit} steps (a store that keeps asking for fetches never settles)"
                ),
                seen: vec![format!("still enabled: {next}")],
                cause: None,
            });
        }
        let at = StepAt::Drain(drain.len());
        drain.push(next);
        if let Some(v) = step(world, next, (at, first_index + drain.len() - 1)) {
            return Some(v);
        }
    }
    debug_assert!(world.is_quiescent(), "drain ended with work left");
    let index = (first_index + drain.len()).saturating_sub(1);
    check_converged(world, index)
}

/// The drain phase's choice among the enabled steps: a scroll-down first (every user
/// comes back to the bottom), then the first step that finishes work already started.
pub fn drain_pick(enabled: &[Step]) -> Option<Step> {
    enabled
        .iter()
        .find(|s| matches!(s, Step::ScrollDown { .. }))
        .or_else(|| enabled.iter().find(|s| s.is_drain_step()))
        .copied()
}

/// A run of `store` on `seed` with the uniform random strategy (what `run --seed` does).
pub fn run_seed(stores: &dyn StoreFactory, seed: u64) -> RunReport {
    let mut strategy = crate::run::strategy::random::RandomStrategy::new(seed);
    run(stores, WorldConfig::from_seed(seed), &mut strategy)
}
