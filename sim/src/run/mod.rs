//! One run: a world, a source of steps, the oracle after every step, then the drain phase
//! and the convergence check. Findings are values ([`Outcome`]), never panics. Also here:
//! the strategies that choose a run's steps, the named worlds, and the Ctrl-C flag. The
//! exhaustive search over every schedule is a layer of its own above this one
//! (`crate::explore`); it reuses this layer's pieces (replay, crash verdicts, the flag).

pub mod interrupt;
pub mod strategy;
pub mod worlds;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::record::{Record, StepRecord, StoreCrash};
use crate::model::step::{Actor, Step};
use crate::model::store::{CrashCause, StoreFactory};
use crate::model::wire::ClientId;
use crate::model::world::World;
use crate::oracle::judged::JudgedExt;
use crate::oracle::{check_step, converged, Invariant, Violation};
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
    let next = chosen_by(&config, strategy);
    execute(stores, config, next)
}

/// How a run chooses its steps with a strategy: the enabled step `strategy` picks, until
/// none is enabled or the run has `config`'s `steps_max` steps.
pub fn chosen_by<'s>(
    config: &WorldConfig,
    strategy: &'s mut dyn Strategy,
) -> impl FnMut(&World, &[Step], usize) -> Next + 's {
    let steps_max = config.steps_max as usize;
    move |_, enabled, i| {
        if i >= steps_max || enabled.is_empty() {
            Next::Stop
        } else {
            Next::Apply(enabled[strategy.choose(enabled)])
        }
    }
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
    /// Whether the run should go on past `violation` (a tab's, just reported to
    /// [`Observer::on_step`], or found by the convergence check). When true the tab is
    /// excused: its later violations are not judged (its store is already wrong, and what
    /// follows from that is the same bug), and the run goes on judging the other tabs.
    /// Class-aware campaigns mask the root-cause classes they have seen this way
    /// ([`crate::trace::class`]); every other observer lets a violation end the run.
    fn excuses(&mut self, _world: &World, _violation: &Violation) -> bool {
        false
    }
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
    fn excuses(&mut self, world: &World, violation: &Violation) -> bool {
        // Both are told (no short-circuit).
        self.0.excuses(world, violation) | self.1.excuses(world, violation)
    }
}

