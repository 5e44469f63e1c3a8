//! A second look: run a failure, or a seed, again and compare. One machinery for the three
//! findings about a store that does not answer by its inputs alone:
//!
//! - **`flaky`**: a failure that does not fail the same way when its trace is replayed
//!   (on the campaign's processes, and in a fresh one). A timeout that does not happen
//!   again is always this: it is a verdict of the clock, not of what the store answered.
//! - **`state-leak`**: the verdict, or what the store answers, depends on which process
//!   served the run. A failure found on a reused (pooled) process that fails again there
//!   but passes in a fresh process (or the other way round), or a seed whose run on reused
//!   processes answers differently from its run in fresh ones, while two fresh runs agree:
//!   the adapter kept something across `reset`.
//! - **`nondeterministic`**: two runs of one seed in fresh processes (or, for an in-process
//!   store, two runs) differ in an effect, a render or the verdict: the store reads a
//!   clock, a random generator or anything else that is not its input.
//!
//! Why: the harness promises that a seed gives the same verdict and trace on every run
//! (docs/protocol.md, "Processes, threads and reproducibility"), and every other report
//! (shrinking, replay commands, class counts) rests on it. A store that breaks the promise
//! is the store's bug, so it is a finding, with the seeds involved and the first run's
//! trace saved as a scenario; never a harness error that throws the campaign away.
//!
//! Two entry points: [`settle`] rechecks each failure a campaign found before it is
//! shrunk (always: it costs two replays per kept failure), and [`check_determinism`] runs
//! seeds again and compares every effect and render (`--check-determinism`; on by default
//! for `exec:` stores in `check`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::campaign::findings::{
    file_for, save_shrunk, save_unshrunk, shrink_only, Failure, Finding, FindingError, Minimal,
};
use crate::campaign::fuzz::run_one_in;
use crate::campaign::seen_runs::SeenRuns;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::{CrashCause, StoreFactory};
use crate::model::wire::{ClientId, Effect, Input};
use crate::model::world::World;
use crate::oracle::{render_line, Invariant, Violation};
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::run::{Observer, Outcome, RunReport, StepAt};
use crate::trace::class::{classify, Class, Classified};
use crate::trace::scenario::Scenario;
use crate::trace::shrink::{GaveUp, Limits};
use crate::util::parallel::map_in_order;

/// How many seeds [`check_determinism`] runs again by default, from a campaign's first
/// seed: three runs each (two on the campaign's processes, one in fresh ones, which start
/// a process per tab: the costly part through a slow-starting adapter), so a handful is
/// cheap, and a store that leaks or reads a clock shows on almost every seed.
pub const DETERMINISM_SEEDS: u64 = 4;

/// What a second look found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuspectKind {
    /// A failure that did not happen again when replayed.
    Flaky,
    /// The verdict or the answers depend on which process served the run.
    StateLeak,
    /// Two runs of one seed answer differently, even in fresh processes.
    Nondeterministic,
}

impl SuspectKind {
    /// `flaky`, `state-leak`, `nondeterministic`: what reports and file names say.
    pub fn name(self) -> &'static str {
        match self {
            SuspectKind::Flaky => "flaky",
            SuspectKind::StateLeak => "state-leak",
            SuspectKind::Nondeterministic => "nondeterministic",
        }
    }
}

impl std::fmt::Display for SuspectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A failure or a seed a second look found unstable: a finding about the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suspect {
    /// What was found.
    pub kind: SuspectKind,
    /// The store.
    pub store: String,
    /// The seed involved (none for a failure a scenario file showed).
    pub seed: Option<u64>,
    /// What the first run broke (none: it passed).
    pub invariant: Option<Invariant>,
    /// The first run's root-cause class, when a class-aware campaign found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// For a crash: the first run's cause, with the adapter's stderr tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
    /// What the second look saw, in words.
    pub why: String,
    /// The first run's trace, saved as a scenario (not shrunk: shrinking needs a failure
    /// that happens again).
    pub scenario: Option<PathBuf>,
    /// Why that file could not be written, if it could not (the command reports the
    /// suspect, then fails with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_error: Option<String>,
}

impl Suspect {
    /// One line: `state-leak on STORE, seed 3 (inv4-converges): …`.
    pub fn headline(&self) -> String {
        let mut line = format!("{} on {}", self.kind, self.store);
        if let Some(seed) = self.seed {
            line.push_str(&format!(", seed {seed}"));
        }
        match (&self.class, self.invariant) {
            (Some(c), _) => line.push_str(&format!(" ({c})")),
            (None, Some(i)) => line.push_str(&format!(" ({i})")),
            (None, None) => {}
        }
        line.push_str(": ");
        line.push_str(&self.why);
        line
    }
}

/// What became of a campaign's failures: the findings that reproduced (shrunk and saved)
/// and the suspects that did not.
#[derive(Debug, Default)]
pub struct Settled {
    /// Failures that happen again, shrunk and saved.
    pub findings: Vec<Finding>,
    /// Failures that do not, with their first run's trace saved.
    pub suspects: Vec<Suspect>,
}

