//! One run: a world, a source of steps, the oracle after every step, then the drain phase
//! and the convergence check. Findings are values ([`Outcome`]), never panics.

pub mod explore;
pub mod strategy;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::{check_converged, check_step, Invariant, Violation};
use crate::run::strategy::Strategy;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    Fail(Violation),
}

impl Outcome {
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
    pub config: WorldConfig,
    /// Steps applied in the main phase, in order (the trace: replaying these reproduces
    /// the run, the drain being a deterministic function of the state they leave).
    pub steps: Vec<Step>,
    /// Steps the deterministic drain phase applied after them.
    pub drain: Vec<Step>,
    /// Indices (into the replayed input) of steps skipped because they were not enabled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<usize>,
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
    let mut it = steps.iter().copied().enumerate();
    execute(stores, config, |_, enabled, _| match it.next() {
        None => Next::Stop,
        Some((i, s)) if enabled.binary_search(&s).is_ok() => {
            let _ = i;
            Next::Apply(s)
        }
        Some((i, _)) => Next::Skip(i),
    })
}

/// What the step source says next.
pub enum Next {
    Apply(Step),
    Skip(usize),
    Stop,
}

/// The run loop shared by every way of choosing steps.
pub fn execute(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    mut next: impl FnMut(&World, &[Step], usize) -> Next,
) -> RunReport {
    let mut world = World::new(config.clone(), stores);
    // Sized for a typical run up front, so the loop does not reallocate them; the trace
    // stays under 1 KiB (120 steps), which glibc's allocator keeps in its fast per-thread
    // cache, where a larger block is freed the slow way (and consolidates the heap).
    let mut steps = Vec::with_capacity(120);
    let mut skipped = Vec::new();
    let mut enabled = Vec::with_capacity(32);
    loop {
        world.enabled_steps(&mut enabled);
        let step = match next(&world, &enabled, steps.len()) {
            Next::Stop => break,
            Next::Skip(i) => {
                skipped.push(i);
                continue;
            }
            Next::Apply(s) => s,
        };
        steps.push(step);
        if let Some(v) = apply_checked(&mut world, step, steps.len() - 1) {
            return RunReport {
                config,
                steps,
                drain: Vec::new(),
                skipped,
                outcome: Outcome::Fail(v),
            };
        }
    }
    let (drain, outcome) = drain_and_check(&mut world, steps.len(), &mut enabled);
    RunReport {
        config,
        steps,
        drain,
        skipped,
        outcome: outcome.map_or(Outcome::Pass, Outcome::Fail),
    }
}

/// Apply one step and judge it.
fn apply_checked(world: &mut World, step: Step, index: usize) -> Option<Violation> {
    if let Err(crash) = world.apply(step) {
        return Some(Violation {
            invariant: Invariant::Crash,
            client: Some(crash.client),
            step_index: index,
            messages: Vec::new(),
            expected: "the store handles the input".to_string(),
            seen: vec![format!("panicked: {}", crash.message)],
        });
    }
    check_step(world, &step, index)
}

/// The deterministic drain phase (invariant 4): scroll every client down, then repeatedly
/// take the first enabled step that finishes work already started, until none is left;
/// then every render must equal the DB.
fn drain_and_check(
    world: &mut World,
    first_index: usize,
    enabled: &mut Vec<Step>,
) -> (Vec<Step>, Option<Violation>) {
    let mut drain = Vec::new();
    let limit = world.config.drain_steps_max as usize;
    loop {
        world.enabled_steps(enabled);
        let Some(step) = drain_pick(enabled) else {
            break;
        };
        if drain.len() >= limit {
            return (
                drain,
                Some(Violation {
                    invariant: Invariant::Converges,
                    client: None,
                    step_index: first_index + limit,
                    messages: Vec::new(),
                    expected: format!(
                        "the world quiesces within drain_steps_max = {limit} steps (a store that keeps asking for fetches never settles)"
                    ),
                    seen: vec![format!("still enabled: {step}")],
                }),
            );
        }
        drain.push(step);
        if let Some(v) = apply_checked(world, step, first_index + drain.len() - 1) {
            return (drain, Some(v));
        }
    }
    debug_assert!(world.is_quiescent(), "drain ended with work left");
    let index = (first_index + drain.len()).saturating_sub(1);
    let v = check_converged(world, index);
    (drain, v)
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

/// Replay `steps` and describe each step (and each drain step) just before it is applied,
/// for a readable trace. Returns one line per applied step, main phase then drain.
pub fn narrate(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    drain: &[Step],
) -> Vec<String> {
    let mut world = World::new(config, stores);
    let mut lines = Vec::new();
    let mut scratch = Vec::new();
    for (i, step) in steps.iter().chain(drain.iter()).enumerate() {
        if !world.is_enabled(step, &mut scratch) {
            continue;
        }
        let what = world.describe(step);
        let phase = if i < steps.len() { "" } else { " (drain)" };
        lines.push(if what.is_empty() {
            format!("#{i:<4} {step}{phase}")
        } else {
            format!("#{i:<4} {step}{phase}: {what}")
        });
        if world.apply(*step).is_err() {
            break;
        }
    }
    lines
}
