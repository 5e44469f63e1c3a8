//! Failures become findings here, and only here: a failing run is shrunk to a 1-minimal
//! scenario, saved atomically, and named by the one-line command that replays it. `run`,
//! `fuzz`, `check`, `nightly` and `from-fuzz` all go through [`shrink_and_save`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::campaign::seen_runs::SeenRuns;
use crate::model::config::WorldConfig;
use crate::model::pins::WorldPins;
use crate::model::step::Step;
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::run::replay;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::run::{Outcome, RunReport};
use crate::trace::assume::{self, Assumption};
use crate::trace::class::classify_schedule;
use crate::trace::class::{classify, Class, Classified, HasClass};
use crate::trace::localize::{localize, Evidence, Localization, Recording};
use crate::trace::scenario::{failure_file_name, Scenario};
use crate::trace::shrink::{
    shrink_failing, shrink_with, DoesNotFail, Failing, GaveUp, Limits, Reduced, Shrunk,
};

/// A failing run, as found: everything needed to shrink it and name the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The name of the store it failed on.
    pub store: String,
    /// The invariant it broke.
    pub invariant: Invariant,
    /// The seed of the run, if it came from one.
    pub seed: Option<u64>,
    /// How it was found (`random`, `pct:3`, `libfuzzer`…), for the scenario file.
    pub strategy: Option<String>,
    /// What the scenario file says about where it came from, if anything.
    pub description: Option<String>,
    /// The world it ran in.
    pub config: WorldConfig,
    /// Its main-phase steps.
    pub steps: Vec<Step>,
    /// Its root-cause class, when a class-aware campaign found it: shrinking then keeps
    /// the class, not just the invariant.
    pub class: Option<Class>,
    /// The classes masked in the run that found it.
    pub mask: Vec<Class>,
    /// For a `crash`: why the store crashed in the run that found it (with the adapter's
    /// stderr tail), which reports quote.
    pub cause: Option<CrashCause>,
    /// Runs of a class-aware campaign that showed the same class in a world without a
    /// feature this one's world has (the first such seed per feature): witnesses that do
    /// not need it, tried before any search ([`shrink_and_save_after`]). Empty elsewhere.
    pub without: Vec<(Assumption, Failure)>,
    /// What `--world` pinned when it was found (recorded in the scenario, so the
    /// reproduce command repeats them).
    pub pins: WorldPins,
}

impl Failure {
    /// `run` of `store` (from `seed` by `strategy`, when it came from one) as a failure of
    /// `invariant` known by its invariant only: no class, no mask, no witness without a
    /// feature. A class-aware campaign sets `class` and `mask` on it.
    pub fn of_run(
        store: String,
        invariant: Invariant,
        seed: Option<u64>,
        strategy: Option<String>,
        run: RunReport,
        pins: WorldPins,
    ) -> Failure {
        Failure {
            store,
            invariant,
            seed,
            strategy,
            description: None,
            cause: Failure::cause_of(&run.outcome),
            config: run.config,
            steps: run.steps,
            class: None,
            mask: Vec::new(),
            without: Vec::new(),
            pins,
        }
    }

    /// The cause of the crash `outcome` ends in, if it is one.
    pub fn cause_of(outcome: &Outcome) -> Option<CrashCause> {
        match outcome {
            Outcome::Fail(v) => v.cause.clone(),
            Outcome::Pass => None,
        }
    }
}

/// A failure, shrunk and saved.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The store it fails on.
    pub store: String,
    /// The invariant it breaks.
    pub invariant: Invariant,
    /// The seed it was found with, if any.
    pub seed: Option<u64>,
    /// The scenario file written.
    pub path: PathBuf,
    /// What shrinking did.
    pub shrunk: Shrunk,
    /// Its root-cause class, if it was shrunk for one.
    pub class: Option<Class>,
    /// The world features the saved witness needs ([`crate::trace::assume`]).
    pub needs: Vec<Assumption>,
    /// The needs were not searched to the end (the settle budget or Ctrl-C stopped it):
    /// `needs` is an upper bound, what the witness's world has beyond what was ruled out.
    pub needs_unsearched: bool,
    /// For a `crash`: why the store crashed in the run that found it, with the adapter's
    /// stderr tail.
    pub cause: Option<CrashCause>,
    /// Why the file could not be written (`cannot write PATH: …`), if it could not. The
    /// finding is still returned, so that the caller prints it and then fails: a full disk
    /// or a bad `--out` must not lose what was found.
    pub write_error: Option<String>,
    /// The scenario file's contents: what was written as `path`, or would have been. A
    /// `--result` file embeds it from here, so it holds the scenario even when the file
    /// could not be written.
    pub text: String,
    /// Where in the store (`--localize`, [`crate::trace::localize`]): the lines ranked
    /// from the runs shrinking made; `None` when not asked or the store cannot say.
    pub localized: Option<Localization>,
}

impl Finding {
    /// The command that replays the saved scenario.
    pub fn replay_command(&self) -> String {
        replay_command_for(&self.store, &self.path)
    }
}

/// `reconcile-sim replay /abs/PATH`, quoted for a shell, the program named as it was
/// started ([`crate::util::program`]) and the path absolute, so that it runs when pasted in
/// any directory (issue 48: relative paths worked only where the run happened).
pub fn replay_command(path: &Path) -> String {
    format!(
        "{} replay {}",
        crate::util::program::program(),
        shell_words::quote(&crate::util::program::absolute(path).display().to_string())
    )
}

/// `reconcile-sim run --store STORE --seed SEED` with the flags that choose `strategy` and
/// `worlds`: the command that reproduces a seed's run, the program named as it was started.
/// An `exec:` store's command runs in the current directory (its paths are relative to
/// it), so its reproduce command starts with a `cd` there, to run when pasted anywhere.
pub fn reproduce_command(
    store: &str,
    seed: u64,
    strategy: StrategySpec,
    worlds: &Worlds,
) -> String {
    let cd = match std::env::current_dir() {
        Ok(dir) if store.starts_with(crate::exec::SPEC_PREFIX) => {
            format!("cd {} && ", shell_words::quote(&dir.display().to_string()))
        }
        _ => String::new(),
    };
    format!(
        "{cd}{} run --store {} --seed {seed}{}{}",
        crate::util::program::program(),
        shell_words::quote(store),
        strategy.flags(),
        worlds.flags()
    )
}

/// [`replay_command`] of a scenario recorded on `store`: with `--allow-exec` when the store
/// is a command (replay runs a file's command only when asked).
pub fn replay_command_for(store: &str, path: &Path) -> String {
    let mut command = replay_command(path);
    if store.starts_with(crate::exec::SPEC_PREFIX) {
        command.push_str(" --allow-exec");
    }
    command
}

/// `reconcile-sim shrink /abs/PATH` (with `--allow-exec` for a store that is a command):
/// the command that shrinks a saved scenario further (it writes beside the file, under a
/// new name), printed for every scenario not shrunk to 1-minimal, ready to paste anywhere.
pub fn shrink_command_for(store: &str, path: &Path) -> String {
    let mut command = format!(
        "{} shrink {}",
        crate::util::program::program(),
        shell_words::quote(&crate::util::program::absolute(path).display().to_string())
    );
    if store.starts_with(crate::exec::SPEC_PREFIX) {
        command.push_str(" --allow-exec");
    }
    command
}

/// Why a failure could not become a finding.
#[derive(Debug, thiserror::Error)]
pub enum FindingError {
    /// The recorded failure did not fail the same way when replayed: the harness (or the
    /// store) is not deterministic.
    #[error("internal error: a recorded failure did not replay: {0}")]
    DoesNotReplay(DoesNotFail),
}