/// Recheck each failure (see [`recheck`]), then shrink and save those that happen again
/// (as [`shrink_and_save`] does, to [`file_for`]), and save the first run's trace of those
/// that do not, under `out_dir`, as suspects. Each failure names one of `stores`.
///
/// On `jobs` threads, in two rounds: every failure is rechecked and shrunk first, and only
/// then does each get its needs (the world features its witness needs, and a witness that
/// needs fewer): under a tight budget a finding loses its smallest world, never its
/// 1-minimal steps. What each failure becomes depends on it alone (and on the time
/// left), and the results come in the order of `failures`, whatever `jobs` is.
///
/// All of it by `deadline`, if there is one: in each round each failure gets `limits`
/// and no more than an equal share of the time left (`jobs` failures at a time), so one
/// slow shrink cannot starve the others, and a failure reached after the deadline (or
/// after Ctrl-C) is saved as found, neither rechecked nor shrunk ([`save_unshrunk`]).
/// `progress` hears of each failure as its turn comes.
///
/// [`shrink_and_save`]: crate::campaign::findings::shrink_and_save
pub fn settle(
    stores: &[&dyn StoreFactory],
    failures: &[Failure],
    out_dir: &Path,
    limits: Limits,
    deadline: Option<Instant>,
    jobs: usize,
    progress: &(dyn Fn(usize, &Failure) + Sync),
) -> Settled {
    // One memory of the witness searches' runs for every failure: their searches overlap.
    let seen = SeenRuns::default();
    settle_remembering(
        stores, failures, out_dir, limits, deadline, jobs, progress, &seen,
    )
}

/// [`settle`], the witness searches remembering their runs in `seen` (which other
/// settles may share: a memory, it changes no result).
#[allow(clippy::too_many_arguments)]
pub fn settle_remembering(
    stores: &[&dyn StoreFactory],
    failures: &[Failure],
    out_dir: &Path,
    limits: Limits,
    deadline: Option<Instant>,
    jobs: usize,
    progress: &(dyn Fn(usize, &Failure) + Sync),
    seen: &SeenRuns,
) -> Settled {
    let store_of = |failure: &Failure| -> &dyn StoreFactory {
        *stores
            .iter()
            .find(|s| s.name() == failure.store)
            .expect("a failure names one of the stores")
    };
    let share = Share::new(deadline, jobs, failures.len());
    let first = map_in_order(failures, jobs, |i, failure| {
        progress(i, failure);
        let store = store_of(failure);
        let file = file_for(out_dir, store, failure);
        recheck_and_shrink(store, failure, file, share.take(limits), out_dir)
    });
    let shrunk = first
        .iter()
        .filter(|s| matches!(s, Stage::Shrunk(..)))
        .count();
    let share = Share::new(deadline, jobs, shrunk);
    let second = map_in_order(&first, jobs, |i, stage| {
        let Stage::Shrunk(file, minimal) = stage else {
            return None;
        };
        // Out of time, the limits end now: the needs are what the world has (an upper
        // bound) and the file is saved without notes.
        let limits = share.take(limits).unwrap_or(limits.until(Instant::now()));
        Some(save_shrunk(
            store_of(&failures[i]),
            &failures[i],
            file,
            limits,
            minimal.clone(),
            seen,
        ))
    });
    let mut settled = Settled::default();
    for (stage, saved) in first.into_iter().zip(second) {
        match (stage, saved) {
            (Stage::Saved(finding), _) | (Stage::Shrunk(..), Some(finding)) => {
                settled.findings.push(finding)
            }
            (Stage::Suspect(suspect), _) => settled.suspects.push(suspect),
            (Stage::Shrunk(..), None) => unreachable!("every shrunk failure is saved"),
        }
    }
    settled
}

/// The first round of [`settle`] for one failure: saved as found when interrupted or out
/// of time (`limits` is `None` past the deadline), else rechecked, then shrunk, or saved as
/// a suspect when it does not happen again.
fn recheck_and_shrink(
    store: &dyn StoreFactory,
    failure: &Failure,
    file: PathBuf,
    limits: Option<Limits>,
    out_dir: &Path,
) -> Stage {
    if crate::run::interrupt::requested() {
        return Stage::Saved(save_unshrunk(store, failure, &file, GaveUp::Interrupted(0)));
    }
    let Some(limits) = limits else {
        return Stage::Saved(save_unshrunk(store, failure, &file, GaveUp::Deadline(0)));
    };
    let (second, replayed) = recheck_replayed(store, failure);
    let second = match second {
        None => match shrink_only(store, failure, limits, Some(replayed)) {
            Ok(minimal) => return Stage::Shrunk(file, minimal),
            // It happened twice when rechecked, then not when shrinking began.
            Err(FindingError::DoesNotReplay(e)) => (
                SuspectKind::Flaky,
                format!("it failed again when rechecked, but not when shrinking began ({e})"),
            ),
        },
        Some(second) => second,
    };
    Stage::Suspect(save_suspect(
        store,
        failure,
        Some(failure.invariant),
        second,
        out_dir,
    ))
}

/// What the first round of [`settle`] made of a failure.
enum Stage {
    /// Saved as found (out of time, or interrupted).
    Saved(Finding),
    /// Shrunk, to be saved as this file by the second round.
    Shrunk(PathBuf, Minimal),
    /// It did not happen again: saved as a suspect.
    Suspect(Suspect),
}

/// How many equal shares of the time left one failure may take ([`Share::take`]).
const SHARES_PER_ITEM: u32 = 4;

/// An equal share of the time left before a deadline, for each of `left` items taken
/// `jobs` at a time.
struct Share {
    deadline: Option<Instant>,
    jobs: u32,
    left: AtomicUsize,
}

impl Share {
    fn new(deadline: Option<Instant>, jobs: usize, items: usize) -> Share {
        Share {
            deadline,
            jobs: u32::try_from(jobs.max(1)).unwrap_or(u32::MAX),
            left: AtomicUsize::new(items),
        }
    }

    /// The next item's limits: `limits`, ending at its share of the time left; `None` past
    /// the deadline.
    fn take(&self, limits: Limits) -> Option<Limits> {
        let left = self.left.fetch_sub(1, Ordering::Relaxed).max(1);
        let Some(deadline) = self.deadline else {
            return Some(limits);
        };
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        // Up to four equal shares: most failures shrink in a fraction of theirs, and the
        // few long traces need several (a share of a few milliseconds would leave them
        // not 1-minimal); a runaway still leaves the rest most of the time.
        let rounds = u32::try_from(left.div_ceil(self.jobs as usize)).unwrap_or(u32::MAX);
        let share = (deadline - now) * SHARES_PER_ITEM / rounds.max(1);
        Some(limits.until(now + share.min(deadline - now)))
    }
}