/// An observer lent for one run.
impl<O: Observer + ?Sized> Observer for &mut O {
    fn wants_steps(&self) -> bool {
        (**self).wants_steps()
    }
    fn on_step(&mut self, world: &World, record: &StepRecord, at: StepAt, v: Option<&Violation>) {
        (**self).on_step(world, record, at, v)
    }
    fn on_skip(&mut self, input_index: usize) {
        (**self).on_skip(input_index)
    }
    fn on_end(&mut self, world: &World, outcome: &Outcome) {
        (**self).on_end(world, outcome)
    }
    fn excuses(&mut self, world: &World, violation: &Violation) -> bool {
        (**self).excuses(world, violation)
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
    let mut judge = Judge {
        record: observer
            .wants_steps()
            .then(|| StepRecord::new(Step::AgentSeal)),
        excused: Vec::new(),
        observer,
    };
    loop {
        world.enabled_steps(&mut enabled);
        let step = match next(&world, &enabled, steps.len()) {
            Next::Stop => break,
            Next::Skip(i) => {
                judge.observer.on_skip(i);
                skipped.push(i);
                continue;
            }
            Next::Apply(s) => s,
        };
        steps.push(step);
        let at = (StepAt::Main(steps.len() - 1), steps.len() - 1);
        if let Some(v) = judge.step(&mut world, step, at) {
            let outcome = Outcome::Fail(v);
            judge.observer.on_end(&world, &outcome);
            crate::model::source_lines::ended(false);
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
    let violation = drain_and_check(&mut world, main_steps, &mut enabled, &mut drain, &mut judge);
    let outcome = violation.map_or(Outcome::Pass, Outcome::Fail);
    judge.observer.on_end(&world, &outcome);
    crate::model::source_lines::ended(matches!(outcome, Outcome::Pass));
    RunReport {
        config,
        steps,
        drain,
        skipped,
        outcome,
    }
}

/// Applies and judges the steps of one run for its observer, and keeps the tabs the
/// observer excused ([`Observer::excuses`]).
struct Judge<'o, O: Observer + ?Sized> {
    /// The record of the current step, when the observer wants steps.
    record: Option<StepRecord>,
    /// Tabs no longer judged.
    excused: Vec<ClientId>,
    observer: &'o mut O,
}

impl<O: Observer + ?Sized> Judge<'_, O> {
    /// Apply `step` (the run's `index`-th) and judge it: the violation that ends the run,
    /// if any. The observer hears of it (and of a violation it then excuses) first.
    fn step(
        &mut self,
        world: &mut World,
        step: Step,
        (at, index): (StepAt, usize),
    ) -> Option<Violation> {
        let v = match &mut self.record {
            None => judge_step(world, step, index, &mut ()),
            Some(rec) => {
                rec.reset(step);
                let excused_tab =
                    matches!(step.actor(), Actor::Client(c) if self.excused.contains(&c));
                let v = if excused_tab {
                    // Its tab is no longer judged (whatever it shows, crash included, would
                    // be excused): apply the step only.
                    let _ = world.apply_into(step, rec);
                    None
                } else {
                    judge_step(world, step, index, rec)
                };
                let v = v.filter(|v| !is_excused(&self.excused, v));
                self.observer.on_step(world, rec, at, v.as_ref());
                v
            }
        };
        v.filter(|v| !self.excuse(world, v))
    }

    /// Whether the observer excuses `v` (a tab's): then its tab is excused from now on.
    fn excuse(&mut self, world: &World, v: &Violation) -> bool {
        match v.client {
            Some(c) if self.observer.excuses(world, v) => {
                self.excused.push(c);
                true
            }
            _ => false,
        }
    }

    /// Invariant 4 for every tab not excused: the first violation the observer does not
    /// excuse.
    fn converged(&mut self, world: &World, index: usize) -> Option<Violation> {
        for c in 0..world.clients().len() as ClientId {
            if self.excused.contains(&c) {
                continue;
            }
            let v = converged(world, c, world.client(c).render(), index);
            if let Some(v) = v.filter(|v| !self.excuse(world, v)) {
                return Some(v);
            }
        }
        None
    }
}

/// Whether `v` is on a tab already excused.
fn is_excused(excused: &[ClientId], v: &Violation) -> bool {
    v.client.is_some_and(|c| excused.contains(&c))
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
pub(crate) fn crash_violation(crash: StoreCrash, index: usize) -> Violation {
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
/// none is left; then every render must equal the DB. Drain step `n` has run index
/// `first_index + n`.
fn drain_and_check<O: Observer + ?Sized>(
    world: &mut World,
    first_index: usize,
    enabled: &mut Vec<Step>,
    drain: &mut Vec<Step>,
    judge: &mut Judge<'_, O>,
) -> Option<Violation> {
    let limit = world.config().drain_steps_max as usize;
    loop {
        world.enabled_steps(enabled);
        let Some(next) = drain_pick(enabled) else {
            break;
        };
        if drain.len() >= limit && world.config().judged.judges(Invariant::Converges) {
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
        if let Some(v) = judge.step(world, next, (at, first_index + drain.len() - 1)) {
            return Some(v);
        }
    }
    debug_assert!(world.is_quiescent(), "drain ended with work left");
    let index = (first_index + drain.len()).saturating_sub(1);
    judge.converged(world, index)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36, behaviour 7: the drain limit is exact. A run whose drain takes D steps
    /// passes with `drain_steps_max = D` and fails to converge with `D - 1`, naming the
    /// limit.
    #[test]
    fn a_world_needing_exactly_drain_steps_max_steps_passes_and_one_more_fails() {
        let kind = crate::store::by_name("durable").unwrap();
        let mut checked = 0;
        for seed in 0..50 {
            // Half a run: the drain does the rest.
            let whole = run_seed(&kind, seed);
            let half = &whole.steps[..whole.steps.len() / 2];
            let r = replay(&kind, whole.config.clone(), half);
            assert_eq!(r.outcome, Outcome::Pass, "durable passes seed {seed}");
            let needed = r.drain.len() as u32;
            if needed < 2 {
                continue;
            }
            let with_limit = |limit: u32| {
                let mut config = r.config.clone();
                config.drain_steps_max = limit;
                replay(&kind, config, &r.steps)
            };
            let exact = with_limit(needed);
            assert_eq!(
                exact.outcome,
                Outcome::Pass,
                "seed {seed}: {needed} allowed"
            );
            assert_eq!(exact.drain.len(), needed as usize);
            let short = with_limit(needed - 1);
            let Outcome::Fail(v) = &short.outcome else {
                panic!(
                    "seed {seed}: a drain of {needed} steps passed a limit of {}",
                    needed - 1
                );
            };
            assert_eq!(v.invariant, Invariant::Converges);
            assert!(
                v.expected
                    .contains(&format!("drain_steps_max = {}", needed - 1)),
                "{}",
                v.expected
            );
            assert_eq!(short.drain.len(), needed as usize - 1);
            assert_eq!(v.step_index, r.steps.len() + needed as usize - 1);
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} seeds drain 2 steps or more");
    }

    /// A failure the drain finds names the drain step that made it: the run's step index
    /// counts the main steps, then the drain steps up to and including that one (what
    /// `run` and the scenario notes print as "at step N"); a tab that does not converge
    /// is named at the last step of the run.
    #[test]
    fn a_failure_in_the_drain_names_the_drain_step_that_made_it() {
        let mut in_drain = 0;
        for name in ["naive", "fix-a", "fix-ab", "current"] {
            let kind = crate::store::by_name(name).unwrap();
            for seed in 0..40 {
                // The first half of a run: the drain does the rest, and may fail.
                let whole = run_seed(&kind, seed);
                let cut = &whole.steps[..whole.steps.len() / 2];
                let r = replay(&kind, whole.config.clone(), cut);
                let Outcome::Fail(v) = &r.outcome else {
                    continue;
                };
                if v.step_index < r.steps.len() {
                    continue; // found in the main phase
                }
                assert_ne!(v.invariant, Invariant::Converges, "{name} seed {seed}");
                assert_eq!(
                    v.step_index,
                    r.steps.len() + r.drain.len() - 1,
                    "{name} seed {seed}: {} main steps, {} drain steps, {v:?}",
                    r.steps.len(),
                    r.drain.len()
                );
                in_drain += 1;
            }
        }
        assert!(in_drain >= 5, "only {in_drain} failures in the drain");
        // A tab that does not converge is named at the run's last step: `current`'s seed
        // 847 (scenarios/found/current-inv4-converges-seed847.json, unshrunk), whose drain
        // has nothing to do.
        let kind = crate::store::by_name("current").unwrap();
        let r = run_seed(&kind, 847);
        let Outcome::Fail(v) = &r.outcome else {
            panic!("current passes seed 847");
        };
        assert_eq!(v.invariant, Invariant::Converges);
        assert!(r.steps.len() >= 2);
        assert_eq!(v.step_index, r.steps.len() + r.drain.len() - 1);
    }

    /// A failure in the main phase names the step that made it: the last step applied,
    /// whose index in the run is the number of main steps less one (what `run` and the
    /// notes print as "at step N"); the run stops there, without a drain.
    #[test]
    fn a_failure_in_the_main_phase_names_the_last_step_applied() {
        let mut in_main = 0;
        for name in ["naive", "fix-a", "fix-ab", "current"] {
            let kind = crate::store::by_name(name).unwrap();
            for seed in 0..40 {
                let r = run_seed(&kind, seed);
                let Outcome::Fail(v) = &r.outcome else {
                    continue;
                };
                if v.invariant == Invariant::Converges {
                    continue; // judged after the drain
                }
                if !r.drain.is_empty() {
                    continue; // found in the drain
                }
                assert_eq!(v.step_index, r.steps.len() - 1, "{name} seed {seed}: {v:?}");
                in_main += 1;
            }
        }
        assert!(in_main >= 10, "only {in_main} failures in the main phase");
    }

    /// Records what a run tells it; excuses every tab violation it is asked about when
    /// `excuse` is set.
    #[derive(Default)]
    struct Recorder {
        steps: Vec<StepAt>,
        skips: Vec<usize>,
        end: Option<Outcome>,
        excuse: bool,
        asked: usize,
    }

    impl Observer for Recorder {
        fn on_step(&mut self, _: &World, _: &StepRecord, at: StepAt, _: Option<&Violation>) {
            self.steps.push(at);
        }
        fn on_skip(&mut self, input_index: usize) {
            self.skips.push(input_index);
        }
        fn on_end(&mut self, _: &World, outcome: &Outcome) {
            self.end = Some(outcome.clone());
        }
        fn excuses(&mut self, _: &World, _: &Violation) -> bool {
            self.asked += 1;
            self.excuse
        }
    }

    /// The first seeds of `naive` whose run fails on a tab (not the whole world), with
    /// the run's steps and a step that is not enabled at the start inserted first (so a
    /// replay skips it).
    fn failing_on_a_tab() -> Vec<(RunReport, Vec<Step>)> {
        let kind = crate::store::by_name("naive").unwrap();
        let mut out = Vec::new();
        for seed in 0..200 {
            let r = run_seed(&kind, seed);
            let Outcome::Fail(v) = &r.outcome else {
                continue;
            };
            if v.client.is_none() {
                continue;
            }
            let mut input = vec![Step::AgentSeal];
            input.extend(&r.steps);
            out.push((r, input));
            if out.len() == 5 {
                break;
            }
        }
        assert_eq!(
            out.len(),
            5,
            "naive fails on a tab in fewer than 5 of 200 seeds"
        );
        out
    }

    /// Two observers watching one run (also lent, `&mut`): each is told every step, every
    /// skipped input and how the run ended, whether the other wants steps or not; a pair
    /// wants steps when either does, and one of two observers that watch nothing keeps the
    /// run loop's fast path (no step recorded: what fuzzing runs with).
    #[test]
    fn each_of_two_observers_is_told_the_whole_run_and_a_pair_wants_steps_when_either_does() {
        assert!(!().wants_steps());
        assert!(!((), ()).wants_steps());
        assert!(!(&mut (), &mut ()).wants_steps());
        let kind = crate::store::by_name("naive").unwrap();
        for (r, input) in failing_on_a_tab() {
            let plain = replay(&kind, r.config.clone(), &input);
            assert_eq!(plain.outcome, r.outcome);
            assert_eq!(plain.skipped, vec![0]);
            let applied: Vec<StepAt> = (0..plain.steps.len())
                .map(StepAt::Main)
                .chain((0..plain.drain.len()).map(StepAt::Drain))
                .collect();
            let check = |rec: &Recorder, who: &str| {
                assert_eq!(rec.steps, applied, "{who}: steps told");
                assert_eq!(rec.skips, vec![0], "{who}: skips told");
                assert_eq!(
                    rec.end.as_ref(),
                    Some(&plain.outcome),
                    "{who}: the end told"
                );
            };
            let mut left = ((), Recorder::default());
            assert!(left.wants_steps());
            let got = replay_observed(&kind, r.config.clone(), &input, &mut left);
            assert_eq!(got, plain);
            check(&left.1, "((), rec)");
            let mut right = (Recorder::default(), ());
            assert!(right.wants_steps());
            let got = replay_observed(&kind, r.config.clone(), &input, &mut right);
            assert_eq!(got, plain);
            check(&right.0, "(rec, ())");
            let (mut a, mut b) = (Recorder::default(), Recorder::default());
            let got = replay_observed(&kind, r.config.clone(), &input, &mut (&mut a, &mut b));
            assert_eq!(got, plain);
            check(&a, "(&mut a, _)");
            check(&b, "(_, &mut b)");
        }
    }

    /// A violation one of two observers excuses is excused (both are asked, neither
    /// short-circuits the other): the run goes on past it, as with that observer alone;
    /// when neither excuses it, the run ends there.
    #[test]
    fn a_violation_either_of_two_observers_excuses_is_excused() {
        let kind = crate::store::by_name("naive").unwrap();
        for (r, input) in failing_on_a_tab() {
            let Outcome::Fail(first) = &r.outcome else {
                unreachable!()
            };
            let excusing = |excuse| Recorder {
                excuse,
                ..Recorder::default()
            };
            let mut alone = excusing(true);
            let past = replay_observed(&kind, r.config.clone(), &input, &mut alone);
            assert_ne!(past.outcome, r.outcome, "the excusing observer alone");
            for (x, y) in [(true, false), (false, true), (true, true)] {
                let (mut a, mut b) = (excusing(x), excusing(y));
                let got = replay_observed(&kind, r.config.clone(), &input, &mut (&mut a, &mut b));
                assert_eq!(
                    got.outcome, past.outcome,
                    "excused by ({x}, {y}) at {first:?}"
                );
                assert!(a.asked >= 1, "({x}, {y}): the first asked");
                assert_eq!(a.asked, b.asked, "({x}, {y}): both asked");
            }
            let (mut a, mut b) = (excusing(false), excusing(false));
            let got = replay_observed(&kind, r.config.clone(), &input, &mut (&mut a, &mut b));
            assert_eq!(got.outcome, r.outcome, "excused by neither");
            assert_eq!((a.asked, b.asked), (1, 1));
        }
    }
}