impl FindingError {
    /// A harness bug (a recorded failure that does not replay), not bad input.
    pub fn is_internal(&self) -> bool {
        matches!(self, FindingError::DoesNotReplay(_))
    }
}

/// Where [`shrink_and_save`] writes `failure` (of `store`) under `out_dir`:
/// `<store>-<class key or invariant>-seed<N>.json` (or `…-<strategy>.json` without a
/// seed), the store named by its [`StoreFactory::file_label`] (an `exec:` store by the name
/// it states, so that its files are named alike whatever command line runs it), plus what
/// else chose the run ([`variant_suffix`]), so that one seed run again with another
/// strategy, other `--world` pins or other `--invariants` writes a file of its own instead
/// of silently replacing the first (issue 48).
pub fn file_for(out_dir: &Path, store: &dyn StoreFactory, failure: &Failure) -> PathBuf {
    let label = store.file_label();
    let name = if let Some(class) = &failure.class {
        let store = safe_name(&label);
        let key = class.key();
        match failure.seed {
            Some(seed) => format!("{store}-{key}-seed{seed}"),
            None => format!(
                "{store}-{key}-{}",
                failure.strategy.as_deref().unwrap_or("found")
            ),
        }
    } else {
        match failure.seed {
            Some(_) => failure_file_name(&label, failure.invariant, failure.seed)
                .trim_end_matches(".json")
                .to_string(),
            None => format!(
                "{}-{}-{}",
                safe_name(&label),
                failure.invariant,
                failure.strategy.as_deref().unwrap_or("found")
            ),
        }
    };
    let contract = store.contract().unwrap_or_default();
    out_dir.join(format!("{name}{}.json", variant_suffix(failure, &contract)))
}

/// What tells runs of one seed apart beyond the store and seed, for [`file_for`]: empty
/// for the default (the `random` strategy, nothing pinned, every invariant judged, so the
/// names of the default runs stay as they were); `-<strategy>` for a seeded run of another
/// strategy; `-w<hash>` (8 hex digits of the `--world` and `--invariants` flags) when
/// something is pinned or skipped. The scenario file records all of it.
/// The store's declared contract (`contract`) is the store's, not the run's: pins it
/// declares add nothing to the name.
fn variant_suffix(failure: &Failure, contract: &WorldPins) -> String {
    use crate::oracle::judged::JudgedExt;
    let mut suffix = String::new();
    if failure.seed.is_some() {
        if let Some(s) = failure.strategy.as_deref().filter(|s| *s != "random") {
            suffix.push('-');
            suffix.push_str(&safe_name(s));
        }
    }
    let judged = failure.config.judged;
    let pins = failure.pins.beyond(contract);
    if !pins.is_empty() || !judged.is_all() {
        let flags = format!("{}{}", pins.flags(), judged.flags());
        let hash = xxhash_rust::xxh3::xxh3_64(flags.as_bytes());
        suffix.push_str(&format!("-w{:08x}", hash >> 32));
    }
    suffix
}

/// `store` with anything but letters, digits, `-`, `_` and `.` made `_`.
pub(crate) fn safe_name(store: &str) -> String {
    store
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Shrink `failure` on `store` and save it atomically as `file`.
pub fn shrink_and_save(
    store: &dyn StoreFactory,
    failure: &Failure,
    file: &Path,
    limits: Limits,
) -> Result<Finding, FindingError> {
    shrink_and_save_after(store, failure, file, limits, None)
}

/// [`shrink_and_save`], given `replayed`: a replay of `failure`'s steps on `store` under its
/// mask that the caller has made already (the recheck's, on the same processes), which
/// shrinking would otherwise begin by making again. Through an adapter every replay costs
/// round trips, and one that hangs costs the whole timeout.
pub fn shrink_and_save_after(
    store: &dyn StoreFactory,
    failure: &Failure,
    file: &Path,
    limits: Limits,
    replayed: Option<Classified>,
) -> Result<Finding, FindingError> {
    let minimal = shrink_only(store, failure, limits, replayed)?;
    Ok(save_shrunk(
        store,
        failure,
        file,
        limits,
        minimal,
        &SeenRuns::default(),
    ))
}

/// A failure shrunk for its class (or invariant), not yet saved: what [`shrink_only`]
/// gives and [`save_shrunk`] takes. A campaign shrinks all its failures first and only
/// then spends what time is left on their needs, so that a tight budget costs a finding
/// its smallest world, never its 1-minimal steps.
#[derive(Clone, Debug)]
pub struct Minimal {
    shrunk: Shrunk,
    masked: Vec<Class>,
    localized: Option<Localization>,
}

/// The first half of [`shrink_and_save_after`]: `failure` shrunk on `store` within
/// `limits`, given the replay the caller made already, if any.
pub fn shrink_only(
    store: &dyn StoreFactory,
    failure: &Failure,
    limits: Limits,
    replayed: Option<Classified>,
) -> Result<Minimal, FindingError> {
    let (shrunk, masked, localized) = shrink_failure(store, failure, limits, replayed)?;
    Ok(Minimal {
        shrunk,
        masked,
        localized,
    })
}

/// The second half of [`shrink_and_save_after`]: the world features `minimal` needs (and a
/// witness needing fewer, within `limits`), its notes, and the file saved atomically as
/// `file`.
pub fn save_shrunk(
    store: &dyn StoreFactory,
    failure: &Failure,
    file: &Path,
    limits: Limits,
    minimal: Minimal,
    seen: &SeenRuns,
) -> Finding {
    let Minimal {
        shrunk,
        masked,
        localized,
    } = minimal;
    let needs = needs_of(store, failure, &shrunk, &masked, limits);
    let needs_unsearched = out_of_time(limits);
    let (shrunk, masked, needs) = need_less(store, failure, limits, (shrunk, masked, needs), seen);
    // Out of time during the searches: some feature may not have been tried without.
    let needs_unsearched = needs_unsearched || out_of_time(limits);
    let mut scenario = Scenario::unannotated(
        store.name(),
        shrunk.config.clone(),
        &shrunk.steps,
        Some(shrunk.invariant),
    );
    scenario.record_store(store);
    scenario.seed = failure.seed;
    scenario.strategy = failure.strategy.clone();
    scenario.class = failure.class.clone();
    scenario.world_pins = failure.pins.clone();
    // Set before the notes are written: a masked replay's notes reach past the masked
    // violations.
    scenario.masked = masked;
    scenario.needs = Some(needs.clone());
    scenario.description = failure.description.clone();
    if !out_of_time(limits) {
        // One more replay, for the notes; a campaign out of time saves the steps alone.
        scenario.annotate(store);
    }
    Finding {
        store: failure.store.clone(),
        // What the saved file breaks: shrinking for a class may trade the invariant that
        // noticed it first for another that notices the same class (2 and 4).
        invariant: shrunk.invariant,
        seed: failure.seed,
        path: file.to_path_buf(),
        shrunk,
        class: failure.class.clone(),
        needs,
        needs_unsearched,
        cause: failure.cause.clone(),
        write_error: save(&scenario, file),
        text: scenario.to_json(),
        localized,
    }
}

/// A witness of `failure`'s class that needs less of the world than `best` (shrunk, its
/// mask, its needs), or `best`. A team whose world lacks a feature the witness needs (most
/// often WebSocket reordering: one ordered socket per tab) cannot meet it, so each needed
/// feature in turn is looked for without: first a run of the campaign that showed the
/// class without it, else [`search_without`]. Each search starts from the best witness
/// so far (its world), and a witness that needs less reopens the search without
/// reordering: the smaller world may be the one where an ordered witness is in reach.
/// Bounded: reordering, once dropped, never comes back, and every other improvement
/// drops a feature.
fn need_less(
    store: &dyn StoreFactory,
    failure: &Failure,
    limits: Limits,
    best: (Shrunk, Vec<Class>, Vec<Assumption>),
    seen: &SeenRuns,
) -> (Shrunk, Vec<Class>, Vec<Assumption>) {
    let (mut shrunk, mut masked, mut needs) = best;
    let mut base = failure.clone();
    let mut tried = Vec::new();
    while let Some(a) = needs.iter().copied().find(|a| !tried.contains(a)) {
        tried.push(a);
        // A feature the pins (the store's contract, `--world`) fix is in every world the
        // team's app meets, or in none: a witness without it is moot.
        if failure.pins.fixes(a.option()) {
            continue;
        }
        if out_of_time(limits) {
            break;
        }
        let kept = failure.without.iter().find(|(x, _)| *x == a);
        let Some(without) = kept
            .map(|(_, f)| f.clone())
            .or_else(|| search_without(store, &base, &needs, a, limits, seen))
        else {
            continue;
        };
        if let Ok((s, m, _)) = shrink_failure(store, &without, limits, None) {
            let n = needs_of(store, &without, &s, &m, limits);
            // Without reordering is worth other features (the ordered world is the one
            // most apps have); any other feature is dropped only for a subset.
            // A witness whose shrinking was cut short is never traded for a 1-minimal one.
            let minimal = s.gave_up.is_none() || shrunk.gave_up.is_some();
            let better = minimal
                && !n.contains(&a)
                && (a == Assumption::WsReordering || n.iter().all(|x| needs.contains(x)));
            if better {
                base.config = s.config.clone();
                (shrunk, masked, needs) = (s, m, n);
                tried.retain(|x| *x != Assumption::WsReordering);
            }
        }
    }
    (shrunk, masked, needs)
}

/// Shrink `failure` for its class (or, without one, its invariant): the shrunk trace, the
/// classes its replay must mask, and, when the store is localized, where in it.
fn shrink_failure(
    store: &dyn StoreFactory,
    failure: &Failure,
    limits: Limits,
    replayed: Option<Classified>,
) -> Result<(Shrunk, Vec<Class>, Option<Localization>), FindingError> {
    Ok(match &failure.class {
        Some(class) => shrink_class(store, failure, class, limits, replayed)?,
        None => (
            shrink_with(
                store,
                failure.config.clone(),
                &failure.steps,
                Some(failure.invariant),
                limits,
                &|config, _| failure.pins.allows(config),
            )
            .map_err(FindingError::DoesNotReplay)?,
            Vec::new(),
            store.localizing().then(|| {
                Localization::not("not localized: found without root-cause classes (localization ranks a class's runs)")
            }),
        ),
    })
}

/// A property kept only in worlds the pins allow (the store's contract and `--world`): the
/// shrinker cuts world options to simplify a witness, and a witness in a world the team's
/// app never meets (consume reasons cut from an app whose backend always sends them) would
/// be no witness of theirs.
struct WithinPins<'a, F> {
    inner: F,
    pins: &'a WorldPins,
}