/// Replay `failure` on `store` (its processes, reused) and on [`StoreFactory::fresh`] (a
/// fresh process per store, when there is such a thing): `None` when it fails the same way
/// (the same class, or invariant without one) on both, else what it is and why.
pub fn recheck(store: &dyn StoreFactory, failure: &Failure) -> Option<(SuspectKind, String)> {
    recheck_replayed(store, failure).0
}

/// [`recheck`], and the replay on `store`'s own processes (what shrinking begins with).
fn recheck_replayed(
    store: &dyn StoreFactory,
    failure: &Failure,
) -> (Option<(SuspectKind, String)>, Classified) {
    let (on_reused, replayed) = replays(store, failure);
    let fresh = store.fresh();
    let on_fresh = fresh.as_deref().map(|f| replays(f, failure).0);
    let timing = failure.cause.as_ref().is_some_and(CrashCause::is_timing);
    let same = |r: &Replayed| r.same;
    let verdict = match (&on_reused, &on_fresh) {
        (r, None) if same(r) => None,
        (r, Some(f)) if same(r) && same(f) => None,
        _ if timing => Some((
            SuspectKind::Flaky,
            format!(
                "a timeout that did not happen again when replayed ({}): the store (or the machine) was slow, not wrong",
                replay_words(&on_reused, on_fresh.as_ref())
            ),
        )),
        (r, Some(f)) if same(r) && !same(f) => Some((
            SuspectKind::StateLeak,
            format!(
                "it fails again on a reused adapter process but not in a fresh one ({}): the adapter keeps state across `reset`",
                replay_words(&on_reused, on_fresh.as_ref())
            ),
        )),
        (r, Some(f)) if !same(r) && same(f) => Some((
            SuspectKind::StateLeak,
            format!(
                "it fails in a fresh adapter process but not on a reused one ({}): the verdict depends on what the process served before",
                replay_words(&on_reused, on_fresh.as_ref())
            ),
        )),
        _ => Some((
            SuspectKind::Flaky,
            format!(
                "it did not fail that way again when replayed ({})",
                replay_words(&on_reused, on_fresh.as_ref())
            ),
        )),
    };
    (verdict, replayed)
}

/// What one replay of a failure did.
struct Replayed {
    /// It failed the same way.
    same: bool,
    /// What it broke.
    got: Option<Invariant>,
    /// The crash's cause, if it crashed.
    cause: Option<CrashCause>,
}

/// Replay `failure` on `store`: what it did, and the replay itself.
fn replays(store: &dyn StoreFactory, failure: &Failure) -> (Replayed, Classified) {
    let c = classify(store, failure.config.clone(), &failure.steps, &failure.mask);
    let got = c.report.outcome.invariant();
    let same = match &failure.class {
        Some(class) => c.class.as_ref() == Some(class),
        None => got == Some(failure.invariant),
    };
    let replayed = Replayed {
        same,
        got,
        cause: Failure::cause_of(&c.report.outcome),
    };
    (replayed, c)
}

/// `on the campaign's processes: passed; in a fresh process: crash (…)`.
fn replay_words(reused: &Replayed, fresh: Option<&Replayed>) -> String {
    let words = |r: &Replayed| match (r.got, &r.cause) {
        (None, _) => "passed".to_string(),
        (Some(i), Some(c)) => format!("{i}: {c}"),
        (Some(i), None) if r.same => format!("{i} again"),
        (Some(i), None) => i.to_string(),
    };
    match fresh {
        Some(f) => format!(
            "replayed on reused processes: {}; in fresh processes: {}",
            words(reused),
            words(f)
        ),
        None => format!("replayed: {}", words(reused)),
    }
}

/// Save `failure`'s trace (as found, not shrunk) as a scenario for the suspect `second`;
/// the first run broke `expect` (none: it passed).
fn save_suspect(
    store: &dyn StoreFactory,
    failure: &Failure,
    expect: Option<Invariant>,
    (kind, why): (SuspectKind, String),
    out_dir: &Path,
) -> Suspect {
    let mut scenario = Scenario::record(store, failure.config.clone(), &failure.steps, expect);
    scenario.seed = failure.seed;
    scenario.strategy = failure.strategy.clone();
    scenario.masked = failure.mask.clone();
    scenario.description = Some(format!(
        "{kind}: {why}. The trace of the run that failed, as found (not shrunk){}",
        failure
            .description
            .as_ref()
            .map_or(String::new(), |d| format!("; {d}"))
    ));
    let path = suspect_file(out_dir, kind, &store.file_label(), failure.seed, failure);
    let write_error = scenario
        .save(&path)
        .err()
        .map(|e| format!("cannot write {}: {e}", path.display()));
    Suspect {
        kind,
        store: failure.store.clone(),
        seed: failure.seed,
        invariant: expect,
        class: failure.class.clone(),
        cause: failure.cause.clone(),
        why,
        scenario: Some(path),
        write_error,
    }
}

/// `<store>-<kind>-seed<N>.json` (or `…-<strategy>.json` without a seed).
fn suspect_file(
    out_dir: &Path,
    kind: SuspectKind,
    store: &str,
    seed: Option<u64>,
    failure: &Failure,
) -> PathBuf {
    let store = crate::campaign::findings::safe_name(store);
    out_dir.join(match seed {
        Some(seed) => format!("{store}-{kind}-seed{seed}.json"),
        None => format!(
            "{store}-{kind}-{}.json",
            crate::campaign::findings::safe_name(failure.strategy.as_deref().unwrap_or("found"))
        ),
    })
}

// --- the determinism check ---------------------------------------------------------------

/// What a store answered in one run, step by step: everything that must not change when
/// the run is repeated. Not the stderr (a process may log what it likes, pids included),
/// not the texts of a crash (the stderr tail): its cause in words.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Answers {
    steps: Vec<Answered>,
    /// The verdict: the invariant, the tab and the step.
    verdict: Option<(Invariant, Option<ClientId>, usize)>,
    /// The first run's crash cause, if it crashed (to tell a timeout apart).
    timing: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Answered {
    at: StepAt,
    step: Step,
    input: Option<Input>,
    effects: Vec<Effect>,
    crash: Option<String>,
    /// The render of the step's tab after it.
    render: Vec<String>,
}

#[derive(Default)]
struct Recorder {
    steps: Vec<Answered>,
}

impl Observer for Recorder {
    fn on_step(&mut self, world: &World, record: &StepRecord, at: StepAt, _: Option<&Violation>) {
        let render = match record.step.client() {
            Some(c) => world.client(c).render().iter().map(render_line).collect(),
            None => Vec::new(),
        };
        self.steps.push(Answered {
            at,
            step: record.step,
            input: record.input.clone(),
            effects: record.effects.clone(),
            crash: record.crash.as_ref().map(|c| c.cause.to_string()),
            render,
        });
    }
}

fn answers(
    store: &dyn StoreFactory,
    strategy: StrategySpec,
    worlds: &Worlds,
    seed: u64,
) -> (Answers, RunReport) {
    let mut recorder = Recorder::default();
    let report = run_one_in(store, strategy, worlds, seed, &mut recorder);
    let (verdict, timing) = match &report.outcome {
        Outcome::Pass => (None, false),
        Outcome::Fail(v) => (
            Some((v.invariant, v.client, v.step_index)),
            v.cause.as_ref().is_some_and(CrashCause::is_timing),
        ),
    };
    (
        Answers {
            steps: recorder.steps,
            verdict,
            timing,
        },
        report,
    )
}

/// The first difference between two runs' answers, in words.
fn difference(a: &Answers, b: &Answers) -> Option<String> {
    for (i, (x, y)) in a.steps.iter().zip(&b.steps).enumerate() {
        if x == y {
            continue;
        }
        let what = if x.step != y.step {
            format!("the runs took different steps ({} vs {})", x.step, y.step)
        } else if x.input != y.input {
            "the tab was given different inputs (an earlier answer differed)".to_string()
        } else if x.crash != y.crash {
            format!(
                "one crashed and the other did not, or not alike ({} vs {})",
                x.crash.as_deref().unwrap_or("answered"),
                y.crash.as_deref().unwrap_or("answered")
            )
        } else if x.effects != y.effects {
            format!(
                "different effects ({} vs {})",
                effects_words(&x.effects),
                effects_words(&y.effects)
            )
        } else {
            let row = x
                .render
                .iter()
                .zip(&y.render)
                .position(|(p, q)| p != q)
                .unwrap_or(x.render.len().min(y.render.len()));
            format!(
                "different renders (row {row}: {} vs {})",
                x.render.get(row).map_or("none", String::as_str),
                y.render.get(row).map_or("none", String::as_str)
            )
        };
        return Some(format!("step #{i} ({}): {what}", x.step));
    }
    if a.steps.len() != b.steps.len() {
        return Some(format!(
            "one run took {} steps, the other {}",
            a.steps.len(),
            b.steps.len()
        ));
    }
    (a.verdict != b.verdict).then(|| {
        let words = |v: &Option<(Invariant, Option<ClientId>, usize)>| match v {
            None => "pass".to_string(),
            Some((i, _, s)) => format!("{i} after step #{s}"),
        };
        format!(
            "the same answers, different verdicts ({} vs {})",
            words(&a.verdict),
            words(&b.verdict)
        )
    })
}