impl<F: Failing> Failing for WithinPins<'_, F> {
    fn stores(&self) -> &dyn StoreFactory {
        self.inner.stores()
    }
    fn run(
        &self,
        config: &WorldConfig,
        next: &mut dyn FnMut(&crate::model::world::World, &[Step], usize) -> crate::run::Next,
    ) -> (Vec<Step>, bool) {
        if !self.pins.allows(config) {
            return (Vec::new(), false);
        }
        self.inner.run(config, next)
    }
    fn replay(
        &self,
        config: &WorldConfig,
        steps: &[Step],
        observer: &mut dyn crate::run::Observer,
    ) {
        self.inner.replay(config, steps, observer);
    }
}

/// The world features the shrunk witness needs, each checked by one replay without it;
/// out of time, what its world has (an upper bound).
fn needs_of(
    store: &dyn StoreFactory,
    failure: &Failure,
    shrunk: &Shrunk,
    masked: &[Class],
    limits: Limits,
) -> Vec<Assumption> {
    if out_of_time(limits) {
        return assume::present(&shrunk.config);
    }
    assume::needed(&shrunk.config, |config| match &failure.class {
        Some(class) => {
            classify(store, config, &shrunk.steps, masked)
                .class
                .as_ref()
                == Some(class)
        }
        None => replay(store, config, &shrunk.steps).outcome.invariant() == Some(shrunk.invariant),
    })
}

/// A run showing `failure`'s class (or invariant) in a world without `feature` and (unless
/// `feature` is WebSocket reordering) without anything the witness does not need
/// (`needs`), if one of [`Assumption::tries`] schedules finds it. Half are new schedules
/// in the failure's own world cut down that way (the one it was found in, larger than the
/// shrunk witness's; random, PCT and swarm in turn, each seeded by its index). The other
/// half are the campaign's own seeds from the failure's on, each in its world cut down the
/// same way and run with the campaign's strategy, every class of the seed found by
/// masking as the campaign does: for reordering, exactly what a campaign with
/// `--world ws_reorder_window=1` runs on those seeds. Either way the search is the same
/// every time.
fn search_without(
    store: &dyn StoreFactory,
    failure: &Failure,
    needs: &[Assumption],
    feature: Assumption,
    limits: Limits,
    seen: &SeenRuns,
) -> Option<Failure> {
    let cut_down = |mut world: WorldConfig| {
        for a in Assumption::ALL {
            // The ordered world keeps every other feature of the failure's world (a witness
            // there is kept even if it needs more of them); other searches never add one.
            let cut = feature != Assumption::WsReordering || a == Assumption::WsReordering;
            if cut && a.holds(&world) && !needs.contains(&a) {
                world = a.world_without(&world)?;
            }
        }
        feature.world_without(&world)
    };
    let own = cut_down(failure.config.clone())?;
    let campaign_strategy = failure
        .strategy
        .as_deref()
        .and_then(|s| s.parse::<StrategySpec>().ok())
        .unwrap_or(StrategySpec::Random);
    let first_seed = failure.seed.unwrap_or(0);
    let shows = |class: Option<&Class>, invariant: Option<Invariant>| match &failure.class {
        Some(c) => class == Some(c),
        None => invariant == Some(failure.invariant),
    };
    let run = |world: &WorldConfig, spec: StrategySpec, seed: u64, mask: &[Class]| {
        classify_schedule(store, world.clone(), spec, seed, mask)
    };
    (0..feature.tries()).find_map(|k| {
        if out_of_time(limits) {
            return None;
        }
        let (world, mask, report) = if k % 2 == 0 {
            // Each strategy in turn: PCT and swarm hold deliveries back where uniform
            // choice rarely does (two fetches in flight, a long inbox).
            let spec = StrategySpec::ALL[(k / 2 % 3) as usize];
            let ran = run(&own, spec, k, &failure.mask);
            if !shows(ran.class.as_ref(), ran.report.outcome.invariant()) {
                return None;
            }
            (own.clone(), failure.mask.clone(), ran.report)
        } else {
            let seed = first_seed.wrapping_add(k / 2);
            // The seed's world as the campaign drew it: with its pins and its choice of
            // invariants.
            let mut drawn = failure.pins.apply(WorldConfig::from_seed(seed));
            drawn.judged = failure.config.judged;
            let world = cut_down(drawn)?;
            let (_, mask, report) =
                seen.first_showing(store, &world, campaign_strategy, seed, |c, invariant| {
                    shows(Some(c), invariant)
                })?;
            (world, mask, report)
        };
        Some(Failure {
            invariant: report.outcome.invariant().unwrap_or(failure.invariant),
            config: world,
            steps: report.steps,
            mask,
            ..failure.clone()
        })
    })
}

/// Whether shrinking must not replay any more: past `limits`' deadline, or after Ctrl-C.
fn out_of_time(limits: Limits) -> bool {
    limits.deadline.is_some_and(|d| Instant::now() >= d) || crate::run::interrupt::requested()
}

/// Save `scenario` as `file`; the error in words if that failed.
fn save(scenario: &Scenario, file: &Path) -> Option<String> {
    scenario
        .save(file)
        .err()
        .map(|e| format!("cannot write {}: {e}", file.display()))
}

/// Save `failure` as found, without shrinking or replaying it (its steps carry no notes):
/// what a campaign does with a failure when its `--time` budget, or Ctrl-C, leaves no time
/// to shrink it. The file replays like any other (it keeps the class and the classes
/// masked when it was found).
pub fn save_unshrunk(
    store: &dyn StoreFactory,
    failure: &Failure,
    file: &Path,
    why: GaveUp,
) -> Finding {
    let mut scenario = Scenario::unannotated(
        failure.store.clone(),
        failure.config.clone(),
        &failure.steps,
        Some(failure.invariant),
    );
    scenario.record_store(store);
    scenario.seed = failure.seed;
    scenario.strategy = failure.strategy.clone();
    scenario.class = failure.class.clone();
    scenario.masked = failure.mask.clone();
    scenario.world_pins = failure.pins.clone();
    // Unshrunk and unreplayed: what its world has, an upper bound of what it needs.
    let needs = assume::present(&failure.config);
    scenario.needs = Some(needs.clone());
    scenario.description = failure.description.clone();
    Finding {
        store: failure.store.clone(),
        invariant: failure.invariant,
        seed: failure.seed,
        path: file.to_path_buf(),
        shrunk: Shrunk {
            config: failure.config.clone(),
            steps: failure.steps.clone(),
            invariant: failure.invariant,
            original_steps: failure.steps.len(),
            replays: 0,
            elapsed: Duration::ZERO,
            gave_up: Some(why),
        },
        class: failure.class.clone(),
        needs,
        // Unshrunk: not searched at all.
        needs_unsearched: true,
        cause: failure.cause.clone(),
        write_error: save(&scenario, file),
        text: scenario.to_json(),
        localized: store.localizing().then(|| {
            Localization::not("not localized: not shrunk (no time left), so no runs to rank")
        }),
    }
}

/// Random schedules of a failure's world run for contrast when localizing (`--localize`),
/// beyond the runs shrinking makes: measured on the planted bugs of docs/localize.md.
pub const LOCALIZE_CONTRAST_RUNS: u64 = 40;

/// Shrink `failure` keeping its class `class` (under the failure's mask), then drop the
/// mask if the shrunk trace shows the class without it (it usually does: shrinking
/// removes whatever made a masked class happen). Returns the shrunk trace and the classes
/// its replay must mask.
fn shrink_class(
    store: &dyn StoreFactory,
    failure: &Failure,
    class: &Class,
    limits: Limits,
    replayed: Option<Classified>,
) -> Result<(Shrunk, Vec<Class>, Option<Localization>), FindingError> {
    let first = replayed
        .unwrap_or_else(|| classify(store, failure.config.clone(), &failure.steps, &failure.mask));
    if first.class.as_ref() != Some(class) {
        return Err(FindingError::DoesNotReplay(DoesNotFail {
            expected: Some(failure.invariant),
            got: first.report.outcome.invariant(),
        }));
    }
    let keeps = WithinPins {
        inner: HasClass {
            stores: store,
            class,
            mask: &failure.mask,
        },
        pins: &failure.pins,
    };
    // Localizing: the shrinker's runs, each noted failing or passing with the lines it ran.
    let recording = store.localizing().then(|| Recording::new(&keeps));
    let r = shrink_failing(
        recording
            .as_ref()
            .map_or(&keeps as &dyn Failing, |r| r as &dyn Failing),
        failure.config.clone(),
        failure.steps.len(),
        first.report.steps.clone(),
        limits,
    );
    let evidence = Evidence::for_invariant(failure.invariant);
    let localized = recording.map(|r| {
        // Shrinking's candidates mostly still fail when the bug is easy to trigger: a few
        // random schedules of the failure's own world add the passing runs that tell the
        // faulty line from every line that merely ran alongside it.
        for seed in 0..LOCALIZE_CONTRAST_RUNS {
            if out_of_time(limits) {
                break;
            }
            r.add(|| {
                let ran = classify_schedule(
                    store,
                    failure.config.clone(),
                    StrategySpec::Random,
                    seed,
                    &failure.mask,
                );
                ran.class.as_ref() == Some(class)
            });
        }
        localize(&r.into_spectrum(), evidence)
    });
    let stopped = matches!(
        r.gave_up,
        Some(GaveUp::Deadline(_) | GaveUp::Interrupted(_))
    );
    if stopped && r.steps == first.report.steps && r.config == failure.config {
        // Out of time before anything was cut: the trace found, under the mask it was
        // found with, is what there is to save; no more replays.
        let masked = first.masked.clone();
        let invariant = first
            .report
            .outcome
            .invariant()
            .unwrap_or(failure.invariant);
        return Ok((shrunk_from(r, invariant), masked, localized));
    }
    let (last, masked) = mask_still_needed(store, &r, failure, class);
    let invariant = last.report.outcome.invariant().unwrap_or(failure.invariant);
    Ok((shrunk_from(r, invariant), masked, localized))
}

/// Replays the shrunk trace `r` without a mask: if it shows `class`, no mask is needed;
/// otherwise under `failure`'s mask, needing the classes that replay masked. Returns that
/// last replay and the mask.
fn mask_still_needed(
    store: &dyn StoreFactory,
    r: &Reduced,
    failure: &Failure,
    class: &Class,
) -> (Classified, Vec<Class>) {
    let unmasked = classify(store, r.config.clone(), &r.steps, &[]);
    if unmasked.class.as_ref() == Some(class) {
        (unmasked, Vec::new())
    } else {
        let masked = classify(store, r.config.clone(), &r.steps, &failure.mask);
        let needed = masked.masked.clone();
        (masked, needed)
    }
}

/// The shrinker's result `r` as a [`Shrunk`] breaking `invariant`.
fn shrunk_from(r: Reduced, invariant: Invariant) -> Shrunk {
    Shrunk {
        config: r.config,
        steps: r.steps,
        invariant,
        original_steps: r.original_steps,
        replays: r.replays,
        elapsed: r.elapsed,
        gave_up: r.gave_up,
    }
}