fn effects_words(effects: &[Effect]) -> String {
    if effects.is_empty() {
        return "none".to_string();
    }
    effects
        .iter()
        .map(|e| serde_json::to_string(e).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What [`check_seed`] found.
#[derive(Debug)]
pub enum SeedCheck {
    /// Every run answered alike.
    Agrees,
    /// The first run timed out: a run that waits out the clock says nothing about what the
    /// store answers (and every other run would wait as long), so the seed is not judged.
    TimedOut,
    /// The runs differ: what it is, in words, with the first run's report.
    Differs(SuspectKind, String, Box<RunReport>),
}

/// Run `seed` on `store` twice (on its processes, which earlier runs have used) and, when
/// the store has a [`StoreFactory::fresh`] form, once in fresh processes (twice when
/// anything differs), and compare
/// every step's input, effects and render, and the verdicts: two fresh runs differing is
/// `nondeterministic`; fresh runs agreeing with each other but not with a run on reused
/// processes, `state-leak`; a difference where a run timed out, `flaky`.
pub fn check_seed(
    store: &dyn StoreFactory,
    strategy: StrategySpec,
    worlds: &Worlds,
    seed: u64,
) -> SeedCheck {
    let (p1, report) = answers(store, strategy, worlds, seed);
    if p1.timing {
        return SeedCheck::TimedOut;
    }
    let (p2, _) = answers(store, strategy, worlds, seed);
    let flaky = |a: &Answers, b: &Answers, d: String| {
        (a.timing || b.timing).then(|| {
            (
                SuspectKind::Flaky,
                format!("two runs of the seed differ, one of them by a timeout: {d}"),
            )
        })
    };
    let found = match store.fresh() {
        Some(fresh) => {
            // One fresh run first; a second only when something differs, to tell a leak
            // (fresh runs agree) from nondeterminism (they do not). A fresh run starts a
            // process per tab, the costly part.
            let (f1, _) = answers(fresh.as_ref(), strategy, worlds, seed);
            let reused = difference(&p1, &p2)
                .map(|d| (&p1, &p2, d))
                .or_else(|| difference(&p1, &f1).map(|d| (&p1, &f1, d)));
            match reused {
                None => None,
                Some((a, b, d)) => {
                    let (f2, _) = answers(fresh.as_ref(), strategy, worlds, seed);
                    if let Some(d) = difference(&f1, &f2) {
                        Some(flaky(&f1, &f2, d.clone()).unwrap_or((
                            SuspectKind::Nondeterministic,
                            format!("two runs of the seed in fresh adapter processes differ: {d}"),
                        )))
                    } else {
                        let d = difference(&p1, &f1)
                            .or_else(|| difference(&p2, &f1))
                            .unwrap_or(d);
                        Some(flaky(a, b, d.clone()).unwrap_or((
                            SuspectKind::StateLeak,
                            format!(
                                "a run on reused adapter processes differs from runs in fresh ones, which agree: {d}; the adapter keeps state across `reset`"
                            ),
                        )))
                    }
                }
            }
        }
        None => difference(&p1, &p2).map(|d| {
            flaky(&p1, &p2, d.clone()).unwrap_or((
                SuspectKind::Nondeterministic,
                format!("two runs of the seed differ: {d}"),
            ))
        }),
    };
    match found {
        Some((kind, why)) => SeedCheck::Differs(kind, why, Box::new(report)),
        None => SeedCheck::Agrees,
    }
}

/// [`check_seed`] for each of `seeds` on each store, until one differs (one seed names the
/// store: a suspect, with its first run's trace saved under `out_dir`) or times out (a
/// store that hangs is not judged by the clock, and each further seed would wait as long).
pub fn check_determinism(
    stores: &[&dyn StoreFactory],
    strategy: StrategySpec,
    worlds: &Worlds,
    seeds: impl Iterator<Item = u64> + Clone,
    out_dir: &Path,
) -> Vec<Suspect> {
    let mut suspects = Vec::new();
    for store in stores {
        for seed in seeds.clone() {
            let (kind, why, report) = match check_seed(*store, strategy, worlds, seed) {
                SeedCheck::Agrees => continue,
                SeedCheck::TimedOut => break,
                SeedCheck::Differs(kind, why, report) => (kind, why, report),
            };
            let got = report.outcome.invariant();
            let failure = Failure::of_run(
                store.name(),
                // Not read: the suspect's scenario expects the run's own verdict.
                got.unwrap_or(Invariant::Crash),
                Some(seed),
                Some(strategy.to_string()),
                *report,
                worlds.effective(),
            );
            let suspect = save_suspect(*store, &failure, got, (kind, why), out_dir);
            suspects.push(suspect);
            break; // one seed is enough to name the store
        }
    }
    suspects
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::by_name;

    /// A failure of `store` known by its invariant only, as `report` ran it (by the random
    /// strategy on `seed`, when it came from one).
    fn unclassified(store: &str, report: &RunReport, seed: Option<u64>) -> Failure {
        let invariant = report.outcome.invariant().expect("a failing run");
        let strategy = seed.map(|_| "random".into());
        Failure::of_run(
            store.into(),
            invariant,
            seed,
            strategy,
            report.clone(),
            Default::default(),
        )
    }

    /// A shipped store is deterministic: every seed's two runs agree, and a failure it
    /// finds happens again.
    #[test]
    fn a_deterministic_store_gives_no_suspect() {
        let current = by_name("current").unwrap();
        for seed in 0..20 {
            assert!(matches!(
                check_seed(&current, StrategySpec::Random, &Worlds::default(), seed),
                SeedCheck::Agrees
            ));
        }
        let failing = (0..200)
            .map(|s| crate::campaign::fuzz::run_one(&current, StrategySpec::Random, s))
            .find(|r| r.outcome.invariant().is_some())
            .expect("current fails some seed");
        let failure = unclassified("current", &failing, None);
        assert_eq!(recheck(&current, &failure), None);
    }

    /// `--check-determinism` runs the seeds again in the worlds the campaign ran: with its
    /// pins (here a seed whose drawn world reorders, run with an ordered socket).
    #[test]
    fn the_determinism_check_runs_seeds_in_the_pinned_worlds() {
        let current = by_name("current").unwrap();
        let pinned = Worlds {
            pins: crate::model::pins::WorldPins::parse(&["ws_reorder_window=1"]).unwrap(),
            ..Worlds::default()
        };
        let seed = (0..)
            .find(|s| crate::model::config::WorldConfig::from_seed(*s).ws_reorder_window > 1)
            .unwrap();
        let (_, report) = answers(&current, StrategySpec::Random, &pinned, seed);
        assert_eq!(report.config.ws_reorder_window, 1);
        assert_eq!(report.config, pinned.draw(seed));
        assert!(matches!(
            check_seed(&current, StrategySpec::Random, &pinned, seed),
            SeedCheck::Agrees
        ));
    }

    /// Two answer streams that differ only in a render are told apart, and the words name
    /// the step and the row.
    #[test]
    fn differences_name_the_step_and_what_differs() {
        let current = by_name("current").unwrap();
        let (a, _) = answers(&current, StrategySpec::Random, &Worlds::default(), 3);
        let mut b = a.clone();
        assert_eq!(difference(&a, &b), None);
        let i = b.steps.iter().position(|s| !s.render.is_empty()).unwrap();
        b.steps[i].render[0].push_str(" leaked");
        let d = difference(&a, &b).unwrap();
        assert!(d.starts_with(&format!("step #{i} (")), "{d}");
        assert!(d.contains("different renders (row 0:"), "{d}");
        let mut c = a.clone();
        c.verdict = Some((Invariant::Converges, Some(0), 7));
        if a.verdict.is_none() {
            assert!(difference(&a, &c).unwrap().contains("different verdicts"));
        }
    }

    /// What `check` and `fuzz` print for a suspect, and the kind's name in file names:
    /// `KIND on STORE[, seed N][ (CLASS, else INVARIANT)]: WHY`.
    #[test]
    fn a_suspect_reads_as_its_kind_store_seed_class_or_invariant_and_why() {
        let names: Vec<String> = [
            SuspectKind::Flaky,
            SuspectKind::StateLeak,
            SuspectKind::Nondeterministic,
        ]
        .iter()
        .map(|k| format!("{k}|{}", k.name()))
        .collect();
        assert_eq!(
            names,
            [
                "flaky|flaky",
                "state-leak|state-leak",
                "nondeterministic|nondeterministic"
            ]
        );
        let mut suspect = Suspect {
            kind: SuspectKind::StateLeak,
            store: "exec:./adapter".into(),
            seed: Some(3),
            invariant: Some(Invariant::Converges),
            class: None,
            cause: None,
            why: "it passes in a fresh process".into(),
            scenario: None,
            write_error: None,
        };
        assert_eq!(
            suspect.headline(),
            "state-leak on exec:./adapter, seed 3 (inv4-converges): it passes in a fresh process"
        );
        let class = Class::bare(Invariant::Converges);
        suspect.class = Some(class.clone());
        assert_eq!(
            suspect.headline(),
            format!("state-leak on exec:./adapter, seed 3 ({class}): it passes in a fresh process")
        );
        suspect.kind = SuspectKind::Nondeterministic;
        suspect.seed = None;
        suspect.class = None;
        suspect.invariant = None;
        assert_eq!(
            suspect.headline(),
            "nondeterministic on exec:./adapter: it passes in a fresh process"
        );
    }

    /// `settle` rechecks each failure and shrinks and saves those that happen again (every
    /// failure of an in-process store does), each on the store it names, in the order
    /// given; by a deadline, a failure reached before it is shrunk, one reached after it
    /// is saved as found; `limits` bound each shrink.
    #[test]
    fn settle_shrinks_and_saves_each_failure_on_its_own_store_in_order_by_the_deadline() {
        use crate::trace::shrink::check_one_minimal;
        use std::time::Duration;
        let naive = by_name("naive").unwrap();
        let current = by_name("current").unwrap();
        let stores: [&dyn StoreFactory; 2] = [&naive, &current];
        let failure = |kind: &crate::store::StoreKind| -> Failure {
            let (seed, r) = (0..200)
                .map(|s| (s, crate::run::run_seed(kind, s)))
                .find(|(_, r)| r.outcome.invariant().is_some())
                .expect("a failing seed");
            unclassified(&kind.name(), &r, Some(seed))
        };
        // The first failure names the second store of the list.
        let failures = [failure(&current), failure(&naive)];
        let dir = tempfile::tempdir().unwrap();
        let settle_in = |name: &str, limits: Limits, deadline: Option<Instant>| {
            let out = dir.path().join(name);
            settle(&stores, &failures, &out, limits, deadline, 2, &|_, _| {})
        };
        let in_an_hour = Instant::now() + Duration::from_secs(3600);
        for (name, deadline) in [("none", None), ("hour", Some(in_an_hour))] {
            let s = settle_in(name, Limits::default(), deadline);
            assert!(s.suspects.is_empty(), "{name}: {:?}", s.suspects);
            let found: Vec<&str> = s.findings.iter().map(|f| f.store.as_str()).collect();
            assert_eq!(found, ["current", "naive"], "{name}");
            for (f, failure) in s.findings.iter().zip(&failures) {
                assert_eq!((f.invariant, f.seed), (failure.invariant, failure.seed));
                assert_eq!(f.shrunk.gave_up, None, "{name}: {}", f.store);
                assert!(
                    f.shrunk.steps.len() < failure.steps.len(),
                    "{name}: {}",
                    f.store
                );
                assert!(f.path.exists() && f.write_error.is_none(), "{name}");
                let kind = by_name(&f.store).unwrap();
                let (config, steps) = (&f.shrunk.config, &f.shrunk.steps);
                assert_eq!(check_one_minimal(&kind, config, steps, f.invariant), Ok(()));
            }
        }
        // Past the deadline: each failure saved as found.
        let s = settle_in("past", Limits::default(), Some(Instant::now()));
        assert!(s.suspects.is_empty());
        for (f, failure) in s.findings.iter().zip(&failures) {
            assert_eq!(f.shrunk.gave_up, Some(GaveUp::Deadline(0)));
            assert_eq!(f.shrunk.steps, failure.steps);
            assert!(f.path.exists());
        }
        assert_eq!(s.findings.len(), 2);
        // Two replays allowed: each shrink gives up at that limit.
        let tight = Limits {
            replays_max: 2,
            ..Limits::default()
        };
        let s = settle_in("tight", tight, None);
        assert_eq!(s.findings.len(), 2);
        for f in &s.findings {
            assert!(
                matches!(f.shrunk.gave_up, Some(GaveUp::Replays(_))),
                "{f:?}"
            );
        }
    }

    /// Each failure's share of the time left before a deadline: up to four equal shares
    /// per round of `jobs` failures, never past the deadline; none once it has passed;
    /// the limits as given without a deadline.
    #[test]
    fn each_failure_gets_its_share_of_the_time_left() {
        use std::time::Duration;
        let now = Instant::now();
        let deadline = now + Duration::from_secs(800);
        let secs = |share: &Share| {
            let limits = share.take(Limits::default()).expect("before the deadline");
            limits.deadline.unwrap().duration_since(now).as_secs()
        };
        // 16 failures, 2 at a time: 8 rounds, so 4/8 of the time left for the first.
        let first = secs(&Share::new(Some(deadline), 2, 16));
        assert!((395..=400).contains(&first), "{first}");
        // 2 failures, one at a time: 4/2 of the time left, cut at the deadline.
        assert_eq!(secs(&Share::new(Some(deadline), 1, 2)), 800);
        let limits = Limits::default();
        assert_eq!(Share::new(None, 1, 3).take(limits), Some(limits));
        assert_eq!(Share::new(Some(now), 1, 3).take(limits), None);
    }

    /// Stands for an adapter: its own (reused) processes run `reused`, a fresh process
    /// runs `fresh` (none: no fresh processes, as for an in-process store).
    struct TwoFaced {
        reused: crate::store::StoreKind,
        fresh: Option<crate::store::StoreKind>,
    }
    impl StoreFactory for TwoFaced {
        fn name(&self) -> String {
            "exec:two-faced".into()
        }
        fn make(&self, c: ClientId) -> Box<dyn crate::model::store::Store> {
            self.reused.make(c)
        }
        fn fresh(&self) -> Option<Box<dyn StoreFactory>> {
            let reused = self.fresh?;
            Some(Box::new(TwoFaced {
                reused,
                fresh: None,
            }))
        }
    }

    /// The recheck's verdict on a failure of `naive`, replayed where it fails again
    /// (`naive`) or not (`current` passes its trace), on reused and on fresh processes:
    /// nothing to say when it fails the same way on both (or on the only one), a state
    /// leak when only one of the two fails, flaky when neither does or when it fails
    /// another way (another class, another invariant), and a timeout that did not happen
    /// again is always flaky. The words say what each replay did.
    #[test]
    fn a_recheck_names_a_state_leak_or_a_flaky_failure_by_what_each_replay_did() {
        let (naive, current) = (by_name("naive").unwrap(), by_name("current").unwrap());
        let (seed, r) = (0..200)
            .map(|s| (s, crate::run::run_seed(&naive, s)))
            .find(|(_, r)| {
                r.outcome.invariant().is_some()
                    && crate::run::replay(&current, r.config.clone(), &r.steps)
                        .outcome
                        .invariant()
                        .is_none()
            })
            .expect("a failure of naive that current passes");
        let inv = r.outcome.invariant().unwrap();
        let failure = unclassified("exec:two-faced", &r, Some(seed));
        let verdict = |reused, fresh, failure: &Failure| {
            recheck(&TwoFaced { reused, fresh }, failure).map(|(k, why)| (k.name(), why))
        };
        assert_eq!(verdict(naive, None, &failure), None);
        assert_eq!(verdict(naive, Some(naive), &failure), None);
        let flaky = |words: &str| {
            Some((
                "flaky",
                format!("it did not fail that way again when replayed ({words})"),
            ))
        };
        assert_eq!(verdict(current, None, &failure), flaky("replayed: passed"));
        let both = |reused: &str, fresh: &str| {
            format!("replayed on reused processes: {reused}; in fresh processes: {fresh}")
        };
        let again = format!("{inv} again");
        assert_eq!(
            verdict(current, Some(current), &failure),
            flaky(&both("passed", "passed"))
        );
        assert_eq!(
            verdict(naive, Some(current), &failure),
            Some(("state-leak", format!("it fails again on a reused adapter process but not in a fresh one ({}): the adapter keeps state across `reset`", both(&again, "passed"))))
        );
        assert_eq!(
            verdict(current, Some(naive), &failure),
            Some(("state-leak", format!("it fails in a fresh adapter process but not on a reused one ({}): the verdict depends on what the process served before", both("passed", &again))))
        );
        // Another invariant, or another class, than the failure's: not the same failure.
        let other = [
            crate::oracle::Invariant::NoLoss,
            crate::oracle::Invariant::NoDuplicate,
        ]
        .into_iter()
        .find(|&i| i != inv)
        .unwrap();
        let mut another = failure.clone();
        another.invariant = other;
        assert_eq!(
            verdict(naive, None, &another),
            flaky(&format!("replayed: {inv}"))
        );
        let mut classed = failure.clone();
        let class = classify(&naive, r.config.clone(), &r.steps, &[])
            .class
            .expect("a class");
        classed.class = Some(class.clone());
        assert_eq!(verdict(naive, Some(naive), &classed), None);
        classed.class = Some(Class::bare(crate::oracle::Invariant::Crash));
        assert_ne!(Some(class), classed.class);
        assert_eq!(
            verdict(naive, None, &classed),
            flaky(&format!("replayed: {inv}"))
        );
        // A timeout: flaky whichever replay passed.
        let mut timed_out = failure.clone();
        timed_out.cause = Some(CrashCause::TimedOut {
            phase: crate::model::store::Phase::Message,
            waited_ms: 5000,
            stderr_tail: String::new(),
        });
        let timeout = |words: &str| {
            Some(("flaky", format!("a timeout that did not happen again when replayed ({words}): the store (or the machine) was slow, not wrong")))
        };
        assert_eq!(
            verdict(naive, Some(current), &timed_out),
            timeout(&both(&again, "passed"))
        );
        assert_eq!(verdict(naive, Some(naive), &timed_out), None);
        // Settled: the failure that does not happen again is a suspect, saved as found
        // under `<store>-<kind>-seed<N>.json`; it is no finding.
        let dir = tempfile::tempdir().unwrap();
        let leaky = TwoFaced {
            reused: naive,
            fresh: Some(current),
        };
        let settled = settle(
            &[&leaky],
            std::slice::from_ref(&failure),
            dir.path(),
            Limits::default(),
            None,
            1,
            &|_, _| {},
        );
        assert!(settled.findings.is_empty());
        assert_eq!(settled.suspects.len(), 1);
        let suspect = &settled.suspects[0];
        assert_eq!(suspect.kind, SuspectKind::StateLeak);
        let file = dir
            .path()
            .join(format!("exec_two-faced-state-leak-seed{seed}.json"));
        assert_eq!(suspect.scenario.as_deref(), Some(file.as_path()));
        assert!(file.exists() && suspect.write_error.is_none());
    }

    /// A difference in what a step asked for names both effect lists, as JSON (`none`
    /// for an empty one).
    #[test]
    fn a_difference_in_effects_names_both_lists() {
        let current = by_name("current").unwrap();
        let (a, _) = answers(&current, StrategySpec::Random, &Worlds::default(), 3);
        let i = a.steps.iter().position(|s| !s.effects.is_empty()).unwrap();
        let mut b = a.clone();
        b.steps[i].effects.clear();
        let json: Vec<String> = a.steps[i]
            .effects
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        let d = difference(&a, &b).unwrap();
        assert!(
            d.ends_with(&format!("different effects ({} vs none)", json.join(", "))),
            "{d}"
        );
    }

    /// The determinism check names a store whose fresh processes answer otherwise than its
    /// reused ones (which agree with each other) as a state leak, once (one seed is
    /// enough), with that seed's first run saved; a store that answers alike, not at all.
    #[test]
    fn the_determinism_check_names_a_leaking_store_once_with_its_seed() {
        let (naive, current) = (by_name("naive").unwrap(), by_name("current").unwrap());
        let leaky = TwoFaced {
            reused: naive,
            fresh: Some(current),
        };
        let alike = TwoFaced {
            reused: current,
            fresh: Some(current),
        };
        let dir = tempfile::tempdir().unwrap();
        let stores: [&dyn StoreFactory; 2] = [&alike, &leaky];
        let suspects = check_determinism(
            &stores,
            StrategySpec::Random,
            &Worlds::default(),
            0..4,
            dir.path(),
        );
        assert_eq!(suspects.len(), 1, "{suspects:?}");
        let s = &suspects[0];
        assert_eq!(s.kind, SuspectKind::StateLeak);
        assert!(
            s.why.starts_with("a run on reused adapter processes differs from runs in fresh ones, which agree: step #"),
            "{}",
            s.why
        );
        let seed = s.seed.expect("a seed");
        assert!(seed < 4);
        let file = dir
            .path()
            .join(format!("exec_two-faced-state-leak-seed{seed}.json"));
        assert!(file.exists());
    }

    /// A store that answers as `first` in the first `first_run` tabs it makes (a seed's
    /// first run) and times out at every input of the tabs made after them, as an adapter
    /// on a machine that got slow between two runs; its fresh processes, if any, answer as
    /// `fresh` in their first run and time out after it.
    struct SlowAfter {
        made: AtomicUsize,
        first_run: usize,
        first: crate::store::StoreKind,
        fresh: Option<crate::store::StoreKind>,
    }
    struct TimesOut;
    impl crate::model::store::Store for TimesOut {
        fn handle(&mut self, _: &Input) -> crate::model::store::Answer {
            Err(crate::model::store::StoreFault {
                cause: CrashCause::TimedOut {
                    phase: crate::model::store::Phase::Message,
                    waited_ms: 5000,
                    stderr_tail: String::new(),
                },
            })
        }
        fn render(&self) -> &[crate::model::wire::RenderRow] {
            &[]
        }
    }
    impl StoreFactory for SlowAfter {
        fn name(&self) -> String {
            "exec:slow-after".into()
        }
        fn make(&self, c: ClientId) -> Box<dyn crate::model::store::Store> {
            if self.made.fetch_add(1, Ordering::Relaxed) < self.first_run {
                self.first.make(c)
            } else {
                Box::new(TimesOut)
            }
        }
        fn fresh(&self) -> Option<Box<dyn StoreFactory>> {
            let first = self.fresh?;
            let clients = self.first_run / 2;
            Some(Box::new(SlowAfter {
                made: AtomicUsize::new(0),
                first_run: clients,
                first,
                fresh: None,
            }))
        }
    }

    /// Two runs of a seed that differ because one of them timed out (not the first, which
    /// leaves the seed unjudged) are `flaky`, whichever two runs they are: the store's own
    /// processes, or two fresh ones (after a fresh run that differed from the reused
    /// ones). Not `nondeterministic`: the machine was slow, the store not wrong.
    #[test]
    fn a_seed_whose_second_run_times_out_is_flaky_not_nondeterministic() {
        let (naive, current) = (by_name("naive").unwrap(), by_name("current").unwrap());
        let worlds = Worlds::default();
        let seed = (0..100)
            .find(|s| {
                let (a, _) = answers(&naive, StrategySpec::Random, &worlds, *s);
                let (b, _) = answers(&current, StrategySpec::Random, &worlds, *s);
                difference(&a, &b).is_some()
            })
            .expect("a seed naive and current answer differently");
        let clients = worlds.draw(seed).clients as usize;
        // Reused processes answering once; then answering twice (as `current`), with
        // fresh ones answering once (as `naive`).
        for (first_run, fresh) in [(clients, None), (2 * clients, Some(naive))] {
            let store = SlowAfter {
                made: AtomicUsize::new(0),
                first_run,
                first: current,
                fresh,
            };
            let what = format!("seed {seed}, fresh processes {}", fresh.is_some());
            let SeedCheck::Differs(kind, why, _) =
                check_seed(&store, StrategySpec::Random, &worlds, seed)
            else {
                panic!("{what}: the runs differ");
            };
            assert_eq!(kind, SuspectKind::Flaky, "{what}: {why}");
            assert!(
                why.starts_with("two runs of the seed differ, one of them by a timeout: "),
                "{what}: {why}"
            );
        }
    }
}