/// The scenario file for a shrunk failure.
pub fn scenario_of(
    store: &dyn StoreFactory,
    r: &Shrunk,
    seed: Option<u64>,
    strategy: Option<String>,
) -> Scenario {
    let mut s = Scenario::record(store, r.config.clone(), &r.steps, Some(r.invariant));
    s.seed = seed;
    s.strategy = strategy;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::run_seed;
    use crate::store::{by_name, StoreKind};
    use crate::trace::class::every_class_of_schedule;

    /// The first failing seeds of `kind` (among 0..`seeds`), each as a failure known by
    /// its invariant only, as a campaign without classes finds it.
    fn failures_of(kind: &StoreKind, seeds: u64) -> Vec<Failure> {
        (0..seeds)
            .map(|seed| (seed, run_seed(kind, seed)))
            .filter(|(_, r)| r.outcome.invariant().is_some())
            .map(|(seed, r)| {
                let invariant = r.outcome.invariant().unwrap();
                let strategy = Some("random".into());
                Failure::of_run(
                    kind.name(),
                    invariant,
                    Some(seed),
                    strategy,
                    r,
                    WorldPins::default(),
                )
            })
            .collect()
    }

    /// The first class runs of `kind`'s seeds (0..`seeds`), as a class-aware campaign finds
    /// them: each class with the mask it was found under.
    fn class_failures_of(kind: &StoreKind, seeds: u64) -> Vec<Failure> {
        let mut seen: Vec<Class> = Vec::new();
        let mut out = Vec::new();
        for seed in 0..seeds {
            let world = WorldConfig::from_seed(seed);
            let (found, _) = every_class_of_schedule(kind, world, StrategySpec::Random, seed);
            for (class, mask, r) in found {
                if seen.contains(&class) {
                    continue;
                }
                seen.push(class.clone());
                let invariant = r.outcome.invariant().unwrap();
                let strategy = Some("random".into());
                out.push(Failure {
                    class: Some(class),
                    mask,
                    ..Failure::of_run(
                        kind.name(),
                        invariant,
                        Some(seed),
                        strategy,
                        r,
                        WorldPins::default(),
                    )
                });
            }
        }
        out
    }

    /// Whether `steps` in `config`, under `mask`, show `f`'s class (or, without one, break
    /// its invariant): what a saved witness of `f` must do.
    fn shows(
        kind: &StoreKind,
        f: &Failure,
        config: &WorldConfig,
        steps: &[Step],
        mask: &[Class],
    ) -> bool {
        match &f.class {
            Some(c) => classify(kind, config.clone(), steps, mask).class.as_ref() == Some(c),
            None => {
                let run = classify(kind, config.clone(), steps, mask);
                run.report.outcome.invariant() == Some(f.invariant)
            }
        }
    }

    /// The failures of the tests below: the first failing seeds (0..40) of three stores,
    /// known by invariant and by class.
    fn all_failures() -> Vec<(StoreKind, Failure)> {
        ["naive", "fix-ab", "current"]
            .into_iter()
            .flat_map(|name| {
                let kind = by_name(name).unwrap();
                let mut fs = failures_of(&kind, 40);
                fs.extend(class_failures_of(&kind, 40));
                fs.into_iter().map(move |f| (kind, f))
            })
            .collect()
    }

    /// The commands a user is told: `replay` of the file by its absolute path, quoted for a
    /// shell, with `--allow-exec` for a store that is a command; `run` of the seed with the
    /// flags of its strategy and worlds, from the current directory for a command.
    #[test]
    fn the_commands_a_finding_is_named_by_replay_its_file_or_rerun_its_seed() {
        let program = crate::util::program::program();
        let path = Path::new("out dir/naive-inv1-no-loss-seed3.json");
        let cwd = std::env::current_dir().unwrap();
        let replay = format!(
            "{program} replay {}",
            shell_words::quote(&cwd.join(path).display().to_string())
        );
        assert_eq!(replay_command(path), replay);
        assert_eq!(replay_command_for("naive", path), replay);
        let exec = "exec:node adapter.js";
        assert_eq!(
            replay_command_for(exec, path),
            format!("{replay} --allow-exec")
        );
        let naive = by_name("naive").unwrap();
        let f = failures_of(&naive, 10).remove(0);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("it's.json");
        let found = save_unshrunk(&naive, &f, &file, GaveUp::Deadline(0));
        assert_eq!(
            found.replay_command(),
            format!(
                "{program} replay {}",
                shell_words::quote(&file.display().to_string())
            )
        );
        let exec_found = Finding {
            store: exec.into(),
            ..found
        };
        assert_eq!(exec_found.replay_command(), replay_command_for(exec, &file));
        assert!(exec_found.replay_command().ends_with("' --allow-exec"));
        let worlds = Worlds {
            pins: WorldPins::parse(&["ws_reorder_window=1"]).unwrap(),
            ..Worlds::default()
        };
        assert_eq!(
            reproduce_command(exec, 7, StrategySpec::Swarm, &worlds),
            format!(
                "cd {} && {program} run --store 'exec:node adapter.js' --seed 7 --strategy swarm --world ws_reorder_window=1",
                shell_words::quote(&cwd.display().to_string())
            )
        );
        assert_eq!(
            reproduce_command("naive", 0, StrategySpec::Random, &Worlds::default()),
            format!("{program} run --store naive --seed 0")
        );
    }

    /// Regression (issue 48): one seed run again with other `--world` pins, other
    /// `--invariants` or another strategy wrote the same file name, silently replacing the
    /// first run's scenario. Each now has a name of its own; the default run's is as it was.
    #[test]
    fn one_seed_under_other_pins_invariants_or_strategies_gets_a_file_of_its_own() {
        let naive = by_name("naive").unwrap();
        let f = failures_of(&naive, 10).remove(0);
        let seed = f.seed.unwrap();
        let dir = Path::new("out");
        let name = |f: &Failure| file_for(dir, &naive, f).display().to_string();
        let default = name(&f);
        assert_eq!(
            default,
            format!("out/naive-{}-seed{seed}.json", f.invariant),
            "the default run's name is unchanged"
        );
        let pinned = |pins: &[&str]| Failure {
            pins: WorldPins::parse(pins).unwrap(),
            ..f.clone()
        };
        let skipping = |skip: &str| {
            let mut g = f.clone();
            g.config.judged = crate::oracle::judged::from_flags(None, Some(skip)).unwrap();
            g
        };
        let by = |strategy: &str| Failure {
            strategy: Some(strategy.into()),
            ..f.clone()
        };
        let names = [
            default.clone(),
            name(&pinned(&["ws_reorder_window=1"])),
            name(&pinned(&["ws_reorder_window=2"])),
            name(&pinned(&["turn_failures=false"])),
            name(&skipping("inv5")),
            name(&skipping("inv4")),
            name(&by("pct")),
            name(&by("pct:5")),
            name(&by("swarm")),
        ];
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:#?}");
        // The same pins give the same name, run after run.
        assert_eq!(names[1], name(&pinned(&["ws_reorder_window=1"])));
        assert!(names[7].ends_with("-pct_5.json"), "{}", names[7]);
        // A class's file too.
        let class = Failure {
            class: Some(Class::bare(f.invariant)),
            ..f.clone()
        };
        let classed = Failure {
            pins: WorldPins::parse(&["ws_reorder_window=1"]).unwrap(),
            ..class.clone()
        };
        assert_ne!(name(&class), name(&classed));
    }

    /// A recorded failure that does not replay is the harness's fault (exit 3), not bad
    /// input.
    #[test]
    fn a_failure_that_does_not_replay_is_an_internal_error() {
        let naive = by_name("naive").unwrap();
        let mut f = failures_of(&naive, 10).remove(0);
        f.steps.clear();
        let dir = tempfile::tempdir().unwrap();
        let err =
            shrink_and_save(&naive, &f, &dir.path().join("f.json"), Limits::default()).unwrap_err();
        assert!(err.is_internal(), "{err}");
        assert!(err.to_string().starts_with("internal error: "), "{err}");
    }

    /// Up to two of `kind`'s failures (of the first 40 seeds) whose saved witness needs
    /// less of the world than its shrunk steps' world has, each with its shrinking.
    fn two_whose_witness_needs_less(kind: &StoreKind, dir: &Path) -> Vec<(Failure, Minimal)> {
        failures_of(kind, 40)
            .into_iter()
            .map(|f| {
                let m = shrink_only(kind, &f, Limits::default(), None).unwrap();
                (f, m)
            })
            .filter(|(f, m)| {
                let found =
                    shrink_and_save(kind, f, &dir.join("probe.json"), Limits::default()).unwrap();
                found.needs.len() < assume::present(&m.shrunk.config).len()
            })
            .take(2)
            .collect()
    }

    /// With time left (no deadline, or one an hour away) a finding's steps carry the notes
    /// of a replay and its needs are measured (here, a witness needing less is found); out
    /// of time, the shrunk steps are saved as they are, without notes, needing what their
    /// world has, and no more replays are made.
    #[test]
    fn out_of_time_a_shrunk_failure_is_saved_without_notes_needing_what_its_world_has() {
        let dir = tempfile::tempdir().unwrap();
        let fix_ab = by_name("fix-ab").unwrap();
        let cases = two_whose_witness_needs_less(&fix_ab, dir.path());
        assert!(
            !cases.is_empty(),
            "a failure whose witness needs less is found"
        );
        let in_an_hour = Instant::now() + Duration::from_secs(3600);
        for (f, minimal) in &cases {
            let present = assume::present(&minimal.shrunk.config);
            // Saved as `name`.json with this deadline: the finding, and the file read back.
            let save = |name: &str, deadline: Option<Instant>| {
                let file = dir.path().join(format!("{name}.json"));
                let limits = Limits {
                    deadline,
                    ..Limits::default()
                };
                let found = save_shrunk(
                    &fix_ab,
                    f,
                    &file,
                    limits,
                    minimal.clone(),
                    &SeenRuns::default(),
                );
                (found, crate::trace::scenario::load(&file).unwrap())
            };
            for (name, deadline) in [("none", None), ("hour", Some(in_an_hour))] {
                let (found, saved) = save(name, deadline);
                assert!(
                    saved.steps.iter().any(|s| s.note.is_some()),
                    "{name}: annotated"
                );
                assert!(found.needs.len() < present.len(), "{name}: needs measured");
                assert_eq!(saved.needs.as_ref(), Some(&found.needs), "{name}");
            }
            let (found, saved) = save("past", Some(Instant::now()));
            assert!(
                saved.steps.iter().all(|s| s.note.is_none()),
                "out of time: no notes"
            );
            assert_eq!(found.needs, present, "out of time: what the world has");
            assert_eq!(saved.needs, Some(present.clone()));
            assert_eq!(found.shrunk.steps, minimal.shrunk.steps);
            assert_eq!(saved.steps(), minimal.shrunk.steps);
        }
    }

    /// A finding needs exactly the world features without which its saved steps (under
    /// its saved mask) no longer show its failure, another tab whenever its world has one;
    /// and a finding still needing reordering has no ordered witness the search can find
    /// from where it stopped.
    #[test]
    fn a_finding_needs_exactly_the_features_without_which_its_steps_no_longer_fail() {
        let dir = tempfile::tempdir().unwrap();
        let mut beyond_a_tab = 0;
        for (i, (kind, f)) in all_failures().into_iter().enumerate() {
            let file = dir.path().join(format!("{i}.json"));
            let found = shrink_and_save(&kind, &f, &file, Limits::default()).unwrap();
            let saved = crate::trace::scenario::load(&file).unwrap();
            let (config, steps, mask) = (&found.shrunk.config, &found.shrunk.steps, &saved.masked);
            let what = format!("{} seed {:?} class {:?}", f.store, f.seed, f.class);
            assert!(shows(&kind, &f, config, steps, mask), "{what}: the witness");
            let expected: Vec<Assumption> = assume::present(config)
                .into_iter()
                .filter(|a| {
                    *a == Assumption::AnotherTab
                        || a.world_without(config)
                            .is_none_or(|c| !shows(&kind, &f, &c, steps, mask))
                })
                .collect();
            assert_eq!(found.needs, expected, "{what}");
            // No mask where the steps show the class without one.
            if f.class.is_some() && shows(&kind, &f, config, steps, &[]) {
                assert_eq!(saved.masked, [], "{what}: a mask not needed");
            }
            assert_eq!(saved.needs.as_ref(), Some(&found.needs), "{what}");
            beyond_a_tab += found
                .needs
                .iter()
                .filter(|a| **a != Assumption::AnotherTab)
                .count();
        }
        assert!(beyond_a_tab > 0, "some finding needs more than another tab");
    }

    /// The witness the search for a run without `feature` should find, by its documented
    /// order: for k in 0..tries, an even k runs a new schedule (random, PCT, swarm in turn,
    /// seeded by k) in the failure's world cut down, an odd k the campaign's seed
    /// `failure seed + k / 2` in its drawn world cut down, with every class masked in
    /// turn; the first run showing the failure. With the k it was found at.
    fn documented_witness(
        kind: &StoreKind,
        f: &Failure,
        needs: &[Assumption],
        feature: Assumption,
    ) -> Option<(u64, Failure)> {
        // Without the feature and, unless it is reordering, without anything not needed.
        let cut = |mut world: WorldConfig| -> Option<WorldConfig> {
            if feature != Assumption::WsReordering {
                for a in assume::present(&world) {
                    if !needs.contains(&a) && a.holds(&world) {
                        world = a.world_without(&world)?;
                    }
                }
            }
            feature.world_without(&world)
        };
        let own = cut(f.config.clone())?;
        let strategies = [
            StrategySpec::Random,
            StrategySpec::Pct { depth: None },
            StrategySpec::Swarm,
        ];
        for k in 0..feature.tries() {
            let found = if k % 2 == 0 {
                let spec = strategies[(k / 2) as usize % 3];
                let ran = classify_schedule(kind, own.clone(), spec, k, &f.mask);
                shows(kind, f, &own, &ran.report.steps, &f.mask)
                    .then(|| (own.clone(), f.mask.clone(), ran.report))
            } else {
                let seed = f.seed.unwrap() + k / 2;
                let mut drawn = WorldConfig::from_seed(seed);
                drawn.judged = f.config.judged;
                let Some(world) = cut(drawn) else { continue };
                every_class_of_schedule(kind, world.clone(), StrategySpec::Random, seed)
                    .0
                    .into_iter()
                    .find(|(c, _, r)| match &f.class {
                        Some(class) => c == class,
                        None => r.outcome.invariant() == Some(f.invariant),
                    })
                    .map(|(_, mask, r)| (world, mask, r))
            };
            if let Some((config, mask, report)) = found {
                return Some((
                    k,
                    Failure {
                        invariant: report.outcome.invariant().unwrap(),
                        config,
                        steps: report.steps,
                        mask,
                        ..f.clone()
                    },
                ));
            }
        }
        None
    }

    /// The search for a witness without a feature the shrunk one needs finds, each time,
    /// the first run of its documented order that shows the failure, in a world without
    /// that feature (and, for any feature but reordering, without what the witness did
    /// not need).
    #[test]
    fn the_search_without_a_feature_finds_the_first_run_of_its_order_that_shows_the_failure() {
        let (mut own_later, mut campaign_later, mut none, mut not_reordering) = (0, 0, 0, 0);
        for (kind, f) in all_failures() {
            let m = shrink_only(&kind, &f, Limits::default(), None).unwrap();
            let needs = needs_of(&kind, &f, &m.shrunk, &m.masked, Limits::default());
            for &a in &needs {
                let got = search_without(
                    &kind,
                    &f,
                    &needs,
                    a,
                    Limits::default(),
                    &SeenRuns::default(),
                );
                let expected = documented_witness(&kind, &f, &needs, a);
                let what = format!(
                    "{} seed {:?} class {:?} without {a}",
                    f.store, f.seed, f.class
                );
                assert_eq!(got.as_ref(), expected.as_ref().map(|(_, w)| w), "{what}");
                match expected {
                    None => none += 1,
                    Some((k, w)) => {
                        assert!(!a.holds(&w.config), "{what}");
                        assert!(shows(&kind, &f, &w.config, &w.steps, &w.mask), "{what}");
                        own_later += usize::from(k % 2 == 0 && k >= 2);
                        campaign_later += usize::from(k % 2 == 1 && k >= 3);
                        not_reordering += usize::from(a != Assumption::WsReordering);
                    }
                }
            }
        }
        assert!(
            own_later > 0 && campaign_later > 0,
            "witnesses found late in both halves"
        );
        assert!(
            none > 0 && not_reordering > 0,
            "{none} searches found none, {not_reordering} without another feature"
        );
    }

    /// One failure of the test below, with what its shrunk witness needs before (`first`)
    /// and after (`last`) the witness search, and the replays its shrinking took.
    struct KeptCase {
        kind: StoreKind,
        f: Failure,
        first: Vec<Assumption>,
        replays: u64,
        last: Vec<Assumption>,
    }

    impl KeptCase {
        fn same(&self, other: &KeptCase) -> bool {
            self.kind.name == other.kind.name && self.f.invariant == other.f.invariant
        }

        /// Saved as `file` with `kept` given as the campaign's witness without `a`.
        fn with_kept(
            &self,
            a: Assumption,
            kept: &KeptCase,
            limits: Limits,
            file: &Path,
        ) -> Finding {
            let f = Failure {
                without: vec![(a, kept.f.clone())],
                ..self.f.clone()
            };
            shrink_and_save(&self.kind, &f, file, limits).unwrap()
        }
    }

    /// The witness search is bounded as `need_less` documents: a witness needing less
    /// reopens the search without reordering only; a feature whose search found nothing
    /// is not searched for again. `fix-abc` seed 482 and `membership` seed 805 (inv1, as a
    /// campaign without classes finds them; found by running every failure of seeds
    /// 0..1000 of eight stores with the rule broken): each first needs a failed turn and
    /// another tab; the search without a failed turn gives nothing better, the one
    /// without another tab a witness with one tab, and the finding still needs a failed
    /// turn, though the same search from that witness's smaller world would now find one
    /// (the rule keeps the search bounded; the price is a finding that may need a
    /// feature it could do without).
    #[test]
    fn a_witness_needing_less_reopens_only_the_search_without_reordering() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        let failed_turn = Assumption::FailedTurn;
        for (name, seed) in [("fix-abc", 482), ("membership", 805)] {
            let kind = by_name(name).unwrap();
            let run = run_seed(&kind, seed);
            let invariant = run.outcome.invariant().unwrap();
            let strategy = Some("random".into());
            let f = Failure::of_run(
                kind.name(),
                invariant,
                Some(seed),
                strategy,
                run,
                WorldPins::default(),
            );
            let m = shrink_only(&kind, &f, Limits::default(), None).unwrap();
            let first = needs_of(&kind, &f, &m.shrunk, &m.masked, Limits::default());
            let found = shrink_and_save(&kind, &f, &file, Limits::default()).unwrap();
            let what = format!(
                "{name} seed {seed}: needs {first:?} first, {:?} at the end",
                found.needs
            );
            assert!(
                first.contains(&failed_turn) && first.len() > found.needs.len(),
                "{what}"
            );
            assert_eq!(found.needs, [failed_turn], "{what}");
            let from_there = Failure {
                config: found.shrunk.config.clone(),
                ..f.clone()
            };
            let again = search_without(
                &kind,
                &from_there,
                &found.needs,
                failed_turn,
                Limits::default(),
                &SeenRuns::default(),
            );
            assert!(again.is_some(), "{what}: a second search would find one");
        }
    }

    /// A witness the campaign kept (a later seed's run that showed the failure in a world
    /// without a feature) is tried before any search: one without reordering is taken
    /// even if it needs another feature the first did not (the ordered world is the one
    /// most apps have); one without another feature only if it needs nothing more; one
    /// whose shrinking gave up never replaces a 1-minimal one.
    #[test]
    fn a_witness_the_campaign_kept_without_a_feature_replaces_the_found_one_by_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        let cases: Vec<KeptCase> = ["fix-ab", "current", "naive"]
            .into_iter()
            .flat_map(|name| {
                let kind = by_name(name).unwrap();
                failures_of(&kind, 40).into_iter().map(move |f| (kind, f))
            })
            .map(|(kind, f)| {
                let m = shrink_only(&kind, &f, Limits::default(), None).unwrap();
                let first = needs_of(&kind, &f, &m.shrunk, &m.masked, Limits::default());
                let last = shrink_and_save(&kind, &f, &file, Limits::default())
                    .unwrap()
                    .needs;
                let replays = m.shrunk.replays;
                KeptCase {
                    kind,
                    f,
                    first,
                    replays,
                    last,
                }
            })
            .collect();
        let taken = an_ordered_witness_is_taken_unless_cut_short(&cases, &file);
        assert!(
            taken > 100,
            "an ordered witness kept, and one cut short: {taken}"
        );
        let refused = a_witness_needing_more_is_refused(&cases, &file);
        assert!(refused > 0, "a witness needing more refused");
    }

    /// Stuck with reordering (no search finds an ordered witness), given an ordered one
    /// that needs another tab: taken (counted 1), unless its shrinking gives up where the
    /// first's did not (counted 100).
    fn an_ordered_witness_is_taken_unless_cut_short(cases: &[KeptCase], file: &Path) -> usize {
        let (ws, tab) = (Assumption::WsReordering, Assumption::AnotherTab);
        let mut taken = 0;
        for c in cases.iter().filter(|c| c.last.contains(&ws)) {
            for g in cases.iter().filter(|g| {
                c.same(g)
                    && !ws.holds(&g.f.config)
                    && g.first.contains(&tab)
                    && !c.first.contains(&tab)
            }) {
                let found = c.with_kept(ws, g, Limits::default(), file);
                assert!(
                    !found.needs.contains(&ws),
                    "{:?} given {:?}: {:?}",
                    c.f.seed,
                    g.f.seed,
                    found.needs
                );
                taken += 1;
                if g.replays > c.replays {
                    let tight = Limits {
                        replays_max: c.replays,
                        ..Limits::default()
                    };
                    let found = c.with_kept(ws, g, tight, file);
                    assert_eq!(found.shrunk.gave_up, None);
                    assert_eq!(
                        found.needs, c.first,
                        "{:?} given {:?} cut short",
                        c.f.seed, g.f.seed
                    );
                    taken += 100;
                }
            }
        }
        taken
    }

    /// Given one without another feature that needs something the first did not: refused,
    /// so nothing the first did not need is needed (with reordering needed by neither, no
    /// search brings it back). Returns how many were refused.
    fn a_witness_needing_more_is_refused(cases: &[KeptCase], file: &Path) -> usize {
        let ws = Assumption::WsReordering;
        let mut refused = 0;
        for c in cases.iter().filter(|c| !c.first.contains(&ws)) {
            for &a in c.first.iter() {
                let more = |g: &&KeptCase| g.first.iter().any(|x| !c.first.contains(x) && *x != ws);
                for g in cases
                    .iter()
                    .filter(|g| c.same(g) && !a.holds(&g.f.config))
                    .filter(more)
                {
                    let found = c.with_kept(a, g, Limits::default(), file);
                    let extra: Vec<_> = found
                        .needs
                        .iter()
                        .filter(|x| !c.first.contains(x))
                        .collect();
                    assert!(
                        extra.is_empty(),
                        "{:?} given {:?} without {a}: {extra:?}",
                        c.f.seed,
                        g.f.seed
                    );
                    refused += 1;
                }
            }
        }
        refused
    }

    /// Out of time before anything was cut, a class failure is saved as found, under the
    /// mask and with the invariant of the replay its campaign made, without running the
    /// store beyond the shrinker's own first look (through an adapter each replay costs
    /// round trips, or a whole timeout).
    #[test]
    fn out_of_time_a_class_failure_is_saved_as_found_without_running_the_store_again() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        struct Counted {
            kind: StoreKind,
            made: AtomicUsize,
        }
        impl StoreFactory for Counted {
            fn name(&self) -> String {
                self.kind.name()
            }
            fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
                self.made.fetch_add(1, Ordering::Relaxed);
                self.kind.make(c)
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        let (mut classes, mut masked) = (0, 0);
        for (kind, f) in all_failures()
            .into_iter()
            .filter(|(_, f)| f.class.is_some())
        {
            let first = classify(&kind, f.config.clone(), &f.steps, &f.mask);
            let counted = Counted {
                kind,
                made: AtomicUsize::new(0),
            };
            let past = Limits {
                deadline: Some(Instant::now()),
                ..Limits::default()
            };
            let found =
                shrink_and_save_after(&counted, &f, &file, past, Some(first.clone())).unwrap();
            let what = format!("{} seed {:?} class {:?}", f.store, f.seed, f.class);
            // The shrinker's own look at the trace, alone, makes as many tabs.
            let made = counted.made.swap(0, Ordering::Relaxed);
            let keeps = HasClass {
                stores: &counted,
                class: f.class.as_ref().unwrap(),
                mask: &f.mask,
            };
            let steps = first.report.steps.clone();
            shrink_failing(&keeps, f.config.clone(), f.steps.len(), steps, past);
            let alone = counted.made.load(Ordering::Relaxed);
            assert_eq!(made, alone, "{what}: the store ran again");
            assert_eq!(found.shrunk.steps, f.steps, "{what}");
            assert!(
                matches!(found.shrunk.gave_up, Some(GaveUp::Deadline(_))),
                "{what}"
            );
            assert_eq!(
                Some(found.invariant),
                first.report.outcome.invariant(),
                "{what}"
            );
            let saved = crate::trace::scenario::load(&file).unwrap();
            assert_eq!(saved.masked, first.masked, "{what}");
            classes += 1;
            masked += usize::from(!first.masked.is_empty());
        }
        assert!(
            classes > 0 && masked > 0,
            "{classes} classes, {masked} found under a mask"
        );
    }

    /// A committed known failure whose 1-minimal steps show their class only past their
    /// mask (`scenarios/known/current`, three files) is shrunk to itself and saved with
    /// that mask: dropped, the file would replay to another class.
    #[test]
    fn a_shrunk_class_failure_that_needs_its_mask_keeps_it() {
        let kind = by_name("current").unwrap();
        let dir = crate::testing::repo_file("scenarios/known/current");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut masked = 0;
        for path in files {
            let sc = crate::trace::scenario::load(&path).unwrap();
            if sc.masked.is_empty() {
                continue;
            }
            let f = Failure {
                class: sc.class.clone(),
                mask: sc.masked.clone(),
                ..Failure::of_run(
                    sc.store.clone(),
                    sc.expect.unwrap(),
                    sc.seed,
                    sc.strategy.clone(),
                    replay(&kind, sc.config.clone(), &sc.steps()),
                    WorldPins::default(),
                )
            };
            let (s, m, _) = shrink_failure(&kind, &f, Limits::default(), None).unwrap();
            let what = path.display();
            assert_eq!(s.steps, sc.steps(), "{what}: 1-minimal already");
            assert_eq!(m, sc.masked, "{what}: the mask it needs");
            assert!(shows(&kind, &f, &s.config, &s.steps, &m), "{what}");
            assert!(!shows(&kind, &f, &s.config, &s.steps, &[]), "{what}");
            masked += 1;
        }
        assert!(masked >= 1, "no committed file needs a mask");
    }

    /// A test store that waits, while its `at`-th store is made, until `deadline` (and
    /// notes whether the deadline passed before that).
    struct WaitsAt {
        kind: StoreKind,
        made: std::sync::atomic::AtomicUsize,
        at: usize,
        deadline: Instant,
        early: std::sync::atomic::AtomicBool,
    }

    impl WaitsAt {
        fn new(kind: StoreKind, at: usize, deadline: Instant) -> WaitsAt {
            WaitsAt {
                kind,
                made: Default::default(),
                at,
                deadline,
                early: Default::default(),
            }
        }
    }

    impl StoreFactory for WaitsAt {
        fn name(&self) -> String {
            self.kind.name()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            use std::sync::atomic::Ordering;
            let n = self.made.fetch_add(1, Ordering::Relaxed) + 1;
            if n < self.at && Instant::now() >= self.deadline {
                self.early.store(true, Ordering::Relaxed);
            }
            if n == self.at {
                while Instant::now() < self.deadline {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            self.kind.make(c)
        }
    }

    /// `f` shrunk on `kind` with a deadline that passes while the `at`-th store is made
    /// (given more time, and tried again, when it passed before): the shrink and its mask.
    fn shrink_stopped_at(kind: StoreKind, f: &Failure, at: usize) -> (Shrunk, Vec<Class>) {
        let mut wait = Duration::from_millis(50);
        loop {
            let waits = WaitsAt::new(kind, at, Instant::now() + wait);
            let limits = Limits {
                deadline: Some(waits.deadline),
                ..Limits::default()
            };
            let (s, m, _) = shrink_failure(&waits, f, limits, None).unwrap();
            if !waits.early.load(std::sync::atomic::Ordering::Relaxed) {
                return (s, m);
            }
            wait *= 2;
        }
    }

    /// Stopped by the campaign's deadline after cutting some steps, a class failure found
    /// under a mask is saved with the mask its cut trace needs, no more: none when the
    /// cut trace shows the class unmasked. The deadline passes while the store is made
    /// for a chosen replay (the store waits for it), so where the shrink stops does not
    /// depend on the machine's speed.
    #[test]
    fn a_class_shrink_stopped_by_the_deadline_keeps_only_the_mask_its_cut_trace_needs() {
        let mut dropped = 0;
        let cases: Vec<(StoreKind, Failure)> = all_failures()
            .into_iter()
            .filter(|(k, f)| {
                f.class.is_some()
                    && !classify(k, f.config.clone(), &f.steps, &f.mask)
                        .masked
                        .is_empty()
            })
            .collect();
        assert!(!cases.is_empty(), "no class failure found under a mask");
        for (kind, f) in cases.into_iter().take(3) {
            let what = format!("{} seed {:?} class {:?}", f.store, f.seed, f.class);
            // How many tabs a whole shrink makes.
            let counted = WaitsAt::new(kind, usize::MAX, Instant::now());
            shrink_failure(&counted, &f, Limits::default(), None).unwrap();
            let total = counted.made.load(std::sync::atomic::Ordering::Relaxed);
            for at in [total / 2, total * 3 / 4] {
                let (s, m) = shrink_stopped_at(kind, &f, at);
                assert!(matches!(s.gave_up, Some(GaveUp::Deadline(_))), "{what}");
                assert!(shows(&kind, &f, &s.config, &s.steps, &m), "{what}");
                if shows(&kind, &f, &s.config, &s.steps, &[]) {
                    assert_eq!(
                        m,
                        Vec::<Class>::new(),
                        "{what}: a mask the cut trace does not need"
                    );
                    dropped += usize::from(s.steps.len() < f.steps.len());
                }
            }
        }
        assert!(
            dropped > 0,
            "no stopped shrink cut a trace down to one needing no mask"
        );
    }
}
